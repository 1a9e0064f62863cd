"""Engine throughput: simulated seconds per wall second for animated scenes, against a pure-Lua floor.

    python bench/engine.py [--seconds 10]

Prints, for a 100-node and a 1,000-node scene each rotated and moved by a Lua Update handler through the
UrhoX API, the simulated seconds per wall second, and the ratio of engine time to a pure-Lua loop doing the
same math (quaternion multiply and vector add on plain tables) in the same Lua state: the design's floor.
Target: the 100-node scene runs 10 simulated seconds in under 0.5 s of wall time.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

# This file is named like the package it measures: keep its own folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from engine import Engine  # noqa: E402

GAME = """
local scene_
local nodes = {}
function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  for i = 1, {count} do
    local n = scene_:CreateChild("Box")
    n.position = Vector3(Random(40.0) - 20.0, 0.0, Random(40.0) - 20.0)
    n.rotation = Quaternion(0.0, Random(360.0), 0.0)
    n:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Box.mdl")
    nodes[i] = n
  end
  SubscribeToEvent("Update", "HandleUpdate")
end
function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  local spin = Quaternion(10.0 * dt, 20.0 * dt, 30.0 * dt)
  local move = Vector3(0.0, 0.0, 1.0) * dt
  for i = 1, #nodes do
    local n = nodes[i]
    n:Rotate(spin)
    n:Translate(move)
  end
end
"""

FLOOR = """
local count, frames, dt = ...
local function qmul(a, b)
  return {w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          y = a.w * b.y + a.y * b.w + a.z * b.x - a.x * b.z, z = a.w * b.z + a.z * b.w + a.x * b.y - a.y * b.x}
end
local nodes = {}
for i = 1, count do nodes[i] = {p = {x = 0.0, y = 0.0, z = 0.0}, q = {w = 1.0, x = 0.0, y = 0.0, z = 0.0}} end
local spin = {w = 0.9999, x = 0.01, y = 0.0, z = 0.0}
for _ = 1, frames do
  local move = {x = 0.0, y = 0.0, z = dt}
  for i = 1, count do
    local n = nodes[i]
    n.q = qmul(n.q, spin)
    local p = n.p
    n.p = {x = p.x + move.x, y = p.y + move.y, z = p.z + move.z}
  end
end
return #nodes
"""


def measure(count: int, seconds: float) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "scripts").mkdir()
        (Path(tmp) / "scripts" / "main.lua").write_text(GAME.replace("{count}", str(count)))
        engine = Engine(Path(tmp))
        engine.start()
        start = time.perf_counter()
        engine.run_seconds(seconds)
        wall = time.perf_counter() - start
        assert engine.report().outcome == "clean", engine.report().errors[:1]
        frames = engine.frame
        floor_fn = engine.runtime.eval("function(src, ...) return load(src)(...) end")
        start = time.perf_counter()
        floor_fn(FLOOR, count, frames, 1 / 60)
        floor = time.perf_counter() - start
    return wall, floor


def main() -> None:
    parser = argparse.ArgumentParser(description="engine throughput")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    header = ("scene", "sim s", "wall s", "sim s / wall s", "pure-Lua floor s", "engine/floor")
    print("{:>12} {:>6} {:>8} {:>15} {:>17} {:>13}".format(*header))
    for count in (100, 1000):
        wall, floor = measure(count, args.seconds)
        print(f"{count:>7} nodes {args.seconds:>6g} {wall:>8.3f} {args.seconds / wall:>15.1f} {floor:>17.3f} "
              f"{wall / floor:>13.2f}")
    print("target: 100 nodes, 10 simulated s in under 0.5 s wall")


if __name__ == "__main__":
    main()
