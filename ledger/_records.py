"""Typed operations over the ledger: record a graded attempt, correct a result, read a result's history."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from evidence import AttemptOutcome, Verdict

from ._archive import Artifact
from ._models import (
    ArtifactRow,
    AttemptRow,
    BatteryRow,
    CorrectionRow,
    DatasetTaskRow,
    Edition,
    ModelRow,
    PlanClaimRow,
    ResultRow,
    TaskRow,
)
from ._store import Ledger, LedgerError, now, result_hash_of


@dataclass(frozen=True)
class TaskFacts:
    """What the ledger keeps of a task and its battery (the grader passes these in)."""

    task_id: str
    task_hash: str
    battery_hash: str
    category: str
    difficulty: str
    capabilities: tuple[str, ...]
    api_version: str
    # the battery's requirement manifest: ({id, layer, capabilities, description}, ...); () when unknown
    requirements: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class ModelFacts:
    provider: str
    name: str
    version: str
    reasoning_mode: str = "default"


def store_artifact(ledger: Ledger, session: Any, artifact: Artifact) -> str:
    """Store a deliverable's archive once (checked against its hash first); returns its hash."""
    _store_artifacts(ledger, session, [artifact])
    return artifact.hash


def _missing(session: Any, key: Any, wanted: set[str]) -> set[str]:
    """The keys in `wanted` that no row of key's table holds yet (one query, however many keys)."""
    if not wanted:
        return set()
    return wanted - set(session.execute(select(key).where(key.in_(sorted(wanted)))).scalars())


def _store_artifacts(ledger: Ledger, session: Any, artifacts: Sequence[Artifact]) -> None:
    distinct = {a.hash: a for a in artifacts}
    new = _missing(session, ArtifactRow.hash, set(distinct))
    for artifact in (distinct[h] for h in distinct if h in new):   # in first-seen order: the chain's order
        artifact.verify()
        ledger.append(session, ArtifactRow(hash=artifact.hash, size=artifact.size, compressed=artifact.compressed,
                                           created_at=now()))


class _Pins:
    """The pins of the editions a batch records under, read once per transaction."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.members: dict[str, set[tuple[str, str]]] = {}

    def check(self, edition_id: int, facts: TaskFacts, profile_hash: str | None, verdict: Verdict | None) -> None:
        """The edition pins this profile, this task and battery (when it records its dataset), and the verdict's
        engine and grader builds.  The grader checks every pin before any work (check_edition_pins); this keeps a
        ledger from holding a mismatch whatever the caller does."""
        edition = self.session.get(Edition, edition_id)
        if edition is None:
            raise LedgerError(f"no edition {edition_id} in the ledger")
        label = f"edition {edition.name!r} (id {edition_id})"
        if edition.profile_hash is not None and edition.profile_hash != profile_hash:
            ran = (f"the attempt's profile is {profile_hash}" if profile_hash
                   else "the attempt has no sandbox profile (--sandbox none)")
            raise LedgerError(f"{label} pins sandbox profile {edition.profile_hash}; {ran}: refused")
        if edition.dataset_hash not in self.members:
            self.members[edition.dataset_hash] = {tuple(m) for m in self.session.execute(
                select(DatasetTaskRow.task_hash, DatasetTaskRow.battery_hash).where(
                    DatasetTaskRow.dataset_hash == edition.dataset_hash)).all()}
        members = self.members[edition.dataset_hash]
        if members and (facts.task_hash, facts.battery_hash) not in members:
            raise LedgerError(f"{label}: {facts.task_id} (task {facts.task_hash[:12]}, battery "
                              f"{facts.battery_hash[:12]}) is not in its dataset: refused")
        if verdict is not None:
            for what, pinned, here in (("engine build", edition.engine_version, verdict.engine.build),
                                       ("grader build", edition.grader_build,
                                        verdict.grader.build if verdict.grader else None)):
                if pinned is not None and pinned != here:
                    raise LedgerError(f"{label} pins {what} {pinned}; the verdict's is {here}: refused")


def append_task_facts(ledger: Ledger, session: Any, facts: TaskFacts) -> None:
    """Append the task and battery rows, when new (in the caller's transaction)."""
    _append_task_facts(ledger, session, [facts])


def _append_task_facts(ledger: Ledger, session: Any, all_facts: Sequence[TaskFacts]) -> None:
    tasks = {f.task_hash: f for f in all_facts}
    batteries = {f.battery_hash: f for f in all_facts}
    new_tasks = _missing(session, TaskRow.task_hash, set(tasks))
    new_batteries = _missing(session, BatteryRow.battery_hash, set(batteries))
    for facts in all_facts:    # task then battery, in first-seen order: the order one record at a time gives
        if facts.task_hash in new_tasks:
            new_tasks.discard(facts.task_hash)
            ledger.append(session, TaskRow(task_hash=facts.task_hash, task_id=facts.task_id,
                                           category=facts.category, difficulty=facts.difficulty,
                                           capabilities=list(facts.capabilities), created_at=now()))
        if facts.battery_hash in new_batteries:
            new_batteries.discard(facts.battery_hash)
            ledger.append(session, BatteryRow(battery_hash=facts.battery_hash, task_id=facts.task_id,
                                              api_version=facts.api_version, created_at=now(),
                                              requirements=[dict(r) for r in facts.requirements] or None))


def _model_id(ledger: Ledger, session: Any, model: ModelFacts, known: dict[ModelFacts, int]) -> int:
    """The model's row id, appending the row when new; `known` caches ids within the transaction."""
    if model not in known:
        row = session.execute(select(ModelRow).where(
            ModelRow.provider == model.provider, ModelRow.name == model.name, ModelRow.version == model.version,
            ModelRow.reasoning_mode == model.reasoning_mode)).scalar_one_or_none()
        if row is None:
            row = ModelRow(provider=model.provider, name=model.name, version=model.version,
                           reasoning_mode=model.reasoning_mode, created_at=now())
            ledger.append(session, row)
        known[model] = int(row.id)
    return known[model]


@dataclass(frozen=True)
class AttemptRecord:
    """One attempt as the ledger records it.  With a verdict it was graded (a counted outcome) and gets a result;
    without one the infrastructure failed it (infra_error, infra_timeout, hung): no deliverable, no result, never
    counted, kept on the record (a retry under the same repetition is a new attempt).  The attempt id is drawn
    when the record is made, so its result hash is known before it is written."""

    facts: TaskFacts
    driver: str
    outcome: AttemptOutcome
    timings: Mapping[str, float]
    verdict: Verdict | None = None
    artifact: Artifact | None = None
    repetition: int = 0
    model: ModelFacts | None = None
    edition_id: int | None = None
    tokens: tuple[int | None, int | None] = (None, None)
    cost_usd: float | None = None
    tool_calls: int | None = None
    profile_hash: str | None = None
    attempt_id: str = field(default_factory=lambda: uuid.uuid4().hex)

    def check(self) -> None:
        """Refuse a record that contradicts itself (LedgerError), before any write."""
        verdict = self.verdict
        if verdict is None:
            if self.outcome.counted:
                uncounted = ", ".join(o.value for o in AttemptOutcome if not o.counted)
                raise LedgerError(f"{self.outcome}: not an infrastructure outcome ({uncounted})")
            if self.artifact is not None:
                raise LedgerError("an attempt the infrastructure failed has no deliverable")
            return
        if not self.outcome.counted:
            raise LedgerError(f"{self.outcome}: an attempt the infrastructure failed has no result")
        if self.artifact is not None and verdict.schema_version >= 2 and self.artifact.hash != verdict.deliverable_hash:
            raise LedgerError("the stored deliverable is not the one the verdict judged (its hash differs)")
        if verdict.task_hash != self.facts.task_hash or verdict.battery_hash != self.facts.battery_hash:
            raise LedgerError("the verdict's task or battery hash does not match the task being recorded")

    @property
    def result_hash(self) -> str | None:
        if self.verdict is None:
            return None
        return result_hash_of(self.attempt_id, self.verdict.evidence_digest,
                              self.artifact.hash if self.artifact is not None else None)


def record_attempts(ledger: Ledger, records: Sequence[AttemptRecord]) -> list[str | None]:
    """Append every record in one transaction, in order: the task, battery, model and artifact facts each needs
    (once), the attempt and, when graded, its result.  All or nothing: a record that fails its checks or its
    edition's pins, or a writer killed half-way, leaves none of the batch behind.  Under a planned edition each
    record must be in the plan, and a counted one claims its planned attempt (AlreadyRecordedError when it has
    its counted attempt already); a published edition refuses every record (EditionFrozenError).  Returns each
    record's result hash (None for an infrastructure failure)."""
    for record in records:
        record.check()
    if len({r.attempt_id for r in records}) != len(records):
        raise LedgerError("a batch names the same attempt twice")
    from ._plans import PlanGuard, model_label  # _plans builds on this module: imported when used

    with ledger.appending() as session, session.no_autoflush:
        # in phases (facts, attempts, results), so a batch costs a few statements per table rather than a few
        # per record: each phase's rows refer only to rows an earlier phase wrote
        pins = _Pins(session)
        plans = PlanGuard(session)
        claims: list[tuple[int, str]] = []
        for record in records:
            if record.edition_id is not None:
                pins.check(record.edition_id, record.facts, record.profile_hash, record.verdict)
                item = plans.check(record.edition_id, model_label(record.model, record.driver), record.facts,
                                   record.repetition, record.outcome.counted)
                if item is not None:
                    claims.append((item, record.attempt_id))
        plans.check_unclaimed()
        _append_task_facts(ledger, session, [r.facts for r in records])
        models: dict[ModelFacts, int] = {}
        for record in records:
            if record.model:
                _model_id(ledger, session, record.model, models)
        _store_artifacts(ledger, session, [r.artifact for r in records if r.artifact is not None])
        for record in records:
            ledger.append(session, AttemptRow(
                id=record.attempt_id, edition_id=record.edition_id,
                model_id=models[record.model] if record.model else None,
                task_hash=record.facts.task_hash, battery_hash=record.facts.battery_hash,
                repetition=record.repetition, driver=record.driver, outcome=record.outcome,
                timings={k: round(v, 6) for k, v in sorted(record.timings.items())},
                tokens_in=record.tokens[0], tokens_out=record.tokens[1], cost_usd=record.cost_usd,
                artifact_hash=record.artifact.hash if record.artifact is not None else None, created_at=now(),
                tool_calls=record.tool_calls, profile_hash=record.profile_hash))
        for record in records:
            verdict = record.verdict
            if verdict is not None:
                ledger.append(session, ResultRow(
                    result_hash=record.result_hash, attempt_id=record.attempt_id, verdict=verdict.canonical(),
                    evidence_digest=verdict.evidence_digest, passed=verdict.passed,
                    first_failed_level=verdict.first_failed_level.value if verdict.first_failed_level else None,
                    engine_version=verdict.engine.build or verdict.engine.version, created_at=now()))
        for item, attempt_id in claims:
            ledger.append(session, PlanClaimRow(plan_item_id=item, attempt_id=attempt_id, created_at=now()))
    return [r.result_hash for r in records]


def record_infra_attempt(
    ledger: Ledger,
    facts: TaskFacts,
    outcome: AttemptOutcome,
    timings: dict[str, float],
    driver: str,
    repetition: int = 0,
    model: ModelFacts | None = None,
    edition_id: int | None = None,
    profile_hash: str | None = None,
) -> str:
    """Append one attempt the infrastructure failed (see AttemptRecord); returns the attempt id."""
    record = AttemptRecord(facts, driver, outcome, timings, repetition=repetition, model=model,
                           edition_id=edition_id, profile_hash=profile_hash)
    record_attempts(ledger, [record])
    return record.attempt_id


def record_attempt(
    ledger: Ledger,
    facts: TaskFacts,
    verdict: Verdict,
    timings: dict[str, float],
    artifact: Artifact | None,
    driver: str,
    outcome: AttemptOutcome = AttemptOutcome.COMPLETED,
    repetition: int = 0,
    model: ModelFacts | None = None,
    edition_id: int | None = None,
    tokens: tuple[int | None, int | None] = (None, None),
    cost_usd: float | None = None,
    tool_calls: int | None = None,
    profile_hash: str | None = None,
) -> str:
    """Append one graded attempt and its result in its own transaction (see record_attempts); return the result
    hash.  An edition that pins a sandbox profile refuses an attempt recorded under another one, or under none."""
    record = AttemptRecord(facts, driver, outcome, timings, verdict, artifact, repetition, model, edition_id,
                           tokens, cost_usd, tool_calls, profile_hash)
    (rhash,) = record_attempts(ledger, [record])
    assert rhash is not None
    return rhash


def correct_result(ledger: Ledger, prefix: str, passed: bool, reason: str, author: str,
                   requirements: dict[str, bool] | None = None) -> int:
    """Append a correction to a result; returns the correction's id.  `requirements` names requirement
    outcomes the correction changes ({id: passed}); the grader checks them against the verdict first."""
    if not reason.strip() or not author.strip():
        raise LedgerError("a correction needs a reason and an author")
    result = ledger.find_result(prefix)
    with ledger.appending() as session:
        row = CorrectionRow(result_hash=result.result_hash, passed=passed, reason=reason.strip(),
                            author=author.strip(), created_at=now(),
                            requirements=dict(sorted(requirements.items())) if requirements else None)
        ledger.append(session, row)
        return row.id


def load_artifact(ledger: Ledger, artifact_hash: str) -> Artifact:
    """A stored deliverable, checked against its hash (a corrupt artifact is refused, never replayed)."""
    row = ledger.get(ArtifactRow, artifact_hash)
    if row is None:
        raise LedgerError(f"artifact {artifact_hash} is not in the ledger")
    artifact = Artifact(row.hash, row.size, bytes(row.compressed))
    artifact.verify()
    return artifact
