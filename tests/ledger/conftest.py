"""Every ledger test runs on SQLite (a file in tmp_path) and on PostgreSQL (a fresh database per test).

PostgreSQL comes from GRADER_TEST_PG_URL if set (a server on which databases may be created), else from a
throwaway cluster started on loopback for the session (tests/ledger/pg.py).  Without PostgreSQL's binaries the
PostgreSQL half is skipped locally; under CI it fails.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._ci import missing_dependency
from tests.ledger.pg import ExternalServer, TempCluster, find_bin_dir


@pytest.fixture(scope="session")
def pg_server() -> Iterator[ExternalServer]:
    external = os.environ.get("GRADER_TEST_PG_URL")
    if external:
        yield ExternalServer(external)
        return
    if find_bin_dir() is None:
        message = ("PostgreSQL server binaries not found (apt-get install postgresql, or set GRADER_TEST_PG_URL "
                   "to a server where databases may be created)")
        missing_dependency(message)
    cluster = TempCluster()
    cluster.start()  # PostgresUnavailableError here fails the tests loudly: the binaries are present
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_server: ExternalServer) -> Iterator[str]:
    """A fresh PostgreSQL database for one test, dropped after it."""
    name = f"ledger_test_{uuid.uuid4().hex[:16]}"
    url = pg_server.create_database(name)
    try:
        yield url
    finally:
        pg_server.drop_database(name)


@pytest.fixture(params=["sqlite", "postgresql"])
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a fresh, empty ledger database: SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ledger.db'}"
    return request.getfixturevalue("pg_url")
