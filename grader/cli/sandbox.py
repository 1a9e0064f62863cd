"""`grader sandbox ...`: the agent sandbox's housekeeping."""

from __future__ import annotations

import click

from ._common import handle_errors


@click.group(help="The agent sandbox: hardened per-attempt Docker containers (docs/sandbox.md).")
def sandbox() -> None:
    pass


@sandbox.command("cleanup", help="Remove what graders that are gone left behind: their sandbox containers (with "
                                  "their volumes), networks and staging folders. Live graders' attempts are never "
                                  "touched.")
@handle_errors
def sandbox_cleanup() -> None:
    from grader.sandbox import cleanup

    click.echo(f"removed {cleanup()}")
