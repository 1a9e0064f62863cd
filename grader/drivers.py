"""Agent drivers: how an attempt fills its workspace.  One registry record per driver, and nothing outside this
module asks a driver's name.

A record says what argument the driver takes (`replay:DIR`), where it may run (`host`: on this machine with
`--sandbox none`, or in the agent container; `container`: only in the container), and the one folder it copies
over the workspace (`stage`, chosen per task and repetition), which a container mounts read-only — never the
battery.  `command:AGENT.toml` runs a real agent's command in its own image (grader/sandbox/agent.py); `loop` runs
the agent loop that ships with the grader against one model of a models.toml (grader/agent_loop/, docs/agents.md).
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .tasks import Task, solution_folder, workspace_folder, wrong_solution_names


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


def _oracle(task: Task, _arg: str, _repetition: int) -> Path:
    if not task.paths.oracle.is_dir():
        raise DriverError(f"{task.paths.oracle}: the task has no oracle solution")
    return solution_folder(task, "oracle")


def _replay(_task: Task, arg: str, _repetition: int) -> Path:
    if not Path(arg).is_dir():
        raise DriverError(f"replay:{arg}: not a folder")
    return Path(arg)


def _nothing(_task: Task, _arg: str, _repetition: int) -> None:
    return None


# Scripted imperfect baselines: how often each solves a task.  They give a fresh machine a board with spread
# (non-trivial CIs and rank ranges) and no model: each attempt hands in the task's oracle or one of its wrong
# solutions (which fail different requirements, solutions/expect.toml), drawn from the SHA-256 of the profile,
# the task and the repetition, so every run of an edition draws the same.
SCRIPTED = {"steady": 0.75, "erratic": 0.45, "careless": 0.2}


def _scripted(task: Task, arg: str, repetition: int) -> Path:
    draw = hashlib.sha256(f"scripted/1|{arg}|{task.qualified_id}|{repetition}".encode()).digest()
    solves = int.from_bytes(draw[:8], "big") / 2**64 < SCRIPTED[arg]
    wrong = wrong_solution_names(task)
    if solves or not wrong:
        return _oracle(task, arg, repetition)
    return solution_folder(task, wrong[int.from_bytes(draw[8:16], "big") % len(wrong)])


@dataclass(frozen=True)
class Driver:
    name: str
    help: str
    stage: Callable[[Task, str, int], Path | None]   # (task, argument, repetition) -> the folder copied, or None
    argument: str | None = None                 # what follows `name:` (None: nothing may)
    where: str = "host"                         # "host": also on this machine; "container": only in a container
    own_image: bool = False                     # runs its agent's command in the agent's image (argument: its file)
    choices: tuple[str, ...] = ()               # the arguments it accepts, when they are a fixed set
    drives_model: bool = False                  # drives a models.toml entry: the argument names one (MODELS.toml#KEY),
                                                # or an edition's plan gives it (models.toml: driver = "loop")

    def spec(self, arg: str) -> str:
        return f"{self.name}:{arg}" if self.argument else self.name


DRIVERS: dict[str, Driver] = {
    d.name: d
    for d in (
        Driver("oracle", "copy the task's solutions/oracle over the workspace", _oracle),
        Driver("nop", "leave the workspace as given", _nothing),
        Driver("replay", "replay:DIR copies DIR over the workspace", _replay, argument="DIR"),
        Driver("scripted", f"scripted:{'|'.join(SCRIPTED)} hands in the oracle or a wrong-* solution, drawn per "
               "task and repetition (an imperfect baseline with no model)", _scripted, argument="PROFILE",
               choices=tuple(SCRIPTED)),
        Driver("command", "command:AGENT.toml runs an agent's command in its image (--sandbox docker)", _nothing,
               argument="AGENT.toml", where="container", own_image=True),
        Driver("loop", "loop:MODELS.toml#KEY runs the shipped agent loop against that model (--sandbox docker)",
               _nothing, argument="MODELS.toml#KEY", where="container", drives_model=True),
    )
}


def resolve_driver(spec: str) -> tuple[Driver, str]:
    """'oracle', 'nop', 'replay:DIR', 'command:AGENT.toml' or 'loop:MODELS.toml#KEY' -> (driver, argument).  A
    driver that drives a model may come bare ('loop'): a plan's model entry is its argument."""
    name, sep, arg = spec.partition(":")
    driver = DRIVERS.get(name)
    if driver is None:
        raise DriverError(f"unknown agent driver {name!r} (known: {', '.join(sorted(DRIVERS))})")
    if driver.argument and not arg and not (driver.drives_model and not sep):
        raise DriverError(f"the {name} driver needs an argument: {name}:{driver.argument}")
    if not driver.argument and sep:
        raise DriverError(f"the {name} driver takes no argument (got {spec!r})")
    if driver.choices and arg not in driver.choices:
        raise DriverError(f"{spec}: unknown {driver.argument} {arg!r} (known: {', '.join(driver.choices)})")
    return driver, arg


def prepare_workspace(task: Task, workspace: Path, spec: str, repetition: int = 0) -> None:
    """On this machine: a fresh copy of the task's workspace/ (rendered with its parameters), then the driver's
    folder on top."""
    driver, arg = resolve_driver(spec)
    if driver.where != "host":
        raise DriverError(f"{spec}: a real agent runs only in a container: add --sandbox docker")
    stage = driver.stage(task, arg, repetition)
    workspace.mkdir(parents=True, exist_ok=False)
    copy_tree(workspace_folder(task), workspace)
    if stage is not None:
        copy_tree(stage, workspace)
