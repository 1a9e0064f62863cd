"""Edition run throughput: planned attempts per hour with the oracle driver (its agent phase is a folder copy, so
this is grading and recording throughput), with 1 and 2 worker processes, and the scaling ratio.

    python bench/edition.py [--reps 6]

Each measurement plans a fresh edition of the public suite (oracle only, --reps repetitions) in a SQLite ledger
in a temp folder and times `grader edition run --workers N` end to end (start-up and each worker's first,
slower, grade included).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def grader(*args: str, cwd: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd, env=env, text=True,
                          capture_output=True, check=True)
    return done.stdout


def per_hour(workers: int, reps: int) -> tuple[float, int, float]:
    """(attempts per hour, attempts, seconds) for one run."""
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'bench.db'}"
        grader("edition", "plan", "bench", "--baseline", "oracle", "--reps", str(reps), "--database", db,
               cwd=Path(tmp))
        start = time.monotonic()
        out = json.loads(grader("edition", "run", "bench", "--workers", str(workers), "--database", db, "--json",
                                cwd=Path(tmp)))
        seconds = time.monotonic() - start
    return out["recorded"] * 3600 / seconds, out["recorded"], seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=6)
    args = parser.parse_args()
    rates = {}
    for workers in (1, 2):
        rate, attempts, seconds = per_hour(workers, args.reps)
        rates[workers] = rate
        print(f"{workers} worker(s): {attempts} attempts in {seconds:.1f} s = {rate:,.0f} attempts/hour")
    print(f"scaling 2/1 workers: {rates[2] / rates[1]:.2f}x")


if __name__ == "__main__":
    main()
