"""The conformance sweep (bench/conformance.py) over the bundled examples and small sample-style games, and the
sample framework (engine/lua/lib/LuaScripts/Utilities/Sample.lua) it relies on."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from engine.testing import lua, new_engine

REPO = Path(__file__).resolve().parents[2]


def _load_conformance():
    spec = importlib.util.spec_from_file_location("bench_conformance", REPO / "bench" / "conformance.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


conformance = _load_conformance()

SAMPLE_SCRIPT = """\
require "LuaScripts/Utilities/Sample"

local boxNode

function Start()
    SampleStart()
    -- what the framework set up (the engine reports GetPlatform() == "Android" by default)
    assert(touchEnabled == true, "touch input is enabled on a mobile platform")
    assert(GetNativePlatform() == GetPlatform() and GetPlatform() == "Android")
    assert(graphics.windowTitle == "Urho3D Sample")
    assert(console ~= nil and not console:IsVisible())
    assert(debugHud.mode == DEBUGHUD_SHOW_NONE)

    scene_ = Scene()
    scene_:CreateComponent("Octree")
    boxNode = scene_:CreateChild("Box")
    boxNode:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Box.mdl")
    cameraNode = scene_:CreateChild("Camera")
    cameraNode:CreateComponent("Camera")
    cameraNode.position = Vector3(0.0, 2.0, -10.0)
    renderer:SetViewport(0, Viewport:new(scene_, cameraNode:GetComponent("Camera")))

    SampleInitMouseMode(MM_ABSOLUTE)
    assert(useMouseMode_ == MM_ABSOLUTE)
    SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
    boxNode:Yaw(30.0 * eventData["TimeStep"]:GetFloat())
end
"""


def _outcomes(results):
    return {r["path"]: r["outcome"] for r in results}


def test_examples_run_clean():
    results = list(conformance.run_all([REPO / "examples"], seconds=2.0))
    assert "spinning_box" in _outcomes(results)
    assert all(r["outcome"] == "clean" for r in results), results
    assert conformance.totals(results)["clean"] == len(results)


def test_loose_sample_script_runs_clean_and_prints_relative_paths(tmp_path):
    (tmp_path / "01_MySample.lua").write_text(SAMPLE_SCRIPT)
    lib = tmp_path / "Utilities"
    lib.mkdir()
    (lib / "Helper.lua").write_text("function Helper() return 1 end\n")   # no Start(): a library, not a game
    games = conformance.find_games(tmp_path)
    assert [(g.label, g.script) for g in games] == [("01_MySample.lua", True)]
    [result] = list(conformance.run_all([tmp_path], seconds=3.0))
    assert result["path"] == "01_MySample.lua"
    assert result["outcome"] == "clean", result
    assert result["frames"] == 180
    assert str(tmp_path) not in json.dumps(result)


def test_game_folders_and_scripts_are_both_found(tmp_path):
    game = tmp_path / "games" / "box"
    (game / "scripts").mkdir(parents=True)
    (game / "scripts" / "main.lua").write_text("function Start() end\n")
    (game / "scripts" / "other.lua").write_text("function Start() end\n")   # part of the game, not a game
    (tmp_path / "02_Loose.lua").write_text("function Start() end\n")
    labels = [g.label for g in conformance.find_games(tmp_path)]
    assert labels == ["02_Loose.lua", "games/box"]


def test_a_scripts_folder_runs_as_a_games_scripts(tmp_path):
    """A folder whose main.lua defines Start() beside modules of its own (a dev-kit example) is one game, run as the
    scripts/ of a game folder, so its requires resolve; a folder of loose samples stays loose samples."""
    example = tmp_path / "22-shooter"
    (example / "network").mkdir(parents=True)
    (example / "main.lua").write_text('local Net = require("network.Mode")\nfunction Start() MODE = Net.name end\n')
    (example / "network" / "Mode.lua").write_text('return {name = "standalone"}\n')
    (tmp_path / "samples").mkdir()
    (tmp_path / "samples" / "01_A.lua").write_text("function Start() end\n")
    (tmp_path / "samples" / "02_B.lua").write_text("function Start() end\n")
    games = conformance.find_games(tmp_path)
    assert [(g.label, g.scripts_folder) for g in games] == [
        ("22-shooter", True), ("samples/01_A.lua", False), ("samples/02_B.lua", False)]
    result = conformance.run_game(games[0], 1.0)
    assert result["outcome"] == "clean", result


def test_declared_but_unimplemented_api_is_missing_api(tmp_path):
    (tmp_path / "99_World.lua").write_text(
        'require "LuaScripts/Utilities/Sample"\n'
        "function Start()\n"
        "    SampleStart()\n"
        "    local scene = Scene()\n"
        '    local world = scene:CreateChild("World"):CreateComponent("WorldPartitionComponent")\n'
        "    world.maxLoadingCells = 4\n"
        "end\n"
    )
    [result] = list(conformance.run_all([tmp_path], seconds=0.5))
    assert result["outcome"] == "missing_api"
    assert "WorldPartitionComponent" in result["missing_api"]
    assert conformance.first_problem(result).startswith("WorldPartitionComponent")


# ------------------------------------------------------------------------------------------------
# The sample framework itself, in process
# ------------------------------------------------------------------------------------------------

def _sample_engine(extra: str = ""):
    engine = new_engine(
        'require "LuaScripts/Utilities/Sample"\n'
        "function Start() SampleStart() end\n" + extra
    )
    engine.start()
    return engine


def _press(engine, key):
    engine.queue_input({"kind": "key_down", "key": key})
    engine.run_frames(1)
    engine.queue_input({"kind": "key_up", "key": key})
    engine.run_frames(1)


KEY_ESCAPE, KEY_F1, KEY_F2 = 27, 1073741882, 1073741883


def test_f1_toggles_console_and_escape_hides_it_before_exiting():
    engine = _sample_engine()
    _press(engine, KEY_F1)
    assert lua("return console.visible", engine) is True
    _press(engine, KEY_ESCAPE)
    assert lua("return console.visible", engine) is False
    assert engine.report().exit_requested is False
    _press(engine, KEY_ESCAPE)
    assert engine.report().exit_requested is True
    assert engine.report().outcome == "clean"


def test_f2_toggles_debug_hud():
    engine = _sample_engine()
    _press(engine, KEY_F2)
    assert lua("return debugHud.mode", engine) == lua("return DEBUGHUD_SHOW_ALL", engine)
    _press(engine, KEY_F2)
    assert lua("return debugHud.mode", engine) == 0


def test_framework_handlers_do_not_clash_with_the_games_own():
    # A game with its own global KeyDown handler keeps it, and the framework's F1 still works.
    engine = _sample_engine(
        "presses = 0\n"
        "function HandleKeyDown(eventType, eventData) presses = presses + 1 end\n"
        'SubscribeToEvent("KeyDown", "HandleKeyDown")\n'
    )
    _press(engine, KEY_F1)
    assert lua("return {presses, console.visible}", engine) == [1, True]


def test_touch_drag_turns_the_camera():
    engine = _sample_engine(
        "function MakeCamera()\n"
        "  scene_ = Scene()\n"
        '  cameraNode = scene_:CreateChild("Camera")\n'
        '  cameraNode:CreateComponent("Camera")\n'
        "end\n"
    )
    lua("MakeCamera()", engine)
    engine.queue_input({"kind": "touch_begin", "id": 0, "x": 100, "y": 100})
    engine.run_frames(1)
    engine.queue_input({"kind": "touch_move", "id": 0, "x": 172, "y": 100})
    engine.run_frames(1)
    yaw = lua("return yaw", engine)
    assert yaw == 2 * 45.0 / 720 * 72   # TOUCH_SENSITIVITY * fov / height * dx
    assert abs(lua("return cameraNode.rotation:YawAngle()", engine) - yaw) < 1e-4


def test_mouse_mode_and_logo():
    engine = _sample_engine()
    lua("SampleInitMouseMode(MM_RELATIVE)", engine)
    assert lua("return {input.mouseMode, useMouseMode_}", engine) == [1, 1]
    lua("CreateLogo(); SetLogoVisible(false)", engine)
    assert lua("local s = ui.root:GetChild(0); return {s.typeName, s.visible, s.priority}", engine) == [
        "Sprite", False, -100]
