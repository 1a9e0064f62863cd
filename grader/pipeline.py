"""grade(task, deliverable) -> verdict: L0, L1 and L2 all run and record evidence; the verdict names the
first level that failed."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from engine import API_VERSION

from .levels import L0Limits, check_deliverable, run_l2
from .tasks import Task, battery_hash, deliverable_hash, task_hash
from .verdict import GradeResult, build_verdict


def run_l1(deliverable: Path) -> dict[str, Any]:
    from .l1 import analyse

    return analyse(deliverable).as_dict()


def grade(task: Task, deliverable: Path, lib_dirs: tuple[str, ...] = (), l0_limits: L0Limits | None = None,
          ) -> GradeResult:
    deliverable = Path(deliverable)
    timings: dict[str, float] = {}
    start = time.perf_counter()
    l0 = check_deliverable(task, deliverable, l0_limits)
    timings["L0"] = time.perf_counter() - start
    start = time.perf_counter()
    l1 = run_l1(deliverable) if l0.checks and l0.checks[0].passed else {
        "passed": False, "linter": None, "diagnostics": [], "skipped": "no deliverable folder"}
    timings["L1"] = time.perf_counter() - start
    start = time.perf_counter()
    if l0.checks and l0.checks[0].passed and all(c.passed for c in l0.checks if c.name.startswith("no_")):
        l2 = run_l2(task, deliverable, lib_dirs).as_dict()
    else:
        # a deliverable reaching outside its folder is never run
        l2 = {"passed": False, "outcome": "not_run", "frames": None, "sim_seconds": None, "requirements": [],
              "checks": [], "errors": [{"message": "not run: L0 found links or special files", "frame": None,
                                        "phase": "setup", "traceback": ""}], "missing_api": []}
    timings["L2"] = time.perf_counter() - start
    has_folder = deliverable.is_dir() and not deliverable.is_symlink()
    verdict = build_verdict(
        task_id=task.qualified_id, task_hash=task_hash(task), battery_hash=battery_hash(task, API_VERSION),
        deliverable_hash=deliverable_hash(deliverable) if has_folder else "",
        levels={"L0": l0.as_dict(), "L1": l1, "L2": l2},
    )
    timings["total"] = sum(timings.values())
    return GradeResult(verdict, timings)
