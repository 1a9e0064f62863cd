"""The edition snapshot: every number the page shows, precomputed, as canonical byte-reproducible JSON.

Canonical form: `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)` and a
final newline.  Floats are not rounded: Python prints the shortest repr that round-trips, which is the same for
the same float on every platform, and the statistics already produce bit-identical floats for equal inputs.
Nothing in it depends on time or on the order rows come out of the database.

Held-out tasks are revealed only through scores (format 2): each row of the `heldout` board is a model's score,
CI and rank only — no task hashes or ids, no counts of tasks, attempts or passes, no time or cost — its
refusals name the model only, and every count elsewhere (summary, funnel, pass matrix) is over public tasks.
Cost per task is the string "N/A" where the statistics give none (unmetered or unpriced: never an estimate);
the price table used is recorded under `prices`.
Every board row says how many of the model's attempts on the board's tasks were excluded as infrastructure
failures (`excluded_attempts`); `summary.tasks_from` says whether the tasks are the edition's pinned dataset or,
for ledgers that do not record it, the tasks that have attempts.
The failure funnel sorts each counted attempt by its recorded verdict's `first_failed_level` (L0, L1, L2, or
`passed` when no level failed); corrections change the effective pass on the boards, not the funnel.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from grader.stats import DEFAULT_REPLICATES, Price, edition_boards, is_counted

from ._ledger import EditionInputs

FORMAT = "grader-snapshot/2"
HELDOUT_ROW = ("model", "score", "score_exact", "ci", "ci_method", "rank", "rank_range")
FUNNEL_STAGES = ("L0", "L1", "L2", "passed")


def canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n"


def _display_costs(board: dict[str, Any]) -> None:
    for row in board.get("models", []):
        if "cost_per_task_usd" in row and row["cost_per_task_usd"] is None:
            row["cost_per_task_usd"] = "N/A"


def _redact_heldout(board: dict[str, Any]) -> dict[str, Any]:
    """What may be published of the held-out board: each model's score, CI and rank (HELDOUT_ROW)."""
    return {"models": [{k: row[k] for k in HELDOUT_ROW if k in row} for row in board.get("models", [])],
            "refused": [{"model": r["model"], "reason": "no counted attempt on some held-out tasks"}
                        for r in board.get("refused", [])]}


def _funnel(inputs: EditionInputs) -> dict[str, Any]:
    which = {t.task_hash for t in inputs.tasks if not t.heldout}
    counts: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(FUNNEL_STAGES, 0))
    for a in inputs.attempts:
        if a.record.task_hash in which and is_counted(a.record.outcome):
            stage = a.first_failed_level if a.first_failed_level in FUNNEL_STAGES[:3] else "passed"
            counts[a.record.model][stage] += 1
            counts["*all*"][stage] += 1
    out = {}
    for model, c in sorted(counts.items()):
        total = sum(c.values())
        out[model] = {"attempts": total, "counts": c, "shares": {s: c[s] / total for s in FUNNEL_STAGES}}
    return out


def _pass_matrix(inputs: EditionInputs, models: list[str]) -> dict[str, Any]:
    public = [t for t in inputs.tasks if not t.heldout]
    cells: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for a in inputs.attempts:
        if is_counted(a.record.outcome):
            cell = cells[a.record.model, a.record.task_hash]
            cell[0] += int(a.record.effective_passed)
            cell[1] += 1
    tasks = sorted(public, key=lambda t: (inputs.task_ids[t.task_hash], t.task_hash))
    return {
        "tasks": [{"task_id": inputs.task_ids[t.task_hash], "task_hash": t.task_hash, "category": t.category,
                   "difficulty": t.difficulty} for t in tasks],
        "models": models,
        "cells": {m: [list(cells.get((m, t.task_hash), [0, 0])) for t in tasks] for m in models},
    }


def _price_record(prices: Mapping[str, Price] | None,
                  notes: Mapping[str, Mapping[str, Any]] | None) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for model in sorted(prices or {}):
        price = (prices or {})[model]
        out[model] = {**dict((notes or {}).get(model, {})), "input_per_mtok": price.input_per_mtok,
                      "output_per_mtok": price.output_per_mtok}
    return out


def build_snapshot(inputs: EditionInputs, *, prices: Mapping[str, Price] | None = None,
                   price_notes: Mapping[str, Mapping[str, Any]] | None = None,
                   replicates: int = DEFAULT_REPLICATES) -> dict[str, Any]:
    """The snapshot of `inputs`; `prices` (list prices by model label) fill the cost column and are recorded
    with their `price_notes` (source, as_of) under `prices`."""
    records = [a.record for a in inputs.attempts]
    stats = edition_boards(records, list(inputs.tasks), inputs.root_seed, prices=prices, replicates=replicates)
    boards = stats["boards"]
    heldout = boards.pop("heldout", None)
    for board in boards.values():
        _display_costs(board)
    if heldout is not None:
        heldout = _redact_heldout(heldout)
    overall = boards.get("overall", {"models": [], "refused": []})
    ranked = [r["model"] for r in overall["models"]]
    models = ranked + sorted({a.record.model for a in inputs.attempts} - set(ranked))
    public = {t.task_hash for t in inputs.tasks if not t.heldout}
    shown = [a for a in inputs.attempts if a.record.task_hash in public]   # held-out attempts are never counted
    counted = [a for a in shown if is_counted(a.record.outcome)]
    excluded = len(shown) - len(counted)
    return {
        "format": FORMAT,
        "edition": inputs.edition,
        "inputs_digest": inputs.inputs_digest,
        "statistics": stats["statistics"],
        "prices": _price_record(prices, price_notes),
        "models": models,
        "as_of": inputs.as_of,
        "engines": list(inputs.engines),
        "summary": {"results": sum(a.result_hash is not None for a in shown),
                    "counted_attempts": len(counted), "excluded_attempts": excluded,
                    "tasks_from": "dataset" if inputs.dataset_pinned else "results",
                    "corrected_results": sum(a.corrected for a in shown),
                    "public_tasks": len(public), "heldout": heldout is not None},
        "boards": boards,
        "heldout": heldout,
        "capability_resolution": stats["capability_resolution"],
        "pass_matrix": _pass_matrix(inputs, models),
        "funnel": {"stages": list(FUNNEL_STAGES), "public": _funnel(inputs)},
    }
