"""Private cache folders of the user: made wrong solutions, board answers. Only the standard library."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def private_cache_dir(kind: str) -> Path:
    """`$TMPDIR/grader-<kind>-<uid>/`, made private to this user; OSError if it exists and is not."""
    root = Path(tempfile.gettempdir()) / f"grader-{kind}-{os.getuid()}"
    root.mkdir(mode=0o700, exist_ok=True)
    info = root.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
        raise OSError(f"{root}: not a private folder of this user (remove it)")
    return root
