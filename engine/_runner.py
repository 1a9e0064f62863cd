"""Running a game in a fresh, pinned subprocess with a wall-clock kill, and the worker it runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._errors import BadInputError, EngineError
from ._settings import EngineSettings

OUTCOMES = ("clean", "lua_error", "missing_api", "budget", "memory", "timeout")


@dataclass(frozen=True)
class RunRequest:
    """Everything a worker needs; serialised as JSON to the child process."""

    game_dir: str
    seconds: float = 10.0
    battery: str | None = None
    lib_dirs: tuple[str, ...] = ()
    entry: str = "scripts/main.lua"
    scripted_input: bool = False
    dump: bool = False
    settings: dict[str, Any] | None = None
    requirements: list[dict[str, Any]] | None = None   # the battery's manifest (Engine.run_battery)

    def to_json(self) -> str:
        return json.dumps(self.__dict__, sort_keys=True)


def pinned_environment() -> dict[str, str]:
    """The child's whole environment: nothing from the caller that could change behaviour."""
    env = {
        "PYTHONHASHSEED": "0",
        "TZ": "UTC",
        "LC_ALL": "C",
        "LANG": "C",
        "PATH": os.defpath,
        "PYTHONDONTWRITEBYTECODE": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def run_in_subprocess(request: RunRequest, wall_seconds: float | None = None) -> dict[str, Any]:
    """Run `request` in `python -m engine _worker`; a run past its wall time is killed (outcome 'timeout')."""
    settings = EngineSettings(**(request.settings or {}))
    limit = wall_seconds if wall_seconds is not None else settings.wall_seconds
    package_root = str(Path(__file__).resolve().parent.parent)
    env = pinned_environment()
    env["PYTHONPATH"] = package_root
    with tempfile.TemporaryDirectory(prefix="grader-run-") as tmp:
        result_path = Path(tmp) / "result.json"
        cmd = [sys.executable, "-m", "engine", "_worker", str(result_path)]
        try:
            proc = subprocess.run(
                cmd, input=request.to_json(), capture_output=True, text=True, env=env, timeout=limit,
                cwd=tmp, check=False,
            )
        except subprocess.TimeoutExpired:
            return {"outcome": "timeout", "frames": None, "sim_seconds": None, "errors": [
                {"message": f"killed after {limit:g} s of wall time", "frame": None, "phase": "wall"}],
                "log": [], "missing_api": [], "requirements": []}
        if proc.returncode == 2:
            last = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "bad input"
            raise BadInputError(last.removeprefix("Error: "))
        if not result_path.exists():
            raise EngineError(f"engine worker died (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
        return dict(json.loads(result_path.read_text()))


def execute(request: RunRequest) -> dict[str, Any]:
    """Run a request in this process (the worker's body)."""
    from ._engine import Engine
    from ._scripted_input import input_schedule

    settings = EngineSettings(**(request.settings or {}))
    engine = Engine(Path(request.game_dir), settings, [Path(p) for p in request.lib_dirs], request.entry)
    if request.battery:
        battery = Path(request.battery)
        if not battery.is_file():
            raise BadInputError(f"{battery}: battery file not found")
        engine.run_battery(battery.read_text(encoding="utf-8"), f"battery/{battery.name}", request.requirements)
    else:
        engine.start()
        frames = round(request.seconds / settings.time_step)
        if request.scripted_input:
            schedule = input_schedule(settings.seed, frames, settings.screen_width, settings.screen_height)
            for frame in range(frames):
                for event in schedule.get(frame, []):
                    engine.queue_input(event)
                engine.run_frames(1)
        else:
            engine.run_frames(frames)
    report = engine.report().as_dict()
    report["requirements"] = engine.requirements()
    if request.dump:
        report["scene"] = engine.scene_dump()
    return report


def worker_main(result_path: str) -> int:
    """Entry of `python -m engine _worker RESULT`: reads a RunRequest from stdin, writes the report."""
    try:
        request = RunRequest(**json.loads(sys.stdin.read()))
        report = execute(request)
    except BadInputError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    Path(result_path).write_text(json.dumps(report, sort_keys=True))
    return 0
