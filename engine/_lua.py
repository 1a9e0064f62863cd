"""Lua state construction: the deterministic lupa build, the boot sequence, registry hand-over."""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._errors import SetupError
from ._registry import Registry

LUA_DIR = Path(__file__).resolve().parent / "lua"
RUNTIME_DIR = LUA_DIR / "runtime"
# The grader's lupa build places every object of a state in an arena at a fixed virtual address:
# state k of a process (counting those alive at once) gets ARENA_BASE + k * ARENA_SPAN.  Pointer hashes
# use the low 32 bits, so iteration orders are the same in every slot.
ARENA_BASE = 0x100000000000
ARENA_SPAN = 1 << 32
ARENA_SLOTS = 16
BUILD_HINT = "run `python -m engine.native.build_lupa` (the README's install command does this)"


def _lupa() -> Any:
    try:
        import lupa.lua54 as lua54
        from lupa import version
    except ImportError as exc:
        raise SetupError(f"lupa is not installed: {BUILD_HINT}") from exc
    from .native.build_lupa import INSTALLED_VERSION

    if version.__version__ != INSTALLED_VERSION:
        raise SetupError(
            f"lupa {version.__version__} is installed, but the engine needs its deterministic build "
            f"{INSTALLED_VERSION}: {BUILD_HINT}"
        )
    return lua54


def memory_error() -> type[BaseException]:
    """The exception lupa raises when a call into Lua ends in Lua's own memory error (LUA_ERRMEM)."""
    return _lupa().LuaMemoryError


def _deny_attributes(obj: object, attr_name: object, is_setting: bool) -> object:
    raise AttributeError("Python attributes are not reachable from Lua")


def _placed_runtime(lua54: Any, memory_limit: int) -> tuple[Any, str]:
    """A new state and where its first table landed: (the state, or None when outside the arena; the probe)."""
    runtime = lua54.LuaRuntime(
        register_eval=False,
        register_builtins=False,
        unpack_returned_tuples=True,
        attribute_filter=_deny_attributes,
        max_memory=memory_limit,
    )
    probe = str(runtime.eval("tostring({})"))
    address = int(probe.rpartition("0x")[2], 16) if "0x" in probe else 0
    placed = ARENA_BASE <= address < ARENA_BASE + ARENA_SLOTS * ARENA_SPAN
    return (runtime if placed else None), probe


def new_runtime(memory_limit: int = 0) -> Any:
    """A fresh Lua 5.4 state with no `python` module and every Python attribute hidden (0: no memory limit yet)."""
    lua54 = _lupa()
    runtime, probe = _placed_runtime(lua54, memory_limit)
    if runtime is None:
        # A state dropped by Python keeps its arena slot until its reference cycles are collected; with every
        # slot taken the build falls back to malloc, which is not deterministic.  Collect, then ask once more.
        gc.collect()
        runtime, probe = _placed_runtime(lua54, memory_limit)
    if runtime is None:
        raise SetupError(
            f"lupa does not place Lua objects deterministically (got {probe}; {ARENA_SLOTS} states may be "
            f"alive at once): {BUILD_HINT}"
        )
    runtime.execute("python = nil; package.loaded.python = nil")
    return runtime


def registry_to_plain(registry: Registry) -> dict[str, Any]:
    """The registry as nested dicts and lists, ready for `table_from(recursive=True)`."""

    def plain(obj: Any) -> Any:
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            return {f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)
                    if getattr(obj, f.name) is not None}
        if isinstance(obj, dict):
            return {k: plain(v) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            return [plain(v) for v in obj]
        return obj

    out = plain(registry)
    for cls in out["classes"].values():
        for prop in cls["properties"].values():
            if "getter" in prop:
                prop["get"] = prop.pop("getter")
            if "setter" in prop:
                prop["set"] = prop.pop("setter")
    return out


def lua_table(runtime: Any, value: Any) -> Any:
    return runtime.table_from(value, recursive=True)


def boot(runtime: Any, registry: Registry, host: dict[str, Any]) -> Any:
    """Run boot.lua, the sandbox, every runtime module in name order, the binder and the harness; return E.

    This is the generic step of the boot (boot.lua explains the two): `host` holds nothing of a run (no settings,
    no files), and E.configure(run) must follow before a game runs.  All this code is the engine's own: it is
    marked unmetered, so the instruction budget never charges it.
    """
    loader = runtime.eval(
        "function(src, name) return debug.unmetered(assert(load(src, '@' .. name, 't'))) end")
    boot_fn = loader((LUA_DIR / "boot.lua").read_text(), "engine/boot.lua")
    env = boot_fn(lua_table(runtime, dict(host, registry=registry_to_plain(registry))))
    load_module: Callable[..., Any] = env["load_module"]
    for name in ("sandbox.lua", "require.lua"):
        load_module(f"engine/{name}", (LUA_DIR / name).read_text())
    for path in sorted(RUNTIME_DIR.glob("*.lua")):
        load_module(f"engine/runtime/{path.name}", path.read_text())
    load_module("engine/bind.lua", (LUA_DIR / "bind.lua").read_text())
    load_module("engine/harness.lua", (LUA_DIR / "harness.lua").read_text())
    env.finish_boot()
    return env
