"""The folder layout is the architecture: `evidence` stands alone (standard library only), `engine` and `ledger`
know nothing of `grader` or of each other, and no package reaches into another package's private modules."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("evidence", "engine", "ledger", "grader", "migrations")
FORBIDDEN = {"evidence": {"grader", "ledger", "engine"}, "engine": {"grader", "ledger"},
             "ledger": {"grader", "engine"}}


def imports(path: Path) -> set[str]:
    """Every absolute module name a file imports (`a.b.c` for `from a.b import c` too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _files(*roots: str) -> list[Path]:
    return sorted(p for root in roots for p in (ROOT / root).rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_dependencies_point_one_way(package: str) -> None:
    offenders = {str(path.relative_to(ROOT)): sorted({n.split(".")[0] for n in imports(path)} & FORBIDDEN[package])
                 for path in _files(package) if {n.split(".")[0] for n in imports(path)} & FORBIDDEN[package]}
    assert offenders == {}


def test_the_evidence_model_needs_only_the_standard_library() -> None:
    for path in _files("evidence"):
        outside = {n.split(".")[0] for n in imports(path)} - set(sys.stdlib_module_names) - {"__future__"}
        assert outside == set(), path


def test_no_package_imports_another_packages_private_modules() -> None:
    offenders = []
    for path in _files(*PACKAGES, "bench"):
        own = path.relative_to(ROOT).parts[0]
        for name in imports(path):
            parts = name.split(".")
            private = [p for p in parts[1:] if p.startswith("_") and not p.endswith("__")]   # __main__ is public
            if parts[0] in PACKAGES and parts[0] != own and private:
                offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


def test_sqlalchemy_models_stay_in_the_ledger() -> None:
    users = [str(p.relative_to(ROOT)) for p in _files("grader", "engine", "evidence", "bench")
             if any(n.split(".")[0] in ("sqlalchemy", "alembic") for n in imports(p))]
    assert users == []


def test_no_absolute_machine_paths_in_tracked_text() -> None:
    for path in (ROOT / "engine").rglob("*"):
        if path.suffix in {".py", ".lua", ".api", ".md", ".toml"}:
            text = path.read_text(encoding="utf-8")
            assert "/work/" not in text and "/root/" not in text and "/home/" not in text, path


def test_the_engines_lazy_exports_are_its_public_names() -> None:
    import engine

    assert sorted(engine.__all__) == sorted(engine._WHERE)
    for name in engine.__all__:
        assert getattr(engine, name) is not None
