"""Alembic: head matches the models exactly; an empty database is upgraded on open; concurrent first opens."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from ledger import FACT_TABLES, Base, Ledger, upgrade
from ledger._store import head_revision
from tests.ledger.helpers import Writer, check_consistent, scalar


def test_head_has_no_difference_from_the_models(ledger_url: str) -> None:
    engine = create_engine(ledger_url)
    try:
        upgrade(engine)
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
            diff = compare_metadata(context, Base.metadata)
    finally:
        engine.dispose()
    assert diff == []


def test_opening_an_empty_database_upgrades_it(ledger_url: str) -> None:
    engine = create_engine(ledger_url)
    assert inspect(engine).get_table_names() == []
    engine.dispose()
    ledger = Ledger(ledger_url)
    try:
        tables = set(inspect(ledger.engine).get_table_names())
        assert set(FACT_TABLES) | {"work_queue", "alembic_version"} <= tables
        assert scalar(ledger_url, "SELECT version_num FROM alembic_version") == head_revision() == "0005"
        assert ledger.verify() == (True, "0 rows verified")
    finally:
        ledger.close()
    Ledger(ledger_url).close()  # opening again is a no-op
    assert scalar(ledger_url, "SELECT count(*) FROM alembic_version") == 1


def test_downgrade_then_upgrade_again(ledger_url: str) -> None:
    from alembic import command
    from alembic.config import Config

    from ledger._store import MIGRATIONS

    engine = create_engine(ledger_url)
    try:
        upgrade(engine)
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "base")
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
        upgrade(engine)
        assert set(FACT_TABLES) <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_writers_opening_an_empty_database_together(ledger_url: str, request: pytest.FixtureRequest,
                                                    tmp_path: Path) -> None:
    """Four processes open the same empty database at the same moment, over several fresh databases: one
    upgrades each, none fails; then they write to one together.  (Regressions: PostgreSQL migrating twice at
    once without the migration lock; SQLite refusing to switch a new file to WAL while another opens it.)"""
    rounds = 10  # each race is brief: several rounds make a regression show up
    if ledger_url.startswith("postgresql"):
        server = request.getfixturevalue("pg_server")
        names = [f"ledger_open_{uuid.uuid4().hex[:12]}" for _ in range(rounds)]
        urls = [server.create_database(name) for name in names]
    else:
        urls = [f"sqlite:///{tmp_path / f'open{i}.db'}" for i in range(rounds)]
    writers = [Writer(ledger_url, "--count", "3", "--open-rounds", str(rounds), "--wait-open", "--tag", str(i))
               for i in range(4)]
    try:
        for url in [*urls, "go"]:
            for writer in writers:
                writer.expect("loaded")
            for writer in writers:
                writer.go(url)
        for writer in writers:
            writer.expect("done")
    finally:
        for writer in writers:
            writer.finish()
        if ledger_url.startswith("postgresql"):
            for name in names:
                server.drop_database(name)
    assert [w.proc.returncode for w in writers] == [0, 0, 0, 0]
    ledger = Ledger(ledger_url)
    try:
        assert check_consistent(ledger)["results"] == 12
    finally:
        ledger.close()


def test_the_head_read_from_the_files_is_alembics_head() -> None:
    """head_revision() parses migrations/versions/ to spare read-only commands Alembic's import."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from ledger._store import MIGRATIONS

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert head_revision() == ScriptDirectory.from_config(config).get_current_head()
