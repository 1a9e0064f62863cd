"""The allow-list gateway on real containers: a fake gateway on this machine is reachable from the agent's
container through the proxy, and nothing else is (a loopback service, the bridge gateway's other ports, another
container, outside addresses, names); gateway failures are infra outcomes; networks never outlive the attempt.

These tests never skip under CI (CI=true): a machine without Docker fails them loudly.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import re
import signal
import socket
import socketserver
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.sandbox import LABEL_ATTEMPT, Profile, base_image, parse_gateway, run_in_sandbox
from grader.sandbox.backend import STAGING_PREFIX

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


# The gateway's host and port, from the URL the agent is given (http://grader-gateway:PORT/...).
SPLIT = 'u=${GRADER_GATEWAY_URL#http://}; hp=${u%%/*}; h=${hp%:*}; p=${hp#*:};'


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
                   f"grader-gateway:{gateway.port}", "grader-gateway:7000", "example.com:80", f"{bridge}:$p"]
        script = (
            SPLIT + "r=$(printf 'GET /v1 HTTP/1.0\\r\\n\\r\\n' | nc -w 3 $h $p);"
            "case \"$r\" in *GATEWAY-OK*) echo VIA_PROXY_OK;; esac;"
            "echo \"url=$GRADER_GATEWAY_URL\";"
            f"for t in {' '.join(targets)}; do (echo x | nc -w 2 ${{t%:*}} ${{t#*:}} >/dev/null 2>&1"
            " && echo REACHED $t) & done; wait; echo done")
        result = run(docker_client, gateway_profile(image, f"http://{bridge}:{gateway.port}/v1"), tmp_path, script)
    finally:
        other.remove(force=True)
    assert result.outcome == "completed", result.logs
    assert "VIA_PROXY_OK" in result.logs and "done" in result.logs, result.logs
    assert re.search(r"url=http://grader-gateway:\d+/v1\n", result.logs), result.logs
    assert "REACHED" not in result.logs, result.logs   # the meter itself only through the proxy
    assert (gateway.accepted, loopback.accepted) == (1, 0)
    assert (result.gateway["requests"], result.gateway["errors"], result.gateway["refused"]) == (1, [], 0)
    assert result.profile["network"] == "gateway"
    assert result.profile["gateway"]["allow"] == [f"{bridge}:{gateway.port}"]


def test_gateway_failures_are_infra_outcomes(docker_client: Any, image: str, tmp_path: Path) -> None:
    bridge = bridge_gateway(docker_client)
    closed = socket.socket()
    closed.bind(("0.0.0.0", 0))
    refused_port = closed.getsockname()[1]
    closed.close()  # nothing listens there: the upstream refuses
    need_answer = (SPLIT + "r=$(printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 5 $h $p);"
                   "case \"$r\" in 'HTTP/1.'?' 200'*) ;; *) exit 3;; esac")
    refused = run(docker_client, gateway_profile(image, f"http://{bridge}:{refused_port}/"), tmp_path, need_answer)
    assert (refused.outcome, refused.exit_code) == ("infra_error", 3), refused
    assert refused.detail.startswith("the gateway refused or was unreachable") and "exit status 3" in refused.detail
    assert len(refused.gateway["errors"]) == 1
    shrugged = run(docker_client, gateway_profile(image, f"http://{bridge}:{refused_port}/"), tmp_path,
                   SPLIT + "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 5 $h $p; exit 0")
    assert shrugged.outcome == "completed" and shrugged.gateway["errors"]  # the agent did not need it
    # a listener whose accept queue is full drops new connections: the meter's connect times out
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
                      tmp_path, need_answer)
    finally:
        for s in fillers:
            s.close()
        full.close()
    assert stalled.outcome == "infra_timeout", stalled.detail
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
    assert list(Path(tempfile.gettempdir()).glob(f"{STAGING_PREFIX}{proc.pid}-*"))   # the attempt's staging folder
    proc.kill()  # SIGKILL: no finally runs
    proc.wait(timeout=30)
    label = {"label": f"{LABEL_ATTEMPT}={attempt_id}"}
    assert len(docker_client.containers.list(all=True, filters=label)) == 3
    done = subprocess.run([sys.executable, "-m", "grader", "sandbox", "cleanup"], capture_output=True, text=True,
                          cwd=ROOT, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    # what is gone, not how many this cleanup removed: any grader starting an attempt on this machine meanwhile
    # (another test process, a nightly edition) runs the same cleanup and may have removed them first
    assert docker_client.containers.list(all=True, filters={"label": f"{LABEL_ATTEMPT}={attempt_id}"}) == []
    assert docker_client.networks.list(filters={"label": f"{LABEL_ATTEMPT}={attempt_id}"}) == []
    assert not list(Path(tempfile.gettempdir()).glob(f"{STAGING_PREFIX}{proc.pid}-*"))


PROVIDER_KEY = "sk-provider-3c9e1f7a2b"
MESSAGE = {"id": "msg_1", "type": "message", "model": "claude-3-5-haiku-20241022", "content": [],
           "usage": {"input_tokens": 1000, "output_tokens": 200}}
EVENTS = (b'event: message_start\ndata: {"type": "message_start", "message": {"model": "claude-3-5-haiku-20241022", '
          b'"usage": {"input_tokens": 900, "cache_read_input_tokens": 100, "output_tokens": 1}}}\n\n'
          b'event: message_delta\ndata: {"type": "message_delta", "usage": {"output_tokens": 300}}\n\n'
          b'event: message_stop\ndata: {"type": "message_stop"}\n\n')


class ScriptedProvider:
    """An Anthropic-style provider on this machine's loopback: a JSON answer, or an event stream when asked to
    stream; it answers only requests carrying the provider key, and keeps the keys it was sent."""

    def __init__(self) -> None:
        self.keys: list[str | None] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *_args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.keys.append(self.headers.get("x-api-key"))
                if self.headers.get("x-api-key") != PROVIDER_KEY:
                    self.send_response(401)
                    self.end_headers()
                    return
                stream = bool(body.get("stream"))
                data = EVENTS if stream else json.dumps(MESSAGE).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream" if stream else "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# The agent: two requests to its provider through $ANTHROPIC_BASE_URL (one streamed), its own stolen key in each,
# and a usage file claiming it used nothing.
METERED_AGENT = SPLIT.replace("GRADER_GATEWAY_URL", "ANTHROPIC_BASE_URL") + r"""
ask() {
  printf 'POST /v1/messages HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nx-api-key: stolen\r\n'\
'Content-Length: %d\r\nConnection: close\r\n\r\n%s' ${#1} "$1" | nc -w 10 $h $p
}
ask '{"model": "claude-3-5-haiku-20241022", "max_tokens": 10, "messages": []}' | grep -c input_tokens
ask '{"model": "claude-3-5-haiku-20241022", "stream": true, "messages": []}' | grep -c 'event: message_delta'
env | grep -c sk-provider
echo '{"version": 1, "tokens_in": 0, "tokens_out": 0, "cost_usd": 0, "tool_calls": 2}' > "$GRADER_USAGE_FILE"
"""


def test_the_gateway_counts_what_the_provider_reports_not_what_the_agent_claims(
        docker_client: Any, image: str, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    agent = tmp_path / "metered.toml"
    agent.write_text(f'name = "metered"\nimage = "{image}"\ncommand = ["sh", "-c", {json.dumps(METERED_AGENT)}]\n'
                     f'\n[gateway]\nurl = "http://127.0.0.1:{provider.port}/v1"\nurl_env = ["ANTHROPIC_BASE_URL"]\n'
                     'key_env = "TEST_PROVIDER_KEY"\nkey_header = "x-api-key"\n')
    try:
        proc = subprocess.run([sys.executable, "-m", "grader", "attempt", "public/coin-collector", "--agent",
                               f"command:{agent}", "--sandbox", "docker", "--runs-dir", str(tmp_path / "runs"),
                               "--database", f"sqlite:///{tmp_path / 'l.db'}", "--json"],
                              capture_output=True, text=True, cwd=ROOT, check=False, timeout=180,
                              env={**os.environ, "TEST_PROVIDER_KEY": PROVIDER_KEY})
    finally:
        provider.close()
    assert proc.returncode == 1, proc.stderr   # it wrote no game: the verdict fails, the usage is what we test
    out = json.loads(proc.stdout)
    assert provider.keys == [PROVIDER_KEY, PROVIDER_KEY], "the gateway's key replaced the agent's"
    attempt_dir = Path(out["attempt_dir"])
    log = (attempt_dir / "agent.log").read_text().split()
    assert log == ["1", "1", "0"], log   # both answers reached the agent; the key is nowhere in its environment
    cost = (2000 * 0.8 + 500 * 4.0) / 1e6   # claude-3-5-haiku's list price
    assert out["usage"]["tokens_in"] == 2000 and out["usage"]["tokens_out"] == 500
    assert out["usage"]["tool_calls"] == 2 and abs(out["usage"]["cost_usd"] - cost) < 1e-12
    con = sqlite3.connect(tmp_path / "l.db")
    row = con.execute("SELECT tokens_in, tokens_out, cost_usd, tool_calls FROM attempts").fetchone()
    con.close()
    assert row[:2] == (2000, 500) and abs(row[2] - cost) < 1e-12 and row[3] == 2
    sandbox = json.loads((attempt_dir / "sandbox.json").read_text())
    assert sandbox["usage_claimed"]["tokens_in"] == 0 and sandbox["gateway"]["requests"] == 2
    written = [p for p in [*tmp_path.rglob("*")] if p.is_file()]
    assert [p for p in written if PROVIDER_KEY.encode() in p.read_bytes()] == []
    assert PROVIDER_KEY not in proc.stdout + proc.stderr
