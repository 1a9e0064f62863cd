"""3D content built in code (issue 19, item 1): CustomGeometry, models and buffers built in Lua, a model file the game
ships, ConvexGeometry, Text3D, RibbonTrail, DecalSet, drawables' bounding boxes and the Octree's raycasts and queries.
Expected values are worked out by hand from Urho3D's documented semantics (left-handed, Y up, back faces culled)."""

from __future__ import annotations

import struct
from typing import Any

import pytest

from engine.geometry import custom_geometry_triangles, triangles_of
from engine.testing import lua, new_engine

# A right triangle in the XY plane at z = 0 facing -Z (a ray travelling +Z hits its front), plus a helper scene.
PRELUDE = r"""
function tri_scene()
  local scene = Scene()
  local octree = scene:CreateComponent("Octree")
  local node = scene:CreateChild("Tri")
  local g = node:CreateComponent("CustomGeometry")
  g:BeginGeometry(0, TRIANGLE_LIST)
  g:DefineVertex(Vector3(0, 0, 0)); g:DefineNormal(Vector3(0, 0, -1))
  g:DefineVertex(Vector3(0, 1, 0)); g:DefineNormal(Vector3(0, 0, -1))
  g:DefineVertex(Vector3(1, 0, 0)); g:DefineNormal(Vector3(0, 0, -1))
  g:Commit()
  return scene, octree, node, g
end
function box_of(b) return {b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z} end
function hit_of(r) return {r.distance, r.position.x, r.position.y, r.position.z, r.normal.x, r.normal.y, r.normal.z,
  r.node and r.node.name or false, r.subObject} end
"""


@pytest.fixture(scope="module")
def engine() -> Any:
    e = new_engine()
    lua(PRELUDE, e)
    return e


def close(a: list[float], b: list[float], tol: float = 1e-6) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def test_vertex_data_round_trips_through_get_vertex_and_fill_model(engine: Any) -> None:
    got = lua(r"""
    local scene = Scene()
    local g = scene:CreateChild("G"):CreateComponent("CustomGeometry")
    g:SetNumGeometries(2)
    g:BeginGeometry(1, TRIANGLE_STRIP)
    g:DefineVertex(Vector3(1, 2, 3))
    g:DefineNormal(Vector3(0, 1, 0))
    g:DefineColor(Color(1, 0, 0, 1))
    g:DefineTexCoord(Vector2(0.25, 0.75))
    g:DefineTangent(Vector4(1, 0, 0, -1))
    g:DefineVertex(Vector3(4, 5, 6))
    g:Commit()
    local v = g:GetVertex(1, 0)
    local model = Model:new()
    local filled = g:FillModel(model)
    local vb = model:GetGeometry(1, 0):GetVertexBuffer(0)
    local data = vb:GetData()
    data:Seek(0)
    local p = data:ReadVector3()
    return {v.position.x, v.position.y, v.position.z, v.normal.y, v.color, v.texCoord.x, v.texCoord.y, v.tangent.w,
      g:GetNumVertices(0), g:GetNumVertices(1), g:GetNumGeometries(), g:GetVertex(1, 2) == nil, filled,
      vb.elementMask, vb.vertexSize, vb.vertexCount, model:GetGeometry(1, 0).vertexStart, p.x, p.z}
    """, engine)
    assert got == [1, 2, 3, 1, 0xFF0000FF, 0.25, 0.75, -1, 0, 2, 2, True, True,
                   1 | 2 | 4 | 8 | 128, 52, 2, 0, 1, 3]


def test_get_vertex_is_live_and_commit_sets_the_bounding_box(engine: Any) -> None:
    got = lua(r"""
    local scene, octree, node, g = tri_scene()
    local before = box_of(g:GetBoundingBox())
    g:GetVertex(0, 1).position = Vector3(0, 3, -2)    -- Urho3D hands out the vertex itself
    local stale = box_of(g:GetBoundingBox())                 -- not committed yet
    g:Commit()
    return {before, stale, box_of(g:GetBoundingBox())}
    """, engine)
    assert got == [[0, 0, 0, 1, 1, 0], [0, 0, 0, 1, 1, 0], [0, 0, -2, 1, 3, 0]]


def test_a_handed_out_vertex_changes_the_definition_not_the_committed_geometry(engine: Any) -> None:
    """A vertex from GetVertex is the definition's own: a change shows in what is defined (the points a collision
    shape reads, FillModel's bytes), while raycasts keep the committed triangles until the next Commit."""
    got = lua(r"""
    local scene, octree, node, g = tri_scene()
    local v = g:GetVertex(0, 2)
    v.position = Vector3(5, 0, 0)
    v.normal = Vector3(0, 0, 1)
    g:DefineNormal(Vector3(0, 1, 0))    -- the last vertex is the one handed out: it sees the change
    local ray = Ray(Vector3(2, 0.2, -5), Vector3(0, 0, 1))   -- inside the moved triangle, outside the committed one
    local before = octree:RaycastSingle(ray, RAY_TRIANGLE, 100, DRAWABLE_GEOMETRY)
    g:Commit()
    local after = octree:RaycastSingle(ray, RAY_TRIANGLE, 100, DRAWABLE_GEOMETRY)
    return {v.normal.y, v.normal.z, g:GetVertex(0, 2) == v, before.node == nil, after.node == node}
    """, engine)
    assert got == [1, 0, True, True, True]


def test_defined_vertices_are_held_compactly(engine: Any) -> None:
    """A real game defines hundreds of thousands of vertices: each costs a few numbers, not a table and four
    vectors (about 900 bytes each before)."""
    per_vertex = lua(r"""
    local g = Scene():CreateChild("G"):CreateComponent("CustomGeometry")
    collectgarbage(); collectgarbage()
    local before = collectgarbage("count")
    g:BeginGeometry(0, TRIANGLE_LIST)
    for i = 1, 30000 do
      g:DefineVertex(Vector3(i, 0, 0)); g:DefineNormal(Vector3(0, 1, 0)); g:DefineTexCoord(Vector2(0, 1))
      g:DefineColor(Color(1, 1, 1))
    end
    g:Commit()
    collectgarbage(); collectgarbage()
    return (collectgarbage("count") - before) * 1024 / 30000
    """, engine)
    assert 9 * 8 < per_vertex < 300


def test_world_bounding_box_follows_the_node_and_its_parent(engine: Any) -> None:
    got = lua(r"""
    local scene, octree, node, g = tri_scene()
    local parent = scene:CreateChild("Parent")
    parent.position = Vector3(10, 0, 0)
    parent:AddChild(node)          -- AddChild keeps the local transform (SetParent would keep the world one)
    node.rotation = Quaternion(0, 90, 0)     -- +X turns to -Z
    node.scale = Vector3(2, 2, 2)
    return box_of(g.worldBoundingBox)
    """, engine)
    assert close(got, [10, 0, -2, 10, 2, 0])


def test_triangle_raycast_hits_the_front_and_culls_the_back(engine: Any) -> None:
    got = lua(r"""
    local scene, octree, node, g = tri_scene()
    node.position = Vector3(0, 0, 5)
    local front = octree:RaycastSingle(Ray(Vector3(0.25, 0.25, 0), Vector3(0, 0, 1)), RAY_TRIANGLE, 100,
      DRAWABLE_GEOMETRY)
    local back = octree:RaycastSingle(Ray(Vector3(0.25, 0.25, 10), Vector3(0, 0, -1)), RAY_TRIANGLE, 100,
      DRAWABLE_GEOMETRY)
    local back_obb = octree:RaycastSingle(Ray(Vector3(0.25, 0.25, 10), Vector3(0, 0, -1)), RAY_OBB, 100,
      DRAWABLE_GEOMETRY)
    local outside = octree:RaycastSingle(Ray(Vector3(0.9, 0.9, 0), Vector3(0, 0, 1)), RAY_TRIANGLE, 100,
      DRAWABLE_GEOMETRY)
    local too_far = octree:RaycastSingle(Ray(Vector3(0.25, 0.25, 0), Vector3(0, 0, 1)), RAY_TRIANGLE, 4,
      DRAWABLE_GEOMETRY)
    return {hit_of(front), back.drawable == nil, back.distance == math.huge, hit_of(back_obb), outside.node == nil,
      too_far.node == nil}
    """, engine)
    front, back_missed, back_inf, back_obb, outside_missed, far_missed = got
    assert close(front[:7], [5, 0.25, 0.25, 5, 0, 0, -1]) and front[7:] == ["Tri", 0]
    assert back_missed and back_inf and outside_missed and far_missed
    # the OBB level hits the triangle's flat box from behind; the normal is the ray's reverse, no sub-object
    assert close(back_obb[:7], [5, 0.25, 0.25, 5, 0, 0, 1]) and back_obb[8] == 4294967295


def test_clear_drops_the_triangles_but_keeps_the_box_until_commit(engine: Any) -> None:
    got = lua(r"""
    local scene, octree, node, g = tri_scene()
    g:Clear()
    local ray = Ray(Vector3(0.25, 0.25, -1), Vector3(0, 0, 1))
    local tri = octree:RaycastSingle(ray, RAY_TRIANGLE, 100, DRAWABLE_GEOMETRY)
    local obb = octree:RaycastSingle(ray, RAY_OBB, 100, DRAWABLE_GEOMETRY)
    return {g:GetNumGeometries(), tri.node == nil, obb.distance, box_of(g:GetBoundingBox())}
    """, engine)
    assert got == [0, True, 1, [0, 0, 0, 1, 1, 0]]


def test_stock_box_is_hit_from_every_side_with_outward_normals(engine: Any) -> None:
    got = lua(r"""
    local scene = Scene()
    local octree = scene:CreateComponent("Octree")
    local n = scene:CreateChild("Box")
    n:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Box.mdl")
    local out = {}
    local dirs = {Vector3(1, 0, 0), Vector3(-1, 0, 0), Vector3(0, 1, 0), Vector3(0, -1, 0), Vector3(0, 0, 1),
      Vector3(0, 0, -1)}
    for _, d in ipairs(dirs) do
      local r = octree:RaycastSingle(Ray(d * -3 + Vector3(0.1, 0.2, 0.3) * 0.5, d), RAY_TRIANGLE, 100, DRAWABLE_ANY)
      out[#out + 1] = {r.distance, r.normal.x, r.normal.y, r.normal.z}
    end
    return out
    """, engine)
    dirs = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
    offset = (0.05, 0.1, 0.15)
    for d, (distance, *normal) in zip(dirs, got, strict=True):
        along = sum(o * c for o, c in zip(offset, d, strict=True))
        assert distance == pytest.approx(2.5 - along, abs=1e-6)
        assert normal == pytest.approx([-c for c in d], abs=1e-6)


def test_stock_round_solids_and_unknown_models(engine: Any) -> None:
    got = lua(r"""
    local scene = Scene()
    local octree = scene:CreateComponent("Octree")
    local function put(name, x)
      local n = scene:CreateChild(name)
      n.position = Vector3(x, 0, 0)
      n:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/" .. name .. ".mdl")
    end
    put("Cylinder", 0); put("Cone", 10); put("Pyramid", 20); put("TeaPot", 30)
    local function down(x, y) return octree:RaycastSingle(Ray(Vector3(x, 5, y), Vector3(0, -1, 0)), RAY_TRIANGLE, 100,
      DRAWABLE_GEOMETRY) end
    local side = octree:RaycastSingle(Ray(Vector3(0, 0, -5), Vector3(0, 0, 1)), RAY_TRIANGLE, 100, DRAWABLE_GEOMETRY)
    return {down(0, 0).distance, side.distance, down(10, 0).distance, down(20.25, 0).distance, down(30, 0).distance,
      down(30, 0).node.name}
    """, engine)
    cyl_top, cyl_side, cone_apex, pyramid_slope, teapot, teapot_name = got
    assert cyl_top == pytest.approx(4.5)
    # a 32-gon with vertices every 11.25 degrees from +X: one sits on -Z, where the ray along +Z meets the side
    assert cyl_side == pytest.approx(4.5, abs=1e-9)
    assert cone_apex == pytest.approx(4.5, abs=1e-6)
    assert pyramid_slope == pytest.approx(5 - 0.0, abs=1e-6)   # halfway out the slope drops to y = 0
    # TeaPot's triangles are not known: its oriented box stands in, and the log says so
    assert teapot == pytest.approx(5 - 0.555314, abs=1e-5) and teapot_name == "TeaPot"
    messages = [entry["message"] for entry in engine.report().log]
    assert any("Models/TeaPot.mdl is not supported headless" in m for m in messages)


def test_raycast_lists_every_hit_nearest_first_and_filters(engine: Any) -> None:
    got = lua(r"""
    local scene = Scene()
    local octree = scene:CreateComponent("Octree")
    local names = {}
    for i, x in ipairs({7, 3, 5, 9}) do
      local n = scene:CreateChild("B" .. i)
      n.position = Vector3(x, 0, 0)
      local m = n:CreateComponent("StaticModel")
      m.model = cache:GetResource("Model", "Models/Box.mdl")
      if i == 4 then m.viewMask = 2 end
    end
    scene:GetChild("B1"):SetEnabled(false)
    local ray = Ray(Vector3(0, 0, 0), Vector3(1, 0, 0))
    local function names_of(list) local t = {}; for i, r in ipairs(list) do t[i] = r.node.name end; return t end
    local light = scene:CreateChild("Sun"):CreateComponent("Light")
    light.lightType = LIGHT_DIRECTIONAL
    return {names_of(octree:Raycast(ray, RAY_AABB, 100, DRAWABLE_GEOMETRY)),
      names_of(octree:Raycast(ray, RAY_AABB, 100, DRAWABLE_GEOMETRY, 1)),
      names_of(octree:Raycast(ray, RAY_AABB, 6, DRAWABLE_GEOMETRY)),
      names_of(octree:Raycast(ray, RAY_AABB, 100, DRAWABLE_LIGHT)),
      octree:Raycast(ray, RAY_TRIANGLE, 100, DRAWABLE_ANY)[1].distance}
    """, engine)
    assert got == [["B2", "B3", "B4"], ["B2", "B3"], ["B2", "B3"], [], 2.5]


def test_get_drawables_by_point_box_sphere_and_frustum(engine: Any) -> None:
    got = lua(r"""
    local scene = Scene()
    local octree = scene:CreateComponent("Octree")
    for i = 0, 4 do
      local n = scene:CreateChild("B" .. i)
      n.position = Vector3(i * 10, 0, 0)
      n:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Box.mdl")
    end
    local zone = scene:CreateChild("Z"):CreateComponent("Zone")
    zone.boundingBox = BoundingBox(Vector3(-1, -1, -1), Vector3(1, 1, 1))
    local function names_of(list) local t = {}; for i, r in ipairs(list) do t[i] = r.node.name end; return t end
    local cam = scene:CreateChild("Cam")
    cam.position = Vector3(20, 0, -10)
    local c = cam:CreateComponent("Camera")
    c.fov = 30; c.farClip = 100; c.aspectRatio = 1
    local f = Frustum()
    f:Define(c.fov, 1.0, 1.0, c.nearClip, c.farClip, cam.worldTransform)
    return {names_of(octree:GetDrawables(Vector3(10.2, 0, 0))),
      names_of(octree:GetDrawables(BoundingBox(Vector3(15, -1, -1), Vector3(31, 1, 1)), DRAWABLE_GEOMETRY)),
      names_of(octree:GetDrawables(Sphere(Vector3(0, 0, 0), 0.6))),
      names_of(octree:GetDrawables(f, DRAWABLE_GEOMETRY)),
      #octree:GetAllDrawables(), #octree:GetAllDrawables(DRAWABLE_ZONE)}
    """, engine)
    assert got == [["B1"], ["B2", "B3"], ["B0", "Z"], ["B2"], 6, 1]


def test_a_model_built_in_code_is_raycast_and_clones_own_their_buffers(engine: Any) -> None:
    got = lua(r"""
    local vb, ib, geom, model = VertexBuffer:new(), IndexBuffer:new(), Geometry:new(), Model:new()
    vb:SetSize(3, {VertexElement(TYPE_VECTOR3, SEM_POSITION), VertexElement(TYPE_VECTOR3, SEM_NORMAL)})
    local data = VectorBuffer()
    for _, p in ipairs({{0, 0, 0}, {0, 1, 0}, {1, 0, 0}}) do
      data:WriteVector3(Vector3(p[1], p[2], p[3])); data:WriteVector3(Vector3(0, 0, -1))
    end
    local set = vb:SetData(data)
    ib:SetSize(3, false)
    local idx = VectorBuffer()
    for _, i in ipairs({0, 1, 2}) do idx:WriteUShort(i) end
    ib:SetData(idx)
    geom:SetVertexBuffer(0, vb); geom:SetIndexBuffer(ib)
    local ranged = geom:SetDrawRange(TRIANGLE_LIST, 0, 3)
    model.numGeometries = 1
    model:SetGeometry(0, 0, geom)
    model.boundingBox = BoundingBox(Vector3(0, 0, 0), Vector3(1, 1, 0))
    local scene = Scene()
    local octree = scene:CreateComponent("Octree")
    local n = scene:CreateChild("Built")
    n.position = Vector3(0, 0, 2)
    n:CreateComponent("StaticModel").model = model
    local hit = octree:RaycastSingle(Ray(Vector3(0.2, 0.2, 0), Vector3(0, 0, 1)), RAY_TRIANGLE, 10, DRAWABLE_GEOMETRY)
    local copy = model:Clone()
    local cvb = copy:GetGeometry(0, 0):GetVertexBuffer(0)
    local moved = VectorBuffer(); moved:WriteVector3(Vector3(5, 5, 5))
    cvb:SetDataRange(moved, 0, 1)   -- too short for one 24-byte vertex: refused
    local whole = cvb:GetData(); whole:Seek(0); whole:WriteVector3(Vector3(5, 5, 5))
    cvb:SetData(whole)
    local orig = vb:GetData(); orig:Seek(0)
    local cl = cvb:GetData(); cl:Seek(0)
    return {set, ranged, geom.vertexCount, vb.vertexSize, vb:GetElementOffset(SEM_NORMAL), vb:HasElement(SEM_COLOR),
      hit.distance, hit.subObject, hit.normal.z, orig:ReadVector3().x, cl:ReadVector3().x, cvb ~= vb}
    """, engine)
    assert got == [True, True, 3, 24, 12, False, 2, 0, -1, 0, 5, True]


def _model_file() -> bytes:
    """A one-triangle Urho3D model file ("UMDL": position only, 16-bit indices), as a game would ship it."""
    verts = [(0.0, 0.0, 0.0), (0.0, 2.0, 0.0), (2.0, 0.0, 0.0)]
    out = b"UMDL" + struct.pack("<I", 1) + struct.pack("<III", 3, 1, 0) + struct.pack("<I", 0)
    out += b"".join(struct.pack("<fff", *v) for v in verts)
    out += struct.pack("<I", 1) + struct.pack("<II", 3, 2) + struct.pack("<HHH", 0, 1, 2)
    out += struct.pack("<I", 1) + struct.pack("<I", 0) + struct.pack("<I", 1)
    out += struct.pack("<fIIIII", 0.0, 0, 0, 0, 0, 3)
    out += struct.pack("<I", 0) + struct.pack("<I", 0)       # morphs, bones
    out += struct.pack("<6f", 0, 0, 0, 2, 2, 0)
    return out


def test_a_model_file_the_game_ships_is_loaded_and_raycast() -> None:
    data = _model_file()
    got = lua(r"""
    local m = cache:GetResource("Model", "Models/Tri.mdl")
    local bad = cache:GetResource("Model", "Models/Bad.mdl")
    local scene = Scene()
    local octree = scene:CreateComponent("Octree")
    scene:CreateChild("T"):CreateComponent("StaticModel").model = m
    local hit = octree:RaycastSingle(Ray(Vector3(0.5, 0.5, -1), Vector3(0, 0, 1)), RAY_TRIANGLE, 10, DRAWABLE_GEOMETRY)
    return {m.boundingBox.max.x, m.numGeometries, m:GetGeometry(0, 0).indexCount, hit.distance, bad == nil}
    """, _engine_with_files({"Models/Tri.mdl": data, "Models/Bad.mdl": b"UMDL\x05"}))
    assert got == [2, 1, 3, 1, True]


def _engine_with_files(files: dict[str, bytes]) -> Any:
    import tempfile
    from pathlib import Path

    from engine._engine import Engine
    tmp = Path(tempfile.mkdtemp(prefix="grader-test-game-"))
    (tmp / "scripts").mkdir()
    (tmp / "scripts" / "main.lua").write_text("function Start() end\n")
    for rel, blob in files.items():
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_bytes(blob)
    return Engine(tmp)


def test_convex_geometry_is_the_hull_and_fills_geometry_and_models(engine: Any) -> None:
    got = lua(r"""
    local pts = {}
    for _, x in ipairs({-1, 1}) do for _, y in ipairs({-1, 1}) do for _, z in ipairs({-1, 1}) do
      pts[#pts + 1] = Vector3(x, y, z)
    end end end
    pts[#pts + 1] = Vector3(0.1, 0.2, 0.3)   -- inside: not on the hull
    local hull = ConvexGeometry(pts)
    local scene = Scene()
    local octree = scene:CreateComponent("Octree")
    local g = scene:CreateChild("Hull"):CreateComponent("CustomGeometry")
    hull:FillCustomGeometry(g)
    local hits = {}
    for _, d in ipairs({Vector3(1,0,0), Vector3(0,-1,0), Vector3(0,0,1)}) do
      local r = octree:RaycastSingle(Ray(d * -5 + Vector3(0.1, 0.1, 0.1), d), RAY_TRIANGLE, 100, DRAWABLE_GEOMETRY)
      hits[#hits + 1] = {r.distance, r.normal:DotProduct(d)}
    end
    local model = hull:ToModel()
    local flat = ConvexGeometry({Vector3(0, 0, 0), Vector3(1, 0, 0), Vector3(0, 1, 0)})
    return {hull:GetVertexCount(), hull:GetIndexCount(), box_of(hull:GetBoundingBox()), g:GetNumVertices(0), hits,
      model:GetGeometry(0, 0).indexCount, box_of(model.boundingBox), flat:GetVertexCount()}
    """, engine)
    vcount, icount, box, cg_vertices, hits, model_indices, model_box, flat = got
    assert (vcount, icount, cg_vertices, model_indices, flat) == (36, 36, 36, 36, 0)
    assert box == [-1, -1, -1, 1, 1, 1] and model_box == box
    for (distance, facing), d in zip(hits, [(1, 0, 0), (0, -1, 0), (0, 0, 1)], strict=True):
        assert distance == pytest.approx(4.0 - 0.1 * sum(d), abs=1e-9) and facing == pytest.approx(-1.0)


def test_text3d_lays_its_text_out() -> None:
    got = lua(r"""
    local scene = Scene()
    local t = scene:CreateChild("Label"):CreateComponent("Text3D")
    t:SetFont(cache:GetResource("Font", "Fonts/Anonymous Pro.ttf"), 20)
    t:SetText("Hi\nthere")
    t:SetAlignment(HA_CENTER, VA_BOTTOM)
    local b = t:GetBoundingBox()
    return {t.text, t:GetNumRows(), t:GetNumChars(), t.width > 0, t.height > 0, b.min.x, -b.min.x * 2 * 128,
      b.max.y * 128, t.effectDepthBias, t.fontSize}
    """)
    text, rows, chars, wide, tall, min_x, width_px, height_px, bias, size = got
    assert (text, rows, chars, wide, tall) == ("Hi\nthere", 2, 8, True, True)
    assert min_x < 0 and width_px > 0 and height_px > 0
    assert bias == pytest.approx(0.1) and size == 20


def test_ribbon_trail_points_follow_the_node_and_expire() -> None:
    e = new_engine(r"""
    function Start()
      scene_ = Scene()
      scene_:CreateComponent("Octree")
      mover = scene_:CreateChild("Mover")
      trail = mover:CreateComponent("RibbonTrail")
      trail.lifetime = 0.5
      trail.vertexDistance = 0.5
      SubscribeToEvent("Update", function(_, data)
        if frames_moving > 0 then mover:Translate(Vector3(0.1, 0, 0)); frames_moving = frames_moving - 1 end
      end)
    end
    frames_moving = 30
    """)
    e.start()
    e.run_frames(30)
    moving = lua("local b = trail.worldBoundingBox; return {b.min.x, b.max.x, b.max.y}", e)
    e.run_frames(60)
    still = lua("return trail.worldBoundingBox:Defined()", e)
    # 0.1 m a frame, a point every 0.5 m, each point's box widened by the width (0.2); the trail's end eases
    # towards the second point over the lifetime, so it has left the start but trails the node
    assert 0.0 < moving[0] < 1.0 and moving[1] == pytest.approx(3.2) and moving[2] == pytest.approx(0.2)
    # at rest for longer than the lifetime every point expires: no trail, no box
    assert still is False


def test_decals_clip_to_the_target_and_expire_after_their_time_to_live() -> None:
    e = new_engine(r"""
    function Start()
      scene_ = Scene()
      scene_:CreateComponent("Octree")
      floor = scene_:CreateChild("Floor")
      floor.scale = Vector3(10, 1, 10)
      local model = floor:CreateComponent("StaticModel")
      model.model = cache:GetResource("Model", "Models/Plane.mdl")
      decals = floor:CreateComponent("DecalSet")
      added = decals:AddDecal(model, Vector3(1, 0, 1), Quaternion(90, 0, 0), 2.0, 1.0, 1.0, Vector2(0, 0),
        Vector2(1, 1), 0.5)
      kept = decals:AddDecal(model, Vector3(-3, 0, 2), Quaternion(90, 0, 0), 1.0, 2.0, 1.0, Vector2(0, 0),
        Vector2(1, 1))
      offside = decals:AddDecal(model, Vector3(30, 0, 0), Quaternion(90, 0, 0), 1.0, 1.0, 1.0, Vector2(0, 0),
        Vector2(1, 1))
    end
    """)
    e.start()
    first = lua(r"""local b = decals.worldBoundingBox
      return {added, kept, offside, decals.numDecals, b.min.x, b.max.x, b.min.z, b.max.z}""", e)
    e.run_frames(40)
    later = lua("local b = decals.worldBoundingBox; return {decals.numDecals, b.min.x, b.max.x}", e)
    assert first[:4] == [True, True, True, 2]     # off the plane: no triangles, still true (Urho3D's answer)
    # the first 2 x 2 around (1, 1); the second 2 wide (aspect 2) by 1 deep around (-3, 2)
    assert first[4:] == pytest.approx([-4.0, 2.0, 0.0, 2.5], abs=1e-6)
    assert later == pytest.approx([1, -4.0, -2.0], abs=1e-6)


def test_raycasts_are_deterministic_across_engines() -> None:
    code = r"""
    local scene = Scene()
    local octree = scene:CreateComponent("Octree")
    for i = 1, 6 do
      local n = scene:CreateChild("N" .. i)
      n.position = Vector3(i * 1.7, math.sin(i) * 0.3, 4)
      n.rotation = Quaternion(i * 13, i * 29, i * 7)
      n:CreateComponent("StaticModel").model = cache:GetResource("Model",
        ({"Models/Box.mdl", "Models/Cone.mdl", "Models/Cylinder.mdl"})[i % 3 + 1])
    end
    local out = {}
    for _, r in ipairs(octree:Raycast(Ray(Vector3(0, 0, 4), Vector3(1, 0.01, 0)), RAY_TRIANGLE, 100, DRAWABLE_ANY)) do
      out[#out + 1] = string.format("%s %.17g %.17g %.17g", r.node.name, r.distance, r.normal.x, r.normal.y)
    end
    return table.concat(out, "|")
    """
    first, second = lua(code), lua(code)
    assert first == second and first.count("|") >= 3


def test_python_accessor_reads_committed_and_defined_triangles(engine: Any) -> None:
    lua(r"""
    local scene, octree, node, g = tri_scene()
    accessor_scene, accessor_geometry = scene, g
    g:BeginGeometry(0, TRIANGLE_LIST)      -- redefine without committing
    g:DefineVertex(Vector3(5, 5, 5)); g:DefineVertex(Vector3(6, 5, 5)); g:DefineVertex(Vector3(5, 6, 5))
    g:DefineVertex(Vector3(9, 9, 9))       -- a lone extra vertex: no triangle
    """, engine)
    component = engine.game_env["accessor_geometry"]
    assert custom_geometry_triangles(engine, component) == [((0, 0, 0), (0, 1, 0), (1, 0, 0))]
    assert custom_geometry_triangles(engine, component, "defined") == [((5, 5, 5), (6, 5, 5), (5, 6, 5))]
    assert triangles_of([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) == [((1, 2, 3), (4, 5, 6), (7, 8, 9))]
    with pytest.raises(ValueError):
        custom_geometry_triangles(engine, component, "bogus")  # type: ignore[arg-type]


def test_a_battery_picks_through_the_scenes_octree() -> None:
    e = new_engine(r"""
    function Start()
      scene_ = Scene(); scene_:CreateComponent("Octree")
      local n = scene_:CreateChild("Crate"); n.position = Vector3(0, 0, 5)
      n:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Box.mdl")
    end""")
    assert e.run_battery(r"""
    local h = harness
    h.start()
    local octree = h.scenes()[1]:component("Octree")
    local r = octree:call("RaycastSingle", Ray(Vector3(0, 0, 0), Vector3(0, 0, 1)), RAY_TRIANGLE, 100,
      DRAWABLE_GEOMETRY)
    local box = h.find("Crate"):component("StaticModel"):get("worldBoundingBox")
    requirement("R1", {description = "pick"}, function(check)
      check.near("hit", r.distance, 4.5, 1e-9)
      check.equal("node", r.node.name, "Crate")
      check.near("box", box.max.z, 5.5, 1e-9)
    end)
    """, "battery.lua")
    (req,) = e.requirements()
    assert req["passed"] and len(req["checks"]) == 3
