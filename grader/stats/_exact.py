"""Exact pieces: Clopper–Pearson intervals and competition ranks over exact (integer) score numerators."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

from grader.stats._quantiles import tail_levels


def clopper_pearson(passes: int, attempts: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact binomial interval for `passes` out of `attempts` (equal tails).

    The lower bound is the p at which P(X >= passes) is the lower tail level, the upper bound the p at which
    P(X <= passes) is it, for X ~ Binomial(attempts, p): the beta quantiles of the usual definition, through
    the identity between the binomial tail and the regularised incomplete beta function.  At 0 and at `attempts`
    passes they have closed forms; other counts solve for p by bisection to the last representable step, on
    the binomial tail summed outward from its largest term.  It agrees with scipy.stats.beta.ppf to about 1e-11
    relative (tests/grader/test_stats.py), and costs a board no scipy import.
    """
    if attempts <= 0 or not 0 <= passes <= attempts:
        raise ValueError(f"need 0 <= passes <= attempts and attempts > 0, got {passes}/{attempts}")
    low_level, high_level = (float(level) for level in tail_levels(confidence))
    if passes == 0:
        return 0.0, -math.expm1(math.log1p(-high_level) / attempts)
    if passes == attempts:
        return low_level ** (1 / attempts), 1.0
    lower = _bisect(lambda p: _tail_at_least(passes, attempts, p), low_level)
    # P(X <= passes | p) = P(attempts - X >= attempts - passes | 1 - p): solve on the small tail, for accuracy
    upper = 1.0 - _bisect(lambda q: _tail_at_least(attempts - passes, attempts, q), low_level)
    return lower, upper


def _tail_at_least(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), with 1 <= k <= n and 0 < p < 1.

    The terms are summed from the tail's largest one outward (by the ratio of neighbouring terms) until they no
    longer change the sum, so neither an underflowing first term nor a long tail costs accuracy or time."""
    odds = p / (1.0 - p)
    start = max(k, min(n, math.floor((n + 1) * p)))
    largest = math.exp(math.lgamma(n + 1) - math.lgamma(start + 1) - math.lgamma(n - start + 1)
                       + start * math.log(p) + (n - start) * math.log1p(-p))
    total = term = largest
    j = start
    while j < n:
        term *= (n - j) / (j + 1) * odds
        j += 1
        total += term
        if term <= total * 1e-17:
            break
    term, j = largest, start
    while j > k:
        term *= j / (n - j + 1) / odds
        j -= 1
        total += term
        if term <= total * 1e-17:
            break
    return total


def _bisect(increasing: Callable[[float], float], target: float) -> float:
    """The p in (0, 1) where `increasing(p)` crosses `target`, to the last representable step."""
    low, high = 0.0, 1.0
    while True:
        middle = (low + high) / 2
        if middle <= low or middle >= high:
            return middle
        if increasing(middle) < target:
            low = middle
        else:
            high = middle


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
