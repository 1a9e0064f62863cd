"""Statistics and boards: pure functions over per-(model, task) counts (docs/statistics.md).

Scores weigh every task the same; CIs come from a paired bootstrap over tasks (Clopper–Pearson exact when a
model's per-task rates are all equal); ranks compare exact rationals; every random stream is seeded per board.
"""

from __future__ import annotations

from grader.stats._analysis import BOOTSTRAP, EXACT, BoardAnalysis, ModelStats, analyse
from grader.stats._board import Board, build_board, build_requirement_board
from grader.stats._bootstrap import (
    ALGORITHM_VERSION,
    DEFAULT_REPLICATES,
    board_rng,
    board_seed,
    board_spawn_id,
    replicate_sums,
)
from grader.stats._edition import (
    Price,
    board_dict,
    cost_per_task,
    edition_boards,
    environment,
    excluded_attempts,
    time_per_task,
)
from grader.stats._exact import clopper_pearson, competition_ranks, replicate_ranks
from grader.stats._records import (
    COUNTED_OUTCOMES,
    UNCOUNTED_OUTCOMES,
    AttemptRecord,
    Requirement,
    TaskInfo,
    effective_requirements,
    is_counted,
)

__all__ = [
    "ALGORITHM_VERSION",
    "BOOTSTRAP",
    "COUNTED_OUTCOMES",
    "DEFAULT_REPLICATES",
    "EXACT",
    "UNCOUNTED_OUTCOMES",
    "AttemptRecord",
    "Board",
    "BoardAnalysis",
    "ModelStats",
    "Price",
    "Requirement",
    "TaskInfo",
    "analyse",
    "board_dict",
    "board_rng",
    "board_seed",
    "board_spawn_id",
    "build_board",
    "build_requirement_board",
    "clopper_pearson",
    "competition_ranks",
    "cost_per_task",
    "edition_boards",
    "effective_requirements",
    "environment",
    "excluded_attempts",
    "is_counted",
    "replicate_ranks",
    "replicate_sums",
    "time_per_task",
]
