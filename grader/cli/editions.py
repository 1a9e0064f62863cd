"""`grader edition ...`: named, pinned runs of the benchmark."""

from __future__ import annotations

import click
from rich.table import Table

from grader.tasks import TaskError, repository_suites

from ._common import console, database_option, emit, handle_errors, json_option, open_ledger


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
    from grader import editions
    from grader.lifecycle import AttemptOptions, prepare_agent

    found = [s for s in repository_suites() if s.name == suite]
    if not found:
        raise TaskError(f"no suite {suite!r} (known: {', '.join(s.name for s in repository_suites())})")
    if profile_hash and profile_of:
        raise TaskError("--profile-hash and --profile-of: give one")
    if profile_of:
        profile_hash = prepare_agent(profile_of, AttemptOptions(sandbox="docker", gateway=gateway)).profile_hash
    store = open_ledger(database)
    edition_id, pins, seed = editions.create(store, name, found[0], root_seed=root_seed, profile_hash=profile_hash)
    s = found[0]
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
