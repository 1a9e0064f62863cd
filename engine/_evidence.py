"""Canonical evidence: one JSON serialisation for everything that is hashed."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any


def _canonical(value: Any) -> Any:
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    return value


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 text, floats as Python's shortest round-trip repr (IEEE-exact)."""
    return json.dumps(_canonical(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def digest(value: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of `value`."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


EVIDENCE_FIELDS = ("outcome", "frames", "sim_seconds", "errors", "log", "missing_api", "exit_requested",
                   "requirements", "platform")


def run_evidence(report: dict[str, Any]) -> dict[str, Any]:
    """The part of a run report that is evidence (everything but wall time) and its digest."""
    evidence = {k: report.get(k) for k in EVIDENCE_FIELDS}
    return {"evidence": evidence, "digest": digest(evidence)}
