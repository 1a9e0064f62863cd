"""The battery harness: driving input, reading the engine's own state, and resisting a hostile game."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Engine

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
