"""The folder layout is the architecture: engine and ledger never import grader, nor each other."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {"engine": {"grader", "ledger"}, "ledger": {"grader", "engine"}}


def imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_dependencies_point_one_way(package: str) -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_packages(path) & FORBIDDEN[package])
        for path in (ROOT / package).rglob("*.py")
        if imported_packages(path) & FORBIDDEN[package]
    }
    assert offenders == {}


def test_no_absolute_machine_paths_in_tracked_text() -> None:
    for path in (ROOT / "engine").rglob("*"):
        if path.suffix in {".py", ".lua", ".api", ".md", ".toml"}:
            text = path.read_text(encoding="utf-8")
            assert "/work/" not in text and "/root/" not in text and "/home/" not in text, path
