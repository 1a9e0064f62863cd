"""Agent drivers in the container: the built-in ones (oracle, nop, replay:DIR), `command:AGENT.toml` (a real agent
in its own image) and `loop` (the agent loop that ships with the grader, driving a models.toml entry) run through
the same container path."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.drivers import DriverError, copy_tree, resolve_driver
from grader.models_file import ModelEntry, load_model
from grader.tasks import Task, prompt_file, workspace_folder

from .agent import AgentConfig, AgentConfigError, ModelInfo, check_env_names, load_agent_config, passed_environment
from .backend import ImageVolumesError, Limits, Profile, SandboxError, SandboxResult, default_profile, run_in_sandbox
from .gateway import Gateway
from .quota import can_mount

COPY_STAGE = ["sh", "-c", "cp -R /stage/. /workspace/"]
_NO_KEY = Gateway("http://unused/", ())
NOTHING = ["true"]


@dataclass(frozen=True)
class AgentSetup:
    """How one agent runs, whatever the task: its recorded driver name, profile, command and environment.
    `environment` may hold secrets (--pass-env): it is passed to the container and never written anywhere."""

    spec: str
    driver: str
    profile: Profile
    command: tuple[str, ...] | None = None
    environment: dict[str, str] = field(default_factory=dict, repr=False)
    secrets: tuple[str, ...] = ()
    model: ModelInfo | None = None
    config: AgentConfig | None = None

    def record(self) -> dict[str, Any]:
        """What sandbox.json keeps of the setup: names of the passed variables, never their values."""
        out: dict[str, Any] = {"driver": self.driver, "pass_env": list(self.secrets)}
        if self.config is not None:
            out |= {"command": list(self.config.command), "image": self.config.image, "env": dict(self.config.env),
                    "config": self.config.source}
        elif self.command:
            out |= {"command": list(self.command), "image": self.profile.image}
        return out


def agent_setup(spec: str, docker_client: Any, *, gateway: Gateway | None = None, pass_env: Sequence[str] = (),
                limits: Limits | None = None, model: ModelEntry | None = None) -> AgentSetup:
    """Resolve a driver spec (oracle | nop | replay:DIR | command:AGENT.toml | loop[:MODELS.toml#KEY]) into its
    setup; `gateway` and `pass_env` come from the command line and add to (or, for the gateway, replace) the agent
    file's; `model` is the plan's entry a bare `loop` drives."""
    driver, arg = resolve_driver(spec)
    if can_mount():
        raise SandboxError(can_mount())
    if driver.drives_model:
        return _loop_setup(spec, load_model(arg) if arg else model, docker_client, gateway, pass_env, limits)
    try:
        names = check_env_names(list(pass_env), "--pass-env")
        config = load_agent_config(Path(arg)) if driver.own_image else None
        if config is not None:
            names = tuple(sorted({*names, *config.pass_env}))
        secrets = passed_environment(names)
        key_env = (gateway or (config.gateway if config else None) or _NO_KEY).key_env
        if key_env and not os.environ.get(key_env):
            raise AgentConfigError(f"the gateway's provider key {key_env} is not set in the grader's environment")
    except AgentConfigError as exc:
        raise DriverError(str(exc)) from None
    if config is None:
        return AgentSetup(spec, spec, default_profile(docker_client, limits, gateway), None, secrets, names)
    try:
        profile = default_profile(docker_client, limits or config.limits, gateway or config.gateway,
                                  image=config.image)
    except ImageVolumesError as exc:
        raise DriverError(f"{spec}: {exc}") from None
    return AgentSetup(spec, config.driver, profile, config.command, dict(config.env) | secrets, names,
                      config.model, config)


def _loop_setup(spec: str, entry: ModelEntry | None, docker_client: Any, gateway: Gateway | None,
                pass_env: Sequence[str], limits: Limits | None) -> AgentSetup:
    """The shipped agent loop in its image, driving `entry` through the gateway to the entry's endpoint."""
    from grader.agent_loop.image import loop_image
    from grader.agent_loop.setup import loop_command, loop_gateway

    if entry is None:
        raise DriverError(f"{spec}: the loop driver drives a model: loop:MODELS.toml#KEY (in an edition's "
                          f"models.toml: driver = \"loop\")")
    if entry.endpoint is None or entry.model is None:
        raise DriverError(f"{spec}: models.{entry.key} is driven by {entry.driver}, not by the loop (it has no "
                          f"[models.{entry.key}.endpoint])")
    if gateway is not None:
        raise DriverError(f"{spec}: --gateway: the loop reaches the endpoint.url of its model entry")
    try:
        names = check_env_names(list(pass_env), "--pass-env")
        if entry.endpoint.key_env in names:
            raise AgentConfigError(f"--pass-env {entry.endpoint.key_env}: the provider key never enters the "
                                   f"container (the gateway adds it)")
        secrets = passed_environment(names)
        if entry.endpoint.key_env and not os.environ.get(entry.endpoint.key_env):
            raise AgentConfigError(f"the gateway's provider key {entry.endpoint.key_env} is not set in the grader's "
                                   f"environment")
    except AgentConfigError as exc:
        raise DriverError(str(exc)) from None
    profile = default_profile(docker_client, limits, loop_gateway(entry), image=loop_image(docker_client))
    m = entry.model
    return AgentSetup(spec, "loop", profile, loop_command(entry), secrets, names,
                      ModelInfo(m.provider, m.name, m.version, m.reasoning_mode))


def run_driver(task: Task, workspace: Path, spec: str | AgentSetup, *, profile: Profile | None = None,
               attempt_id: str | None = None, time_limit: float | None = None,
               docker_client: Any | None = None, command: Sequence[str] | None = None,
               repetition: int = 0) -> SandboxResult:
    """A fresh copy of the task's workspace/ in `workspace`, the driver run in a container over it (`command`
    replaces the driver's own command but keeps its mounts: the tests search the filesystem with it)."""
    setup = spec if isinstance(spec, AgentSetup) else None
    driver, arg = resolve_driver(setup.spec if setup else str(spec))
    stage = driver.stage(task, arg, repetition)
    workspace.mkdir(parents=True, exist_ok=False)
    copy_tree(workspace_folder(task), workspace)
    own = list(setup.command) if setup and setup.command else (COPY_STAGE if stage else NOTHING)
    return run_in_sandbox(workspace, command or own, prompt=prompt_file(task), stage=stage,
                          time_limit=time_limit if time_limit is not None else task.limits.agent_seconds,
                          profile=profile or (setup.profile if setup else None), attempt_id=attempt_id,
                          docker_client=docker_client, environment=setup.environment if setup else None)
