"""Seeds and the paired task bootstrap: one draw of task indices per replicate, shared by every model."""

from __future__ import annotations

import hashlib
import math

import numpy as np

# Bumped whenever a change could alter any published number (draw order, block size, quantile rules).
ALGORITHM_VERSION = "grader-stats/3"  # 2: exact quantile levels; 3: Clopper-Pearson without scipy (docs/statistics.md)
DEFAULT_REPLICATES = 10_000
# Replicates are drawn in blocks of this size (it bounds memory); it is part of the algorithm: the random stream
# is consumed block by block, so changing it changes the draws.
BLOCK = 1_000
FLOAT_EXACT = 2**53
INT64_EXACT = 2**63


def board_spawn_id(key: str) -> int:
    """The board's id in the edition's seed tree: the first 8 bytes of SHA-256(key), big-endian."""
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")


def board_seed(root_seed: int, key: str) -> np.random.SeedSequence:
    return np.random.SeedSequence(root_seed, spawn_key=(board_spawn_id(key),))


def board_rng(root_seed: int, key: str) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(board_seed(root_seed, key)))


def common_denominator(n: np.ndarray) -> int:
    """L = lcm of every attempt count, so each per-task rate c/n is the integer (c * L/n) over L."""
    values = {int(v) for v in n.ravel().tolist() if v > 0}   # not np.unique, which imports numpy.ma (40 ms at start-up)
    return math.lcm(*values) if values else 1


def rate_numerators(n: np.ndarray, c: np.ndarray, denominator: int) -> np.ndarray:
    """Per-task rates as exact integers over `denominator`: int64, or Python ints when L does not fit."""
    if denominator < INT64_EXACT:
        safe = np.where(n > 0, n, 1)
        return np.where(n > 0, c * (np.int64(denominator) // safe), 0).astype(np.int64)
    out = np.zeros(n.shape, dtype=object)
    for index, (nn, cc) in enumerate(zip(n.ravel().tolist(), c.ravel().tolist(), strict=True)):
        out.flat[index] = cc * (denominator // nn) if nn else 0
    return out


def replicate_sums(rng: np.random.Generator, numerators: np.ndarray, replicates: int) -> np.ndarray:
    """For each replicate b and model m: sum over T tasks drawn with replacement of numerators[m, task].

    The draw is one (replicates x T) array of task indices, turned into per-task multiplicities W; the sums
    are W @ numerators.T. Every value is an integer bounded by T * max(numerators): below 2**53 the product
    runs in float64 BLAS and is exact; above, it falls back to int64 or Python ints (slow, still exact).
    """
    m, t = numerators.shape
    bound = t * int(numerators.max()) if numerators.size else 0
    if bound < FLOAT_EXACT:
        dtype: type | np.dtype = np.float64
    elif bound < INT64_EXACT:
        dtype = np.int64
    else:
        dtype = object
    weights = numerators.astype(dtype).T
    out = np.empty((replicates, m), dtype=dtype)
    for start in range(0, replicates, BLOCK):
        size = min(BLOCK, replicates - start)
        if t == 0:
            out[start:start + size] = 0
            continue
        draws = rng.integers(0, t, size=(size, t), dtype=np.int64)
        draws += np.arange(size, dtype=np.int64)[:, None] * t
        multiplicity = np.bincount(draws.ravel(), minlength=size * t).reshape(size, t)
        out[start:start + size] = multiplicity.astype(dtype) @ weights
    return out
