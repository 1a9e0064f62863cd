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

A model's label on the boards is `provider/model@version`, with ` [mode]` unless the mode is `default`.  The
built-in baselines `oracle` and `nop` (BASELINES) need no entry: they are planned by name, labelled by their
driver, and have no model, prices or concurrency limit.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledger import ModelFacts, PlannedModel, model_label

from ._toml import read_toml
from .drivers import DriverError, resolve_driver
from .tasks import TaskError

BASELINES = ("oracle", "nop")
ENTRY_FIELDS = {"provider", "model", "version", "driver", "concurrency", "reasoning", "prices"}
REASONING_FIELDS = {"mode", "budget_tokens"}
PRICE_FIELDS = ("input_per_mtok", "output_per_mtok")
PRICE_NOTES = ("source", "as_of")
UNPINNED = {"latest", "default", "current", "stable", "*"}
_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
MAX_CONCURRENCY = 256


class ModelsFileError(TaskError):
    """A models.toml that cannot be used; the message names the file and the field."""


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
        return cls(recorded.get("key", recorded["label"]), recorded["driver"], model, recorded.get("concurrency"),
                   (recorded.get("reasoning") or {}).get("budget_tokens"),
                   (float(prices["input_per_mtok"]), float(prices["output_per_mtok"])) if prices else None,
                   tuple((k, str(prices[k])) for k in PRICE_NOTES if prices and k in prices))


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
    return ModelEntry(key, driver, ModelFacts(provider, name, version, mode), concurrency, budget,
                      (_price(path, f"{where}.prices.input_per_mtok", prices["input_per_mtok"]),
                       _price(path, f"{where}.prices.output_per_mtok", prices["output_per_mtok"])), notes)


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
