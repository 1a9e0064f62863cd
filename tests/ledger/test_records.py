"""Recording attempts, corrections and their history, and deliverable artifacts."""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from evidence import AttemptOutcome
from ledger import (
    ArchiveError,
    Artifact,
    Ledger,
    LedgerError,
    correct_result,
    load_artifact,
    record_attempt,
    recorded_verdict,
    result,
)
from tests.ledger import synth
from tests.ledger.helpers import check_consistent, scalar


@pytest.fixture
def ledger(ledger_url: str) -> Iterator[Ledger]:
    ledger = Ledger(ledger_url)
    try:
        yield ledger
    finally:
        ledger.close()


def _record(ledger: Ledger, artifact: Artifact | None, n: int = 0, **kwargs: object) -> str:
    facts = synth.task(n % 2)
    return record_attempt(ledger, facts, synth.verdict(facts, n, artifact=artifact), {"agent": 2.0}, artifact,
                          driver="synthetic", repetition=n, **kwargs)  # type: ignore[arg-type]


def test_history_raw_then_corrections_in_order_latest_wins(ledger: Ledger, tmp_path: Path) -> None:
    stored = synth.deliverable()
    rhash = _record(ledger, stored, n=3, model=synth.MODEL)  # n % 3 == 0: a failing verdict
    view = result(ledger, rhash[:8])
    assert view.result is not None
    assert view.result.passed is False and view.result.effective_passed is False
    assert view.result.corrections == ()
    recorded = synth.verdict(synth.task(1), 3, artifact=stored)
    assert recorded_verdict(ledger, rhash) == recorded
    assert view.result.requirements == tuple(replace(r, checks=()) for r in recorded.levels.L2.requirements)
    assert (view.result.engine_version, view.result.engine_build) == (recorded.engine.version, recorded.engine.build)
    assert view.outcome is AttemptOutcome.COMPLETED and view.artifact_hash == stored.hash

    first = correct_result(ledger, rhash, passed=True, reason="  the battery was wrong ", author="alice")
    second = correct_result(ledger, rhash[:10], passed=False, reason="the fix was wrong", author="bob")
    third = correct_result(ledger, rhash, passed=True, reason="fixed for good", author="carol")
    assert first < second < third
    again = result(ledger, rhash).result
    assert again is not None and again.passed is False
    assert [(c.id, c.passed, c.reason, c.author) for c in again.corrections] == [
        (first, True, "the battery was wrong", "alice"), (second, False, "the fix was wrong", "bob"),
        (third, True, "fixed for good", "carol")]
    assert again.effective_passed is True
    assert recorded_verdict(ledger, rhash) == recorded  # the raw verdict is never rewritten
    check_consistent(ledger)


def test_corrections_need_a_reason_an_author_and_a_known_result(ledger: Ledger) -> None:
    rhash = _record(ledger, None)
    with pytest.raises(LedgerError, match="reason and an author"):
        correct_result(ledger, rhash, passed=False, reason=" ", author="alice")
    with pytest.raises(LedgerError, match="no result"):
        correct_result(ledger, "abcdef0123", passed=False, reason="r", author="a")
    with pytest.raises(LedgerError, match="at least 6 hex digits"):
        result(ledger, rhash[:5])
    assert scalar(ledger.url, "SELECT count(*) FROM corrections") == 0


def test_outcomes_without_a_deliverable(ledger: Ledger) -> None:
    rhash = _record(ledger, None, outcome=AttemptOutcome.AGENT_TIMEOUT, tokens=(5, None), cost_usd=None)
    view = result(ledger, rhash)
    assert view.outcome is AttemptOutcome.AGENT_TIMEOUT and view.artifact_hash is None
    assert scalar(ledger.url, "SELECT count(*) FROM artifacts") == 0
    check_consistent(ledger)


def test_a_mismatched_verdict_is_refused_and_leaves_nothing(ledger: Ledger) -> None:
    facts = synth.task(0)
    with pytest.raises(LedgerError, match="does not match"):
        record_attempt(ledger, facts, synth.verdict(synth.task(1), 0), {}, None, driver="synthetic")
    assert scalar(ledger.url, "SELECT count(*) FROM audit") == 0


def test_the_same_deliverable_is_stored_once(ledger: Ledger) -> None:
    a, b = synth.deliverable(1), synth.deliverable(2)
    hashes = [_record(ledger, stored, n) for n, stored in enumerate([a, a, b, a, b])]
    assert len(set(hashes)) == 5
    assert scalar(ledger.url, "SELECT count(*) FROM artifacts") == 2
    assert scalar(ledger.url, "SELECT count(*) FROM audit WHERE table_name = 'artifacts'") == 2
    assert scalar(ledger.url, "SELECT count(DISTINCT artifact_hash) FROM attempts") == 2
    assert load_artifact(ledger, a.hash) == a
    with pytest.raises(LedgerError, match="not in the ledger"):
        load_artifact(ledger, "0" * 64)
    check_consistent(ledger)


@pytest.mark.parametrize(("artifact", "message"), [
    (Artifact("0" * 64, 5, zlib.compress(b"hello")), "its bytes do not match its hash and size"),
    (Artifact(hashlib.sha256(b"hello").hexdigest(), 4, zlib.compress(b"hello")), "do not match its hash and size"),
    (Artifact(hashlib.sha256(b"hello").hexdigest(), 5, b"not zlib"), "not a zlib stream"),
])
def test_an_artifact_that_is_not_what_it_claims_is_refused_and_leaves_nothing(ledger: Ledger, artifact: Artifact,
                                                                               message: str) -> None:
    facts = synth.task(0)
    verdict = synth.verdict(facts, 1, artifact=artifact)
    with pytest.raises(ArchiveError, match=message):
        record_attempt(ledger, facts, verdict, {}, artifact, driver="synthetic")
    assert scalar(ledger.url, "SELECT count(*) FROM audit") == 0


def test_the_stored_deliverable_must_be_the_judged_one(ledger: Ledger) -> None:
    facts = synth.task(0)
    with pytest.raises(LedgerError, match="not the one the verdict judged"):
        record_attempt(ledger, facts, synth.verdict(facts, 1, artifact=synth.deliverable(1)), {},
                       synth.deliverable(2), driver="synthetic")
    assert scalar(ledger.url, "SELECT count(*) FROM audit") == 0
