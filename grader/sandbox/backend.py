"""One hardened Docker container per attempt (docs/sandbox.md).

`run_in_sandbox` mounts a fresh workspace (the deliverable) and a /usage folder outside it for the driver's usage
file, each a size-limited tmpfs (quota.py), the task's prompt read-only at /task and optionally a read-only staging
folder at /stage; runs one command as the non-root agent user with every capability dropped, no new privileges, a
read-only root filesystem, size-limited tmpfs for /tmp and home, pids, memory (swap equal) and CPU limits, no
devices, an init process, and no network or only the allow-list gateway (gateway.py); kills the container from
outside when the time limit passes, and from inside a little later should the grader be gone (a watchdog
container owns the attempt's pid namespace); copies the workspace out, bounded, once nothing runs; and always
removes its containers, their volumes and its network (also on exceptions, Ctrl-C and SIGTERM).  Every container,
network and staging folder names the process that made it, so `cleanup` removes only what dead graders left.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
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
    LABEL_BOOT,
    LABEL_PID,
    LABEL_PIDNS,
    LABEL_START,
    ContainerError,
    ImageError,
    client,
    creator_gone,
    owner_labels,
    signals_deferred,
    terminate_as_interrupt,
)

from .gateway import Gateway, GatewayError, GatewayRun, open_gateway, remove_attempt_networks
from .image import AGENT_UID, AGENT_USER, CONTENT_TAGGED, base_image
from .metering import GatewayReport
from .quota import can_mount, copy_out, mount_tmpfs, mounts_under, unmount
from .usage import USAGE_DIR, USAGE_FILE, Usage, read_usage

LABEL_ATTEMPT = "grader.attempt"
LABEL_ROLE = "grader.role"
PROFILE_VERSION = 3
STAGING_PREFIX = "grader-sandbox-"
WATCHDOG_UID = 10003        # not the agent's: the agent can neither signal nor trace the watchdog
WATCHDOG_GRACE = 5          # seconds past the time limit before the attempt's own watchdog ends it


class SandboxError(ContainerError):
    """The agent's container could not be run: the attempt is an infra_error."""


class ImageVolumesError(ValueError):
    """An agent image declares VOLUMEs: Docker would give it writable host-disk mounts the profile does not
    name, so it is refused."""


@dataclass(frozen=True)
class Limits:
    pids: int = 256
    memory_bytes: int = 2 << 30
    nano_cpus: int = 2_000_000_000
    tmp_bytes: int = 64 << 20
    home_bytes: int = 64 << 20
    workspace_bytes: int = 256 << 20    # the /workspace quota (a tmpfs, counted in memory_bytes)
    workspace_inodes: int = 16384
    usage_bytes: int = 1 << 20          # the /usage quota


def container_settings(profile: Profile) -> dict[str, Any]:
    """Every setting of the agent's container but the command, the attempt's environment values and the host
    paths of its mounts: what `docker create` receives, and what the profile hashes (one source of truth)."""
    lim = profile.limits
    return {
        "user": profile.user, "working_dir": "/workspace", "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"], "read_only": True, "init": True, "devices": [], "privileged": False,
        "ipc_mode": "none", "stdin_open": False, "tty": False,
        "tmpfs": {"/tmp": f"rw,nosuid,nodev,noexec,size={lim.tmp_bytes}",
                  # exec: Docker's tmpfs default is noexec, and the agent's home is where it may run what it installs
                  f"/home/{AGENT_USER}": f"rw,exec,nosuid,nodev,size={lim.home_bytes},uid={AGENT_UID},"
                                         f"gid={AGENT_UID},mode=700"},
        "pids_limit": lim.pids, "mem_limit": lim.memory_bytes, "memswap_limit": lim.memory_bytes,
        "nano_cpus": lim.nano_cpus,
        "log_config": {"type": "json-file", "config": {"max-size": "10m"}},   # its output: bounded
    }


def watchdog_settings(deadline: int) -> dict[str, Any]:
    """The watchdog container: `sleep` as the init of the pid namespace the agent (and the proxy) join.  When it
    exits at the deadline the kernel kills every process in that namespace, whether or not the grader lives."""
    return {"command": ["sleep", str(deadline)], "user": f"{WATCHDOG_UID}:{WATCHDOG_UID}", "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"], "read_only": True, "init": False, "network_mode": "none",
            "ipc_mode": "none", "pids_limit": 4, "mem_limit": 16 << 20, "memswap_limit": 16 << 20,
            "nano_cpus": 100_000_000, "privileged": False, "devices": []}


@dataclass(frozen=True)
class Profile:
    """What an edition pins about the agent's container.  `image` is a content-addressed reference: the base
    image's tag is the SHA-256 of its root filesystem; any other image is pinned by its image id.  With a
    gateway, the network is the attempt's internal network and the allow-list proxy (run from `proxy_image`).
    The watchdog runs from `helper_image` (the base image; "" means the base image, found when the attempt
    runs)."""

    image: str
    user: str = f"{AGENT_UID}:{AGENT_UID}"
    limits: Limits = field(default_factory=Limits)
    network: str = "none"
    gateway: Gateway | None = None
    proxy_image: str = ""
    helper_image: str = ""

    def as_dict(self) -> dict[str, Any]:
        lim = self.limits
        out = {"version": PROFILE_VERSION, "image": self.image, "user": self.user, "limits": asdict(lim),
               "network": "gateway" if self.gateway else self.network, "read_only_rootfs": True,
               "cap_drop": ["ALL"], "security_opt": ["no-new-privileges"], "init": True, "devices": [],
               "container": container_settings(self), "environment": sorted(FIXED_ENV),
               "image_volumes": "refused",
               "watchdog": {"image": self.helper_image, "grace_seconds": WATCHDOG_GRACE,
                            **watchdog_settings(0) | {"command": ["sleep", "<time limit + grace>"]}},
               "mounts": {"/workspace": f"rw,tmpfs,size={lim.workspace_bytes},nr_inodes={lim.workspace_inodes}",
                          "/task": "ro", "/stage": "ro", USAGE_DIR: f"rw,tmpfs,size={lim.usage_bytes}",
                          "/tmp": "tmpfs", f"/home/{AGENT_USER}": "tmpfs"}}
        if self.gateway:
            out["gateway"] = self.gateway.as_dict() | {"proxy_image": self.proxy_image}
        return out

    def canonical(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))

    def digest(self) -> str:
        return hashlib.sha256(self.canonical().encode()).hexdigest()


# The environment every agent container gets (values per attempt: GRADER_TIME_LIMIT); tini is not PID 1 in the
# watchdog's pid namespace, and reaps the agent's orphans only as a registered subreaper.
FIXED_ENV = {"HOME": f"/home/{AGENT_USER}", "GRADER_WORKSPACE": "/workspace", "GRADER_PROMPT_FILE": "/task/prompt.md",
             "GRADER_USAGE_FILE": USAGE_FILE, "GRADER_TIME_LIMIT": "", "TINI_SUBREAPER": "1"}


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
    warnings: list[str] = field(default_factory=list)
    usage_claimed: dict[str, Any] = field(default_factory=dict)   # the usage file as the agent wrote it

    def summary(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k not in ("logs", "profile")}


def default_profile(docker_client: Any, limits: Limits | None = None, gateway: Gateway | None = None,
                    image: str | None = None) -> Profile:
    """The base image (or `image`, pinned by its id) with these limits, and the gateway when one is given."""
    base = base_image(docker_client)
    return Profile(image=pin_image(docker_client, image) if image else base, limits=limits or Limits(),
                   gateway=gateway, proxy_image=base if gateway else "", helper_image=base)


def check_image_volumes(docker_client: Any, ref: str) -> None:
    """Refuse an image that declares VOLUMEs (ImageVolumesError, one line naming them)."""
    volumes = sorted((docker_client.images.get(ref).attrs.get("Config") or {}).get("Volumes") or {})
    if volumes:
        raise ImageVolumesError(f"image {ref} declares VOLUME {', '.join(volumes)}: refused (the profile names "
                                f"every mount of the agent's container; build the image without VOLUME)")


def pin_image(docker_client: Any, ref: str) -> str:
    """A content-addressed reference for ref: the tag of an image the grader builds (the base, the agent loop's),
    else the image id."""
    if ref.partition(":")[0] in CONTENT_TAGGED:
        return ref
    check_image_volumes(docker_client, ref)
    return str(docker_client.images.get(ref).id)


def _remove_containers(containers: list[Any]) -> int:
    """Remove containers with their volumes, the watchdogs last: removing a watchdog kills its pid namespace,
    and Docker refuses to remove a container caught dying that way ("removal in progress"), so retry."""
    import docker

    n = 0
    for c in sorted(containers, key=lambda c: c.labels.get(LABEL_ROLE) == "watchdog"):
        for _ in range(20):
            try:
                c.remove(force=True, v=True)
                n += 1
                break
            except docker.errors.NotFound:
                break
            except docker.errors.APIError:
                time.sleep(0.1)
    return n


def remove_attempt_containers(docker_client: Any, attempt_id: str) -> int:
    return _remove_containers(docker_client.containers.list(all=True,
                                                            filters={"label": f"{LABEL_ATTEMPT}={attempt_id}"}))


def _staging_folder() -> Path:
    """A staging folder named after its creator (pid, start time, boot), so the next cleanup can tell whether
    the process that made it is gone."""
    owner = owner_labels()
    tag = f"{owner[LABEL_PID]}-{owner[LABEL_START]}-{owner[LABEL_BOOT][:8]}-"
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX + tag))
    staging.chmod(0o755)
    return staging


def _staging_owner(folder: Path) -> dict[str, str]:
    parts = folder.name[len(STAGING_PREFIX):].split("-")
    if len(parts) < 4:
        return {}
    boot = owner_labels()[LABEL_BOOT]
    return {LABEL_PID: parts[0], LABEL_START: parts[1],
            LABEL_BOOT: boot if parts[2] == boot[:8] else parts[2], LABEL_PIDNS: owner_labels()[LABEL_PIDNS]}


def _remove_staging(staging: Path) -> None:
    for point in mounts_under(staging):
        with contextlib.suppress(OSError):
            unmount(point)
    shutil.rmtree(staging, ignore_errors=True)


def cleanup(docker_client: Any | None = None) -> int:
    """Remove what sandbox runs whose creating process is gone left behind: their containers (with their
    volumes), networks and staging folders.  Another live grader's attempts are never touched.  Returns how
    many things were removed."""
    import docker

    docker_client = docker_client or client()
    n = _remove_containers([c for c in docker_client.containers.list(all=True, filters={"label": LABEL})
                            if creator_gone(c.labels)])
    for net in docker_client.networks.list(filters={"label": LABEL}):
        if creator_gone(net.attrs.get("Labels") or {}):
            with contextlib.suppress(docker.errors.NotFound, docker.errors.APIError):
                net.remove()
                n += 1
    for staging in Path(tempfile.gettempdir()).glob(f"{STAGING_PREFIX}*"):
        if staging.is_dir() and not staging.is_symlink() and creator_gone(_staging_owner(staging)):
            _remove_staging(staging)
            n += 1
    return n


# --- the run ---------------------------------------------------------------------------------------------------

def _open_to_agent(root: Path) -> None:
    """The agent user owns the workspace."""
    for p in [root, *root.rglob("*")]:
        os.chown(p, AGENT_UID, AGENT_UID, follow_symlinks=False)


def _readable_copy(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, symlinks=True)
    for p in [dst, *dst.rglob("*")]:
        if not p.is_symlink():
            p.chmod(0o755 if p.is_dir() else 0o644)


def _mounts(staging: Path, workspace: Path, prompt: Path | None, stage: Path | None,
            limits: Limits) -> dict[str, dict[str, str]]:
    """The container's host mounts: /workspace and /usage are size-limited tmpfs (quota.py); the workspace's
    starting files are copied in."""
    ws, usage = staging / "workspace", staging / "usage"
    ws.mkdir()
    usage.mkdir()
    mount_tmpfs(ws, limits.workspace_bytes, limits.workspace_inodes, AGENT_UID)
    mount_tmpfs(usage, limits.usage_bytes, 64, AGENT_UID)
    shutil.copytree(workspace, ws, symlinks=True, dirs_exist_ok=True)
    _open_to_agent(ws)
    volumes = {str(ws): {"bind": "/workspace", "mode": "rw"}}
    task_dir = staging / "task"
    task_dir.mkdir(mode=0o755)
    if prompt is not None:
        shutil.copyfile(prompt, task_dir / "prompt.md")
        (task_dir / "prompt.md").chmod(0o644)
    volumes[str(task_dir)] = {"bind": "/task", "mode": "ro"}
    if stage is not None:
        _readable_copy(Path(stage), staging / "stage")
        volumes[str(staging / "stage")] = {"bind": "/stage", "mode": "ro"}
    volumes[str(usage)] = {"bind": USAGE_DIR, "mode": "rw"}
    return volumes


def _take_workspace(staging: Path, workspace: Path) -> list[str]:
    """Replace the caller's workspace with what the agent left on its tmpfs (bounded, no setuid bits)."""
    shutil.rmtree(workspace)
    workspace.mkdir()
    problems = copy_out(staging / "workspace", workspace)
    return [f"/workspace/{p}" for p in problems[:20]] + ([f"... and {len(problems) - 20} more"]
                                                          if len(problems) > 20 else [])


def recorded_usage(claimed: Usage, report: GatewayReport | None) -> Usage:
    """What the ledger records: tokens and cost as the gateway's meter counted them (NULL without a gateway:
    never guessed, never the agent's word), tool calls from the agent's own usage file."""
    if report is None:
        return Usage(tool_calls=claimed.tool_calls, warnings=claimed.warnings)
    return Usage(tokens_in=report.tokens_in, tokens_out=report.tokens_out, cost_usd=report.cost_usd,
                 tool_calls=claimed.tool_calls, warnings=claimed.warnings)


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


OOM_REPORT_GRACE = 2.0   # seconds to wait for Docker's word on a SIGKILLed agent


def _oom_killed(container: Any, exit_code: int | None, timed_out: bool) -> bool:
    """Whether the kernel killed something in the agent's container for memory.  Docker learns it from an event
    that can arrive after the container's exit (the OOM and exit notifications travel separately), so an agent
    killed by SIGKILL (137) that the grader did not kill is asked about again for a moment."""
    container.reload()
    oom = bool(container.attrs["State"].get("OOMKilled"))
    deadline = time.monotonic() + OOM_REPORT_GRACE
    while not oom and exit_code == 137 and not timed_out and time.monotonic() < deadline:
        time.sleep(0.05)
        container.reload()
        oom = bool(container.attrs["State"].get("OOMKilled"))
    return oom


def _start_watchdog(docker_client: Any, image: str, attempt_id: str, labels: dict[str, str],
                    time_limit: float) -> Any:
    settings = watchdog_settings(math.ceil(time_limit) + WATCHDOG_GRACE)
    command = settings.pop("command")
    with signals_deferred():   # a signal mid-request would leave a container created after the cleanup looked
        watchdog = docker_client.containers.create(image, command, name=f"grader-watchdog-{attempt_id}",
                                                   labels=labels | {LABEL_ROLE: "watchdog"}, **settings)
        watchdog.start()
    return watchdog


def run_in_sandbox(workspace: Path, command: Sequence[str], *, prompt: Path | None = None, stage: Path | None = None,
                   time_limit: float = 1800.0, profile: Profile | None = None, attempt_id: str | None = None,
                   docker_client: Any | None = None, environment: dict[str, str] | None = None) -> SandboxResult:
    """Run command in a fresh hardened container over workspace (a host folder the caller prepared, replaced by
    what the agent left).  `environment` may hold secrets: only its names are kept in the result."""
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

    if can_mount():
        return infra(can_mount())
    try:
        docker_client = docker_client or client()
        profile = profile or default_profile(docker_client)
        profile_dict, profile_hash = profile.as_dict(), profile.digest()
        image_id = docker_client.images.get(profile.image).id
        check_image_volumes(docker_client, profile.image)
        helper = profile.helper_image or base_image(docker_client)
    except ImageVolumesError as exc:
        return infra(str(exc))
    except (SandboxError, ImageError, docker.errors.DockerException) as exc:
        return infra(f"{type(exc).__name__}: {exc}")

    workspace = Path(workspace).resolve()
    staging = _staging_folder()
    labels = {LABEL: "1", LABEL_ATTEMPT: attempt_id, "grader.profile": profile_hash, **owner_labels()}
    env = FIXED_ENV | {"GRADER_TIME_LIMIT": f"{time_limit:g}", **(environment or {})}
    timed_out = hung = False
    exit_code: int | None = None
    oom = False
    logs = ""
    claimed = Usage()
    report: GatewayReport | None = None
    warnings: list[str] = []
    gateway_run: GatewayRun | None = None
    try:
        try:
            volumes = _mounts(staging, workspace, prompt, stage, profile.limits)
        except OSError as exc:
            return infra(f"the attempt's mounts: {exc}", image_id)
        with terminate_as_interrupt():
            network = profile.network
            try:
                watchdog = _start_watchdog(docker_client, helper, attempt_id, labels, time_limit)
                pid_mode = f"container:{watchdog.id}"
                if profile.gateway:
                    gateway_run = open_gateway(docker_client, profile.gateway, profile.proxy_image or helper,
                                               attempt_id, labels, pid_mode)
                    network = gateway_run.network_name
                    env |= gateway_run.environment()
                for tries in (1, 2):
                    with signals_deferred():
                        container = docker_client.containers.create(
                            profile.image, list(command), name=f"grader-{attempt_id}", environment=env,
                            labels=labels, network_mode=network, volumes=volumes, pid_mode=pid_mode,
                            **container_settings(profile))
                        try:
                            container.start()
                            break
                        except docker.errors.APIError as exc:
                            # runc, loaded, now and then loses a container between create and start: make it anew
                            if tries == 2 or "cannot start a stopped process" not in str(exc):
                                raise
                            container.remove(force=True, v=True)
                started = time.monotonic()
            except GatewayError as exc:
                return infra(f"gateway: {exc}", image_id)
            except docker.errors.DockerException as exc:
                return infra(f"{type(exc).__name__}: {exc}", image_id)
            try:
                exit_code = int(container.wait(timeout=max(time_limit, 0.01))["StatusCode"])
                timed_out = time.monotonic() - started >= time_limit   # the watchdog ended it first
            except (requests.exceptions.RequestException, docker.errors.DockerException):
                timed_out = True
                with contextlib.suppress(docker.errors.DockerException):
                    container.kill()
                try:
                    exit_code = int(container.wait(timeout=30)["StatusCode"])
                except (requests.exceptions.RequestException, docker.errors.DockerException):
                    hung = True
            try:
                oom = _oom_killed(container, exit_code, timed_out)
                logs = container.logs(tail=200).decode("utf-8", "replace")
            except docker.errors.DockerException:
                pass
            if gateway_run is not None:
                report = gateway_run.report()
            with signals_deferred(), contextlib.suppress(docker.errors.DockerException):
                remove_attempt_containers(docker_client, attempt_id)   # nothing of the agent's runs any more
            if not hung:
                claimed = read_usage(staging / "usage")
                try:
                    warnings = [f"not copied out of the workspace: {p}" for p in _take_workspace(staging, workspace)]
                except OSError as exc:
                    warnings = [f"the workspace could not be copied out: {exc}"]
    finally:
        if gateway_run is not None:
            gateway_run.meter.close()
        with signals_deferred():
            with contextlib.suppress(Exception):
                remove_attempt_containers(docker_client, attempt_id)
            with contextlib.suppress(Exception):
                remove_attempt_networks(docker_client, f"{LABEL_ATTEMPT}={attempt_id}")
            _remove_staging(staging)
    outcome, detail = _classify(exit_code, oom, timed_out, hung, time_limit, report)
    usage = recorded_usage(claimed, report)
    return SandboxResult(outcome, exit_code, oom, timed_out, time.monotonic() - start, detail, logs, profile_dict,
                         profile_hash, image_id, attempt_id, usage, report.as_dict() if report else None, env_names,
                         [*warnings, *(report.warnings() if report else [])], claimed.as_dict())
