"""The coverage report: declared members of the registry against what the Lua runtime implements."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from ._engine import Engine, to_python
from ._lua import RUNTIME_DIR

# An event counts as sent where its name is a literal argument (first to third) of a call to a sender: a function
# whose name says send or emit, or the scene's own scene_event. Helpers that send must be named so; one that sends
# two events names both, e.g. send_pair(a, "CrowdAgentFailure", "CrowdAgentNodeFailure", fields).
_SENDER_CALL = re.compile(r'(?:\w*(?:send|emit)\w*|scene_event)\(([^()]*)')
_LITERAL = re.compile(r'\s*"([A-Za-z0-9]+)"\s*$')


def events_sent() -> set[str]:
    """Event names the runtime sends (a static scan of engine/lua/runtime)."""
    names: set[str] = set()
    for path in RUNTIME_DIR.glob("*.lua"):
        for args in _SENDER_CALL.findall(path.read_text()):
            for arg in args.split(",")[:3]:
                literal = _LITERAL.match(arg)
                if literal:
                    names.add(literal.group(1))
    return names


def coverage_report() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "scripts").mkdir()
        (Path(tmp) / "scripts" / "main.lua").write_text("function Start() end\n")
        engine = Engine(Path(tmp))
        data = dict(to_python(engine.E.coverage()))
        declared_events = set(to_python(engine.E.REGISTRY.events) or {})
    sent = events_sent()
    data["totals"]["events"] = {"declared": len(declared_events), "implemented": len(sent & declared_events)}
    data["undeclared"] = data["undeclared"] or []
    data["undeclared"] += sorted(f"event {name}" for name in sent - declared_events)
    data["missing"] = data["missing"] or []
    return data
