"""The hashes that pin tasks, batteries, suites and deliverables.

- task_hash: SHA-256 of a canonical JSON document holding task.toml (parsed, so formatting does not count),
  prompt.md and every file under workspace/ as (path, SHA-256 of bytes), sorted by path.
- battery_hash: the same over battery/, plus the engine's battery API version.
- dataset_hash: SHA-256 over the sorted lines "task_id task_hash battery_hash".
(A deliverable's hash is the SHA-256 of its deterministic archive: grader/deliverable.py.)
Text files (valid UTF-8 without NUL) count with CRLF read as LF, so a Windows checkout hashes the same;
mtimes, permissions and the order files are listed in never count.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from pathlib import Path
from typing import Any

from ._model import Suite, Task

HASH_FORMAT = "grader-hash/1"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _normalise(data: bytes) -> bytes:
    if b"\0" in data:
        return data
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    return data.replace(b"\r\n", b"\n")


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _files(root: Path) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    if not root.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_file() and not path.is_symlink():
                out.append((path.relative_to(root).as_posix(), path))
    return sorted(out)


def tree_digest(root: Path, normalise_text: bool = True) -> list[list[str]]:
    """[[relative path, SHA-256], ...] for every regular file under root, sorted by path."""
    return [[rel, _sha(_normalise(p.read_bytes()) if normalise_text else p.read_bytes())] for rel, p in _files(root)]


def task_hash(task: Task) -> str:
    paths = task.paths
    document = {
        "format": HASH_FORMAT,
        "task": tomllib.loads(paths.task_toml.read_text(encoding="utf-8")),
        "prompt": _sha(_normalise(paths.prompt.read_bytes())),
        "workspace": tree_digest(paths.workspace),
    }
    return _sha(_canonical(document))


def battery_hash(task: Task, api_version: str) -> str:
    document = {"format": HASH_FORMAT, "battery_api": api_version, "battery": tree_digest(task.paths.battery)}
    return _sha(_canonical(document))


def dataset_hash(rows: list[tuple[str, str, str]]) -> str:
    """rows: (task_id, task_hash, battery_hash) for every task of a suite."""
    lines = sorted(f"{task_id} {th} {bh}\n" for task_id, th, bh in rows)
    return _sha("".join(lines).encode("utf-8"))


def suite_dataset_hash(suite: Suite, api_version: str) -> str:
    """The dataset_hash of a whole suite: every task's id, task_hash and battery_hash."""
    return dataset_hash([(t.id, task_hash(t), battery_hash(t, api_version)) for t in suite.tasks])
