"""The main job, before the ledger exists: every task of a suite attempted by each built-in agent driver,
graded, and summarised as pass rates per agent and level."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .drivers import resolve_driver
from .pipeline import grade
from .tasks import Task


@dataclass(frozen=True)
class AttemptSummary:
    agent: str
    task: str
    passed: bool
    first_failed_level: str | None
    evidence_digest: str
    verdict_path: str
    result_hash: str | None


def run_batch(tasks: list[Task], agents: list[str], runs_dir: Path,
              progress: Callable[[str], None] | None = None, ledger: Any = None,
              sandbox: str = "none") -> list[AttemptSummary]:
    """Attempt and grade every task with every agent; record each result when a ledger is given."""
    from ledger import Outcome

    from .attempts import fill_workspace
    from .recording import record

    for agent in agents:
        resolve_driver(agent)  # refuse an unknown driver before doing any work
    out: list[AttemptSummary] = []
    batch_dir = runs_dir / f"batch-{uuid.uuid4().hex[:12]}"
    for agent in agents:
        for task in tasks:
            attempt_dir = batch_dir / agent.replace(":", "_").replace("/", "_") / f"{task.suite}-{task.id}"
            attempt_id = uuid.uuid4().hex
            filled = fill_workspace(task, attempt_dir / "workspace", agent, sandbox, attempt_id)
            result = grade(task, attempt_dir / "workspace")
            verdict_path = attempt_dir / "verdict.json"
            verdict_path.write_text(result.to_json() + "\n")
            v = result.verdict
            result_hash = (record(ledger, task, result, attempt_dir / "workspace", agent, Outcome(filled.outcome))
                           if ledger else None)
            out.append(AttemptSummary(agent, task.qualified_id, v["passed"], v["first_failed_level"],
                                      v["evidence_digest"], str(verdict_path), result_hash))
            if progress:
                progress(f"{agent} {task.qualified_id}: {'pass' if v['passed'] else 'fail'}")
    return out
