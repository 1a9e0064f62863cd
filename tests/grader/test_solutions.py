"""Wrong solutions as patches against the oracle: applied strictly, made once per content, refused clearly."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.tasks import TaskError, load_task, solution_folder, wrong_solution_names
from grader.tasks._solutions import apply_patch

from .conftest import ORACLE, solution_patch


def _diff(solutions: Path, name: str) -> str:
    """What an author runs: `diff -ruN oracle wrong-<name>` inside solutions/."""
    done = subprocess.run(["diff", "-ruN", "oracle", name], cwd=solutions, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 1, done.stderr   # 1: the trees differ
    return done.stdout


def test_a_patch_made_by_diff_gives_back_the_wrong_tree_new_deleted_and_unterminated_files_included(
        tmp_path: Path, make_task: Callable[..., Path]) -> None:
    root = make_task("patched")
    solutions = root / "solutions"
    (solutions / "oracle" / "scripts" / "gone.lua").write_text("return 1\n")
    (solutions / "oracle" / "notes.txt").write_text("no newline at the end")
    wrong = tmp_path / "build" / "wrong-y"
    (wrong / "scripts").mkdir(parents=True)
    (wrong / "scripts" / "main.lua").write_text(ORACLE.replace("Vector3(3, 0, 0)", "Vector3(3, 1, 0)") + "-- end\n")
    (wrong / "scripts" / "extra.lua").write_text("local x = 1\nreturn x\n")
    (wrong / "notes.txt").write_text("still no newline, but other words")
    (solutions / "wrong-y").symlink_to(wrong)   # diff follows it: the author's working copy
    patch = _diff(solutions, "wrong-y")
    (solutions / "wrong-y").unlink()
    (solutions / "wrong-y.patch").write_text(patch)
    (solutions / "expect.toml").write_text('[wrong-x]\nfail = ["R1"]\n[wrong-y]\nfail = ["R1"]\n')
    task = load_task(root, "suite")
    assert wrong_solution_names(task) == ["wrong-x", "wrong-y"]
    made = solution_folder(task, "wrong-y")
    files = sorted(str(p.relative_to(made)) for p in made.rglob("*") if p.is_file())
    assert files == ["notes.txt", "scripts/extra.lua", "scripts/main.lua"]
    for name in files:
        assert (made / name).read_bytes() == (wrong / name).read_bytes()
    assert solution_folder(task, "wrong-y") == made   # made once, found again by its content's hash
    assert solution_folder(task, "oracle") == task.paths.oracle
    (solutions / "oracle" / "scripts" / "main.lua").write_text(ORACLE + "-- an oracle fix\n")
    assert solution_folder(task, "wrong-x") != made and "an oracle fix" in (
        solution_folder(task, "wrong-x") / "scripts" / "main.lua").read_text()   # the fix reaches the wrong ones


def test_a_patch_that_no_longer_matches_the_oracle_is_refused_naming_it(make_task: Callable[..., Path]) -> None:
    root = make_task("stale")
    (root / "solutions" / "oracle" / "scripts" / "main.lua").write_text(ORACLE.replace("Scene()", "Scene() -- x"))
    task = load_task(root, "suite")
    with pytest.raises(TaskError, match=r"wrong-x\.patch: a hunk for scripts/main\.lua at line 1 does not match "
                                        r"the oracle \(the oracle changed: make the patch again\)"):
        solution_folder(task, "wrong-x")
    with pytest.raises(TaskError, match=r"wrong-nope\.patch: no such wrong solution \(known: wrong-x\)"):
        solution_folder(task, "wrong-nope")


@pytest.mark.parametrize(("patch", "message"), [
    ("--- oracle/../../etc/passwd\n+++ wrong-x/../../etc/passwd\n@@ -0,0 +1 @@\n+x\n", "does not name a file inside"),
    ("--- /abs\n+++ /abs/path\n@@ -0,0 +1 @@\n+x\n", "does not name a file inside"),
    ("just some words\n", "no file patch in it"),
    ("--- oracle/a\n+++ wrong-x/a\n@@ -0,0 +1,2 @@\n+x\n", "the hunk ends early"),
    ("--- oracle/a\n+++ wrong-x/a\n@@ -0,0 +1 @@\n?x\n", "not a line of a hunk"),
])
def test_a_malformed_or_escaping_patch_is_refused(tmp_path: Path, patch: str, message: str) -> None:
    with pytest.raises(TaskError, match=message):
        apply_patch(patch, tmp_path, "wrong-x.patch")
    assert list(tmp_path.iterdir()) == []


def test_the_conftest_patch_is_what_diff_makes(make_task: Callable[..., Path]) -> None:
    root = make_task("same")
    made = solution_folder(load_task(root, "suite"), "wrong-x")
    assert (made / "scripts" / "main.lua").read_text() == ORACLE.replace("3, 0, 0", "2, 0, 0")
    assert solution_patch(ORACLE, ORACLE).strip() == ""
