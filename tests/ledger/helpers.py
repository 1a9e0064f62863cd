"""Raw SQL access beside the ledger (the tests tamper with the database the way an attacker would)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, create_engine, text

from ledger import FACT_TABLES, Ledger

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def raw(url: str) -> Iterator[Connection]:
    """One transaction on a plain engine (no ledger listeners), committed on success."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            yield conn
    finally:
        engine.dispose()


def scalar(url: str, sql: str, **params: Any) -> Any:
    with raw(url) as conn:
        return conn.execute(text(sql), params).scalar()


def drop_append_only(conn: Connection, table: str) -> None:
    """Remove the triggers that make one table append-only (what a tamperer with DDL rights would do)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text(f"DROP TRIGGER {table}_append_only ON {table}"))
    else:
        conn.execute(text(f"DROP TRIGGER {table}_no_update"))
        conn.execute(text(f"DROP TRIGGER {table}_no_delete"))


def check_consistent(ledger: Ledger) -> dict[str, int]:
    """Every attempt has its result, every result its attempt, every artifact, task and battery is referenced by
    an attempt, every fact row is in the audit chain, and the chain verifies.  Returns the row counts."""
    url = ledger.url
    orphans = {
        "attempt without result": "SELECT count(*) FROM attempts a WHERE NOT EXISTS "
                                  "(SELECT 1 FROM results r WHERE r.attempt_id = a.id)",
        "result without attempt": "SELECT count(*) FROM results r WHERE NOT EXISTS "
                                  "(SELECT 1 FROM attempts a WHERE a.id = r.attempt_id)",
        "unreferenced artifact": "SELECT count(*) FROM artifacts x WHERE NOT EXISTS "
                                 "(SELECT 1 FROM attempts a WHERE a.artifact_hash = x.hash)",
        "unreferenced task": "SELECT count(*) FROM tasks t WHERE NOT EXISTS "
                             "(SELECT 1 FROM attempts a WHERE a.task_hash = t.task_hash)",
        "unreferenced battery": "SELECT count(*) FROM batteries b WHERE NOT EXISTS "
                                "(SELECT 1 FROM attempts a WHERE a.battery_hash = b.battery_hash)",
    }
    with raw(url) as conn:
        found = {name: conn.execute(text(sql)).scalar() for name, sql in orphans.items()}
        counts = {t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar()
                  for t in FACT_TABLES}
        max_seq = conn.execute(text("SELECT coalesce(max(seq), 0) FROM audit")).scalar()
    assert {k: v for k, v in found.items() if v} == {}
    assert counts["audit"] == sum(v for k, v in counts.items() if k != "audit")
    assert max_seq == counts["audit"], "audit sequence has gaps"
    ok, message = ledger.verify()
    assert ok, message
    return counts


def worker_env() -> dict[str, str]:
    """The environment of a writer process: this checkout first on the import path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


COMMITTED = re.compile(r"ok [0-9a-f]{64}\n")


class Writer:
    """A `python -m tests.ledger._worker` process (see that module for its protocol)."""

    def __init__(self, url: str, *args: str, deadline: float = 90) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.ledger._worker", url, *args], cwd=ROOT,
                                     env=worker_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.committed: list[str] = []
        self._watchdog = threading.Timer(deadline, self._overdue)  # a hung writer must not hang the tests
        self._watchdog.daemon = True
        self._watchdog.start()
        self.overdue = False

    def _overdue(self) -> None:
        if self.proc.poll() is None:
            self.overdue = True
            self.proc.kill()

    def expect(self, word: str) -> str:
        """Read lines until one starting with word (collecting committed result hashes on the way)."""
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._note(line)
            if line.startswith(word):
                return line.strip()
        late = " (killed: over its deadline)" if self.overdue else ""
        raise AssertionError(f"writer exited (code {self.proc.wait()}){late} before {word!r}: {self.stderr()}")

    def go(self, line: str = "go") -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.close()

    def drain(self) -> None:
        """After the process ended: collect the committed hashes it printed last."""
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._note(line)

    def _note(self, line: str) -> None:
        """Keep a committed result's hash; a line cut short by SIGKILL names none (its result may still be in
        the ledger: tests check that what was printed is there, not the converse)."""
        if COMMITTED.fullmatch(line):
            self.committed.append(line.split()[1])

    def finish(self, timeout: float = 60) -> None:
        """Close stdin (a writer waiting on it then exits), wait for the process, killing it if it hangs."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.close()

    def stderr(self) -> str:
        return self.proc.stderr.read()[-3000:] if self.proc.stderr else ""

    def close(self) -> None:
        self._watchdog.cancel()
        self.drain()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(BrokenPipeError):
                    stream.close()
