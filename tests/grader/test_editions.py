"""Editions from the command line: create, list, record under one, and every pin refusing a mismatch."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import select

from engine import ENGINE_VERSION
from grader.cli import cli
from ledger import Ledger, SuiteFacts, create_edition
from ledger._models import AttemptRow


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_create_list_and_record_under_an_edition(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'l.db'}"
    code, out = invoke("edition", "create", "nightly-2026-12-01", "--database", db, "--json")
    assert code == 0, out
    created = json.loads(out)
    assert created["engine_version"] == ENGINE_VERSION and created["profile_hash"] is None
    _, hashes = invoke("tasks", "hash", "public", "--json")
    assert created["dataset_hash"] == json.loads(hashes)[0]["dataset_hash"]
    # the root seed is fixed by the name: another ledger gets the same one
    code, again = invoke("edition", "create", "nightly-2026-12-01", "--database", f"sqlite:///{tmp_path / 'm.db'}",
                         "--json")
    assert code == 0 and json.loads(again)["root_seed"] == created["root_seed"]
    code, out = invoke("edition", "create", "nightly-2026-12-01", "--database", db)
    assert code == 2 and "exists already" in out
    code, out = invoke("edition", "list", "--database", db, "--json")
    assert code == 0 and [e["name"] for e in json.loads(out)] == ["nightly-2026-12-01"]

    edition = str(created["id"])
    code, out = invoke("run", "--agent", "oracle", "--edition", edition, "--database", db,
                       "--runs-dir", str(tmp_path / "runs"), "--json")
    assert code == 0, out
    with Ledger(db).session() as session:
        assert set(session.execute(select(AttemptRow.edition_id)).scalars()) == {created["id"]}
    code, out = invoke("board", edition, "--database", db, "--json")
    assert code == 0, out
    snapshot = json.loads(out)
    assert snapshot["edition"]["name"] == "nightly-2026-12-01"
    assert snapshot["statistics"]["root_seed"] == created["root_seed"]


def test_each_pin_refuses_a_mismatch_before_any_work(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'l.db'}"
    store = Ledger(db)
    other_data = create_edition(store, "old-dataset", SuiteFacts("public", "0.9", "public", "0" * 64),
                                ENGINE_VERSION, 1)
    _, hashes = invoke("tasks", "hash", "public", "--json")
    current = SuiteFacts("public", "1", "public", json.loads(hashes)[0]["dataset_hash"])
    other_engine = create_edition(store, "old-engine", current, "engine-0.0.1", 1)
    pinned = create_edition(store, "pinned-profile", current, ENGINE_VERSION, 1, profile_hash="a" * 64)
    runs = str(tmp_path / "runs")
    for edition_id, message in [(other_data, "pins dataset " + "0" * 64),
                                (other_engine, "pins engine engine-0.0.1"),
                                (pinned, "pins sandbox profile " + "a" * 64)]:
        code, out = invoke("run", "--agent", "oracle", "--edition", str(edition_id), "--database", db,
                           "--runs-dir", runs)
        assert code == 2 and message in out, out
        code, out = invoke("attempt", "public/move-with-keys", "--agent", "oracle", "--edition", str(edition_id),
                           "--database", db, "--runs-dir", runs)
        assert code == 2 and message in out, out
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").rglob("verdict.json"))
    with store.session() as session:
        assert session.execute(select(AttemptRow)).first() is None
    code, out = invoke("edition", "create", "bad", "--profile-hash", "xyz", "--database", db)
    assert code == 2 and "64 lowercase hex" in out
