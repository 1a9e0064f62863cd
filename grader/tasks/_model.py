"""Typed models of a suite and a task (task.toml), and the task folder's paths."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evidence import HELD_OUT_PREFIX, Layer
from grader._settings import TASK_LIMITS, default

if TYPE_CHECKING:
    from ._params import ParamSpec


class Difficulty(StrEnum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class Visibility(StrEnum):
    PUBLIC = "public"
    HELD_OUT = "held-out"


@dataclass(frozen=True)
class TaskPaths:
    """The folders and files of one task.

    <task-id>/
      task.toml       metadata and limits
      prompt.md       all the agent is told
      workspace/      copied into the agent's workspace
      battery/        main.lua and data: the grading surface, never shown to the agent
        requirements.toml  the battery's requirement manifest: id, layer, capabilities, description
        platform.toml   optional: the platform-service fakes' world (docs/platform.md)
        params.toml     optional: the task's parameters, drawn per seed (grader/tasks/_params.py)
      solutions/      oracle/, wrong-*.patch (against oracle/), expect.toml: the battery's own tests
    """

    root: Path

    @property
    def task_toml(self) -> Path:
        return self.root / "task.toml"

    @property
    def prompt(self) -> Path:
        return self.root / "prompt.md"

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def battery(self) -> Path:
        return self.root / "battery"

    @property
    def battery_main(self) -> Path:
        return self.battery / "main.lua"

    @property
    def requirements(self) -> Path:
        return self.battery / "requirements.toml"

    @property
    def platform(self) -> Path:
        return self.battery / "platform.toml"

    @property
    def params(self) -> Path:
        return self.battery / "params.toml"

    @property
    def solutions(self) -> Path:
        return self.root / "solutions"

    @property
    def oracle(self) -> Path:
        return self.solutions / "oracle"

    @property
    def expect(self) -> Path:
        return self.solutions / "expect.toml"


def _default(name: str) -> Any:
    return field(default_factory=lambda: default(name))


@dataclass(frozen=True)
class Limits:
    """A task's limits: the grader's `task`-scope settings (grader/_settings.py), each overridable by the same
    name in task.toml's [limits]."""

    max_files: int = _default("max_files")
    max_file_bytes: int = _default("max_file_bytes")
    max_total_bytes: int = _default("max_total_bytes")
    agent_seconds: float = _default("agent_seconds")
    l2_sim_seconds: float = _default("l2_sim_seconds")
    l2_wall_seconds: float = _default("l2_wall_seconds")
    memory_mb: int = _default("memory_mb")

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in TASK_LIMITS}


@dataclass(frozen=True)
class Screen:
    width: int = 1280
    height: int = 720
    dpr: float = 1.0


@dataclass(frozen=True)
class Network:
    """task.toml [network]: the roles of the L2 run (docs/tasks.md): 0 clients is a standalone run."""

    clients: int = 0
    latency_frames: int = 0
    late_clients: int = 0   # the last N clients start when the battery joins them (h.join)


@dataclass(frozen=True)
class RequirementSpec:
    """One requirement of a battery's manifest: the battery must declare exactly these, and one it never reaches
    fails."""

    id: str
    layer: Layer
    capabilities: tuple[str, ...]
    description: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "layer": self.layer.value, "capabilities": list(self.capabilities),
                "description": self.description}


@dataclass(frozen=True)
class Task:
    id: str
    title: str
    category: str
    difficulty: Difficulty
    capabilities: tuple[str, ...]
    entry: str
    required: tuple[str, ...]
    limits: Limits
    screen: Screen
    paths: TaskPaths
    suite: str
    services: str = "{}"   # the engine's `services` setting: canonical JSON of battery/platform.toml
    network: Network = Network()   # task.toml [network]: the engine's net_clients and net_latency_frames
    requirements: tuple[RequirementSpec, ...] = ()   # battery/requirements.toml, in file order
    heldout: bool = False  # of a held-out suite: known outside its folder only by its hash (qualified_id)
    param_specs: tuple[ParamSpec, ...] = ()   # battery/params.toml, in file order
    params: str = "{}"     # the drawn values, canonical JSON: the engine's battery_params setting
    params_seed: str | None = None   # what drew them (None: given, e.g. by a recorded verdict)

    @functools.cached_property
    def qualified_id(self) -> str:
        """`suite/id`; for a held-out task `held-out/<first 16 hex digits of its task_hash>`, the only name the
        grader prints, records in the ledger and its verdicts, or gives its run folders (design: nothing about a
        held-out suite is printed, logged in clear or published)."""
        if self.heldout:
            from ._hash import task_hash

            return f"{HELD_OUT_PREFIX}/{task_hash(self)[:16]}"
        return f"{self.suite}/{self.id}"


@dataclass(frozen=True)
class Suite:
    name: str
    version: str
    visibility: Visibility
    root: Path
    tasks: tuple[Task, ...] = field(default=())
