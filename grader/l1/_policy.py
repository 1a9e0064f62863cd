"""What fails L1 (docs/l1.md): the error-policy codes, the server's severities, and the canonical findings.

Only the codes of the error policy are kept.  They are decided by name lookup (is this global or member
declared anywhere?) and by the parser, so they are the same in every run.  Type-inference findings
(param-type-mismatch, need-check-nil, ...) are left out: when two files define the same global function, which
definition the server's inference sees first changes between runs, and so would they.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from engine import Registry

from ._result import SEVERITIES, Diagnostic

SOURCE_SERVER = "emmylua_ls"
SOURCE_LUA = "lua54"

# Every one is an error: the deliverable fails L1 on any of them (but see `reconcile`).
ERROR_CODES: tuple[str, ...] = (
    "syntax-error",          # the file does not parse
    "undefined-global",      # a global that neither Lua 5.4, UrhoX nor the deliverable defines
    "undefined-field",       # a member that no declared class (Node, Vector3, string, ...) has
    "local-const-reassign",  # assigning to a <const> local: a compile error in Lua 5.4
)

# The server's severities: the policy codes are errors; codes the server counts as errors by default but
# which are about annotations (comments), not code, are lowered to warnings.
SERVER_SEVERITY: dict[str, str] = {
    **{code: "error" for code in ERROR_CODES},
    "doc-syntax-error": "warning",
    "annotation-usage-error": "warning",
}

# Members of Lua 5.4's standard library, and of cjson.
_LUA_LIBRARY = {
    "string": "byte char dump find format gmatch gsub len lower match pack packsize rep reverse sub unpack upper",
    "table": "concat insert move pack remove sort unpack",
    "math": "abs acos asin atan ceil cos deg exp floor fmod huge log max maxinteger min mininteger modf pi rad "
            "random randomseed sin sqrt tan tointeger type ult pow atan2 cosh sinh tanh log10 frexp ldexp",
    "io and files": "close flush input lines open output popen read seek setvbuf stderr stdin stdout tmpfile type "
                    "write",
    "os": "clock date difftime execute exit getenv remove rename setlocale time tmpname",
    "coroutine": "close create isyieldable resume running status wrap yield",
    "utf8": "char charpattern codepoint codes len offset",
    "package and debug": "config cpath loaded loadlib path preload searchers searchpath traceback",
    "cjson": "encode decode null new",
}
LUA_MEMBERS = frozenset(name for names in _LUA_LIBRARY.values() for name in names.split())


def api_members(registry: Registry) -> frozenset[str]:
    """Every member name a declared UrhoX class has: methods, properties, data fields, statics, `new`."""
    names: set[str] = {"new"}
    for decl in registry.classes.values():
        names.update(decl.methods, decl.properties, decl.fields, decl.statics)
    return frozenset(names)


def from_server(rel: str, raw: Mapping[str, Any]) -> Diagnostic | None:
    """A canonical finding from an LSP diagnostic, or None when its code is outside the error policy."""
    code = str(raw.get("code", ""))
    if code not in ERROR_CODES:
        return None
    start = raw.get("range", {}).get("start", {})
    severity = int(raw.get("severity") or 1)
    return Diagnostic(
        file=rel, line=int(start.get("line", 0)) + 1, column=int(start.get("character", 0)) + 1, code=code,
        severity=SEVERITIES[min(max(severity, 1), 4) - 1], source=SOURCE_SERVER,
        message=" ".join(str(raw.get("message", "")).split()),
    )


_UNDEFINED_FIELD = re.compile(r"Undefined field `([^`]*)`")
_ASSIGNED = re.compile(
    r"[.:]\s*([A-Za-z_]\w*)\s*=(?!=)"                         # x.name = ...
    r"|\bfunction\s+[A-Za-z_][\w.]*[.:]([A-Za-z_]\w*)"         # function x.name() / function x:name()
    r"|\[\s*[\"']([A-Za-z_]\w*)[\"']\s*\]\s*=(?!=)"              # x["name"] = ...
    r"|\brawset\s*\([^,()]+,\s*[\"']([A-Za-z_]\w*)[\"']"          # rawset(x, "name", ...)
)


def assigned_names(sources: Iterable[str]) -> frozenset[str]:
    """Every field name the deliverable assigns somewhere (text match, so comments count too: it only ever
    excuses more)."""
    names: set[str] = set()
    for text in sources:
        for match in _ASSIGNED.finditer(text):
            names.update(g for g in match.groups() if g)
    return frozenset(names)


def _with_severity(d: Diagnostic, severity: str) -> Diagnostic:
    return Diagnostic(d.file, d.line, d.column, d.code, severity, d.source, d.message)


def reconcile(server: Iterable[Diagnostic], lua: Iterable[Diagnostic],
              known_members: frozenset[str]) -> list[Diagnostic]:
    """The final findings, with two corrections to the server's severities, both lowering an error to a warning:

    - Lua 5.4's own compiler decides syntax: a server syntax error in a file that Lua compiles is a
      disagreement of the linter.
    - `undefined-field` stays an error only for a name that no declared class has and the deliverable never
      assigns (`known_members`: UrhoX's and Lua's member names, and `node.hp = 10`, `function Rotator:Start()`
      ... of the deliverable).  A known name reported undefined is, as a rule, the server losing a type on the
      way (a `local player_` assigned in `Start()` is `nil` in every other function to it, so
      `player_.position.x` is reported), or a game keeping its own data on an engine object, which UrhoX allows.
    """
    lua = list(lua)
    broken = {d.file for d in lua}
    out = list(lua)
    for d in server:
        if d.code == "syntax-error" and d.file not in broken:
            d = _with_severity(d, "warning")
        elif d.code == "undefined-field":
            match = _UNDEFINED_FIELD.search(d.message)
            if match is not None and match.group(1) in known_members:
                d = _with_severity(d, "warning")
        out.append(d)
    return out
