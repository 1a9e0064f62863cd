"""Every repository task's battery tests itself: the oracle passes, nop fails, wrong-* fail as declared."""

from __future__ import annotations

import pytest

from engine import API_VERSION
from grader.tasks import battery_hash, dataset_hash, repository_suites, task_hash
from grader.validate import validate_task

TASKS = [t for s in repository_suites() for t in s.tasks]


def test_the_public_suite_has_the_starter_tasks() -> None:
    ids = {t.qualified_id for t in TASKS}
    assert {"public/scene-solar-system", "public/move-with-keys", "public/coin-collector"} <= ids


@pytest.mark.parametrize("task", TASKS, ids=[t.qualified_id for t in TASKS])
def test_battery_self_tests(task: object) -> None:
    # the oracle and nop twice (pre-booted, then cold: one digest), each wrong solution once (what it fails);
    # `grader tasks validate public` runs every solution twice
    result = validate_task(task, repeats=2, wrong_repeats=1)  # type: ignore[arg-type]
    problems = {s.solution: s.problems for s in result.solutions if not s.ok}
    assert problems == {}
    assert {s.solution for s in result.solutions} >= {"oracle", "nop"}
    assert len([s for s in result.solutions if s.solution.startswith("wrong-")]) >= 2


def test_suite_hashes_are_stable() -> None:
    for suite in repository_suites():
        rows = [(t.id, task_hash(t), battery_hash(t, API_VERSION)) for t in suite.tasks]
        again = [(t.id, task_hash(t), battery_hash(t, API_VERSION)) for t in suite.tasks]
        assert dataset_hash(rows) == dataset_hash(again)
