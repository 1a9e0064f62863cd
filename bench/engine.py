"""Engine throughput: simulated seconds per wall second for animated scenes, against a pure-Lua floor.

    python bench/engine.py [--seconds 10]

Prints, for a 100-node and a 1,000-node scene each rotated and moved by a Lua Update handler through the
UrhoX API, the simulated seconds per wall second, and the ratio of engine time to a pure-Lua loop doing the
same math (quaternion multiply and vector add on plain tables) in the same Lua state: the design's floor.
Target: the 100-node scene runs 10 simulated seconds in under 0.5 s of wall time.

The NanoVG case is a HUD of 500 draw calls a frame (100 panels, each a filled and stroked rounded rectangle, a
gradient-filled circle and two texts, one of them changing every frame) drawn in the NanoVGRender event.

The Yoga case is a urhox-libs-sized layout of 300 nodes (a root, 20 rows of 14 items, padding, gaps, flexGrow),
styled once; every frame one item's width changes, the tree is laid out again and every node's left, top, width
and height are read.  It prints the cost per frame and the YG calls per second of a loop of style setters (each
one crossing into Yoga).

The instruction budget's cost: game-code workloads (recursive calls, numeric loops over tables, ipairs, a branchy
while loop, method calls on objects, string building, coroutines) run in the game's sandbox of a configured engine,
charged by the VM's budget counter (engine/native/budget.c), against the same chunk marked as engine code, which the
VM never charges: the same Lua loop with no hook and no charge at all (the floor).  Beside it, for reference, the
count hook the engine used before (a Lua hook every 1,000 instructions that asks debug.getinfo whether engine code
is running).  The 100-node scene is measured the same way (its handler charged, then not).  Each figure is the best
of --reps runs, the modes interleaved.  Target: at most 1.1x the floor.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

# This file is named like the package it measures: keep its own folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from engine import Engine, to_python  # noqa: E402

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


HUD = """
local vg
function Start()
  vg = nvgCreate(1)
  nvgCreateFont(vg, "sans", "Fonts/MiSans-Regular.ttf")
  SubscribeToEvent(vg, "NanoVGRender", "HandleRender")
end
function HandleRender()
  nvgBeginFrame(vg, graphics:GetWidth(), graphics:GetHeight(), 1.0)
  nvgFontFace(vg, "sans")
  nvgFontSize(vg, 14)
  nvgTextAlign(vg, NVG_ALIGN_LEFT + NVG_ALIGN_MIDDLE)
  local frame = time:GetFrameNumber()
  for i = 0, 99 do
    nvgSave(vg)
    nvgTranslate(vg, (i % 10) * 120 + 10, (i // 10) * 60 + 10)
    nvgBeginPath(vg)
    nvgRoundedRect(vg, 0, 0, 110, 50, 6)
    nvgFillColor(vg, nvgRGBA(30, 30, 40, 200))
    nvgFill(vg)
    nvgStrokeColor(vg, nvgRGBA(255, 255, 255, 80))
    nvgStrokeWidth(vg, 1)
    nvgStroke(vg)
    nvgBeginPath(vg)
    nvgCircle(vg, 15, 25, 8)
    nvgFillPaint(vg, nvgRadialGradient(vg, 15, 25, 2, 8, nvgRGBA(255, 200, 0, 255), nvgRGBA(255, 100, 0, 255)))
    nvgFill(vg)
    nvgFillColor(vg, nvgRGBA(255, 255, 255, 255))
    nvgText(vg, 30, 18, "Slot " .. i)
    nvgText(vg, 30, 34, "Frame " .. frame)
    nvgRestore(vg)
  end
  nvgEndFrame(vg)
end
"""


def measure_hud(seconds: float) -> tuple[float, int]:
    """Wall seconds for `seconds` of the NanoVG HUD, and the draw commands of its last frame."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "scripts").mkdir()
        (Path(tmp) / "scripts" / "main.lua").write_text(HUD)
        engine = Engine(Path(tmp))
        engine.start()
        start = time.perf_counter()
        engine.run_seconds(seconds)
        wall = time.perf_counter() - start
        assert engine.report().outcome == "clean", engine.report().errors[:1]
        draws = len(to_python(engine.E.nanovg_records()))
    return wall, draws


YOGA = """
local root, all = nil, {}
local function node(parent, index)
  local n = YGNodeNew()
  all[#all + 1] = n
  if parent then YGNodeInsertChild(parent, n, index) end
  return n
end
function Start()
  root = node()
  YGNodeStyleSetPadding(root, YGEdgeAll, 16)
  YGNodeStyleSetGap(root, YGGutterAll, 8)
  for r = 0, 19 do
    local row = node(root, r)
    YGNodeStyleSetFlexDirection(row, YGFlexDirectionRow)
    YGNodeStyleSetGap(row, YGGutterColumn, 4)
    YGNodeStyleSetPadding(row, YGEdgeHorizontal, 6)
    YGNodeStyleSetAlignItems(row, YGAlignCenter)
    for i = 0, 13 do
      local item = node(row, i)
      YGNodeStyleSetFlexGrow(item, 1 + i % 3)
      YGNodeStyleSetHeight(item, 20 + i % 4)
      YGNodeStyleSetMargin(item, YGEdgeVertical, 2)
    end
  end
  SubscribeToEvent("Update", "HandleUpdate")
end
function HandleUpdate()
  local frame = time:GetFrameNumber()
  YGNodeStyleSetWidth(all[3 + frame % 280], 30 + frame % 7)
  YGNodeCalculateLayout(root, graphics:GetWidth(), graphics:GetHeight(), YGDirectionLTR)
  local sum = 0.0
  for i = 1, #all do
    local n = all[i]
    sum = sum + YGNodeLayoutGetLeft(n) + YGNodeLayoutGetTop(n) + YGNodeLayoutGetWidth(n) + YGNodeLayoutGetHeight(n)
  end
  checksum = sum
end
"""

YOGA_CALLS = """
local n, count = YGNodeNew(), ...
for i = 1, count do YGNodeStyleSetWidth(n, i % 100) end
"""


def measure_yoga(seconds: float) -> tuple[float, int, int, float]:
    """Wall seconds and frames for `seconds` of the Yoga layout, its node count, and YG setter calls per second."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "scripts").mkdir()
        (Path(tmp) / "scripts" / "main.lua").write_text(YOGA)
        engine = Engine(Path(tmp))
        engine.start()
        start = time.perf_counter()
        engine.run_seconds(seconds)
        wall = time.perf_counter() - start
        assert engine.report().outcome == "clean", engine.report().errors[:1]
        run_lua = engine.runtime.eval("function(src, env, ...) return load(src, '=bench', 't', env)(...) end")
        nodes = int(run_lua("return YGNodeGetLiveCount()", engine.game_env))
        count = 200_000
        start = time.perf_counter()
        run_lua(YOGA_CALLS, engine.game_env, count)
        calls = count / (time.perf_counter() - start)
    return wall, engine.frame, nodes, calls


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


WORKLOADS = {
    "calls (fib 27)": """
        local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
        return fib(27)""",
    "numeric for, table writes": """
        local t = {}
        for i = 1, 3000000 do t[(i % 1000) + 1] = i * 2 end
        return #t""",
    "ipairs sum": """
        local t = {}
        for i = 1, 1000 do t[i] = i end
        local acc = 0
        for _ = 1, 3000 do for _, v in ipairs(t) do acc = acc + v end end
        return acc""",
    "branchy while": """
        local i, x = 0, 0
        while i < 5000000 do
          i = i + 1
          if i % 3 == 0 then x = x + 1 elseif i % 5 == 0 then x = x - 1 end
        end
        return x""",
    "methods on objects": """
        local V = {}
        V.__index = V
        local function new(x, y) return setmetatable({x = x, y = y}, V) end
        function V:add(o) return new(self.x + o.x, self.y + o.y) end
        function V:len2() return self.x * self.x + self.y * self.y end
        local acc, v, d = 0, new(0, 0), new(1, 2)
        for _ = 1, 500000 do v = v:add(d); acc = acc + v:len2() % 7 end
        return acc""",
    "string building": """
        local parts = {}
        for i = 1, 200000 do parts[#parts + 1] = ("%d:%s"):format(i, ("x"):rep(i % 7)) end
        local s = table.concat(parts, ",")
        local n = 0
        for w in s:gmatch("[^,]+") do n = n + #w end
        return n""",
    "coroutines": """
        local co = coroutine.wrap(function() local i = 0 while true do i = i + 1 coroutine.yield(i) end end)
        local acc = 0
        for _ = 1, 300000 do acc = acc + co() end
        return acc""",
}

# The count hook the engine used before the budget moved into the VM (engine/lua/boot.lua at grader.1): a Lua
# hook every 1,000 instructions that asks whether engine code is running.
OLD_HOOK = """
local dgetinfo, ssub, dsethook = debug.getinfo, string.sub, debug.sethook
local state = {instructions = 0}
local function hook()
  local info = dgetinfo(2, "S")
  local in_engine = info and ssub(info.source, 1, 8) == "@engine/"
  if in_engine then return end
  state.instructions = state.instructions + 1000
end
return function(on) if on then dsethook(hook, "", 1000) else dsethook() end end
"""


def budget_cost(reps: int) -> list[tuple[str, float, float, float]]:
    """(workload, charged s, floor s, old hook s): best of `reps`, in a configured engine's game sandbox."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "scripts").mkdir()
        (Path(tmp) / "scripts" / "main.lua").write_text("function Start() end\n")
        engine = Engine(Path(tmp))
        engine.start()
        compile_game = engine.runtime.eval(
            "function(src, name, env) return assert(load(src, '=' .. name, 't', env)) end")
        unmetered = engine.E.unmetered
        old_hook = unmetered(compile_game(OLD_HOOK, "old hook", engine.E))()   # it was engine code
        clock = engine.runtime.eval("os.clock")
        rows = []
        for name, src in WORKLOADS.items():
            charged = compile_game(src, name, engine.game_env)
            floor = unmetered(compile_game(src, name, engine.game_env))
            best = {"charged": float("inf"), "floor": float("inf"), "hook": float("inf")}
            for _ in range(reps):
                for mode, fn in (("charged", charged), ("floor", floor), ("hook", floor)):
                    if mode == "hook":
                        old_hook(True)
                    engine.E.enter_game()
                    start = clock()
                    fn()
                    elapsed = clock() - start
                    engine.E.leave_game()
                    if mode == "hook":
                        old_hook(False)
                    best[mode] = min(best[mode], elapsed)
            rows.append((name, best["charged"], best["floor"], best["hook"]))
        assert engine.E.debug.getbudget() > 0, "the workloads ran out of budget"
    return rows


def scene_budget_cost(seconds: float, reps: int) -> tuple[float, float]:
    """CPU seconds of the 100-node scene with its handler charged, and with it marked as engine code."""
    best = {True: float("inf"), False: float("inf")}
    for _ in range(reps):
        for charged in (True, False):
            with tempfile.TemporaryDirectory() as tmp:
                (Path(tmp) / "scripts").mkdir()
                (Path(tmp) / "scripts" / "main.lua").write_text(GAME.replace("{count}", "100"))
                engine = Engine(Path(tmp))
                engine.start()
                if not charged:
                    engine.E.unmetered(engine.game_env["HandleUpdate"])
                start = time.process_time()
                engine.run_seconds(seconds)
                best[charged] = min(best[charged], time.process_time() - start)
                assert engine.report().outcome == "clean", engine.report().errors[:1]
    return best[True], best[False]


def main() -> None:
    parser = argparse.ArgumentParser(description="engine throughput")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--reps", type=int, default=7, help="runs of each budget-cost workload (best is kept)")
    args = parser.parse_args()
    print("instruction budget (VM counter) against the floor (the same chunk, never charged), best of "
          f"{args.reps}:")
    header = ("workload (CPU s)", "charged s", "floor s", "ratio", "old hook s", "old ratio")
    print("{:<28} {:>10} {:>9} {:>7} {:>11} {:>10}".format(*header))
    ratios = []
    for name, charged, floor, hook in budget_cost(args.reps):
        ratios.append(charged / floor)
        print(f"{name:<28} {charged:>10.4f} {floor:>9.4f} {charged / floor:>7.3f} {hook:>11.4f} "
              f"{hook / floor:>10.3f}")
    charged_scene, floor_scene = scene_budget_cost(args.seconds, args.reps)
    ratios.append(charged_scene / floor_scene)
    print(f"{'100-node scene (handler)':<28} {charged_scene:>10.4f} {floor_scene:>9.4f} "
          f"{charged_scene / floor_scene:>7.3f}")
    print(f"worst ratio {max(ratios):.3f}, geometric mean "
          f"{math.exp(sum(math.log(r) for r in ratios) / len(ratios)):.3f}; target: at most 1.1x the floor")
    print()
    header = ("scene", "sim s", "wall s", "sim s / wall s", "pure-Lua floor s", "engine/floor")
    print("{:>12} {:>6} {:>8} {:>15} {:>17} {:>13}".format(*header))
    for count in (100, 1000):
        wall, floor = measure(count, args.seconds)
        print(f"{count:>7} nodes {args.seconds:>6g} {wall:>8.3f} {args.seconds / wall:>15.1f} {floor:>17.3f} "
              f"{wall / floor:>13.2f}")
    print("target: 100 nodes, 10 simulated s in under 0.5 s wall")
    wall, draws = measure_hud(args.seconds)
    print(f"NanoVG HUD, {draws} draw calls a frame: {args.seconds:g} simulated s in {wall:.3f} s wall, "
          f"{args.seconds / wall:.1f} simulated s per wall s")
    wall, frames, nodes, calls = measure_yoga(args.seconds)
    print(f"Yoga, {nodes} nodes laid out and read every frame: {wall / frames * 1000:.3f} ms a frame "
          f"({args.seconds:g} simulated s in {wall:.3f} s wall); style setters: {calls:,.0f} YG calls/s")


if __name__ == "__main__":
    main()
