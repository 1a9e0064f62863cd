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
    infra_failures: int = 0        # sandbox failures before this attempt ran (each recorded, never counted)


DEFAULT_INFRA_RETRIES = 2


def run_batch(tasks: list[Task], agents: Sequence[Any], runs_dir: Path,
              progress: Callable[[str], None] | None = None, ledger: Any = None,
              sandbox: str = "none", options: Any = None, edition_id: int | None = None,
              infra_retries: int = DEFAULT_INFRA_RETRIES) -> list[AttemptSummary]:
    """Attempt and grade every task with every agent (a driver spec, or a grader.attempts.PreparedAgent); record
    each result when a ledger is given.  `options` (grader.attempts.AttemptOptions) overrides `sandbox` and adds
    the gateway and --pass-env.

    A sandbox failure (infra_error, infra_timeout, hung) is recorded without a result and the attempt is run
    again, as the same repetition, up to `infra_retries` more times; one that still fails is summarised with its
    infra outcome and no verdict, and the batch goes on.  Agent outcomes are never retried."""
    from .attempts import AttemptOptions, SandboxInfraError, fill_workspace, prepare_agent
    from .recording import record_filled, record_infra

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
            base_dir = batch_dir / agent.spec.replace(":", "_").replace("/", "_") / f"{task.suite}-{task.id}"
            failures: list[SandboxInfraError] = []
            while True:
                attempt_dir = base_dir if not failures else base_dir.with_name(f"{base_dir.name}-retry{len(failures)}")
                try:
                    filled = fill_workspace(task, attempt_dir / "workspace", agent, uuid.uuid4().hex)
                    break
                except SandboxInfraError as exc:
                    failures.append(exc)
                    if ledger is not None:
                        record_infra(ledger, task, exc, agent, edition_id)
                    if progress:
                        progress(f"{agent.spec} {task.qualified_id}: {exc}")
                    if len(failures) > infra_retries:
                        break
            if len(failures) > infra_retries:
                out.append(AttemptSummary(agent.spec, task.qualified_id, False, None, "", "", None,
                                          failures[-1].outcome, (str(failures[-1]),), len(failures)))
                continue
            result = grade(task, attempt_dir / "workspace")
            verdict_path = attempt_dir / "verdict.json"
            verdict_path.write_text(result.to_json() + "\n")
            v = result.verdict
            result_hash = (record_filled(ledger, task, result, attempt_dir / "workspace", filled, edition_id)
                           if ledger else None)
            out.append(AttemptSummary(agent.spec, task.qualified_id, v["passed"], v["first_failed_level"],
                                      v["evidence_digest"], str(verdict_path), result_hash, filled.outcome,
                                      tuple(filled.warnings), len(failures)))
            if progress:
                progress(f"{agent.spec} {task.qualified_id}: {'pass' if v['passed'] else 'fail'}")
    return out
