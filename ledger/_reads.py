"""Typed reads: what the boards, replay and the CLI need, without SQLAlchemy outside the ledger.

Every function opens its own read session and returns frozen views; nothing returned is bound to a session.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, cast, select, type_coerce

from evidence import HELD_OUT_PREFIX, AttemptOutcome, EvidenceError, RequirementResult, Verdict

from ._models import (
    AttemptRow,
    BatteryRow,
    CorrectionRow,
    DatasetTaskRow,
    Edition,
    ModelRow,
    ResultRow,
    SuiteRow,
    TaskRow,
)
from ._records import ModelFacts
from ._store import Ledger, LedgerError


@dataclass(frozen=True)
class EditionView:
    id: int
    name: str
    engine_build: str                # the engine's build digest (a hand-typed version in editions before schema 4)
    grader_build: str | None
    settings_hash: str | None
    dataset_version: str
    dataset_hash: str
    profile_hash: str | None
    root_seed: int
    created_at: datetime


@dataclass(frozen=True)
class TaskView:
    """A task as recorded, with its battery's requirement manifest when the ledger has it (schema 3)."""

    task_hash: str
    task_id: str
    category: str
    difficulty: str
    heldout: bool
    battery_hash: str | None = None
    requirements: tuple[dict[str, Any], ...] | None = None


@dataclass(frozen=True)
class CorrectionView:
    id: int
    passed: bool
    reason: str
    author: str
    created_at: datetime
    requirements: dict[str, bool] | None


@dataclass(frozen=True)
class ResultView:
    """A recorded result as lists of results need it: its L2 requirement outcomes (without their checks) and the
    engine build are read out of the stored verdict by the database, so a board over thousands of results parses
    no verdict; the whole verdict is `recorded_verdict(ledger, result_hash)`."""

    result_hash: str
    evidence_digest: str
    passed: bool
    first_failed_level: str | None
    engine_version: str                            # the engine's release, as the verdict names it
    engine_build: str | None                       # its build digest (None in schema-1 verdicts)
    requirements: tuple[RequirementResult, ...]    # the verdict's L2 requirements, without their checks
    corrections: tuple[CorrectionView, ...] = ()   # oldest first: the last one is in effect

    @property
    def correction(self) -> CorrectionView | None:
        return self.corrections[-1] if self.corrections else None

    @property
    def effective_passed(self) -> bool:
        return self.correction.passed if self.correction is not None else self.passed


@dataclass(frozen=True)
class AttemptView:
    id: str
    edition_id: int | None
    model: ModelFacts | None
    task_hash: str
    battery_hash: str
    repetition: int
    driver: str
    outcome: AttemptOutcome
    timings: dict[str, float]
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: float | None
    tool_calls: int | None
    profile_hash: str | None
    artifact_hash: str | None
    created_at: datetime
    result: ResultView | None        # None for attempts the infrastructure failed


def _edition_view(row: Edition) -> EditionView:
    return EditionView(row.id, row.name, row.engine_version, row.grader_build, row.settings_hash,
                       row.dataset_version, row.dataset_hash, row.profile_hash, row.root_seed, row.created_at)


def get_edition(ledger: Ledger, edition_id: int) -> EditionView:
    with ledger.session() as session:
        row = session.get(Edition, edition_id)
        if row is None:
            raise LedgerError(f"no edition {edition_id} in the ledger")
        return _edition_view(row)


def _hidden_suites(session: Any) -> set[str]:
    return {s.name for s in session.execute(select(SuiteRow)).scalars() if s.visibility != "public"}


def _task_view(row: TaskRow, hidden: set[str], battery: BatteryRow | None) -> TaskView:
    suite = row.task_id.split("/", 1)[0] if "/" in row.task_id else ""
    manifest = tuple(battery.requirements) if battery is not None and battery.requirements is not None else None
    heldout = suite in hidden or suite == HELD_OUT_PREFIX
    return TaskView(row.task_hash, row.task_id, row.category, row.difficulty, heldout,
                    battery.battery_hash if battery is not None else None, manifest)


def dataset_tasks(ledger: Ledger, dataset_hash: str) -> list[TaskView]:
    """The tasks of a dataset as its edition pinned them (schema 3), sorted by task_hash; [] when the ledger
    does not know the dataset's membership (editions created before schema 3)."""
    with ledger.session() as session:
        hidden = _hidden_suites(session)
        rows = session.execute(
            select(DatasetTaskRow, TaskRow, BatteryRow)
            .join(TaskRow, TaskRow.task_hash == DatasetTaskRow.task_hash)
            .join(BatteryRow, BatteryRow.battery_hash == DatasetTaskRow.battery_hash)
            .where(DatasetTaskRow.dataset_hash == dataset_hash)
            .order_by(DatasetTaskRow.task_hash)).all()
        return [_task_view(task, hidden, battery) for _, task, battery in rows]


def tasks_of(ledger: Ledger, pairs: Iterable[tuple[str, str]]) -> dict[str, TaskView]:
    """Views of the tasks named by (task_hash, battery_hash) pairs, by task_hash; a task graded under several
    batteries takes the manifest of the newest battery row that has one."""
    wanted = defaultdict(set)
    for task_hash, battery_hash in pairs:
        wanted[task_hash].add(battery_hash)
    with ledger.session() as session:
        hidden = _hidden_suites(session)
        out = {}
        for row in session.execute(select(TaskRow).where(TaskRow.task_hash.in_(sorted(wanted)))).scalars():
            batteries = session.execute(
                select(BatteryRow).where(BatteryRow.battery_hash.in_(sorted(wanted[row.task_hash])))
                .order_by(BatteryRow.created_at, BatteryRow.battery_hash)).scalars().all()
            with_manifest = [b for b in batteries if b.requirements is not None]
            chosen = with_manifest or list(batteries)
            out[row.task_hash] = _task_view(row, hidden, chosen[-1] if chosen else None)
        return out


def _corrections(session: Any, edition_id: int | None) -> dict[str, list[CorrectionView]]:
    """Every correction of the results of one edition (or of every result), by result hash, oldest first."""
    query = select(CorrectionRow).order_by(CorrectionRow.id)
    if edition_id is not None:
        query = (query.join(ResultRow, ResultRow.result_hash == CorrectionRow.result_hash)
                 .join(AttemptRow, AttemptRow.id == ResultRow.attempt_id).where(AttemptRow.edition_id == edition_id))
    out: dict[str, list[CorrectionView]] = defaultdict(list)
    for c in session.execute(query).scalars():
        out[c.result_hash].append(CorrectionView(c.id, c.passed, c.reason, c.author, c.created_at, c.requirements))
    return out


def _model_facts(row: ModelRow | None) -> ModelFacts | None:
    return None if row is None else ModelFacts(row.provider, row.name, row.version, row.reasoning_mode)


def _attempt_view(attempt: AttemptRow, model: ModelRow | None, result: ResultView | None) -> AttemptView:
    return AttemptView(
        id=attempt.id, edition_id=attempt.edition_id, model=_model_facts(model), task_hash=attempt.task_hash,
        battery_hash=attempt.battery_hash, repetition=attempt.repetition, driver=attempt.driver,
        outcome=AttemptOutcome(attempt.outcome), timings=dict(attempt.timings or {}), tokens_in=attempt.tokens_in,
        tokens_out=attempt.tokens_out, cost_usd=attempt.cost_usd, tool_calls=attempt.tool_calls,
        profile_hash=attempt.profile_hash, artifact_hash=attempt.artifact_hash, created_at=attempt.created_at,
        result=result)


def _result_columns(ledger: Ledger) -> tuple[Any, ...]:
    """What a result view reads, the parts of the stored verdict read out of it by the database (SQLite's JSON
    functions, PostgreSQL's json operators): the engine's release and build, and the L2 requirements (without
    their checks, which the verdict keeps apart).  SQLite reads the text as JSON as it is (a CAST would give it
    numeric affinity); PostgreSQL casts it."""
    verdict = (cast(ResultRow.verdict, JSON) if ledger.engine.dialect.name == "postgresql"
               else type_coerce(ResultRow.verdict, JSON))
    return (ResultRow.result_hash, ResultRow.evidence_digest, ResultRow.passed, ResultRow.first_failed_level,
            verdict[("engine", "version")].as_string(), verdict[("engine", "build")].as_string(),
            verdict[("levels", "L2", "requirements")])


def _requirements(raw: Any, result_hash: str) -> tuple[RequirementResult, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise LedgerError(f"result {result_hash}: its verdict's levels.L2.requirements is not a list")
    try:
        return tuple(RequirementResult.from_json(r, f"result {result_hash}: levels.L2.requirements")
                     for r in raw if isinstance(r, dict))
    except EvidenceError as exc:
        raise LedgerError(str(exc)) from None


def _result_view(row: Any, corrections: Iterable[CorrectionView]) -> ResultView:
    result_hash, evidence_digest, passed, first_failed, engine_version, engine_build, requirements = row
    return ResultView(result_hash, evidence_digest, passed, first_failed, engine_version or "", engine_build or None,
                      _requirements(requirements, result_hash), tuple(corrections))


def attempts(ledger: Ledger, edition_id: int | None = None) -> list[AttemptView]:
    """Every attempt (of one edition, or of the whole ledger), with its result and corrections when it has one;
    sorted by attempt id, so the order does not depend on the database."""
    query = (select(AttemptRow, ModelRow, *_result_columns(ledger))
             .outerjoin(ModelRow, ModelRow.id == AttemptRow.model_id)
             .outerjoin(ResultRow, ResultRow.attempt_id == AttemptRow.id)
             .order_by(AttemptRow.id))
    if edition_id is not None:
        query = query.where(AttemptRow.edition_id == edition_id)
    with ledger.session() as session:
        rows = session.execute(query).all()
        corrections = _corrections(session, edition_id)
    return [_attempt_view(row[0], row[1], None if row[2] is None else
                          _result_view(row[2:], corrections.get(row[2], ())))
            for row in rows]


def result(ledger: Ledger, prefix: str) -> AttemptView:
    """One result (by its hash or an unambiguous prefix of at least 6 hex digits) with its attempt and every
    correction: `view.result` is never None."""
    found = ledger.find_result(prefix)
    with ledger.session() as session:
        attempt, model, *columns = session.execute(
            select(AttemptRow, ModelRow, *_result_columns(ledger))
            .outerjoin(ModelRow, ModelRow.id == AttemptRow.model_id)
            .join(ResultRow, ResultRow.attempt_id == AttemptRow.id)
            .where(ResultRow.result_hash == found.result_hash)).one()
        corrections = [CorrectionView(c.id, c.passed, c.reason, c.author, c.created_at, c.requirements)
                       for c in session.execute(select(CorrectionRow).where(
                           CorrectionRow.result_hash == found.result_hash).order_by(CorrectionRow.id)).scalars()]
    return _attempt_view(attempt, model, _result_view(columns, corrections))


def recorded_verdict(ledger: Ledger, result_hash: str) -> Verdict:
    """The whole verdict recorded for a result, read with the evidence model (any schema)."""
    with ledger.session() as session:
        text = session.execute(select(ResultRow.verdict).where(ResultRow.result_hash == result_hash)).scalar_one()
    return Verdict.from_json(text)
