"""Inside the grading container: grade a task against a deliverable; write the verdict to /out.

    python3 -m grader.grading_container.inside TASK_ID     (the grader image's entry point: /suite, /deliverable)
    python3 -m grader.grading_container.inside --wait      (a warm container: /job, see below)

/out is the one writable mount and only this process writes it: the verdict never travels through the
container's output, which nobody parses.  The game's own output goes to pipes the engine reads (L2 runs it in a
subprocess, inside the Lua sandbox) and into the evidence, never to /out.

With --wait the container is started before its job is known (grader/grading_container/pool.py): it imports the
grader, starts the L1 language server and boots the engine, then waits for the host to stage the job in /job, a
read-only mount: the task at /job/suite/<TASK_ID> (with its suite.toml and, for a parameterised task, its values in
params.json beside it), the deliverable at /job/deliverable, and
last /job/ready holding TASK_ID, then a byte into the FIFO /job/wake, which wakes the waiting grader at once (no
polling).  One container grades one job, then exits, as a fresh one does.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path

SUITE = Path("/suite")
DELIVERABLE = Path("/deliverable")
JOB = Path("/job")
OUT = Path("/out")
VERDICT_NAME = "verdict.json"
PARAMS_NAME = "params.json"   # beside suite.toml: a parameterised task's values (JSON), which the grade uses
READY_NAME = "ready"
WAKE_NAME = "wake"   # a FIFO the host made in /job: it writes a byte once /job/ready is there
WAIT_SECONDS = 900.0   # a warm container nobody gives a job to ends by itself
LOOK_SECONDS = 1.0   # between looks at /job/ready when no wake comes (a FIFO the container itself broke)


def _warm() -> None:
    """What every grade pays before it reads its task: imports, the builds the verdict pins, the L1 server and its
    first analysis (of a game of one line, in the scratch folder), the pre-booted engine."""
    import tempfile

    import grader.pipeline  # noqa: F401  (the grade's modules)
    from engine import engine_build, prestart
    from grader._version import grader_build
    from grader.l1 import analyse

    engine_build(), grader_build()   # the verdict's pins: digests of the code, computed once per process
    prestart()
    with tempfile.TemporaryDirectory(prefix="warm-") as tmp:
        (Path(tmp) / "scripts").mkdir()
        (Path(tmp) / "scripts" / "main.lua").write_text("function Start()\nend\n", encoding="utf-8")
        analyse(Path(tmp))


def _wait_for_job() -> str | None:
    """The job's TASK_ID once /job/ready is there. The wake FIFO is opened before the first look, so a job staged
    after that look also writes to it; a job staged before is found by the look. Opening read-write never blocks
    and keeps the FIFO's buffer alive; a wake without a job (the FIFO is anyone's to write) is only a look."""
    import select

    deadline = time.monotonic() + WAIT_SECONDS
    ready = JOB / READY_NAME
    fd = os.open(JOB / WAKE_NAME, os.O_RDWR | os.O_NONBLOCK)
    try:
        while True:
            try:
                return ready.read_text(encoding="utf-8").strip()
            except FileNotFoundError:
                pass
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if select.select([fd], [], [], min(left, LOOK_SECONDS))[0]:
                with contextlib.suppress(BlockingIOError):
                    os.read(fd, 4096)
    finally:
        os.close(fd)


def main(argv: list[str]) -> int:
    if argv == ["--wait"]:
        _warm()
        task_id = _wait_for_job()
        if task_id is None:
            return 3
        suite, deliverable = JOB / "suite", JOB / "deliverable"
    elif len(argv) == 1:
        task_id, suite, deliverable = argv[0], SUITE, DELIVERABLE
    else:
        print("usage: python3 -m grader.grading_container.inside TASK_ID | --wait", file=sys.stderr)
        return 2
    from grader.pipeline import grade
    from grader.tasks import find_task, with_params

    task = find_task(str(suite / task_id))
    if (suite / PARAMS_NAME).is_file():
        task = with_params(task, json.loads((suite / PARAMS_NAME).read_text(encoding="utf-8")))
    result = grade(task, deliverable)
    data = json.dumps({"verdict": result.verdict.to_json(), "timings": result.timings}, sort_keys=True).encode()
    fd = os.open(OUT / f".{VERDICT_NAME}", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(OUT / f".{VERDICT_NAME}", OUT / VERDICT_NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
