"""CollisionShape from geometry (issue 16): triangle meshes and convex hulls of a game's model file, the stock models
and a CustomGeometry, built on Bullet as Urho3D builds them (engine/_bullet_shapes.py, docs/physics.md), with the
node's scale, the shape's offset and Urho3D's 0.04 margin; and bit-identical runs in fresh processes."""

from __future__ import annotations

import hashlib
import math
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine._bullet_shapes import MAX_VERTICES, SHAPE_CONVEXHULL, SHAPE_TRIANGLEMESH, ShapeError, parse
from engine.testing import lua, new_engine

ROOT = Path(__file__).resolve().parents[2]
SLOPE = math.radians(20.0)


def ramp_model() -> bytes:
    """A game's model file ("UMDL", positions only, 16-bit indices): a 10 x 4 ramp falling towards +X at 20 degrees."""
    t = math.tan(SLOPE)
    verts = [(-5.0, 5.0 * t, -2.0), (5.0, -5.0 * t, -2.0), (5.0, -5.0 * t, 2.0), (-5.0, 5.0 * t, 2.0)]
    out = b"UMDL" + struct.pack("<I", 1) + struct.pack("<III", 4, 1, 0) + struct.pack("<I", 0)
    out += b"".join(struct.pack("<fff", *v) for v in verts)
    out += struct.pack("<I", 1) + struct.pack("<II", 6, 2) + struct.pack("<6H", 0, 2, 1, 0, 3, 2)
    out += struct.pack("<I", 1) + struct.pack("<I", 0) + struct.pack("<I", 1)
    out += struct.pack("<fIIIII", 0.0, 0, 0, 0, 0, 6)
    out += struct.pack("<I", 0) + struct.pack("<I", 0)       # morphs, bones
    out += struct.pack("<6f", -5, -5 * t, -2, 5, 5 * t, 2)
    return out


SCENES = r"""
OUT = {}
function world_scene()
  local s = Scene()
  s:CreateComponent("PhysicsWorld")
  return s
end
function body(scene, name, pos, mass)
  local n = scene:CreateChild(name)
  n.position = pos
  n:CreateComponent("RigidBody").mass = mass
  return n, n:CreateComponent("CollisionShape")
end
function box_floor(scene)
  local _, s = body(scene, "Floor", Vector3(0, -0.5, 0), 0)
  s:SetBox(Vector3(40, 1, 40))
end
function custom_box(node, sx, sy, sz)
  -- a box as 12 triangles of a CustomGeometry (the points are what a convex hull needs)
  local g = node:CreateComponent("CustomGeometry")
  g:BeginGeometry(0, TRIANGLE_LIST)
  local c = {}
  for i = 0, 7 do
    c[i] = Vector3(((i & 1) == 1 and 0.5 or -0.5) * sx, ((i & 2) == 2 and 0.5 or -0.5) * sy,
                   ((i & 4) == 4 and 0.5 or -0.5) * sz)
  end
  for _, f in ipairs({{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}}) do
    for _, k in ipairs({1, 2, 3, 1, 3, 4}) do g:DefineVertex(c[f[k]]) end
  end
  g:Commit()
  return g
end
function Start()
  -- a ball on a ramp made of a game's model file
  ramp_scene = world_scene()
  local _, rs = body(ramp_scene, "Ramp", Vector3(0, 0, 0), 0)
  rs:SetTriangleMesh(cache:GetResource("Model", "Models/Ramp.mdl"))
  local n = Vector3(math.sin(SLOPE), math.cos(SLOPE), 0)
  local start = Vector3(-3, 3 * math.tan(SLOPE), 0) + n * 0.5
  ball = body(ramp_scene, "Ball", start, 1)
  ball:GetComponent("CollisionShape"):SetSphere(1)
  OUT.ramp = {}
  SubscribeToEvent(ramp_scene:GetComponent("PhysicsWorld"), "PhysicsPostStep", function()
    local p = ball:GetComponent("RigidBody").position
    OUT.ramp[#OUT.ramp + 1] = {p.x, p.y, p.z}
  end)

  -- convex hulls: the stock pyramid, dropped tilted; a CustomGeometry's box on a static plane
  hull_scene = world_scene()
  box_floor(hull_scene)
  pyramid = body(hull_scene, "Pyramid", Vector3(0, 2, 0), 1)
  pyramid.rotation = Quaternion(10, 0, 5)
  pyramid:GetComponent("CollisionShape"):SetConvexHull(cache:GetResource("Model", "Models/Pyramid.mdl"))
  plane_scene = world_scene()
  local _, ps = body(plane_scene, "Plane", Vector3(0, 0, 0), 0)
  ps:SetStaticPlane()
  slab = body(plane_scene, "Slab", Vector3(0, 1.5, 0), 2)
  slab.rotation = Quaternion(0, 30, 4)
  slab:GetComponent("CollisionShape"):SetCustomConvexHull(custom_box(slab, 2, 0.6, 1))

  -- a CustomGeometry floor holds a box
  custom_scene = world_scene()
  local floor, fs = body(custom_scene, "Floor", Vector3(0, 0, 0), 0)
  local g = floor:CreateComponent("CustomGeometry")
  g:BeginGeometry(0, TRIANGLE_LIST)
  for _, v in ipairs({Vector3(-5, 0, -5), Vector3(5, 0, 5), Vector3(5, 0, -5),
                      Vector3(-5, 0, -5), Vector3(-5, 0, 5), Vector3(5, 0, 5)}) do g:DefineVertex(v) end
  g:Commit()
  fs:SetCustomTriangleMesh(g)
  crate = body(custom_scene, "Crate", Vector3(0.3, 2, -0.2), 1)
  crate:GetComponent("CollisionShape"):SetBox(Vector3(1, 1, 1))

  -- the stock plane as a triangle mesh on a scaled node, with an offset: node scale applies to size and offset
  scaled_scene = world_scene()
  local ground, gs = body(scaled_scene, "Ground", Vector3(0, 0, 0), 0)
  ground.scale = Vector3(20, 2, 20)
  gs:SetTriangleMesh(cache:GetResource("Model", "Models/Plane.mdl"), 0, Vector3(1, 1, 1), Vector3(0, 0.5, 0))
  marble = body(scaled_scene, "Marble", Vector3(1, 3, 1), 1)
  marble:GetComponent("CollisionShape"):SetSphere(1)

  -- a moving triangle mesh meets convex shapes only, as in Bullet: it falls through a static plane, lands on a box
  through_scene = world_scene()
  local _, tp = body(through_scene, "Plane", Vector3(0, 0, 0), 0)
  tp:SetStaticPlane()
  sinker = body(through_scene, "Sinker", Vector3(0, 2, 0), 1)
  sinker:GetComponent("CollisionShape"):SetTriangleMesh(cache:GetResource("Model", "Models/Box.mdl"))
  onto_scene = world_scene()
  box_floor(onto_scene)
  lander = body(onto_scene, "Lander", Vector3(0, 2, 0), 1)
  lander:GetComponent("CollisionShape"):SetTriangleMesh(cache:GetResource("Model", "Models/Box.mdl"))

  SubscribeToEvent("Update", function()
    local up = pyramid.rotation * Vector3(0, 1, 0)
    local sup = slab.rotation * Vector3(0, 1, 0)
    OUT.pyramid = {pyramid.position.y, up.y}
    OUT.slab = {slab.position.y, math.abs(sup.y)}
    OUT.crate, OUT.marble, OUT.sinker, OUT.lander = crate.position.y, marble.position.y, sinker.position.y,
      lander.position.y
  end)
end
"""


@pytest.fixture(scope="module")
def out() -> Any:
    e = new_engine(f"SLOPE = math.rad(20)\n{SCENES}", files={"Models/Ramp.mdl": ramp_model()})
    e.start()
    e.run_frames(180)
    report = e.report()
    assert report.outcome == "clean", (report.errors, report.missing_api)
    return lua("return OUT", e)


def test_a_ball_rolls_down_a_triangle_mesh_ramp_touching_it(out: Any) -> None:
    n = (math.sin(SLOPE), math.cos(SLOPE), 0.0)
    path = out["ramp"]
    for x, y, _z in path[:60]:    # the first second, on the ramp: its centre stays a radius off the surface
        assert abs(x * n[0] + y * n[1] - 0.5) < 2e-3
    # rolling without slipping, with Urho3D's box inertia of a sphere (I = m d^2 / 6): a = g sin / (1 + 2/3); with
    # Bullet's semi-implicit Euler the ball has covered a dt^2 n (n + 1) / 2 after n steps (path[0] is after step 1)
    a = 9.81 * math.sin(SLOPE) / (1.0 + 2.0 / 3.0)
    dt, n = 1.0 / 60.0, 61
    x0, y0, _ = path[0]
    x1, y1, _ = path[n - 1]
    along = math.hypot(x1 - x0, y1 - y0)
    assert along == pytest.approx(a * dt * dt * (n * (n + 1) / 2 - 1), rel=0.015)
    assert x1 > x0 and y1 < y0


def test_convex_hulls_rest_on_a_flat_face(out: Any) -> None:
    # Urho3D's convex hulls carry the shape's 0.04 margin outside their points: the pyramid's base (0.5 below its
    # centre) sits 0.04 above the floor, upright; the CustomGeometry slab (0.6 high) on its broad face
    y, up = out["pyramid"]
    assert abs(y - 0.54) < 2e-3 and up > 0.9999
    y, up = out["slab"]
    assert abs(y - 0.34) < 2e-3 and up > 0.9999


def test_a_custom_geometry_floor_holds_a_box(out: Any) -> None:
    assert abs(out["crate"] - 0.54) < 2e-3   # a mesh's triangles are its margin (0.04) thick against a box


def test_node_scale_and_shape_offset_apply_as_in_urho3d(out: Any) -> None:
    # offset (0, 0.5, 0) scaled by the node's (20, 2, 20): the plane lies at y = 1; spheres meet triangles exactly
    assert abs(out["marble"] - 1.5) < 1e-3


def test_a_moving_triangle_mesh_collides_with_convex_shapes_only(out: Any) -> None:
    assert out["sinker"] < -5.0                    # no collision algorithm between two concave shapes
    assert abs(out["lander"] - 0.54) < 5e-3        # the box floor holds it


def test_misuse_logs_urho3ds_errors_and_leaves_the_shape() -> None:
    e = new_engine()
    got = lua("""
    local a, b = Scene(), Scene()
    local g = a:CreateChild("G"):CreateComponent("CustomGeometry")
    local s = b:CreateChild("S"):CreateComponent("CollisionShape")
    s:SetCustomTriangleMesh(g)
    local before = s.shapeType
    s:SetTriangleMesh(nil)
    return {before, s.shapeType}
    """, e)
    assert got == [0, 0]   # still the default box
    messages = [m["message"] for m in e.report().log]
    assert "Custom geometry is not in the same scene as the collision shape, can not set collsion shape" in messages
    assert "Null model, can not set collsion shape" in messages


def test_geometry_beyond_pybullets_limits_is_refused_with_a_reason() -> None:
    points = struct.pack(f"<{3 * (MAX_VERTICES + 1)}f", *[float(i) for i in range(3 * (MAX_VERTICES + 1))])
    with pytest.raises(ShapeError, match="more than pybullet's 131072"):
        parse(SHAPE_CONVEXHULL, points.hex(), MAX_VERTICES + 1)
    # equal points merge: a triangle soup of one repeated triangle is three points
    tri = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 0, 1) * 1000
    mesh = parse(SHAPE_TRIANGLEMESH, tri.hex(), 3000)
    assert len(mesh.points) == 3 and len(mesh.indices) == 3000


DIGEST = """
import hashlib, sys
from pathlib import Path
from engine._engine import Engine
e = Engine(Path(sys.argv[1])); e.start(); e.run_frames(240)
with e.unmetered():
    out = e.game_env["OUT"]
    text = "\\n".join(str(out[i]) for i in range(1, len(out) + 1))
print(hashlib.sha256(text.encode()).hexdigest(), e.report().outcome)
"""

TRAJECTORY = r"""
OUT = {}
function Start()
  local scene = Scene()
  scene:CreateComponent("PhysicsWorld")
  local img = Image(); img:SetSize(17, 17, 1)
  for y = 0, 16 do for x = 0, 16 do img:SetPixelInt(x, y, (x * 11 + y * 5) % 40) end end
  local tn = scene:CreateChild("Terrain")
  local t = tn:CreateComponent("Terrain"); t.patchSize = 8; t.spacing = Vector3(1, 0.05, 1); t.heightMap = img
  tn:CreateComponent("RigidBody"); tn:CreateComponent("CollisionShape"):SetTerrain()
  local ramp = scene:CreateChild("Ramp"); ramp.position = Vector3(0, 4, 0); ramp.rotation = Quaternion(0, 0, -15)
  ramp:CreateComponent("RigidBody"); ramp:CreateComponent("CollisionShape"):SetTriangleMesh(
    cache:GetResource("Model", "Models/Box.mdl"), 0, Vector3(6, 0.2, 3))
  local nodes = {}
  for i = 0, 9 do
    local n = scene:CreateChild("B" .. i)
    n.position = Vector3(-2 + (i % 4) * 0.9, 6 + i * 0.7, -1 + (i % 3) * 0.8)
    n.rotation = Quaternion(i * 13, i * 7, i * 3)
    n:CreateComponent("RigidBody").mass = 1
    local s = n:CreateComponent("CollisionShape")
    if i % 2 == 0 then s:SetConvexHull(cache:GetResource("Model", "Models/Cone.mdl")) else s:SetSphere(0.6) end
    nodes[#nodes + 1] = n
  end
  SubscribeToEvent("PhysicsPostStep", function()
    for _, n in ipairs(nodes) do
      local p, q = n.position, n.rotation
      OUT[#OUT + 1] = string.format("%a %a %a %a %a %a %a", p.x, p.y, p.z, q.w, q.x, q.y, q.z)
    end
  end)
end
"""


def test_mesh_hull_and_terrain_runs_are_bit_identical_in_fresh_processes(tmp_path: Path) -> None:
    game = tmp_path / "game"
    (game / "scripts").mkdir(parents=True)
    (game / "scripts" / "main.lua").write_text(TRAJECTORY, encoding="utf-8")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    digests = set()
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", DIGEST, str(game)], capture_output=True, text=True, env=env,
                              cwd=ROOT, check=True, timeout=300)
        digests.add(done.stdout.strip())
    assert len(digests) == 1, digests
    digest, outcome = digests.pop().split()
    assert outcome == "clean" and len(digest) == 64
    assert hashlib.sha256(b"").hexdigest() != digest
