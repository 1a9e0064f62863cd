"""Batched appends (record_attempts, grader.recording.Recorder): one transaction per batch, the audit chain
carried through it, all or nothing, and the same rows and hashes as one record at a time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import text

from evidence import AttemptOutcome
from ledger import (
    AttemptRecord,
    Ledger,
    LedgerError,
    Pins,
    SuiteFacts,
    create_edition,
    record_attempts,
    recorded_verdict,
    result,
)
from tests import synthetic
from tests.ledger import synth
from tests.ledger.helpers import check_consistent, raw, scalar


@pytest.fixture
def ledger(ledger_url: str) -> Iterator[Ledger]:
    ledger = Ledger(ledger_url)
    try:
        yield ledger
    finally:
        ledger.close()


def _graded(n: int, **kwargs: object) -> AttemptRecord:
    facts = synth.task(n % 3)
    stored = synth.deliverable(n % 2) if n % 4 else None
    return AttemptRecord(facts, "synthetic", AttemptOutcome.COMPLETED, {"agent": 1.0 + n},
                         synth.verdict(facts, n, artifact=stored), stored, repetition=n, model=synth.MODEL,
                         **kwargs)  # type: ignore[arg-type]


def test_a_batch_is_one_chain_of_rows_with_the_hashes_it_promised(ledger: Ledger) -> None:
    infra = AttemptRecord(synth.task(0), "synthetic", AttemptOutcome.INFRA_ERROR, {"agent": 3.0}, repetition=9)
    batch = [_graded(n) for n in range(12)] + [infra]
    promised = [r.result_hash for r in batch]
    assert record_attempts(ledger, batch) == promised
    assert promised[-1] is None and all(promised[:-1])
    counts = check_consistent_but_infra(ledger)
    # three tasks and batteries, one model, two artifacts, thirteen attempts, twelve results: one chain link each
    assert counts == {"tasks": 3, "batteries": 3, "models": 1, "artifacts": 2, "attempts": 13, "results": 12}
    for record in batch[:-1]:
        view = result(ledger, record.result_hash or "")
        assert view.result is not None and recorded_verdict(ledger, view.result.result_hash) == record.verdict
        assert view.artifact_hash == (record.artifact.hash if record.artifact else None)
    # a second batch continues the chain where the first ended
    record_attempts(ledger, [_graded(n) for n in range(12, 15)])
    assert ledger.verify()[0]
    assert scalar(ledger.url, "SELECT count(*) FROM results") == 15


def check_consistent_but_infra(ledger: Ledger) -> dict[str, int]:
    """Row counts of the fact tables an attempt touches, after checking the audit chain covers every row."""
    ok, message = ledger.verify()
    assert ok, message
    tables = ("tasks", "batteries", "models", "artifacts", "attempts", "results")
    counts = {t: scalar(ledger.url, f"SELECT count(*) FROM {t}") for t in tables}
    assert scalar(ledger.url, "SELECT count(*) FROM audit") == sum(counts.values())
    return counts


def test_a_batch_is_all_or_nothing(ledger: Ledger) -> None:
    pins = Pins(synthetic.ENGINE.build or "", synthetic.GRADER.build, "0" * 64, synth.sha("dataset"))
    edition_id = create_edition(ledger, "pinned", SuiteFacts("public", "1", "public", synth.sha("dataset")), pins,
                                1, tasks=[synth.task(n) for n in range(2)])
    before = scalar(ledger.url, "SELECT count(*) FROM audit")
    # the last record's task is not in the edition's dataset: the edition refuses it, and with it the batch
    batch = [_graded(n, edition_id=edition_id) for n in (1, 3, 2)]
    with pytest.raises(LedgerError, match="not in its dataset"):
        record_attempts(ledger, batch)
    assert scalar(ledger.url, "SELECT count(*) FROM audit") == before
    assert scalar(ledger.url, "SELECT count(*) FROM attempts") == 0
    # a record that contradicts itself is refused before anything is written
    facts = synth.task(0)
    bad = AttemptRecord(facts, "synthetic", AttemptOutcome.INFRA_TIMEOUT, {}, synth.verdict(facts, 1))
    with pytest.raises(LedgerError, match="infrastructure failed has no result"):
        record_attempts(ledger, [_graded(1), bad])
    same = _graded(4)
    with pytest.raises(LedgerError, match="same attempt twice"):
        record_attempts(ledger, [same, same])
    assert scalar(ledger.url, "SELECT count(*) FROM attempts") == 0
    record_attempts(ledger, [_graded(n, edition_id=edition_id) for n in (1, 3, 4)])
    check_consistent(ledger)


def test_batched_and_single_appends_write_the_same_rows(ledger_url: str, tmp_path_factory: pytest.TempPathFactory
                                                        ) -> None:
    """Grouping changes only the chain's order (a batch writes its facts, then its attempts, then its results):
    the same records, one per transaction or in one, give the same audited rows, and both chains verify."""
    batch = [_graded(n) for n in range(8)]
    other_url = f"sqlite:///{tmp_path_factory.mktemp('single') / 'single.db'}"
    grouped, single = Ledger(ledger_url), Ledger(other_url)
    try:
        record_attempts(grouped, batch)
        for record in batch:
            record_attempts(single, [record])
        query = "SELECT table_name, row_key FROM audit ORDER BY seq"
        with raw(ledger_url) as a, raw(other_url) as b:
            rows_a = a.execute(text(query)).all()
            rows_b = b.execute(text(query)).all()
        assert sorted(tuple(r) for r in rows_a) == sorted(tuple(r) for r in rows_b)
        assert len(rows_a) == len(set(rows_a)) == 8 + 8 + 3 + 3 + 1 + 2
        phase = {"tasks": 0, "batteries": 0, "models": 1, "artifacts": 2, "attempts": 3, "results": 4}
        phases = [phase[r[0]] for r in rows_a]
        assert phases == sorted(phases)
        assert grouped.verify()[0] and single.verify()[0]
    finally:
        grouped.close()
        single.close()


def test_a_refused_record_costs_the_recorder_only_itself(ledger: Ledger) -> None:
    """The Recorder writes a batch the ledger refuses again one record at a time: the batch's other attempts are
    recorded, and the refusal is raised once they are."""
    from grader.recording import Recorder

    pins = Pins(synthetic.ENGINE.build or "", synthetic.GRADER.build, "0" * 64, synth.sha("dataset"))
    edition_id = create_edition(ledger, "pinned-r", SuiteFacts("public", "1", "public", synth.sha("dataset")), pins,
                                1, tasks=[synth.task(n) for n in range(2)])
    records = [_graded(n, edition_id=edition_id) for n in (1, 3, 2, 4)]  # task 2 is outside the edition's dataset
    recorder = Recorder(ledger, max_batch=100, max_delay=3600)
    for record in records:
        recorder.add(record)
    with pytest.raises(LedgerError, match="not in its dataset"):
        recorder.flush()
    assert recorder.written == 3 and not recorder.pending
    with raw(ledger.url) as conn:
        stored = {row[0] for row in conn.execute(text("SELECT id FROM attempts")).all()}
    assert stored == {records[i].attempt_id for i in (0, 1, 3)}
    check_consistent(ledger)
