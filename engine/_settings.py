"""Engine settings and limits: one table (name, default, help) feeds the CLI, the docs and the pinned profile."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    help: str


SETTINGS: tuple[Setting, ...] = (
    Setting("time_step", 1 / 60, "fixed simulated seconds per frame"),
    Setting("instruction_budget", 2_000_000_000,
            "game-code Lua instructions a run may execute, as the VM counts them: a loop iteration counts its "
            "body's instructions, a call of a game function 4 (docs/engine-runs.md)"),
    Setting("memory_limit", 512 * 1024 * 1024, "bytes of Lua memory a run may hold"),
    Setting("file_read_budget", 1024 * 1024 * 1024,
            "bytes of the game folder's files a run may read in all (each read of a file counts its size; "
            "the folder itself may be any size: files are read when the game opens them)"),
    Setting("files_held_limit", 256 * 1024 * 1024,
            "bytes of the game folder's files a run may hold at once: open File objects and the XML, JSON "
            "and model resources loaded from them"),
    Setting("wall_seconds", 120.0, "wall-clock seconds before the run's process is killed"),
    Setting("sim_seconds_limit", 3600.0, "most simulated seconds a run (or its battery) may advance"),
    Setting("seed", 20261201, "seed of math.random and of Urho3D's Random()"),
    Setting("epoch", 1767225600, "os.time() at frame 0 (seconds since 1970, UTC)"),
    Setting("screen_width", 1280, "graphics width in pixels"),
    Setting("screen_height", 720, "graphics height in pixels"),
    Setting("dpr", 1.0, "device pixel ratio reported by graphics:GetDPR()"),
    Setting("safe_area", (0, 0, 0, 0), "safe-area insets (left, top, right, bottom) in pixels"),
    Setting("platform", "Android", "what GetPlatform() reports"),
    Setting("services", "{}", "the platform-service fakes' world as JSON (docs/platform.md); {} = defaults"),
    Setting("net_clients", 0, "client roles joined to a server role in one run (0: standalone, no roles; "
            "docs/platform.md)"),
    Setting("net_latency_frames", 0, "frames a network message takes between roles beyond the next frame"),
    Setting("net_late_clients", 0, "the last N client roles start only when the battery joins them (h.join)"),
    Setting("battery_params", "{}", "the task's parameter values as a JSON object, read by the battery with "
            "harness.params() (docs/tasks.md, parameters)"),
)


@dataclass(frozen=True)
class EngineSettings:
    time_step: float = 1 / 60
    instruction_budget: int = 2_000_000_000
    memory_limit: int = 512 * 1024 * 1024
    file_read_budget: int = 1024 * 1024 * 1024
    files_held_limit: int = 256 * 1024 * 1024
    wall_seconds: float = 120.0
    sim_seconds_limit: float = 3600.0
    seed: int = 20261201
    epoch: int = 1767225600
    screen_width: int = 1280
    screen_height: int = 720
    dpr: float = 1.0
    safe_area: tuple[int, int, int, int] = (0, 0, 0, 0)
    platform: str = "Android"
    services: str = "{}"
    net_clients: int = 0
    net_latency_frames: int = 0
    net_late_clients: int = 0
    battery_params: str = "{}"

    def with_overrides(self, **overrides: Any) -> EngineSettings:
        known = {f.name for f in fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ValueError(f"unknown engine setting(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        return replace(self, **overrides)

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _check_table_matches() -> None:
    declared = {s.name: s.default for s in SETTINGS}
    actual = EngineSettings().as_dict()
    if declared != actual:
        raise RuntimeError("engine settings table and EngineSettings disagree")


_check_table_matches()
