"""`grader tasks`: the repository's suites and tasks, their hashes, and the batteries' self-tests."""

from __future__ import annotations

import sys
from typing import Any

import click
from rich.table import Table

from engine import API_VERSION
from grader.tasks import Task, TaskError, battery_hash, dataset_hash, find_task, repository_suites, task_hash

from ._common import Exit, console, emit, handle_errors, json_option


@click.group(help="Inspect, hash and validate the repository's task suites.")
def tasks() -> None:
    pass


def task_row(task: Task) -> dict[str, Any]:
    layers = [r.layer.value for r in task.requirements]
    return {"id": task.qualified_id, "title": task.title, "category": task.category,
            "difficulty": task.difficulty.value, "capabilities": list(task.capabilities),
            "requirements": {"completeness": layers.count("completeness"), "richness": layers.count("richness")}}


@tasks.command("list", help="List every task of the repository's suites.")
@json_option
@handle_errors
def tasks_list(as_json: bool) -> None:
    rows = [task_row(t) for s in repository_suites() for t in s.tasks]
    if as_json:
        emit(rows)
        return
    table = Table("task", "category", "tier", "capabilities", "reqs")
    for r in rows:
        reqs = r["requirements"]
        table.add_row(r["id"], r["category"], r["difficulty"], ", ".join(r["capabilities"]),
                      f"{reqs['completeness']}+{reqs['richness']}")
    console.print(table)


@tasks.command("show", help="Show one task: metadata, limits, requirements, hashes.")
@click.argument("task_ref")
@json_option
@handle_errors
def tasks_show(task_ref: str, as_json: bool) -> None:
    task = find_task(task_ref)
    data = task_row(task) | {
        "entry": task.entry, "required": list(task.required), "limits": task.limits.as_dict(),
        "screen": task.screen.__dict__, "task_hash": task_hash(task), "battery_hash": battery_hash(task, API_VERSION)}
    if as_json:
        emit(data)
        return
    for key, value in data.items():
        console.print(f"[bold]{key}[/]: {value}", markup=True, highlight=False)


@tasks.command("hash", help="task_hash and battery_hash of every task, and each suite's dataset_hash.")
@click.argument("suite", required=False)
@json_option
@handle_errors
def tasks_hash(suite: str | None, as_json: bool) -> None:
    suites = [s for s in repository_suites() if suite in (None, s.name)]
    if suite and not suites:
        raise TaskError(f"no suite {suite!r} (known: {', '.join(s.name for s in repository_suites())})")
    out: list[dict[str, Any]] = []
    for s in suites:
        rows = [(t.id, task_hash(t), battery_hash(t, API_VERSION)) for t in s.tasks]
        out.append({"suite": s.name, "version": s.version, "dataset_hash": dataset_hash(rows),
                    "tasks": [{"id": i, "task_hash": th, "battery_hash": bh} for i, th, bh in rows]})
    if as_json:
        emit(out)
        return
    for entry in out:
        console.print(f"[bold]{entry['suite']}[/] {entry['version']} dataset_hash {entry['dataset_hash']}")
        for t in entry["tasks"]:
            console.print(f"  {t['id']:<28} task {t['task_hash'][:16]}  battery {t['battery_hash'][:16]}")


@tasks.command("validate", help="Battery self-tests: oracle passes, nop fails, wrong-* fail as expected.\n\n"
               "Exit 0 when every solution behaves as declared, 1 otherwise.")
@click.argument("ref", required=False)
@click.option("--repeats", type=click.IntRange(1, 20), default=2, show_default=True,
              help="runs per solution (digests must agree)")
@json_option
@handle_errors
def tasks_validate(ref: str | None, repeats: int, as_json: bool) -> None:
    from grader.validate import validate_task

    suites = repository_suites()
    if ref is None:
        selected = [t for s in suites for t in s.tasks]
    elif any(s.name == ref for s in suites):
        selected = [t for s in suites if s.name == ref for t in s.tasks]
    else:
        selected = [find_task(ref, suites)]
    results = []
    for task in selected:
        result = validate_task(task, repeats)
        results.append(result)
        if not as_json:
            for s in result.solutions:
                mark = "[green]ok[/]" if s.ok else "[red]FAIL[/]"
                console.print(f"{mark} {result.task} {s.solution} {'; '.join(s.problems)}")
    solutions = [s for r in results for s in r.solutions]
    bad = [s for s in solutions if not s.ok]
    if as_json:
        emit([{"task": r.task, "ok": r.ok, "solutions": [s.__dict__ for s in r.solutions]} for r in results])
    else:
        console.print(f"{len(results)} tasks, {len(solutions)} solutions: "
                      + ("all behave as declared" if not bad else f"[red]{len(bad)} do not[/]"))
    sys.exit(Exit.OK if not bad else Exit.FAILED)
