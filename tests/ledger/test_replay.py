"""Recording from the grader and replay by hash: MATCH for every starter solution, refusals when the task or
battery changed, corrections through the CLI."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.lifecycle import Filled
from grader.pipeline import GradeResult, grade
from grader.recording import record_graded
from grader.replay import replay
from grader.tasks import Task, find_task, load_task, solution_folder, wrong_solution_names
from ledger import Ledger, LedgerError
from tests.ledger.helpers import scalar

ROOT = Path(__file__).resolve().parents[2]
STARTERS = ["scene-solar-system", "move-with-keys", "coin-collector"]


def record(store: Ledger, task: Task, result: GradeResult, deliverable: Path, driver: str) -> str:
    """Record `result` as the grade of `deliverable` (the archive stored is the deliverable's own reading)."""
    from grader.deliverable import scan

    artifact = scan(deliverable, task.limits).pack()
    return record_graded(store, task, dataclasses.replace(result, artifact=artifact), Filled(driver=driver))


def _solutions(task_id: str) -> list[Path]:
    task = find_task(f"public/{task_id}")
    return [solution_folder(task, "oracle"), *(solution_folder(task, name) for name in wrong_solution_names(task))]


@pytest.mark.parametrize("task_id", STARTERS)
def test_replay_matches_for_oracle_and_wrong_solutions(ledger_url: str, task_id: str) -> None:
    store = Ledger(ledger_url)
    task = find_task(f"public/{task_id}")
    for solution in _solutions(task_id):
        result_hash = record(store, task, grade(task, solution), solution, f"replay:{solution.name}")
        report = replay(store, result_hash[:12])
        assert report.match, (solution.name, report.differences)
        assert report.differences == []
    assert store.verify()[0]


def test_replay_refuses_a_changed_task_or_battery(ledger_url: str, tmp_path: Path) -> None:
    src = find_task("public/move-with-keys").paths.root
    copy_suite = tmp_path / "heldout"
    shutil.copytree(src.parent, copy_suite, ignore=shutil.ignore_patterns("coin-collector", "scene-solar-system"))
    # a held-out variant: its own prompt, so its task_hash is its own and only --suite-path finds it
    (copy_suite / "move-with-keys" / "prompt.md").write_text("held-out variant\n")
    task = load_task(copy_suite / "move-with-keys", "public")
    store = Ledger(ledger_url)
    with pytest.raises(LedgerError, match="no longer present or has changed"):
        record_and_replay_without_path = record(store, task, grade(task, task.paths.oracle), task.paths.oracle, "o")
        replay(store, record_and_replay_without_path)
    result_hash = record(store, task, grade(task, task.paths.oracle), task.paths.oracle, "oracle")
    assert replay(store, result_hash, (copy_suite,)).match
    battery = task.paths.battery_main
    battery.write_text(battery.read_text() + "\n-- changed\n")
    with pytest.raises(LedgerError, match="battery of public/move-with-keys has changed"):
        replay(store, result_hash, (copy_suite,))
    prompt = task.paths.prompt
    prompt.write_text(prompt.read_text() + "\nchanged\n")
    with pytest.raises(LedgerError, match="no longer present or has changed"):
        replay(store, result_hash, (copy_suite,))


def test_a_mislabelled_deliverable_is_refused(ledger_url: str, tmp_path: Path) -> None:
    store = Ledger(ledger_url)
    task = find_task("public/coin-collector")
    wrong = solution_folder(task, wrong_solution_names(task)[0])
    with pytest.raises(LedgerError, match="not the one the verdict judged"):
        record(store, task, grade(task, task.paths.oracle), wrong, "mislabelled")
    assert scalar(ledger_url, "SELECT count(*) FROM attempts") == 0


def test_cli_records_shows_corrects_and_replays(ledger_url: str, tmp_path: Path) -> None:
    env = {**os.environ, "GRADER_DATABASE_URL": ledger_url}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True,
                              cwd=tmp_path, env=env, check=False)

    proc = cli("grade", "public/coin-collector", str(solution_folder(find_task("public/coin-collector"), "oracle")),
               "--json")
    assert proc.returncode == 0, proc.stderr
    result_hash = json.loads(proc.stdout)["result_hash"]
    assert len(result_hash) == 64
    assert cli("replay", result_hash[:10]).stdout.startswith("MATCH")
    proc = cli("ledger", "correct", result_hash[:10], "--passed", "false", "--reason", "battery bug",
               "--author", "auditor")
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(cli("show", result_hash[:10], "--json").stdout)
    assert shown["raw_passed"] is True and shown["effective_passed"] is False
    assert [c["reason"] for c in shown["corrections"]] == ["battery bug"]
    assert cli("ledger", "verify").returncode == 0
    proc = cli("show", "0000000000")
    assert proc.returncode == 2 and proc.stderr.startswith("Error: no result")
    proc = cli("grade", "public/coin-collector", str(solution_folder(find_task("public/coin-collector"), "oracle")),
               "--json", "--no-record")
    assert json.loads(proc.stdout)["result_hash"] is None
