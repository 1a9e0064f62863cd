"""The grader's settings and limits: one table (name, default, help, scope) feeds the task model's defaults,
task.toml's `[limits]` overrides, the CLI listing (`grader settings`), the docs and the settings hash.

Scope `task`: a task may override the value in its task.toml `[limits]` under the same name.  Scope `grader`:
fixed for a grader installation (an edition pins its hash).  The engine's own settings are `engine.SETTINGS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine import SETTINGS as ENGINE_SETTINGS
from engine import EngineSettings, digest


@dataclass(frozen=True)
class GraderSetting:
    name: str
    default: int | float
    help: str
    scope: str = "grader"      # "task": overridable in task.toml [limits]; "grader": fixed per installation


SETTINGS: tuple[GraderSetting, ...] = (
    GraderSetting("max_files", 2000, "L0: most files a deliverable may hold", "task"),
    GraderSetting("max_file_bytes", 8 * 1024 * 1024, "L0: most bytes in one file", "task"),
    GraderSetting("max_total_bytes", 64 * 1024 * 1024, "L0: most bytes in all files", "task"),
    GraderSetting("agent_seconds", 1800.0, "the agent's time to work", "task"),
    GraderSetting("l2_sim_seconds", 60.0, "most simulated seconds the battery may run", "task"),
    GraderSetting("l2_wall_seconds", 120.0, "wall-clock kill of the L2 run", "task"),
    GraderSetting("memory_mb", 512, "Lua memory cap of the L2 run, in MiB", "task"),
    GraderSetting("infra_retries", 2, "times an attempt the sandbox failed is run again"),
    GraderSetting("board_root_seed", 20260101, "statistics' root seed when no edition is named"),
    GraderSetting("board_replicates", 10_000, "bootstrap replicates per board"),
    GraderSetting("sandbox_pids", 256, "agent container: most processes"),
    GraderSetting("sandbox_memory_bytes", 2 << 30, "agent container: memory (and memory+swap)"),
    GraderSetting("sandbox_nano_cpus", 2_000_000_000, "agent container: CPU, in billionths of a core"),
    GraderSetting("sandbox_tmp_bytes", 64 << 20, "agent container: size of the /tmp tmpfs"),
    GraderSetting("sandbox_home_bytes", 64 << 20, "agent container: size of the home tmpfs"),
)

BY_NAME: dict[str, GraderSetting] = {s.name: s for s in SETTINGS}
TASK_LIMITS: tuple[str, ...] = tuple(s.name for s in SETTINGS if s.scope == "task")


def default(name: str) -> Any:
    return BY_NAME[name].default


def settings_hash(engine: EngineSettings, limits: Mapping[str, Any]) -> str:
    """The digest of the effective settings of one grade: every engine setting (after the task's overrides), the
    task's limits (L0 and L2) and the grader-wide settings.  Two verdicts with equal hashes were produced under
    the same settings."""
    grader_wide = {s.name: s.default for s in SETTINGS if s.scope == "grader"}
    return digest({"format": "grader-settings/1", "engine": engine.as_dict(), "limits": dict(limits),
                   "grader": grader_wide})


def installation_settings_hash() -> str:
    """The digest of the defaults of both tables: what an edition pins about the settings (a task's overrides
    are pinned by its task_hash)."""
    return digest({"format": "grader-installation-settings/1",
                   "engine": {s.name: s.default for s in ENGINE_SETTINGS},
                   "grader": {s.name: s.default for s in SETTINGS}})
