"""The one attempt lifecycle, for `grader attempt`, `grader run` and editions: prepare the agent, fill the
workspace (its driver on this machine or in a hardened container), grade, write the attempt's folder, record it
in the ledger, and retry what the infrastructure failed.

    CLI -> run_attempts -> fill (driver, sandbox) -> grade (L0, L1, L2 -> engine) -> write (AttemptPaths)
        -> record (ledger) -> progress / summary

An infrastructure failure (infra_error, infra_timeout, hung) is recorded without a result and the attempt runs
again as the same repetition, up to `infra_retries` more times; agent outcomes are never retried.  Ctrl-C stops
between steps: what finished is recorded, the attempt under way is abandoned, and the result says so.  A run
writes its attempts in batches (grader.recording.Recorder), at most `record_delay` seconds behind the work.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evidence import AttemptOutcome, Level, Verdict

from ._settings import default
from .drivers import DriverError, prepare_workspace, resolve_driver
from .pipeline import GradeResult, grade
from .tasks import Task

SANDBOXES = ("none", "docker")


# --- folders ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AttemptPaths:
    """One attempt's folder.

    <attempt>/
      workspace/      the deliverable as the agent left it
      verdict.json    the verdict, canonical JSON (absent when the infrastructure failed the attempt)
      timings.json    wall seconds of the agent phase and of each level: beside the verdict, never inside
      sandbox.json    --sandbox docker: the container's outcome, profile, usage and the agent's setup
      agent.log       --sandbox docker: the agent's output, secrets redacted
    """

    root: Path

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def verdict(self) -> Path:
        return self.root / "verdict.json"

    @property
    def timings(self) -> Path:
        return self.root / "timings.json"

    @property
    def sandbox(self) -> Path:
        return self.root / "sandbox.json"

    @property
    def agent_log(self) -> Path:
        return self.root / "agent.log"

    def read_sandbox(self) -> dict[str, Any] | None:
        """What sandbox.json says (--sandbox docker), or None."""
        return dict(json.loads(self.sandbox.read_text())) if self.sandbox.is_file() else None

    def read_result(self) -> GradeResult:
        """The verdict and timings this attempt's folder holds."""
        return GradeResult(Verdict.from_json(self.verdict.read_text(encoding="utf-8")),
                           {str(k): float(v) for k, v in json.loads(self.timings.read_text()).items()})


def _slug(spec: str) -> str:
    """A folder name for an agent spec: readable, and unique per spec."""
    clean = re.sub(r"[^A-Za-z0-9._-]+", "_", spec).strip("_") or "agent"
    if clean == spec and len(spec) <= 48:
        return clean
    return f"{clean[:40]}-{hashlib.sha256(spec.encode()).hexdigest()[:8]}"


@dataclass(frozen=True)
class RunPaths:
    """A run's folder: every attempt of one `grader run` or `grader attempt`.

    runs/<run-id>/
      run.json                                what was run (agents, tasks, options) and, at the end, the summary
      <agent>/<suite>-<task>/r<rep>/          an attempt (AttemptPaths)
      <agent>/<suite>-<task>/r<rep>-retry<k>/ the k-th retry of a repetition the infrastructure failed
    """

    root: Path

    @property
    def run_id(self) -> str:
        return self.root.name

    @property
    def manifest(self) -> Path:
        return self.root / "run.json"

    def attempt(self, agent_spec: str, task: Task, repetition: int, retry: int = 0) -> AttemptPaths:
        name = f"r{repetition}" + (f"-retry{retry}" if retry else "")
        return AttemptPaths(self.root / _slug(agent_spec) / task.qualified_id.replace("/", "-") / name)


def new_run(runs_dir: Path) -> RunPaths:
    run = RunPaths(Path(runs_dir).resolve() / f"run-{uuid.uuid4().hex[:12]}")
    run.root.mkdir(parents=True, exist_ok=False)
    return run


# --- agents ----------------------------------------------------------------------------------------------------

class SandboxInfraError(RuntimeError):
    """The sandbox itself failed (infra_error, infra_timeout) or a container would not stop (hung): not the
    agent's doing; the attempt is not graded, is recorded without a result, and may be retried."""

    def __init__(self, message: str, outcome: AttemptOutcome = AttemptOutcome.INFRA_ERROR,
                 profile_hash: str | None = None, seconds: float | None = None) -> None:
        super().__init__(message)
        self.outcome = outcome
        self.profile_hash = profile_hash
        self.seconds = seconds


@dataclass(frozen=True)
class AttemptOptions:
    sandbox: str = "none"
    gateway: str | None = None         # --gateway URL: the allow-list gateway (docker only)
    pass_env: tuple[str, ...] = ()     # --pass-env NAME: variables passed through by name (docker only)


@dataclass
class PreparedAgent:
    """One agent, ready to attempt tasks: its recorded driver name and, in a sandbox, its setup and profile."""

    spec: str
    driver: str
    sandbox: str
    setup: Any = None                  # grader.sandbox.AgentSetup (docker)
    docker_client: Any = None

    @property
    def profile_hash(self) -> str | None:
        return self.setup.profile.digest() if self.setup is not None else None

    @property
    def model(self) -> Any:
        return self.setup.model if self.setup is not None else None


def prepare_agent(spec: str, options: AttemptOptions, docker_client: Any = None, model: Any = None) -> PreparedAgent:
    """Check the driver and the options before any work; with docker, fix the agent's profile.  `model`: the
    plan's entry (grader.models_file.ModelEntry), which a bare `loop` driver drives."""
    driver, _ = resolve_driver(spec)
    if options.sandbox == "none":
        if driver.where != "host":
            raise DriverError(f"{spec}: a real agent runs only in a container: add --sandbox docker")
        if options.gateway or options.pass_env:
            raise DriverError("--gateway and --pass-env need --sandbox docker")
        return PreparedAgent(spec, spec, "none")
    if options.sandbox != "docker":
        raise DriverError(f"unknown sandbox {options.sandbox!r} (known: {', '.join(SANDBOXES)})")
    import docker

    from .sandbox import GatewayError, ImageError, SandboxError, agent_setup, cleanup, client, parse_gateway

    try:
        gateway = parse_gateway(options.gateway) if options.gateway else None
    except GatewayError as exc:
        raise DriverError(f"--gateway: {exc}") from None
    try:
        docker_client = docker_client or client()
        setup = agent_setup(spec, docker_client, gateway=gateway, pass_env=options.pass_env, model=model)
        with contextlib.suppress(docker.errors.DockerException, OSError):   # housekeeping: never stops the work
            cleanup(docker_client)   # what graders that died (SIGKILL, power loss) left behind, and nothing else
    except docker.errors.ImageNotFound as exc:
        raise DriverError(f"{spec}: the agent's image is not on this machine: {exc.explanation}") from None
    except (SandboxError, ImageError, docker.errors.DockerException) as exc:
        raise SandboxInfraError(f"sandbox infra_error: {exc}") from None
    return PreparedAgent(spec, setup.driver, "docker", setup, docker_client)


# --- fill -----------------------------------------------------------------------------------------------------

@dataclass
class Filled:
    outcome: AttemptOutcome = AttemptOutcome.COMPLETED
    driver: str = ""
    profile_hash: str | None = None
    usage: Any = None                  # grader.sandbox.Usage: token counts, cost, tool calls (NULL when absent)
    model: Any = None
    agent_seconds: float | None = None
    warnings: list[str] = field(default_factory=list)
    sandbox: dict[str, Any] = field(default_factory=dict)   # what the JSON summary shows of the container


def _redact(text: str, secrets: dict[str, str]) -> str:
    for name, value in sorted(secrets.items()):
        if len(value) >= 4:
            text = text.replace(value, f"[{name} redacted]")
    return text


def fill_workspace(task: Task, paths: AttemptPaths, agent: PreparedAgent, attempt_id: str,
                   repetition: int = 0) -> Filled:
    """Run the agent's driver into the attempt's workspace; with docker, write sandbox.json and agent.log."""
    start = time.monotonic()
    if agent.sandbox == "none":
        prepare_workspace(task, paths.workspace, agent.spec, repetition)
        return Filled(driver=agent.driver, agent_seconds=time.monotonic() - start)
    from .sandbox import run_driver

    setup = agent.setup
    sandboxed = run_driver(task, paths.workspace, setup, attempt_id=attempt_id, docker_client=agent.docker_client,
                           repetition=repetition)
    secrets = {n: setup.environment[n] for n in setup.secrets if n in setup.environment}
    paths.sandbox.write_text(json.dumps(
        sandboxed.summary() | {"profile": sandboxed.profile, "agent": setup.record()}, sort_keys=True, indent=1)
        + "\n")
    paths.agent_log.write_text(_redact(sandboxed.logs, secrets))
    if not sandboxed.outcome.counted:
        raise SandboxInfraError(f"sandbox {sandboxed.outcome}: {sandboxed.detail}", sandboxed.outcome,
                                sandboxed.profile_hash, sandboxed.wall_seconds)
    usage = sandboxed.usage
    return Filled(sandboxed.outcome, agent.driver, sandboxed.profile_hash, usage, setup.model,
                  sandboxed.wall_seconds, [*usage.warnings, *sandboxed.warnings],
                  {"outcome": sandboxed.outcome.value, "profile_hash": sandboxed.profile_hash,
                   "usage": usage.as_dict()})


# --- the run ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AttemptSummary:
    """One attempt as the run reports it: graded (`passed` is a bool) or lost to the infrastructure (None)."""

    agent: str
    task: str
    repetition: int
    outcome: AttemptOutcome
    passed: bool | None
    first_failed_level: Level | None
    evidence_digest: str | None
    result_hash: str | None
    attempt_dir: str
    warnings: tuple[str, ...] = ()
    infra_failures: int = 0        # infrastructure failures before this attempt ran (each recorded, never counted)

    @property
    def graded(self) -> bool:
        return self.passed is not None

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "task": self.task, "repetition": self.repetition, "outcome": self.outcome.value,
                "passed": self.passed, "graded": self.graded,
                "first_failed_level": self.first_failed_level.value if self.first_failed_level else None,
                "evidence_digest": self.evidence_digest, "result_hash": self.result_hash,
                "attempt_dir": self.attempt_dir, "warnings": list(self.warnings),
                "infra_failures": self.infra_failures}


@dataclass
class RunResult:
    run: RunPaths
    attempts: list[AttemptSummary]
    planned: int
    interrupted: bool = False
    seconds: float = 0.0


Progress = Callable[[AttemptSummary | str, int, int], None]   # (attempt or message, done, total)


def _write_result(paths: AttemptPaths, result: GradeResult, filled: Filled) -> None:
    paths.verdict.write_text(result.to_json() + "\n")
    timings = dict(result.timings)
    if filled.agent_seconds is not None:
        timings["agent"] = filled.agent_seconds
    paths.timings.write_text(json.dumps(timings, sort_keys=True) + "\n")


def attempt_task(task: Task, agent: PreparedAgent, run: RunPaths, repetition: int, *, recorder: Any = None,
                 edition_id: int | None = None, infra_retries: int | None = None,
                 lib_dirs: tuple[str, ...] = (), on_infra: Callable[[str], None] | None = None,
                 grading: Callable[[Task, Path], GradeResult] | None = None) -> AttemptSummary:
    """One repetition of one task by one agent, through every step, retried while the infrastructure fails;
    each attempt goes to the recorder (grader.recording.Recorder), when there is one."""
    from .recording import graded_record, infra_record

    retries = default("infra_retries") if infra_retries is None else infra_retries
    failures: list[SandboxInfraError] = []
    while True:
        paths = run.attempt(agent.spec, task, repetition, len(failures))
        paths.root.mkdir(parents=True, exist_ok=False)
        try:
            filled = fill_workspace(task, paths, agent, uuid.uuid4().hex, repetition)
            break
        except SandboxInfraError as exc:
            failures.append(exc)
            if recorder is not None:
                recorder.add(infra_record(task, exc, agent, edition_id, repetition))
            if on_infra:
                on_infra(f"{agent.spec} {task.qualified_id}: {exc}")
            if len(failures) > retries:
                return AttemptSummary(agent.spec, task.qualified_id, repetition, failures[-1].outcome, None, None,
                                      None, None, str(paths.root), (str(failures[-1]),), len(failures))
    # grading: on this machine, or in a container of its own (grader.grading_container.GradingPool.grade)
    result = grading(task, paths.workspace) if grading is not None else grade(task, paths.workspace, lib_dirs)
    _write_result(paths, result, filled)
    result_hash = (recorder.add(graded_record(task, result, filled, edition_id, repetition))
                   if recorder is not None else None)
    v = result.verdict
    return AttemptSummary(agent.spec, task.qualified_id, repetition, filled.outcome, v.passed,
                          v.first_failed_level, v.evidence_digest, result_hash, str(paths.root),
                          tuple(filled.warnings), len(failures))


def run_attempts(tasks: Sequence[Task], agents: Sequence[PreparedAgent], runs_dir: Path, *, ledger: Any = None,
                 edition_id: int | None = None, repetitions: int = 1, infra_retries: int | None = None,
                 progress: Progress | None = None, run: RunPaths | None = None,
                 record_delay: float = 1.0, grade_in_container: bool = False) -> RunResult:
    """Every repetition of every task by every agent, in that order; see the module's docstring."""
    run = run or new_run(runs_dir)
    plan = [(agent, task, rep) for agent in agents for task in tasks for rep in range(repetitions)]
    run.manifest.write_text(json.dumps({
        "run_id": run.run_id, "agents": [a.spec for a in agents], "tasks": [t.qualified_id for t in tasks],
        "repetitions": repetitions, "sandbox": sorted({a.sandbox for a in agents}), "edition_id": edition_id,
    }, indent=1, sort_keys=True) + "\n")
    from .recording import Recorder

    out = RunResult(run, [], len(plan))
    start = time.monotonic()
    recorder = Recorder(ledger, max_delay=record_delay) if ledger is not None else None
    pool = None
    if grade_in_container:
        from .grading_container import GradingPool

        pool = GradingPool()
    try:
        for agent, task, rep in plan:
            summary = attempt_task(task, agent, run, rep, recorder=recorder, edition_id=edition_id,
                                   infra_retries=infra_retries,
                                   on_infra=(lambda m: progress(m, len(out.attempts), len(plan))) if progress else None,
                                   grading=pool.grade if pool is not None else None)
            out.attempts.append(summary)
            if progress:
                progress(summary, len(out.attempts), len(plan))
    except KeyboardInterrupt:
        out.interrupted = True
    finally:
        if recorder is not None:
            recorder.flush()
        if pool is not None:
            pool.close()
    out.seconds = time.monotonic() - start
    return out
