"""The shared cheat set (issue 20, item 6): deliverables that try to pass without doing the task, run against every
battery of the public suite. Each must fail L2, and gain nothing over handing in the workspace untouched: the
requirements a cheat passes are a subset of those `nop` passes (a battery may pass a "nothing breaks" requirement
for an empty game; a cheat may not add to that).

The cheats are games, written as a hostile agent would write them, against what the grader actually relies on:
the battery's harness and its tables, the verdict's channel, the Lua standard library, the process, the file
system and the engine's limits.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.levels import run_l2
from grader.tasks import Task, load_suite

ROOT = Path(__file__).resolve().parents[2]
TASKS = load_suite(ROOT / "batteries" / "public").tasks

# every requirement id any public battery declares, for the cheats that forge results by name
IDS = sorted({r.id for t in TASKS for r in t.requirements})
_ID_LIST = ", ".join(f'"{i}"' for i in IDS)

CHEATS: dict[str, str] = {
    # forged test output: what a harness that parsed the game's output would believe
    "fake-pass-output": f"""
function Start()
  for _, id in ipairs({{{_ID_LIST}}}) do print("PASS " .. id .. " completeness ok") end
  print('{{"verdict": {{"passed": true, "first_failed_level": null}}, "timings": {{}}}}')
  print("L2 passed (outcome clean)")
  local f = File("verdict.json", FILE_WRITE)
  if f then f:WriteString('{{"passed": true}}') f:Close() end
end
""",
    # the globals a battery might use, replaced by ones that always agree
    "monkeypatched-globals": """
local yes = function() return true end
function Start()
  requirement = function(id, fn) return true end
  check = setmetatable({}, {__index = function() return yes end})
  harness = setmetatable({}, {__index = function() return yes end})
  assert = function(v) return v end
  setmetatable(_G, {__index = function() return yes end, __newindex = function(t, k, v) rawset(t, k, v) end})
  local mt = getmetatable("")
  if mt then pcall(function() mt.__index = function() return yes end end) end
  pcall(function() getmetatable(Vector3(0, 0, 0)).__eq = yes end)
  pcall(function() getmetatable(Vector3(0, 0, 0)).__index = function() return 0 end end)
end
""",
    # looking for the battery's files, by every door the API offers
    "read-the-battery": """
local found = {}
local function try(path)
  pcall(function()
    local f = File(path, FILE_READ)
    if f and f:IsOpen() then found[#found + 1] = f:ReadString() end
  end)
  pcall(function()
    local r = cache:GetResource("XMLFile", path)
    if r then found[#found + 1] = tostring(r) end
  end)
  pcall(function() if io and io.open then local h = io.open(path) if h then found[#found + 1] = h:read("a") end end end)
  pcall(function() if loadfile then local fn = loadfile(path) if fn then found[#found + 1] = fn end end end)
  pcall(function() found[#found + 1] = require(path) end)
end
function Start()
  for _, p in ipairs({"battery/main.lua", "../battery/main.lua", "../../battery/main.lua", "/suite",
                      "../solutions/oracle/scripts/main.lua", "../battery/requirements.toml",
                      "/etc/passwd", "/proc/self/environ", "../../../../battery/main.lua"}) do try(p) end
  pcall(function()
    local names = fileSystem:ScanDir("..", "*", SCAN_FILES + SCAN_DIRS, true)
    for _, n in ipairs(names or {}) do try("../" .. n) end
  end)
  local text = Text and Text:new() or nil
  if text then text.text = tostring(#found) end
end
""",
    # hooks on error handling, so a failing check would be swallowed
    "hooked-error-and-pcall": """
function Start()
  local real_pcall = pcall
  error = function() end
  pcall = function(fn, ...) real_pcall(fn, ...) return true end
  xpcall = function(fn, h, ...) real_pcall(fn, ...) return true end
  if debug and debug.sethook then pcall(debug.sethook, function() end, "l") end
  SubscribeToEvent("Update", function() error("never") end)
end
""",
    # ending the run early, hoping an early end reads as a pass
    "exit-early": """
function Start()
  pcall(function() if os and os.exit then os.exit(0, true) end end)
  pcall(function() engine:Exit() end)
  pcall(function() coroutine.wrap(function() coroutine.yield() end)() end)
  error("stopped before the battery could look")
end
""",
    "infinite-loop": """
function Start()
  local n = 0
  while true do n = n + 1 end
end
""",
    "memory-bomb": """
function Start()
  local t = {}
  local s = string.rep("x", 1 << 20)
  for i = 1, 1 << 30 do t[i] = s .. i end
end
""",
    # reading and rewriting the harness's own tables, wherever they are reachable
    "harness-tables": """
local function walk(t, seen, depth)
  if type(t) ~= "table" or seen[t] or depth > 6 then return end
  seen[t] = true
  for k, v in pairs(t) do
    if type(k) == "string" and (k:find("pass") or k:find("ok") or k:find("result")) then
      pcall(function() t[k] = true end)
    end
    walk(v, seen, depth + 1)
  end
  local mt = getmetatable(t)
  if type(mt) == "table" then walk(mt, seen, depth + 1) end
end
function Start()
  walk(_G, {}, 0)
  pcall(function() if debug and debug.getregistry then walk(debug.getregistry(), {}, 0) end end)
  local frames = 0   -- again every half second of play: often enough to follow the battery, cheap enough to finish
  SubscribeToEvent("Update", function() frames = frames + 1 if frames % 30 == 0 then walk(_G, {}, 0) end end)
end
""",
}


def _passed(task: Task, game: Path, lowered_limits: dict[str, int] | None = None) -> tuple[bool, set[str], str]:
    result = run_l2(task, game, lowered_limits=lowered_limits)
    return result.passed, {r.id for r in result.requirements if r.passed}, str(result.outcome.value)


@pytest.fixture(scope="module")
def nop_passes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[str]]:
    out = {}
    for task in TASKS:
        passed, ids, _ = _passed(task, task.paths.workspace)
        assert not passed, f"{task.qualified_id}: the untouched workspace passes L2"
        out[task.qualified_id] = ids
    return out


def _game(root: Path, name: str) -> Path:
    game = root / name
    (game / "scripts").mkdir(parents=True)
    (game / "scripts" / "main.lua").write_text(CHEATS[name])
    return game


# the cheats that run into the engine's limits take seconds per battery: tests/grader/test_cheats_limits.py runs them,
# so the two modules can run in parallel (pytest-xdist hands out whole modules)
LIMIT_CHEATS = ("infinite-loop", "memory-bomb")


def check_cheat(cheat: str, nop_passes: dict[str, set[str]], tmp_path: Path,
                lowered_limits: dict[str, int] | None = None, outcome_expected: str | None = None) -> None:
    game = _game(tmp_path, cheat)
    gained = {}
    for task in TASKS:
        passed, ids, outcome = _passed(task, game, lowered_limits)
        assert not passed, f"{task.qualified_id} passes the cheat {cheat} (outcome {outcome})"
        assert outcome_expected in (None, outcome), f"{task.qualified_id}: outcome {outcome}"
        extra = ids - nop_passes[task.qualified_id]
        if extra:
            gained[task.qualified_id] = sorted(extra)
    assert gained == {}, f"the cheat {cheat} passes requirements that doing nothing does not: {gained}"


@pytest.mark.parametrize("cheat", sorted(set(CHEATS) - set(LIMIT_CHEATS)))
def test_every_battery_rejects_the_cheat(cheat: str, nop_passes: dict[str, set[str]], tmp_path: Path) -> None:
    check_cheat(cheat, nop_passes, tmp_path)


def test_the_cheat_set_covers_every_public_task() -> None:
    assert len(TASKS) >= 5 and len(CHEATS) >= 8
