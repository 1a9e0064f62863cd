"""Exact pieces: Clopper–Pearson intervals and competition ranks over exact (integer) score numerators."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from grader.stats._quantiles import tail_levels


def clopper_pearson(passes: int, attempts: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact binomial interval for `passes` out of `attempts` (equal tails, via the beta quantiles).

    The definition is scipy.stats.beta.ppf.  At 0 and at `attempts` passes (where boards use this interval) the
    one quantile needed is of Beta(1, n) or Beta(n, 1), which has a closed form, evaluated here as scipy
    evaluates it (tests/grader/test_stats.py holds them equal bit for bit), so a board never pays for importing
    scipy.stats; other counts ask scipy.
    """
    if attempts <= 0 or not 0 <= passes <= attempts:
        raise ValueError(f"need 0 <= passes <= attempts and attempts > 0, got {passes}/{attempts}")
    low_level, high_level = (float(level) for level in tail_levels(confidence))
    if passes == 0:
        return 0.0, -math.expm1(math.log1p(-high_level) / attempts)
    if passes == attempts:
        return low_level ** (1 / attempts), 1.0
    from scipy.stats import beta  # imported on use: scipy.stats is slow to import

    return (float(beta.ppf(low_level, passes, attempts - passes + 1)),
            float(beta.ppf(high_level, passes + 1, attempts - passes)))


def competition_ranks(scores: Sequence[int | Fraction]) -> list[int]:
    """`1 + #{strictly higher}` for exact scores (ties share the better rank: 1, 2, 2, 4)."""
    ordered = sorted(scores, reverse=True)
    first: dict[int | Fraction, int] = {}
    for position, score in enumerate(ordered):
        first.setdefault(score, position + 1)
    return [first[s] for s in scores]


def replicate_ranks(numerators: np.ndarray) -> np.ndarray:
    """Competition ranks within each row of a (replicates x models) array of exact score numerators.

    The numerators are integers (held exactly in float64, int64 or Python ints), so ties are exact.
    """
    b, m = numerators.shape
    ranks = np.empty((b, m), dtype=np.int64)
    if m == 0:
        return ranks
    order = np.argsort(-numerators, axis=1, kind="stable")
    ordered = np.take_along_axis(numerators, order, axis=1)
    positions = np.broadcast_to(np.arange(m, dtype=np.int64), (b, m))
    starts = np.empty((b, m), dtype=bool)
    starts[:, 0] = True
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    first = np.maximum.accumulate(np.where(starts, positions, 0), axis=1)
    np.put_along_axis(ranks, order, first + 1, axis=1)
    return ranks
