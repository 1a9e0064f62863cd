"""The grader's `.emmyrc.json`: Lua 5.4, the UrhoX stubs as a library, the error policy's severities."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ._policy import SERVER_SEVERITY


def emmyrc(library: Sequence[Path], overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The configuration.  `overrides` is merged in last (tests use it to break the configuration)."""
    config: dict[str, Any] = {
        "runtime": {"version": "Lua5.4", "requireLikeFunction": [], "extensions": [], "nonstandardSymbol": []},
        "workspace": {
            "library": [str(p) for p in library],
            "ignoreDir": [],
            "ignoreGlobs": [],
            "workspaceRoots": [],
            "enableReindex": False,
        },
        "diagnostics": {
            "enable": True,
            "disable": [],
            "enables": [],
            "globals": [],
            "globalsRegex": [],
            "severity": dict(sorted(SERVER_SEVERITY.items())),
            # Diagnostics are pulled; this only puts off the pushes the server also schedules for changed files.
            "diagnosticInterval": 600_000,
        },
        "completion": {"autoRequire": False},
        "hint": {"enable": False},
        "codeLens": {"enable": False},
        "semanticTokens": {"enable": False},
    }
    for section, values in (overrides or {}).items():
        if isinstance(values, Mapping) and isinstance(config.get(section), dict):
            config[section].update(values)
        else:
            config[section] = values
    return config


def write_emmyrc(root: Path, config: Mapping[str, Any]) -> Path:
    path = root / ".emmyrc.json"
    path.write_text(json.dumps(config, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path
