"""The README's commands, as written: the main job (its first command, after the install steps) and every block
marked `<!-- README test -->`, run by bash in a fresh folder with `grader` being this checkout's."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
INSTALL_STEPS = ("pip install", "python -m engine.native.build_lupa")   # done before the tests run


def main_job() -> str:
    """The first command of the README's first block (`# 1. ...`), without its install steps."""
    block = re.search(r"```bash\n# 1\.[^\n]*\n([^\n]+)\n", README)
    assert block, "the README starts with the main job's command"
    steps = [s.strip() for s in block.group(1).split(" && ")]
    assert [s for s in steps if s.startswith(INSTALL_STEPS)], "the main job's command installs first"
    return " && ".join(s for s in steps if not s.startswith(INSTALL_STEPS))


def readme_test_blocks() -> list[str]:
    return re.findall(r"<!-- README test -->\n```bash\n(.*?)```", README, re.S)


def run(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    prelude = f"set -e\ngrader() {{ {shlex.quote(sys.executable)} -m grader \"$@\"; }}\n"
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100")
    return subprocess.run(["bash", "-c", prelude + script], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def newest_result(cwd: Path) -> str:
    import json

    done = run("grader results --limit 1 --json", cwd)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["results"][0]["result_hash"])


def test_the_readme_main_job_and_its_tested_blocks_run_as_written(tmp_path: Path) -> None:
    job = main_job()
    assert job == "grader edition plan main --reps 3 && grader edition run main && grader board main"
    first = run(job, tmp_path)
    assert first.returncode == 0, first.stderr
    board = first.stdout
    for model in ("oracle", "nop", "scripted:steady", "scripted:erratic", "scripted:careless"):
        assert model in board
    from grader.tasks import load_suite

    planned = 5 * len(load_suite(ROOT / "batteries" / "public").tasks) * 3   # built-in agents x tasks x 3 reps
    assert f"{planned} of {planned} planned attempts recorded" in " ".join((first.stdout + first.stderr).split())
    ranks = re.findall(r"^\d+ \((\d+)-(\d+)\)", board, re.M)
    assert ranks and any(lo != hi for lo, hi in ranks), "some rank range spans more than one rank"
    # run again: the plan is found, nothing is missing, the same boards
    again = run(job, tmp_path)
    assert again.returncode == 0, again.stderr
    assert "this plan already" in " ".join(again.stdout.split())
    assert again.stdout.split("\n\n", 1)[1] == board.split("\n\n", 1)[1]   # the boards, after the plan's line

    blocks = readme_test_blocks()
    assert len(blocks) == 2
    attempt = run(blocks[0], tmp_path)
    assert attempt.returncode in (0, 1), attempt.stderr   # 0 pass, 1 fail: the scripted agent decides
    assert "result " in attempt.stdout
    replay = run(blocks[1].replace("RESULT", newest_result(tmp_path)), tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "MATCH" in replay.stdout
