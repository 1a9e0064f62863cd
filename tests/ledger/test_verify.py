"""verify() recomputes every row's hash and the chain, and names the first row that does not match."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from ledger import Ledger
from tests.ledger import synth
from tests.ledger.helpers import drop_append_only, raw, scalar


@pytest.fixture
def ledger(ledger_url: str, tmp_path: Path) -> Iterator[Ledger]:
    ledger = Ledger(ledger_url)
    ledger.results = synth.populate(ledger, tmp_path)  # type: ignore[attr-defined]
    try:
        yield ledger
    finally:
        ledger.close()


def test_a_recorded_ledger_verifies(ledger: Ledger) -> None:
    rows = scalar(ledger.url, "SELECT count(*) FROM audit")
    # edition, suite, tasks, batteries, dataset_tasks, model, artifacts, attempts, results, corrections
    assert rows == 2 + 3 + 3 + 3 + 1 + 3 + 6 + 6 + 3
    assert ledger.verify() == (True, f"{rows} rows verified")


@pytest.mark.parametrize(("table", "column", "key_sql"), [
    ("results", "verdict", "SELECT result_hash FROM results ORDER BY created_at, result_hash LIMIT 1 OFFSET 2"),
    ("attempts", "driver", "SELECT id FROM attempts ORDER BY created_at, id LIMIT 1 OFFSET 4"),
    ("corrections", "reason", "SELECT id FROM corrections ORDER BY id LIMIT 1 OFFSET 1"),
])
def test_one_edited_byte_is_found_and_named(ledger: Ledger, table: str, column: str, key_sql: str) -> None:
    key = scalar(ledger.url, key_sql)
    pk = {"results": "result_hash", "attempts": "id", "corrections": "id"}[table]
    with raw(ledger.url) as conn:
        drop_append_only(conn, table)
        before = conn.execute(text(f"SELECT {column} FROM {table} WHERE {pk} = :k"), {"k": key}).scalar()
        assert before[2] != "X"
        conn.execute(text(f"UPDATE {table} SET {column} = substr({column}, 1, 2) || 'X' || substr({column}, 4) "
                          f"WHERE {pk} = :k"), {"k": key})
        after = conn.execute(text(f"SELECT {column} FROM {table} WHERE {pk} = :k"), {"k": key}).scalar()
    assert len(after) == len(before) and sum(a != b for a, b in zip(after, before, strict=True)) == 1
    ok, message = ledger.verify()
    assert not ok
    assert f"({table} {key})" in message and "does not match its recorded hash" in message


def test_a_deleted_row_is_named(ledger: Ledger) -> None:
    last = scalar(ledger.url, "SELECT max(id) FROM corrections")
    with raw(ledger.url) as conn:
        drop_append_only(conn, "corrections")
        conn.execute(text("DELETE FROM corrections WHERE id = :k"), {"k": last})
    ok, message = ledger.verify()
    assert not ok
    assert f"(corrections {last}): the row is gone" in message


def test_a_deleted_result_is_named(ledger: Ledger) -> None:
    uncorrected = ledger.results[5]  # type: ignore[attr-defined]
    with raw(ledger.url) as conn:
        drop_append_only(conn, "results")
        conn.execute(text("DELETE FROM results WHERE result_hash = :k"), {"k": uncorrected})
    ok, message = ledger.verify()
    assert not ok
    assert f"(results {uncorrected}): the row is gone" in message


def test_a_row_outside_the_chain_is_named(ledger: Ledger) -> None:
    result = ledger.results[1]  # type: ignore[attr-defined]
    with raw(ledger.url) as conn:  # INSERT is allowed by the triggers, but never enters the chain this way
        conn.execute(text("INSERT INTO corrections (result_hash, passed, reason, author, created_at) "
                          "VALUES (:r, :p, 'forged', 'mallory', :t)"), {"r": result, "p": True, "t": "2026-01-01"})
        forged = conn.execute(text("SELECT max(id) FROM corrections")).scalar()
    ok, message = ledger.verify()
    assert not ok
    assert message == f"corrections {forged}: a row that never entered the audit chain"


def test_an_edited_chain_entry_is_named(ledger: Ledger) -> None:
    with raw(ledger.url) as conn:
        drop_append_only(conn, "audit")
        conn.execute(text("UPDATE audit SET row_hash = :h WHERE seq = 7"), {"h": "0" * 64})
    ok, message = ledger.verify()
    assert not ok
    assert message.startswith("audit seq 7 (") and "chain hash does not match" in message
