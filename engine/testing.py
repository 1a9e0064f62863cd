"""Helpers for tests: run Lua snippets in a fully booted engine's game sandbox."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from ._engine import Engine, to_python


def new_engine(main_lua: str = "function Start() end\n", files: dict[str, str | bytes] | None = None) -> Engine:
    """An engine over a throwaway game folder holding `main_lua` (and any other files, text or bytes)."""
    tmp = Path(tempfile.mkdtemp(prefix="grader-test-game-"))
    (tmp / "scripts").mkdir()
    (tmp / "scripts" / "main.lua").write_text(main_lua)
    for rel, text in (files or {}).items():
        path = tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
    return Engine(tmp)


def lua(code: str, engine: Engine | None = None) -> Any:
    """Run `code` (a Lua chunk; use `return` for a value) in the game's sandbox; Lua tables come back as lists/dicts.

    A Lua error raises lupa's LuaError with the message.
    """
    engine = engine or new_engine()
    loader = engine.runtime.eval(
        "function(src, env) local f = assert(load(src, '=test', 't', env)); return table.pack(f()) end"
    )
    engine.E.enter_game()
    try:
        packed = loader(code, engine.game_env)
    finally:
        engine.E.leave_game()
    n = int(packed["n"])
    values = [to_python(packed[i]) for i in range(1, n + 1)]
    if n == 0:
        return None
    return values[0] if n == 1 else values


def engine_eval(engine: Engine, body: str, *args: Any) -> Any:
    """Run `body` (Lua; `E` is the engine's table, `G` the game's globals, `...` the args) outside the game's sandbox.

    Nothing is cached per engine: a cache keyed by engine would keep every engine's Lua state (and its arena slot)
    alive for the whole test session.
    """
    fn = engine.runtime.eval(f"function(E, G, ...) {body} end")
    return to_python(fn(engine.E, engine.game_env, *args))
