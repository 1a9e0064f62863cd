"""grade(task, deliverable) -> verdict: L0, L1 and L2 all run and record evidence; the verdict names the
first level that failed."""

from __future__ import annotations

import time
from pathlib import Path

from engine import API_VERSION
from evidence import EngineOutcome, GradeResult, L1Result, Levels

from .levels import check_deliverable, not_run, run_l2
from .tasks import Task, battery_hash, deliverable_hash, task_hash
from .verdict import build_verdict


def run_l1(deliverable: Path) -> L1Result:
    from .l1 import analyse

    return analyse(deliverable)


def grade(task: Task, deliverable: Path, lib_dirs: tuple[str, ...] = ()) -> GradeResult:
    deliverable = Path(deliverable)
    timings: dict[str, float] = {}
    start = time.perf_counter()
    l0 = check_deliverable(task, deliverable)
    timings["L0"] = time.perf_counter() - start
    start = time.perf_counter()
    folder = l0.check("deliverable_is_folder")
    has_folder = folder is not None and folder.passed
    l1 = run_l1(deliverable) if has_folder else L1Result(False, None, (), skipped="no deliverable folder")
    timings["L1"] = time.perf_counter() - start
    start = time.perf_counter()
    if has_folder and all(c.passed for c in l0.checks if c.name.startswith("no_")):
        l2 = run_l2(task, deliverable, lib_dirs)
    else:   # a deliverable reaching outside its folder is never run
        l2 = not_run(EngineOutcome.NOT_RUN, "not run: L0 found links or special files", "setup")
    timings["L2"] = time.perf_counter() - start
    verdict = build_verdict(
        task=task, task_hash=task_hash(task), battery_hash=battery_hash(task, API_VERSION),
        deliverable_hash=deliverable_hash(deliverable) if has_folder else "", levels=Levels(l0, l1, l2))
    timings["total"] = sum(timings.values())
    return GradeResult(verdict, timings)
