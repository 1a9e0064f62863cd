"""Running a game in its own process, with a wall-clock kill: cold (a fresh Python) or forked from a pre-booted engine.

Both ways run `serve_request` after the same steps (engine/_zygote.py explains why the evidence cannot tell them
apart); `start` (or $GRADER_ENGINE_START) picks one: `prebooted` (the default) or `cold`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._errors import BadInputError, EngineError
from ._scripted_input import input_schedule
from ._settings import EngineSettings

if TYPE_CHECKING:
    from ._engine import BootedState

OUTCOMES = ("clean", "lua_error", "missing_api", "budget", "memory", "timeout")
START_MODES = ("prebooted", "cold")
START_ENV = "GRADER_ENGINE_START"


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

    @classmethod
    def from_json(cls, text: str) -> RunRequest:
        return cls(**json.loads(text))


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
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    return env


def start_mode(start: str | None = None) -> str:
    """`start`, else $GRADER_ENGINE_START, else `prebooted`; BadInputError names the known modes."""
    mode = start or os.environ.get(START_ENV, "").strip() or "prebooted"
    if mode not in START_MODES:
        raise BadInputError(f"engine start '{mode}' is unknown (known: {', '.join(START_MODES)}; ${START_ENV})")
    return mode


def _timeout_report(limit: float) -> dict[str, Any]:
    return {"outcome": "timeout", "frames": None, "sim_seconds": None, "errors": [
        {"message": f"killed after {limit:g} s of wall time", "frame": None, "phase": "wall"}],
        "log": [], "missing_api": [], "requirements": []}


def prestart() -> None:
    """Start this process's pre-booted engine now (the runs of `run_in_subprocess` fork from it)."""
    from ._zygote import shared_zygote

    shared_zygote(pinned_environment()).start()


def run_in_subprocess(request: RunRequest, wall_seconds: float | None = None,
                      start: str | None = None) -> dict[str, Any]:
    """Run `request` in a process of its own; one past its wall time is killed (outcome 'timeout').

    `start`: `prebooted` forks the run from this process's pre-booted engine (engine/_zygote.py), `cold` starts
    `python -m engine _worker`; the report is the same.  BadInputError for a request the engine refuses,
    EngineError when the run's process died.
    """
    settings = EngineSettings(**(request.settings or {}))
    limit = wall_seconds if wall_seconds is not None else settings.wall_seconds
    mode = start_mode(start)
    env = pinned_environment()
    with tempfile.TemporaryDirectory(prefix="grader-run-") as tmp:
        folder = Path(tmp)
        result_path = folder / "result.json"
        if mode == "cold":
            cmd = [sys.executable, "-m", "engine", "_worker", str(result_path)]
            try:
                proc = subprocess.run(
                    cmd, input=request.to_json(), capture_output=True, text=True, env=env, timeout=limit,
                    cwd=tmp, check=False,
                )
            except subprocess.TimeoutExpired:
                return _timeout_report(limit)
            code, stderr = proc.returncode, proc.stderr
        else:
            from ._zygote import shared_zygote

            (folder / "request.json").write_text(request.to_json())
            end = shared_zygote(env).run(tmp, limit)
            if end.timed_out:
                return _timeout_report(limit)
            code = end.code
            stderr = (folder / "stderr").read_text(errors="replace") if (folder / "stderr").exists() else ""
        if code == 2:
            last = stderr.strip().splitlines()[-1] if stderr.strip() else "bad input"
            raise BadInputError(last.removeprefix("Error: "))
        if not result_path.exists():
            raise EngineError(f"engine worker died (exit {code}): {stderr.strip()[-2000:]}")
        return dict(json.loads(result_path.read_text()))


def execute(request: RunRequest, booted: BootedState | None = None) -> dict[str, Any]:
    """Run a request in this process (the worker's body); `booted`: a state from boot_state() to configure."""
    from ._engine import Engine

    settings = EngineSettings(**(request.settings or {}))
    engine = Engine(Path(request.game_dir), settings, [Path(p) for p in request.lib_dirs], request.entry,
                    booted=booted)
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


def serve_request(booted: BootedState, request: RunRequest, result_path: str) -> int:
    """The last steps of every run, cold or forked: settle Python's collector, run, write the report (exit code)."""
    from ._zygote import settle

    settle()
    try:
        report = execute(request, booted)
    except BadInputError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    Path(result_path).write_text(json.dumps(report, sort_keys=True))
    return 0


def worker_main(result_path: str) -> int:
    """Entry of `python -m engine _worker RESULT`: boots, reads a RunRequest from stdin, writes the report."""
    from ._engine import boot_state
    from ._zygote import settle

    booted = boot_state()
    settle()
    request = RunRequest.from_json(sys.stdin.read())
    return serve_request(booted, request, result_path)
