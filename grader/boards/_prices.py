"""List prices for the boards' cost column: a small TOML table the maintainer supplies with each edition.

    # USD per million tokens, by the model label the boards show (provider/name@version [reasoning mode])
    [models."acme/alpha@1"]
    input_per_mtok = 3.0
    output_per_mtok = 15.0
    source = "https://acme.example/pricing"   # optional, recorded in the snapshot
    as_of = "2026-11-30"                      # optional, recorded in the snapshot

Prices are inputs like any other: the snapshot records the table it used, so the cost column can be recomputed.
A model without a row keeps "N/A" (never an estimate from another model's price).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from grader._errors import TaskError
from grader._toml import read_toml
from grader.stats import Price

PRICE_FIELDS = ("input_per_mtok", "output_per_mtok")
NOTE_FIELDS = ("source", "as_of")


class PricesError(TaskError):
    """A price table that cannot be used; the message names the file and the field."""


def _number(path: Path, model: str, field: str, value: Any) -> float:
    where = f'{path}: models."{model}".{field}'
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PricesError(f"{where}: must be a number of USD per million tokens, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise PricesError(f"{where}: must be a finite number >= 0, got {value!r}")
    return float(value)


def load_prices(path: Path) -> tuple[dict[str, Price], dict[str, dict[str, Any]]]:
    """The prices by model label, and the table as the snapshot records it (sorted, plain JSON)."""
    data = read_toml(path, PricesError, "price table")
    unknown = sorted(set(data) - {"models"})
    if unknown:
        raise PricesError(f"{path}: unknown key(s) {', '.join(unknown)} (expected only [models.\"<label>\"] tables)")
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise PricesError(f"{path}: models: must be a table of [models.\"<label>\"] tables")
    prices: dict[str, Price] = {}
    recorded: dict[str, dict[str, Any]] = {}
    for model in sorted(models):
        row = models[model]
        if not isinstance(row, dict):
            raise PricesError(f'{path}: models."{model}": must be a table')
        extra = sorted(set(row) - set(PRICE_FIELDS) - set(NOTE_FIELDS))
        if extra:
            raise PricesError(f'{path}: models."{model}": unknown field(s) {", ".join(extra)}')
        for field in PRICE_FIELDS:
            if field not in row:
                raise PricesError(f'{path}: models."{model}".{field}: missing')
        for field in NOTE_FIELDS:
            if field in row and not isinstance(row[field], str):
                raise PricesError(f'{path}: models."{model}".{field}: must be a string')
        price = Price(*(_number(path, model, f, row[f]) for f in PRICE_FIELDS))
        prices[model] = price
        recorded[model] = {**{f: row[f] for f in NOTE_FIELDS if f in row},
                           "input_per_mtok": price.input_per_mtok, "output_per_mtok": price.output_per_mtok}
    return prices, recorded
