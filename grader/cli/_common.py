"""What every command shares: the console, the shared options, the error contract, the ledger it opens."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from enum import IntEnum
from typing import Any

import click
from rich.console import Console

console = Console()


class Exit(IntEnum):
    """Every command's exit codes (docs/cli.md)."""

    OK = 0            # pass, ok
    FAILED = 1        # the graded thing failed, or a verification found a break
    BAD_INPUT = 2     # bad input or configuration: one line naming the file, URL or field
    INFRA = 3         # an infrastructure error (Docker, the database server, the engine's process)


def _bad_input() -> tuple[type[BaseException], ...]:
    from engine import BadInputError, ServicesError, SetupError
    from evidence import EvidenceError
    from grader.drivers import DriverError
    from grader.l1 import L1SetupError
    from grader.sandbox import AgentConfigError
    from grader.scale_out import QueueError
    from grader.tasks import TaskError
    from ledger import ArchiveError, LedgerError

    return (TaskError, DriverError, BadInputError, SetupError, ServicesError, L1SetupError, LedgerError,
            ArchiveError, AgentConfigError, EvidenceError, QueueError)


def _infrastructure() -> tuple[type[BaseException], ...]:
    from engine import EngineError
    from grader._containers import ContainerError
    from grader.lifecycle import SandboxInfraError
    from grader.scale_out import QueueUnavailableError
    from ledger import LedgerUnavailableError

    return (ContainerError, SandboxInfraError, EngineError, LedgerUnavailableError, QueueUnavailableError)


def fail(code: Exit, message: str) -> None:
    click.echo(f"Error: {message}", err=True)
    sys.exit(int(code))


def handle_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Bad input and configuration exit 2, infrastructure failures 3: one line on stderr, no traceback unless
    `grader --debug`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        debug = bool((click.get_current_context().find_root().params or {}).get("debug"))
        try:
            return fn(*args, **kwargs)
        except _infrastructure() as exc:   # first: LedgerUnavailableError is a LedgerError too
            if debug:
                raise
            fail(Exit.INFRA, str(exc))
        except _bad_input() as exc:
            if debug:
                raise
            fail(Exit.BAD_INPUT, str(exc))

    return wrapper


def emit(data: Any) -> None:
    click.echo(json.dumps(data, sort_keys=True, indent=1))


def json_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="print JSON for machines")(fn)


def database_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--database", "database", envvar="GRADER_DATABASE_URL", default=None,
                        help="ledger URL (default: $GRADER_DATABASE_URL, else sqlite:///grader.db here)")(fn)


def record_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--no-record", is_flag=True, help="do not write the result to the ledger")(fn)


def open_ledger(database: str | None, *, create: bool = True) -> Any:
    """The ledger at `database`; read-only commands pass create=False, so a mistyped path is an error rather than
    a new, empty ledger."""
    from ledger import Ledger

    return Ledger(database, create=create)


def grade_in_container_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--grade-in-container: each attempt graded in a container of the grader image of its own (`run`,
    `edition run`)."""
    return click.option("--grade-in-container", "grade_in_container", is_flag=True,
                        help="grade each attempt in a fresh container of the grader image, each started after the "
                             "previous attempt is graded (docs/sandbox.md)")(fn)
