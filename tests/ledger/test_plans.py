"""Edition plans (schema 5): the ledger itself counts each planned attempt once, refuses attempts outside the plan
and under a published edition; the work queue's leases are exclusive, expire, and are taken over."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import exc, text

from evidence import AttemptOutcome
from ledger import (
    AlreadyRecordedError,
    AttemptRecord,
    EditionFrozenError,
    Ledger,
    LedgerError,
    Pins,
    PlannedModel,
    SuiteFacts,
    create_planned_edition,
    finish,
    lease_next,
    model_label,
    plan_states,
    publish_edition,
    queue_states,
    record_attempt,
    record_attempts,
    record_infra_attempt,
    renew,
    sync_queue,
)
from tests import synthetic
from tests.ledger import synth
from tests.ledger.helpers import raw

LABEL = model_label(synth.MODEL, "synthetic")


def _plan(ledger: Ledger, name: str = "planned", reps: int = 2, models: tuple[str, ...] = (LABEL,)) -> int:
    pins = Pins(synthetic.ENGINE.build or "", synthetic.GRADER.build, "0" * 64, synth.sha("dataset"))
    return create_planned_edition(
        ledger, name, SuiteFacts("public", "1", "public", synth.sha("dataset")), pins, 7,
        [synth.task(n) for n in range(3)], suites=[], sources=[{"name": "public", "source": "synthetic"}],
        models=[PlannedModel(m, "synthetic", {}) for m in models], repetitions=reps)


def _counted(ledger: Ledger, edition_id: int, n: int, rep: int = 0) -> str:
    facts = synth.task(n)
    return record_attempt(ledger, facts, synth.verdict(facts, n), {"agent": 1.0}, None, driver="synthetic",
                          model=synth.MODEL, edition_id=edition_id, repetition=rep)


@pytest.fixture
def ledger(ledger_url: str) -> Ledger:
    return Ledger(ledger_url)


def test_each_planned_attempt_is_counted_once_by_the_ledger(ledger: Ledger) -> None:
    edition_id = _plan(ledger)
    states = plan_states(ledger, edition_id)
    assert [(s.item.task_id, s.item.repetition) for s in states] == [
        (f"synthetic/task-{n}", rep) for rep in range(2) for n in range(3)]
    _counted(ledger, edition_id, 0)
    with pytest.raises(AlreadyRecordedError, match="recorded already"):
        _counted(ledger, edition_id, 0)
    # infrastructure failures are recorded as often as they happen, never counted
    for _ in range(2):
        record_infra_attempt(ledger, synth.task(1), AttemptOutcome.INFRA_ERROR, {}, "synthetic", model=synth.MODEL,
                             edition_id=edition_id)
    # a batch naming one planned attempt twice leaves nothing
    facts = synth.task(2)
    twice = [AttemptRecord(facts, "synthetic", AttemptOutcome.COMPLETED, {}, synth.verdict(facts, 2),
                           model=synth.MODEL, edition_id=edition_id) for _ in range(2)]
    with pytest.raises(AlreadyRecordedError, match="twice"):
        record_attempts(ledger, twice)
    with pytest.raises(LedgerError, match="plans no attempt of synthetic/task-0 by 'synthetic' as repetition 0"):
        record_attempt(ledger, synth.task(0), synth.verdict(synth.task(0), 0), {}, None, driver="synthetic",
                       edition_id=edition_id)
    with pytest.raises(LedgerError, match="as repetition 5"):
        _counted(ledger, edition_id, 0, rep=5)
    states = plan_states(ledger, edition_id)
    assert [s.outcome is not None for s in states] == [True, False, False, False, False, False]
    assert states[1].infra_failures == 2
    # the database holds the promise too: a second claim of the same planned attempt is refused by its key
    with pytest.raises(exc.IntegrityError), raw(ledger.url) as conn:
        conn.execute(text("INSERT INTO plan_claims (plan_item_id, attempt_id, created_at) "
                          "SELECT plan_item_id, (SELECT id FROM attempts WHERE outcome = 'infra_error' LIMIT 1), "
                          "created_at FROM plan_claims"))
    check_consistent_plan(ledger)


def check_consistent_plan(ledger: Ledger) -> None:
    """The chain verifies (check_consistent's "every task has an attempt" does not hold: a plan has tasks yet to
    attempt)."""
    ok, message = ledger.verify()
    assert ok, message


def test_a_published_edition_is_frozen(ledger: Ledger) -> None:
    edition_id = _plan(ledger, reps=1)
    for n in range(3):
        _counted(ledger, edition_id, n)
    first = publish_edition(ledger, edition_id, synth.sha("snapshot"))
    assert publish_edition(ledger, edition_id, synth.sha("another")) == first   # appended once
    with pytest.raises(EditionFrozenError, match=r"was published at .*: it is frozen"):
        record_infra_attempt(ledger, synth.task(0), AttemptOutcome.INFRA_ERROR, {}, "synthetic", model=synth.MODEL,
                             edition_id=edition_id)
    check_consistent_plan(ledger)


def test_leases_are_exclusive_expire_and_respect_concurrency(ledger: Ledger) -> None:
    edition_id = _plan(ledger, reps=1, models=(LABEL, "oracle"))
    states = plan_states(ledger, edition_id)
    queue = f"edition:{edition_id}"
    sync_queue(ledger, queue, [(s.item.id, s.item.model) for s in states], set())
    sync_queue(ledger, queue, [(s.item.id, s.item.model) for s in states], set())   # idempotent
    assert queue_states(ledger, queue) == {"pending": 6}
    never = lambda owner: False   # noqa: E731
    limits = {LABEL: 1}
    a, left = lease_next(ledger, queue, "host/1/a", 60, limits, never)
    b, _ = lease_next(ledger, queue, "host/2/b", 60, limits, never)
    assert a is not None and b is not None and left == 6
    assert (a.model, b.model) == (LABEL, "oracle")   # LABEL is at its limit of 1: b skips to the next model
    assert renew(ledger, a.item_id, "host/1/a", 60) and not renew(ledger, a.item_id, "host/9/x", 60)
    # a lease whose owner is gone is taken over at once; one that expired, when it expired
    c, _ = lease_next(ledger, queue, "host/3/c", 60, limits, lambda owner: owner == "host/1/a")
    assert c is not None and c.item_id == a.item_id and c.taken_over == "host/1/a"
    assert not renew(ledger, a.item_id, "host/1/a", 60)   # a learns it lost its lease
    d, _ = lease_next(ledger, queue, "host/4/d", 0.01, {}, never)
    time.sleep(0.05)
    e, _ = lease_next(ledger, queue, "host/5/e", 60, {}, never)
    assert d is not None and e is not None
    f, _ = lease_next(ledger, queue, "host/6/f", 60, {}, never)
    assert f is not None and d.item_id in {e.item_id, f.item_id}
    finish(ledger, b.item_id, "host/2/b", "failed")
    # a recorded planned attempt is done whatever its lease says; a failed one is tried again by the next run
    _counted(ledger, edition_id, 0)
    states = plan_states(ledger, edition_id)
    sync_queue(ledger, queue, [(s.item.id, s.item.model) for s in states],
               {s.item.id for s in states if s.outcome is not None})
    counts = queue_states(ledger, queue)
    assert counts["done"] == 1 and "failed" not in counts
