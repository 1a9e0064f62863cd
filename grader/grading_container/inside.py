"""Inside the grading container: grade the task in /suite against /deliverable; write the verdict to /out.

    python3 -m grader.grading_container.inside TASK_ID          (the grader image's entry point)

/out is the one writable mount and only this process writes it: the verdict never travels through the
container's output, which nobody parses.  The game's own output goes to pipes the engine reads (L2 runs it in a
subprocess, inside the Lua sandbox) and into the evidence, never to /out.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

SUITE = Path("/suite")
DELIVERABLE = Path("/deliverable")
OUT = Path("/out")
VERDICT_NAME = "verdict.json"


def main(argv: list[str]) -> int:
    from grader.pipeline import grade
    from grader.tasks import find_task

    if len(argv) != 1:
        print("usage: python3 -m grader.grading_container.inside TASK_ID", file=sys.stderr)
        return 2
    task = find_task(str(SUITE / argv[0]))
    result = grade(task, DELIVERABLE)
    data = json.dumps({"verdict": result.verdict.to_json(), "timings": result.timings}, sort_keys=True).encode()
    fd = os.open(OUT / f".{VERDICT_NAME}", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(OUT / f".{VERDICT_NAME}", OUT / VERDICT_NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
