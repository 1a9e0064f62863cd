"""A task's wrong solutions, kept as patches against its oracle (`solutions/wrong-<name>.patch`), so a fix to the
oracle reaches every one of them: each patch is a unified diff (`diff -ruN oracle wrong-<name>` from inside
solutions/, or `git diff --no-index`), applied strictly — the first path component stripped as by `patch -p1`,
no fuzz, every context line exactly as in the oracle — to a copy of the oracle.

`solution_folder(task, name)` gives the folder of "oracle" or of a wrong solution; a wrong one is made once per
(oracle, patch) content in a cache folder of this user and reused, by every process, since its name is the hash
of what made it.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader._errors import TaskError
from grader.private_cache import build_once, private_cache_dir

from ._hash import tree_digest
from ._model import Task
from ._params import rendered_folder

PATCH_SUFFIX = ".patch"
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NO_NEWLINE = "\\ No newline at end of file"


@dataclass
class _Hunk:
    old_start: int
    new_start: int
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)


@dataclass
class _FilePatch:
    path: str          # relative to the solution's root
    deleted: bool
    hunks: list[_Hunk] = field(default_factory=list)


def _strip(raw: str, where: str) -> str | None:
    """A diff header's path without its timestamp and first component; None for /dev/null."""
    name = raw.split("\t", 1)[0].strip()
    if name == "/dev/null":
        return None
    parts = PurePosixPath(name).parts
    rel = PurePosixPath(*parts[1:]) if len(parts) > 1 and not name.startswith("/") else None
    if rel is None or ".." in rel.parts:
        raise TaskError(f"{where}: path {name!r} does not name a file inside the solution")
    return str(rel)


def parse_patch(text: str, where: str) -> list[_FilePatch]:
    """The file patches of a unified diff; the message of a refusal names the patch and its line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    files: list[_FilePatch] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("--- "):
            i += 1   # `diff -ruN ...` and `Only in` lines, git's headers
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("+++ "):
            raise TaskError(f"{where}:{i + 1}: '---' without '+++'")
        old, new = _strip(lines[i][4:], f"{where}:{i + 1}"), _strip(lines[i + 1][4:], f"{where}:{i + 2}")
        path = new or old
        if path is None:
            raise TaskError(f"{where}:{i + 1}: both sides are /dev/null")
        current = _FilePatch(path, deleted=new is None)
        files.append(current)
        i += 2
        while i < len(lines) and lines[i].startswith("@@"):
            match = _HUNK.match(lines[i])
            if not match:
                raise TaskError(f"{where}:{i + 1}: not a hunk header: {lines[i]!r}")
            old_len = int(match.group(2) or "1")
            new_len = int(match.group(4) or "1")
            hunk = _Hunk(int(match.group(1)), int(match.group(3)))
            i += 1
            while (len(hunk.old) < old_len or len(hunk.new) < new_len) and i < len(lines):
                line = lines[i]
                tag, body = line[:1], line[1:] + "\n"
                if tag in (" ", ""):
                    hunk.old.append(body)
                    hunk.new.append(body)
                elif tag == "-":
                    hunk.old.append(body)
                elif tag == "+":
                    hunk.new.append(body)
                else:
                    raise TaskError(f"{where}:{i + 1}: not a line of a hunk: {line!r}")
                i += 1
                if i < len(lines) and lines[i] == NO_NEWLINE:
                    side = hunk.new if tag == "+" else hunk.old if tag == "-" else None
                    for seq in ([side] if side is not None else [hunk.old, hunk.new]):
                        seq[-1] = seq[-1][:-1]
                    i += 1
            if len(hunk.old) != old_len or len(hunk.new) != new_len:
                raise TaskError(f"{where}:{i}: the hunk ends early")
            current.hunks.append(hunk)
    if not files:
        raise TaskError(f"{where}: no file patch in it (make it with `diff -ruN oracle wrong-<name>`)")
    return files


def apply_patch(text: str, root: Path, where: str) -> None:
    """Apply a unified diff to the files under `root`, all or nothing per file, strictly (no fuzz)."""
    for fp in parse_patch(text, where):
        target = root / fp.path
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise TaskError(f"{where}: {fp.path} is not a regular file of the oracle")
        content = target.read_text(encoding="utf-8").splitlines(keepends=True) if target.exists() else []
        out: list[str] = []
        at = 0
        for hunk in fp.hunks:
            start = max(hunk.old_start - 1, 0) if hunk.old else hunk.old_start
            if start < at or content[start:start + len(hunk.old)] != hunk.old:
                raise TaskError(f"{where}: a hunk for {fp.path} at line {hunk.old_start} does not match the oracle "
                                f"(the oracle changed: make the patch again)")
            out += content[at:start] + hunk.new
            at = start + len(hunk.old)
        out += content[at:]
        # deleted: /dev/null as the new name (git), or, as `diff -N` writes it, the new side empty from line 0
        if fp.deleted or (not out and fp.hunks and all(h.new_start == 0 and not h.new for h in fp.hunks)):
            if out:
                raise TaskError(f"{where}: {fp.path} is deleted but the patch leaves lines in it")
            target.unlink()
            continue
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o644
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(out), encoding="utf-8")
        target.chmod(mode)


def wrong_solution_names(task: Task) -> list[str]:
    """wrong-<name> for each solutions/wrong-<name>.patch, sorted."""
    if not task.paths.solutions.is_dir():
        return []
    return sorted(p.name[: -len(PATCH_SUFFIX)] for p in task.paths.solutions.glob(f"wrong-*{PATCH_SUFFIX}")
                  if p.is_file())


def _cache_root() -> Path:
    try:
        return private_cache_dir("solutions")
    except OSError as exc:
        raise TaskError(str(exc)) from None


def solution_folder(task: Task, name: str) -> Path:
    """The folder of the task's solution `name`: "oracle", or a wrong one made from the oracle and its patch;
    rendered with the task's parameter values when it has any (grader/tasks/_params.py)."""
    label = f"{task.paths.solutions}/{name}"
    return rendered_folder(task, _template_folder(task, name), label)


def _template_folder(task: Task, name: str) -> Path:
    """The solution as written: the oracle, or a wrong one made from it and its patch."""
    oracle = task.paths.oracle
    if name == "oracle":
        return oracle
    patch = task.paths.solutions / f"{name}{PATCH_SUFFIX}"
    if not name.startswith("wrong-") or not patch.is_file():
        raise TaskError(f"{patch}: no such wrong solution (known: {', '.join(wrong_solution_names(task)) or 'none'})")
    if not oracle.is_dir():
        raise TaskError(f"{oracle}: the task has no oracle solution to patch")
    text = patch.read_text(encoding="utf-8")
    key = hashlib.sha256(f"solution/1|{tree_digest(oracle)}|".encode() + text.encode()).hexdigest()[:32]

    def fill(building: Path) -> None:
        shutil.copytree(oracle, building, symlinks=True, dirs_exist_ok=True)
        apply_patch(text, building, str(patch))

    return build_once(_cache_root() / f"{name}-{key}", fill)
