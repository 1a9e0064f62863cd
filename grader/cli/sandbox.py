"""`grader sandbox ...`: the agent sandbox's housekeeping."""

from __future__ import annotations

import click

from ._common import handle_errors


@click.group(help="The agent sandbox: hardened per-attempt Docker containers (docs/sandbox.md).")
def sandbox() -> None:
    pass


@sandbox.command("cleanup", help="Remove every container and network the sandbox left behind (by label).")
@handle_errors
def sandbox_cleanup() -> None:
    from grader.sandbox import cleanup

    click.echo(f"removed {cleanup()}")
