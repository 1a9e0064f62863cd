"""Two editions side by side: which tasks were added, removed or changed (by their hashes), which models came or
went, and how each model's overall score moved, with whether the two 95% CIs overlap (when they do, the change
may be noise)."""

from __future__ import annotations

from typing import Any

from grader.boards import build_snapshot, load_inputs
from ledger import Ledger, dataset_tasks, find_edition, get_edition


def _tasks(ledger: Ledger, edition_id: int) -> dict[str, tuple[str, str | None]]:
    """task id -> (task hash, battery hash) of the edition's dataset."""
    view = get_edition(ledger, edition_id)
    return {t.task_id: (t.task_hash, t.battery_hash) for t in dataset_tasks(ledger, view.dataset_hash)}


def _scores(ledger: Ledger, edition_id: int) -> dict[str, dict[str, Any]]:
    board = build_snapshot(load_inputs(ledger, edition_id))["boards"].get("overall", {})
    return {row["model"]: {"score": row["score"], "ci": row["ci"], "rank": row["rank"]}
            for row in board.get("models", [])}


def diff_editions(ledger: Ledger, a: str | int, b: str | int) -> dict[str, Any]:
    """The differences from edition `a` to edition `b` (plain JSON, sorted)."""
    ida, idb = find_edition(ledger, a), find_edition(ledger, b)
    ta, tb = _tasks(ledger, ida), _tasks(ledger, idb)
    sa, sb = _scores(ledger, ida), _scores(ledger, idb)
    changes = []
    for model in sorted(set(sa) & set(sb)):
        (la, ha), (lb, hb) = sa[model]["ci"], sb[model]["ci"]
        changes.append({"model": model, "score_a": sa[model]["score"], "score_b": sb[model]["score"],
                        "delta": sb[model]["score"] - sa[model]["score"], "ci_a": [la, ha], "ci_b": [lb, hb],
                        "cis_overlap": la <= hb and lb <= ha, "rank_a": sa[model]["rank"],
                        "rank_b": sb[model]["rank"]})
    return {"a": get_edition(ledger, ida).name, "b": get_edition(ledger, idb).name,
            "tasks_added": sorted(set(tb) - set(ta)), "tasks_removed": sorted(set(ta) - set(tb)),
            "tasks_changed": sorted(t for t in set(ta) & set(tb) if ta[t] != tb[t]),
            "models_added": sorted(set(sb) - set(sa)), "models_removed": sorted(set(sa) - set(sb)),
            "scores": changes}
