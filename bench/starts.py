"""Cold against pre-booted engine runs: the same evidence, and how much faster.

    python bench/starts.py [--fuzz N] [--seed S] [--jobs J]

Runs every public task's solutions (oracle and wrong ones) through L2 (`grader.levels.run_l2`) and N seeded fuzz
programs (tests/engine/fuzz_surfaces.py, seeds S..S+N-1; the hostile tests run seeds 0-119) with the engine
started cold and pre-booted (engine/_zygote.py), J runs at a time, the pre-booted runs in another order.  Prints
each mismatch of evidence digests (exit 1 if any), the outcomes seen, and the runs per second each way.
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import click

if __package__ in (None, ""):  # run as a script: make the repository's packages importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import START_ENV, digest
from grader.levels import run_l2
from grader.tasks import find_task, solution_folder
from tests.engine.fuzz_surfaces import evidence_digest, generate, run_program

TASKS = ("public/coin-collector", "public/move-with-keys", "public/scene-solar-system")


def _jobs(fuzz: int, seed: int) -> dict[str, Callable[[], tuple[str, str]]]:
    jobs: dict[str, Callable[[], tuple[str, str]]] = {}
    for ref in TASKS:
        task = find_task(ref)
        for solution in [solution_folder(task, "oracle")]:
            if solution.is_dir():
                def grade(task: Any = task, solution: Path = solution) -> tuple[str, str]:
                    result = run_l2(task, solution).to_json()
                    return digest(result), str(result["outcome"])
                jobs[f"{ref}/{solution.name}"] = grade
    for s in range(seed, seed + fuzz):
        def fuzz_run(s: int = s) -> tuple[str, str]:
            report = run_program(generate(s))
            return evidence_digest(report), str(report["outcome"])
        jobs[f"fuzz seed {s}"] = fuzz_run
    return jobs


def _run_all(jobs: dict[str, Callable[[], tuple[str, str]]], names: list[str], start: str,
             workers: int) -> tuple[dict[str, tuple[str, str]], float]:
    os.environ[START_ENV] = start
    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = dict(zip(names, pool.map(lambda n: jobs[n](), names), strict=True))
    return results, time.perf_counter() - began


@click.command(help=__doc__.split("\n\n")[0])
@click.option("--fuzz", type=int, default=120, show_default=True, help="fuzz programs to run each way")
@click.option("--seed", type=int, default=0, show_default=True, help="the first fuzz program's seed")
@click.option("--jobs", type=int, default=2, show_default=True, help="runs at the same time")
def main(fuzz: int, seed: int, jobs: int) -> None:
    work = _jobs(fuzz, seed)
    names = list(work)
    shuffled = list(names)
    random.Random(seed).shuffle(shuffled)
    pre, pre_wall = _run_all(work, shuffled, "prebooted", jobs)
    cold, cold_wall = _run_all(work, names, "cold", jobs)
    os.environ.pop(START_ENV, None)
    mismatches = [n for n in names if pre[n] != cold[n]]
    for n in mismatches:
        print(f"MISMATCH {n}: cold {cold[n]} pre-booted {pre[n]}")
    outcomes = Counter(outcome for _, outcome in cold.values())
    print(f"{len(names)} runs each way ({len(names) - fuzz} public L2 grades, {fuzz} fuzz programs); outcomes: "
          + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(f"cold: {cold_wall:.1f} s ({len(names) / cold_wall:.2f} runs/s); pre-booted: {pre_wall:.1f} s "
          f"({len(names) / pre_wall:.2f} runs/s); {cold_wall / pre_wall:.1f}x")
    print(f"evidence digests: {len(names) - len(mismatches)} equal, {len(mismatches)} different")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
