"""Urho3D's slider constraint (CONSTRAINT_SLIDER) over Bullet: its rows are solved by engine/_bullet_rows.py before
each pybullet step.  One scene holds the cases, so the engine runs once."""

from __future__ import annotations

import math
from typing import Any

import pytest

from engine._bullet_rows import RowBody, Slider, adjust_angle_to_limits, plane_space
from tests.engine.test_physics3d import run

SCENE = """
local function slider(n, other, axis, low, high)
  local c = n:CreateComponent("Constraint")
  c.constraintType = CONSTRAINT_SLIDER
  c.otherBody = other
  c.axis = axis
  c.otherAxis = axis
  c.lowLimit = low
  c.highLimit = high
  c.disableCollision = true
  return c
end
function Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  -- hanging from a static rail: falls along Y to its low travel limit, spinning at first
  local _, rail = body("Rail", Vector3(0, 8, 0), 0, "SetBox", Vector3(0.2, 0.2, 0.2))
  hang, hb = body("Hang", Vector3(0, 8, 0), 1, "SetBox", Vector3(0.5, 0.5, 0.5))
  slider(hang, rail, Vector3(0, 1, 0), Vector2(-3, 0), Vector2(0, 0))
  hb.angularVelocity = Vector3(1, 2, 3)
  -- across gravity: pushed along X into its high limit, carried by the rail against gravity
  local _, rail2 = body("Rail2", Vector3(5, 8, 0), 0, "SetBox", Vector3(0.2, 0.2, 0.2))
  across, ab = body("Across", Vector3(5, 8, 0), 2, "SetBox", Vector3(0.5, 0.5, 0.5))
  slider(across, rail2, Vector3(1, 0, 0), Vector2(-1, 0), Vector2(0.5, 0))
  ab.linearVelocity = Vector3(3, 0, 2)
  -- two free bodies joined by a free slider, in no gravity: only the separation along the axis can change
  pair1, p1 = body("Pair1", Vector3(-5, 20, 0), 1, "SetSphere", 0.5)
  pair2, p2 = body("Pair2", Vector3(-4, 20, 0), 3, "SetSphere", 0.5)
  p1.useGravity, p2.useGravity = false, false
  OUT.type = slider(pair1, p2, Vector3(1, 0, 0), Vector2(1, 0), Vector2(-1, 0)).constraintType
  p1:ApplyImpulse(Vector3(2, 1, -0.5))
  -- to the world: the other position is a world point
  free, fb = body("ToWorld", Vector3(10, 8, 0), 1, "SetBox", Vector3(0.5, 0.5, 0.5))
  local c = free:CreateComponent("Constraint")
  c.constraintType = CONSTRAINT_SLIDER
  c.axis = Vector3(0, 1, 0)
  c.otherAxis = Vector3(0, 1, 0)
  c.otherPosition = Vector3(10, 8, 0)
  c.lowLimit = Vector2(-1, 0)
  c.highLimit = Vector2(1, 0)
  OUT.steps = {}
  SubscribeToEvent("PhysicsPostStep", function()
    local t = {}
    for _, n in ipairs({hang, across, pair1, pair2, free}) do
      local b = n:GetComponent("RigidBody")
      local p, r, v, w = b.position, b.rotation, b.linearVelocity, b.angularVelocity
      t[#t + 1] = {p.x, p.y, p.z, r.w, r.x, r.y, r.z, v.x, v.y, v.z, w.x, w.y, w.z}
    end
    OUT.steps[#OUT.steps + 1] = t
  end)
end
"""


@pytest.fixture(scope="module")
def steps(tmp_path_factory: pytest.TempPathFactory) -> Any:
    _, out = run(tmp_path_factory.mktemp("slider"), SCENE, 150)
    assert out["type"] == 2
    return out["steps"]


def test_a_hanging_slider_falls_along_its_axis_to_its_limit_and_holds_it(steps: Any) -> None:
    for step in steps:
        x, y, z = step[0][:3]
        assert abs(x) < 1e-3 and abs(z) < 1e-3, step[0]   # on the rail's axis throughout
        assert 4.85 < y <= 8.0 + 1e-6   # falling at 7.7 m/s, it passes the limit by at most one step
    final = steps[-1][0]
    assert abs(final[1] - 5.0) < 0.005, final          # rail at 8, travel limited to -3
    assert abs(abs(final[3]) - 1.0) < 1e-4, final     # the initial spin is gone: the turn limits (0, 0) hold it
    assert max(abs(v) for v in final[7:10]) < 0.02, final


def test_a_slider_across_gravity_carries_its_body_and_stops_at_the_high_limit(steps: Any) -> None:
    travel = [s[1][0] - 5.0 for s in steps]
    assert max(travel) < 0.5 + 3.0 / 60 + 1e-3, max(travel)   # the high limit, passed by at most one step
    assert max(travel) > 0.45
    for s in steps[10:]:
        assert abs(s[1][1] - 8.0) < 0.005 and abs(s[1][2]) < 0.005, s[1]   # held up, on the axis


def test_a_slider_between_two_free_bodies_keeps_them_on_one_axis_and_conserves_momentum(steps: Any) -> None:
    # the impulse on the 1 kg body at one end turns the pair as one rigid body across the axis and slides it
    # along the axis: the other body stays on the first one's X axis, both turn alike, momentum is conserved
    for s in steps:
        a, b = s[2], s[3]
        w, x, y, z = a[3:7]
        axis = (1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y))
        d = [b[i] - a[i] for i in range(3)]
        along = sum(d[i] * axis[i] for i in range(3))
        off = math.sqrt(max(sum(v * v for v in d) - along * along, 0.0))
        assert off < 0.01, (a, b, off)   # the rows' error, corrected at ERP 0.2
        assert max(abs(a[10 + i] - b[10 + i]) for i in range(3)) < 1e-3, (a, b)
        momentum = [1 * a[7 + i] + 3 * b[7 + i] for i in range(3)]
        assert all(abs(m - e) < 1e-6 for m, e in zip(momentum, (2, 1, -0.5), strict=True)), momentum
    a, b = steps[-1][2], steps[-1][3]
    assert b[0] - a[0] < 0.0, (a, b)   # the 1 kg body, pushed along the axis, passed through the 3 kg one


def test_a_slider_to_the_world_limits_travel_both_ways(steps: Any) -> None:
    ys = [s[4][1] for s in steps]
    assert min(ys) > 7.0 - 0.08 and abs(ys[-1] - 7.0) < 0.005   # a 1 m fall passes the limit by one step


def test_the_rows_math() -> None:
    for n in [(0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.6, 0.8, 0.0), (0.0, 0.6, 0.8)]:
        p, q = plane_space(n)
        for u, v in ((p, q), (p, n), (q, n)):
            assert abs(sum(a * b for a, b in zip(u, v, strict=True))) < 1e-12
        assert abs(sum(a * a for a in p) - 1.0) < 1e-12 and abs(sum(a * a for a in q) - 1.0) < 1e-12
    assert adjust_angle_to_limits(3.0, -3.0, -2.0) == pytest.approx(3.0 - 2 * math.pi)
    assert adjust_angle_to_limits(-2.5, 1.0, 2.0) == pytest.approx(-2.5 + 2 * math.pi)   # nearer the high limit
    assert adjust_angle_to_limits(0.5, 1.0, 2.0) == 0.5
    s = Slider(((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)), ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)))
    a = RowBody((2.0, 0.3, 0.0), (0.0, 0.0, 0.0, 1.0))
    b = RowBody((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))
    travel, turn = s.position(a, b)
    assert travel == pytest.approx(2.0) and turn == pytest.approx(0.0)



def test_constraint_axes_read_back(tmp_path_factory: pytest.TempPathFactory) -> None:
    _, out = run(tmp_path_factory.mktemp("axes"), """
function Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  local n = body("S", Vector3(0, 2, 0), 1, "SetBox", Vector3(1, 1, 1))
  local c = n:CreateComponent("Constraint")
  c.constraintType = CONSTRAINT_SLIDER
  c.axis = Vector3(0, 0, 1)
  c.otherAxis = Vector3(0, 1, 0)
  c.lowLimit = Vector2(-2, -10)
  c.ERP = 0.5
  local a, o = c.axis, c.otherAxis
  OUT.axis, OUT.other = {a.x, a.y, a.z}, {o.x, o.y, o.z}
  OUT.low, OUT.erp = c.lowLimit.y, c.ERP
end
""", 2)
    assert out["axis"] == pytest.approx([0, 0, 1], abs=1e-6) and out["other"] == pytest.approx([0, 1, 0], abs=1e-6)
    assert (out["low"], out["erp"]) == (-10, 0.5)
