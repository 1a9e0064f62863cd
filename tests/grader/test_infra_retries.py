"""Sandbox failures are recorded without a result, retried as the same repetition, and never counted.

The failure is injected by wrapping grader.lifecycle.fill_workspace (the real driver still fills the workspace on
the attempts that go through); the Docker tests show the real sandbox classifying infra_error, hung and timeouts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import select

import grader.lifecycle
from evidence import AttemptOutcome
from grader.boards import build_snapshot, load_inputs
from grader.cli import cli
from grader.lifecycle import AttemptOptions, SandboxInfraError, prepare_agent, run_attempts
from grader.tasks import find_task
from ledger import Ledger
from ledger._models import AttemptRow, ResultRow


def flaky(monkeypatch: pytest.MonkeyPatch, failures: int,
          outcome: AttemptOutcome = AttemptOutcome.INFRA_ERROR) -> list[str]:
    """Make the next `failures` attempts fail in the sandbox; returns the log of calls."""
    real = grader.lifecycle.fill_workspace
    calls: list[str] = []

    def fill(task: Any, paths: Any, agent: Any, attempt_id: str, repetition: int = 0) -> Any:
        calls.append(paths.root.name)
        if len(calls) <= failures:
            raise SandboxInfraError(f"sandbox {outcome}: injected", outcome, None, 1.5)
        return real(task, paths, agent, attempt_id, repetition)

    monkeypatch.setattr(grader.lifecycle, "fill_workspace", fill)
    return calls


def run_batch(tasks: list[Any], agents: list[str], runs: Path, ledger: Any = None) -> list[Any]:
    prepared = [prepare_agent(a, AttemptOptions()) for a in agents]
    return run_attempts(tasks, prepared, runs, ledger=ledger).attempts


def test_a_failed_sandbox_is_recorded_and_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = flaky(monkeypatch, 2)
    store = Ledger(f"sqlite:///{tmp_path / 'l.db'}")
    task = find_task("public/move-with-keys")
    rows = run_batch([task], ["oracle"], tmp_path / "runs", ledger=store)
    assert [r.outcome for r in rows] == ["completed"] and rows[0].passed and rows[0].infra_failures == 2
    assert calls == ["r0", "r0-retry1", "r0-retry2"]
    with store.session() as session:
        attempts = session.execute(select(AttemptRow.outcome, AttemptRow.repetition, AttemptRow.timings,
                                          AttemptRow.artifact_hash)).all()
        results = session.execute(select(ResultRow.attempt_id)).scalars().all()
    assert sorted(str(a.outcome) for a in attempts) == ["completed", "infra_error", "infra_error"]
    assert {a.repetition for a in attempts} == {0}
    infra = [a for a in attempts if str(a.outcome) == "infra_error"]
    assert all(a.artifact_hash is None and a.timings == {"agent": 1.5} for a in infra)
    assert len(results) == 1
    inputs = load_inputs(store)     # the boards count the graded attempt only, and the two they excluded
    assert len(inputs.attempts) == 3
    summary = build_snapshot(inputs)["summary"]
    assert (summary["counted_attempts"], summary["excluded_attempts"]) == (1, 2)
    assert store.verify()[0]


def test_a_sandbox_failure_that_outlasts_its_retries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    starter_suite: Path) -> None:
    flaky(monkeypatch, 10, AttemptOutcome.INFRA_TIMEOUT)
    db = f"sqlite:///{tmp_path / 'l.db'}"
    result = CliRunner().invoke(cli, ["run", "--suite", str(starter_suite), "--agent", "oracle", "--infra-retries",
                                      "1", "--database", db,
                                      "--runs-dir", str(tmp_path / "runs"), "--json"])
    assert result.exit_code == 3, result.output
    assert "infra_timeout: injected" in result.output
    with Ledger(db).session() as session:
        outcomes = session.execute(select(AttemptRow.outcome)).scalars().all()
        assert session.execute(select(ResultRow)).first() is None
    assert sorted(set(map(str, outcomes))) == ["infra_timeout"] and len(outcomes) == 2 * 3   # the 3 starter tasks


def test_agent_outcomes_are_never_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = flaky(monkeypatch, 0)
    rows = run_batch([find_task("public/move-with-keys")], ["nop"], tmp_path / "runs")
    assert len(calls) == 1 and rows[0].infra_failures == 0 and not rows[0].passed
