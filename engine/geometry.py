"""Python-side access to 3D content built in a run: a CustomGeometry's triangles.

The engine keeps a CustomGeometry's vertices in Lua (engine/lua/runtime/59_custom_geometry.lua). Code on the Python
side of a run (the physics host building a triangle mesh or a convex hull, a test) reads them through here:

    from engine.geometry import custom_geometry_triangles
    tris = custom_geometry_triangles(engine, component)          # the committed triangles, what raycasts hit
    tris = custom_geometry_triangles(engine, component, "defined")   # what Urho3D's CollisionShape reads

`component` is the CustomGeometry as the game holds it (the Lua object). Lua code in the engine calls
`E.custom_geometry_triangles(record, source)` directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

Vec3 = tuple[float, float, float]
Triangle = tuple[Vec3, Vec3, Vec3]


def triangles_of(flat: Sequence[float]) -> list[Triangle]:
    """Nine numbers a triangle (x0, y0, z0, x1, ...) as triangles; a trailing partial triangle is dropped."""
    values = [float(v) for v in flat]
    out: list[Triangle] = []
    for k in range(0, len(values) - len(values) % 9, 9):
        a, b, c = values[k:k + 3], values[k + 3:k + 6], values[k + 6:k + 9]
        out.append(((a[0], a[1], a[2]), (b[0], b[1], b[2]), (c[0], c[1], c[2])))
    return out


def _lua_list(table: Any) -> list[Any]:
    return [table[i] for i in range(1, len(table) + 1)]


def custom_geometry_triangles(engine: Any, component: Any,
                              source: Literal["committed", "defined"] = "committed") -> list[Triangle]:
    """The triangles of a CustomGeometry component in its node's space.

    "committed": each geometry's vertices at the last Commit, three to a triangle, geometries in order (Urho3D's
    raycasts read every draw range as a triangle list). "defined": every vertex defined so far, committed or not,
    in order, three to a triangle, as Urho3D's CollisionShape reads a CustomGeometry for a triangle mesh or hull.
    """
    if source not in ("committed", "defined"):
        raise ValueError(f"source must be 'committed' or 'defined', not {source!r}")
    lua_engine = engine.E
    record = lua_engine.REC[component]
    if record is None or record["type_name"] != "CustomGeometry":
        raise TypeError("not a CustomGeometry component")
    with engine.unmetered():
        result = lua_engine.custom_geometry_triangles(record, source)
        if source == "defined":
            return triangles_of(_lua_list(result))
        out: list[Triangle] = []
        for geometry in _lua_list(result):
            out.extend(triangles_of(_lua_list(geometry)))
        return out
