"""L2: the game runs headless in a fresh engine process and the task's battery decides."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import BadInputError, EngineError, RunRequest, run_in_subprocess
from grader.tasks import Task

LIMIT_OUTCOMES = ("budget", "memory", "timeout")


@dataclass(frozen=True)
class L2Result:
    passed: bool
    outcome: str
    requirements: list[dict[str, Any]] = field(default_factory=list)
    frames: int | None = None
    sim_seconds: float | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)
    missing_api: list[str] = field(default_factory=list)
    platform: dict[str, Any] = field(default_factory=dict)

    def checks(self) -> list[dict[str, Any]]:
        """Every check, flattened, with its requirement and capabilities."""
        out = []
        for req in self.requirements:
            for check in req["checks"]:
                out.append({
                    "requirement": req["id"], "capabilities": req["capabilities"], "layer": req["layer"],
                    "name": check["name"], "passed": check["passed"], "expected": check.get("expected"),
                    "actual": check.get("actual"), "frame": check.get("frame"), "message": check.get("message"),
                })
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed, "outcome": self.outcome, "frames": self.frames, "sim_seconds": self.sim_seconds,
            "requirements": [
                {"id": r["id"], "layer": r["layer"], "capabilities": r["capabilities"], "passed": r["passed"],
                 "description": r.get("description", "")}
                for r in self.requirements
            ],
            "checks": self.checks(), "errors": self.errors, "missing_api": self.missing_api,
            "platform": self.platform,
        }


def engine_settings(task: Task) -> dict[str, Any]:
    return {
        "memory_limit": task.limits.memory_mb * 1024 * 1024,
        "wall_seconds": task.limits.l2_wall_seconds,
        "sim_seconds_limit": task.limits.l2_sim_seconds,
        "screen_width": task.screen.width,
        "screen_height": task.screen.height,
        "dpr": task.screen.dpr,
        "services": task.services,
    }


def _errors_for_evidence(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"message": e.get("message", ""), "frame": e.get("frame"), "phase": e.get("phase"),
             "traceback": e.get("traceback", "")} for e in errors]


def _with_unreached(reported: list[dict[str, Any]], manifest: list[dict[str, Any]],
                    frame: int | None) -> list[dict[str, Any]]:
    """Every requirement of the manifest, in its order: one the battery never declared (it stopped first, for
    whatever reason the game gave it) fails with a named check rather than dropping out of the verdict."""
    if not manifest:
        return reported
    by_id = {r["id"]: r for r in reported}
    out = []
    for spec in manifest:
        req = by_id.get(spec["id"])
        if req is None:
            req = {**spec, "passed": False, "checks": [{
                "name": "requirement reached", "passed": False, "expected": True, "actual": False, "frame": frame,
                "message": "the battery ended before it checked this requirement"}]}
        out.append(req)
    return out


def run_l2(task: Task, deliverable: Path, lib_dirs: tuple[str, ...] = ()) -> L2Result:
    """Run the battery against the deliverable; agent crashes, hangs and limits are recorded outcomes."""
    manifest = [r.as_dict() for r in task.requirements]
    request = RunRequest(
        game_dir=str(Path(deliverable).resolve()), battery=str(task.paths.battery_main.resolve()),
        lib_dirs=lib_dirs, entry=task.entry, settings=engine_settings(task), requirements=manifest,
    )
    try:
        report = run_in_subprocess(request)
    except BadInputError as exc:
        return L2Result(False, "not_run", errors=[{"message": str(exc), "frame": None, "phase": "setup",
                                                   "traceback": ""}])
    except EngineError as exc:
        return L2Result(False, "crash", errors=[{"message": str(exc)[-2000:], "frame": None, "phase": "engine",
                                                "traceback": ""}])
    requirements = report.get("requirements") or []
    for req in requirements:
        req["capabilities"] = req.get("capabilities") or []
        req["checks"] = req.get("checks") or []
    requirements = _with_unreached(requirements, manifest, report.get("frames"))
    completeness = [r for r in requirements if r["layer"] == "completeness"]
    passed = (report["outcome"] not in LIMIT_OUTCOMES and bool(completeness)
              and all(r["passed"] for r in completeness))
    return L2Result(
        passed=passed, outcome=report["outcome"], requirements=requirements, frames=report.get("frames"),
        sim_seconds=report.get("sim_seconds"), errors=_errors_for_evidence(report.get("errors") or []),
        missing_api=report.get("missing_api") or [],
        platform=report.get("platform") or {"calls": [], "dropped": 0},
    )
