"""Edition plans (schema 5): the attempts an edition means to hold (model x task x repetition), each fulfilled by
exactly one counted attempt, and the edition's publication, after which it is frozen.  All of it is facts:
appended, audited, never changed.

The ledger itself keeps the promise: recording a counted attempt under a planned edition appends a `plan_claims`
row keyed by its plan item, in the attempt's own transaction (which holds the chain lock, so checks and appends
cannot interleave), and that key is the table's primary key.  An attempt outside the plan, or under a published
edition, is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from evidence import AttemptOutcome

if TYPE_CHECKING:
    from ._records import TaskFacts

from ._editions import Pins, SuiteFacts, append_edition, append_suite, check_edition_request
from ._models import (
    AttemptRow,
    Edition,
    EditionPlanRow,
    PlanClaimRow,
    PlanItemRow,
    PublicationRow,
    ResultRow,
    TaskRow,
)
from ._store import Ledger, LedgerError, now

MAX_REPETITIONS = 1000


class AlreadyRecordedError(LedgerError):
    """A counted attempt for a planned attempt that already has one: the edition keeps the first."""


class EditionFrozenError(LedgerError):
    """Recording under an edition that was published."""


def model_label(model: Any, driver: str) -> str:
    """The name a model goes by on the boards and in a plan: `provider/name@version`, with ` [mode]` unless the
    reasoning mode is `default`; the driver's name when the attempt has no model (the built-in baselines)."""
    if model is None:
        return driver
    mode = "" if model.reasoning_mode == "default" else f" [{model.reasoning_mode}]"
    return f"{model.provider}/{model.name}@{model.version}{mode}"


@dataclass(frozen=True)
class PlannedModel:
    """One model of a plan: its label (unique in the plan), the driver that drives it, and its entry as the
    maintainer's models.toml gave it (plain JSON, recorded as is)."""

    label: str
    driver: str
    entry: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PlanItem:
    id: int
    model: str
    driver: str
    task_hash: str
    battery_hash: str
    task_id: str
    repetition: int


@dataclass(frozen=True)
class ItemState:
    """What the ledger holds for a planned attempt: its counted attempt (None: still missing) and how many times
    the infrastructure failed it (recorded, never counted)."""

    item: PlanItem
    attempt_id: str | None = None
    outcome: AttemptOutcome | None = None
    passed: bool | None = None
    infra_failures: int = 0


@dataclass(frozen=True)
class EditionPlan:
    edition_id: int
    repetitions: int
    suites: tuple[dict[str, Any], ...]
    models: tuple[dict[str, Any], ...]
    items: tuple[PlanItem, ...]
    created_at: datetime


def _plan_rows(session: Session, edition_id: int, tasks: Sequence[TaskFacts], models: Sequence[PlannedModel],
               repetitions: int) -> list[dict[str, Any]]:
    """Repetition-major, then task id, then the models' order: a run that stops early has whole rounds of every
    model on every task rather than every repetition of a few."""
    first = int(session.execute(select(func.coalesce(func.max(PlanItemRow.id), 0))).scalar_one()) + 1
    rows: list[dict[str, Any]] = []
    created = now()
    for rep in range(repetitions):
        for facts in sorted(tasks, key=lambda t: (t.task_id, t.task_hash)):
            for m in models:
                rows.append({"id": first + len(rows), "edition_id": edition_id, "model": m.label,
                             "driver": m.driver, "task_hash": facts.task_hash, "battery_hash": facts.battery_hash,
                             "repetition": rep, "created_at": created})
    return rows


def create_planned_edition(ledger: Ledger, name: str, dataset: SuiteFacts, pins: Pins, root_seed: int,
                           tasks: Sequence[TaskFacts], *, suites: Sequence[SuiteFacts],
                           sources: Sequence[Mapping[str, Any]], models: Sequence[PlannedModel],
                           repetitions: int) -> int:
    """Append an edition of `dataset` (every task of `tasks`; its component `suites` each get their row, which
    says their visibility) with its plan: every model x task x repetition.  One transaction: an edition is never
    left without its plan.  Returns the edition's id."""
    check_edition_request(name, dataset, pins, root_seed)
    if not 1 <= repetitions <= MAX_REPETITIONS:
        raise LedgerError(f"repetitions {repetitions}: must be between 1 and {MAX_REPETITIONS}")
    if not models:
        raise LedgerError("a plan needs at least one model")
    labels = [m.label for m in models]
    if len(set(labels)) != len(labels):
        raise LedgerError(f"a plan names model {sorted({x for x in labels if labels.count(x) > 1})[0]!r} twice")
    for m in models:
        if not m.label or len(m.label) > 256 or not m.driver or len(m.driver) > 256:
            raise LedgerError(f"model {m.label!r}: its label and driver are 1 to 256 characters")
    if not tasks:
        raise LedgerError("a plan needs at least one task")
    with ledger.appending() as session:
        for suite in suites:
            append_suite(ledger, session, suite)
        edition = append_edition(ledger, session, name, dataset, pins, root_seed, tasks)
        ledger.append(session, EditionPlanRow(edition_id=edition.id, repetitions=repetitions,
                                              suites=[dict(s) for s in sources],
                                              models=[{"label": m.label, "driver": m.driver, **dict(m.entry)}
                                                      for m in models], created_at=now()))
        # the items' ids are drawn under the chain lock this transaction holds (never from the database's
        # sequence, which no writer of this table uses), so they are known before the insert: a plan of thousands
        # of items is a few statements, not a flush per row
        ledger.append(session, *(PlanItemRow(**row) for row in _plan_rows(session, edition.id, tasks, models,
                                                                          repetitions)))
        return int(edition.id)


def _items(session: Session, edition_id: int) -> list[PlanItem]:
    rows = session.execute(select(PlanItemRow, TaskRow.task_id)
                           .join(TaskRow, TaskRow.task_hash == PlanItemRow.task_hash)
                           .where(PlanItemRow.edition_id == edition_id).order_by(PlanItemRow.id)).all()
    return [PlanItem(r.id, r.model, r.driver, r.task_hash, r.battery_hash, task_id, r.repetition)
            for r, task_id in rows]


def edition_plan(ledger: Ledger, edition_id: int) -> EditionPlan | None:
    """The edition's plan, or None for an edition created without one (`grader edition create`)."""
    with ledger.session() as session:
        row = session.get(EditionPlanRow, edition_id)
        if row is None:
            return None
        return EditionPlan(edition_id, row.repetitions, tuple(row.suites), tuple(row.models),
                           tuple(_items(session, edition_id)), row.created_at)


def plan_states(ledger: Ledger, edition_id: int) -> list[ItemState]:
    """Every planned attempt of the edition with what the ledger holds of it, in plan order."""
    with ledger.session() as session:
        items = _items(session, edition_id)
        claims = {pid: (aid, AttemptOutcome(outcome), passed) for pid, aid, outcome, passed in session.execute(
            select(PlanClaimRow.plan_item_id, PlanClaimRow.attempt_id, AttemptRow.outcome, ResultRow.passed)
            .join(AttemptRow, AttemptRow.id == PlanClaimRow.attempt_id)
            .outerjoin(ResultRow, ResultRow.attempt_id == AttemptRow.id)
            .join(PlanItemRow, PlanItemRow.id == PlanClaimRow.plan_item_id)
            .where(PlanItemRow.edition_id == edition_id)).all()}
        infra: dict[tuple[str, str, int], int] = {}
        uncounted = [o for o in AttemptOutcome if not o.counted]
        for driver, model_row, task_hash, rep in session.execute(
                select(AttemptRow.driver, AttemptRow.model_id, AttemptRow.task_hash, AttemptRow.repetition)
                .where(AttemptRow.edition_id == edition_id, AttemptRow.outcome.in_(uncounted))).all():
            key = (_label_of(session, model_row, driver), task_hash, rep)
            infra[key] = infra.get(key, 0) + 1
    out = []
    for item in items:
        claim = claims.get(item.id)
        failures = infra.get((item.model, item.task_hash, item.repetition), 0)
        if claim is None:
            out.append(ItemState(item, infra_failures=failures))
        else:
            out.append(ItemState(item, claim[0], claim[1], claim[2], failures))
    return out


def _label_of(session: Session, model_id: int | None, driver: str) -> str:
    from ._models import ModelRow

    cache: dict[int, str] = session.info.setdefault("grader.model_labels", {})
    if model_id is None:
        return driver
    if model_id not in cache:
        cache[model_id] = model_label(session.get(ModelRow, model_id), driver)
    return cache[model_id]


def publication(ledger: Ledger, edition_id: int) -> tuple[datetime, str] | None:
    """(when, snapshot digest) of the edition's publication, or None."""
    with ledger.session() as session:
        row = session.get(PublicationRow, edition_id)
        return None if row is None else (row.published_at, row.snapshot_digest)


def publish_edition(ledger: Ledger, edition_id: int, snapshot_digest: str) -> tuple[datetime, str]:
    """Append the edition's publication (once: publishing again returns the first one's time and digest).
    From then on nothing is recorded under the edition."""
    with ledger.appending() as session:
        if session.get(Edition, edition_id) is None:
            raise LedgerError(f"no edition {edition_id} in the ledger")
        row = session.get(PublicationRow, edition_id)
        if row is None:
            row = PublicationRow(edition_id=edition_id, snapshot_digest=snapshot_digest, published_at=now())
            ledger.append(session, row)
        return row.published_at, row.snapshot_digest


def published_editions(ledger: Ledger) -> list[tuple[int, str, datetime, str]]:
    """(id, name, published at, snapshot digest) of every published edition, oldest publication first."""
    with ledger.session() as session:
        return [(e.id, e.name, p.published_at, p.snapshot_digest) for p, e in session.execute(
            select(PublicationRow, Edition).join(Edition, Edition.id == PublicationRow.edition_id)
            .order_by(PublicationRow.published_at, Edition.id)).all()]


class PlanGuard:
    """In a recording transaction: refuses attempts under published editions and, under planned ones, attempts
    outside the plan and a second counted attempt for a planned one; gives the plan item each counted attempt
    claims."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.editions: dict[int, dict[tuple[str, str, int], int] | None] = {}
        self.claimed: set[int] = set()

    def _plan(self, edition_id: int) -> dict[tuple[str, str, int], int] | None:
        if edition_id not in self.editions:
            published = self.session.get(PublicationRow, edition_id)
            if published is not None:
                name = self.session.get(Edition, edition_id).name   # type: ignore[union-attr]
                raise EditionFrozenError(f"edition {name!r} (id {edition_id}) was published at "
                                         f"{published.published_at.isoformat(timespec='seconds')}Z: it is frozen, "
                                         f"nothing more is recorded under it")
            if self.session.get(EditionPlanRow, edition_id) is None:
                self.editions[edition_id] = None
            else:
                # plain columns, not mapped rows: a nightly's plan has thousands of items, read once per batch
                self.editions[edition_id] = {(m, t, r): i for i, m, t, r in self.session.execute(
                    select(PlanItemRow.id, PlanItemRow.model, PlanItemRow.task_hash, PlanItemRow.repetition)
                    .where(PlanItemRow.edition_id == edition_id)).all()}
        return self.editions[edition_id]

    def check(self, edition_id: int, label: str, task: TaskFacts, repetition: int, counted: bool) -> int | None:
        """The plan item a counted attempt claims (None: uncounted, or the edition has no plan)."""
        plan = self._plan(edition_id)
        if plan is None:
            return None
        item = plan.get((label, task.task_hash, repetition))
        if item is None:
            raise LedgerError(f"edition {edition_id} plans no attempt of {task.task_id} by {label!r} as repetition "
                              f"{repetition}: refused")
        if not counted:
            return None
        if item in self.claimed:
            raise AlreadyRecordedError(f"a batch records planned attempt {item} twice")
        self.claimed.add(item)
        return item

    def check_unclaimed(self) -> None:
        """Refuse the batch when one of its planned attempts already has its counted attempt (one query)."""
        if not self.claimed:
            return
        taken = self.session.execute(select(PlanClaimRow.plan_item_id, PlanClaimRow.attempt_id).where(
            PlanClaimRow.plan_item_id.in_(sorted(self.claimed)))).first()
        if taken is not None:
            raise AlreadyRecordedError(f"planned attempt {taken[0]} is recorded already (attempt {taken[1]}): "
                                       f"each is counted exactly once")
