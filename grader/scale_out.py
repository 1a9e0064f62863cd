"""Scale-out: a planned edition's attempts run on `grader worker` processes on any number of machines, through
Celery with a Redis broker, while the ledger (PostgreSQL) stays the one truth and keeps its exactly-once promise.

    grader edition run NAME --queue URL ─ sync the work queue ─ a token per open planned attempt ──► Redis
        │                                                                                          │
        └─ watch the ledger (progress) and the workers' events ◄─ grader worker: a token ─ lease ─ attempt ─ record

A token says "attempt one planned attempt of edition E"; it is not bound to one: the worker that takes it leases
whichever planned attempt the ledger's work queue offers (grader.edition_run.Leaser: the same leases, model
concurrency, take-overs, lifecycle and recording as a local run), and the token is acknowledged only when that
attempt is recorded and its lease closed (late acks).  A killed worker's token goes back to the queue: at once
when a worker process dies under a live `grader worker` (reject on worker lost), after the visibility timeout
when the whole worker or its machine is gone; whoever takes it takes over the abandoned lease.  A token finding
nothing to lease waits while planned attempts are still open (leased to others, or held back by their model's
concurrency) and is dropped when none is.  So tokens may be lost or doubled without harm: a doubled one finds
nothing and is dropped, a planned attempt recorded by a worker killed before it acknowledged is never counted
twice (the ledger's plan claim), and re-running `grader edition run --queue` enqueues what is still missing.

This module is the enqueuer's side; the Celery app, its task and `grader worker` are grader/celery_app.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ledger import Ledger, get_edition, plan_states, queue_states, sync_queue

from .drivers import resolve_driver
from .edition_run import EditionRun, Listener, RunOptions, prepare, progress_of, queue_name
from .editions import EditionWork, check_work_pins, edition_work

QUEUE = "grader"                     # the Celery queue's name (one fleet per Redis database)
TASK = "grader.edition_attempt"
EVENTS_TTL = 7 * 24 * 3600           # the workers' events for the watchers, kept a week after the last
WATCH_POLL = 0.5


class QueueError(ValueError):
    """Bad input for scale-out: a URL that is not a Redis broker's, or a ledger the workers cannot share (exit 2)."""


class QueueUnavailableError(RuntimeError):
    """The broker cannot be reached: an infrastructure failure (exit 3)."""


def shown_queue(url: str) -> str:
    """The broker URL with any password hidden, as commands print it."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


def check_queue_url(url: str) -> str:
    """`--queue` is a Redis broker: redis://[:PASSWORD@]HOST[:PORT][/DB] (rediss:// with TLS)."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss") or not parts.hostname:
        raise QueueError(f"--queue {shown_queue(url)}: not a Redis URL (expected redis://HOST:PORT/DB)")
    try:
        parts.port   # noqa: B018  (a port that is not a number raises here)
    except ValueError:
        raise QueueError(f"--queue {shown_queue(url)}: the port is not a number") from None
    db = parts.path.lstrip("/")
    if db and not db.isdigit():
        raise QueueError(f"--queue {shown_queue(url)}: the database is a number (redis://HOST:PORT/0)")
    return url


def check_shared_ledger(url: str, who: str) -> None:
    """Scale-out needs a ledger every machine reaches: PostgreSQL, never a SQLite file."""
    if url.partition(":")[0].partition("+")[0].strip().lower() == "sqlite":   # dialect[+driver]://...
        raise QueueError(f"{who} needs a PostgreSQL ledger (--database postgresql+psycopg://USER@HOST/DB): "
                         f"a SQLite ledger works only on one machine")


def redis_client(url: str, timeout: float | None = 5.0) -> Any:
    import redis

    return redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)


def ping_queue(url: str) -> None:
    """Refuse a broker that does not answer, in one line (before any work)."""
    import redis

    try:
        redis_client(url, timeout=3.0).ping()
    except (redis.RedisError, OSError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise QueueUnavailableError(f"the queue {shown_queue(url)} cannot be reached ({first})") from None


def events_key(edition_id: int) -> str:
    """The Redis list where workers put their events (attempts, infrastructure failures, refusals) for watchers."""
    return f"grader:events:edition:{edition_id}"


def token_of(ledger: Ledger, work: EditionWork, options: RunOptions) -> dict[str, Any]:
    """A token: the edition (id, name and creation time: a worker on another ledger refuses it) and the run's
    options (names only: a --pass-env value comes from each worker's environment)."""
    view = get_edition(ledger, work.edition_id)
    chosen = asdict(options)
    return {"edition_id": work.edition_id, "edition": work.name,
            "created_at": view.created_at.isoformat(timespec="microseconds"),
            "options": {k: chosen[k] for k in ("sandbox", "gateway", "pass_env", "infra_retries", "lease_seconds",
                                               "grade_in_container")}}


def _checked_work(ledger: Ledger, ref: str | int, options: RunOptions) -> EditionWork:
    """What this machine can check before enqueueing: every pin and, with --sandbox none, every model's driver.
    With docker the workers, which run the agents, fix and check the sandbox profile (this machine need not
    have Docker): here each driver's name is checked and the other pins."""
    if options.sandbox == "none":
        return prepare(ledger, ref, options)
    work = edition_work(ledger, ref)
    for entry in work.models.values():
        resolve_driver(entry.driver)
    check_work_pins(ledger, work, [get_edition(ledger, work.edition_id).profile_hash])
    return work


def run_on_queue(url: str, ref: str | int, options: RunOptions, queue_url: str,
                 listener: Listener | None = None) -> EditionRun:
    """Enqueue a token per planned attempt the edition still misses, then watch the ledger until none is open
    (every one recorded, or failed past its infrastructure retries); see the module's docstring."""
    from .celery_app import any_worker_answers, enqueue

    check_queue_url(queue_url)
    check_shared_ledger(url, "--queue")
    ledger = Ledger(url, create=False)
    try:
        work = _checked_work(ledger, ref, options)
        ping_queue(queue_url)
        states = plan_states(ledger, work.edition_id)
        run = EditionRun(work.edition_id, work.name, len(states), progress_of(states), progress_of(states),
                         queue=shown_queue(queue_url))
        queue = queue_name(work.edition_id)
        sync_queue(ledger, queue, [(s.item.id, s.item.model) for s in states],
                   {s.item.id for s in states if s.outcome is not None})
        counts = queue_states(ledger, queue)
        events = redis_client(queue_url)
        key = events_key(work.edition_id)
        seen = int(events.llen(key))
        run.enqueued = counts.get("pending", 0) + counts.get("leased", 0)
        enqueue(queue_url, token_of(ledger, work, options), run.enqueued)
        start = time.monotonic()
        if run.enqueued and not any_worker_answers(queue_url):
            _note(run, listener, {"message": f"no worker answers on {run.queue} yet: the attempts wait in the queue "
                                             f"for `grader worker --queue URL` (docs/editions.md#scale-out)"})
        if listener:
            listener(run, None)
        try:
            while True:
                # the events first: a worker publishes an attempt's event before it closes the lease, so the
                # ledger read next counts every attempt these events tell of
                fresh, seen = _fetch(events, key, seen)
                counts = queue_states(ledger, queue)
                run.live = progress_of(plan_states(ledger, work.edition_id))
                for event in fresh:
                    _note(run, listener, event)
                if not counts.get("pending") and not counts.get("leased"):
                    break
                if listener:
                    listener(run, None)
                time.sleep(WATCH_POLL)
            for event in _fetch(events, key, seen)[0]:
                _note(run, listener, event)
        except KeyboardInterrupt:
            run.interrupted = True
            _note(run, listener, {"message": "interrupted: the workers go on with what is queued; `grader edition "
                                             "show` follows the edition"})
        run.seconds = time.monotonic() - start
        run.after = progress_of(plan_states(ledger, work.edition_id))
        return run
    finally:
        ledger.close()


def _note(run: EditionRun, listener: Listener | None, event: dict[str, Any]) -> None:
    run.events.append(event)
    if listener:
        listener(run, event)


def _fetch(events: Any, key: str, seen: int) -> tuple[list[dict[str, Any]], int]:
    """The workers' events after the first `seen` (best effort: the ledger has the final word)."""
    import redis

    try:
        fresh = events.lrange(key, seen, -1)
    except redis.RedisError:
        return [], seen
    return [json.loads(raw) for raw in fresh], seen + len(fresh)


def publish_event(client: Any, edition_id: int, event: dict[str, Any], log: Callable[[str], None]) -> None:
    """A worker's event for the watchers (best effort: a broker hiccup loses a progress line, never a fact)."""
    import redis

    key = events_key(edition_id)
    try:
        client.pipeline().rpush(key, json.dumps(event, sort_keys=True)).expire(key, EVENTS_TTL).execute()
    except redis.RedisError as exc:
        log(f"event not published: {exc}")
