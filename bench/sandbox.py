"""Sandbox overhead: container start-to-exit wall time for `true` in the busybox base image, with the full
hardened profile (create, start, wait, logs, remove), median of N runs.

    python bench/sandbox.py [--runs 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

# bench/engine.py would shadow the engine package: keep this folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from grader.sandbox import client, default_profile, run_in_sandbox  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description="sandbox container start-to-exit overhead")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    docker_client = client()
    profile = default_profile(docker_client)
    walls = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            workspace = Path(tmp) / f"ws{i}"
            workspace.mkdir()
            start = time.perf_counter()
            result = run_in_sandbox(workspace, ["true"], time_limit=60, profile=profile, docker_client=docker_client)
            walls.append(time.perf_counter() - start)
            if result.outcome != "completed":
                sys.exit(f"run {i}: {result.outcome} {result.detail}")
    print(f"image {profile.image}  profile {profile.digest()[:16]}")
    print(f"start-to-exit overhead: median {statistics.median(walls) * 1000:.0f} ms over {args.runs} runs "
          f"(min {min(walls) * 1000:.0f}, max {max(walls) * 1000:.0f})")


if __name__ == "__main__":
    main()
