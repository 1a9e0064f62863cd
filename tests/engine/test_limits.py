"""Limits end runs as recorded outcomes, never as engine crashes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Engine, EngineSettings
from engine.testing import lua, new_engine

SMALL = EngineSettings(instruction_budget=5_000_000, memory_limit=48 * 1024 * 1024)


def run(game: Path, frames: int = 10) -> tuple[str, Engine]:
    engine = Engine(game, SMALL)
    engine.start()
    engine.run_frames(frames)
    return engine.report().outcome, engine


@pytest.mark.parametrize(
    "source",
    [
        "function Start() while true do end end",
        "function Start() SubscribeToEvent('Update', function() while true do end end) end",
        "function Start() while true do pcall(function() while true do end end) end end",
        "function Start() while true do\n"
        "  xpcall(function() while true do end end, function() while true do end end) end end",
        "function Start() coroutine.wrap(function() while true do end end)() end",
        "function Start() local co = coroutine.create(function() while true do end end)\n"
        "  while true do coroutine.resume(co) end end",
        "function Start() ('x'):rep(100):gsub('x', function() while true do end end) end",
        "function Start() local function f() return f() end f() end",
        "function Start() local x = 0 repeat x = x + 1 until x < 0 end",
        "function Start() ::again:: goto again end",
        "function Start() local t = setmetatable({}, {__index = function(t, k) return t[k + 1] end}) while true do\n"
        "  pcall(function() return t[1] end) end end",
        "function Start() table.sort({3, 2, 1}, function(a, b) while true do end end) end",
        "function Start() load('while true do end', '@engine/runtime/90_frame.lua')() end",   # no name escapes it
    ],
)
def test_infinite_loops_exhaust_the_budget(make_game: Callable[..., Path], source: str) -> None:
    outcome, engine = run(make_game(source))
    assert outcome == "budget"
    report = engine.report()
    assert report.errors[-1]["phase"] == "limit"
    assert "instruction budget" in report.errors[-1]["message"]


@pytest.mark.parametrize(
    "source",
    [
        "function Start() local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(1000) .. i end end",
        "function Start() local s = ('x'):rep(1e9) end",
        "function Start() while true do\n"
        "  pcall(function() local t = {} for i = 1, 1e9 do t[i] = ('y'):rep(64) .. i end end) end end",
    ],
)
def test_memory_bombs_hit_the_memory_cap(make_game: Callable[..., Path], source: str) -> None:
    outcome, engine = run(make_game(source))
    assert outcome == "memory"
    assert engine.runtime.get_memory_used() <= SMALL.memory_limit


def test_an_error_in_update_does_not_stop_the_frame_loop(make_game: Callable[..., Path]) -> None:
    game = make_game(
        "count = 0\n"
        "function Start() SubscribeToEvent('Update', 'HandleUpdate') end\n"
        "function HandleUpdate() count = count + 1; if count % 2 == 0 then error('boom') end end\n"
    )
    outcome, engine = run(game, frames=10)
    assert outcome == "lua_error"
    report = engine.report()
    assert report.frames == 10
    assert engine.game_env["count"] == 10
    assert [e["frame"] for e in report.errors] == [2, 4, 6, 8, 10]
    assert report.errors[0]["message"] == "scripts/main.lua:3: boom"
    assert "stack traceback" in report.errors[0]["traceback"]


def test_a_syntax_error_is_a_recorded_load_error(make_game: Callable[..., Path]) -> None:
    outcome, engine = run(make_game("function Start( end"))
    assert outcome == "lua_error"
    assert engine.report().errors[0]["phase"] == "load"
    assert "scripts/main.lua:1" in engine.report().errors[0]["message"]


def test_a_loop_inside_a_c_function_is_killed_by_the_wall_clock(make_game: Callable[..., Path]) -> None:
    from engine import RunRequest, run_in_subprocess

    # pattern matching runs in C, where the instruction hook never fires: only the process-level kill stops it
    game = make_game("function Start() string.find(string.rep('a', 200000), '.-.-.-.-.-b') end")
    report = run_in_subprocess(RunRequest(game_dir=str(game), seconds=1.0), wall_seconds=3.0)
    assert report["outcome"] == "timeout"
    assert report["errors"][0]["phase"] == "wall"


def test_bytes_that_are_not_utf8_never_crash_the_report(make_game: Callable[..., Path]) -> None:
    """Lua strings are bytes; a hostile game prints, errors, requires and names fonts in junk bytes."""
    game = make_game(
        'function Start()\n'
        '  print("bad \\xff\\xfe byte")\n'
        '  log:Write(LOG_INFO, "cut \\xc3")\n'
        '  assert(not pcall(require, "mod\\xff"))\n'
        '  local vg = nvgCreate(1)\n'
        '  assert(nvgCreateFont(vg, "f", "Fonts/\\xff.ttf") == -1)\n'
        '  SubscribeToEvent("Update", function() error("boom \\x80", 0) end)\n'
        'end\n')
    outcome, engine = run(game, frames=2)
    report = engine.report()
    assert outcome == "lua_error"
    messages = [e["message"] for e in report.log] + [e["message"] for e in report.errors]
    assert "bad \\xFF\\xFE byte" in messages and "cut \\xC3" in messages
    assert [e["message"] for e in report.errors] == ["boom \\x80", "boom \\x80"]
    again = Engine(game, SMALL)
    again.start()
    again.run_frames(2)
    assert again.report().as_dict() == report.as_dict()


def _charged(engine: Engine, code: str) -> int:
    """Budget units the VM charges for running `code` in the game's sandbox."""
    before = int(engine.E.debug.getbudget())
    lua(code, engine)
    return before - int(engine.E.debug.getbudget())


def test_the_budget_is_the_runs_and_charges_game_loops_not_engine_work() -> None:
    engine = new_engine()
    assert engine.E.debug.getbudget() == EngineSettings().instruction_budget
    plain = _charged(engine, "for i = 1, 1000 do local v = i end")
    api = _charged(engine, "local a = Vector3(1, 2, 3) for i = 1, 1000 do local v = (a * i):Normalized() end")
    ui = _charged(engine, "for i = 1, 100 do ui.root:CreateChild('Text'):SetText('x' .. i) end")
    # a loop iteration costs about its body's instructions; what the engine does for the game costs nothing
    assert 2000 <= plain <= 3100
    assert api < 10 * 1000 and ui < 20 * 100
    calls = _charged(engine, "local function f() end for i = 1, 1000 do f() end")
    assert calls - plain >= 4 * 1000    # a call of a game function costs 4


def test_exhaustion_cannot_be_swallowed_and_ends_on_the_same_frame(make_game: Callable[..., Path]) -> None:
    """Once the budget is gone, no game code runs again: not after a pcall, not in an error handler, not in a
    coroutine suspended earlier; and the frame it ran out on is the same in every run."""
    game = make_game(
        "n = 0\n"
        "co = coroutine.create(function() while true do log:Write(LOG_INFO, 'co') coroutine.yield() end end)\n"
        "function Start() SubscribeToEvent('Update', 'HandleUpdate') end\n"
        "function HandleUpdate()\n"
        "  n = n + 1\n"
        "  coroutine.resume(co)\n"
        "  local ok = pcall(function() for i = 1, n * 20000 do end end)\n"
        "  xpcall(function() error('x') end, function() print('handler', n) end)\n"
        "  print('after', n, ok)\n"
        "end\n")
    frames = []
    for _ in range(2):
        engine = Engine(game, EngineSettings(instruction_budget=3_000_000))
        engine.start()
        engine.run_frames(100)
        report = engine.report()
        assert report.outcome == "budget"
        last = report.frames
        frames.append(last)
        after = [e for e in report.log if e["message"].startswith("after")]
        assert after and after[-1]["frame"] == last - 1 and after[-1]["message"].endswith("true")
        assert [e for e in report.log if e["frame"] == last and e["message"] != "co"] == [
            e for e in report.log if e["frame"] == last and e["message"].startswith("handler")] == []
    assert frames[0] == frames[1] and 10 < frames[0] < 100
    # the battery after an abort runs on, uncharged: the report and the scene are still read
    assert engine.E.debug.getbudget() is None


def test_coroutines_share_one_budget(make_game: Callable[..., Path]) -> None:
    game = make_game(
        "function Start()\n"
        "  local cos = {}\n"
        "  for i = 1, 8 do\n"
        "    cos[i] = coroutine.wrap(function() while true do for j = 1, 1000 do end coroutine.yield() end end)\n"
        "  end\n"
        "  for round = 1, 1e9 do for i = 1, 8 do cos[i]() end end\n"
        "end\n")
    outcome, _ = run(game)
    assert outcome == "budget"


def test_the_boot_reads_no_setting_and_a_booted_state_runs_one_game(make_game: Callable[..., Path]) -> None:
    from lupa.lua54 import LuaError

    from engine._engine import boot_state

    booted = boot_state()
    with pytest.raises(LuaError, match="setting 'seed' read while booting"):
        booted.runtime.eval("function(E) return E.host.config.seed end")(booted.E)
    game = make_game("function Start() end")
    Engine(game, booted=booted)
    with pytest.raises(RuntimeError, match="runs one game only"):
        Engine(game, booted=booted)


def test_a_memory_error_that_leaves_lua_ends_the_run_as_a_memory_abort(make_game: Callable[..., Path]) -> None:
    """When the game's data still fills the limit after its handler ran out, the engine's own code can fail to
    allocate outside every Lua handler, and lupa raises LuaMemoryError into the host (TapTap's voxel example does
    this). The run ends as a memory abort, the report is read, and the game is never driven again."""
    engine = Engine(make_game("frames = 0\nfunction Start() SubscribeToEvent('Update', function() "
                              "frames = frames + 1 end) end"), SMALL)
    engine.start()
    engine.run_frames(2)
    with engine._driving():   # what a failed allocation outside every handler raises
        engine.runtime.execute("local t = {} for i = 1, 1e8 do t[i] = {i} end")
    engine.run_frames(5)   # returns at once: the run is over
    report = engine.report()
    assert report.outcome == "memory"
    assert report.frames == 2
    assert report.errors[-1]["message"] == f"memory limit of {SMALL.memory_limit} bytes reached"
