"""L2: pass, fail, runtime error, infinite loop, missing entry — all recorded, never a grader crash."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.levels import run_l2
from grader.tasks import load_task


@pytest.fixture
def task_and_dir(make_task: Callable[..., Path], tmp_path: Path) -> tuple[object, Path]:
    task = load_task(make_task(), "suite")
    out = tmp_path / "deliverable"
    shutil.copytree(task.paths.oracle, out)
    return task, out


def test_the_oracle_passes(task_and_dir: tuple) -> None:
    task, out = task_and_dir
    result = run_l2(task, out)
    assert result.passed and result.outcome == "clean"
    assert result.frames == 30
    checks = result.checks()
    assert [c.name for _, c in checks] == ["a node named Box exists", "Box is at x = 3"]
    assert checks[1][0].id == "R1" and checks[1][0].capabilities == ("scene",)


def test_a_wrong_position_fails_with_expected_and_actual(task_and_dir: tuple) -> None:
    task, out = task_and_dir
    main = out / "scripts" / "main.lua"
    main.write_text(main.read_text().replace("3, 0, 0", "2, 0, 0"))
    result = run_l2(task, out)
    assert not result.passed
    failed = [c for _, c in result.checks() if not c.passed]
    assert failed[0].expected == 3.0 and failed[0].actual == 2.0 and failed[0].frame == 30


def test_a_runtime_error_is_recorded(task_and_dir: tuple) -> None:
    task, out = task_and_dir
    (out / "scripts" / "main.lua").write_text("function Start() local x = nil; x.y = 1 end\n")
    result = run_l2(task, out)
    assert not result.passed
    assert result.outcome == "lua_error"
    assert "attempt to index a nil value" in result.errors[0].message
    assert result.errors[0].phase == "Start"


def test_an_infinite_loop_is_a_budget_outcome(task_and_dir: tuple) -> None:
    task, out = task_and_dir
    (out / "scripts" / "main.lua").write_text(
        "function Start() SubscribeToEvent('Update', function() while true do end end) end\n")
    result = run_l2(task, out)
    assert not result.passed and result.outcome == "budget"


def test_a_missing_entry_script_is_a_recorded_failure(task_and_dir: tuple) -> None:
    task, out = task_and_dir
    (out / "scripts" / "main.lua").unlink()
    result = run_l2(task, out)
    assert not result.passed and result.outcome == "not_run"
    assert result.errors[0].message == "scripts/main.lua: entry script not found in the game folder"


def test_the_battery_cannot_outrun_the_simulated_time_limit(make_task: Callable[..., Path], tmp_path: Path) -> None:
    task = load_task(make_task(battery="harness.start(); harness.run(100)\n"
                                       "requirement('R1', {}, function(c) c.less('time', harness.time(), 5.01) end)"))
    out = tmp_path / "d"
    shutil.copytree(task.paths.oracle, out)
    result = run_l2(task, out)
    assert result.passed and result.frames == 300


TWO_REQUIREMENTS = """[R1]
capabilities = ["scene"]

[R2]
capabilities = ["scene"]
description = "checked after the game has run a while"
"""


def test_a_requirement_the_battery_never_reaches_fails(make_task: Callable[..., Path], tmp_path: Path) -> None:
    # the battery stops after R1 (here it raises; a hostile game could make it): R2 must not drop out of the verdict
    battery = ("harness.start()\nrequirement('R1', function(c) c.truthy('box', harness.find('Box')) end)\n"
               "error('the battery stopped')\nrequirement('R2', function(c) c.truthy('never', true) end)\n")
    task = load_task(make_task(battery=battery, requirements=TWO_REQUIREMENTS), "suite")
    result = run_l2(task, task.paths.oracle)
    assert [(r.id, r.passed) for r in result.requirements] == [("R1", True), ("R2", False)]
    unreached = [c for r, c in result.checks() if r.id == "R2"]
    assert [(c.name, c.message) for c in unreached] == [
        ("requirement reached", "the battery ended before it checked this requirement")]
    assert result.requirements[1].description == "checked after the game has run a while"
    assert not result.passed


def test_a_requirement_missing_from_the_manifest_is_refused(make_task: Callable[..., Path]) -> None:
    battery = "harness.start()\nrequirement('R9', function(c) c.truthy('x', true) end)\n"
    task = load_task(make_task(battery=battery), "suite")
    result = run_l2(task, task.paths.oracle)
    assert not result.passed and [r.id for r in result.requirements] == ["R1"]
    assert any("R9 is not in battery/requirements.toml" in e.message for e in result.errors), result.errors


def test_inline_tags_must_agree_with_the_manifest(make_task: Callable[..., Path]) -> None:
    battery = ("harness.start()\nrequirement('R1', {capabilities = {'input'}}, "
               "function(c) c.truthy('x', true) end)\n")
    task = load_task(make_task(battery=battery), "suite")
    result = run_l2(task, task.paths.oracle)
    assert not result.passed
    assert any("capabilities disagree" in e.message for e in result.errors), result.errors
