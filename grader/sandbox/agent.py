"""The `command` driver's configuration: a real agent (a coding-agent CLI, ...) in its own image.

    # agent.toml                                   grader attempt TASK --agent command:agent.toml --sandbox docker
    name = "my-agent"                              # the attempt's driver is recorded as command:my-agent
    image = "my-agent:1"                           # a local image, pinned in the profile by its image id
    command = ["my-agent", "--prompt-file", "/task/prompt.md"]
    pass_env = ["ANTHROPIC_API_KEY"]               # names: values are read from the grader's environment
    env = { AGENT_MODE = "benchmark" }             # fixed values, not secrets (they are written to sandbox.json)

    [gateway]                                      # optional; without it the container has no network
    url = "https://api.provider.example/v1"        # the provider; the agent reaches it through the metered gateway
    url_env = ["ANTHROPIC_BASE_URL"]               # set to the gateway's URL, besides GRADER_GATEWAY_URL
    key_env = "ANTHROPIC_API_KEY"                  # the provider key: the gateway adds it, the container never sees it
    key_header = "x-api-key"                       # or "authorization" (sent as a bearer token)
    connect_timeout = 10
    prices = { "my-model" = [3.0, 15.0] }          # list prices (USD per million tokens in, out) besides the built-in

    [limits]                                       # optional; the profile pins them
    pids = 256
    memory_mb = 2048
    cpus = 2.0
    workspace_mb = 256                             # the /workspace quota

    [model]                                        # optional; recorded in the ledger's models table
    provider = "example"
    name = "model-x"
    version = "2026-01-01"
    reasoning_mode = "default"
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .backend import Limits
from .gateway import ENV_NAME, Gateway, GatewayError, parse_gateway

MAX_PASS_ENV = 32
RESERVED_ENV = ("GRADER_", "HOME", "PATH")


class AgentConfigError(ValueError):
    """An agent configuration that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class ModelInfo:
    provider: str
    name: str
    version: str
    reasoning_mode: str = "default"


@dataclass(frozen=True)
class AgentConfig:
    name: str
    image: str
    command: tuple[str, ...]
    pass_env: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    gateway: Gateway | None = None
    limits: Limits = field(default_factory=Limits)
    model: ModelInfo | None = None
    source: str = ""

    @property
    def driver(self) -> str:
        return f"command:{self.name}"


def check_env_names(names: Sequence[str], where: str) -> tuple[str, ...]:
    if len(names) > MAX_PASS_ENV:
        raise AgentConfigError(f"{where}: {len(names)} names, at most {MAX_PASS_ENV}")
    for name in names:
        if not isinstance(name, str) or not ENV_NAME.match(name):
            raise AgentConfigError(f"{where}: {name!r} is not an environment variable name")
        if name.startswith(RESERVED_ENV[0]) or name in RESERVED_ENV[1:]:
            raise AgentConfigError(f"{where}: {name} is set by the grader")
    return tuple(sorted(set(names)))


def passed_environment(names: Sequence[str]) -> dict[str, str]:
    """The values of the named variables, from this process's environment; a missing one is an error (by name:
    values never appear in a message)."""
    missing = [n for n in names if n not in os.environ]
    if missing:
        raise AgentConfigError(f"--pass-env {', '.join(missing)}: not set in the grader's environment")
    return {n: os.environ[n] for n in names}


def _table(doc: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = doc.get(key, {})
    if not isinstance(value, dict):
        raise AgentConfigError(f"{where}: [{key}] must be a table")
    return value


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AgentConfigError(f"{where}: expected a list of strings")
    return value


def _limits(table: dict[str, Any], where: str) -> Limits:
    known = {"pids": ("pids", 1), "memory_mb": ("memory_bytes", 1 << 20), "cpus": ("nano_cpus", 1_000_000_000),
             "tmp_mb": ("tmp_bytes", 1 << 20), "home_mb": ("home_bytes", 1 << 20),
             "workspace_mb": ("workspace_bytes", 1 << 20)}
    values: dict[str, int] = {}
    for key, value in table.items():
        if key not in known:
            raise AgentConfigError(f"{where}: [limits] {key}: unknown (known: {', '.join(known)})")
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise AgentConfigError(f"{where}: [limits] {key}: expected a positive number")
        attr, scale = known[key]
        values[attr] = int(value * scale)
    return Limits(**values)


def load_agent_config(path: Path) -> AgentConfig:
    where = str(path)
    try:
        doc = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise AgentConfigError(f"{where}: cannot read the agent configuration: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise AgentConfigError(f"{where}: not valid TOML: {exc}") from None
    known = {"name", "image", "command", "pass_env", "env", "gateway", "limits", "model"}
    unknown = sorted(set(doc) - known)
    if unknown:
        raise AgentConfigError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(sorted(known))})")
    for key in ("name", "image"):
        if not isinstance(doc.get(key), str) or not doc[key].strip():
            raise AgentConfigError(f"{where}: {key!r} is required (a string)")
    if len(doc["name"]) > 120 or any(c.isspace() for c in doc["name"]):
        raise AgentConfigError(f"{where}: 'name': at most 120 characters, no spaces")
    command = _strings(doc.get("command"), f"{where}: 'command'")
    if not command:
        raise AgentConfigError(f"{where}: 'command' must not be empty")
    env = _table(doc, "env", where)
    if not all(isinstance(v, str) for v in env.values()):
        raise AgentConfigError(f"{where}: [env] values must be strings")
    check_env_names(list(env), f"{where}: [env]")
    gateway = None
    gw = _table(doc, "gateway", where)
    if gw:
        if not isinstance(gw.get("url"), str):
            raise AgentConfigError(f"{where}: [gateway] url is required")
        try:
            known_gw = {"url", "allow", "url_env", "connect_timeout", "egress_network", "key_env", "key_header",
                        "prices"}
            extra = sorted(set(gw) - known_gw)
            if extra:
                raise GatewayError(f"unknown field {extra[0]!r} (known: {', '.join(sorted(known_gw))})")
            for key in ("key_env", "key_header"):
                if not isinstance(gw.get(key, ""), str):
                    raise GatewayError(f"{key}: expected a string")
            if not isinstance(gw.get("prices", {}), dict):
                raise GatewayError("prices: expected a table of model = [input, output]")
            gateway = parse_gateway(gw["url"], _strings(gw.get("allow", []), f"{where}: [gateway] allow"),
                                    _strings(gw.get("url_env", []), f"{where}: [gateway] url_env"),
                                    gw.get("connect_timeout", 10), gw.get("egress_network", "bridge"),
                                    gw.get("key_env", ""), gw.get("key_header", ""), gw.get("prices", {}))
        except GatewayError as exc:
            raise AgentConfigError(f"{where}: [gateway] {exc}") from None
    model = None
    m = _table(doc, "model", where)
    if m:
        try:
            model = ModelInfo(**{k: str(v) for k, v in m.items()})
        except TypeError:
            raise AgentConfigError(f"{where}: [model] needs provider, name, version (and reasoning_mode)") from None
    pass_env = check_env_names(_strings(doc.get("pass_env", []), f"{where}: 'pass_env'"), f"{where}: 'pass_env'")
    if gateway is not None and gateway.key_env in (*pass_env, *env):
        raise AgentConfigError(f"{where}: [gateway] key_env {gateway.key_env}: the provider key never enters the "
                               f"container (the gateway adds it): remove it from pass_env and env")
    return AgentConfig(name=doc["name"], image=doc["image"], command=tuple(command),
                       pass_env=pass_env,
                       env=tuple(sorted(env.items())), gateway=gateway,
                       limits=_limits(_table(doc, "limits", where), where), model=model, source=where)
