"""Shared fixtures: throwaway game folders."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


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
