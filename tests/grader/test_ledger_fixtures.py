"""Ledgers recorded by earlier graders still load, verify, board identically and replay.

- tests/ledger/fixtures/ledger_v1.sql: schema 1 (migration 0001), synthetic verdicts;
- tests/ledger/fixtures/ledger_v3_verdicts_v1.sql.gz: schema 3, real schema-1 verdicts of `grader run` over the
  public suite as it was then (tests/ledger/fixtures/public-suite-c389ba6.tar.gz), a correction and an infra_error.

The boards' golden file was computed by the grader before the evidence model and the ledger's typed reads
existed; `GRADER_REGENERATE_GOLDEN=1` rewrites it (review the diff).
"""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import tarfile
from pathlib import Path
from typing import Any

import pytest

from evidence import Verdict
from grader.boards import build_snapshot, load_inputs
from grader.replay import replay
from ledger import Ledger, attempts, recorded_verdict

FIXTURES = Path(__file__).resolve().parents[1] / "ledger" / "fixtures"
GOLDEN = Path(__file__).resolve().parent / "golden" / "fixture_ledger_boards.json"
LEDGERS = ("ledger_v1.sql", "ledger_v3_verdicts_v1.sql.gz")


def load(name: str, tmp_path: Path) -> Ledger:
    path = tmp_path / f"{name}.db"
    raw = (FIXTURES / name).read_bytes()
    con = sqlite3.connect(path)
    con.executescript(gzip.decompress(raw).decode() if name.endswith(".gz") else raw.decode())
    con.close()
    return Ledger(f"sqlite:///{path}")


def _without_versions(value: Any) -> Any:
    """The snapshot without the numpy version it records (it depends on the machine)."""
    if isinstance(value, dict):
        return {k: _without_versions(v) for k, v in value.items() if k != "numpy"}
    if isinstance(value, list):
        return [_without_versions(v) for v in value]
    return value


@pytest.mark.parametrize("name", LEDGERS)
def test_an_old_ledger_upgrades_verifies_and_every_verdict_loads(name: str, tmp_path: Path) -> None:
    ledger = load(name, tmp_path)
    assert ledger.verify()[0]
    views = attempts(ledger)
    assert views and all(isinstance(recorded_verdict(ledger, a.result.result_hash), Verdict)
                         for a in views if a.result is not None)
    if name.endswith(".gz"):   # real verdicts: their digests verify and they round-trip byte for byte
        con = sqlite3.connect(str(ledger.engine.url.database))
        for (text,) in con.execute("SELECT verdict FROM results"):
            verdict = Verdict.from_json(text)
            assert verdict.digest_ok() and verdict.canonical() == json.dumps(
                json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def test_old_ledgers_board_as_they_did(tmp_path: Path) -> None:
    computed: dict[str, Any] = {}
    for name in LEDGERS:
        ledger = load(name, tmp_path)
        editions = [None, *sorted({a.edition_id for a in attempts(ledger) if a.edition_id is not None})]
        for edition in editions:
            computed[f"{name} edition={edition}"] = _without_versions(build_snapshot(load_inputs(ledger, edition)))
    if os.environ.get("GRADER_REGENERATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(computed, sort_keys=True, separators=(",", ":")))
    assert json.loads(json.dumps(computed)) == json.loads(GOLDEN.read_text())


def test_old_results_replay_check_for_check(tmp_path: Path) -> None:
    """A schema-1 verdict of the suite as it was replays with every check's outcome and value unchanged; the
    digests differ only by what the pins name (the verdict's schema and the engine's and grader's builds)."""
    with tarfile.open(FIXTURES / "public-suite-c389ba6.tar.gz") as tar:
        tar.extractall(tmp_path, filter="data")
    suite = tmp_path / "suite-c389ba6"
    ledger = load(LEDGERS[1], tmp_path)
    graded = [a for a in attempts(ledger) if a.result is not None]
    assert len(graded) == 6
    for view in graded:
        assert view.result is not None
        report = replay(ledger, view.result.result_hash, (suite,))
        assert report.differences == [] and report.removed == [], (report.differences, report.removed)
        # L0 has since learned to name what it could not read whole: those checks are new, and pass
        assert [a.split(":")[0] for a in report.added] == ["L0 files_readable", "L0 listing_complete",
                                                            "L0 names_are_utf8"]
        assert all(a.endswith("True") for a in report.added)
        assert set(report.pins) == {"verdict schema", "engine version", "engine build", "grader build",
                                    "settings hash"}
        assert report.pins["verdict schema"] == {"recorded": 1, "now": 2}
