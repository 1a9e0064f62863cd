"""L0 refusals, each named in the evidence."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from grader.levels import check_deliverable
from grader.tasks import load_task
from tests.grader.conftest import TASK_TOML


def _deliverable(make_task: Callable[..., Path], tmp_path: Path) -> tuple[object, Path]:
    task = load_task(make_task())
    out = tmp_path / "deliverable"
    shutil.copytree(task.paths.oracle, out)
    return task, out


def failed(result: object) -> list[str]:
    return [c.name for c in result.checks if not c.passed]  # type: ignore[attr-defined]


def test_the_oracle_passes_every_check(make_task: Callable[..., Path], tmp_path: Path) -> None:
    task, out = _deliverable(make_task, tmp_path)
    result = check_deliverable(task, out)
    assert result.passed and failed(result) == []
    assert [c.name for c in result.checks] == [
        "deliverable_is_folder", "no_links_out", "no_special_files", "no_hard_links", "file_count", "file_size",
        "total_size", "lua_is_utf8", "entry_script", "required_files"]


def test_symlinks_out_are_refused(make_task: Callable[..., Path], tmp_path: Path) -> None:
    task, out = _deliverable(make_task, tmp_path)
    (out / "passwd").symlink_to("/etc/passwd")
    (out / "up").symlink_to("..")
    (out / "inside").symlink_to("scripts/main.lua")
    result = check_deliverable(task, out)
    assert failed(result) == ["no_links_out"]
    detail = result.checks[1].detail
    assert "passwd -> /etc/passwd" in detail and "up -> .." in detail and "inside" not in detail


def test_special_and_hard_linked_files_are_refused(make_task: Callable[..., Path], tmp_path: Path) -> None:
    task, out = _deliverable(make_task, tmp_path)
    os.mkfifo(out / "pipe")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    os.link(outside, out / "hard.txt")
    assert failed(check_deliverable(task, out)) == ["no_special_files", "no_hard_links"]


def test_limits_utf8_entry_and_required(make_task: Callable[..., Path], tmp_path: Path) -> None:
    # the task's own [limits] override the grader's defaults, under the same names
    limits = "max_files = 2\nmax_file_bytes = 4096\nmax_total_bytes = 4500\n"
    task = load_task(make_task(task_toml=TASK_TOML.replace("[limits]\n", "[limits]\n" + limits)))
    out = tmp_path / "deliverable"
    shutil.copytree(task.paths.oracle, out)
    (out / "scripts" / "bad.lua").write_bytes(b"-- ok\nprint('\xff\xfe')\n")
    (out / "big.bin").write_bytes(b"x" * 5000)
    result = check_deliverable(task, out)
    assert failed(result) == ["file_count", "file_size", "total_size", "lua_is_utf8"]
    assert "scripts/bad.lua:2" in result.checks[7].detail
    (out / "scripts" / "main.lua").unlink()
    (out / "scripts" / "bad.lua").unlink()
    (out / "big.bin").unlink()
    assert failed(check_deliverable(task, out)) == ["entry_script", "required_files"]


def test_a_missing_deliverable_fails_cleanly(make_task: Callable[..., Path], tmp_path: Path) -> None:
    task = load_task(make_task())
    result = check_deliverable(task, tmp_path / "nowhere")
    assert not result.passed and failed(result) == ["deliverable_is_folder"]
