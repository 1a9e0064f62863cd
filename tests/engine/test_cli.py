"""`python -m engine run`: exit codes, JSON summary, scene dump, library folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def engine_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **(env or {})}, check=False)


def test_clean_run_exits_zero_with_a_json_summary() -> None:
    proc = engine_cli("run", "examples/spinning_box", "--seconds", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["outcome"] == "clean"
    assert summary["frames"] == 60
    assert summary["errors"] == [] and summary["missing_api"] == []


def test_lua_error_exits_one(make_game: Callable[..., Path]) -> None:
    game = make_game("function Start() SubscribeToEvent('Update', function() error('bad') end) end")
    proc = engine_cli("run", str(game), "--seconds", "0.1", "--json")
    assert proc.returncode == 1
    summary = json.loads(proc.stdout)
    assert summary["outcome"] == "lua_error"
    assert summary["errors"][0]["frame"] == 1
    assert summary["errors"][0]["message"].endswith("bad")


def test_missing_api_is_named(make_game: Callable[..., Path]) -> None:
    game = make_game("function Start() Scene():CreateChild('B'):CreateComponent('WorldPartitionComponent') end")
    summary = json.loads(engine_cli("run", str(game), "--seconds", "0.1", "--json").stdout)
    assert summary["outcome"] == "missing_api"
    assert summary["missing_api"] == ["WorldPartitionComponent"]


def test_bad_input_exits_two(tmp_path: Path) -> None:
    proc = engine_cli("run", str(tmp_path / "nowhere"), "--json")
    assert proc.returncode == 2
    assert proc.stderr.startswith("Error: ")
    (tmp_path / "empty").mkdir()
    proc = engine_cli("run", str(tmp_path / "empty"), "--json")
    assert proc.returncode == 2
    assert "scripts/main.lua: entry script not found" in proc.stderr


def test_dump_writes_every_node(tmp_path: Path) -> None:
    dump = tmp_path / "scene.json"
    proc = engine_cli("run", "examples/spinning_box", "--seconds", "1", "--dump", str(dump))
    assert proc.returncode == 0
    (scene,) = json.loads(dump.read_text())
    names = [child["name"] for child in scene["children"]]
    assert names == ["Camera", "Box"]
    box = scene["children"][1]
    assert set(box) >= {"position", "world_position", "rotation", "scale", "vars", "components", "id"}
    assert abs(box["world_position"][2] - 1.0) < 1e-9


def test_library_folders_from_option_and_environment(make_game: Callable[..., Path], tmp_path: Path) -> None:
    lib = tmp_path / "mylibs"
    (lib / "urhox-libs" / "UI").mkdir(parents=True)
    (lib / "urhox-libs" / "UI" / "init.lua").write_text("return {name = 'ui'}")
    (lib / "urhox-libs" / "Platform").mkdir()
    (lib / "urhox-libs" / "Platform" / "PlatformUtils.lua").write_text("return {mobile = false}")
    game = make_game(
        "local UI = require 'urhox-libs/UI'\n"
        "local P = require('urhox-libs.Platform.PlatformUtils')\n"
        "function Start() print(UI.name, P.mobile) end\n"
    )
    proc = engine_cli("run", str(game), "--seconds", "0.1", "--json", "--lib", str(lib))
    assert json.loads(proc.stdout)["outcome"] == "clean", proc.stdout
    proc = engine_cli("run", str(game), "--seconds", "0.1", "--json", env={"GRADER_LUA_LIBS": str(lib)})
    assert json.loads(proc.stdout)["outcome"] == "clean"
    proc = engine_cli("run", str(game), "--seconds", "0.1", "--json", "--lib", str(lib / "urhox-libs"))
    assert json.loads(proc.stdout)["outcome"] == "clean"
    proc = engine_cli("run", str(game), "--seconds", "0.1", "--json")
    summary = json.loads(proc.stdout)
    assert summary["outcome"] == "lua_error"
    assert "module 'urhox-libs/UI' not found" in summary["errors"][0]["message"]
