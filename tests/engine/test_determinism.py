"""Same game, same engine: bit-identical evidence in fresh processes started at different times, cold or forked from
the pre-booted engine, in any order and after any other deliverable."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import RunRequest, run_evidence, run_in_subprocess

ORDER_SENSITIVE = """
local scene_
enemies = {}
function Start()
  scene_ = Scene()
  local names = {}
  for i = 1, 60 do names["enemy_" .. i] = i end
  local order = {}
  for k in pairs(names) do order[#order + 1] = k end          -- string keys: hash-seed order
  print("strings", table.concat(order, ","))
  for i = 1, 40 do
    local e = {hp = i}
    enemies[e] = true                                          -- table keys: address order
    enemies[function() return i end] = i                       -- function keys too
  end
  print("tostring", tostring({}), tostring(print) ~= nil)
  SubscribeToEvent("Update", "HandleUpdate")
end
function HandleUpdate(eventType, eventData)
  local acc, seq, dead = 0.0, {}, {}
  for e, v in pairs(enemies) do
    if type(e) == "table" then
      acc = acc * 1.0000001 + e.hp                             -- float accumulation in iteration order
      seq[#seq + 1] = e.hp
      if math.random() < 0.05 then dead[#dead + 1] = e end
    end
  end
  for _, e in ipairs(dead) do enemies[e] = nil; enemies[{hp = e.hp + 100}] = true end
  local n = scene_:CreateChild("n" .. #seq)
  n.position = Vector3(acc % 7, Random(1.0), os.time() % 13)
  if time:GetFrameNumber() % 30 == 0 then print(table.concat(seq, ","), acc, os.clock()) end
end
"""


def _digest(game: Path, start: str | None = None, seconds: float = 2.0) -> str:
    report = run_in_subprocess(RunRequest(game_dir=str(game), seconds=seconds, scripted_input=True, dump=True),
                               start=start)
    report["scene"] = report.get("scene")
    return run_evidence(report)["digest"] + ":" + str(len(report["log"])) + ":" + str(report["outcome"])


def test_pairs_order_sensitive_game_is_bit_identical_across_processes(make_game: Callable[..., Path]) -> None:
    game = make_game(ORDER_SENSITIVE)
    digests = []
    for i in range(4):
        digests.append(_digest(game, start=("cold", "prebooted")[i % 2]))
        time.sleep(1.1)  # a different time(NULL) in each process: stock Lua would reseed
    assert digests[0].endswith(":clean")
    assert len(set(digests)) == 1, digests


OTHERS = (
    "function Start() local t = nil; t.x = 1 end",                                    # an error
    "function Start() SubscribeToEvent('Update', function() while true do end end) end",   # the budget
    "function Start() local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(100) .. i end end",  # the memory cap
    ORDER_SENSITIVE.replace("acc % 7", "acc % 5"),                                      # a near twin
    "local vg function Start() vg = nvgCreate(1) nvgCreateFont(vg, 'f', 'Fonts/Anonymous Pro.ttf')\n"
    "  SubscribeToEvent(vg, 'NanoVGRender', function() nvgBeginFrame(vg, 10, 10, 1) nvgText(vg, 1, 1, 'x')\n"
    "  nvgEndFrame(vg) end) local r = YGNodeNew() for i = 1, 50 do YGNodeInsertChild(r, YGNodeNew(), 0) end end",
)


@pytest.mark.parametrize("order", ["cold first", "prebooted first", "interleaved"])
def test_cold_and_prebooted_evidence_is_the_same_in_any_order(make_game: Callable[..., Path], order: str) -> None:
    """The same deliverable graded cold and pre-booted, before and after other deliverables (each run with a small
    budget and memory cap, so they end in their limits), gives one digest."""
    game = make_game(ORDER_SENSITIVE)
    others = [make_game(src) for src in OTHERS]
    small = {"instruction_budget": 3_000_000, "memory_limit": 32 * 1024 * 1024}
    starts = {"cold first": ["cold", "prebooted"] * 2, "prebooted first": ["prebooted", "cold"] * 2,
              "interleaved": ["prebooted", "prebooted", "cold", "cold"]}[order]
    digests = []
    for i, start in enumerate(starts):
        for other in others[i % 2::2] if i % 3 else others:
            run_in_subprocess(RunRequest(game_dir=str(other), seconds=0.3, settings=small), start=start)
        digests.append(_digest(game, start=start, seconds=1.0))
    assert digests[0].endswith(":clean")
    assert len(set(digests)) == 1, list(zip(starts, digests, strict=True))


def test_the_scene_dump_is_part_of_what_is_compared(make_game: Callable[..., Path]) -> None:
    a = run_in_subprocess(RunRequest(game_dir=str(make_game(ORDER_SENSITIVE)), seconds=0.5, dump=True))
    b = run_in_subprocess(RunRequest(game_dir=str(make_game(ORDER_SENSITIVE.replace("acc % 7", "acc % 5"))),
                                     seconds=0.5, dump=True))
    assert a["scene"] != b["scene"]
