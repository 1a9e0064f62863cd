"""Synthetic verdicts for the ledger's and the boards' tests: typed, digested, no engine run behind them."""

from __future__ import annotations

from collections.abc import Sequence

from evidence import (
    EngineInfo,
    EngineOutcome,
    GraderInfo,
    L0Result,
    L1Result,
    L2Result,
    Layer,
    Level,
    Levels,
    RequirementResult,
    Verdict,
)

ENGINE = EngineInfo("synthetic-engine", "0", "1", "e" * 64)
GRADER = GraderInfo("0", "f" * 64)


def verdict(task_hash: str, battery_hash: str, tag: str, passed: bool, *,
            requirements: Sequence[tuple[str, str, Sequence[str], bool]] = (),
            failed_at: str | None = None, task_id: str = "synthetic/task") -> Verdict:
    """A verdict that passes or fails (at `failed_at`, default L2), with these requirement outcomes
    ((id, layer, capabilities, passed), ...).  `tag` makes its deliverable hash, hence its digest, unique."""
    failed = None if passed else Level(failed_at or "L2")
    reqs = tuple(RequirementResult(rid, Layer(layer), tuple(caps), ok) for rid, layer, caps, ok in requirements)
    levels = Levels(L0Result(failed is not Level.L0), L1Result(failed is not Level.L1, None),
                    L2Result(failed is not Level.L2, EngineOutcome.CLEAN, reqs))
    return Verdict.build(task_id=task_id, task_hash=task_hash, battery_hash=battery_hash, deliverable_hash=tag,
                         engine=ENGINE, grader=GRADER, settings_hash="0" * 64, levels=levels)
