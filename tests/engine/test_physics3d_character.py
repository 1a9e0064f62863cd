"""Kinematic characters over Bullet (engine/_bullet_character.py, 57_physics3d_character.lua): Urho3D's
KinematicCharacterController and UrhoX's CharacterComponent land, report on-ground, walk, climb a step, stop at a
wall, jump, and push a dynamic body."""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine.test_physics3d import run

KCC = """
function Start()
  floor()
  body("Step", Vector3(0, 0.15, 4), 0, "SetBox", Vector3(4, 0.3, 2))
  body("Wall", Vector3(0, 1, 8), 0, "SetBox", Vector3(4, 2, 0.2))
  crate = body("Crate", Vector3(-3, 0.5, 2), 1, "SetBox", Vector3(1, 1, 1))
  ball = body("Ball", Vector3(3, 4, 0), 1, "SetSphere", 0.5)
  ch = scene_:CreateChild("Char")
  ch.position = Vector3(0, 3, 0)
  ch:CreateComponent("CollisionShape"):SetCapsule(0.7, 1.8)
  kcc = ch:CreateComponent("KinematicCharacterController")
  pusher = scene_:CreateChild("Pusher")
  pusher.position = Vector3(-3, 0.9, 0)
  local head = scene_:CreateChild("Head")
  head.position = Vector3(3, 0.9, 0)
  head:CreateComponent("CollisionShape"):SetCapsule(0.7, 1.8)
  head:CreateComponent("KinematicCharacterController")
  pusher:CreateComponent("CollisionShape"):SetCapsule(0.7, 1.8)
  pk = pusher:CreateComponent("KinematicCharacterController")
  OUT.defaults = {kcc.stepHeight, kcc.jumpSpeed, kcc.fallSpeed, kcc.maxSlope, kcc.gravity.y, kcc.collisionMask}
  OUT.t = {}
  local frame = 0
  SubscribeToEvent("PhysicsPreStep", function()
    frame = frame + 1
    if frame > 60 and frame < 300 then kcc:SetWalkDirection(Vector3(0, 0, 3 / 60)) end
    if frame == 300 then kcc:SetWalkDirection(Vector3(0, 0, 0)) end
    if frame > 30 then pk:SetWalkDirection(Vector3(0, 0, 2 / 60)) end
    if frame == 330 then kcc:Jump() end
  end)
  SubscribeToEvent("PhysicsPostStep", function()
    local p = ch.position
    OUT.t[#OUT.t + 1] = {p.x, p.y, p.z, kcc:OnGround(), crate.position.z, kcc:GetLinearVelocity().y,
                         pusher.position.z, ball.position.y}
  end)
end
"""


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory) -> Any:
    _, out = run(tmp_path_factory.mktemp("kcc"), KCC, 420)
    return out


def test_urho3d_defaults(walk: Any) -> None:
    assert walk["defaults"] == [pytest.approx(0.4), 9, 55, 45, -14, 0xFFFF]


def test_it_falls_lands_at_its_half_height_and_reports_on_ground(walk: Any) -> None:
    t = walk["t"]
    assert t[0][3] is False and t[0][1] < 3.0           # falling from 3 m
    landed = next(i for i, row in enumerate(t) if row[3])
    # falling from 3 m at 14 m/s^2: 2.1 m takes about 0.55 s
    assert 25 <= landed <= 40, landed
    assert t[59][1] == pytest.approx(0.9, abs=0.01)     # a 1.8 m capsule stands with its centre 0.9 up
    assert all(row[3] for row in t[landed:100])


def test_it_walks_climbs_the_step_and_stops_at_the_wall(walk: Any) -> None:
    t = walk["t"]
    # 3 m/s: 0.05 m a step, less Bullet's linear damping 0.2
    assert t[100][2] - t[90][2] == pytest.approx(10 * 0.05 * 0.8 ** (1 / 60), abs=1e-3)
    on_step = [row for row in t if 3.5 < row[2] < 4.5]
    assert on_step and all(row[1] == pytest.approx(1.2, abs=0.01) for row in on_step)   # stepped up 0.3 m
    assert max(row[2] for row in t[:300]) < 8.0 - 0.1 - 0.35 + 0.01    # stopped by the wall's face
    assert t[299][1] == pytest.approx(0.9, abs=0.01)


def jump_peak(stance: float, speed: float = 9.0, gravity: float = 14.0, damping: float = 0.2) -> float:
    """Bullet's controller integrates a jump per step: the vertical speed damped, less gravity, capped by the jump
    speed; the rise is the sum of the steps while the speed is upward."""
    dt = 1.0 / 60.0
    v, y = speed, stance
    while True:
        v = min(v * (1.0 - damping) ** dt - gravity * dt, speed)
        if v <= 0.0:
            return y
        y += v * dt


def test_it_jumps_and_lands_again(walk: Any) -> None:
    t = walk["t"]
    rise = [row[1] for row in t[329:]]
    assert max(rise) == pytest.approx(jump_peak(0.9), abs=1e-6)
    assert t[335][3] is False and t[335][5] > 0
    assert t[-1][3] is True and t[-1][1] == pytest.approx(0.9, abs=0.01)


def test_a_character_blocks_bodies_and_stops_at_them(walk: Any) -> None:
    t = walk["t"]
    # Bullet's controller does not push bodies: its sweep stops it at the crate's face, which stays put
    assert max(row[6] for row in t) < 1.5 - 0.35 + 0.01 and t[-1][6] > 1.0
    assert t[-1][4] == pytest.approx(2.0, abs=1e-3)
    # its ghost is solid to bodies: a ball dropped on a standing character rests on its head (1.8 m up)
    assert t[-1][7] == pytest.approx(1.8 + 0.25, abs=0.02)


COMPONENT = """
function Start()
  floor()
  ch = scene_:CreateChild("Hero")
  ch.position = Vector3(0, 0.9, 0)
  ch:CreateComponent("CollisionShape"):SetCapsule(0.7, 1.8)
  hero = ch:CreateComponent("CharacterComponent")
  hero.walkSpeed = 2 / 60     -- distances per physics step: 2 and 4 m/s at 60 steps a second
  hero.runSpeed = 4 / 60
  OUT.t = {}
  local frame = 0
  SubscribeToEvent("Update", function()   -- input before the frame's physics, as games set it
    frame = frame + 1
    local c = hero.controls
    c:Set(1, frame > 10 and frame <= 70)             -- forward
    c:Set(8, frame > 70 and frame <= 100)            -- right
    c.yaw = 0
    hero.enableWalkMode = frame > 40 and frame <= 100
    c:Set(CTRL_RUN, frame > 55 and frame <= 70)      -- run held in walk mode: running again
    c:Set(16, frame == 110 or frame == 111)          -- jump, held two steps
  end)
  SubscribeToEvent("PhysicsPostStep", function()
    local p = ch.position
    OUT.t[#OUT.t + 1] = {p.x, p.y, p.z, hero.onGround, hero.moveSpeed, hero.moving, hero.jumping,
                         hero.jumpStarted, ch.rotation:YawAngle(), hero.localVelocityY, hero.smoothMoveSpeed}
  end)
end
"""


@pytest.fixture(scope="module")
def hero(tmp_path_factory: pytest.TempPathFactory) -> Any:
    _, out = run(tmp_path_factory.mktemp("hero"), COMPONENT, 210)
    return out["t"]


def test_the_component_runs_walks_and_turns_to_its_move(hero: Any) -> None:
    assert hero[5][3] is True and hero[5][5] is False      # standing
    assert hero[30][4] == pytest.approx(4.0, abs=0.01)     # running forward at runSpeed
    assert hero[30][9] == pytest.approx(4.0, abs=0.01)     # along its own forward
    assert hero[50][4] == pytest.approx(2.0, abs=0.01)     # walk mode
    assert hero[65][4] == pytest.approx(4.0, abs=0.01)     # walk mode, run held
    assert hero[60][2] > 1.5 and abs(hero[60][0]) < 1e-6
    assert hero[90][4] == pytest.approx(2.0, abs=0.01)     # walk mode, moving right
    assert hero[95][0] > 0.5 and hero[95][8] == pytest.approx(90.0, abs=1e-3)   # turned right, moving +X
    assert hero[105][5] is False


def test_the_component_jumps_once_per_press_and_lands(hero: Any) -> None:
    started = [i for i, row in enumerate(hero) if row[7]]
    # once, though the button was held two frames; the scene (made before the game's Update subscription) steps
    # before that handler runs, so frame 110's input reaches the step of frame 111, index 110
    assert started == [110]
    assert hero[115][6] is True and hero[115][3] is False and hero[115][1] > 1.0
    assert hero[-1][6] is False and hero[-1][3] is True and hero[-1][1] == pytest.approx(0.9, abs=0.01)
