"""Grading wall time per starter task: L0, L1 (cold and warm server), L2 and total, medians over N runs.

    python bench/grade.py [--runs 10]

Target: warm total under 1 s per task on this machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

# bench/engine.py would shadow the engine package: keep this folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from grader import l1  # noqa: E402
from grader.pipeline import grade  # noqa: E402
from grader.tasks import find_task  # noqa: E402

STARTERS = ("public/scene-solar-system", "public/move-with-keys", "public/coin-collector")


def main() -> None:
    parser = argparse.ArgumentParser(description="grading wall time per starter task")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    print(f"{'task':<28} {'L0':>7} {'L1 cold':>8} {'L1 warm':>8} {'L2':>7} {'total':>7}  (medians, s)")
    for ref in STARTERS:
        task = find_task(ref)
        l1.shutdown()
        start = time.perf_counter()
        l1.analyse(task.paths.oracle)
        cold = time.perf_counter() - start
        rows = [grade(task, task.paths.oracle).timings for _ in range(args.runs)]
        med = {k: statistics.median(r[k] for r in rows) for k in ("L0", "L1", "L2", "total")}
        print(f"{ref:<28} {med['L0']:>7.3f} {cold:>8.3f} {med['L1']:>8.3f} {med['L2']:>7.3f} {med['total']:>7.3f}")
    print("target: warm total under 1 s per task")


if __name__ == "__main__":
    main()
