"""`grader worker`: a Celery worker that attempts planned editions' work enqueued by `grader edition run --queue`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ._common import database_option, handle_errors, open_ledger


@click.command("worker", help="Attempt planned editions' work from a Redis queue, on this machine (scale-out, "
               "docs/editions.md#scale-out).\n\n"
               "A Celery worker with one process per core (--concurrency): each process takes a token that "
               "`grader edition run NAME --queue URL` enqueued, leases one of the edition's open planned attempts "
               "from the ledger, attempts and records it like a local run, and only then acknowledges the token "
               "(late acks): a worker killed mid-attempt leaves its token to another worker, after "
               "--visibility-timeout when the whole worker is gone. The ledger is PostgreSQL, shared by every "
               "worker and the enqueuer (a SQLite one is refused). Runs until stopped: SIGTERM or Ctrl-C lets "
               "running attempts finish. Exit 0 when stopped, 2 on bad input, 3 when the queue or the ledger "
               "cannot be reached at start.")
@click.option("--queue", "queue_url", required=True, metavar="URL", help="the Redis broker: redis://HOST:PORT/DB")
@click.option("--concurrency", type=click.IntRange(1, 256), default=None,
              help="worker processes, each attempting one planned attempt at a time (default: one per core)")
@click.option("--visibility-timeout", type=click.FloatRange(1, 30 * 86400), default=3600.0, show_default=True,
              help="seconds a token may go unacknowledged before the broker gives it to another worker: above the "
                   "longest attempt")
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
              show_default=True, help="where the attempts' folders go")
@click.option("--loglevel", type=click.Choice(["debug", "info", "warning", "error"]), default="info",
              show_default=True, help="what the worker logs on stderr")
@database_option
@handle_errors
def worker(queue_url: str, concurrency: int | None, visibility_timeout: float, runs_dir: Path, loglevel: str,
           database: str | None) -> None:
    from grader.scale_out import check_queue_url, check_shared_ledger, ping_queue
    from ledger import default_database_url

    check_queue_url(queue_url)
    url = database or default_database_url()
    check_shared_ledger(url, "grader worker")
    open_ledger(url, create=False).close()   # reachable, and a ledger: one line here rather than per token
    ping_queue(queue_url)
    from grader.celery_app import run_worker

    sys.exit(run_worker(queue_url, url, concurrency or os.cpu_count() or 1, runs_dir, visibility_timeout, loglevel))
