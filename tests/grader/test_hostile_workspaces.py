"""No deliverable can lose its attempt: one-line agents in the real sandbox leave what would once have made their
attempt vanish from the ledger (a FIFO, a huge sparse file, a link loop, 1,100 nested folders, a name that is not
UTF-8, a file nobody may read); each attempt ends recorded, failing at L0 with the check named, and replays.

These tests never skip under CI (CI=true): a machine without Docker fails them loudly.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.sandbox import base_image
from tests._ci import remove_tree

ROOT = Path(__file__).resolve().parents[2]
TASK = "public/coin-collector"
AGENTS = {
    "fifo": ("mkfifo /workspace/p", "no_special_files"),
    "sparse": ("truncate -s 65M /workspace/pad.bin", "file_size"),
    "loop": ("ln -s loop /workspace/loop", "no_links_out"),
    "deep": ("cd /workspace && i=0; while [ $i -lt 1100 ]; do mkdir d && cd d; i=$((i+1)); done",
             "listing_complete"),
    "latin1": ("cd /workspace && printf 'x = 1\\n' > \"caf$(printf '\\351').lua\"", "names_are_utf8"),
}

pytestmark = pytest.mark.usefixtures("no_leftovers", "deep_cleanup")   # no_leftovers: tests/grader/conftest.py


@pytest.fixture
def deep_cleanup(tmp_path: Path) -> Iterator[None]:
    yield
    remove_tree(tmp_path / "runs")   # a 1,100-level workspace is more than pytest's clean-up can take


@pytest.fixture(scope="module")
def image(docker_client: Any) -> str:
    return base_image(docker_client)


def agent_file(tmp_path: Path, image: str, name: str, script: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\nimage = "{image}"\ncommand = ["sh", "-c", {json.dumps(script)}]\n')
    return path


def grader_cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *args, "--database", f"sqlite:///{tmp_path / 'l.db'}"],
                          capture_output=True, text=True, cwd=ROOT, env=dict(os.environ), check=False, timeout=600)


def recorded(tmp_path: Path) -> list[tuple[str, str | None]]:
    con = sqlite3.connect(tmp_path / "l.db")
    rows = con.execute("SELECT a.outcome, r.result_hash FROM attempts a LEFT JOIN results r ON r.attempt_id = a.id"
                       ).fetchall()
    con.close()
    return rows


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_a_hostile_workspace_is_recorded_failing_l0_and_replays(name: str, image: str, tmp_path: Path) -> None:
    script, check = AGENTS[name]
    agent = agent_file(tmp_path, image, name, script)
    proc = grader_cli(tmp_path, "attempt", TASK, "--agent", f"command:{agent}", "--sandbox", "docker",
                      "--runs-dir", str(tmp_path / "runs"), "--json")
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    l0 = {c["name"]: c for c in out["verdict"]["levels"]["L0"]["checks"]}
    assert not l0[check]["passed"], l0
    assert out["verdict"]["first_failed_level"] == "L0" and out["outcome"] == "completed"
    assert out["verdict"]["levels"]["L2"]["outcome"] == "not_run"
    rows = recorded(tmp_path)   # an infrastructure failure on a loaded machine is recorded too, and retried
    assert [r for r in rows if r[0] == "completed"] == [("completed", out["result_hash"])]
    assert {r[0] for r in rows} <= {"completed", "infra_error", "infra_timeout", "hung"}, rows
    again = grader_cli(tmp_path, "replay", out["result_hash"], "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["match"], again.stdout + again.stderr


def test_the_main_job_goes_on_past_a_hostile_workspace(image: str, tmp_path: Path, starter_suite: Path) -> None:
    fifo = agent_file(tmp_path, image, "fifo", AGENTS["fifo"][0])
    proc = grader_cli(tmp_path, "run", "--suite", str(starter_suite), "--agent", f"command:{fifo}", "--agent",
                      "oracle", "--sandbox", "docker",
                      "--runs-dir", str(tmp_path / "runs"), "--json")
    assert proc.returncode == 0, proc.stderr
    attempts = json.loads(proc.stdout)["attempts"]
    outcomes = [(a["agent"].split(":")[0], a["passed"]) for a in attempts]
    assert outcomes == [("command", False)] * 3 + [("oracle", True)] * 3
    assert len(recorded(tmp_path)) == 6


# Runs a command and writes the peak resident size of its process tree (KiB) to the file named first: a fresh
# parent, because this test process's own RUSAGE_CHILDREN already holds the peaks of every earlier test's children.
_PEAK_OF_TREE = ("import resource, subprocess, sys\n"
                 "code = subprocess.run(sys.argv[2:]).returncode\n"
                 "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
                 "sys.exit(code)\n")


def test_a_100_gb_sparse_file_keeps_the_grader_small(image: str, tmp_path: Path) -> None:
    agent = agent_file(tmp_path, image, "sparse100g", "truncate -s 100G /workspace/huge.bin")
    peak_file = tmp_path / "peak-kib"
    proc = subprocess.run([sys.executable, "-c", _PEAK_OF_TREE, str(peak_file), sys.executable, "-m", "grader",
                           "attempt", TASK, "--agent", f"command:{agent}", "--sandbox", "docker",
                           "--runs-dir", str(tmp_path / "runs"), "--json",
                           "--database", f"sqlite:///{tmp_path / 'l.db'}"],
                          capture_output=True, text=True, cwd=ROOT, env=dict(os.environ), check=False, timeout=600)
    assert proc.returncode == 1, proc.stderr
    failed = [c["name"] for c in json.loads(proc.stdout)["verdict"]["levels"]["L0"]["checks"] if not c["passed"]]
    assert failed == ["file_size", "total_size"]
    peak_mib = int(peak_file.read_text()) / 1024
    assert peak_mib < 256, f"the grader peaked at {peak_mib:.0f} MiB"   # measured here: about 90 MiB
