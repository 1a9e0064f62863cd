"""The game's sandbox: what it cannot reach, and what stays virtual."""

from __future__ import annotations

import pytest

from engine.testing import lua, new_engine

FORBIDDEN = [
    "io", "debug.getinfo", "debug.sethook", "debug.getupvalue", "debug.setmetatable", "debug.setbudget",
    "debug.getbudget", "debug.unmetered", "debug.metered", "os.execute", "os.exit",
    "os.remove", "os.rename", "os.tmpname", "package.loadlib", "package.cpath", "package.searchers",
    "string.dump", "dofile", "loadfile", "python", "E", "harness", "requirement", "loadstring", "module",
]


@pytest.mark.parametrize("name", FORBIDDEN)
def test_forbidden_names_are_absent(name: str) -> None:
    assert lua(f"return {name} == nil") is True


def test_binary_chunks_are_refused() -> None:
    ok, message = lua("local f = function() return 1 end; return load(string.char(27) .. 'LuaT')")
    assert ok is None
    assert "binary chunk" in message


def test_load_defaults_to_the_game_environment() -> None:
    assert lua("secret = 42; return load('return secret')()") == 42
    assert lua("return load('return E')()") is None


def test_string_dump_is_unreachable_through_string_methods() -> None:
    assert lua("return ('x').dump") is None
    assert lua("return getmetatable('')") is False


def test_require_refuses_paths_outside() -> None:
    for name in ("../../etc/passwd", "/etc/passwd", "a/../../b", "C:\\\\x", "os", "io"):
        ok, message = lua(f"return pcall(require, {name!r})")
        assert ok is False
        assert "not found" in message


def test_gc_metamethods_are_kept_but_never_run() -> None:
    engine = new_engine()
    out = lua("""
    ran = 0
    local mt = {__gc = function() ran = ran + 1 end, __index = {kind = "widget"}}
    local t = setmetatable({}, mt)
    local kept = getmetatable(t).__gc ~= nil and t.kind == "widget"
    for i = 1, 1000 do setmetatable({}, mt) end
    t, mt = nil, nil
    collectgarbage("collect"); collectgarbage("collect")
    local ok = pcall(setmetatable, setmetatable({}, {__metatable = false}), {__gc = print})
    return kept, ran, ok
    """, engine)
    assert out == [True, 0, False]
    warnings = [e["message"] for e in engine.report().log if e["level"] == "WARNING"]
    assert warnings == ["__gc finalizers never run in the grader's engine (the metatable is kept)"]


def test_engine_metatables_are_locked() -> None:
    assert lua("return getmetatable(Vector3(1, 2, 3))") is False
    assert lua("return getmetatable(Scene())") is False
    ok, message = lua("return pcall(setmetatable, Scene(), {})")
    assert ok is False and "protected metatable" in message


def test_no_python_attribute_is_reachable() -> None:
    # every Python callable the engine holds is hidden from game code; probing common dunder paths finds nothing
    probe = """
    local found = {}
    for k, v in pairs(_G) do
      if type(v) == 'userdata' then found[#found + 1] = k end
    end
    return #found
    """
    assert lua(probe) == 0


def test_time_and_randomness_are_virtual() -> None:
    assert lua("return os.time()") == 1767225600
    assert lua("return os.date('%Y-%m-%d')") == "2026-01-01"
    assert lua("return os.time{year=2026, month=1, day=2, hour=0}") == 1767225600 + 86400
    assert lua("return os.clock()") == 0.0
    first = lua("return math.random(1, 1000000000)")
    assert lua("return math.random(1, 1000000000)") == first
    assert lua("math.randomseed(); return math.random(1, 1000000000)") == first
    assert lua("math.randomseed(7); local a = math.random(100); math.randomseed(7); return a == math.random(100)")


def test_lua_54_features_and_51_math_compat() -> None:
    assert lua("return 7 // 2, 7 % 3, 5 & 3, 1 << 4, utf8.char(228), math.pow(2, 10), math.atan2(1, 1) * 4") == [
        3, 1, 1, 16, "ä", 1024.0, pytest.approx(3.141592653589793)]
    assert lua("for i = 1, 3 do if i == 2 then goto done end end ::done:: return 'ok'") == "ok"


def test_games_may_extend_their_string_table() -> None:
    assert lua("function string.trim(s) return (s:gsub('^%s+', '')) end; return ('  x'):trim()") == "x"


def test_urho3d_coroutine_helpers_sleep_in_game_time_and_wait_for_events() -> None:
    """Urho3D's coroutine.start/sleep/waitevent/sendevent/update (its LuaScript's Coroutine.pkg): a sleeper wakes
    in the first PostUpdate after its time has strictly passed, ahead of the game's PostUpdate handlers; an error
    in a coroutine is returned by start, not raised; a sleep outside a coroutine is Lua 5.4's yield error."""
    engine = new_engine("""
    log, frame = {}, 0
    function Start()
      coroutine.start(function()
        for i = 1, 3 do
          log[#log + 1] = "a" .. i .. "@" .. frame
          coroutine.sleep(0.1)
        end
        log[#log + 1] = "a-done@" .. frame
      end)
      coroutine.start(function()
        log[#log + 1] = "b-wait@" .. frame
        coroutine.waitevent("go")
        log[#log + 1] = "b-go@" .. frame
      end)
      SubscribeToEvent("Update", function()
        frame = frame + 1
        if frame == 10 then coroutine.sendevent("go") end
      end)
      SubscribeToEvent("PostUpdate", function()
        if frame == 7 then log[#log + 1] = "game-post@7" end
      end)
    end
    """)
    engine.start()
    engine.run_frames(40)
    # 1/60 s steps: 0.1 s has strictly passed at frame 7 (six steps sum to just under 0.1)
    assert lua("return log", engine) == ["a1@0", "b-wait@0", "a2@7", "game-post@7", "b-go@10", "a3@14", "a-done@21"]
    assert lua("return {coroutine.start(function() error('boom', 0) end)}", engine) == [False, "boom"]
    assert lua("return {pcall(coroutine.sleep, 1)}", engine) == [False, "attempt to yield from outside a coroutine"]
    assert lua("return coroutine.start(nil)", engine) is None
