"""The shared cheat set's cheats that run into the engine's limits (tests/grader/test_cheats.py has the rest and
the rules): an infinite loop and a memory bomb.

Against every battery of the public suite they run with the limit they hit lowered (`run_l2`'s `lowered_limits`),
so a battery pays a fraction of a second rather than the seconds two billion instructions or 512 MB take; what
follows the limit (the outcome, the requirements left unreached, the verdict) is the same code either way. One
battery also meets each cheat at the task's real limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.levels import run_l2

from .test_cheats import LIMIT_CHEATS, TASKS, _game, check_cheat, nop_passes  # noqa: F401  (the fixture)

LOWERED = {"infinite-loop": {"instruction_budget": 20_000_000}, "memory-bomb": {"memory_limit": 48 * 1024 * 1024}}
OUTCOME = {"infinite-loop": "budget", "memory-bomb": "memory"}


@pytest.mark.parametrize("cheat", LIMIT_CHEATS)
def test_every_battery_rejects_the_cheat_at_lowered_limits(cheat: str, nop_passes: dict[str, set[str]],  # noqa: F811
                                                           tmp_path: Path) -> None:
    check_cheat(cheat, nop_passes, tmp_path, LOWERED[cheat], OUTCOME[cheat])


@pytest.mark.parametrize("cheat", LIMIT_CHEATS)
def test_the_cheat_meets_the_real_limit(cheat: str, tmp_path: Path) -> None:
    task = TASKS[0]
    result = run_l2(task, _game(tmp_path, cheat))
    assert result.outcome.value == OUTCOME[cheat] and not result.passed
    assert not any(r.passed for r in result.requirements)
