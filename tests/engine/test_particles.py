"""Particles against Urho3D's semantics: ParticleEffect (XML and code), ParticleEmitter (emission timer, time to live,
active/inactive periods, forces, colour and texture frames, ParticleEffectFinished and auto-remove), and Urho2D's
ParticleEffect2D (.pex) and ParticleEmitter2D (gravity and radial modes, duration, ParticlesDuration/ParticlesEnd).

Expected counts and frames come from small mirrors of Urho3D's timing written here in single precision (the emission
timer, the particles' timers), positions from the integration rule; never from the engine's output. The effects use
power-of-two intervals (rate 16/s, time to live 0.25 s...) so the schedule does not depend on Random().
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import Engine, RunRequest, run_evidence, run_in_subprocess
from engine._engine import to_python
from engine.testing import engine_eval, lua, new_engine

STEP = 1 / 60


def f32(x: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


FSTEP = f32(STEP)


def view(engine: Engine, name: str) -> list[dict[str, Any]] | None:
    """The battery's `view.particles` of the node `name` under the game's global scene_."""
    result: list[dict[str, Any]] | None = engine_eval(
        engine, "local n = G.scene_:GetChild(..., true); return E.particles_view(E.REC[n])", name)
    return result


def log_errors(engine: Engine) -> list[str]:
    return [e["message"] for e in to_python(engine.E.state.log) or [] if e["level"] == "ERROR"]


def mirror_counts(rate: float, ttl: float, frames: int, capacity: int = 1000, active: float = 0.0,
                  inactive: float = 0.0) -> tuple[list[int], list[bool]]:
    """Live particles and the emitting flag after each frame's update, as ParticleEmitter::Update keeps them, for an
    effect whose interval 1/rate and time to live are exact in single precision."""
    interval = f32(1.0 / rate)
    emission = period = 0.0
    emitting = True
    timers: list[float | None] = [None] * capacity
    counts, flags = [], []
    for _ in range(frames):
        period = f32(period + FSTEP)
        if emitting:
            if active and period >= active:
                emitting = False
                period = f32(period - active)
        else:
            if inactive and period >= inactive:
                emitting = True
                period = f32(period - inactive)
            if inactive == 0.0:
                period = 0.0
        if emitting:
            emission = f32(emission + FSTEP)
            if emission < -interval:
                emission = -interval
            n = 100
            while emission > 0.0 and n:
                emission = f32(emission - interval)
                if None not in timers:
                    break
                timers[timers.index(None)] = 0.0
                n -= 1
        for i, t in enumerate(timers):
            if t is None:
                continue
            if t >= ttl:
                timers[i] = None
            else:
                timers[i] = f32(t + FSTEP)
        counts.append(sum(t is not None for t in timers))
        flags.append(emitting)
    return counts, flags


def mirror_events(counts: list[int], flags: list[bool]) -> list[int]:
    """Frames whose ScenePostUpdate sends ParticleEffectFinished: emission stopped and nothing alive after the previous
    frame's update, once per stop."""
    out, armed = [], True
    for frame in range(2, len(counts) + 1):
        if flags[frame - 2]:
            armed = True
        elif armed and counts[frame - 2] == 0:
            out.append(frame)
            armed = False
    return out


SCENE = """
function Start()
  scene_ = Scene()
  %s
  node = scene_:CreateChild("Fx")
  node.position = Vector3(1, 2, 3)
  effect = ParticleEffect:new()
  effect.numParticles = 40
  effect.minEmissionRate = 16
  effect.maxEmissionRate = 16
  effect.minTimeToLive = 0.25
  effect.maxTimeToLive = 0.25
  effect.minDirection = Vector3(0, 1, 0)
  effect.maxDirection = Vector3(0, 1, 0)
  effect.minVelocity = 2
  effect.maxVelocity = 2
  %s
  emitter = node:CreateComponent("ParticleEmitter")
  emitter.effect = effect
  events = {}
  SubscribeToEvent(node, "ParticleEffectFinished", function(eventType, eventData)
    events[#events + 1] = {frame = time:GetFrameNumber(), node = eventData["Node"]:GetPtr("Node").name,
      same = eventData["Effect"]:GetPtr("ParticleEffect") == effect}
  end)
end
"""


def scene(setup: str = "", octree: bool = True) -> str:
    return SCENE % ('scene_:CreateComponent("Octree")' if octree else "", setup)


def counts_over(engine: Engine, frames: int) -> list[int]:
    out = []
    for _ in range(frames):
        engine.run_frames(1)
        out.append(view(engine, "Fx")[0]["count"])
    return out


# ------------------------------------------------------------------------------------------ emission and lifetime

def test_emission_count_and_expiry_follow_urho3d_timers() -> None:
    engine = new_engine(scene())
    engine.start()
    got = counts_over(engine, 90)
    want, _ = mirror_counts(16.0, 0.25, 90)
    assert got == want
    assert max(got) == 5 and got[0] == 1   # 16/s for 0.25 s: four or five alive at once


def test_the_particle_cap_limits_live_particles() -> None:
    engine = new_engine(scene("effect.numParticles = 3\n  effect.minEmissionRate = 64\n"
                              "  effect.maxEmissionRate = 64"))
    engine.start()
    got = counts_over(engine, 40)
    want, _ = mirror_counts(64.0, 0.25, 40, capacity=3)
    assert got == want and max(got) == 3
    assert lua("return emitter.numParticles, emitter:GetNumBillboards()", engine) == [3, 3]


def test_no_octree_no_simulation() -> None:
    engine = new_engine(scene(octree=False))
    engine.start()
    engine.run_frames(30)
    assert view(engine, "Fx")[0]["count"] == 0


def test_positions_integrate_velocity_force_and_scale() -> None:
    engine = new_engine(scene("effect.constantForce = Vector3(0, -10, 0)\n  effect.sizeAdd = 1.0\n"
                              "  effect.minParticleSize = Vector2(0.5, 0.25)\n"
                              "  effect.maxParticleSize = Vector2(0.5, 0.25)"))
    engine.start()
    engine.run_frames(10)
    first = view(engine, "Fx")[0]["particles"][0]   # emitted on frame 1, updated 10 times
    vy, y, scale = 2.0, 0.0, 1.0
    for _ in range(10):
        vy += STEP * -10.0
        y += STEP * vy
        scale += STEP * 1.0
    assert first["position"]["y"] == pytest.approx(y, abs=1e-5)
    assert first["world_position"]["y"] == pytest.approx(2.0 + y, abs=1e-5)   # relative: the node's space
    assert (first["world_position"]["x"], first["world_position"]["z"]) == pytest.approx((1.0, 3.0))
    assert first["velocity"]["y"] == pytest.approx(vy, abs=1e-5)
    assert first["size"]["x"] == pytest.approx(0.5 * scale, abs=1e-5)
    assert first["size"]["y"] == pytest.approx(0.25 * scale, abs=1e-5)
    assert first["time"] == pytest.approx(10 * STEP, abs=1e-6)


def test_relative_particles_follow_the_node_and_world_ones_stay() -> None:
    results = {}
    for relative in ("true", "false"):
        engine = new_engine(scene(f"effect.relative = {relative}\n  effect.minVelocity = 0\n"
                                  "  effect.maxVelocity = 0"))
        engine.start()
        engine.run_frames(1)
        lua("node.position = Vector3(5, 2, 3)", engine)
        engine.run_frames(1)
        results[relative] = view(engine, "Fx")[0]["particles"][0]["world_position"]
    assert results["true"]["x"] == pytest.approx(5.0)    # rides on the node
    assert results["false"]["x"] == pytest.approx(1.0)   # stays where it was emitted


def test_colour_and_texture_frames() -> None:
    engine = new_engine(scene("effect.minTimeToLive = 1\n  effect.maxTimeToLive = 1\n"
                              "  effect:AddColorTime(Color(0, 0, 1, 0), 0.5)\n"
                              "  effect:AddColorTime(Color(1, 0, 0, 1), 0.0)\n"
                              "  effect:AddTextureTime(Rect(0, 0, 0.5, 0.5), 0.0)\n"
                              "  effect:AddTextureTime(Rect(0.5, 0, 1, 0.5), 0.25)"))
    engine.start()
    assert lua("local a, b = effect:GetColorFrame(0), effect:GetColorFrame(1); return a.time, a.color.r, b.time",
               engine) == [0.0, 1.0, 0.5]
    engine.run_frames(12)
    p = view(engine, "Fx")[0]["particles"][0]
    t = p["time"]
    assert 0.0 < t < 0.25
    assert p["color"]["r"] == pytest.approx(1.0 - t / 0.5, abs=1e-5)
    assert p["color"]["b"] == pytest.approx(t / 0.5, abs=1e-5)
    assert p["uv"]["min"]["x"] == 0.0
    engine.run_frames(24)
    p = view(engine, "Fx")[0]["particles"][0]
    assert 0.5 < p["time"] < 1.0
    assert (p["color"]["r"], p["color"]["b"], p["color"]["a"]) == (0.0, 1.0, 0.0)   # past the last key
    assert p["uv"]["min"]["x"] == 0.5


# ------------------------------------------------------------------------------------------ events and control

def test_finished_event_after_the_active_time_and_the_last_particle() -> None:
    engine = new_engine(scene("effect.activeTime = 0.5"))
    engine.start()
    counts, flags = mirror_counts(16.0, 0.25, 80, active=0.5)
    engine.run_frames(80)
    # the emitter stops in the update where its period passes 0.5 s; a particle stays live through the update where
    # its timer reaches its time to live, is dropped in the next one, and the event goes out in the ScenePostUpdate
    # after that
    assert flags.index(False) + 1 == 30   # 30 steps of 1/60 s in single precision pass 0.5 s
    last_alive = max(i for i, c in enumerate(counts) if c > 0) + 1
    assert mirror_events(counts, flags) == [last_alive + 2]
    events = lua("return events", engine)
    assert events == [{"frame": last_alive + 2, "node": "Fx", "same": True}]
    assert lua("return emitter.emitting", engine) is False


def test_inactive_time_restarts_emission_and_the_event_repeats() -> None:
    engine = new_engine(scene("effect.activeTime = 0.25\n  effect.inactiveTime = 0.5"))
    engine.start()
    got = counts_over(engine, 120)
    want, flags = mirror_counts(16.0, 0.25, 120, active=0.25, inactive=0.5)
    assert got == want
    expected = mirror_events(want, flags)
    assert len(expected) == 3   # bursts at 0, 0.75 and 1.5 s, each dying out
    assert [e["frame"] for e in lua("return events", engine)] == expected


def test_set_emitting_false_waits_for_live_particles_and_reset_restarts() -> None:
    engine = new_engine(scene())
    engine.start()
    engine.run_frames(10)
    lua("emitter.emitting = false", engine)
    engine.run_frames(30)
    events = lua("return events", engine)
    assert len(events) == 1 and view(engine, "Fx")[0]["count"] == 0
    lua("emitter:Reset()", engine)
    assert lua("return emitter.emitting", engine) is True
    engine.run_frames(5)
    assert view(engine, "Fx")[0]["count"] > 0
    # stopping with nothing alive sends no event, as Urho3D's SetEmitting decides it there
    quiet = new_engine(scene())
    quiet.start()
    lua("emitter.emitting = false", quiet)
    quiet.run_frames(30)
    assert lua("return #events", quiet) == 0


def test_auto_remove_node_after_the_event() -> None:
    engine = new_engine(scene("effect.activeTime = 0.1") + """
function Start2() emitter.autoRemoveMode = REMOVE_NODE end
""")
    engine.start()
    lua("Start2()", engine)
    engine.run_frames(60)
    assert lua("return #events, scene_:GetChild('Fx', true) == nil", engine) == [1, True]


def test_emission_timer_and_remove_all() -> None:
    engine = new_engine(scene())
    engine.start()
    engine.run_frames(3)
    lua("emitter:RemoveAllParticles(); emitter:ResetEmissionTimer()", engine)
    assert view(engine, "Fx")[0]["count"] == 0
    assert view(engine, "Fx")[0]["emission_timer"] == 0.0
    engine.run_frames(1)
    assert view(engine, "Fx")[0]["count"] == 1   # the reset timer emits on the next update


# ------------------------------------------------------------------------------------------ the effect resource

EFFECT_XML = """<?xml version="1.0"?>
<particleeffect>
  <material name="Materials/Particle.xml" />
  <numparticles value="25" />
  <updateinvisible enable="true" />
  <relative enable="false" />
  <emittertype value="Box" />
  <emittersize value="1 2 3" />
  <direction min="-0.5 1 -0.5" max="0.5 1 0.5" />
  <constantforce value="0 -3 0" />
  <dampingforce value="0.5" />
  <activetime value="-1" />
  <interval min="0.125" max="0.25" />
  <particlesize min="0.1 0.2" max="0.3 0.4" />
  <timetolive value="2" />
  <velocity min="1" max="3" />
  <rotation min="-10" max="10" />
  <rotationspeed value="45" />
  <sizedelta add="0.5" mul="1.5" />
  <colorfade color="1 1 1 1" time="0" />
  <colorfade color="1 0 0 0.5" time="1" />
  <texanim uv="0 0 0.5 0.5" time="0" />
</particleeffect>
"""


def test_effect_reads_urho3d_xml() -> None:
    engine = new_engine("function Start() fx = cache:GetResource('ParticleEffect', 'fx/spark.xml') end",
                        {"fx/spark.xml": EFFECT_XML})
    engine.start()
    got = lua("""return {fx.numParticles, fx.updateInvisible, fx.relative, fx.emitterType, fx.emitterSize.z,
      fx.minDirection.x, fx.maxDirection.z, fx.constantForce.y, fx.dampingForce, fx.activeTime == math.huge,
      fx.minEmissionRate, fx.maxEmissionRate, fx.maxParticleSize.y, fx.minTimeToLive, fx.maxTimeToLive,
      fx.maxVelocity, fx.minRotation, fx.maxRotationSpeed, fx.sizeAdd, fx.sizeMul, fx.numColorFrames,
      fx.numTextureFrames, fx.material:GetName()}""", engine)
    assert got == [25, True, False, 1, 3.0, -0.5, 0.5, -3.0, 0.5, True, 4.0, 8.0, pytest.approx(0.4), 2.0, 2.0,
                   3.0, -10.0, 45.0, 0.5, 1.5, 2, 1, "Materials/Particle.xml"]
    # the emitter takes the effect's particle count and flags
    assert lua("local n = Scene():CreateChild('E'); local e = n:CreateComponent('ParticleEmitter'); e.effect = fx;"
               " return e.numParticles, e.relative", engine) == [25, False]


def test_code_built_effect_defaults_setters_and_clone() -> None:
    got = lua("""local fx = ParticleEffect:new()
      local d = {fx.numParticles, fx.minEmissionRate, fx.minTimeToLive, fx.minVelocity, fx.minDirection.x,
        fx.minParticleSize.x, fx.relative, fx.scaled, fx.sorted, fx.emitterType, fx.numColorFrames}
      fx.minEmissionRate = 0; fx.minTimeToLive = -2
      fx:AddColorFrame(ColorFrame(Color(1, 0, 0), 2)); fx:AddColorFrame(ColorFrame(Color(0, 1, 0), 1))
      local c = fx:Clone("copy")
      fx:RemoveColorFrame(0)
      return d, fx.minEmissionRate, fx.minTimeToLive, c:GetName(), c.numColorFrames, c:GetColorFrame(0).time,
        fx.numColorFrames, ColorFrame(Color(0, 0, 0, 0), 0):Interpolate(ColorFrame(Color(1, 1, 1, 1), 2), 0.5).r""")
    assert got[0] == [10, 10.0, 1.0, 1.0, -1.0, pytest.approx(0.1), True, True, False, 0, 0]
    assert got[1:] == [pytest.approx(0.01), 0.0, "copy", 2, 1.0, 1, 0.25]


def test_bad_effect_file_logs_one_line_naming_it() -> None:
    engine = new_engine("function Start() fx = cache:GetResource('ParticleEffect', 'fx/broken.xml') end",
                        {"fx/broken.xml": "<particleeffect><numparticles value='3'></particleeffect>"})
    engine.start()
    assert lua("return fx == nil", engine) is True
    errors = log_errors(engine)
    assert len(errors) == 1 and "fx/broken.xml" in errors[0] and "\n" not in errors[0]
    assert to_python(engine.E.state.errors) in (None, [], {})


# ------------------------------------------------------------------------------------------ determinism

PRINTER = scene("effect.minDirection = Vector3(-1, -1, -1)\n  effect.maxVelocity = 5\n"
                "  effect.emitterType = EMITTER_SPHEREVOLUME\n  effect.emitterSize = Vector3(2, 2, 2)\n"
                "  effect.minTimeToLive = 0.2\n  effect.maxTimeToLive = 0.6") + """
function Tick()
  if time:GetFrameNumber() % 10 == 0 then
    local parts = {}
    for i = 0, emitter:GetNumBillboards() - 1 do
      local b = emitter:GetBillboard(i)
      if b.enabled then parts[#parts + 1] = string.format("%.17g,%.17g,%.17g", b.position.x, b.position.y,
        b.position.z) end
    end
    print(table.concat(parts, ";"))
  end
end
SubscribeToEvent("PostUpdate", "Tick")
"""


def test_particles_are_bit_identical_across_fresh_processes(make_game: Callable[..., Path]) -> None:
    game = make_game(PRINTER)
    digests = set()
    for start in ("cold", "prebooted"):
        report = run_in_subprocess(RunRequest(game_dir=str(game), seconds=1.0, dump=True), start=start)
        assert report["outcome"] == "clean", report
        lines = [e["message"] for e in report["log"]]
        assert len(lines) == 6 and all(lines)
        digests.add(run_evidence(report)["digest"])
    assert len(digests) == 1


def test_random_draws_are_shared_with_the_game() -> None:
    """Emission draws from Urho3D's Random(): a game reseeding it replays the same particles."""
    main = scene("effect.minVelocity = 1\n  effect.maxVelocity = 4\n"
                 "  effect.minDirection = Vector3(-1, -1, -1)")
    runs = []
    for _ in range(2):
        engine = new_engine(main)
        engine.start()
        lua("SetRandomSeed(42)", engine)
        engine.run_frames(20)
        runs.append([p["velocity"] for p in view(engine, "Fx")[0]["particles"]])
    assert runs[0] == runs[1] and len(runs[0]) >= 4
    assert len({round(math.hypot(v["x"], v["y"], v["z"]), 6) for v in runs[0]}) == len(runs[0])   # speeds differ


def test_batteries_read_particles_and_sprite_animations_through_node_views() -> None:
    main = scene() + """
local base = Start
function Start()
  base()
  local hero = scene_:CreateChild("Hero")
  hero:CreateComponent("AnimatedSprite2D")
end
"""
    engine = new_engine(main)
    engine.run_battery("""
    local h = harness
    h.start()
    h.run(0.5)
    local fx, hero = h.find("Fx"), h.find("Hero")
    requirement("R1", function(check)
      check.equal("one emitter", #fx.particles, 1)
      check.equal("its type", fx.particles[1].type, "ParticleEmitter")
      check.truthy("live particles", fx.particles[1].count >= 4)
      check.equal("listed", #fx.particles[1].particles, fx.particles[1].count)
      check.equal("no emitter on the sprite node", hero.particles, nil)
      check.equal("no animation set yet", hero.sprite_animation.playing, nil)
      check.equal("none on the emitter node", fx.sprite_animation, nil)
    end)
    """, "battery/test.lua")
    [req] = engine.requirements()
    assert req["passed"] is True, req


def test_scene_files_keep_emitters_and_animated_sprites() -> None:
    engine = new_engine(scene("effect = cache:GetResource('ParticleEffect', 'fx/spark.xml')") + """
function Save()
  emitter.effect = effect
  emitter.autoRemoveMode = REMOVE_COMPONENT
  local hero = scene_:CreateChild("Hero")
  local sprite = hero:CreateComponent("AnimatedSprite2D")
  sprite.speed = 1.5
  local file = File("saved.xml", FILE_WRITE)
  scene_:SaveXML(file)
  file:Close()
  local loaded = Scene()
  loaded:LoadXML(File("saved.xml", FILE_READ))
  local e = loaded:GetChild("Fx", true):GetComponent("ParticleEmitter")
  local s = loaded:GetChild("Hero", true):GetComponent("AnimatedSprite2D")
  return e.effect:GetName(), e.autoRemoveMode, e.numParticles, e.emitting, s.speed, s.animationSet == nil
end
""", {"fx/spark.xml": EFFECT_XML})
    engine.start()
    assert lua("return Save()", engine) == ["fx/spark.xml", 1, 25, True, 1.5, True]


def test_engine_limits_and_argument_errors() -> None:
    engine = new_engine(scene())
    engine.start()
    assert lua("emitter.numParticles = 20000; local other = node:CreateComponent('ParticleEmitter');"
               " other.numParticles = 20000; return emitter.numParticles, other.numParticles", engine) == [10000, 10000]
    warnings = [e["message"] for e in to_python(engine.E.state.log) if e["level"] == "WARNING"]
    assert warnings == ["ParticleEmitter: 20000 particles asked; the engine simulates at most 10000 per emitter"]
    with pytest.raises(Exception, match=r"test:1: bad argument #1 to 'AddColorFrame' \(ColorFrame expected"):
        lua("effect:AddColorFrame(Color(1, 0, 0))", engine)
    with pytest.raises(Exception, match=r"Vector3 expected, got nil"):
        lua("effect.emitterSize = nil", engine)
