"""The allow-list gateway on real containers: a fake gateway on this machine is reachable from the agent's
container through the proxy, and nothing else is (a loopback service, the bridge gateway's other ports, another
container, outside addresses, names); gateway failures are infra outcomes; networks never outlive the attempt.

These tests never skip under CI (CI=true): a machine without Docker fails them loudly.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.sandbox import LABEL_ATTEMPT, Profile, base_image, parse_gateway, run_in_sandbox

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def image(docker_client: Any) -> str:
    return base_image(docker_client)


pytestmark = pytest.mark.usefixtures("no_leftovers")   # tests/grader/conftest.py


class Listener:
    """A TCP service on this machine that answers any request with a fixed HTTP reply, counting connections."""

    def __init__(self, host: str, reply: bytes = b"HTTP/1.0 200 OK\r\n\r\nGATEWAY-OK\n") -> None:
        self.accepted = 0
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                outer.accepted += 1
                with contextlib.suppress(OSError):
                    self.request.settimeout(2)
                    self.request.recv(4096)
                    self.request.sendall(reply)

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self.server = socketserver.ThreadingTCPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listeners() -> Iterator[list[Listener]]:
    made: list[Listener] = []
    yield made
    for listener in made:
        listener.close()


def bridge_gateway(docker_client: Any) -> str:
    return str(docker_client.networks.get("bridge").attrs["IPAM"]["Config"][0].get("Gateway", "172.17.0.1"))


def gateway_profile(image: str, url: str, connect_timeout: int = 10) -> Profile:
    return Profile(image=image, gateway=parse_gateway(url, connect_timeout=connect_timeout), proxy_image=image)


def run(docker_client: Any, profile: Profile, tmp_path: Path, script: str, **kwargs: Any) -> Any:
    workspace = tmp_path / f"ws-{time.monotonic_ns()}"
    workspace.mkdir()
    return run_in_sandbox(workspace, ["sh", "-c", script], time_limit=40, profile=profile,
                          docker_client=docker_client, **kwargs)


def test_the_gateway_is_the_only_way_out(docker_client: Any, image: str, tmp_path: Path,
                                         listeners: list[Listener]) -> None:
    gateway, loopback = Listener("0.0.0.0"), Listener("127.0.0.1")
    listeners += [gateway, loopback]
    bridge = bridge_gateway(docker_client)
    other = docker_client.containers.run(image, ["nc", "-ll", "-p", "7000", "-e", "echo", "OTHER"], detach=True,
                                         network="bridge", labels={"grader.test": "other"}, user="10001:10001")
    try:
        other.reload()
        other_ip = other.attrs["NetworkSettings"]["Networks"]["bridge"]["IPAddress"]
        targets = [f"{bridge}:{gateway.port}", f"{bridge}:{loopback.port}", f"127.0.0.1:{loopback.port}",
                   f"{other_ip}:7000", "1.1.1.1:80", "1.1.1.1:443", f"grader-gateway:{loopback.port}",
                   "grader-gateway:7000", "example.com:80"]
        script = (
            f"r=$(printf 'GET /v1 HTTP/1.0\\r\\n\\r\\n' | nc -w 3 grader-gateway {gateway.port});"
            "case \"$r\" in *GATEWAY-OK*) echo VIA_PROXY_OK;; esac;"
            "echo \"url=$GRADER_GATEWAY_URL\";"
            f"for t in {' '.join(targets)}; do (echo x | nc -w 2 ${{t%:*}} ${{t#*:}} >/dev/null 2>&1"
            " && echo REACHED $t) & done; wait; echo done")
        result = run(docker_client, gateway_profile(image, f"http://{bridge}:{gateway.port}/v1"), tmp_path, script)
    finally:
        other.remove(force=True)
    assert result.outcome == "completed", result.logs
    assert "VIA_PROXY_OK" in result.logs and "done" in result.logs, result.logs
    assert f"url=http://grader-gateway:{gateway.port}/v1" in result.logs
    assert "REACHED" not in result.logs, result.logs
    assert (gateway.accepted, loopback.accepted) == (1, 0)
    assert result.gateway == {"connections": 1, "errors": [], "timeouts": [], "proxy_stopped": False}
    assert result.profile["network"] == "gateway"
    assert result.profile["gateway"]["allow"] == [f"{bridge}:{gateway.port}"]


def test_gateway_failures_are_infra_outcomes(docker_client: Any, image: str, tmp_path: Path) -> None:
    bridge = bridge_gateway(docker_client)
    closed = socket.socket()
    closed.bind(("0.0.0.0", 0))
    refused_port = closed.getsockname()[1]
    closed.close()  # nothing listens there: the upstream refuses
    need_answer = "r=$(echo x | nc -w 5 grader-gateway {port}); [ -n \"$r\" ] || exit 3"
    refused = run(docker_client, gateway_profile(image, f"http://{bridge}:{refused_port}/"), tmp_path,
                  need_answer.format(port=refused_port))
    assert (refused.outcome, refused.exit_code) == ("infra_error", 3), refused
    assert refused.detail.startswith("the gateway refused or was unreachable") and "exit status 3" in refused.detail
    assert len(refused.gateway["errors"]) == 1
    shrugged = run(docker_client, gateway_profile(image, f"http://{bridge}:{refused_port}/"), tmp_path,
                   f"echo x | nc -w 5 grader-gateway {refused_port}; exit 0")
    assert shrugged.outcome == "completed" and shrugged.gateway["errors"]  # the agent did not need it
    # a listener whose accept queue is full drops new connections: the proxy's connect times out
    full = socket.socket()
    full.bind(("0.0.0.0", 0))
    full.listen(0)
    fillers = []
    try:
        for _ in range(3):
            s = socket.socket()
            s.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                s.connect(("127.0.0.1", full.getsockname()[1]))
            fillers.append(s)
        time.sleep(0.2)
        port = full.getsockname()[1]
        stalled = run(docker_client, gateway_profile(image, f"http://{bridge}:{port}/", connect_timeout=1),
                      tmp_path, need_answer.format(port=port))
    finally:
        for s in fillers:
            s.close()
        full.close()
    assert stalled.outcome == "infra_timeout", stalled
    assert stalled.detail.startswith("the gateway did not answer within the connect timeout")


def test_a_gateway_host_that_does_not_resolve_is_an_infra_error(docker_client: Any, image: str,
                                                                 tmp_path: Path) -> None:
    result = run(docker_client, gateway_profile(image, "https://no-such-host.invalid/"), tmp_path, "true")
    assert result.outcome == "infra_error" and "no-such-host.invalid does not resolve" in result.detail


INTERRUPTED = """
import sys
from pathlib import Path
from grader.sandbox import Profile, base_image, client, parse_gateway, run_in_sandbox
image = base_image(client())
profile = Profile(image=image, gateway=parse_gateway(sys.argv[3]), proxy_image=image)
print("go", flush=True)
run_in_sandbox(Path(sys.argv[1]), ["sleep", "60"], time_limit=60, attempt_id=sys.argv[2], profile=profile)
"""


def _start_interruptible(docker_client: Any, tmp_path: Path, attempt_id: str) -> subprocess.Popen[str]:
    (tmp_path / "ws").mkdir()
    url = f"http://{bridge_gateway(docker_client)}:9/"
    proc = subprocess.Popen([sys.executable, "-c", INTERRUPTED, str(tmp_path / "ws"), attempt_id, url], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    label = {"label": f"{LABEL_ATTEMPT}={attempt_id}"}
    deadline = time.monotonic() + 30
    while len(docker_client.containers.list(filters=label | {"status": "running"})) < 3:  # watchdog, proxy, agent
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.05)
    assert docker_client.networks.list(filters=label), "the attempt's internal network exists while it runs"
    return proc


def test_the_network_is_removed_after_an_interrupt(docker_client: Any, image: str, tmp_path: Path) -> None:
    attempt_id = f"gateway-interrupt-{os.getpid()}"
    proc = _start_interruptible(docker_client, tmp_path, attempt_id)
    try:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    label = {"label": f"{LABEL_ATTEMPT}={attempt_id}"}
    assert proc.returncode != 0
    assert docker_client.containers.list(all=True, filters=label) == []
    assert docker_client.networks.list(filters=label) == []


def test_cleanup_removes_what_a_killed_process_left(docker_client: Any, image: str, tmp_path: Path) -> None:
    attempt_id = f"gateway-killed-{os.getpid()}"
    proc = _start_interruptible(docker_client, tmp_path, attempt_id)
    proc.kill()  # SIGKILL: no finally runs
    proc.wait(timeout=30)
    label = {"label": f"{LABEL_ATTEMPT}={attempt_id}"}
    assert len(docker_client.containers.list(all=True, filters=label)) == 3
    done = subprocess.run([sys.executable, "-m", "grader", "sandbox", "cleanup"], capture_output=True, text=True,
                          cwd=ROOT, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) >= 5  # three containers, the network and the staging folder
    assert docker_client.containers.list(all=True, filters={"label": f"{LABEL_ATTEMPT}={attempt_id}"}) == []
    assert docker_client.networks.list(filters={"label": f"{LABEL_ATTEMPT}={attempt_id}"}) == []
