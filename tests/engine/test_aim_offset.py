"""UrhoX's AimOffset: after the frame's animations, spine bones turn by their shares of the aim pitch and yaw,
clamped and smoothed, and the turn never accumulates (docs/animation.md, AimOffset)."""

from __future__ import annotations

import math

from engine.testing import lua, new_engine

GAME = """
function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  model_node = scene_:CreateChild("Mutant")
  local model = model_node:CreateComponent("AnimatedModel")
  model:SetModel(cache:GetResource("Model", "Models/Mutant/Mutant.mdl"))
  aim = model_node:CreateComponent("AimOffset")
  spine = model_node:GetChild("Mutant:Spine1", true)
  base = spine.worldRotation
end
"""


def angle_between(a: list[float], b: list[float]) -> float:
    dot = abs(sum(x * y for x, y in zip(a, b, strict=True)))
    return math.degrees(2 * math.acos(min(1.0, dot)))


def test_bones_turn_by_their_weights_clamped_without_accumulating() -> None:
    engine = new_engine(GAME, {})
    engine.start()
    out = lua("""
    aim:AddBone("Mutant:Spine1", 0.5, 0.25)
    aim:AddBone("Mutant:Spine2", 0.1)         -- one weight for both (a child: Spine1 does not see it)
    aim:AddBone("NoSuchBone", 1, 1)           -- not found: nothing to turn
    aim.maxPitch = 40
    aim:SetTargetAngles(60, 20)               -- pitch clamps to 40
    local q0 = {base.w, base.x, base.y, base.z}
    return {aim.numBones, aim.targetPitch, aim.maxPitch, aim.smoothSpeed, q0}
    """, engine)
    assert out[:4] == [3, 60, 40, 0]
    engine.run_frames(3)   # three frames: the turn is applied each frame from the same pose, never accumulated
    after = lua("local q = spine.worldRotation; return {q.w, q.x, q.y, q.z}", engine)
    # yaw 20 * 0.25 = 5 degrees about one axis, pitch 40 * 0.5 = 20 degrees about a perpendicular one: 20.61 in all
    turned = angle_between(out[4], after)
    expected = 2 * math.degrees(math.acos(math.cos(math.radians(10)) * math.cos(math.radians(2.5))))
    assert abs(turned - expected) < 0.01   # float rounding of the node's rotations
    lua("aim:SetTargetAngles(0, 0)", engine)
    engine.run_frames(1)
    back = lua("local q = spine.worldRotation; return {q.w, q.x, q.y, q.z}", engine)
    assert angle_between(out[4], back) < 1e-3


def test_smoothing_moves_part_of_the_way_each_frame_and_disabled_turns_nothing() -> None:
    engine = new_engine(GAME, {})
    engine.start()
    lua("aim:AddBone('Mutant:Spine1', 1, 0); aim.smoothSpeed = 6; aim.targetPitch = 30", engine)
    rest = lua("return {base.w, base.x, base.y, base.z}", engine)
    turns = []
    for _ in range(3):
        engine.run_frames(1)
        q = lua("local q = spine.worldRotation; return {q.w, q.x, q.y, q.z}", engine)
        turns.append(angle_between(rest, q))
    # each frame a tenth of the way (6 x 1/60): 3, 5.7, 8.13 degrees
    assert [round(t, 2) for t in turns] == [3.0, 5.7, 8.13]
    lua("aim.enabled = false", engine)
    engine.run_frames(1)
    still = lua("local q = spine.worldRotation; return {q.w, q.x, q.y, q.z, aim.enabled}", engine)
    assert still[4] is False and abs(angle_between(rest, still[:4]) - turns[-1]) < 1e-6


def test_bones_are_listed_and_bad_arguments_refused() -> None:
    engine = new_engine(GAME, {})
    engine.start()
    out = lua("""
    aim:AddBone("A", 0.5, 0.5); aim:AddBone("B", 0.2); aim:AddBone("A", 0.1, 0.3)   -- A again: new weights
    local n1 = aim.numBones
    aim:RemoveBone("A")
    local n2 = aim:GetNumBones()
    aim:ClearBones()
    local ok, err = pcall(function() aim:AddBone(5, "x") end)
    aim.yawCompensation = -10; aim.stabilize = true; aim.stabilizeParentCount = 2
    return {n1, n2, aim.numBones, ok, aim.yawCompensation, aim.stabilize, aim.stabilizeParentCount}
    """, engine)
    assert out == [2, 1, 0, False, -10, True, 2]
