"""The `grader` command.  Library first: each command parses, calls one library function, renders."""

from __future__ import annotations

import functools
import hashlib
import json
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from engine import API_VERSION, ENGINE_VERSION, SETTINGS, BadInputError, SetupError

from .drivers import DriverError
from .tasks import TaskError, battery_hash, dataset_hash, find_task, repository_suites, task_hash

console = Console()


def _bad_input() -> tuple[type[Exception], ...]:
    from ledger import ArchiveError, LedgerError

    return (TaskError, DriverError, BadInputError, SetupError, LedgerError, ArchiveError)


def database_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--database", "database", envvar="GRADER_DATABASE_URL", default=None,
                        help="ledger URL (default: $GRADER_DATABASE_URL, else sqlite:///grader.db here)")(fn)


def record_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--no-record", is_flag=True, help="do not write the result to the ledger")(fn)


def open_ledger(database: str | None) -> Any:
    from ledger import Ledger

    return Ledger(database)


def json_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="print JSON for machines")(fn)


def handle_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Bad input and setup problems: 'Error: ...' on stderr, exit 2, no traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except _bad_input() as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(2)

    return wrapper


def emit(data: Any) -> None:
    click.echo(json.dumps(data, sort_keys=True, indent=1))


@click.group(help="grader: a deterministic grader for UrhoX Lua games built by AI agents.")
def cli() -> None:
    pass


@cli.command(help="List the engine's settings and limits with their defaults.")
def settings() -> None:
    for s in SETTINGS:
        click.echo(f"{s.name:<20} {s.default!s:<14} {s.help}")


@cli.group(help="Inspect, hash and validate the repository's task suites.")
def tasks() -> None:
    pass


def _task_row(task: Any) -> dict[str, Any]:
    return {"id": task.qualified_id, "title": task.title, "category": task.category,
            "difficulty": task.difficulty.value, "capabilities": list(task.capabilities)}


@tasks.command("list", help="List every task of the repository's suites.")
@json_option
@handle_errors
def tasks_list(as_json: bool) -> None:
    rows = [_task_row(t) for s in repository_suites() for t in s.tasks]
    if as_json:
        emit(rows)
        return
    table = Table("task", "title", "category", "difficulty", "capabilities")
    for r in rows:
        table.add_row(r["id"], r["title"], r["category"], r["difficulty"], ", ".join(r["capabilities"]))
    console.print(table)


@tasks.command("show", help="Show one task: metadata, limits, hashes.")
@click.argument("task_ref")
@json_option
@handle_errors
def tasks_show(task_ref: str, as_json: bool) -> None:
    task = find_task(task_ref)
    data = _task_row(task) | {
        "entry": task.entry, "required": list(task.required), "limits": task.limits.__dict__,
        "screen": task.screen.__dict__, "task_hash": task_hash(task),
        "battery_hash": battery_hash(task, API_VERSION),
    }
    if as_json:
        emit(data)
        return
    for key, value in data.items():
        console.print(f"[bold]{key}[/]: {value}")


@tasks.command("hash", help="task_hash and battery_hash of every task, and each suite's dataset_hash.")
@click.argument("suite", required=False)
@json_option
@handle_errors
def tasks_hash(suite: str | None, as_json: bool) -> None:
    suites = [s for s in repository_suites() if suite in (None, s.name)]
    if suite and not suites:
        raise TaskError(f"no suite {suite!r} (known: {', '.join(s.name for s in repository_suites())})")
    out = []
    for s in suites:
        rows = [(t.id, task_hash(t), battery_hash(t, API_VERSION)) for t in s.tasks]
        out.append({"suite": s.name, "version": s.version, "dataset_hash": dataset_hash(rows),
                    "tasks": [{"id": i, "task_hash": th, "battery_hash": bh} for i, th, bh in rows]})
    if as_json:
        emit(out)
        return
    for s in out:
        console.print(f"[bold]{s['suite']}[/] {s['version']} dataset_hash {s['dataset_hash']}")
        for t in s["tasks"]:
            console.print(f"  {t['id']:<28} task {t['task_hash'][:16]}  battery {t['battery_hash'][:16]}")


@tasks.command("validate", help="Battery self-tests: oracle passes, nop fails, wrong-* fail as expected.")
@click.argument("ref", required=False)
@click.option("--repeats", default=2, show_default=True, help="runs per solution (digests must agree)")
@json_option
@handle_errors
def tasks_validate(ref: str | None, repeats: int, as_json: bool) -> None:
    from .validate import validate_task

    suites = repository_suites()
    if ref is None:
        selected = [t for s in suites for t in s.tasks]
    elif any(s.name == ref for s in suites):
        selected = [t for s in suites if s.name == ref for t in s.tasks]
    else:
        selected = [find_task(ref, suites)]
    results = [validate_task(t, repeats) for t in selected]
    if as_json:
        emit([{"task": r.task, "ok": r.ok, "solutions": [s.__dict__ for s in r.solutions]} for r in results])
    else:
        for r in results:
            for s in r.solutions:
                mark = "[green]ok[/]" if s.ok else "[red]FAIL[/]"
                console.print(f"{mark} {r.task} {s.solution} {'; '.join(s.problems)}")
    sys.exit(0 if all(r.ok for r in results) else 1)


def _render_verdict(verdict: dict[str, Any], timings: dict[str, float]) -> None:
    passed = verdict["passed"]
    console.print(f"[bold]{verdict['task_id']}[/] {'[green]PASS' if passed else '[red]FAIL'}[/]"
                  f"  first failed level: {verdict['first_failed_level'] or '-'}")
    levels = verdict["levels"]
    for check in levels["L0"]["checks"]:
        if not check["passed"]:
            console.print(f"  L0 [red]{check['name']}[/] {check['detail']}")
    console.print(f"  L0 {'passed' if levels['L0']['passed'] else 'failed'}")
    l1 = levels["L1"]
    console.print(f"  L1 {'passed' if l1['passed'] else 'failed'} ({len(l1.get('diagnostics', []))} diagnostics)")
    for diag in l1.get("diagnostics", [])[:15]:
        console.print(f"     {diag.get('path')}:{diag.get('line')} {diag.get('severity')} {diag.get('message')}")
    l2 = levels["L2"]
    console.print(f"  L2 {'passed' if l2['passed'] else 'failed'} (outcome {l2['outcome']}, frames {l2['frames']})")
    for req in l2["requirements"]:
        mark = "[green]PASS[/]" if req["passed"] else "[red]FAIL[/]"
        console.print(f"     {mark} {req['id']} [dim]{req['layer']}[/]")
    for check in l2["checks"]:
        if not check["passed"]:
            console.print(f"       {check['requirement']}: {check['name']}: expected {check['expected']}"
                          f" got {check['actual']} (frame {check['frame']})")
    for err in l2["errors"][:5]:
        console.print(f"     [red]error[/] frame {err['frame']}: {err['message']}")
    console.print(f"  digest {verdict['evidence_digest']}  [dim]wall {timings.get('total', 0):.2f} s[/]")


@cli.command(help="Grade a deliverable folder against a task (an id, suite/id, or a task folder).\n\n"
             "--in-container grades in a fresh container of the grader image (built from this checkout and this "
             "machine's Python environment; docs/sandbox.md). Exit 0 when it passes, 1 when it fails, 2 on bad "
             "input or when the grading container fails.")
@click.argument("task_ref")
@click.argument("deliverable", type=click.Path(path_type=Path))
@click.option("--in-container", "in_container", is_flag=True,
              help="run L0-L2 in a fresh container that sees only the task and the deliverable, read-only")
@database_option
@record_option
@json_option
@handle_errors
def grade(task_ref: str, deliverable: Path, in_container: bool, database: str | None, no_record: bool,
          as_json: bool) -> None:
    from .pipeline import grade as run_grade
    from .recording import record

    task = find_task(task_ref)
    if in_container:
        from .sandbox import ImageError, SandboxError
        from .sandbox.grading import grade_in_container

        try:
            result = grade_in_container(task, deliverable)
        except (SandboxError, ImageError) as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(2)
    else:
        result = run_grade(task, deliverable)
    result_hash = None
    if not no_record:
        result_hash = record(open_ledger(database), task, result, deliverable, "grade")
    _finish(result, result_hash, as_json)


def _finish(result: Any, result_hash: str | None, as_json: bool, **extra: Any) -> None:
    if as_json:
        emit({"result_hash": result_hash, "verdict": result.verdict, "timings": result.timings, **extra})
    else:
        _render_verdict(result.verdict, result.timings)
        if result_hash:
            console.print(f"  result {result_hash}")
        for key, value in extra.items():
            console.print(f"  {key.replace('_', ' ')}: {value}")
    sys.exit(0 if result.verdict["passed"] else 1)


def agent_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--sandbox, --gateway, --pass-env and --edition: shared by attempt and run."""
    fn = click.option("--edition", "edition_id", type=int, default=None,
                      help="record under this editions.id; an edition that pins a sandbox profile refuses any "
                           "other, checked before the agent runs")(fn)
    fn = click.option("--pass-env", "pass_env", multiple=True, metavar="NAME",
                      help="pass this environment variable to the agent's container by name (repeatable; the "
                           "value is never logged nor stored)")(fn)
    fn = click.option("--gateway", "gateway", default=None, metavar="URL",
                      help="the inference gateway the agent may reach, through an allow-list proxy "
                           "(docker; else the agent file's [gateway], else no network)")(fn)
    return click.option("--sandbox", type=click.Choice(["none", "docker"]), default="none", show_default=True,
                        help="docker: the agent runs in a hardened per-attempt container (docs/sandbox.md)")(fn)


def _check_edition(ledger: Any, edition_id: int | None, suite: Any) -> None:
    """An edition pins the engine and the dataset: refuse before any work when either differs."""
    if edition_id is None:
        return
    from ledger import check_edition_pins

    from .tasks import suite_dataset_hash

    if suite is None:
        raise TaskError("--edition: the task is not part of a known suite, so it cannot match the edition's dataset")
    check_edition_pins(ledger, edition_id, engine_version=ENGINE_VERSION,
                       dataset_hash=suite_dataset_hash(suite, API_VERSION))


def _prepare(agents: list[str], sandbox: str, gateway: str | None, pass_env: tuple[str, ...],
             edition_id: int | None, ledger: Any, suite: Any = None) -> list[Any]:
    from .attempts import AttemptOptions, SandboxInfraError, prepare_agent

    if edition_id is not None and ledger is None:
        raise TaskError("--edition records under an edition: it cannot go with --no-record")
    options = AttemptOptions(sandbox=sandbox, gateway=gateway, pass_env=pass_env)
    try:
        prepared = [prepare_agent(agent, options) for agent in agents]
    except SandboxInfraError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    if edition_id is not None:
        from ledger import check_profile_pin

        for p in prepared:
            check_profile_pin(ledger, edition_id, p.profile_hash)
        _check_edition(ledger, edition_id, suite)   # then the engine and the dataset
    if sandbox == "none":
        click.echo("Warning: --sandbox none: nothing is isolated; the driver runs on this machine as you", err=True)
    return prepared


@cli.command(help="Run one attempt with an agent driver and grade it.\n\n"
             "Drivers: oracle, nop, replay:DIR (built in) and command:AGENT.toml (a real agent in its own image, "
             "--sandbox docker; docs/sandbox.md). The workspace, verdict and timings are written under runs/. "
             "Exit 0 pass, 1 fail, 2 bad input or a sandbox infrastructure failure.")
@click.argument("task_ref")
@click.option("--agent", "agent", default="nop", show_default=True,
              help="oracle | nop | replay:DIR | command:AGENT.toml")
@click.option("--runs-dir", type=click.Path(path_type=Path), default=Path("runs"), show_default=True)
@agent_options
@database_option
@record_option
@json_option
@handle_errors
def attempt(task_ref: str, agent: str, runs_dir: Path, sandbox: str, gateway: str | None, pass_env: tuple[str, ...],
            edition_id: int | None, database: str | None, no_record: bool, as_json: bool) -> None:
    from .attempts import SandboxInfraError, fill_workspace
    from .pipeline import grade as run_grade
    from .recording import record_filled, record_infra, suite_of

    task = find_task(task_ref)
    ledger = None if no_record else open_ledger(database)
    suite = suite_of(task) if edition_id is not None else None
    (prepared,) = _prepare([agent], sandbox, gateway, pass_env, edition_id, ledger, suite)
    attempt_id = uuid.uuid4().hex
    attempt_dir = runs_dir / f"{task.suite}-{task.id}-{attempt_id[:12]}"
    workspace = attempt_dir / "workspace"
    try:
        filled = fill_workspace(task, workspace, prepared, attempt_id)
    except SandboxInfraError as exc:
        if ledger is not None:   # on the record, never counted: run it again with the same command
            record_infra(ledger, task, exc, prepared, edition_id)
        click.echo(f"Error: {exc} (recorded without a result; not graded)", err=True)
        sys.exit(2)
    for warning in filled.warnings:
        click.echo(f"Warning: {warning}", err=True)
    extra: dict[str, Any] = {"attempt_dir": str(attempt_dir), "driver": filled.driver, **filled.extra}
    result = run_grade(task, workspace)
    (attempt_dir / "verdict.json").write_text(result.to_json() + "\n")
    (attempt_dir / "timings.json").write_text(json.dumps(result.timings, sort_keys=True) + "\n")
    result_hash = None
    if ledger is not None:
        result_hash = record_filled(ledger, task, result, workspace, filled, edition_id)
    _finish(result, result_hash, as_json, **extra)


@cli.group(help="The agent sandbox: hardened per-attempt Docker containers (docs/sandbox.md).")
def sandbox() -> None:
    pass


@sandbox.command("cleanup", help="Remove every container and network the sandbox left behind (by label).")
@handle_errors
def sandbox_cleanup() -> None:
    from .sandbox import SandboxError, cleanup

    try:
        n = cleanup()
    except SandboxError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    click.echo(f"removed {n}")


@cli.command("run", help="The main job: every task of a suite attempted by agent drivers, graded and summarised.\n\n"
             "Verdicts are written under runs/ and recorded in the ledger. A sandbox failure (infra_error, "
             "infra_timeout, hung) is recorded without a result and retried as the same repetition, up to "
             "--infra-retries times. Exit 0 when every attempt was graded, 2 on bad input or when a sandbox "
             "failure outlasted its retries.")
@click.option("--suite", default="public", show_default=True, help="a suite of the repository's batteries/")
@click.option("--agent", "agents", multiple=True, default=("oracle", "nop"), show_default=True,
              help="an agent driver (repeatable): oracle | nop | replay:DIR | command:AGENT.toml")
@agent_options
@click.option("--runs-dir", type=click.Path(path_type=Path), default=Path("runs"), show_default=True)
@click.option("--infra-retries", type=click.IntRange(0, 10), default=2, show_default=True,
              help="how many times an attempt the sandbox failed is run again")
@database_option
@record_option
@json_option
@handle_errors
def run_suite(suite: str, agents: tuple[str, ...], sandbox: str, gateway: str | None, pass_env: tuple[str, ...],
              edition_id: int | None, runs_dir: Path, infra_retries: int, database: str | None, no_record: bool,
              as_json: bool) -> None:
    from .attempts import INFRA_OUTCOMES, SandboxInfraError
    from .batch import run_batch

    suites = [s for s in repository_suites() if s.name == suite]
    if not suites:
        raise TaskError(f"no suite {suite!r} (known: {', '.join(s.name for s in repository_suites())})")
    task_list = list(suites[0].tasks)
    ledger = None if no_record else open_ledger(database)
    prepared = _prepare(list(agents), sandbox, gateway, pass_env, edition_id, ledger,  # bad input: before any work
                        suites[0])
    try:
        with console.status("grading") as status:
            rows = run_batch(task_list, prepared, runs_dir, progress=lambda msg: status.update(msg),
                             ledger=ledger, edition_id=edition_id, infra_retries=infra_retries)
    except SandboxInfraError as exc:   # the agent's setup (image, Docker) failed before any attempt
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    ungraded = [r for r in rows if r.outcome in INFRA_OUTCOMES]
    for r in rows:
        for warning in r.warnings:
            kind = "Error" if r in ungraded else "Warning"
            click.echo(f"{kind}: {r.agent} {r.task}: {warning}", err=True)
    if as_json:
        emit([r.__dict__ for r in rows])
        sys.exit(2 if ungraded else 0)
    table = Table("agent", "task", "verdict", "first failed level")
    for r in rows:
        verdict = (f"[yellow]{r.outcome}[/] (not graded)" if r in ungraded
                   else "[green]pass[/]" if r.passed else "[red]fail[/]")
        table.add_row(r.agent, r.task, verdict, r.first_failed_level or "-")
    console.print(table)
    for agent in agents:
        mine = [r for r in rows if r.agent == agent and r not in ungraded]
        rate = sum(r.passed for r in mine) / len(mine) if mine else 0.0
        lost = sum(r.agent == agent for r in ungraded)
        console.print(f"[bold]{agent}[/]: L2 pass rate {rate:.0%} ({sum(r.passed for r in mine)}/{len(mine)})"
                      + (f", {lost} not graded after sandbox failures" if lost else ""))
    sys.exit(2 if ungraded else 0)


@cli.group(help="The ledger: upgrade its schema, verify its audit chain, append corrections.")
def ledger() -> None:
    pass


@cli.group(help="Editions: named, pinned runs of the benchmark. An edition pins the engine version, the suite's "
           "dataset (version and dataset_hash), optionally the sandbox profile, and the root seed of its statistics; "
           "attempts recorded under it (--edition ID) must match every pin.")
def edition() -> None:
    pass


def _derived_root_seed(name: str) -> int:
    """A root seed fixed by the edition's name, so two maintainers creating the same edition agree."""
    return int.from_bytes(hashlib.sha256(f"grader-edition/{name}".encode()).digest()[:4], "big") & 0x7FFFFFFF


@edition.command("create", help="Append a new edition pinned to this engine and a suite's current dataset.\n\n"
                 "--profile-hash pins a sandbox profile; --profile-of AGENT pins the profile AGENT runs under with "
                 "--sandbox docker (and --gateway). Without either, attempts of any profile may be recorded.")
@click.argument("name")
@click.option("--suite", default="public", show_default=True, help="a suite of the repository's batteries/")
@click.option("--root-seed", type=click.IntRange(0, 2**31 - 1), default=None,
              help="the statistics' root seed (default: derived from NAME)")
@click.option("--profile-hash", default=None, metavar="HEX", help="pin this sandbox profile hash")
@click.option("--profile-of", default=None, metavar="AGENT", help="pin the docker profile of this agent driver")
@click.option("--gateway", default=None, metavar="URL", help="with --profile-of: the agent's gateway")
@database_option
@json_option
@handle_errors
def edition_create(name: str, suite: str, root_seed: int | None, profile_hash: str | None, profile_of: str | None,
                   gateway: str | None, database: str | None, as_json: bool) -> None:
    from ledger import SuiteFacts, create_edition

    from .attempts import AttemptOptions, SandboxInfraError, prepare_agent
    from .tasks import suite_dataset_hash

    found = [s for s in repository_suites() if s.name == suite]
    if not found:
        raise TaskError(f"no suite {suite!r} (known: {', '.join(s.name for s in repository_suites())})")
    if profile_hash and profile_of:
        raise TaskError("--profile-hash and --profile-of: give one")
    if profile_of:
        try:
            profile_hash = prepare_agent(profile_of, AttemptOptions(sandbox="docker", gateway=gateway)).profile_hash
        except SandboxInfraError as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(2)
    from .recording import task_facts

    s = found[0]
    facts = SuiteFacts(s.name, s.version, s.visibility.value, suite_dataset_hash(s, API_VERSION))
    seed = _derived_root_seed(name) if root_seed is None else root_seed
    edition_id = create_edition(open_ledger(database), name, facts, ENGINE_VERSION, seed, profile_hash,
                                tasks=[task_facts(t) for t in s.tasks])
    out = {"id": edition_id, "name": name, "engine_version": ENGINE_VERSION, "dataset_version": s.version,
           "dataset_hash": facts.dataset_hash, "profile_hash": profile_hash, "root_seed": seed}
    if as_json:
        emit(out)
        return
    console.print(f"edition {edition_id} [bold]{name}[/]: engine {ENGINE_VERSION}, {s.name} {s.version} "
                  f"dataset {facts.dataset_hash[:16]}, profile {profile_hash or 'not pinned'}, seed {seed}")


@edition.command("list", help="Every edition of the ledger with its pins.")
@database_option
@json_option
@handle_errors
def edition_list(database: str | None, as_json: bool) -> None:
    from ledger import list_editions

    rows = list_editions(open_ledger(database))
    if as_json:
        emit(rows)
        return
    table = Table("id", "name", "engine", "dataset", "profile", "seed")
    for r in rows:
        table.add_row(str(r["id"]), r["name"], r["engine_version"], f"{r['dataset_version']} "
                      f"{r['dataset_hash'][:12]}", (r["profile_hash"] or "-")[:12], str(r["root_seed"]))
    console.print(table)


@ledger.command("upgrade", help="Bring the ledger database to the newest schema (Alembic).")
@database_option
@handle_errors
def ledger_upgrade(database: str | None) -> None:
    from ledger import Ledger, upgrade

    store = Ledger(database, auto_upgrade=False)
    upgrade(store.engine)
    click.echo(f"upgraded {store.url}")


@ledger.command("verify", help="Recompute the audit hash chain; name the first row that does not match.\n\n"
                "Exit 0 when the whole ledger verifies, 1 otherwise.")
@database_option
@json_option
@handle_errors
def ledger_verify(database: str | None, as_json: bool) -> None:
    ok, message = open_ledger(database).verify()
    if as_json:
        emit({"ok": ok, "message": message})
    else:
        console.print(f"{'[green]ok' if ok else '[red]BROKEN'}[/] {message}")
    sys.exit(0 if ok else 1)


def _parse_bool(value: str) -> bool:
    if value.lower() in ("true", "yes", "1"):
        return True
    if value.lower() in ("false", "no", "0"):
        return False
    raise click.BadParameter(f"{value!r}: expected true or false", param_hint="--passed")


def _parse_requirement(value: str) -> tuple[str, bool]:
    rid, sep, outcome = value.partition("=")
    if not sep or not rid or outcome.lower() not in ("pass", "fail", "true", "false"):
        raise click.BadParameter(f"{value!r}: expected ID=pass or ID=fail", param_hint="--requirement")
    return rid, outcome.lower() in ("pass", "true")


@ledger.command("correct", help="Append a correction to a result (the raw result is never changed).\n\n"
                "--requirement ID=pass|fail (repeatable) names requirement outcomes the correction changes; the "
                "capability and layer boards use them (docs/statistics.md).")
@click.argument("result")
@click.option("--passed", "passed", required=True, help="true | false: the corrected verdict")
@click.option("--requirement", "requirements", multiple=True, metavar="ID=pass|fail",
              help="a requirement outcome the correction changes (repeatable)")
@click.option("--reason", required=True, help="why the verdict is corrected")
@click.option("--author", required=True, help="who corrects it")
@database_option
@json_option
@handle_errors
def ledger_correct(result: str, passed: str, requirements: tuple[str, ...], reason: str, author: str,
                   database: str | None, as_json: bool) -> None:
    from .recording import correct

    named = dict(_parse_requirement(r) for r in requirements)
    store = open_ledger(database)
    correction_id = correct(store, result, _parse_bool(passed), reason, author, named or None)
    if as_json:
        emit({"correction_id": correction_id, "result_hash": store.find_result(result).result_hash})
    else:
        console.print(f"correction {correction_id} appended to {store.find_result(result).result_hash}")


@cli.command(help="Show a result: the raw verdict, every correction, and the effective verdict.")
@click.argument("result")
@database_option
@json_option
@handle_errors
def show(result: str, database: str | None, as_json: bool) -> None:
    from ledger import result_history

    history = result_history(open_ledger(database), result)
    if as_json:
        emit(history)
        return
    _render_verdict(history["verdict"], history["attempt"]["timings"])
    console.print(f"  result {history['result_hash']}  attempt {history['attempt']['id']}"
                  f" ({history['attempt']['driver']}, {history['attempt']['outcome']})")
    console.print(f"  raw: {'pass' if history['raw_passed'] else 'fail'}")
    for c in history["corrections"]:
        console.print(f"  correction {c['id']} by {c['author']} at {c['created_at']}: "
                      f"{'pass' if c['passed'] else 'fail'} ({c['reason']})")
    console.print(f"  [bold]effective: {'pass' if history['effective_passed'] else 'fail'}[/]")


@cli.command(help="Re-grade a recorded result's stored deliverable and compare digests.\n\n"
             "Prints MATCH or MISMATCH (with the differing checks). Exit 0 on match, 1 on mismatch, 2 when the "
             "result, its task or its battery cannot be found as recorded.")
@click.argument("result")
@click.option("--suite-path", "suite_paths", multiple=True, type=click.Path(file_okay=False, path_type=Path),
              help="a held-out suite folder to look for the task in (also $GRADER_HELDOUT_SUITES)")
@database_option
@json_option
@handle_errors
def replay(result: str, suite_paths: tuple[Path, ...], database: str | None, as_json: bool) -> None:
    from .recording import replay as run_replay

    report = run_replay(open_ledger(database), result, suite_paths)
    if as_json:
        emit(report.__dict__)
    else:
        word = "[green]MATCH[/]" if report.match else "[red]MISMATCH[/]"
        console.print(f"{word} {report.result_hash}")
        console.print(f"  recorded {report.recorded_digest}\n  replayed {report.replayed_digest}")
        if report.engine_recorded != report.engine_now:
            console.print(f"  [yellow]engine version differs[/]: recorded {report.engine_recorded}, "
                          f"now {report.engine_now}")
        for diff in report.differences:
            console.print(f"  {diff}")
    sys.exit(0 if report.match else 1)


@cli.command(help="The edition's boards from the ledger: scores with 95% CIs, rank ranges, attempts, time and cost.\n\n"
             "EDITION (or --edition) is an editions.id of the ledger; without it, every recorded result (attempts "
             "without a model are named by their driver). --out DIR writes snapshot.json and index.html there; "
             "--json prints the snapshot.")
@click.argument("edition", type=int, required=False)
@click.option("--edition", "edition_id", type=int, default=None, help="an editions.id of the ledger")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="write snapshot.json and index.html into this folder")
@click.option("--prices", "prices_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="TOML list prices (USD per million tokens) by model label, for the cost column "
                   "(docs/statistics.md); without it cost shows N/A")
@database_option
@json_option
@handle_errors
def board(edition: int | None, edition_id: int | None, out: Path | None, prices_path: Path | None,
          database: str | None, as_json: bool) -> None:
    from .boards import build_snapshot, canonical_json, load_inputs, load_prices, write_board

    if edition is not None and edition_id is not None and edition != edition_id:
        raise TaskError(f"EDITION {edition} and --edition {edition_id} disagree")
    edition_id = edition if edition is not None else edition_id
    prices, notes = load_prices(prices_path) if prices_path is not None else ({}, {})
    snapshot = build_snapshot(load_inputs(open_ledger(database), edition_id), prices=prices, price_notes=notes)
    if out is not None:
        write_board(snapshot, out)
    if as_json:
        click.echo(canonical_json(snapshot), nl=False)
        return
    overall = snapshot["boards"].get("overall")
    if overall is None:
        console.print("no public results in the ledger")
        return
    table = Table("rank", "model", "score", "95% CI", "attempts", "time/task", "cost/task",
                  title=f"overall ({overall['tasks']} tasks, {overall['replicates']} replicates)")
    for m in overall["models"]:
        rank = f"{m['rank']} ({m['rank_range'][0]}-{m['rank_range'][1]})"
        time_s = "-" if m["time_per_task_seconds"] is None else f"{m['time_per_task_seconds']:.2f} s"
        cost = m["cost_per_task_usd"]
        ci = f"{m['ci'][0]:.1%}-{m['ci'][1]:.1%} [dim]{m['ci_method']}[/]"
        table.add_row(rank, m["model"], f"{m['score']:.1%}", ci,
                      f"{m['passes']}/{m['attempts']}", time_s, cost if isinstance(cost, str) else f"${cost:.4f}")
    for r in overall["refused"]:
        table.add_row("-", r["model"], f"[dim]not ranked: {r['reason']}[/]", "", "", "", "")
    console.print(table)
    if out is not None:
        console.print(f"wrote {out / 'snapshot.json'} and {out / 'index.html'}")


def main() -> None:
    cli()
