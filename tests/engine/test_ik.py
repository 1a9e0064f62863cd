"""Inverse kinematics (engine/lua/runtime/64_ik.lua): IKSolver and IKEffector as Urho3D's IK module names and
orders them. Chains of plain nodes reach their targets (two-bone analytically, FABRIK iteratively), keep their bone
lengths, blend by weight, solve on SceneDrawableUpdateFinished or when asked, and the Jack walk of Urho3D's sample
45 keeps its feet on a tilted floor, the same to the bit on every run.

Expected values come from geometry (lengths, distances, the midpoint of a blend), never from the engine's output.
"""

from __future__ import annotations

import importlib.util
import math
import struct
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from engine.testing import engine_eval, lua, new_engine

REPO = Path(__file__).resolve().parents[2]

# A chain of nodes under "Root" (which holds the solver): joint i+1 sits (0, lengths[i], bend) from joint i, so the
# chain hangs up the Y axis, bent a little towards +Z.
CHAIN = """
function Start() end
function MakeChain(lengths, bend, octree)
  scene_ = Scene()
  if octree then scene_:CreateComponent("Octree") end
  root = scene_:CreateChild("Root")
  joints = {root:CreateChild("J1")}
  for i, length in ipairs(lengths) do
    local n = joints[i]:CreateChild("J" .. (i + 1))
    n.position = Vector3(0, length, bend)
    joints[i + 1] = n
  end
  effector = joints[#joints]:CreateComponent("IKEffector")
  solver = root:CreateComponent("IKSolver")
  return solver, effector
end
function Lengths()
  local out = {}
  for i = 1, #joints - 1 do out[i] = (joints[i + 1].worldPosition - joints[i].worldPosition):Length() end
  return out
end
function Tip() local p = joints[#joints].worldPosition; return {p.x, p.y, p.z} end
function Locals()
  local out = {}
  for i = 2, #joints do local p = joints[i].position; out[#out + 1] = {p.x, p.y, p.z} end
  return out
end
"""


def chain_engine() -> Engine:
    engine = new_engine(CHAIN)
    engine.start()
    return engine


def dist(a: list[float], b: list[float]) -> float:
    return math.dist(a, b)


def f32(x: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


# ------------------------------------------------------------------------------------------------ the API

def test_defaults_enums_and_clamps_are_urho3ds() -> None:
    engine = chain_engine()
    got = lua("""
      local s, e = MakeChain({1, 1}, 0.1)
      local before = {e.weight, e.rotationWeight, e.rotationDecay, e.chainLength, e.targetName, e.WEIGHT_NLERP}
      e.weight = 2; e.rotationWeight = -1; e.rotationDecay = 0.5; e.chainLength = 2
      return {s.algorithm, s.maximumIterations, s.tolerance, s.JOINT_ROTATIONS, s.TARGET_ROTATIONS,
              s.UPDATE_ORIGINAL_POSE, s.UPDATE_ACTIVE_POSE, s.USE_ORIGINAL_POSE, s.CONSTRAINTS, s.AUTO_SOLVE,
              IKSolver.ONE_BONE, IKSolver.TWO_BONE, IKSolver.FABRIK, IKSolver.JOINT_ROTATIONS,
              IKSolver.TARGET_ROTATIONS, IKSolver.UPDATE_ORIGINAL_POSE, IKSolver.UPDATE_ACTIVE_POSE,
              IKSolver.USE_ORIGINAL_POSE, IKSolver.CONSTRAINTS, IKSolver.AUTO_SOLVE,
              IKEffector.WEIGHT_NLERP, IKEffector.INHERIT_PARENT_ROTATION,
              before, {e.weight, e.rotationWeight, e.rotationDecay, e.chainLength}}
    """, engine)
    assert got[:10] == [2, 20, f32(0.001), True, False, False, True, False, False, True]
    assert got[10:22] == [0, 1, 2, 1, 2, 4, 8, 16, 32, 64, 1, 2]
    assert got[22] == [1.0, 1.0, 0.25, 0, "", False]
    assert got[23] == [1.0, 0.0, 0.5, 2]
    assert lua("solver.tolerance = 0; return solver.tolerance", engine) == f32(0.000001)
    with pytest.raises(Exception, match="SetAlgorithm"):
        lua("solver.algorithm = 7", engine)
    with pytest.raises(Exception, match=r"bad argument #1 to 'SetTargetPosition' \(Vector3 expected"):
        lua("effector.targetPosition = 3", engine)


def test_ik_constraint_is_bound_but_not_creatable_as_in_urho3d() -> None:
    engine = chain_engine()
    assert lua('return scene_ == nil and Scene():CreateChild("N"):CreateComponent("IKConstraint") == nil', engine)
    log = engine_eval(engine, "local out = {} for _, l in ipairs(E.state.log) do out[#out + 1] = l.message end "
                              "return out")
    assert "Could not create unknown component type IKConstraint" in log
    assert engine.report().missing_api == []


# ------------------------------------------------------------------------------------------------ two bones

def test_two_bone_reaches_a_reachable_target_keeping_lengths_and_bend() -> None:
    engine = chain_engine()
    lengths0, locals0 = lua("""
      local s, e = MakeChain({1.0, 0.8}, 0.1)
      s.algorithm = IKSolver.TWO_BONE   -- (puts the scene back in the solver's original pose, as Urho3D does)
      s.AUTO_SOLVE = false
      e.chainLength = 2
      joints[2].position = Vector3(0, 1.0, 0.3)    -- the knee bent towards +Z
      joints[3].position = Vector3(0, 0.8, -0.3)
      s:ApplySceneToOriginalPose()                  -- the pose joint rotations start from
      return {Lengths(), Locals()}
    """, engine)
    target = [0.3, 1.2, 0.4]
    lua(f"effector.targetPosition = Vector3({target[0]}, {target[1]}, {target[2]}); solver:Solve()", engine)
    assert dist(lua("return Tip()", engine), target) < 1e-12
    assert lua("return Lengths()", engine) == pytest.approx(lengths0, abs=1e-12)
    # joint rotations: each bone turned with its segment, so every child keeps its local offset
    flat = [c for p in lua("return Locals()", engine) for c in p]
    assert flat == pytest.approx([c for p in locals0 for c in p], abs=1e-12)
    # the knee stays on the side it was bent to (+Z of the line from the hip to the target)
    knee = lua("local p = joints[2].worldPosition; return {p.x, p.y, p.z}", engine)
    tx, ty, tz = target
    norm = math.sqrt(tx * tx + ty * ty + tz * tz)
    along = (knee[0] * tx + knee[1] * ty + knee[2] * tz) / norm
    off = [knee[i] - along * target[i] / norm for i in range(3)]
    assert off[2] > 0.0


@pytest.mark.parametrize("algorithm", ["TWO_BONE", "FABRIK"])
def test_an_unreachable_target_stretches_the_chain_towards_it(algorithm: str) -> None:
    engine = chain_engine()
    lengths0 = lua(f"""
      local s, e = MakeChain({{1.0, 0.8}}, 0.1)
      local before = Lengths()
      s.algorithm = IKSolver.{algorithm}
      s.AUTO_SOLVE = false
      e.chainLength = 2
      e.targetPosition = Vector3(3, 2, -1)
      s:Solve()
      return before
    """, engine)
    reach = sum(lengths0)
    assert lua("return Lengths()", engine) == pytest.approx(lengths0, abs=1e-9)
    tip = lua("return Tip()", engine)
    unit = [c / math.sqrt(14) for c in (3, 2, -1)]
    assert tip == pytest.approx([reach * u for u in unit], abs=1e-6)
    knee = lua("local p = joints[2].worldPosition; return {p.x, p.y, p.z}", engine)
    assert knee == pytest.approx([lengths0[0] * u for u in unit], abs=1e-6)


def test_one_bone_points_at_the_target_and_a_wrong_chain_is_refused() -> None:
    engine = chain_engine()
    tip = lua("""
      local s, e = MakeChain({2.0}, 0.0)
      s.algorithm = IKSolver.ONE_BONE
      s.AUTO_SOLVE = false
      e.chainLength = 1
      e.targetPosition = Vector3(5, 0, 0)
      s:Solve()
      return Tip()
    """, engine)
    assert tip == pytest.approx([2.0, 0.0, 0.0], abs=1e-12)
    # a chain of two bones under the one-bone solver: logged once, nothing moves
    before = lua("""
      local s, e = MakeChain({1.0, 1.0}, 0.0)
      s.algorithm = IKSolver.ONE_BONE
      s.AUTO_SOLVE = false
      e.chainLength = 2
      e.targetPosition = Vector3(1, 0, 0)
      local before = Tip()
      s:Solve(); s:Solve()
      return before
    """, engine)
    assert lua("return Tip()", engine) == before
    log = engine_eval(engine, "local out = {} for _, l in ipairs(E.state.log) do "
                              "if l.message:find('[IK]', 1, true) then out[#out + 1] = l.message end end return out")
    assert len(log) == 1 and "one-bone" in log[0]


# ------------------------------------------------------------------------------------------------ FABRIK

def test_fabrik_on_four_bones_converges_within_the_tolerance() -> None:
    engine = chain_engine()
    lengths0 = lua("""
      local s, e = MakeChain({0.5, 0.7, 0.6, 0.4}, 0.05)
      s.AUTO_SOLVE = false
      local before = Lengths()
      e.targetPosition = Vector3(0.9, 1.1, 0.6)
      s:Solve()
      return before
    """, engine)
    tolerance = f32(0.001)
    assert dist(lua("return Tip()", engine), [0.9, 1.1, 0.6]) <= tolerance
    assert lua("return Lengths()", engine) == pytest.approx(lengths0, abs=1e-9)
    iterations = engine_eval(engine, "return E.REC[G.solver].iterations")
    assert 1 <= iterations < 20
    # one iteration is not enough from the rest pose; the tolerance is what stops it
    far = lua("""
      local s, e = MakeChain({0.5, 0.7, 0.6, 0.4}, 0.05)
      s.AUTO_SOLVE = false
      s.maximumIterations = 1
      e.targetPosition = Vector3(0.9, 1.1, 0.6)
      s:Solve()
      return Tip()
    """, engine)
    assert dist(far, [0.9, 1.1, 0.6]) > tolerance


def test_fabrik_solves_two_effectors_that_share_a_spine() -> None:
    engine = chain_engine()
    tips = lua("""
      scene_ = Scene()
      local root = scene_:CreateChild("Root")
      local spine = root:CreateChild("Spine"); spine.position = Vector3(0, 1, 0)
      local ends = {}
      for i, side in ipairs({-1, 1}) do
        local a = spine:CreateChild("Arm" .. i); a.position = Vector3(0.2 * side, 0.5, 0)
        local b = a:CreateChild("Hand" .. i); b.position = Vector3(0.6 * side, 0, 0)
        ends[i] = b:CreateComponent("IKEffector")
      end
      local s = root:CreateComponent("IKSolver")
      s.AUTO_SOLVE = false
      s.maximumIterations = 100
      ends[1].targetPosition = Vector3(-0.6, 1.9, 0.3)
      ends[2].targetPosition = Vector3(0.6, 1.9, 0.3)
      s:Solve()
      local out = {}
      for i, e in ipairs(ends) do
        local p = e.node.worldPosition
        out[i] = {p.x, p.y, p.z, (e.node.worldPosition - e.node.parent.worldPosition):Length(),
                  (e.node.parent.worldPosition - spine.worldPosition):Length()}
      end
      return out
    """, engine)
    for tip, x in zip(tips, (-0.6, 0.6), strict=True):
        assert dist(tip[:3], [x, 1.9, 0.3]) < 0.01
        assert tip[3] == pytest.approx(0.6, abs=1e-9)
        assert tip[4] == pytest.approx(math.hypot(0.2, 0.5), abs=1e-9)


def test_target_rotations_turn_the_last_bone_towards_the_targets_forward() -> None:
    engine = chain_engine()
    code = """
      local s, e = MakeChain({0.6, 0.6, 0.6}, 0.05)
      s.AUTO_SOLVE = false
      s.TARGET_ROTATIONS = %s
      s.maximumIterations = 50
      e.targetPosition = Vector3(0.8, 1.0, 0.3)
      e.targetRotation = Quaternion(Vector3(0, 0, 1), Vector3(1, 0, 0))   -- forward along +X
      s:Solve()
      local d = (joints[4].worldPosition - joints[3].worldPosition):Normalized()
      return {d.x, (joints[4].worldPosition - Vector3(0.8, 1.0, 0.3)):Length()}
    """
    plain, turned = lua(code % "false", engine), lua(code % "true", engine)
    assert plain[1] <= f32(0.001) and turned[1] <= f32(0.001)
    assert turned[0] > plain[0]   # the last bone points more along the target's forward (+X)


@pytest.mark.parametrize("algorithm", ["TWO_BONE", "FABRIK"])
def test_weight_one_half_blends_halfway_from_the_original_pose(algorithm: str) -> None:
    engine = chain_engine()
    start = lua(f"""
      local s, e = MakeChain({{1.0, 0.8}}, 0.1)
      s.algorithm = IKSolver.{algorithm}
      s.AUTO_SOLVE = false
      e.chainLength = 2
      e.weight = 0.5
      e.targetPosition = Vector3(0.4, 1.0, 0.5)
      return Tip()
    """, engine)
    lua("solver:Solve()", engine)
    half = [(s + t) / 2 for s, t in zip(start, [0.4, 1.0, 0.5], strict=True)]
    assert dist(lua("return Tip()", engine), half) <= f32(0.001)


def test_without_joint_rotations_bones_keep_their_world_rotation() -> None:
    engine = chain_engine()
    before = lua("""
      local s, e = MakeChain({1.0, 0.8}, 0.1)
      joints[1].rotation = Quaternion(10, 20, 30)
      s.algorithm = IKSolver.TWO_BONE
      s.AUTO_SOLVE = false
      s.JOINT_ROTATIONS = false
      e.chainLength = 2
      e.targetPosition = Vector3(0.3, 1.2, 0.4)
      local r = joints[1].worldRotation
      return {r.w, r.x, r.y, r.z}
    """, engine)
    lua("solver:Solve()", engine)
    after = lua("local r = joints[1].worldRotation; return {r.w, r.x, r.y, r.z}", engine)
    assert after == pytest.approx(before, abs=1e-12)
    assert dist(lua("return Tip()", engine), [0.3, 1.2, 0.4]) < 1e-9


# ------------------------------------------------------------------------------------------------ when it solves

def test_auto_solve_runs_each_frame_after_the_octree_and_manual_solve_only_when_asked() -> None:
    engine = chain_engine()
    lua("""
      MakeChain({1.0, 0.8}, 0.1, true)
      effector.targetPosition = Vector3(0.3, 1.2, 0.4)
      seen = {}
      SubscribeToEvent("SceneDrawableUpdateFinished", function(_, data)
        seen[#seen + 1] = {data["Scene"]:GetPtr() == scene_, data["TimeStep"]:GetFloat()}
      end)
    """, engine)
    assert dist(lua("return Tip()", engine), [0.3, 1.2, 0.4]) > 0.1   # nothing before a frame
    engine.run_frames(1)
    assert dist(lua("return Tip()", engine), [0.3, 1.2, 0.4]) <= f32(0.001)
    assert lua("return seen", engine) == [[True, pytest.approx(1 / 60)]]
    lua("effector.targetPosition = Vector3(-0.2, 1.1, 0.5)", engine)
    engine.run_frames(1)
    assert dist(lua("return Tip()", engine), [-0.2, 1.1, 0.5]) <= f32(0.001)

    # AUTO_SOLVE off: frames leave the chain alone until Solve()
    lua("""
      MakeChain({1.0, 0.8}, 0.1, true)
      solver.AUTO_SOLVE = false
      effector.targetPosition = Vector3(0.3, 1.2, 0.4)
    """, engine)
    engine.run_frames(3)
    assert dist(lua("return Tip()", engine), [0.3, 1.2, 0.4]) > 0.1
    lua("solver:Solve()", engine)
    assert dist(lua("return Tip()", engine), [0.3, 1.2, 0.4]) <= f32(0.001)

    # without an octree there is no SceneDrawableUpdateFinished, so nothing solves itself (as in Urho3D)
    lua("MakeChain({1.0, 0.8}, 0.1, false); effector.targetPosition = Vector3(0.3, 1.2, 0.4)", engine)
    engine.run_frames(2)
    assert dist(lua("return Tip()", engine), [0.3, 1.2, 0.4]) > 0.1


def test_a_target_node_is_followed_and_a_target_name_is_looked_up() -> None:
    engine = chain_engine()
    lua("""
      MakeChain({1.0, 0.8}, 0.1, true)
      goal = scene_:CreateChild("Goal")
      goal.position = Vector3(0.3, 1.2, 0.4)
      effector.targetName = "Goal"
    """, engine)
    engine.run_frames(1)
    assert lua("return effector.targetNode == goal", engine) is True
    assert dist(lua("return Tip()", engine), [0.3, 1.2, 0.4]) <= f32(0.001)
    lua("goal.position = Vector3(-0.3, 1.0, 0.6)", engine)
    engine.run_frames(1)
    assert dist(lua("return Tip()", engine), [-0.3, 1.0, 0.6]) <= f32(0.001)
    assert lua("local p = effector.targetPosition; return {p.x, p.y, p.z}", engine) == pytest.approx(
        [-0.3, 1.0, 0.6])


def test_removing_the_solver_puts_the_original_pose_back() -> None:
    engine = chain_engine()
    before = lua("""
      MakeChain({1.0, 0.8}, 0.1, true)
      effector.targetPosition = Vector3(0.3, 1.2, 0.4)
      return Tip()
    """, engine)
    engine.run_frames(1)
    assert dist(lua("return Tip()", engine), before) > 0.1
    lua("solver:Remove()", engine)
    assert lua("return Tip()", engine) == pytest.approx(before, abs=1e-12)


# ------------------------------------------------------------------------------------------------ sample 45

# Urho3D's sample 45 in our own words: Jack walks on a floor the player can tilt; each SceneDrawableUpdateFinished
# the feet are raycast onto the floor, the effectors aimed there, the feet turned to the floor's normal and the
# two-bone solver on the spine run by hand.
JACK = """
require "LuaScripts/Utilities/Sample"

function Start()
  SampleStart()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  scene_:CreateComponent("DebugRenderer")
  scene_:CreateComponent("PhysicsWorld")
  floor = scene_:CreateChild("Floor")
  floor.scale = Vector3(50, 1, 50)
  floor.rotation = Quaternion(12, 0, -8)
  floor:CreateComponent("RigidBody")
  floor:CreateComponent("CollisionShape"):SetBox(Vector3(1, 0.2, 1))   -- thick enough that no ray slips by
  jack = scene_:CreateChild("Jack")
  jack.rotation = Quaternion(0, 270, 0)
  jack:CreateComponent("AnimatedModel").model = cache:GetResource("Model", "Models/Jack.mdl")
  jack:CreateComponent("AnimationController"):PlayExclusive("Models/Jack_Walk.ani", 0, true, 0)
  feet = {jack:GetChild("Bip01_L_Foot", true), jack:GetChild("Bip01_R_Foot", true)}
  effectors = {}
  for i, foot in ipairs(feet) do
    effectors[i] = foot:CreateComponent("IKEffector")
    effectors[i].chainLength = 2
  end
  solver = jack:GetChild("Bip01_Spine", true):CreateComponent("IKSolver")
  solver.algorithm = IKSolver.TWO_BONE
  solver.AUTO_SOLVE = false
  solver.UPDATE_ORIGINAL_POSE = true
  OUT = {frames = {}, misses = 0}
  SubscribeToEvent("SceneDrawableUpdateFinished", "Ground")
  SubscribeToEvent("PostRenderUpdate", function() solver:DrawDebugGeometry(false) end)
end

function Ground()
  local world = scene_:GetComponent("PhysicsWorld")
  for i, foot in ipairs(feet) do
    local p = foot.worldPosition
    local hit = world:RaycastSingle(Ray(p + Vector3(0, 1, 0), Vector3(0, -1, 0)), 2)
    if hit.body then
      hit = world:RaycastSingle(Ray(p + hit.normal, hit.normal * -1), 2)
      local offset = foot.worldPosition.y - jack.worldPosition.y
      effectors[i].targetPosition = hit.position + hit.normal * offset
      foot:Rotate(Quaternion(Vector3(0, 1, 0), hit.normal), TS_WORLD)
    else
      OUT.misses = OUT.misses + 1
    end
  end
  solver:Solve()
  local row = {}
  for i, foot in ipairs(feet) do
    local calf, thigh = foot.parent, foot.parent.parent
    local p, r = foot.worldPosition, foot.worldRotation
    local t = effectors[i].targetPosition
    row[i] = {p.x, p.y, p.z, r.w, r.x, r.y, r.z, (p - t):Length(),
              (p - calf.worldPosition):Length(), (calf.worldPosition - thigh.worldPosition):Length()}
  end
  OUT.frames[#OUT.frames + 1] = row
end
"""


def jack_run(frames: int) -> Any:
    engine = new_engine(JACK)
    engine.start()
    engine.run_frames(frames)
    assert engine.report().outcome == "clean"
    assert engine.report().missing_api == []
    return lua("return OUT", engine)


def test_jack_keeps_his_feet_on_a_tilted_floor_with_his_legs_whole() -> None:
    out = jack_run(90)
    assert out["misses"] == 0 and len(out["frames"]) == 90
    first = out["frames"][0]
    for row in out["frames"]:
        for foot, rest in zip(row, first, strict=True):
            assert foot[7] < 1e-9                                # at its target
            assert foot[8] == pytest.approx(rest[8], abs=1e-9)   # the calf keeps its length
            assert foot[9] == pytest.approx(rest[9], abs=1e-9)   # and the thigh


def test_the_solution_is_the_same_to_the_bit_on_every_run() -> None:
    assert jack_run(60) == jack_run(60)


def _load_conformance() -> Any:
    spec = importlib.util.spec_from_file_location("bench_conformance_ik", REPO / "bench" / "conformance.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_sample_45_flow_runs_clean_for_thirty_seconds(tmp_path: Path) -> None:
    (tmp_path / "45_InverseKinematics.lua").write_text(JACK)
    [result] = list(_load_conformance().run_all([tmp_path], seconds=30.0))
    assert result["outcome"] == "clean", result
    assert result["frames"] == 1800
