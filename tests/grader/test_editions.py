"""Editions from the command line: create, list, record under one (by name or id), and every pin refusing a
mismatch before any work."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from engine import engine_build
from grader._settings import installation_settings_hash
from grader._version import grader_build
from grader.cli import cli
from grader.editions import current_pins
from grader.tasks import repository_suites
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
    assert (created["engine_build"], created["grader_build"], created["settings_hash"]) == (
        engine_build(), grader_build(), installation_settings_hash())
    from grader.tasks import repository_suites

    public = next(s for s in repository_suites() if s.name == "public")
    assert created["profile_hash"] is None and created["tasks"] == len(public.tasks)
    _, hashes = invoke("tasks", "hash", "public", "--json")
    assert created["dataset_hash"] == json.loads(hashes)[0]["dataset_hash"]
    # the root seed is fixed by the name: another ledger gets the same one
    code, again = invoke("edition", "create", "nightly-2026-12-01", "--database", f"sqlite:///{tmp_path / 'm.db'}",
                         "--json")
    assert code == 0 and json.loads(again)["root_seed"] == created["root_seed"]
    code, out = invoke("edition", "create", "nightly-2026-12-01", "--database", db)
    assert code == 2 and "exists already" in out
    code, out = invoke("edition", "list", "--database", db, "--json")
    assert code == 0 and [e["name"] for e in json.loads(out)["editions"]] == ["nightly-2026-12-01"]

    code, out = invoke("run", "--agent", "oracle", "--edition", "nightly-2026-12-01", "--database", db,
                       "--runs-dir", str(tmp_path / "runs"), "--json")
    assert code == 0, out
    with Ledger(db).session() as session:
        assert set(session.execute(select(AttemptRow.edition_id)).scalars()) == {created["id"]}
    for ref in ("nightly-2026-12-01", str(created["id"])):
        code, out = invoke("board", ref, "--database", db, "--json")
        assert code == 0, out
        snapshot = json.loads(out)
        assert snapshot["edition"]["name"] == "nightly-2026-12-01"
        assert snapshot["statistics"]["root_seed"] == created["root_seed"]
    code, out = invoke("board", "no-such-edition", "--database", db)
    assert code == 2 and "no edition named 'no-such-edition'" in out


@pytest.mark.parametrize(("field", "message"), [
    ("dataset_hash", "pins dataset"),
    ("engine_build", "pins engine build"),
    ("grader_build", "pins grader build"),
    ("settings_hash", "pins settings"),
    ("profile_hash", "pins sandbox profile"),
])
def test_each_pin_refuses_a_mismatch_before_any_work(tmp_path: Path, field: str, message: str) -> None:
    db = f"sqlite:///{tmp_path / 'l.db'}"
    store = Ledger(db)
    suite = next(s for s in repository_suites() if s.name == "public")
    other = dataclasses.replace(current_pins(suite), **{field: "a" * 64})
    facts = SuiteFacts("public", suite.version, "public", other.dataset_hash)
    edition_id = create_edition(store, "pinned", facts, other, 1)
    runs = str(tmp_path / "runs")
    for ref in (str(edition_id), "pinned"):
        code, out = invoke("run", "--agent", "oracle", "--edition", ref, "--database", db, "--runs-dir", runs)
        assert code == 2 and message in out and "a" * 64 in out, out
        code, out = invoke("attempt", "public/move-with-keys", "--agent", "oracle", "--edition", ref,
                           "--database", db, "--runs-dir", runs)
        assert code == 2 and message in out, out
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").rglob("verdict.json"))
    with store.session() as session:
        assert session.execute(select(AttemptRow)).first() is None


def test_a_bad_profile_hash_is_refused(tmp_path: Path) -> None:
    code, out = invoke("edition", "create", "bad", "--profile-hash", "xyz", "--database",
                       f"sqlite:///{tmp_path / 'l.db'}")
    assert code == 2 and "64 lowercase hex" in out


def test_running_an_edition_without_a_ledger_is_one_line_and_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "nowhere.db"
    code, out = invoke("edition", "run", "nightly", "--database", f"sqlite:///{db}")
    assert code == 2
    assert "no ledger at" in out and "Traceback" not in out
    assert not db.exists()
