"""L1's result: the verdict, the linter that produced it, and the canonical diagnostics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._launch import Linter

SEVERITIES = ("error", "warning", "information", "hint")


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding.  `file` is relative to the deliverable (POSIX separators); `line` and `column` count
    from 1, `column` 0 when the source gives only a line.  `source` is `emmylua_ls` or `lua54` (the
    reference compiler).  Fields are in sort order: diagnostics sort by file, position, then the rest."""

    file: str
    line: int
    column: int
    code: str
    severity: str
    source: str
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column, "code": self.code,
                "severity": self.severity, "source": self.source, "message": self.message}


@dataclass(frozen=True)
class L1Result:
    """`passed` is True when no diagnostic has error severity."""

    passed: bool
    linter: Linter
    diagnostics: tuple[Diagnostic, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "linter": self.linter.as_dict(),
                "diagnostics": [d.as_dict() for d in self.diagnostics]}

    @classmethod
    def from_diagnostics(cls, linter: Linter, diagnostics: list[Diagnostic]) -> L1Result:
        ordered = tuple(sorted(set(diagnostics)))
        return cls(passed=not any(d.severity == "error" for d in ordered), linter=linter, diagnostics=ordered)
