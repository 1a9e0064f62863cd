"""Animation against Urho3D's semantics: attribute animation (ValueAnimation, ObjectAnimation, wrap modes, splines,
event frames), Spline and SplinePath, and skeletal animation (AnimatedModel bone nodes, Animation resources,
AnimationState, AnimationController fades, layers, events), on stock and on a game's own model and animation files.

Expected values are computed here from the definitions (keyframes, Hermite basis, Bezier) or from the stock data
itself (engine/data/skeletal.json.gz), never copied from the engine's output. One frame is 1/60 s.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import pytest

from engine import Engine
from engine._skeletal import SkeletalError, parse_animation, parse_model_skeleton, stock_skeletal
from engine.testing import lua, new_engine

STEP = 1 / 60
WALK = "Models/Mutant/Mutant_Walk.ani"
RUN = "Models/Mutant/Mutant_Run.ani"
WAVE = "Models/Mutant/Layer/Mutant_Wave_LY.ani"


def f32(x: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


def played(frames: int, speed: float = 1.0) -> float:
    """An animation's time after `frames` steps, accumulated in single precision as Urho3D does."""
    t = 0.0
    for _ in range(frames):
        t = f32(t + f32(f32(STEP) * speed))
    return t


def run(main: str, frames: int, files: dict[str, str | bytes] | None = None) -> Engine:
    engine = new_engine(main, files)
    engine.start()
    engine.run_frames(frames)
    return engine


def close(a: Any, b: Any, tol: float = 1e-5) -> bool:
    if isinstance(a, dict):
        return all(close(a[k], b[k], tol) for k in b)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(close(x, y, tol) for x, y in zip(a, b, strict=True))
    return abs(a - b) <= tol


def vec(*xs: float) -> dict[str, float]:
    return dict(zip("xyz", xs, strict=False))


# ------------------------------------------------------------------------------------------ attribute animation

ATTRIBUTE_SCENE = """
function Start()
  scene_ = Scene()
  events = {}
  looped = scene_:CreateChild("Looped")
  local pos = ValueAnimation()
  pos:SetKeyFrame(0, Variant(Vector3(0, 0, 0)))
  pos:SetKeyFrame(1, Variant(Vector3(6, 0, 0)))
  pos:SetKeyFrame(2, Variant(Vector3(6, 3, 0)))
  local data = VariantMap()
  data["Which"] = "half"
  pos:SetEventFrame(0.5, "Reached", data)
  looped:SetAttributeAnimation("Position", pos, WM_LOOP, 1)
  once = scene_:CreateChild("Once")
  local sc = ValueAnimation()
  sc:SetKeyFrame(0, Variant(Vector3(1, 1, 1)))
  sc:SetKeyFrame(0.5, Variant(Vector3(3, 1, 1)))
  once:SetAttributeAnimation("Scale", sc, WM_ONCE, 1)
  clamped = scene_:CreateChild("Clamped")
  clamped:SetAttributeAnimation("Scale", sc, WM_CLAMP, 2)
  stepped = scene_:CreateChild("Stepped")
  local st = ValueAnimation()
  st.interpolationMethod = IM_NONE
  st:SetKeyFrame(0, Variant(Vector3(1, 0, 0)))
  st:SetKeyFrame(1, Variant(Vector3(2, 0, 0)))
  stepped:SetAttributeAnimation("Position", st)
  spun = scene_:CreateChild("Spun")
  local rot = ValueAnimation()
  rot.interpolationMethod = IM_SPLINE
  rot.splineTension = 0.5
  rot:SetKeyFrame(0, Variant(Quaternion(0, Vector3(0, 1, 0))))
  rot:SetKeyFrame(1, Variant(Quaternion(90, Vector3(0, 1, 0))))
  rot:SetKeyFrame(2, Variant(Quaternion(180, Vector3(0, 1, 0))))
  spun:SetAttributeAnimation("Rotation", rot, WM_CLAMP)
  lightNode = scene_:CreateChild("Light")
  local light = lightNode:CreateComponent("Light")
  local color = ValueAnimation()
  color:SetKeyFrame(0, Variant(Color(1, 1, 1)))
  color:SetKeyFrame(2, Variant(Color(1, 0, 0)))
  light:SetAttributeAnimation("Color", color)
  SubscribeToEvent("Reached", function(_, d)
    events[#events + 1] = {frame = time:GetFrameNumber(), which = d["Which"]:GetString(),
      sender = GetEventSender():GetName()}
  end)
end
"""


@pytest.fixture(scope="module")
def attribute_engine() -> Engine:
    return run(ATTRIBUTE_SCENE, 45)   # 0.75 s


def test_linear_values_at_a_time_and_event_frames(attribute_engine: Engine) -> None:
    pos, events = lua("return looped.position, events", attribute_engine)
    t = played(45)
    assert close(pos, vec(6 * t, 0, 0))
    # the frame at 0.5 s fires once, sent by the animated node, with its data
    assert events == [{"frame": 30, "which": "half", "sender": "Looped"}]


def test_wrap_modes_once_removes_clamp_holds(attribute_engine: Engine) -> None:
    out = lua("""return once.scale, once:GetAttributeAnimation("Scale") == nil, clamped.scale,
      clamped:GetAttributeAnimation("Scale") ~= nil, clamped:GetAttributeAnimationTime("Scale")""", attribute_engine)
    assert close(out[0], vec(3, 1, 1)) and out[1] is True   # played once to its end, then removed
    assert close(out[2], vec(3, 1, 1)) and out[3] is True   # clamped at its end, still there
    assert out[4] == pytest.approx(played(45, 2.0), abs=1e-6)


def test_no_interpolation_holds_the_previous_key(attribute_engine: Engine) -> None:
    assert close(lua("return stepped.position", attribute_engine), vec(1, 0, 0))


def test_quaternion_spline_is_hermite_and_not_normalised(attribute_engine: Engine) -> None:
    q = lua("local r = spun.rotation; return {r.w, r.x, r.y, r.z}", attribute_engine)
    t = played(45)
    keys = [(math.cos(math.radians(a) / 2), 0.0, math.sin(math.radians(a) / 2), 0.0) for a in (0, 90, 180)]
    # open spline: zero tangents at the ends, (k2 - k0) * tension in the middle
    t1 = [0.0] * 4
    t2 = [(keys[2][i] - keys[0][i]) * 0.5 for i in range(4)]
    h = (2 * t**3 - 3 * t**2 + 1, -2 * t**3 + 3 * t**2, t**3 - 2 * t**2 + t, t**3 - t**2)
    expected = [keys[0][i] * h[0] + keys[1][i] * h[1] + t1[i] * h[2] + t2[i] * h[3] for i in range(4)]
    assert close(q, expected, 1e-6)
    assert abs(math.hypot(*q) - 1.0) > 1e-4   # Urho3D does not normalise a spline of quaternions


def test_component_attribute_animation(attribute_engine: Engine) -> None:
    color = lua('return lightNode:GetComponent("Light").color', attribute_engine)
    t = played(45) / 2
    assert close(color, {"r": 1.0, "g": 1 - t, "b": 1 - t, "a": 1.0})


def test_wrong_value_type_is_refused_and_unknown_attribute_is_missing_api() -> None:
    engine = new_engine()
    out = lua("""
      local n = Scene():CreateChild("N")
      local a = ValueAnimation()
      a:SetKeyFrame(0, Variant(1.5))
      a:SetKeyFrame(1, Variant(2.5))
      n:SetAttributeAnimation("Position", a)
      return n:GetAttributeAnimation("Position") == nil, a:SetKeyFrame(2, Variant(Vector3())), a.valueType == VAR_FLOAT
    """, engine)
    assert out == [True, False, True]
    assert any(e["message"] == "Invalid value type" for e in engine.report().log)
    with pytest.raises(Exception, match="attribute animation of Node attribute 'Variables'"):
        lua('local a = ValueAnimation(); a:SetKeyFrame(0, Variant(1.5)); Node():SetAttributeAnimation("Variables", a)',
            engine)
    assert "attribute animation of Node attribute 'Variables'" in engine.report().missing_api


OBJECT_SCENE = """
function Start()
  scene_ = Scene()
  move = ValueAnimation()
  move:SetKeyFrame(0, Variant(Vector3(0, 0, 0)))
  move:SetKeyFrame(1, Variant(Vector3(0, 2, 0)))
  anim = ObjectAnimation()
  anim:AddAttributeAnimation("Position", move, WM_CLAMP, 1)
  a = scene_:CreateChild("A")
  a.objectAnimation = anim
  b = scene_:CreateChild("B")
  local child = b:CreateChild("Child")
  b.objectAnimation = anim
  b:SetAnimationTime(0.5)
  grow = ValueAnimation()
  grow:SetKeyFrame(0, Variant(Vector3(1, 1, 1)))
  grow:SetKeyFrame(1, Variant(Vector3(5, 5, 5)))
  anim:AddAttributeAnimation("#0/Scale", grow, WM_CLAMP, 1)   -- reaches B's first child; A has none
end
"""


def test_object_animation_is_shared_and_follows_its_changes() -> None:
    engine = run(OBJECT_SCENE, 30)
    t = played(30)
    out = lua("return a.position, b.position, b:GetChild(0).scale, a:GetAttributeAnimation('Position') == move",
              engine)
    assert close(out[0], vec(0, 2 * t, 0))
    assert close(out[1], vec(0, 2 * min(1.0, 0.5 + t), 0))          # its time was moved to 0.5
    assert close(out[2], vec(*(1 + 4 * t,) * 3))                     # added after it was set: it follows
    assert out[3] is True
    assert [e["message"] for e in engine.report().log] == ["Could not find node by name 0"]   # A has no child
    removed = lua("anim:RemoveAttributeAnimation('Position'); return a:GetAttributeAnimation('Position')", engine)
    assert removed is None


def test_ui_element_and_material_animation() -> None:
    engine = run("""
    function Start()
      label = ui.root:CreateChild("Text")
      local fade = ValueAnimation()
      fade:SetKeyFrame(0, Variant(1.0))
      fade:SetKeyFrame(1, Variant(0.0))
      label:SetAttributeAnimation("Opacity", fade, WM_CLAMP)
      material = Material()
      local spec = ValueAnimation()
      spec:SetKeyFrame(0, Variant(Color(0, 0, 0, 1)))
      spec:SetKeyFrame(1, Variant(Color(1, 0, 0, 1)))
      material:SetShaderParameterAnimation("MatSpecColor", spec, WM_ONCE, 2)
    end
    """, 30)
    assert lua("return label.opacity", engine) == pytest.approx(1 - played(30), abs=1e-5)
    # played once at double speed: done after 0.5 s and removed
    assert lua("return material:GetShaderParameterAnimation('MatSpecColor')", engine) is None



def test_a_ui_sprite_flips_through_textures_by_resource_reference() -> None:
    """A UI Sprite's "Texture" animated with ResourceRef keyframes (sample 30): discrete, each key's texture from
    the resource cache in turn; a ResourceRef makes a Variant of its own type."""
    engine = run("""
    function Start()
      sprite = ui.root:CreateChild("Sprite")
      local flip = ValueAnimation()
      for i = 1, 4 do
        flip:SetKeyFrame((i - 1) * 0.1, Variant(ResourceRef("Texture2D", "Urho2D/GoldIcon/" .. i .. ".png")))
      end
      flip:SetKeyFrame(0.4, Variant(ResourceRef("Texture2D", "Urho2D/GoldIcon/1.png")))
      sprite:SetAttributeAnimation("Texture", flip)
      OUT = {Variant(ResourceRef("Texture2D", "a.png")):GetTypeName()}
      SubscribeToEvent("PostUpdate", "Record")   -- after the animation's own PostUpdate
    end
    function Record() OUT[#OUT + 1] = sprite.texture:GetName() end
    """, 30)
    names = lua("return OUT", engine)
    assert names[0] == "ResourceRef"
    # frame k at k/60 s: key 2 from 0.1 s, 3 from 0.2 s, 4 from 0.3 s, 1 again from 0.4 s, looped at 0.5 s
    assert [n.rsplit("/", 1)[1] for n in names[1:]] == (["1.png"] * 5 + ["2.png"] * 6 + ["3.png"] * 6
                                                        + ["4.png"] * 6 + ["1.png"] * 6 + ["2.png"])


# ------------------------------------------------------------------------------------------ splines

def test_spline_modes_through_known_points() -> None:
    out = lua("""
      local function at(mode, f, ...)
        local s = Spline(mode)
        for _, k in ipairs({...}) do s:AddKnot(Variant(k)) end
        return s:GetPoint(f):GetVector3()
      end
      local a, b, c, d = Vector3(0, 0, 0), Vector3(2, 0, 0), Vector3(2, 2, 0), Vector3(0, 2, 0)
      return at(LINEAR_CURVE, 0.5, a, b, c), at(BEZIER_CURVE, 0.5, a, b, c),
        at(CATMULL_ROM_CURVE, 0.0, a, b, c, d), at(CATMULL_ROM_FULL_CURVE, 0.5, a, b, c, d),
        at(LINEAR_CURVE, 7, a, b)
    """)
    assert close(out[0], vec(2, 0, 0))            # half way along the polyline: the middle knot
    assert close(out[1], vec(1.5, 0.5, 0))        # de Casteljau: 0.25 a + 0.5 b + 0.25 c
    assert close(out[2], vec(2, 0, 0))            # Catmull-Rom starts at the second knot
    # full Catmull-Rom duplicates the ends: at 0.5 it is half way between b and c, pulled by a and d
    t = 0.5
    p = [(0, 0), (0, 0), (2, 0), (2, 2), (0, 2), (0, 2)][1:5]
    x = [0.5 * (2 * p[1][i] + (-p[0][i] + p[2][i]) * t + (2 * p[0][i] - 5 * p[1][i] + 4 * p[2][i] - p[3][i]) * t * t
                + (-p[0][i] + 3 * p[1][i] - 3 * p[2][i] + p[3][i]) * t**3) for i in range(2)]
    assert close(out[3], vec(x[0], x[1], 0))
    assert close(out[4], vec(2, 0, 0))            # factors are clamped to [0, 1]


def test_spline_path_moves_at_constant_speed_and_finishes() -> None:
    engine = run("""
    function Start()
      scene_ = Scene()
      holder = scene_:CreateChild("Path")
      path = holder:CreateComponent("SplinePath")
      path.interpolationMode = LINEAR_CURVE
      for i, p in ipairs({Vector3(0, 0, 0), Vector3(10, 0, 0)}) do
        local cp = holder:CreateChild("P" .. i)
        cp.position = p
        path:AddControlPoint(cp)
      end
      mover = scene_:CreateChild("Mover")
      path.controlledNode = mover
      path.speed = 4
      SubscribeToEvent("Update", function(_, d) path:Move(d["TimeStep"]:GetFloat()) end)
    end
    """, 60)
    out = lua("return path.length, mover.worldPosition, path:IsFinished()", engine)
    assert out[0] == pytest.approx(10.0, abs=1e-4)
    assert close(out[1], vec(4 * played(60), 0, 0), 1e-4) and out[2] is False
    # 10 m at 4 m/s: 2.5 s, the step summed in single precision as Urho3D sums it
    done = next(f for f in range(60, 400) if f32(f32(played(f) * 4) / 10) >= 1.0)
    engine.run_frames(done - 61)
    assert lua("return path:IsFinished()", engine) is False
    engine.run_frames(1)
    out = lua("return mover.worldPosition, path:IsFinished()", engine)
    assert close(out[0], vec(10, 0, 0)) and out[1] is True
    # moving a control point moves its knot; Reset starts over
    out = lua("""holder:GetChild('P2').position = Vector3(0, 0, 5); path:Reset()
      return path.length, path:IsFinished(), path:GetPoint(1)""", engine)
    assert out[0] == pytest.approx(5.0, abs=1e-4) and out[1] is False and close(out[2], vec(0, 0, 5))


# ------------------------------------------------------------------------------------------ skeletal animation

MUTANT_SCENE = """
function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  events = {}
  mutant = scene_:CreateChild("Mutant")
  SubscribeToEvent(mutant, "BoneHierarchyCreated", function(_, d)
    events[#events + 1] = "bones " .. d["Node"]:GetPtr():GetName()
  end)
  model = mutant:CreateComponent("AnimatedModel")
  model.model = cache:GetResource("Model", "Models/Mutant/Mutant.mdl")
  ctrl = mutant:CreateComponent("AnimationController")
  ctrl:Play("Models/Mutant/Mutant_Walk.ani", 0, true, 0)
  SubscribeToEvent(mutant, "AnimationFinished", function(_, d)
    events[#events + 1] = string.format("finished %s %s %d", d["Name"]:GetString(), tostring(d["Looped"]:GetBool()),
      time:GetFrameNumber())
  end)
  SubscribeToEvent("Update", function()
    local f = time:GetFrameNumber()
    if f == 30 then ctrl:PlayExclusive("Models/Mutant/Mutant_Run.ani", 0, true, 0.5) end
  end)
end
"""


def track_value(animation: str, track: str, t: float) -> tuple[list[float], list[float]]:
    """A track's position and rotation at time t of a looped animation: keyframe lerp and slerp, from the data."""
    data = stock_skeletal("animation", animation)
    assert data is not None
    tr = next(x for x in data["tracks"] if x["name"] == track)
    times = tr["times"]
    i = max(k for k in range(len(times)) if times[k] <= t)
    j = (i + 1) % len(times)
    interval = times[j] - times[i] + (data["length"] if j == 0 else 0)
    u = (t - times[i]) / interval
    pos = [tr["positions"][3 * i + c] * (1 - u) + tr["positions"][3 * j + c] * u for c in range(3)]
    a, b = tr["rotations"][4 * i:4 * i + 4], tr["rotations"][4 * j:4 * j + 4]
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    sign = -1.0 if dot < 0 else 1.0
    angle = math.acos(min(1.0, abs(dot)))
    w1, w2 = math.sin((1 - u) * angle) / math.sin(angle), math.sin(u * angle) / math.sin(angle) * sign
    return pos, [x * w1 + y * w2 for x, y in zip(a, b, strict=True)]


@pytest.fixture(scope="module")
def mutant() -> Engine:
    return run(MUTANT_SCENE, 20)


def test_bone_nodes_are_local_children_in_the_skeleton_hierarchy(mutant: Engine) -> None:
    out = lua("""
      local skel = model.skeleton
      local hips = mutant:GetChild("Mutant:Hips")
      local head = skel:GetBone("Mutant:Head")
      return skel.numBones, skel.rootBone.name, hips.ID, hips.replicated, mutant:GetNumChildren(false),
        mutant:GetNumChildren(true), head.node:GetParent().name, skel:GetBoneParent(head).name,
        skel:GetBoneIndex("Mutant:Hips"), model:GetSkeleton():GetBone(0).node == hips, events[1]
    """, mutant)
    stock = stock_skeletal("model", "Models/Mutant/Mutant.mdl")
    assert stock is not None
    bones = stock["bones"]
    head = next(b for b in bones if b["name"] == "Mutant:Head")
    assert out == [len(bones), "Mutant:Hips", 0x01000000, False, 1, len(bones), bones[head["parent"]]["name"],
                   bones[head["parent"]]["name"], 0, True, "bones Mutant"]


def test_bone_tracks_are_applied_to_the_bone_nodes(mutant: Engine) -> None:
    out = lua("""local h = mutant:GetChild("Mutant:Hips", true); local q = h.rotation
      return h.position, {q.w, q.x, q.y, q.z}, ctrl:GetTime(WALK)""".replace("WALK", repr(WALK)), mutant)
    t = played(20)
    assert out[2] == pytest.approx(t, abs=1e-7)
    pos, rot = track_value(WALK, "Mutant:Hips", t)
    assert close(out[0], vec(*pos), 1e-5)
    assert close(out[1], rot, 1e-5)


def test_cross_fade_weights_over_time_and_removal() -> None:
    engine = run(MUTANT_SCENE, 45)   # the run started at frame 30 with a 0.5 s fade: 15 frames in
    out = lua(f"return ctrl:GetWeight('{RUN}'), ctrl:GetWeight('{WALK}'), ctrl:IsFadingIn('{RUN}'), "
              f"ctrl:IsFadingOut('{WALK}'), ctrl:GetNumAnimations()", engine)
    w = 0.0
    for _ in range(15):
        w = f32(w + f32(f32(1 / 0.5) * f32(STEP)))
    assert out[0] == pytest.approx(w, abs=1e-6) and out[1] == pytest.approx(1 - w, abs=1e-6)
    assert out[2:] == [True, True, 2]
    engine.run_frames(20)   # the fade ends at frame 60: the walk is removed
    out = lua(f"return ctrl:GetWeight('{RUN}'), ctrl:IsPlaying('{WALK}'), model.numAnimationStates, "
              f"ctrl:IsPlaying(0), ctrl:IsPlaying(1)", engine)
    assert out == [1.0, False, 1, True, False]


def test_finished_events_loop_and_once() -> None:
    once = MUTANT_SCENE.replace('ctrl:Play("Models/Mutant/Mutant_Walk.ani", 0, true, 0)',
                                'ctrl:Play("Models/Mutant/Mutant_Walk.ani", 0, false, 0)')
    engine = run(once.replace("if f == 30 then", "if false then"), 29)
    events = lua("return events", engine)
    length = f32(stock_skeletal("animation", WALK)["length"])  # type: ignore[index]
    end_frame = next(f for f in range(1, 200) if played(f) >= length)
    assert end_frame > 29   # not reached yet
    engine.run_frames(end_frame - 29)
    events = lua("return events", engine)
    assert events == ["bones Mutant", f"finished Take 001 false {end_frame}"]


def test_layers_additive_blend_and_start_bone() -> None:
    engine = run(f"""
    function Start()
      scene_ = Scene()
      scene_:CreateComponent("Octree")
      mutant = scene_:CreateChild("Mutant")
      model = mutant:CreateComponent("AnimatedModel")
      model.model = cache:GetResource("Model", "Models/Mutant/Mutant.mdl")
      ctrl = mutant:CreateComponent("AnimationController")
      ctrl:Play("{WALK}", 0, true, 0)
      ctrl:Play("{WAVE}", 1, true, 0)
      ctrl:SetBlendMode("{WAVE}", ABM_ADDITIVE)
      ctrl:SetStartBone("{WAVE}", "Mutant:RightShoulder")
    end
    """, 10)
    out = lua(f"""local s = ctrl:GetAnimationState("{WAVE}")
      return ctrl:GetStartBoneName("{WAVE}"), s:GetTrackIndex("Mutant:LeftArm"),
        s:GetTrackIndex("Mutant:RightArm") >= 0, s.layer, model:GetAnimationState(0).animation.name,
        model:GetAnimationState(1).animation.name""", engine)
    assert out[0] == "Mutant:RightShoulder"
    assert out[1] == 4294967295            # outside the start bone's subtree: no track
    assert out[2] is True and out[3] == 1
    assert out[4:] == [WALK, WAVE]        # applied in layer order
    lua("ctrl:StopLayer(1, 0)", engine)
    engine.run_frames(1)
    assert lua(f"return ctrl:IsPlaying('{WAVE}'), ctrl:IsPlaying('{WALK}')", engine) == [False, True]


def test_without_an_octree_bones_are_not_animated_headless() -> None:
    engine = run(MUTANT_SCENE.replace('scene_:CreateComponent("Octree")', ""), 10)
    stock = stock_skeletal("model", "Models/Mutant/Mutant.mdl")
    hips = stock["bones"][0]  # type: ignore[index]
    out = lua("return mutant:GetChild('Mutant:Hips').position, ctrl:GetTime('Take 001')", engine)
    assert close(out[0], vec(*hips["position"]), 1e-6)   # still the bind pose
    assert out[1] > 0                                     # the controller advanced all the same


def test_triggers_of_a_stock_animation() -> None:
    engine = run("""
    function Start()
      scene_ = Scene()
      scene_:CreateComponent("Octree")
      local ninja = scene_:CreateChild("Ninja")
      ninja:CreateComponent("AnimatedModel").model = cache:GetResource("Model", "Models/NinjaSnowWar/Ninja.mdl")
      local ctrl = ninja:CreateComponent("AnimationController")
      ctrl:Play("Models/NinjaSnowWar/Ninja_Walk.ani", 0, true)
      triggers = {}
      SubscribeToEvent(ninja, "AnimationTrigger", function(_, d)
        triggers[#triggers + 1] = {frame = time:GetFrameNumber(), data = d["Data"]:GetString(),
          time = d["Time"]:GetFloat(), name = d["Name"]:GetString(), node = d["Node"]:GetPtr():GetName()}
      end)
    end
    """, 70)
    length = f32(stock_skeletal("animation", "Models/NinjaSnowWar/Ninja_Walk.ani")["length"])  # type: ignore[index]
    out = lua("return triggers", engine)
    expected = []
    for normalized, data in ((0.25, "Joint21"), (0.75, "Joint26")):
        at = f32(normalized * length)
        frame = next(f for f in range(1, 100) if played(f) > at)
        expected.append({"frame": frame, "data": data, "time": pytest.approx(at, abs=1e-6), "name": "Walk",
                         "node": "Ninja"})
    assert out == expected


def test_same_run_twice_is_bit_identical() -> None:
    code = "local out = {}; for _, n in ipairs(mutant:GetChildren(true)) do local p = n.worldPosition; " \
           "out[#out + 1] = string.format('%a %a %a', p.x, p.y, p.z) end; return table.concat(out, ';')"
    a, b = (lua(code, run(MUTANT_SCENE, 50)) for _ in range(2))
    assert a == b and len(a) > 100


# ------------------------------------------------------------------------------------------ a game's own files

def write_model(bones: list[tuple[str, int, tuple[float, float, float]]]) -> bytes:
    """An Urho3D model file with no geometry and these bones (name, parent index, position)."""
    out = b"UMDL" + struct.pack("<IIII", 0, 0, 0, 0)   # vertex buffers, index buffers, geometries, morphs
    out += struct.pack("<I", len(bones))
    for name, parent, pos in bones:
        out += name.encode() + b"\0" + struct.pack("<I3f4f3f", parent, *pos, 1, 0, 0, 0, 1, 1, 1)
        out += struct.pack("<12f", 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0) + bytes([0])
    return out + struct.pack("<6f", -1, -1, -1, 1, 1, 1)


def write_animation(name: str, length: float, track: str, keys: list[tuple[float, float]]) -> bytes:
    """An Urho3D animation with one position track: (time, x) keys."""
    out = b"UANI" + name.encode() + b"\0" + struct.pack("<fI", length, 1) + track.encode() + b"\0"
    out += struct.pack("<BI", 1, len(keys))
    for t, x in keys:
        out += struct.pack("<f3f", t, x, 0, 0)
    return out


GAME_FILES: dict[str, str | bytes] = {
    "Data/Arm.mdl": write_model([("Root", 0, (0, 0, 0)), ("Tip", 0, (0, 1, 0))]),
    "Data/Swing.ani": write_animation("Swing", 2.0, "Tip", [(0.0, 0.0), (2.0, 4.0)]),
    "Data/Swing.xml": '<animation><trigger time="0.5" type="Int" value="7" /></animation>',
    "Data/Broken.ani": write_animation("Broken", 1.0, "Tip", [(0.0, 0.0)])[:-6],
}


def test_a_games_own_model_and_animation_files() -> None:
    engine = run("""
    function Start()
      scene_ = Scene()
      scene_:CreateComponent("Octree")
      arm = scene_:CreateChild("Arm")
      arm:CreateComponent("AnimatedModel").model = cache:GetResource("Model", "Arm.mdl")
      local ctrl = arm:CreateComponent("AnimationController")
      ctrl:Play("Swing.ani", 0, false)
      got = {}
      SubscribeToEvent(arm, "AnimationTrigger", function(_, d) got[#got + 1] = d["Data"]:GetInt() end)
      broken = cache:GetResource("Animation", "Broken.ani")
    end
    """, 60, GAME_FILES)
    out = lua("return arm:GetChild('Root'):GetChild('Tip').position, got, broken", engine)
    assert close(out[0], vec(4 * played(60) / 2, 0, 0))
    assert out[1] == [7] and out[2] is None
    assert any(e["message"].startswith("Data/Broken.ani: count 1 at byte") for e in engine.report().log)


def test_node_hierarchy_animation_without_a_model() -> None:
    engine = run("""
    function Start()
      scene_ = Scene()
      rig = scene_:CreateChild("Rig")
      rig:CreateChild("Tip")
      ctrl = rig:CreateComponent("AnimationController")
      ctrl:Play("Swing.ani", 0, true)
    end
    """, 30, GAME_FILES)
    out = lua("return rig.position, rig:GetChild('Tip').position, ctrl:GetWeight('Swing.ani')", engine)
    # Urho3D gives an animation of a single track to the controller's own node, whatever the track's name
    assert close(out[0], vec(4 * played(30) / 2, 0, 0)) and close(out[1], vec(0, 0, 0)) and out[2] == 1.0


def test_readers_refuse_what_is_not_a_model_or_animation() -> None:
    with pytest.raises(SkeletalError, match="not an Urho3D animation"):
        parse_animation(b"UMDL....", "x.ani")
    with pytest.raises(SkeletalError, match="exceeds the file"):
        parse_model_skeleton(b"UMDL" + struct.pack("<I", 0xFFFFFFF0), "x.mdl")
    assert [b["name"] for b in parse_model_skeleton(write_model([("A", 0, (0, 0, 0))]))["bones"]] == ["A"]


def test_wrong_arguments_are_clear_errors_at_the_games_line() -> None:
    out = lua("""
      local function err(f) local ok, e = pcall(f) return e end
      local n = Scene():CreateChild("N")
      local ctrl = n:CreateComponent("AnimationController")
      local track = Animation():CreateTrack("T")
      return {
        err(function() Spline():GetPoint("half") end),
        err(function() n:SetAttributeAnimation("Position", Node()) end),
        err(function() ctrl:Play("Models/Mutant/Mutant_Walk.ani", {}, true) end),
        err(function() track:SetKeyFrame(0, {time = "soon"}) end),
        err(function() n:CreateComponent("SplinePath"):AddControlPoint(n, "first") end),
      }
    """)
    assert out == [
        "test:7: bad argument #1 to 'GetPoint' (number expected, got string)",
        "test:8: bad argument #2 to 'SetAttributeAnimation' (ValueAnimation expected, got Node)",
        "test:9: bad argument #2 to 'Play' (number expected, got table)",
        "test:10: bad argument #2 to 'SetKeyFrame' (AnimationKeyFrame expected, got table)",
        "test:11: bad argument #2 to 'AddControlPoint' (number expected, got string)",
    ]


def test_batteries_read_what_plays() -> None:
    engine = new_engine(MUTANT_SCENE)
    ok = engine.run_battery(f"""
    local h = harness
    h.start()
    h.run(0.75)
    local mutant = h.find("Mutant")
    local view = mutant.animation
    requirement("R1", {{capabilities = {{"scene"}}}}, function(check)
      check.equal("two states while the run fades in", #view.states, 2)
      check.equal("the walk first", view.states[1].name, "{WALK}")
      check.equal("the run is playing", view.states[2].playing, true)
      check.near("fading in", view.states[2].weight, 0.5, 0.01)
      check.equal("bone views", view.bones[1].node.name, "Mutant:Hips")
      check.equal("no attribute animation", #view.attributes, 0)
    end)
    """, "battery/anim.lua")
    assert ok
    reqs = engine.requirements()
    assert [r["passed"] for r in reqs] == [True], reqs


def test_removing_the_model_removes_its_bones_and_a_second_model_shares_them() -> None:
    out = lua("""
      local s = Scene()
      local n = s:CreateChild("Jack")
      local master = n:CreateComponent("AnimatedModel")
      master.model = cache:GetResource("Model", "Models/Jack.mdl")
      local second = n:CreateComponent("AnimatedModel")
      second.model = cache:GetResource("Model", "Models/Jack.mdl")
      local shared = second.skeleton:GetBone("Bip01_Head").node == master.skeleton:GetBone("Bip01_Head").node
      local before = n:GetNumChildren(true)
      second:Remove()
      local kept = n:GetNumChildren(true)
      master:Remove()
      return master.master, second.master, shared, before, kept, n:GetNumChildren(true)
    """)
    bones = len(stock_skeletal("model", "Models/Jack.mdl")["bones"])  # type: ignore[index]
    assert out == [True, False, True, bones, bones, 0]


def test_an_animation_bigger_than_the_memory_limit_is_refused_before_it_is_read() -> None:
    keys = [(i / 100, float(i)) for i in range(1000)]   # 4000 numbers
    big = write_animation("Big", 10.0, "Tip", keys)
    assert len(parse_animation(big)["tracks"][0]["times"]) == 1000
    with pytest.raises(SkeletalError, match="4000 keyframe values do not fit"):
        parse_animation(big, "Big.ani", max_values=3999)


def test_rays_hit_bone_boxes_and_the_world_box_is_the_bones() -> None:
    engine = run("""
    function Start()
      scene_ = Scene()
      octree = scene_:CreateComponent("Octree")
      mutant = scene_:CreateChild("Mutant")
      model = mutant:CreateComponent("AnimatedModel")
      model.model = cache:GetResource("Model", "Models/Mutant/Mutant.mdl")
    end
    """, 1)
    out = lua("""
      local ray = Ray(Vector3(0, 1.2, -5), Vector3(0, 0, 1))
      local hits = {}
      for i, x in ipairs(octree:Raycast(ray, RAY_TRIANGLE, 100)) do
        local bone = model.skeleton:GetBone(x.subObject)
        local p = bone.node:WorldToLocal(x.position)
        local b = bone.boundingBox
        hits[i] = {x.drawable == model, x.distance, bone.collisionMask, {p.x, p.y, p.z},
          {b.min.x, b.min.y, b.min.z}, {b.max.x, b.max.y, b.max.z}}
      end
      local aabb = octree:RaycastSingle(ray, RAY_AABB, 100)
      local box = model.worldBoundingBox
      return hits, aabb.distance, {box.min.z, box.max.z}
    """, engine)
    hits, aabb_distance, (zmin, zmax) = out
    assert len(hits) >= 2 and all(h[0] for h in hits)
    assert [h[1] for h in hits] == sorted(h[1] for h in hits)
    for _, _, mask, p, lo, hi in hits:
        assert mask & 2   # hit boxes: the hit point is on the bone's box, in the bone's own space
        assert all(lo[i] - 1e-3 <= p[i] <= hi[i] + 1e-3 for i in range(3))
        assert any(min(abs(p[i] - lo[i]), abs(p[i] - hi[i])) < 1e-3 for i in range(3))
    assert aabb_distance == pytest.approx(5 + zmin, abs=1e-6)   # RAY_AABB stops at the bones' world box
    assert zmin < hits[0][1] - 5 < zmax
