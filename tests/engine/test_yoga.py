"""The YG* layer: UrhoX's Yoga functions run by the engine's game Lua give what Yoga itself computes.

Most layouts are built twice from one description: once by game Lua through the engine, once in this process
through pyyoga's own pybind11 classes (a second path into the same Yoga), and every node's box must be equal to
the bit.  A few layouts are also checked against values worked out by hand.
"""

from __future__ import annotations

import math
import os
import re
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pyyoga._pyyoga as yg
from lupa.lua54 import LuaError

import engine._yoga as yoga_module
from engine import Engine, RunRequest, default_registry, run_evidence, run_in_subprocess
from engine._engine import to_python
from engine._yoga import MAX_TREE_DEPTH, YogaHost
from engine.testing import lua, new_engine

ENUMS = default_registry().enums

# A layout: (name, [style...], [children...]); a style is (setter suffix, *arguments), enum arguments by the name
# their constant ends with: ("FlexDirection", "Row"), ("Padding", "All", 10), ("WidthPercent", 50).
Spec = tuple[str, list[tuple[Any, ...]], list[Any]]

ENUM_OF = {"Direction": "Direction", "FlexDirection": "FlexDirection", "JustifyContent": "Justify",
           "AlignContent": "Align", "AlignItems": "Align", "AlignSelf": "Align", "PositionType": "PositionType",
           "FlexWrap": "Wrap", "Overflow": "Overflow", "Display": "Display"}
EDGED = {"Position", "PositionPercent", "Margin", "MarginPercent", "MarginAuto", "Padding", "PaddingPercent", "Border"}
GUTTERED = {"Gap", "GapPercent"}


def _enum(kind: str, name: str) -> int:
    return ENUMS[f"YG{kind}"].values[f"YG{kind}{name}"]


def _args(setter: str, args: tuple[Any, ...]) -> list[tuple[str, Any]]:
    """(kind, value) per argument: kind is an enum name or 'number'."""
    if setter in ENUM_OF:
        return [(ENUM_OF[setter], args[0])]
    if setter in EDGED:
        return [("Edge", args[0]), *(("number", a) for a in args[1:])]
    if setter in GUTTERED:
        return [("Gutter", args[0]), ("number", args[1])]
    return [("number", a) for a in args]


def _lua_number(x: float) -> str:
    return "YGGetUndefined()" if isinstance(x, float) and math.isnan(x) else repr(x)


def lua_layout(spec: Spec, width: float, height: float, scale: float = 1.0, direction: str = "LTR",
               engine: Engine | None = None) -> dict[str, list[float]]:
    """Build `spec` with YG* calls in game Lua, lay it out and read every node's box."""
    lines = ["local N = {}", f"YGConfigSetPointScaleFactor(YGConfigGetDefault(), {scale!r})"]

    def build(node: Spec, parent: str | None, index: int) -> None:
        name, styles, children = node
        lines.append(f"N.{name} = YGNodeNew()")
        for setter, *args in styles:
            call_args = [f"N.{name}"] + [
                _lua_number(v) if kind == "number" else f"YG{kind}{v}" for kind, v in _args(setter, tuple(args))]
            lines.append(f"YGNodeStyleSet{setter}({', '.join(call_args)})")
        if parent is not None:
            lines.append(f"YGNodeInsertChild(N.{parent}, N.{name}, {index})")
        for i, child in enumerate(children):
            build(child, name, i)

    build(spec, None, 0)
    lines.append(f"YGNodeCalculateLayout(N.{spec[0]}, {_lua_number(width)}, {_lua_number(height)}, "
                 f"YGDirection{direction})")
    lines.append("local out = {}")
    lines.append("for name, n in pairs(N) do out[name] = {YGNodeLayoutGetLeft(n), YGNodeLayoutGetTop(n), "
                 "YGNodeLayoutGetWidth(n), YGNodeLayoutGetHeight(n), YGNodeLayoutGetRight(n), "
                 "YGNodeLayoutGetBottom(n)} end")
    lines.append("return out")
    return lua("\n".join(lines), engine)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def yoga_layout(spec: Spec, width: float, height: float, scale: float = 1.0,
                direction: str = "LTR") -> dict[str, list[float]]:
    """The same layout through pyyoga's pybind11 classes."""
    config = yg.Config.new()
    config.set_point_scale_factor(scale)
    nodes: dict[str, Any] = {}

    def build(node: Spec) -> Any:
        name, styles, children = node
        n = nodes[name] = yg.Node.new_with_config(config)
        for setter, *args in styles:
            values = [v if kind == "number" else getattr(yg, kind)(_enum(kind, v))
                      for kind, v in _args(setter, tuple(args))]
            getattr(n, "set_" + _snake(setter))(*values)
        for i, child in enumerate(children):
            n.insert_child(build(child), i)
        return n

    root = build(spec)
    root.calculate_layout(width, height, getattr(yg.Direction, direction))
    out = {name: [n.get_layout_left(), n.get_layout_top(), n.get_layout_width(), n.get_layout_height(),
                  n.get_layout_right(), n.get_layout_bottom()] for name, n in nodes.items()}
    for n in nodes.values():
        n.remove_all_children()
    return out


def bits(boxes: dict[str, list[float]]) -> dict[str, list[str]]:
    """Boxes as the bytes of their floats: equality to the bit, NaN included."""
    return {k: [struct.pack("<d", v).hex() for v in box] for k, box in sorted(boxes.items())}


def same_as_yoga(spec: Spec, width: float, height: float, scale: float = 1.0,
                 direction: str = "LTR") -> dict[str, list[float]]:
    got = lua_layout(spec, width, height, scale, direction)
    assert bits(got) == bits(yoga_layout(spec, width, height, scale, direction))
    return got


def leaf(name: str, *styles: tuple[Any, ...]) -> Spec:
    return (name, list(styles), [])


# --------------------------------------------------------------------------------------------------------------
# layouts
# --------------------------------------------------------------------------------------------------------------

def test_row_with_padding_gap_and_flex_grow_by_hand() -> None:
    spec = ("root", [("Width", 320), ("Height", 100), ("FlexDirection", "Row"), ("Padding", "All", 10),
                     ("Gap", "All", 6)],
            [leaf("a", ("FlexGrow", 1)), leaf("b", ("FlexGrow", 2))])
    got = same_as_yoga(spec, math.nan, math.nan)
    assert got["root"][:4] == [0, 0, 320, 100]
    assert got["a"][:4] == [10, 10, 98, 80]       # (300 - 6) / 3, stretched to the inner height
    assert got["b"][:4] == [114, 10, 196, 80]


def test_column_with_margins_and_padding_by_hand() -> None:
    spec = ("root", [("Width", 200), ("Padding", "Top", 5), ("Padding", "Horizontal", 20)],
            [leaf("a", ("Height", 30), ("Margin", "Bottom", 4), ("Margin", "Left", 3)),
             leaf("b", ("Height", 40), ("Margin", "Vertical", 6), ("Border", "All", 2))])
    got = same_as_yoga(spec, 500, math.nan)
    assert got["a"][:4] == [23, 5, 157, 30]       # width 200 - 40 padding - 3 margin
    assert got["b"][:4] == [20, 45, 160, 40]      # 5 + 30 + 4 + 6
    assert got["root"][3] == 5 + 30 + 4 + 6 + 40 + 6  # the column's content height


@pytest.mark.parametrize("justify", ["FlexStart", "Center", "FlexEnd", "SpaceBetween", "SpaceAround",
                                     "SpaceEvenly"])
@pytest.mark.parametrize("direction", ["Row", "Column", "RowReverse", "ColumnReverse"])
def test_justify_content(justify: str, direction: str) -> None:
    spec = ("root", [("Width", 300), ("Height", 300), ("FlexDirection", direction), ("JustifyContent", justify)],
            [leaf("a", ("Width", 50), ("Height", 50)), leaf("b", ("Width", 70), ("Height", 30))])
    got = same_as_yoga(spec, math.nan, math.nan)
    if (justify, direction) == ("Center", "Row"):
        assert got["a"][0] == 90 and got["b"][0] == 140
    if (justify, direction) == ("SpaceBetween", "ColumnReverse"):
        assert got["a"][1] == 250 and got["b"][1] == 0


@pytest.mark.parametrize("align", ["Auto", "FlexStart", "Center", "FlexEnd", "Stretch", "Baseline",
                                   "SpaceBetween", "SpaceAround", "SpaceEvenly"])
def test_align_items_self_and_content(align: str) -> None:
    spec = ("root", [("Width", 300), ("Height", 200), ("FlexDirection", "Row"), ("FlexWrap", "Wrap"),
                     ("AlignItems", align), ("AlignContent", align)],
            [leaf("a", ("Width", 120), ("Height", 40)), leaf("b", ("Width", 120)),
             leaf("c", ("Width", 120), ("Height", 30), ("AlignSelf", "FlexEnd"))])
    got = same_as_yoga(spec, math.nan, math.nan)
    if align == "Stretch":
        # lines of 40 and 30 share the 130 left over: 105 and 95; c keeps its 30 at the end of line 2
        assert got["b"][3] == 105 and got["c"][1] == 170


def test_center_by_hand() -> None:
    spec = ("root", [("Width", 300), ("Height", 200), ("JustifyContent", "Center"), ("AlignItems", "Center")],
            [leaf("a", ("Width", 100), ("Height", 50))])
    assert same_as_yoga(spec, 1000, 1000)["a"][:4] == [100, 75, 100, 50]


def test_percent_sizes_paddings_margins_basis_and_gap() -> None:
    spec = ("root", [("Width", 400), ("Height", 300), ("FlexDirection", "Row"), ("PaddingPercent", "Left", 5),
                     ("GapPercent", "Column", 2.5)],
            [leaf("a", ("WidthPercent", 25), ("HeightPercent", 50), ("MarginPercent", "Top", 10)),
             leaf("b", ("FlexBasisPercent", 30), ("MinHeightPercent", 20), ("MaxWidthPercent", 90)),
             leaf("c", ("FlexGrow", 1), ("PaddingPercent", "All", 1))])
    got = same_as_yoga(spec, 400, math.nan)
    # the root's padding is 5% of the 400 it is given; the rest is relative to its 380-wide content box
    assert got["a"][:4] == [20, 38, 95, 150]
    assert got["b"][0] == 125 and got["b"][2] == 114   # 20 + 95 + a 9.5 gap, rounded; 30% of 380


def test_absolute_positioning() -> None:
    spec = ("root", [("Width", 400), ("Height", 300), ("Padding", "All", 10)],
            [leaf("a", ("PositionType", "Absolute"), ("Position", "Left", 15), ("Position", "Bottom", 25),
                  ("Width", 50), ("Height", 40)),
             leaf("b", ("PositionType", "Absolute"), ("PositionPercent", "Left", 10), ("Position", "Right", 20),
                  ("PositionPercent", "Top", 50), ("Height", 10)),
             leaf("c", ("Height", 20), ("Position", "Top", 7))])
    got = same_as_yoga(spec, math.nan, math.nan)
    assert got["a"][:4] == [15, 235, 50, 40]      # absolute offsets count from the border box
    assert got["b"][:4] == [40, 150, 340, 10]     # 10% of 400 .. 400 - 20
    assert got["c"][:2] == [10, 17]               # relative: moved 7 down from its place


def test_display_none_takes_no_space() -> None:
    spec = ("root", [("Width", 300), ("Height", 100), ("FlexDirection", "Row"), ("Padding", "All", 5)],
            [leaf("a", ("Width", 50), ("Display", "None")), leaf("b", ("Width", 60)), leaf("c", ("FlexGrow", 1))])
    got = same_as_yoga(spec, math.nan, math.nan)
    assert got["a"][2:4] == [0, 0]
    assert got["b"][0] == 5 and got["c"][:3] == [65, 5, 230]


def test_aspect_ratio() -> None:
    spec = ("root", [("Width", 300), ("Height", 300), ("AlignItems", "FlexStart")],
            [leaf("a", ("Width", 120), ("AspectRatio", 2)), leaf("b", ("Height", 30), ("AspectRatio", 0.5)),
             leaf("c", ("FlexGrow", 1), ("AspectRatio", 1.5))])
    got = same_as_yoga(spec, math.nan, math.nan)
    assert got["a"][2:4] == [120, 60] and got["b"][2:4] == [15, 30]


@pytest.mark.parametrize("wrap", ["NoWrap", "Wrap", "WrapReverse"])
def test_wrap(wrap: str) -> None:
    spec = ("root", [("Width", 250), ("FlexDirection", "Row"), ("FlexWrap", wrap), ("Gap", "Row", 4),
                     ("AlignContent", "FlexStart")],
            [leaf(f"n{i}", ("Width", 80), ("Height", 20 + i)) for i in range(7)])
    got = same_as_yoga(spec, math.nan, math.nan)
    if wrap == "Wrap":
        assert [got[f"n{i}"][1] for i in (0, 3, 6)] == [0, 26, 55]   # lines of 3: heights 22, 25; row gap 4


def test_min_max_and_shrink() -> None:
    spec = ("root", [("Width", 300), ("Height", 50), ("FlexDirection", "Row")],
            [leaf("a", ("FlexGrow", 1), ("MaxWidth", 60)), leaf("b", ("FlexGrow", 1), ("MinWidth", 200)),
             leaf("c", ("Width", 100), ("FlexShrink", 1), ("MinWidthPercent", 10), ("MaxHeight", 20))])
    got = same_as_yoga(spec, math.nan, math.nan)
    # Yoga counts b at its minimum before growing: nothing is left for a
    assert [got[k][2] for k in "abc"] == [0, 200, 100] and got["c"][3] == 20


def test_margin_auto_flex_and_flex_basis_auto() -> None:
    spec = ("root", [("Width", 300), ("Height", 100), ("FlexDirection", "Row")],
            [leaf("a", ("Width", 40), ("MarginAuto", "Left"), ("MarginAuto", "Right")),
             leaf("b", ("Flex", 1), ("FlexBasisAuto",), ("WidthAuto",), ("HeightAuto",)),
             leaf("c", ("FlexBasis", 30), ("Overflow", "Hidden"))])
    same_as_yoga(spec, math.nan, math.nan)


def test_rtl_direction() -> None:
    spec = ("root", [("Width", 300), ("Height", 50), ("FlexDirection", "Row"), ("Padding", "Start", 10)],
            [leaf("a", ("Width", 50), ("Margin", "End", 5)), leaf("b", ("Width", 50), ("Direction", "LTR"))])
    got = same_as_yoga(spec, math.nan, math.nan, direction="RTL")
    assert got["a"][0] == 240


def test_content_sized_root_with_undefined_space() -> None:
    spec = ("root", [("FlexDirection", "Row"), ("Padding", "All", 3)],
            [leaf("a", ("Width", 33.3), ("Height", 10)), leaf("b", ("Width", 20.6), ("Height", 12.2))])
    got = same_as_yoga(spec, math.nan, math.nan)
    assert got["root"][2:4] == [60, 18]


@pytest.mark.parametrize("scale", [0.0, 1.0, 2.0, 3.0])
def test_point_scale_factor_rounds_to_the_pixel_grid(scale: float) -> None:
    spec = ("root", [("Width", 100), ("Height", 10), ("FlexDirection", "Row")],
            [leaf(f"n{i}", ("FlexGrow", 1)) for i in range(3)])
    got = same_as_yoga(spec, math.nan, math.nan, scale=scale)
    widths = [got[f"n{i}"][2] for i in range(3)]
    if scale:
        assert all(abs(w * scale - round(w * scale)) < 1e-4 for w in widths), widths
        assert sum(widths) == pytest.approx(100)
    else:
        assert all(w != round(w) for w in widths)  # no rounding: thirds of 100
    assert lua(f"YGConfigSetPointScaleFactor(YGConfigGetDefault(), {scale!r}) "
               "return YGConfigGetPointScaleFactor(YGConfigGetDefault())") == scale


def test_the_point_scale_factor_belongs_to_one_engine() -> None:
    spec = ("root", [("Width", 100), ("FlexDirection", "Row")], [leaf("a", ("FlexGrow", 1)), leaf("b")])
    first, second = new_engine(), new_engine()
    lua("YGConfigSetPointScaleFactor(YGConfigGetDefault(), 7)", first)
    assert lua("return YGConfigGetPointScaleFactor(YGConfigGetDefault())", second) == 1.0
    assert yg.Config.get_default().get_point_scale_factor() == 1.0   # Yoga's process-wide default is untouched
    assert lua_layout(spec, math.nan, math.nan, engine=second)["a"][2] == 100


def test_baseline_values_align_rows_by_hand() -> None:
    got = lua("""
    local row = YGNodeNew()
    YGNodeStyleSetFlexDirection(row, YGFlexDirectionRow)
    YGNodeStyleSetAlignItems(row, YGAlignBaseline)
    local a, b, c = YGNodeNew(), YGNodeNew(), YGNodeNew()
    YGNodeStyleSetWidth(a, 10); YGNodeStyleSetHeight(a, 40); YGNodeSetBaselineValue(a, 30)
    YGNodeStyleSetWidth(b, 10); YGNodeStyleSetHeight(b, 20); YGNodeSetBaselineValue(b, 8)
    YGNodeStyleSetWidth(c, 10); YGNodeStyleSetHeight(c, 20)
    YGNodeInsertChild(row, a, 0); YGNodeInsertChild(row, b, 1); YGNodeInsertChild(row, c, 2)
    YGNodeCalculateLayout(row, 100, 100, YGDirectionLTR)
    local tops = {YGNodeLayoutGetTop(a), YGNodeLayoutGetTop(b), YGNodeLayoutGetTop(c)}
    YGNodeClearBaselineValue(b)
    YGNodeStyleSetHeight(b, 21)
    YGNodeCalculateLayout(row, 100, 100, YGDirectionLTR)
    return {tops, {YGNodeLayoutGetTop(a), YGNodeLayoutGetTop(b), YGNodeLayoutGetTop(c)}}
    """)
    # baselines 30, 8 and (no value: its height) 20 line up at 30; then b's baseline is its height, 21
    assert got == [[0, 22, 10], [0, 9, 10]]


# --------------------------------------------------------------------------------------------------------------
# the tree, style getters, the layout cache
# --------------------------------------------------------------------------------------------------------------

def test_tree_functions_keep_node_identity() -> None:
    got = lua("""
    local root, a, b = YGNodeNew(), YGNodeNew(), YGNodeNew()
    YGNodeInsertChild(root, a, 0); YGNodeInsertChild(root, b, 0)
    local r = {YGNodeGetChildCount(root), YGNodeGetChild(root, 0) == b, YGNodeGetChild(root, 1) == a,
               YGNodeGetChild(root, 2) == nil, YGNodeGetChild(root, -1) == nil, YGNodeGetParent(a) == root,
               YGNodeGetParent(root) == nil, YGNodeGetLiveCount()}
    YGNodeRemoveChild(root, b)
    r[#r + 1] = YGNodeGetChildCount(root)
    r[#r + 1] = YGNodeGetParent(b) == nil
    YGNodeInsertChild(a, b, 0)
    YGNodeRemoveAllChildren(root)
    r[#r + 1] = YGNodeGetChildCount(root)
    r[#r + 1] = YGNodeGetParent(b) == a
    YGNodeFreeRecursive(a)
    r[#r + 1] = YGNodeGetLiveCount()
    r[#r + 1] = pcall(YGNodeGetChildCount, b)
    YGNodeFree(root)
    r[#r + 1] = YGNodeGetLiveCount()
    return r
    """)
    assert got == [2, True, True, True, True, True, True, 3, 1, True, 0, True, 1, False, 0]


def test_dirty_flags_and_reset() -> None:
    got = lua("""
    local n = YGNodeNew()
    local r = {YGNodeIsDirty(n)}
    YGNodeStyleSetWidth(n, 10); YGNodeStyleSetMinWidthStretch(n); YGNodeStyleSetGapPercent(n, YGGutterRow, 3)
    YGNodeCalculateLayout(n, 100, 100)
    r[#r + 1] = YGNodeIsDirty(n)
    r[#r + 1] = YGNodeLayoutGetWidth(n)
    YGNodeStyleSetWidth(n, 20)
    r[#r + 1] = YGNodeIsDirty(n)
    YGNodeReset(n)
    r[#r + 1] = YGNodeStyleGetWidth(n)
    r[#r + 1] = YGNodeStyleGetMinWidth(n)
    r[#r + 1] = YGNodeStyleGetGap(n, YGGutterRow)
    r[#r + 1] = YGNodeLayoutGetWidth(n) ~= YGNodeLayoutGetWidth(n)   -- NaN: the layout was reset too
    return r
    """)
    assert got[:4] == [True, False, 10.0, True]
    assert got[4]["unit"] == 3 and got[5]["unit"] == 0 and got[6]["unit"] == 0   # auto width, undefined min
    assert got[7] is True


def test_style_getters_return_values_with_units() -> None:
    got = lua("""
    local n = YGNodeNew()
    YGNodeStyleSetFlexDirection(n, YGFlexDirectionRowReverse); YGNodeStyleSetJustifyContent(n, YGJustifySpaceEvenly)
    YGNodeStyleSetAlignItems(n, YGAlignBaseline); YGNodeStyleSetAlignSelf(n, YGAlignSpaceEvenly)
    YGNodeStyleSetPositionType(n, YGPositionTypeAbsolute); YGNodeStyleSetFlexWrap(n, YGWrapWrapReverse)
    YGNodeStyleSetFlexGrow(n, 2.5); YGNodeStyleSetFlexShrink(n, 0.5)
    YGNodeStyleSetWidthPercent(n, 40); YGNodeStyleSetHeightAuto(n); YGNodeStyleSetMaxHeight(n, 70)
    YGNodeStyleSetPositionPercent(n, YGEdgeLeft, 15); YGNodeStyleSetMarginAuto(n, YGEdgeTop)
    YGNodeStyleSetPadding(n, YGEdgeAll, 4); YGNodeStyleSetGap(n, YGGutterColumn, 6)
    YGNodeStyleSetGapPercent(n, YGGutterRow, 12)
    local function v(x) return {x.value ~= x.value and "nan" or x.value, x.unit} end
    local u = YGGetUndefined()
    return {YGNodeStyleGetFlexDirection(n), YGNodeStyleGetJustifyContent(n), YGNodeStyleGetAlignItems(n),
      YGNodeStyleGetAlignSelf(n), YGNodeStyleGetPositionType(n), YGNodeStyleGetFlexWrap(n),
      YGNodeStyleGetFlexGrow(n), YGNodeStyleGetFlexShrink(n), v(YGNodeStyleGetWidth(n)), v(YGNodeStyleGetHeight(n)),
      v(YGNodeStyleGetMaxHeight(n)), v(YGNodeStyleGetPosition(n, YGEdgeLeft)), v(YGNodeStyleGetMargin(n, YGEdgeTop)),
      v(YGNodeStyleGetPadding(n, YGEdgeAll)), v(YGNodeStyleGetGap(n, YGGutterColumn)),
      v(YGNodeStyleGetGap(n, YGGutterRow)), YGNodeStyleGetGap(n, YGGutterAll).unit,
      YGNodeStyleGetMinWidth(n).unit, YGNodeStyleGetFlexBasis(n).unit}
    """)
    assert got == [3, 5, 5, 8, 2, 2, 2.5, 0.5, [40, 2], ["nan", 3], [70, 1], [15, 2], ["nan", 3], [4, 1], [6, 1],
                   [12, 2], 0, 0, 3]


@pytest.mark.parametrize("prop", ["MinWidth", "MinHeight", "MaxWidth", "MaxHeight", "FlexBasis"])
def test_intrinsic_keywords_read_back_and_constrain_nothing(prop: str) -> None:
    got = lua(f"""
    local r = {{}}
    for _, word in ipairs({{"MaxContent", "FitContent", "Stretch"}}) do
      local n = YGNodeNew()
      YGNodeStyleSet{prop}(n, 5)
      _ENV["YGNodeStyleSet{prop}" .. word](n)
      local v = YGNodeStyleGet{prop}(n)
      r[#r + 1] = {{v.unit, v.value ~= v.value}}
      YGNodeStyleSet{prop}Percent(n, 20)
      r[#r + 1] = {{YGNodeStyleGet{prop}(n).unit, YGNodeStyleGet{prop}(n).value}}
    end
    return r
    """)
    assert got == [[4, True], [2, 20], [5, True], [2, 20], [6, True], [2, 20]]
    # laid out like the fallback of docs/yoga.md: no constraint (min/max), auto (flex basis)
    fallback = ("FlexBasisAuto",) if prop == "FlexBasis" else (prop, math.nan)
    keyword = lua_layout(("root", [("Width", 200), ("Height", 100), ("FlexDirection", "Row")],
                          [leaf("a", ("Width", 50), ("Height", 20), (prop, 7), (f"{prop}MaxContent",))]), 300, 300)
    assert bits(keyword) == bits(yoga_layout(("root", [("Width", 200), ("Height", 100), ("FlexDirection", "Row")],
                                              [leaf("a", ("Width", 50), ("Height", 20), fallback)]), 300, 300))


def test_layout_reads_follow_every_change() -> None:
    got = lua("""
    local root, a = YGNodeNew(), YGNodeNew()
    YGNodeStyleSetWidth(root, 100); YGNodeStyleSetHeight(root, 100)
    YGNodeStyleSetHeight(a, 10)
    YGNodeInsertChild(root, a, 0)
    YGNodeCalculateLayout(root, 100, 100)
    local r = {YGNodeLayoutGetWidth(a), YGNodeLayoutGetTop(a)}
    YGNodeStyleSetPadding(root, YGEdgeTop, 5)
    r[#r + 1] = YGNodeLayoutGetTop(a)       -- unchanged until the next layout
    YGNodeCalculateLayout(root, 100, 100)
    r[#r + 1] = YGNodeLayoutGetTop(a)
    YGNodeRemoveChild(root, a)
    r[#r + 1] = YGNodeLayoutGetWidth(a) ~= YGNodeLayoutGetWidth(a)
    r[#r + 1] = YGNodeLayoutGetPadding(root, YGEdgeTop)
    r[#r + 1] = YGNodeLayoutGetMargin(root, YGEdgeEnd)
    return r
    """)
    assert got == [100, 0, 0, 5, True, 5, 0]


# --------------------------------------------------------------------------------------------------------------
# errors and limits
# --------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("code", "message"), [
    ("YGNodeStyleSetWidth(nil, 1)", "bad argument #1 to 'YGNodeStyleSetWidth' (YGNodeRef expected, got nil)"),
    ("YGNodeStyleSetWidth({}, 1)", "bad argument #1 to 'YGNodeStyleSetWidth' (YGNodeRef expected, got table)"),
    ("YGNodeStyleSetWidth(YGConfigGetDefault(), 1)",
     "bad argument #1 to 'YGNodeStyleSetWidth' (YGNodeRef expected, got YGConfigRef)"),
    ("YGNodeStyleSetWidth(YGNodeNew(), {})", "bad argument #2 to 'YGNodeStyleSetWidth' (number expected, got table)"),
    ("YGNodeStyleSetWidth(YGNodeNew())", "bad argument #2 to 'YGNodeStyleSetWidth' (number expected, got nil)"),
    ("YGNodeStyleSetWidth(YGNodeNew(), 'wide')",
     "bad argument #2 to 'YGNodeStyleSetWidth' (number expected, got string)"),
    ("YGNodeStyleSetPadding(YGNodeNew(), 9, 1)",
     "bad argument #2 to 'YGNodeStyleSetPadding' (YGEdge expected, got number 9)"),
    ("YGNodeStyleSetAlignItems(YGNodeNew(), -1)",
     "bad argument #2 to 'YGNodeStyleSetAlignItems' (YGAlign expected, got number -1)"),
    ("YGNodeStyleSetFlexDirection(YGNodeNew(), 0/0)",
     "bad argument #2 to 'YGNodeStyleSetFlexDirection' (YGFlexDirection expected, got number"),
    ("YGNodeStyleSetGap(YGNodeNew(), YGEdgeAll, 1)",
     "bad argument #2 to 'YGNodeStyleSetGap' (YGGutter expected, got number 8)"),
    ("YGNodeCalculateLayout(YGNodeNew(), 1, 1, 3)",
     "bad argument #4 to 'YGNodeCalculateLayout' (YGDirection expected, got number 3)"),
    ("YGNodeInsertChild(YGNodeNew(), YGNodeNew(), 'x')",
     "bad argument #3 to 'YGNodeInsertChild' (integer expected, got string)"),
    ("YGConfigSetPointScaleFactor(YGNodeNew(), 2)",
     "bad argument #1 to 'YGConfigSetPointScaleFactor' (YGConfigRef expected, got YGNodeRef)"),
    ("local n = YGNodeNew() YGNodeFree(n) YGNodeStyleSetWidth(n, 1)",
     "bad argument #1 to 'YGNodeStyleSetWidth' (the Yoga node was freed by YGNodeFree or YGNodeFreeRecursive)"),
    ("local n = YGNodeNew() YGNodeFree(n) YGNodeFree(n)", "bad argument #1 to 'YGNodeFree' (the Yoga node was freed"),
    ("local a, b = YGNodeNew(), YGNodeNew() YGNodeInsertChild(a, b, 0) YGNodeFreeRecursive(a) YGNodeGetParent(b)",
     "bad argument #1 to 'YGNodeGetParent' (the Yoga node was freed"),
    ("local a, b = YGNodeNew(), YGNodeNew() YGNodeInsertChild(a, b, 0) YGNodeInsertChild(b, a, 0)",
     "YGNodeInsertChild: a node cannot be inserted into itself or into one of its descendants"),
    ("local a = YGNodeNew() YGNodeInsertChild(a, a, 0)", "YGNodeInsertChild: a node cannot be inserted into itself"),
    ("local a, b, c = YGNodeNew(), YGNodeNew(), YGNodeNew() YGNodeInsertChild(a, c, 0) YGNodeInsertChild(b, c, 0)",
     "YGNodeInsertChild: Child already has a owner, it must be removed first."),
    ("YGNodeInsertChild(YGNodeNew(), YGNodeNew(), 1)",
     "YGNodeInsertChild: index 1 out of range (the node has 0 children)"),
    ("YGNodeInsertChild(YGNodeNew(), YGNodeNew(), -1)", "YGNodeInsertChild: index -1 out of range"),
    ("local a, b = YGNodeNew(), YGNodeNew() YGNodeInsertChild(a, b, 0) YGNodeReset(a)",
     "YGNodeReset: Cannot reset a node which still has children attached"),
    ("local a, b = YGNodeNew(), YGNodeNew() YGNodeInsertChild(a, b, 0) YGNodeReset(b)",
     "YGNodeReset: Cannot reset a node still attached to a owner"),
    ("YGNodeMarkDirty(YGNodeNew())", "YGNodeMarkDirty: Only leaf nodes with custom measure functions"),
    ("YGNodeLayoutGetMargin(YGNodeNew(), YGEdgeHorizontal)",
     "YGNodeLayoutGetMargin: Cannot get layout properties of multi-edge shorthands (edge 6)"),
    ("YGConfigSetPointScaleFactor(YGConfigGetDefault(), -0.5)",
     "YGConfigSetPointScaleFactor: Scale factor should not be less than zero (got -0.5)"),
    ("YGConfigSetPointScaleFactor(YGConfigGetDefault(), 0/0)",
     "YGConfigSetPointScaleFactor: Scale factor should not be less than zero (got "),
    ("YGNodeSetBaselineValue(YGNodeNew(), 0/0)", "YGNodeSetBaselineValue: the baseline is NaN"),
])
def test_errors_name_the_function_and_the_game_line(code: str, message: str) -> None:
    with pytest.raises(LuaError) as info:
        lua(code)
    first = str(info.value).splitlines()[0]
    assert first.startswith("test:1: " + message), first


def test_arguments_convert_like_tolua() -> None:
    got = lua("""
    local n = YGNodeNew()
    YGNodeStyleSetWidth(n, "120")                 -- numeric strings are numbers
    YGNodeStyleSetPadding(n, 1.9, 4)              -- enum arguments are cast toward zero: YGEdgeTop
    YGNodeStyleSetFlexDirection(n, "2")
    return {YGNodeStyleGetWidth(n).value, YGNodeStyleGetPadding(n, YGEdgeTop).value,
            YGNodeStyleGetFlexDirection(n), math.type(YGNodeGetChildCount(n))}
    """)
    assert got == [120, 4, 2, "integer"]


def test_live_nodes_are_capped_and_the_run_aborts(make_game: Callable[..., Path],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yoga_module, "MAX_LIVE_NODES", 50)
    game = make_game("""
    function Start()
      for i = 1, 40 do YGNodeNew() end
      for i = 1, 10 do YGNodeFree(YGNodeNew()) end                 -- freed nodes do not count
      print(YGNodeGetLiveCount())
      for i = 1, 100 do pcall(YGNodeNew) end                        -- pcall cannot swallow the abort
      print("unreachable")
    end
    """)
    engine = Engine(game)
    engine.start()
    report = engine.report()
    assert report.outcome == "memory"
    assert [e["message"] for e in report.log] == ["40"]
    assert report.errors[0]["message"] == ("YGNodeNew: more than 50 live Yoga nodes (free them with YGNodeFree or "
                                           "YGNodeFreeRecursive)")
    assert report.errors[0]["phase"] == "limit"


def test_trees_deeper_than_the_cap_are_refused() -> None:
    code = f"""
    local root = YGNodeNew()
    local p = root
    for i = 2, {MAX_TREE_DEPTH} do local n = YGNodeNew(); YGNodeInsertChild(p, n, 0); p = n end
    YGNodeCalculateLayout(root, 100, 100)
    local top = YGNodeNew()
    local ok, err = pcall(YGNodeInsertChild, top, root, 0)      -- a whole subtree one level down
    local ok2, err2 = pcall(YGNodeInsertChild, p, YGNodeNew(), 0)
    return {{YGNodeLayoutGetWidth(p), ok, err, ok2, err2}}
    """
    got = lua(code)
    assert got[0] == 100 and got[1] is False and got[3] is False
    assert got[2] == f"YGNodeInsertChild: the tree would be {MAX_TREE_DEPTH + 1} levels deep; the engine allows " \
                     f"{MAX_TREE_DEPTH}"
    assert got[2] == got[4]


def test_wide_trees_free_in_linear_time() -> None:
    assert lua("""
    local root = YGNodeNew()
    for i = 1, 20000 do YGNodeInsertChild(root, YGNodeNew(), i - 1) end
    YGNodeFreeRecursive(root)
    return YGNodeGetLiveCount()
    """) == 0


def test_nothing_python_is_reachable_from_game_code() -> None:
    got = lua("""
    local n = YGNodeNew()
    local ok, err = pcall(YGNodeRef)
    local r = {type(n), getmetatable(n), type(YGNodeNew), tostring(getmetatable(YGNodeNew)), tostring(next(n)),
      rawlen(n), type(YGNodeRef), ok, err, tostring(n):match("^YGNodeRef: ") ~= nil}
    n.peer = 1                                     -- like tolua's peer tables: game fields on the proxy are allowed
    r[#r + 1] = n.peer
    return r
    """)
    assert got == ["table", False, "function", "nil", "nil", 0, "table", False,
                   "YGNodeRef cannot be constructed from Lua", True, 1]


def test_the_host_frees_everything_it_made() -> None:
    host = YogaHost()
    api = host.lua_api()
    root = api["node_new"]()
    for i in range(5):
        assert api["insert_child"](root, api["node_new"](), i) is None
    other = api["node_new"]()
    api["insert_child"](other, api["node_new"](), 0)
    assert host.live_count == 8
    assert sorted(api["node_free_recursive"](root)) == [1, 2, 3, 4, 5, 6]
    assert host.live_count == 2
    host.close()
    assert host.live_count == 0


# --------------------------------------------------------------------------------------------------------------
# determinism and fidelity
# --------------------------------------------------------------------------------------------------------------

LAYOUT_GAME = """
function Start()
  YGConfigSetPointScaleFactor(YGConfigGetDefault(), 1.5)
  local root = YGNodeNew()
  YGNodeStyleSetWidth(root, 333.3); YGNodeStyleSetFlexDirection(root, YGFlexDirectionRow)
  YGNodeStyleSetFlexWrap(root, YGWrapWrap); YGNodeStyleSetPadding(root, YGEdgeAll, 7.7)
  for i = 1, 40 do
    local n = YGNodeNew()
    YGNodeStyleSetFlexGrow(n, (i % 3) + 0.5); YGNodeStyleSetWidthPercent(n, 7 + i % 5)
    YGNodeStyleSetAspectRatio(n, 1 + i / 17); YGNodeStyleSetMargin(n, YGEdgeAll, i % 4 * 0.3)
    YGNodeInsertChild(root, n, i - 1)
  end
  YGNodeCalculateLayout(root, YGGetUndefined(), YGGetUndefined(), YGDirectionLTR)
  local out = {}
  for i = 0, YGNodeGetChildCount(root) - 1 do
    local n = YGNodeGetChild(root, i)
    out[#out + 1] = string.format("%a %a %a %a", YGNodeLayoutGetLeft(n), YGNodeLayoutGetTop(n),
      YGNodeLayoutGetWidth(n), YGNodeLayoutGetHeight(n))
  end
  print(table.concat(out, ";"))
end
"""


def test_two_engines_give_identical_layouts(make_game: Callable[..., Path]) -> None:
    logs = []
    for _ in range(2):
        engine = Engine(make_game(LAYOUT_GAME))
        engine.start()
        report = engine.report()
        assert report.outcome == "clean", report.errors
        logs.append(report.log[0]["message"])
    assert logs[0] == logs[1] and logs[0].count(";") == 39


def test_layouts_are_bit_identical_across_processes(make_game: Callable[..., Path]) -> None:
    game = make_game(LAYOUT_GAME)
    reports = [run_in_subprocess(RunRequest(game_dir=str(game), seconds=0.1)) for _ in range(2)]
    assert reports[0]["outcome"] == "clean", reports[0]["errors"]
    assert run_evidence(reports[0])["digest"] == run_evidence(reports[1])["digest"]
    assert reports[0]["log"] == reports[1]["log"]


def test_registry_enums_are_yoga_values() -> None:
    checked = 0
    for enum_name, enum in ENUMS.items():
        kind = enum_name.removeprefix("YG")
        if not enum_name.startswith("YG") or not hasattr(yg, kind):
            continue
        for const, value in enum.values.items():
            member = getattr(getattr(yg, kind), const.removeprefix(enum_name), None)
            if member is not None:
                assert int(member) == value, const
                checked += 1
    assert checked >= 55


# --------------------------------------------------------------------------------------------------------------
# TapTap's dev kit (URHOX_DEVKIT: a folder holding urhox-libs/ and .emmylua/)
# --------------------------------------------------------------------------------------------------------------

def devkit() -> Path:
    root = os.environ.get("URHOX_DEVKIT", "")
    if not root or not (Path(root) / "urhox-libs").is_dir():
        pytest.skip("URHOX_DEVKIT is not set to a folder holding TapTap's urhox-libs/ (the UrhoX dev kit)")
    return Path(root)


UI_GAME = """
local UI = require("urhox-libs/UI")
function Start()
  UI.Init({
    fonts = { { family = "sans", weights = { normal = "Fonts/MiSans-Regular.ttf" } } },
    scale = 1,
    autoEvents = false,
  })
  UI.SetRoot(UI.Panel {
    width = "100%", height = "100%", padding = 16, gap = 10, flexDirection = "column",
    children = {
      UI.Label { id = "title", text = "Hello Yoga", fontSize = 18 },
      UI.Button { id = "ok", text = "OK", width = 120, height = 40, onClick = function() end },
    },
  })
  SubscribeToEvent("Update", function(_, eventData) UI.Update(eventData["TimeStep"]:GetFloat()) end)
  SubscribeToEvent(UI.GetNVGContext(), "NanoVGRender", function() UI.Render() end)
end
"""


def test_urhox_libs_ui_lays_out_with_the_yoga_layer(make_game: Callable[..., Path]) -> None:
    engine = Engine(make_game(UI_GAME), lib_dirs=[devkit()])
    engine.start()
    engine.run_frames(5)
    report = engine.report()
    assert not [name for name in report.missing_api if name.startswith("YG")]
    assert not [e for e in report.errors if "YG" in e["message"]], report.errors
    assert report.outcome == "clean", (report.missing_api, report.errors[:3])
    fn = engine.runtime.eval("function(src, env) return assert(load(src, '=t', 't', env))() end")
    layouts = to_python(fn("""
    local UI = require("urhox-libs/UI")
    local function box(id) local l = UI.FindById(id):GetAbsoluteLayout(); return {l.x, l.y, l.w, l.h} end
    return {box("title"), box("ok")}
    """, engine.game_env))
    title, ok = layouts
    assert title[:2] == [16, 16] and title[2] > 0 and title[3] > 18      # padding 16; sized by its text
    assert ok == [16, 16 + title[3] + 10, 120, 40]                         # below it, after the 10 gap
    drawn = [c.get("text") for c in to_python(engine.E.nanovg_records()) if c.get("text")]
    assert drawn == ["Hello Yoga", "OK"]


def test_every_yoga_function_urhox_binds_is_declared() -> None:
    annotations = (devkit() / ".emmylua" / "YogaLayout.d.lua")
    if not annotations.is_file():
        pytest.skip(f"{annotations} is not in the dev kit")
    bound = set(re.findall(r"^function (YG\w+)\(", annotations.read_text(encoding="utf-8"), re.M))
    declared = {name for name in default_registry().functions if name.startswith("YG")}
    assert bound == declared
