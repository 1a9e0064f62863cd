"""The ledger store: append facts (each with its audit-chain entry) in one transaction, read them back,
verify the chain, correct results by appending."""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, exc, insert, inspect, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from ._models import AUDITED_TABLES, AuditRow, Base, ResultRow

GENESIS = "0" * 64
PENDING_AUDIT = "grader.pending_audit"   # session.info key: audit rows appended, not yet inserted
PENDING_ROWS = "grader.pending_rows"   # session.info key: fact rows appended, not yet inserted (Ledger.append)
CHAIN_CURSOR = "grader.audit_cursor"   # session.info key: (last seq, last chain hash) of this transaction
MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"
UPGRADE_LOCK_KEY = 0x6C656467  # PostgreSQL advisory lock held while migrating ("ledg")


_WRITING: ContextVar[bool] = ContextVar("grader_ledger_writing", default=False)


@contextmanager
def writing() -> Iterator[None]:
    """Transactions begun inside write: on SQLite they BEGIN IMMEDIATE (take the write lock at once, so two
    writers never deadlock upgrading a read lock); every other transaction is a plain deferred BEGIN."""
    token = _WRITING.set(True)
    try:
        yield
    finally:
        _WRITING.reset(token)


class LedgerError(ValueError):
    """A ledger request that cannot be satisfied; the message says which row, hash or database."""


class LedgerCorruptError(LedgerError):
    """The database's bytes are not a readable ledger (a damaged or foreign file)."""


class LedgerUnavailableError(LedgerError):
    """The database server cannot be reached (or keeps refusing): an infrastructure failure, not bad input."""


CORRUPT_MARKERS = ("file is not a database", "database disk image is malformed", "file is encrypted",
                   "not a database")


def _shown(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except exc.ArgumentError:
        return url


def explain(error: BaseException, url: str) -> LedgerError | None:
    """The one-line error a database failure means to a user (None: a failure of the grader's own, re-raised)."""
    shown = _shown(url)
    first = str(getattr(error, "orig", None) or error).strip().splitlines()[0] if str(error).strip() else ""
    if isinstance(error, exc.NoSuchModuleError):   # before ArgumentError, its base class
        return LedgerError(f"{shown}: unknown kind of database (the ledger supports sqlite and postgresql+psycopg)")
    if isinstance(error, exc.ArgumentError):
        return LedgerError(f"{shown}: not a database URL (expected sqlite:///PATH or "
                           "postgresql+psycopg://USER@HOST/DB)")
    if isinstance(error, ImportError):
        return LedgerError(f"{shown}: its database driver is not installed ({error.name or error}); the ledger "
                           "supports sqlite and postgresql+psycopg")
    if isinstance(error, UnicodeDecodeError) or any(m in first for m in CORRUPT_MARKERS):
        return LedgerCorruptError(f"{shown}: not a readable grader ledger ({first or 'its bytes are not SQLite'})")
    if isinstance(error, exc.OperationalError) and "unable to open database file" in first:
        return LedgerError(f"{shown}: cannot open the database file (does its folder exist, may we write there?)")
    if isinstance(error, exc.OperationalError | exc.InterfaceError):
        return LedgerUnavailableError(f"{shown}: the database is unavailable ({first})")
    return None


@contextmanager
def translated(url: str) -> Iterator[None]:
    """Database failures become LedgerErrors that name the database (see `explain`)."""
    try:
        yield
    except LedgerError:
        raise
    except (exc.SQLAlchemyError, ImportError, UnicodeDecodeError, sqlite3.DatabaseError) as error:
        meaning = explain(error, url)
        if meaning is None:
            raise
        raise meaning from None


def default_database_url() -> str:
    """GRADER_DATABASE_URL, else a SQLite file grader.db in the working directory."""
    return os.environ.get("GRADER_DATABASE_URL") or f"sqlite:///{Path('grader.db').resolve()}"


def _canonical_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.replace(tzinfo=None).isoformat(timespec="microseconds")
    if isinstance(value, bytes | memoryview):
        return "sha256:" + hashlib.sha256(bytes(value)).hexdigest()
    if isinstance(value, Enum):
        return value.value
    return value


def row_dict(row: Any) -> dict[str, Any]:
    """Every column of a mapped row, canonicalised for hashing.  A column added after its table's first rows
    (info audit_omit_null) is left out while NULL: rows audited before it existed keep their hash."""
    out = {}
    for key, omit_null in _audited_columns(inspect(row).mapper):
        value = getattr(row, key)
        if value is None and omit_null:
            continue
        out[key] = _canonical_value(value)
    return out


@functools.cache
def _audited_columns(mapper: Any) -> tuple[tuple[str, bool], ...]:
    """(attribute, left out while NULL) for each column of a mapped class, in mapper order."""
    return tuple((col.key, any(c.info.get("audit_omit_null") for c in col.columns)) for col in mapper.column_attrs)


def row_hash(table: str, values: dict[str, Any]) -> str:
    document = json.dumps({"table": table, "row": values}, sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False, default=str)
    return hashlib.sha256(document.encode("utf-8")).hexdigest()


def chain_hash(prev: str, table: str, key: str, rhash: str) -> str:
    return hashlib.sha256(f"{prev}|{table}|{key}|{rhash}".encode()).hexdigest()


def row_key(row: Any) -> str:
    return "/".join(str(v) for v in inspect(row).identity or ())


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _enable_wal(cur: Any, patience: float = 60.0) -> None:
    """Switch a SQLite file to WAL (persistent, so once per file).  Switching needs an exclusive lock, and SQLite
    answers "database is locked" at once, without its busy handler, when another process opening the same new
    file holds a lock: retry until the file is in WAL, however it got there."""
    deadline = time.monotonic() + patience
    while True:
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _sqlite_pragmas(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves (BEGIN IMMEDIATE for writers)
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA busy_timeout=60000")
        _enable_wal(cur)
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if _WRITING.get() else "BEGIN")


def upgrade(engine: Engine) -> None:
    """Bring the database to the newest Alembic revision."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with writing(), engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # processes opening an empty database together: one migrates, the others wait, then find it done
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": UPGRADE_LOCK_KEY})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


_REVISION_LINE = re.compile(r"^(revision|down_revision)\s*=\s*(?:'([^']*)'|\"([^\"]*)\"|None)\s*$", re.M)


@functools.lru_cache(maxsize=1)
def head_revision() -> str:
    """The newest migration, read from migrations/versions/ without importing Alembic (a read-only command that
    opens a current ledger never needs it; tests/ledger/test_migrations.py holds this equal to Alembic's head)."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("[0-9]*.py"):
        for name, single, double in _REVISION_LINE.findall(path.read_text(encoding="utf-8")):
            value = single or double
            if value:
                (revisions if name == "revision" else parents).add(value)
    heads = revisions - parents
    if len(heads) != 1:
        raise LedgerError(f"the migrations in {MIGRATIONS} have {len(heads)} heads: {sorted(heads)}")
    return heads.pop()


def _at_head(engine: Engine) -> bool:
    """An empty database, or one an older grader created, is upgraded on open (the migrations only add)."""
    if not inspect(engine).has_table("alembic_version"):
        return False
    with engine.connect() as conn:
        return conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == head_revision()


def _insert_pending(session: Session) -> None:
    """Insert the fact rows `append` queued, in the order they were appended: one executemany per run of rows of
    one table, on the transaction's connection (no unit of work, no identity map: a batch's rows are final)."""
    pending = session.info.get(PENDING_ROWS)
    if pending:
        session.info[PENDING_ROWS] = []
        connection = session.connection()
        for table, run in itertools.groupby(pending, key=lambda item: item[0]):
            connection.execute(insert(table), [values for _, values in run])


def _write_audit(session: Session) -> None:
    """Insert the fact rows and then the audit rows `append` queued in this transaction, before it commits."""
    _insert_pending(session)
    pending = session.info.pop(PENDING_AUDIT)
    if pending:
        session.flush()
        session.connection().execute(insert(AuditRow.__table__), pending)   # type: ignore[arg-type]


@functools.cache
def _insert_columns(mapper: Any) -> tuple[tuple[str, str, bool], ...]:
    """(attribute, column name, left out of the audit hash while NULL) for each column of a mapped class."""
    return tuple((attr.key, attr.columns[0].name, any(c.info.get("audit_omit_null") for c in attr.columns))
                 for attr in mapper.column_attrs)


class Ledger:
    """One database.  Facts are appended with `append`; the database itself refuses UPDATE and DELETE."""

    def __init__(self, url: str | None = None, auto_upgrade: bool = True, create: bool = True) -> None:
        """Open the ledger at `url`.  An empty database is brought to the newest schema when `create` (a command
        that appends); with create=False (a command that only reads) a SQLite file that does not exist, or a
        database with no ledger in it, is an error, never a new ledger."""
        self.url = url or default_database_url()
        with translated(self.url):
            self.engine = create_engine(self.url, future=True)
            if self.engine.dialect.name == "sqlite":
                database = self.engine.url.database
                if not create and (not database or database == ":memory:" or not Path(database).is_file()):
                    raise LedgerError(f"no ledger at {self.display_url}: the file does not exist")
                _sqlite_pragmas(self.engine)
            if not create and not inspect(self.engine).has_table("alembic_version"):
                raise LedgerError(f"no ledger at {self.display_url}: the database holds no grader ledger")
            if auto_upgrade and not _at_head(self.engine):
                upgrade(self.engine)

    @property
    def display_url(self) -> str:
        """The URL with any password hidden, and a SQLite file below the working folder named relative to it:
        what commands print."""
        url = self.engine.url
        if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
            path = Path(url.database)
            if path.is_absolute() and path.is_relative_to(Path.cwd()):
                return f"sqlite:///{path.relative_to(Path.cwd())}"
        return url.render_as_string(hide_password=True)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def session(self) -> Iterator[Session]:
        with translated(self.url), Session(self.engine, expire_on_commit=False) as session:
            yield session

    @contextmanager
    def appending(self) -> Iterator[Session]:
        """A write transaction that holds the chain lock; add rows with `append` inside it."""
        with writing(), translated(self.url), Session(self.engine, expire_on_commit=False) as session, \
                session.begin():
            if self.dialect == "postgresql":
                session.execute(text("LOCK TABLE audit IN EXCLUSIVE MODE"))
            session.info[PENDING_AUDIT] = []
            session.info[PENDING_ROWS] = []
            # whatever this transaction executes next sees the rows appended so far
            event.listen(session, "do_orm_execute", lambda _state: _insert_pending(session))
            yield session
            _write_audit(session)

    def append(self, session: Session, *rows: Base) -> None:
        """Insert fact rows and extend the audit chain with each, in the caller's transaction.  The chain's end is
        read once per transaction (which holds the chain lock: BEGIN IMMEDIATE on SQLite, LOCK TABLE audit on
        PostgreSQL) and carried along.  A row whose key is known is queued and inserted, in order, by one
        executemany per table when the transaction next executes anything or ends; a row whose key the database
        assigns (an autoincrement id) is inserted at once, after the queue.  So a batch costs a few statements,
        not a unit of work per row."""
        cursor = session.info.get(CHAIN_CURSOR)
        if cursor is None:
            last = session.execute(select(AuditRow.seq, AuditRow.chain_hash).order_by(AuditRow.seq.desc())
                                   .limit(1)).first()
            cursor = (int(last[0]), str(last[1])) if last else (0, GENESIS)
        seq, prev = cursor
        # the audit rows go in with one statement when the transaction ends (_write_audit): nothing reads them
        # before, and the chain's end travels in CHAIN_CURSOR
        audit: list[dict[str, Any]] | None = session.info.get(PENDING_AUDIT)
        queue: list[tuple[Any, dict[str, Any]]] | None = session.info.get(PENDING_ROWS)
        if audit is None or queue is None:
            raise LedgerError("rows are appended only inside Ledger.appending(), which writes their audit rows")
        for row in rows:
            mapper = inspect(row).mapper
            key_values = mapper.primary_key_from_instance(row)
            if any(v is None for v in key_values):
                _insert_pending(session)
                session.add(row)
                session.flush()
                key_values = mapper.primary_key_from_instance(row)
            values: dict[str, Any] = {}
            audited: dict[str, Any] = {}
            for attr, column, omit_null in _insert_columns(mapper):
                value = getattr(row, attr)
                values[column] = value
                if value is not None or not omit_null:
                    audited[attr] = _canonical_value(value)
            if inspect(row).transient:
                queue.append((mapper.local_table, values))
            table = row.__tablename__
            key = "/".join(str(v) for v in key_values)
            rhash = row_hash(table, audited)
            seq += 1
            chain = chain_hash(prev, table, key, rhash)
            audit.append({"seq": seq, "table_name": table, "row_key": key, "row_hash": rhash, "prev_hash": prev,
                          "chain_hash": chain})
            prev = chain
        session.info[CHAIN_CURSOR] = (seq, prev)

    def get(self, model: type[Base], key: Any) -> Any:
        with self.session() as session:
            return session.get(model, key)

    def find_result(self, prefix: str) -> ResultRow:
        """A result by its full hash or an unambiguous prefix (at least 6 hex digits)."""
        prefix = prefix.strip().lower()
        if len(prefix) < 6 or any(c not in "0123456789abcdef" for c in prefix):
            raise LedgerError(f"{prefix!r}: give a result hash or a prefix of at least 6 hex digits")
        with self.session() as session:
            rows = session.execute(
                select(ResultRow).where(ResultRow.result_hash.like(f"{prefix}%")).limit(2)).scalars().all()
        if not rows:
            raise LedgerError(f"no result {prefix!r} in the ledger")
        if len(rows) > 1:
            raise LedgerError(f"result prefix {prefix!r} is ambiguous")
        return rows[0]

    def verify(self) -> tuple[bool, str]:
        """Recompute every audited row's hash and the chain; (ok, message naming the first bad row)."""
        models = {m.class_.__tablename__: m.class_ for m in Base.registry.mappers}
        with self.session() as session:
            if self.dialect == "postgresql":
                # one snapshot for every statement: rows committed meanwhile are neither missing nor strangers
                # (SQLite's BEGIN IMMEDIATE already holds writers off)
                session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            prev = GENESIS
            seen: dict[str, set[str]] = {t: set() for t in AUDITED_TABLES}
            count = 0
            for audit in session.execute(select(AuditRow).order_by(AuditRow.seq)).scalars():
                count += 1
                where = f"audit seq {audit.seq} ({audit.table_name} {audit.row_key})"
                if audit.prev_hash != prev:
                    return False, f"{where}: previous hash does not match the chain"
                if chain_hash(prev, audit.table_name, audit.row_key, audit.row_hash) != audit.chain_hash:
                    return False, f"{where}: chain hash does not match"
                model = models[audit.table_name]
                key_cols = [c.name for c in inspect(model).primary_key]
                parts = audit.row_key.split("/")
                ident = {c: (int(v) if str(inspect(model).columns[c].type) == "INTEGER" else v)
                         for c, v in zip(key_cols, parts, strict=True)}
                row = session.get(model, ident)
                if row is None:
                    return False, f"{where}: the row is gone"
                if row_hash(audit.table_name, row_dict(row)) != audit.row_hash:
                    return False, f"{where}: the row's content does not match its recorded hash"
                seen[audit.table_name].add(audit.row_key)
                prev = audit.chain_hash
            for table in AUDITED_TABLES:
                model = models[table]
                for row in session.execute(select(model)).scalars():
                    if row_key(row) not in seen[table]:
                        return False, f"{table} {row_key(row)}: a row that never entered the audit chain"
        return True, f"{count} rows verified"


def result_hash_of(attempt_id: str, evidence_digest: str, artifact_hash: str | None) -> str:
    """A result's id: SHA-256 of "result/1|<attempt id>|<evidence digest>|<artifact hash>".

    The attempt id is unique per attempt, so re-grading the same deliverable is a new result; the evidence
    digest and the artifact hash tie the id to what was graded and what was found.
    """
    return hashlib.sha256(f"result/1|{attempt_id}|{evidence_digest}|{artifact_hash or ''}".encode()).hexdigest()
