"""The verdict: what each level found, the failure funnel, and a digest of the evidence.

Canonical JSON (sorted keys, floats as shortest round-trip reprs); wall times are kept beside the verdict,
never inside it, so the same deliverable, task, battery and engine always give the same digest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import API_VERSION, ENGINE_NAME, ENGINE_VERSION, canonical_json, digest

SCHEMA_VERSION = 1
LEVELS = ("L0", "L1", "L2")


def engine_info() -> dict[str, str]:
    return {"name": ENGINE_NAME, "version": ENGINE_VERSION, "api_version": API_VERSION}


def build_verdict(
    *, task_id: str, task_hash: str, battery_hash: str, deliverable_hash: str, levels: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Assemble the verdict and its evidence digest (SHA-256 of the canonical verdict without the digest)."""
    first_failed = next((name for name in LEVELS if not levels[name]["passed"]), None)
    verdict: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "task_id": task_id,
        "task_hash": task_hash,
        "battery_hash": battery_hash,
        "deliverable_hash": deliverable_hash,
        "engine": engine_info(),
        "levels": levels,
        "passed": bool(levels["L0"]["passed"] and levels["L2"]["passed"]),
        "first_failed_level": first_failed,
    }
    verdict["evidence_digest"] = digest(verdict)
    return verdict


def verify_digest(verdict: dict[str, Any]) -> bool:
    """True when the verdict's evidence digest matches its content."""
    body = {k: v for k, v in verdict.items() if k != "evidence_digest"}
    return digest(body) == verdict.get("evidence_digest")


@dataclass(frozen=True)
class GradeResult:
    """A verdict and the wall times of its levels (seconds), which are not evidence."""

    verdict: dict[str, Any]
    timings: dict[str, float]

    def to_json(self) -> str:
        return canonical_json(self.verdict)
