"""AnimatedSprite2D playing Spriter files (.scml) as Urho2D plays them: the mainline key in force, timeline keys
interpolated (linear, quadratic, instant, spin), child objects mapped into their parent bone, loop modes, speed,
entities, AnimationFinished, sprite sheets, and bad files.

The files are this test's own; expected positions and angles come from the keys and the interpolation rules.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import pytest

from engine import Engine
from engine._engine import to_python
from engine.testing import engine_eval, lua, new_engine

STEP = 1 / 60


def f32(x: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


def played(frames: int, speed: float = 1.0) -> float:
    t = 0.0
    for _ in range(frames):
        t = f32(t + f32(f32(STEP) * speed))
    return t


def first_past(length: float, speed: float = 1.0) -> int:
    """The frame whose step takes the time past `length` (single precision): AnimationFinished's."""
    return next(n for n in range(1, 10000) if played(n, speed) > f32(length))


HERO = """<?xml version="1.0" encoding="UTF-8"?>
<spriter_data scml_version="1.0" generator="grader tests">
  <folder id="0" name="parts">
    <file id="0" name="parts/body.png" width="32" height="32" pivot_x="0.5" pivot_y="0.5"/>
    <file id="1" name="parts/arm.png" width="16" height="8"/>
  </folder>
  <entity id="0" name="hero">
    <animation id="0" name="wave" length="1000">
      <mainline>
        <key id="0"><bone_ref id="0" timeline="0" key="0"/>
          <object_ref id="0" parent="0" timeline="1" key="0" z_index="1"/></key>
        <key id="1" time="500"><bone_ref id="0" timeline="0" key="1"/>
          <object_ref id="0" parent="0" timeline="1" key="1" z_index="1"/></key>
      </mainline>
      <timeline id="0" name="shoulder" object_type="bone">
        <key id="0"><bone x="10" y="0" angle="0"/></key>
        <key id="1" time="500" spin="-1"><bone x="30" y="0" angle="90"/></key>
      </timeline>
      <timeline id="1" name="arm">
        <key id="0"><object folder="0" file="1" x="5" y="0"/></key>
        <key id="1" time="500"><object folder="0" file="0" x="5" y="0" a="0.5"/></key>
      </timeline>
    </animation>
    <animation id="1" name="jump" length="400" looping="false">
      <mainline><key id="0"><object_ref id="0" timeline="0" key="0" z_index="0"/></key></mainline>
      <timeline id="0" name="body">
        <key id="0" curve_type="quadratic" c1="0.5"><object folder="0" file="0" x="0" y="0" scale_x="1"/></key>
        <key id="1" time="400"><object folder="0" file="0" x="0" y="100" scale_x="2"/></key>
      </timeline>
    </animation>
    <animation id="2" name="blink" length="200">
      <mainline><key id="0"><object_ref id="0" timeline="0" key="0"/></key></mainline>
      <timeline id="0" name="eye">
        <key id="0" curve_type="instant"><object folder="0" file="0" x="0" y="0"/></key>
        <key id="1" time="100"><object folder="0" file="1" x="50" y="0"/></key>
      </timeline>
    </animation>
  </entity>
  <entity id="1" name="ghost">
    <animation id="0" name="wave" length="1000">
      <mainline><key id="0"><object_ref id="0" timeline="0" key="0"/></key></mainline>
      <timeline id="0" name="sheet"><key id="0"><object folder="0" file="0" x="-7" y="3"/></key></timeline>
    </animation>
  </entity>
</spriter_data>
"""

FILES: dict[str, str | bytes] = {"anim/hero.scml": HERO, "anim/parts/body.png": b"png", "anim/parts/arm.png": b"png"}

MAIN = """
function Start()
  scene_ = Scene()
  node = scene_:CreateChild("Hero")
  node.position = Vector3(2, 1, 0)
  set = cache:GetResource("AnimationSet2D", "anim/hero.scml")
  sprite = node:CreateComponent("AnimatedSprite2D")
  sprite.animationSet = set
  finished = {}
  SubscribeToEvent(node, "AnimationFinished", function(eventType, eventData)
    finished[#finished + 1] = {name = eventData["Name"]:GetString(), looped = eventData["Looped"]:GetBool(),
      frame = time:GetFrameNumber()}
  end)
  %s
end
"""

def view(engine: Engine) -> dict[str, Any]:
    result: dict[str, Any] = engine_eval(engine, "return E.sprite_animation_view(E.REC[G.node])")
    return result


def game(setup: str, files: dict[str, str | bytes] | None = None) -> Engine:
    engine = new_engine(MAIN % setup, files or FILES)
    engine.start()
    return engine


def test_animation_set_lists_the_first_entitys_animations() -> None:
    engine = game("")
    assert lua("return set.numAnimations, set:GetAnimation(0), set:GetAnimation(2), set:GetAnimation(3),"
               " sprite.entity, sprite.animation", engine) == [3, "wave", "blink", "", "hero", ""]


def test_linear_keys_spin_and_parent_mapping_at_chosen_times() -> None:
    engine = game('sprite:SetAnimation("wave")')
    v = view(engine)
    assert (v["playing"], v["time"], v["looping"]) == ("wave", 0.0, True)
    assert v["sprites"][0]["name"] == "anim/parts/arm.png"
    engine.run_frames(15)
    v = view(engine)
    t = played(15)
    assert v["time"] == t
    k = t / 0.5
    bone = v["bones"][0]
    # spin -1 on the second key does not matter: the first key's spin (1) turns counter-clockwise, 0 -> 90
    assert bone["name"] == "shoulder"
    assert bone["x"] == pytest.approx(10 + 20 * k, abs=1e-4)
    assert bone["angle"] == pytest.approx(90 * k, abs=1e-3)
    arm = v["sprites"][0]
    a = math.radians(bone["angle"])
    assert arm["x"] == pytest.approx(bone["x"] + 5 * math.cos(a), abs=1e-4)
    assert arm["y"] == pytest.approx(5 * math.sin(a), abs=1e-4)
    assert arm["angle"] == pytest.approx(bone["angle"], abs=1e-6)
    assert arm["z_index"] == 1
    # world position: Spriter pixels at PIXEL_SIZE, through the node
    assert arm["world_position"]["x"] == pytest.approx(2 + arm["x"] * 0.01, abs=1e-6)
    assert arm["world_position"]["y"] == pytest.approx(1 + arm["y"] * 0.01, abs=1e-6)
    engine.run_frames(20)   # past the second mainline key: the body shows, fading, turning back with spin -1
    v = view(engine)
    t = v["time"]
    k = (t - 0.5) / 0.5
    assert v["sprites"][0]["name"] == "anim/parts/body.png"
    assert v["bones"][0]["angle"] == pytest.approx(90 - 90 * k, abs=1e-3)   # to the first key's 0, wrapping
    assert v["bones"][0]["x"] == pytest.approx(30 - 20 * k, abs=1e-4)
    assert v["sprites"][0]["alpha"] == pytest.approx(0.5 + 0.5 * k, abs=1e-5)


def test_quadratic_curve_and_clamped_end_of_a_non_looping_animation() -> None:
    engine = game('sprite:SetAnimation("jump")')
    engine.run_frames(12)
    v = view(engine)
    t = v["time"] / 0.4
    eased = (1 - t) * (1 - t) * 0 + 2 * (1 - t) * t * 0.5 + t * t   # Quadratic(0, c1, 1, t)
    body = v["sprites"][0]
    assert body["y"] == pytest.approx(100 * eased, abs=1e-3)
    assert body["scale_x"] == pytest.approx(1 + eased, abs=1e-5)
    engine.run_frames(30)
    v = view(engine)
    assert v["time"] == pytest.approx(0.4) and v["looping"] is False
    assert v["sprites"][0]["y"] == pytest.approx(100.0)   # the last key holds: no wrap to the first
    assert lua("return finished", engine) == [{"name": "jump", "looped": False,
                                                  "frame": first_past(0.4)}]   # sent once


def test_instant_curve_holds_until_the_next_key() -> None:
    engine = game('sprite:SetAnimation("blink")')
    engine.run_frames(5)
    v = view(engine)
    assert (v["sprites"][0]["x"], v["sprites"][0]["name"]) == (0.0, "anim/parts/body.png")


def test_loop_modes_and_speed() -> None:
    engine = game('sprite:SetAnimation("wave")\n  sprite.speed = 2')
    engine.run_frames(40)
    v = view(engine)
    assert v["time"] == pytest.approx(math.fmod(played(40, 2.0), 1.0), abs=1e-6)
    assert lua("return finished", engine) == [{"name": "wave", "looped": True,
                                                  "frame": first_past(1.0, 2.0)}]
    clamped = game('sprite:SetAnimation("wave", LM_FORCE_CLAMPED)')
    clamped.run_frames(90)
    assert view(clamped)["time"] == 1.0 and view(clamped)["looping"] is False
    assert len(lua("return finished", clamped)) == 1
    looped = game('sprite:SetAnimation("jump", LM_FORCE_LOOPED)')
    looped.run_frames(30)
    assert view(looped)["time"] == pytest.approx(math.fmod(played(30), 0.4), abs=1e-6)
    # Urho2D applies a loop mode when the animation changes only: the same animation keeps its looping
    lua('sprite:SetAnimation("jump", LM_FORCE_CLAMPED)', looped)
    assert view(looped)["looping"] is True and lua("return sprite.loopMode", looped) == 2


def test_entities() -> None:
    engine = game('sprite.entity = "ghost"\n  sprite:SetAnimation("wave")')
    v = view(engine)
    assert (v["entity"], v["playing"]) == ("ghost", "wave")
    assert (v["sprites"][0]["timeline"], v["sprites"][0]["x"]) == ("sheet", -7.0)
    # an animation the first entity lacks cannot be set (Urho2D asks the first entity)
    lua('sprite:SetAnimation("missing")', engine)
    assert view(engine)["playing"] == "wave" and lua("return sprite.animation", engine) == "missing"


SHEET = """<TextureAtlas imagePath="hero.png">
  <SubTexture name="body" x="0" y="0" width="32" height="32"/>
  <SubTexture name="arm" x="32" y="0" width="16" height="8"/>
</TextureAtlas>"""


def test_a_sprite_sheet_beside_the_file_names_the_sprites() -> None:
    engine = game('sprite:SetAnimation("wave")', {"anim/hero.scml": HERO, "anim/hero.xml": SHEET})
    assert view(engine)["sprites"][0]["name"] == "arm"


def errors_of(files: dict[str, str | bytes], name: str = "anim/hero.scml") -> tuple[bool, list[str], list[str]]:
    engine = new_engine(f"function Start() set = cache:GetResource('AnimationSet2D', '{name}') end", files)
    engine.start()
    log = [e["message"] for e in to_python(engine.E.state.log) if e["level"] == "ERROR"]
    return lua("return set == nil", engine), log, to_python(engine.E.state.missing_order) or []


def test_bad_files_log_one_line_naming_the_file() -> None:
    loaded, log, _ = errors_of({"anim/hero.scml": HERO, "anim/parts/body.png": b"png"})
    assert loaded is True and len(log) == 1 and "anim/parts/arm.png" in log[0]
    broken = HERO.replace('<timeline id="0" name="eye">', '<timeline id="0" name="eye" object_type="point">')
    loaded, log, _ = errors_of({**FILES, "anim/hero.scml": broken})
    assert loaded is True and len(log) == 1 and "anim/hero.scml" in log[0] and "point" in log[0]
    loaded, log, _ = errors_of({**FILES, "anim/hero.scml": "<spriter_data><folder></spriter_data>"})
    assert loaded is True and len(log) == 1 and "anim/hero.scml" in log[0] and "\n" not in log[0]
    loaded, log, missing = errors_of({"anim/hero.json": "{}"}, "anim/hero.json")
    assert loaded is True and "anim/hero.json" in log[0]
    assert missing == ["AnimationSet2D (Spine skeleton anim/hero.json)"]


def test_stock_sets_and_effects_load_from_the_derived_data() -> None:
    """Urho3D's samples name stock effects and animation sets; the engine serves what it derived of them
    (engine/data/stock_data.json.gz). Expected names come from that data itself."""
    import xml.etree.ElementTree as ET

    from engine._stock_data import xml_files

    files = xml_files()
    imp = ET.fromstring(files["Urho2D/imp/imp.scml"])
    names = [a.get("name") for a in imp.find("entity").findall("animation")]   # type: ignore[union-attr]
    fire = ET.fromstring(files["Particle/Fire.xml"])
    engine = new_engine("""function Start()
      imp = cache:GetResource("AnimationSet2D", "Urho2D/imp/imp.scml")
      orc = cache:GetResource("AnimationSet2D", "Urho2D/Orc/Orc.scml")
      gold = cache:GetResource("AnimationSet2D", "Urho2D/GoldIcon.scml")
      fire = cache:GetResource("ParticleEffect", "Particle/Fire.xml")
      sun = cache:GetResource("ParticleEffect2D", "Urho2D/sun.pex")
    end""")
    engine.start()
    got = lua("""local out = {}
      for i = 0, imp.numAnimations - 1 do out[#out + 1] = imp:GetAnimation(i) end
      return out, orc.numAnimations > 0, gold.numAnimations, fire.numParticles, sun ~= nil""", engine)
    assert got == [names, True, 1, int(fire.find("numparticles").get("value")), True]   # type: ignore[union-attr]
    assert [e for e in to_python(engine.E.state.log) or [] if e["level"] == "ERROR"] == []
