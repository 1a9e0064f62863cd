"""Nothing outlives its grader, the profile is the whole truth, and the agent's disk is bounded, on real
containers through `grader attempt`:

- a SIGKILLed grader's container stops by itself at its deadline (the attempt's watchdog), and the next cleanup
  removes it and its staging folder, while another grader's running attempt is left alone;
- an image declaring VOLUME is refused with one line, and no anonymous volume is left;
- an agent writing past its /workspace quota fails cleanly (recorded, failing L0), the copy under runs/ takes no
  more disk than the quota, and carries no setuid or setgid bit.

These tests never skip under CI (CI=true): a machine without Docker fails them loudly.
"""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader._containers import LABEL_PID
from grader.sandbox import Limits, Profile, base_image, run_in_sandbox
from grader.sandbox.backend import STAGING_PREFIX, WATCHDOG_GRACE

ROOT = Path(__file__).resolve().parents[2]
SHORT = 2   # the killed attempt's agent_seconds

pytestmark = pytest.mark.usefixtures("no_leftovers")   # tests/grader/conftest.py


@pytest.fixture(scope="module")
def image(docker_client: Any) -> str:
    return base_image(docker_client)


def agent_file(tmp_path: Path, image: str, name: str, script: str, limits: str = "") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\nimage = "{image}"\ncommand = ["sh", "-c", {json.dumps(script)}]\n'
                    + (f"\n[limits]\n{limits}\n" if limits else ""))
    return path


def attempt(task: Path | str, agent: Path, tmp_path: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "grader", "attempt", str(task), "--agent", f"command:{agent}", "--sandbox",
            "docker", "--runs-dir", str(tmp_path / "runs"), "--json", *extra]


def task_with_time(make_task: Callable[..., Path], name: str, seconds: int) -> Path:
    from tests.grader.conftest import TASK_TOML

    return make_task(name, task_toml=TASK_TOML + f"agent_seconds = {seconds}\n")


def running(docker_client: Any, pid: int) -> list[Any]:
    return docker_client.containers.list(filters={"label": f"{LABEL_PID}={pid}", "status": "running"})


def wait_for(predicate: Callable[[], bool], seconds: float, what: str) -> float:
    start = time.monotonic()
    while not predicate():
        assert time.monotonic() - start < seconds, what
        time.sleep(0.1)
    return time.monotonic() - start


def test_a_killed_graders_attempt_ends_by_itself_and_cleanup_spares_a_live_one(
        docker_client: Any, image: str, make_task: Callable[..., Path], tmp_path: Path) -> None:
    sleeper = agent_file(tmp_path, image, "sleeper", "sleep 600")
    survivor = subprocess.Popen(attempt(task_with_time(make_task, "long", 120), sleeper, tmp_path / "b",
                                        "--no-record"), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    victim = subprocess.Popen(attempt(task_with_time(make_task, "short", SHORT), sleeper, tmp_path / "a",
                                      "--no-record"), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for proc in (survivor, victim):   # each: the watchdog and the agent
            wait_for(lambda p=proc: len(running(docker_client, p.pid)) == 2 or p.poll() is not None, 60,
                     "the attempt's containers did not start")
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        staging = [p for p in Path(tempfile.gettempdir()).glob(f"{STAGING_PREFIX}{victim.pid}-*")]
        assert len(staging) == 1, "the victim's staging folder, named after its creator"
        victim.kill()   # SIGKILL: no finally runs
        victim.wait(timeout=30)
        took = wait_for(lambda: not running(docker_client, victim.pid), SHORT + WATCHDOG_GRACE + 15,
                        "the killed grader's container kept running")
        print(f"the killed grader's containers stopped {took:.1f} s after the kill")
        # stopped, they stay until the next cleanup: this one, or that of any grader starting an attempt meanwhile
        done = subprocess.run([sys.executable, "-m", "grader", "sandbox", "cleanup"], capture_output=True,
                              text=True, cwd=ROOT, check=False, timeout=120)
        assert done.returncode == 0, done.stderr
        assert docker_client.containers.list(all=True, filters={"label": f"{LABEL_PID}={victim.pid}"}) == []
        assert not staging[0].exists(), "the staging folder went with it"
        assert len(running(docker_client, survivor.pid)) == 2, "the live grader's attempt was left alone"
        assert survivor.poll() is None
    finally:
        for proc in (victim, survivor):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=60)
    assert docker_client.containers.list(all=True, filters={"label": f"{LABEL_PID}={survivor.pid}"}) == []


def build_image(docker_client: Any, dockerfile: str, tag: str) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("Dockerfile")
        info.size = len(dockerfile.encode())
        tar.addfile(info, io.BytesIO(dockerfile.encode()))
    buf.seek(0)
    docker_client.images.build(fileobj=buf, custom_context=True, tag=tag, rm=True, forcerm=True)


def test_an_image_declaring_a_volume_is_refused(docker_client: Any, image: str, tmp_path: Path) -> None:
    tag = f"grader-test-volume:{os.getpid()}"
    build_image(docker_client, f"FROM {image}\nVOLUME /data /cache\n", tag)
    volumes_before = {v.name for v in docker_client.volumes.list()}
    try:
        agent = agent_file(tmp_path, tag, "volumed", "touch /data/x")
        proc = subprocess.run(attempt("public/coin-collector", agent, tmp_path, "--no-record"), capture_output=True,
                              text=True, cwd=ROOT, check=False, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.strip().splitlines() == [
            f"Error: command:{agent}: image {tag} declares VOLUME /cache, /data: refused (the profile names every "
            "mount of the agent's container; build the image without VOLUME)"]
        workspace = tmp_path / "ws"
        workspace.mkdir()
        direct = run_in_sandbox(workspace, ["true"], profile=Profile(image=tag), docker_client=docker_client)
        assert direct.outcome == "infra_error" and "declares VOLUME /cache, /data: refused" in direct.detail
    finally:
        docker_client.images.remove(tag, force=True)
    assert {v.name for v in docker_client.volumes.list()} - volumes_before == set(), "no anonymous volume left"


def test_an_agent_writing_past_its_quota_fails_cleanly(image: str, tmp_path: Path) -> None:
    script = ("touch /workspace/s && chmod 6755 /workspace/s && mkdir /workspace/d && chmod 3777 /workspace/d;"
              "dd if=/dev/zero of=/workspace/big bs=1M count=64")
    agent = agent_file(tmp_path, image, "filler", script, "workspace_mb = 16")
    proc = subprocess.run(attempt("public/coin-collector", agent, tmp_path, "--database",
                                  f"sqlite:///{tmp_path / 'l.db'}"),
                          capture_output=True, text=True, cwd=ROOT, check=False, timeout=180)
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    assert out["outcome"] == "agent_error", out   # dd: no space left on device
    failed = [c["name"] for c in out["verdict"]["levels"]["L0"]["checks"] if not c["passed"]]
    assert out["verdict"]["first_failed_level"] == "L0" and "file_size" in failed, failed
    con = sqlite3.connect(tmp_path / "l.db")
    assert con.execute("SELECT outcome FROM attempts").fetchall() == [("agent_error",)]
    con.close()
    workspace = Path(out["attempt_dir"]) / "workspace"
    assert 8 << 20 < (workspace / "big").stat().st_size <= 16 << 20
    entries = list(workspace.rglob("*"))
    on_disk = sum(p.lstat().st_blocks * 512 for p in entries)
    assert on_disk <= (16 << 20) + 4096 * len(entries), f"{on_disk} bytes on the host's disk"   # + folders' blocks
    for name in ("s", "d"):
        assert stat.S_IMODE((workspace / name).lstat().st_mode) & 0o7000 == 0, name


def test_the_workspace_counts_in_the_containers_memory(docker_client: Any, image: str, tmp_path: Path) -> None:
    """The quota's pages are charged to the agent's container: a workspace quota larger than the memory limit
    cannot be filled."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    # dd is the container's main process: its end is the container's, and the grader waits for Docker's word
    result = run_in_sandbox(workspace, ["sh", "-c", "exec dd if=/dev/zero of=/workspace/big bs=1M count=100"],
                            time_limit=30, docker_client=docker_client,
                            profile=Profile(image=image, limits=Limits(memory_bytes=48 << 20,
                                                                       workspace_bytes=128 << 20)))
    assert result.exit_code == 137 and result.oom_killed, result.logs   # killed for memory, not out of space
    assert result.detail == "killed: out of memory"
    assert (workspace / "big").stat().st_size < 48 << 20
