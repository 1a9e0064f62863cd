"""The input model: per-(model, task) counts on one board, built from attempt records by the counting rule."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from grader.stats._records import AttemptRecord, Requirement, TaskInfo, is_counted

REFUSAL_SHOWN_TASKS = 3


@dataclass(frozen=True, eq=False)
class Board:
    """Counts for one board: `n[m, t]` counted attempts and `c[m, t]` passes, tasks in canonical order.

    A model with a missing cell (no counted attempt on some task) is refused for ranking, with the reason in
    `refused`; its score is never renormalised over the tasks it did attempt.
    """

    key: str
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    n: np.ndarray
    c: np.ndarray
    categories: tuple[str, ...] = ()
    difficulties: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()     # how refusals name each task (its id); hash prefixes when empty
    refused: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        n = np.array(self.n, dtype=np.int64, copy=True)
        c = np.array(self.c, dtype=np.int64, copy=True)
        shape = (len(self.models), len(self.tasks))
        if n.shape != shape or c.shape != shape:
            raise ValueError(f"board {self.key!r}: n and c must have shape {shape}, got {n.shape} and {c.shape}")
        if len(set(self.models)) != len(self.models):
            raise ValueError(f"board {self.key!r}: duplicate model names")
        if list(self.tasks) != sorted(set(self.tasks)):
            raise ValueError(f"board {self.key!r}: tasks must be unique and in canonical order (sorted task_hash)")
        if (n < 0).any() or (c < 0).any() or (c > n).any():
            raise ValueError(f"board {self.key!r}: counts must satisfy 0 <= c <= n")
        if not self.labels:
            object.__setattr__(self, "labels", tuple(h[:12] for h in self.tasks))
        for name in ("categories", "difficulties", "labels"):
            values = tuple(getattr(self, name)) or ("",) * len(self.tasks)
            if len(values) != len(self.tasks):
                raise ValueError(f"board {self.key!r}: {name} must give one value per task")
            object.__setattr__(self, name, values)
        n.flags.writeable = False
        c.flags.writeable = False
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "c", c)
        object.__setattr__(self, "models", tuple(self.models))
        object.__setattr__(self, "tasks", tuple(self.tasks))
        object.__setattr__(self, "refused", _refusals(self))

    @property
    def ranked_models(self) -> tuple[str, ...]:
        """Models with a counted attempt on every task of the board, in the board's model order."""
        return tuple(m for m in self.models if m not in self.refused)


def _refusals(board: Board) -> dict[str, str]:
    refused: dict[str, str] = {}
    total = len(board.tasks)
    for i, model in enumerate(board.models):
        if total == 0:
            refused[model] = "the board has no tasks"
            continue
        missing = [board.labels[t] for t in np.flatnonzero(board.n[i] == 0)]
        if missing:
            shown = ", ".join(missing[:REFUSAL_SHOWN_TASKS])
            more = f" and {len(missing) - REFUSAL_SHOWN_TASKS} more" if len(missing) > REFUSAL_SHOWN_TASKS else ""
            refused[model] = (f"no counted attempt on {len(missing)} of {total} tasks ({shown}{more}); "
                              "not ranked rather than renormalised over the tasks it attempted")
    return refused


CellCounter = Callable[[AttemptRecord, TaskInfo], tuple[int, int]]


def _attempt_cell(attempt: AttemptRecord, task: TaskInfo) -> tuple[int, int]:
    return 1, int(bool(attempt.effective_passed))


def build_board(key: str, attempts: Iterable[AttemptRecord], tasks: Sequence[TaskInfo],
                models: Sequence[str] | None = None, *, counter: CellCounter = _attempt_cell) -> Board:
    """Count the attempts on `tasks` (others are ignored) by the counting rule.

    Completed, agent_error and agent_timeout attempts count; infra_error, infra_timeout and hung do not.
    `models` defaults to every model with any attempt on these tasks, sorted by name (so a model whose attempts
    were all infrastructure failures appears, refused).
    """
    ordered = sorted(tasks, key=lambda t: t.task_hash)
    column = {t.task_hash: j for j, t in enumerate(ordered)}
    attempts = [a for a in attempts if a.task_hash in column]
    names = tuple(models) if models is not None else tuple(sorted({a.model for a in attempts}))
    row = {m: i for i, m in enumerate(names)}
    n = np.zeros((len(names), len(ordered)), dtype=np.int64)
    c = np.zeros_like(n)
    for attempt in attempts:
        if attempt.model not in row or not is_counted(attempt.outcome):
            continue
        i, j = row[attempt.model], column[attempt.task_hash]
        dn, dc = counter(attempt, ordered[j])
        n[i, j] += dn
        c[i, j] += dc
    return Board(key=key, models=names, tasks=tuple(t.task_hash for t in ordered), n=n, c=c,
                 categories=tuple(t.category for t in ordered), difficulties=tuple(t.difficulty for t in ordered),
                 labels=tuple(t.label or t.task_hash[:12] for t in ordered))


def build_requirement_board(key: str, attempts: Iterable[AttemptRecord], tasks: Sequence[TaskInfo],
                            select: Callable[[Requirement], bool], models: Sequence[str] | None = None) -> Board:
    """Requirement-level counts: per task, every selected requirement of its manifest in every counted attempt.

    Tasks with no selected requirement are not on the board. `n[m, t]` = counted attempts x selected
    requirements, `c[m, t]` = selected requirements that passed, summed over those attempts.
    """
    chosen = [t for t in tasks if any(select(r) for r in t.requirements)]

    def counter(attempt: AttemptRecord, task: TaskInfo) -> tuple[int, int]:
        ids = [r.id for r in task.requirements if select(r)]
        return len(ids), sum(1 for r in ids if r in attempt.requirements_passed)

    attempts = list(attempts)
    if models is None:
        models = sorted({a.model for a in attempts if a.task_hash in {t.task_hash for t in chosen}})
    return build_board(key, attempts, chosen, models, counter=counter)
