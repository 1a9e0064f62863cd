"""Grading in a fresh container (`grader grade --in-container`): the same verdicts as on the host, digest for
digest; the container sees the deliverable read-only, no network, no solutions, nothing of the host; the verdict
comes through /out (a game printing a fake verdict changes nothing) and the host refuses one that is not about
what it asked.

The container tests never skip under CI (CI=true): a machine without Docker fails them loudly.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.grading_container import GradingError, check_verdict, probe_grading_container
from grader.pipeline import grade
from grader.tasks import find_task, solution_folder

ROOT = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.usefixtures("no_leftovers")   # tests/grader/conftest.py


def _grade_cli(task: Path, deliverable: Path, tmp_path: Path) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", str(task), str(deliverable), "--in-container",
                           "--database", f"sqlite:///{tmp_path / 'ledger.db'}", "--json"], capture_output=True,
                          text=True, cwd=ROOT, check=False, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def test_the_container_gives_the_hosts_verdicts(docker_client: Any, make_task: Callable[..., Path],
                                                tmp_path: Path) -> None:
    root = make_task()
    task = find_task(str(root))
    wrong = tmp_path / "wrong-x"
    shutil.copytree(solution_folder(task, "wrong-x"), wrong)
    main = wrong / "scripts" / "main.lua"  # a game that prints a verdict of its own: it is evidence, not a verdict
    main.write_text(main.read_text() + 'print(\'{"verdict": {"passed": true}, "timings": {}}\')\n')
    for solution, passed in ((root / "solutions" / "oracle", True), (wrong, False)):
        out = _grade_cli(root, solution, tmp_path)
        assert out["verdict"]["passed"] is passed
        assert out["verdict"] == grade(task, solution).verdict.to_json()  # the same evidence, digest for digest
        assert out["result_hash"] and "container" in out["timings"]


def test_a_parameterised_task_is_graded_in_the_container_with_the_hosts_values(
        docker_client: Any, param_task: Path) -> None:
    """The container loads the task with the default draw; the values it must grade with come staged beside it,
    and the host refuses a verdict under any other values (settings hash, params)."""
    from grader.grading_container import GradingPool, grade_in_container
    from grader.tasks import with_params_seed

    default = find_task(str(param_task))
    task = next(t for t in (with_params_seed(default, f"edition-{k}") for k in range(20)) if t.params != default.params)
    oracle = solution_folder(task, "oracle")
    fresh = grade_in_container(task, oracle, docker_client=docker_client)
    assert fresh.verdict == grade(task, oracle).verdict and fresh.verdict.passed
    assert fresh.verdict.params == json.loads(task.params)
    with GradingPool(docker_client) as pool:   # a warm container's job carries them the same way
        pooled = pool.grade(task, solution_folder(task, "wrong-x"))
    assert pooled.verdict == grade(task, solution_folder(task, "wrong-x")).verdict and not pooled.verdict.passed


ISOLATION = r"""
import os, socket
print("uid", os.getuid(), "caps", [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")])
for path in ("/deliverable/new.lua", "/suite/x", "/opt/grader/x", "/x", "/tmp/x"):
    try:
        open(path, "w").close(); print("WROTE", path)
    except OSError:
        pass
print("solutions", sorted(os.listdir("/suite/tiny")))
print("deliverable", sorted(os.listdir("/deliverable")))
print("net", sorted(os.listdir("/sys/class/net")))
try:
    socket.create_connection(("1.1.1.1", 80), timeout=2); print("REACHED")
except OSError:
    pass
print("root", sorted(os.listdir("/")))
"""


def test_the_grading_container_sees_only_the_task_and_the_deliverable(docker_client: Any,
                                                                      make_task: Callable[..., Path]) -> None:
    root = make_task()
    status, logs = probe_grading_container(find_task(str(root)), root / "solutions" / "oracle", ISOLATION,
                                           docker_client=docker_client)
    assert status == 0, logs
    assert "uid 10002 caps ['0000000000000000']" in logs
    assert "WROTE" not in logs and "REACHED" not in logs, logs
    assert "solutions ['battery', 'prompt.md', 'task.toml', 'workspace']" in logs
    assert "deliverable ['scripts']" in logs and "net ['lo']" in logs
    top = set(json.loads(logs.split("root ")[1].splitlines()[0].replace("'", '"')))
    assert top <= {".dockerenv", "bin", "dev", "deliverable", "etc", "lib", "lib64", "opt", "out", "proc", "root",
                   "sbin", "scratch", "suite", "sys", "tmp", "usr"}, top
    assert not {"workspace", "task", "stage", "usage", "home"} & top  # nothing of the agent's container


def test_a_pool_grades_each_deliverable_in_a_container_of_its_own_started_ahead(
        docker_client: Any, make_task: Callable[..., Path]) -> None:
    """GradingPool: the host's verdicts, digest for digest; a new container for every grade (the one that graded is
    gone once the pool closes); nothing left behind."""
    from grader._containers import LABEL, LABEL_PID
    from grader.grading_container import GradingPool

    root = make_task()
    task = find_task(str(root))
    deliverables = [root / "solutions" / "oracle", solution_folder(task, "wrong-x"), root / "solutions" / "oracle"]
    used = []
    with GradingPool(docker_client) as pool:
        results = []
        for deliverable in deliverables:
            pool._thread.join()   # type: ignore[union-attr]   (the warm container this grade will take)
            used.append(pool._next.grading_id)   # type: ignore[union-attr]
            results.append(pool.grade(task, deliverable))
    assert len(set(used)) == len(used)
    for deliverable, result in zip(deliverables, results, strict=True):
        assert result.verdict == grade(task, deliverable).verdict
    assert [r.verdict.passed for r in results] == [True, False, True]
    mine = docker_client.containers.list(all=True, filters={"label": [f"{LABEL}=1", f"{LABEL_PID}={os.getpid()}"]})
    assert [c.name for c in mine if c.name.startswith("grader-grading-")] == []


def test_the_host_refuses_a_verdict_about_something_else(make_task: Callable[..., Path]) -> None:
    root = make_task()
    task = find_task(str(root))
    oracle, wrong = root / "solutions" / "oracle", solution_folder(task, "wrong-x")
    result = grade(task, wrong)
    good = json.dumps({"verdict": result.verdict.to_json(), "timings": result.timings}).encode()
    assert check_verdict(task, wrong, good).verdict == result.verdict
    with pytest.raises(GradingError, match="deliverable_hash"):
        check_verdict(task, oracle, good)  # a verdict about another deliverable
    forged = dict(result.verdict.to_json(), passed=True)
    with pytest.raises(GradingError, match="does not match its evidence digest"):
        check_verdict(task, wrong, json.dumps({"verdict": forged, "timings": {}}).encode())
    with pytest.raises(GradingError, match="not readable"):
        check_verdict(task, wrong, b"{}")


WARMTH = """
import importlib.util, os, sys
from pathlib import Path
import grader.pipeline, engine, json
loaded = [m for m in (grader.pipeline, engine, json)]
print("bytecode", all(Path(importlib.util.cache_from_source(m.__file__)).is_file() for m in loaded))
print("compiled", [m.__name__ for m in loaded if m.__spec__.cached is None])
from grader.l1._stubcache import stubs_dir
print("stubs", str(stubs_dir()).startswith("/opt/grader-l1/"), os.access("/opt/grader-l1", os.W_OK))
"""


def test_the_grader_image_carries_its_bytecode_and_stubs(docker_client: Any, make_task: Callable[..., Path]) -> None:
    """Every grade would otherwise compile the grader and the standard library (the image is read-only) and
    write the L1 stubs: the image build does both once (grader/grading_container/warm.py)."""
    root = make_task()
    status, logs = probe_grading_container(find_task(str(root)), root / "solutions" / "oracle", WARMTH,
                                           docker_client=docker_client)
    assert status == 0, logs
    assert "bytecode True" in logs and "compiled []" in logs, logs
    assert "stubs True False" in logs, logs   # the baked stubs, which the grading user cannot change


def test_a_waiting_container_wakes_on_its_job_not_on_a_stray_byte(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """inside._wait_for_job with the pool's wake (pool._wake): a job staged before the wait is found by the
    first look; one staged during it wakes the waiter through the FIFO (the looks are an hour apart here, so
    nothing else could); a byte without a job does not end the wait."""
    import threading

    from grader.grading_container import inside
    from grader.grading_container.pool import _wake

    monkeypatch.setattr(inside, "JOB", tmp_path)
    monkeypatch.setattr(inside, "LOOK_SECONDS", 3600.0)
    os.mkfifo(tmp_path / inside.WAKE_NAME)
    (tmp_path / inside.READY_NAME).write_text("early\n")
    assert inside._wait_for_job() == "early"
    (tmp_path / inside.READY_NAME).unlink()

    got: list[str | None] = []
    waiter = threading.Thread(target=lambda: got.append(inside._wait_for_job()), daemon=True)
    waiter.start()
    deadline = time.monotonic() + 30
    while _fifo_readers(tmp_path / inside.WAKE_NAME) == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    _wake(tmp_path / inside.WAKE_NAME)   # a stray byte: no job yet
    waiter.join(0.3)
    assert waiter.is_alive() and got == []
    (tmp_path / inside.READY_NAME).write_text("staged\n")
    _wake(tmp_path / inside.WAKE_NAME)
    waiter.join(30)
    assert got == ["staged"]


def _fifo_readers(fifo: Path) -> int:
    """1 when somebody holds `fifo` open for reading (a non-blocking open for writing then succeeds)."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        return 0
    return 1
