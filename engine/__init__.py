"""The headless UrhoX runtime: Lua 5.4 (deterministic lupa build), the Urho3D-compatible API, the battery harness.

The public names load on first use (PEP 562): a command that only needs the engine's version or settings does
not pay for the Lua runtime, the registry or the native libraries.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "._bullet": ("BULLET_SOLVER_SETTINGS", "import_pybullet"),
    "._engine": ("BootedState", "Engine", "RunReport", "boot_state", "to_python"),
    "._errors": ("BadInputError", "EngineError", "SetupError"),
    "._evidence": ("canonical_json", "digest", "run_evidence"),
    "._fonts": ("stand_in_font_files",),
    "._platform": ("ServicesError", "services_setting"),
    "._registry": ("Registry", "default_registry", "load_registry"),
    "._runner": ("OUTCOMES", "START_ENV", "START_MODES", "RunRequest", "execute", "prestart", "run_in_subprocess"),
    "._settings": ("SETTINGS", "EngineSettings"),
    "._stubs": ("stub_files", "write_stubs"),
    "._version": ("API_VERSION", "ENGINE_NAME", "ENGINE_VERSION", "engine_build", "tree_build"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = [
    "API_VERSION",
    "BULLET_SOLVER_SETTINGS",
    "ENGINE_NAME",
    "ENGINE_VERSION",
    "OUTCOMES",
    "SETTINGS",
    "START_ENV",
    "START_MODES",
    "BadInputError",
    "BootedState",
    "Engine",
    "EngineError",
    "EngineSettings",
    "Registry",
    "RunReport",
    "RunRequest",
    "ServicesError",
    "SetupError",
    "boot_state",
    "canonical_json",
    "default_registry",
    "digest",
    "engine_build",
    "execute",
    "import_pybullet",
    "load_registry",
    "prestart",
    "run_evidence",
    "run_in_subprocess",
    "services_setting",
    "stand_in_font_files",
    "stub_files",
    "to_python",
    "tree_build",
    "write_stubs",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:   # what type checkers and readers see: the same names, imported eagerly
    from ._engine import BootedState, Engine, RunReport, boot_state, to_python
    from ._errors import BadInputError, EngineError, SetupError
    from ._evidence import canonical_json, digest, run_evidence
    from ._fonts import stand_in_font_files
    from ._platform import ServicesError, services_setting
    from ._registry import Registry, default_registry, load_registry
    from ._runner import OUTCOMES, START_ENV, START_MODES, RunRequest, execute, prestart, run_in_subprocess
    from ._settings import SETTINGS, EngineSettings
    from ._stubs import stub_files, write_stubs
    from ._version import API_VERSION, ENGINE_NAME, ENGINE_VERSION, engine_build, tree_build
