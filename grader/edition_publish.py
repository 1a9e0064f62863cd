"""Publishing an edition: its boards as files, and an archive page over every published edition.

    OUT/
      index.html               the archive: every edition the ledger says was published, oldest first
      <edition>/snapshot.json  the edition's snapshot (grader.boards), canonical bytes
      <edition>/index.html     its page

Publishing appends the edition's publication to the ledger (once: the first one's time stays), after which
nothing more is recorded under it.  Every byte written comes from the ledger, never from the clock of the
publishing run, so publishing again writes identical files.
"""

from __future__ import annotations

import hashlib
import html
import os
from dataclasses import dataclass
from pathlib import Path

from grader.boards import build_snapshot, canonical_json, load_inputs, write_board
from grader.stats import Price
from ledger import (
    Ledger,
    LedgerError,
    edition_plan,
    find_edition,
    get_edition,
    plan_states,
    publish_edition,
    published_editions,
)

ARCHIVE_TITLE = "grader editions"


@dataclass(frozen=True)
class Published:
    edition_id: int
    name: str
    published_at: str
    snapshot_digest: str
    folder: Path
    archive: Path


def _write(path: Path, text: str) -> None:
    """Whole or not at all: a reader of the archive never sees half a page."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def _prices(ledger: Ledger, edition_id: int) -> tuple[dict[str, Price], dict[str, dict[str, object]]]:
    """The list prices the plan's models.toml gave, by model label."""
    planned = edition_plan(ledger, edition_id)
    prices: dict[str, Price] = {}
    notes: dict[str, dict[str, object]] = {}
    for m in planned.models if planned else ():
        p = m.get("prices")
        if p:
            prices[m["label"]] = Price(float(p["input_per_mtok"]), float(p["output_per_mtok"]))
            notes[m["label"]] = dict(p)
    return prices, notes


def folder_name(name: str) -> str:
    """An edition's folder under OUT: its name, when that is a safe file name."""
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name).lstrip(".") or "edition"
    return safe if safe == name else f"{safe}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def archive_page(rows: list[tuple[int, str, str, str]]) -> str:
    """The archive's index.html: (id, name, published at, snapshot digest) of every published edition."""
    items = "\n".join(
        f'<tr><td><a href="{html.escape(folder_name(name))}/index.html">{html.escape(name)}</a></td>'
        f"<td>{edition_id}</td><td>{html.escape(when)}</td><td><code>{digest[:16]}</code></td></tr>"
        for edition_id, name, when, digest in rows)
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{ARCHIVE_TITLE}</title></head>\n<body>\n<h1>{ARCHIVE_TITLE}</h1>\n"
            "<table>\n<tr><th>edition</th><th>id</th><th>published (UTC)</th><th>snapshot sha256</th></tr>\n"
            f"{items}\n</table>\n</body></html>\n")


def publish(ledger: Ledger, ref: str | int, out: Path) -> Published:
    """Freeze the edition (when its plan is complete) and write its boards and the archive page into `out`."""
    edition_id = find_edition(ledger, ref)
    view = get_edition(ledger, edition_id)
    missing = [s for s in plan_states(ledger, edition_id) if s.outcome is None]
    if missing:
        raise LedgerError(f"edition {view.name!r}: {len(missing)} planned attempts are not recorded yet (run "
                          f"`grader edition run {view.name}`): not published")
    prices, notes = _prices(ledger, edition_id)
    snapshot = build_snapshot(load_inputs(ledger, edition_id), prices=prices, price_notes=notes)
    digest = hashlib.sha256(canonical_json(snapshot).encode("utf-8")).hexdigest()
    when, _ = publish_edition(ledger, edition_id, digest)
    folder = out / folder_name(view.name)
    write_board(snapshot, folder)
    rows = [(i, n, t.isoformat(timespec="seconds") + "Z", d) for i, n, t, d in published_editions(ledger)]
    _write(out / "index.html", archive_page(rows))
    return Published(edition_id, view.name, when.isoformat(timespec="seconds") + "Z", digest, folder,
                     out / "index.html")
