"""`grader edition ...`: named, pinned runs of the benchmark."""

from __future__ import annotations

import os
from pathlib import Path

import click
from rich.table import Table

from grader.tasks import TaskError

from ._common import console, database_option, emit, grade_in_container_option, handle_errors, json_option, open_ledger


@click.group(help="Editions: named, pinned runs of the benchmark. An edition pins the engine's and the grader's "
             "builds, the installation's settings, the suite's dataset (version and dataset_hash, task by task), "
             "optionally the sandbox profile, and the root seed of its statistics; attempts recorded under it "
             "(--edition NAME|ID) must match every pin.")
def edition() -> None:
    pass


@edition.command("create", help="Append a new edition pinned to this grader and a suite's current dataset.\n\n"
                 "--profile-hash pins a sandbox profile; --profile-of AGENT pins the profile AGENT runs under with "
                 "--sandbox docker (and --gateway). Without either, attempts of any profile may be recorded.")
@click.argument("name")
@click.option("--suite", default="public", show_default=True, metavar="NAME|PATH",
              help="a suite of the repository's batteries/ or a folder with a suite.toml")
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
    from grader import editions
    from grader.lifecycle import AttemptOptions, prepare_agent

    chosen, _source = editions.resolve_suite(suite)
    if profile_hash and profile_of:
        raise TaskError("--profile-hash and --profile-of: give one")
    if profile_of:
        profile_hash = prepare_agent(profile_of, AttemptOptions(sandbox="docker", gateway=gateway)).profile_hash
    store = open_ledger(database)
    edition_id, pins, seed = editions.create(store, name, chosen, root_seed=root_seed, profile_hash=profile_hash)
    s = chosen
    out = {"id": edition_id, "name": name, "engine_build": pins.engine_build, "grader_build": pins.grader_build,
           "settings_hash": pins.settings_hash, "dataset_version": s.version, "dataset_hash": pins.dataset_hash,
           "tasks": len(s.tasks), "profile_hash": profile_hash, "root_seed": seed, "ledger": store.display_url}
    if as_json:
        emit(out)
        return
    console.print(f"edition {edition_id} [bold]{name}[/] in {store.display_url}: {s.name} {s.version} "
                  f"({len(s.tasks)} tasks, dataset {pins.dataset_hash[:12]}), engine {pins.engine_build[:12]}, "
                  f"grader {pins.grader_build[:12]}, settings {pins.settings_hash[:12]}, profile "
                  f"{(profile_hash or 'not pinned')[:12]}, seed {seed}", highlight=False)


@edition.command("list", help="Every edition of the ledger with its pins.")
@database_option
@json_option
@handle_errors
def edition_list(database: str | None, as_json: bool) -> None:
    from ledger import list_editions

    store = open_ledger(database, create=False)
    rows = list_editions(store)
    if as_json:
        emit({"ledger": store.display_url, "editions": rows})
        return
    console.print(f"{len(rows)} editions in {store.display_url}", highlight=False)
    table = Table("id", "name", "dataset", "engine", "grader", "profile", "seed")
    for r in rows:
        table.add_row(str(r["id"]), r["name"], f"{r['dataset_version']} {r['dataset_hash'][:8]}",
                      r["engine_build"][:8], (r["grader_build"] or "-")[:8], (r["profile_hash"] or "-")[:8],
                      str(r["root_seed"]))
    console.print(table)


@edition.command("plan", help="Append a new edition with its plan: every model x task x repetition.\n\n"
                 "The edition pins this grader (engine and grader builds, settings), the suites' dataset task by "
                 "task and the root seed, like `edition create`; the plan (the models as models.toml gives them, "
                 "and every planned attempt) is recorded with it in one transaction. --models FILE names real "
                 "models (docs/editions.md); --baseline NAME adds a built-in baseline; with neither, the plan is "
                 "every built-in baseline (oracle, nop and the scripted imperfect agents). Exit 0, or 2 on bad "
                 "input (the file and field named).")
@click.argument("name")
@click.option("--suite", "suites", multiple=True, default=("public",), show_default=True, metavar="NAME|PATH",
              help="a suite of the repository's batteries/ or a folder with a suite.toml (repeatable)")
@click.option("--models", "models_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="models.toml: the models, their drivers, prices and concurrency")
@click.option("--baseline", "baselines", multiple=True, metavar="NAME",
              help="a built-in baseline to plan too (repeatable): oracle | nop | scripted:steady | "
                   "scripted:erratic | scripted:careless")
@click.option("--reps", "repetitions", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="repetitions of each task by each model")
@click.option("--root-seed", type=click.IntRange(0, 2**31 - 1), default=None,
              help="the statistics' root seed (default: derived from NAME)")
@click.option("--profile-hash", default=None, metavar="HEX", help="pin this sandbox profile hash")
@database_option
@json_option
@handle_errors
def edition_plan(name: str, suites: tuple[str, ...], models_path: Path | None, baselines: tuple[str, ...],
                 repetitions: int, root_seed: int | None, profile_hash: str | None, database: str | None,
                 as_json: bool) -> None:
    from grader import editions
    from grader.models_file import BASELINES, baseline, load_models

    chosen = [editions.resolve_suite(s) for s in suites]
    models = load_models(models_path) if models_path is not None else []
    models += [baseline(b) for b in (baselines or (() if models_path else BASELINES))]
    store = open_ledger(database)
    summary = editions.plan(store, name, chosen, models, repetitions, root_seed=root_seed,
                            profile_hash=profile_hash)
    out = {"id": summary.edition_id, "name": name, "engine_build": summary.pins.engine_build,
           "grader_build": summary.pins.grader_build, "settings_hash": summary.pins.settings_hash,
           "dataset_version": summary.dataset.version, "dataset_hash": summary.dataset.dataset_hash,
           "suites": [s.name for s, _ in chosen], "models": list(summary.models), "tasks": summary.tasks,
           "repetitions": repetitions, "attempts": summary.attempts, "profile_hash": profile_hash,
           "root_seed": summary.root_seed, "ledger": store.display_url, "existing": summary.existing}
    if as_json:
        emit(out)
        return
    if summary.existing:
        console.print(f"edition {summary.edition_id} [bold]{name}[/] in {store.display_url} has this plan already "
                      f"({summary.attempts} planned attempts): nothing appended", highlight=False)
        return
    console.print(f"edition {summary.edition_id} [bold]{name}[/] in {store.display_url}: {summary.attempts} planned "
                  f"attempts = {len(summary.models)} models x {summary.tasks} tasks x {repetitions} repetitions; "
                  f"dataset {summary.dataset.version} {summary.dataset.dataset_hash[:12]}, engine "
                  f"{summary.pins.engine_build[:12]}, grader {summary.pins.grader_build[:12]}, seed "
                  f"{summary.root_seed}", highlight=False)
    console.print(f"models: {', '.join(summary.models)}", highlight=False)


@edition.command("run", help="Run what a planned edition still misses, with worker processes here or, with "
                 "--queue, on `grader worker`s anywhere.\n\n"
                 "Each planned attempt is leased from the ledger's work queue; its worker renews the lease while it "
                 "works, and a lease that expired (or whose run on this machine was killed) is taken over. The "
                 "ledger records each planned attempt's counted outcome exactly once, so re-running after a crash "
                 "does only what is missing. Infrastructure failures are recorded, never counted, and retried "
                 "up to --infra-retries times; agent outcomes are never retried. Progress (done/total, pass rate "
                 "per model, ETA, outcomes) goes to stderr.\n\n"
                 "--queue redis://HOST:PORT/DB enqueues the work on that Redis broker for `grader worker` processes "
                 "(scale-out, docs/editions.md#scale-out) instead of running it here, then shows the same progress "
                 "by watching the ledger, which must be PostgreSQL, until no planned attempt is open. Exit 0 when "
                 "every planned attempt is recorded, 2 on bad input, 3 when some are still missing (infrastructure "
                 "failures past their retries) or the queue cannot be reached, 130 when interrupted.")
@click.argument("name")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="worker processes, without --queue [default: one per core]")
@click.option("--queue", "queue_url", default=None, metavar="URL",
              help="enqueue on this Redis broker for `grader worker`s instead: redis://HOST:PORT/DB")
@click.option("--lease-seconds", type=click.FloatRange(1, 86400), default=120.0, show_default=True,
              help="how long a lease lasts unless its worker renews it")
@click.option("--sandbox", type=click.Choice(["none", "docker"]), default="none", show_default=True,
              help="docker: the agents run in hardened per-attempt containers (docs/sandbox.md)")
@click.option("--gateway", default=None, metavar="URL", help="the inference gateway the agents may reach (docker)")
@click.option("--pass-env", "pass_env", multiple=True, metavar="NAME",
              help="pass this environment variable to the agents' containers by name (repeatable; with --queue, "
                   "from each worker's environment)")
@click.option("--infra-retries", type=click.IntRange(0, 10), default=None,
              help="how many times an attempt the sandbox failed is run again (default: grader settings)")
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
              show_default=True, help="where the attempts' folders go (without --queue)")
@grade_in_container_option
@database_option
@json_option
@handle_errors
def edition_run(name: str, workers: int | None, queue_url: str | None, lease_seconds: float, sandbox: str,
                gateway: str | None, pass_env: tuple[str, ...], infra_retries: int | None, runs_dir: Path,
                grade_in_container: bool, database: str | None, as_json: bool) -> None:
    import sys

    from grader.edition_run import RunOptions, run_edition
    from ledger import default_database_url

    from ._common import Exit
    from ._progress import EditionProgress

    if workers is None:
        workers = min(len(os.sched_getaffinity(0)), 64)
    options = RunOptions(workers=workers, sandbox=sandbox, gateway=gateway, pass_env=pass_env,
                         infra_retries=infra_retries, runs_dir=runs_dir, lease_seconds=lease_seconds,
                         grade_in_container=grade_in_container)
    url = database or default_database_url()
    if queue_url is not None:
        from grader.scale_out import QueueError, check_queue_url, check_shared_ledger, ping_queue

        given = click.get_current_context().get_parameter_source
        for option, param in (("--workers", "workers"), ("--runs-dir", "runs_dir")):
            if given(param) is click.core.ParameterSource.COMMANDLINE:
                raise QueueError(f"{option} is for a local run: with --queue, `grader worker` says it")
        check_queue_url(queue_url)
        check_shared_ledger(url, "--queue")
    open_ledger(url, create=False).close()   # a bad URL or no ledger (plan first) is one line here, before any work
    if queue_url is not None:
        ping_queue(queue_url)
    if sandbox == "none":
        where = "on the workers' machines as their user" if queue_url else "on this machine as you"
        click.echo(f"Warning: --sandbox none: nothing is isolated; drivers run {where}", err=True)
    with EditionProgress() as progress:
        if queue_url is not None:
            from grader.scale_out import run_on_queue

            run = run_on_queue(url, name, options, queue_url, progress)
        else:
            run = run_edition(url, name, options, progress)
    if not run.interrupted:
        _warm_boards(url, name)
    if as_json:
        emit(run.to_json())
    else:
        progress.summary(run)
    if run.interrupted:
        sys.exit(130)
    sys.exit(Exit.OK if run.missing == 0 else Exit.INFRA)


def _warm_boards(url: str, name: str) -> None:
    """The run's boards computed now, so the first `grader board --json` after it answers from the cache; the run
    is recorded whatever happens here, so a failure is one line of warning, not the run's outcome."""
    from .boards import warm_board_cache

    try:
        warm_board_cache(url, name)
    except Exception as exc:
        click.echo(f"Warning: the board cache was not warmed: {type(exc).__name__}: {exc}", err=True)


@edition.command("show", help="An edition: its pins, its plan (suites, models, repetitions) and its progress "
                 "(recorded / planned, pass rate and outcomes per model), and when it was published.")
@click.argument("name")
@database_option
@json_option
@handle_errors
def edition_show(name: str, database: str | None, as_json: bool) -> None:
    from grader.edition_run import progress_of, queue_name
    from ledger import edition_plan, find_edition, get_edition, plan_states, publication, queue_states

    store = open_ledger(database, create=False)
    edition_id = find_edition(store, name)
    view = get_edition(store, edition_id)
    planned = edition_plan(store, edition_id)
    states = plan_states(store, edition_id)
    progress = progress_of(states)
    published = publication(store, edition_id)
    out = {"id": view.id, "name": view.name, "engine_build": view.engine_build, "grader_build": view.grader_build,
           "settings_hash": view.settings_hash, "dataset_version": view.dataset_version,
           "dataset_hash": view.dataset_hash, "profile_hash": view.profile_hash, "root_seed": view.root_seed,
           "created_at": view.created_at.isoformat(timespec="seconds") + "Z",
           "plan": None if planned is None else {
               "repetitions": planned.repetitions, "suites": list(planned.suites), "models": list(planned.models),
               "attempts": len(planned.items)},
           "recorded": sum(p.recorded for p in progress.values()), "planned": len(states),
           "models": {m: p.to_json() for m, p in progress.items()},
           "queue": queue_states(store, queue_name(edition_id)),
           "published_at": published[0].isoformat(timespec="seconds") + "Z" if published else None,
           "snapshot_digest": published[1] if published else None, "ledger": store.display_url}
    if as_json:
        emit(out)
        return
    console.print(f"edition {view.id} [bold]{view.name}[/] in {store.display_url}", highlight=False)
    console.print(f"  pins: engine {view.engine_build[:12]}, grader {(view.grader_build or '-')[:12]}, settings "
                  f"{(view.settings_hash or '-')[:12]}, dataset {view.dataset_version} {view.dataset_hash[:12]}, "
                  f"profile {(view.profile_hash or 'not pinned')[:12]}, seed {view.root_seed}", highlight=False)
    if planned is None:
        console.print("  no plan (made by `grader edition create`)", highlight=False)
    else:
        console.print(f"  plan: {len(planned.items)} attempts = {len(planned.models)} models x "
                      f"{len({i.task_hash for i in planned.items})} tasks x {planned.repetitions} repetitions; "
                      f"suites {', '.join(s['name'] for s in planned.suites)}", highlight=False)
        table = Table("model", "recorded", "pass rate", "outcomes")
        for model, p in progress.items():
            table.add_row(model, f"{p.recorded}/{p.planned}",
                          f"{p.pass_rate:.0%}" if p.pass_rate is not None else "-",
                          ", ".join(f"{k} {v}" for k, v in sorted(p.outcomes.items())) or "-")
        console.print(table)
    console.print(f"  published: {out['published_at'] or 'no'}", highlight=False)


@edition.command("publish", help="Publish an edition: OUT/<edition>/snapshot.json and index.html (its boards), and "
                 "OUT/index.html, the archive of every published edition.\n\nA planned edition is published only "
                 "when every planned attempt is recorded. The ledger records the publication (once); from then on "
                 "nothing is recorded under the edition. Publishing again writes identical bytes.")
@click.argument("name")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="the archive's folder")
@database_option
@json_option
@handle_errors
def edition_publish(name: str, out: Path, database: str | None, as_json: bool) -> None:
    from grader.edition_publish import publish

    store = open_ledger(database, create=False)
    done = publish(store, name, out)
    if as_json:
        emit({"edition": done.name, "edition_id": done.edition_id, "published_at": done.published_at,
              "snapshot_digest": done.snapshot_digest, "folder": str(done.folder), "archive": str(done.archive)})
        return
    console.print(f"published edition {done.edition_id} [bold]{done.name}[/] ({done.published_at}): "
                  f"{done.folder / 'snapshot.json'} (sha256 {done.snapshot_digest[:16]}), "
                  f"{done.folder / 'index.html'}, archive {done.archive}", highlight=False)


@edition.command("diff", help="What changed from edition A to edition B: tasks added, removed or changed (by task "
                 "and battery hash), models added or removed (ranked on the overall board), and each model's "
                 "overall score in both with whether the two 95% CIs overlap.")
@click.argument("a")
@click.argument("b")
@database_option
@json_option
@handle_errors
def edition_diff(a: str, b: str, database: str | None, as_json: bool) -> None:
    from grader.edition_diff import diff_editions

    store = open_ledger(database, create=False)
    out = diff_editions(store, a, b)
    if as_json:
        emit(out)
        return
    console.print(f"{out['a']} -> {out['b']}", highlight=False)
    for key in ("tasks_added", "tasks_removed", "tasks_changed", "models_added", "models_removed"):
        console.print(f"  {key.replace('_', ' ')}: {', '.join(out[key]) or '-'}", highlight=False)
    table = Table("model", "score A", "score B", "delta", "95% CIs")
    for row in out["scores"]:
        table.add_row(row["model"], f"{row['score_a']:.1%}", f"{row['score_b']:.1%}", f"{row['delta']:+.1%}",
                      "overlap" if row["cis_overlap"] else "apart")
    console.print(table)
