"""L2 over the public suite: the engine started cold and pre-booted gives the same evidence, in any order.

Every solution of every public task is run pre-booted and then cold by the suite's validation
(tests/grader/test_suite_validation.py, `validate_task`), which requires one digest. This test adds the order: a
sample of every category's deliverables, graded in one order cold and in another pre-booted, so each run follows
other deliverables (tests/engine/test_determinism.py does the same with runs that end in the engine's limits)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import digest
from grader.levels import run_l2
from grader.tasks import Task, load_suite, solution_folder, wrong_solution_names

ROOT = Path(__file__).resolve().parents[2]


def _sample() -> list[tuple[Task, str, Path]]:
    """Per category, its task with the shortest simulated-time limit: the oracle and two wrong solutions."""
    quickest: dict[str, Task] = {}
    for task in load_suite(ROOT / "batteries" / "public").tasks:
        best = quickest.get(task.category)
        if best is None or task.limits.l2_sim_seconds < best.limits.l2_sim_seconds:
            quickest[task.category] = task
    out = []
    for task in quickest.values():
        for name in ["oracle", *wrong_solution_names(task)[:2]]:
            out.append((task, name, solution_folder(task, name)))
    return out


def test_public_solutions_give_the_same_l2_evidence_cold_and_prebooted_in_any_order() -> None:
    deliverables = _sample()
    assert len({task.category for task, _, _ in deliverables}) >= 8
    graded: dict[str, dict[str, str]] = {"cold": {}, "prebooted": {}}
    orders = {"cold": list(deliverables), "prebooted": list(deliverables)}
    random.Random(15).shuffle(orders["prebooted"])
    random.Random(16).shuffle(orders["cold"])
    assert orders["cold"] != orders["prebooted"]
    for start, order in orders.items():
        for task, name, solution in order:
            result = run_l2(task, solution, start=start)
            assert result.outcome.value == "clean", (solution, result.errors[:1])
            graded[start][f"{task.qualified_id}/{name}"] = digest(result.to_json())
    assert graded["cold"] == graded["prebooted"]


def test_lowered_limits_only_lower() -> None:
    task = load_suite(ROOT / "batteries" / "public").tasks[0]
    with pytest.raises(ValueError, match="instruction_budget"):
        run_l2(task, solution_folder(task, "oracle"), lowered_limits={"instruction_budget": 10**12})
    with pytest.raises(ValueError, match="wall_seconds"):
        run_l2(task, solution_folder(task, "oracle"), lowered_limits={"wall_seconds": 1})
