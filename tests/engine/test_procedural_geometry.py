"""UrhoX's three.js-style shape builders (issue 19, item 1): BoxGeometry, SphereGeometry, ... as ProceduralGeometry.
Counts, groups and bounding boxes are three.js's for the same arguments (worked out from its definitions); parametric
shapes are mirrored through the XY plane (Z negated, windings swapped), shapes from the game's coordinates are not."""

from __future__ import annotations

from typing import Any

import pytest

from engine.testing import lua, new_engine

PRELUDE = r"""
function box_of(b) return {b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z} end
function stats(g) return {g:GetVertexCount(), g:GetIndexCount(), g:GetGroupCount(), box_of(g:GetBoundingBox())} end
-- each triangle of the filled CustomGeometry: is its front face, (v1 - v0) x (v2 - v0) by Urho3D's winding, on the
-- side its vertex normals point to?  Returns triangles, wrongly wound ones, degenerate ones.
function winding(g)
  local cg = Scene():CreateChild("W"):CreateComponent("CustomGeometry")
  g:FillCustomGeometry(cg)
  local n, bad, degen = cg:GetNumVertices(0), 0, 0
  for i = 0, n - 3, 3 do
    local a, b, c = cg:GetVertex(0, i), cg:GetVertex(0, i + 1), cg:GetVertex(0, i + 2)
    local fn = (b.position - a.position):CrossProduct(c.position - a.position)
    if fn:Length() < 1e-9 then degen = degen + 1
    elseif fn:DotProduct(a.normal + b.normal + c.normal) <= 0 then bad = bad + 1 end
  end
  return {n // 3, bad, degen}
end
SQUARE = {Vector2(0, 0), Vector2(1, 0), Vector2(1, 1), Vector2(0, 1)}
"""


@pytest.fixture(scope="module")
def engine() -> Any:
    e = new_engine()
    lua(PRELUDE, e)
    return e


@pytest.mark.parametrize(
    ("call", "vertices", "indices", "groups", "box"),
    [
        ("BoxGeometry(1, 1, 1)", 24, 36, 6, [-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]),
        ("BoxGeometry(1, 2, 3, 2, 3, 4)", 94, 312, 6, [-0.5, -1, -1.5, 0.5, 1, 1.5]),
        ("PlaneGeometry()", 4, 6, 0, [-0.5, -0.5, 0, 0.5, 0.5, 0]),
        ("PlaneGeometry(4, 2, 3, 2)", 12, 36, 0, [-2, -1, 0, 2, 1, 0]),
        ("SphereGeometry(1, 32, 16)", 561, 2880, 0, [-1, -1, -1, 1, 1, 1]),
        ("SphereGeometry(2, 8, 6)", 63, 240, 0, [-2, -2, -2, 2, 2, 2]),
        ("SphereGeometry(1, 2, 1)", 12, 18, 0, None),  # at least 3 x 2 segments
        ("CylinderGeometry()", 196, 384, 3, [-1, -0.5, -1, 1, 0.5, 1]),
        ("CylinderGeometry(0.5, 1, 2, 7, 3, true)", 32, 126, 1, None),
        ("ConeGeometry()", 131, 192, 2, [-1, -0.5, -1, 1, 0.5, 1]),
        ("CircleGeometry()", 34, 96, 0, [-1, -1, 0, 1, 1, 0]),
        ("RingGeometry()", 66, 192, 0, [-1, -1, 0, 1, 1, 0]),
        ("RingGeometry(1, 2, 8, 3)", 36, 144, 0, [-2, -2, 0, 2, 2, 0]),
        ("TorusGeometry()", 637, 3456, 0, [-1.4, -1.4, -0.4, 1.4, 1.4, 0.4]),
        ("TorusKnotGeometry()", 585, 3072, 0, None),
        ("CapsuleGeometry()", 90, 432, 0, [-1, -1.5, -1, 1, 1.5, 1]),
        ("CapsuleGeometry(0.5, 2, 2, 8, 3)", 72, 336, 0, [-0.5, -1.5, -0.5, 0.5, 1.5, 0.5]),
        ("TetrahedronGeometry()", 12, 12, 0, None),
        ("OctahedronGeometry(2)", 24, 24, 0, [-2, -2, -2, 2, 2, 2]),
        ("IcosahedronGeometry()", 60, 60, 0, None),
        ("IcosahedronGeometry(1, 1)", 240, 240, 0, None),
        ("DodecahedronGeometry()", 108, 108, 0, None),
        ("TetrahedronGeometry(1, 2)", 108, 108, 0, None),
        ("LatheGeometry()", 39, 144, 0, [-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]),
        ("TubeGeometry({Vector3(-1, 0, 0), Vector3(1, 0, 0)}, 4, 0.5, 8)", 45, 192, 0, [-1, -0.5, -0.5, 1, 0.5, 0.5]),
        ("TubeGeometry({Vector3(-2, 0, 0), Vector3(0, 1, 1), Vector3(2, 0, 0)}, 64, 0.2, 8)", 585, 3072, 0, None),
        ("ShapeGeometry(SQUARE)", 4, 6, 0, [0, 0, 0, 1, 1, 0]),
        ("ExtrudeGeometry(SQUARE, 0.5)", 36, 36, 2, [0, 0, 0, 1, 1, 0.5]),
        ("ExtrudeGeometry(SQUARE)", 36, 36, 2, [0, 0, 0, 1, 1, 1]),
        ("RoundedBoxGeometry()", 900, 900, 6, [-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]),
        ("RoundedBoxGeometry(2, 1, 3, 1, 0.25)", 324, 324, 6, [-1, -0.5, -1.5, 1, 0.5, 1.5]),
    ],
)
def test_counts_groups_and_bounding_boxes_are_three_js(
    engine: Any, call: str, vertices: int, indices: int, groups: int, box: list[float] | None
) -> None:
    got = lua(f"return stats({call})", engine)
    assert got[:3] == [vertices, indices, groups]
    if box is not None:
        assert got[3] == pytest.approx(box, abs=1e-6)


def test_polyhedra_reach_the_radius_along_their_vertices(engine: Any) -> None:
    # a regular solid's corners lie on the sphere: the tetrahedron's (1,1,1)/sqrt(3), the icosahedron's
    # (0, 1, golden)/|..|, the dodecahedron's (golden, 0, 1/golden)/sqrt(3)
    tet, ico, dod = lua(
        "return {box_of(TetrahedronGeometry(2):GetBoundingBox()), box_of(IcosahedronGeometry():GetBoundingBox()),"
        " box_of(DodecahedronGeometry():GetBoundingBox())}",
        engine,
    )
    golden = (1 + 5**0.5) / 2
    assert tet == pytest.approx([-2 / 3**0.5] * 3 + [2 / 3**0.5] * 3)
    assert ico == pytest.approx([-golden / (1 + golden**2) ** 0.5] * 3 + [golden / (1 + golden**2) ** 0.5] * 3)
    assert dod == pytest.approx([-golden / 3**0.5] * 3 + [golden / 3**0.5] * 3)


@pytest.mark.parametrize(
    "call",
    [
        "BoxGeometry(1, 2, 3, 2, 3, 4)",
        "PlaneGeometry(2, 2, 3, 3)",
        "SphereGeometry(1, 8, 6, 0.3, 4, 0.2, 2)",
        "CylinderGeometry(0.5, 1, 2, 7, 3)",
        "ConeGeometry()",
        "CircleGeometry(1, 5, 0, 3)",
        "RingGeometry(0.5, 1, 6, 2)",
        "TorusGeometry()",
        "TorusKnotGeometry()",
        "CapsuleGeometry(0.5, 1, 3, 7, 2)",
        "TetrahedronGeometry(1, 2)",
        "OctahedronGeometry()",
        "IcosahedronGeometry(1, 1)",
        "DodecahedronGeometry()",
        "LatheGeometry({Vector2(0, -1), Vector2(1, -0.5), Vector2(0.5, 0.5), Vector2(0, 1)}, 9)",
        "TubeGeometry({Vector3(-2, 0, 0), Vector3(0, 1, 1), Vector3(2, 0, 0), Vector3(3, 2, 1)}, 20, 0.3, 6)",
        "TubeGeometry({Vector3(2, 0, 0), Vector3(0, 0.5, 2), Vector3(-2, 0, 0), Vector3(0, -0.5, -2)}, 40, 0.3, 6,"
        " true)",
        "ShapeGeometry({Vector2(0, 0), Vector2(0, 2), Vector2(1, 1), Vector2(2, 2), Vector2(2, 0)})",
        "ExtrudeGeometry({Vector2(0, 0), Vector2(0, 2), Vector2(1, 1), Vector2(2, 2), Vector2(2, 0)}, 0.5)",
        "ExtrudeGeometry(SQUARE, -0.5)",
        "RoundedBoxGeometry(2, 1, 1, 3, 0.2)",
    ],
)
def test_every_front_face_is_on_its_normals_side(engine: Any, call: str) -> None:
    triangles, wrong, _degenerate = lua(f"return winding({call})", engine)
    assert triangles > 0 and wrong == 0


def test_parametric_shapes_are_mirrored_and_given_coordinates_are_not(engine: Any) -> None:
    got = lua(
        r"""
    local function first_normal(g)
      local cg = Scene():CreateChild("N"):CreateComponent("CustomGeometry")
      g:FillCustomGeometry(cg)
      local n = cg:GetVertex(0, 0).normal
      return {n.x, n.y, n.z}
    end
    return {first_normal(PlaneGeometry()), first_normal(CircleGeometry()), first_normal(ShapeGeometry(SQUARE)),
      box_of(SphereGeometry(1, 32, 16, 0, math.pi):GetBoundingBox()),
      box_of(ExtrudeGeometry({Vector2(0, 0), Vector2(0, 1), Vector2(1, 0)}, 2):GetBoundingBox())}
    """,
        engine,
    )
    plane, circle, shape, half_sphere, prism = got
    assert plane == [0, 0, -1] and circle == [0, 0, -1]  # three.js's +Z faces, mirrored
    assert shape == [0, 0, 1]  # a contour faces +Z as given
    assert half_sphere == pytest.approx([-1, -1, -1, 1, 1, 0], abs=1e-9)  # three.js's z >= 0 half, mirrored
    assert prism == [0, 0, 0, 1, 1, 2]


def test_to_model_has_a_geometry_per_group_and_the_bounding_box(engine: Any) -> None:
    got = lua(
        r"""
    local box = BoxGeometry(2, 1, 1):ToModel()
    local ranges = {}
    for i = 0, box:GetNumGeometries() - 1 do
      local g = box:GetGeometry(i, 0)
      ranges[#ranges + 1] = {g.indexStart, g.indexCount}
    end
    local sphere = SphereGeometry(1, 32, 16):ToModel()
    local sg = sphere:GetGeometry(0, 0)
    return {box:GetNumGeometries(), ranges, box_of(box.boundingBox), sphere:GetNumGeometries(), sg.indexCount,
      sg:GetVertexBuffer(0).vertexCount, sg:GetVertexBuffer(0).elementMask, box_of(sphere.boundingBox)}
    """,
        engine,
    )
    count, ranges, box, sphere_count, sphere_indices, sphere_vertices, mask, sphere_box = got
    assert count == 6 and ranges == [[6 * i, 6] for i in range(6)]
    assert box == [-1, -0.5, -0.5, 1, 0.5, 0.5]
    assert (sphere_count, sphere_indices, sphere_vertices) == (1, 2880, 561)
    assert mask == 1 | 2 | 8  # position, normal, texcoord
    assert sphere_box == pytest.approx([-1, -1, -1, 1, 1, 1])


def test_fill_custom_geometry_expands_the_indices_with_uvs(engine: Any) -> None:
    got = lua(
        r"""
    local cg = Scene():CreateChild("C"):CreateComponent("CustomGeometry")
    local ok = BoxGeometry(1, 1, 1):FillCustomGeometry(cg)
    local uvs = {}
    for i = 0, 2 do local t = cg:GetVertex(0, i).texCoord; uvs[#uvs + 1] = {t.x, t.y} end
    return {ok, cg:GetNumVertices(0), box_of(cg:GetBoundingBox()), uvs}
    """,
        engine,
    )
    ok, n, box, uvs = got
    assert ok is True and n == 36 and box == [-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]
    # the +X face's first triangle: grid corners (0,0), (0,1) and (1,0) of three.js's UV layout
    assert uvs == [[0, 1], [1, 1], [0, 0]]  # (a, b, d) wound (a, d, b) by the mirroring


def test_a_ray_hits_a_static_model_made_from_a_box(engine: Any) -> None:
    got = lua(
        r"""
    local scene = Scene()
    local octree = scene:CreateComponent("Octree")
    local node = scene:CreateChild("Crate")
    node.position = Vector3(0, 0, 3)
    local sm = node:CreateComponent("StaticModel")
    sm.model = BoxGeometry(2, 2, 2):ToModel()
    local out = {}
    for _, d in ipairs({Vector3(0, 0, 1), Vector3(0, -1, 0), Vector3(-1, 0, 0)}) do
      local origin = Vector3(0.1, 0.2, 3) - d * 10
      local r = octree:RaycastSingle(Ray(origin, d), RAY_TRIANGLE, 100, DRAWABLE_GEOMETRY)
      out[#out + 1] = {r.distance, r.normal.x, r.normal.y, r.normal.z, r.node and r.node.name or false, r.subObject}
    end
    return out
    """,
        engine,
    )
    # three.js's group order +X, -X, +Y, -Y, +Z, -Z; mirrored, three.js's +Z face (group 4) is the one at -Z
    assert got[0] == pytest.approx([9, 0, 0, -1, "Crate", 4])
    assert got[1] == pytest.approx([9.2, 0, 1, 0, "Crate", 2])
    assert got[2] == pytest.approx([9.1, 1, 0, 0, "Crate", 0])


def test_bad_arguments_are_refused(engine: Any) -> None:
    got = lua(
        r"""
    local function err(f, ...)
      local ok, e = pcall(f, ...)
      return ok and "no error" or tostring(e)
    end
    return {
      err(BoxGeometry, "wide"),
      err(SphereGeometry, 1, {}),
      err(SphereGeometry, 1, 5000, 5000),
      err(LatheGeometry, 5),
      err(TubeGeometry, {Vector3(0, 0, 0), 7}),
      err(PolyhedronGeometry, {0, 0, 1, 1, 0, 0, 0, 1, 0}, {0, 1, 3}),
      err(PolyhedronGeometry, {0, 0, 1}, "x"),
      err(ShapeGeometry, nil),
      ShapeGeometry({Vector2(0, 0), Vector2(1, 0)}):GetVertexCount(),
      TubeGeometry({Vector3(0, 0, 0)}):GetVertexCount(),
    }
    """,
        engine,
    )
    box, sphere_type, sphere_big, lathe, tube, poly_index, poly_table, shape, tiny_shape, tiny_tube = got
    assert "bad argument #1 to 'BoxGeometry' (number expected, got string)" in box
    assert "bad argument #2 to 'SphereGeometry' (number expected, got table)" in sphere_type
    assert "SphereGeometry: too many vertices (25010001 asked, at most 262144)" in sphere_big
    assert "bad argument #1 to 'LatheGeometry' (table of Vector2 expected, got number)" in lathe
    assert "bad argument #1 to 'TubeGeometry' (point 2 is not a Vector3)" in tube
    assert "bad argument #2 to 'PolyhedronGeometry' (index 3 is not a vertex: 3)" in poly_index
    assert "bad argument #2 to 'PolyhedronGeometry' (table of numbers expected, got string)" in poly_table
    assert "bad argument #1 to 'ShapeGeometry' (table of Vector2 expected, got nil)" in shape
    assert (tiny_shape, tiny_tube) == (0, 0)


def test_same_shapes_same_numbers_across_engines() -> None:
    code = r"""
    local g = TubeGeometry({Vector3(-2, 0, 0), Vector3(0, 1, 1), Vector3(2, 0, 0)}, 16, 0.2, 5)
    local k = TorusKnotGeometry(1, 0.3, 32, 6, 3, 4)
    return {box_of(g:GetBoundingBox()), box_of(k:GetBoundingBox())}
    """
    first = lua(PRELUDE + code)
    assert first == lua(PRELUDE + code)


def test_a_loft_skins_its_sections_outward() -> None:
    """LoftGeometry joins equal-length sections in order (closed sections repeat their first point for the seam);
    its faces wind outward, so a ray from outside hits it and one from inside passes through."""
    engine = new_engine("function Start() end", {})
    engine.start()
    got = lua("""
    local function secs(turn)
      local out = {}
      for k, y in ipairs({0, 1, 2}) do
        local s = {}
        for side = 0, 3 do
          local a = turn * side * math.pi / 2
          s[#s + 1] = Vector3(math.cos(a), y, math.sin(a))
        end
        out[k] = s
      end
      return out
    end
    local results = {}
    for _, turn in ipairs({1, -1}) do   -- either direction round the sections: still outward
      local g = LoftGeometry(secs(turn), true)
      local scene = Scene(); local octree = scene:CreateComponent("Octree")
      scene:CreateChild("L"):CreateComponent("StaticModel").model = g:ToModel()
      local outside = octree:RaycastSingle(Ray(Vector3(5, 0.5, 0), Vector3(-1, 0, 0)), RAY_TRIANGLE, 100,
        DRAWABLE_GEOMETRY)
      local inside = octree:RaycastSingle(Ray(Vector3(0, 0.5, 0), Vector3(1, 0, 0)), RAY_TRIANGLE, 100,
        DRAWABLE_GEOMETRY)
      results[#results + 1] = {g:GetVertexCount(), g:GetIndexCount(), outside.distance, inside.node == nil}
    end
    local open = LoftGeometry(secs(1), false)
    results[#results + 1] = {open:GetVertexCount(), open:GetIndexCount()}
    local ok, err = pcall(LoftGeometry, {{Vector3(0, 0, 0), Vector3(1, 0, 0)}, {Vector3(0, 1, 0)}})
    results[#results + 1] = {ok, tostring(err):find("sections must match") ~= nil}
    return results
    """, engine)
    assert got == [[15, 48, 4.0, True], [15, 48, 4.0, True], [12, 36], [False, True]]


def test_line_geometries_trace_edges_and_box_grids() -> None:
    """WireframeGeometry: every triangle edge once (a box: 12 edges and 6 face diagonals); EdgesGeometry: the edges
    where faces turn by the threshold (a box: its 12 edges; a sphere's flat quads hide their diagonals; a higher
    threshold keeps fewer); BoxLineGeometry: four lines round the box at each segment boundary; all LINE_LIST."""
    engine = new_engine("function Start() end", {})
    engine.start()
    got = lua("""
    local box, sphere = BoxGeometry(1, 1, 1), SphereGeometry(1, 8, 6)
    local edges = EdgesGeometry(box)
    local b = edges:GetBoundingBox()
    local ok = pcall(WireframeGeometry, 5)
    return {WireframeGeometry(box):GetVertexCount(), edges:GetVertexCount(), EdgesGeometry(sphere):GetVertexCount(),
            EdgesGeometry(sphere, 40):GetVertexCount() < EdgesGeometry(sphere):GetVertexCount(),
            BoxLineGeometry(1, 1, 1, 2, 2, 2):GetVertexCount(), BoxLineGeometry():GetVertexCount(),
            edges:ToModel():GetGeometry(0, 0).primitiveType == LINE_LIST, b.min.x, b.max.y, ok}
    """, engine)
    # the sphere's edges: 8 meridians x 6 segments and 5 inner rings x 8, two vertices each
    assert got == [36, 24, (48 + 40) * 2, True, 72, 8 * 6, True, -0.5, 0.5, False]
