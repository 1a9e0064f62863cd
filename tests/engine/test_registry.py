"""The API registry: parsing, its errors, and agreement with the runtime."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import default_registry
from engine._coverage import coverage_report
from engine._registry import Registry, RegistryError, load_registry, parse_text


def test_the_shipped_registry_loads() -> None:
    reg = default_registry()
    assert {"Vector3", "Node", "Scene", "Input", "Camera", "StaticModel", "RigidBody"} <= set(reg.classes)
    assert reg.classes["Node"].properties["position"].getter == "GetPosition"
    assert reg.classes["Node"].properties["position"].setter == "SetPosition"
    assert reg.all_constants()["KEY_A"] == 97
    assert reg.all_constants()["KEY_SPACE"] == 32
    assert reg.all_constants()["MOUSEB_RIGHT"] == 4
    assert reg.events["KeyDown"].params["Key"] == "Int"
    assert reg.events["Update"].params["TimeStep"] == "Float"
    assert [c.name for c in reg.lineage("Scene")][:2] == ["Scene", "Node"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("class Foo : Missing\n", "unknown base Missing"),
        ("class Foo\n  property x: number get=GetX\n", "GetX, which is not a declared method"),
        ("class Foo\n  wibble x\n", "unknown member 'wibble'"),
        ("enum E\n  A = x\n", "bad constant value"),
        ("event E\n  P: Float32\n", "unknown Variant type 'Float32'"),
        ("  method X()\n", "indented line outside"),
        ("class Foo\nclass Foo\n", "declared twice"),
        ("frobnicate\n", "unknown declaration"),
        ("class Foo\n  method Bar(x number)\n", "bad parameter"),
    ],
)
def test_malformed_declarations_name_the_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "bad.api").write_text(text)
    with pytest.raises(RegistryError) as err:
        load_registry(tmp_path)
    assert message in str(err.value)
    assert str(err.value).startswith("bad.api:")


def test_signatures_keep_optional_parameters_and_unions() -> None:
    reg = Registry()
    parse_text("class A\n  method F(a: integer, b?: fun(x: A, y: B): C, ...: any): A|nil\n", "t.api", reg)
    (sig,) = reg.classes["A"].methods["F"].overloads
    assert [(p.name, p.type, p.optional) for p in sig.params] == [
        ("a", "integer", False), ("b", "fun(x: A, y: B): C", True), ("...", "any", False)]
    assert sig.returns == "A|nil"


def test_everything_implemented_is_declared() -> None:
    report = coverage_report()
    assert report["undeclared"] == []
    totals = report["totals"]
    assert totals["members"]["implemented"] > 900
    assert totals["events"]["implemented"] >= 20


def test_coverage_counts_events_sent_through_helpers() -> None:
    """Events sent by the runtime's own helpers (a UI element's emit, the scene's scene_event) count as sent."""
    from engine._coverage import events_sent

    sent = events_sent()
    assert {"Released", "Toggled", "NodeAdded", "ComponentAdded", "DragBegin", "KeyDown"} <= sent
    assert "SubscribeToEvent" not in sent and "Update" in sent
