"""Statistics wall time: one board of 50 models x 500 tasks x 5 repetitions with 10,000 bootstrap replicates.

    python bench/stats.py [--runs 5]

Timed: scores, CIs (bootstrap, or Clopper–Pearson when degenerate), ranks and rank ranges, as the board's dict.
Target: under 0.5 s on this machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

# bench/engine.py would shadow the engine package: keep this folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import numpy as np  # noqa: E402

from grader.stats import Board, analyse  # noqa: E402

MODELS, TASKS, REPETITIONS, REPLICATES = 50, 500, 5, 10_000
TARGET_SECONDS = 0.5


def synthetic_board() -> Board:
    rng = np.random.default_rng(0)
    skill = rng.beta(2, 2, size=(MODELS, 1))
    ease = rng.beta(2, 2, size=(1, TASKS))
    n = np.full((MODELS, TASKS), REPETITIONS)
    c = rng.binomial(n, np.clip(skill * 1.4 * ease, 0, 1))
    c[0], c[1] = 0, n[1]  # one model at 0% and one at 100%: exact intervals too
    tasks = tuple(f"{i:064x}" for i in range(TASKS))
    return Board(key="overall", models=tuple(f"model-{i:02d}" for i in range(MODELS)), tasks=tasks, n=n, c=c)


def main() -> None:
    parser = argparse.ArgumentParser(description="statistics wall time for one large board")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    board = synthetic_board()
    analyse(board, 1, replicates=10).as_dict()  # warm up imports (scipy.stats) outside the timing
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        out = analyse(board, 20240601, replicates=REPLICATES).as_dict()
        times.append(time.perf_counter() - start)
    assert len(out["models"]) == MODELS
    median = statistics.median(times)
    print(f"board {MODELS} models x {TASKS} tasks x {REPETITIONS} repetitions, {REPLICATES:,} replicates: "
          f"median {median:.3f} s over {args.runs} runs (min {min(times):.3f} s); target < {TARGET_SECONDS} s "
          f"({'met' if median < TARGET_SECONDS else 'NOT met'})")


if __name__ == "__main__":
    main()
