"""Writing to the ledger: a graded attempt, an attempt the infrastructure failed, a correction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine import API_VERSION
from evidence import GradeResult, Layer
from ledger import (
    Ledger,
    LedgerError,
    ModelFacts,
    TaskFacts,
    correct_result,
    record_attempt,
    record_infra_attempt,
)
from ledger import (
    result as ledger_result,
)

from .tasks import Task, battery_hash, task_hash


def task_facts(task: Task) -> TaskFacts:
    return TaskFacts(task_id=task.qualified_id, task_hash=task_hash(task), battery_hash=battery_hash(task, API_VERSION),
                     category=task.category, difficulty=task.difficulty.value, capabilities=task.capabilities,
                     api_version=API_VERSION, requirements=tuple(r.as_dict() for r in task.requirements))


def model_facts(model: Any) -> ModelFacts | None:
    """A driver's model (grader.sandbox.ModelInfo) as the ledger records it."""
    return ModelFacts(model.provider, model.name, model.version, model.reasoning_mode) if model else None


def record_graded(ledger: Ledger, task: Task, result: GradeResult, deliverable: Path, filled: Any,
                  edition_id: int | None = None, repetition: int = 0, driver: str | None = None) -> str:
    """Append a graded attempt (grader.lifecycle.Filled: its driver, outcome, usage, profile and model), its
    deliverable by content hash and its result; return the result hash."""
    usage = filled.usage if filled is not None else None
    timings = dict(result.timings)
    if filled is not None and filled.agent_seconds is not None:
        timings["agent"] = filled.agent_seconds
    return record_attempt(
        ledger, task_facts(task), result.verdict, timings, deliverable, driver or filled.driver,
        filled.outcome, repetition=repetition, model=model_facts(filled.model), edition_id=edition_id,
        tokens=(getattr(usage, "tokens_in", None), getattr(usage, "tokens_out", None)),
        cost_usd=getattr(usage, "cost_usd", None), tool_calls=getattr(usage, "tool_calls", None),
        profile_hash=filled.profile_hash)


def record_infra(ledger: Ledger, task: Task, error: Any, agent: Any, edition_id: int | None = None,
                 repetition: int = 0) -> str:
    """Record an attempt the sandbox failed (grader.lifecycle.SandboxInfraError for the PreparedAgent `agent`):
    no deliverable, no result, never counted; returns the attempt id."""
    timings = {"agent": float(error.seconds)} if error.seconds is not None else {}
    return record_infra_attempt(ledger, task_facts(task), error.outcome, timings, agent.driver, repetition,
                                model=model_facts(agent.model), edition_id=edition_id,
                                profile_hash=error.profile_hash or agent.profile_hash)


def correct(ledger: Ledger, prefix: str, passed: bool, reason: str, author: str,
            requirements: dict[str, bool] | None = None) -> int:
    """Append a correction, its named requirement outcomes checked against the recorded verdict: each must be a
    requirement of it, and a correction to pass cannot name a completeness requirement as failed."""
    if requirements:
        view = ledger_result(ledger, prefix)
        assert view.result is not None
        recorded = {r.id: r for r in view.result.verdict.levels.L2.requirements}
        for rid, ok in sorted(requirements.items()):
            if rid not in recorded:
                raise LedgerError(f"--requirement {rid}: not a requirement of result {view.result.result_hash[:12]} "
                                  f"(it has: {', '.join(sorted(recorded)) or 'none'})")
            if passed and not ok and recorded[rid].layer is Layer.COMPLETENESS:
                raise LedgerError(f"--requirement {rid}=fail contradicts --passed true: a pass means every "
                                  f"completeness requirement passed")
    return correct_result(ledger, prefix, passed, reason, author, requirements)
