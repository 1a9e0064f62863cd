"""Physics throughput: simulated seconds per wall second, the engine against the physics library alone.

    python bench/physics.py [--seconds 5] [--bodies 1000] [--reps 2] [--only 3d|2d]

3D: 1,000 boxes (a 10 x 10 grid, 10 layers) fall onto a static floor and settle, through the UrhoX API
(PhysicsWorld, RigidBody, CollisionShape) at 60 frames a second, once with no Lua handler and once with a per-frame
Update handler that reads every box node's position.  The floor is the same world built in pybullet alone with the
engine's pinned solver settings (engine/_bullet.py, SOLVER_SETTINGS), stepped the same number of times.  Target:
the engine without a handler takes at most 1.5x pybullet's time.  A second floor, pybullet stepping and reading
every box after each step (one pybullet call per body: it has no read of many bodies), shows the cost any Python
host of pybullet pays to move its nodes; the engine reads only the bodies that may have moved (engine/_bullet_sync.py).

2D: bench/physics2d.py's 1,000 Box2D bodies falling into a pile, against Box2D alone (the same target).

Sections are keyed by name (SECTIONS).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# This file sits beside the package it measures: keep its own folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from engine import Engine  # noqa: E402

GAME_3D = """
local N = %d
function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  scene_:CreateComponent("PhysicsWorld")
  local floor = scene_:CreateChild("Floor")
  floor.position = Vector3(0, -0.5, 0)
  floor:CreateComponent("RigidBody")
  floor:CreateComponent("CollisionShape"):SetBox(Vector3(100, 1, 100))
  boxes = {}
  for i = 0, N - 1 do
    local n = scene_:CreateChild("Box")
    n.position = Vector3((i %% 10) * 1.1 - 5, 1 + (i // 100) * 1.1, ((i // 10) %% 10) * 1.1 - 5)
    local b = n:CreateComponent("RigidBody")
    b.mass = 1
    n:CreateComponent("CollisionShape"):SetBox(Vector3(1, 1, 1))
    boxes[#boxes + 1] = n
  end
  if HANDLER then
    SubscribeToEvent("Update", function()
      local sum = 0
      for i = 1, #boxes do sum = sum + boxes[i].position.y end
      LAST = sum
    end)
  end
end
"""


def _engine_3d(bodies: int, frames: int, handler: bool) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        game = Path(tmp)
        (game / "scripts").mkdir()
        source = ("HANDLER = true\n" if handler else "") + GAME_3D % bodies
        (game / "scripts" / "main.lua").write_text(source, encoding="utf-8")
        engine = Engine(game)
        engine.start()
        engine.run_frames(1)   # the bodies are built at the first step; time the stepping, as for pybullet
        start, cpu = time.perf_counter(), time.process_time()
        engine.run_frames(frames)
        elapsed = time.perf_counter() - start, time.process_time() - cpu
        report = engine.report()
        if report.outcome != "clean":
            raise SystemExit(f"bench game did not run clean: {report.errors[:1]} {report.missing_api}")
        return elapsed


def _pybullet_3d(bodies: int, frames: int, read: bool = False) -> tuple[float, float]:
    """pybullet alone stepping the world; with `read`, also reading every box's transform after each step, as any
    host of pybullet must to move its nodes (pybullet has no call that reads many bodies at once)."""
    from engine import BULLET_SOLVER_SETTINGS as SOLVER_SETTINGS
    from engine import import_pybullet
    p = import_pybullet()
    cid = p.connect(p.DIRECT)
    try:
        p.setPhysicsEngineParameter(physicsClientId=cid, fixedTimeStep=1 / 60, numSolverIterations=10,
                                    **SOLVER_SETTINGS)
        p.setGravity(0, -9.81, 0, physicsClientId=cid)
        floor = p.createCollisionShape(p.GEOM_BOX, halfExtents=[50, 0.5, 50], physicsClientId=cid)
        p.createMultiBody(0, floor, basePosition=[0, -0.5, 0], useMaximalCoordinates=True, physicsClientId=cid)
        box = p.createCollisionShape(p.GEOM_BOX, halfExtents=[0.5, 0.5, 0.5], physicsClientId=cid)
        uids = []
        for i in range(bodies):
            uid = p.createMultiBody(1.0, box, basePosition=[(i % 10) * 1.1 - 5, 1 + (i // 100) * 1.1,
                                                            ((i // 10) % 10) * 1.1 - 5],
                                    useMaximalCoordinates=True, physicsClientId=cid)
            uids.append(uid)
            p.changeDynamics(uid, -1, mass=1.0, localInertiaDiagonal=[1 / 6] * 3, lateralFriction=0.5,
                             restitution=0.0, linearDamping=0.0, angularDamping=0.0,
                             activationState=p.ACTIVATION_STATE_ENABLE_SLEEPING, physicsClientId=cid)
        p.stepSimulation(physicsClientId=cid)
        start, cpu = time.perf_counter(), time.process_time()
        get = p.getBasePositionAndOrientation
        for _ in range(frames):
            p.stepSimulation(physicsClientId=cid)
            if read:
                for uid in uids:
                    get(uid, cid)
        return time.perf_counter() - start, time.process_time() - cpu
    finally:
        p.disconnect(physicsClientId=cid)


def section_3d(args: argparse.Namespace) -> None:
    """Both clocks: wall time, and CPU time (the process's own: pybullet and the engine run on one thread, so on a
    shared machine CPU time is the work done, wall time also the waits for a core)."""
    frames = round(args.seconds * 60)
    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.reps):   # interleaved, best of reps: the machine is shared
        for name, fn in (("pybullet alone", lambda: _pybullet_3d(args.bodies, frames)),
                         ("pybullet, reading every box", lambda: _pybullet_3d(args.bodies, frames, True)),
                         ("engine, no Lua handler", lambda: _engine_3d(args.bodies, frames, False)),
                         ("engine, per-frame Lua handler", lambda: _engine_3d(args.bodies, frames, True))):
            wall, cpu = fn()
            old = best.get(name, (wall, cpu))
            best[name] = (min(old[0], wall), min(old[1], cpu))
    print(f"3D: {args.bodies} boxes falling onto a floor, {args.seconds:g} simulated s ({frames} steps of 1/60 s, "
          f"best of {args.reps})")
    for k, clock in enumerate(("wall", "cpu")):
        floor = best["pybullet alone"][k]
        for name, times in best.items():
            ratio = "" if name == "pybullet alone" else f"  {times[k] / floor:.2f}x pybullet"
            print(f"  [{clock}] {name:32s} {args.seconds / times[k]:8.2f} sim s / {clock} s{ratio}")
    ratio = best["engine, no Lua handler"][1] / best["pybullet alone"][1]
    print(f"  target (no handler, cpu) <= 1.5x pybullet: {'met' if ratio <= 1.5 else 'NOT met'} ({ratio:.2f}x)")
    read = best["engine, no Lua handler"][1] / best["pybullet, reading every box"][1]
    print(f"  engine (no handler, cpu) against pybullet stepping and reading every box: {read:.2f}x")


def section_2d(args: argparse.Namespace) -> None:
    """The 2D section: bench/physics2d.py's scene and figures (Box2D; 1,000 bodies whatever --bodies says)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_physics2d", Path(__file__).resolve().parent / "physics2d.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.report(args.seconds, args.reps)


SECTIONS: dict[str, Callable[[argparse.Namespace], None]] = {"3d": section_3d, "2d": section_2d}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--bodies", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--only", choices=sorted(SECTIONS), default=None)
    args = parser.parse_args()
    for name, section in SECTIONS.items():
        if args.only in (None, name):
            section(args)


if __name__ == "__main__":
    main()
