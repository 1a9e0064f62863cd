"""The battery harness: driving input, reading the engine's own state, and resisting a hostile game."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Engine, EngineSettings, RunRequest, run_in_subprocess

MOVER = """
local scene_
function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  local ball = scene_:CreateChild("Ball")
  ball.position = Vector3(0, 0.5, 0)
  ball:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Sphere.mdl")
  SubscribeToEvent("Update", "HandleUpdate")
  SubscribeToEvent("KeyDown", "HandleKeyDown")
end
jumps = 0
function HandleKeyDown(eventType, eventData)
  if eventData["Key"]:GetInt() == KEY_SPACE then jumps = jumps + 1 end
end
function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  local ball = scene_:GetChild("Ball")
  if input:GetKeyDown(KEY_D) then ball:Translate(Vector3(2, 0, 0) * dt) end
end
"""

BATTERY = """
local h = harness
h.start()
h.run(0.5)
local ball = h.find("Ball")
requirement("R1", {capabilities = {"scene"}}, function(check)
  check.truthy("ball exists", ball)
  check.near("ball rests at y = 0.5", ball.world_position.y, 0.5, 1e-9)
  check.truthy("ball has a model", ball:component("StaticModel"))
end)
h.key_down(KEY_D)
h.run(1.0)
h.key_up(KEY_D)
h.press(KEY_SPACE)
requirement("R2", {capabilities = {"input"}}, function(check)
  check.near("D moves the ball 2 units per second", ball.world_position.x, 2.0, 0.05)
  check.equal("SPACE counted once", h.global("jumps"), 1)
end)
requirement("R3", {layer = "richness"}, function(check)
  check.equal("deliberately wrong", ball.world_position.x, 99)
end)
"""


def run_battery(game: Path, battery: str) -> tuple[Engine, list[dict]]:
    engine = Engine(game)
    engine.run_battery(battery, "battery/test.lua")
    return engine, engine.requirements()


def test_battery_drives_input_and_reads_state(make_game: Callable[..., Path]) -> None:
    engine, reqs = run_battery(make_game(MOVER), BATTERY)
    by_id = {r["id"]: r for r in reqs}
    assert by_id["R1"]["passed"] is True
    assert by_id["R2"]["passed"] is True, by_id["R2"]
    assert by_id["R1"]["capabilities"] == ["scene"]
    assert by_id["R3"]["layer"] == "richness"
    assert by_id["R3"]["passed"] is False
    check = by_id["R3"]["checks"][0]
    assert check["expected"] == 99 and check["actual"] == pytest.approx(2.0, abs=0.05)
    assert check["frame"] == engine.frame
    assert engine.report().outcome == "clean"


TAMPERING = """
-- everything a hostile game might try to make the battery read something false
Vector3 = function() return {x = 0, y = 99, z = 0} end
print = function() end
harness = {find = function() return nil end}
requirement = function() end
string.format = function() return "pwned" end
string.rep = function() return "pwned" end
local ok = pcall(function() getmetatable(Node()).__index = function() return 99 end end)
local ok2 = pcall(setmetatable, scene_ or Scene(), {})
function Start()
  scene_ = Scene()
  local ball = scene_:CreateChild("Ball")
  ball.position = Vector3ORIG and Vector3ORIG(0, 0.5, 0) or ball.position
  rawset(ball, "position", {x = 0, y = 99, z = 0})
  rawset(ball, "worldPosition", {x = 0, y = 99, z = 0})
  Node = nil
  Scene = nil
end
"""

TAMPER_BATTERY = """
harness.start()
harness.run(0.1)
local ball = harness.find("Ball")
requirement("R1", {}, function(check)
  check.near("the engine's ball is at the origin", ball.world_position.y, 0.0, 1e-12)
  check.equal("string methods are pristine for the battery", ("%d"):format(7) .. ("a"):rep(2), "7aa")
  check.equal("Vector3 is the engine's", tostring(Vector3(1, 2, 3)), "1 2 3")
end)
"""


def test_a_hostile_game_cannot_change_what_the_battery_reads(make_game: Callable[..., Path]) -> None:
    _, reqs = run_battery(make_game(TAMPERING), TAMPER_BATTERY)
    assert reqs[0]["passed"] is True, reqs[0]["checks"]


def test_battery_views_are_read_only(make_game: Callable[..., Path]) -> None:
    _, reqs = run_battery(make_game(MOVER), """
    harness.start()
    local ball = harness.find("Ball")
    requirement("R1", {}, function(check)
      local ok = pcall(function() ball.world_position = Vector3(1, 1, 1) end)
      check.falsy("assignment refused", ok)
    end)
    """)
    assert reqs[0]["passed"] is True


def test_a_battery_error_fails_its_requirement(make_game: Callable[..., Path]) -> None:
    _, reqs = run_battery(make_game(MOVER), """
    harness.start()
    requirement("R1", {}, function(check) error("oops") end)
    """)
    assert reqs[0]["passed"] is False
    assert "oops" in reqs[0]["checks"][0]["message"]


def test_a_requirement_without_checks_does_not_pass(make_game: Callable[..., Path]) -> None:
    _, reqs = run_battery(make_game(MOVER), "harness.start(); requirement('R1', {}, function(check) end)")
    assert reqs[0]["passed"] is False


def test_touch_and_click_events_reach_the_game(make_game: Callable[..., Path]) -> None:
    game = make_game("""
    log_ = {}
    function Start()
      SubscribeToEvent("TouchBegin", function(t, d)
        log_[#log_ + 1] = "tb" .. d["X"]:GetInt() .. "," .. d["Y"]:GetInt()
      end)
      SubscribeToEvent("TouchEnd", function(t, d) log_[#log_ + 1] = "te" .. d["TouchID"]:GetInt() end)
      SubscribeToEvent("MouseButtonDown", function(t, d) log_[#log_ + 1] = "md" .. d["Button"]:GetInt() end)
      SubscribeToEvent("MouseButtonUp", function(t, d) log_[#log_ + 1] = "mu" end)
      SubscribeToEvent("Update", function()
        if input:GetMouseButtonPress(MOUSEB_LEFT) then
          local p = input:GetMousePosition(); log_[#log_ + 1] = "press" .. p.x .. "," .. p.y
        end
      end)
    end
    function Summary() return table.concat(log_, " ") end
    summary = ""
    SubscribeToEvent = SubscribeToEvent
    """)
    engine = Engine(game)
    engine.run_battery("""
    harness.start()
    harness.touch(100, 200, 3)
    harness.run_frames(1)
    harness.click(10, 20)
    harness.run_frames(1)
    """, "battery/t.lua")
    log = [engine.game_env["log_"][i] for i in range(1, len(engine.game_env["log_"]) + 1)]
    assert log == ["tb100,200", "te3", "md1", "press10,20", "mu"]


RESIZED_GAME = """
local vg
log_ = {}
function Start()
  vg = nvgCreate(1)
  local panel = ui.root:CreateChild("UIElement", "Panel")
  panel:SetFixedSize(100, 40)
  panel:SetAlignment(HA_RIGHT, VA_BOTTOM)
  SubscribeToEvent("ScreenMode", function(t, d)
    log_[#log_ + 1] = string.format("%d %dx%d %s %dx%d", GetTime():GetFrameNumber(), d["Width"]:GetInt(),
      d["Height"]:GetInt(), tostring(d["HighDPI"]:GetBool()), graphics.width, graphics.height)
  end)
  SubscribeToEvent(vg, "NanoVGRender", function()
    local dpr = graphics:GetDPR()
    local w, h = graphics.width / dpr, graphics.height / dpr
    nvgBeginFrame(vg, w, h, dpr)
    nvgBeginPath(vg)
    nvgRect(vg, w - 50, h - 20, 40, 10)   -- 10 logical pixels from the bottom-right corner
    nvgFillColor(vg, nvgRGBA(255, 0, 0, 255))
    nvgFill(vg)
    nvgEndFrame(vg)
  end)
end
"""


def test_a_resize_reaches_graphics_the_ui_nanovg_and_the_game(make_game: Callable[..., Path]) -> None:
    engine = Engine(make_game(RESIZED_GAME), settings=EngineSettings(dpr=2.0))
    engine.run_battery("""
    local h = harness
    h.start()
    h.run_frames(2)
    local function corner()
      local c = h.drawn()[1]
      local p = h.ui("Panel")
      local w, hh = h.screen()
      return string.format("%dx%d rect %g,%g,%g,%g panel %d,%d", w, hh, c.bounds[1], c.bounds[2], c.bounds[3],
        c.bounds[4], p.x, p.y)
    end
    before = corner()
    h.resize(720, 1280)
    h.run_frames(1)
    after = corner()
    h.resize(720, 1280)         -- the same size again: no event
    h.run_frames(1)
    ok, err = pcall(h.resize, 0, 100)
    """, "battery/t.lua")
    env = engine.battery_env()
    assert env["before"] == "1280x720 rect 1180,680,1260,700 panel 1180,680"
    assert env["after"] == "720x1280 rect 620,1240,700,1260 panel 620,1240"
    log = engine.game_env["log_"]
    assert [log[i] for i in range(1, len(log) + 1)] == ["3 720x1280 true 720x1280"]
    assert env["ok"] is False
    assert "harness.resize: argument #1 must be an integer from 1 to 16384, got 0" in env["err"]


def test_a_variable_loaded_from_a_scene_file_is_read_by_its_name(make_game: Callable[..., Path]) -> None:
    # Saved and loaded, a node variable is known by its name's hash only (no RegisterVar): view:var(name) finds it.
    game = make_game("""
    function Start()
      local scene = Scene()
      local door = scene:CreateChild("Door")
      door:SetVar("Open", Variant(true))
      door:SetVar("Kind", Variant("oak"))
      local file = File("saved.xml", FILE_WRITE)
      scene:SaveXML(file)
      file:Close()
      scene:LoadXML(File("saved.xml", FILE_READ))
    end
    """)
    engine = Engine(game)
    engine.run_battery("""
    harness.start()
    local door = harness.find("Door")
    requirement("R1", {}, function(check)
      check.equal("Open, by name", door:var("Open"), true)
      check.equal("Kind, by name", door:var("Kind"), "oak")
      check.equal("a name it never had", door:var("Shut"), nil)
    end)
    """, "battery/t.lua")
    (req,) = engine.requirements()
    assert req["passed"] is True, req["checks"]




def test_a_battery_reads_and_plants_the_games_files_without_touching_its_log(make_game: Callable[..., Path]) -> None:
    game = make_game("""
    function Start()
      local f = File("save.json", FILE_WRITE)
      f:WriteString('{"score": 3}')
      f:Close()
      SubscribeToEvent("KeyDown", function() loaded = File("save.json", FILE_READ):ReadString() end)
    end
    """)
    (game / "level.txt").write_text("walls")
    engine = Engine(game)
    engine.run_battery("""
    local h = harness
    h.start()
    local written, shipped, missing = h.file("save.json"), h.file("./level.txt"), h.file("none.json")
    h.write_file("save.json", "{broken")
    h.press(KEY_L)
    requirement("R1", {}, function(check)
      check.equal("the game's file (WriteString ends with a zero byte)", written, '{"score": 3}\\0')
      check.equal("the deliverable's file", shipped, "walls")
      check.equal("no such file", missing, nil)
      check.equal("the game reads the planted file", h.global("loaded"), "{broken")
    end)
    """, "battery/t.lua")
    (req,) = engine.requirements()
    assert req["passed"] is True, req["checks"]
    assert [e for e in engine.report().log if e["level"] == "ERROR"] == []


WAITS_FOR_FRAME_30 = """
while h.frame() < 30 do h.run_frames(1) end
requirement("R1", {capabilities = {"scene"}}, function(check) check.truthy("reached frame 30", true) end)
"""


def test_a_battery_waiting_for_a_frame_ends_with_a_run_out_of_budget(make_game: Callable[..., Path],
                                                                     tmp_path: Path) -> None:
    game = make_game("function Start() SubscribeToEvent('Update', function() if time:GetElapsedTime() > 0.1 then "
                     "while true do end end end) end")
    battery = tmp_path / "battery.lua"
    battery.write_text("""
local h = harness
h.start()
requirement("R0", {capabilities = {"scene"}}, function(check) check.truthy("declared before the wait", true) end)
""" + WAITS_FOR_FRAME_30)
    report = run_in_subprocess(RunRequest(game_dir=str(game), battery=str(battery), settings={
        "instruction_budget": 5_000_000, "wall_seconds": 20}))   # the battery ends at its first call after the abort
    assert report["outcome"] == "budget", report["errors"]
    assert [r["id"] for r in report["requirements"]] == ["R0"]
    assert 5 <= report["frames"] < 30


def test_a_battery_goes_on_reading_a_game_that_exited_and_ends_when_it_waits_for_frames(
        make_game: Callable[..., Path], tmp_path: Path) -> None:
    game = make_game("function Start() SubscribeToEvent('Update', function() "
                     "if time:GetElapsedTime() > 0.1 then engine:Exit() end end) end")
    battery = tmp_path / "battery.lua"
    battery.write_text("""
local h = harness
h.start()
h.run(0.5)
local at = h.frame()
h.run_frames(2)
requirement("R0", {capabilities = {"scene"}}, function(check)
  check.truthy("exited", h.exited())
  check.equal("no frame after the exit", h.frame(), at)
end)
""" + WAITS_FOR_FRAME_30)
    report = run_in_subprocess(RunRequest(game_dir=str(game), battery=str(battery), settings={"wall_seconds": 20}))
    assert report["outcome"] == "clean", report["errors"]
    assert [(r["id"], r["passed"]) for r in report["requirements"]] == [("R0", True)]
