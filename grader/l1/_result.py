"""L1's result types live in the evidence model; this module names them for L1's own modules."""

from __future__ import annotations

from evidence import SEVERITIES, Diagnostic, L1Result, Linter

__all__ = ["SEVERITIES", "Diagnostic", "L1Result", "Linter"]
