"""Terrain (issue 19) and its Bullet heightfield (issue 16): Urho3D's heightmap layout, GetHeight's interpolation over
its triangles, normals, patches, octree raycasts, and CollisionShape:SetTerrain, against values worked out here from
the heightmap's pixels with Urho3D's documented layout (pixel (x, numVertices.y - 1 - z) is vertex (x, z); the red
byte, plus green / 256 with two or more channels, times spacing.y; quads split along (x, z + 1)-(x + 1, z))."""

from __future__ import annotations

import math
import struct
from typing import Any

import pytest

from engine._stock_data import image as stock_image
from engine.testing import lua, new_engine
from tests.engine.png_writer import png

SIZE = 33            # pixels a side: 4 patches of 8 a side
SPACING = (1.5, 0.1, 2.0)
NODE = (2.0, -3.0, 1.0)


def red(x: int, y: int) -> int:
    """The code-built heightmap: ridges, and a plateau of 200 in the middle."""
    if 12 <= x <= 20 and 12 <= y <= 20:
        return 200
    return (x * 7 + y * 13) % 50


def green(x: int, y: int) -> int:
    return (x * 37 + y * 11) % 256


MAIN = f"""
OUT = {{}}
function heightmap_image()
  local img = Image()
  img:SetSize({SIZE}, {SIZE}, 1)
  for y = 0, {SIZE - 1} do for x = 0, {SIZE - 1} do
    local v = (x * 7 + y * 13) % 50
    if x >= 12 and x <= 20 and y >= 12 and y <= 20 then v = 200 end
    img:SetPixelInt(x, y, v)
  end end
  return img
end
function Start()
  scene_ = Scene()
  octree = scene_:CreateComponent("Octree")
  world = scene_:CreateComponent("PhysicsWorld")
  created = 0
  tnode = scene_:CreateChild("Terrain")
  tnode.position = Vector3({NODE[0]}, {NODE[1]}, {NODE[2]})
  SubscribeToEvent(tnode, "TerrainCreated", function(_, data)
    created = created + 1
    OUT.event_node = data["Node"]:GetPtr("Node").name
  end)
  terrain = tnode:CreateComponent("Terrain")
  terrain.patchSize = 8
  terrain.spacing = Vector3({SPACING[0]}, {SPACING[1]}, {SPACING[2]})
  terrain.heightMap = heightmap_image()
  tnode:CreateComponent("RigidBody")
  tnode:CreateComponent("CollisionShape"):SetTerrain()
  ball = scene_:CreateChild("Ball"); ball.position = Vector3(2, 20, 1)
  ball:CreateComponent("RigidBody").mass = 1
  ball:CreateComponent("CollisionShape"):SetSphere(1)
  box = scene_:CreateChild("Box"); box.position = Vector3(5, 20, 4)
  box:CreateComponent("RigidBody").mass = 1
  box:CreateComponent("CollisionShape"):SetBox(Vector3(1, 1, 1))

  -- the same heights from a PNG file with a green channel (finer heights), and a coarser collision shape (LOD 1)
  scene2 = Scene()
  world2 = scene2:CreateComponent("PhysicsWorld")
  local n2 = scene2:CreateChild("Terrain2")
  terrain2 = n2:CreateComponent("Terrain")
  terrain2:SetPatchSize(8)
  terrain2:SetSpacing(Vector3({SPACING[0]}, {SPACING[1]}, {SPACING[2]}))
  terrain2:SetHeightMap(cache:GetResource("Image", "Textures/hm.png"))
  n2:CreateComponent("RigidBody")
  n2:CreateComponent("CollisionShape"):SetTerrain(1)

  SubscribeToEvent("Update", function() OUT.ball = ball.position.y; OUT.box = box.position.y end)
end
"""


def f32(v: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", v))[0])


def grid(with_green: bool) -> list[list[float]]:
    """Vertex heights [z][x] as Urho3D's Terrain copies them from the heightmap."""
    sy = f32(SPACING[1])
    out = []
    for z in range(SIZE):
        y = SIZE - 1 - z
        out.append([f32((red(x, y) + (green(x, y) / 256.0 if with_green else 0.0)) * sy) for x in range(SIZE)])
    return out


def urho_height(h: list[list[float]], wx: float, wz: float, spacing: tuple[float, ...] = SPACING) -> float:
    """Urho3D's Terrain::GetHeight for a terrain node at NODE (unrotated, unscaled)."""
    n = len(h)
    ox = oz = -0.5 * (n - 1)
    xpos, zpos = (wx - NODE[0]) / spacing[0] - ox, (wz - NODE[2]) / spacing[2] - oz

    def raw(x: int, z: int) -> float:
        return h[min(max(z, 0), n - 1)][min(max(x, 0), n - 1)]

    xi, zi = int(xpos), int(zpos)   # towards zero, as Urho3D's cast
    xf, zf = xpos - math.floor(xpos), zpos - math.floor(zpos)
    if xf + zf >= 1.0:
        v = raw(xi + 1, zi + 1) * (xf + zf - 1.0) + raw(xi, zi + 1) * (1.0 - xf) + raw(xi + 1, zi) * (1.0 - zf)
    else:
        v = raw(xi, zi) * (1.0 - xf - zf) + raw(xi + 1, zi) * xf + raw(xi, zi + 1) * zf
    return v + NODE[1]


@pytest.fixture(scope="module")
def engine() -> Any:
    pixels = [[[red(x, y), green(x, y)] for x in range(SIZE)] for y in range(SIZE)]
    e = new_engine(MAIN, files={"Textures/hm.png": png(pixels, ctype=4, filters=(1, 4))})
    e.start()
    e.run_frames(150)
    report = e.report()
    assert report.outcome == "clean", (report.errors, report.missing_api)
    return e


# points across the terrain, inside and beyond its edges, on vertices and between them
POINTS = [(-30.0, -40.0), (NODE[0] - 24.0, NODE[2] - 32.0), (NODE[0] - 22.5, NODE[2] - 30.0), (0.37, -5.91),
          (11.3, 7.77), (-13.8, 20.2), (23.9, -29.0), (40.0, 50.0), (NODE[0] + 0.75, NODE[2] + 1.0)]


def test_get_height_follows_the_heightmap_layout_and_interpolates_over_its_triangles(engine: Any) -> None:
    got = lua("local P = " + _lua_points() + " local out = {} for i, p in ipairs(P) do "
              "out[i] = terrain:GetHeight(Vector3(p[1], 0, p[2])) end return out", engine)
    h = grid(False)
    assert got == pytest.approx([urho_height(h, x, z) for x, z in POINTS], abs=1e-9)
    # vertex (0, 0) is the heightmap's bottom-left pixel (x 0, y 32), at the node's corner
    assert got[1] == pytest.approx(f32(red(0, SIZE - 1) * f32(SPACING[1])) + NODE[1])
    # with two channels the green byte adds /256 steps
    got2 = lua("local P = " + _lua_points() + " local out = {} for i, p in ipairs(P) do "
               "out[i] = terrain2:GetHeight(Vector3(p[1] - 2, 0, p[2] - 1)) end return out", engine)
    assert got2 == pytest.approx([urho_height(grid(True), x, z) - NODE[1] for x, z in POINTS], abs=1e-9)


def _lua_points() -> str:
    return "{" + ", ".join(f"{{{x!r}, {z!r}}}" for x, z in POINTS) + "}"


def test_sizes_patches_and_their_bounding_boxes(engine: Any) -> None:
    got = lua("""
    local nv, np = terrain:GetNumVertices(), terrain:GetNumPatches()
    local p = terrain:GetPatch(1, 1)
    local b = p.worldBoundingBox
    local names = {}
    for i = 0, tnode:GetNumChildren() - 1 do names[#names + 1] = tnode:GetChild(i).name end
    return {nv.x, nv.y, np.x, np.y, names, p.coordinates.x, p.coordinates.y, p:GetOwner() == terrain,
            terrain:GetPatch(1, 1):GetNorthPatch() == terrain:GetPatch(1, 2),
            terrain:GetPatch(0, 0):GetWestPatch() == nil,
            {b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z}, created, OUT.event_node}
    """, engine)
    assert got[:4] == [33, 33, 4, 4]
    assert got[4] == [f"Patch_{x}_{z}" for z in range(4) for x in range(4)]
    assert got[5:10] == [1, 1, True, True, True]
    h = grid(False)
    block = [h[z][x] for z in range(8, 17) for x in range(8, 17)]
    x0, z0 = NODE[0] - 24.0 + 8 * SPACING[0], NODE[2] - 32.0 + 8 * SPACING[2]
    assert got[10] == pytest.approx([x0, min(block) + NODE[1], z0, x0 + 12.0, max(block) + NODE[1], z0 + 16.0])
    assert got[11:] == [1, "Terrain"]   # TerrainCreated once: the heightmap (the size and spacing came before it)


def test_normals_and_heightmap_coordinates(engine: Any) -> None:
    got = lua("""
    local flat = terrain:GetNormal(Vector3(2, 0, 1))          -- on the plateau
    local slope = terrain:GetNormal(Vector3(-15, 0, -20))
    local px = terrain:WorldToHeightMap(Vector3(2 - 24 + 3 * 1.5, 0, 1 - 32 + 2 * 2))   -- vertex (3, 2)
    local w = terrain:HeightMapToWorld(IntVector2(3, 30))
    return {flat.x, flat.y, flat.z, slope:Length(), px.x, px.y, w.x, w.y, w.z}
    """, engine)
    assert got[:4] == pytest.approx([0.0, 1.0, 0.0, 1.0])
    assert got[4:6] == [3, 30]
    assert got[6:] == pytest.approx([NODE[0] - 24 + 4.5, grid(False)[2][3] + NODE[1], NODE[2] - 32 + 4.0])


def test_physics_and_octree_raycasts_hit_the_terrain_at_get_height(engine: Any) -> None:
    # Bullet's heightfield must hold the same triangles as Urho3D's: same layout, same centring, same diagonals
    got = lua("""
    local out = {}
    for i = 0, 60 do
      local x, z = -21 + i * 0.711, -30 + i * 0.983
      local down = Ray(Vector3(x, 100, z), Vector3(0, -1, 0))
      local r = world:RaycastSingle(down, 200)
      local o = octree:RaycastSingle(down, RAY_TRIANGLE, 200, DRAWABLE_GEOMETRY)
      out[#out + 1] = {terrain:GetHeight(Vector3(x, 0, z)), r.position.y, o.position.y,
        r.body == tnode:GetComponent("RigidBody"), o.node.parent == tnode}
    end
    return out
    """, engine)
    for height, physics, octree, body_ok, node_ok in got:
        assert abs(physics - height) < 1e-5 and abs(octree - height) < 1e-9 and body_ok and node_ok


def test_a_ball_comes_to_rest_on_the_heightfield_at_get_height(engine: Any) -> None:
    out = lua("return OUT", engine)
    plateau = f32(200 * f32(SPACING[1])) + NODE[1]
    assert abs(out["ball"] - (plateau + 0.5)) < 1e-3
    # a box rests the heightfield's margin (Urho3D's 0.04) higher: Bullet pads the triangles against boxes
    assert abs(out["box"] - (plateau + 0.5 + 0.04)) < 2e-3


def test_a_lod_level_makes_a_coarser_heightfield(engine: Any) -> None:
    got = lua("""
    local out = {}
    for _, p in ipairs({{-22.5, -30.5}, {-21.0 + 0.2, -28.0 + 0.3}, {0.1, 0.2}}) do
      local r = world2:RaycastSingle(Ray(Vector3(p[1], 100, p[2]), Vector3(0, -1, 0)), 200)
      out[#out + 1] = r.position.y
    end
    return out
    """, engine)
    fine = grid(True)
    coarse = [[fine[z][x] for x in range(0, SIZE, 2)] for z in range(0, SIZE, 2)]   # every other vertex, 17 a side
    spacing = (SPACING[0] * 2, SPACING[1], SPACING[2] * 2)
    expected = [urho_height(coarse, x + NODE[0], z + NODE[2], spacing) - NODE[1]
                for x, z in [(-22.5, -30.5), (-21.0 + 0.2, -28.0 + 0.3), (0.1, 0.2)]]
    assert got == pytest.approx(expected, abs=1e-5)


def test_smoothing_applies_urho3ds_kernel() -> None:
    e = new_engine(MAIN.replace('terrain.patchSize = 8', 'terrain.patchSize = 8\n  terrain.smoothing = true'))
    e.start()
    got = lua("return {terrain:GetHeight(Vector3(2 - 24 + 5 * 1.5, 0, 1 - 32 + 7 * 2)), terrain.smoothing}", e)
    h = grid(False)
    k = [(-1, -1, 1), (0, -1, 2), (1, -1, 1), (-1, 0, 2), (0, 0, 4), (1, 0, 2), (-1, 1, 1), (0, 1, 2), (1, 1, 1)]
    expected = f32(sum(h[7 + dz][5 + dx] * w for dx, dz, w in k) / 16.0) + NODE[1]
    assert got == [pytest.approx(expected, abs=1e-6), True]


def test_the_stock_heightmap_of_urho3ds_terrain_samples() -> None:
    stock = stock_image("Textures/HeightMap.png")
    assert stock is not None
    pixels = stock[3]
    e = new_engine("""
function Start()
  local t = Scene():CreateChild("T"):CreateComponent("Terrain")
  t.patchSize = 64
  t.spacing = Vector3(2, 0.1, 2)
  t.heightMap = cache:GetResource("Image", "Textures/HeightMap.png")
  OUT = {t.numVertices.x, t.numPatches.y, t:GetHeight(Vector3(-1024 + 2 * 100, 0, -1024 + 2 * 300))}
end
""")
    e.start()
    got = lua("return OUT", e)
    assert got[:2] == [1025, 16]
    assert got[2] == pytest.approx(f32(pixels[(1024 - 300) * 1025 + 100] * f32(0.1)))


def test_a_terrain_shape_on_a_moving_body_is_refused_with_a_clear_error() -> None:
    e = new_engine("""
function Start()
  local scene = Scene()
  scene:CreateComponent("PhysicsWorld")
  local n = scene:CreateChild("T")
  local img = Image(); img:SetSize(5, 5, 1)
  local t = n:CreateComponent("Terrain"); t.patchSize = 4; t.heightMap = img
  n:CreateComponent("RigidBody").mass = 1
  n:CreateComponent("CollisionShape"):SetTerrain()
  scene:CreateChild("Lonely"):CreateComponent("CollisionShape"):SetTerrain()
end
""")
    e.start()
    e.run_frames(2)
    messages = [m["message"] for m in e.report().log]
    assert "No terrain component, can not set terrain shape" in messages
    assert any("terrain is built only as the only shape of a static body" in m for m in messages)
