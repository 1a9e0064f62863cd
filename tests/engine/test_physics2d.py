"""Urho2D physics over Box2D (engine/_box2d.py, engine/lua/runtime/57_physics2d.lua, docs/physics2d.md)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.testing import lua, new_engine

ROOT = Path(__file__).resolve().parents[2]

# A scene with a world and a helper to make bodies; games' usual way (properties, Vector3 positions).
PRELUDE = """
scene_ = Scene()
scene_:CreateComponent("Octree")
world = scene_:CreateComponent("PhysicsWorld2D")
function body(name, x, y, kind, shape, a, b)
  local n = scene_:CreateChild(name)
  n.position = Vector3(x, y, 0)
  local rb = n:CreateComponent("RigidBody2D")
  rb.bodyType = kind
  local s
  if shape == "box" then s = n:CreateComponent("CollisionBox2D"); s.size = Vector2(a, b)
  elseif shape == "circle" then s = n:CreateComponent("CollisionCircle2D"); s.radius = a end
  if s then s.density = 1 end
  return n, rb, s
end
function step(n) for _ = 1, n do SendEvent("Update", {TimeStep = 1 / 60}) end end
"""


def run(code: str) -> Any:
    engine = new_engine()
    return lua(PRELUDE + code, engine)


def test_free_fall_is_box2d_semi_implicit_euler_per_step() -> None:
    ys = run("""
      local n, rb = body("Ball", 0, 10, BT_DYNAMIC, "circle", 0.5)
      local out = {}
      for i = 1, 60 do step(1); out[i] = {n.position.y, rb.linearVelocity.y} end
      return out
    """)
    # v_{k} = v_{k-1} + g h;  y_{k} = y_{k-1} + h v_{k}  (in float32, as Box2D)
    import numpy as np
    h, g = np.float32(1 / 60), np.float32(-9.81)
    y, v = np.float32(10), np.float32(0)
    for k, (ey, ev) in enumerate(ys):
        v = np.float32(v + np.float32(h * g))
        y = np.float32(y + np.float32(h * v))
        assert abs(ey - float(y)) < 1e-6, k
        assert abs(ev - float(v)) < 1e-6, k


def test_a_circle_dropped_on_a_box_rests_on_it() -> None:
    y, vy, awake = run("""
      body("Ground", 0, -0.5, BT_STATIC, "box", 20, 1)
      local n, rb = body("Ball", 0, 3, BT_DYNAMIC, "circle", 0.5)
      step(300)
      return n.position.y, rb.linearVelocity.y, rb.awake
    """)
    assert y == pytest.approx(0.5, abs=0.011)   # Box2D keeps a polygon skin of 0.01 between shapes
    assert vy == pytest.approx(0.0, abs=1e-4)
    assert awake is False                        # at rest, Box2D puts it to sleep


BOUNCE = """
  body("Ground", 0, -0.5, BT_STATIC, "box", 20, 1)
  local out = {}
  local balls = {}
  for i, r in ipairs({0, 0.5, 0.9}) do
    local n, rb, s = body("Ball" .. i, i * 2, 3, BT_DYNAMIC, "circle", 0.25)
    s.restitution = r
    balls[i] = n
  end
  local peak = {-1, -1, -1}
  step(60)   -- past the first impact (at about 0.75 s)
  for _ = 1, 80 do
    step(1)
    for i, n in ipairs(balls) do if n.position.y > peak[i] then peak[i] = n.position.y end end
  end
  return peak
"""


def test_restitution_orders_bounce_heights_repeatably() -> None:
    peaks = run(BOUNCE)
    assert peaks[0] < peaks[1] < peaks[2]
    assert peaks[0] == pytest.approx(0.25, abs=0.02)
    assert run(BOUNCE) == peaks


def test_a_stack_of_ten_boxes_stands_for_ten_seconds() -> None:
    drift = run("""
      body("Ground", 0, -0.5, BT_STATIC, "box", 20, 1)
      local boxes = {}
      for i = 1, 10 do
        local n, rb, s = body("Box" .. i, 0, (i - 1) * 1.0 + 0.5, BT_DYNAMIC, "box", 1, 1)
        s.friction = 0.6
        boxes[i] = n
      end
      step(600)
      local worst = {0, 0, 0}
      for i, n in ipairs(boxes) do
        local p = n.position
        -- Box2D keeps a skin of 0.01 m (two polygon radii) in each contact: box i sits i * 0.01 higher
        local d = {math.abs(p.x), math.abs(p.y - ((i - 1) + 0.5) - i * 0.01), math.abs(n.rotation:RollAngle())}
        for k = 1, 3 do worst[k] = math.max(worst[k], d[k]) end
      end
      return worst
    """)
    assert drift[0] < 0.01 and drift[1] < 0.03 and drift[2] < 0.5   # (Box2D settles a stack by ~1 cm)


def test_a_kinematic_body_moved_by_velocity_pushes_a_dynamic_one() -> None:
    x0, x1 = run("""
      body("Ground", 0, -0.5, BT_STATIC, "box", 40, 1)
      local pusher, prb = body("Pusher", -3, 0.5, BT_KINEMATIC, "box", 1, 1)
      local crate = body("Crate", 0, 0.5, BT_DYNAMIC, "box", 1, 1)
      step(30)
      local x0 = crate.position.x
      prb.linearVelocity = Vector2(2, 0)
      step(120)
      return x0, crate.position.x
    """)
    assert x0 == pytest.approx(0.0, abs=0.01)
    assert x1 > 1.5


def test_a_kinematic_node_moved_by_the_game_teleports_its_body() -> None:
    x, hit = run("""
      local n, rb = body("Mover", 0, 0, BT_KINEMATIC, "box", 1, 1)
      n.position = Vector3(5, 0, 0)
      local r = world:RaycastSingle(Vector2(5, 5), Vector2(5, -5))
      step(1)
      return n.position.x, r.body and r.body.node.name
    """)
    assert x == 5
    assert hit == "Mover"


def test_a_trigger_reports_begin_and_end_without_response() -> None:
    events, y, vy = run("""
      local events = {}
      local sensor = body("Sensor", 0, 2, BT_STATIC, "box", 3, 0.5)
      sensor:GetComponent("CollisionBox2D").trigger = true
      local n, rb = body("Faller", 0, 6, BT_DYNAMIC, "circle", 0.3)
      SubscribeToEvent("PhysicsBeginContact2D", function(_, d)
        events[#events + 1] = "begin " .. d["NodeA"]:GetPtr().name .. " " .. d["NodeB"]:GetPtr().name
      end)
      SubscribeToEvent("PhysicsEndContact2D", function(_, d) events[#events + 1] = "end" end)
      SubscribeToEvent(sensor, "NodeBeginContact2D", function(_, d)
        events[#events + 1] = "node " .. d["OtherNode"]:GetPtr().name
      end)
      step(70)
      return events, n.position.y, rb.linearVelocity.y
    """)
    assert events == ["begin Sensor Faller", "node Faller", "end"]
    assert y < 1.0 and vy < -9.0   # it fell straight through



def test_a_node_removed_by_one_contact_handler_stays_readable_in_the_steps_later_events() -> None:
    """Urho3D's 2D contact infos hold their nodes (SharedPtr) until the step's events are sent: a pig removed by the
    first begin event of a step is still readable in the second, as a detached node (ID 0); after the step, using
    it is an error again."""
    seen, after = run("""
      body("Ground", 0, -0.5, BT_STATIC, "box", 20, 1)
      local pig = body("Pig", 0, 0.5, BT_STATIC, "box", 1, 1)
      body("Left", -1.2, 0.5, BT_DYNAMIC, "box", 1, 1):GetComponent("RigidBody2D").linearVelocity = Vector2(8, 0)
      body("Right", 1.2, 0.5, BT_DYNAMIC, "box", 1, 1):GetComponent("RigidBody2D").linearVelocity = Vector2(-8, 0)
      local seen = {}
      SubscribeToEvent("PhysicsBeginContact2D", function(_, d)
        for _, key in ipairs({"NodeA", "NodeB"}) do
          local n = d[key]:GetPtr()
          if n.name == "Pig" then
            seen[#seen + 1] = {n.ID, n.scene == nil}
            if n.ID ~= 0 then n:Remove() end
          end
        end
      end)
      step(10)
      return seen, (pcall(function() return pig.name end))
    """)
    assert seen[0][1] is False and seen[0][0] > 0            # the first hit: the pig is in the scene, then removed
    assert seen[1:] and all(s == [0, True] for s in seen[1:])  # later hits of that step: held, detached, ID 0
    assert after is False


def test_category_and_mask_bits_filter_collisions() -> None:
    ys = run("""
      body("Ground", 0, -0.5, BT_STATIC, "box", 20, 1)
      local a = body("Collides", -2, 2, BT_DYNAMIC, "circle", 0.5)
      local b, _, s = body("Ghost", 2, 2, BT_DYNAMIC, "circle", 0.5)
      s.categoryBits = 2
      s.maskBits = 0xFFFF - 1   -- the ground's category is 1
      step(90)
      return {a.position.y, b.position.y}
    """)
    assert ys[0] == pytest.approx(0.5, abs=0.02)
    assert ys[1] < -3


def test_a_shared_negative_group_index_never_collides() -> None:
    ys = run("""
      local _, _, g = body("Ground", 0, -0.5, BT_STATIC, "box", 20, 1)
      g.groupIndex = -3
      local a, _, s = body("Same", -2, 2, BT_DYNAMIC, "circle", 0.5)
      s.groupIndex = -3
      local b, _, t = body("Other", 2, 2, BT_DYNAMIC, "circle", 0.5)
      t.groupIndex = -4
      step(90)
      return {a.position.y, b.position.y, s.groupIndex}
    """)
    assert ys[0] < -3
    assert ys[1] == pytest.approx(0.5, abs=0.02)
    assert ys[2] == -3


def test_raycasts_hit_the_expected_node_at_the_expected_distance() -> None:
    single, all_hits, none, point_body = run("""
      body("Box", -3, 0, BT_STATIC, "box", 2, 2)
      body("Circle", 3, 0, BT_STATIC, "circle", 1)
      local r = world:RaycastSingle(Vector2(-10, 0), Vector2(10, 0))
      local all = world:Raycast(Vector2(-10, 0), Vector2(10, 0))
      local names = {}
      for i, h in ipairs(all) do names[i] = {h.body.node.name, h.distance} end
      local miss = world:RaycastSingle(Vector2(-10, 5), Vector2(10, 5))
      local at = world:GetRigidBody(Vector2(3.2, 0.1))
      return {r.body.node.name, r.distance, r.position.x, r.normal.x}, names, miss.body == nil, at.node.name
    """)
    assert single[0] == "Box"
    assert single[1] == pytest.approx(6.0, abs=1e-5)
    assert single[2] == pytest.approx(-4.0, abs=1e-5)
    assert single[3] == pytest.approx(-1.0)
    assert sorted(all_hits) == [["Box", pytest.approx(6.0, abs=1e-5)], ["Circle", pytest.approx(12.0, abs=1e-5)]]
    assert none is True
    assert point_body == "Circle"


def test_a_revolute_joint_with_limits_limits_rotation() -> None:
    free, limited = run("""
      local function pendulum(x, limit)
        local _, pivot = body("Pivot" .. x, x, 5, BT_STATIC, "box", 0.2, 0.2)
        local arm = body("Arm" .. x, x + 1.5, 5, BT_DYNAMIC, "box", 3, 0.2)
        local j = arm:CreateComponent("ConstraintRevolute2D")
        j.otherBody = pivot
        j.anchor = Vector2(x, 5)
        if limit then
          j.enableLimit = true
          j.lowerAngle = -0.5
          j.upperAngle = 0.5
        end
        return arm
      end
      local a, b = pendulum(0, false), pendulum(10, true)
      local low_a, low_b = 0, 0
      for _ = 1, 90 do
        step(1)
        low_a = math.min(low_a, a.rotation:RollAngle())
        low_b = math.min(low_b, b.rotation:RollAngle())
      end
      return low_a, low_b
    """)
    assert free < -80                                   # swings down freely
    assert limited == pytest.approx(-28.65, abs=1.5)    # stops at -0.5 rad


def test_distance_prismatic_weld_and_rope_joints_hold() -> None:
    rope_len, weld_gap, slide_y = run("""
      local _, top = body("Top", 0, 5, BT_STATIC, "box", 0.2, 0.2)
      local swing = body("Swing", 1.5, 5, BT_DYNAMIC, "box", 0.4, 0.4)
      local rope = swing:CreateComponent("ConstraintRope2D")
      rope.otherBody = top
      rope.maxLength = 2
      local base = body("Base", 10, 3, BT_DYNAMIC, "box", 1, 0.3)
      local welded = body("Welded", 10, 3.6, BT_DYNAMIC, "box", 0.3, 1)
      local weld = welded:CreateComponent("ConstraintWeld2D")
      weld.otherBody = base:GetComponent("RigidBody2D")
      weld.anchor = Vector2(10, 3.15)
      local _, rail = body("Rail", 20, 5, BT_STATIC, "box", 0.2, 0.2)
      local slider = body("Slider", 20, 4, BT_DYNAMIC, "box", 0.5, 0.5)
      local p = slider:CreateComponent("ConstraintPrismatic2D")
      p.otherBody = rail
      p.anchor = Vector2(20, 4)
      p.axis = Vector2(1, 0)
      step(120)
      local d = swing.position - top.node.position
      return d:Length(), (welded.position - base.position):Length(), slider.position.y
    """)
    assert rope_len <= 2.0 + 0.02
    assert weld_gap == pytest.approx(0.6, abs=0.02)
    assert slide_y == pytest.approx(4.0, abs=0.01)   # slides only along x


def test_misuse_is_a_clear_lua_error() -> None:
    with pytest.raises(Exception, match="SetGravity"):
        run("world:SetGravity(5)")
    with pytest.raises(Exception, match="BodyType2D"):
        run('local _, rb = body("X", 0, 0, BT_STATIC); rb.bodyType = 7')


def test_a_degenerate_polygon_is_logged_not_fatal() -> None:
    engine = new_engine()
    lua(PRELUDE + """
      local n = body("P", 0, 0, BT_DYNAMIC)
      local p = n:CreateComponent("CollisionPolygon2D")
      p:SetVertices({Vector2(0, 0), Vector2(1, 0), Vector2(2, 0)})
      step(2)
    """, engine)
    log = [e["message"] for e in engine.report().log]
    assert any("CollisionPolygon2D" in m and "no area" in m for m in log)


TRAJECTORY = """
function Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld2D")
  local g = scene_:CreateChild("Ground")
  g.position = Vector3(0, -1, 0)
  g:CreateComponent("RigidBody2D")
  g:CreateComponent("CollisionBox2D").size = Vector2(30, 1)
  for i = 0, 29 do
    local n = scene_:CreateChild("P" .. i)
    n.position = Vector3((i % 5) * 0.7 - 1.4 + (i % 3) * 0.05, 1 + i * 0.6, 0)
    n.rotation = Quaternion(0, 0, i * 7)
    n:CreateComponent("RigidBody2D").bodyType = BT_DYNAMIC
    local s = (i % 2 == 0) and n:CreateComponent("CollisionBox2D") or n:CreateComponent("CollisionCircle2D")
    if i % 2 == 0 then s.size = Vector2(0.5, 0.4) else s.radius = 0.25 end
    s.density = 1; s.friction = 0.4; s.restitution = 0.2
  end
  -- contacts are gathered (and their points computed) only when handled: exercise that path too
  contacts = 0
  SubscribeToEvent("PhysicsBeginContact2D", function(_, d)
    contacts = contacts + #d["Contacts"]:GetBuffer()
    scene_:SetVar("contacts", Variant(contacts))
  end)
end
"""

DIGEST_SCRIPT = r"""
import hashlib, sys, tempfile
from pathlib import Path
from engine import Engine
tmp = Path(tempfile.mkdtemp()); (tmp / "scripts").mkdir()
(tmp / "scripts" / "main.lua").write_text(sys.stdin.read())
e = Engine(tmp); e.start()
# every node's exact position and rotation (hex floats) and the contact count, after each of 1,000 steps
state = e.runtime.eval('''function(E)
  local scene, out = E.scenes[1], {}
  for _, n in ipairs(scene.children) do
    out[#out + 1] = string.format('%s %a %a %a %a', n.name, n.px, n.py, n.rw, n.rz)
  end
  local v = scene.vars.contacts
  out[#out + 1] = tostring(v and v.value_)
  return table.concat(out, ';')
end''')
h = hashlib.sha256()
for _ in range(1000):
    e.run_frames(1)
    h.update(state(e.E).encode())
print(h.hexdigest())
"""


def test_a_1000_step_trajectory_is_bit_identical_in_five_fresh_processes() -> None:
    digests = set()
    for _ in range(5):
        out = subprocess.run([sys.executable, "-c", DIGEST_SCRIPT], input=TRAJECTORY, capture_output=True, text=True,
                             cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1, digests
    assert len(next(iter(digests))) == 64


def test_digest_helper_sees_the_bodies_move_and_the_contacts() -> None:
    engine = new_engine(TRAJECTORY)
    engine.start()
    before = json.dumps(engine.scene_dump())
    engine.run_frames(200)
    after = engine.scene_dump()
    assert hashlib.sha256(before.encode()).digest() != hashlib.sha256(json.dumps(after).encode()).digest()
    assert "contacts" in json.dumps(after[0].get("vars"))


def test_update_contact_can_disable_a_contact_one_way_platform() -> None:
    y = run("""
      local _, _, plat = body("Platform", 0, 0, BT_STATIC, "box", 4, 0.2)
      local n, rb = body("Jumper", 0, -1, BT_DYNAMIC, "circle", 0.25)
      rb.linearVelocity = Vector2(0, 8)
      SubscribeToEvent("PhysicsUpdateContact2D", function(_, d)
        -- pass through while moving up, as one-way platforms do
        local other = d["NodeB"]:GetPtr()
        if other:GetComponent("RigidBody2D").linearVelocity.y > 0 then d["Enabled"] = false end
      end)
      step(120)
      return n.position.y
    """)
    assert y == pytest.approx(0.1 + 0.25, abs=0.03)   # went up through it, landed on top


def test_a_handler_may_remove_a_body_it_is_told_about() -> None:
    removed, gone = run("""
      body("Ground", 0, -0.5, BT_STATIC, "box", 20, 1)
      local n = body("Bomb", 0, 2, BT_DYNAMIC, "circle", 0.5)
      local removed = false
      SubscribeToEvent("PhysicsBeginContact2D", function(_, d)
        local b = d["NodeB"]:GetPtr()
        if b.name == "Bomb" then b:Remove(); removed = true end
      end)
      step(90)
      return removed, scene_:GetChild("Bomb") == nil
    """)
    assert removed and gone


def test_node_scale_applies_to_shapes_and_a_moved_dynamic_node_teleports() -> None:
    hit, moved_y = run("""
      local n = scene_:CreateChild("Big")
      n.position = Vector3(0, 0, 0)
      n.scale = Vector3(4, 4, 1)
      n:CreateComponent("RigidBody2D").bodyType = BT_STATIC
      n:CreateComponent("CollisionCircle2D").radius = 0.5
      local r = world:RaycastSingle(Vector2(-10, 0), Vector2(10, 0))
      local d, rb = body("D", 10, 10, BT_DYNAMIC, "box", 1, 1)
      world.gravity = Vector2(0, 0)
      step(1)
      d.position = Vector3(10, -5, 0)
      step(1)
      return r.distance, d.position.y
    """)
    assert hit == pytest.approx(8.0, abs=1e-4)   # radius 0.5 scaled by 4
    assert moved_y == pytest.approx(-5.0)


def test_edge_chain_and_polygon_shapes_collide() -> None:
    ys = run("""
      local g = scene_:CreateChild("Floor")
      g:CreateComponent("RigidBody2D")
      local e = g:CreateComponent("CollisionEdge2D")
      e:SetVertices(Vector2(-10, 0), Vector2(-2, 0))
      local c = g:CreateComponent("CollisionChain2D")
      c:SetVertices({Vector2(-1, 0), Vector2(1, 0), Vector2(3, 0)})
      local tri = body("Tri", 0, 2, BT_DYNAMIC)
      local p = tri:CreateComponent("CollisionPolygon2D")
      p:SetVertexCount(3)
      p:SetVertex(0, Vector2(-0.5, 0)); p:SetVertex(1, Vector2(0.5, 0)); p:SetVertex(2, Vector2(0, 0.5))
      p.density = 1
      local ball = body("Ball", -5, 2, BT_DYNAMIC, "circle", 0.5)
      step(120)
      return {tri.position.y, ball.position.y, p.mass}
    """)
    assert ys[0] == pytest.approx(0.0, abs=0.02)
    assert ys[1] == pytest.approx(0.5, abs=0.02)
    assert ys[2] == pytest.approx(0.25, abs=1e-4)   # area 0.25 at density 1


def test_mouse_joint_drags_its_body_to_the_target() -> None:
    x, y = run("""
      world.gravity = Vector2(0, 0)
      local _, ground = body("Ground", 0, -5, BT_STATIC, "box", 1, 1)
      local n, rb = body("Drag", 0, 0, BT_DYNAMIC, "box", 1, 1)
      local m = n:CreateComponent("ConstraintMouse2D")
      m.target = Vector2(0, 0)
      m.maxForce = 1000 * rb.mass
      m.otherBody = ground
      m.target = Vector2(3, 2)
      step(120)
      return n.position.x, n.position.y
    """)
    assert (x, y) == (pytest.approx(3.0, abs=0.05), pytest.approx(2.0, abs=0.05))


BATTERY_GAME = """
function Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld2D")
  local g = scene_:CreateChild("Ground")
  g.position = Vector3(0, -0.5, 0)
  g:CreateComponent("RigidBody2D")
  g:CreateComponent("CollisionBox2D").size = Vector2(10, 1)
  local b = scene_:CreateChild("Ball")
  b.position = Vector3(0, 2, 0)
  b:CreateComponent("RigidBody2D").bodyType = BT_DYNAMIC
  local c = b:CreateComponent("CollisionCircle2D")
  c.radius = 0.5
  c.density = 1
end
"""

BATTERY = """
local h = harness
h.start()
h.track_contacts2d()
h.run(0.3)
local ball = h.find("Ball")
local v = ball:component("RigidBody2D"):get("linearVelocity")
local before = #h.contacts2d(0)
h.run(1.5)
local contacts = h.contacts2d(0)
local phys = ball.physics
requirement("R1", {capabilities = {"physics"}}, function(check)
  check.less("falling", v.y, -1)
  check.equal("resting on the ground", #phys.contacts, 1)
  check.equal("the ground", phys.contacts[1].name, "Ground")
  check.equal("asleep (view)", phys.awake, false)
  check.equal("dynamic", phys.body_type, BT_DYNAMIC)
  check.equal("no contact yet", before, 0)
  check.equal("one contact", #contacts, 1)
  check.equal("with the ground", contacts[1].node_a.name .. "/" .. contacts[1].node_b.name, "Ground/Ball")
  check.equal("asleep", ball:component("RigidBody2D"):get("awake"), false)
end)
"""


def test_batteries_read_velocity_awake_and_contacts() -> None:
    engine = new_engine(BATTERY_GAME)
    engine.run_battery(BATTERY, "battery/test.lua")
    reqs = engine.requirements()
    assert reqs[0]["passed"], reqs


def test_changes_made_while_box2d_steps_wait_for_the_end_of_the_step() -> None:
    engine = new_engine()
    gone, made = lua(PRELUDE + """
      body("Ground", 0, -0.5, BT_STATIC, "box", 20, 1)
      local n = body("Coin", 0, 1, BT_DYNAMIC, "circle", 0.25)
      local made = "no"
      SubscribeToEvent("PhysicsUpdateContact2D", function(_, d)
        local other = d["NodeB"]:GetPtr()
        if other.name == "Coin" then
          other:Remove()   -- Box2D's world is locked here: the body goes once the step ends
          made = pcall(function() body("Spawned", 5, 5, BT_DYNAMIC, "circle", 0.25) end) and "yes" or "refused"
        end
      end)
      step(60)
      return scene_:GetChild("Coin") == nil, made
    """, engine)
    assert gone is True
    assert made == "refused"
    assert engine.E.host.box2d.live_counts()[1] >= 1
    assert engine.report().outcome == "clean"


def test_a_child_body_writes_its_world_transform_and_follows_game_moves() -> None:
    y1, wy, y2 = run("""
      local holder = scene_:CreateChild("Holder")
      holder.position = Vector3(10, 0, 0)
      local n = holder:CreateChild("Child")
      n.position = Vector3(0, 5, 0)
      n:CreateComponent("RigidBody2D").bodyType = BT_DYNAMIC
      local s = n:CreateComponent("CollisionCircle2D"); s.radius = 0.5; s.density = 1
      step(30)
      local y1, wy = n.position.y, n.worldPosition.y
      n.position = Vector3(0, 20, 0)   -- local: world (10, 20)
      step(1)
      return y1, wy, n.worldPosition.y
    """)
    assert y1 == pytest.approx(wy) and y1 < 4.0
    assert 19.5 < y2 < 20.0


def test_shapes_and_constraints_box2d_refuses_are_logged_and_the_game_goes_on() -> None:
    engine = new_engine()
    lua(PRELUDE + """
      body("Flat", 0, 0, BT_DYNAMIC, "box", 0, 0)               -- a density on no area
      local a, ra = body("A", 3, 0, BT_DYNAMIC, "box", 1, 1)
      local j = a:CreateComponent("ConstraintRevolute2D")
      j.otherBody = ra                                            -- a joint to itself
      world:Raycast(Vector2(0 / 0, 1), Vector2(1, 1))             -- a NaN ray
      world:GetRigidBody(Vector2(1 / 0, 0))
      step(10)
    """, engine)
    report = engine.report()
    errors = [e["message"] for e in report.log if e["level"] == "ERROR"]
    assert report.outcome == "clean"
    assert any("area" in m for m in errors) and any("bodyA != def->bodyB" in m for m in errors)


def test_a_body_under_a_body_made_first_follows_its_parents_new_transform() -> None:
    wy_child, wy_parent = run("""
      world.gravity = Vector2(0, -10)
      local parent = scene_:CreateChild("Parent")
      parent.position = Vector3(0, 10, 0)
      local child = parent:CreateChild("Child")
      child.position = Vector3(3, 0, 0)
      -- the child's body first: Box2D reports it before its parent's
      local cb = child:CreateComponent("RigidBody2D"); cb.bodyType = BT_DYNAMIC
      local cs = child:CreateComponent("CollisionCircle2D"); cs.radius = 0.2; cs.density = 1
      local pb = parent:CreateComponent("RigidBody2D"); pb.bodyType = BT_KINEMATIC
      pb.linearVelocity = Vector2(0, 5)
      step(30)
      return child.worldPosition.y, parent.worldPosition.y
    """)
    assert wy_parent == pytest.approx(12.5, abs=1e-4)
    # the child fell freely from y = 10 for 0.5 s, in world space, whatever its parent did
    assert wy_child == pytest.approx(10 - 0.5 * 10 * 0.5 * 0.5, abs=0.1)


def test_hundreds_of_bodies_each_write_their_own_node() -> None:
    ok = run("""
      local nodes = {}
      for i = 1, 600 do nodes[i] = body("B" .. i, i * 2, i % 7, BT_DYNAMIC, "circle", 0.25) end
      nodes[300]:GetComponent("RigidBody2D").gravityScale = 0   -- one that stays put, mid-chunk
      step(20)
      local fall = nodes[1].position.y - (1 % 7)
      for i, n in ipairs(nodes) do
        local expect = (i == 300) and (i % 7) or (i % 7) + fall
        if math.abs(n.position.x - i * 2) > 1e-9 or math.abs(n.position.y - expect) > 1e-5 then return i end
      end
      return fall < -0.5
    """)
    assert ok is True


def test_nodes_follow_their_bodies_through_changes_of_the_node_tree() -> None:
    # The sync caches which body nodes are children of the scene (written directly); a node moved under another
    # node and back, or one that gains a child, must still show its body: the same as in a scene left alone.
    changed, alone, kid_off = run("""
      local function scenario(changes)
        scene_ = Scene()
        world = scene_:CreateComponent("PhysicsWorld2D")
        local holder = scene_:CreateChild("Holder")
        holder.position = Vector3(0.5, 0.25, 0)
        local nodes = {}
        for i = 1, 4 do nodes[i] = body("B" .. i, i * 2, 3 + i, BT_DYNAMIC, "box", 1, 1) end
        local ys, kid_off, kid = {}, 0, nil
        for frame = 1, 60 do
          if changes and frame == 10 then kid = nodes[1]:CreateChild("Kid"); kid.position = Vector3(0, 1, 0) end
          if changes and frame == 20 then nodes[2].parent = holder end
          if changes and frame == 30 then nodes[3]:Remove() end
          if changes and frame == 40 then nodes[2].parent = scene_ end
          step(1)
          for _, i in ipairs({1, 2, 4}) do
            local p = nodes[i].worldPosition
            ys[#ys + 1] = {p.x, p.y}
          end
          if kid then
            local d = (kid.worldPosition - nodes[1].worldPosition - nodes[1].worldRotation * Vector3(0, 1, 0)):Length()
            if d > kid_off then kid_off = d end
          end
        end
        return ys, kid_off
      end
      local changed, kid_off = scenario(true)
      return changed, scenario(false), kid_off
    """)
    assert len(changed) == len(alone) == 180
    worst = max(abs(a - b) for pa, pb in zip(changed, alone, strict=True) for a, b in zip(pa, pb, strict=True))
    assert worst < 1e-4, worst   # the reparented node's body is put back where its node is (float32)
    assert kid_off < 1e-6
    assert changed[-1][1] < 4 - 1   # they did fall


def test_static_sprites_keep_their_state() -> None:
    # Urho2D games put a StaticSprite2D beside their bodies (sample 27): state only, nothing is drawn
    got = run("""
      local n = body("Box", 0, 0, BT_DYNAMIC, "box", 1, 1)
      local s = n:CreateComponent("StaticSprite2D")
      local before = {s.blendMode, s.flipX, s.color.a, s.layer}
      s.sprite = cache:GetResource("Sprite2D", "Urho2D/Box.png")
      s:SetFlip(true, false)
      s.alpha = 0.5
      s.layer = 3
      return {before, s.flipX, s.alpha, s.layer, s.sprite ~= nil}
    """)
    assert got == [[3, False, 1.0, 0], True, 0.5, 3, True]


def test_get_rigid_body_at_a_screen_point_goes_through_the_viewport() -> None:
    at_centre, off = run("""
      body("Target", 0, 0, BT_STATIC, "box", 2, 2)
      local camNode = scene_:CreateChild("Camera")
      camNode.position = Vector3(0, 0, -10)
      local cam = camNode:CreateComponent("Camera")
      cam.orthographic = true
      cam.orthoSize = 10
      renderer:SetViewport(0, Viewport:new(scene_, cam))
      local b = world:GetRigidBody(graphics.width // 2, graphics.height // 2)
      local none = world:GetRigidBody(5, 5)
      return b and b.node.name, none == nil
    """)
    assert at_centre == "Target"
    assert off is True


def test_contact_buffers_read_as_urho2d_writes_them() -> None:
    points = run("""
      body("Ground", 0, -0.5, BT_STATIC, "box", 20, 1)
      body("Box", 3, 2, BT_DYNAMIC, "box", 1, 1)
      local out
      SubscribeToEvent("PhysicsBeginContact2D", function(_, d)
        local buf = d["Contacts"]:GetBuffer()
        out = {}
        while not buf.eof do
          local p, n, sep = buf:ReadVector2(), buf:ReadVector2(), buf:ReadFloat()
          out[#out + 1] = {p.x, p.y, n.x, n.y, sep}
        end
      end)
      step(60)
      return out
    """)
    assert len(points) == 2                                  # a box flat on a box: two manifold points
    for x, y, nx, ny, sep in points:
        assert (nx, ny) == (pytest.approx(0.0, abs=1e-6), pytest.approx(1.0))   # from the ground (A) up
        assert 2.4 < x < 3.6 and y == pytest.approx(0.0, abs=0.05) and -0.05 < sep < 0.05
