"""`grader board --json` wall time on the public suite's ledger: computed, and answered from the board cache.

    python bench/board.py [--database sqlite:///PATH] [--edition NAME] [--runs 5]

Without --database it makes the README's main job's ledger in a temporary folder first (`grader edition plan main
--reps 3 && grader edition run main`: about 1.5 minutes on 2 cores). Each timing is a fresh `python -m grader`
process, as a user or a dashboard runs it. "computed" runs with an empty cache folder each time; "cached" asks the
same state again (grader/board_cache.py); "first question after the edition run" asks once with the run's own cache
folder, which `grader edition run` fills before it ends. Target (issue 15): under 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 0.5


def grader(*args: str, cwd: Path, tmpdir: Path) -> tuple[float, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmpdir))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"grader {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
    return seconds, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", default=None, help="an existing ledger (default: make the main job's)")
    parser.add_argument("--edition", default="main")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-board-") as tmp:
        work = Path(tmp)
        database = args.database
        if database is None:
            print("making the main job's ledger (grader edition plan main --reps 3 && grader edition run main)...")
            grader("edition", "plan", args.edition, "--reps", "3", cwd=work, tmpdir=work)
            made, _ = grader("edition", "run", args.edition, cwd=work, tmpdir=work)
            print(f"  edition run: {made:.1f} s")
            database = f"sqlite:///{work / 'grader.db'}"
        question = ("board", args.edition, "--json", "--database", database)
        computed, cached, answers = [], [], set()
        after_run = None
        if args.database is None:   # the run left its boards answered in its cache folder (grader/cli/boards.py)
            after_run, out = grader(*question, cwd=work, tmpdir=work)
            answers.add(out)
        for run in range(args.runs):
            empty = work / f"empty-{run}"
            empty.mkdir()
            seconds, out = grader(*question, cwd=work, tmpdir=empty)
            computed.append(seconds)
            answers.add(out)
        warm = work / "warm"
        warm.mkdir()
        grader(*question, cwd=work, tmpdir=warm)
        for _ in range(args.runs):
            seconds, out = grader(*question, cwd=work, tmpdir=warm)
            cached.append(seconds)
            answers.add(out)
    if len(answers) != 1:
        sys.exit("the answers differ between runs")
    size = len(answers.pop())
    c, k = statistics.median(computed), statistics.median(cached)
    print(f"grader board {args.edition} --json ({size:,} bytes), median of {args.runs} fresh processes:")
    print(f"  computed {c:.3f} s (min {min(computed):.3f})")
    print(f"  cached   {k:.3f} s (min {min(cached):.3f})   {c / k:.1f}x faster")
    if after_run is not None:
        print(f"  first question after the edition run: {after_run:.3f} s (the run kept its boards)")
    print(f"  target   {TARGET_SECONDS} s: {'met' if k < TARGET_SECONDS else 'not met'} (cached), "
          f"{'met' if c < TARGET_SECONDS else 'not met'} (computed)")


if __name__ == "__main__":
    main()
