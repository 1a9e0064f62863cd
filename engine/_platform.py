"""The world of the platform-service fakes (the `services` setting): its format, checked once, canonical.

The fakes themselves live in Lua (engine/lua/runtime/88_platform*.lua, docs/platform.md).  A task supplies their
initial world in `battery/platform.toml`; it reaches the engine as the `services` setting, the canonical JSON of
`normalize_services(...)`, so it is pinned with the other settings and two runs with the same world agree.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from ._evidence import canonical_json

DEFAULT_USER_ID = 10001
DEFAULT_NICKNAME = "Player"
DEFAULT_LATENCY_FRAMES = 2
DEFAULT_AD_DELAY_FRAMES = 60
AD_OUTCOMES = ("completed", "cancelled", "unsupported", "error")
HTTP_METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH")
SERVICES = ("clientCloud", "serverCloud", "http", "lobby", "sdk")
MAX_SERVICES_BYTES = 4 * 1024 * 1024
MAX_PLAYERS = 10_000
MAX_HTTP_RULES = 1000
MAX_FAILURE_RULES = 1000
MAX_KEY_BYTES = 128
MAX_DEPTH = 32
MAX_FRAMES = 10_000_000

TOP_KEYS = ("user", "players", "network", "ad", "http", "failures", "sdk")
USER_KEYS = ("id", "nickname", "map_name", "old", "values", "iscores", "money")
HTTP_KEYS = ("method", "url", "prefix", "status", "body", "headers", "latency_frames", "error", "times")
FAILURE_KEYS = ("service", "method", "calls", "code", "reason", "timeout")


class ServicesError(ValueError):
    """A platform world the engine refuses; the message names the field (`players[2].id`)."""


def _where(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _table(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ServicesError(f"field {path!r} must be a table, got {type(value).__name__}")
    return value


def _keys(table: Mapping[str, Any], allowed: tuple[str, ...], path: str) -> None:
    extra = sorted(set(table) - set(allowed))
    if extra:
        raise ServicesError(f"unknown key {_where(path, extra[0])!r} (allowed: {', '.join(allowed)})")


def _int(value: Any, path: str, low: int | None = None, high: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ServicesError(f"field {path!r} must be an integer, got {type(value).__name__}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"at least {low}" if high is None else f"between {low} and {high}"
        raise ServicesError(f"field {path!r} must be {bounds}, got {value}")
    return value


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise ServicesError(f"field {path!r} must be a string, got {type(value).__name__}")
    return value


def _bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise ServicesError(f"field {path!r} must be true or false, got {type(value).__name__}")
    return value


def _key(key: Any, path: str) -> str:
    if not isinstance(key, str) or not key or len(key.encode("utf-8")) > MAX_KEY_BYTES:
        raise ServicesError(f"field {path!r} has a bad key {key!r} (a non-empty string of at most {MAX_KEY_BYTES} "
                            "bytes)")
    return key


def _json_value(value: Any, path: str, depth: int = 0) -> Any:
    """A cloud value: string, integer, float, boolean, array or table, as JSON holds them."""
    if depth > MAX_DEPTH:
        raise ServicesError(f"field {path!r} is nested deeper than {MAX_DEPTH}")
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ServicesError(f"field {path!r} must be a finite number")
        return value
    if isinstance(value, list):
        return [_json_value(v, f"{path}[{i + 1}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        return {_key(k, path): _json_value(v, _where(path, k), depth + 1) for k, v in value.items()}
    raise ServicesError(f"field {path!r} must be a string, number, boolean, array or table, got "
                        f"{type(value).__name__}")


def _account(table: Mapping[str, Any], path: str, is_user: bool) -> dict[str, Any]:
    _keys(table, USER_KEYS, path)
    if is_user:
        uid = _int(table.get("id", DEFAULT_USER_ID), _where(path, "id"), 1)
    else:
        if "id" not in table:
            raise ServicesError(f"missing field {_where(path, 'id')!r}")
        uid = _int(table["id"], _where(path, "id"), 1)
    values = _table(table.get("values", {}), _where(path, "values"))
    iscores = _table(table.get("iscores", {}), _where(path, "iscores"))
    money = _table(table.get("money", {}), _where(path, "money"))
    out: dict[str, Any] = {
        "id": uid,
        "nickname": _str(table.get("nickname", DEFAULT_NICKNAME if is_user else ""), _where(path, "nickname")),
        "old": _bool(table.get("old", False), _where(path, "old")),
        "values": {_key(k, _where(path, "values")): _json_value(v, _where(_where(path, "values"), k))
                   for k, v in values.items()},
        "iscores": {_key(k, _where(path, "iscores")): _int(v, _where(_where(path, "iscores"), k))
                    for k, v in iscores.items()},
        "money": {_key(k, _where(path, "money")): _int(v, _where(_where(path, "money"), k), 0)
                  for k, v in money.items()},
    }
    if is_user:
        out["map_name"] = _str(table.get("map_name", ""), _where(path, "map_name"))
    elif "map_name" in table:
        raise ServicesError(f"field {_where(path, 'map_name')!r} belongs to [user] only")
    return out


def _http_rule(table: Mapping[str, Any], path: str, latency: int) -> dict[str, Any]:
    _keys(table, HTTP_KEYS, path)
    method = _str(table.get("method", "GET"), _where(path, "method")).upper()
    if method not in HTTP_METHODS:
        raise ServicesError(f"field {_where(path, 'method')!r} must be one of {', '.join(HTTP_METHODS)}")
    if ("url" in table) == ("prefix" in table):
        raise ServicesError(f"{path} needs exactly one of 'url' (the whole URL) or 'prefix'")
    rule: dict[str, Any] = {"method": method}
    if "url" in table:
        rule["url"] = _str(table["url"], _where(path, "url"))
    else:
        rule["prefix"] = _str(table["prefix"], _where(path, "prefix"))
    if "error" in table:
        for key in ("status", "body", "headers"):
            if key in table:
                raise ServicesError(f"{path}: 'error' (a network failure) excludes {key!r}")
        rule["error"] = _str(table["error"], _where(path, "error"))
    else:
        rule["status"] = _int(table.get("status", 200), _where(path, "status"), 100, 599)
        rule["body"] = _str(table.get("body", ""), _where(path, "body"))
        headers = _table(table.get("headers", {}), _where(path, "headers"))
        rule["headers"] = {_str(k, _where(path, "headers")): _str(v, _where(_where(path, "headers"), k))
                           for k, v in headers.items()}
    rule["latency_frames"] = _int(table.get("latency_frames", latency), _where(path, "latency_frames"), 1,
                                  MAX_FRAMES)
    if "times" in table:
        rule["times"] = _int(table["times"], _where(path, "times"), 1)
    return rule


def _failure_rule(table: Mapping[str, Any], path: str) -> dict[str, Any]:
    _keys(table, FAILURE_KEYS, path)
    if "service" not in table:
        raise ServicesError(f"missing field {_where(path, 'service')!r}")
    service = _str(table["service"], _where(path, "service"))
    if service not in SERVICES:
        raise ServicesError(f"field {_where(path, 'service')!r} must be one of {', '.join(SERVICES)}, got "
                            f"{service!r}")
    rule: dict[str, Any] = {
        "service": service,
        "method": _str(table.get("method", "*"), _where(path, "method")),
        "code": _int(table.get("code", -1), _where(path, "code")),
        "reason": _str(table.get("reason", "injected failure"), _where(path, "reason")),
        "timeout": _bool(table.get("timeout", False), _where(path, "timeout")),
    }
    if "calls" in table:
        calls = table["calls"]
        if not isinstance(calls, list) or not calls:
            raise ServicesError(f"field {_where(path, 'calls')!r} must be a non-empty list of call numbers")
        rule["calls"] = sorted({_int(c, f"{_where(path, 'calls')}[{i + 1}]", 1) for i, c in enumerate(calls)})
    return rule


def normalize_services(data: Mapping[str, Any]) -> dict[str, Any]:
    """The platform world with every default filled in; ServicesError names the first bad field."""
    data = _table(data, "services")
    _keys(data, TOP_KEYS, "")
    user = _account(_table(data.get("user", {}), "user"), "user", True)
    raw_players = data.get("players", [])
    if not isinstance(raw_players, list):
        raise ServicesError("field 'players' must be a list of tables ([[players]])")
    if len(raw_players) > MAX_PLAYERS:
        raise ServicesError(f"field 'players' has more than {MAX_PLAYERS} players")
    players = [_account(_table(p, f"players[{i + 1}]"), f"players[{i + 1}]", False)
               for i, p in enumerate(raw_players)]
    seen = {user["id"]: "user.id"}
    for i, p in enumerate(players):
        where = f"players[{i + 1}].id"
        if p["id"] in seen:
            raise ServicesError(f"field {where!r} repeats the id {p['id']} of {seen[p['id']]}")
        seen[p["id"]] = where
    network = _table(data.get("network", {}), "network")
    _keys(network, ("latency_frames",), "network")
    latency = _int(network.get("latency_frames", DEFAULT_LATENCY_FRAMES), "network.latency_frames", 1, MAX_FRAMES)
    ad = _table(data.get("ad", {}), "ad")
    _keys(ad, ("outcomes", "delay_frames", "message"), "ad")
    outcomes = ad.get("outcomes", ["completed"])
    if not isinstance(outcomes, list) or not outcomes:
        raise ServicesError("field 'ad.outcomes' must be a non-empty list")
    for i, outcome in enumerate(outcomes):
        if outcome not in AD_OUTCOMES:
            raise ServicesError(f"field 'ad.outcomes[{i + 1}]' must be one of {', '.join(AD_OUTCOMES)}, got "
                                f"{outcome!r}")
    raw_http = data.get("http", [])
    if not isinstance(raw_http, list) or len(raw_http) > MAX_HTTP_RULES:
        raise ServicesError(f"field 'http' must be a list of at most {MAX_HTTP_RULES} tables ([[http]])")
    raw_failures = data.get("failures", [])
    if not isinstance(raw_failures, list) or len(raw_failures) > MAX_FAILURE_RULES:
        raise ServicesError(f"field 'failures' must be a list of at most {MAX_FAILURE_RULES} tables ([[failures]])")
    sdk = _table(data.get("sdk", {}), "sdk")
    _keys(sdk, ("exit_menu_rect", "vibrate"), "sdk")
    out_sdk: dict[str, Any] = {"vibrate": _bool(sdk.get("vibrate", True), "sdk.vibrate")}
    if "exit_menu_rect" in sdk:
        rect = sdk["exit_menu_rect"]
        if (not isinstance(rect, list) or len(rect) != 4
                or not all(isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= 1 for v in rect)):
            raise ServicesError("field 'sdk.exit_menu_rect' must be [left, top, right, bottom] in 0..1")
        out_sdk["exit_menu_rect"] = [float(v) for v in rect]
    out = {
        "user": user,
        "players": players,
        "network": {"latency_frames": latency},
        "ad": {
            "outcomes": list(outcomes),
            "delay_frames": _int(ad.get("delay_frames", DEFAULT_AD_DELAY_FRAMES), "ad.delay_frames", 1, MAX_FRAMES),
            "message": _str(ad.get("message", "ad failed to load"), "ad.message"),
        },
        "http": [_http_rule(_table(r, f"http[{i + 1}]"), f"http[{i + 1}]", latency) for i, r in enumerate(raw_http)],
        "failures": [_failure_rule(_table(r, f"failures[{i + 1}]"), f"failures[{i + 1}]")
                     for i, r in enumerate(raw_failures)],
        "sdk": out_sdk,
    }
    if len(canonical_json(out).encode("utf-8")) > MAX_SERVICES_BYTES:
        raise ServicesError(f"the platform world is larger than {MAX_SERVICES_BYTES} bytes")
    return out


def parse_services(text: str) -> dict[str, Any]:
    """The `services` setting (JSON text; empty means the defaults), normalized."""
    if not text.strip():
        return normalize_services({})
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ServicesError(f"not JSON ({exc})") from None
    return normalize_services(data)


def services_setting(data: Mapping[str, Any]) -> str:
    """The `services` setting's value for a platform world: canonical JSON of the normalized world."""
    return canonical_json(normalize_services(data))
