"""Urho2D particles against Urho2D's semantics: ParticleEffect2D read from Particle Designer files (.pex) and the
ParticleEmitter2D (emission one particle every lifespan / maxParticles seconds, gravity and radial modes, duration,
ParticlesDuration and ParticlesEnd, the node's scale in PIXEL_SIZE units).

Expected counts and event frames come from a single-precision mirror of the emitter's timers written here; positions,
colours and sizes from the particle's age and the effect's definition. Variances are zero, so nothing depends on
Random() except where a test says so.
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


def pex(**over: Any) -> str:
    """A Particle Designer file: one particle a 1/40 s, living 0.5 s, going up at 100 px/s, red to transparent blue,
    10 px growing to 30 px, for 1 s."""
    values = {"texture": "spark.png", "speed": 100, "lifespan": 0.5, "angle": 90, "gravity_y": 0, "max": 20,
              "duration": 1.0, "type": 0, "max_radius": 100, "min_radius": 0, "rotate": 0, "src": 770, "dst": 1,
              "radial": 0, "tangential": 0, "lifespan_var": 0}
    values.update(over)
    return f"""<?xml version="1.0"?>
<particleEmitterConfig>
  <texture name="{values['texture']}"/>
  <sourcePosition x="0" y="0"/>
  <sourcePositionVariance x="0" y="0"/>
  <speed value="{values['speed']}"/>
  <speedVariance value="0"/>
  <particleLifeSpan value="{values['lifespan']}"/>
  <particleLifespanVariance value="{values['lifespan_var']}"/>
  <angle value="{values['angle']}"/>
  <angleVariance value="0"/>
  <gravity x="0" y="{values['gravity_y']}"/>
  <radialAcceleration value="{values['radial']}"/>
  <tangentialAcceleration value="{values['tangential']}"/>
  <startColor red="1" green="0" blue="0" alpha="1"/>
  <finishColor red="0" green="0" blue="1" alpha="0"/>
  <maxParticles value="{values['max']}"/>
  <startParticleSize value="10"/>
  <finishParticleSize value="30"/>
  <duration value="{values['duration']}"/>
  <emitterType value="{values['type']}"/>
  <maxRadius value="{values['max_radius']}"/>
  <minRadius value="{values['min_radius']}"/>
  <rotatePerSecond value="{values['rotate']}"/>
  <blendFuncSource value="{values['src']}"/>
  <blendFuncDestination value="{values['dst']}"/>
</particleEmitterConfig>
"""


MAIN = """
function Start()
  scene_ = Scene()
  node = scene_:CreateChild("Fx")
  node.position = Vector3(1, 2, 0)
  %s
  effect = cache:GetResource("ParticleEffect2D", "fx/spark.pex")
  emitter = node:CreateComponent("ParticleEmitter2D")
  emitter.effect = effect
  events = {}
  for _, name in ipairs({"ParticlesDuration", "ParticlesEnd"}) do
    SubscribeToEvent(emitter, name, function(eventType, eventData)
      events[#events + 1] = {name = name, frame = time:GetFrameNumber(),
        node = eventData["Node"]:GetPtr("Node").name, same = eventData["Effect"]:GetPtr("ParticleEffect2D") == effect}
    end)
  end
end
"""


def game(setup: str = "", **over: Any) -> Engine:
    files: dict[str, str | bytes] = {"fx/spark.pex": pex(**over), "fx/spark.png": b"\x89PNG not decoded"}
    engine = new_engine(MAIN % setup, files)
    engine.start()
    return engine


def view(engine: Engine) -> dict[str, Any]:
    result: dict[str, Any] = engine_eval(engine, "return E.particles_view(E.REC[G.node])")[0]
    return result


def mirror(lifespan: float, max_particles: int, frames: int, duration: float = math.inf) -> tuple[list[int], list[int],
                                                                                                  list[int]]:
    """Particles after each frame, and the frames of ParticlesDuration and ParticlesEnd, as ParticleEmitter2D's Update
    and HandleScenePostUpdate keep them (no variance)."""
    between = f32(f32(lifespan) / max_particles)
    emit = 0.0
    emission = duration
    ttls: list[float] = []
    counts, durations, ends = [], [], []
    for frame in range(1, frames + 1):
        had, emitting = len(ttls) > 0, emission > 0.0
        ttls = [f32(t - min(FSTEP, t)) for t in ttls if t > 0.0]
        if emission > 0.0:
            emit = f32(emit + FSTEP)
            while emit > 0.0:
                if len(ttls) < max_particles:
                    t = f32(lifespan)
                    ttls.append(f32(t - min(emit, t)))
                emit = f32(emit - between)
            emission = f32(max(0.0, emission - FSTEP))
        if emitting and emission == 0.0:
            durations.append(frame)
        if had and not ttls:
            ends.append(frame)
        counts.append(len(ttls))
    return counts, durations, ends


def test_emission_lifetime_and_events_follow_urho2d_timers() -> None:
    engine = game()
    got = []
    for _ in range(100):
        engine.run_frames(1)
        got.append(view(engine)["count"])
    want, durations, ends = mirror(0.5, 20, 100, duration=1.0)
    assert got == want and max(got) == 20
    events = lua("return events", engine)
    assert [(e["name"], e["frame"]) for e in events] == \
        [("ParticlesDuration", durations[0]), ("ParticlesEnd", ends[0])]
    assert all(e["node"] == "Fx" and e["same"] for e in events)


def test_gravity_mode_moves_grows_and_fades_particles() -> None:
    engine = game(gravity_y=100)
    engine.run_frames(12)
    v = view(engine)
    oldest = max(v["particles"], key=lambda p: p["time"])
    age = oldest["time"]
    assert age == pytest.approx(12 * STEP, abs=1e-6)
    vy, y = 1.0, 2.0   # 100 px/s at PIXEL_SIZE; gravity 100 px/s^2 pulls down
    for _ in range(12):
        vy -= 1.0 * STEP
        y += vy * STEP
    assert oldest["world_position"]["y"] == pytest.approx(y, abs=1e-5)
    assert oldest["world_position"]["x"] == pytest.approx(1.0, abs=1e-6)
    assert oldest["velocity"]["y"] == pytest.approx(vy, abs=1e-5)
    k = age / 0.5
    assert oldest["size"] == pytest.approx(0.1 + 0.2 * k, abs=1e-6)
    assert oldest["color"]["r"] == pytest.approx(1.0 - k, abs=1e-6)
    assert oldest["color"]["b"] == pytest.approx(k, abs=1e-6)
    assert oldest["color"]["a"] == pytest.approx(1.0 - k, abs=1e-6)


def test_radial_mode_orbits_and_shrinks_towards_the_centre() -> None:
    engine = game(type=1, rotate=90, max_radius=100, min_radius=0)
    engine.run_frames(15)
    oldest = max(view(engine)["particles"], key=lambda p: p["time"])
    t = oldest["time"]
    radius = 1.0 - t / 0.5
    angle = math.radians(90.0 + 90.0 * t)   # starts at the effect's angle, turns 90 degrees a second
    assert oldest["world_position"]["x"] == pytest.approx(1.0 - math.cos(angle) * radius, abs=1e-5)
    assert oldest["world_position"]["y"] == pytest.approx(2.0 + math.sin(angle) * radius, abs=1e-5)


def test_node_scale_scales_speed_and_size() -> None:
    engine = game("node.scale = Vector3(2, 2, 2)")
    engine.run_frames(6)
    oldest = max(view(engine)["particles"], key=lambda p: p["time"])
    assert oldest["velocity"]["y"] == pytest.approx(2.0, abs=1e-6)
    assert oldest["size"] == pytest.approx(2 * (0.1 + 0.2 * oldest["time"] / 0.5), abs=1e-6)


def test_max_particles_and_stopping_emission() -> None:
    engine = game(max=5, lifespan=1.0, duration=-1)
    got = []
    for _ in range(90):
        engine.run_frames(1)
        got.append(view(engine)["count"])
    want, _, _ = mirror(1.0, 5, 90)
    assert got == want and max(got) == 5
    lua("emitter.emitting = false", engine)
    engine.run_frames(70)
    assert view(engine)["count"] == 0
    assert [e["name"] for e in lua("return events", engine)] == ["ParticlesEnd"]   # no duration: it never ran out
    assert view(engine)["emission_time"] == math.inf


def test_effect_sets_the_emitters_sprite_and_blend_mode() -> None:
    engine = game()
    assert lua("return emitter.blendMode, emitter.sprite:GetName(), emitter.emitting", engine) == \
        [4, "fx/spark.png", True]   # GL_SRC_ALPHA, GL_ONE: BLEND_ADDALPHA
    engine = game(src=1, dst=0)
    assert lua("return emitter.blendMode", engine) == 0   # BLEND_REPLACE


def test_missing_sprite_is_logged_and_the_effect_still_loads() -> None:
    engine = game(texture="nope.png")
    assert lua("return effect ~= nil, emitter.sprite == nil", engine) == [True, True]
    errors = [e["message"] for e in to_python(engine.E.state.log) if e["level"] == "ERROR"]
    assert errors == ["Could not load sprite fx/nope.png for particle effect"]


def test_bad_pex_logs_one_line_naming_the_file() -> None:
    engine = new_engine("function Start() fx = cache:GetResource('ParticleEffect2D', 'fx/bad.pex') end",
                        {"fx/bad.pex": "<particleeffect><speed value='3'/></particleeffect>"})
    engine.start()
    assert lua("return fx == nil", engine) is True
    errors = [e["message"] for e in to_python(engine.E.state.log) if e["level"] == "ERROR"]
    assert len(errors) == 1 and "fx/bad.pex" in errors[0] and "particleEmitterConfig" in errors[0]


PRINTER = MAIN % "" + """
function Tick()
  if time:GetFrameNumber() % 15 == 0 then print(emitter:GetEffect():GetName(), time:GetFrameNumber()) end
end
SubscribeToEvent("PostUpdate", "Tick")
"""


def test_variance_draws_are_bit_identical_across_fresh_processes(make_game: Callable[..., Path]) -> None:
    game_dir = make_game(PRINTER, {"fx/spark.pex": pex(lifespan_var=0.3, speed=150), "fx/spark.png": "x"})
    digests = set()
    for start in ("cold", "prebooted"):
        report = run_in_subprocess(RunRequest(game_dir=str(game_dir), seconds=1.0, dump=True), start=start)
        assert report["outcome"] == "clean", report
        digests.add(run_evidence(report)["digest"])
    assert len(digests) == 1
    # and the variance is drawn: particles of one frame live for different times
    engine = new_engine(MAIN % "", {"fx/spark.pex": pex(lifespan_var=0.3), "fx/spark.png": b"x"})
    engine.start()
    engine.run_frames(20)
    assert len({round(p["time_to_live"], 6) for p in view(engine)["particles"]}) > 5
