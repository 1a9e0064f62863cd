"""Editions: a named, pinned run of the benchmark.  An edition pins the engine version, the dataset (its suite's
version and dataset_hash), optionally the sandbox profile, and the root seed of its statistics; attempts recorded
under it must match every pin."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from ._models import DatasetTaskRow, Edition, SuiteRow
from ._records import TaskFacts, append_task_facts
from ._store import Ledger, LedgerError, now

MAX_ROOT_SEED = 2**31 - 1   # editions.root_seed is a 32-bit INTEGER on every backend


@dataclass(frozen=True)
class SuiteFacts:
    name: str
    version: str
    visibility: str
    dataset_hash: str


def _edition(session: Any, edition_id: int) -> Edition:
    edition = session.get(Edition, edition_id)
    if edition is None:
        raise LedgerError(f"no edition {edition_id} in the ledger")
    return edition


def create_edition(ledger: Ledger, name: str, suite: SuiteFacts, engine_version: str, root_seed: int,
                   profile_hash: str | None = None, tasks: Sequence[TaskFacts] = ()) -> int:
    """Append an edition (and, when new, its suite's row, its dataset's tasks with their batteries and
    requirement manifests); returns its id.  Names are unique.  `tasks` is the whole dataset: the edition's
    boards are exactly these tasks."""
    if not name or len(name) > 128:
        raise LedgerError(f"edition name {name!r}: 1 to 128 characters")
    if not 0 <= root_seed <= MAX_ROOT_SEED:
        raise LedgerError(f"root seed {root_seed}: must be between 0 and {MAX_ROOT_SEED}")
    if profile_hash is not None and (len(profile_hash) != 64 or set(profile_hash) - set("0123456789abcdef")):
        raise LedgerError(f"profile hash {profile_hash!r}: 64 lowercase hex digits")
    with ledger.appending() as session:
        if session.execute(select(Edition.id).where(Edition.name == name)).first() is not None:
            raise LedgerError(f"an edition named {name!r} exists already (editions are never changed: pick a new "
                              f"name)")
        row = session.execute(select(SuiteRow).where(SuiteRow.dataset_hash == suite.dataset_hash)).scalar()
        if row is None:
            ledger.append(session, SuiteRow(name=suite.name, version=suite.version, visibility=suite.visibility,
                                            dataset_hash=suite.dataset_hash, created_at=now()))
        known = set(session.execute(select(DatasetTaskRow.task_hash).where(
            DatasetTaskRow.dataset_hash == suite.dataset_hash)).scalars())
        for facts in sorted(tasks, key=lambda t: t.task_hash):
            if facts.task_hash in known:
                continue
            append_task_facts(ledger, session, facts)
            ledger.append(session, DatasetTaskRow(dataset_hash=suite.dataset_hash, task_hash=facts.task_hash,
                                                  battery_hash=facts.battery_hash, task_id=facts.task_id,
                                                  created_at=now()))
        edition = Edition(name=name, engine_version=engine_version, dataset_version=suite.version,
                          dataset_hash=suite.dataset_hash, profile_hash=profile_hash, root_seed=root_seed,
                          created_at=now())
        ledger.append(session, edition)
        return int(edition.id)


def list_editions(ledger: Ledger) -> list[dict[str, Any]]:
    """Every edition, oldest first, as plain dicts."""
    with ledger.session() as session:
        rows = session.execute(select(Edition).order_by(Edition.id)).scalars().all()
        return [{"id": e.id, "name": e.name, "engine_version": e.engine_version,
                 "dataset_version": e.dataset_version, "dataset_hash": e.dataset_hash,
                 "profile_hash": e.profile_hash, "root_seed": e.root_seed} for e in rows]


def check_edition_pins(ledger: Ledger, edition_id: int, *, engine_version: str, dataset_hash: str) -> None:
    """Refuse (LedgerError naming both values) to record under an edition whose engine or dataset differs."""
    with ledger.session() as session:
        edition = _edition(session, edition_id)
        if edition.engine_version != engine_version:
            raise LedgerError(f"edition {edition.name!r} (id {edition_id}) pins engine {edition.engine_version}; "
                              f"this grader's engine is {engine_version}: refused")
        if edition.dataset_hash != dataset_hash:
            raise LedgerError(f"edition {edition.name!r} (id {edition_id}) pins dataset {edition.dataset_hash}; "
                              f"the suite being run is {dataset_hash}: refused")
