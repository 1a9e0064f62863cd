"""Writing to the ledger: a graded attempt, an attempt the infrastructure failed, a correction."""

from __future__ import annotations

import time
from typing import Any

from engine import API_VERSION
from evidence import Layer
from ledger import (
    AttemptRecord,
    Ledger,
    LedgerError,
    ModelFacts,
    TaskFacts,
    correct_result,
    record_attempts,
)
from ledger import (
    result as ledger_result,
)

from .pipeline import GradeResult
from .tasks import Task, battery_hash, task_hash


def task_facts(task: Task) -> TaskFacts:
    """A task as the ledger records it; a held-out task under its hash-derived id, its requirements without their
    descriptions (the battery's words stay in its folder)."""
    requirements = tuple(r.as_dict() | ({"description": ""} if task.heldout else {}) for r in task.requirements)
    return TaskFacts(task_id=task.qualified_id, task_hash=task_hash(task), battery_hash=battery_hash(task, API_VERSION),
                     category=task.category, difficulty=task.difficulty.value, capabilities=task.capabilities,
                     api_version=API_VERSION, requirements=requirements)


def model_facts(model: Any) -> ModelFacts | None:
    """A driver's model (grader.sandbox.ModelInfo) as the ledger records it."""
    return ModelFacts(model.provider, model.name, model.version, model.reasoning_mode) if model else None


def graded_record(task: Task, result: GradeResult, filled: Any, edition_id: int | None = None,
                  repetition: int = 0, driver: str | None = None) -> AttemptRecord:
    """A graded attempt (grader.lifecycle.Filled: its driver, outcome, usage, profile and model) with the archive
    of the deliverable it judged, as the ledger records it."""
    usage = filled.usage if filled is not None else None
    timings = dict(result.timings)
    if filled is not None and filled.agent_seconds is not None:
        timings["agent"] = filled.agent_seconds
    return AttemptRecord(
        task_facts(task), driver or filled.driver, filled.outcome, timings, result.verdict, result.artifact,
        repetition=repetition, model=model_facts(filled.model), edition_id=edition_id,
        tokens=(getattr(usage, "tokens_in", None), getattr(usage, "tokens_out", None)),
        cost_usd=getattr(usage, "cost_usd", None), tool_calls=getattr(usage, "tool_calls", None),
        profile_hash=filled.profile_hash)


def infra_record(task: Task, error: Any, agent: Any, edition_id: int | None = None,
                 repetition: int = 0) -> AttemptRecord:
    """An attempt the sandbox failed (grader.lifecycle.SandboxInfraError for the PreparedAgent `agent`)."""
    timings = {"agent": float(error.seconds)} if error.seconds is not None else {}
    return AttemptRecord(task_facts(task), agent.driver, error.outcome, timings, repetition=repetition,
                         model=model_facts(agent.model), edition_id=edition_id,
                         profile_hash=error.profile_hash or agent.profile_hash)


def record_graded(ledger: Ledger, task: Task, result: GradeResult, filled: Any, edition_id: int | None = None,
                  repetition: int = 0, driver: str | None = None) -> str:
    """Append one graded attempt and its result now; return the result hash."""
    (rhash,) = record_attempts(ledger, [graded_record(task, result, filled, edition_id, repetition, driver)])
    assert rhash is not None
    return rhash


class Recorder:
    """Appends a run's attempts to the ledger in batches, one transaction each: a batch is written once it holds
    `max_batch` attempts or its oldest has waited `max_delay` seconds, and whatever waits is written on close
    (a run interrupted by Ctrl-C included).  A grader killed outright loses at most that window from the
    ledger; the attempts' folders keep their verdicts.  With max_delay 0 every attempt is written at once."""

    def __init__(self, ledger: Ledger, max_batch: int = 64, max_delay: float = 1.0) -> None:
        self.ledger = ledger
        self.max_batch = max_batch
        self.max_delay = max_delay
        self.pending: list[AttemptRecord] = []
        self.oldest = 0.0
        self.written = 0

    def add(self, record: AttemptRecord) -> str | None:
        """Queue a record (checked now, so a bad one fails here, not in a later batch); returns its result hash."""
        record.check()
        if not self.pending:
            self.oldest = time.monotonic()
        self.pending.append(record)
        if len(self.pending) >= self.max_batch or time.monotonic() - self.oldest >= self.max_delay:
            self.flush()
        return record.result_hash

    def flush(self) -> None:
        """Write what waits.  A batch the ledger refuses (a record its edition's pins or plan refuse) is written
        again one record per transaction, so one refused attempt costs the run only itself; the first refusal
        is raised once the others are in."""
        if not self.pending:
            return
        batch, self.pending = self.pending, []
        try:
            record_attempts(self.ledger, batch)
            self.written += len(batch)
            return
        except LedgerError:
            if len(batch) == 1:
                raise
        refused: list[LedgerError] = []
        for record in batch:
            try:
                record_attempts(self.ledger, [record])
                self.written += 1
            except LedgerError as exc:
                refused.append(exc)
        if len(refused) == 1:
            raise refused[0]
        if refused:
            raise LedgerError(f"{refused[0]} (and {len(refused) - 1} more attempts refused)") from refused[0]

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.flush()


def correct(ledger: Ledger, prefix: str, passed: bool, reason: str, author: str,
            requirements: dict[str, bool] | None = None) -> int:
    """Append a correction, its named requirement outcomes checked against the recorded verdict: each must be a
    requirement of it, and a correction to pass cannot name a completeness requirement as failed."""
    if requirements:
        view = ledger_result(ledger, prefix)
        assert view.result is not None
        recorded = {r.id: r for r in view.result.requirements}
        for rid, ok in sorted(requirements.items()):
            if rid not in recorded:
                raise LedgerError(f"--requirement {rid}: not a requirement of result {view.result.result_hash[:12]} "
                                  f"(it has: {', '.join(sorted(recorded)) or 'none'})")
            if passed and not ok and recorded[rid].layer is Layer.COMPLETENESS:
                raise LedgerError(f"--requirement {rid}=fail contradicts --passed true: a pass means every "
                                  f"completeness requirement passed")
    return correct_result(ledger, prefix, passed, reason, author, requirements)
