"""Sandbox overhead: container start-to-exit wall time for `true` in the busybox base image, with the full
hardened profile (create, start, wait, logs, remove), median of N runs.  --gateway adds the attempt's internal
network and the allow-list proxy (to a listener on this machine); --grading times `grader grade --in-container`
against `grader grade` on one deliverable.

    python bench/sandbox.py [--runs 20] [--gateway] [--grading]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

# bench/engine.py would shadow the engine package: keep this folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from grader.sandbox import client, default_profile, parse_gateway, run_in_sandbox  # noqa: E402


def grading(runs: int) -> None:
    """Host against in-container grading of one deliverable, and where the container's time goes: an empty
    container of the grader image (create, start, wait, remove: the floor of a fresh container per grade), and
    the grade's own total inside it (cold: a one-shot process)."""
    from grader.grading_container import grade_in_container, grader_image
    from grader.grading_container.run import probe_grading_container
    from grader.pipeline import grade
    from grader.tasks import find_task, solution_folder

    task = find_task("public/coin-collector")
    deliverable = solution_folder(task, "oracle")
    start = time.perf_counter()
    grader_image(client())
    print(f"grader image ready in {time.perf_counter() - start:.1f} s")
    medians: dict[str, float] = {}
    inside: list[float] = []
    for name, fn in (("host", grade), ("container", grade_in_container)):
        fn(task, deliverable)   # warm-up: the host's L1 server and zygote, the image's layers in the page cache
        walls = []
        for _ in range(runs):
            start = time.perf_counter()
            result = fn(task, deliverable)
            walls.append(time.perf_counter() - start)
            if name == "container":
                inside.append(result.timings["total"])
        medians[name] = statistics.median(walls)
        print(f"{name:<9} grade: median {medians[name]:.2f} s over {runs} runs")
    empty = []
    for _ in range(runs):
        start = time.perf_counter()
        probe_grading_container(task, deliverable, "pass")
        empty.append(time.perf_counter() - start)
    print(f"  of which: an empty container {statistics.median(empty):.2f} s, the grade inside "
          f"{statistics.median(inside):.2f} s")
    print(f"container / host: {medians['container'] / medians['host']:.1f}x (target 1.5x)")
    from grader.grading_container import GradingPool

    # In an edition a pooled grade follows the attempt's agent, during which the next container warms up: the
    # pause stands for that work, and the host is timed after the same pause (a grade after an idle spell finds
    # colder caches than one of a back-to-back loop, wherever it runs).
    pause = max(medians["container"], 2.0)
    paused_host, pooled_walls = [], []
    with GradingPool() as pool:   # one container per grade, each started after the previous grade
        pool.grade(task, deliverable)
        for _ in range(runs):
            time.sleep(pause)
            start = time.perf_counter()
            grade(task, deliverable)
            paused_host.append(time.perf_counter() - start)
            time.sleep(pause)
            start = time.perf_counter()
            pool.grade(task, deliverable)
            pooled_walls.append(time.perf_counter() - start)
    host, pooled = statistics.median(paused_host), statistics.median(pooled_walls)
    print(f"after a {pause:.1f} s pause each (the agent's turn), median of {runs}:")
    print(f"  host      grade: {host:.3f} s")
    print(f"  pooled    grade: {pooled:.3f} s (a fresh container per grade, started after the previous one)")
    print(f"pooled / host: {pooled / host:.2f}x (target 1.5x)")


def main() -> None:
    parser = argparse.ArgumentParser(description="sandbox container start-to-exit overhead")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--gateway", action="store_true", help="with the allow-list gateway's network and proxy")
    parser.add_argument("--grading", action="store_true", help="grading in a container against on the host")
    args = parser.parse_args()
    if args.grading:
        grading(max(1, args.runs // 4))
        return
    docker_client = client()
    listener = socket.create_server(("0.0.0.0", 0))
    bridge = docker_client.networks.get("bridge").attrs["IPAM"]["Config"][0].get("Gateway", "172.17.0.1")
    gateway = parse_gateway(f"http://{bridge}:{listener.getsockname()[1]}/") if args.gateway else None
    profile = default_profile(docker_client, gateway=gateway)
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
    listener.close()
    print(f"image {profile.image}  profile {profile.digest()[:16]}  network {profile.as_dict()['network']}")
    print(f"start-to-exit overhead: median {statistics.median(walls) * 1000:.0f} ms over {args.runs} runs "
          f"(min {min(walls) * 1000:.0f}, max {max(walls) * 1000:.0f})")


if __name__ == "__main__":
    main()
