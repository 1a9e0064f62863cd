"""The Celery side of scale-out (grader/scale_out.py says how the pieces fit): the app and its settings, the one
task (a token: lease one planned attempt of an edition, attempt it, record it), the enqueuer's helpers and
`grader worker`.

The settings, and why:
- `task_acks_late`: a token is acknowledged after its attempt is recorded and its lease closed, never when it is
  received, so a worker killed mid-attempt leaves it unacknowledged and the broker gives it to another.
- `task_reject_on_worker_lost`: a worker process that dies under a live `grader worker` (SIGKILL, out of memory)
  sends its token back to the queue at once, rather than acknowledging it as failed.
- `task_acks_on_failure_or_timeout` stays on and the task never fails: whatever goes wrong outside an attempt
  (the ledger unreachable, a worker that may not run the edition) retries the token 30 s later, a new message, so
  no token is lost to an error (for an hour: then it is dropped, and `grader edition run --queue` enqueues the
  work again).  An attempt's own failures are the lifecycle's (infra retries, never counted).
- the broker's `visibility_timeout` (`grader worker --visibility-timeout`): how long a token may stay
  unacknowledged before the broker gives it to another worker; a whole worker or machine lost is recovered
  after it.  It should outlast the longest attempt: a token redelivered while its attempt still runs finds the
  planned attempt leased (renewed by its live worker) and waits, holding a worker process a minute at a time
  (then it goes back to the queue), until the attempt is recorded.  The workers look for overdue tokens every
  tenth of it (at most every minute).
- `worker_prefetch_multiplier` 1 and `-O fair`: a worker process holds one token at a time and a worker takes a
  token only for an idle process: attempts last minutes, none should wait behind another.
- one process per core (prefork) by default; JSON only (no pickle); no result backend: the ledger is the result.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from celery import Celery, Task
from celery.exceptions import CPendingDeprecationWarning

from .scale_out import QUEUE, TASK, publish_event, redis_client

DEFAULT_VISIBILITY_TIMEOUT = 3600.0
RETRY_SECONDS = 30            # a token this worker could not take goes back to the queue after this long,
GIVE_UP_AFTER = 120           # this many times (an hour); then it is dropped: `grader edition run --queue` again
WAIT_POLL = 1.0               # a token with nothing to lease while planned attempts are open looks again after this
WAIT_AT_MOST = 60.0           # and after this long goes back to the queue (a worker asked to stop is not held up)
PUBLISH_VISIBILITY = 10 * 365 * 24 * 3600.0   # the enqueuer never restores a worker's tokens (only workers do)

app = Celery("grader", set_as_current=False)
app.conf.update(
    task_serializer="json", accept_content=["json"], result_serializer="json", task_ignore_result=True,
    task_acks_late=True, task_reject_on_worker_lost=True, task_acks_on_failure_or_timeout=True,
    worker_prefetch_multiplier=1, task_default_queue=QUEUE, broker_connection_retry_on_startup=True,
    # a lost broker connection leaves running attempts running: their tokens come back after the visibility
    # timeout, find them leased (or recorded) and wait (or are dropped)
    worker_cancel_long_running_tasks_on_connection_loss=False,
    worker_hijack_root_logger=False, worker_redirect_stdouts=False,
)
log = logging.getLogger("grader.worker")


def configure(broker_url: str, visibility_timeout: float) -> None:
    sweep = max(1, min(60, int(visibility_timeout / 10)))
    app.conf.update(broker_url=broker_url, broker_transport_options={
        "visibility_timeout": visibility_timeout, "unacked_restore_interval": sweep, "unacked_restore_throttle": 1})


# --- the enqueuer's side -------------------------------------------------------------------------------------------

def enqueue(broker_url: str, token: dict[str, Any], count: int) -> None:
    configure(broker_url, PUBLISH_VISIBILITY)
    with app.connection_for_write() as connection, app.producer_or_acquire() as producer:
        connection.ensure_connection(max_retries=1)
        for _ in range(count):
            app.send_task(TASK, args=[token], queue=QUEUE, producer=producer)


def any_worker_answers(broker_url: str, timeout: float = 1.0) -> bool:
    """Whether a worker answers a ping on this broker within `timeout` seconds (the first answer suffices)."""
    configure(broker_url, PUBLISH_VISIBILITY)
    return bool(app.control.ping(timeout=timeout, limit=1))


# --- the worker's side ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class WorkerConfig:
    broker_url: str
    database_url: str
    runs_dir: Path
    name: str


_CONFIG: WorkerConfig | None = None
_PROCESS: dict[str, Any] = {}    # this worker process's ledger, broker client and leasers (one per edition/options)


def _process_state() -> dict[str, Any]:
    """Per process (the pool's processes are forked from the worker: nothing is shared across a fork)."""
    if _PROCESS.get("pid") != os.getpid():
        from ledger import Ledger

        assert _CONFIG is not None, "grader worker configures the process before it starts the pool"
        _PROCESS.clear()
        _PROCESS.update(pid=os.getpid(), ledger=Ledger(_CONFIG.database_url, create=False),
                        events=redis_client(_CONFIG.broker_url), leasers={})
    return _PROCESS


def _check_edition(token: dict[str, Any]) -> None:
    """The token's edition must be this worker's ledger's edition of that id (same name, same creation time)."""
    from ledger import LedgerError, get_edition

    view = get_edition(_process_state()["ledger"], int(token["edition_id"]))
    if view.name != token["edition"] or view.created_at.isoformat(timespec="microseconds") != token["created_at"]:
        raise LedgerError(f"edition {token['edition_id']} of this worker's ledger is {view.name!r}, not the token's "
                          f"{token['edition']!r}: the worker and the enqueuer use different ledgers")


def _leaser(token: dict[str, Any]) -> Any:
    """The edition's Leaser for this process (every pin checked against this grader), once per process."""
    from .edition_run import Leaser, RunOptions, prepare

    state = _process_state()
    options = token["options"]
    in_container = bool(options.get("grade_in_container", False))   # absent from tokens of older graders
    key = (token["edition_id"], options["sandbox"], options["gateway"], tuple(options["pass_env"]),
           options["infra_retries"], options["lease_seconds"], in_container)
    if key not in state["leasers"]:
        run_options = RunOptions(sandbox=options["sandbox"], gateway=options["gateway"],
                                 pass_env=tuple(options["pass_env"]), infra_retries=options["infra_retries"],
                                 lease_seconds=float(options["lease_seconds"]), grade_in_container=in_container)
        ledger = state["ledger"]
        state["leasers"][key] = Leaser.open(ledger, prepare(ledger, int(token["edition_id"]), run_options),
                                            run_options)
    return state["leasers"][key]


def attempt_one(token: dict[str, Any]) -> dict[str, Any]:
    """A token's work: lease one open planned attempt of its edition, attempt and record it, close the lease;
    wait while the open ones are all leased to others or held back by their model's concurrency (a minute at
    most, then the token goes back to the queue, so a worker asked to stop never waits on one); drop the token
    when none is open.  Returns the attempt's event (or {"dropped": ...} or {"requeued": ...})."""
    from ledger import queue_states

    from .edition_run import queue_name
    from .lifecycle import RunPaths

    assert _CONFIG is not None
    config = _CONFIG
    edition_id = int(token["edition_id"])
    state = _process_state()
    _check_edition(token)
    counts = queue_states(state["ledger"], queue_name(edition_id))
    if not counts.get("pending") and not counts.get("leased"):   # a finished (or published) edition's tokens are
        return {"dropped": "no planned attempt of the edition is open"}   # dropped before any other check
    leaser = _leaser(token)

    def say(message: str) -> None:
        log.warning("%s", message)
        publish_event(state["events"], edition_id, {"message": message, "worker": config.name}, log.warning)

    waiting = time.monotonic()
    while True:
        lease, remaining = leaser.lease()
        if lease is not None:
            break
        if remaining == 0:
            return {"dropped": "no planned attempt of the edition is open"}
        if time.monotonic() - waiting > WAIT_AT_MOST:
            app.send_task(TASK, args=[token], queue=QUEUE)   # a fresh token; this one is acknowledged
            return {"requeued": f"nothing to lease for {WAIT_AT_MOST:.0f} s"}
        time.sleep(WAIT_POLL)
    run = RunPaths(config.runs_dir.resolve() / f"edition-{edition_id}" /
                   f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    event, closing = leaser.attempt(lease, run, say)
    event["worker"] = config.name
    publish_event(state["events"], edition_id, event, log.warning)   # before the lease closes: see run_on_queue
    leaser.close(lease, closing)
    return event


@app.task(name=TASK, bind=True, max_retries=None)
def edition_attempt(self: Task, token: dict[str, Any]) -> dict[str, Any]:
    try:
        return attempt_one(token)
    except Exception as exc:
        again = self.request.retries < GIVE_UP_AFTER
        message = (f"worker {_CONFIG.name if _CONFIG else '?'} could not take a token of edition "
                   f"{token.get('edition')!r} ({type(exc).__name__}: {exc}); " +
                   (f"it goes back to the queue in {RETRY_SECONDS} s" if again else
                    f"dropped after {GIVE_UP_AFTER} tries: `grader edition run --queue` enqueues its work again"))
        log.error("%s", message)
        if _CONFIG is not None:
            try:
                publish_event(_process_state()["events"], int(token["edition_id"]), {"message": message},
                              log.warning)
            except Exception as also:   # the ledger itself may be what failed: the message is logged anyway
                log.warning("event not published: %s", also)
        if not again:
            return {"dropped": message}
        raise self.retry(countdown=RETRY_SECONDS) from None


def run_worker(broker_url: str, database_url: str, concurrency: int, runs_dir: Path, visibility_timeout: float,
               loglevel: str) -> int:
    """`grader worker`: consume tokens until stopped (SIGTERM or Ctrl-C: a warm shutdown lets running attempts
    finish; a second one stops at once, and their tokens come back after the visibility timeout)."""
    global _CONFIG
    name = f"grader-{os.getpid()}@{socket.gethostname()}"
    _CONFIG = WorkerConfig(broker_url, database_url, runs_dir, name)
    configure(broker_url, visibility_timeout)
    # Celery warns, on a lost broker connection, that running tasks are not cancelled: on purpose (see above)
    warnings.filterwarnings("ignore", category=CPendingDeprecationWarning)
    logging.basicConfig(level=loglevel.upper(), format="[%(asctime)s %(levelname)s %(processName)s] %(message)s")
    worker = app.Worker(hostname=name, concurrency=concurrency, pool_cls="prefork", loglevel=loglevel.upper(),
                        queues=[QUEUE], without_mingle=True, without_gossip=True, optimization="fair")
    worker.start()
    return int(worker.exitcode or 0)
