"""Typed models of a suite and a task (task.toml), and the task folder's paths."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path


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
        platform.toml   optional: the platform-service fakes' world (docs/platform.md)
      solutions/      oracle/, wrong-*/, expect.toml: the battery's own tests
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
    def platform(self) -> Path:
        return self.battery / "platform.toml"

    @property
    def solutions(self) -> Path:
        return self.root / "solutions"

    @property
    def oracle(self) -> Path:
        return self.solutions / "oracle"

    @property
    def expect(self) -> Path:
        return self.solutions / "expect.toml"

    def wrong_solutions(self) -> list[Path]:
        if not self.solutions.is_dir():
            return []
        return sorted(p for p in self.solutions.iterdir() if p.is_dir() and p.name.startswith("wrong-"))


@dataclass(frozen=True)
class Limits:
    agent_seconds: float = 1800.0
    l2_sim_seconds: float = 60.0
    l2_wall_seconds: float = 120.0
    memory_mb: int = 512


@dataclass(frozen=True)
class Screen:
    width: int = 1280
    height: int = 720
    dpr: float = 1.0


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

    @property
    def qualified_id(self) -> str:
        return f"{self.suite}/{self.id}"


@dataclass(frozen=True)
class Suite:
    name: str
    version: str
    visibility: Visibility
    root: Path
    tasks: tuple[Task, ...] = field(default=())
