"""Grading in containers started ahead of their job: what each in-container grade repeats before it reads its
task — creating and starting the container, importing the grader, starting the L1 server, booting the engine —
is done while the previous grade runs.  Each container still grades exactly one deliverable and is removed, so
nothing of one grade (a game that escaped the Lua sandbox included) reaches the next.

A warm container (`WarmContainer`) has the settings of a fresh one (run.create_container) and two mounts: /job,
read-only, empty until the host stages the task and the deliverable in it and writes /job/ready last; and /out.
Its grader (inside.py --wait) then grades as a fresh container's does, and the host checks the verdict the same
way (run.check_verdict).  `GradingPool.grade` takes the warm container, grades, then starts the next one in the
background, so that its start competes with the caller's other work rather than with the grade; a task whose
memory limit differs from the pool's is graded in a fresh container instead.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from grader._containers import client, signals_deferred
from grader.pipeline import GradeResult
from grader.tasks import Task
from grader.tasks._model import Limits

from .image import grader_image
from .inside import READY_NAME, WAKE_NAME
from .run import (
    LABEL_GRADING,
    STARTUP_SECONDS,
    GradingError,
    check_verdict,
    create_container,
    deliverable_folder,
    expected_verdict,
    grade_in_container,
    out_folder,
    read_verdict,
    stage_task,
)

__all__ = ["GradingPool", "WarmContainer"]


VERDICT_POLL_SECONDS = 0.001   # the host looks this often while a grade runs: a few dozen stats per grade


def _memory(memory_mb: int) -> int:
    return (2 << 30) + (memory_mb << 20)


def _wake(fifo: Path) -> None:
    """Tell a container waiting for its job that the job is staged: a byte into the FIFO its grader holds open.
    A container still warming up does not hold it yet and finds the job when it looks (inside.py); a full or
    broken FIFO (the container's doing) only leaves it to find the job that way."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:   # ENXIO: nobody holds it open yet
        return
    try:
        os.write(fd, b"\n")
    except OSError:
        pass
    finally:
        os.close(fd)


def _copy_readable(src: Path, dst: Path) -> None:
    """The deliverable, for the container's grader (another uid) to read: its modes kept (the deliverable's hash
    covers the owner's execute bit), read permission added for everyone."""
    shutil.copytree(src, dst, symlinks=True)
    for path in [dst, *dst.rglob("*")]:
        if not path.is_symlink():
            mode = stat.S_IMODE(path.lstat().st_mode)
            path.chmod(mode | (0o555 if path.is_dir() else 0o444))


class WarmContainer:
    """A grading container started before its job is known, waiting for it (see the module docstring)."""

    def __init__(self, docker_client: Any, memory_mb: int) -> None:
        import docker

        self.docker_client = docker_client
        self.memory_mb = memory_mb
        self.grading_id = uuid.uuid4().hex
        self.staging = Path(tempfile.mkdtemp(prefix="grader-grading-"))
        self.staging.chmod(0o755)
        self.job = self.staging / "job"
        self.job.mkdir(mode=0o755)
        os.mkfifo(self.job / WAKE_NAME)
        (self.job / WAKE_NAME).chmod(0o666)   # the container's grader (another uid) holds it open read-write
        self.out = out_folder(self.staging)
        self.used = False
        try:
            with signals_deferred():
                self.container = create_container(
                    docker_client, grader_image(docker_client), self.grading_id, ["--wait"], None,
                    _memory(memory_mb), {str(self.job): {"bind": "/job", "mode": "ro"},
                                         str(self.out): {"bind": "/out", "mode": "rw"}})
                self.container.start()
        except docker.errors.DockerException as exc:
            self.discard()
            raise GradingError(f"the warm grading container failed to start: {exc}") from None

    def grade(self, task: Task, deliverable: Path) -> GradeResult:
        """Stage the job, let the container grade it, check its verdict.  The caller removes the container
        (`discard`) after a verdict; on an error it is removed here."""
        if self.used:
            raise GradingError("a warm grading container grades one deliverable")
        self.used = True
        deliverable = deliverable_folder(deliverable)
        limit = task.limits.l2_wall_seconds + STARTUP_SECONDS
        start = time.monotonic()
        try:
            suite = stage_task(task, self.job)   # job/suite/<task>, without solutions/
            assert suite == self.job / "suite"
            _copy_readable(deliverable, self.job / "deliverable")
            ready = self.job / f".{READY_NAME}"
            ready.write_text(task.paths.root.name + "\n", encoding="utf-8")
            ready.chmod(0o644)
            os.replace(ready, self.job / READY_NAME)   # last: the container starts on it
            _wake(self.job / WAKE_NAME)
            expected = expected_verdict(task, deliverable)   # the host's share, while the container grades
            data = self._verdict(limit)
            result = check_verdict(task, deliverable, data, expected)
            result.timings["container"] = time.monotonic() - start
            return result
        except BaseException:
            self.discard()
            raise

    def _verdict(self, limit: float) -> bytes:
        """The verdict as soon as the container's grader has written it (the rename makes it whole), without
        waiting for the container's processes to wind down; an error when the container ends without one or
        runs past `limit`."""
        import docker

        deadline = time.monotonic() + limit
        next_look = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            data = read_verdict(self.out)
            if data is not None:
                return data
            if time.monotonic() >= next_look:
                next_look = time.monotonic() + 0.5
                try:
                    self.container.reload()
                except docker.errors.DockerException as exc:
                    raise GradingError(f"the grading container failed: {exc}") from None
                if self.container.status in ("exited", "dead"):
                    data = read_verdict(self.out)
                    if data is not None:
                        return data
                    code = self.container.attrs.get("State", {}).get("ExitCode")
                    logs = self.container.logs(tail=40).decode("utf-8", "replace")
                    raise GradingError(f"the grading container exited with status {code} and no verdict: "
                                       f"{logs[-2000:]}")
            time.sleep(VERDICT_POLL_SECONDS)
        raise GradingError(f"the grading container ran past {limit:g} s and was removed")

    def discard(self) -> None:
        """Remove the container (by its label: one that failed half-made too) and its staging folder."""
        import docker

        with signals_deferred():
            for c in self.docker_client.containers.list(all=True,
                                                        filters={"label": f"{LABEL_GRADING}={self.grading_id}"}):
                with contextlib.suppress(docker.errors.DockerException):
                    c.remove(force=True)
            shutil.rmtree(self.staging, ignore_errors=True)


class GradingPool:
    """Grades one deliverable after another, each in its own container, the next one started ahead."""

    def __init__(self, docker_client: Any = None, memory_mb: int | None = None) -> None:
        self.docker_client = docker_client or client()
        self.memory_mb = memory_mb if memory_mb is not None else Limits().memory_mb
        self._next: WarmContainer | None = None
        self._error: GradingError | None = None
        self._thread: threading.Thread | None = None
        self._removals: list[threading.Thread] = []
        self._start_next()

    def _prepare(self) -> None:
        try:
            self._next = WarmContainer(self.docker_client, self.memory_mb)
        except GradingError as exc:
            self._error = exc

    def _start_next(self) -> None:
        self._thread = threading.Thread(target=self._prepare, name="grader-warm-grading", daemon=True)
        self._thread.start()

    def _take(self) -> WarmContainer:
        assert self._thread is not None
        self._thread.join()
        warm, error = self._next, self._error
        self._next, self._error = None, None
        if warm is None:
            raise error or GradingError("no warm grading container")
        return warm

    def grade(self, task: Task, deliverable: Path) -> GradeResult:
        if task.limits.memory_mb != self.memory_mb:
            return grade_in_container(task, deliverable, docker_client=self.docker_client)
        warm = self._take()
        try:
            return warm.grade(task, deliverable)
        finally:
            # the next container starts once this grade is done, not during it: its start (the daemon's work,
            # the grader's imports, the L1 server, the engine's boot) would take the cores this grade runs on;
            # it warms while the caller does its other work (the next attempt's agent). The used container
            # goes in the background: its removal is nobody's wait.
            self._start_next()
            remover = threading.Thread(target=warm.discard, name="grader-grading-removal", daemon=True)
            remover.start()
            self._removals.append(remover)

    def close(self) -> None:
        if self._thread is not None:
            self._thread.join()
        if self._next is not None:
            self._next.discard()
            self._next = None
        for remover in self._removals:
            remover.join()
        self._removals.clear()

    def __enter__(self) -> GradingPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
