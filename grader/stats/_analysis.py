"""One board's statistics: scores, CIs (bootstrap or exact), ranks, rank ranges and pairwise differences."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from grader.stats._board import Board
from grader.stats._bootstrap import (
    DEFAULT_REPLICATES,
    board_rng,
    board_spawn_id,
    common_denominator,
    rate_numerators,
    replicate_sums,
)
from grader.stats._exact import clopper_pearson, competition_ranks, replicate_ranks
from grader.stats._quantiles import interpolated, order_statistic, tail_levels

BOOTSTRAP = "bootstrap_percentile"
EXACT = "clopper_pearson"


@dataclass(frozen=True)
class ModelStats:
    model: str
    score: float
    score_exact: Fraction
    ci: tuple[float, float]
    ci_method: str  # BOOTSTRAP, or EXACT when every per-task rate is equal (incl. 0% and 100%)
    rank: int
    rank_range: tuple[int, int]
    attempts: int
    passes: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model, "score": self.score,
            "score_exact": f"{self.score_exact.numerator}/{self.score_exact.denominator}",
            "ci": list(self.ci), "ci_method": self.ci_method, "rank": self.rank, "rank_range": list(self.rank_range),
            "attempts": self.attempts, "passes": self.passes,
        }


@dataclass(frozen=True, eq=False)
class BoardAnalysis:
    """The analysis of one board; the replicate arrays stay in memory for pairwise views and tests."""

    board: Board
    root_seed: int
    replicates: int
    confidence: float
    denominator: int  # T * L: every score, in every replicate, is an integer over this
    models: tuple[ModelStats, ...]  # the ranked models, in the board's model order
    replicate_numerators: np.ndarray  # (replicates, ranked models), exact integers
    replicate_ranks: np.ndarray  # (replicates, ranked models), competition ranks

    def index(self, model: str) -> int:
        for i, stats in enumerate(self.models):
            if stats.model == model:
                return i
        reason = self.board.refused.get(model, "not on the board")
        raise KeyError(f"{model!r} is not ranked on board {self.board.key!r}: {reason}")

    def stats(self, model: str) -> ModelStats:
        return self.models[self.index(model)]

    def replicate_scores(self) -> np.ndarray:
        return _exact_floats(self.replicate_numerators, self.denominator)

    def pairwise(self, a: str, b: str) -> dict[str, Any]:
        """The bootstrap CI of S_a - S_b (same replicates as the board) and whether the order is resolved."""
        i, j = self.index(a), self.index(b)
        difference = self.models[i].score_exact - self.models[j].score_exact
        replicas = (self.replicate_numerators[:, i] - self.replicate_numerators[:, j])[:, None]
        (lower,), (upper,) = (interpolated(replicas, self.denominator, level)
                              for level in tail_levels(self.confidence))
        resolved = lower > 0 or upper < 0
        return {
            "a": a, "b": b, "difference": float(difference),
            "difference_exact": f"{difference.numerator}/{difference.denominator}",
            "ci": [lower, upper], "resolved": bool(resolved),
            "ahead": (a if lower > 0 else b) if resolved else None,
        }

    def pairwise_all(self) -> list[dict[str, Any]]:
        names = sorted(s.model for s in self.models)
        return [self.pairwise(a, b) for k, a in enumerate(names) for b in names[k + 1:]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.board.key,
            "tasks": len(self.board.tasks),
            "task_hashes": list(self.board.tasks),
            "seed": {"root": self.root_seed, "spawn_key": [board_spawn_id(self.board.key)], "bit_generator": "PCG64"},
            "replicates": self.replicates,
            "confidence": self.confidence,
            "models": [s.as_dict() for s in sorted(self.models, key=lambda s: (s.rank, s.model))],
            "refused": [{"model": m, "reason": r} for m, r in sorted(self.board.refused.items())],
        }


def _exact_floats(numerators: np.ndarray, denominator: int) -> np.ndarray:
    """numerators / denominator, correctly rounded (so equal rationals give bit-identical floats)."""
    if numerators.dtype == np.float64 and denominator < 2**53:
        return numerators / float(denominator)  # both exact in float64: IEEE division rounds correctly
    flat = [int(v) / denominator for v in numerators.ravel().tolist()]  # Python int / int rounds correctly
    return np.array(flat, dtype=np.float64).reshape(numerators.shape)


def analyse(board: Board, root_seed: int, replicates: int = DEFAULT_REPLICATES,
            confidence: float = 0.95) -> BoardAnalysis:
    """Scores, CIs, ranks and rank ranges for the ranked models of `board` (refused models are listed apart)."""
    if replicates < 1:
        raise ValueError("replicates must be at least 1")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    names = board.ranked_models
    rows = [board.models.index(m) for m in names]
    n, c = board.n[rows], board.c[rows]
    tasks = len(board.tasks)
    per_task = common_denominator(n)
    denominator = tasks * per_task
    numerators = rate_numerators(n, c, per_task)
    sums = [sum(row) for row in numerators.tolist()]
    if not names:
        empty = np.zeros((replicates, 0), dtype=np.int64)
        return BoardAnalysis(board, root_seed, replicates, confidence, max(denominator, 1), (), empty, empty)

    replica_sums = replicate_sums(board_rng(root_seed, board.key), numerators, replicates)
    low_level, high_level = tail_levels(confidence)
    lower, upper = (interpolated(replica_sums, denominator, level) for level in (low_level, high_level))
    ranks = replicate_ranks(replica_sums)
    low_rank, high_rank = (order_statistic(ranks, level) for level in (low_level, high_level))
    points = competition_ranks(sums)
    degenerate = (numerators == numerators[:, :1]).all(axis=1)

    models = []
    for i, model in enumerate(names):
        attempts, passes = int(n[i].sum()), int(c[i].sum())
        if degenerate[i]:
            ci, method = clopper_pearson(passes, attempts, confidence), EXACT
        else:
            ci, method = (lower[i], upper[i]), BOOTSTRAP
        exact = Fraction(sums[i], denominator)
        models.append(ModelStats(
            model=model, score=float(exact), score_exact=exact, ci=ci, ci_method=method, rank=points[i],
            rank_range=(int(low_rank[i]), int(high_rank[i])), attempts=attempts, passes=passes,
        ))
    return BoardAnalysis(board, root_seed, replicates, confidence, denominator, tuple(models), replica_sums, ranks)
