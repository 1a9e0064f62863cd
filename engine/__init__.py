"""The headless UrhoX runtime: Lua 5.4 (deterministic lupa build), the Urho3D-compatible API, the battery harness."""

from ._engine import BootedState, Engine, RunReport, boot_state, to_python
from ._errors import BadInputError, EngineError, SetupError
from ._evidence import canonical_json, digest, run_evidence
from ._fonts import stand_in_font_files
from ._platform import ServicesError, services_setting
from ._registry import Registry, default_registry, load_registry
from ._runner import OUTCOMES, START_ENV, START_MODES, RunRequest, execute, run_in_subprocess
from ._settings import SETTINGS, EngineSettings
from ._stubs import stub_files, write_stubs
from ._version import API_VERSION, ENGINE_NAME, ENGINE_VERSION, engine_build, tree_build

__all__ = [
    "API_VERSION",
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
    "load_registry",
    "run_evidence",
    "run_in_subprocess",
    "services_setting",
    "stand_in_font_files",
    "stub_files",
    "to_python",
    "tree_build",
    "write_stubs",
]
