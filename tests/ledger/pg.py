"""A throwaway PostgreSQL cluster on loopback, for the ledger's tests and benchmark.

    with TempCluster() as server:          # initdb into a temp folder, pg_ctl start on a free port
        server.create_database("grader")
        url = server.url("grader")         # postgresql+psycopg://postgres@127.0.0.1:PORT/grader

PostgreSQL refuses to run as root: as root, initdb and pg_ctl run as the `postgres` user (runuser) over a temp
folder it owns.  `ExternalServer` offers the same interface over an existing server (GRADER_TEST_PG_URL).
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url


class PostgresUnavailableError(RuntimeError):
    """PostgreSQL's server binaries are missing or the cluster would not start; the message says why."""


def find_bin_dir() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres: the newest /usr/lib/postgresql/*/bin, else the PATH."""
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin"),
                        key=lambda p: [int(x) for x in re.findall(r"\d+", p.parent.name)] or [0], reverse=True)
    which = shutil.which("pg_ctl")
    if which:
        candidates.append(Path(which).resolve().parent)
    for folder in candidates:
        if all((folder / tool).is_file() for tool in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _quote_ident(name: str) -> str:
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
        raise ValueError(f"{name!r}: use a lower-case identifier for a throwaway database")
    return f'"{name}"'


class ExternalServer:
    """A PostgreSQL server given by URL (any database on it); databases are created and dropped on it."""

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        if parsed.drivername in ("postgresql", "postgres"):
            parsed = parsed.set(drivername="postgresql+psycopg")
        self._base = parsed

    def url(self, database: str = "postgres") -> str:
        return self._base.set(database=database).render_as_string(hide_password=False)

    def _admin(self, sql: str) -> None:
        engine = create_engine(self.url(self._base.database or "postgres"), isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                conn.execute(text(sql))
        finally:
            engine.dispose()

    def create_database(self, name: str) -> str:
        self._admin(f"CREATE DATABASE {_quote_ident(name)} TEMPLATE template0 ENCODING 'UTF8'")
        return self.url(name)

    def drop_database(self, name: str) -> None:
        self._admin(f"DROP DATABASE IF EXISTS {_quote_ident(name)} WITH (FORCE)")


class TempCluster(ExternalServer):
    """initdb into a temp folder, start on 127.0.0.1 at a free port (socket in the same folder), stop and
    delete everything on close.  `durable=False` turns fsync off: faster, and a test loses nothing by it."""

    def __init__(self, durable: bool = False) -> None:
        self.durable = durable
        self.bin_dir = find_bin_dir()
        if self.bin_dir is None:
            raise PostgresUnavailableError("PostgreSQL server binaries (initdb, pg_ctl) not found under "
                                      "/usr/lib/postgresql/*/bin or on PATH: apt-get install postgresql")
        self.root: Path | None = None
        self.port = 0
        self._started = False

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              cwd="/")

    def _fail(self, what: str, proc: subprocess.CompletedProcess[str]) -> PostgresUnavailableError:
        log = ""
        if self.root is not None and (self.root / "server.log").exists():
            log = (self.root / "server.log").read_text(errors="replace")[-2000:]
        return PostgresUnavailableError(f"{what} failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}"
                                   + (f"\nserver log:\n{log}" if log else ""))

    def start(self) -> TempCluster:
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> TempCluster:
        self.root = Path(tempfile.mkdtemp(prefix="grader-pg-"))
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError as exc:
                raise PostgresUnavailableError("running as root and there is no `postgres` user to run the server "
                                          "as (apt-get install postgresql creates it)") from exc
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
        data = self.root / "data"
        proc = self._run("initdb", "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale",
                         "--no-sync")
        if proc.returncode != 0:
            raise self._fail("initdb", proc)
        options = ["-c", "listen_addresses=127.0.0.1", "-k", str(self.root), "-c", "max_connections=200"]
        if not self.durable:
            options += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        for _ in range(5):  # another process may take the free port between the probe and the bind
            self.port = _free_port()
            proc = self._run("pg_ctl", "-D", str(data), "-l", str(self.root / "server.log"), "-w", "-t", "60",
                             "-o", " ".join([*options, "-p", str(self.port)]), "start", timeout=90)
            if proc.returncode == 0:
                break
        else:
            raise self._fail("pg_ctl start", proc)
        self._started = True
        super().__init__(f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres")
        return self

    def stop(self) -> None:
        if self.root is None:
            return
        if self._started:
            self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "immediate", "-w", "stop")
            self._started = False
        shutil.rmtree(self.root, ignore_errors=True)
        self.root = None

    def __enter__(self) -> TempCluster:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
