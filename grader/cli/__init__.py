"""The `grader` command.  Library first: each command parses, calls one library function, renders; one module
per command group."""

from __future__ import annotations

import click

from .boards import board
from .editions import edition
from .grading import attempt, grade, run_suite
from .ledger import ledger, replay, results, show
from .sandbox import sandbox
from .settings import settings
from .tasks import tasks


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from engine import ENGINE_VERSION, engine_build
    from grader._version import GRADER_VERSION, grader_build

    click.echo(f"grader {GRADER_VERSION} (build {grader_build()})\n"
               f"engine {ENGINE_VERSION} (build {engine_build()})")
    ctx.exit(0)


@click.group(help="grader: a deterministic grader for UrhoX Lua games built by AI agents.\n\n"
             "Exit codes: 0 pass or ok, 1 the graded thing failed (or a verification found a break), 2 bad input or "
             "configuration, 3 an infrastructure error (docs/cli.md).")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="print the grader's and the engine's versions and content-derived builds")
@click.option("--debug", is_flag=True, help="show tracebacks instead of one-line errors")
def cli(debug: bool) -> None:
    pass


for command in (settings, tasks, grade, attempt, run_suite, sandbox, ledger, edition, results, show, replay, board):
    cli.add_command(command)


def main() -> None:
    cli()
