"""Tasks: the folder format, loading with precise errors, and the hashes that pin them."""

from ._hash import (
    HASH_FORMAT,
    battery_hash,
    dataset_hash,
    suite_dataset_hash,
    task_hash,
    tree_digest,
)
from ._load import TaskError, find_task, load_suite, load_task, repository_suites
from ._model import Difficulty, Limits, Network, RequirementSpec, Screen, Suite, Task, TaskPaths, Visibility
from ._solutions import solution_folder, wrong_solution_names

__all__ = [
    "HASH_FORMAT",
    "Difficulty",
    "Limits",
    "Network",
    "RequirementSpec",
    "Screen",
    "Suite",
    "Task",
    "TaskError",
    "TaskPaths",
    "Visibility",
    "battery_hash",
    "dataset_hash",
    "find_task",
    "load_suite",
    "load_task",
    "repository_suites",
    "solution_folder",
    "suite_dataset_hash",
    "task_hash",
    "tree_digest",
    "wrong_solution_names",
]
