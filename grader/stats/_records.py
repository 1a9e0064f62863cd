"""What the statistics read: attempt records, task metadata and the counting rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evidence import AttemptOutcome

# Attempts that say something about the model count towards n (and c when they pass); failures of our
# infrastructure (or a hang we cannot attribute) are retried and never counted (evidence.AttemptOutcome).
COUNTED_OUTCOMES = frozenset(o.value for o in AttemptOutcome if o.counted)
UNCOUNTED_OUTCOMES = frozenset(o.value for o in AttemptOutcome if not o.counted)


def is_counted(outcome: str | AttemptOutcome) -> bool:
    """The counting rule; an unknown outcome is an error, never silently dropped."""
    try:
        return AttemptOutcome(outcome).counted
    except ValueError:
        raise ValueError(f"unknown attempt outcome {outcome!r}") from None


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
