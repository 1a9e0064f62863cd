"""Filling an attempt's workspace: the driver runs on this machine (`none`) or in a hardened container
(`docker`).  One function for `grader attempt` and `grader run`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .drivers import prepare_workspace, resolve_driver
from .tasks import Task

SANDBOXES = ("none", "docker")


class SandboxInfraError(RuntimeError):
    """The sandbox itself failed (infra_error) or a container would not stop (hung): not the agent's doing."""


@dataclass
class Filled:
    outcome: str = "completed"
    extra: dict[str, Any] = field(default_factory=dict)


def fill_workspace(task: Task, workspace: Path, agent: str, sandbox: str, attempt_id: str) -> Filled:
    """Run the agent driver into `workspace`; with `docker`, write sandbox.json beside the workspace."""
    resolve_driver(agent)
    if sandbox == "none":
        prepare_workspace(task, workspace, agent)
        return Filled()
    if sandbox != "docker":
        raise ValueError(f"unknown sandbox {sandbox!r} (known: {', '.join(SANDBOXES)})")
    from .sandbox import run_driver

    sandboxed = run_driver(task, workspace, agent, attempt_id=attempt_id)
    (workspace.parent / "sandbox.json").write_text(json.dumps(
        sandboxed.summary() | {"profile": sandboxed.profile}, sort_keys=True, indent=1) + "\n")
    if sandboxed.outcome in ("infra_error", "hung"):
        raise SandboxInfraError(f"sandbox {sandboxed.outcome}: {sandboxed.detail}")
    return Filled(sandboxed.outcome, {"outcome": sandboxed.outcome, "profile_hash": sandboxed.profile_hash})
