"""Collision shapes made from geometry, for engine/_bullet.py: triangle meshes, convex hulls and terrain heightfields.

57_physics3d.lua hands a CollisionShape's geometry over as it read it when the shape was set (Urho3D reads it then
too): a triangle mesh's triangles or a convex hull's points, or a terrain's heights, as packed single floats in hex
(lupa passes Lua strings to Python as text).  This module turns them into pybullet shapes the way Urho3D builds its
Bullet shapes (docs/physics.md, "Shapes from geometry"):

- a triangle mesh is a concave mesh (pybullet's GEOM_MESH with indices: Bullet's btBvhTriangleMeshShape, as Urho3D's
  btScaledBvhTriangleMeshShape), whatever the body: on a moving body it still collides with convex shapes only, as in
  Bullet (a concave pair has no collision algorithm);
- a convex hull is the hull of the points (GEOM_MESH without indices: btConvexHullShape, as Urho3D's);
- a terrain is Bullet's heightfield (GEOM_HEIGHTFIELD), laid out as Urho3D lays out its btHeightfieldTerrainShape:
  vertex (x, z) at ((x - (nx - 1) / 2) * sx, height, (z - (nz - 1) / 2) * sz), each quad split along its
  (x, z + 1)-(x + 1, z) diagonal.  pybullet's heightfield is Z-up and ignores a collision frame, so the heights are
  passed transposed (pybullet's rows run along world Z) and the body's frame is turned by `HEIGHTFIELD_FRAME`, which
  takes pybullet's X, Y and Z to the world's Z, X and Y: the triangles land exactly where Urho3D's are.

Scale is applied per axis to the points, as Bullet's local scaling does.  Equal points of a mesh are merged (pybullet
takes at most MAX_VERTICES of them); a geometry beyond pybullet's limits is refused with `ShapeError` and a clear
message (the engine logs it and leaves the shape out).
"""

from __future__ import annotations

import hashlib
import struct
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

SHAPE_TRIANGLEMESH, SHAPE_CONVEXHULL, SHAPE_TERRAIN = 6, 7, 8
GEOMETRY_KINDS = frozenset({SHAPE_TRIANGLEMESH, SHAPE_CONVEXHULL, SHAPE_TERRAIN})
# pybullet's limits on what one createCollisionShape call uploads (SharedMemoryPublic.h; the heightfield's floats
# share the 8 MB stream chunk)
MAX_VERTICES = 131072
MAX_INDICES = 524288
MAX_HEIGHTS = 8 * 1024 * 1024 // 4
# The body frame of a heightfield (x, y, z, w): pybullet's X -> world Z, Y -> world X, Z (up) -> world Y
HEIGHTFIELD_FRAME = (-0.5, -0.5, -0.5, 0.5)
_CACHE_SIZE = 16


class ShapeError(ValueError):
    """A geometry pybullet cannot take; the message names the limit."""


@dataclass(frozen=True)
class Geometry:
    """Parsed geometry: unique points and triangle indices (mesh), points (hull), or a height grid (terrain).
    `lo`/`hi` bound the points (for a terrain: x and z unscaled grid units, centred, and the heights centred)."""
    kind: int
    digest: bytes
    points: tuple[tuple[float, float, float], ...] = ()
    indices: tuple[int, ...] = ()
    heights: tuple[float, ...] = ()
    nx: int = 0
    nz: int = 0
    lo: tuple[float, float, float] = (0.0, 0.0, 0.0)
    hi: tuple[float, float, float] = (0.0, 0.0, 0.0)


_parsed: OrderedDict[bytes, Geometry] = OrderedDict()


def parse(kind: int, hex_data: str, a: int, b: int = 0) -> Geometry:
    """The geometry of a shape row: `a` is the point count (mesh: three a triangle), or for a terrain `a`, `b` the
    vertex counts along x and z.  Recently parsed geometries are kept (bodies are rebuilt often, their geometry
    rarely changes)."""
    digest = hashlib.blake2b(f"{kind}:{a}:{b}:".encode() + hex_data.encode("ascii"), digest_size=16).digest()
    cached = _parsed.get(digest)
    if cached is not None:
        _parsed.move_to_end(digest)
        return cached
    raw = bytes.fromhex(hex_data)
    count = len(raw) // 4
    values = struct.unpack(f"<{count}f", raw[:count * 4])
    geometry = _terrain(digest, values, int(a), int(b)) if kind == SHAPE_TERRAIN else _points(kind, digest, values)
    _parsed[digest] = geometry
    while len(_parsed) > _CACHE_SIZE:
        _parsed.popitem(last=False)
    return geometry


def _bounds(points: Any) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    if not points:
        return (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    lo = (min(p[0] for p in points), min(p[1] for p in points), min(p[2] for p in points))
    hi = (max(p[0] for p in points), max(p[1] for p in points), max(p[2] for p in points))
    return lo, hi


def _points(kind: int, digest: bytes, values: tuple[float, ...]) -> Geometry:
    seen: dict[tuple[float, float, float], int] = {}
    indices: list[int] = []
    n = len(values) // 3
    if kind == SHAPE_TRIANGLEMESH:
        n -= n % 3
    for k in range(n):
        p = (values[3 * k], values[3 * k + 1], values[3 * k + 2])
        index = seen.get(p)
        if index is None:
            index = seen[p] = len(seen)
        indices.append(index)
    points = tuple(seen)   # insertion order: first appearance
    what = "triangle mesh" if kind == SHAPE_TRIANGLEMESH else "convex hull"
    if len(points) > MAX_VERTICES:
        raise ShapeError(f"a {what} of {len(points)} distinct points is more than pybullet's {MAX_VERTICES}: the "
                         "shape is left out")
    if kind == SHAPE_TRIANGLEMESH and len(indices) > MAX_INDICES:
        raise ShapeError(f"a triangle mesh of {len(indices) // 3} triangles is more than pybullet's "
                         f"{MAX_INDICES // 3}: the shape is left out")
    lo, hi = _bounds(points)
    return Geometry(kind, digest, points=points, indices=tuple(indices) if kind == SHAPE_TRIANGLEMESH else (),
                    lo=lo, hi=hi)


def _terrain(digest: bytes, values: tuple[float, ...], nx: int, nz: int) -> Geometry:
    if nx < 2 or nz < 2 or len(values) < nx * nz:
        raise ShapeError(f"a terrain of {nx}x{nz} vertices has no heightfield (it needs at least 2x2)")
    if nx * nz > MAX_HEIGHTS:
        raise ShapeError(f"a terrain of {nx}x{nz} vertices is more than pybullet's {MAX_HEIGHTS} heights: the "
                         "shape is left out")
    heights = values[:nx * nz]
    low, high = min(heights), max(heights)
    mid = (low + high) * 0.5
    lo = (-(nx - 1) * 0.5, low - mid, -(nz - 1) * 0.5)
    hi = ((nx - 1) * 0.5, high - mid, (nz - 1) * 0.5)
    return Geometry(SHAPE_TERRAIN, digest, heights=heights, nx=nx, nz=nz, lo=lo, hi=hi)


def bounds(geometry: Geometry, sx: float, sy: float, sz: float, margin: float) -> tuple[
        tuple[float, float, float], tuple[float, float, float]]:
    """Centre and half extents of the scaled geometry's box in the shape's frame, margin included (Bullet's AABB of
    a convex hull, a triangle mesh and a heightfield all grow by the margin)."""
    scale = (sx, sy, sz)
    lo = [geometry.lo[i] * scale[i] for i in range(3)]
    hi = [geometry.hi[i] * scale[i] for i in range(3)]
    centre = tuple((min(lo[i], hi[i]) + max(lo[i], hi[i])) * 0.5 for i in range(3))
    half = tuple(abs(hi[i] - lo[i]) * 0.5 + margin for i in range(3))
    return centre, half  # type: ignore[return-value]


def create(p: Any, cid: int, geometry: Geometry, sx: float, sy: float, sz: float, frame: dict[str, Any]) -> int:
    """The pybullet collision shape of a mesh or hull, scaled, at `frame` (collisionFramePosition and Orientation);
    a heightfield's (frame ignored: its body carries HEIGHTFIELD_FRAME, see the module's docstring)."""
    if geometry.kind == SHAPE_TERRAIN:
        nx, nz, h = geometry.nx, geometry.nz, geometry.heights
        # pybullet's row i (its X, width nz) is the world's z, its column j (its Y, length nx) the world's x
        data = [h[i * nx + j] for j in range(nx) for i in range(nz)]
        return int(p.createCollisionShape(p.GEOM_HEIGHTFIELD, meshScale=[sz, sx, sy], heightfieldData=data,
                                          numHeightfieldRows=nz, numHeightfieldColumns=nx, physicsClientId=cid))
    vertices = [[x * sx, y * sy, z * sz] for x, y, z in geometry.points]
    if geometry.kind == SHAPE_TRIANGLEMESH:
        return int(p.createCollisionShape(p.GEOM_MESH, vertices=vertices, indices=list(geometry.indices), **frame))
    return int(p.createCollisionShape(p.GEOM_MESH, vertices=vertices, **frame))
