"""The metered gateway: an HTTP reverse proxy in the grader's own process, the one place the agent's requests to
its model provider go through (docs/sandbox.md, "The gateway").

    agent container --(internal network)--> proxy container (nc) --(egress network)--> Meter (this module, on
    the host, on the egress network's gateway address) --(HTTP or HTTPS)--> the provider's URL

The meter accepts connections from the attempt's proxy container only, forwards each request to the provider's
origin with the agent's own credentials removed and the provider key added (the key is read from the grader's
environment: it never enters the container), and reads the provider's responses as they stream back: OpenAI- and
Anthropic-style `usage` objects in JSON bodies and in server-sent events.  Per response, the input tokens are the
largest `prompt_tokens` / `input_tokens` (+ the cache's input tokens) seen, the output tokens the largest
`completion_tokens` / `output_tokens` (Anthropic's stream repeats cumulative counts); the cost is the tokens at the
list price of the response's `model` (PRICES, or the agent file's `[gateway.prices]`).  Upstream failures are
answered 502 (refused, unreachable) or 504 (no connection within the connect timeout) and counted: they are the
infrastructure's, not the agent's (GatewayReport.infra_outcome).
"""

from __future__ import annotations

import contextlib
import http.client
import http.server
import json
import ssl
import threading
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

from evidence import AttemptOutcome

# US dollars per million tokens (input, output), by model name prefix: the providers' published list prices.
PRICES: dict[str, tuple[float, float]] = {
    "claude-opus-4": (15.0, 75.0), "claude-sonnet-4": (3.0, 15.0), "claude-3-7-sonnet": (3.0, 15.0),
    "claude-3-5-sonnet": (3.0, 15.0), "claude-3-5-haiku": (0.8, 4.0), "claude-3-opus": (15.0, 75.0),
    "claude-3-haiku": (0.25, 1.25), "gpt-4o-mini": (0.15, 0.6), "gpt-4o": (2.5, 10.0), "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4.1-nano": (0.1, 0.4), "gpt-4.1": (2.0, 8.0), "o3-mini": (1.1, 4.4), "o4-mini": (1.1, 4.4),
    "o3": (2.0, 8.0),
}
HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
              "transfer-encoding", "upgrade", "host", "content-length", "accept-encoding", "expect"}
CREDENTIALS = {"authorization", "x-api-key", "api-key", "openai-organization", "openai-project"}
MAX_REQUEST_BYTES = 32 << 20
MAX_JSON_BYTES = 16 << 20       # a body longer than this is forwarded but not read for usage
READ_SECONDS = 600.0
DRAIN_SECONDS = 10.0            # how long closing waits for answers still streaming in (an agent killed mid-answer)
MAX_NOTES = 20


def price_of(model: str, prices: Mapping[str, tuple[float, float]]) -> tuple[float, float] | None:
    """The (input, output) price of `model`: the longest matching prefix in PRICES and `prices` (which wins a
    tie)."""
    table = PRICES | dict(prices)
    found = [p for p in table if model.startswith(p)]
    return table[max(found, key=len)] if found else None


def _usages(doc: Any) -> Iterator[dict[str, Any]]:
    """The usage objects of one JSON document: top level, and under `message` or `response` (streams)."""
    if not isinstance(doc, dict):
        return
    for holder in (doc, doc.get("message"), doc.get("response")):
        if isinstance(holder, dict) and isinstance(holder.get("usage"), dict):
            yield holder["usage"]


def _model(doc: Any) -> str:
    if not isinstance(doc, dict):
        return ""
    for holder in (doc, doc.get("message"), doc.get("response")):
        if isinstance(holder, dict) and isinstance(holder.get("model"), str):
            return str(holder["model"])
    return ""


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**40 else 0


@dataclass
class ResponseUsage:
    """What one response says it used."""

    tokens_in: int = 0
    tokens_out: int = 0
    model: str = ""
    seen: bool = False

    def add(self, doc: Any) -> None:
        self.model = self.model or _model(doc)
        for usage in _usages(doc):
            self.seen = True
            cached = _count(usage.get("cache_creation_input_tokens")) + _count(usage.get("cache_read_input_tokens"))
            self.tokens_in = max(self.tokens_in, _count(usage.get("prompt_tokens"))
                                 or _count(usage.get("input_tokens")) + cached)
            self.tokens_out = max(self.tokens_out, _count(usage.get("completion_tokens"))
                                  or _count(usage.get("output_tokens")))


class BodyReader:
    """Fed the response's bytes as they pass: server-sent events line by line, a JSON body whole (bounded)."""

    def __init__(self, content_type: str) -> None:
        self.events = "text/event-stream" in content_type.lower()
        self.buffer = b""
        self.too_long = False
        self.usage = ResponseUsage()

    def feed(self, data: bytes) -> None:
        if self.too_long:
            return
        self.buffer += data
        if self.events:
            *lines, self.buffer = self.buffer.split(b"\n")
            for line in lines:
                self._event_line(line)
        if len(self.buffer) > MAX_JSON_BYTES:
            self.too_long, self.buffer = True, b""

    def _event_line(self, line: bytes) -> None:
        line = line.strip()
        if line.startswith(b"data:"):
            with contextlib.suppress(ValueError):
                self.usage.add(json.loads(line[5:].strip()))

    def close(self) -> ResponseUsage:
        if self.events:
            self._event_line(self.buffer)
        elif self.buffer:
            with contextlib.suppress(ValueError):
                self.usage.add(json.loads(self.buffer))
        return self.usage


@dataclass
class GatewayReport:
    """What the meter saw of the attempt's traffic to its provider."""

    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = 0.0
    unpriced: list[str] = field(default_factory=list)    # models without a list price: the cost is unknown
    unmetered: int = 0                                    # responses that reported no usage
    errors: list[str] = field(default_factory=list)
    timeouts: list[str] = field(default_factory=list)
    refused: int = 0                                      # connections from anything but the attempt's proxy
    unfinished: int = 0                                   # answers still streaming when the attempt's record closed
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

    def warnings(self) -> list[str]:
        out = [f"gateway: no list price for model {m!r}: cost recorded as NULL" for m in self.unpriced]
        if self.unmetered:
            out.append(f"gateway: {self.unmetered} of {self.requests} responses reported no usage")
        if self.unfinished:
            out.append(f"gateway: {self.unfinished} answers were still streaming after {DRAIN_SECONDS:g} s: "
                       f"their tokens are not counted")
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"requests": self.requests, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "cost_usd": self.cost_usd, "unpriced": self.unpriced, "unmetered": self.unmetered,
                "errors": self.errors[:MAX_NOTES], "timeouts": self.timeouts[:MAX_NOTES], "refused": self.refused,
                "unfinished": self.unfinished, "proxy_stopped": self.proxy_stopped}


class Meter:
    """The metered gateway for one attempt: `start()` listens on `bind` (an ephemeral port), `close()` stops."""

    def __init__(self, url: str, key_header: str = "", key: str = "", connect_timeout: float = 10.0,
                 prices: Mapping[str, tuple[float, float]] | None = None) -> None:
        parts = urllib.parse.urlsplit(url)
        self.scheme, self.host = parts.scheme, parts.hostname or ""
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.key_header, self.key = key_header.lower(), key
        self.connect_timeout = connect_timeout
        self.prices = dict(prices or {})
        self.peers: set[str] = set()      # the addresses allowed to connect (the attempt's proxy)
        self.report = GatewayReport()
        self.lock = threading.Condition()
        self.in_flight = 0
        self.closed = False
        self.server: http.server.ThreadingHTTPServer | None = None

    # --- what the handler calls ---

    def connect(self) -> http.client.HTTPConnection:
        """A connection to the provider, or UpstreamError naming why not."""
        if self.scheme == "https":
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                self.host, self.port, timeout=self.connect_timeout, context=ssl.create_default_context())
        else:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=self.connect_timeout)
        where = f"{self.host}:{self.port}"
        try:
            conn.connect()
        except TimeoutError:
            with self.lock:
                self.report.timeouts.append(f"{where} connect timed out")
            raise UpstreamError(504, "the provider did not answer within the connect timeout") from None
        except OSError as exc:
            with self.lock:
                self.report.errors.append(f"{where} {exc.strerror or exc}")
            raise UpstreamError(502, "the provider refused or was unreachable") from None
        assert conn.sock is not None
        conn.sock.settimeout(READ_SECONDS)
        return conn

    def headers(self, incoming: Message) -> dict[str, str]:
        out = {k: v for k, v in incoming.items() if k.lower() not in HOP_BY_HOP | CREDENTIALS}
        out |= {"Host": self.host if self.port in (80, 443) else f"{self.host}:{self.port}",
                "Accept-Encoding": "identity"}   # plain bytes: the usage must be readable
        if self.key_header and self.key:
            out[self.key_header] = f"Bearer {self.key}" if self.key_header == "authorization" else self.key
        return out

    def count(self, usage: ResponseUsage) -> None:
        with self.lock:
            if self.closed:   # the attempt's record is written: too late (counted as unfinished)
                return
            r = self.report
            r.requests += 1
            if not usage.seen:
                r.unmetered += 1
                return
            r.tokens_in += usage.tokens_in
            r.tokens_out += usage.tokens_out
            price = price_of(usage.model, self.prices)
            if price is None:
                if usage.model not in r.unpriced and len(r.unpriced) < MAX_NOTES:
                    r.unpriced.append(usage.model)
                r.cost_usd = None
            elif r.cost_usd is not None:
                r.cost_usd += (usage.tokens_in * price[0] + usage.tokens_out * price[1]) / 1e6

    # --- the server ---

    def start(self, bind: str) -> int:
        meter = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:   # the attempt's record says what happened
                pass

            def _relay(self) -> None:
                if self.client_address[0] not in meter.peers:
                    with meter.lock:
                        meter.report.refused += 1
                    self._fail(403, "not the attempt's proxy")
                    return
                if not self.path.startswith("/"):   # an absolute URL would ask the provider to be a proxy
                    self._fail(400, "a request path, not a URL")
                    return
                length = self.headers.get("Content-Length")
                if self.headers.get("Transfer-Encoding") or (length and not length.isdigit()):
                    self._fail(411, "send a Content-Length")
                    return
                if int(length or 0) > MAX_REQUEST_BYTES:
                    self._fail(413, "request too large")
                    return
                body = self.rfile.read(int(length or 0))
                with meter.lock:
                    meter.in_flight += 1
                try:
                    self._forward(body)
                finally:
                    with meter.lock:
                        meter.in_flight -= 1
                        meter.lock.notify_all()

            def _forward(self, body: bytes) -> None:
                try:
                    conn = meter.connect()
                except UpstreamError as down:
                    self._fail(down.status, down.reason)
                    return
                try:
                    conn.request(self.command, self.path, body=body or None, headers=meter.headers(self.headers))
                    response = conn.getresponse()
                except OSError as exc:
                    conn.close()
                    with meter.lock:
                        meter.report.errors.append(f"{meter.host}:{meter.port} {exc}"[:200])
                    with contextlib.suppress(OSError):
                        self._fail(502, "the provider did not answer")
                    return
                reader = BodyReader(response.getheader("Content-Type") or "")
                client_gone = False
                try:
                    self.send_response(response.status, response.reason)
                    for k, v in response.getheaders():
                        if k.lower() not in HOP_BY_HOP:
                            self.send_header(k, v)
                    self.send_header("Connection", "close")   # the body ends when the connection does
                    self.end_headers()
                except OSError:
                    client_gone = True
                try:
                    while chunk := response.read1(1 << 16):
                        reader.feed(chunk)
                        if not client_gone:
                            try:
                                self.wfile.write(chunk)
                                self.wfile.flush()
                            except OSError:   # the agent hung up: read on, the provider counts the tokens anyway
                                client_gone = True
                except OSError as exc:   # the provider broke off: an upstream failure, not the agent's
                    with meter.lock:
                        meter.report.errors.append(f"{meter.host}:{meter.port} {exc}"[:200])
                finally:
                    conn.close()
                meter.count(reader.close())
                self.close_connection = True

            def _fail(self, status: int, reason: str) -> None:
                body = json.dumps({"error": {"type": "grader_gateway", "message": reason}}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)
                self.close_connection = True

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _relay  # noqa: N815 (http.server's names)

        self.server = _Server((bind, 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, args=(0.05,), name="grader-meter",  # quick to shut down
                         daemon=True).start()
        return int(self.server.server_address[1])

    def close(self) -> GatewayReport:
        """Stop listening, let answers still streaming in finish (at most DRAIN_SECONDS), and report."""
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None
        with self.lock:
            self.lock.wait_for(lambda: self.in_flight == 0, timeout=DRAIN_SECONDS)
            if not self.closed:
                self.closed = True
                self.report.unfinished = self.in_flight
            return self.report


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection that broke (the agent hung up, sent garbage): nothing to print, nothing to count."""


class UpstreamError(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason
