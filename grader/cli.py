"""The `grader` command.  Library first: each command parses, calls one library function, renders."""

from __future__ import annotations

import click

from engine import SETTINGS


@click.group(help="grader: a deterministic grader for UrhoX Lua games built by AI agents.")
def cli() -> None:
    pass


@cli.command(help="List the engine's settings and limits with their defaults.")
def settings() -> None:
    for s in SETTINGS:
        click.echo(f"{s.name:<20} {s.default!s:<14} {s.help}")


def main() -> None:
    cli()
