"""`grader settings`: the engine's and the grader's settings and limits, with their defaults."""

from __future__ import annotations

import click

from engine import SETTINGS as ENGINE_SETTINGS
from grader._settings import SETTINGS as GRADER_SETTINGS

from ._common import emit, json_option


@click.command(help="List the engine's and the grader's settings and limits with their defaults.\n\n"
               "Scope `task`: a task's task.toml [limits] may override it under the same name.")
@json_option
def settings(as_json: bool) -> None:
    rows = [{"name": s.name, "default": s.default, "scope": "engine", "help": s.help} for s in ENGINE_SETTINGS]
    rows += [{"name": s.name, "default": s.default, "scope": s.scope, "help": s.help} for s in GRADER_SETTINGS]
    if as_json:
        emit(rows)
        return
    for r in rows:
        click.echo(f"{r['name']:<22} {r['default']!s:<14} {r['scope']:<7} {r['help']}")
