"""The gateway: an agent container's only way out is a small proxy container that forwards to the grader's
metered gateway (metering.py), which forwards to the configured provider and nowhere else (docs/sandbox.md,
"The gateway").

Per attempt:

- an *internal* Docker network (`internal=True`: no route out) whose bridge has no address on the host
  (`com.docker.network.bridge.inhibit_ipv4`): on a plain internal network the host still answers on every
  address it has (the bridge's own gateway address, 172.17.0.1, ...), so any service listening on 0.0.0.0
  would be reachable; without an address on the bridge, the agent's only peer is the proxy;
- the meter, in the grader's process, listening on the egress network's gateway address (an ephemeral port) and
  answering the attempt's proxy only;
- a proxy container on the internal network *and* on the egress network (`bridge` by default), from the busybox
  base image, hardened like the agent's container (another uid), whose one busybox `nc` listener copies each
  connection to the meter: the agent reaches the meter as `http://grader-gateway:PORT/...`, and nothing else.
  The provider's name is resolved on the host when the attempt starts (one that does not resolve is an
  infra_error).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import socket
import time
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grader._containers import signals_deferred

from .metering import GatewayReport, Meter

ALIAS = "grader-gateway"
LOG_PREFIX = "grader-proxy:"
HEADER = re.compile(r"[A-Za-z0-9-]{1,64}\Z")
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
    """The provider an agent may reach through the meter: its URL, the provider key's variable and header (the
    meter reads the key from the grader's environment and adds it to each request: it never enters the
    container), and list prices the agent file adds to metering.PRICES."""

    url: str
    allow: tuple[Endpoint, ...]
    url_env: tuple[str, ...] = ()
    connect_timeout: int = 10
    egress_network: str = "bridge"
    key_env: str = ""
    key_header: str = ""
    prices: tuple[tuple[str, float, float], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """What the profile pins (the URL's path and the variable names are the agent's business)."""
        return {"allow": [str(e) for e in self.allow], "connect_timeout": self.connect_timeout,
                "egress_network": self.egress_network, "metered": True, "key_header": self.key_header}

    def inside_url(self, port: int) -> str:
        """The URL as the agent's container uses it: the meter, through the proxy, in plain HTTP."""
        parts = urllib.parse.urlsplit(self.url)
        return urllib.parse.urlunsplit(("http", f"{ALIAS}:{port}", parts.path, parts.query, ""))

    def environment(self, port: int) -> dict[str, str]:
        url = self.inside_url(port)
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
                  egress_network: str = "bridge", key_env: str = "", key_header: str = "",
                  prices: Mapping[str, Any] | None = None) -> Gateway:
    """A checked gateway.  Everything goes through the meter to the URL's own host:port, so `allow` may name
    only that one."""
    own = url_endpoint(url)
    others = sorted({parse_endpoint(a) for a in allow} - {own})
    if others:
        raise GatewayError(f"gateway allow-list: {', '.join(map(str, others))}: the metered gateway forwards to "
                           f"{own} only")
    for name in url_env:
        if not ENV_NAME.match(name):
            raise GatewayError(f"gateway url_env {name!r}: not an environment variable name")
    if not isinstance(connect_timeout, int) or isinstance(connect_timeout, bool) or not 1 <= connect_timeout <= 300:
        raise GatewayError(f"gateway connect_timeout {connect_timeout!r}: expected whole seconds from 1 to 300")
    if key_env and not ENV_NAME.match(key_env):
        raise GatewayError(f"gateway key_env {key_env!r}: not an environment variable name")
    if bool(key_env) != bool(key_header) or (key_header and not HEADER.match(key_header)):
        raise GatewayError("gateway key_env and key_header go together (\"ANTHROPIC_API_KEY\" and \"x-api-key\", "
                           "or \"OPENAI_API_KEY\" and \"authorization\" for a bearer token)")
    table = []
    for model, price in (prices or {}).items():
        if (not isinstance(price, list) or len(price) != 2
                or not all(isinstance(x, int | float) and not isinstance(x, bool) and 0 <= x < 1e4 for x in price)):
            raise GatewayError(f"gateway prices {model!r}: expected [input, output] US dollars per million tokens")
        table.append((str(model), float(price[0]), float(price[1])))
    return Gateway(url=url, allow=(own,), url_env=tuple(sorted(set(url_env))), connect_timeout=connect_timeout,
                   egress_network=egress_network, key_env=key_env, key_header=key_header.lower(),
                   prices=tuple(sorted(table)))


# --- the run --------------------------------------------------------------------------------------------------

def resolve(endpoint: Endpoint) -> str:
    """The provider's IPv4 address, resolved on the host when the attempt starts (so a name that does not resolve
    is an infra_error before the agent runs)."""
    if endpoint.is_address:
        return endpoint.host
    try:
        infos = socket.getaddrinfo(endpoint.host, endpoint.port, socket.AF_INET, socket.SOCK_STREAM)
    except OSError as exc:
        raise GatewayError(f"gateway host {endpoint.host} does not resolve: {exc}") from None
    return sorted(str(info[4][0]) for info in infos)[0]


def proxy_script(port: int, address: str, timeout: int) -> str:
    """The proxy container's command: one listener whose every connection goes to the meter, then 'ready'."""
    return (f"nc -ll -p {port} -e nc -w {timeout} {address} {port} & "
            f"until netstat -ltn | grep -q ':{port} '; do sleep 0.05; done; echo '{LOG_PREFIX} ready'; wait")


@dataclass
class GatewayRun:
    """The attempt's internal network, its proxy and its meter, while the agent runs."""

    gateway: Gateway
    network: Any
    proxy: Any
    meter: Meter
    port: int

    @property
    def network_name(self) -> str:
        return str(self.network.name)

    def environment(self) -> dict[str, str]:
        return self.gateway.environment(self.port)

    def report(self) -> GatewayReport:
        """Stop the meter: what it counted, and whether the proxy was still up."""
        import docker

        report = self.meter.close()
        try:
            self.proxy.reload()
            report.proxy_stopped = self.proxy.status != "running"
        except docker.errors.DockerException:
            report.proxy_stopped = True
        return report


def _egress_address(docker_client: Any, name: str) -> str:
    """The host's address on the egress network: where the meter listens."""
    import docker

    try:
        config = docker_client.networks.get(name).attrs["IPAM"]["Config"]
    except docker.errors.NotFound:
        raise GatewayError(f"gateway egress network {name!r} does not exist") from None
    gateways = []
    for c in config or []:
        with contextlib.suppress(ValueError, KeyError):
            # the default bridge lists only its subnet: Docker gives the host the subnet's first address
            subnet = ipaddress.IPv4Network(c["Subnet"])
            gateways.append(c.get("Gateway") or str(subnet.network_address + 1))
    if not gateways:
        raise GatewayError(f"gateway egress network {name!r} has no IPv4 gateway address for the meter")
    return str(gateways[0])


def open_gateway(docker_client: Any, gateway: Gateway, image: str, attempt_id: str,
                 labels: dict[str, str], pid_mode: str | None = None) -> GatewayRun:
    """Start the meter, create the attempt's internal network and start its proxy.  The caller removes the
    network and the proxy by label and stops the meter (`report()`, or `meter.close()`); with `pid_mode` the
    proxy joins the watchdog's pid namespace, so it ends at the attempt's deadline too."""
    resolve(url_endpoint(gateway.url))
    key = ""
    if gateway.key_env:
        key = os.environ.get(gateway.key_env, "")
        if not key:
            raise GatewayError(f"the provider key's variable {gateway.key_env} is not set in the grader's "
                               f"environment")
    host = _egress_address(docker_client, gateway.egress_network)
    meter = Meter(gateway.url, gateway.key_header, key, gateway.connect_timeout,
                  {m: (i, o) for m, i, o in gateway.prices})
    port = meter.start(host)
    try:
        with signals_deferred():   # a signal mid-request would leave a network made after the cleanup looked
            network = docker_client.networks.create(
                f"{NETWORK_PREFIX}{attempt_id}", driver="bridge", internal=True, options={INHIBIT_IPV4: "true"},
                labels=labels, check_duplicate=True)
            proxy = docker_client.containers.create(
                image, ["sh", "-c", proxy_script(port, host, gateway.connect_timeout)],
                name=f"grader-proxy-{attempt_id}", user=f"{PROXY_UID}:{PROXY_UID}",
                labels=labels | {"grader.role": "gateway-proxy"}, pid_mode=pid_mode,
                environment={"TINI_SUBREAPER": "1"},
                cap_drop=["ALL"], security_opt=["no-new-privileges"], read_only=True, init=True, privileged=False,
                ipc_mode="none", tmpfs={"/tmp": "rw,nosuid,nodev,noexec,size=1m"}, pids_limit=64,
                mem_limit=64 << 20, memswap_limit=64 << 20, nano_cpus=500_000_000,
                log_config={"type": "json-file", "config": {"max-size": "10m"}},
                sysctls={"net.ipv4.ip_unprivileged_port_start": "0"},  # any port, without a capability
                network=network.name,
                networking_config={network.name: docker_client.api.create_endpoint_config(aliases=[ALIAS])})
        docker_client.networks.get(gateway.egress_network).connect(proxy)
        proxy.start()
        proxy.reload()
        meter.peers = {str(proxy.attrs["NetworkSettings"]["Networks"][gateway.egress_network]["IPAddress"])}
        deadline = time.monotonic() + READY_SECONDS
        while f"{LOG_PREFIX} ready" not in proxy.logs().decode("utf-8", "replace"):
            proxy.reload()
            if proxy.status != "running" or time.monotonic() > deadline:
                logs = proxy.logs(tail=5).decode("utf-8", "replace").strip()
                raise GatewayError(f"the gateway proxy did not start listening: {logs or proxy.status}")
            time.sleep(0.05)
    except BaseException:
        meter.close()
        raise
    return GatewayRun(gateway, network, proxy, meter, port)


def remove_attempt_networks(docker_client: Any, label: str) -> int:
    """Remove the networks with this label (after their containers are gone)."""
    import docker

    n = 0
    for net in docker_client.networks.list(filters={"label": label}):
        with contextlib.suppress(docker.errors.NotFound, docker.errors.APIError):
            net.remove()
            n += 1
    return n
