"""The work queue: who is doing which planned attempt right now.  Mutable operational state (`work_queue`),
outside the audit chain: losing it loses no fact, since the plan and its claims say what is missing.

A row is `pending`, `leased` (to `lease_owner` until `lease_until`, which its worker renews while it works),
`done` (its planned attempt has its counted attempt) or `failed` (the infrastructure failed it past its retries).
A lease that expired, or whose owner `is_stale` says is gone, is taken over.  Leasing is one short write
transaction (BEGIN IMMEDIATE on SQLite, an exclusive lock on the table on PostgreSQL), so two workers never
take the same row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from ._models import PlanClaimRow, WorkItem
from ._store import Ledger, now, translated, writing

PENDING, LEASED, DONE, FAILED = "pending", "leased", "done", "failed"


@dataclass(frozen=True)
class Lease:
    item_id: int           # the work_queue row
    plan_item_id: int
    model: str
    taken_over: str | None = None   # the owner whose lease expired (or who is gone), when there was one


def _transaction(ledger: Ledger) -> Session:
    return Session(ledger.engine, expire_on_commit=False)


def _lock(session: Session) -> None:
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("LOCK TABLE work_queue IN EXCLUSIVE MODE"))


def sync_queue(ledger: Ledger, queue: str, items: Sequence[tuple[int, str]], claimed: set[int]) -> None:
    """Make the queue hold every planned attempt (plan item id, model): a row for each new one, `done` for each
    claimed, and `failed` rows back to `pending` (a new run tries them again).  Leases are left alone."""
    with writing(), translated(ledger.url), _transaction(ledger) as session, session.begin():
        _lock(session)
        rows = {r.plan_item_id: r for r in session.execute(select(WorkItem).where(WorkItem.queue == queue))
                .scalars()}
        for plan_item_id, model in items:
            row = rows.get(plan_item_id)
            state = DONE if plan_item_id in claimed else PENDING
            if row is None:
                session.add(WorkItem(queue=queue, plan_item_id=plan_item_id, model=model, state=state,
                                     payload={"plan_item": plan_item_id}))
            elif row.state != DONE and (state == DONE or row.state == FAILED):
                row.state, row.lease_owner, row.lease_until = state, None, None


def lease_next(ledger: Ledger, queue: str, owner: str, seconds: float, limits: Mapping[str, int],
               is_stale: Callable[[str], bool]) -> tuple[Lease | None, int]:
    """Lease the first pending (or abandoned) row whose model is under its concurrency limit (`limits`, by model;
    none: no limit).  Returns (the lease or None, how many rows are still pending or leased), so a worker with
    nothing to lease knows whether to wait for others or stop."""
    with writing(), translated(ledger.url), _transaction(ledger) as session, session.begin():
        _lock(session)
        moment = now()
        open_rows = session.execute(select(WorkItem).where(WorkItem.queue == queue,
                                                           WorkItem.state.in_((PENDING, LEASED)))
                                    .order_by(WorkItem.id)).scalars().all()
        claimed = set(session.execute(select(PlanClaimRow.plan_item_id).where(
            PlanClaimRow.plan_item_id.in_([r.plan_item_id for r in open_rows]))).scalars()) if open_rows else set()

        def abandoned(row: WorkItem) -> bool:
            return row.state == LEASED and (row.lease_until is None or row.lease_until < moment
                                            or is_stale(row.lease_owner or ""))

        busy: dict[str, int] = {}
        for row in open_rows:
            if row.plan_item_id in claimed:
                # its attempt was recorded by a worker that stopped before it said so
                row.state, row.lease_owner, row.lease_until = DONE, None, None
            elif row.state == LEASED and not abandoned(row):
                busy[row.model or ""] = busy.get(row.model or "", 0) + 1
        remaining = [r for r in open_rows if r.state != DONE]
        for row in remaining:
            if row.state == LEASED and not abandoned(row):
                continue
            limit = limits.get(row.model or "")
            if limit is not None and busy.get(row.model or "", 0) >= limit:
                continue
            previous = row.lease_owner if row.state == LEASED else None
            row.state, row.lease_owner = LEASED, owner
            row.lease_until = moment + timedelta(seconds=seconds)
            assert row.plan_item_id is not None
            return Lease(row.id, row.plan_item_id, row.model or "", previous), len(remaining)
        return None, len(remaining)


def renew(ledger: Ledger, item_id: int, owner: str, seconds: float) -> bool:
    """Extend a lease this owner still holds; False when it lost it (another worker took it over)."""
    with writing(), translated(ledger.url), _transaction(ledger) as session, session.begin():
        done = session.execute(update(WorkItem).where(WorkItem.id == item_id, WorkItem.lease_owner == owner,
                                                      WorkItem.state == LEASED)
                               .values(lease_until=now() + timedelta(seconds=seconds)))
        return bool(done.rowcount)   # type: ignore[attr-defined]


def finish(ledger: Ledger, item_id: int, owner: str, state: str) -> None:
    """Close a lease this owner holds: `done` or `failed`."""
    assert state in (DONE, FAILED)
    with writing(), translated(ledger.url), _transaction(ledger) as session, session.begin():
        session.execute(update(WorkItem).where(WorkItem.id == item_id, WorkItem.lease_owner == owner)
                        .values(state=state, lease_owner=None, lease_until=None))


def queue_states(ledger: Ledger, queue: str) -> dict[str, int]:
    """How many rows of the queue are in each state."""
    with ledger.session() as session:
        out: dict[str, int] = {}
        for state in session.execute(select(WorkItem.state).where(WorkItem.queue == queue)).scalars():
            out[state] = out.get(state, 0) + 1
        return out
