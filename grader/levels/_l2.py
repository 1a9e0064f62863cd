"""L2: the game runs headless in a fresh engine process and the task's battery decides."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from engine import BadInputError, EngineError, EngineSettings, RunRequest, run_in_subprocess
from evidence import (
    Check,
    EngineOutcome,
    EngineReport,
    ErrorRecord,
    L2Result,
    Layer,
    RequirementResult,
)
from grader.tasks import RequirementSpec, Task


def engine_settings(task: Task) -> EngineSettings:
    """The engine's settings for this task's L2 run: the defaults with the task's limits and screen."""
    return EngineSettings().with_overrides(
        memory_limit=task.limits.memory_mb * 1024 * 1024, wall_seconds=task.limits.l2_wall_seconds,
        sim_seconds_limit=task.limits.l2_sim_seconds, screen_width=task.screen.width,
        screen_height=task.screen.height, dpr=task.screen.dpr, services=task.services,
        net_clients=task.network.clients, net_latency_frames=task.network.latency_frames,
        net_late_clients=task.network.late_clients, battery_params=task.params)


# the settings a task decides; the rest stay the engine's defaults (engine_settings has them all)
TASK_SETTINGS = ("memory_limit", "wall_seconds", "sim_seconds_limit", "screen_width", "screen_height", "dpr",
                 "services", "net_clients", "net_latency_frames", "net_late_clients", "battery_params")
LOWERABLE_LIMITS = ("instruction_budget", "memory_limit")


def _with_unreached(reported: tuple[RequirementResult, ...], manifest: tuple[RequirementSpec, ...],
                    frame: int | None) -> tuple[RequirementResult, ...]:
    """Every requirement of the manifest, in its order: one the battery never declared (it stopped first, for
    whatever reason the game gave it) fails with a named check rather than dropping out of the verdict."""
    if not manifest:
        return reported
    by_id = {r.id: r for r in reported}
    out = []
    for spec in manifest:
        req = by_id.get(spec.id)
        if req is None:
            req = RequirementResult(spec.id, spec.layer, spec.capabilities, False, spec.description, (Check(
                "requirement reached", False, expected=True, actual=False, frame=frame,
                message="the battery ended before it checked this requirement"),))
        out.append(req)
    return tuple(out)


def judge(report: EngineReport, manifest: tuple[RequirementSpec, ...] = ()) -> L2Result:
    """The battery's verdict on a run: pass when no limit was hit and every completeness requirement passed."""
    requirements = _with_unreached(report.requirements, manifest, report.frames)
    completeness = [r for r in requirements if r.layer is Layer.COMPLETENESS]
    passed = not report.outcome.hit_limit and bool(completeness) and all(r.passed for r in completeness)
    return L2Result(passed=passed, outcome=report.outcome, requirements=requirements, frames=report.frames,
                    sim_seconds=report.sim_seconds, errors=report.errors, missing_api=report.missing_api,
                    platform=report.platform)


def not_run(outcome: EngineOutcome, message: str, phase: str) -> L2Result:
    return L2Result(False, outcome, errors=(ErrorRecord(message, None, phase, ""),))


def run_l2(task: Task, deliverable: Path, lib_dirs: tuple[str, ...] = (), *, start: str | None = None,
           lowered_limits: Mapping[str, int] | None = None) -> L2Result:
    """Run the battery against the deliverable; agent crashes, hangs and limits are recorded outcomes.

    `start`: the engine's start mode (engine/_runner.py; the evidence is the same either way). `lowered_limits`:
    engine limits (`instruction_budget`, `memory_limit`) set below the task's, for tests and benches that drive
    runs into a limit without paying for the real one; raising a limit this way is refused.
    """
    settings = {k: getattr(engine_settings(task), k) for k in TASK_SETTINGS}
    for name, value in (lowered_limits or {}).items():
        if name not in LOWERABLE_LIMITS or value > getattr(engine_settings(task), name):
            raise ValueError(f"lowered_limits: {name}={value} does not lower one of {', '.join(LOWERABLE_LIMITS)}")
        settings[name] = value
    request = RunRequest(
        game_dir=str(Path(deliverable).resolve()), battery=str(task.paths.battery_main.resolve()),
        lib_dirs=lib_dirs, entry=task.entry, settings=settings,
        requirements=[r.as_dict() for r in task.requirements],
    )
    try:
        report = EngineReport.from_json(run_in_subprocess(request, start=start))
    except BadInputError as exc:
        return not_run(EngineOutcome.NOT_RUN, str(exc), "setup")
    except EngineError as exc:
        return not_run(EngineOutcome.CRASH, str(exc)[-2000:], "engine")
    return judge(report, task.requirements)
