"""Recording graded attempts in the ledger, and replaying a recorded result by its hash."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import API_VERSION, ENGINE_VERSION
from ledger import (
    Ledger,
    LedgerError,
    ModelFacts,
    Outcome,
    TaskFacts,
    correct_result,
    load_artifact,
    record_attempt,
    record_infra_attempt,
    result_history,
    unpack_archive,
)

from .pipeline import grade
from .tasks import Task, battery_hash, load_suite, repository_suites, task_hash
from .verdict import GradeResult

HELD_OUT_ENV = "GRADER_HELDOUT_SUITES"


def task_facts(task: Task) -> TaskFacts:
    return TaskFacts(task_id=task.qualified_id, task_hash=task_hash(task), battery_hash=battery_hash(task, API_VERSION),
                     category=task.category, difficulty=task.difficulty.value, capabilities=task.capabilities,
                     api_version=API_VERSION, requirements=tuple(r.as_dict() for r in task.requirements))


def record(ledger: Ledger, task: Task, result: GradeResult, deliverable: Path, driver: str,
           outcome: Outcome = Outcome.COMPLETED, *, usage: Any = None, profile_hash: str | None = None,
           model: Any = None, edition_id: int | None = None) -> str:
    """Append the attempt, its deliverable (by content hash) and its result; return the result hash.  `usage`
    (grader.sandbox.Usage) gives the tokens, cost and tool calls the driver reported (NULL when it did not),
    `profile_hash` the sandbox profile (None: --sandbox none), `model` (grader.sandbox.ModelInfo) the model."""
    facts = ModelFacts(model.provider, model.name, model.version, model.reasoning_mode) if model else None
    return record_attempt(
        ledger, task_facts(task), result.verdict, result.timings, deliverable, driver, outcome, model=facts,
        edition_id=edition_id, tokens=(getattr(usage, "tokens_in", None), getattr(usage, "tokens_out", None)),
        cost_usd=getattr(usage, "cost_usd", None), tool_calls=getattr(usage, "tool_calls", None),
        profile_hash=profile_hash)


def record_filled(ledger: Ledger, task: Task, result: GradeResult, deliverable: Path, filled: Any,
                  edition_id: int | None = None) -> str:
    """Record an attempt filled by grader.attempts.fill_workspace (its driver, outcome, usage and profile)."""
    return record(ledger, task, result, deliverable, filled.driver, Outcome(filled.outcome), usage=filled.usage,
                  profile_hash=filled.profile_hash, model=filled.model, edition_id=edition_id)


def record_infra(ledger: Ledger, task: Task, error: Any, agent: Any, edition_id: int | None = None) -> str:
    """Record an attempt the sandbox failed (a grader.attempts.SandboxInfraError for grader.attempts'
    PreparedAgent `agent`): no deliverable, no result, never counted; returns the attempt id."""
    model = agent.model
    facts = ModelFacts(model.provider, model.name, model.version, model.reasoning_mode) if model else None
    timings = {"agent": float(error.seconds)} if error.seconds is not None else {}
    return record_infra_attempt(ledger, task_facts(task), Outcome(error.outcome), timings, agent.driver,
                                model=facts, edition_id=edition_id,
                                profile_hash=error.profile_hash or agent.profile_hash)


def correct(ledger: Ledger, prefix: str, passed: bool, reason: str, author: str,
            requirements: dict[str, bool] | None = None) -> int:
    """Append a correction, its named requirement outcomes checked against the recorded verdict: each must be a
    requirement of it, and a correction to pass cannot name a completeness requirement as failed."""
    if requirements:
        history = result_history(ledger, prefix)
        recorded = {r["id"]: r for r in history["verdict"].get("levels", {}).get("L2", {}).get("requirements", [])}
        for rid, ok in sorted(requirements.items()):
            if rid not in recorded:
                raise LedgerError(f"--requirement {rid}: not a requirement of result {history['result_hash'][:12]} "
                                  f"(it has: {', '.join(sorted(recorded)) or 'none'})")
            if passed and not ok and recorded[rid].get("layer", "completeness") == "completeness":
                raise LedgerError(f"--requirement {rid}=fail contradicts --passed true: a pass means every "
                                  f"completeness requirement passed")
    return correct_result(ledger, prefix, passed, reason, author, requirements)


def _candidate_suites(held_out: tuple[Path, ...]) -> list[Any]:
    suites = repository_suites()
    paths = list(held_out) + [Path(p) for p in os.environ.get(HELD_OUT_ENV, "").split(os.pathsep) if p]
    for path in paths:
        suites.append(load_suite(path))
    return suites


def suite_of(task: Task, held_out: tuple[Path, ...] = ()) -> Any:
    """The suite (repository or held-out) that holds exactly this task, or None."""
    wanted = task_hash(task)
    for suite in _candidate_suites(held_out):
        if suite.name == task.suite and any(t.id == task.id and task_hash(t) == wanted for t in suite.tasks):
            return suite
    return None


def find_task_by_hash(task_hash_value: str, held_out: tuple[Path, ...] = ()) -> Task:
    for suite in _candidate_suites(held_out):
        for task in suite.tasks:
            if task_hash(task) == task_hash_value:
                return task
    raise LedgerError(f"no task with task_hash {task_hash_value} in the repository's suites or the held-out "
                      f"suites given (--suite-path or ${HELD_OUT_ENV}): it is no longer present or has changed")


@dataclass
class ReplayReport:
    result_hash: str
    match: bool
    recorded_digest: str
    replayed_digest: str
    engine_recorded: str
    engine_now: str
    differences: list[str] = field(default_factory=list)


def _check_map(verdict: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    levels = verdict["levels"]
    for c in levels["L0"]["checks"]:
        out[f"L0 {c['name']}"] = c["passed"]
    out["L1 passed"] = levels["L1"]["passed"]
    for d in levels["L1"].get("diagnostics", []):
        out[f"L1 {d.get('path')}:{d.get('line')} {d.get('code')}"] = d.get("severity")
    for c in levels["L2"]["checks"]:
        out[f"L2 {c['requirement']} / {c['name']}"] = (c["passed"], c.get("actual"))
    out["L2 outcome"] = levels["L2"]["outcome"]
    return out


def replay(ledger: Ledger, prefix: str, held_out: tuple[Path, ...] = ()) -> ReplayReport:
    """Re-grade a recorded result's stored deliverable against its task and battery, found by their hashes."""
    history = result_history(ledger, prefix)
    recorded = history["verdict"]
    artifact_hash = history["attempt"]["artifact_hash"]
    if not artifact_hash:
        raise LedgerError(f"result {history['result_hash']} has no stored deliverable to replay")
    task = find_task_by_hash(recorded["task_hash"], held_out)
    current_battery = battery_hash(task, API_VERSION)
    if current_battery != recorded["battery_hash"]:
        raise LedgerError(f"the battery of {task.qualified_id} has changed since the result was recorded "
                          f"({recorded['battery_hash'][:12]} then, {current_battery[:12]} now)")
    with tempfile.TemporaryDirectory(prefix="grader-replay-") as tmp:
        deliverable = Path(tmp) / "deliverable"
        unpack_archive(load_artifact(ledger, artifact_hash), deliverable)
        again = grade(task, deliverable).verdict
    before, after = _check_map(recorded), _check_map(again)
    differences = [f"{k}: recorded {before.get(k)!r}, now {after.get(k)!r}"
                   for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]
    return ReplayReport(
        result_hash=history["result_hash"], match=again["evidence_digest"] == recorded["evidence_digest"],
        recorded_digest=recorded["evidence_digest"], replayed_digest=again["evidence_digest"],
        engine_recorded=recorded["engine"]["version"], engine_now=ENGINE_VERSION, differences=differences)
