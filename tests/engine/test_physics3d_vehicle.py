"""Urho3D's RaycastVehicle over pybullet (engine/_bullet_vehicle.py, 57_physics3d_vehicle.lua): a car built as
Urho3D's sample 46 builds one settles on its suspension, accelerates, steers, brakes and stays on the ground."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.engine.test_physics3d import run

CAR = """
STIFFNESS = 14
function Start()
  floor()
  scene_:GetChild("Floor", false).scale = Vector3(10, 1, 10)
  car = scene_:CreateChild("Car")
  car.position = Vector3(0, 1.5, 0)
  car.scale = Vector3(2.3, 1, 4)
  local hull = car:CreateComponent("RigidBody")
  car:CreateComponent("CollisionShape"):SetBox(Vector3(1, 1, 1))
  hull.mass = 800
  hull.linearDamping = 0.2
  hull.angularDamping = 0.5
  rv = car:CreateComponent("RaycastVehicle")
  rv:Init()
  local wx = 2.6 / 2 - 0.4
  local points = {Vector3(-wx, -0.4, 1.5), Vector3(wx, -0.4, 1.5), Vector3(-wx, -0.4, -1.5), Vector3(wx, -0.4, -1.5)}
  wheels = {}
  for i, p in ipairs(points) do
    local w = scene_:CreateChild("Wheel" .. i)
    w.rotation = p.x >= 0 and Quaternion(0, 0, -90) or Quaternion(0, 0, 90)
    w.worldPosition = car.worldPosition + car.worldRotation * p
    rv:AddWheel(w, Vector3(0, -1, 0), Vector3(-1, 0, 0), 0.6, 0.5, p.z > 0)
    rv:SetWheelSuspensionStiffness(i - 1, STIFFNESS)
    rv:SetWheelDampingRelaxation(i - 1, 2)
    rv:SetWheelDampingCompression(i - 1, 4)
    rv:SetWheelRollInfluence(i - 1, 0.12)
    wheels[i] = w
  end
  rv:ResetWheels()
  OUT.setup = {n = rv:GetNumWheels(), front = rv:IsFrontWheel(0), back = rv:IsFrontWheel(2),
               stiffness = rv:GetWheelSuspensionStiffness(1), radius = rv:GetWheelRadius(3),
               rest = rv:GetWheelRestLength(0), connection = {rv:GetWheelConnectionPoint(1).x,
               rv:GetWheelConnectionPoint(1).z}, up = rv:GetCoordinateSystem().y}
  local past = rv:GetWheelConnectionPoint(4)   -- sample 46 reads one wheel past the last
  OUT.past_end = {past.x, past.y, past.z, rv:GetWheelRadius(4), rv:WheelIsGrounded(4),
                  (pcall(rv.SetBrake, rv, 4, 1.0)), (pcall(rv.GetWheelRadius, rv, -1)),
                  (pcall(rv.GetWheelRadius, rv, 0.5))}
  OUT.t = {}
  local frame = 0
  SubscribeToEvent("PhysicsPreStep", function()
    frame = frame + 1
    local engine = (frame > 60 and frame <= 180) and 2500 or 0
    local steer = (frame > 120 and frame <= 180) and 0.5 or 0
    local brake = frame > 180 and 50 or 0
    rv:SetEngineForce(2, engine)
    rv:SetEngineForce(3, engine)
    rv:SetSteeringValue(0, steer)
    rv:SetSteeringValue(1, steer)
    for i = 0, 3 do rv:SetBrake(i, brake) end
  end)
  SubscribeToEvent("PhysicsPostStep", function()
    local b = car:GetComponent("RigidBody")
    local p, v, r = b.position, b.linearVelocity, b.rotation
    local grounded = 0
    for i = 0, 3 do if rv:WheelIsGrounded(i) then grounded = grounded + 1 end end
    local up = r * Vector3(0, 1, 0)
    OUT.t[#OUT.t + 1] = {p.x, p.y, p.z, v.x, v.z, grounded, r:YawAngle(), up.y, rv:GetWheelPosition(2).y,
                         rv:GetContactNormal(2).y, rv:GetSteeringValue(0)}
  end)
  SubscribeToEvent("Update", function()
    OUT.wheel_y = wheels[1].worldPosition.y
    OUT.grounded_in_update = rv:WheelIsGrounded(0)
  end)
end
"""


@pytest.fixture(scope="module")
def drive(tmp_path_factory: pytest.TempPathFactory) -> Any:
    _, out = run(tmp_path_factory.mktemp("car"), CAR, 300)
    return out


def test_the_wheels_read_back_as_added(drive: Any) -> None:
    s = drive["setup"]
    assert (s["n"], s["front"], s["back"], s["stiffness"], s["radius"], s["rest"]) == (4, True, False, 14, 0.5, 0.6)
    assert s["up"] == 1   # RIGHT_UP_FORWARD
    assert s["connection"] == pytest.approx([0.9, 1.5])   # world offset from the hull node, as Urho3D takes it


def test_a_getter_past_the_last_wheel_reads_zero_and_anything_else_out_of_range_raises(drive: Any) -> None:
    """Urho3D reads past Bullet's wheel array there (undefined) and sample 46 does it: the engine answers zero."""
    assert drive["past_end"] == [0.0, 0.0, 0.0, 0.0, False, False, False, False]


def test_the_car_settles_on_its_suspension_at_the_springs_equilibrium(drive: Any) -> None:
    # four springs of stiffness 14 x the hull's mass carry it: each compressed by g / (4 x 14); the centre sits
    # 0.4 above the hard points, which sit rest length - compression + radius above the ground
    y = drive["t"][59][1]
    expected = 0.4 + (0.6 - 9.81 / (4 * 14)) + 0.5
    assert y == pytest.approx(expected, abs=0.005), y
    assert drive["t"][59][5] == 4 and abs(drive["t"][59][4]) < 0.01
    # the wheel node stands on the ground: its centre one radius up (PostUpdate, from the shown hull)
    assert drive["wheel_y"] == pytest.approx(0.5, abs=0.02)


def test_the_engine_accelerates_it_forward_and_steering_turns_it_right(drive: Any) -> None:
    t = drive["t"]
    assert t[119][4] > 4.0 and abs(t[119][3]) < 0.01 and abs(t[119][6]) < 0.01   # straight ahead along +Z
    assert t[179][6] > 30.0 and t[179][0] > 1.0    # turned right (yaw grows, x grows) while steering 0.5
    assert t[179][10] == pytest.approx(0.5)


def test_the_brakes_stop_it_and_it_stays_on_the_ground(drive: Any) -> None:
    t = drive["t"]
    last = t[-1]
    assert math.hypot(last[3], last[4]) < 0.3, last
    for row in t[10:]:
        assert 1.15 < row[1] < 1.5, row                 # on its wheels: no fall, no jump
        assert row[7] > 0.95, row                       # upright
    for row in t[:180]:
        assert row[5] == 4, row                         # all four wheels on the ground until it brakes
        assert row[9] == pytest.approx(1.0, abs=1e-9)   # the floor's normal under the rear wheel


def test_grounded_reads_false_after_post_update_as_in_urho3d(drive: Any) -> None:
    # PostUpdate recomputes the wheel transforms, which clears the contact flag until the next step's ray
    assert drive["grounded_in_update"] is False
