"""Human output of verdicts and results (the `--json` forms are the evidence model's own JSON)."""

from __future__ import annotations

from evidence import Verdict

from ._common import console

MAX_DIAGNOSTICS = 15
MAX_ERRORS = 5


def _short(value: object, limit: int = 60) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_verdict(verdict: Verdict, timings: dict[str, float]) -> None:
    mark = "[green]PASS[/]" if verdict.passed else "[red]FAIL[/]"
    first = verdict.first_failed_level.value if verdict.first_failed_level else "-"
    console.print(f"[bold]{verdict.task_id}[/] {mark}  first failed level: {first}")
    levels = verdict.levels
    for check in levels.L0.checks:
        if not check.passed:
            console.print(f"  L0 [red]{check.name}[/] {check.detail}")
    console.print(f"  L0 {'passed' if levels.L0.passed else 'failed'}")
    l1 = levels.L1
    if l1.skipped:
        console.print(f"  L1 not run: {l1.skipped}")
    else:
        console.print(f"  L1 {'passed' if l1.passed else 'failed'} ({len(l1.diagnostics)} diagnostics)")
    for d in l1.diagnostics[:MAX_DIAGNOSTICS]:
        console.print(f"     {d.file}:{d.line}:{d.column} {d.severity} {d.code}: {d.message}", markup=False)
    if len(l1.diagnostics) > MAX_DIAGNOSTICS:
        console.print(f"     ... and {len(l1.diagnostics) - MAX_DIAGNOSTICS} more (--json lists them all)")
    l2 = levels.L2
    console.print(f"  L2 {'passed' if l2.passed else 'failed'} (outcome {l2.outcome.value}, frames {l2.frames})")
    for req in l2.requirements:
        mark = "[green]PASS[/]" if req.passed else "[red]FAIL[/]"
        console.print(f"     {mark} {req.id} [dim]{req.layer.value}[/] {req.description}")
        for c in req.checks:
            if not c.passed:
                console.print(f"       {c.name}: expected {_short(c.expected)}, got {_short(c.actual)}"
                              f" (frame {c.frame})" + (f" {c.message}" if c.message else ""), markup=False)
    for err in l2.errors[:MAX_ERRORS]:
        console.print(f"     error at frame {err.frame} ({err.phase}): {err.message}", markup=False)
    console.print(f"  digest {verdict.evidence_digest}  [dim]wall {timings.get('total', 0):.2f} s[/]")
