"""Answers of `grader board --json` kept per state of a SQLite ledger, so asking again costs a file read.

A board is a pure function of the ledger's rows, the command's arguments and the code that computes it. The ledger
is append-only (the database refuses UPDATE and DELETE on every fact table: migrations/append_only.py), so the row
count and the highest rowid of each fact table, with the schema version, name one state of it: any append changes
them, and no state ever comes back. An answer is kept under a key over that fingerprint, the file's identity, the
arguments and a digest of the code that reads and computes boards; it is kept only when the fingerprint read after
computing equals the one read before (no writer slipped in between).

This module imports only the standard library: a hit must not pay for SQLAlchemy and numpy (issue 15's 0.5 s).
PostgreSQL ledgers and every other form of the command compute as before.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from grader.private_cache import private_cache_dir

FORMAT = "grader-board-cache/1"
_ROOT = Path(__file__).resolve().parent.parent
# the code a board's answer depends on: the boards, the statistics, the ledger's reads, the evidence model
_CODE = ("grader/boards", "grader/stats", "ledger", "evidence")
_SQLITE_URL = re.compile(r"sqlite(?:\+pysqlite)?:///([^?]+)")


def sqlite_file(url: str) -> Path | None:
    """The file of a plain `sqlite:///PATH` URL; None for any other URL (options, memory, other databases)."""
    match = _SQLITE_URL.fullmatch(url)
    if not match or match.group(1) == ":memory:":
        return None
    return Path(match.group(1))


@lru_cache(maxsize=1)
def _code_digest() -> str:
    digest = hashlib.sha256(FORMAT.encode())
    for folder in _CODE:
        for path in sorted((_ROOT / folder).glob("*.py")):
            digest.update(f"{folder}/{path.name}\0".encode() + path.read_bytes())
    return digest.hexdigest()


def fingerprint(path: Path) -> str | None:
    """The state of the ledger in `path`, read in one transaction without writing; None when it cannot be read
    as a grader ledger (the caller then computes as usual and keeps nothing)."""
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None, timeout=5)
    except (sqlite3.Error, ValueError):
        return None
    try:
        con.execute("BEGIN")
        facts = [r[0] for r in con.execute(
            "SELECT tbl_name FROM sqlite_master WHERE type = 'trigger' AND name = tbl_name || '_no_update' "
            "ORDER BY tbl_name")]
        if not facts:
            return None
        parts = [f"schema {con.execute('SELECT version_num FROM alembic_version').fetchone()}"]
        for table in facts:
            count, top = con.execute(f'SELECT count(*), max(rowid) FROM "{table}"').fetchone()
            parts.append(f"{table} {count} {top}")
        con.execute("COMMIT")
    except sqlite3.Error:
        return None
    finally:
        con.close()
    return "\n".join(parts)


def key(path: Path, state: str, arguments: str) -> str:
    info = path.resolve().stat()
    identity = f"{path.resolve()}|{info.st_dev}|{info.st_ino}"
    return hashlib.sha256("\n".join((FORMAT, _code_digest(), identity, state, arguments)).encode()).hexdigest()


def lookup(cache_key: str) -> str | None:
    try:
        return (private_cache_dir("boards") / f"{cache_key}.json").read_text(encoding="utf-8")
    except OSError:
        return None


KEPT = 64   # answers kept; the oldest go first (a nightly asks at many states, each asked again rarely)


def keep(cache_key: str, text: str) -> None:
    """Write the answer whole or not at all (a reader never sees half of one); a failure only loses the cache."""
    try:
        folder = private_cache_dir("boards")
        fd, tmp = tempfile.mkstemp(prefix=".", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(tmp, folder / f"{cache_key}.json")
        finally:
            Path(tmp).unlink(missing_ok=True)
        answers = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
        for old in answers[:-KEPT]:
            old.unlink(missing_ok=True)
    except OSError:
        pass


@dataclass(frozen=True)
class Probe:
    """One question asked of one state of a ledger: its key and, on a hit, the kept answer."""

    path: Path
    arguments: str
    key: str
    answer: str | None


def probe(path: Path, arguments: str) -> Probe | None:
    """The key of `arguments` asked of the ledger's current state, with the answer kept for it, if any; None when
    the file cannot be read as a grader ledger."""
    state = fingerprint(path)
    if state is None:
        return None
    cache_key = key(path, state, arguments)
    return Probe(path, arguments, cache_key, lookup(cache_key))


def keep_if_unchanged(asked: Probe, text: str) -> None:
    """Keep `text` as the answer of `asked` if the ledger is still in the state it was asked of."""
    state = fingerprint(asked.path)
    if state is not None and key(asked.path, state, asked.arguments) == asked.key:
        keep(asked.key, text)
