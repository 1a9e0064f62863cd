"""models.toml: the models an edition attempts, one table each (`grader edition plan NAME --models models.toml`).

    [models.alpha]                            # the entry's key (letters, digits, . _ -)
    provider = "acme"
    model = "alpha"                           # the provider's model id
    version = "2026-01-15"                    # the pinned version (a snapshot date or build; never "latest")
    driver = "command:agents/alpha.toml"      # the agent driver that drives it (a path relative to this file)
    concurrency = 4                           # at most this many of its attempts at once (default 1)

    [models.alpha.reasoning]                  # optional
    mode = "high"                             # recorded with the model (default "default")
    budget_tokens = 8000                      # optional

    [models.alpha.prices]                     # list prices, USD per million tokens (the boards' cost column)
    input_per_mtok = 3.0
    output_per_mtok = 15.0
    source = "https://acme.example/pricing"   # optional
    as_of = "2026-11-30"                      # optional

The shipped agent loop (`driver = "loop"`, docs/agents.md) drives the entry itself: it sends `model` with each
request and `reasoning.mode` (unless "default") as `reasoning_effort`, and needs the provider's endpoint:

    [models.alpha.endpoint]                   # required with driver = "loop", refused with any other driver
    url = "https://api.acme.example/v1"       # the chat-completions base URL, reached through the metered gateway
    key_env = "ACME_API_KEY"                  # optional: the gateway adds this key; it never enters the container
    key_header = "authorization"              # the default with key_env ("Bearer <key>"), or e.g. "x-api-key"
    extra_body = { top_p = 0.95 }             # optional: merged into every request's body

    [models.alpha.loop]                       # optional, with driver = "loop"
    max_steps = 100                           # model calls (default 100)
    max_cost_usd = 3.0                        # at the list prices above (default 3.0)
    command_seconds = 120                     # per command (default 120)

A model's label on the boards is `provider/model@version`, with ` [mode]` unless the mode is `default`.  The
built-in baselines (BASELINES: `oracle`, `nop` and the scripted imperfect agents `scripted:steady`,
`scripted:erratic`, `scripted:careless`, grader/drivers.py) need no entry: they are planned by name, labelled by
their driver, and have no model, prices or concurrency limit.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledger import ModelFacts, PlannedModel, model_label

from ._toml import read_toml
from .drivers import DriverError, resolve_driver
from .tasks import TaskError

BASELINES = ("oracle", "nop", "scripted:steady", "scripted:erratic", "scripted:careless")
ENTRY_FIELDS = {"provider", "model", "version", "driver", "concurrency", "reasoning", "prices", "endpoint", "loop"}
ENDPOINT_FIELDS = {"url", "key_env", "key_header", "extra_body"}
LOOP_FIELDS = {"max_steps", "max_cost_usd", "command_seconds"}
LOOP_OWN_FIELDS = {"model", "messages", "stream", "reasoning_effort"}   # the loop's, never extra_body's
MAX_EXTRA_BODY = 4096
REASONING_FIELDS = {"mode", "budget_tokens"}
PRICE_FIELDS = ("input_per_mtok", "output_per_mtok")
PRICE_NOTES = ("source", "as_of")
UNPINNED = {"latest", "default", "current", "stable", "*"}
_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
MAX_CONCURRENCY = 256


class ModelsFileError(TaskError):
    """A models.toml that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Endpoint:
    """Where the shipped agent loop reaches its model: a chat-completions base URL, through the metered gateway,
    which adds the key named by key_env (the key never enters the container)."""

    url: str
    key_env: str = ""
    key_header: str = ""
    extra_body: str = "{}"                  # a JSON object (canonical), merged into every request's body

    def as_dict(self) -> dict[str, Any]:
        return {"url": self.url, "key_env": self.key_env, "key_header": self.key_header,
                "extra_body": json.loads(self.extra_body)}


@dataclass(frozen=True)
class LoopLimits:
    """When the shipped agent loop stops on its own (besides the task's time limit)."""

    max_steps: int = 100
    max_cost_usd: float = 3.0
    command_seconds: int = 120

    def as_dict(self) -> dict[str, Any]:
        return {"max_steps": self.max_steps, "max_cost_usd": self.max_cost_usd,
                "command_seconds": self.command_seconds}


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class ModelEntry:
    """One model of an edition's plan."""

    key: str
    driver: str
    model: ModelFacts | None = None         # None: a built-in baseline
    concurrency: int | None = None          # None: no limit
    budget_tokens: int | None = None
    prices: tuple[float, float] | None = None
    price_notes: tuple[tuple[str, str], ...] = ()
    endpoint: Endpoint | None = None        # the loop driver's provider (driver = "loop" only)
    loop: LoopLimits | None = None          # the loop driver's limits (driver = "loop" only)

    @property
    def label(self) -> str:
        return model_label(self.model, self.driver)

    def planned(self) -> PlannedModel:
        """The entry as the ledger records it with the plan (plain JSON)."""
        entry: dict[str, Any] = {"key": self.key, "concurrency": self.concurrency}
        if self.model is not None:
            entry |= {"provider": self.model.provider, "model": self.model.name, "version": self.model.version,
                      "reasoning": {"mode": self.model.reasoning_mode, "budget_tokens": self.budget_tokens}}
        else:
            entry["baseline"] = True
        if self.prices is not None:
            entry["prices"] = {"input_per_mtok": self.prices[0], "output_per_mtok": self.prices[1],
                               **dict(self.price_notes)}
        if self.endpoint is not None:
            entry["endpoint"] = self.endpoint.as_dict()
        if self.loop is not None:
            entry["loop"] = self.loop.as_dict()
        return PlannedModel(self.label, self.driver, entry)

    @classmethod
    def from_planned(cls, recorded: dict[str, Any]) -> ModelEntry:
        """The entry back from the plan the ledger holds."""
        model = None
        if not recorded.get("baseline"):
            reasoning = recorded.get("reasoning") or {}
            model = ModelFacts(recorded["provider"], recorded["model"], recorded["version"],
                               reasoning.get("mode", "default"))
        prices = recorded.get("prices")
        endpoint, loop = recorded.get("endpoint"), recorded.get("loop")
        return cls(recorded.get("key", recorded["label"]), recorded["driver"], model, recorded.get("concurrency"),
                   (recorded.get("reasoning") or {}).get("budget_tokens"),
                   (float(prices["input_per_mtok"]), float(prices["output_per_mtok"])) if prices else None,
                   tuple((k, str(prices[k])) for k in PRICE_NOTES if prices and k in prices),
                   Endpoint(endpoint["url"], endpoint["key_env"], endpoint["key_header"],
                            _canonical(endpoint["extra_body"])) if endpoint else None,
                   LoopLimits(**loop) if loop else None)


def baseline(name: str) -> ModelEntry:
    if name not in BASELINES:
        raise ModelsFileError(f"--baseline {name!r}: not a built-in baseline (known: {', '.join(BASELINES)})")
    return ModelEntry(name, name)


def _string(path: Path, where: str, table: dict[str, Any], key: str, required: bool = True) -> str | None:
    if key not in table:
        if required:
            raise ModelsFileError(f"{path}: {where}.{key}: missing")
        return None
    value = table[key]
    if not isinstance(value, str) or not value.strip() or len(value) > 128:
        raise ModelsFileError(f"{path}: {where}.{key}: must be a non-empty string of at most 128 characters, "
                              f"got {value!r}")
    return value


def _integer(path: Path, where: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ModelsFileError(f"{path}: {where}: must be an integer from {low} to {high}, got {value!r}")
    return value


def _price(path: Path, where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise ModelsFileError(f"{path}: {where}: must be a number of USD per million tokens >= 0, got {value!r}")
    return float(value)


def _table(path: Path, where: str, value: Any, allowed: set[str] | tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ModelsFileError(f"{path}: {where}: must be a table")
    extra = sorted(set(value) - set(allowed))
    if extra:
        raise ModelsFileError(f"{path}: {where}: unknown field(s) {', '.join(extra)} (known: "
                              f"{', '.join(sorted(allowed))})")
    return value


def _driver(path: Path, where: str, spec: str) -> str:
    try:
        driver, arg = resolve_driver(spec)
    except DriverError as exc:
        raise ModelsFileError(f"{path}: {where}: {exc}") from None
    if driver.drives_model:
        if arg:
            raise ModelsFileError(f"{path}: {where}: {spec!r}: in models.toml the entry itself is the {driver.name} "
                                  f"driver's model: write driver = \"{driver.name}\"")
        return driver.name
    if driver.argument == "AGENT.toml":
        file = (path.parent / arg).resolve()
        if not file.is_file():
            raise ModelsFileError(f"{path}: {where}: {arg}: no such agent file (paths are relative to {path.name})")
        return driver.spec(str(file))
    if driver.argument == "DIR":
        folder = (path.parent / arg).resolve()
        if not folder.is_dir():
            raise ModelsFileError(f"{path}: {where}: {arg}: not a folder (paths are relative to {path.name})")
        return driver.spec(str(folder))
    return spec


def _entry(path: Path, key: str, raw: Any) -> ModelEntry:
    where = f"models.{key}"
    if not _KEY.fullmatch(key):
        raise ModelsFileError(f"{path}: {where}: a model's key is letters, digits, '.', '_' and '-' (64 at most)")
    table = _table(path, where, raw, ENTRY_FIELDS)
    provider = _string(path, where, table, "provider")
    name = _string(path, where, table, "model")
    version = _string(path, where, table, "version")
    assert provider and name and version
    if version.strip().lower() in UNPINNED:
        raise ModelsFileError(f"{path}: {where}.version: {version!r} is not a pinned version (give the provider's "
                              f"dated snapshot or build)")
    driver = _driver(path, f"{where}.driver", _string(path, where, table, "driver") or "")
    concurrency = _integer(path, f"{where}.concurrency", table.get("concurrency", 1), 1, MAX_CONCURRENCY)
    reasoning = _table(path, f"{where}.reasoning", table.get("reasoning", {}), REASONING_FIELDS)
    mode = _string(path, f"{where}.reasoning", reasoning, "mode", required=False) or "default"
    budget = reasoning.get("budget_tokens")
    if budget is not None:
        budget = _integer(path, f"{where}.reasoning.budget_tokens", budget, 0, 10_000_000)
    if "prices" not in table:
        raise ModelsFileError(f"{path}: {where}.prices: missing (list prices: input_per_mtok, output_per_mtok)")
    prices = _table(path, f"{where}.prices", table["prices"], PRICE_FIELDS + PRICE_NOTES)
    for field in PRICE_FIELDS:
        if field not in prices:
            raise ModelsFileError(f"{path}: {where}.prices.{field}: missing")
    notes = tuple((k, v) for k in PRICE_NOTES
                  if (v := _string(path, f"{where}.prices", prices, k, required=False)) is not None)
    endpoint, loop = _loop_settings(path, where, table, resolve_driver(driver)[0].drives_model)
    return ModelEntry(key, driver, ModelFacts(provider, name, version, mode), concurrency, budget,
                      (_price(path, f"{where}.prices.input_per_mtok", prices["input_per_mtok"]),
                       _price(path, f"{where}.prices.output_per_mtok", prices["output_per_mtok"])), notes,
                      endpoint, loop)


def _endpoint(path: Path, where: str, raw: Any) -> Endpoint:
    from .sandbox.gateway import GatewayError, parse_gateway

    table = _table(path, where, raw, ENDPOINT_FIELDS)
    url = _string(path, where, table, "url") or ""
    key_env = _string(path, where, table, "key_env", required=False) or ""
    key_header = (_string(path, where, table, "key_header", required=False) or "authorization") if key_env else ""
    if "key_header" in table and not key_env:
        raise ModelsFileError(f"{path}: {where}.key_header: goes with key_env (the variable holding the key)")
    try:
        parse_gateway(url, key_env=key_env, key_header=key_header)
    except GatewayError as exc:
        raise ModelsFileError(f"{path}: {where}: {exc}") from None
    if key_env.startswith("GRADER_") or key_env in ("HOME", "PATH"):
        raise ModelsFileError(f"{path}: {where}.key_env: {key_env} is the grader's own variable")
    extra = table.get("extra_body", {})
    if not isinstance(extra, dict):
        raise ModelsFileError(f"{path}: {where}.extra_body: must be a table (merged into every request's body)")
    own = sorted(set(extra) & LOOP_OWN_FIELDS)
    if own:
        raise ModelsFileError(f"{path}: {where}.extra_body.{own[0]}: set by the loop itself (the model, the "
                              f"messages, reasoning.mode as reasoning_effort; never streamed)")
    canonical = _canonical(extra)
    if len(canonical) > MAX_EXTRA_BODY:
        raise ModelsFileError(f"{path}: {where}.extra_body: {len(canonical)} characters of JSON, at most "
                              f"{MAX_EXTRA_BODY}")
    return Endpoint(url, key_env, key_header.lower(), canonical)


def _loop_limits(path: Path, where: str, raw: Any) -> LoopLimits:
    table = _table(path, where, raw, LOOP_FIELDS)
    limits = LoopLimits()
    cost = table.get("max_cost_usd", limits.max_cost_usd)
    if isinstance(cost, bool) or not isinstance(cost, int | float) or not math.isfinite(cost) or cost <= 0:
        raise ModelsFileError(f"{path}: {where}.max_cost_usd: must be a positive number of USD, got {cost!r}")
    return LoopLimits(_integer(path, f"{where}.max_steps", table.get("max_steps", limits.max_steps), 1, 100_000),
                      float(cost),
                      _integer(path, f"{where}.command_seconds", table.get("command_seconds", limits.command_seconds),
                               1, 86_400))


def _loop_settings(path: Path, where: str, table: dict[str, Any],
                   drives_model: bool) -> tuple[Endpoint | None, LoopLimits | None]:
    """The loop driver's endpoint and limits: required (endpoint) and allowed only with driver = "loop"."""
    if not drives_model:
        for field in ("endpoint", "loop"):
            if field in table:
                raise ModelsFileError(f"{path}: {where}.{field}: only the loop driver reads it (driver = "
                                      f"{table['driver']!r})")
        return None, None
    if "endpoint" not in table:
        raise ModelsFileError(f"{path}: {where}.endpoint: missing (the loop driver's provider: url, and key_env "
                              f"when it needs a key)")
    return (_endpoint(path, f"{where}.endpoint", table["endpoint"]),
            _loop_limits(path, f"{where}.loop", table.get("loop", {})))


def load_model(ref: str) -> ModelEntry:
    """One entry of a models.toml, from `MODELS.toml#KEY` (the loop driver's argument)."""
    file, sep, key = ref.rpartition("#")
    if not sep or not file or not key:
        raise ModelsFileError(f"loop:{ref}: name one model of a models.toml: loop:MODELS.toml#KEY")
    entries = {e.key: e for e in load_models(Path(file))}
    if key not in entries:
        raise ModelsFileError(f"{file}: models.{key}: no such model (known: {', '.join(entries)})")
    return entries[key]


def load_models(path: Path) -> list[ModelEntry]:
    """Every entry of a models.toml, in the file's order, validated (ModelsFileError names the field)."""
    data = read_toml(path, ModelsFileError, "models file")
    extra = sorted(set(data) - {"models"})
    if extra:
        raise ModelsFileError(f"{path}: unknown key(s) {', '.join(extra)} (expected only [models.<key>] tables)")
    models = data.get("models")
    if not isinstance(models, dict) or not models:
        raise ModelsFileError(f"{path}: models: no [models.<key>] table")
    entries = [_entry(path, key, raw) for key, raw in models.items()]
    labels: dict[str, str] = {}
    for e in entries:
        if e.label in labels:
            raise ModelsFileError(f"{path}: models.{e.key}: the same model as models.{labels[e.label]} ({e.label})")
        labels[e.label] = e.key
    return entries
