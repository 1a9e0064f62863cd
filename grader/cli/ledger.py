"""`grader ledger ...`, `grader results`, `grader show`, `grader replay`: reading and auditing the ledger."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from ._common import Exit, console, database_option, emit, handle_errors, json_option, open_ledger
from ._render import render_verdict


@click.group(help="The ledger: upgrade its schema, verify its audit chain, append corrections.")
def ledger() -> None:
    pass


@ledger.command("upgrade", help="Bring the ledger database to the newest schema (Alembic); creates it when new.")
@database_option
@handle_errors
def ledger_upgrade(database: str | None) -> None:
    from ledger import Ledger, upgrade

    store = Ledger(database, auto_upgrade=False)
    upgrade(store.engine)
    click.echo(f"upgraded {store.display_url}")


@ledger.command("verify", help="Recompute the audit hash chain; name the first row that does not match.\n\n"
                "Exit 0 when the whole ledger verifies, 1 otherwise.")
@database_option
@json_option
@handle_errors
def ledger_verify(database: str | None, as_json: bool) -> None:
    from ledger import LedgerCorruptError, default_database_url

    url = database or default_database_url()
    try:
        store = open_ledger(url, create=False)
        ok, message = store.verify()
        shown = store.display_url
        line = f"{message} in {shown}"
    except LedgerCorruptError as exc:   # a database that cannot be read is a broken ledger, not bad input
        ok, message, shown = False, str(exc), url
        line = message
    if as_json:
        emit({"ok": ok, "message": message, "ledger": shown})
    else:
        console.print(Text.assemble(("ok", "green") if ok else ("BROKEN", "red"), " ", line), highlight=False)
    sys.exit(Exit.OK if ok else Exit.FAILED)


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
    from grader.recording import correct

    named = dict(_parse_requirement(r) for r in requirements)
    store = open_ledger(database, create=False)
    correction_id = correct(store, result, _parse_bool(passed), reason, author, named or None)
    full = store.find_result(result).result_hash
    if as_json:
        emit({"correction_id": correction_id, "result_hash": full, "ledger": store.display_url})
    else:
        console.print(f"correction {correction_id} appended to {full} ({store.display_url})", highlight=False)


def _label(view: Any) -> str:
    from grader.boards import model_label

    return model_label(view.model, view.driver)


@click.command(help="List results with their hashes, newest first (the hashes `show`, `replay` and "
               "`ledger correct` take).")
@click.option("--edition", "edition", default=None, metavar="NAME|ID", help="only this edition's results")
@click.option("--task", "task", default=None, metavar="ID", help="only this task (suite/id, or id)")
@click.option("--model", "model", default=None, metavar="LABEL", help="only this model label or driver")
@click.option("--limit", type=click.IntRange(1, 1_000_000), default=50, show_default=True)
@database_option
@json_option
@handle_errors
def results(edition: str | None, task: str | None, model: str | None, limit: int, database: str | None,
            as_json: bool) -> None:
    from ledger import attempts, find_edition, tasks_of

    store = open_ledger(database, create=False)
    edition_id = find_edition(store, edition) if edition is not None else None
    views = [a for a in attempts(store, edition_id) if a.result is not None]
    ids = {h: t.task_id for h, t in tasks_of(store, {(a.task_hash, a.battery_hash) for a in views}).items()}
    if task is not None:
        views = [a for a in views if ids.get(a.task_hash) == task or ids.get(a.task_hash, "").endswith(f"/{task}")]
    if model is not None:
        views = [a for a in views if _label(a) == model]
    views.sort(key=lambda a: (a.created_at, a.id), reverse=True)
    shown = views[:limit]
    rows: list[dict[str, Any]] = [{"result_hash": a.result.result_hash, "task": ids.get(a.task_hash, a.task_hash[:12]),
             "model": _label(a), "repetition": a.repetition, "outcome": a.outcome.value,
             "passed": a.result.effective_passed, "corrected": a.result.correction is not None,
             "first_failed_level": a.result.first_failed_level, "edition_id": a.edition_id,
             "created_at": a.created_at.isoformat()} for a in shown if a.result is not None]
    if as_json:
        emit({"ledger": store.display_url, "total": len(views), "results": rows})
        return
    console.print(f"{len(views)} results in {store.display_url}" + (f" (newest {limit})" if len(views) > limit
                                                                       else ""), highlight=False)
    table = Table("result", "task", "model", "verdict", "when")
    for column in table.columns:
        column.overflow = "fold"
    for r in rows:
        verdict = ("[green]pass[/]" if r["passed"] else f"[red]fail[/] {r['first_failed_level'] or ''}") + \
            (" [yellow]corrected[/]" if r["corrected"] else "")
        table.add_row(r["result_hash"][:12], r["task"], r["model"], verdict, r["created_at"][:19])
    console.print(table)


@click.command(help="Show a result: the raw verdict, every correction, and the effective verdict.")
@click.argument("result")
@database_option
@json_option
@handle_errors
def show(result: str, database: str | None, as_json: bool) -> None:
    from ledger import recorded_verdict
    from ledger import result as ledger_result

    store = open_ledger(database, create=False)
    view = ledger_result(store, result)
    assert view.result is not None
    r = view.result
    verdict = recorded_verdict(store, r.result_hash)
    corrections = [{"id": c.id, "passed": c.passed, "reason": c.reason, "author": c.author,
                    "created_at": c.created_at.isoformat(), "requirements": c.requirements} for c in r.corrections]
    if as_json:
        emit({"ledger": store.display_url, "result_hash": r.result_hash, "verdict": verdict.to_json(),
              "raw_passed": r.passed, "effective_passed": r.effective_passed, "corrections": corrections,
              "attempt": {"id": view.id, "driver": view.driver, "model": _label(view), "outcome": view.outcome.value,
                          "repetition": view.repetition, "edition_id": view.edition_id,
                          "artifact_hash": view.artifact_hash, "timings": view.timings,
                          "profile_hash": view.profile_hash, "tokens_in": view.tokens_in,
                          "tokens_out": view.tokens_out, "cost_usd": view.cost_usd, "tool_calls": view.tool_calls}})
        return
    render_verdict(verdict, view.timings)
    console.print(f"  result {r.result_hash}  attempt {view.id} ({_label(view)}, {view.outcome.value}) in "
                  f"{store.display_url}", highlight=False)
    console.print(f"  raw: {'pass' if r.passed else 'fail'}")
    for c in r.corrections:
        named = "".join(f" {k}={'pass' if v else 'fail'}" for k, v in (c.requirements or {}).items())
        console.print(f"  correction {c.id} by {c.author} at {c.created_at.isoformat()}: "
                      f"{'pass' if c.passed else 'fail'}{named} ({c.reason})", highlight=False)
    console.print(f"  [bold]effective: {'pass' if r.effective_passed else 'fail'}[/]")


@click.command(help="Re-grade a recorded result's stored deliverable and compare digests.\n\n"
               "Prints MATCH or MISMATCH, every pin that differs (verdict schema, engine, grader, settings) and the "
               "checks whose outcome changed. Exit 0 on match, 1 on mismatch, 2 when the result, its task or its "
               "battery cannot be found as recorded.")
@click.argument("result")
@click.option("--suite-path", "suite_paths", multiple=True, type=click.Path(file_okay=False, path_type=Path),
              help="a held-out suite folder to look for the task in (also $GRADER_HELDOUT_SUITES)")
@database_option
@json_option
@handle_errors
def replay(result: str, suite_paths: tuple[Path, ...], database: str | None, as_json: bool) -> None:
    from grader.replay import replay as run_replay

    store = open_ledger(database, create=False)
    report = run_replay(store, result, suite_paths)
    if as_json:
        emit(report.to_json() | {"ledger": store.display_url})
    else:
        word = "[green]MATCH[/]" if report.match else "[red]MISMATCH[/]"
        console.print(f"{word} {report.result_hash} ({store.display_url})", highlight=False)
        console.print(f"  recorded {report.recorded_digest}\n  replayed {report.replayed_digest}")
        for pin, values in report.pins.items():
            console.print(f"  [yellow]{pin} differs[/]: recorded {values['recorded']}, now {values['now']}",
                          highlight=False)
        if not report.match and not report.differences:
            console.print("  every check has the same outcome and value; the digests differ by the pins above")
        for diff in report.differences:
            console.print(f"  {diff}", highlight=False, markup=False)
        for label, items in (("only in the replay", report.added), ("only in the recorded verdict", report.removed)):
            if items:
                console.print(f"  checks {label}: {', '.join(items)}", highlight=False, markup=False)
    sys.exit(Exit.OK if report.match else Exit.FAILED)
