"""One attempt lifecycle: `grader attempt` is `grader run` with one task and one agent — the same folder layout,
the same retry policy, the same ledger rows for the same work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import grader.lifecycle
from evidence import AttemptOutcome
from grader.cli import cli
from grader.lifecycle import SandboxInfraError
from grader.tasks import find_task, task_hash
from ledger import Ledger, attempts

TASK = "public/move-with-keys"


def invoke(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args))
    return result


def layout(attempt_dir: Path) -> list[str]:
    """The attempt folder's files below its run folder, the run id left out."""
    run = attempt_dir.parents[2]
    return sorted(str(p.relative_to(run)) for p in attempt_dir.rglob("*") if p.is_file())


def rows(db: str, task_id: str) -> list[tuple[Any, ...]]:
    ledger = Ledger(db)
    wanted = task_hash(find_task(task_id))
    found = []
    for a in attempts(ledger):
        if a.task_hash != wanted:
            continue
        found.append((a.driver, a.outcome, a.repetition, a.artifact_hash, sorted(a.timings),
                      a.result.evidence_digest if a.result else None))
    return sorted(found, key=repr)


def test_attempt_and_run_share_folders_and_ledger_rows(tmp_path: Path) -> None:
    one, many = f"sqlite:///{tmp_path / 'one.db'}", f"sqlite:///{tmp_path / 'many.db'}"
    single = invoke("attempt", TASK, "--agent", "oracle", "--database", one, "--runs-dir", str(tmp_path / "a"),
                    "--json")
    assert single.exit_code == 0, single.output
    out = json.loads(single.stdout)
    batch = invoke("run", "--agent", "oracle", "--database", many, "--runs-dir", str(tmp_path / "b"), "--json")
    assert batch.exit_code == 0, batch.output
    summary = json.loads(batch.stdout)
    mine = next(a for a in summary["attempts"] if a["task"] == TASK)
    assert layout(Path(out["attempt_dir"])) == layout(Path(mine["attempt_dir"]))
    assert "oracle/public-move-with-keys/r0/verdict.json" in layout(Path(mine["attempt_dir"]))
    assert rows(one, TASK) == rows(many, TASK)
    assert (Path(summary["run_dir"]) / "run.json").is_file()


def test_attempt_and_run_share_the_retry_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = grader.lifecycle.fill_workspace
    tries: dict[str, int] = {}

    def fill(task: Any, paths: Any, agent: Any, attempt_id: str, repetition: int = 0) -> Any:
        tries[task.qualified_id] = tries.get(task.qualified_id, 0) + 1
        if tries[task.qualified_id] == 1:
            raise SandboxInfraError("injected", AttemptOutcome.INFRA_ERROR, None, 0.5)
        return real(task, paths, agent, attempt_id, repetition)

    monkeypatch.setattr(grader.lifecycle, "fill_workspace", fill)
    one, many = f"sqlite:///{tmp_path / 'one.db'}", f"sqlite:///{tmp_path / 'many.db'}"
    single = invoke("attempt", TASK, "--agent", "oracle", "--database", one, "--runs-dir", str(tmp_path / "a"),
                    "--json")
    assert single.exit_code == 0, single.output
    tries.clear()
    batch = invoke("run", "--agent", "oracle", "--database", many, "--runs-dir", str(tmp_path / "b"), "--json")
    assert batch.exit_code == 0, batch.output
    assert rows(one, TASK) == rows(many, TASK)
    assert [r[1] for r in rows(one, TASK)].count(AttemptOutcome.INFRA_ERROR) == 1
    assert Path(json.loads(single.stdout)["attempt_dir"]).name == "r0-retry1"
