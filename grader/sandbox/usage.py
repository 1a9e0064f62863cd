"""The usage file a driver may leave: token counts, cost and tool calls, as the agent's own harness reports them.

It lives outside the deliverable: the container sees a separate writable folder at /usage (environment
variable GRADER_USAGE_FILE=/usage/usage.json), so L0 never counts it and nothing in it is graded.  Format (every
field optional; an absent field is NULL in the ledger, never guessed):

    {"version": 1, "tokens_in": 1200, "tokens_out": 340, "cost_usd": 0.0123, "tool_calls": 17}

The file is written by code in the agent's container, so it is read as hostile input: not followed when it is
a link, at most MAX_BYTES, and a malformed file or field is recorded as NULL with a warning naming the file and
the field, never a crash.
"""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

USAGE_DIR = "/usage"
USAGE_NAME = "usage.json"
USAGE_FILE = f"{USAGE_DIR}/{USAGE_NAME}"
USAGE_VERSION = 1
MAX_BYTES = 64 << 10
MAX_COUNT = 2**31 - 1  # the ledger's integer columns
MAX_COST_USD = 1e6
COUNTS = ("tokens_in", "tokens_out", "tool_calls")
FIELDS = (*COUNTS, "cost_usd")


@dataclass(frozen=True)
class Usage:
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    tool_calls: int | None = None
    warnings: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"tokens_in": self.tokens_in, "tokens_out": self.tokens_out, "cost_usd": self.cost_usd,
                "tool_calls": self.tool_calls, "warnings": list(self.warnings)}


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _field(name: str, value: Any) -> tuple[Any, str | None]:
    """(value or None, a problem or None) for one known field."""
    if name in COUNTS:
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT:
            return value, None
        return None, f"expected an integer from 0 to {MAX_COUNT}"
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) \
            and 0 <= value <= MAX_COST_USD:
        return float(value), None
    return None, f"expected a number of US dollars from 0 to {MAX_COST_USD:g}"


def parse_usage(data: bytes, source: str = USAGE_FILE) -> Usage:
    """The usage a file's bytes report; every problem is a warning naming `source` (and the field)."""
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError) as exc:
        return Usage(warnings=(f"{source}: not valid JSON ({exc}); usage recorded as NULL",))
    if not isinstance(doc, dict):
        return Usage(warnings=(f"{source}: expected a JSON object, got {type(doc).__name__}; usage recorded as NULL",))
    version = doc.get("version", USAGE_VERSION)
    if version != USAGE_VERSION or isinstance(version, bool):
        return Usage(warnings=(f"{source}: field 'version': {str(version)[:40]!r} is not a version this grader "
                               f"reads ({USAGE_VERSION}); usage recorded as NULL",))
    values: dict[str, Any] = {}
    warnings = []
    for name in FIELDS:
        if doc.get(name) is None:
            continue
        value, problem = _field(name, doc[name])
        if problem:
            warnings.append(f"{source}: field {name!r}: {problem}, got {json.dumps(doc[name])[:40]}; "
                            f"recorded as NULL")
        values[name] = value
    unknown = sorted(k for k in doc if k not in (*FIELDS, "version"))
    if unknown:
        shown = ", ".join(repr(k[:40]) for k in unknown[:10]) + (" ..." if len(unknown) > 10 else "")
        warnings.append(f"{source}: unknown fields ignored: {shown}")
    return Usage(**values, warnings=tuple(warnings))


def read_usage(folder: Path, source: str = USAGE_FILE) -> Usage:
    """Read folder/usage.json as the container left it: absent -> every field NULL and no warning."""
    path = Path(folder) / USAGE_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return Usage()
    except OSError as exc:  # a link (ELOOP), or something else that is not a plain file
        return Usage(warnings=(f"{source}: cannot be read ({exc.strerror}); usage recorded as NULL",))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return Usage(warnings=(f"{source}: not a regular file; usage recorded as NULL",))
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:
        return Usage(warnings=(f"{source}: larger than {MAX_BYTES} bytes; usage recorded as NULL",))
    return parse_usage(data, source)
