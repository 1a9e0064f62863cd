"""`grader board`: the boards of an edition, from the ledger."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from grader import board_cache
from grader._errors import TaskError

from ._common import database_option, handle_errors, json_option, open_ledger

if TYPE_CHECKING:
    from ledger import Ledger


@click.command(help="The boards of an edition from the ledger: scores with 95% CIs, rank ranges, attempts, time "
               "and cost, per category, tier, capability and layer.\n\n"
               "EDITION (or --edition) is an edition's name or id; the default is the newest edition, or every "
               "result when the ledger has no edition. --all-editions pools every edition's results; one-off "
               "`grader grade` results are left out unless --include-grades. --out DIR writes snapshot.json and "
               "index.html there; --json prints the snapshot.")
@click.argument("edition", required=False)
@click.option("--edition", "edition_opt", default=None, metavar="NAME|ID", help="an edition of the ledger")
@click.option("--all-editions", is_flag=True, help="pool the results of every edition (and of none)")
@click.option("--include-grades", is_flag=True, help="count one-off `grader grade` results too")
@click.option("--board", "boards", multiple=True, metavar="NAME",
              help="print only this board (repeatable): overall, category:C, difficulty:D, heldout, "
                   "capability:T, layer:L")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="write snapshot.json and index.html into this folder")
@click.option("--prices", "prices_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="TOML list prices (USD per million tokens) by model label, for the cost column "
                   "(docs/statistics.md); without it cost shows N/A")
@database_option
@json_option
@handle_errors
def board(edition: str | None, edition_opt: str | None, all_editions: bool, include_grades: bool,
          boards: tuple[str, ...], out: Path | None, prices_path: Path | None, database: str | None,
          as_json: bool) -> None:
    if edition is not None and edition_opt is not None and edition != edition_opt:
        raise TaskError(f"EDITION {edition} and --edition {edition_opt} disagree")
    ref = edition if edition is not None else edition_opt
    if ref is not None and all_editions:
        raise TaskError("EDITION and --all-editions: give one")
    if as_json and out is None and not boards:
        click.echo(board_json(database, ref, all_editions, include_grades, prices_path), nl=False)
        return

    from grader.boards import canonical_json, render_text, write_board

    store, snapshot = _snapshot(database, ref, all_editions, include_grades, prices_path)
    try:
        lines = render_text(snapshot, ledger=store.display_url, only=boards)
    except KeyError as exc:
        raise TaskError(f"--board: {exc.args[0]}") from None
    if out is not None:
        write_board(snapshot, out)
    if as_json:
        click.echo(canonical_json(snapshot), nl=False)
        return
    click.echo("\n".join(lines))
    if out is not None:
        click.echo(f"\nwrote {out / 'snapshot.json'} and {out / 'index.html'}")


def board_json(database: str | None, ref: str | None, all_editions: bool = False, include_grades: bool = False,
               prices_path: Path | None = None) -> str:
    """`grader board --json`'s answer: from the board cache when this ledger state was asked before, else
    computed and kept there (grader/board_cache.py)."""
    asked = _probe_cache(database, ref, all_editions, include_grades, prices_path)
    if asked is not None and asked.answer is not None:
        return asked.answer
    from grader.boards import canonical_json

    store, snapshot = _snapshot(database, ref, all_editions, include_grades, prices_path)
    store.close()
    text = canonical_json(snapshot)
    if asked is not None:
        board_cache.keep_if_unchanged(asked, text)
    return text


def _snapshot(database: str | None, ref: str | None, all_editions: bool, include_grades: bool,
              prices_path: Path | None) -> tuple[Ledger, dict[str, Any]]:
    from grader.boards import build_snapshot, load_inputs, load_prices
    from ledger import find_edition, latest_edition

    store = open_ledger(database, create=False)
    edition_id = find_edition(store, ref) if ref is not None else None if all_editions else latest_edition(store)
    prices, notes = load_prices(prices_path) if prices_path is not None else ({}, {})
    return store, build_snapshot(load_inputs(store, edition_id, include_grades=include_grades), prices=prices,
                                 price_notes=notes)


def _probe_cache(database: str | None, ref: str | None, all_editions: bool, include_grades: bool,
                 prices_path: Path | None) -> board_cache.Probe | None:
    """The question asked of the board cache (grader/board_cache.py) for a plain SQLite ledger; None otherwise."""
    # the ledger's own default (ledger.default_database_url) without importing the ledger: a hit must stay light
    path = board_cache.sqlite_file(database or f"sqlite:///{Path('grader.db').resolve()}")
    if path is None or not path.is_file():
        return None
    try:
        prices = hashlib.sha256(prices_path.read_bytes()).hexdigest() if prices_path is not None else ""
    except OSError:
        return None   # the computing path reports the file
    arguments = f"edition={ref!r}|all={all_editions}|grades={include_grades}|prices={prices}"
    return board_cache.probe(path, arguments)


def warm_board_cache(database: str, name: str) -> None:
    """Compute and keep `grader board NAME --json`'s answer, and the default question's (`grader board --json`)
    when NAME is the newest edition, so the first board asked after a run is a cache hit too (issue 15). Only a
    plain SQLite ledger has a board cache; the answer is the one the command would compute."""
    if board_cache.sqlite_file(database) is None:
        return
    text = board_json(database, name)
    newest = _probe_cache(database, None, False, False, None)
    if newest is None or newest.answer is not None:
        return
    from ledger import find_edition, latest_edition

    store = open_ledger(database, create=False)
    try:
        if find_edition(store, name) == latest_edition(store):
            board_cache.keep_if_unchanged(newest, text)
    finally:
        store.close()
