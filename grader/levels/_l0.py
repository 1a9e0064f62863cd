"""L0: the deliverable exists, stays inside its folder, is within the task's limits, and its Lua is valid UTF-8."""

from __future__ import annotations

import fnmatch
import os
import stat
from pathlib import Path

from evidence import L0Check, L0Result
from grader.tasks import Task


def _walk(root: Path) -> tuple[list[Path], list[str], list[str], list[str]]:
    """Regular files, and the problems found: links out, special files, hard links."""
    files: list[Path] = []
    links_out: list[str] = []
    special: list[str] = []
    hard: list[str] = []
    real_root = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                target = os.readlink(path)
                resolved = path.resolve()
                if os.path.isabs(target) or not resolved.is_relative_to(real_root):
                    links_out.append(f"{rel} -> {target}")
                continue
            if stat.S_ISDIR(info.st_mode):
                continue
            if not stat.S_ISREG(info.st_mode):
                special.append(rel)
                continue
            if info.st_nlink > 1:
                hard.append(rel)
            files.append(path)
    return files, links_out, special, hard


def check_deliverable(task: Task, root: Path) -> L0Result:
    """Every L0 check, named, in a fixed order; all run even when one fails."""
    limits = task.limits
    checks: list[L0Check] = []
    if not root.is_dir() or root.is_symlink():
        checks.append(L0Check("deliverable_is_folder", False, "the deliverable is not a folder"))
        return L0Result(False, tuple(checks))
    checks.append(L0Check("deliverable_is_folder", True))
    files, links_out, special, hard = _walk(root)
    checks.append(L0Check("no_links_out", not links_out, "; ".join(links_out[:10])))
    checks.append(L0Check("no_special_files", not special, "; ".join(special[:10])))
    checks.append(L0Check("no_hard_links", not hard, "; ".join(hard[:10])))
    rels = sorted(p.relative_to(root).as_posix() for p in files)
    checks.append(L0Check("file_count", len(files) <= limits.max_files,
                          f"{len(files)} files (limit {limits.max_files})"))
    sizes = {p.relative_to(root).as_posix(): p.lstat().st_size for p in files}
    too_big = sorted(rel for rel, size in sizes.items() if size > limits.max_file_bytes)
    checks.append(L0Check("file_size", not too_big,
                          "; ".join(f"{r}: {sizes[r]} bytes" for r in too_big[:10]) or
                          f"each at most {limits.max_file_bytes} bytes"))
    total = sum(sizes.values())
    checks.append(L0Check("total_size", total <= limits.max_total_bytes,
                          f"{total} bytes (limit {limits.max_total_bytes})"))
    bad_utf8 = []
    for path in files:
        if path.suffix == ".lua" and path.lstat().st_size <= limits.max_file_bytes:
            data = path.read_bytes()
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = data[: exc.start].count(b"\n") + 1
                bad_utf8.append(f"{path.relative_to(root).as_posix()}:{line}")
    checks.append(L0Check("lua_is_utf8", not bad_utf8, "; ".join(bad_utf8[:10])))
    entry_ok = task.entry in rels
    checks.append(L0Check("entry_script", entry_ok, task.entry if entry_ok else f"{task.entry} is missing"))
    unmatched = [g for g in task.required if not fnmatch.filter(rels, g)]
    checks.append(L0Check("required_files", not unmatched,
                          "missing: " + ", ".join(unmatched) if unmatched else ", ".join(task.required)))
    return L0Result(all(c.passed for c in checks), tuple(checks))
