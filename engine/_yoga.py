"""Yoga, the flexbox engine behind UrhoX's `YG*` Lua functions: real Yoga, called through its C API.

The Yoga is the one inside the `pyyoga` wheel (pinned in pyproject.toml; pyyoga 0.1.0 builds Yoga 3.2.1).  The
wheel's pybind11 classes lack Yoga's baseline function (UrhoX's `YGNodeSetBaselineValue` needs it) and
`YGAlignSpaceEvenly`, and keep an owning holder per node that would free a node twice after a recursive free;
its extension module, however, links Yoga statically and exports Yoga's whole C API, so this host calls those C
functions with ctypes, exactly as UrhoX's binding does (docs/yoga.md says why and what differs).

Game code never sees anything here: `engine/lua/runtime/86_yoga.lua` checks every argument (types, enum ranges,
freed nodes) and calls the plain functions of `YogaHost.lua_api()` with integer node ids, numbers and enum
integers.  The host keeps `id -> YGNodeRef`; ids are allocated in call order and never reused, so a run's ids
are deterministic.  The checks that need the tree (a child that already has a parent, a cycle, an index out of
range, resetting an attached node) are made here, before Yoga's own fatal assertions could end the process;
they return a message that the Lua side raises as the game's error.

Nodes live outside Lua's allocator: `MAX_LIVE_NODES` bounds them (about 600 bytes each).  A run's nodes use a
config of their own (never Yoga's process-wide default), so one run's point scale factor cannot leak into
another engine of the same process; everything is freed when the host is collected.
"""

from __future__ import annotations

import ctypes
import importlib
import weakref
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ._errors import SetupError

PYYOGA_VERSION = "0.1.0"
YOGA_VERSION = "3.2.1"
MAX_LIVE_NODES = 200_000
# Yoga recurses once per tree level (layout, dirty propagation), about 1 KB of C stack a level: deeper trees are
# refused when they are built, long before a stack could overflow.
MAX_TREE_DEPTH = 512

_F, _I, _B, _P, _Z = ctypes.c_float, ctypes.c_int, ctypes.c_bool, ctypes.c_void_p, ctypes.c_size_t


class _YGValue(ctypes.Structure):
    _fields_ = (("value", ctypes.c_float), ("unit", ctypes.c_int))


# float (*YGBaselineFunc)(YGNodeConstRef node, float width, float height)
_BASELINE_FUNC = ctypes.CFUNCTYPE(_F, _P, _F, _F)
_NO_BASELINE_FUNC = _BASELINE_FUNC()

# Yoga C functions whose first argument is the node and that need no check beyond the Lua side's: exposed to Lua
# under their own names, one Python call each.  name: (result type, types of the arguments after the node).
_NODE_CALLS: dict[str, tuple[Any, tuple[Any, ...]]] = {
    "YGNodeGetChildCount": (_Z, ()),
    "YGNodeIsDirty": (_B, ()),
    "YGNodeRemoveAllChildren": (None, ()),
    "YGNodeLayoutGetLeft": (_F, ()),
    "YGNodeLayoutGetTop": (_F, ()),
    "YGNodeLayoutGetRight": (_F, ()),
    "YGNodeLayoutGetBottom": (_F, ()),
    "YGNodeLayoutGetWidth": (_F, ()),
    "YGNodeLayoutGetHeight": (_F, ()),
    "YGNodeLayoutGetMargin": (_F, (_I,)),
    "YGNodeLayoutGetPadding": (_F, (_I,)),
    "YGNodeLayoutGetBorder": (_F, (_I,)),
    "YGNodeStyleSetDirection": (None, (_I,)),
    "YGNodeStyleSetFlexDirection": (None, (_I,)),
    "YGNodeStyleSetJustifyContent": (None, (_I,)),
    "YGNodeStyleSetAlignContent": (None, (_I,)),
    "YGNodeStyleSetAlignItems": (None, (_I,)),
    "YGNodeStyleSetAlignSelf": (None, (_I,)),
    "YGNodeStyleSetPositionType": (None, (_I,)),
    "YGNodeStyleSetFlexWrap": (None, (_I,)),
    "YGNodeStyleSetOverflow": (None, (_I,)),
    "YGNodeStyleSetDisplay": (None, (_I,)),
    "YGNodeStyleSetFlex": (None, (_F,)),
    "YGNodeStyleSetFlexGrow": (None, (_F,)),
    "YGNodeStyleSetFlexShrink": (None, (_F,)),
    "YGNodeStyleSetFlexBasis": (None, (_F,)),
    "YGNodeStyleSetFlexBasisPercent": (None, (_F,)),
    "YGNodeStyleSetFlexBasisAuto": (None, ()),
    "YGNodeStyleSetPosition": (None, (_I, _F)),
    "YGNodeStyleSetPositionPercent": (None, (_I, _F)),
    "YGNodeStyleSetMargin": (None, (_I, _F)),
    "YGNodeStyleSetMarginPercent": (None, (_I, _F)),
    "YGNodeStyleSetMarginAuto": (None, (_I,)),
    "YGNodeStyleSetPadding": (None, (_I, _F)),
    "YGNodeStyleSetPaddingPercent": (None, (_I, _F)),
    "YGNodeStyleSetBorder": (None, (_I, _F)),
    "YGNodeStyleSetWidth": (None, (_F,)),
    "YGNodeStyleSetWidthPercent": (None, (_F,)),
    "YGNodeStyleSetWidthAuto": (None, ()),
    "YGNodeStyleSetHeight": (None, (_F,)),
    "YGNodeStyleSetHeightPercent": (None, (_F,)),
    "YGNodeStyleSetHeightAuto": (None, ()),
    "YGNodeStyleSetMinWidth": (None, (_F,)),
    "YGNodeStyleSetMinWidthPercent": (None, (_F,)),
    "YGNodeStyleSetMinHeight": (None, (_F,)),
    "YGNodeStyleSetMinHeightPercent": (None, (_F,)),
    "YGNodeStyleSetMaxWidth": (None, (_F,)),
    "YGNodeStyleSetMaxWidthPercent": (None, (_F,)),
    "YGNodeStyleSetMaxHeight": (None, (_F,)),
    "YGNodeStyleSetMaxHeightPercent": (None, (_F,)),
    "YGNodeStyleSetAspectRatio": (None, (_F,)),
    "YGNodeStyleSetGap": (None, (_I, _F)),
    "YGNodeStyleSetGapPercent": (None, (_I, _F)),
    "YGNodeStyleGetFlexDirection": (_I, ()),
    "YGNodeStyleGetJustifyContent": (_I, ()),
    "YGNodeStyleGetAlignItems": (_I, ()),
    "YGNodeStyleGetAlignSelf": (_I, ()),
    "YGNodeStyleGetPositionType": (_I, ()),
    "YGNodeStyleGetFlexWrap": (_I, ()),
    "YGNodeStyleGetFlexGrow": (_F, ()),
    "YGNodeStyleGetFlexShrink": (_F, ()),
    "YGNodeStyleGetGap": (_F, (_I,)),
    "YGNodeStyleGetFlexBasis": (_YGValue, ()),
    "YGNodeStyleGetWidth": (_YGValue, ()),
    "YGNodeStyleGetHeight": (_YGValue, ()),
    "YGNodeStyleGetMinWidth": (_YGValue, ()),
    "YGNodeStyleGetMinHeight": (_YGValue, ()),
    "YGNodeStyleGetMaxWidth": (_YGValue, ()),
    "YGNodeStyleGetMaxHeight": (_YGValue, ()),
    "YGNodeStyleGetPosition": (_YGValue, (_I,)),
    "YGNodeStyleGetMargin": (_YGValue, (_I,)),
    "YGNodeStyleGetPadding": (_YGValue, (_I,)),
}

# The C functions the host itself calls.
_HOST_CALLS: dict[str, tuple[Any, tuple[Any, ...]]] = {
    "YGConfigNew": (_P, ()),
    "YGConfigFree": (None, (_P,)),
    "YGConfigSetPointScaleFactor": (None, (_P, _F)),
    "YGConfigGetPointScaleFactor": (_F, (_P,)),
    "YGNodeNewWithConfig": (_P, (_P,)),
    "YGNodeFree": (None, (_P,)),
    "YGNodeReset": (None, (_P,)),
    "YGNodeInsertChild": (None, (_P, _P, _Z)),
    "YGNodeRemoveChild": (None, (_P, _P)),
    "YGNodeGetChild": (_P, (_P, _Z)),
    "YGNodeGetChildCount": (_Z, (_P,)),
    "YGNodeGetParent": (_P, (_P,)),
    "YGNodeRemoveAllChildren": (None, (_P,)),
    "YGNodeCalculateLayout": (None, (_P, _F, _F, _I)),
    "YGNodeSetBaselineFunc": (None, (_P, _BASELINE_FUNC)),
    "YGNodeLayoutGetLeft": (_F, (_P,)),
    "YGNodeLayoutGetTop": (_F, (_P,)),
    "YGNodeLayoutGetWidth": (_F, (_P,)),
    "YGNodeLayoutGetHeight": (_F, (_P,)),
}


class _Lib:
    """Yoga's C functions with their prototypes, from the pyyoga extension module."""

    def __init__(self, path: str) -> None:
        # PyDLL: the calls keep the GIL (no thread runs beside the engine) and the baseline callback re-enters
        # Python on the same thread.
        dll = ctypes.PyDLL(path)
        self.functions: dict[str, Any] = {}
        for table in (_NODE_CALLS, _HOST_CALLS):
            for name, (restype, argtypes) in table.items():
                fn = getattr(dll, name)
                fn.restype = restype
                fn.argtypes = (_P, *argtypes) if table is _NODE_CALLS else argtypes
                self.functions[name] = fn
                setattr(self, name, fn)    # found before __getattr__, which only serves type checkers

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"{name}: not a Yoga C function this module declares")


@lru_cache(maxsize=1)
def _library() -> _Lib:
    try:
        module = importlib.import_module("pyyoga._pyyoga")
    except ImportError as exc:
        raise SetupError(
            f"pyyoga {PYYOGA_VERSION} is not installed (the engine's Yoga layout needs it): pip install -e ."
        ) from exc
    from importlib.metadata import version

    found = version("pyyoga")
    if found != PYYOGA_VERSION:
        raise SetupError(
            f"pyyoga {found} is installed, but the engine is pinned to pyyoga {PYYOGA_VERSION} (Yoga "
            f"{YOGA_VERSION}): pip install pyyoga=={PYYOGA_VERSION}"
        )
    return _Lib(str(module.__file__))


def _free_all(lib: _Lib, nodes: dict[int, int], config: int) -> None:
    # Detach every child first: YGNodeFree on an attached node searches its parent's children (quadratic).
    for ptr in nodes.values():
        lib.YGNodeRemoveAllChildren(ptr)
    for ptr in nodes.values():
        lib.YGNodeFree(ptr)
    nodes.clear()
    lib.YGConfigFree(config)


class YogaHost:
    """One run's Yoga nodes and config, behind the plain functions of `lua_api()` (see the module docstring)."""

    def __init__(self, max_live_nodes: int | None = None) -> None:
        self._lib = lib = _library()
        self.max_live_nodes = MAX_LIVE_NODES if max_live_nodes is None else max_live_nodes
        self._config: int = lib.YGConfigNew()
        self._nodes: dict[int, int] = {}   # id -> YGNodeRef
        self._ids: dict[int, int] = {}     # YGNodeRef -> id
        self._next_id = 0
        baselines: dict[int, float] = {}    # YGNodeRef -> the fixed baseline of YGNodeSetBaselineValue
        self._baselines = baselines
        self._baseline_func = _BASELINE_FUNC(lambda node, width, height: baselines.get(node, 0.0))
        self._finalizer = weakref.finalize(self, _free_all, lib, self._nodes, self._config)
        self._left, self._top = lib.YGNodeLayoutGetLeft, lib.YGNodeLayoutGetTop
        self._width, self._height = lib.YGNodeLayoutGetWidth, lib.YGNodeLayoutGetHeight

    def close(self) -> None:
        """Free every node and the config now (also done when the host is collected)."""
        self._finalizer()
        self._ids.clear()
        self._baselines.clear()

    @property
    def live_count(self) -> int:
        return len(self._nodes)

    # Nodes
    def node_new(self) -> int:
        """A new node's id, or 0 when `max_live_nodes` are alive (the Lua side aborts the run)."""
        if len(self._nodes) >= self.max_live_nodes:
            return 0
        ptr = self._lib.YGNodeNewWithConfig(self._config)
        self._next_id += 1
        self._nodes[self._next_id] = ptr
        self._ids[ptr] = self._next_id
        return self._next_id

    def _forget(self, ptr: int) -> int:
        node_id = self._ids.pop(ptr)
        del self._nodes[node_id]
        self._baselines.pop(ptr, None)
        return node_id

    def node_free(self, node_id: int) -> None:
        ptr = self._nodes[node_id]
        self._lib.YGNodeFree(ptr)
        self._forget(ptr)

    def _subtree(self, ptr: int) -> list[int]:
        """The node and its descendants, each after its parent."""
        lib = self._lib
        out, stack = [], [ptr]
        while stack:
            node = stack.pop()
            out.append(node)
            for i in range(lib.YGNodeGetChildCount(node)):
                stack.append(lib.YGNodeGetChild(node, i))
        return out

    def node_free_recursive(self, node_id: int) -> tuple[int, ...]:
        """Free the node and its subtree, as Yoga's YGNodeFreeRecursive does; the ids freed.

        Yoga's own function recurses and removes children one by one from the front (quadratic in a wide node):
        here every node is detached from its children first, then freed alone.
        """
        lib = self._lib
        nodes = self._subtree(self._nodes[node_id])
        for ptr in nodes:
            lib.YGNodeRemoveAllChildren(ptr)
        for ptr in nodes:
            lib.YGNodeFree(ptr)
        return tuple(self._forget(ptr) for ptr in nodes)

    def _levels(self, ptr: int) -> int:
        """Levels in the subtree of the node (1 for a leaf)."""
        lib = self._lib
        height, stack = 0, [(ptr, 1)]
        while stack:
            node, level = stack.pop()
            height = max(height, level)
            for i in range(lib.YGNodeGetChildCount(node)):
                stack.append((lib.YGNodeGetChild(node, i), level + 1))
        return height

    def node_reset(self, node_id: int) -> str | None:
        ptr = self._nodes[node_id]
        if self._lib.YGNodeGetChildCount(ptr):
            return "Cannot reset a node which still has children attached"
        if self._lib.YGNodeGetParent(ptr):
            return "Cannot reset a node still attached to a owner"
        self._lib.YGNodeReset(ptr)
        self._baselines.pop(ptr, None)
        return None

    def insert_child(self, node_id: int, child_id: int, index: int) -> str | None:
        """YGNodeInsertChild, or why not (Yoga would abort the process, build a cycle or recurse too deep)."""
        lib = self._lib
        ptr, child = self._nodes[node_id], self._nodes[child_id]
        if lib.YGNodeGetParent(child):
            return "Child already has a owner, it must be removed first."
        levels, ancestor = 0, ptr
        while ancestor:
            if ancestor == child:
                return "a node cannot be inserted into itself or into one of its descendants"
            levels += 1
            ancestor = lib.YGNodeGetParent(ancestor)
        count = lib.YGNodeGetChildCount(ptr)
        if not 0 <= index <= count:
            return f"index {index} out of range (the node has {count} children)"
        levels += self._levels(child)
        if levels > MAX_TREE_DEPTH:
            return f"the tree would be {levels} levels deep; the engine allows {MAX_TREE_DEPTH}"
        lib.YGNodeInsertChild(ptr, child, index)
        return None

    def remove_child(self, node_id: int, child_id: int) -> None:
        self._lib.YGNodeRemoveChild(self._nodes[node_id], self._nodes[child_id])

    def get_child(self, node_id: int, index: int) -> int:
        """The id of the child at `index`, or 0."""
        if index < 0:
            return 0
        child = self._lib.YGNodeGetChild(self._nodes[node_id], index)
        return self._ids[child] if child else 0

    def get_parent(self, node_id: int) -> int:
        parent = self._lib.YGNodeGetParent(self._nodes[node_id])
        return self._ids[parent] if parent else 0

    def calculate_layout(self, node_id: int, width: float, height: float, direction: int) -> None:
        self._lib.YGNodeCalculateLayout(self._nodes[node_id], width, height, direction)

    def layout_box(self, node_id: int) -> tuple[float, float, float, float]:
        """Left, top, width and height in one crossing (the Lua side caches them until the layout changes)."""
        ptr = self._nodes[node_id]
        return self._left(ptr), self._top(ptr), self._width(ptr), self._height(ptr)

    def set_baseline(self, node_id: int, baseline: float) -> None:
        ptr = self._nodes[node_id]
        self._baselines[ptr] = float(baseline)
        self._lib.YGNodeSetBaselineFunc(ptr, self._baseline_func)

    def clear_baseline(self, node_id: int) -> None:
        ptr = self._nodes[node_id]
        self._baselines.pop(ptr, None)
        self._lib.YGNodeSetBaselineFunc(ptr, _NO_BASELINE_FUNC)

    # Config
    def set_point_scale_factor(self, factor: float) -> None:
        self._lib.YGConfigSetPointScaleFactor(self._config, factor)

    def get_point_scale_factor(self) -> float:
        return float(self._lib.YGConfigGetPointScaleFactor(self._config))

    def _node_call(self, name: str) -> Callable[..., Any]:
        fn = self._lib.functions[name]
        nodes = self._nodes
        restype, argtypes = _NODE_CALLS[name]
        if restype is _YGValue:
            if argtypes:
                def value1(node_id: int, a: int) -> tuple[float, int]:
                    v = fn(nodes[node_id], a)
                    return v.value, v.unit
                return value1

            def value0(node_id: int) -> tuple[float, int]:
                v = fn(nodes[node_id])
                return v.value, v.unit
            return value0
        if len(argtypes) == 0:
            return lambda node_id: fn(nodes[node_id])
        if len(argtypes) == 1:
            return lambda node_id, a: fn(nodes[node_id], a)
        return lambda node_id, a, b: fn(nodes[node_id], a, b)

    def lua_api(self) -> dict[str, Callable[..., Any]]:
        """The functions 86_yoga.lua calls: Yoga's node calls under their C names, and the host's own."""
        api = {name: self._node_call(name) for name in _NODE_CALLS}
        api.update({
            "node_new": self.node_new,
            "node_free": self.node_free,
            "node_free_recursive": self.node_free_recursive,
            "node_reset": self.node_reset,
            "insert_child": self.insert_child,
            "remove_child": self.remove_child,
            "get_child": self.get_child,
            "get_parent": self.get_parent,
            "calculate_layout": self.calculate_layout,
            "layout_box": self.layout_box,
            "set_baseline": self.set_baseline,
            "clear_baseline": self.clear_baseline,
            "set_point_scale_factor": self.set_point_scale_factor,
            "get_point_scale_factor": self.get_point_scale_factor,
            "max_live_nodes": lambda: self.max_live_nodes,
        })
        return api
