"""Synthetic facts for the ledger's tests and benchmark: tasks, verdicts and tiny deliverables, no engine."""

from __future__ import annotations

import hashlib
from typing import Any

from evidence import Verdict
from ledger import Artifact, ModelFacts, TaskFacts
from tests import synthetic

MODEL = ModelFacts(provider="test", name="synthetic", version="2026-01-01")


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def task(i: int) -> TaskFacts:
    return TaskFacts(task_id=f"synthetic/task-{i}", task_hash=sha(f"task {i}"), battery_hash=sha(f"battery {i}"),
                     category="synthetic", difficulty="easy", capabilities=("input", "scene"), api_version="1")


def verdict(facts: TaskFacts, n: int, passed: bool | None = None, artifact: Artifact | None = None) -> Verdict:
    ok = n % 3 != 0 if passed is None else passed
    return synthetic.verdict(facts.task_hash, facts.battery_hash, f"evidence {n}", ok,
                             requirements=[("moves", "completeness", (), ok)], task_id=facts.task_id,
                             deliverable_hash=artifact.hash if artifact else "")


def deliverable(variant: int = 0) -> Artifact:
    """A tiny stored deliverable; the same variant always has the same bytes (hence the same artifact)."""
    return synthetic.artifact(f"-- variant {variant}\nfunction Start() end\n".encode())


def populate(ledger: Any, schema: int = 4) -> list[str]:
    """An edition of a three-task dataset, results over its tasks (two sharing one deliverable, one without),
    corrections: a row in every fact table.  With `schema` 2 the edition is recorded as a grader before schema 3
    did (no dataset_tasks rows, no build or settings pins).  Returns the result hashes in order."""
    from ledger import Pins, SuiteFacts, correct_result, create_edition, record_attempt
    from ledger._models import Edition, SuiteRow
    from ledger._store import now

    pins = Pins(synthetic.ENGINE.build or "", synthetic.GRADER.build, "0" * 64, sha("dataset"))
    if schema >= 4:
        edition_id = create_edition(ledger, "synthetic-2026", SuiteFacts("public", "1", "public", sha("dataset")),
                                    pins, 20261201, tasks=[task(n) for n in range(3)])
    else:
        with ledger.appending() as session:
            edition = Edition(name="synthetic-2026", engine_version=pins.engine_build, dataset_version="1",
                              dataset_hash=sha("dataset"), profile_hash=None, root_seed=20261201, created_at=now())
            ledger.append(session, edition, SuiteRow(name="public", version="1", visibility="public",
                                                     dataset_hash=sha("dataset"), created_at=now()))
            edition_id = edition.id
    same = deliverable(0)
    hashes = []
    for n in range(6):
        facts = task(n % 3)
        stored = None if n == 5 else same if n % 2 == 0 else deliverable(n)
        hashes.append(record_attempt(ledger, facts, verdict(facts, n, artifact=stored), {"agent": 1.5, "grade": 0.125},
                                     stored, driver="synthetic", repetition=n,
                                     model=MODEL, edition_id=edition_id, tokens=(100 + n, 10 + n), cost_usd=0.01))
    correct_result(ledger, hashes[0], passed=False, reason="battery bug", author="tester")
    correct_result(ledger, hashes[0], passed=True, reason="battery fixed", author="tester")
    correct_result(ledger, hashes[3], passed=True, reason="regrade", author="tester")
    return hashes


def populate_plan(ledger: Any) -> int:
    """A planned edition of the same dataset (schema 5): two planned attempts, one recorded (its claim), and its
    publication: a row in each plan table.  Returns the edition's id."""
    from ledger import (
        Pins,
        PlannedModel,
        SuiteFacts,
        create_planned_edition,
        model_label,
        publish_edition,
        record_attempt,
    )

    pins = Pins(synthetic.ENGINE.build or "", synthetic.GRADER.build, "0" * 64, sha("dataset"))
    label = model_label(MODEL, "synthetic")
    edition_id = create_planned_edition(
        ledger, "synthetic-plan", SuiteFacts("public", "1", "public", sha("dataset")), pins, 7,
        [task(n) for n in range(3)], suites=[], sources=[{"name": "public", "source": "synthetic"}],
        models=[PlannedModel(label, "synthetic", {"concurrency": 1})], repetitions=1)
    facts = task(0)
    record_attempt(ledger, facts, verdict(facts, 1), {"agent": 1.0}, None, driver="synthetic", model=MODEL,
                   edition_id=edition_id)
    publish_edition(ledger, edition_id, sha("snapshot"))
    return edition_id
