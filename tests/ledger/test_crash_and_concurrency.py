"""Writers in their own processes: killed with SIGKILL mid-transaction they leave nothing partial; four at once
append exactly what they were asked to and the chain stays whole."""

from __future__ import annotations

import random
import time

from sqlalchemy import text

from ledger import Ledger
from tests.ledger.helpers import Writer, check_consistent, raw, scalar


def _check(url: str) -> dict[str, int]:
    ledger = Ledger(url)
    try:
        return check_consistent(ledger)
    finally:
        ledger.close()


def _result_hashes(url: str) -> set[str]:
    with raw(url) as conn:
        return set(conn.execute(text("SELECT result_hash FROM results")).scalars())


def test_a_writer_killed_inside_record_attempt_leaves_nothing(ledger_url: str) -> None:
    first = Writer(ledger_url, "--count", "4")
    first.expect("done")
    first.finish()
    assert _check(ledger_url)["results"] == 4

    hung = Writer(ledger_url, "--hang", "--tag", "hung")
    hung.expect("inside")  # the attempt row is flushed inside the open transaction; its result is not
    hung.kill()
    counts = _check(ledger_url)
    assert counts["results"] == 4 and counts["attempts"] == 4
    assert scalar(ledger_url, "SELECT count(*) FROM attempts WHERE driver = 'synthetic:hung'") == 0

    after = Writer(ledger_url, "--count", "3", deadline=60)  # the killed writer's lock is gone
    after.expect("done")
    after.finish()
    assert _check(ledger_url)["results"] == 7


def test_writers_killed_at_random_points_leave_whole_attempts(ledger_url: str) -> None:
    rng = random.Random(20261201)
    committed: set[str] = set()
    for round_ in range(5):
        writer = Writer(ledger_url, "--wait", "--tag", f"r{round_}")
        writer.expect("ready")
        writer.go()
        time.sleep(rng.uniform(0.05, 0.6))
        writer.kill()
        committed.update(writer.committed)
        _check(ledger_url)
        assert committed <= _result_hashes(ledger_url), "a result reported committed is missing"
    assert len(committed) > 0


def test_four_writers_append_two_hundred_results_each(ledger_url: str) -> None:
    Ledger(ledger_url).close()
    writers = [Writer(ledger_url, "--count", "200", "--wait", "--tag", f"w{i}") for i in range(4)]
    try:
        for writer in writers:
            writer.expect("ready")
        for writer in writers:
            writer.go()
        for writer in writers:
            writer.expect("done")
    finally:
        for writer in writers:
            writer.finish()
    assert [w.proc.returncode for w in writers] == [0, 0, 0, 0]
    reported = [h for w in writers for h in w.committed]
    assert len(reported) == 800 and len(set(reported)) == 800
    assert _result_hashes(ledger_url) == set(reported)
    counts = _check(ledger_url)
    assert (counts["results"], counts["attempts"]) == (800, 800)
    assert (counts["tasks"], counts["batteries"], counts["models"], counts["artifacts"]) == (5, 5, 1, 3)
    for i in range(4):
        assert scalar(ledger_url, "SELECT count(*) FROM attempts WHERE driver = :d", d=f"synthetic:w{i}") == 200


def test_verify_while_writers_append(ledger_url: str) -> None:
    """verify() sees one consistent state: rows committed while it runs are neither missing nor strangers."""
    Ledger(ledger_url).close()
    writers = [Writer(ledger_url, "--wait", "--tag", f"v{i}") for i in range(2)]
    ledger = Ledger(ledger_url)
    try:
        for writer in writers:
            writer.expect("ready")
        for writer in writers:
            writer.go()
        writers[0].expect("ok")
        messages = [ledger.verify() for _ in range(15)]
    finally:
        ledger.close()
        for writer in writers:
            writer.kill()
    assert [m for m in messages if not m[0]] == []
    assert _check(ledger_url)["results"] > 0
