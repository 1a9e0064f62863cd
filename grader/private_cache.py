"""Private cache folders of the user: made wrong solutions, board answers. Only the standard library."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path


def private_cache_dir(kind: str) -> Path:
    """`$TMPDIR/grader-<kind>-<uid>/`, made private to this user; OSError if it exists and is not."""
    root = Path(tempfile.gettempdir()) / f"grader-{kind}-{os.getuid()}"
    root.mkdir(mode=0o700, exist_ok=True)
    info = root.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
        raise OSError(f"{root}: not a private folder of this user (remove it)")
    return root


def build_once(made: Path, fill: Callable[[Path], None]) -> Path:
    """`made`, a folder named by the hash of what makes it: built by `fill` in a sibling folder and renamed into
    place, so no process ever sees it half made; when another process made it first, theirs is the same."""
    if made.is_dir():
        return made
    building = Path(tempfile.mkdtemp(prefix=f".{made.name}-", dir=made.parent))
    try:
        fill(building)
        try:
            building.rename(made)
        except OSError:
            if not made.is_dir():
                raise
    finally:
        if building.exists():
            shutil.rmtree(building)
    return made
