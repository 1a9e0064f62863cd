"""The agent sandbox on real Docker containers: every isolation claim is proven from inside the container.

These tests never skip under CI (CI=true): a machine without Docker fails them loudly.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.deliverable import scan
from grader.levels import check_deliverable
from grader.sandbox import LABEL_ATTEMPT, Limits, Profile, base_image, rootfs_tar, run_driver, run_in_sandbox
from grader.tasks import load_task

ROOT = Path(__file__).resolve().parents[2]
CANARY = "GRADER-CANARY-7f3a9c1e5b2d4680"
# The search pattern matches the canary without containing it: the searching process's own command line
# (/proc/self/cmdline) must not be a hit.
PATTERN = "GRADER-CANAR[Y]-7f3a9c1e5b2d4680"
SEARCH = (f"find / \\( -path /proc -o -path /sys \\) -prune -o -type f -print 2>/dev/null"
          f" | xargs grep -l '{PATTERN}' 2>/dev/null; echo searched")


@pytest.fixture(scope="module")
def image(docker_client: Any) -> str:
    return base_image(docker_client)


pytestmark = pytest.mark.usefixtures("no_leftovers")   # tests/grader/conftest.py


def profile(image: str, **limits: Any) -> Profile:
    return Profile(image=image, limits=Limits(**limits))


def sh(docker_client: Any, image: str, tmp_path: Path, script: str, time_limit: float = 20, **limits: Any) -> Any:
    workspace = tmp_path / f"ws-{time.monotonic_ns()}"
    workspace.mkdir()
    return run_in_sandbox(workspace, ["sh", "-c", script], time_limit=time_limit, profile=profile(image, **limits),
                          docker_client=docker_client)


def test_rootfs_is_deterministic_and_profile_hash_is_pinned(image: str) -> None:
    assert rootfs_tar() == rootfs_tar()
    assert image.split(":")[1] in image
    p = profile(image)
    assert p.digest() == profile(image).digest()
    assert json.loads(p.canonical())["network"] == "none"
    assert p.digest() != profile(image, pids=65).digest()
    assert p.digest() != Profile(image=image, network="bridge").digest()


def test_battery_and_solutions_are_nowhere_in_the_container(docker_client: Any, image: str,
                                                            make_task: Callable[..., Path], tmp_path: Path) -> None:
    root = make_task()
    (root / "battery" / "canary.lua").write_text(f"-- {CANARY}\n")
    (root / "battery" / "main.lua").write_text((root / "battery" / "main.lua").read_text() + f"-- {CANARY}\n")
    patch = root / "solutions" / "wrong-x.patch"
    patch.write_text(patch.read_text() + f"# {CANARY}\n")
    (root / "solutions" / "expect.toml").write_text((root / "solutions" / "expect.toml").read_text()
                                                    + f"# {CANARY}\n")
    (root / "workspace" / "control.txt").write_text(CANARY)  # positive control: the search does find it
    task = load_task(root)
    result = run_driver(task, tmp_path / "ws", "oracle", profile=profile(image), docker_client=docker_client,
                        time_limit=40, command=["sh", "-c", SEARCH + "; ls /stage/scripts /task"])
    assert result.outcome == "completed", result.logs
    hits = [line for line in result.logs.splitlines() if line.startswith("/") and ":" not in line]
    assert "searched" in result.logs
    assert hits == ["/workspace/control.txt"], result.logs
    assert "main.lua" in result.logs and "prompt.md" in result.logs  # the oracle's stage and the prompt only


def test_no_network_to_the_host_loopback_or_anywhere(docker_client: Any, image: str, tmp_path: Path) -> None:
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("0.0.0.0", 0))
    server.listen(8)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted: list[Any] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                accepted.append(server.accept()[0])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    gateway = docker_client.networks.get("bridge").attrs["IPAM"]["Config"][0].get("Gateway", "172.17.0.1")
    script = (
        "nc -l -p 7000 & sleep 0.3; echo ping | nc -w 1 127.0.0.1 7000 && echo CONTROL_OK;"  # the tool works
        f"for a in 127.0.0.1 {gateway} 1.1.1.1 8.8.8.8; do echo x | nc -w 2 $a {port} && echo REACHED $a; done;"
        "echo x | nc -w 2 1.1.1.1 80 && echo REACHED port 80;"  # (this static busybox's wget crashes: not a test)
        "ls /sys/class/net; echo done")
    try:
        result = sh(docker_client, image, tmp_path, script)
    finally:
        stop.set()
        thread.join()
        server.close()
    assert result.outcome in ("completed", "agent_error"), result.logs
    assert "CONTROL_OK" in result.logs and "done" in result.logs, result.logs
    assert "REACHED" not in result.logs
    assert accepted == []
    assert result.logs.split("CONTROL_OK")[1].split().count("lo") == 1
    assert "eth0" not in result.logs


def test_root_only_operations_fail(docker_client: Any, image: str, tmp_path: Path) -> None:
    script = (
        "id -u; grep -E '^(CapEff|NoNewPrivs)' /proc/self/status;"
        "mount -t tmpfs none /workspace 2>/dev/null && echo ESCAPED mount;"
        "chown 10001 /task/prompt.md 2>/dev/null && echo ESCAPED chown-other;"
        "touch /workspace/mine && chown 0 /workspace/mine 2>/dev/null && echo ESCAPED chown-root;"
        "for f in /x /etc/x /bin/x /task/x /stage/x /home/x; do touch $f 2>/dev/null && echo ESCAPED write $f; done;"
        "ping -c 1 -W 1 127.0.0.1 >/dev/null 2>&1 && echo ESCAPED raw-socket;"
        "su -c true root </dev/null 2>/dev/null && echo ESCAPED su;"
        "printf '#!/bin/sh\\necho HOME_EXEC_OK\\n' > $HOME/run && chmod +x $HOME/run && $HOME/run;"
        "ls /dev | tr '\\n' ' '; echo; echo done")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    prompt = tmp_path / "prompt.md"
    prompt.write_text("hi\n")
    result = run_in_sandbox(workspace, ["sh", "-c", script], prompt=prompt, time_limit=20, profile=profile(image),
                            docker_client=docker_client)
    assert result.outcome == "completed", result.logs
    assert result.logs.splitlines()[0] == "10001"
    assert "CapEff:\t0000000000000000" in result.logs and "NoNewPrivs:\t1" in result.logs
    assert "ESCAPED" not in result.logs, result.logs
    assert "HOME_EXEC_OK" in result.logs, "the home tmpfs is not noexec (docs/sandbox.md)"
    assert "done" in result.logs
    assert (workspace / "mine").is_file()  # the workspace is the one writable place
    devices = set(result.logs.split("done")[0].splitlines()[-1].split())
    assert devices <= {"console", "core", "fd", "full", "mqueue", "null", "ptmx", "pts", "random", "shm", "stderr",
                       "stdin", "stdout", "tty", "urandom", "zero"}, devices


def test_fork_bomb_is_contained_by_the_pids_limit(docker_client: Any, image: str, tmp_path: Path) -> None:
    counted = sh(docker_client, image, tmp_path,
                 "sh -c 'for i in $(seq 300); do sleep 30 & done' 2>/dev/null; set -- /proc/[0-9]*; echo PROCS $#",
                 time_limit=15, pids=48)
    procs = int(counted.logs.split("PROCS")[1].split()[0])
    assert 20 < procs <= 48, counted.logs  # it did spawn, up to the limit and no further
    bomb = sh(docker_client, image, tmp_path, "b() { b | b & }; b; sleep 60", time_limit=3, pids=48)
    assert bomb.outcome == "agent_timeout", bomb
    assert bomb.wall_seconds < 20


def test_memory_hog_is_killed_and_classified(docker_client: Any, image: str, tmp_path: Path) -> None:
    result = sh(docker_client, image, tmp_path, "x=$(head -c 300000000 /dev/zero | tr '\\0' a); echo SURVIVED",
                time_limit=30, memory_bytes=48 << 20)
    assert "SURVIVED" not in result.logs
    assert result.outcome == "agent_error"
    assert result.oom_killed and result.exit_code == 137
    assert result.detail == "killed: out of memory"


def test_sleep_past_the_time_limit_is_killed_and_classified(docker_client: Any, image: str, tmp_path: Path) -> None:
    result = sh(docker_client, image, tmp_path, "echo started > /workspace/left; sleep 60", time_limit=1)
    assert result.outcome == "agent_timeout" and result.timed_out, result.detail
    assert result.wall_seconds < 15
    assert list(tmp_path.glob("ws-*/left")), "what the agent left is kept for grading"


def test_exit_status_and_infra_failures_are_classified(docker_client: Any, image: str, tmp_path: Path) -> None:
    assert sh(docker_client, image, tmp_path, "exit 0").outcome == "completed"
    failed = sh(docker_client, image, tmp_path, "exit 3")
    assert (failed.outcome, failed.exit_code) == ("agent_error", 3)
    missing = run_in_sandbox(tmp_path, ["true"], profile=Profile(image="grader-no-such-image:0"),
                             docker_client=docker_client)
    assert missing.outcome == "infra_error" and "ImageNotFound" in missing.detail


def test_links_left_in_the_workspace_are_refused_by_l0(docker_client: Any, image: str,
                                                       make_task: Callable[..., Path], tmp_path: Path) -> None:
    task = load_task(make_task())
    replay = tmp_path / "replay"
    (replay / "scripts").mkdir(parents=True)
    (replay / "scripts" / "main.lua").write_text("function Start() end\n")
    (replay / "passwd").symlink_to("/etc/passwd")
    (replay / "up").symlink_to("..")
    workspace = tmp_path / "ws"
    result = run_driver(task, workspace, f"replay:{replay}", profile=profile(image), docker_client=docker_client,
                        time_limit=20)
    assert result.outcome == "completed", result.logs
    assert (workspace / "passwd").is_symlink() and (workspace / "up").is_symlink()
    l0 = check_deliverable(task, scan(workspace, task.limits))
    links = next(c for c in l0.checks if c.name == "no_links_out")
    assert not l0.passed and not links.passed and "passwd" in links.detail


def test_oracle_and_nop_through_the_container_path(tmp_path: Path, docker_client: Any) -> None:
    out = []
    for agent in ("oracle", "nop"):
        proc = subprocess.run([sys.executable, "-c", "from grader.cli import main; main()", "attempt",
                               "public/coin-collector", "--agent", agent, "--sandbox", "docker", "--runs-dir",
                               str(tmp_path), "--no-record", "--json"], capture_output=True, text=True, cwd=ROOT,
                              timeout=120)
        assert proc.returncode in (0, 1), proc.stderr
        out.append(json.loads(proc.stdout))
    assert out[0]["verdict"]["passed"] and not out[1]["verdict"]["passed"]
    assert out[0]["outcome"] == out[1]["outcome"] == "completed"
    assert out[0]["profile_hash"] == out[1]["profile_hash"]
    sandbox = json.loads((Path(out[0]["attempt_dir"]) / "sandbox.json").read_text())
    assert sandbox["profile"]["network"] == "none" and sandbox["profile_hash"] == out[0]["profile_hash"]


INTERRUPTED = """
import sys
from pathlib import Path
from grader.sandbox import run_in_sandbox
print("go", flush=True)
run_in_sandbox(Path(sys.argv[1]), ["sleep", "60"], time_limit=60, attempt_id=sys.argv[2])
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_containers_are_removed_after_an_interrupt(sig: int, docker_client: Any, image: str, tmp_path: Path) -> None:
    attempt_id = f"interrupt-{sig}-{os.getpid()}"
    (tmp_path / "ws").mkdir()
    proc = subprocess.Popen([sys.executable, "-c", INTERRUPTED, str(tmp_path / "ws"), attempt_id], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    label = {"label": f"{LABEL_ATTEMPT}={attempt_id}"}
    try:
        deadline = time.monotonic() + 30
        while not docker_client.containers.list(filters=label | {"status": "running"}):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        proc.send_signal(sig)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert docker_client.containers.list(all=True, filters=label) == []


def test_the_main_job_runs_every_agent_phase_in_a_container(docker_client: Any, image: str, tmp_path: Path,
                                                           starter_suite: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "grader", "run", "--suite", str(starter_suite), "--sandbox",
                           "docker", "--no-record",
                           "--runs-dir", str(tmp_path), "--json"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["attempts"]
    assert {(r["agent"], r["passed"]) for r in rows} == {("oracle", True), ("nop", False)}
    assert len(list(tmp_path.rglob("sandbox.json"))) == len(rows) == 6
