"""`python -m engine`: run a game headless, report API coverage, write annotation stubs."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from ._errors import BadInputError, EngineError, SetupError
from ._runner import START_ENV, START_MODES, RunRequest, execute, run_in_subprocess, worker_main
from ._settings import SETTINGS

LIBS_ENV = "GRADER_LUA_LIBS"


def _lib_dirs(libs: tuple[str, ...]) -> tuple[str, ...]:
    from_env = [p for p in os.environ.get(LIBS_ENV, "").split(os.pathsep) if p]
    return tuple(str(Path(p).resolve()) for p in (*libs, *from_env))


@click.group(help="The grader's headless UrhoX engine.")
def cli() -> None:
    pass


@cli.command(
    help="Run a game folder (with scripts/main.lua) headless and report how it ended.\n\n"
    "Exit 0 when the run ended with no Lua error and no limit hit, 1 otherwise, 2 on bad input. "
    f"Library folders also come from ${LIBS_ENV} (a path list).\n\nSettings: "
    + "; ".join(f"{s.name} (default {s.default}): {s.help}" for s in SETTINGS)
)
@click.argument("game_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--seconds", type=click.FloatRange(0, 3600, min_open=True), default=10.0, show_default=True,
              help="simulated seconds to run")
@click.option("--battery", type=click.Path(dir_okay=False, path_type=Path), help="a battery file to run instead")
@click.option("--lib", "libs", multiple=True, type=click.Path(file_okay=False), help="a Lua library folder")
@click.option("--dump", type=click.Path(dir_okay=False, path_type=Path), help="write the scene dump here (JSON)")
@click.option("--scripted-input", is_flag=True, help="inject seeded random key, mouse and touch input")
@click.option("--in-process", is_flag=True, help="run in this process (no wall-clock kill)")
@click.option("--start", type=click.Choice(START_MODES), default=None,
              help=f"start the run's process forked from a pre-booted engine or cold [default: ${START_ENV} or "
                   "prebooted]; the report is the same (docs/engine-runs.md)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON summary object")
def run(game_dir: Path, seconds: float, battery: Path | None, libs: tuple[str, ...], dump: Path | None,
        scripted_input: bool, in_process: bool, start: str | None, as_json: bool) -> None:
    if not game_dir.is_dir():
        click.echo(f"Error: {game_dir}: not a game folder", err=True)
        sys.exit(2)
    if dump is not None and not dump.parent.is_dir():
        click.echo(f"Error: --dump {dump}: its folder does not exist", err=True)
        sys.exit(2)
    request = RunRequest(
        game_dir=str(game_dir.resolve()), seconds=seconds, battery=str(battery.resolve()) if battery else None,
        lib_dirs=_lib_dirs(libs), scripted_input=scripted_input, dump=dump is not None,
    )
    try:
        report = execute(request) if in_process else run_in_subprocess(request, start=start)
    except (BadInputError, SetupError) as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    except EngineError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(1)
    scene = report.pop("scene", None)
    if dump is not None:
        dump.write_text(json.dumps(scene, indent=1, sort_keys=True))
    if as_json:
        summary = {k: report[k] for k in ("outcome", "frames", "sim_seconds", "errors", "missing_api",
                                          "requirements", "exit_requested") if k in report}
        click.echo(json.dumps(summary, sort_keys=True))
    else:
        _print_report(report)
    sys.exit(0 if report["outcome"] == "clean" else 1)


def _print_report(report: dict) -> None:
    from rich.console import Console

    console = Console()
    style = "green" if report["outcome"] == "clean" else "red"
    console.print(f"[{style}]{report['outcome']}[/] after {report['frames']} frames "
                  f"({report['sim_seconds']} simulated s)")
    for err in report["errors"][:20]:
        console.print(f"[red]error[/] frame {err.get('frame')}: {err.get('message')}")
    if report["missing_api"]:
        console.print("[yellow]missing API:[/] " + ", ".join(report["missing_api"]))
    for entry in report["log"][-20:]:
        console.print(f"[dim]{entry['frame']:>6} {entry['level']:<7}[/] {entry['message']}")
    for req in report.get("requirements", []):
        mark = "[green]PASS[/]" if req.get("passed") else "[red]FAIL[/]"
        console.print(f"{mark} {req['id']}")
        for check in req["checks"]:
            if not check["passed"]:
                console.print(f"      {check['name']}: expected {check.get('expected')} got {check.get('actual')}")


@cli.command(help="Count what the registry declares and the runtime implements.")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.option("--missing", is_flag=True, help="list every declared but unimplemented member")
def coverage(as_json: bool, missing: bool) -> None:
    from ._coverage import coverage_report

    report = coverage_report()
    if as_json:
        click.echo(json.dumps(report, sort_keys=True, indent=1))
        return
    for kind, row in report["totals"].items():
        click.echo(f"{kind:<12} {row['implemented']:>5} / {row['declared']:<5}")
    if report["undeclared"]:
        click.echo("implemented but not declared: " + ", ".join(report["undeclared"]))
    if missing:
        for name in report["missing"]:
            click.echo(name)


@cli.command(help="Write the EmmyLua annotation stubs that L1 checks against (generated from the registry).")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
def stubs(out_dir: Path) -> None:
    from ._registry import default_registry
    from ._stubs import write_stubs

    for path in write_stubs(default_registry(), out_dir):
        click.echo(path)


@cli.command("_worker", hidden=True)
@click.argument("result_path")
def worker(result_path: str) -> None:
    sys.exit(worker_main(result_path))


@cli.command("_zygote", hidden=True)
@click.argument("control_fd", type=int)
def zygote(control_fd: int) -> None:
    from ._zygote import serve

    sys.exit(serve(control_fd))


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
