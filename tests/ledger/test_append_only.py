"""The database itself refuses UPDATE and DELETE (and TRUNCATE on PostgreSQL) on every fact table."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import exc, text

from ledger import FACT_TABLES, Base, Ledger
from tests.ledger import synth
from tests.ledger.helpers import raw, scalar

PRIMARY_KEY = {m.class_.__tablename__: m.primary_key[0].name for m in Base.registry.mappers}


def _populate(url: str, root: Path) -> str:
    ledger = Ledger(url)
    try:
        synth.populate(ledger)
        synth.populate_plan(ledger)
    finally:
        ledger.close()
    return url


@pytest.fixture
def populated(ledger_url: str, tmp_path: Path) -> str:
    return _populate(ledger_url, tmp_path)


def _refused(url: str, sql: str) -> str:
    with pytest.raises(exc.DBAPIError) as info, raw(url) as conn:
        conn.execute(text(sql))
    return str(info.value)


@pytest.mark.parametrize("table", FACT_TABLES)
def test_update_and_delete_are_refused(populated: str, table: str) -> None:
    count = scalar(populated, f"SELECT count(*) FROM {table}")
    assert count > 0, "every fact table has rows, so row triggers fire"
    key = PRIMARY_KEY[table]
    message = _refused(populated, f"UPDATE {table} SET {key} = {key}")
    assert f"ledger: {table} is append-only (UPDATE refused)" in message
    message = _refused(populated, f"DELETE FROM {table}")
    assert f"ledger: {table} is append-only (DELETE refused)" in message
    message = _refused(populated, f"DELETE FROM {table} WHERE {key} = (SELECT min({key}) FROM {table})")
    assert "append-only (DELETE refused)" in message
    assert scalar(populated, f"SELECT count(*) FROM {table}") == count


@pytest.mark.parametrize("table", FACT_TABLES)
def test_truncate_is_refused_on_postgresql(pg_url: str, tmp_path: Path, table: str) -> None:
    """SQLite has no TRUNCATE (its truncate optimisation of DELETE without WHERE is off on tables with triggers,
    and that DELETE is refused above)."""
    populated = _populate(pg_url, tmp_path)
    count = scalar(populated, f"SELECT count(*) FROM {table}")
    message = _refused(populated, f"TRUNCATE {table} CASCADE")
    assert "is append-only (TRUNCATE refused)" in message
    assert scalar(populated, f"SELECT count(*) FROM {table}") == count


def test_operational_state_stays_mutable(ledger_url: str) -> None:
    Ledger(ledger_url).close()
    with raw(ledger_url) as conn:
        conn.execute(text("INSERT INTO work_queue (payload, state) VALUES ('{}', 'queued')"))
        conn.execute(text("UPDATE work_queue SET state = 'leased'"))
    assert scalar(ledger_url, "SELECT state FROM work_queue") == "leased"
    with raw(ledger_url) as conn:
        conn.execute(text("DELETE FROM work_queue"))
    assert scalar(ledger_url, "SELECT count(*) FROM work_queue") == 0
