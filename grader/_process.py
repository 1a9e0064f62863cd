"""Processes the grader starts die with it: on Linux the kernel SIGKILLs them when their parent dies, SIGKILL of
the parent included (an edition runner's worker, the L1 language server).  Elsewhere nothing is arranged."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    return prctl


def die_with_parent(parent: int) -> None:
    """In a forked child: be killed when the thread that forked it dies; exit at once if `parent` (its pid) is
    already gone, since then nobody would kill it."""
    prctl = _prctl()
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)


def dying_with_parent() -> Callable[[], None] | None:
    """A subprocess pre-exec hook doing die_with_parent for the calling process; resolved before the fork, so the
    child only makes the one call."""
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def hook() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return hook
