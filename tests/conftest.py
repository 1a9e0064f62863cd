"""Shared fixtures: throwaway game folders."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# The deterministic Lua build gives each live Lua state one of 16 arena slots (engine/_lua.py); a test module that
# keeps engines alive after it ends (a cache keyed by engine, a module-level engine) starves every later module on
# its worker of slots, which then fail far from the cause.
MAX_STATES_LEFT_BY_A_MODULE = 4

# pytest-xdist runs with --dist=loadgroup (pyproject.toml): every test is grouped with its module, so a module runs
# whole on one worker and builds its module fixtures once, as --dist=loadfile would; the modules named here spread
# their tests over the workers instead. The public suite's certification (one task a test) is a third of the run
# and its tasks share nothing, so on one worker it would be the run's critical path.
SPREAD_MODULES = {"tests.grader.test_suite_validation"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        module = item.module.__name__ if isinstance(item, pytest.Function) else item.nodeid
        group = item.nodeid if module in SPREAD_MODULES else module
        item.add_marker(pytest.mark.xdist_group(name=group))


@pytest.fixture(autouse=True, scope="module")
def _lua_states_are_released(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    lua54 = sys.modules.get("lupa.lua54")
    if lua54 is None:
        return
    gc.collect()
    alive = sum(1 for obj in gc.get_objects() if type(obj) is lua54.LuaRuntime)
    assert alive <= MAX_STATES_LEFT_BY_A_MODULE, (
        f"{request.module.__name__} left {alive} Lua states alive (what holds them keeps their arena slots)")


@pytest.fixture
def make_game(tmp_path: Path) -> Callable[..., Path]:
    """make_game(main_lua, **files) -> a game folder with scripts/main.lua and the given files."""
    counter = {"n": 0}

    def make(main_lua: str, files: dict[str, str] | None = None) -> Path:
        counter["n"] += 1
        root = tmp_path / f"game{counter['n']}"
        (root / "scripts").mkdir(parents=True)
        (root / "scripts" / "main.lua").write_text(main_lua)
        for rel, text in (files or {}).items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return root

    return make


@pytest.fixture
def stand_in_fonts() -> None:
    """Tests that measure text need the stand-in fonts (docs/fonts.md): skipped without them, failed under CI."""
    from engine._fonts import missing_system_fonts
    from tests._ci import missing_dependency

    missing = missing_system_fonts()
    if missing:
        missing_dependency(f"stand-in fonts not installed (docs/fonts.md): {', '.join(missing)}")
