"""Quantiles at exact levels: the one place where a confidence becomes its two tail levels.

`1.0 - 0.95` is 0.050000000000000044 in floating point, so a level computed as `alpha / 2` sits just above
2.5%, and at B = 10,000 replicates `numpy.quantile(..., method="inverted_cdf")` then takes the 251st smallest
value instead of the 250th.  Levels here are fractions (0.95 -> 19/20 -> 1/40 and 39/40), and both quantile
rules index with exact arithmetic:

- `order_statistic` (Hyndman and Fan's type 1, numpy's `inverted_cdf`): the k-th smallest value with
  k = ceil(p * B), at least 1, so the bound is a value some replicate actually produced (rank ranges).
- `interpolated` (type 7, numpy's `linear`): h = (B - 1) * p, the values at floor(h) and floor(h) + 1
  interpolated exactly over integer numerators, then divided by the common denominator and rounded once to the
  nearest float (score CIs and pairwise differences).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


def tail_levels(confidence: float | Fraction) -> tuple[Fraction, Fraction]:
    """The lower and upper tail levels of a two-sided interval: 0.95 -> (1/40, 39/40).

    A float is read as the decimal its repr shows (0.95 is 19/20, not the binary value just below it)."""
    level = confidence if isinstance(confidence, Fraction) else Fraction(repr(float(confidence)))
    if not 0 < level < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    tail = (1 - level) / 2
    return tail, 1 - tail


def _order_index(count: int, level: Fraction) -> int:
    """0-based index of the type-1 quantile among `count` sorted values."""
    return min(count, max(1, math.ceil(level * count))) - 1


def order_statistic(values: np.ndarray, level: Fraction) -> np.ndarray:
    """Per column of `values` (replicates x items): the ceil(level * B)-th smallest value (type 1)."""
    count = values.shape[0]
    index = _order_index(count, level)
    return np.partition(values, index, axis=0)[index]


def interpolated(numerators: np.ndarray, denominator: int, level: Fraction) -> list[float]:
    """Per column of exact integer `numerators` (replicates x items): the type-7 quantile of numerator /
    denominator at `level`, computed exactly and rounded once to the nearest float."""
    count = numerators.shape[0]
    position = (count - 1) * level
    below = math.floor(position)
    weight = position - below
    above = min(below + 1, count - 1)
    parted = np.partition(numerators, [below, above], axis=0)
    out = []
    for low, high in zip(parted[below].tolist(), parted[above].tolist(), strict=True):
        low, high = int(low), int(high)
        out.append(float((low + weight * (high - low)) / denominator))
    return out
