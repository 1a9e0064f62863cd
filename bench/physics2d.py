"""2D physics throughput: simulated seconds per wall second for 1,000 Box2D bodies, engine against Box2D alone.

    python bench/physics2d.py [--seconds 10] [--reps 3]

The scene: a static ground and 1,000 dynamic bodies (boxes and circles, density 1, friction 0.4) dropped in a
40-wide grid onto it, stepped at 60 Hz with Urho2D's 8 velocity and 3 position iterations.  "engine" runs it as a
game would (PhysicsWorld2D, RigidBody2D, CollisionBox2D/CollisionCircle2D on nodes; every awake body writes its
node each step), without and with a per-frame Lua Update handler that reads every body's position;
"Box2D alone" builds the same world directly with the Box2D wheel and steps it, reading nothing.  The ratio is
engine time over Box2D's, in wall time and in this process's CPU time (steadier on a shared machine).  Target
(issue 16): at most 1.5x with no Lua handler.  Each figure is the best of --reps runs, the cases interleaved.
`python bench/physics.py --only 2d` runs this as the 2D section of the physics bench.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

# keep this folder off the import path (bench/engine.py is named like the package it measures)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import Box2D as B  # noqa: E402

from engine import Engine  # noqa: E402

BODIES = 1000
COLUMNS = 40


def _position(i: int) -> tuple[float, float]:
    return (i % COLUMNS) * 1.1 - COLUMNS * 0.55, 1.0 + (i // COLUMNS) * 1.1


GAME = f"""
function Start()
  scene_ = Scene()
  local world = scene_:CreateComponent("PhysicsWorld2D")
  local g = scene_:CreateChild("Ground")
  g.position = Vector3(0, -1, 0)
  g:CreateComponent("RigidBody2D")
  g:CreateComponent("CollisionBox2D").size = Vector2(100, 1)
  nodes = {{}}
  for i = 0, {BODIES - 1} do
    local n = scene_:CreateChild("B" .. i)
    n.position = Vector3((i % {COLUMNS}) * 1.1 - {COLUMNS * 0.55}, 1.0 + (i // {COLUMNS}) * 1.1, 0)
    n:CreateComponent("RigidBody2D").bodyType = BT_DYNAMIC
    local s
    if i % 2 == 0 then s = n:CreateComponent("CollisionBox2D"); s.size = Vector2(1, 1)
    else s = n:CreateComponent("CollisionCircle2D"); s.radius = 0.5 end
    s.density = 1
    s.friction = 0.4
    nodes[#nodes + 1] = n
  end
  if HANDLER then
    SubscribeToEvent("Update", function()
      local sum = 0
      for _, n in ipairs(nodes) do sum = sum + n.position.y end
    end)
  end
end
"""


def engine_run(seconds: float, handler: bool) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="bench-physics2d-") as folder:
        tmp = Path(folder)
        (tmp / "scripts").mkdir()
        (tmp / "scripts" / "main.lua").write_text(("HANDLER = true\n" if handler else "") + GAME)
        engine = Engine(tmp)
        engine.start()
        frames = round(seconds * 60)
        t0, c0 = time.perf_counter(), time.process_time()
        engine.run_frames(frames)
        elapsed = time.perf_counter() - t0, time.process_time() - c0
        report = engine.report()
    if report.outcome != "clean":
        raise SystemExit(f"engine run failed: {report.errors[:1]}")
    return elapsed


def box2d_run(seconds: float) -> tuple[float, float]:
    world = B.b2World(gravity=(0, -9.81), doSleep=True)
    ground = world.CreateBody(B.b2BodyDef(type=B.b2_staticBody, position=(0, -1)))
    ground.CreateFixture(B.b2FixtureDef(shape=B.b2PolygonShape(box=(50, 0.5))))
    for i in range(BODIES):
        body = world.CreateBody(B.b2BodyDef(type=B.b2_dynamicBody, position=_position(i)))
        shape = B.b2PolygonShape(box=(0.5, 0.5)) if i % 2 == 0 else B.b2CircleShape(radius=0.5)
        body.CreateFixture(B.b2FixtureDef(shape=shape, density=1, friction=0.4))
    frames = round(seconds * 60)
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(frames):
        world.Step(1 / 60, 8, 3)
    return time.perf_counter() - t0, time.process_time() - c0


def report(seconds: float, reps: int) -> None:
    alone, bare, lua = [], [], []
    for _ in range(reps):   # interleaved, best of reps: the machine is shared
        alone.append(box2d_run(seconds))
        bare.append(engine_run(seconds, handler=False))
        lua.append(engine_run(seconds, handler=True))
    s = seconds
    print(f"2D: {BODIES} Box2D bodies falling into a pile, {s:g} simulated s at 60 Hz (best of {reps})")
    for k, clock in enumerate(("wall", "cpu")):
        a, e, h = (min(x[k] for x in runs) for runs in (alone, bare, lua))
        print(f"  [{clock}] Box2D alone            {s / a:8.1f} sim s / {clock} s")
        print(f"  [{clock}] engine, no Lua handler {s / e:8.1f} sim s / {clock} s   ratio {e / a:5.2f}x (target 1.5x)")
        print(f"  [{clock}] engine, Lua handler    {s / h:8.1f} sim s / {clock} s   ratio {h / a:5.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    report(args.seconds, args.reps)


if __name__ == "__main__":
    main()
