"""UrhoX's AnimationStateMachine on the stock Mutant model: parameters (clamping, triggers, the shared context),
.fsm and .blendspace files read as JSONFile resources, transitions per frame (priority, ties in file order, exitTime,
blend times), the condition language and its errors, 1D and polar 2D blend weights, layers, bone masks and
ForceState, all through the AnimationController the machine plays on.

The machine updates on its scene's SceneUpdate, before the controller's ScenePostUpdate: a parameter set between
frames takes effect in the next frame. One frame is 1/60 s; expected times are accumulated in single precision, as
the engine keeps them, and blend weights are computed here from the blend spaces' definitions.
"""

from __future__ import annotations

import struct

from engine import Engine
from engine.testing import lua, new_engine

STEP = 1 / 60
MUTANT = "Models/Mutant/"
IDLE, WALK, RUN = MUTANT + "Mutant_Idle0.ani", MUTANT + "Mutant_Walk.ani", MUTANT + "Mutant_Run.ani"
JUMP, LAND, PUNCH = MUTANT + "Mutant_Jump.ani", MUTANT + "Mutant_JumpStop.ani", MUTANT + "Mutant_Punch.ani"
WAVE = MUTANT + "Layer/Mutant_Wave_LY.ani"
RIGHT, LEFT, BACK = MUTANT + "Mutant_Idle1.ani", MUTANT + "Mutant_HipHop1.ani", MUTANT + "Mutant_Swipe.ani"

HERO_FSM = """{
  "name": "Hero",
  "defaultBlendTime": 0.25,
  "_animationPaths": {"ignored": "a comment field"},
  "boneMasks": {"Upper": {"startBone": "Mutant:Spine1"}, "Arms": {"bones": ["Mutant:LeftArm", "Mutant:RightArm"]}},
  "parameters": {
    "speed": {"type": "float", "default": 0.0, "min": 0.0, "max": 5.0},
    "grounded": {"type": "bool", "default": true},
    "mode": {"type": "int", "default": 0, "min": 0, "max": 3},
    "jump": {"type": "trigger"},
    "wave": {"type": "trigger"}
  },
  "layers": [
    {
      "name": "Base",
      "defaultState": "Idle",
      "states": {
        "Idle": {"animation": "Models/Mutant/Mutant_Idle0.ani", "loop": true},
        "Walk": {"blendSpace": "FSM/Move.blendspace", "loop": true, "blendTime": 0.4},
        "Jump": {"animation": "Models/Mutant/Mutant_Jump.ani", "loop": false, "blendTime": 0.1},
        "Land": {"animation": "Models/Mutant/Mutant_JumpStop.ani", "blendOutTime": 0.05},
        "Attack": {"animation": "Models/Mutant/Mutant_Punch.ani", "speed": 2.0}
      },
      "transitions": [
        {"from": "Idle", "to": "Walk", "condition": "speed > 0.5"},
        {"from": "Walk", "to": "Idle", "condition": "speed <= 0.5", "blendTime": 0.3},
        {"from": "*", "to": "Jump", "condition": "jump", "priority": 10},
        {"from": "Jump", "to": "Land", "condition": "grounded and stateTime > 0.5", "priority": 1},
        {"from": "Jump", "to": "Idle", "condition": "grounded", "priority": 1},
        {"from": ["Land", "Attack"], "to": "Idle", "condition": "true", "exitTime": 0.5},
        {"from": "Idle", "to": "Attack", "condition": "mode == 2 or (clamp(speed, 0.2, 0.4) == speed and not grounded)",
         "priority": 3}
      ]
    },
    {
      "name": "Upper",
      "defaultState": "Empty",
      "boneMask": "Upper",
      "weight": 0.5,
      "states": {
        "Empty": {"empty": true},
        "Wave": {"animation": "Models/Mutant/Layer/Mutant_Wave_LY.ani", "loop": true, "blendTime": 0.2},
        "Reach": {"animation": "Models/Mutant/Mutant_Punch.ani", "boneMask": "Arms"}
      },
      "transitions": [
        {"from": "Empty", "to": "Wave", "condition": "wave or jump"},
        {"from": "Wave", "to": "Empty", "condition": "wave"},
        {"from": "Empty", "to": "Reach", "condition": "mode == 3"}
      ]
    }
  ]
}"""

MOVE_1D = """{"type": "BlendSpace1D", "name": "Move", "parameter": "speed", "points": [
  {"value": 0.5, "animation": "Models/Mutant/Mutant_Idle0.ani", "speed": 1.0},
  {"value": 2, "animation": "Models/Mutant/Mutant_Walk.ani", "speed": 1.0},
  {"value": 4.5, "animation": "Models/Mutant/Mutant_Run.ani", "speed": 1.5}]}"""

POLAR = """{"type": "BlendSpace2D", "name": "Polar", "mode": "polar", "parameterX": "dir", "parameterY": "speed",
  "points": [
    {"x": 0, "y": 0, "animation": "Models/Mutant/Mutant_Idle0.ani"},
    {"x": 0, "y": 2, "animation": "Models/Mutant/Mutant_Walk.ani"},
    {"x": 0, "y": 5, "animation": "Models/Mutant/Mutant_Run.ani"},
    {"x": 90, "y": 2, "animation": "Models/Mutant/Mutant_Idle1.ani"},
    {"x": -90, "y": 2, "animation": "Models/Mutant/Mutant_HipHop1.ani"},
    {"x": 180, "y": 2, "animation": "Models/Mutant/Mutant_Swipe.ani"},
    {"x": -180, "y": 2, "animation": "Models/Mutant/Mutant_Swipe.ani"}]}"""

POLAR_FSM = """{"parameters": {"dir": {"type": "float", "min": -360, "max": 360}, "speed": {"type": "float"}},
  "layers": [{"name": "Base", "defaultState": "Move",
              "states": {"Move": {"blendSpace": "FSM/Polar.blendspace", "loop": true}}}]}"""

FILES = {"FSM/Hero.fsm": HERO_FSM, "FSM/Move.blendspace": MOVE_1D, "FSM/Polar.blendspace": POLAR,
         "FSM/Polar.fsm": POLAR_FSM}

MAIN = """
function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  node = scene_:CreateChild("Hero")
  node:CreateComponent("AnimatedModel").model = cache:GetResource("Model", "Models/Mutant/Mutant.mdl")
  ctrl = node:CreateComponent("AnimationController")
  fsm = node:CreateComponent("AnimationStateMachine")
  loaded = fsm:LoadFromJSONFile(cache:GetResource("JSONFile", "FSM/%s"))
  fsm:Start()
end
"""


def f32(x: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


def played(frames: int) -> float:
    t = 0.0
    for _ in range(frames):
        t = f32(t + f32(STEP))
    return t


def hero(fsm: str = "Hero.fsm") -> Engine:
    engine = new_engine(MAIN % fsm, FILES)
    engine.start()
    return engine


def state(engine: Engine, layer: int = 0) -> list:
    return lua(f"return {{fsm:GetCurrentState({layer}), fsm:GetPreviousState({layer}), fsm:IsTransitioning({layer})}}",
               engine)


def targets(engine: Engine, names: list[str]) -> list[float]:
    return [lua(f'return ctrl:GetFadeTarget("{n}")', engine) for n in names]


def blend_frames(blend: float) -> int:
    """Updates until a blend of `blend` seconds is over, counted down in single precision."""
    left, k = f32(blend), 0
    while left > 0.0:
        left = f32(max(left - f32(STEP), 0.0))
        k += 1
    return k


def errors(engine: Engine) -> list[str]:
    return [e["message"] for e in engine.report().log if e["level"] in ("ERROR", "WARNING")]


def test_parameters_clamp_convert_and_share_one_context() -> None:
    engine = hero()
    out = lua("""
    local o = {loaded, fsm.name, fsm.numLayers, fsm:GetFloat("speed"), fsm:GetBool("grounded"), fsm:GetInt("mode")}
    fsm:SetFloat("speed", 9.5); o[#o + 1] = fsm:GetFloat("speed")
    fsm:SetFloat("speed", -1); o[#o + 1] = fsm:GetFloat("speed")
    fsm:SetFloat("speed", 0.3); o[#o + 1] = fsm:GetFloat("speed")
    fsm:SetInt("mode", 2.9); o[#o + 1] = fsm:GetInt("mode")
    fsm:SetInt("mode", 7); o[#o + 1] = fsm:GetInt("mode")
    fsm:SetFloat("mode", -2.5); o[#o + 1] = fsm:GetInt("mode")
    fsm:SetInt("mode", 0)
    fsm:SetBool("grounded", false); o[#o + 1] = fsm:GetBool("grounded")
    fsm:SetFloat("nope", 1); fsm:SetFloat("nope", 2); o[#o + 1] = fsm:GetFloat("nope")
    fsm:DefineFloat("lean", 0.5, -1, 1); fsm:DefineInt("ammo", 30); fsm:DefineBool("armed"); fsm:DefineTrigger("t")
    fsm:SetFloat("lean", 3); o[#o + 1] = fsm:GetFloat("lean"); o[#o + 1] = fsm:GetInt("ammo")
    o[#o + 1] = fsm:GetBool("armed")
    local ctx = fsm.parameterContext
    o[#o + 1] = {ctx:HasParameter("lean"), ctx:HasParameter("zzz"), ctx:GetFloat("speed"), ctx:IsTriggerActivated("t")}
    ctx:SetTrigger("t"); ctx:SetFloat("speed", 4)
    o[#o + 1] = {ctx:IsTriggerActivated("t"), fsm:GetBool("t"), fsm:GetFloat("speed"), ctx:GetValue("ammo"):GetInt()}
    ctx:ResetTriggers(); o[#o + 1] = fsm:GetBool("t")
    ctx:ResetToDefaults(); o[#o + 1] = {fsm:GetFloat("speed"), fsm:GetFloat("lean"), fsm:GetBool("grounded")}
    return o
    """, engine)
    assert out == [True, "Hero", 2, 0.0, True, 0, 5.0, 0.0, f32(0.3), 2, 3, 0, False, 0.0, 1.0, 30, False,
                   [True, False, f32(0.3), False], [True, True, 4.0, 30], False, [0.0, 0.5, True]]
    assert errors(engine) == ["AnimationStateMachine::SetFloat: parameter 'nope' is not defined"]


def test_transitions_fire_on_the_frame_after_the_parameter_changes() -> None:
    engine = hero()
    assert state(engine) == ["Idle", "", False]
    assert lua(f'return {{ctrl:IsPlaying("{IDLE}"), ctrl:GetLayer("{IDLE}"), ctrl:IsLooped("{IDLE}")}}',
               engine) == [True, 0, True]
    engine.run_frames(3)
    assert lua("return fsm:GetStateTime(0)", engine) == played(3)
    lua('fsm:SetFloat("speed", 0.5)', engine)   # not above 0.5: stays
    engine.run_frames(1)
    assert state(engine) == ["Idle", "", False]
    lua('fsm:SetFloat("speed", 1.25)', engine)
    engine.run_frames(1)
    # Walk has no transition blend time: the state's own 0.4 s
    assert state(engine) == ["Walk", "Idle", True]
    assert lua("return {fsm:GetStateTime(), fsm:IsInState('Walk'), fsm:IsInState('Walk', 1)}", engine) == [
        0.0, True, False]
    # entering Walk plays its blend space: speed 1.25 lies halfway between the Idle (0.5) and Walk (2) points, and
    # Idle keeps half its weight (the blend space plays it too)
    assert targets(engine, [IDLE, WALK, RUN]) == [0.5, 0.5, 0.0]
    assert lua(f'return {{ctrl:GetFadeTime("{WALK}"), ctrl:GetSpeed("{RUN}")}}', engine) == [f32(0.4), 1.5]
    k = blend_frames(0.4)
    assert k in (24, 25)
    engine.run_frames(k - 1)
    assert lua("return fsm:IsTransitioning()", engine) is True
    engine.run_frames(1)
    assert lua("return fsm:IsTransitioning()", engine) is False
    lua('fsm:SetFloat("speed", 0.1)', engine)
    engine.run_frames(1)
    assert state(engine) == ["Idle", "Walk", True]
    # leaving the blend space: its other animations fade out over the transition's 0.3 s
    assert targets(engine, [IDLE, WALK, RUN]) == [1.0, 0.0, 0.0]
    assert lua(f'return {{ctrl:GetFadeTime("{WALK}"), ctrl:GetFadeTime("{IDLE}")}}', engine) == [f32(0.3), f32(0.3)]


def test_triggers_priorities_ties_and_exit_time() -> None:
    engine = hero()
    lua('fsm:SetBool("grounded", false); fsm:SetFloat("speed", 0.3); fsm:SetTrigger("jump")', engine)
    assert lua('return fsm:GetBool("jump")', engine) is True
    engine.run_frames(1)
    # the priority-10 "*" transition wins over Idle -> Attack (which holds too); the trigger is consumed by it
    assert state(engine) == ["Jump", "Idle", True]
    assert lua(f'return {{fsm:GetBool("jump"), ctrl:GetFadeTime("{JUMP}"), ctrl:IsLooped("{JUMP}")}}', engine) == [
        False, f32(0.1), False]
    # "*" never re-enters the state it leads to; a trigger no transition takes is cleared after one update
    lua('fsm:SetTrigger("jump")', engine)
    engine.run_frames(1)
    assert lua('return {fsm:GetCurrentState(), fsm:GetStateTime(), fsm:GetBool("jump")}', engine) == [
        "Jump", played(1), False]
    # grounded after more than 0.5 s: both priority-1 transitions hold, the one declared first (Land) fires
    k = next(k for k in range(1, 60) if played(k) > 0.5)
    engine.run_frames(k - 2)
    lua('fsm:SetBool("grounded", true)', engine)
    engine.run_frames(1)
    assert state(engine) == ["Land", "Jump", True]
    # Land -> Idle waits for the exit time: half of JumpStop's 0.6 s
    length = f32(0.6)
    exit_frame = next(k for k in range(1, 100) if played(k) / length >= 0.5)
    engine.run_frames(exit_frame - 1)
    assert lua("return {fsm:GetCurrentState(), fsm:GetNormalizedTime()}", engine) == [
        "Land", played(exit_frame - 1) / length]
    engine.run_frames(1)
    # Land's blendOutTime fades it out; the default blend time fades Idle in
    assert state(engine) == ["Idle", "Land", True]
    assert lua(f'return {{ctrl:GetFadeTime("{LAND}"), ctrl:GetFadeTime("{IDLE}")}}', engine) == [f32(0.05), 0.25]


def test_grounded_before_half_a_second_takes_the_later_tie_and_functions_work() -> None:
    engine = hero()
    lua('fsm:SetBool("grounded", false); fsm:SetTrigger("jump")', engine)
    engine.run_frames(2)
    lua('fsm:SetBool("grounded", true)', engine)
    engine.run_frames(1)
    assert state(engine) == ["Idle", "Jump", True]
    # clamp() in a condition: speed 0.3 (inside [0.2, 0.4]) while airborne goes Idle -> Attack
    lua('fsm:SetFloat("speed", 0.3); fsm:SetBool("grounded", false)', engine)
    engine.run_frames(1)
    assert state(engine) == ["Attack", "Idle", True]
    # Attack plays Punch at twice its speed: normalized time over 1.1 s at rate 2, exit at 0.5
    assert lua(f'return ctrl:GetSpeed("{PUNCH}")', engine) == 2.0
    engine.run_frames(16)
    assert lua("return fsm:GetNormalizedTime()", engine) == played(16) * 2 / f32(1.1)
    assert lua("return fsm:IsAnimationFinished()", engine) is False
    engine.run_frames(1)   # 17 frames: 0.2833 s * 2 / 1.1 > 0.5
    assert lua("return fsm:GetCurrentState()", engine) == "Idle"


def test_blend_space_1d_weights_follow_the_parameter() -> None:
    engine = hero()
    lua('fsm:SetFloat("speed", 1); fsm:ForceState("Walk")', engine)
    t1, t3 = (1.0 - 0.5) / (2 - 0.5), (3.0 - 2) / (4.5 - 2)
    cases = [(0.75, [1 - (0.75 - 0.5) / 1.5, (0.75 - 0.5) / 1.5, 0]), (1.0, [1 - t1, t1, 0]), (2.0, [0, 1, 0]),
             (3.0, [0, 1 - t3, t3]), (4.5, [0, 0, 1]), (9.0, [0, 0, 1])]
    for speed, expected in cases:
        lua(f'fsm:SetFloat("speed", {speed}); fsm:Update(0)', engine)
        assert lua("return fsm:GetCurrentState()", engine) == "Walk"
        assert targets(engine, [IDLE, WALK, RUN]) == [f32(w) for w in expected], speed
    # below 0.5 the Walk -> Idle transition leaves the blend space
    lua('fsm:SetFloat("speed", 0.5); fsm:Update(0)', engine)
    assert state(engine) == ["Idle", "Walk", True]
    lua('fsm:ForceState("Walk")', engine)
    # the layer's weight scales every animation of the layer
    lua('fsm:SetFloat("speed", 3); fsm:Update(0); fsm:SetLayerWeight(0, 0.5)', engine)
    assert targets(engine, [IDLE, WALK, RUN]) == [0.0, f32(0.5 * (1 - t3)), f32(0.5 * t3)]
    assert lua("return {fsm:GetLayerWeight(0), fsm:GetLayerWeight(1), fsm:GetLayerWeight(7)}", engine) == [
        0.5, 0.5, 0.0]
    # normalized time follows the heaviest animation (Walk, at rate 1)
    walk_length = lua(f'return cache:GetResource("Animation", "{WALK}").length', engine)
    lua("fsm:Update(0.25)", engine)
    assert lua("return fsm:GetNormalizedTime()", engine) == f32(0.25) / walk_length


def test_polar_blend_space_weights() -> None:
    engine = hero("Polar.fsm")
    names = [IDLE, WALK, RUN, RIGHT, LEFT, BACK]
    cases = [
        ((0, 0), [1, 0, 0, 0, 0, 0]),
        ((45, 2), [0, 0.5, 0, 0.5, 0, 0]),
        ((45, 1), [0.5, 0.25, 0, 0.25, 0, 0]),
        ((0, 3.5), [0, 0.5, 0.5, 0, 0, 0]),
        ((-135, 2), [0, 0, 0, 0, 0.5, 0.5]),
        ((180, 4), [0, 0, 0, 0, 0, 1]),
        ((-180, 2), [0, 0, 0, 0, 0, 1]),
        ((190, 2), [0, 0, 0, 0, 1 / 9, 8 / 9]),
        ((30, 5), [0, 0, 2 / 3, 1 / 3, 0, 0]),   # 90 deg has no point at radius 5: it clamps at 2
        ((-30, 3.5), [0, 1 / 3, 1 / 3, 0, 1 / 3, 0]),
    ]
    for (direction, speed), expected in cases:
        lua(f'fsm:SetFloat("dir", {direction}); fsm:SetFloat("speed", {speed}); fsm:Update(0)', engine)
        got = targets(engine, names)
        assert got == [f32(w) for w in expected], (direction, speed, got)


def test_layers_bone_masks_and_a_trigger_two_layers_read() -> None:
    engine = hero()
    assert state(engine, 1) == ["Empty", "", False]
    assert lua('return ctrl:GetNumAnimations()', engine) == 1   # the empty state plays nothing
    lua('fsm:SetTrigger("jump")', engine)
    engine.run_frames(1)
    # the base layer's "*" -> Jump consumes the trigger before the upper layer is evaluated
    assert [state(engine, 0)[0], state(engine, 1)[0]] == ["Jump", "Empty"]
    lua('fsm:SetTrigger("wave")', engine)
    engine.run_frames(1)
    assert state(engine, 1) == ["Wave", "Empty", True]
    out = lua(f"""local n = "{WAVE}"
      return {{ctrl:GetLayer(n), ctrl:GetFadeTarget(n), ctrl:GetFadeTime(n), ctrl:GetStartBoneName(n)}}""", engine)
    assert out == [1, 0.5, f32(0.2), "Mutant:Spine1"]
    lua("fsm:SetLayerWeight(1, 0.2)", engine)
    assert lua(f'return ctrl:GetFadeTarget("{WAVE}")', engine) == f32(0.2)
    # the same trigger, set again, takes the Wave -> Empty transition
    lua('fsm:SetTrigger("wave")', engine)
    engine.run_frames(1)
    assert state(engine, 1) == ["Empty", "Wave", True]
    assert lua(f'return ctrl:GetFadeTarget("{WAVE}")', engine) == 0.0
    # a state's own bone mask (a list of bones) overrides the layer's: only those bones take the animation
    lua('fsm:SetInt("mode", 3)', engine)
    engine.run_frames(1)
    assert state(engine, 1)[0] == "Reach"
    out = lua(f"""local s = ctrl:GetAnimationState("{PUNCH}")
      return {{s:GetBoneWeight("Mutant:LeftArm"), s:GetBoneWeight("Mutant:RightArm"), s:GetBoneWeight("Mutant:Hips"),
               s:GetBoneWeight("Mutant:Head"), s.layer}}""", engine)
    assert out == [1.0, 1.0, 0.0, 0.0, 1]


def test_blend_space_resource_edits_reach_the_machine_and_contexts_can_be_shared() -> None:
    engine = hero()
    kick = MUTANT + "Mutant_Kick.ani"
    lua('fsm:SetFloat("speed", 3); fsm:ForceState("Walk")', engine)
    out = lua(f"""
    local res = cache:GetResource("BlendSpaceResource", "FSM/Move.blendspace")
    local bs = res:GetBlendSpace()
    local o = {{bs:GetBlendSpaceName(), bs:GetBlendSpaceType(), bs.parameterName, bs == res:GetBlendSpace()}}
    bs:ClearPoints(); bs:AddPoint(0, "{kick}"); bs:AddPoint(4, "{WALK}", 0.5)
    fsm:Update(0)
    o[#o + 1] = {{ctrl:GetFadeTarget("{kick}"), ctrl:GetFadeTarget("{WALK}"), ctrl:GetFadeTarget("{RUN}"),
                 ctrl:GetSpeed("{WALK}"), ctrl:GetLayer("{kick}")}}
    local w, e = AnimationBlendWeight("a.ani", 0.25), AnimationBlendWeight()
    o[#o + 1] = {{w.animationPath, w.weight, w.speed, e.animationPath, e.weight, e.speed}}
    local other = scene_:CreateChild("Other"):CreateComponent("AnimationStateMachine")
    other:SetParameterContext(fsm:GetParameterContext())
    other:SetFloat("speed", 1.5)
    o[#o + 1] = {{fsm:GetFloat("speed"), other.parameterContext == fsm.parameterContext}}
    return o
    """, engine)
    # the Walk state keeps playing the blend space; the file's points are replaced: at speed 3 of [0, 4]
    assert out == [
        "Move", "BlendSpace1D", "speed", True,
        [f32(1 - 3 / 4), f32(3 / 4), 0.0, 0.5, 0],
        ["a.ani", 0.25, 1.0, "", 0.0, 1.0],
        [1.5, True],
    ]


def test_force_state_skips_the_blend() -> None:
    engine = hero()
    engine.run_frames(5)
    lua('fsm:ForceState("Attack", 0)', engine)
    assert state(engine) == ["Attack", "Idle", False]
    assert lua(f"""return {{fsm:GetStateTime(), ctrl:GetFadeTarget("{PUNCH}"), ctrl:GetFadeTime("{PUNCH}"),
        ctrl:GetFadeTarget("{IDLE}"), ctrl:GetFadeTime("{IDLE}")}}""", engine) == [0.0, 1.0, 0.0, 0.0, 0.0]
    engine.run_frames(1)
    assert lua(f'return {{ctrl:GetWeight("{PUNCH}"), ctrl:IsPlaying("{IDLE}")}}', engine) == [1.0, False]
    lua('fsm:ForceState("Nowhere")', engine)
    assert lua("return fsm:GetCurrentState()", engine) == "Attack"
    assert errors(engine) == ["AnimationStateMachine: ForceState: layer 'Base' has no state 'Nowhere'"]


BAD_FSM = """{"parameters": {"speed": {"type": "float"}},
  "layers": [{"name": "Base", "defaultState": "A",
    "states": {"A": {"animation": "uuid://AbCdEf"}, "B": {"empty": true}, "C": {"empty": true}},
    "transitions": [
      {"from": "A", "to": "B", "condition": "speed >> 2", "priority": 5},
      {"from": "A", "to": "B", "condition": "sped > 1", "priority": 4},
      {"from": "A", "to": "B", "condition": "clamp(speed, 1) > 0", "priority": 3},
      {"from": "A", "to": "B", "condition": "abs(speed - 1) > 0", "priority": 2},
      {"from": "A", "to": "C", "condition": "speed > 1 and animationFinished"}]}]}"""


def test_bad_conditions_are_logged_once_and_never_fire() -> None:
    engine = new_engine(MAIN % "Bad.fsm", {"FSM/Bad.fsm": BAD_FSM})
    engine.start()
    engine.run_frames(3)
    lua('fsm:SetFloat("speed", 2)', engine)
    engine.run_frames(3)
    # the uuid cannot be resolved: its state keeps time with length 0 (a non-looped one is finished at once)
    assert state(engine) == ["C", "A", True]
    # an empty state plays nothing: it counts as finished (normalized time 1)
    assert lua("return {fsm:GetNormalizedTime(), fsm:IsAnimationFinished()}", engine) == [1.0, True]
    assert errors(engine) == [
        "AnimationStateMachine: bad condition 'speed >> 2' (A -> B): expected a value at 8",
        "AnimationStateMachine: bad condition 'clamp(speed, 1) > 0' (A -> B): clamp() takes 3 arguments, got 2",
        "AnimationStateMachine: bad condition 'abs(speed - 1) > 0' (A -> B): expected ')' at 11",
        "AnimationStateMachine: cannot load animation uuid://AbCdEf: asset uuids cannot be resolved here",
        "AnimationStateMachine: bad condition 'sped > 1' (-> B): unknown name 'sped'",
    ]


def test_code_api_json_value_and_update_by_hand_outside_a_scene() -> None:
    engine = new_engine()
    out = lua("""
    local n = Node()
    local fsm = n:CreateComponent("AnimationStateMachine")
    local v = JSONFile()
    v:FromString('{"layers": [{"name": "L", "states": {"A": {"empty": true}, "B": {"empty": true}}}]}')
    local o = {fsm:LoadFromJSON(v:GetRoot()), fsm.numLayers}
    fsm:SetDefaultState("A"); fsm:SetDefaultBlendTime(0.5); fsm:SetName("Code")
    fsm:DefineFloat("x", 0); fsm:AddTransitionSimple("A", "B", "x >= 1 and stateTime >= 0.25")
    fsm:Update(1)   -- not started: nothing happens
    o[#o + 1] = fsm:GetCurrentState()
    fsm:Start(); o[#o + 1] = fsm:GetCurrentState()
    fsm:SetFloat("x", 1); fsm:Update(0.125); o[#o + 1] = fsm:GetCurrentState()
    fsm:Update(0.125); o[#o + 1] = {fsm:GetCurrentState(), fsm:GetPreviousState(), fsm:IsTransitioning()}
    fsm:Update(0.25); o[#o + 1] = fsm:IsTransitioning()
    fsm:Update(0.25); o[#o + 1] = {fsm:IsTransitioning(), fsm:GetStateTime(), fsm.name}
    o[#o + 1] = {fsm:GetCurrentState(5), fsm:GetStateTime(-1), fsm:LoadFromJSON(JSONValue(3))}
    return o
    """, engine)
    assert out == [True, 1, "", "A", "A", ["B", "A", True], True, [False, 0.5, "Code"], ["", 0.0, False]]
    assert errors(engine) == ["AnimationStateMachine: the state machine is not a JSON object"]


def test_scene_time_scale_and_determinism() -> None:
    def run() -> list:
        engine = hero()
        lua("scene_.timeScale = 0.5", engine)
        lua('fsm:SetFloat("speed", 3.3)', engine)
        engine.run_frames(7)
        return lua(f"""return {{fsm:GetCurrentState(), fsm:GetStateTime(), ctrl:GetFadeTarget("{RUN}"),
                               ctrl:GetWeight("{RUN}")}}""", engine)

    first = run()
    assert first[0] == "Walk"
    t = 0.0
    for _ in range(6):
        t = f32(t + f32(f32(STEP) * 0.5))
    assert first[1] == t
    assert first[2] == f32((f32(3.3) - 2) / 2.5)
    assert first == run()
