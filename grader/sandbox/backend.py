"""One hardened Docker container per attempt (docs/sandbox.md).

`run_in_sandbox` mounts a fresh workspace (the deliverable), the task's prompt read-only at /task, optionally a
read-only staging folder at /stage, and a writable /usage folder outside the deliverable for the driver's usage
file; runs one command as the non-root agent user with every capability dropped, no new privileges, a read-only
root filesystem, size-limited tmpfs for /tmp and home, pids, memory (swap equal) and CPU limits, no devices, an
init process, and no network or only the allow-list gateway (gateway.py); kills the container from outside when
the time limit passes; and always removes it and its network (also on exceptions, Ctrl-C and SIGTERM).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from evidence import AttemptOutcome
from grader._containers import (
    LABEL,
    ContainerError,
    ImageError,
    client,
    signals_deferred,
    terminate_as_interrupt,
)

from .gateway import Gateway, GatewayError, GatewayReport, open_gateway, remove_attempt_networks
from .image import AGENT_UID, AGENT_USER, REPOSITORY, base_image
from .usage import USAGE_DIR, USAGE_FILE, Usage, read_usage

LABEL_ATTEMPT = "grader.attempt"
PROFILE_VERSION = 2


class SandboxError(ContainerError):
    """The agent's container could not be run: the attempt is an infra_error."""


@dataclass(frozen=True)
class Limits:
    pids: int = 256
    memory_bytes: int = 2 << 30
    nano_cpus: int = 2_000_000_000
    tmp_bytes: int = 64 << 20
    home_bytes: int = 64 << 20


@dataclass(frozen=True)
class Profile:
    """What an edition pins about the agent's container.  `image` is a content-addressed reference: the base
    image's tag is the SHA-256 of its root filesystem; any other image is pinned by its image id.  With a
    gateway, the network is the attempt's internal network and the allow-list proxy (run from `proxy_image`)."""

    image: str
    user: str = f"{AGENT_UID}:{AGENT_UID}"
    limits: Limits = field(default_factory=Limits)
    network: str = "none"
    gateway: Gateway | None = None
    proxy_image: str = ""

    def as_dict(self) -> dict[str, Any]:
        out = {"version": PROFILE_VERSION, "image": self.image, "user": self.user, "limits": asdict(self.limits),
               "network": "gateway" if self.gateway else self.network, "read_only_rootfs": True,
               "cap_drop": ["ALL"], "security_opt": ["no-new-privileges"], "init": True, "devices": [],
               "mounts": {"/workspace": "rw", "/task": "ro", "/stage": "ro", USAGE_DIR: "rw", "/tmp": "tmpfs",
                          f"/home/{AGENT_USER}": "tmpfs"}}
        if self.gateway:
            out["gateway"] = self.gateway.as_dict() | {"proxy_image": self.proxy_image}
        return out

    def canonical(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))

    def digest(self) -> str:
        return hashlib.sha256(self.canonical().encode()).hexdigest()


@dataclass
class SandboxResult:
    outcome: AttemptOutcome
    exit_code: int | None
    oom_killed: bool
    timed_out: bool
    wall_seconds: float
    detail: str
    logs: str
    profile: dict[str, Any]
    profile_hash: str
    image_id: str | None
    attempt_id: str
    usage: Usage = field(default_factory=Usage)
    gateway: dict[str, Any] | None = None
    environment: list[str] = field(default_factory=list)  # the names passed in, never their values

    def summary(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k not in ("logs", "profile")}


def default_profile(docker_client: Any, limits: Limits | None = None, gateway: Gateway | None = None,
                    image: str | None = None) -> Profile:
    """The base image (or `image`, pinned by its id) with these limits, and the gateway when one is given."""
    base = base_image(docker_client)
    return Profile(image=pin_image(docker_client, image) if image else base, limits=limits or Limits(),
                   gateway=gateway, proxy_image=base if gateway else "")


def pin_image(docker_client: Any, ref: str) -> str:
    """A content-addressed reference for ref: our base image's tag, else the image id."""
    if ref.startswith(f"{REPOSITORY}:"):
        return ref
    return docker_client.images.get(ref).id


def remove_attempt_containers(docker_client: Any, attempt_id: str) -> int:
    import docker

    n = 0
    for c in docker_client.containers.list(all=True, filters={"label": f"{LABEL_ATTEMPT}={attempt_id}"}):
        with contextlib.suppress(docker.errors.NotFound):
            c.remove(force=True)
            n += 1
    return n


def cleanup(docker_client: Any | None = None) -> int:
    """Remove every container (and network) the sandbox left behind; returns how many."""
    import docker

    docker_client = docker_client or client()
    n = 0
    for c in docker_client.containers.list(all=True, filters={"label": LABEL}):
        with contextlib.suppress(docker.errors.NotFound):
            c.remove(force=True)
            n += 1
    return n + remove_attempt_networks(docker_client, LABEL)


# --- the run ---------------------------------------------------------------------------------------------------

def _open_to_agent(root: Path) -> None:
    """The agent user owns the workspace (chown when we are root, else world-writable)."""
    paths = [root, *root.rglob("*")]
    for p in paths:
        if os.geteuid() == 0:
            os.chown(p, AGENT_UID, AGENT_UID, follow_symlinks=False)
        elif not p.is_symlink():
            p.chmod(0o777 if p.is_dir() else 0o666)


def _readable_copy(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, symlinks=True)
    for p in [dst, *dst.rglob("*")]:
        if not p.is_symlink():
            p.chmod(0o755 if p.is_dir() else 0o644)


def _mounts(staging: Path, workspace: Path, prompt: Path | None, stage: Path | None) -> dict[str, dict[str, str]]:
    volumes = {str(workspace): {"bind": "/workspace", "mode": "rw"}}
    task_dir = staging / "task"
    task_dir.mkdir(mode=0o755)
    if prompt is not None:
        shutil.copyfile(prompt, task_dir / "prompt.md")
        (task_dir / "prompt.md").chmod(0o644)
    volumes[str(task_dir)] = {"bind": "/task", "mode": "ro"}
    if stage is not None:
        _readable_copy(Path(stage), staging / "stage")
        volumes[str(staging / "stage")] = {"bind": "/stage", "mode": "ro"}
    (staging / "usage").mkdir()
    _open_to_agent(staging / "usage")
    volumes[str(staging / "usage")] = {"bind": USAGE_DIR, "mode": "rw"}
    return volumes


def _classify(exit_code: int | None, oom: bool, timed_out: bool, hung: bool, time_limit: float,
              gateway: GatewayReport | None) -> tuple[AttemptOutcome, str]:
    if hung:
        return AttemptOutcome.HUNG, "the container did not stop when killed"
    if timed_out:
        outcome, detail = AttemptOutcome.AGENT_TIMEOUT, f"killed at the time limit ({time_limit:g} s)"
    elif exit_code == 0:
        return AttemptOutcome.COMPLETED, ""
    else:
        outcome, detail = AttemptOutcome.AGENT_ERROR, "killed: out of memory" if oom else f"exit status {exit_code}"
    infra = gateway.infra_outcome() if gateway else None
    if gateway and infra:  # the agent failed while its gateway was failing: not the agent's doing
        return infra, f"{gateway.detail()}; the agent: {detail}"
    return outcome, detail


def run_in_sandbox(workspace: Path, command: Sequence[str], *, prompt: Path | None = None, stage: Path | None = None,
                   time_limit: float = 1800.0, profile: Profile | None = None, attempt_id: str | None = None,
                   docker_client: Any | None = None, environment: dict[str, str] | None = None) -> SandboxResult:
    """Run command in a fresh hardened container over workspace (a host folder the caller prepared).
    `environment` may hold secrets: only its names are kept in the result."""
    import docker
    import requests

    attempt_id = attempt_id or uuid.uuid4().hex
    start = time.monotonic()
    profile_dict: dict[str, Any] = profile.as_dict() if profile else {}
    profile_hash = profile.digest() if profile else ""
    env_names = sorted(environment or {})

    def infra(detail: str, image_id: str | None = None) -> SandboxResult:
        return SandboxResult(AttemptOutcome.INFRA_ERROR, None, False, False, time.monotonic() - start, detail, "",
                             profile_dict, profile_hash, image_id, attempt_id, environment=env_names)

    try:
        docker_client = docker_client or client()
        profile = profile or default_profile(docker_client)
        profile_dict, profile_hash = profile.as_dict(), profile.digest()
        image_id = docker_client.images.get(profile.image).id
    except (SandboxError, ImageError, docker.errors.DockerException) as exc:
        return infra(f"{type(exc).__name__}: {exc}")

    workspace = Path(workspace).resolve()
    staging = Path(tempfile.mkdtemp(prefix="grader-sandbox-"))
    staging.chmod(0o755)
    labels = {LABEL: "1", LABEL_ATTEMPT: attempt_id, "grader.profile": profile_hash}
    env = {"HOME": f"/home/{AGENT_USER}", "GRADER_WORKSPACE": "/workspace", "GRADER_PROMPT_FILE": "/task/prompt.md",
           "GRADER_USAGE_FILE": USAGE_FILE, "GRADER_TIME_LIMIT": f"{time_limit:g}", **(environment or {})}
    lim = profile.limits
    timed_out = hung = False
    exit_code: int | None = None
    oom = False
    logs = ""
    usage = Usage()
    report: GatewayReport | None = None
    try:
        volumes = _mounts(staging, workspace, prompt, stage)
        _open_to_agent(workspace)
        with terminate_as_interrupt():
            network = profile.network
            gateway_run = None
            try:
                if profile.gateway:
                    gateway_run = open_gateway(docker_client, profile.gateway, profile.proxy_image or profile.image,
                                               attempt_id, labels)
                    network = gateway_run.network_name
                    env |= profile.gateway.environment()
                container = docker_client.containers.create(
                    profile.image, list(command), name=f"grader-{attempt_id}", user=profile.user,
                    working_dir="/workspace", environment=env, labels=labels,
                    cap_drop=["ALL"], security_opt=["no-new-privileges"], read_only=True, init=True,
                    network_mode=network, devices=[], privileged=False, ipc_mode="none",
                    volumes=volumes,
                    tmpfs={"/tmp": f"rw,nosuid,nodev,noexec,size={lim.tmp_bytes}",
                           f"/home/{AGENT_USER}": f"rw,nosuid,nodev,size={lim.home_bytes},uid={AGENT_UID},"
                                                  f"gid={AGENT_UID},mode=700"},
                    pids_limit=lim.pids, mem_limit=lim.memory_bytes, memswap_limit=lim.memory_bytes,
                    nano_cpus=lim.nano_cpus, stdin_open=False, tty=False,
                    log_config={"type": "json-file", "config": {"max-size": "10m"}})  # its output: bounded
                container.start()
            except GatewayError as exc:
                return infra(f"gateway: {exc}", image_id)
            except docker.errors.DockerException as exc:
                return infra(f"{type(exc).__name__}: {exc}", image_id)
            try:
                exit_code = int(container.wait(timeout=max(time_limit, 0.01))["StatusCode"])
            except (requests.exceptions.RequestException, docker.errors.DockerException):
                timed_out = True
                with contextlib.suppress(docker.errors.DockerException):
                    container.kill()
                try:
                    exit_code = int(container.wait(timeout=30)["StatusCode"])
                except (requests.exceptions.RequestException, docker.errors.DockerException):
                    hung = True
            try:
                container.reload()
                oom = bool(container.attrs["State"].get("OOMKilled"))
                logs = container.logs(tail=200).decode("utf-8", "replace")
            except docker.errors.DockerException:
                pass
            if gateway_run is not None:
                report = gateway_run.report()
            if not hung:
                usage = read_usage(staging / "usage")
    finally:
        with signals_deferred():
            with contextlib.suppress(Exception):
                remove_attempt_containers(docker_client, attempt_id)
            with contextlib.suppress(Exception):
                remove_attempt_networks(docker_client, f"{LABEL_ATTEMPT}={attempt_id}")
            shutil.rmtree(staging, ignore_errors=True)
    outcome, detail = _classify(exit_code, oom, timed_out, hung, time_limit, report)
    return SandboxResult(outcome, exit_code, oom, timed_out, time.monotonic() - start, detail, logs, profile_dict,
                         profile_hash, image_id, attempt_id, usage, report.as_dict() if report else None, env_names)
