"""The warm servers of this process: one per set of library folders, started on first use."""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Sequence
from pathlib import Path

from grader.deliverable import Tree

from ._result import L1Result
from ._server import L1Server

_servers: dict[tuple[str, ...], L1Server] = {}
_lock = threading.Lock()


def server(library: Sequence[Path] = ()) -> L1Server:
    """The warm server for these library folders (started, and probed, on first use)."""
    key = tuple(str(Path(p).resolve()) for p in library)
    with _lock:
        found = _servers.get(key)
        if found is None:
            found = _servers[key] = L1Server(library=[Path(p) for p in key])
        return found


def analyse(deliverable: Path | Tree, *, library: Sequence[Path] = ()) -> L1Result:
    """L1 over a deliverable (a folder, or the grader's bounded reading of one).  `library` adds Lua library
    folders (e.g. TapTap's urhox-libs) whose globals and modules the deliverable may use."""
    return server(library).analyse(deliverable)


def shutdown() -> None:
    """Stop every warm server of this process."""
    with _lock:
        servers = list(_servers.values())
        _servers.clear()
    for s in servers:
        s.close()


def _forget_after_fork() -> None:
    """A forked child (an edition run's worker) starts servers of its own: the parent's belong to the parent, and
    the threads that read their answers did not survive the fork (using them would wait forever)."""
    global _lock
    _servers.clear()
    _lock = threading.Lock()


atexit.register(shutdown)
os.register_at_fork(after_in_child=_forget_after_fork)
