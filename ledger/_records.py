"""Typed operations over the ledger: record a graded attempt, correct a result, read a result's history."""

from __future__ import annotations

import json
import uuid
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select

from ._archive import pack_directory
from ._models import (
    ArtifactRow,
    AttemptRow,
    BatteryRow,
    CorrectionRow,
    Edition,
    ModelRow,
    Outcome,
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


def _check_profile_pin(session: Any, edition_id: int, profile_hash: str | None) -> None:
    edition = session.get(Edition, edition_id)
    if edition is None:
        raise LedgerError(f"no edition {edition_id} in the ledger")
    if edition.profile_hash is not None and edition.profile_hash != profile_hash:
        ran = (f"the attempt's profile is {profile_hash}" if profile_hash
               else "the attempt has no sandbox profile (--sandbox none)")
        raise LedgerError(f"edition {edition.name!r} (id {edition_id}) pins sandbox profile {edition.profile_hash};"
                          f" {ran}: refused")


def check_profile_pin(ledger: Ledger, edition_id: int, profile_hash: str | None) -> None:
    """Refuse (LedgerError naming both hashes) a profile the edition does not pin; before running an attempt."""
    with ledger.session() as session:
        _check_profile_pin(session, edition_id, profile_hash)


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
    return row.id


INFRA_OUTCOMES = (Outcome.INFRA_ERROR, Outcome.INFRA_TIMEOUT, Outcome.HUNG)


def record_infra_attempt(
    ledger: Ledger,
    facts: TaskFacts,
    outcome: Outcome,
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
    if outcome not in INFRA_OUTCOMES:
        raise LedgerError(f"{outcome}: not an infrastructure outcome ({', '.join(o.value for o in INFRA_OUTCOMES)})")
    with ledger.appending() as session:
        if edition_id is not None:
            _check_profile_pin(session, edition_id, profile_hash)
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
    verdict: dict[str, Any],
    timings: dict[str, float],
    deliverable: Path | None,
    driver: str,
    outcome: Outcome = Outcome.COMPLETED,
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
    if verdict["task_hash"] != facts.task_hash or verdict["battery_hash"] != facts.battery_hash:
        raise LedgerError("the verdict's task or battery hash does not match the task being recorded")
    with ledger.appending() as session:
        if edition_id is not None:
            _check_profile_pin(session, edition_id, profile_hash)
        model_id = _append_facts(ledger, session, facts, model)
        artifact = store_artifact(ledger, session, deliverable) if deliverable is not None else None
        attempt_id = uuid.uuid4().hex
        ledger.append(session, AttemptRow(
            id=attempt_id, edition_id=edition_id, model_id=model_id, task_hash=facts.task_hash,
            battery_hash=facts.battery_hash, repetition=repetition, driver=driver, outcome=outcome,
            timings={k: round(v, 6) for k, v in sorted(timings.items())}, tokens_in=tokens[0],
            tokens_out=tokens[1], cost_usd=cost_usd, artifact_hash=artifact, created_at=now(),
            tool_calls=tool_calls, profile_hash=profile_hash))
        rhash = result_hash_of(attempt_id, verdict["evidence_digest"], artifact)
        ledger.append(session, ResultRow(
            result_hash=rhash, attempt_id=attempt_id,
            verdict=json.dumps(verdict, sort_keys=True, separators=(",", ":"), ensure_ascii=False),
            evidence_digest=verdict["evidence_digest"], passed=bool(verdict["passed"]),
            first_failed_level=verdict["first_failed_level"], engine_version=verdict["engine"]["version"],
            created_at=now()))
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


def result_history(ledger: Ledger, prefix: str) -> dict[str, Any]:
    """The raw verdict, every correction in order, and the effective verdict (the latest correction wins)."""
    result = ledger.find_result(prefix)
    with ledger.session() as session:
        corrections = session.execute(select(CorrectionRow).where(
            CorrectionRow.result_hash == result.result_hash).order_by(CorrectionRow.id)).scalars().all()
        attempt = session.get(AttemptRow, result.attempt_id)
    effective = corrections[-1].passed if corrections else result.passed
    return {
        "result_hash": result.result_hash,
        "attempt": {"id": attempt.id, "driver": attempt.driver, "outcome": attempt.outcome.value,
                    "artifact_hash": attempt.artifact_hash, "timings": attempt.timings,
                    "profile_hash": attempt.profile_hash, "tokens_in": attempt.tokens_in,
                    "tokens_out": attempt.tokens_out, "cost_usd": attempt.cost_usd,
                    "tool_calls": attempt.tool_calls},
        "verdict": json.loads(result.verdict),
        "raw_passed": result.passed,
        "corrections": [{"id": c.id, "passed": c.passed, "reason": c.reason, "author": c.author,
                         "created_at": c.created_at.isoformat(), "requirements": c.requirements}
                        for c in corrections],
        "effective_passed": effective,
    }


def load_artifact(ledger: Ledger, artifact_hash: str) -> bytes:
    row = ledger.get(ArtifactRow, artifact_hash)
    if row is None:
        raise LedgerError(f"artifact {artifact_hash} is not in the ledger")
    data = bytes(row.compressed)
    zlib.decompress(data)  # refuse a corrupt artifact early
    return data
