"""Same game, same engine: bit-identical evidence in fresh processes started at different times."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

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


def _digest(game: Path) -> str:
    report = run_in_subprocess(RunRequest(game_dir=str(game), seconds=2.0, scripted_input=True, dump=True))
    report["scene"] = report.get("scene")
    return run_evidence(report)["digest"] + ":" + str(len(report["log"])) + ":" + str(report["outcome"])


def test_pairs_order_sensitive_game_is_bit_identical_across_processes(make_game: Callable[..., Path]) -> None:
    game = make_game(ORDER_SENSITIVE)
    digests = []
    for _ in range(4):
        digests.append(_digest(game))
        time.sleep(1.1)  # a different time(NULL) in each process: stock Lua would reseed
    assert digests[0].endswith(":clean")
    assert len(set(digests)) == 1, digests


def test_the_scene_dump_is_part_of_what_is_compared(make_game: Callable[..., Path]) -> None:
    a = run_in_subprocess(RunRequest(game_dir=str(make_game(ORDER_SENSITIVE)), seconds=0.5, dump=True))
    b = run_in_subprocess(RunRequest(game_dir=str(make_game(ORDER_SENSITIVE.replace("acc % 7", "acc % 5"))),
                                     seconds=0.5, dump=True))
    assert a["scene"] != b["scene"]
