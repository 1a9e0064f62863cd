"""Boards from the ledger: the statistics' inputs, the canonical edition snapshot and its static page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._ledger import DEFAULT_ROOT_SEED, EditionInputs, LedgerAttempt, load_inputs, model_label
from ._page import render_page
from ._prices import PricesError, load_prices
from ._snapshot import FORMAT, FUNNEL_STAGES, build_snapshot, canonical_json


def write_board(snapshot: dict[str, Any], out: Path) -> tuple[Path, Path]:
    """Write snapshot.json and index.html into `out` (created if needed); returns both paths."""
    out.mkdir(parents=True, exist_ok=True)
    snap, page = out / "snapshot.json", out / "index.html"
    snap.write_text(canonical_json(snapshot), encoding="utf-8")
    page.write_text(render_page(snapshot), encoding="utf-8")
    return snap, page


__all__ = ["DEFAULT_ROOT_SEED", "FORMAT", "FUNNEL_STAGES", "EditionInputs", "LedgerAttempt", "PricesError",
           "build_snapshot", "canonical_json", "load_inputs", "load_prices", "model_label", "render_page",
           "write_board"]
