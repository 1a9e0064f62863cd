"""Conformance sweep: run every UrhoX/Urho3D Lua game under some folders through the engine and tally outcomes.

    python bench/conformance.py [--seconds S] [--lib DIR]... [--jobs N] [--json] DIR...

A game is a folder holding `scripts/main.lua`; a scripts folder, one holding a `main.lua` that defines a global
`Start()` beside modules of its own (as TapTap's dev-kit examples ship their multi-file games, to be copied into a
project's `scripts/`); or a loose sample script `*.lua` that defines `Start()` (as Urho3D's
`bin/Data/LuaScripts/NN_Name.lua` do). A scripts folder runs as the `scripts/` of a temporary game folder, a loose
script as its `scripts/main.lua`, so `require "LuaScripts/Utilities/Sample"` resolves from the engine's own
library. Each game runs in a fresh subprocess exactly as `python -m engine run --json --scripted-input` runs it.
Printed paths are relative to the folder given on the command line.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

if __package__ in (None, ""):  # run as a script: make the repository's packages importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import OUTCOMES, BadInputError, EngineError, RunRequest, SetupError, run_in_subprocess

ENTRY = "scripts/main.lua"
SUMMARY_KEYS = ("outcome", "frames", "sim_seconds", "errors", "missing_api", "requirements", "exit_requested")
# Outcomes of the sweep itself, beyond the engine's: the engine refused the game or its worker died.
EXTRA_OUTCOMES = ("bad_input", "engine_error")
START_RE = re.compile(rb"^\s*function\s+Start\s*\(", re.MULTILINE)
SKIP_DIRS = {".git", "__pycache__", "node_modules"}


@dataclass(frozen=True)
class Game:
    """One game found under `root`: a game folder, or a loose script (`script` set)."""

    root: Path
    path: Path
    script: bool = False
    scripts_folder: bool = False

    @property
    def label(self) -> str:
        try:
            rel = self.path.relative_to(self.root).as_posix()
        except ValueError:
            rel = self.path.name
        if rel == ".":
            rel = self.path.name
        return rel


def is_loose_script(path: Path) -> bool:
    """A `.lua` file that defines a global Start() (a sample's entry), not a library module."""
    if path.suffix != ".lua" or not path.is_file():
        return False
    try:
        return START_RE.search(path.read_bytes()) is not None
    except OSError:
        return False


def find_games(root: Path) -> list[Game]:
    """Every game under `root` (itself a game folder, a loose script, or a folder to search), sorted by path."""
    root = Path(root)
    if root.is_file():
        return [Game(root.parent, root, script=True)] if is_loose_script(root) else []
    games: list[Game] = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        if (here / ENTRY).is_file():
            games.append(Game(root, here))
            dirnames[:] = []   # a game's own files are not separate games
            continue
        if is_loose_script(here / "main.lua") and (dirnames or len(filenames) > 1):
            games.append(Game(root, here, scripts_folder=True))
            dirnames[:] = []
            continue
        for name in sorted(filenames):
            path = here / name
            if is_loose_script(path):
                games.append(Game(root, path, script=True))
    return sorted(games, key=lambda g: g.label)


def _clean_text(text: str, replacements: Sequence[tuple[str, str]]) -> str:
    for old, new in replacements:
        if old:
            text = text.replace(old, new)
    return text


def run_game(game: Game, seconds: float, lib_dirs: Sequence[str] = ()) -> dict[str, Any]:
    """Run one game in a fresh engine subprocess with scripted input; returns {"path": ..., **summary}."""
    tmp: str | None = None
    game_dir = game.path
    replacements: list[tuple[str, str]] = []
    try:
        if game.script or game.scripts_folder:
            tmp = tempfile.mkdtemp(prefix="grader-conformance-")
            game_dir = Path(tmp) / game.path.stem
            if game.script:
                (game_dir / "scripts").mkdir(parents=True)
                shutil.copyfile(game.path, game_dir / ENTRY)
            else:
                # links stay links: the engine judges them as in any game folder
                shutil.copytree(game.path, game_dir / "scripts", symlinks=True)
            replacements.append((str(game_dir), game.label))
            replacements.append((tmp, "<tmp>"))
        replacements.append((str(game.path.resolve()), game.label))
        replacements.append((str(game.root.resolve()), "."))
        request = RunRequest(game_dir=str(game_dir.resolve()), seconds=seconds, lib_dirs=tuple(lib_dirs),
                             scripted_input=True)
        try:
            report = run_in_subprocess(request)
        except (BadInputError, SetupError) as exc:
            report = _failure("bad_input", str(exc))
        except EngineError as exc:
            report = _failure("engine_error", str(exc))
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    summary = {k: report[k] for k in SUMMARY_KEYS if k in report}
    for err in summary.get("errors") or []:
        for key in ("message", "traceback"):
            if isinstance(err.get(key), str):
                err[key] = _clean_text(err[key], replacements)
    return {"path": game.label, **summary}


def _failure(outcome: str, message: str) -> dict[str, Any]:
    return {"outcome": outcome, "frames": None, "sim_seconds": None, "missing_api": [], "requirements": [],
            "exit_requested": False, "errors": [{"message": message, "frame": None, "phase": "engine"}]}


def run_all(roots: Sequence[Path], seconds: float = 10.0, lib_dirs: Sequence[str] = (),
            jobs: int = 1) -> Iterator[dict[str, Any]]:
    """Results for every game under `roots`, in the order found (roots in order, games sorted by path)."""
    games = [g for root in roots for g in find_games(Path(root))]
    if jobs <= 1:
        for game in games:
            yield run_game(game, seconds, lib_dirs)
        return
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(lambda g: run_game(g, seconds, lib_dirs), games)


def totals(results: Sequence[dict[str, Any]]) -> dict[str, int]:
    """How many games ended with each outcome (every outcome listed, zeros included)."""
    counts = dict.fromkeys((*OUTCOMES, *EXTRA_OUTCOMES), 0)
    for r in results:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    counts["total"] = len(results)
    return counts


def first_problem(result: dict[str, Any]) -> str:
    """The first missing API name, else the first error message (one line), else ''."""
    if result.get("missing_api"):
        names = result["missing_api"]
        more = f" (+{len(names) - 1} more)" if len(names) > 1 else ""
        return names[0] + more
    errors = result.get("errors") or []
    if errors:
        lines = [line for line in str(errors[0].get("message", "")).strip().splitlines() if line.strip()]
        if not lines:
            return ""
        # a dead worker's message ends with the Python exception; a Lua error's first line says it all
        return lines[-1].strip() if result.get("outcome") == "engine_error" else lines[0]
    return ""


@click.command(help=__doc__.split("\n\n")[0])
@click.argument("dirs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--seconds", type=float, default=10.0, show_default=True, help="simulated seconds per game")
@click.option("--lib", "libs", multiple=True, type=click.Path(file_okay=False, exists=True),
              help="a Lua library folder (also from $GRADER_LUA_LIBS)")
@click.option("--jobs", type=int, default=1, show_default=True, help="games run at the same time")
@click.option("--json", "as_json", is_flag=True, help="one JSON object per game per line, then the totals")
def main(dirs: tuple[Path, ...], seconds: float, libs: tuple[str, ...], jobs: int, as_json: bool) -> None:
    from_env = [p for p in os.environ.get("GRADER_LUA_LIBS", "").split(os.pathsep) if p]
    lib_dirs = tuple(str(Path(p).resolve()) for p in (*libs, *from_env))
    results: list[dict[str, Any]] = []
    if as_json:
        for result in run_all(dirs, seconds, lib_dirs, jobs):
            results.append(result)
            click.echo(json.dumps(result, sort_keys=True))
        click.echo(json.dumps({"totals": totals(results)}, sort_keys=True))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(shutil.get_terminal_size((160, 24)).columns, 120))
    table = Table(title=f"conformance ({seconds:g} simulated s, scripted input)")
    for col in ("game", "outcome", "frames", "first error / missing API"):
        table.add_column(col, overflow="fold")
    for result in run_all(dirs, seconds, lib_dirs, jobs):
        results.append(result)
        style = "green" if result["outcome"] == "clean" else "yellow" if result["outcome"] == "missing_api" else "red"
        table.add_row(result["path"], f"[{style}]{result['outcome']}[/]", str(result.get("frames")),
                      first_problem(result))
    console.print(table)
    counts = totals(results)
    console.print("  ".join(f"{k}: {v}" for k, v in counts.items() if v or k in ("clean", "total")))


if __name__ == "__main__":
    main()
