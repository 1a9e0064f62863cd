"""Grading in a fresh container: `grader grade --in-container` runs L0, L1 and L2 in a container of the grader
image (runtime.py) that sees the task (without its solutions) and the deliverable read-only, and nothing of the
agent's container, the host or the network.  The verdict comes back through /out, a mount only the grader's
process in the container writes (inside.py), never through the container's output; the host then checks it
against what it computes itself (task, battery and deliverable hashes, engine, evidence digest) before using it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evidence import Artifact, EvidenceError, Verdict
from grader._containers import (
    LABEL,
    ContainerError,
    client,
    owner_labels,
    signals_deferred,
    terminate_as_interrupt,
)
from grader.deliverable import scan
from grader.pipeline import GradeResult
from grader.tasks import Task, battery_hash, param_values, task_hash
from grader.verdict import engine_info, grader_info, task_settings_hash

from .image import GRADER_UID, SCRATCH, grader_image
from .inside import PARAMS_NAME, VERDICT_NAME

LABEL_GRADING = "grader.grading"
MAX_VERDICT_BYTES = 64 << 20
STARTUP_SECONDS = 180.0  # the container, L0 and L1 beside the task's L2 wall time
TMP_BYTES = 512 << 20


class GradingError(ContainerError):
    """The grading container could not produce a verdict the host accepts."""


@dataclass(frozen=True)
class Expected:
    """What a verdict about this task and deliverable must say, with the deliverable as the ledger will keep it:
    computed by the host, never read from the container (a pooled grade computes it while the container grades)."""

    artifact: Artifact
    fields: dict[str, Any]


def expected_verdict(task: Task, deliverable: Path) -> Expected:
    from engine import API_VERSION

    artifact = scan(deliverable, task.limits).pack()   # what the host reads is what the ledger will keep
    return Expected(artifact, {
        "task_id": task.qualified_id, "task_hash": task_hash(task), "battery_hash": battery_hash(task, API_VERSION),
        "deliverable_hash": artifact.hash, "engine": engine_info(), "grader": grader_info(),
        "settings_hash": task_settings_hash(task), "params": param_values(task) if task.param_specs else None})


def check_verdict(task: Task, deliverable: Path, data: bytes, expected: Expected | None = None) -> GradeResult:
    """The container's verdict, accepted only when it is about this task, battery and deliverable, from this
    engine and grader under these settings, and its evidence digest matches its content."""
    try:
        doc = json.loads(data)
        verdict = Verdict.from_json(doc["verdict"])
        timings = {str(k): float(v) for k, v in doc["timings"].items()}
    except (ValueError, KeyError, TypeError, AttributeError, EvidenceError) as exc:
        raise GradingError(f"the grading container's verdict is not readable: {exc}") from None
    if expected is None:
        expected = expected_verdict(task, deliverable)
    for key, value in expected.fields.items():
        got = getattr(verdict, key)
        if got != value:
            raise GradingError(f"the grading container's verdict has {key} {got!r}, expected {value!r}")
    if not verdict.digest_ok(read_from_json=True):
        raise GradingError("the grading container's verdict does not match its evidence digest")
    return GradeResult(verdict, timings, expected.artifact)


def read_verdict(out: Path) -> bytes | None:
    try:
        fd = os.open(out / VERDICT_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_VERDICT_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_VERDICT_BYTES:
        raise GradingError(f"the grading container's verdict is larger than {MAX_VERDICT_BYTES} bytes")
    return data


def stage_task(task: Task, staging: Path) -> Path:
    """/suite: the suite's suite.toml, a copy of the task folder without solutions/ and, for a parameterised task,
    its values (PARAMS_NAME: the container grades with them; the host checks its verdict says so)."""
    suite = staging / "suite"
    suite.mkdir(mode=0o755)
    suite_toml = task.paths.root.parent / "suite.toml"
    if suite_toml.is_file():
        shutil.copyfile(suite_toml, suite / "suite.toml")
    if task.param_specs:
        (suite / PARAMS_NAME).write_text(task.params, encoding="utf-8")
    shutil.copytree(task.paths.root, suite / task.paths.root.name, symlinks=True,
                    ignore=lambda d, names: ["solutions"] if Path(d) == task.paths.root else [])
    for p in [suite, *suite.rglob("*")]:
        if not p.is_symlink():
            p.chmod(0o755 if p.is_dir() else 0o644)
    return suite


def create_container(docker_client: Any, image: str, grading_id: str, args: list[str], entrypoint: list[str] | None,
                     memory: int, volumes: dict[str, dict[str, str]]) -> Any:
    """A grading container, not started: every setting but its command, mounts and memory is this one place's."""
    return docker_client.containers.create(
        image, args, entrypoint=entrypoint, name=f"grader-grading-{grading_id}",
        user=f"{GRADER_UID}:{GRADER_UID}", labels={LABEL: "1", LABEL_GRADING: grading_id, **owner_labels()},
        cap_drop=["ALL"], security_opt=["no-new-privileges"], read_only=True, init=True,
        network_mode="none", devices=[], privileged=False, ipc_mode="none", volumes=volumes,
        tmpfs={SCRATCH: f"rw,nosuid,nodev,noexec,size={TMP_BYTES}"},
        pids_limit=256, mem_limit=memory, memswap_limit=memory, nano_cpus=2_000_000_000)


def out_folder(staging: Path) -> Path:
    """The container's /out: the one folder its grader may write."""
    out = staging / "out"
    out.mkdir()
    if os.geteuid() == 0:
        os.chown(out, GRADER_UID, GRADER_UID)
    else:
        out.chmod(0o777)
    return out


def _run(task: Task, deliverable: Path, docker_client: Any, args: list[str],
         entrypoint: list[str] | None) -> tuple[int, str, bytes | None]:
    """One grading container: (exit status, the tail of its output, what it left in /out/verdict.json)."""
    import docker
    import requests

    image = grader_image(docker_client)
    grading_id = uuid.uuid4().hex
    staging = Path(tempfile.mkdtemp(prefix="grader-grading-"))
    staging.chmod(0o755)
    memory = (2 << 30) + (task.limits.memory_mb << 20)
    limit = task.limits.l2_wall_seconds + STARTUP_SECONDS
    try:
        suite = stage_task(task, staging)
        out = out_folder(staging)
        with terminate_as_interrupt():
            try:
                container = create_container(docker_client, image, grading_id, args, entrypoint, memory, {
                    str(suite): {"bind": "/suite", "mode": "ro"},
                    str(deliverable.resolve()): {"bind": "/deliverable", "mode": "ro"},
                    str(out): {"bind": "/out", "mode": "rw"}})
                container.start()
                status = int(container.wait(timeout=limit)["StatusCode"])
                logs = container.logs(tail=40).decode("utf-8", "replace")
            except requests.exceptions.RequestException:
                raise GradingError(f"the grading container ran past {limit:g} s and was removed") from None
            except docker.errors.DockerException as exc:
                raise GradingError(f"the grading container failed: {exc}") from None
        return status, logs, read_verdict(out)
    finally:
        with signals_deferred():
            for c in docker_client.containers.list(all=True, filters={"label": f"{LABEL_GRADING}={grading_id}"}):
                with contextlib.suppress(docker.errors.DockerException):
                    c.remove(force=True)
            shutil.rmtree(staging, ignore_errors=True)


def deliverable_folder(deliverable: Path) -> Path:
    deliverable = Path(deliverable)
    if not deliverable.is_dir() or deliverable.is_symlink():
        raise GradingError(f"{deliverable}: grading in a container needs a deliverable folder")
    return deliverable


def grade_in_container(task: Task, deliverable: Path, *, docker_client: Any = None) -> GradeResult:
    """Grade `deliverable` in a fresh container of the grader image; the host checks the verdict it returns."""
    deliverable = deliverable_folder(deliverable)
    start = time.monotonic()
    status, logs, data = _run(task, deliverable, docker_client or client(), [task.paths.root.name], None)
    if status != 0 or data is None:
        raise GradingError(f"the grading container exited with status {status} and no verdict: {logs[-2000:]}")
    result = check_verdict(task, deliverable, data)
    result.timings["container"] = time.monotonic() - start
    return result


def probe_grading_container(task: Task, deliverable: Path, code: str, *,
                            docker_client: Any = None) -> tuple[int, str]:
    """Run Python `code` instead of the grader, with the same image, mounts and settings (the tests prove the
    container's isolation with it): (exit status, the tail of its output)."""
    status, logs, _ = _run(task, deliverable_folder(deliverable), docker_client or client(), ["-c", code], ["python3"])
    return status, logs
