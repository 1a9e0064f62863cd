"""`grader grade`, `grader attempt` and `grader run`: grading a deliverable, and the attempt lifecycle."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from grader.drivers import DriverError, resolve_driver
from grader.pipeline import GradeResult
from grader.tasks import Suite, Task, TaskError, find_task

from ._common import (
    Exit,
    console,
    database_option,
    emit,
    fail,
    grade_in_container_option,
    handle_errors,
    json_option,
    open_ledger,
    record_option,
)
from ._render import render_verdict

INTERRUPTED = 130   # the shell's code for a command stopped by SIGINT


def _finish(result: GradeResult, result_hash: str | None, ledger: Any, as_json: bool, **extra: Any) -> None:
    if as_json:
        emit({"result_hash": result_hash, "ledger": ledger.display_url if ledger else None,
              "verdict": result.verdict.to_json(), "timings": result.timings, **extra})
    else:
        render_verdict(result.verdict, result.timings)
        if result_hash:
            console.print(f"  result {result_hash} in {ledger.display_url}", highlight=False)
        for key, value in extra.items():
            console.print(f"  {key.replace('_', ' ')}: {value}", highlight=False)
    sys.exit(Exit.OK if result.verdict.passed else Exit.FAILED)


@click.command(help="Grade a deliverable folder against a task (an id, suite/id, or a task folder).\n\n"
               "--in-container grades in a fresh container of the grader image (built from this checkout and this "
               "machine's Python environment; docs/sandbox.md). Exit 0 when it passes, 1 when it fails, 2 on bad "
               "input (a deliverable that is not a folder), 3 when the grading container fails.")
@click.argument("task_ref")
@click.argument("deliverable", type=click.Path(path_type=Path))
@click.option("--in-container", "in_container", is_flag=True,
              help="run L0-L2 in a fresh container that sees only the task and the deliverable, read-only")
@click.option("--params-seed", "params_seed", default=None, metavar="SEED",
              help="a parameterised task: grade under the values SEED draws (default: 'default'; docs/tasks.md)")
@database_option
@record_option
@json_option
@handle_errors
def grade(task_ref: str, deliverable: Path, in_container: bool, params_seed: str | None, database: str | None,
          no_record: bool, as_json: bool) -> None:
    from grader.lifecycle import Filled
    from grader.pipeline import grade as run_grade
    from grader.recording import record_graded
    from grader.tasks import with_params_seed

    task = find_task(task_ref)
    if params_seed is not None:
        task = with_params_seed(task, params_seed)
    if not deliverable.is_dir() or deliverable.is_symlink():
        raise TaskError(f"{deliverable}: the deliverable must be a folder")
    if task.param_specs and deliverable.resolve() == task.paths.oracle.resolve():
        click.echo(f"Warning: {deliverable} is the oracle as written, with {{{{params.*}}}} placeholders: "
                   f"`grader tasks solution {task.qualified_id} oracle` gives it rendered", err=True)
    ledger = None if no_record else open_ledger(database)
    if in_container:
        from grader.grading_container import grade_in_container

        result = grade_in_container(task, deliverable)
    else:
        result = run_grade(task, deliverable)
    result_hash = None
    if ledger is not None:
        result_hash = record_graded(ledger, task, result, Filled(driver="grade"))
    _finish(result, result_hash, ledger, as_json)


def agent_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--sandbox, --gateway, --pass-env, --edition, --runs-dir and --infra-retries: shared by attempt and run."""
    fn = click.option("--infra-retries", type=click.IntRange(0, 10), default=None,
                      help="how many times an attempt the sandbox failed is run again (default: grader "
                           "settings)")(fn)
    fn = click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
                      show_default=True, help="where each run's folder goes")(fn)
    fn = click.option("--edition", "edition", default=None, metavar="NAME|ID",
                      help="record under this edition (its name or id); every pin it holds is checked before "
                           "any work")(fn)
    fn = click.option("--pass-env", "pass_env", multiple=True, metavar="NAME",
                      help="pass this environment variable to the agent's container by name (repeatable; the "
                           "value is never logged nor stored)")(fn)
    fn = click.option("--gateway", "gateway", default=None, metavar="URL",
                      help="the inference gateway the agent may reach, through an allow-list proxy "
                           "(docker; else the agent file's [gateway], else no network)")(fn)
    return click.option("--sandbox", type=click.Choice(["none", "docker"]), default="none", show_default=True,
                        help="docker: the agent runs in a hardened per-attempt container (docs/sandbox.md)")(fn)


def _prepare(agents: list[str], sandbox: str, gateway: str | None, pass_env: tuple[str, ...],
             edition: str | None, ledger: Any, suite: Suite | None) -> tuple[list[Any], int | None]:
    """Every agent prepared and every pin checked, before any work: (prepared agents, edition id)."""
    from grader import editions
    from grader.lifecycle import AttemptOptions, prepare_agent

    if edition is not None and ledger is None:
        raise TaskError("--edition records under an edition: it cannot go with --no-record")
    options = AttemptOptions(sandbox=sandbox, gateway=gateway, pass_env=pass_env)
    prepared = [prepare_agent(agent, options) for agent in agents]
    edition_id = None
    if edition is not None:
        edition_id = editions.check(ledger, edition, suite, [p.profile_hash for p in prepared])
    if sandbox == "none":
        click.echo("Warning: --sandbox none: nothing is isolated; drivers run on this machine as you", err=True)
    return prepared, edition_id


@click.command(help="Run one attempt with an agent driver and grade it.\n\n"
               "Drivers: oracle, nop, replay:DIR (built in), command:AGENT.toml (a real agent in its own image, "
               "--sandbox docker; docs/sandbox.md) and loop:MODELS.toml#KEY (the agent loop that ships with the "
               "grader, against that model, --sandbox docker; docs/agents.md). The attempt's folder (workspace, "
               "verdict, timings) is written under runs/. Exit 0 pass, 1 fail, 2 bad input, 3 when the sandbox "
               "failed past its retries.")
@click.argument("task_ref")
@click.option("--agent", "agent", default="nop", show_default=True,
              help="oracle | nop | replay:DIR | command:AGENT.toml | loop:MODELS.toml#KEY")
@agent_options
@database_option
@record_option
@json_option
@handle_errors
def attempt(task_ref: str, agent: str, runs_dir: Path, infra_retries: int | None, sandbox: str, gateway: str | None,
            pass_env: tuple[str, ...], edition: str | None, database: str | None, no_record: bool,
            as_json: bool) -> None:
    from grader import editions
    from grader.lifecycle import AttemptPaths, run_attempts
    from grader.replay import suite_of

    task = find_task(task_ref)
    resolve_driver(agent)   # a driver that does not exist is bad input before the ledger is opened (or made)
    ledger = None if no_record else open_ledger(database)
    prepared, edition_id = _prepare([agent], sandbox, gateway, pass_env, edition, ledger,
                                    suite_of(task) if edition is not None else None)
    if edition_id is not None and ledger is not None:
        (task,) = editions.edition_tasks(ledger, edition_id, [task])
    run = run_attempts([task], prepared, runs_dir, ledger=ledger, edition_id=edition_id,
                       infra_retries=infra_retries)
    if run.interrupted:
        click.echo("Error: interrupted before the attempt was recorded", err=True)
        sys.exit(INTERRUPTED)
    (summary,) = run.attempts
    for warning in summary.warnings:
        click.echo(f"Warning: {warning}", err=True)
    if not summary.graded:
        fail(Exit.INFRA, f"{summary.warnings[-1] if summary.warnings else summary.outcome} (recorded without a "
                         f"result after {summary.infra_failures} tries; not graded)")
    paths = AttemptPaths(Path(summary.attempt_dir))
    sandboxed = paths.read_sandbox() or {}
    extra = {k: sandboxed[k] for k in ("profile_hash", "usage") if k in sandboxed}
    _finish(paths.read_result(), summary.result_hash, ledger, as_json, **extra, run_id=run.run.run_id,
            attempt_dir=summary.attempt_dir, driver=prepared[0].driver, outcome=summary.outcome.value)


def _suite(ref: str) -> Suite:
    from grader.editions import resolve_suite

    return resolve_suite(ref)[0]


def _agent_summary(spec: str, attempts: list[Any]) -> dict[str, Any]:
    mine = [a for a in attempts if a.agent == spec]
    graded = [a for a in mine if a.graded]
    funnel = {"L0": 0, "L1": 0, "L2": 0, "passed": 0}
    for a in graded:
        funnel[a.first_failed_level.value if a.first_failed_level else "passed"] += 1
    passed = sum(bool(a.passed) for a in graded)
    return {"attempts": len(mine), "graded": len(graded), "passed": passed,
            "pass_rate": passed / len(graded) if graded else None, "funnel": funnel,
            "not_graded": len(mine) - len(graded), "infra_failures": sum(a.infra_failures for a in mine)}


class _Reporter:
    """Progress: a live bar with done/total and ETA on a terminal; a plain line per attempt when piped."""

    def __init__(self, total: int, live: bool) -> None:
        self.live = live
        self.progress = Progress(TextColumn("[bold]grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("eta"), TimeRemainingColumn(), TextColumn("{task.description}"),
                                 console=console, transient=True) if live else None
        self.task_id = self.progress.add_task("", total=total) if self.progress else None
        self.start = time.monotonic()

    def __enter__(self) -> _Reporter:
        if self.progress:
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress:
            self.progress.stop()

    def __call__(self, item: Any, done: int, total: int) -> None:
        if isinstance(item, str):
            (self.progress.console if self.progress else console).print(f"[yellow]{item}[/]", highlight=False)
            return
        word = (("pass" if item.passed else f"fail at {item.first_failed_level.value}") if item.graded
                else f"not graded ({item.outcome.value})")
        if self.progress is not None and self.task_id is not None:
            self.progress.update(self.task_id, completed=done, description=f"{item.agent} {item.task}: {word}")
        else:
            click.echo(f"[{done}/{total} {time.monotonic() - self.start:.1f}s] {item.agent} {item.task} "
                       f"r{item.repetition}: {word}", err=True)


@click.command("run", help="The main job: every task of a suite attempted by agent drivers, graded, recorded and "
               "summarised.\n\nEach attempt's folder goes under runs/<run-id>/ and its result into the ledger. A "
               "sandbox failure (infra_error, infra_timeout, hung) is recorded without a result and retried as the "
               "same repetition, up to --infra-retries times. Ctrl-C stops after recording what finished and "
               "prints the summary. Exit 0 when every attempt was graded, 2 on bad input, 3 when a sandbox failure "
               "outlasted its retries, 130 when interrupted.")
@click.option("--suite", default="public", show_default=True, metavar="NAME|PATH",
              help="a suite of the repository's batteries/ or a folder with a suite.toml")
@click.option("--agent", "agents", multiple=True, default=("oracle", "nop"), show_default=True,
              help="an agent driver (repeatable): oracle | nop | replay:DIR | command:AGENT.toml | "
                   "loop:MODELS.toml#KEY")
@click.option("--reps", "repetitions", type=click.IntRange(1, 100), default=1, show_default=True,
              help="repetitions of each task by each agent")
@agent_options
@grade_in_container_option
@database_option
@record_option
@json_option
@handle_errors
def run_suite(suite: str, agents: tuple[str, ...], repetitions: int, sandbox: str, gateway: str | None,
              pass_env: tuple[str, ...], edition: str | None, runs_dir: Path, infra_retries: int | None,
              grade_in_container: bool, database: str | None, no_record: bool, as_json: bool) -> None:
    from grader import editions
    from grader.lifecycle import run_attempts

    chosen = _suite(suite)
    if len(set(agents)) != len(agents):
        raise DriverError(f"--agent: {', '.join(sorted({a for a in agents if agents.count(a) > 1}))} given twice")
    for spec in agents:   # a driver that does not exist is bad input before the ledger is opened (or made)
        resolve_driver(spec)
    ledger = None if no_record else open_ledger(database)
    prepared, edition_id = _prepare(list(agents), sandbox, gateway, pass_env, edition, ledger, chosen)
    tasks: list[Task] = list(chosen.tasks)
    if edition_id is not None and ledger is not None:
        tasks = editions.edition_tasks(ledger, edition_id, tasks)
    total = len(tasks) * len(prepared) * repetitions
    if not as_json:
        click.echo(f"grading {len(tasks)} tasks of {chosen.name} {chosen.version} with {', '.join(agents)} "
                   f"({total} attempts)")
        click.echo(f"ledger {ledger.display_url if ledger else 'none (--no-record)'}")
    with _Reporter(total, console.is_terminal and not as_json) as reporter:
        run = run_attempts(tasks, prepared, runs_dir, ledger=ledger, edition_id=edition_id,
                           repetitions=repetitions, infra_retries=infra_retries, progress=reporter,
                           grade_in_container=grade_in_container)
    per_agent = {a.spec: _agent_summary(a.spec, run.attempts) for a in prepared}
    lost = [a for a in run.attempts if not a.graded]
    for a in run.attempts:
        for warning in a.warnings:
            click.echo(f"{'Error' if not a.graded else 'Warning'}: {a.agent} {a.task}: {warning}", err=True)
    if as_json:
        emit({"run_id": run.run.run_id, "run_dir": str(run.run.root), "ledger": ledger.display_url if ledger else None,
              "edition_id": edition_id, "seconds": run.seconds, "planned": run.planned,
              "interrupted": run.interrupted, "agents": per_agent, "attempts": [a.to_json() for a in run.attempts]})
    else:
        table = Table("agent", "task", "rep", "verdict", "failed at", "result")
        for column in table.columns:
            column.overflow = "fold"
        for a in run.attempts:
            verdict = (f"[yellow]{a.outcome.value}[/] (not graded)" if not a.graded
                       else "[green]pass[/]" if a.passed else "[red]fail[/]")
            table.add_row(a.agent, a.task, str(a.repetition), verdict,
                          a.first_failed_level.value if a.first_failed_level else "-",
                          (a.result_hash or "-")[:12])
        console.print(table)
        for spec, s in per_agent.items():
            rate = f"{s['pass_rate']:.0%}" if s["pass_rate"] is not None else "-"
            f = s["funnel"]
            click.echo(f"{spec}: L2 pass rate {rate} ({s['passed']}/{s['graded']}); failed first at "
                       f"L0 {f['L0']}, L1 {f['L1']}, L2 {f['L2']}"
                       + (f"; {s['not_graded']} not graded after sandbox failures" if s["not_graded"] else ""))
        state = "interrupted: " if run.interrupted else ""
        folder = run.run.root.relative_to(Path.cwd()) if run.run.root.is_relative_to(Path.cwd()) else run.run.root
        click.echo(f"{state}{len(run.attempts)} of {run.planned} attempts in {run.seconds:.1f} s; run "
                   f"{run.run.run_id} in {folder}")
        if ledger:
            click.echo(f"results in {ledger.display_url} (grader results lists them)")
    if run.interrupted:
        sys.exit(INTERRUPTED)
    sys.exit(Exit.INFRA if lost else Exit.OK)
