"""Sandbox failures are recorded without a result, retried as the same repetition, and never counted.

The failure is injected by wrapping grader.attempts.fill_workspace (the real driver still fills the workspace on
the attempts that go through); the Docker tests show the real sandbox classifying infra_error, hung and timeouts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import select

import grader.attempts
from grader.attempts import SandboxInfraError
from grader.batch import run_batch
from grader.boards import build_snapshot, load_inputs
from grader.cli import cli
from grader.tasks import find_task
from ledger import Ledger
from ledger._models import AttemptRow, ResultRow


def flaky(monkeypatch: pytest.MonkeyPatch, failures: int, outcome: str = "infra_error") -> list[str]:
    """Make the next `failures` attempts fail in the sandbox; returns the log of calls."""
    real = grader.attempts.fill_workspace
    calls: list[str] = []

    def fill(task: Any, workspace: Path, agent: Any, attempt_id: str) -> Any:
        calls.append(workspace.parent.name)
        if len(calls) <= failures:
            raise SandboxInfraError(f"sandbox {outcome}: injected", outcome, None, 1.5)
        return real(task, workspace, agent, attempt_id)

    monkeypatch.setattr(grader.attempts, "fill_workspace", fill)
    return calls


def test_a_failed_sandbox_is_recorded_and_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = flaky(monkeypatch, 2)
    store = Ledger(f"sqlite:///{tmp_path / 'l.db'}")
    task = find_task("public/move-with-keys")
    rows = run_batch([task], ["oracle"], tmp_path / "runs", ledger=store)
    assert [r.outcome for r in rows] == ["completed"] and rows[0].passed and rows[0].infra_failures == 2
    assert calls == ["public-move-with-keys", "public-move-with-keys-retry1", "public-move-with-keys-retry2"]
    with store.session() as session:
        attempts = session.execute(select(AttemptRow.outcome, AttemptRow.repetition, AttemptRow.timings,
                                          AttemptRow.artifact_hash)).all()
        results = session.execute(select(ResultRow.attempt_id)).scalars().all()
    assert sorted(str(a.outcome) for a in attempts) == ["completed", "infra_error", "infra_error"]
    assert {a.repetition for a in attempts} == {0}
    infra = [a for a in attempts if str(a.outcome) == "infra_error"]
    assert all(a.artifact_hash is None and a.timings == {"agent": 1.5} for a in infra)
    assert len(results) == 1
    inputs = load_inputs(store)     # the boards see the graded attempt only
    assert len(inputs.attempts) == 1
    assert build_snapshot(inputs)["summary"]["counted_attempts"] == 1
    assert store.verify()[0]


def test_a_sandbox_failure_that_outlasts_its_retries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flaky(monkeypatch, 10, "infra_timeout")
    db = f"sqlite:///{tmp_path / 'l.db'}"
    result = CliRunner().invoke(cli, ["run", "--agent", "oracle", "--infra-retries", "1", "--database", db,
                                      "--runs-dir", str(tmp_path / "runs"), "--json"])
    assert result.exit_code == 2, result.output
    assert "infra_timeout: injected" in result.output
    with Ledger(db).session() as session:
        outcomes = session.execute(select(AttemptRow.outcome)).scalars().all()
        assert session.execute(select(ResultRow)).first() is None
    assert sorted(set(map(str, outcomes))) == ["infra_timeout"] and len(outcomes) == 2 * 3   # 3 public tasks


def test_agent_outcomes_are_never_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = flaky(monkeypatch, 0)
    rows = run_batch([find_task("public/move-with-keys")], ["nop"], tmp_path / "runs")
    assert len(calls) == 1 and rows[0].infra_failures == 0 and not rows[0].passed
