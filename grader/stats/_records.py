"""What the statistics read: attempt records, task metadata and the counting rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Attempts that say something about the model: they count towards n (and c when they pass).
COUNTED_OUTCOMES = frozenset({"completed", "agent_error", "agent_timeout"})
# Failures of our infrastructure (or a hang we cannot attribute): retried, never counted.
UNCOUNTED_OUTCOMES = frozenset({"infra_error", "infra_timeout", "hung"})


def is_counted(outcome: str) -> bool:
    """The counting rule; an unknown outcome is an error, never silently dropped."""
    value = str(outcome.value if hasattr(outcome, "value") else outcome)
    if value in COUNTED_OUTCOMES:
        return True
    if value in UNCOUNTED_OUTCOMES:
        return False
    raise ValueError(f"unknown attempt outcome {value!r}")


@dataclass(frozen=True)
class Requirement:
    """One requirement a task's battery declares (its manifest entry)."""

    id: str
    layer: str  # "completeness" (stated in the prompt) or "richness" (implied, never stated)
    capabilities: tuple[str, ...] = ()


@dataclass(frozen=True)
class TaskInfo:
    """A task as the boards see it: its hash (canonical order) and what it can be sliced by."""

    task_hash: str
    category: str = ""
    difficulty: str = ""
    heldout: bool = False
    requirements: tuple[Requirement, ...] = ()


@dataclass(frozen=True)
class AttemptRecord:
    """One attempt of one model on one task, with its effective verdict (after corrections).

    `requirements_passed` names the requirements of the task's manifest that passed in this attempt; every other
    requirement of the manifest counts as failed (an attempt that never reached L2 passed none).
    """

    model: str
    task_hash: str
    outcome: str
    effective_passed: bool
    requirements_passed: frozenset[str] = frozenset()
    wall_seconds: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None


def effective_requirements(raw: Mapping[str, bool], manifest: Sequence[Requirement], *,
                           corrected_passed: bool | None = None,
                           named: Mapping[str, bool] | None = None) -> frozenset[str]:
    """The requirements of `manifest` an attempt passed, after its latest correction (docs/statistics.md).

    `raw` is the verdict's L2 outcomes (a requirement it does not list failed); a correction's `named` outcomes
    replace those; a correction to pass (`corrected_passed` True) passes every completeness requirement (an L2
    pass means exactly that); a correction to fail that leaves every completeness requirement passing credits
    none of them, since it says one failed without naming which.
    """
    passed = {r.id: bool(raw.get(r.id, False)) for r in manifest}
    for rid, value in (named or {}).items():
        if rid in passed:
            passed[rid] = bool(value)
    completeness = [r.id for r in manifest if r.layer == "completeness"]
    if corrected_passed is True:
        passed.update(dict.fromkeys(completeness, True))
    elif corrected_passed is False and all(passed[rid] for rid in completeness):
        passed.update(dict.fromkeys(completeness, False))
    return frozenset(rid for rid, ok in passed.items() if ok)
