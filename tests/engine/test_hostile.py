"""Hostile game Lua against the engine's newest surfaces (Yoga, native UI and its XML reader, NanoVG, cjson,
File/VFS, the platform fakes, events).

A fixed set of seeded fuzz programs (tests/engine/fuzz_surfaces.py) must end in the engine's recorded outcomes, with
nothing Python reaching the game and nothing read outside the sandbox, and give the same evidence twice.  The other
tests are the regressions of what the fuzzer found; `python bench/fuzz.py --seconds N --seed S` runs it longer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from engine import Engine, EngineSettings, RunRequest, run_in_subprocess
from engine._runner import OUTCOMES
from engine.testing import lua, new_engine
from tests.engine.fuzz_surfaces import (
    ADVERSARIAL,
    Program,
    Step,
    evidence_digest,
    findings,
    generate,
    run_program,
)

SEVERE = {"crash", "timeout", "engine_error", "leak", "sandbox"}
CI_SEEDS = range(120)
DETERMINISM_SEEDS = (3, 17, 42, 77, 101, 150)


def _run_all(seeds: range | tuple[int, ...]) -> list[tuple[int, dict[str, Any]]]:
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda s: (s, run_program(generate(s))), seeds))


# ----------------------------------------------------------------------------------------------------------------
# The fuzzer itself
# ----------------------------------------------------------------------------------------------------------------
def test_programs_depend_only_on_the_seed_and_reach_every_surface() -> None:
    assert generate(7) == generate(7)
    assert generate(7).main_lua() != generate(8).main_lua()
    labels: set[str] = set()
    text = ""
    for seed in CI_SEEDS:
        program = generate(seed)
        labels.update(step.label for step in program.steps)
        text += program.main_lua()
    assert labels >= {"call", "yoga_tree", "ui_tree", "layout_files", "nanovg_frame", "cjson_ops", "vfs_ops",
                      "platform_ops", "event_storm", "memory_pressure"}
    for api in ("YGNode", "nvg", "cjson.", "File(", "fileSystem:", "clientCloud", "serverCloud", "LoadLayout",
                "SetStyle", "X.in_co(", "X.again", "X.hostile(", "X.fake(", "X.freed_node()", "X.removed()"):
        assert api in text, api


def test_findings_are_read_from_the_report() -> None:
    """The judge of the fuzzer: each kind of problem in a report is named (so the CI test can fail)."""
    crash = {"outcome": "crash", "errors": [{"message": "engine worker died (exit -11): Segmentation fault"}]}
    assert [f.kind for f in findings(crash)] == ["crash"]
    escaped = {"outcome": "lua_error", "errors": [
        {"message": "engine/runtime/85_nanovg.lua:1312: attempt to compare table with number", "phase": "engine"}]}
    assert {f.kind for f in findings(escaped)} == {"engine_error", "internal"}
    leaked = {"outcome": "clean", "errors": [], "log": [{"message": "E3 LEAK userdata error: [Errno 36] x"}]}
    assert [f.kind for f in findings(leaked)] == ["leak"]
    misplaced = {"outcome": "clean", "errors": [], "log": [
        {"message": "E1 engine/runtime/85_nanovg.lua:9: bad argument #1 to 'nvgRect' (number expected, got nil)"}]}
    assert [f.kind for f in findings(misplaced)] == ["misplaced"]
    clean = {"outcome": "lua_error", "errors": [{"message": "scripts/main.lua:3: bad argument #1 to 'nvgRect'",
                                                  "phase": "Start"}], "log": []}
    assert findings(clean) == []


def test_the_fixed_seed_set_ends_in_recorded_outcomes() -> None:
    results = _run_all(CI_SEEDS)
    problems = []
    outcomes: dict[str, int] = {}
    pressured: dict[str, int] = {}
    for seed, report in results:
        tally = pressured if generate(seed).memory_limit else outcomes
        tally[report["outcome"]] = tally.get(report["outcome"], 0) + 1
        for f in findings(report):
            if f.kind in SEVERE:
                problems.append(f"seed {seed}: {f.kind}: {f.signature}: {f.detail[:300]}")
    assert not problems, "\n".join(problems) + "\n(reproduce: python bench/fuzz.py --programs 1 --seed SEED)"
    assert set(outcomes) | set(pressured) <= set(OUTCOMES)
    # The set is hostile enough to hit errors and limits, and tame enough to run clean games too.  How many
    # programs squeeze memory follows the surface catalogue (it grows with the engine), so each kind is judged
    # on its own: squeezed programs mostly end at the memory limit, the others mostly run clean or stop at an error.
    squeezed, others = sum(pressured.values()), sum(outcomes.values())
    assert squeezed > 10 and pressured.get("memory", 0) >= squeezed * 0.75
    # (assigning a read-only property stores a field, as tolua++ does, so fewer programs end in errors than before)
    assert outcomes.get("clean", 0) > others * 0.5 and outcomes.get("lua_error", 0) > 5


def test_fuzz_programs_give_the_same_evidence_twice() -> None:
    first = dict(_run_all(DETERMINISM_SEEDS))
    second = dict(_run_all(DETERMINISM_SEEDS))
    for seed in DETERMINISM_SEEDS:
        assert evidence_digest(first[seed]) == evidence_digest(second[seed]), seed


# ----------------------------------------------------------------------------------------------------------------
# Regressions: memory exhausted while Python hands values to Lua, and in the report
# ----------------------------------------------------------------------------------------------------------------
FILL = """
local hog = {}
while true do
  local room = %d - %d - collectgarbage('count') * 1024
  if room <= 256 then break end
  hog[#hog + 1] = string.rep('m', room > 4194304 and 1048576 or math.max(16, math.floor(room / 4)))
end
"""
LIMIT = 48 * 1024 * 1024


@pytest.mark.parametrize("margin", [256, 65536])
@pytest.mark.parametrize(("setup", "call"), [
    ("", "require('data.mod')"),
    ("", "nvgCreateFont(nvgCreate(1), 'f', 'Fonts/Anonymous Pro.ttf')"),
    ("tree = YGNodeNew() for i = 1, 300 do YGNodeInsertChild(tree, YGNodeNew(), 0) end",
     "YGNodeFreeRecursive(tree)"),
])
def test_memory_running_out_while_the_host_answers_is_a_memory_outcome(make_game: Callable[..., Path], margin: int,
                                                                       setup: str, call: str) -> None:
    """lupa cannot recover from a failed allocation while it converts a Python value: the worker hung (or its
    interpreter was corrupted) when a game held memory at its limit and then required a module, loaded a font or
    freed a Yoga subtree.  Host answers are now made without the game's limit (E.host_call)."""
    main = (f"function Start()\n{setup}\n{FILL % (LIMIT, margin)}\n"
            f"for _ = 1, 5 do pcall(function() {call} end) end\nend\n")
    game = make_game(main, {"data/mod.lua": "return {value = 1}\n--" + "x" * 300_000})
    report = run_in_subprocess(RunRequest(game_dir=str(game), seconds=0.1, settings={"memory_limit": LIMIT}),
                               wall_seconds=60)
    assert report["outcome"] in ("memory", "clean"), report["errors"][:1]


def test_the_report_of_a_run_that_used_up_its_memory_is_still_read(make_game: Callable[..., Path]) -> None:
    """Reading the report copies the log inside Lua; with the game's memory full that failed (LuaMemoryError) and
    the worker died.  The report is now read without the game's limit."""
    main = ("function Start()\n  for i = 1, 20000 do print(('line %d '):format(i) .. ('x'):rep(200)) end\n"
            + (FILL % (LIMIT, 64)) + "  local more = {} for i = 1, 1e9 do more[i] = ('y'):rep(64) .. i end\nend\n")
    report = run_in_subprocess(RunRequest(game_dir=str(make_game(main)), seconds=0.1,
                                          settings={"memory_limit": LIMIT}), wall_seconds=60)
    assert report["outcome"] == "memory"
    assert len(report["log"]) == 20000


def test_the_memory_cap_holds_after_the_report_is_read(make_game: Callable[..., Path]) -> None:
    settings = EngineSettings(memory_limit=LIMIT)
    engine = Engine(make_game("function Start() local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(1000) .. i end end"),
                    settings)
    engine.start()
    assert engine.report().outcome == "memory"
    assert engine.runtime.get_memory_used() <= LIMIT
    engine.run_frames(2)   # the run stays stopped, and the engine usable
    assert engine.report().outcome == "memory"


# ----------------------------------------------------------------------------------------------------------------
# Regressions: engine work that grew exponentially from a tiny program
# ----------------------------------------------------------------------------------------------------------------
SELF_STYLE = """<elements>
  <element type="A" style="A"><attribute name="Size" value="10 10" />
    <element type="Button" style="A" /><element type="Button" style="A" /><element type="Button" style="A" />
  </element>
</elements>"""
FAN_STYLE = "<elements>" + "".join(
    f'<element type="S{i}">' + "".join(f'<element type="UIElement" style="S{i + 1}" />' for _ in range(4)) +
    "</element>" for i in range(12)) + "</elements>"


@pytest.mark.parametrize(("style", "message"), [(SELF_STYLE, "nested deeper than 32"),
                                                  (FAN_STYLE, "more than 20000 elements")])
def test_styles_that_expand_without_end_stop_with_an_error(style: str, message: str) -> None:
    """A style referring to itself from its children (or styles fanning out into each other) did exponential work
    within the nesting limit: memory exhausted or the wall clock hit, from a 300-byte file."""
    engine = new_engine(files={"data/style.xml": style})
    started = time.monotonic()
    result = lua("""
        local file = cache:GetResource("XMLFile", "data/style.xml")
        local e = ui.root:CreateChild("Window")
        e:SetDefaultStyle(file)
        local first = e:SetStyle(STYLE)
        -- nothing is left behind: the next operation starts from zero and the element still lays out
        local second = ui.root:CreateChild("Button")
        second:SetDefaultStyle(file)
        second:SetStyle("Missing")
        e:SetLayout(1, 0)
        e:SetSize(200, 50)
        return first, e.width
    """.replace("STYLE", '"A"' if style is SELF_STYLE else '"S0"'), engine)
    assert time.monotonic() - started < 20
    assert result[1] == 200
    messages = [str(m["message"]) for m in engine.report().log]
    assert sum(message in m for m in messages) == 1, messages[:5]


def test_game_text_in_the_log_and_errors_is_clipped() -> None:
    """A 4 MB invalid-UTF-8 font name passed to nvgCreateFont in a NanoVGRender handler was cleaned byte by byte and
    logged in full every frame: 18 frames took the whole wall clock, and the report held hundreds of megabytes."""
    engine = new_engine("""
        local huge = string.rep("\\0\\255ab", 1 << 20)
        function Start()
          print(string.rep("p", 100000))
          local vg = nvgCreate(1)
          SubscribeToEvent(vg, "NanoVGRender", function() nvgCreateFont(vg, "f", huge) end)
          SubscribeToEvent("Update", function() error(string.rep("e", 50000)) end)
        end
    """)
    started = time.monotonic()
    engine.start()
    engine.run_frames(18)
    assert time.monotonic() - started < 20
    report = engine.report()
    assert len(report.log) == 19 and len(report.errors) == 18
    assert all(len(m["message"]) < 4 * 8192 + 50 for m in report.log)   # invalid bytes read as \\xNN
    assert report.log[0]["message"].endswith("... (100000 bytes)")
    assert report.log[1]["message"].startswith("nvgCreateFont: could not load font")
    assert all(len(e["message"]) < 9000 and e["message"].endswith("bytes)") for e in report.errors)


def test_cjson_bounds_work_on_shared_subtables_and_nesting() -> None:
    started = time.monotonic()
    out = lua("""
        local t = {}
        for _ = 1, 300 do t = {t, k = t} end             -- 2^300 values when every reference is encoded
        local ok1, e1 = pcall(cjson.encode, t)
        local ok2, e2 = pcall(cjson.decode, string.rep("[", 100000))
        local ok3, e3 = pcall(cjson.decode, string.rep("[", 1000) .. string.rep("]", 1000))
        local shared = {1, 2}
        local s = cjson.encode({a = shared, b = shared, c = cjson.null})
        return ok1, e1, ok2, e2, ok3, s, getmetatable(cjson.null)
    """)
    assert time.monotonic() - started < 20
    assert out[0] is False and "more than 1000000 values" in out[1]
    assert out[2] is False and out[3] == "Found too many nested data structures (1001) at character 1001"
    assert out[4] is True
    assert out[5] == '{"a":[1,2],"b":[1,2],"c":null}'
    assert out[6] is False   # cjson.null is shared with the engine: its metatable is locked


# ----------------------------------------------------------------------------------------------------------------
# Regressions: Python reaching the game
# ----------------------------------------------------------------------------------------------------------------
def test_require_of_a_name_the_file_system_refuses_is_a_lua_error_with_text() -> None:
    """A component longer than the file system allows made the resolver raise OSError: the game caught the
    Python exception object itself (and its message named a machine path)."""
    out = lua("""
        local results = {}
        for _, name in ipairs({("x"):rep(300), "a/" .. ("y"):rep(300), ("z"):rep(5000)}) do
          local ok, err = pcall(require, name)
          results[#results + 1] = type(err)
          results[#results + 1] = err
        end
        return results
    """)
    assert out[0::2] == ["string", "string", "string"]
    assert "not found" in out[1] and "not found" in out[3] and "is not allowed" in out[5]
    assert all("/work/" not in m and "/root/" not in m and "Errno" not in m for m in out[1::2])


# ----------------------------------------------------------------------------------------------------------------
# Regressions: arguments checked before they are stored or used
# ----------------------------------------------------------------------------------------------------------------
def _errors_and_log(engine: Engine) -> tuple[list[dict[str, Any]], list[str]]:
    report = engine.report()
    return report.errors, [str(m["message"]) for m in report.log]


def test_a_nanovg_render_order_that_is_not_a_number_no_longer_breaks_the_frame() -> None:
    """nvgSetRenderOrder stored a table; the frame's sort of the contexts then failed outside every handler,
    ending the run (phase 'engine')."""
    engine = new_engine("""
        function Start()
          local vg = nvgCreate(1)
          nvgCreate(1)
          local ok, err = pcall(nvgSetRenderOrder, vg, {})
          print(err)
          print(select(2, pcall(function() nvgRect(vg, 1, "x", 3, 4) end)))
          print(select(2, pcall(function() nvgFillColor(vg, {r = 1}) end)))
          print(select(2, pcall(function() nvgTransformRotate("m", 1) end)))
          nvgSetRenderOrder(vg, "3")
        end
    """)
    engine.start()
    engine.run_frames(5)
    errors, log = _errors_and_log(engine)
    assert errors == [] and engine.frame == 5
    assert log[0] == "bad argument #2 to 'nvgSetRenderOrder' (number expected, got table)"
    assert log[1].startswith("scripts/main.lua:7: bad argument #3 to 'nvgRect' (number expected, got string)")
    assert log[2].startswith("scripts/main.lua:8: bad argument #2 to 'nvgFillColor' (NVGcolor expected")
    assert log[3].startswith("scripts/main.lua:9: bad argument #1 to 'nvgTransformRotate' (table expected")


def test_ui_methods_check_self_numbers_value_types_and_overloads() -> None:
    out = lua("""
        local b = ui.root:CreateChild("Button")
        local bi = ui.root:CreateChild("BorderImage")
        local t = ui.root:CreateChild("Text")
        local function err(f) local ok, e = pcall(f) return e end
        b:SetSize("30", 20.9)
        return {
          err(function() b:SetSize(nil) end),
          err(function() b:SetSize(10, {}) end),
          err(function() b:SetColor(Color(1, 0, 0), 5) end),
          err(function() b:SetLayoutBorder(nil) end),
          err(function() bi.GetImageBorder(t) end),
          err(function() b.size = 5 end),
          b.width, b.height,
        }
    """)
    assert out[0] == "test:8: bad argument #1 to 'SetSize' (IntVector2 or integer expected, got nil)"
    assert out[1] == "test:9: bad argument #2 to 'SetSize' (integer expected, got table)"
    assert out[2].startswith("test:10: bad argument #2 to 'SetColor'")
    assert out[3] == "test:11: bad argument #1 to 'SetLayoutBorder' (IntRect expected, got nil)"
    assert "invalid 'self' in call to BorderImage:GetImageBorder (a BorderImage was expected, got Text)" in out[4]
    assert out[5].startswith("test:13: bad argument #2 to 'SetSize'")
    assert out[6:] == [30, 20]


def test_faked_input_events_with_odd_data_read_like_variants() -> None:
    """The UI's own input handlers read raw event values: a game sending MouseMove {X = "a"} broke them."""
    engine = new_engine("""
        function Start()
          local w = ui.root:CreateChild("Window") w:SetSize(1280, 720)
          for _, name in ipairs({"MouseMove", "MouseButtonDown", "MouseButtonUp", "TouchBegin", "TouchMove",
                                 "TouchEnd", "MouseWheel", "KeyDown", "TextInput"}) do
            SendEvent(name, {X = "a", Y = {}, DX = 0/0, DY = 1/0, Button = "left", Buttons = print, Wheel = {},
                             TouchID = 2^40, Key = Vector2(1, 2), Text = 5, Qualifiers = true})
          end
        end
    """)
    engine.start()
    engine.run_frames(3)
    errors, _ = _errors_and_log(engine)
    assert errors == []


def test_send_event_checks_its_data_and_stops_runaway_nesting() -> None:
    engine = new_engine("""
        function Start()
          print(select(2, pcall(SendEvent, "Custom", "text")))
          SubscribeToEvent("Again", function(t, d) SendEvent("Again", d) end)
          SendEvent("Again", {})
          print(select(2, pcall(UnsubscribeFromAllEventsExcept, {1, {}, "Again"})))
        end
    """)
    engine.start()
    errors, log = _errors_and_log(engine)
    assert log[0] == "bad argument #2 to 'SendEvent' (VariantMap expected, got string)"
    assert errors and all("events nested deeper than 50 levels" in e["message"] for e in errors)
    assert all(e["message"].startswith("scripts/main.lua:4:") for e in errors)
    assert "C stack overflow" not in str(errors)


def test_file_numbers_and_scan_filters_are_converted_like_the_cpp_api() -> None:
    out = lua("""
        local f = File("save/a.bin", FILE_WRITE)
        f:WriteInt(2^40 + 7) f:WriteUInt(-1) f:WriteByte(300.7) f:WriteFloat("1.5")
        local pos = f:Seek(2.9)
        f:Close()
        local r = File("save/a.bin", FILE_READ)
        local values = {pos, r:ReadInt(), r:ReadUInt(), r:ReadByte(), r:ReadFloat(), r:Read(1.5):GetSize()}
        values[#values + 1] = #fileSystem:ScanDir("save", "*.b[n", 0, true)
        values[#values + 1] = #fileSystem:ScanDir("save", "*.bin", 0, true)
        values[#values + 1] = select(2, pcall(function() fileSystem:ScanDir("save", {}, 0, true) end))
        values[#values + 1] = select(2, pcall(function() local x = ReplaceExtension("a.txt", {}) end))
        return values
    """)
    assert out[:6] == [2, 7, 4294967295, 44, 1.5, 0]
    assert out[6:8] == [0, 1]
    assert out[8] == "test:10: bad argument #2 to 'ScanDir' (string expected, got table)"
    assert out[9] == "test:11: bad argument #2 to 'ReplaceExtension' (string expected, got table)"


def test_platform_methods_check_their_object_and_callbacks() -> None:
    """A batch's method called on another object read a record of the wrong shape; a callback that is not a
    function failed inside the engine on the answer's frame."""
    engine = new_engine("""
        function Start()
          local batch = clientCloud:BatchSet()
          print(select(2, pcall(function() batch.Set(ui.root, "k", 1) end)))
          print(select(2, pcall(function() serverCloud:BatchCommit("d"):MoneyAdd(10001, "gold", "x") end)))
          clientCloud:Get("k", {ok = 5})
          sdk:ShowRewardVideoAd(nil)
          GetUserNickname({userIds = {10001}, onSuccess = "nope"})
        end
    """)
    engine.start()
    engine.run_frames(5)
    errors, log = _errors_and_log(engine)
    assert log[0] == "scripts/main.lua:4: invalid 'self' in call to ClientCloudBatchSet method (got UIElement)"
    assert log[1] == "scripts/main.lua:5: bad argument #3 to 'MoneyAdd' (number expected, got string)"
    messages = sorted(e["message"] for e in errors)
    assert messages == ["GetUserNickname: the callback is a string, not a function",
                        "clientCloud:Get: the events table's 'ok' is a number, not a function"]


def test_a_yield_from_a_callback_the_engine_called_is_refused_as_in_urhox() -> None:
    """A game coroutine whose event handler (or __pairs met by cjson) yielded suspended the engine halfway: an event
    half sent, counters never restored if the coroutine was dropped.  UrhoX's engine is C++, where such a yield
    fails; here too.  The game's own yields, through its own pcall, still work."""
    engine = new_engine("""
        function Start()
          SubscribeToEvent("Y", function() coroutine.yield() end)
          local co = coroutine.create(function() SendEvent("Y", {}) return "after" end)
          print(select(2, coroutine.resume(co)), coroutine.status(co))
          local co2 = coroutine.create(function()
            return cjson.encode(setmetatable({}, {__pairs = function() coroutine.yield() return next, {}, nil end}))
          end)
          print(select(2, coroutine.resume(co2)))
          local co3 = coroutine.create(function(a) pcall(function() a = coroutine.yield(a) end) return a * 2 end)
          coroutine.resume(co3, 1)
          print(select(2, coroutine.resume(co3, 21)))
          for i = 1, 60 do SendEvent("Z", {}) end   -- nothing was left half sent
        end
    """)
    engine.start()
    errors, log = _errors_and_log(engine)
    assert log == ["after\tdead", "scripts/main.lua:7: attempt to yield across a C-call boundary", "42"]
    assert [e["message"] for e in errors] == ["scripts/main.lua:3: attempt to yield across a C-call boundary"]


def test_a_negative_search_start_finds_nothing_instead_of_counting_from_minus_two_billion() -> None:
    """RemoveChild(child, index) searched from the game's index: -2^31 (or 1e15 cast to int) made the engine
    count up two billion times, the wall clock the only stop.  Urho3D's index is unsigned: nothing is found."""
    started = time.monotonic()
    out = lua("""
        local p = ui.root:CreateChild("UIElement")
        local c = p:CreateChild("Text")
        p:RemoveChild(c, -2147483648)
        p:RemoveChild(c, 1e15 + 0.5)
        local kept = p:GetNumChildren()
        p:RemoveChild(c)
        local l = ui.root:CreateChild("ListView")
        local item = ui.root:CreateChild("Text")
        l:AddItem(item)
        l:RemoveItem(item, -5)
        return kept, p:GetNumChildren(), l:GetNumItems()
    """)
    assert out == [1, 0, 1]
    assert time.monotonic() - started < 5


def test_odd_echo_characters_and_variable_names() -> None:
    out = lua("""
        local e = ui.root:CreateChild("LineEdit")
        e:SetText("abc")
        e:SetEchoCharacter(-5)
        local shown = e.textElement.text
        local ok, err = pcall(function() e:SetVar(nil, 1) end)
        return e:GetEchoCharacter(), shown, err
    """)
    assert out[0] == 4294967291 and out[1] == "\ufffd" * 3
    assert out[2] == "test:6: bad argument #1 (a variable's name: StringHash or string expected, got nil)"


# ----------------------------------------------------------------------------------------------------------------
# A reproducer from the fuzzer, kept as it was found (bench/fuzz.py prints these)
# ----------------------------------------------------------------------------------------------------------------
def test_a_minimised_fuzz_program_runs_clean_of_findings() -> None:
    step = Step('X.r(nvgForceAutoHint(nvgCreate(1), X.v("cycle")))\n'
                'X.r(nvgSetRenderOrder(X.ctx(), X.fake("NVGContextWrapper")))', label="call")
    program = Program(seed=155, steps=(step, Step("X.r(cjson.encode(X.v('deep')))", frame=2, label="cjson_ops")))
    report = run_program(program)
    assert report["outcome"] in OUTCOMES
    assert [f for f in findings(report) if f.kind in SEVERE] == []
    assert report["frames"] == round(program.seconds * 60)


def test_adversarial_values_are_valid_lua() -> None:
    """Every adversarial value the generator uses evaluates in a game (else the fuzzer would test syntax errors)."""
    assert len(ADVERSARIAL) > 100
    program = Program(seed=0, steps=tuple(Step(f"local v = {v}", label="value") for v in ADVERSARIAL))
    report = run_program(program)
    assert report["outcome"] == "clean", report["errors"][:2]
    assert findings(report) == []


def test_the_canary_next_to_the_game_folder_is_never_read() -> None:
    paths = ("../canary.txt", "../../canary.txt", "/tmp/../canary.txt", "..\\\\canary.txt", "./../canary.txt",
             "scripts/../../canary.txt", "%2e%2e/canary.txt")
    reads = []
    for p in paths:
        q, module = repr(p), repr(p.replace(".txt", ""))
        reads += [
            f"local f = File({q}, FILE_READ) X.r(f:ReadString(), f:GetSize(), f:IsOpen())",
            f"X.r(fileSystem:FileExists({q}), cache:Exists({q}))",
            f"X.r(cache:GetResource('XMLFile', {q}))",
            f"X.r(nvgCreateFont(X.ctx(), 'c', {q}), nvgCreateImage(X.ctx(), {q}, 0))",
            f"X.r(ui:LoadLayout({q}))",
            f"X.r(pcall(require, {module}))",
        ]
    program = Program(seed=1, steps=tuple(Step(code, label="canary") for code in reads))
    report = run_program(program)
    assert report["outcome"] in OUTCOMES
    assert not [e for e in report["errors"] if e["phase"] == "load"]   # the steps ran
    assert sum("Could not open file" in m["message"] for m in report["log"]) == len(paths)
    assert [f for f in findings(report) if f.kind in ("sandbox", "leak", "crash")] == []
    assert "GRADER-FUZZ-CANARY" not in str(report)
