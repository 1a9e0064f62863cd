"""The allow-list gateway: an agent container's only way out is a small proxy that forwards to the configured
inference gateway host(s) and nowhere else (docs/sandbox.md, "The gateway").

Per attempt:

- an *internal* Docker network (`internal=True`: no route out) whose bridge has no address on the host
  (`com.docker.network.bridge.inhibit_ipv4`): on a plain internal network the host still answers on every
  address it has (the bridge's own gateway address, 172.17.0.1, ...), so any service listening on 0.0.0.0
  would be reachable; without an address on the bridge, the agent's only peer is the proxy;
- a proxy container on that network *and* on an egress network (`bridge` by default), from the same busybox base
  image, hardened like the agent's container.  For each allow-listed host:port it runs a busybox `nc` listener
  on the same port whose only action is to connect to that one host:port and copy bytes both ways: the
  allow-list is enforced by construction, whatever the agent sends.  The proxy answers, on the internal
  network, to the allow-listed host names (network aliases, so TLS to `https://gateway.example` works end to
  end, certificate and all) and to `grader-gateway` (for gateways given by IP address);
- upstream addresses are resolved on the host when the attempt starts (the static busybox cannot resolve names
  outside Docker's DNS), and the proxy logs one line per connection it forwarded: `ok`, `error` (the upstream
  refused or was unreachable) or `timeout` (no connection within the connect timeout).  Only the proxy writes
  its log; the bytes the agent sends never reach it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import shlex
import socket
import time
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evidence import AttemptOutcome
from grader._containers import signals_deferred

ALIAS = "grader-gateway"
MAX_ENDPOINTS = 8
LOG_PREFIX = "grader-proxy:"
NETWORK_PREFIX = "grader-net-"
INHIBIT_IPV4 = "com.docker.network.bridge.inhibit_ipv4"
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
LABEL_RE = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOST_NAME = re.compile(rf"(?=.{{1,253}}\Z){LABEL_RE}(?:\.{LABEL_RE})*\Z")
READY_SECONDS = 15.0
PROXY_UID = 10004   # not the agent's: in the shared pid namespace the agent can neither signal nor trace it


class GatewayError(ValueError):
    """A gateway configuration that cannot work; the message names the setting."""


@dataclass(frozen=True, order=True)
class Endpoint:
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def is_address(self) -> bool:
        try:
            ipaddress.IPv4Address(self.host)
        except ValueError:
            return False
        return True


def parse_endpoint(text: str) -> Endpoint:
    host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise GatewayError(f"gateway allow-list entry {text!r}: expected HOST:PORT")
    if host.startswith("[") or ":" in host:
        raise GatewayError(f"gateway allow-list entry {text!r}: IPv6 addresses are not supported")
    if not HOST_NAME.match(host):
        raise GatewayError(f"gateway allow-list entry {text!r}: {host!r} is not a host name or IPv4 address")
    return Endpoint(host.lower(), int(port))


@dataclass(frozen=True)
class Gateway:
    """The inference gateway an agent may reach: its URL, and the host:port pairs the proxy forwards to."""

    url: str
    allow: tuple[Endpoint, ...]
    url_env: tuple[str, ...] = ()
    connect_timeout: int = 10
    egress_network: str = "bridge"

    def as_dict(self) -> dict[str, Any]:
        """What the profile pins (the URL's path and the variable names are the agent's business)."""
        return {"allow": [str(e) for e in self.allow], "connect_timeout": self.connect_timeout,
                "egress_network": self.egress_network}

    def inside_url(self) -> str:
        """The URL as the agent's container must use it: an IP address becomes the proxy's alias."""
        parts = urllib.parse.urlsplit(self.url)
        endpoint = url_endpoint(self.url)
        if not endpoint.is_address:
            return self.url
        netloc = f"{ALIAS}:{parts.port}" if parts.port else ALIAS
        return urllib.parse.urlunsplit(parts._replace(netloc=netloc))

    def environment(self) -> dict[str, str]:
        url = self.inside_url()
        return {"GRADER_GATEWAY_URL": url, **{name: url for name in self.url_env}}


def url_endpoint(url: str) -> Endpoint:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise GatewayError(f"gateway URL {url!r}: expected http://HOST[:PORT]/... or https://HOST[:PORT]/...")
    if parts.username or parts.password:
        raise GatewayError(f"gateway URL {url!r}: credentials do not belong in the URL (use --pass-env)")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise GatewayError(f"gateway URL {url!r}: {exc}") from None
    return parse_endpoint(f"{parts.hostname}:{port}")


def parse_gateway(url: str, allow: Sequence[str] = (), url_env: Sequence[str] = (), connect_timeout: int = 10,
                  egress_network: str = "bridge") -> Gateway:
    """A checked gateway: the URL's own host:port is always allowed; at most MAX_ENDPOINTS, one per port."""
    endpoints = sorted({url_endpoint(url), *(parse_endpoint(a) for a in allow)})
    if len(endpoints) > MAX_ENDPOINTS:
        raise GatewayError(f"gateway allow-list: {len(endpoints)} entries, at most {MAX_ENDPOINTS}")
    ports: dict[int, Endpoint] = {}
    for e in endpoints:
        if e.port in ports:
            raise GatewayError(f"gateway allow-list: {ports[e.port]} and {e} share port {e.port} (the proxy "
                               f"listens on each upstream's own port)")
        ports[e.port] = e
    for name in url_env:
        if not ENV_NAME.match(name):
            raise GatewayError(f"gateway url_env {name!r}: not an environment variable name")
    if not isinstance(connect_timeout, int) or isinstance(connect_timeout, bool) or not 1 <= connect_timeout <= 300:
        raise GatewayError(f"gateway connect_timeout {connect_timeout!r}: expected whole seconds from 1 to 300")
    return Gateway(url=url, allow=tuple(endpoints), url_env=tuple(sorted(set(url_env))),
                   connect_timeout=connect_timeout, egress_network=egress_network)


# --- the proxy's run ------------------------------------------------------------------------------------------

def resolve(endpoint: Endpoint) -> str:
    """The IPv4 address the proxy connects to (resolved on the host when the attempt starts)."""
    if endpoint.is_address:
        return endpoint.host
    try:
        infos = socket.getaddrinfo(endpoint.host, endpoint.port, socket.AF_INET, socket.SOCK_STREAM)
    except OSError as exc:
        raise GatewayError(f"gateway host {endpoint.host} does not resolve: {exc}") from None
    return sorted(str(info[4][0]) for info in infos)[0]


def _forward_script(endpoint: Endpoint, address: str, timeout: int) -> str:
    """One connection: connect to the one upstream, copy both ways, log how the connection to it went."""
    name = shlex.quote(str(endpoint))
    return (f"nc -w {timeout} {address} {endpoint.port} 2>/tmp/e.$$; s=$?; "
            f"if [ $s -eq 0 ]; then r=ok; elif grep -q 'timed out' /tmp/e.$$; then r=timeout; "
            f"elif grep -q \"can't connect\" /tmp/e.$$; then r=error; else r=closed; fi; "
            f"echo \"{LOG_PREFIX} $r {name} $(head -c 160 /tmp/e.$$ | tr -d '\\n')\" >&2; rm -f /tmp/e.$$")


def proxy_script(gateway: Gateway, addresses: dict[Endpoint, str]) -> str:
    """The proxy container's command: a listener per allow-listed endpoint, then 'ready' once all listen."""
    parts = []
    for e in gateway.allow:
        forward = _forward_script(e, addresses[e], gateway.connect_timeout)
        parts.append(f"nc -ll -p {e.port} -e sh -c {shlex.quote(forward)} &")
    waits = " ".join(f"until netstat -ltn | grep -q ':{e.port} '; do sleep 0.05; done;" for e in gateway.allow)
    return " ".join(parts) + f" {waits} echo '{LOG_PREFIX} ready'; wait"


@dataclass
class GatewayReport:
    """What the proxy's log says about the attempt's connections to the gateway."""

    connections: int = 0
    errors: list[str] = field(default_factory=list)
    timeouts: list[str] = field(default_factory=list)
    proxy_stopped: bool = False

    def infra_outcome(self) -> AttemptOutcome | None:
        """Only what the upstream did counts: a proxy that stopped (the agent can exhaust its pids or memory) is
        reported, never an excuse."""
        if self.timeouts:
            return AttemptOutcome.INFRA_TIMEOUT
        return AttemptOutcome.INFRA_ERROR if self.errors else None

    def detail(self) -> str:
        if self.timeouts:
            return f"the gateway did not answer within the connect timeout ({self.timeouts[0]})"
        return f"the gateway refused or was unreachable ({self.errors[0]})" if self.errors else ""

    def as_dict(self) -> dict[str, Any]:
        return {"connections": self.connections, "errors": self.errors[:20], "timeouts": self.timeouts[:20],
                "proxy_stopped": self.proxy_stopped}


def parse_proxy_log(text: str) -> GatewayReport:
    report = GatewayReport()
    for line in text.splitlines():
        if not line.startswith(LOG_PREFIX):
            continue
        words = line[len(LOG_PREFIX):].split(maxsplit=1)
        kind = words[0] if words else ""
        rest = words[1] if len(words) > 1 else ""
        if kind in ("ok", "closed", "error", "timeout"):
            report.connections += 1
        if kind == "error":
            report.errors.append(rest)
        elif kind == "timeout":
            report.timeouts.append(rest)
    return report


@dataclass
class GatewayRun:
    """The attempt's internal network and its proxy, while the agent runs."""

    gateway: Gateway
    network: Any
    proxy: Any
    addresses: dict[Endpoint, str]

    @property
    def network_name(self) -> str:
        return str(self.network.name)

    def report(self) -> GatewayReport:
        import docker

        try:
            self.proxy.reload()
            report = parse_proxy_log(self.proxy.logs().decode("utf-8", "replace"))
            report.proxy_stopped = self.proxy.status != "running"
        except docker.errors.DockerException:
            report = GatewayReport(proxy_stopped=True)
        return report


def open_gateway(docker_client: Any, gateway: Gateway, image: str, attempt_id: str,
                 labels: dict[str, str], pid_mode: str | None = None) -> GatewayRun:
    """Create the attempt's internal network and start its proxy (the caller removes both, by label); with
    `pid_mode` the proxy joins the watchdog's pid namespace, so it ends at the attempt's deadline too."""
    import docker

    addresses = {e: resolve(e) for e in gateway.allow}
    with signals_deferred():   # a signal mid-request would leave a network made after the cleanup looked
        network = docker_client.networks.create(
            f"{NETWORK_PREFIX}{attempt_id}", driver="bridge", internal=True, options={INHIBIT_IPV4: "true"},
            labels=labels, check_duplicate=True)
    aliases = sorted({ALIAS, *(e.host for e in gateway.allow if not e.is_address)})
    with signals_deferred():
        proxy = docker_client.containers.create(
            image, ["sh", "-c", proxy_script(gateway, addresses)], name=f"grader-proxy-{attempt_id}",
            user=f"{PROXY_UID}:{PROXY_UID}", labels=labels | {"grader.role": "gateway-proxy"}, pid_mode=pid_mode,
            environment={"TINI_SUBREAPER": "1"},
            cap_drop=["ALL"], security_opt=["no-new-privileges"], read_only=True, init=True, privileged=False,
            ipc_mode="none", tmpfs={"/tmp": "rw,nosuid,nodev,noexec,size=1m"}, pids_limit=64, mem_limit=64 << 20,
            log_config={"type": "json-file", "config": {"max-size": "10m"}},  # a line per connection: bounded
            memswap_limit=64 << 20, nano_cpus=500_000_000,
            sysctls={"net.ipv4.ip_unprivileged_port_start": "0"},  # listen on 443 without a capability
            network=network.name,
            networking_config={network.name: docker_client.api.create_endpoint_config(aliases=aliases)})
    try:
        docker_client.networks.get(gateway.egress_network).connect(proxy)
    except docker.errors.NotFound:
        raise GatewayError(f"gateway egress network {gateway.egress_network!r} does not exist") from None
    proxy.start()
    run = GatewayRun(gateway, network, proxy, addresses)
    deadline = time.monotonic() + READY_SECONDS
    while f"{LOG_PREFIX} ready" not in proxy.logs().decode("utf-8", "replace"):
        proxy.reload()
        if proxy.status != "running" or time.monotonic() > deadline:
            logs = proxy.logs(tail=5).decode("utf-8", "replace").strip()
            raise GatewayError(f"the gateway proxy did not start listening: {logs or proxy.status}")
        time.sleep(0.05)
    return run


def remove_attempt_networks(docker_client: Any, label: str) -> int:
    """Remove the networks with this label (after their containers are gone)."""
    import docker

    n = 0
    for net in docker_client.networks.list(filters={"label": label}):
        with contextlib.suppress(docker.errors.NotFound, docker.errors.APIError):
            net.remove()
            n += 1
    return n
