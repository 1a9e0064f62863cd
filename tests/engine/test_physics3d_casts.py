"""Swept queries and continuous collision detection over Bullet (engine/_bullet_sweep.py): PhysicsWorld's
ConvexCast and SphereCast, RigidBody's CCD radius and motion threshold."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.engine.test_physics3d import run

CASTS = """
function Start()
  floor()
  world_ = scene_:GetComponent("PhysicsWorld")
  crate, cb = body("Crate", Vector3(0, 5, 0), 1, "SetBox", Vector3(1, 1, 1))
  cb.useGravity = false
  local shape = crate:GetComponent("CollisionShape")
  local wall = body("Wall", Vector3(0, 5, 6), 0, "SetBox", Vector3(4, 4, 0.5))
  local hidden = body("Hidden", Vector3(4, 5, 0), 0, "SetBox", Vector3(1, 1, 1))
  hidden:GetComponent("RigidBody").collisionLayer = 2
  local function cast(...)
    local r = world_:ConvexCast(...)
    return {name = r.body and r.body.node.name or "", distance = r.distance, fraction = r.hitFraction,
            y = r.position.y, z = r.position.z, ny = r.normal.y, nz = r.normal.z}
  end
  local down = Vector3(0, -5, 0)
  OUT.straight = cast(shape, Vector3(0, 5, 0), Quaternion(), down, Quaternion())
  OUT.tilted = cast(shape, Vector3(0, 5, 0), Quaternion(45, Vector3(0, 0, 1)), down, Quaternion(45, Vector3(0, 0, 1)))
  OUT.wall = cast(shape, Vector3(0, 5, 0), Quaternion(), Vector3(0, 5, 20), Quaternion())
  OUT.layer = cast(shape, Vector3(0, 5, 0), Quaternion(), Vector3(10, 5, 0), Quaternion(), 1)
  OUT.layer2 = cast(shape, Vector3(0, 5, 0), Quaternion(), Vector3(10, 5, 0), Quaternion(), 2)
  OUT.miss = cast(shape, Vector3(0, 5, 0), Quaternion(), Vector3(0, 20, 0), Quaternion())
  -- turning while falling: an edge reaches the floor before the end
  OUT.turning = cast(shape, Vector3(0, 3, 0), Quaternion(), Vector3(0, 0.6, 0), Quaternion(45, Vector3(0, 0, 1)))
  -- the shape's offset and its node's scale count
  local big = scene_:CreateChild("Big")
  big.scale = Vector3(2, 2, 2)
  local bs = big:CreateComponent("CollisionShape")
  bs:SetSphere(1, Vector3(0, -1, 0))
  OUT.offset = cast(bs, Vector3(10, 10, 0), Quaternion(), Vector3(10, 0, 0), Quaternion())
  local plane = scene_:CreateChild("P"):CreateComponent("CollisionShape")
  plane:SetStaticPlane()
  OUT.plane = cast(plane, Vector3(0, 10, 0), Quaternion(), Vector3(0, 0, 0), Quaternion())
  local s = world_:SphereCast(Ray(Vector3(-1.5, 5, -3), Vector3(0, 0, 1)), 0.5, 20)
  OUT.sphere = {name = s.body and s.body.node.name or "", distance = s.distance}
end
"""


@pytest.fixture(scope="module")
def casts(tmp_path_factory: pytest.TempPathFactory) -> Any:
    engine, out = run(tmp_path_factory.mktemp("casts"), CASTS, 1)
    out["log"] = [e["message"] for e in engine.report().log]
    return out


def test_a_box_cast_down_stops_on_the_floor(casts: Any) -> None:
    hit = casts["straight"]
    assert hit["name"] == "Floor"
    assert hit["distance"] == pytest.approx(4.5, abs=1e-4)       # its bottom face meets the floor's top at y 0
    assert hit["fraction"] == pytest.approx(0.45, abs=1e-5)
    assert hit["y"] == pytest.approx(0.0, abs=1e-4) and hit["ny"] == pytest.approx(1.0, abs=1e-6)


def lowest(angle: float) -> float:
    """How far below its centre a unit box turned `angle` about Z reaches: Bullet rounds a box's edges by its
    margin and keeps its size; pybullet's margin is 0.001 (docs/physics.md: Urho3D's 0.04 is not applied)."""
    margin = 0.001
    return (0.5 - margin) * (abs(math.cos(angle)) + abs(math.sin(angle))) + margin


def test_the_cast_rotation_counts(casts: Any) -> None:
    # turned 45 degrees about Z, the box stands on an edge
    assert casts["tilted"]["distance"] == pytest.approx(5.0 - lowest(math.pi / 4), abs=1e-4)
    # turning from 0 to 45 degrees on the way down from 3 to 0.6: an edge touches where the centre's height
    # equals the reach below it
    turning = casts["turning"]
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if 3.0 - 2.4 * mid > lowest(math.pi / 4 * mid) else (lo, mid)
    assert turning["name"] == "Floor" and turning["fraction"] == pytest.approx(lo, abs=1e-4), (turning, lo)


def test_casts_find_walls_respect_the_mask_and_can_miss(casts: Any) -> None:
    wall = casts["wall"]
    assert wall["name"] == "Wall" and wall["distance"] == pytest.approx(5.25, abs=1e-4)
    assert wall["nz"] == pytest.approx(-1.0, abs=1e-6)
    assert casts["layer"]["name"] == ""               # layer 2 is not in mask 1
    assert casts["layer2"]["name"] == "Hidden" and casts["layer2"]["distance"] == pytest.approx(3.0, abs=1e-4)
    assert casts["miss"]["name"] == "" and casts["miss"]["distance"] == math.inf


def test_the_shape_offset_and_node_scale_apply(casts: Any) -> None:
    # a sphere of diameter 1, 1 below its node, scaled 2: radius 1, its centre 2 below the cast position
    assert casts["offset"]["name"] == "Floor"
    assert casts["offset"]["distance"] == pytest.approx(7.0, abs=1e-4)


def test_a_non_convex_shape_is_an_error_and_no_hit(casts: Any) -> None:
    assert casts["plane"]["name"] == ""
    assert "Can not use non-convex collision shape for convex cast" in casts["log"]


def test_a_sphere_cast_stops_at_the_wall(casts: Any) -> None:
    assert casts["sphere"]["name"] == "Wall"
    assert casts["sphere"]["distance"] == pytest.approx(8.25, abs=1e-4)   # its centre 0.5 before the face at 5.75


CCD = """
function Start()
  scene_ = Scene()
  world_ = scene_:CreateComponent("PhysicsWorld")
  world_.gravity = Vector3(0, 0, 0)
  local wall = body("Wall", Vector3(0, 0, 5), 0, "SetBox", Vector3(4, 4, 0.05))
  OUT.z = {}
  local shots = {}
  for i, setting in ipairs({{0, 0}, {0.05, 0.01}, {0.05, 10}}) do
    local n, b = body("Shot" .. i, Vector3((i - 2) * 1.2, 0, 0), 0.1, "SetSphere", 0.1)
    b.ccdRadius = setting[1]
    b.ccdMotionThreshold = setting[2]
    b.linearVelocity = Vector3(0, 0, 200)   -- 3.3 m a step: a 0.05 m wall is between two positions
    OUT.z[i], shots[i] = {}, b
  end
  SubscribeToEvent("PhysicsPostStep", function()
    for i, b in ipairs(shots) do OUT.z[i][#OUT.z[i] + 1] = b.position.z end
  end)
end
"""


def test_ccd_stops_a_fast_small_body_tunnelling_through_a_thin_wall(tmp_path_factory: pytest.TempPathFactory) -> None:
    _, out = run(tmp_path_factory.mktemp("ccd"), CCD, 6)
    plain, ccd, high_threshold = out["z"]
    assert plain[-1] > 10.0, plain                    # no CCD: through the wall
    assert high_threshold[-1] > 10.0, high_threshold  # moves of 3.3 m are under a 10 m threshold: no CCD
    assert max(ccd) < 5.0, ccd                        # CCD: stopped at the wall's near face
    assert ccd[-1] < 4.98, ccd
