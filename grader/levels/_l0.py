"""L0: the deliverable is a folder whose every entry the grader could read within the task's limits, nothing in it
leaves it, its Lua is valid UTF-8, and the entry script and required files are there.

L0 judges the grader's bounded reading of the deliverable (grader/deliverable.py), never the folder itself: the
same listing is what the ledger stores, so a replay judges exactly what was graded.
"""

from __future__ import annotations

import fnmatch

from evidence import L0Check, L0Result
from grader.deliverable import Tree
from grader.tasks import Task

SHOWN = 10
# Checks whose failure means the folder cannot be run safely or whole: L2 does not run the game then.
SAFETY_CHECKS = ("deliverable_is_folder", "names_are_utf8", "no_links_out", "no_special_files", "listing_complete",
                 "file_count", "file_size", "total_size", "files_readable")


def _listed(items: list[str]) -> str:
    more = f"; and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return "; ".join(items[:SHOWN]) + more


def check_deliverable(task: Task, tree: Tree) -> L0Result:
    """Every L0 check, named, in a fixed order; all run even when one fails."""
    limits = task.limits
    if not tree.is_folder:
        return L0Result(False, (L0Check("deliverable_is_folder", False, "the deliverable is not a folder"),))
    checks = [L0Check("deliverable_is_folder", True)]
    bad_names = [e.name_bytes.decode("utf-8", "backslashreplace") for e in tree.entries if not e.utf8_name]
    checks.append(L0Check("names_are_utf8", not bad_names, _listed(bad_names)))
    links_out = [f"{e.path} -> {e.target} ({why})" for e in tree.entries if e.kind == "link"
                 for why in [tree.link_escapes(e)] if why]
    checks.append(L0Check("no_links_out", not links_out, _listed(links_out)))
    special = [f"{e.path} ({e.special})" for e in tree.entries if e.kind == "special"]
    checks.append(L0Check("no_special_files", not special, _listed(special)))
    hard = [e.path for e in tree.files if e.hardlinked]
    checks.append(L0Check("no_hard_links", not hard, _listed(hard)))
    checks.append(L0Check("listing_complete", not tree.truncated,
                          f"the listing stopped: {tree.truncated}" if tree.truncated else ""))
    files = tree.files
    checks.append(L0Check("file_count", len(files) <= limits.max_files,
                          f"{len(files)} files (limit {limits.max_files})"))
    too_big = [f"{e.path}: {e.size} bytes" for e in files if e.size > limits.max_file_bytes]
    checks.append(L0Check("file_size", not too_big, _listed(too_big) or f"each at most {limits.max_file_bytes} bytes"))
    total = sum(e.size for e in files)
    checks.append(L0Check("total_size", total <= limits.max_total_bytes,
                          f"{total} bytes (limit {limits.max_total_bytes})"))
    unreadable = [f"{e.path}: {e.omitted}" for e in files
                  if e.content is None and e.omitted not in ("over the file limit", "over the total limit")]
    checks.append(L0Check("files_readable", not unreadable, _listed(unreadable)))
    bad_utf8 = []
    for e in files:
        if e.path.endswith(".lua") and e.content is not None:
            try:
                e.content.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = e.content[: exc.start].count(b"\n") + 1
                bad_utf8.append(f"{e.path}:{line}")
    checks.append(L0Check("lua_is_utf8", not bad_utf8, _listed(bad_utf8)))
    names = sorted(e.path for e in files)
    entry_ok = task.entry in names
    checks.append(L0Check("entry_script", entry_ok, task.entry if entry_ok else f"{task.entry} is missing"))
    unmatched = [g for g in task.required if not fnmatch.filter(names, g)]
    checks.append(L0Check("required_files", not unmatched,
                          "missing: " + ", ".join(unmatched) if unmatched else ", ".join(task.required)))
    return L0Result(all(c.passed for c in checks), tuple(checks))


def safe_to_run(l0: L0Result) -> bool:
    """The folder is whole and stays inside itself: L2 may run the game."""
    return all(c.passed for c in l0.checks if c.name in SAFETY_CHECKS) and bool(l0.checks)
