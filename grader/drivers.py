"""Agent drivers: how an attempt fills its workspace.  One registry record per driver, and nothing outside this
module asks a driver's name.

A record says what argument the driver takes (`replay:DIR`), where it may run (`host`: on this machine with
`--sandbox none`, or in the agent container; `container`: only in the container), and the one folder it copies
over the workspace (`stage`), which a container mounts read-only — never the battery.  `command:AGENT.toml` runs
a real agent's command in its own image (grader/sandbox/agent.py).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .tasks import Task


class DriverError(ValueError):
    """An unknown driver name or a driver that cannot run; the message lists what exists."""


def copy_tree(src: Path, dst: Path) -> None:
    """Copy src's entries into dst (links kept as links, never followed)."""
    for item in sorted(src.iterdir()):
        target = dst / item.name
        if item.is_symlink():
            target.symlink_to(item.readlink())
        elif item.is_dir():
            shutil.copytree(item, target, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(item, target)


def _oracle(task: Task, _arg: str) -> Path:
    if not task.paths.oracle.is_dir():
        raise DriverError(f"{task.paths.oracle}: the task has no oracle solution")
    return task.paths.oracle


def _replay(_task: Task, arg: str) -> Path:
    if not Path(arg).is_dir():
        raise DriverError(f"replay:{arg}: not a folder")
    return Path(arg)


def _nothing(_task: Task, _arg: str) -> None:
    return None


@dataclass(frozen=True)
class Driver:
    name: str
    help: str
    stage: Callable[[Task, str], Path | None]   # the folder copied over the workspace, or None
    argument: str | None = None                 # what follows `name:` (None: nothing may)
    where: str = "host"                         # "host": also on this machine; "container": only in a container
    own_image: bool = False                     # runs its agent's command in the agent's image (argument: its file)

    def spec(self, arg: str) -> str:
        return f"{self.name}:{arg}" if self.argument else self.name


DRIVERS: dict[str, Driver] = {
    d.name: d
    for d in (
        Driver("oracle", "copy the task's solutions/oracle over the workspace", _oracle),
        Driver("nop", "leave the workspace as given", _nothing),
        Driver("replay", "replay:DIR copies DIR over the workspace", _replay, argument="DIR"),
        Driver("command", "command:AGENT.toml runs an agent's command in its image (--sandbox docker)", _nothing,
               argument="AGENT.toml", where="container", own_image=True),
    )
}


def resolve_driver(spec: str) -> tuple[Driver, str]:
    """'oracle', 'nop', 'replay:DIR' or 'command:AGENT.toml' -> (driver, argument)."""
    name, sep, arg = spec.partition(":")
    driver = DRIVERS.get(name)
    if driver is None:
        raise DriverError(f"unknown agent driver {name!r} (known: {', '.join(sorted(DRIVERS))})")
    if driver.argument and not arg:
        raise DriverError(f"the {name} driver needs an argument: {name}:{driver.argument}")
    if not driver.argument and sep:
        raise DriverError(f"the {name} driver takes no argument (got {spec!r})")
    return driver, arg


def prepare_workspace(task: Task, workspace: Path, spec: str) -> None:
    """On this machine: a fresh copy of the task's workspace/, then the driver's folder on top."""
    driver, arg = resolve_driver(spec)
    if driver.where != "host":
        raise DriverError(f"{spec}: a real agent runs only in a container: add --sandbox docker")
    stage = driver.stage(task, arg)
    workspace.mkdir(parents=True, exist_ok=False)
    copy_tree(task.paths.workspace, workspace)
    if stage is not None:
        copy_tree(stage, workspace)
