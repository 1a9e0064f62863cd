"""What the agent sandbox and the grading container share: the Docker client, the label that marks every
container the grader makes, and signal handling that keeps a container from outliving an interrupted grader."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

LABEL = "grader.sandbox"
# Who made a container: the creating process's pid, its start time (field 22 of /proc/<pid>/stat, in clock ticks
# since boot) and the boot id.  Together they name one process for as long as the machine runs: a pid alone is
# reused, and a start time alone means nothing after a reboot.  Cleanup removes a container only when that process
# is gone, so graders, test runs and nightly editions sharing one Docker daemon never remove each other's work.
LABEL_PID = "grader.creator.pid"
LABEL_START = "grader.creator.start"
LABEL_BOOT = "grader.creator.boot"
LABEL_PIDNS = "grader.creator.pidns"   # a pid means something only in its own pid namespace
LABEL_SESSION = "grader.session"       # GRADER_SANDBOX_SESSION, when set: a test run finds what it made by it
SESSION_ENV = "GRADER_SANDBOX_SESSION"


class ContainerError(RuntimeError):
    """Docker is unavailable or refused: an infrastructure failure, never the agent's or the deliverable's."""


class ImageError(ContainerError):
    """An image cannot be built (no static busybox, Docker refused the import, the build failed)."""


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def process_start(pid: int) -> str:
    """The start time of process `pid` (clock ticks since boot), or "" when there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return text.rsplit(")", 1)[1].split()[19]   # the name, in parentheses, may hold spaces: count after it


def owner_labels() -> dict[str, str]:
    """The labels naming this process as the creator of a container, a network or a staging folder."""
    pid = os.getpid()
    labels = {LABEL_PID: str(pid), LABEL_START: process_start(pid), LABEL_BOOT: _boot_id(),
              LABEL_PIDNS: _pid_namespace()}
    if os.environ.get(SESSION_ENV):
        labels[LABEL_SESSION] = os.environ[SESSION_ENV]
    return labels


def creator_gone(labels: Mapping[str, str]) -> bool:
    """True when the process named by `labels` (owner_labels) no longer exists.  Without the labels (made by an
    older grader), or from another pid namespace, the creator cannot be checked and is never said to be gone."""
    pid, start, boot = labels.get(LABEL_PID, ""), labels.get(LABEL_START, ""), labels.get(LABEL_BOOT, "")
    if not pid.isdigit() or not start or not boot or labels.get(LABEL_PIDNS, "") != _pid_namespace():
        return False
    return boot != _boot_id() or process_start(int(pid)) != start


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
