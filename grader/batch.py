"""The main job: every task of a suite attempted by each agent driver, graded, recorded in the ledger, and
summarised as pass rates per agent and level."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
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
    outcome: str = "completed"
    warnings: tuple[str, ...] = ()


def run_batch(tasks: list[Task], agents: Sequence[Any], runs_dir: Path,
              progress: Callable[[str], None] | None = None, ledger: Any = None,
              sandbox: str = "none", options: Any = None, edition_id: int | None = None) -> list[AttemptSummary]:
    """Attempt and grade every task with every agent (a driver spec, or a grader.attempts.PreparedAgent); record
    each result when a ledger is given.  `options` (grader.attempts.AttemptOptions) overrides `sandbox` and adds
    the gateway and --pass-env."""
    from .attempts import AttemptOptions, fill_workspace, prepare_agent
    from .recording import record_filled

    options = options or AttemptOptions(sandbox=sandbox)
    for agent in agents:
        if isinstance(agent, str):
            resolve_driver(agent)  # refuse an unknown driver before doing any work
    prepared = [prepare_agent(a, options) if isinstance(a, str) else a for a in agents]
    if ledger is not None and edition_id is not None:
        from ledger import check_profile_pin

        for p in prepared:  # an edition that pins a profile refuses before any attempt runs
            check_profile_pin(ledger, edition_id, p.profile_hash)
    out: list[AttemptSummary] = []
    batch_dir = runs_dir / f"batch-{uuid.uuid4().hex[:12]}"
    for agent in prepared:
        for task in tasks:
            attempt_dir = batch_dir / agent.spec.replace(":", "_").replace("/", "_") / f"{task.suite}-{task.id}"
            attempt_id = uuid.uuid4().hex
            filled = fill_workspace(task, attempt_dir / "workspace", agent, attempt_id)
            result = grade(task, attempt_dir / "workspace")
            verdict_path = attempt_dir / "verdict.json"
            verdict_path.write_text(result.to_json() + "\n")
            v = result.verdict
            result_hash = (record_filled(ledger, task, result, attempt_dir / "workspace", filled, edition_id)
                           if ledger else None)
            out.append(AttemptSummary(agent.spec, task.qualified_id, v["passed"], v["first_failed_level"],
                                      v["evidence_digest"], str(verdict_path), result_hash, filled.outcome,
                                      tuple(filled.warnings)))
            if progress:
                progress(f"{agent.spec} {task.qualified_id}: {'pass' if v['passed'] else 'fail'}")
    return out
