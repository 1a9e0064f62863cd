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
from ._params import (
    DEFAULT_SEED,
    ParamSpec,
    edition_seed,
    param_values,
    prompt_file,
    prompt_text,
    rendered_folder,
    with_params,
    with_params_seed,
    workspace_folder,
)
from ._solutions import solution_folder, wrong_solution_names

__all__ = [
    "DEFAULT_SEED",
    "HASH_FORMAT",
    "Difficulty",
    "Limits",
    "Network",
    "ParamSpec",
    "RequirementSpec",
    "Screen",
    "Suite",
    "Task",
    "TaskError",
    "TaskPaths",
    "Visibility",
    "battery_hash",
    "dataset_hash",
    "edition_seed",
    "find_task",
    "load_suite",
    "load_task",
    "param_values",
    "prompt_file",
    "prompt_text",
    "rendered_folder",
    "repository_suites",
    "solution_folder",
    "suite_dataset_hash",
    "task_hash",
    "tree_digest",
    "with_params",
    "with_params_seed",
    "workspace_folder",
    "wrong_solution_names",
]
