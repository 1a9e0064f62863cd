"""The UrhoX stubs on disk for the server, generated on demand and kept in a folder named by their hash."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from engine import Registry, default_registry, stub_files

CACHE_ENV = "GRADER_L1_CACHE"


def cache_root() -> Path:
    """`$GRADER_L1_CACHE`, else a folder of this user's in the system temp folder."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    return Path(tempfile.gettempdir()) / f"grader-l1-{os.getuid() if hasattr(os, 'getuid') else 'user'}"


def stubs_dir(registry: Registry | None = None) -> Path:
    """The folder holding the stubs of `registry` (default: the engine's), written once per registry hash."""
    files = stub_files(registry or default_registry())
    digest = hashlib.sha256()
    for rel, text in sorted(files.items()):
        digest.update(rel.encode() + b"\0" + text.encode("utf-8") + b"\0")
    root = cache_root()
    final = root / f"stubs-{digest.hexdigest()[:20]}"
    if (final / ".complete").is_file():
        return final
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    staging = Path(tempfile.mkdtemp(prefix="stubs-staging-", dir=root))
    for rel, text in files.items():
        path = staging / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    (staging / ".complete").write_text(digest.hexdigest() + "\n")
    try:
        staging.rename(final)
    except OSError:  # another process finished first, or a stale partial folder is in the way
        if not (final / ".complete").is_file():
            shutil.rmtree(final, ignore_errors=True)
            staging.rename(final)
        else:
            shutil.rmtree(staging, ignore_errors=True)
    return final
