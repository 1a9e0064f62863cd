"""The built-in drivers (oracle, nop, replay:DIR) through the same container path as a real agent."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grader.drivers import _copy_tree, staging_source
from grader.tasks import Task

from .backend import Profile, SandboxResult, run_in_sandbox

COPY_STAGE = ["sh", "-c", "cp -R /stage/. /workspace/"]
NOTHING = ["true"]


def run_driver(task: Task, workspace: Path, spec: str, *, profile: Profile | None = None,
               attempt_id: str | None = None, time_limit: float | None = None,
               docker_client: Any | None = None, command: Sequence[str] | None = None) -> SandboxResult:
    """A fresh copy of the task's workspace/ in `workspace`, the driver run in a container over it (`command`
    replaces the driver's own command but keeps its mounts: the tests search the filesystem with it)."""
    stage = staging_source(task, spec)
    workspace.mkdir(parents=True, exist_ok=False)
    _copy_tree(task.paths.workspace, workspace)
    command = command or (COPY_STAGE if stage else NOTHING)
    return run_in_sandbox(workspace, command, prompt=task.paths.prompt, stage=stage,
                          time_limit=time_limit if time_limit is not None else task.limits.agent_seconds,
                          profile=profile, attempt_id=attempt_id, docker_client=docker_client)
