"""grade(task, deliverable) -> verdict: the deliverable read once, bounded (grader/deliverable.py); L0, L1 and L2
all run and record evidence; the verdict names the first level that failed; the archive of what was judged comes
back beside it, for the ledger."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from engine import API_VERSION
from evidence import Artifact, EngineOutcome, L1Result, Levels, Verdict

from .deliverable import Tree, scan
from .levels import check_deliverable, not_run, run_l2, safe_to_run
from .tasks import Task, battery_hash, task_hash
from .verdict import build_verdict


@dataclass(frozen=True)
class GradeResult:
    """A verdict, the wall times of its levels (seconds, not evidence) and the archive of the deliverable it
    judged (None only when the deliverable is not a folder)."""

    verdict: Verdict
    timings: dict[str, float]
    artifact: Artifact | None = None

    def to_json(self) -> str:
        return self.verdict.canonical()


def run_l1(tree: Tree) -> L1Result:
    from .l1 import analyse

    return analyse(tree)


def grade_tree(task: Task, tree: Tree, folder: Path, lib_dirs: tuple[str, ...] = ()) -> GradeResult:
    """Grade a deliverable already read into `tree`; `folder` holds its files for L2 (the folder it was read
    from, or the tree written out)."""
    timings: dict[str, float] = {}
    start = time.perf_counter()
    artifact = tree.pack() if tree.is_folder else None
    l0 = check_deliverable(task, tree)
    timings["L0"] = time.perf_counter() - start
    start = time.perf_counter()
    names = l0.check("names_are_utf8")
    if names is not None and names.passed:
        l1 = run_l1(tree)
    else:
        l1 = L1Result(False, None, (), skipped="no deliverable folder" if not tree.is_folder
                      else "file names that are not UTF-8")
    timings["L1"] = time.perf_counter() - start
    start = time.perf_counter()
    if safe_to_run(l0):
        l2 = run_l2(task, folder, lib_dirs)
    else:   # a deliverable reaching outside its folder, or not read whole, is never run
        failed = ", ".join(c.name for c in l0.checks if not c.passed)
        l2 = not_run(EngineOutcome.NOT_RUN, f"not run: L0 failed {failed}", "setup")
    timings["L2"] = time.perf_counter() - start
    verdict = build_verdict(task=task, task_hash=task_hash(task), battery_hash=battery_hash(task, API_VERSION),
                            deliverable_hash=artifact.hash if artifact else "", levels=Levels(l0, l1, l2))
    timings["total"] = sum(timings.values())
    return GradeResult(verdict, timings, artifact)


def grade(task: Task, deliverable: Path, lib_dirs: tuple[str, ...] = ()) -> GradeResult:
    """Read the deliverable folder within the task's limits, then grade it."""
    start = time.perf_counter()
    tree = scan(Path(deliverable), task.limits)
    result = grade_tree(task, tree, Path(deliverable), lib_dirs)
    result.timings["read"] = time.perf_counter() - start - result.timings["total"]
    result.timings["total"] = time.perf_counter() - start
    return result
