"""Running a planned edition: worker processes lease its planned attempts from the ledger's work queue, run each
through the one attempt lifecycle (grader.lifecycle.attempt_task) and record it, until every planned attempt has
its counted attempt.

    run_edition ─ sync the queue with the plan ─ N worker processes ─┬─ lease (work_queue) ─ attempt_task
        │                                                             ├─ record (ledger: claims the plan item)
        └─ events ◄───────────────────────────────────────────────────┴─ finish the lease

Exactly once: the ledger refuses a second counted attempt for a planned one (ledger/_plans.py), so a worker
whose lease was taken over, or a run re-started after a crash, can never count an attempt twice; re-running does
only what is missing.  A worker renews its lease while it works; a lease that expired, or whose owner on this
machine is gone (a killed run), is taken over.  Infrastructure failures are recorded, never counted, and retried
up to `infra_retries` times within the lease (a planned attempt still failing is `failed`; the next run tries it
again); agent outcomes are never retried.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ledger import (
    AlreadyRecordedError,
    AttemptRecord,
    ItemState,
    Lease,
    Ledger,
    finish,
    lease_next,
    plan_states,
    record_attempts,
    renew,
    sync_queue,
)

from ._process import die_with_parent
from .editions import EditionWork, check_work_pins, edition_work
from .lifecycle import AttemptOptions, PreparedAgent, RunPaths, attempt_task, prepare_agent

DEFAULT_LEASE_SECONDS = 120.0
IDLE_POLL = 0.2


@dataclass(frozen=True)
class RunOptions:
    workers: int = 1
    sandbox: str = "none"
    gateway: str | None = None
    pass_env: tuple[str, ...] = ()
    infra_retries: int | None = None
    runs_dir: Path = Path("runs")
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    grade_in_container: bool = False   # each grade in a container of its own (grader.grading_container.GradingPool)

    @property
    def attempt_options(self) -> AttemptOptions:
        return AttemptOptions(sandbox=self.sandbox, gateway=self.gateway, pass_env=self.pass_env)


def queue_name(edition_id: int) -> str:
    return f"edition:{edition_id}"


# --- leases' owners ----------------------------------------------------------------------------------------------

def owner_id() -> str:
    """host/pid/token: the token tells two processes that reused a pid apart."""
    return f"{socket.gethostname()}/{os.getpid()}/{uuid.uuid4().hex[:8]}"


def owner_is_gone(owner: str) -> bool:
    """A lease owner on this machine whose process no longer exists (a run that was killed): its lease is taken
    over at once rather than when it expires.  Owners on other machines wait for their lease to expire."""
    host, _, rest = owner.partition("/")
    pid = rest.partition("/")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


# --- the worker ----------------------------------------------------------------------------------------------------

class _PlanRecorder:
    """What attempt_task records through: each attempt at once, in its own transaction, as the plan's model.  A
    counted attempt the ledger already has (another worker took over this lease and finished first) is dropped."""

    def __init__(self, ledger: Ledger, entry: Any) -> None:
        self.ledger = ledger
        self.entry = entry
        self.duplicate = False

    def add(self, record: AttemptRecord) -> str | None:
        if self.entry.model is not None:
            record = replace(record, model=self.entry.model)
        try:
            record_attempts(self.ledger, [record])
        except AlreadyRecordedError:
            self.duplicate = True
            return None
        return record.result_hash


class _Heartbeat(threading.Thread):
    def __init__(self, ledger: Ledger, item_id: int, owner: str, seconds: float) -> None:
        super().__init__(daemon=True)
        self.args_ = (ledger, item_id, owner, seconds)
        self.stop = threading.Event()
        self.lost = False

    def run(self) -> None:
        ledger, item_id, owner, seconds = self.args_
        while not self.stop.wait(seconds / 3):
            if not renew(ledger, item_id, owner, seconds):
                self.lost = True
                return


def _worker(url: str, work: EditionWork, options: RunOptions, run_root: str, index: int, events: Any) -> None:
    """One worker process; a failure outside an attempt (the ledger gone, ...) is one line to the runner, never a
    traceback, and the worker's leases are left to expire or be taken over."""
    runner = multiprocessing.parent_process()
    die_with_parent(runner.pid if runner is not None and runner.pid is not None else os.getppid())
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the runner's to handle: it stops the workers
    try:
        _work(url, work, options, run_root, index, events)
    except Exception as exc:
        events.put({"message": f"worker {index} stopped: {type(exc).__name__}: {exc}", "worker_failed": True})
        os._exit(3)


@dataclass
class Leaser:
    """One worker process's part in an edition's run: it leases planned attempts from the ledger's work queue and
    runs each through the lifecycle (the local workers here, and `grader worker`'s tasks: grader/scale_out.py)."""

    ledger: Ledger
    work: EditionWork
    options: RunOptions
    agents: dict[str, PreparedAgent]
    owner: str = field(default_factory=owner_id)
    pool: Any = None   # this process's GradingPool, with grade_in_container

    @classmethod
    def open(cls, ledger: Ledger, work: EditionWork, options: RunOptions) -> Leaser:
        agents = {label: prepare_agent(entry.driver, options.attempt_options, model=entry)
                  for label, entry in work.models.items()}
        pool = None
        if options.grade_in_container:
            from .grading_container import GradingPool

            pool = GradingPool()
        return cls(ledger, work, options, agents, pool=pool)

    def shutdown(self) -> None:
        """Remove the warm grading container this process holds, if any."""
        if self.pool is not None:
            self.pool.close()

    def lease(self) -> tuple[Lease | None, int]:
        """lease_next on the edition's queue: (a lease or None, how many planned attempts are still open)."""
        limits = {label: e.concurrency for label, e in self.work.models.items() if e.concurrency is not None}
        return lease_next(self.ledger, queue_name(self.work.edition_id), self.owner, self.options.lease_seconds,
                          limits, owner_is_gone)

    def attempt(self, lease: Lease, run: RunPaths, on_message: Callable[[str], None]) -> tuple[dict[str, Any], str]:
        """Attempt and record one leased planned attempt (its lease renewed meanwhile): the event that says what
        happened, and the state to close the lease with (`close`)."""
        item = next(i for i in self.work.plan.items if i.id == lease.plan_item_id)
        task = self.work.tasks[item.task_hash]
        entry = self.work.models[item.model]
        recorder = _PlanRecorder(self.ledger, entry)
        beat = _Heartbeat(self.ledger, lease.item_id, self.owner, self.options.lease_seconds)
        beat.start()
        event: dict[str, Any] = {"model": item.model, "task": task.qualified_id, "repetition": item.repetition,
                                 "taken_over": lease.taken_over}
        try:
            summary = attempt_task(
                task, self.agents[item.model], run, item.repetition, recorder=recorder,
                edition_id=self.work.edition_id, infra_retries=self.options.infra_retries, on_infra=on_message,
                grading=self.pool.grade if self.pool is not None else None)
            event |= {"outcome": summary.outcome.value, "passed": summary.passed, "graded": summary.graded,
                      "infra_failures": summary.infra_failures, "duplicate": recorder.duplicate}
            state = "done" if summary.graded else "failed"
        except Exception as exc:   # one planned attempt's failure must not stop the others
            event |= {"outcome": "infra_error", "passed": None, "graded": False, "infra_failures": 1,
                      "duplicate": False, "error": f"{type(exc).__name__}: {exc}"}
            state = "failed"
        finally:
            beat.stop.set()
            beat.join()
        return event, state

    def close(self, lease: Lease, state: str) -> None:
        finish(self.ledger, lease.item_id, self.owner, state)


def _work(url: str, work: EditionWork, options: RunOptions, run_root: str, index: int, events: Any) -> None:
    """Lease, attempt, record, finish, until nothing is left to lease."""
    leaser = Leaser.open(Ledger(url), work, options)
    run = RunPaths(Path(run_root) / f"w{index}-{os.getpid()}")
    try:
        while True:
            lease, remaining = leaser.lease()
            if lease is None:
                if remaining == 0:
                    return
                time.sleep(IDLE_POLL)
                continue
            event, state = leaser.attempt(lease, run, lambda message: events.put({"message": message}))
            leaser.close(lease, state)
            events.put(event)
    finally:
        leaser.shutdown()


# --- the runner ------------------------------------------------------------------------------------------------------

@dataclass
class ModelProgress:
    planned: int = 0
    recorded: int = 0
    passed: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)   # counted outcomes and the infra failures recorded

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.recorded if self.recorded else None

    def to_json(self) -> dict[str, Any]:
        return {"planned": self.planned, "recorded": self.recorded, "passed": self.passed,
                "pass_rate": self.pass_rate, "outcomes": dict(sorted(self.outcomes.items()))}


def progress_of(states: list[ItemState]) -> dict[str, ModelProgress]:
    """Per model (in plan order): planned attempts, those recorded, passes, and outcomes."""
    out: dict[str, ModelProgress] = {}
    for s in states:
        p = out.setdefault(s.item.model, ModelProgress())
        p.planned += 1
        if s.outcome is not None:
            p.recorded += 1
            p.passed += int(bool(s.passed))
            p.outcomes[s.outcome.value] = p.outcomes.get(s.outcome.value, 0) + 1
        if s.infra_failures:
            p.outcomes["infra failures"] = p.outcomes.get("infra failures", 0) + s.infra_failures
    return out


@dataclass
class EditionRun:
    """What a run did: the edition's progress before and after, and this run's events."""

    edition_id: int
    name: str
    planned: int
    before: dict[str, ModelProgress]
    live: dict[str, ModelProgress] = field(default_factory=dict)    # before, plus what this run reported so far
    after: dict[str, ModelProgress] = field(default_factory=dict)   # what the ledger holds at the end
    events: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False
    run_dir: str = ""
    queue: str | None = None        # --queue: the broker (password hidden) the attempts were enqueued on
    enqueued: int = 0               # --queue: how many tokens this run put on it

    @property
    def recorded(self) -> int:
        return sum(p.recorded for p in self.after.values())

    @property
    def missing(self) -> int:
        return self.planned - self.recorded

    def to_json(self) -> dict[str, Any]:
        done_now = [e for e in self.events if "outcome" in e]
        return {"edition": self.name, "edition_id": self.edition_id, "planned": self.planned,
                "workers_failed": sum(bool(e.get("worker_failed")) for e in self.events),
                "recorded": self.recorded, "missing": self.missing,
                "recorded_before": sum(p.recorded for p in self.before.values()),
                "this_run": {"attempts": len(done_now),
                             "graded": sum(bool(e.get("graded")) for e in done_now),
                             "duplicates_dropped": sum(bool(e.get("duplicate")) for e in done_now),
                             "taken_over": sum(e.get("taken_over") is not None for e in done_now)},
                "seconds": self.seconds, "interrupted": self.interrupted, "run_dir": self.run_dir,
                "models": {m: p.to_json() for m, p in self.after.items()}} | (
                    {"queue": self.queue, "enqueued": self.enqueued} if self.queue is not None else {})


Listener = Callable[[EditionRun, dict[str, Any] | None], None]   # the run so far and the newest event


def prepare(ledger: Ledger, ref: str | int, options: RunOptions) -> EditionWork:
    """The edition's work, every pin and every model's driver checked before any work."""
    work = edition_work(ledger, ref)
    agents = [prepare_agent(entry.driver, options.attempt_options, model=entry) for entry in work.models.values()]
    check_work_pins(ledger, work, sorted({a.profile_hash for a in agents}, key=str))
    return work


def run_edition(url: str, ref: str | int, options: RunOptions, listener: Listener | None = None) -> EditionRun:
    """Run what the edition's plan still misses with `options.workers` worker processes; see the module's
    docstring."""
    ledger = Ledger(url)
    work = prepare(ledger, ref, options)
    states = plan_states(ledger, work.edition_id)
    run = EditionRun(work.edition_id, work.name, len(states), progress_of(states), progress_of(states))
    sync_queue(ledger, queue_name(work.edition_id), [(s.item.id, s.item.model) for s in states],
               {s.item.id for s in states if s.outcome is not None})
    ledger.close()   # the workers open their own connections: none is shared across a fork
    root = Path(options.runs_dir).resolve() / f"edition-{work.edition_id}" / f"run-{uuid.uuid4().hex[:12]}"
    root.mkdir(parents=True, exist_ok=False)
    run.run_dir = str(root)
    # fork: a worker starts in milliseconds with the suites already loaded (spawn where there is no fork)
    context: Any = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods()
                                               else "spawn")
    events: Any = context.Queue()
    start = time.monotonic()
    workers = [context.Process(target=_worker, args=(url, work, options, str(root), k, events), daemon=True)
               for k in range(max(1, options.workers))]
    for w in workers:
        w.start()
    if listener:
        listener(run, None)
    try:
        while True:
            try:
                event = events.get(timeout=IDLE_POLL)
            except queue.Empty:
                if not any(w.is_alive() for w in workers):
                    break
                if listener:
                    listener(run, None)
                continue
            run.events.append(event)
            if "outcome" in event:
                _count(run.live, event)
            if listener:
                listener(run, event)
    except KeyboardInterrupt:
        run.interrupted = True
        for w in workers:
            w.terminate()
    finally:
        for w in workers:
            w.join()
        run.seconds = time.monotonic() - start
    ledger = Ledger(url)
    try:
        run.after = progress_of(plan_states(ledger, work.edition_id))
    finally:
        ledger.close()
    return run


def _count(progress: dict[str, ModelProgress], event: dict[str, Any]) -> None:
    """The live tally grows by what this run records (the ledger has the final word at the end)."""
    p = progress.setdefault(event["model"], ModelProgress())
    if event.get("infra_failures"):
        p.outcomes["infra failures"] = p.outcomes.get("infra failures", 0) + int(event["infra_failures"])
    if event.get("graded") and not event.get("duplicate"):
        p.recorded += 1
        p.passed += int(bool(event.get("passed")))
        p.outcomes[event["outcome"]] = p.outcomes.get(event["outcome"], 0) + 1
