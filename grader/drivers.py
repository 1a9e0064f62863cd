"""Agent drivers: how an attempt fills its workspace.  One registry record per driver.

Built in: `oracle` (copies the task's solutions/oracle), `nop` (leaves the workspace as given),
`replay:DIR` (copies DIR).  With `--sandbox docker` they run inside the agent container (grader/sandbox): the
one folder a driver copies (`staging_source`) is staged read-only, never the battery.  `command:AGENT.toml`
runs a real agent's command in its own image (grader/sandbox/agent.py): only in the docker sandbox.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .tasks import Task


class DriverError(ValueError):
    """An unknown driver name or a driver that cannot run; the message lists what exists."""


@dataclass(frozen=True)
class Driver:
    name: str
    help: str
    fill: Callable[[Task, Path, str], None]


def _copy_tree(src: Path, dst: Path) -> None:
    for item in sorted(src.iterdir()):
        target = dst / item.name
        if item.is_symlink():
            target.symlink_to(item.readlink())
        elif item.is_dir():
            shutil.copytree(item, target, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(item, target)


def _oracle(task: Task, workspace: Path, _arg: str) -> None:
    if not task.paths.oracle.is_dir():
        raise DriverError(f"{task.paths.oracle}: the task has no oracle solution")
    _copy_tree(task.paths.oracle, workspace)


def _nop(task: Task, workspace: Path, _arg: str) -> None:
    return None


def _command(task: Task, workspace: Path, arg: str) -> None:
    raise DriverError(f"command:{arg}: a real agent runs only in a container: add --sandbox docker")


def _replay(task: Task, workspace: Path, arg: str) -> None:
    src = Path(arg)
    if not src.is_dir():
        raise DriverError(f"replay:{arg}: not a folder")
    _copy_tree(src, workspace)


DRIVERS: dict[str, Driver] = {
    d.name: d
    for d in (
        Driver("oracle", "copy the task's solutions/oracle over the workspace", _oracle),
        Driver("nop", "leave the workspace as given", _nop),
        Driver("replay", "replay:DIR copies DIR over the workspace", _replay),
        Driver("command", "command:AGENT.toml runs an agent's command in its image (--sandbox docker)", _command),
    )
}


def resolve_driver(spec: str) -> tuple[Driver, str]:
    """'oracle', 'nop', 'replay:DIR' or 'command:AGENT.toml' -> (driver, argument)."""
    name, _, arg = spec.partition(":")
    driver = DRIVERS.get(name)
    if driver is None:
        raise DriverError(f"unknown agent driver {name!r} (known: {', '.join(sorted(DRIVERS))})")
    if name == "replay" and not arg:
        raise DriverError("the replay driver needs a folder: replay:DIR")
    if name == "command" and not arg:
        raise DriverError("the command driver needs an agent file: command:AGENT.toml (docs/sandbox.md)")
    return driver, arg


def staging_source(task: Task, spec: str) -> Path | None:
    """The one folder a built-in driver copies over the workspace (staged read-only in a sandbox), or None."""
    driver, arg = resolve_driver(spec)
    if driver.name == "oracle":
        if not task.paths.oracle.is_dir():
            raise DriverError(f"{task.paths.oracle}: the task has no oracle solution")
        return task.paths.oracle
    if driver.name == "replay":
        if not Path(arg).is_dir():
            raise DriverError(f"replay:{arg}: not a folder")
        return Path(arg)
    return None


def prepare_workspace(task: Task, workspace: Path, spec: str) -> None:
    """A fresh copy of the task's workspace/, then the driver's work on top."""
    driver, arg = resolve_driver(spec)
    workspace.mkdir(parents=True, exist_ok=False)
    _copy_tree(task.paths.workspace, workspace)
    driver.fill(task, workspace, arg)
