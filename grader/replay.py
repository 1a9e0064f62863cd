"""Replaying a recorded result by its hash: the stored deliverable, re-graded against its task and battery found
by their hashes, compared check by check, with every pin that differs named."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import API_VERSION
from evidence import Verdict
from ledger import Ledger, LedgerError, load_artifact, recorded_verdict
from ledger import result as ledger_result

from .deliverable import DeliverableError, Tree, max_archive_bytes
from .pipeline import grade_tree
from .tasks import Suite, Task, battery_hash, load_suite, repository_suites, task_hash, with_params

HELD_OUT_ENV = "GRADER_HELDOUT_SUITES"


def candidate_suites(held_out: tuple[Path, ...] = ()) -> list[Suite]:
    """The repository's suites, then the held-out ones given by path or in $GRADER_HELDOUT_SUITES."""
    suites = repository_suites()
    paths = list(held_out) + [Path(p) for p in os.environ.get(HELD_OUT_ENV, "").split(os.pathsep) if p]
    suites.extend(load_suite(path) for path in paths)
    return suites


def suite_of(task: Task, held_out: tuple[Path, ...] = ()) -> Suite | None:
    """The suite (repository or held-out) that holds exactly this task, or None."""
    wanted = task_hash(task)
    for suite in candidate_suites(held_out):
        if suite.name == task.suite and any(t.id == task.id and task_hash(t) == wanted for t in suite.tasks):
            return suite
    return None


def find_task_by_hash(task_hash_value: str, held_out: tuple[Path, ...] = (), battery: str | None = None) -> Task:
    """The task with this task_hash (and, when given, this battery_hash: a suite kept as it was beats one whose
    battery has moved on); a task whose battery differs is returned only when no suite has both."""
    found: list[Task] = []
    for suite in candidate_suites(held_out):
        for task in suite.tasks:
            if task_hash(task) == task_hash_value:
                if battery is None or battery_hash(task, API_VERSION) == battery:
                    return task
                found.append(task)
    if found:
        return found[0]
    raise LedgerError(f"no task with task_hash {task_hash_value} in the repository's suites or the held-out "
                      f"suites given (--suite-path or ${HELD_OUT_ENV}): it is no longer present or has changed")


@dataclass
class ReplayReport:
    result_hash: str
    match: bool
    recorded_digest: str
    replayed_digest: str
    pins: dict[str, dict[str, Any]] = field(default_factory=dict)   # pin -> {recorded, now}, only those that differ
    differences: list[str] = field(default_factory=list)            # checks of both whose outcome or value differ
    added: list[str] = field(default_factory=list)                  # checks only the replay has (a newer grader)
    removed: list[str] = field(default_factory=list)                # checks only the recorded verdict has

    def to_json(self) -> dict[str, Any]:
        return {"result_hash": self.result_hash, "match": self.match, "recorded_digest": self.recorded_digest,
                "replayed_digest": self.replayed_digest, "pins": self.pins, "differences": self.differences,
                "added": self.added, "removed": self.removed}


def pins(verdict: Verdict) -> dict[str, Any]:
    """What a verdict says produced it: the verdict schema, the engine, the grader, the settings."""
    return {"verdict schema": verdict.schema_version, "engine version": verdict.engine.version,
            "engine build": verdict.engine.build, "grader build": verdict.grader.build if verdict.grader else None,
            "settings hash": verdict.settings_hash}


def check_map(verdict: Verdict) -> dict[str, Any]:
    """Every check of every level, keyed so that two verdicts of the same deliverable line up."""
    levels = verdict.levels
    out: dict[str, Any] = {f"L0 {c.name}": c.passed for c in levels.L0.checks}
    out["L1 passed"] = levels.L1.passed
    for d in levels.L1.diagnostics:
        out[f"L1 {d.file}:{d.line} {d.code}"] = d.severity
    for req, check in levels.L2.checks():
        out[f"L2 {req.id} / {check.name}"] = (check.passed, check.actual)
    out["L2 outcome"] = levels.L2.outcome.value
    return out


def replay(ledger: Ledger, prefix: str, held_out: tuple[Path, ...] = ()) -> ReplayReport:
    """Re-grade a recorded result's stored deliverable against its task and battery, found by their hashes."""
    view = ledger_result(ledger, prefix)
    assert view.result is not None
    recorded = recorded_verdict(ledger, view.result.result_hash)
    if not view.artifact_hash:
        raise LedgerError(f"result {view.result.result_hash} has no stored deliverable to replay")
    task = find_task_by_hash(recorded.task_hash, held_out, recorded.battery_hash)
    current_battery = battery_hash(task, API_VERSION)
    if current_battery != recorded.battery_hash:
        raise LedgerError(f"the battery of {task.qualified_id} has changed since the result was recorded "
                          f"({recorded.battery_hash[:12]} then, {current_battery[:12]} now)")
    if recorded.params is not None or task.param_specs:   # graded with the values it was recorded under
        task = with_params(task, recorded.params or {})
    try:
        tree = Tree.from_archive(load_artifact(ledger, view.artifact_hash).compressed, max_archive_bytes(task.limits))
    except DeliverableError as exc:
        raise LedgerError(f"result {view.result.result_hash}: its stored deliverable cannot be read: {exc}") from None
    with tempfile.TemporaryDirectory(prefix="grader-replay-") as tmp:
        deliverable = Path(tmp) / "deliverable"
        tree.write(deliverable)
        again = grade_tree(task, tree, deliverable).verdict
    then, now = pins(recorded), pins(again)
    differing = {k: {"recorded": then[k], "now": now[k]} for k in then if then[k] != now[k]}
    before, after = check_map(recorded), check_map(again)
    differences = [f"{k}: recorded {before[k]!r}, now {after[k]!r}"
                   for k in sorted(set(before) & set(after)) if before[k] != after[k]]
    return ReplayReport(result_hash=view.result.result_hash,
                        match=again.evidence_digest == recorded.evidence_digest,
                        recorded_digest=recorded.evidence_digest, replayed_digest=again.evidence_digest,
                        pins=differing, differences=differences,
                        added=[f"{k}: {after[k]!r}" for k in sorted(set(after) - set(before))],
                        removed=[f"{k}: {before[k]!r}" for k in sorted(set(before) - set(after))])
