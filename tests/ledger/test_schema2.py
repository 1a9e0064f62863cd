"""Schema 2 (migration 0002): attempts.profile_hash and attempts.tool_calls.  A ledger recorded by the schema-1
grader upgrades on open and still verifies; the append-only triggers survive upgrade and downgrade; an edition
that pins a sandbox profile refuses attempts recorded under another profile, or under none."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, exc, inspect, text

from ledger import Ledger, LedgerError, Pins, check_edition_pins, correct_result, record_attempt, result
from ledger._models import Edition
from ledger._store import MIGRATIONS, head_revision, now
from tests import synthetic
from tests.ledger import synth
from tests.ledger.helpers import check_consistent, raw, scalar

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "ledger_v1.sql"
PINNED, OTHER = synth.sha("profile pinned"), synth.sha("profile other")


def _migrate(url: str, target: str, down: bool = False) -> None:
    """Migrate in one transaction, as the ledger does (its SQLite connections issue BEGIN themselves, so DDL does
    not commit half a downgrade that a later step refuses)."""
    engine = Ledger(url, auto_upgrade=False).engine
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            (command.downgrade if down else command.upgrade)(cfg, target)
    finally:
        engine.dispose()


def _refused(url: str, sql: str) -> str:
    with pytest.raises(exc.DBAPIError) as info, raw(url) as conn:
        conn.execute(text(sql))
    return str(info.value)


def test_a_schema_1_ledger_upgrades_on_open_and_still_verifies(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    con = sqlite3.connect(path)
    con.executescript(FIXTURE.read_text())
    con.close()
    url = f"sqlite:///{path}"
    assert scalar(url, "SELECT version_num FROM alembic_version") == "0001"
    ledger = Ledger(url)
    try:
        assert scalar(url, "SELECT version_num FROM alembic_version") == head_revision()
        columns = {c["name"] for c in inspect(ledger.engine).get_columns("attempts")}
        assert {"profile_hash", "tool_calls"} <= columns
        assert scalar(url, "SELECT count(*) FROM attempts WHERE profile_hash IS NULL AND tool_calls IS NULL") == 6
        assert ledger.verify() == (True, "27 rows verified")  # the hashes of schema-1 rows are unchanged
        assert "attempts is append-only (UPDATE refused)" in _refused(url, "UPDATE attempts SET tool_calls = 1")
        facts = synth.task(0)
        rhash = record_attempt(ledger, facts, synth.verdict(facts, 7), {"agent": 1.0}, None, driver="synthetic",
                               tool_calls=12, profile_hash=PINNED, tokens=(5, 6), cost_usd=0.5)
        attempt = result(ledger, rhash)
        assert (attempt.profile_hash, attempt.tool_calls, attempt.tokens_in, attempt.cost_usd) == (PINNED, 12, 5, 0.5)
        check_consistent(ledger)
    finally:
        ledger.close()


def test_tampering_with_a_new_column_is_found(ledger_url: str, tmp_path: Path) -> None:
    """Leaving NULL columns out of the hash must not let a tamperer fill one in unseen."""
    ledger = Ledger(ledger_url)
    try:
        synth.populate(ledger, tmp_path)
        key = scalar(ledger_url, "SELECT id FROM attempts ORDER BY id LIMIT 1")
        with raw(ledger_url) as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text("DROP TRIGGER attempts_append_only ON attempts"))
            else:
                conn.execute(text("DROP TRIGGER attempts_no_update"))
            conn.execute(text("UPDATE attempts SET profile_hash = :p WHERE id = :k"), {"p": PINNED, "k": key})
        ok, message = ledger.verify()
        assert not ok and f"(attempts {key})" in message and "does not match its recorded hash" in message
    finally:
        ledger.close()


def test_downgrade_and_upgrade_keep_rows_hashes_and_triggers(ledger_url: str, tmp_path: Path) -> None:
    ledger = Ledger(ledger_url)
    try:
        synth.populate(ledger, tmp_path, schema=2)
    finally:
        ledger.close()
    _migrate(ledger_url, "0001", down=True)
    assert "profile_hash" not in {c["name"] for c in inspect(create_engine(ledger_url)).get_columns("attempts")}
    assert "attempts is append-only (DELETE refused)" in _refused(ledger_url, "DELETE FROM attempts")
    _migrate(ledger_url, "head")
    for sql in ("UPDATE attempts SET profile_hash = 'x'", "DELETE FROM attempts"):
        assert "attempts is append-only" in _refused(ledger_url, sql)
    ledger = Ledger(ledger_url)
    try:
        check_consistent(ledger)
    finally:
        ledger.close()


@pytest.fixture
def pinned(ledger_url: str) -> Iterator[tuple[Ledger, int, int]]:
    """A ledger with an edition that pins PINNED and one that pins nothing."""
    ledger = Ledger(ledger_url)
    with ledger.appending() as session:
        editions = [Edition(name=name, engine_version=synthetic.ENGINE.build or "", dataset_version="1",
                            dataset_hash=synth.sha("dataset"), profile_hash=profile, root_seed=1, created_at=now())
                    for name, profile in (("pinned", PINNED), ("open", None))]
        ledger.append(session, *editions)
        ids = (editions[0].id, editions[1].id)
    try:
        yield ledger, *ids
    finally:
        ledger.close()


def _record(ledger: Ledger, edition_id: int, profile_hash: str | None) -> str:
    facts = synth.task(1)
    return record_attempt(ledger, facts, synth.verdict(facts, 1), {"agent": 1.0}, None, driver="synthetic",
                          edition_id=edition_id, profile_hash=profile_hash)


def test_an_edition_that_pins_a_profile_refuses_another_or_none(pinned: tuple[Ledger, int, int]) -> None:
    ledger, pinned_id, open_id = pinned
    with pytest.raises(LedgerError) as other:
        _record(ledger, pinned_id, OTHER)
    assert str(other.value) == (f"edition 'pinned' (id {pinned_id}) pins sandbox profile {PINNED}; the attempt's "
                                f"profile is {OTHER}: refused")
    with pytest.raises(LedgerError, match=rf"pins sandbox profile {PINNED}; the attempt has no sandbox "
                                          r"profile \(--sandbox none\): refused"):
        _record(ledger, pinned_id, None)
    def pins(profile: str | None) -> Pins:
        return Pins(synthetic.ENGINE.build or "", synthetic.GRADER.build, "0" * 64, synth.sha("dataset"), profile)

    with pytest.raises(LedgerError, match="pins sandbox profile"):
        check_edition_pins(ledger, pinned_id, pins(OTHER))
    with pytest.raises(LedgerError, match="no edition 999"):
        _record(ledger, 999, PINNED)
    assert scalar(ledger.url, "SELECT count(*) FROM attempts") == 0  # nothing of a refused attempt is kept
    check_edition_pins(ledger, pinned_id, pins(PINNED))
    assert result(ledger, _record(ledger, pinned_id, PINNED)).profile_hash == PINNED
    assert result(ledger, _record(ledger, open_id, None)).profile_hash is None
    assert result(ledger, _record(ledger, open_id, OTHER)).profile_hash == OTHER
    check_consistent(ledger)


def test_a_downgrade_that_would_discard_facts_is_refused(ledger_url: str, tmp_path: Path) -> None:
    ledger = Ledger(ledger_url)
    try:
        hashes = synth.populate(ledger, tmp_path)
        correct_result(ledger, hashes[1], passed=False, reason="r", author="a", requirements={"moves": False})
    finally:
        ledger.close()
    with pytest.raises(RuntimeError, match=r"downgrading below 0004 would discard facts of schema 4 \(editions\)"):
        _migrate(ledger_url, "0003", down=True)
    assert scalar(ledger_url, "SELECT version_num FROM alembic_version") == head_revision()
    other = f"{ledger_url}" if "postgresql" in ledger_url else f"sqlite:///{tmp_path / 'schema2.db'}"
    if "postgresql" in ledger_url:
        return   # one database per test on PostgreSQL: the schema-3 refusal is shown on SQLite
    ledger = Ledger(other)
    try:
        hashes = synth.populate(ledger, tmp_path / "b", schema=2)
        correct_result(ledger, hashes[1], passed=False, reason="r", author="a", requirements={"moves": False})
    finally:
        ledger.close()
    with pytest.raises(RuntimeError, match=r"below 0003 would discard facts of schema 3 \(corrections\)"):
        _migrate(other, "0002", down=True)
    ledger = Ledger(other)
    try:
        check_consistent(ledger)
    finally:
        ledger.close()
