"""`grader board --json` answers kept per state of a SQLite ledger (grader/board_cache.py): the same bytes as
computing, served without computing, never served for another state, another file or other arguments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ledger import attempts, default_database_url

from .test_ledger_fixtures import load

ROOT = Path(__file__).resolve().parents[2]


def _grader(cwd: Path, tmpdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmpdir))   # the cache folder is this test's own
    env.pop("GRADER_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_a_kept_answer_is_served_for_its_state_only(tmp_path: Path) -> None:
    ledger = load("ledger_v3_verdicts_v1.sql.gz", tmp_path)
    result = next(a.result.result_hash for a in attempts(ledger) if a.result is not None)
    ledger.engine.dispose()
    db = f"sqlite:///{tmp_path / 'ledger_v3_verdicts_v1.sql.gz.db'}"
    cache, fresh = tmp_path / "cache", tmp_path / "fresh"
    cache.mkdir()
    fresh.mkdir()

    first = _grader(tmp_path, cache, "board", "--all-editions", "--json", "--database", db)
    assert first.returncode == 0, first.stderr
    kept = list((cache / f"grader-boards-{os.getuid()}").glob("*.json"))
    assert len(kept) == 1 and kept[0].read_text() == first.stdout
    assert oct(kept[0].parent.stat().st_mode & 0o777) == "0o700"

    # served from the cache: a marked answer comes back as it is
    kept[0].write_text('{"marked": true}\n')
    assert _grader(tmp_path, cache, "board", "--all-editions", "--json", "--database", db).stdout == \
        '{"marked": true}\n'
    # other arguments are another question
    other = _grader(tmp_path, cache, "board", "--all-editions", "--include-grades", "--json", "--database", db)
    assert other.returncode == 0 and "marked" not in other.stdout

    # an append (a correction) is another state: computed again, equal to a computation with no cache at all
    corrected = _grader(tmp_path, cache, "ledger", "correct", result, "--passed", "false", "--reason", "test",
                        "--author", "test", "--database", db)
    assert corrected.returncode == 0, corrected.stderr
    after = _grader(tmp_path, cache, "board", "--all-editions", "--json", "--database", db)
    assert after.returncode == 0 and "marked" not in after.stdout
    uncached = _grader(tmp_path, fresh, "board", "--all-editions", "--json", "--database", db)
    assert after.stdout == uncached.stdout != first.stdout
    assert json.loads(after.stdout)["format"] == json.loads(first.stdout)["format"]

    # a copy of the file in the same state is another file: not served the marked answer
    copy = tmp_path / "copy.db"
    copy.write_bytes((tmp_path / "ledger_v3_verdicts_v1.sql.gz.db").read_bytes())
    for kept_file in (cache / f"grader-boards-{os.getuid()}").glob("*.json"):
        kept_file.write_text('{"marked": true}\n')
    copied = _grader(tmp_path, cache, "board", "--all-editions", "--json", "--database", f"sqlite:///{copy}")
    assert copied.returncode == 0 and copied.stdout == uncached.stdout


def test_the_cache_finds_the_ledgers_default_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """grader/cli/boards.py spells the ledger's default URL itself (importing the ledger would cost a hit its
    speed): the two must agree."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRADER_DATABASE_URL", raising=False)
    assert default_database_url() == f"sqlite:///{Path('grader.db').resolve()}"


def test_an_edition_run_leaves_its_boards_answered(tmp_path: Path, make_task: Callable[..., Path]) -> None:
    """`grader edition run` computes the boards it changed before it ends, so the first `grader board --json`
    after a nightly is a hit: the same bytes a computation with no cache gives, for the edition's name and for
    the default question (the newest edition)."""
    for name in ("alpha", "beta"):
        suite = make_task(name).parent
    db = f"sqlite:///{tmp_path / 'l.db'}"
    cache, fresh = tmp_path / "cache", tmp_path / "fresh"
    cache.mkdir()
    fresh.mkdir()
    planned = _grader(tmp_path, cache, "edition", "plan", "nightly", "--baseline", "oracle", "--baseline", "nop",
                      "--suite", str(suite), "--database", db)
    assert planned.returncode == 0, planned.stderr
    assert not (cache / f"grader-boards-{os.getuid()}").exists()
    ran = _grader(tmp_path, cache, "edition", "run", "nightly", "--workers", "1", "--database", db)
    assert ran.returncode == 0 and "not warmed" not in ran.stderr, ran.stderr

    kept = sorted((cache / f"grader-boards-{os.getuid()}").glob("*.json"))
    assert len(kept) == 2
    computed = {_grader(tmp_path, fresh, "board", *ref, "--json", "--database", db).stdout
                for ref in ((), ("nightly",))}
    assert len(computed) == 1 and {k.read_text() for k in kept} == computed
    for kept_file in kept:
        kept_file.write_text('{"marked": true}\n')
    for ref in ((), ("nightly",)):
        assert _grader(tmp_path, cache, "board", *ref, "--json", "--database", db).stdout == '{"marked": true}\n'
