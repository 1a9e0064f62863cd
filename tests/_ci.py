"""One rule for tests that need a system dependency: skip locally without it, fail under CI (.ci/run installs it)."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing_dependency(message: str, *, module_level: bool = False) -> NoReturn:
    """Under CI a missing dependency is a failure (a green run must not hide a missing install step)."""
    if on_ci():
        pytest.fail(f"CI must have this (.ci/run installs it): {message}", pytrace=False)
    pytest.skip(message, allow_module_level=module_level)
