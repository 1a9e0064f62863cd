"""One rule for tests that need a system dependency: skip locally without it, fail under CI (.ci/run installs it)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest


def on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing_dependency(message: str, *, module_level: bool = False) -> NoReturn:
    """Under CI a missing dependency is a failure (a green run must not hide a missing install step)."""
    if on_ci():
        pytest.fail(f"CI must have this (.ci/run installs it): {message}", pytrace=False)
    pytest.skip(message, allow_module_level=module_level)


def remove_tree(root: Path) -> None:
    """Remove a folder however deep it goes (shutil.rmtree and pytest's clean-up recurse, and fail past ~1,000
    levels, which hostile workspaces reach on purpose)."""
    import os
    import stat

    if not os.path.lexists(root):
        return
    stack = [os.fsencode(root)]
    while stack:
        top = stack[-1]
        if not stat.S_ISDIR(os.lstat(top).st_mode):
            os.unlink(top)
            stack.pop()
            continue
        entries = list(os.scandir(top))
        subdirs = []
        for entry in entries:
            if stat.S_ISDIR(entry.stat(follow_symlinks=False).st_mode):
                subdirs.append(entry.path)
            else:
                os.unlink(entry.path)
        if subdirs:
            stack.extend(subdirs)
        else:
            os.rmdir(top)
            stack.pop()
