"""Tasks: the folder format, loading with precise errors, and the hashes that pin them."""

from ._hash import (
    HASH_FORMAT,
    battery_hash,
    dataset_hash,
    deliverable_hash,
    suite_dataset_hash,
    task_hash,
    tree_digest,
)
from ._load import TaskError, find_task, load_suite, load_task, repository_suites
from ._model import Difficulty, Limits, RequirementSpec, Screen, Suite, Task, TaskPaths, Visibility

__all__ = [
    "HASH_FORMAT",
    "Difficulty",
    "Limits",
    "RequirementSpec",
    "Screen",
    "Suite",
    "Task",
    "TaskError",
    "TaskPaths",
    "Visibility",
    "battery_hash",
    "dataset_hash",
    "deliverable_hash",
    "find_task",
    "load_suite",
    "load_task",
    "repository_suites",
    "suite_dataset_hash",
    "task_hash",
    "tree_digest",
]
