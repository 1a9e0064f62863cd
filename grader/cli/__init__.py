"""The `grader` command.  Library first: each command parses, calls one library function, renders; one module
per command group."""

from __future__ import annotations

import importlib

import click

# command name -> (module under grader.cli, attribute): each module is imported only when its command runs (or
# when help lists them all), so `grader board` does not pay for the engine, the sandbox or the task loader
COMMANDS = {
    "settings": ("settings", "settings"),
    "tasks": ("tasks", "tasks"),
    "grade": ("grading", "grade"),
    "attempt": ("grading", "attempt"),
    "run": ("grading", "run_suite"),
    "sandbox": ("sandbox", "sandbox"),
    "ledger": ("ledger", "ledger"),
    "edition": ("editions", "edition"),
    "results": ("ledger", "results"),
    "show": ("ledger", "show"),
    "replay": ("ledger", "replay"),
    "board": ("boards", "board"),
    "worker": ("worker", "worker"),
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attribute = COMMANDS[cmd_name]
        command = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
        assert isinstance(command, click.Command) and command.name == cmd_name, cmd_name
        return command

    @property
    def all_commands(self) -> dict[str, click.Command]:
        """Every command, imported (for generated docs and tests that walk the tree)."""
        return {name: command for name in COMMANDS if (command := self.get_command(click.Context(self), name))}


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from engine import ENGINE_VERSION, engine_build
    from grader._version import GRADER_VERSION, grader_build

    click.echo(f"grader {GRADER_VERSION} (build {grader_build()})\n"
               f"engine {ENGINE_VERSION} (build {engine_build()})")
    ctx.exit(0)


@click.group(cls=_LazyGroup, help="grader: a deterministic grader for UrhoX Lua games built by AI agents.\n\n"
             "Exit codes: 0 pass or ok, 1 the graded thing failed (or a verification found a break), 2 bad input or "
             "configuration, 3 an infrastructure error (docs/cli.md).")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="print the grader's and the engine's versions and content-derived builds")
@click.option("--debug", is_flag=True, help="show tracebacks instead of one-line errors")
def cli(debug: bool) -> None:
    pass


def main() -> None:
    cli()
