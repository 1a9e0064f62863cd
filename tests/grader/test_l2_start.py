"""L2 over the whole public suite: the engine started cold and pre-booted gives the same evidence, in any order."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import digest
from engine._runner import START_ENV
from grader.levels import run_l2
from grader.tasks import Task, find_task

TASKS = ("public/coin-collector", "public/move-with-keys", "public/scene-solar-system")


def _deliverables() -> list[tuple[Task, Path]]:
    out = []
    for ref in TASKS:
        task = find_task(ref)
        for solution in sorted(task.paths.oracle.parent.iterdir()):
            if solution.is_dir():
                out.append((task, solution))
    return out


def test_every_public_solution_gives_the_same_l2_evidence_cold_and_prebooted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    deliverables = _deliverables()
    assert len(deliverables) >= 15
    graded: dict[str, dict[str, str]] = {"cold": {}, "prebooted": {}}
    shuffled = {"cold": list(deliverables), "prebooted": list(deliverables)}
    random.Random(15).shuffle(shuffled["prebooted"])     # another order, so each follows other deliverables
    for start in ("prebooted", "cold"):
        monkeypatch.setenv(START_ENV, start)
        for task, solution in shuffled[start]:
            result = run_l2(task, solution)
            assert result.outcome.value == "clean", (solution, result.errors[:1])
            graded[start][f"{task.qualified_id}/{solution.name}"] = digest(result.to_json())
    assert graded["cold"] == graded["prebooted"]
