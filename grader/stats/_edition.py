"""Every board of an edition: overall, per category, per difficulty tier, held-out, and capability resolution."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from grader.stats._analysis import analyse
from grader.stats._board import Board, build_board, build_requirement_board
from grader.stats._bootstrap import ALGORITHM_VERSION, BLOCK, DEFAULT_REPLICATES
from grader.stats._records import AttemptRecord, Requirement, TaskInfo, is_counted


class Price(NamedTuple):
    """List price in USD per million tokens."""

    input_per_mtok: float
    output_per_mtok: float


def environment(root_seed: int, replicates: int = DEFAULT_REPLICATES, confidence: float = 0.95) -> dict[str, Any]:
    """What a snapshot records so that its numbers can be reproduced."""
    return {
        "algorithm": ALGORITHM_VERSION, "numpy": np.__version__,
        "root_seed": root_seed, "replicates": replicates, "confidence": confidence, "block": BLOCK,
        "bit_generator": "PCG64",
        "ci": "paired task bootstrap, percentile (type 7 at exact levels); Clopper-Pearson if degenerate",
        "rank_range": "quantiles of replicate competition ranks (type 1 at exact levels)",
    }


def time_per_task(board: Board, attempts: Iterable[AttemptRecord]) -> tuple[dict[str, float | None], int]:
    """Mean wall seconds per task, over the tasks every ranked model completed at least once.

    Per task, the mean over the model's counted attempts with a recorded time (infra outcomes and hung never
    count); then the mean over those comparable tasks. A model with no timed attempt on one of them gets None.
    Returns the times and the number of comparable tasks.
    """
    models, tasks = set(board.ranked_models), set(board.tasks)
    completed: dict[str, set[str]] = defaultdict(set)
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    for a in attempts:
        if a.model not in models or a.task_hash not in tasks or not is_counted(a.outcome):
            continue
        if str(a.outcome) == "completed":
            completed[a.task_hash].add(a.model)
        if a.wall_seconds is not None:
            times[a.model, a.task_hash].append(float(a.wall_seconds))
    comparable = [t for t in board.tasks if models and completed[t] >= models]
    out: dict[str, float | None] = {}
    for m in board.ranked_models:
        per_task = [math.fsum(times[m, t]) / len(times[m, t]) for t in comparable if times[m, t]]
        out[m] = math.fsum(per_task) / len(per_task) if comparable and len(per_task) == len(comparable) else None
    return out, len(comparable)


def cost_per_task(board: Board, attempts: Iterable[AttemptRecord],
                  prices: Mapping[str, Price]) -> dict[str, float | None]:
    """Mean list-price cost per task (per task: mean over counted attempts), weighted like the score.

    None ("N/A") when the model has no list price or any counted attempt on the board is unmetered: the cost is
    computed from token counts, never estimated.
    """
    models, tasks = set(board.ranked_models), set(board.tasks)
    costs: dict[tuple[str, str], list[float]] = defaultdict(list)
    unmetered: set[str] = set()
    for a in attempts:
        if a.model not in models or a.task_hash not in tasks or not is_counted(a.outcome):
            continue
        price = prices.get(a.model)
        if price is None or a.tokens_in is None or a.tokens_out is None:
            unmetered.add(a.model)
            continue
        costs[a.model, a.task_hash].append(
            a.tokens_in * price.input_per_mtok / 1e6 + a.tokens_out * price.output_per_mtok / 1e6)
    out: dict[str, float | None] = {}
    for m in board.ranked_models:
        if m in unmetered or not board.tasks:
            out[m] = None
            continue
        out[m] = math.fsum(math.fsum(costs[m, t]) / len(costs[m, t]) for t in board.tasks) / len(board.tasks)
    return out


def excluded_attempts(board: Board, attempts: Iterable[AttemptRecord]) -> dict[str, int]:
    """Per model on the board: its attempts on the board's tasks excluded as infrastructure failures
    (infra_error, infra_timeout, hung): retried, never counted, but on the record."""
    tasks = set(board.tasks)
    out = dict.fromkeys(board.models, 0)
    for a in attempts:
        if a.model in out and a.task_hash in tasks and not is_counted(a.outcome):
            out[a.model] += 1
    return out


def board_dict(board: Board, attempts: Sequence[AttemptRecord], root_seed: int, *,
               prices: Mapping[str, Price] | None = None, replicates: int = DEFAULT_REPLICATES,
               confidence: float = 0.95, with_time_and_cost: bool = True,
               with_pairwise: bool = False) -> dict[str, Any]:
    """The analysed board as a plain dict, with time and cost per ranked model on attempt-level boards and,
    when asked, the pairwise view (CI of every score difference and whether the order is resolved)."""
    analysis = analyse(board, root_seed, replicates, confidence)
    result = analysis.as_dict()
    excluded = excluded_attempts(board, attempts)
    for row in result["models"] + result["refused"]:
        row["excluded_attempts"] = excluded[row["model"]]
    if with_pairwise:
        result["pairwise"] = analysis.pairwise_all()
    if with_time_and_cost:
        times, comparable = time_per_task(board, attempts)
        costs = cost_per_task(board, attempts, prices or {})
        result["time_tasks"] = comparable
        for row in result["models"]:
            row["time_per_task_seconds"] = times[row["model"]]
            row["cost_per_task_usd"] = costs[row["model"]]
    return result


def edition_boards(attempts: Iterable[AttemptRecord], tasks: Sequence[TaskInfo], root_seed: int, *,
                   prices: Mapping[str, Price] | None = None, replicates: int = DEFAULT_REPLICATES,
                   confidence: float = 0.95) -> dict[str, Any]:
    """Every board of an edition as plain dicts.

    Attempt-level boards: `overall` (public tasks), `category:<c>` and `difficulty:<d>` (public tasks), and
    `heldout` (held-out tasks). Capability resolution (requirement level, public tasks): `capability:<tag>`
    and `layer:<layer>`. Every model with any attempt is on every board; missing cells refuse it, with the reason.
    """
    attempts = list(attempts)
    models = sorted({a.model for a in attempts})
    public = [t for t in tasks if not t.heldout]
    heldout = [t for t in tasks if t.heldout]
    slices: dict[str, list[TaskInfo]] = {"overall": public}
    for category in sorted({t.category for t in public}):
        slices[f"category:{category}"] = [t for t in public if t.category == category]
    for tier in sorted({t.difficulty for t in public}):
        slices[f"difficulty:{tier}"] = [t for t in public if t.difficulty == tier]
    if heldout:
        slices["heldout"] = heldout
    def analysed(board: Board, *, attempt_level: bool) -> dict[str, Any]:
        return board_dict(board, attempts, root_seed, prices=prices, replicates=replicates, confidence=confidence,
                          with_time_and_cost=attempt_level, with_pairwise=attempt_level and board.key == "overall")

    boards = {key: analysed(build_board(key, attempts, chosen, models), attempt_level=True)
              for key, chosen in slices.items() if chosen}

    def has_tag(tag: str) -> Callable[[Requirement], bool]:
        return lambda r: tag in r.capabilities

    def in_layer(layer: str) -> Callable[[Requirement], bool]:
        return lambda r: r.layer == layer

    resolution: dict[str, Any] = {}
    tags = sorted({tag for t in public for r in t.requirements for tag in r.capabilities})
    layers = sorted({r.layer for t in public for r in t.requirements})
    for tag in tags:
        key = f"capability:{tag}"
        resolution[key] = analysed(build_requirement_board(key, attempts, public, has_tag(tag), models),
                                   attempt_level=False)
    for layer in layers:
        key = f"layer:{layer}"
        resolution[key] = analysed(build_requirement_board(key, attempts, public, in_layer(layer), models),
                                   attempt_level=False)
    return {"statistics": environment(root_seed, replicates, confidence), "boards": boards,
            "capability_resolution": resolution}
