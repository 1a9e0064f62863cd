"""The live progress of `grader edition run` on stderr: done/total, ETA, and per model the pass rate so far and
the outcomes (infrastructure failures included).  On a terminal a rich display redrawn in place; otherwise one
plain line per finished attempt."""

from __future__ import annotations

import time
from typing import Any

import click
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from grader.edition_run import EditionRun


def _eta(run: EditionRun, elapsed: float) -> str:
    done_now = sum(1 for e in run.events if "outcome" in e)
    left = run.planned - sum(p.recorded for p in run.live.values())
    if left <= 0:
        return "0s"
    if not done_now or elapsed <= 0:
        return "-"
    seconds = left * elapsed / done_now
    return f"{seconds / 60:.0f}m" if seconds >= 120 else f"{seconds:.0f}s"


def render(run: EditionRun, elapsed: float) -> Group:
    done = sum(p.recorded for p in run.live.values())
    share = done / run.planned if run.planned else 1.0
    head = Text(f"edition {run.name}: {done}/{run.planned} recorded ({share:.0%}), {elapsed:.0f}s elapsed, "
                f"eta {_eta(run, elapsed)}")
    table = Table("model", "done", "pass rate", "outcomes", box=None)
    for model, p in run.live.items():
        table.add_row(model, f"{p.recorded}/{p.planned}", f"{p.pass_rate:.0%}" if p.pass_rate is not None else "-",
                      ", ".join(f"{k} {v}" for k, v in sorted(p.outcomes.items())) or "-")
    return Group(head, table)


class EditionProgress:
    """A listener for grader.edition_run.run_edition."""

    def __init__(self) -> None:
        self.console = Console(stderr=True)
        self.live: Live | None = None
        self.start = time.monotonic()

    def __enter__(self) -> EditionProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.stop()

    def __call__(self, run: EditionRun, event: dict[str, Any] | None) -> None:
        elapsed = time.monotonic() - self.start
        if self.live is None and self.console.is_terminal:
            # started on the first call, which comes after the workers are forked: Live redraws from a thread,
            # and a process should not fork while another of its threads may hold a lock
            self.live = Live(console=self.console, refresh_per_second=4, transient=False)
            self.live.start()
        if self.live is not None:
            self.live.update(render(run, elapsed))
            if event and "message" in event:
                self.live.console.print(f"[yellow]{event['message']}[/]", highlight=False)
            return
        if event is None:
            return
        if "message" in event:
            click.echo(event["message"], err=True)
            return
        done = sum(p.recorded for p in run.live.values())
        word = ("duplicate dropped" if event.get("duplicate") else
                ("pass" if event["passed"] else "fail") if event.get("graded") else
                f"not graded ({event['outcome']}{': ' + event['error'] if event.get('error') else ''})")
        click.echo(f"[{done}/{run.planned} {elapsed:.1f}s eta {_eta(run, elapsed)}] {event['model']} "
                   f"{event['task']} r{event['repetition']}: {word}", err=True)

    def summary(self, run: EditionRun) -> None:
        """The final tally, from the ledger, on stdout."""
        out = Console()
        table = Table("model", "recorded", "pass rate", "outcomes")
        for model, p in run.after.items():
            table.add_row(model, f"{p.recorded}/{p.planned}", f"{p.pass_rate:.0%}" if p.pass_rate is not None
                          else "-", ", ".join(f"{k} {v}" for k, v in sorted(p.outcomes.items())) or "-")
        out.print(table)
        state = "interrupted: " if run.interrupted else ""
        out.print(f"{state}edition {run.name}: {run.recorded} of {run.planned} planned attempts recorded "
                  f"({run.missing} missing); this run {sum(1 for e in run.events if 'outcome' in e)} attempts in "
                  f"{run.seconds:.1f} s" + (f" on the queue {run.queue}" if run.queue else ""), highlight=False)
