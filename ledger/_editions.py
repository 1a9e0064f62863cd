"""Editions: a named, pinned run of the benchmark.  An edition pins what produced its results — the engine's
build, the grader's build and the installation's settings (each a content digest), the dataset (its suite's
version and dataset_hash, task by task), optionally the sandbox profile — and the root seed of its statistics;
attempts recorded under it must match every pin."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

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


@dataclass(frozen=True)
class Pins:
    """What produced a result, as an edition pins it.  `profile_hash` None: any sandbox profile (when pinning) or
    no sandbox (when checking an attempt)."""

    engine_build: str
    grader_build: str
    settings_hash: str
    dataset_hash: str
    profile_hash: str | None = None


def _hex64(value: str | None, what: str) -> None:
    if value is not None and (len(value) != 64 or set(value) - set("0123456789abcdef")):
        raise LedgerError(f"{what} {value!r}: 64 lowercase hex digits")


def _edition(session: Session, edition_id: int) -> Edition:
    edition = session.get(Edition, edition_id)
    if edition is None:
        raise LedgerError(f"no edition {edition_id} in the ledger")
    return edition


def check_edition_request(name: str, suite: SuiteFacts, pins: Pins, root_seed: int) -> None:
    """Refuse a bad edition name, seed or pin before any write."""
    if not name or len(name) > 128:
        raise LedgerError(f"edition name {name!r}: 1 to 128 characters")
    if not 0 <= root_seed <= MAX_ROOT_SEED:
        raise LedgerError(f"root seed {root_seed}: must be between 0 and {MAX_ROOT_SEED}")
    _hex64(pins.profile_hash, "profile hash")
    if pins.dataset_hash != suite.dataset_hash:
        raise LedgerError(f"the pins' dataset {pins.dataset_hash} is not the suite's {suite.dataset_hash}")


def append_suite(ledger: Ledger, session: Session, suite: SuiteFacts) -> None:
    """The suite's row, when new (in the caller's transaction)."""
    row = session.execute(select(SuiteRow).where(SuiteRow.dataset_hash == suite.dataset_hash)).scalar()
    if row is None:
        ledger.append(session, SuiteRow(name=suite.name, version=suite.version, visibility=suite.visibility,
                                        dataset_hash=suite.dataset_hash, created_at=now()))


def append_edition(ledger: Ledger, session: Session, name: str, suite: SuiteFacts, pins: Pins, root_seed: int,
                   tasks: Sequence[TaskFacts] = ()) -> Edition:
    """Append an edition in the caller's transaction (see create_edition)."""
    check_edition_request(name, suite, pins, root_seed)
    if session.execute(select(Edition.id).where(Edition.name == name)).first() is not None:
        raise LedgerError(f"an edition named {name!r} exists already (editions are never changed: pick a new "
                          f"name)")
    append_suite(ledger, session, suite)
    known = set(session.execute(select(DatasetTaskRow.task_hash).where(
        DatasetTaskRow.dataset_hash == suite.dataset_hash)).scalars())
    for facts in sorted(tasks, key=lambda t: t.task_hash):
        if facts.task_hash in known:
            continue
        append_task_facts(ledger, session, facts)
        ledger.append(session, DatasetTaskRow(dataset_hash=suite.dataset_hash, task_hash=facts.task_hash,
                                              battery_hash=facts.battery_hash, task_id=facts.task_id,
                                              created_at=now()))
    edition = Edition(name=name, engine_version=pins.engine_build, dataset_version=suite.version,
                      dataset_hash=suite.dataset_hash, profile_hash=pins.profile_hash, root_seed=root_seed,
                      created_at=now(), grader_build=pins.grader_build, settings_hash=pins.settings_hash)
    ledger.append(session, edition)
    return edition


def create_edition(ledger: Ledger, name: str, suite: SuiteFacts, pins: Pins, root_seed: int,
                   tasks: Sequence[TaskFacts] = ()) -> int:
    """Append an edition (and, when new, its suite's row and its dataset's tasks with their batteries and
    requirement manifests); returns its id.  Names are unique.  `tasks` is the whole dataset: the edition's
    boards are exactly these tasks."""
    check_edition_request(name, suite, pins, root_seed)
    with ledger.appending() as session:
        return int(append_edition(ledger, session, name, suite, pins, root_seed, tasks).id)


def list_editions(ledger: Ledger) -> list[dict[str, Any]]:
    """Every edition, oldest first, as plain dicts."""
    with ledger.session() as session:
        rows = session.execute(select(Edition).order_by(Edition.id)).scalars().all()
        return [{"id": e.id, "name": e.name, "engine_build": e.engine_version, "grader_build": e.grader_build,
                 "settings_hash": e.settings_hash, "dataset_version": e.dataset_version,
                 "dataset_hash": e.dataset_hash, "profile_hash": e.profile_hash, "root_seed": e.root_seed,
                 "created_at": e.created_at.isoformat()} for e in rows]


def find_edition(ledger: Ledger, ref: str | int) -> int:
    """An edition's id from its id or its name."""
    with ledger.session() as session:
        if isinstance(ref, int) or str(ref).isdigit():
            return _edition(session, int(ref)).id
        row = session.execute(select(Edition).where(Edition.name == str(ref))).scalar_one_or_none()
        if row is None:
            raise LedgerError(f"no edition named {ref!r} in the ledger")
        return int(row.id)


def latest_edition(ledger: Ledger) -> int | None:
    with ledger.session() as session:
        return session.execute(select(Edition.id).order_by(Edition.id.desc()).limit(1)).scalar_one_or_none()


def check_profile(ledger: Ledger, edition_id: int, profile_hash: str | None) -> None:
    """Refuse a sandbox profile the edition does not pin (known before any other work)."""
    with ledger.session() as session:
        edition = _edition(session, edition_id)
        if edition.profile_hash is not None and edition.profile_hash != profile_hash:
            ran = (f"the attempt's profile is {profile_hash}" if profile_hash
                   else "the attempt has no sandbox profile (--sandbox none)")
            raise LedgerError(f"edition {edition.name!r} (id {edition_id}) pins sandbox profile "
                              f"{edition.profile_hash}; {ran}: refused")


def check_edition_pins(ledger: Ledger, edition_id: int, pins: Pins) -> None:
    """Refuse (LedgerError naming the pin and both values) to record under an edition whose pins differ.  The
    profile is checked first: it is known before any other work."""
    check_profile(ledger, edition_id, pins.profile_hash)
    with ledger.session() as session:
        edition = _edition(session, edition_id)
        label = f"edition {edition.name!r} (id {edition_id})"
        for what, pinned, here in (("engine build", edition.engine_version, pins.engine_build),
                                   ("grader build", edition.grader_build, pins.grader_build),
                                   ("settings", edition.settings_hash, pins.settings_hash),
                                   ("dataset", edition.dataset_hash, pins.dataset_hash)):
            if pinned is not None and pinned != here:
                raise LedgerError(f"{label} pins {what} {pinned}; this grader's is {here}: refused")
