"""From the ledger to the statistics' inputs, through the ledger's typed reads (ledger/_reads.py).

- the edition is every attempt in the ledger, or those recorded under the given `editions.id`;
- the board's tasks are the edition's pinned dataset (every task of it, attempted or not) when the ledger knows
  the dataset's membership (editions created since schema 3); otherwise, the tasks that have attempts;
- the model is the `models` row (`provider/name@version`, with `[reasoning_mode]` unless it is `default`), or the
  attempt's driver name when the attempt has no model (so `grader run`'s oracle and nop results form a board);
- the effective verdict is the latest correction (highest correction id), else the recorded verdict; an attempt
  the infrastructure failed has no verdict and is never counted, but each board says how many there were;
- a task's requirement manifest is its battery's (schema 3), else the union, by requirement id, of the L2
  requirements in its verdicts; an attempt's requirement outcomes follow its latest correction
  (grader.stats.effective_requirements);
- a task is held-out when its suite (the `suite/` prefix of its task id) has a `suites` row whose visibility is
  not `public`; otherwise it is public;
- an attempt's wall time is its `agent` timing plus its grading `total` (either when alone); none when neither.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any

from evidence import RequirementResult
from grader.stats import AttemptRecord, Requirement, TaskInfo, effective_requirements
from ledger import AttemptView, Ledger, TaskView, attempts, dataset_tasks, get_edition, model_label, tasks_of

DEFAULT_ROOT_SEED = 20260101  # the root seed when no edition is named (recorded in the snapshot)


@dataclass(frozen=True)
class LedgerAttempt:
    """One counted-or-not attempt as the boards see it, with what the page shows beside the statistics."""

    record: AttemptRecord
    task_id: str
    first_failed_level: str | None
    result_hash: str | None        # None: the infrastructure failed the attempt (no verdict)
    corrected: bool


@dataclass(frozen=True)
class EditionInputs:
    edition: dict[str, Any] | None
    root_seed: int
    attempts: tuple[LedgerAttempt, ...]
    tasks: tuple[TaskInfo, ...]
    task_ids: dict[str, str]  # task_hash -> task id (public and held-out; the snapshot only shows public ones)
    inputs_digest: str
    dataset_pinned: bool = False   # the tasks are the edition's dataset, not the tasks that happen to have results
    as_of: str | None = None       # when the newest attempt on these boards was recorded (ISO 8601, UTC)
    engines: tuple[str, ...] = ()  # the engine versions (and builds) of the verdicts on these boards


def wall_seconds(timings: dict[str, float] | None) -> float | None:
    parts = [float(timings[k]) for k in ("agent", "total") if timings and timings.get(k) is not None]
    return math.fsum(parts) if parts else None


def _verdict_requirements(view: AttemptView) -> list[RequirementResult]:
    return list(view.result.requirements) if view.result is not None else []


def _manifest(task: TaskView, verdict_requirements: list[list[RequirementResult]]) -> tuple[Requirement, ...]:
    if task.requirements is not None:
        return tuple(Requirement(str(r["id"]), str(r["layer"]), tuple(sorted(r.get("capabilities") or ())))
                     for r in sorted(task.requirements, key=lambda r: str(r["id"])))
    union: dict[str, Requirement] = {}
    for reqs in verdict_requirements:
        for r in reqs:
            union.setdefault(r.id, Requirement(r.id, r.layer.value, tuple(sorted(r.capabilities))))
    return tuple(union[k] for k in sorted(union))


ADHOC_DRIVER = "grade"   # what `grader grade` records as its driver: a one-off grade, not a model's attempt


def load_inputs(ledger: Ledger, edition_id: int | None = None, *, include_grades: bool = False) -> EditionInputs:
    """Everything the boards need, read once: the edition, its attempts with results and corrections, and its
    tasks with their requirement manifests.  Without an edition, every attempt of the ledger; one-off
    `grader grade` results only when `include_grades`."""
    edition = None
    root_seed = DEFAULT_ROOT_SEED
    views = [a for a in attempts(ledger, edition_id)
             if include_grades or not (a.driver == ADHOC_DRIVER and a.model is None and a.edition_id is None)]
    dataset: list[TaskView] = []
    if edition_id is not None:
        row = get_edition(ledger, edition_id)
        edition = {"id": row.id, "name": row.name, "engine_version": row.engine_build,
                   "dataset_version": row.dataset_version, "dataset_hash": row.dataset_hash}
        root_seed = row.root_seed
        dataset = dataset_tasks(ledger, row.dataset_hash)
    task_views = ({t.task_hash: t for t in dataset} if dataset
                  else tasks_of(ledger, {(a.task_hash, a.battery_hash) for a in views}))
    views = [a for a in views if a.task_hash in task_views]
    raw = {a.id: _verdict_requirements(a) for a in views}
    by_task: dict[str, list[list[RequirementResult]]] = {}
    for a in views:
        by_task.setdefault(a.task_hash, []).append(raw[a.id])
    manifests = {h: _manifest(t, by_task.get(h, [])) for h, t in task_views.items()}

    out: list[LedgerAttempt] = []
    digest = hashlib.sha256(b"grader-board-inputs/1")
    for a in sorted(views, key=lambda v: (v.result.result_hash if v.result else "", v.id)):
        result = a.result
        correction = result.correction if result is not None else None
        effective = result.effective_passed if result is not None else False
        passed_reqs = effective_requirements(
            {r.id: r.passed for r in raw[a.id]}, manifests[a.task_hash],
            corrected_passed=correction.passed if correction is not None else None,
            named=correction.requirements if correction is not None else None) if result is not None else frozenset()
        record = AttemptRecord(
            model=model_label(a.model, a.driver), task_hash=a.task_hash, outcome=a.outcome.value,
            effective_passed=effective, requirements_passed=passed_reqs, wall_seconds=wall_seconds(a.timings),
            tokens_in=a.tokens_in, tokens_out=a.tokens_out)
        out.append(LedgerAttempt(record, task_views[a.task_hash].task_id,
                                 result.first_failed_level if result is not None else None,
                                 result.result_hash if result is not None else None, correction is not None))
        if result is None:
            digest.update(f"attempt {a.id}|{a.outcome.value}\n".encode())
        else:
            named = "" if correction is None or not correction.requirements else \
                "|" + json.dumps(correction.requirements, sort_keys=True)
            digest.update(f"{result.result_hash}|{int(effective)}{named}\n".encode())

    tasks = [TaskInfo(task_hash=h, category=t.category, difficulty=t.difficulty, heldout=t.heldout,
                      requirements=manifests[h], label=t.task_id) for h, t in sorted(task_views.items())]
    engines = sorted({v.result.engine_version + (f" ({v.result.engine_build[:12]})" if v.result.engine_build else "")
                      for v in views if v.result is not None})
    newest = max((a.created_at for a in views), default=None)
    return EditionInputs(edition=edition, root_seed=root_seed, attempts=tuple(out), tasks=tuple(tasks),
                         task_ids={h: t.task_id for h, t in task_views.items()},
                         inputs_digest=digest.hexdigest(), dataset_pinned=bool(dataset),
                         as_of=newest.isoformat(timespec="seconds") + "Z" if newest else None,
                         engines=tuple(engines))
