"""From the ledger to the statistics' inputs: one batched read of attempts, results and their latest corrections.

Conventions until editions exist as runs:

- the edition is every result in the ledger, or those whose attempt has the given `editions.id`;
- the model is the `models` row (`provider/name@version`, with `[reasoning_mode]` unless it is `default`), or the
  attempt's driver name when the attempt has no model (so `grader run`'s oracle and nop results form a board);
- the effective verdict is the latest correction (highest correction id), else the recorded verdict;
- a task is held-out when its suite (the `suite/` prefix of its task id) has a `suites` row whose visibility is
  not `public`; otherwise it is public;
- a task's requirement manifest is the union, by requirement id, of the L2 requirements in its verdicts;
- an attempt's wall time is its `agent` timing plus its grading `total` (either when alone); none when neither.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from grader.stats import AttemptRecord, Requirement, TaskInfo
from ledger import Ledger, LedgerError
from ledger._models import AttemptRow, CorrectionRow, Edition, ModelRow, ResultRow, SuiteRow, TaskRow

DEFAULT_ROOT_SEED = 20260101  # the root seed when no edition is named (recorded in the snapshot)


@dataclass(frozen=True)
class LedgerAttempt:
    """One counted-or-not attempt as the boards see it, with what the page shows beside the statistics."""

    record: AttemptRecord
    task_id: str
    first_failed_level: str | None
    result_hash: str
    corrected: bool


@dataclass(frozen=True)
class EditionInputs:
    edition: dict[str, Any] | None
    root_seed: int
    attempts: tuple[LedgerAttempt, ...]
    tasks: tuple[TaskInfo, ...]
    task_ids: dict[str, str]  # task_hash -> task id (public and held-out; the snapshot only shows public ones)
    inputs_digest: str


def model_label(row: ModelRow | None, driver: str) -> str:
    if row is None:
        return driver
    mode = "" if row.reasoning_mode == "default" else f" [{row.reasoning_mode}]"
    return f"{row.provider}/{row.name}@{row.version}{mode}"


def wall_seconds(timings: dict[str, float] | None) -> float | None:
    parts = [float(timings[k]) for k in ("agent", "total") if timings and timings.get(k) is not None]
    return math.fsum(parts) if parts else None


def load_inputs(ledger: Ledger, edition_id: int | None = None) -> EditionInputs:
    """Everything the boards need, in three queries (results with attempts, models and latest corrections;
    tasks; suites), whatever the number of results."""
    latest = (select(CorrectionRow.result_hash, func.max(CorrectionRow.id).label("cid"))
              .group_by(CorrectionRow.result_hash).subquery())
    query = (select(ResultRow.result_hash, ResultRow.verdict, ResultRow.passed, ResultRow.first_failed_level,
                    AttemptRow, ModelRow, CorrectionRow.passed)
             .join(AttemptRow, AttemptRow.id == ResultRow.attempt_id)
             .outerjoin(ModelRow, ModelRow.id == AttemptRow.model_id)
             .outerjoin(latest, latest.c.result_hash == ResultRow.result_hash)
             .outerjoin(CorrectionRow, CorrectionRow.id == latest.c.cid)
             .order_by(ResultRow.result_hash))
    with ledger.session() as session:
        edition = None
        root_seed = DEFAULT_ROOT_SEED
        if edition_id is not None:
            row = session.get(Edition, edition_id)
            if row is None:
                raise LedgerError(f"no edition {edition_id} in the ledger")
            edition = {"id": row.id, "name": row.name, "engine_version": row.engine_version,
                       "dataset_version": row.dataset_version, "dataset_hash": row.dataset_hash}
            root_seed = row.root_seed
            query = query.where(AttemptRow.edition_id == edition_id)
        rows = session.execute(query).all()
        task_rows = {t.task_hash: t for t in session.execute(select(TaskRow)).scalars()}
        hidden = {s.name for s in session.execute(select(SuiteRow)).scalars() if s.visibility != "public"}

    attempts: list[LedgerAttempt] = []
    manifests: dict[str, dict[str, Requirement]] = {}
    digest = hashlib.sha256(b"grader-board-inputs/1")
    for result_hash, verdict_text, raw_passed, first_failed, attempt, model, corrected in rows:
        verdict = json.loads(verdict_text)
        effective = bool(raw_passed if corrected is None else corrected)
        reqs = ((verdict.get("levels") or {}).get("L2") or {}).get("requirements") or []
        manifest = manifests.setdefault(attempt.task_hash, {})
        for r in reqs:
            rid = str(r.get("id") or r.get("name"))
            manifest.setdefault(rid, Requirement(rid, str(r.get("layer") or "completeness"),
                                                 tuple(sorted(r.get("capabilities") or ()))))
        outcome = attempt.outcome.value if hasattr(attempt.outcome, "value") else str(attempt.outcome)
        record = AttemptRecord(
            model=model_label(model, attempt.driver), task_hash=attempt.task_hash, outcome=outcome,
            effective_passed=effective,
            requirements_passed=frozenset(str(r.get("id") or r.get("name")) for r in reqs if r.get("passed")),
            wall_seconds=wall_seconds(attempt.timings), tokens_in=attempt.tokens_in, tokens_out=attempt.tokens_out)
        task = task_rows[attempt.task_hash]
        attempts.append(LedgerAttempt(record, task.task_id, first_failed, result_hash, corrected is not None))
        digest.update(f"{result_hash}|{int(effective)}\n".encode())

    tasks = []
    for task_hash in sorted(manifests):
        row = task_rows[task_hash]
        suite = row.task_id.split("/", 1)[0] if "/" in row.task_id else ""
        manifest = manifests[task_hash]
        tasks.append(TaskInfo(task_hash=task_hash, category=row.category, difficulty=row.difficulty,
                              heldout=suite in hidden, requirements=tuple(manifest[k] for k in sorted(manifest))))
    return EditionInputs(edition=edition, root_seed=root_seed, attempts=tuple(attempts), tasks=tuple(tasks),
                         task_ids={t.task_hash: task_rows[t.task_hash].task_id for t in tasks},
                         inputs_digest=digest.hexdigest())
