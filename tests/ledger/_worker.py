"""A ledger writer in its own process, for the crash, concurrency and throughput tests.

    python -m tests.ledger._worker URL [--count N] [--batch B] [--hang] [--wait] [--wait-open] [--open-rounds R]
                                   [--tag T]

--open-rounds R: first, R times, print "loaded", read a database URL from stdin, open and close a Ledger on it,
print "opened".  --wait-open: print "loaded" and read one line from stdin before opening the ledger at URL.
Then print "ready"; with --wait, read one line from stdin before writing (a start gun for concurrent writers).
Prints "ok <result hash>" after each committed record_attempt (--count 0: forever), then "done <count>
<seconds>".  With --batch B it records B results per transaction (record_attempts) and prints their hashes after
each commit.  With --hang it stops inside the transaction of its first record_attempt, after the attempt row is
appended and before its result, prints "inside", and sleeps until killed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from evidence import AttemptOutcome
from ledger import AttemptRecord, Ledger, record_attempts
from ledger._models import AttemptRow
from tests.ledger import synth


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--count", type=int, default=0)
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--wait", action="store_true")
    parser.add_argument("--wait-open", action="store_true")
    parser.add_argument("--open-rounds", type=int, default=0)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--tag", default="w")
    args = parser.parse_args()

    if args.hang:
        original = Ledger.append

        def append(self: Ledger, session: object, *rows: object) -> None:
            original(self, session, *rows)  # type: ignore[arg-type]
            if any(isinstance(row, AttemptRow) for row in rows):
                print("inside", flush=True)
                time.sleep(3600)

        Ledger.append = append  # type: ignore[method-assign]

    for _ in range(args.open_rounds):
        print("loaded", flush=True)
        Ledger(sys.stdin.readline().strip()).close()
        print("opened", flush=True)
    if args.wait_open:
        print("loaded", flush=True)
        sys.stdin.readline()
    ledger = Ledger(args.url)
    with tempfile.TemporaryDirectory(prefix="ledger-worker-"):
        folders = [synth.deliverable(v) for v in range(3)]
        print("ready", flush=True)
        if args.wait:
            sys.stdin.readline()
        start = time.perf_counter()
        n = 0
        while args.count == 0 or n < args.count:
            size = args.batch if args.count == 0 else min(args.batch, args.count - n)
            records = []
            for i in range(n, n + size):
                facts = synth.task(i % 5)
                records.append(AttemptRecord(
                    facts, f"synthetic:{args.tag}", AttemptOutcome.COMPLETED, {"agent": 0.5, "grade": 0.25},
                    synth.verdict(facts, i, artifact=folders[i % 3]), folders[i % 3], repetition=i,
                    model=synth.MODEL))
            for rhash in record_attempts(ledger, records):
                print("ok", rhash, flush=True)
            n += size
        print("done", n, f"{time.perf_counter() - start:.6f}", flush=True)
    ledger.close()


if __name__ == "__main__":
    main()
