"""What the agent sandbox and the grading container share: the Docker client, the label that marks every
container the grader makes, and signal handling that keeps a container from outliving an interrupted grader."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

LABEL = "grader.sandbox"


class ContainerError(RuntimeError):
    """Docker is unavailable or refused: an infrastructure failure, never the agent's or the deliverable's."""


class ImageError(ContainerError):
    """An image cannot be built (no static busybox, Docker refused the import, the build failed)."""


def client() -> Any:
    import docker

    try:
        c = docker.from_env()
        c.ping()
    except docker.errors.DockerException as exc:
        raise ContainerError(f"Docker is not available: {exc}") from exc
    return c


def has_image(docker_client: Any, ref: str) -> bool:
    """True when the daemon already holds the image `ref` (images are named by their content: built once)."""
    import docker

    try:
        docker_client.images.get(ref)
        return True
    except docker.errors.ImageNotFound:
        return False


class _Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP during an attempt: unwinds like Ctrl-C so that `finally` removes the container."""


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_(signum: int, _frame: Any) -> None:
        raise _Terminated(f"signal {signum}")

    old = {s: signal.signal(s, raise_) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Cleanup is not interrupted: SIGINT/SIGTERM/SIGHUP are blocked and delivered after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    sigs = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
