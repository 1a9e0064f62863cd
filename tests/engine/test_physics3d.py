"""3D physics (engine/_bullet.py, engine/lua/runtime/57_physics3d.lua): known behaviour of Urho3D's components
over Bullet, the collision events, queries, and bit-identical trajectories across fresh processes."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine._engine import Engine, to_python

ROOT = Path(__file__).resolve().parents[2]

PRELUDE = """
OUT = {}
function body(name, pos, mass, shape, arg)
  local n = scene_:CreateChild(name)
  n.position = pos
  local b = n:CreateComponent("RigidBody")
  b.mass = mass
  local s = n:CreateComponent("CollisionShape")
  s[shape](s, arg)
  return n, b
end
function floor()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  world_ = scene_:CreateComponent("PhysicsWorld")
  return body("Floor", Vector3(0, -0.5, 0), 0, "SetBox", Vector3(40, 1, 40))
end
"""


def run(tmp_path: Path, source: str, frames: int) -> tuple[Engine, Any]:
    game = tmp_path / "game"
    (game / "scripts").mkdir(parents=True)
    (game / "scripts" / "main.lua").write_text(PRELUDE + source, encoding="utf-8")
    engine = Engine(game)
    engine.start()
    engine.run_frames(frames)
    report = engine.report()
    assert report.outcome == "clean", (report.errors, report.missing_api)
    with engine.unmetered():
        out = to_python(engine.game_env["OUT"])
    return engine, out


def test_free_fall_matches_the_integrators_closed_form(tmp_path: Path) -> None:
    # Bullet's semi-implicit Euler: v_n = -g n dt, y_n = y0 - g dt^2 n (n + 1) / 2; with interpolation Urho3D
    # shows the node one step behind (latency interpolation), the body itself is current.
    _, out = run(tmp_path, """
function Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  ball, b = body("Ball", Vector3(0, 100, 0), 1, "SetSphere", 1)
  SubscribeToEvent("PhysicsPostStep", function()
    OUT[#OUT + 1] = {b.position.y, b.linearVelocity.y, ball.position.y}
  end)
end
""", 120)
    g, dt, y0 = 9.81, 1.0 / 60.0, 100.0
    assert len(out) == 120
    for n, (y, v, node_y) in enumerate(out, start=1):
        assert abs(y - (y0 - g * dt * dt * n * (n + 1) / 2)) < 1e-6
        assert abs(v - (-g * dt * n)) < 1e-6
        k = n - 2   # the node: written after the event, and one step behind the body (latency interpolation)
        assert abs(node_y - (y0 - g * dt * dt * k * (k + 1) / 2)) < 1e-6


def test_sphere_rests_on_a_plane_at_its_radius(tmp_path: Path) -> None:
    _, out = run(tmp_path, """
function Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  body("Ground", Vector3(0, 0, 0), 0, "SetStaticPlane")
  ball, b = body("Ball", Vector3(0, 2, 0), 1, "SetSphere", 1)
  SubscribeToEvent("Update", function() OUT.y = ball.position.y; OUT.active = b.active end)
end
""", 300)
    assert abs(out["y"] - 0.5) < 0.01
    assert out["active"] is False   # Bullet put it to sleep


def bounce_heights(tmp_path: Path) -> list[float]:
    _, out = run(tmp_path, """
function Start()
  local _, fb = floor()
  fb.restitution = 1   -- Bullet multiplies the two bodies' restitutions
  local values = {0, 0.8}
  for i = 1, 2 do
    local n, b = body("Ball" .. i, Vector3(i * 3, 3, 0), 1, "SetSphere", 1)
    b.restitution = values[i]
    OUT[i] = {n = n, peak = -1, landed = false}
  end
  SubscribeToEvent("Update", function()
    for i = 1, 2 do
      local o = OUT[i]
      local y = o.n.position.y
      if not o.landed and y < 0.7 then o.landed = true end
      if o.landed and y > o.peak then o.peak = y end
    end
  end)
end
""", 240)
    return [float(out[0]["peak"]), float(out[1]["peak"])]


def test_restitution_orders_bounce_heights_and_repeats(tmp_path: Path) -> None:
    first = bounce_heights(tmp_path / "a")
    again = bounce_heights(tmp_path / "b")
    assert first == again
    dead, lively = first
    assert dead < 0.8 < 1.5 < lively


def test_a_stack_of_ten_boxes_stands_for_ten_seconds(tmp_path: Path) -> None:
    _, out = run(tmp_path, """
function Start()
  floor()
  for i = 0, 9 do
    local n, b = body("Box" .. i, Vector3(0, 0.5 + i, 0), 1, "SetBox", Vector3(1, 1, 1))
    b.friction = 0.8
  end
  SubscribeToEvent("Update", function()
    for i = 0, 9 do
      local p = scene_:GetChild("Box" .. i, false).position
      OUT[i + 1] = {p.x, p.y, p.z}
    end
  end)
end
""", 600)
    for i, (x, y, z) in enumerate(out):
        assert abs(x) < 0.05 and abs(z) < 0.05, (i, x, z)
        assert abs(y - (0.5 + i)) < 0.05, (i, y)


def test_a_kinematic_body_moved_by_its_node_pushes_a_dynamic_one(tmp_path: Path) -> None:
    _, out = run(tmp_path, """
function Start()
  floor()
  pusher, pb = body("Pusher", Vector3(0, 0.5, 0), 1, "SetBox", Vector3(1, 1, 1))
  pb.kinematic = true
  pushed = body("Pushed", Vector3(2, 0.5, 0), 1, "SetBox", Vector3(1, 1, 1))
  SubscribeToEvent("Update", function(_, d)
    pusher:Translate(Vector3(2 * d["TimeStep"]:GetFloat(), 0, 0), TS_WORLD)
    OUT.pusher, OUT.pushed = pusher.position.x, pushed.position.x
  end)
end
""", 120)
    assert out["pusher"] == pytest.approx(4.0)
    assert out["pushed"] > 4.6   # ahead of the pusher, at least a box width along


def test_a_kinematic_body_reports_the_velocity_its_node_moves_at(tmp_path: Path) -> None:
    """Bullet's saveKinematicState gives a kinematic body the velocity of its last move, and Urho3D's
    GetLinearVelocity/GetAngularVelocity report it; a body whose node stops reports zero."""
    _, out = run(tmp_path, """
function Start()
  floor()
  mover, mb = body("Mover", Vector3(0, 3, 0), 1, "SetBox", Vector3(1, 1, 1))
  mb.kinematic = true
  OUT.v = {}
  SubscribeToEvent("Update", function(_, d)
    local t = time:GetElapsedTime()
    if t < 1 then
      mover:Translate(Vector3(0, 0, 3 * d["TimeStep"]:GetFloat()), TS_WORLD)
      mover:Yaw(90 * d["TimeStep"]:GetFloat())
    end
    if math.abs(t - 0.5) < 0.01 or math.abs(t - 1.5) < 0.01 then
      local v, w = mb.linearVelocity, mb:GetAngularVelocity()
      OUT.v[#OUT.v + 1] = {v.x, v.y, v.z, w.y}
    end
  end)
end
""", 120)
    moving, still = out["v"]
    assert moving[:3] == pytest.approx([0.0, 0.0, 3.0], abs=1e-6)
    assert moving[3] == pytest.approx(3.14159265 / 2, abs=1e-4)   # 90 degrees a second, in radians
    assert still == pytest.approx([0.0, 0.0, 0.0, 0.0], abs=1e-9)


def test_triggers_report_contacts_without_response(tmp_path: Path) -> None:
    _, out = run(tmp_path, """
function Start()
  floor()
  local zone, zb = body("Zone", Vector3(0, 3, 0), 0, "SetBox", Vector3(4, 1, 4))
  zb.trigger = true
  ball = body("Ball", Vector3(0, 6, 0), 1, "SetSphere", 1)
  OUT.events = {}
  SubscribeToEvent(zone, "NodeCollisionStart", function(_, d)
    OUT.events[#OUT.events + 1] = "start " .. d["OtherNode"]:GetPtr().name .. " " .. tostring(d["Trigger"]:GetBool())
  end)
  SubscribeToEvent(zone, "NodeCollisionEnd", function(_, d)
    OUT.events[#OUT.events + 1] = "end " .. d["OtherNode"]:GetPtr().name
  end)
  SubscribeToEvent("Update", function() OUT.y = ball.position.y end)
end
""", 180)
    assert out["events"] == ["start Ball true", "end Ball"]
    assert abs(out["y"] - 0.5) < 0.01   # fell through the trigger onto the floor


def test_collision_start_stay_end_for_a_ball_rolling_over_a_box(tmp_path: Path) -> None:
    _, out = run(tmp_path, """
function Start()
  floor()
  local box = body("Box", Vector3(0, 0.1, 0), 0, "SetBox", Vector3(2, 0.2, 2))
  local ball, b = body("Ball", Vector3(-3, 0.5, 0), 1, "SetSphere", 1)
  b.linearVelocity = Vector3(6, 0, 0)
  OUT.seq, OUT.contacts = {}, {}
  local function note(kind)
    return function(_, d)
      local other = d["OtherNode"]:GetPtr().name
      if other ~= "Box" then return end
      local last = OUT.seq[#OUT.seq]
      if last ~= kind then OUT.seq[#OUT.seq + 1] = kind end
      if kind == "stay" and #OUT.contacts == 0 then
        local buf = d["Contacts"]:GetBuffer()
        while not buf.eof do
          local p, n = buf:ReadVector3(), buf:ReadVector3()
          local dist, imp = buf:ReadFloat(), buf:ReadFloat()
          OUT.contacts[#OUT.contacts + 1] = {p.x, p.y, p.z, n.x, n.y, n.z, dist, imp}
        end
      end
    end
  end
  SubscribeToEvent(ball, "NodeCollisionStart", note("start"))
  SubscribeToEvent(ball, "NodeCollision", note("stay"))
  SubscribeToEvent(ball, "NodeCollisionEnd", note("end"))
end
""", 180)
    assert out["seq"] == ["start", "stay", "end"]
    assert out["contacts"], "the contact buffer reads"
    for _x, _y, _z, nx, ny, nz, dist, imp in out["contacts"]:
        assert abs((nx * nx + ny * ny + nz * nz) - 1) < 1e-4   # a unit normal
        assert dist < 0.05 and imp >= 0


def test_a_handler_that_removes_a_body_stops_that_bodys_later_pairs(tmp_path: Path) -> None:
    # two boxes land on the floor in the same step; the first pair's handler removes the second box, whose own pair
    # comes later in the same step's list: its events are not sent (Urho3D drops pairs of removed bodies)
    _, out = run(tmp_path, """
function Start()
  floor()
  local a = body("A", Vector3(-2, 0.6, 0), 1, "SetBox", Vector3(1, 1, 1))
  local b = body("B", Vector3(2, 0.6, 0), 1, "SetBox", Vector3(1, 1, 1))
  OUT.seen = {}
  SubscribeToEvent("PhysicsCollisionStart", function(_, data)
    local n = data["NodeB"]:GetPtr("Node")
    OUT.seen[#OUT.seen + 1] = n.name
    if n.name == "A" then b:Remove() end
  end)
end
""", 10)
    assert out["seen"] == ["A"]


def test_collision_layers_and_masks_filter(tmp_path: Path) -> None:
    _, out = run(tmp_path, """
function Start()
  floor()
  local a, ab = body("Ghost", Vector3(0, 3, 0), 1, "SetBox", Vector3(1, 1, 1))
  ab.collisionLayer = 2
  ab.collisionMask = 2          -- collides with layer 2 only: not the floor (layer 1)
  local b, bb = body("Solid", Vector3(3, 3, 0), 1, "SetBox", Vector3(1, 1, 1))
  SubscribeToEvent("Update", function()
    OUT.ghost, OUT.solid = a.position.y, b.position.y
    OUT.hit2 = world_:RaycastSingle(Ray(Vector3(0, 10, 0), Vector3(0, -1, 0)), 10.5, 2).body ~= nil
    OUT.hit1 = world_:RaycastSingle(Ray(Vector3(0, 10, 0), Vector3(0, -1, 0)), 10.5, 1).body ~= nil
  end)
end
""", 60)
    assert abs(out["solid"] - 0.5) < 0.01
    assert out["ghost"] < -1.0   # fell through the floor
    assert out["hit2"] is False   # the ray with mask 2 finds nothing below: the ghost is gone, the floor is layer 1
    assert out["hit1"] is True


def test_raycasts_hit_the_expected_node_at_the_expected_distance(tmp_path: Path) -> None:
    _, out = run(tmp_path, """
function Start()
  floor()
  body("Near", Vector3(0, 1, 5), 0, "SetBox", Vector3(2, 2, 2))
  body("Far", Vector3(0, 1, 10), 0, "SetSphere", 2)
  SubscribeToEvent("Update", function()
    local r = world_:RaycastSingle(Ray(Vector3(0, 1, 0), Vector3(0, 0, 1)), 100)
    OUT.single = {r.body.node.name, r.distance, r.normal.z, r.position.z}
    local all = world_:Raycast(Ray(Vector3(0, 1, 0), Vector3(0, 0, 1)), 100)
    OUT.all = {}
    for i, h in ipairs(all) do OUT.all[i] = {h.body.node.name, h.distance} end
    local down = world_:RaycastSingle(Ray(Vector3(0, 5, 20), Vector3(0, -1, 0)), 100)
    OUT.down = {down.body.node.name, down.distance}
    local miss = world_:RaycastSingle(Ray(Vector3(0, 5, 0), Vector3(0, 1, 0)), 100)
    OUT.miss = {miss.body == nil, miss.distance == math.huge}
    local sc = world_:SphereCast(Ray(Vector3(0, 1, 0), Vector3(0, 0, 1)), 0.5, 100)
    OUT.sphere = {sc.body.node.name, sc.distance}
    OUT.near = #world_:GetRigidBodies(Sphere(Vector3(0, 1, 5), 0.5))
  end)
end
""", 2)
    name, dist, nz, _pz = out["single"]
    assert name == "Near" and dist == pytest.approx(4.0, abs=1e-5) and nz == pytest.approx(-1.0, abs=1e-5)
    assert out["all"][0][0] == "Near" and out["all"][0][1] == pytest.approx(4.0, abs=1e-5)
    assert any(n == "Far" and d == pytest.approx(9.0, abs=1e-5) for n, d in out["all"])
    assert out["down"] == ["Floor", pytest.approx(5.0, abs=1e-5)]
    assert out["miss"] == [True, True]
    assert out["sphere"][0] == "Near" and out["sphere"][1] == pytest.approx(3.5, abs=1e-3)
    assert out["near"] == 1


TRAJECTORY = """
OUT = {}
function Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  local f = scene_:CreateChild("Floor"); f.position = Vector3(0, -0.5, 0)
  f:CreateComponent("RigidBody"); f:CreateComponent("CollisionShape"):SetBox(Vector3(40, 1, 40))
  for i = 0, 19 do
    local n = scene_:CreateChild("B" .. i)
    n.position = Vector3((i % 5) * 0.6 - 1.2, 1 + i * 0.9, (i % 3) * 0.4)
    n.rotation = Quaternion(i * 17, i * 5, i * 11)
    local b = n:CreateComponent("RigidBody"); b.mass = 1 + i % 3; b.friction = 0.6; b.restitution = 0.2
    local s = n:CreateComponent("CollisionShape")
    if i % 3 == 0 then s:SetBox(Vector3(0.8, 0.5, 0.6)) elseif i % 3 == 1 then s:SetSphere(0.7)
    else s:SetCapsule(0.5, 1.2) end
  end
  SubscribeToEvent("PhysicsPostStep", function()
    for i = 0, 19 do
      local n = scene_:GetChild("B" .. i, false)
      local p, q = n.position, n.rotation
      OUT[#OUT + 1] = string.format("%a %a %a %a %a %a %a", p.x, p.y, p.z, q.w, q.x, q.y, q.z)
    end
  end)
end
"""

DIGEST_SCRIPT = """
import hashlib, sys
from pathlib import Path
from engine._engine import Engine
e = Engine(Path(sys.argv[1])); e.start(); e.run_frames(1000)
with e.unmetered():
    out = e.game_env["OUT"]
    text = "\\n".join(str(out[i]) for i in range(1, len(out) + 1))
print(hashlib.sha256(text.encode()).hexdigest(), e.report().outcome)
"""


def test_a_1000_step_trajectory_is_bit_identical_across_fresh_processes(tmp_path: Path) -> None:
    game = tmp_path / "game"
    (game / "scripts").mkdir(parents=True)
    (game / "scripts" / "main.lua").write_text(TRAJECTORY, encoding="utf-8")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    digests = set()
    for _ in range(5):
        done = subprocess.run([sys.executable, "-c", DIGEST_SCRIPT, str(game)], capture_output=True, text=True,
                              env=env, cwd=ROOT, check=True, timeout=300)
        digests.add(done.stdout.strip())
    assert len(digests) == 1, digests
    digest, outcome = digests.pop().split()
    assert outcome == "clean" and len(digest) == 64


def test_misuse_is_a_clear_lua_error(tmp_path: Path) -> None:
    game = tmp_path / "game"
    (game / "scripts").mkdir(parents=True)
    (game / "scripts" / "main.lua").write_text("""
function Start()
  local scene = Scene()
  local b = scene:CreateChild("X"):CreateComponent("RigidBody")
  b.mass = "heavy"
end
""", encoding="utf-8")
    engine = Engine(game)
    engine.start()
    report = engine.report()
    assert report.outcome == "lua_error"
    assert "SetMass" in report.errors[0]["message"] and "number expected" in report.errors[0]["message"]


def test_pinned_solver_settings_are_documented() -> None:
    from engine._bullet import SOLVER_SETTINGS
    doc = (ROOT / "docs" / "physics.md").read_text(encoding="utf-8")
    for key in SOLVER_SETTINGS:
        assert key in doc, key
    assert json.dumps(sorted(SOLVER_SETTINGS))  # plain data
    assert hashlib.sha256(doc.encode()).hexdigest()


def test_batteries_read_velocity_activity_and_contacts(tmp_path: Path) -> None:
    game = tmp_path / "game"
    (game / "scripts").mkdir(parents=True)
    (game / "scripts" / "main.lua").write_text(PRELUDE + """
function Start()
  floor()
  body("Ball", Vector3(0, 3, 0), 1, "SetSphere", 1)
end
""", encoding="utf-8")
    engine = Engine(game)
    battery = """
local h = harness
h.start()
h.run(0.25)
local ball = h.find("Ball")
OUT_FALLING = {ball.physics.velocity.y, ball.physics.active, #ball.physics.contacts}
h.run(5)
OUT_REST = {ball.physics.velocity.y, ball.physics.active, ball.physics.contacts[1] and ball.physics.contacts[1].name}
requirement("R1", {capabilities = {}, layer = "completeness", description = "reads physics"}, function(check)
  check.less("falls", OUT_FALLING[1], -1)
  check.truthy("active while falling", OUT_FALLING[2])
  check.equal("no contact in the air", OUT_FALLING[3], 0)
  check.equal("touches the floor at rest", OUT_REST[3], "Floor")
end)
"""
    assert engine.run_battery(battery, "battery/main.lua")
    reqs = engine.requirements()
    assert reqs and all(c["passed"] for c in reqs[0]["checks"]), reqs


HINGE = """
function Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  local anchor, ab = body("Anchor", Vector3(0, 10, 0), 0, "SetBox", Vector3(1, 1, 1))
  arm, armb = body("Arm", Vector3(2, 10, 0), 1, "SetBox", Vector3(3, 0.3, 0.3))
  local h = arm:CreateComponent("Constraint")
  h.constraintType = CONSTRAINT_HINGE
  h.otherBody = ab
  h.position = Vector3(-1.5, 0, 0)
  h.axis = Vector3(0, 0, 1)
  h.otherPosition = Vector3(0.5, 0, 0)
  h.otherAxis = Vector3(0, 0, 1)
  h.lowLimit = Vector2(LOW, 0)
  h.highLimit = Vector2(HIGH, 0)
  h.disableCollision = true   -- the arm's end touches the anchor at the pivot
  OUT.max_angle, OUT.pivot_error = 0, 0
  SubscribeToEvent("PhysicsPostStep", function()
    local q = arm.rotation
    local angle = math.deg(2 * math.acos(math.min(1, math.abs(q.w))))   -- about Z only, in [0, 180]
    if angle > OUT.max_angle then OUT.max_angle = angle end
    local pivot = arm.position + arm.rotation * Vector3(-1.5, 0, 0)
    local err = (pivot - Vector3(0.5, 10, 0)):Length()
    if err > OUT.pivot_error then OUT.pivot_error = err end
  end)
end
"""


@pytest.mark.parametrize(("low", "high", "expect"), [(-30, 30, (28, 33)), (10, -10, (80, 181))])
def test_a_hinge_holds_its_pivot_and_limits_rotation(tmp_path: Path, low: int, high: int,
                                                     expect: tuple[float, float]) -> None:
    _, out = run(tmp_path, f"LOW, HIGH = {low}, {high}\n" + HINGE, 120)
    assert expect[0] <= out["max_angle"] <= expect[1], out
    assert out["pivot_error"] < 0.05, out   # the arm's end stays on the anchor's side (a hinge, not a fall)


def test_stock_models_as_triangle_meshes_and_convex_hulls(tmp_path: Path) -> None:
    _, out = run(tmp_path, """
function Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  local ground = scene_:CreateChild("Ground")
  ground.scale = Vector3(20, 1, 20)
  ground:CreateComponent("RigidBody")
  ground:CreateComponent("CollisionShape"):SetTriangleMesh(cache:GetResource("Model", "Models/Plane.mdl"))
  ball = body("Ball", Vector3(0, 2, 0), 1, "SetSphere", 1)
  crate = scene_:CreateChild("Crate")
  crate.position = Vector3(3, 2, 0)
  crate:CreateComponent("RigidBody").mass = 1
  crate:CreateComponent("CollisionShape"):SetConvexHull(cache:GetResource("Model", "Models/Box.mdl"))
  local shape = crate:GetComponent("CollisionShape")
  OUT.type = shape.shapeType
  SubscribeToEvent("Update", function() OUT.ball, OUT.crate = ball.position.y, crate.position.y end)
end
""", 180)
    assert out["type"] == 7   # SHAPE_CONVEXHULL, as set
    # Bullet's sphere-triangle test ignores the mesh's margin; a hull and a mesh each add their 0.04 margin
    # (Urho3D's default), so the crate's hull rests 0.08 above the plane's triangles, as in Urho3D
    assert abs(out["ball"] - 0.5) < 0.01 and abs(out["crate"] - 0.58) < 0.005, out


def test_a_model_without_known_triangles_is_missing_api(tmp_path: Path) -> None:
    game = tmp_path / "game"
    (game / "scripts").mkdir(parents=True)
    (game / "scripts" / "main.lua").write_text("""
function Start()
  local n = Scene():CreateChild("M")
  n:CreateComponent("CollisionShape"):SetTriangleMesh(cache:GetResource("Model", "Models/TeaPot.mdl"))
end
""", encoding="utf-8")
    engine = Engine(game)
    engine.start()
    report = engine.report()
    assert report.outcome == "missing_api"
    assert any("TeaPot" in m for m in report.missing_api), report.missing_api


def test_a_cone_twist_limits_the_swing(tmp_path: Path) -> None:
    _, out = run(tmp_path, """
function Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  local socket, sb = body("Socket", Vector3(0, 8, 0), 0, "SetBox", Vector3(0.5, 0.5, 0.5))
  limb, lb = body("Limb", Vector3(0, 7, 0), 1, "SetBox", Vector3(0.3, 1.5, 0.3))
  local c = limb:CreateComponent("Constraint")
  c.constraintType = CONSTRAINT_CONETWIST
  c.otherBody = sb
  c.position = Vector3(0, 0.75, 0)
  c.otherPosition = Vector3(0, -0.25, 0)
  c.axis = Vector3(0, 1, 0)
  c.otherAxis = Vector3(0, 1, 0)
  c.highLimit = Vector2(30, 30)
  c.disableCollision = true
  lb:ApplyImpulse(Vector3(6, 0, 0))
  OUT.swing = 0
  SubscribeToEvent("PhysicsPostStep", function()
    local up = limb.rotation * Vector3(0, 1, 0)
    local swing = math.deg(math.acos(math.max(-1, math.min(1, up.y))))
    if swing > OUT.swing then OUT.swing = swing end
    OUT.pivot = (limb.position + limb.rotation * Vector3(0, 0.75, 0) - Vector3(0, 7.75, 0)):Length()
  end)
end
""", 120)
    assert 25 <= out["swing"] <= 34, out
    assert out["pivot"] < 0.05, out


def test_moving_a_bodys_node_keeps_its_velocity(tmp_path: Path) -> None:
    """Urho3D moves the body's world transform and leaves its velocities alone (RigidBody::SetPosition): a ball
    teleported while it moves keeps moving at the same speed."""
    _, out = run(tmp_path, """
function Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld").gravity = Vector3(0, 0, 0)
  ball, b = body("Ball", Vector3(0, 10, 0), 1, "SetSphere", 1)
  b.linearVelocity = Vector3(3, 0, 0)
  b.angularVelocity = Vector3(0, 2, 0)
  local frame = 0
  SubscribeToEvent("Update", function()
    frame = frame + 1
    if frame == 10 then ball.position = Vector3(-20, 10, 5) end
    if frame == 11 then OUT.before = {b.linearVelocity.x, b.angularVelocity.y, ball.position.x} end
    if frame == 31 then OUT.after = {b.linearVelocity.x, b.angularVelocity.y, ball.position.x} end
  end)
end
""", 40)
    assert abs(out["before"][0] - 3) < 1e-6 and abs(out["before"][1] - 2) < 1e-6
    assert abs(out["after"][0] - 3) < 1e-6
    assert abs((out["after"][2] - out["before"][2]) - 3 * 20 / 60) < 1e-3   # still moving at 3 m/s after the move
