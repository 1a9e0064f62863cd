"""Syntax by the reference: Lua 5.4 compiles each file (`load(src, name, "t")`) in a fresh state, never runs it.

The deliverable cannot influence this parser: no configuration, no comments it reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import lupa.lua54 as lua54

from ._policy import SOURCE_LUA
from ._result import Diagnostic

_CHUNK = "f"  # a short chunk name, so that Lua never shortens it in messages
_MESSAGE = re.compile(rf"^{_CHUNK}:(\d+): (.*)$", re.DOTALL)


def check_syntax(sources: Mapping[str, str]) -> list[Diagnostic]:
    """One error per file that Lua 5.4 does not compile; `sources` maps relative path -> text."""
    runtime = lua54.LuaRuntime(register_eval=False, register_builtins=False, unpack_returned_tuples=True)
    compile_chunk = runtime.eval(f'function(src) local f, err = load(src, "={_CHUNK}", "t"); '
                                 'if f then return nil end; return err end')
    found: list[Diagnostic] = []
    for rel in sorted(sources):
        err = compile_chunk(sources[rel].encode("utf-8"))
        if err is None:
            continue
        text = err.decode("utf-8", errors="replace") if isinstance(err, bytes) else str(err)
        match = _MESSAGE.match(text)
        line, message = (int(match.group(1)), match.group(2)) if match else (0, text)
        found.append(Diagnostic(file=rel, line=line, column=0, code="syntax-error", severity="error",
                                source=SOURCE_LUA, message=" ".join(message.split())))
    return found
