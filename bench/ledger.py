"""Ledger append throughput: results per second (synthetic verdicts, tiny deliverables), one writer and four
concurrent writer processes, on SQLite and on PostgreSQL; one result per transaction (record_attempt, as a single
`grader attempt` records) and in batches (record_attempts, as `grader run`'s Recorder records).

    python bench/ledger.py [--results 2000] [--batch 64] [--no-fsync]

PostgreSQL is a throwaway cluster started on loopback for the run (tests/ledger/pg.py), durable (fsync on) unless
--no-fsync; GRADER_TEST_PG_URL points it at an existing server instead.  SQLite is a file in a temp folder
(WAL, synchronous=FULL).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

# bench/engine.py would shadow the engine package: keep this folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' writer and cluster helpers

from ledger import Ledger  # noqa: E402
from tests.ledger.helpers import Writer  # noqa: E402
from tests.ledger.pg import ExternalServer, TempCluster  # noqa: E402


def throughput(url: str, writers: int, per_writer: int, batch: int) -> float:
    """Results per second: the writers open the ledger, wait for a start gun, then record per_writer each."""
    Ledger(url).close()
    procs = [Writer(url, "--count", str(per_writer), "--batch", str(batch), "--wait", "--tag", f"b{i}",
                    deadline=600)
             for i in range(writers)]
    try:
        for proc in procs:
            proc.expect("ready")
        start = time.perf_counter()
        for proc in procs:
            proc.go()
        for proc in procs:
            proc.expect("done")
        elapsed = time.perf_counter() - start
    finally:
        for proc in procs:
            proc.finish()
    return writers * per_writer / elapsed


def run(name: str, new_url: Callable[[], str], total: int, batch: int) -> None:
    for size in (1, batch):
        single = throughput(new_url(), 1, total, size)
        four = throughput(new_url(), 4, total // 4, size)
        print(f"{name:<24} {size:>6} {single:>12.0f} {four:>14.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description="ledger append throughput")
    parser.add_argument("--results", type=int, default=2000, help="results per measurement (split over writers)")
    parser.add_argument("--batch", type=int, default=64, help="results per transaction in the batched rows")
    parser.add_argument("--no-fsync", action="store_true", help="PostgreSQL with fsync off (as in the tests)")
    args = parser.parse_args()
    print(f"{'backend':<24} {'batch':>6} {'1 writer/s':>12} {'4 writers/s':>14}  ({args.results} results each, "
          f"{os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory(prefix="bench-ledger-") as tmp:
        counter = iter(range(1000))
        run("sqlite", lambda: f"sqlite:///{Path(tmp) / f'ledger{next(counter)}.db'}", args.results, args.batch)
    external = os.environ.get("GRADER_TEST_PG_URL")
    server = ExternalServer(external) if external else TempCluster(durable=not args.no_fsync).start()
    names: list[str] = []
    try:
        def fresh() -> str:
            names.append(f"bench_ledger_{uuid.uuid4().hex[:12]}")
            return server.create_database(names[-1])

        label = "postgresql" + ("" if external else " (fsync off)" if args.no_fsync else "")
        run(label, fresh, args.results, args.batch)
    finally:
        for name in names:
            server.drop_database(name)
        if isinstance(server, TempCluster):
            server.stop()


if __name__ == "__main__":
    main()
