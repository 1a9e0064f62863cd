"""The boards as plain text for a terminal or a log, at most 80 columns wide: a header (what the boards are of),
then every board, one row per model, long names wrapped, nothing cut."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

WIDTH = 80
MODEL = 24
HEADINGS = ("rank", "model", "score", "95% CI", "passed", "time", "cost")
WIDTHS = (8, MODEL, 6, 13, 8, 6, 8)   # with the six single spaces between them: 79 columns


def header_lines(snapshot: dict[str, Any], ledger: str | None = None, width: int | None = WIDTH) -> list[str]:
    """What the boards are of: the ledger, the edition and its pins, the engines, the data's date, the method."""
    lines = []
    if ledger:
        lines.append(f"ledger   {ledger}")
    edition = snapshot.get("edition")
    if edition:
        lines.append(f"edition  {edition['id']} {edition['name']}: dataset {edition['dataset_version']} "
                     f"{edition['dataset_hash'][:12]}, engine build {edition['engine_version'][:12]}")
    else:
        lines.append("edition  none: every result of the ledger, pooled")
    if snapshot.get("engines"):
        lines.append(f"engines  {', '.join(snapshot['engines'])}")
    summary = snapshot["summary"]
    lines.append(f"data     {summary['counted_attempts']} counted attempts ({summary['excluded_attempts']} excluded), "
                 f"{summary['public_tasks']} public tasks" + (" and a held-out board" if summary["heldout"] else "")
                 + f" from {summary['tasks_from']}" + (f", as of {snapshot['as_of']}" if snapshot.get("as_of") else ""))
    st = snapshot["statistics"]
    lines.append(f"method   {st['algorithm']}, {st['replicates']} replicates, root seed {st['root_seed']}")
    if width is None:
        return lines
    return [part for line in lines for part in textwrap.wrap(line, width, subsequent_indent=" " * 9,
                                                              break_on_hyphens=False)]


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _row(cells: Sequence[str]) -> list[str]:
    """One row; a cell too long for its column wraps onto the next lines (the model names do)."""
    wrapped = [textwrap.wrap(c, w, break_long_words=True, break_on_hyphens=False) or [""]
               for c, w in zip(cells, WIDTHS, strict=True)]
    height = max(len(w) for w in wrapped)
    out = []
    for i in range(height):
        parts = [(w[i] if i < len(w) else "").ljust(width) if j < len(WIDTHS) - 1 else (w[i] if i < len(w) else "")
                 for j, (w, width) in enumerate(zip(wrapped, WIDTHS, strict=True))]
        out.append(" ".join(parts).rstrip())
    return out


def board_lines(key: str, board: dict[str, Any], *, attempt_level: bool) -> list[str]:
    count = board.get("tasks")
    title = key if count is None else f"{key} — {count} task{'' if count == 1 else 's'}"
    lines = [title, "-" * min(WIDTH, len(title))]
    headings = HEADINGS if attempt_level else HEADINGS[:5]
    lines += _row([*headings, *[""] * (len(WIDTHS) - len(headings))])
    for m in board["models"]:
        rank = f"{m['rank']} ({m['rank_range'][0]}-{m['rank_range'][1]})"
        method = "*" if m["ci_method"] == "clopper_pearson" else ""
        ci = f"{_pct(m['ci'][0])}-{_pct(m['ci'][1])}{method}"
        passed = f"{m['passes']}/{m['attempts']}" if "passes" in m else ""   # a held-out row has no counts
        cells = [rank, m["model"], f"{_pct(m['score'])}%", ci, passed]
        if attempt_level:
            seconds = m.get("time_per_task_seconds")
            cost = m.get("cost_per_task_usd")
            cells += ["-" if seconds is None else f"{seconds:.1f}s",
                      cost if isinstance(cost, str) or cost is None else f"${cost:.4f}"]
        else:
            cells += ["", ""]
        lines += _row([c if c is not None else "N/A" for c in cells])
        if m.get("excluded_attempts"):
            lines.append(f"{'':8} {m['excluded_attempts']} more excluded as infrastructure failures")
    for r in board.get("refused", []):
        lines += textwrap.wrap(f"not ranked: {r['model']}: {r['reason']}", WIDTH, subsequent_indent="  ",
                               break_on_hyphens=False)
    if not board["models"] and not board.get("refused"):
        lines.append("(no models)")
    return lines


def render_text(snapshot: dict[str, Any], *, ledger: str | None = None,
                only: Sequence[str] = ()) -> list[str]:
    """Every board of the snapshot (or those named in `only`), under the header."""
    boards: list[tuple[str, dict[str, Any], bool]] = [(k, v, True) for k, v in sorted(
        snapshot["boards"].items(), key=lambda kv: (kv[0] != "overall", kv[0]))]
    if snapshot.get("heldout"):
        boards.append(("heldout", snapshot["heldout"], True))
    boards += [(k, v, False) for k, v in sorted(snapshot["capability_resolution"].items())]
    if only:
        unknown = sorted(set(only) - {k for k, _, _ in boards})
        if unknown:
            raise KeyError(f"no board {unknown[0]!r} (boards: {', '.join(k for k, _, _ in boards)})")
        boards = [b for b in boards if b[0] in only]
    lines = header_lines(snapshot, ledger)
    if not boards:
        return [*lines, "", "no boards: the ledger holds no counted results here"]
    for key, board, attempt_level in boards:
        lines += ["", *board_lines(key, board, attempt_level=attempt_level)]
    lines += ["", "rank (range): competition rank and 95% rank range; *: exact (Clopper-Pearson) CI"]
    return lines
