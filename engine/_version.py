"""The engine's versions: the human one, and the build digest derived from what determines behaviour.

`ENGINE_VERSION` is typed by hand and says what changed in words (CHANGELOG.md).  `engine_build()` is the
SHA-256 over every file of the engine that can change a run's evidence — its Python, its Lua runtime, the API
registry, the stock-resource metadata and skeletal data, the patched Lua's C source — and the versions of the native
pieces it runs on (the deterministic lupa build, Yoga, fontTools, pybullet, Box2D, numpy).  Two engines with equal
builds produce the same evidence for the same run; editions and verdicts pin the build, not the human version.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import metadata
from pathlib import Path

ENGINE_NAME = "grader-urhox-headless"
ENGINE_VERSION = "0.4.0"
API_VERSION = "1"

ROOT = Path(__file__).resolve().parent
BUILD_SUFFIXES = (".py", ".lua", ".api", ".json", ".gz", ".c")
# distributions whose code runs inside a run (their versions are part of the build)
NATIVE_DISTRIBUTIONS = ("lupa", "pyyoga", "fonttools", "pybullet", "Box2D", "numpy")


def _distribution_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def build_inputs(root: Path = ROOT) -> list[tuple[str, bytes]]:
    """(name, bytes) of everything the build digest covers, in a fixed order."""
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in BUILD_SUFFIXES
                   and "__pycache__" not in p.parts)
    out = [(f"file:{p.relative_to(root).as_posix()}", p.read_bytes()) for p in files]
    out += [(f"dist:{name}", _distribution_version(name).encode()) for name in NATIVE_DISTRIBUTIONS]
    return out


def tree_build(inputs: list[tuple[str, bytes]], label: str) -> str:
    digest = hashlib.sha256(f"{label}\n".encode())
    for name, data in inputs:
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


@lru_cache(maxsize=1)
def engine_build() -> str:
    """The engine's build digest (computed once per process)."""
    return tree_build(build_inputs(), "grader-engine-build/1")
