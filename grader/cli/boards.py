"""`grader board`: the boards of an edition, from the ledger."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from grader.tasks import TaskError

from ._common import console, database_option, handle_errors, json_option, open_ledger


@click.command(help="The edition's boards from the ledger: scores with 95% CIs, rank ranges, attempts, time and "
               "cost.\n\nEDITION (or --edition) is an edition's name or id; without it, every recorded result "
               "(attempts without a model are named by their driver). --out DIR writes snapshot.json and index.html "
               "there; --json prints the snapshot.")
@click.argument("edition", required=False)
@click.option("--edition", "edition_opt", default=None, metavar="NAME|ID", help="an edition of the ledger")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="write snapshot.json and index.html into this folder")
@click.option("--prices", "prices_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="TOML list prices (USD per million tokens) by model label, for the cost column "
                   "(docs/statistics.md); without it cost shows N/A")
@database_option
@json_option
@handle_errors
def board(edition: str | None, edition_opt: str | None, out: Path | None, prices_path: Path | None,
          database: str | None, as_json: bool) -> None:
    from grader.boards import build_snapshot, canonical_json, load_inputs, load_prices, write_board
    from ledger import find_edition

    if edition is not None and edition_opt is not None and edition != edition_opt:
        raise TaskError(f"EDITION {edition} and --edition {edition_opt} disagree")
    store = open_ledger(database, create=False)
    ref = edition if edition is not None else edition_opt
    edition_id = find_edition(store, ref) if ref is not None else None
    prices, notes = load_prices(prices_path) if prices_path is not None else ({}, {})
    snapshot = build_snapshot(load_inputs(store, edition_id), prices=prices, price_notes=notes)
    if out is not None:
        write_board(snapshot, out)
    if as_json:
        click.echo(canonical_json(snapshot), nl=False)
        return
    overall = snapshot["boards"].get("overall")
    if overall is None:
        console.print("no public results in the ledger")
        return
    table = Table("rank", "model", "score", "95% CI", "attempts", "time/task", "cost/task",
                  title=f"overall ({overall['tasks']} tasks, {overall['replicates']} replicates)")
    for m in overall["models"]:
        rank = f"{m['rank']} ({m['rank_range'][0]}-{m['rank_range'][1]})"
        time_s = "-" if m["time_per_task_seconds"] is None else f"{m['time_per_task_seconds']:.2f} s"
        cost = m["cost_per_task_usd"]
        ci = f"{m['ci'][0]:.1%}-{m['ci'][1]:.1%} [dim]{m['ci_method']}[/]"
        table.add_row(rank, m["model"], f"{m['score']:.1%}", ci,
                      f"{m['passes']}/{m['attempts']}", time_s, cost if isinstance(cost, str) else f"${cost:.4f}")
    for r in overall["refused"]:
        table.add_row("-", r["model"], f"[dim]not ranked: {r['reason']}[/]", "", "", "", "")
    console.print(table)
    if out is not None:
        console.print(f"wrote {out / 'snapshot.json'} and {out / 'index.html'}")
