"""Canonical evidence: one JSON serialisation for everything that is hashed."""

from __future__ import annotations

from typing import Any

from evidence import canonical_json, digest

__all__ = ["canonical_json", "digest", "run_evidence"]

EVIDENCE_FIELDS = ("outcome", "frames", "sim_seconds", "errors", "log", "missing_api", "exit_requested",
                   "requirements", "platform")


def run_evidence(report: dict[str, Any]) -> dict[str, Any]:
    """The part of a run report that is evidence (everything but wall time) and its digest."""
    evidence = {k: report.get(k) for k in EVIDENCE_FIELDS}
    return {"evidence": evidence, "digest": digest(evidence)}
