"""`grader grade` and `grader attempt` end to end: verdicts, exit codes, and digests across processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evidence import Verdict
from grader.tasks import find_task, solution_folder

ROOT = Path(__file__).resolve().parents[2]
STARTERS = ["scene-solar-system", "move-with-keys", "coin-collector"]


def grader_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *args, "--no-record"], capture_output=True, text=True,
                          cwd=cwd, env=dict(os.environ), check=False)


def test_grading_the_oracle_passes_every_level() -> None:
    proc = grader_cli("grade", "public/scene-solar-system",
                      "batteries/public/scene-solar-system/solutions/oracle", "--json")
    assert proc.returncode == 0, proc.stderr
    verdict = json.loads(proc.stdout)["verdict"]
    assert verdict["passed"] is True and verdict["first_failed_level"] is None
    assert [verdict["levels"][k]["passed"] for k in ("L0", "L1", "L2")] == [True, True, True]
    assert verdict["levels"]["L1"]["linter"]["name"] == "emmylua_ls"
    assert Verdict.from_json(verdict).digest_ok()
    assert "/" not in verdict["deliverable_hash"] and len(verdict["task_hash"]) == 64


def test_a_wrong_solution_fails_at_l2_and_exits_one() -> None:
    from grader.tasks import find_task, solution_folder

    wrong = solution_folder(find_task("public/move-with-keys"), "wrong-no-clamp")   # the oracle, patched
    proc = grader_cli("grade", "public/move-with-keys", str(wrong), "--json")
    assert proc.returncode == 1
    verdict = json.loads(proc.stdout)["verdict"]
    assert verdict["first_failed_level"] == "L2"
    failed = {r["id"] for r in verdict["levels"]["L2"]["requirements"] if not r["passed"]}
    assert failed == {"R4"}


def test_bad_input_exits_two() -> None:
    proc = grader_cli("grade", "no-such-task", "batteries", "--json")
    assert proc.returncode == 2
    assert proc.stderr.startswith("Error: no task 'no-such-task'")


def test_attempt_with_the_oracle_driver_writes_a_verdict(tmp_path: Path) -> None:
    proc = grader_cli("attempt", "public/coin-collector", "--agent", "oracle", "--runs-dir", str(tmp_path),
                      "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    attempt_dir = Path(out["attempt_dir"])
    saved = json.loads((attempt_dir / "verdict.json").read_text())
    assert saved == out["verdict"] and saved["passed"] is True
    assert (attempt_dir / "workspace" / "scripts" / "main.lua").is_file()
    proc = grader_cli("attempt", "public/coin-collector", "--agent", "nop", "--runs-dir", str(tmp_path))
    assert proc.returncode == 1
    proc = grader_cli("attempt", "public/coin-collector", "--agent", "telepathy", "--runs-dir", str(tmp_path))
    assert proc.returncode == 2 and "known: command, loop, nop, oracle, replay" in proc.stderr
    assert (attempt_dir / "timings.json").is_file() and attempt_dir.name == "r0"


@pytest.mark.parametrize("task", STARTERS)
def test_verdict_digests_are_identical_across_fresh_processes(task: str) -> None:
    digests = set()
    for _ in range(5):
        oracle = solution_folder(find_task(f"public/{task}"), "oracle")   # rendered, for a parameterised task
        proc = grader_cli("grade", f"public/{task}", str(oracle), "--json")
        assert proc.returncode == 0, proc.stderr
        digests.add(json.loads(proc.stdout)["verdict"]["evidence_digest"])
    assert len(digests) == 1
