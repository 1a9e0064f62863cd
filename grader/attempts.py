"""Filling an attempt's workspace: the driver runs on this machine (`none`) or in a hardened container
(`docker`).  One path for `grader attempt` and `grader run`: `prepare_agent` once per agent (it checks the driver,
the gateway and --pass-env, and fixes the sandbox profile), then `fill_workspace` once per attempt."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .drivers import DriverError, prepare_workspace, resolve_driver
from .tasks import Task

SANDBOXES = ("none", "docker")
INFRA_OUTCOMES = ("infra_error", "infra_timeout", "hung")


class SandboxInfraError(RuntimeError):
    """The sandbox itself failed (infra_error, infra_timeout) or a container would not stop (hung): not the
    agent's doing; the attempt is not graded, is recorded without a result, and may be retried."""

    def __init__(self, message: str, outcome: str = "infra_error", profile_hash: str | None = None,
                 seconds: float | None = None) -> None:
        super().__init__(message)
        self.outcome = outcome
        self.profile_hash = profile_hash
        self.seconds = seconds


@dataclass(frozen=True)
class AttemptOptions:
    sandbox: str = "none"
    gateway: str | None = None         # --gateway URL: the allow-list gateway (docker only)
    pass_env: tuple[str, ...] = ()     # --pass-env NAME: variables passed through by name (docker only)


@dataclass
class PreparedAgent:
    """One agent, ready to attempt tasks: its recorded driver name and, in a sandbox, its setup and profile."""

    spec: str
    driver: str
    sandbox: str
    setup: Any = None                  # grader.sandbox.AgentSetup (docker)
    docker_client: Any = None

    @property
    def profile_hash(self) -> str | None:
        return self.setup.profile.digest() if self.setup is not None else None

    @property
    def model(self) -> Any:
        return self.setup.model if self.setup is not None else None


@dataclass
class Filled:
    outcome: str = "completed"
    driver: str = ""
    profile_hash: str | None = None
    usage: Any = None                  # grader.sandbox.Usage: token counts, cost, tool calls (NULL when absent)
    model: Any = None
    warnings: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


def prepare_agent(spec: str, options: AttemptOptions, docker_client: Any = None) -> PreparedAgent:
    """Check the driver and the options before any work; with docker, fix the agent's profile."""
    driver, _ = resolve_driver(spec)
    if options.sandbox == "none":
        if driver.name == "command":
            raise DriverError(f"{spec}: a real agent runs only in a container: add --sandbox docker")
        if options.gateway or options.pass_env:
            raise DriverError("--gateway and --pass-env need --sandbox docker")
        return PreparedAgent(spec, spec, "none")
    if options.sandbox != "docker":
        raise ValueError(f"unknown sandbox {options.sandbox!r} (known: {', '.join(SANDBOXES)})")
    import docker

    from .sandbox import GatewayError, ImageError, SandboxError, agent_setup, client, parse_gateway

    try:
        gateway = parse_gateway(options.gateway) if options.gateway else None
    except GatewayError as exc:
        raise DriverError(f"--gateway: {exc}") from None
    try:
        docker_client = docker_client or client()
        setup = agent_setup(spec, docker_client, gateway=gateway, pass_env=options.pass_env)
    except docker.errors.ImageNotFound as exc:
        raise DriverError(f"{spec}: the agent's image is not on this machine: {exc.explanation}") from None
    except (SandboxError, ImageError, docker.errors.DockerException) as exc:
        raise SandboxInfraError(f"sandbox infra_error: {exc}") from None
    return PreparedAgent(spec, setup.driver, "docker", setup, docker_client)


def _redact(text: str, secrets: dict[str, str]) -> str:
    for name, value in sorted(secrets.items()):
        if len(value) >= 4:
            text = text.replace(value, f"[{name} redacted]")
    return text


def fill_workspace(task: Task, workspace: Path, agent: PreparedAgent, attempt_id: str) -> Filled:
    """Run the agent's driver into `workspace`; with docker, write sandbox.json and agent.log beside it."""
    if agent.sandbox == "none":
        prepare_workspace(task, workspace, agent.spec)
        return Filled(driver=agent.driver)
    from .sandbox import run_driver

    setup = agent.setup
    sandboxed = run_driver(task, workspace, setup, attempt_id=attempt_id, docker_client=agent.docker_client)
    secrets = {n: setup.environment[n] for n in setup.secrets if n in setup.environment}
    (workspace.parent / "sandbox.json").write_text(json.dumps(
        sandboxed.summary() | {"profile": sandboxed.profile, "agent": setup.record()}, sort_keys=True, indent=1)
        + "\n")
    (workspace.parent / "agent.log").write_text(_redact(sandboxed.logs, secrets))
    if sandboxed.outcome in INFRA_OUTCOMES:
        raise SandboxInfraError(f"sandbox {sandboxed.outcome}: {sandboxed.detail}", sandboxed.outcome,
                                sandboxed.profile_hash, sandboxed.wall_seconds)
    usage = sandboxed.usage
    return Filled(sandboxed.outcome, agent.driver, sandboxed.profile_hash, usage, setup.model, list(usage.warnings),
                  {"outcome": sandboxed.outcome, "profile_hash": sandboxed.profile_hash,
                   "usage": usage.as_dict()})
