"""Scale-out on Celery with a Redis broker: two `grader worker`s share an edition enqueued by `grader edition run
--queue`, one is SIGKILLed mid-attempt, and every planned attempt is still recorded exactly once (its token comes
back after the visibility timeout); a token whose planned attempt was recorded by a worker killed before it
acknowledged is dropped; an unreachable broker and a SQLite ledger are one-line errors.

A throwaway `redis-server` (its own port and folder) and the ledger tests' throwaway PostgreSQL cluster."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from sqlalchemy import text

from tests._ci import missing_dependency
from tests.grader.test_edition_runs import counted_per_item, invoke
from tests.ledger.conftest import pg_server, pg_url  # noqa: F401  (the ledger tests' PostgreSQL fixtures)
from tests.ledger.helpers import raw

ROOT = Path(__file__).resolve().parents[2]
VISIBILITY = 4.0    # seconds before the broker gives a killed worker's token to another (the sweep: every second)
# an attempt lasts about half a second: the battery counts to 1e8 before it starts the scene, so a kill that follows
# a lease by a few milliseconds lands inside the attempt
BUSY = "local x = 0\nfor i = 1, 100000000 do x = x + i end\n"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server of this module's own (loopback, a free port, nothing saved), killed at the end; its URL
    without a database number."""
    import redis

    exe = shutil.which("redis-server")
    if exe is None:
        missing_dependency("redis-server not found (apt-get install redis-server)")
    root = tmp_path_factory.mktemp("redis")
    for _ in range(5):   # another process may take the free port between the probe and the bind
        port = _free_port()
        proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(root), "--save", "",
                                 "--appendonly", "no", "--logfile", str(root / "redis.log")],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        deadline = time.monotonic() + 10
        while proc.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(redis.RedisError):
                if redis.Redis(port=port, socket_connect_timeout=0.5).ping():
                    break
            time.sleep(0.05)
        if proc.poll() is None:
            break
    else:
        pytest.fail(f"redis-server would not start: {(root / 'redis.log').read_text()[-2000:]}")
    try:
        yield f"redis://127.0.0.1:{port}"
    finally:
        proc.kill()
        proc.wait()


def grader(*args: str, cwd: Path, log: IO[str] | None = None) -> subprocess.Popen[str]:
    """`grader ARGS` as its own process group, from this checkout; output to `log` (workers talk a lot) or pipes."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out: Any = log if log is not None else subprocess.PIPE
    return subprocess.Popen([sys.executable, "-m", "grader", *args], cwd=cwd, env=env, text=True,
                            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT if log else subprocess.PIPE,
                            start_new_session=True)


def stop(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@pytest.fixture
def busy_suite(make_task: Callable[..., Path]) -> Path:
    """Three tasks whose batteries take about half a second (oracle passes each, nop fails each)."""
    from tests.grader.conftest import BATTERY

    for name in ("alpha", "beta", "gamma"):
        root = make_task(name, battery=BUSY + BATTERY)
    return root.parent


def leased_by(url: str, group: int) -> tuple[int, int, str] | None:
    """A work_queue row leased by a process of process group `group` (a worker and its pool): (row, plan item,
    owner)."""
    with raw(url) as conn:
        rows = conn.execute(text("SELECT id, plan_item_id, lease_owner FROM work_queue WHERE state = 'leased'")).all()
    for row_id, item, owner in rows:
        pid = int(owner.split("/")[1])
        with contextlib.suppress(ProcessLookupError):
            if os.getpgid(pid) == group:
                return int(row_id), int(item), str(owner)
    return None


def test_two_workers_one_killed_mid_attempt_every_planned_attempt_recorded_once(
        tmp_path: Path, busy_suite: Path, pg_url: str, redis_server: str) -> None:  # noqa: F811 (the fixture)
    queue = f"{redis_server}/0"
    code, out = invoke("edition", "plan", "fleet", "--baseline", "oracle", "--baseline", "nop", "--suite",
                       str(busy_suite), "--reps", "2", "--database", pg_url, "--json")
    assert code == 0, out
    edition_id, planned = json.loads(out)["id"], json.loads(out)["attempts"]
    assert planned == 12
    logs = {name: (tmp_path / f"{name}.log").open("w") for name in ("a", "b")}
    workers = {name: grader("worker", "--queue", queue, "--database", pg_url, "--concurrency", "1",
                            "--visibility-timeout", str(VISIBILITY), "--runs-dir", str(tmp_path / f"runs-{name}"),
                            cwd=tmp_path, log=logs[name]) for name in ("a", "b")}
    runner = grader("edition", "run", "fleet", "--queue", queue, "--database", pg_url, "--json", cwd=tmp_path)
    try:
        # worker b loses a pool process mid-attempt (its token goes back at once: reject on worker lost), then
        # worker a is lost whole, process group and all, mid-attempt (its token comes back after the visibility
        # timeout); each kill follows a lease of theirs by milliseconds, half a second before the attempt ends
        for name, whole in (("b", False), ("a", True)):
            deadline = time.monotonic() + 40
            while (held := leased_by(pg_url, workers[name].pid)) is None:
                assert time.monotonic() < deadline and workers[name].poll() is None, \
                    (tmp_path / f"{name}.log").read_text()
                time.sleep(0.01)
            row_id, item, owner = held
            if whole:
                os.killpg(workers[name].pid, signal.SIGKILL)
                workers[name].wait()
            else:
                os.kill(int(owner.split("/")[1]), signal.SIGKILL)
            with raw(pg_url) as conn:   # it died mid-attempt: its lease open, its planned attempt not recorded
                assert conn.execute(text("SELECT state, lease_owner FROM work_queue WHERE id = :r"),
                                    {"r": row_id}).one() == ("leased", owner)
                assert conn.execute(text("SELECT count(*) FROM plan_claims WHERE plan_item_id = :i"),
                                    {"i": item}).scalar() == 0
        out, err = runner.communicate(timeout=60)
        assert runner.returncode == 0, err
        summary = json.loads(out)
        assert (summary["recorded"], summary["missing"], summary["enqueued"]) == (12, 0, 12)
        # the killed leases were taken over (asserted above: leased and unrecorded when their owners died; every
        # planned attempt is recorded once, below). The watcher's count of take-overs comes from the workers'
        # events, best effort: in one run of the whole suite it saw one of the two
        assert summary["queue"] == queue and summary["this_run"]["taken_over"] >= 1
        assert summary["models"]["oracle"]["pass_rate"] == 1.0 and summary["models"]["nop"]["pass_rate"] == 0.0
        assert "oracle" in err and "eta" in err   # the same progress, on stderr
        assert counted_per_item(pg_url, edition_id) == [1] * planned
        # the killed worker's token came back (the visibility timeout) and was acknowledged: nothing is left
        # unacknowledged or queued once worker b is idle
        import redis

        broker = redis.Redis.from_url(queue)
        deadline = time.monotonic() + 20
        while (broker.hlen("unacked"), broker.llen("grader")) != (0, 0) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert (broker.hlen("unacked"), broker.llen("grader")) == (0, 0), (tmp_path / "b.log").read_text()[-3000:]
        assert "WorkerLostError" in (tmp_path / "b.log").read_text()
    finally:
        for proc in (runner, *workers.values()):
            stop(proc)
        for f in logs.values():
            f.close()
    code, out = invoke("ledger", "verify", "--database", pg_url)
    assert code == 0, out
    code, out = invoke("edition", "show", "fleet", "--database", pg_url, "--json")
    assert json.loads(out)["queue"] == {"done": 12}


def test_a_token_whose_attempt_was_recorded_before_its_worker_died_is_dropped(
        tmp_path: Path, make_task: Callable[..., Path], pg_url: str, redis_server: str,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The token's task, run here in-process as a worker process runs it: a token of another ledger's edition is
    refused; one finding its planned attempt leased to a live worker goes back to the queue; the next records it;
    then the lease is put back as a worker killed between recording and closing it leaves it (leased to a process
    that is gone), and the same token comes again: it is dropped, nothing more is recorded."""
    from grader import celery_app
    from grader.edition_run import RunOptions
    from grader.scale_out import token_of
    from ledger import Ledger

    make_task("alpha")
    code, out = invoke("edition", "plan", "once", "--suite", str(tmp_path / "suite"), "--baseline", "oracle",
                       "--database", pg_url, "--json")
    assert code == 0, out
    edition_id = json.loads(out)["id"]
    monkeypatch.setattr(celery_app, "_CONFIG", celery_app.WorkerConfig(f"{redis_server}/1", pg_url, tmp_path / "runs",
                                                                       "test@here"))
    celery_app.configure(f"{redis_server}/1", 3600.0)   # as `grader worker` does
    from grader.edition_run import queue_name
    from ledger import plan_states, sync_queue

    ledger = Ledger(pg_url)
    try:
        states = plan_states(ledger, edition_id)
        sync_queue(ledger, queue_name(edition_id), [(s.item.id, s.item.model) for s in states], set())
        from grader.editions import edition_work

        token = token_of(ledger, edition_work(ledger, edition_id), RunOptions())
    finally:
        ledger.close()
    from ledger import LedgerError

    with pytest.raises(LedgerError, match="the worker and the enqueuer use different ledgers"):
        celery_app.attempt_one(token | {"edition": "another"})   # (the task puts such a token back on the queue)
    # the planned attempt leased to a live worker: the token waits (here not at all), then goes back to the queue
    import redis

    broker = redis.Redis.from_url(f"{redis_server}/1")
    monkeypatch.setattr(celery_app, "WAIT_AT_MOST", 0.0)
    with raw(pg_url) as conn:
        conn.execute(text("UPDATE work_queue SET state = 'leased', lease_owner = :o, lease_until = now() + "
                          "interval '1 hour'"), {"o": f"{socket.gethostname()}/{os.getpid()}/alive"})
    assert celery_app.attempt_one(token) == {"requeued": "nothing to lease for 0 s"}
    assert broker.llen("grader") == 1 and counted_per_item(pg_url, edition_id) == [0]
    with raw(pg_url) as conn:
        conn.execute(text("UPDATE work_queue SET state = 'pending', lease_owner = NULL, lease_until = NULL"))
    first = celery_app.attempt_one(token)
    assert (first["graded"], first["passed"], first["duplicate"]) == (True, True, False)
    gone = f"{socket.gethostname()}/{2**22 + 1}/dead"   # above pid_max's default: no such process
    with raw(pg_url) as conn:
        conn.execute(text("UPDATE work_queue SET state = 'leased', lease_owner = :o, lease_until = now() + "
                          "interval '1 hour'"), {"o": gone})
    assert celery_app.attempt_one(token) == {"dropped": "no planned attempt of the edition is open"}
    assert counted_per_item(pg_url, edition_id) == [1]
    with raw(pg_url) as conn:
        assert conn.execute(text("SELECT state FROM work_queue")).scalars().all() == ["done"]
    # the events the watchers read: the attempt's, naming the worker
    events = [json.loads(e) for e in broker.lrange(f"grader:events:edition:{edition_id}", 0, -1)]
    assert [(e["task"], e["passed"], e["worker"]) for e in events] == [("suite/alpha", True, "test@here")]


def test_an_unreachable_queue_and_a_sqlite_ledger_are_one_line_errors(tmp_path: Path, make_task: Callable[..., Path],
                                                                        pg_url: str) -> None:  # noqa: F811
    make_task("alpha")
    code, out = invoke("edition", "plan", "far", "--suite", str(tmp_path / "suite"), "--database", pg_url)
    assert code == 0, out
    closed = f"redis://127.0.0.1:{_free_port()}/0"
    for args in (("edition", "run", "far", "--queue", closed, "--database", pg_url),
                 ("worker", "--queue", closed, "--database", pg_url)):
        code, out = invoke(*args)
        assert code == 3 and out.startswith(f"Error: the queue {closed} cannot be reached (") \
            and out.count("\n") == 1, out
    sqlite = f"sqlite:///{tmp_path / 'l.db'}"
    for args, who in ((("edition", "run", "far", "--queue", closed, "--database", sqlite), "--queue"),
                      (("worker", "--queue", closed, "--database", sqlite), "grader worker")):
        code, out = invoke(*args)
        assert (code, out) == (2, f"Error: {who} needs a PostgreSQL ledger (--database "
                                  f"postgresql+psycopg://USER@HOST/DB): a SQLite ledger works only on one machine\n")
    for queue, message in (("amqp://h/", "not a Redis URL (expected redis://HOST:PORT/DB)"),
                           ("redis://h:x/0", "the port is not a number"),
                           ("redis://:secret@h/db", "the database is a number")):
        code, out = invoke("edition", "run", "far", "--queue", queue, "--database", pg_url)
        assert code == 2 and message in out and "secret" not in out and out.count("\n") == 1, out
    code, out = invoke("edition", "run", "far", "--queue", closed, "--workers", "2", "--database", pg_url)
    assert (code, out) == (2, "Error: --workers is for a local run: with --queue, `grader worker` says it\n")
