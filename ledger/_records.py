"""Typed operations over the ledger: record a graded attempt, correct a result, read a result's history."""

from __future__ import annotations

import uuid
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select

from evidence import AttemptOutcome, Verdict

from ._archive import pack_directory
from ._models import (
    ArtifactRow,
    AttemptRow,
    BatteryRow,
    CorrectionRow,
    DatasetTaskRow,
    Edition,
    ModelRow,
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


def store_artifact(ledger: Ledger, session: Any, deliverable: Path) -> str:
    """Archive the deliverable deterministically and store it once; returns its hash."""
    digest, raw, compressed = pack_directory(deliverable)
    if session.get(ArtifactRow, digest) is None:
        ledger.append(session, ArtifactRow(hash=digest, size=len(raw), compressed=compressed, created_at=now()))
    return digest


def _check_pins(session: Any, edition_id: int, facts: TaskFacts, profile_hash: str | None,
                verdict: Verdict | None) -> None:
    """In the recording transaction: the edition pins this profile, this task and battery (when it records its
    dataset), and the verdict's engine and grader builds.  The grader checks every pin before any work
    (check_edition_pins); this keeps a ledger from holding a mismatch whatever the caller does."""
    edition = session.get(Edition, edition_id)
    if edition is None:
        raise LedgerError(f"no edition {edition_id} in the ledger")
    label = f"edition {edition.name!r} (id {edition_id})"
    if edition.profile_hash is not None and edition.profile_hash != profile_hash:
        ran = (f"the attempt's profile is {profile_hash}" if profile_hash
               else "the attempt has no sandbox profile (--sandbox none)")
        raise LedgerError(f"{label} pins sandbox profile {edition.profile_hash}; {ran}: refused")
    members = session.execute(select(DatasetTaskRow.task_hash, DatasetTaskRow.battery_hash).where(
        DatasetTaskRow.dataset_hash == edition.dataset_hash)).all()
    if members and (facts.task_hash, facts.battery_hash) not in {tuple(m) for m in members}:
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
    if session.get(TaskRow, facts.task_hash) is None:
        ledger.append(session, TaskRow(task_hash=facts.task_hash, task_id=facts.task_id, category=facts.category,
                                       difficulty=facts.difficulty, capabilities=list(facts.capabilities),
                                       created_at=now()))
    if session.get(BatteryRow, facts.battery_hash) is None:
        ledger.append(session, BatteryRow(battery_hash=facts.battery_hash, task_id=facts.task_id,
                                          api_version=facts.api_version, created_at=now(),
                                          requirements=[dict(r) for r in facts.requirements] or None))


def _append_facts(ledger: Ledger, session: Any, facts: TaskFacts, model: ModelFacts | None) -> int | None:
    """Append the task, battery and model rows an attempt refers to, when new; return the model's id."""
    append_task_facts(ledger, session, facts)
    if model is None:
        return None
    row = session.execute(select(ModelRow).where(
        ModelRow.provider == model.provider, ModelRow.name == model.name, ModelRow.version == model.version,
        ModelRow.reasoning_mode == model.reasoning_mode)).scalar_one_or_none()
    if row is None:
        row = ModelRow(provider=model.provider, name=model.name, version=model.version,
                       reasoning_mode=model.reasoning_mode, created_at=now())
        ledger.append(session, row)
    return int(row.id)




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
    """Append an attempt the infrastructure failed (infra_error, infra_timeout, hung): no deliverable, no result.
    It is never counted or timed; it keeps the failure on the record, and a retry under the same repetition is
    a new attempt.  Returns the attempt id."""
    if outcome.counted:
        uncounted = ", ".join(o.value for o in AttemptOutcome if not o.counted)
        raise LedgerError(f"{outcome}: not an infrastructure outcome ({uncounted})")
    with ledger.appending() as session:
        if edition_id is not None:
            _check_pins(session, edition_id, facts, profile_hash, None)
        model_id = _append_facts(ledger, session, facts, model)
        attempt_id = uuid.uuid4().hex
        ledger.append(session, AttemptRow(
            id=attempt_id, edition_id=edition_id, model_id=model_id, task_hash=facts.task_hash,
            battery_hash=facts.battery_hash, repetition=repetition, driver=driver, outcome=outcome,
            timings={k: round(v, 6) for k, v in sorted(timings.items())}, tokens_in=None, tokens_out=None,
            cost_usd=None, artifact_hash=None, created_at=now(), tool_calls=None, profile_hash=profile_hash))
    return attempt_id


def record_attempt(
    ledger: Ledger,
    facts: TaskFacts,
    verdict: Verdict,
    timings: dict[str, float],
    deliverable: Path | None,
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
    """Append task, battery, model and artifact facts as needed, the attempt and its result; return the
    result hash.  One transaction: a writer killed half-way leaves nothing behind.  An edition that pins a
    sandbox profile refuses an attempt recorded under another one, or under none."""
    if not outcome.counted:
        raise LedgerError(f"{outcome}: an attempt the infrastructure failed has no result (record_infra_attempt)")
    if verdict.task_hash != facts.task_hash or verdict.battery_hash != facts.battery_hash:
        raise LedgerError("the verdict's task or battery hash does not match the task being recorded")
    with ledger.appending() as session:
        if edition_id is not None:
            _check_pins(session, edition_id, facts, profile_hash, verdict)
        model_id = _append_facts(ledger, session, facts, model)
        artifact = store_artifact(ledger, session, deliverable) if deliverable is not None else None
        attempt_id = uuid.uuid4().hex
        ledger.append(session, AttemptRow(
            id=attempt_id, edition_id=edition_id, model_id=model_id, task_hash=facts.task_hash,
            battery_hash=facts.battery_hash, repetition=repetition, driver=driver, outcome=outcome,
            timings={k: round(v, 6) for k, v in sorted(timings.items())}, tokens_in=tokens[0],
            tokens_out=tokens[1], cost_usd=cost_usd, artifact_hash=artifact, created_at=now(),
            tool_calls=tool_calls, profile_hash=profile_hash))
        rhash = result_hash_of(attempt_id, verdict.evidence_digest, artifact)
        ledger.append(session, ResultRow(
            result_hash=rhash, attempt_id=attempt_id, verdict=verdict.canonical(),
            evidence_digest=verdict.evidence_digest, passed=verdict.passed,
            first_failed_level=verdict.first_failed_level.value if verdict.first_failed_level else None,
            engine_version=verdict.engine.build or verdict.engine.version, created_at=now()))
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


def load_artifact(ledger: Ledger, artifact_hash: str) -> bytes:
    row = ledger.get(ArtifactRow, artifact_hash)
    if row is None:
        raise LedgerError(f"artifact {artifact_hash} is not in the ledger")
    data = bytes(row.compressed)
    zlib.decompress(data)  # refuse a corrupt artifact early
    return data
