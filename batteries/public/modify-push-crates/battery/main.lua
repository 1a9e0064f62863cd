-- Battery for modify-push-crates: the new crates (placement, pushes, every kind of blocked push) and the old
-- game's rules (walking, walls, move count, gems, exit, level change, R, HUD), played through both levels.
--
-- Level 1 from (1, 1): bumps; D; two pushes east; a push into a gem; a push into a wall; a push into a crate;
-- the first gem; the exit while a gem remains; the second gem; the exit. Level 2 from (4, 2): a push west; a push
-- into the exit; R; both gems; the exit (won). One key press = 1 frame down + 5 frames up.
local h = harness
local fmt = string.format

local GAP = 5
local LEVELS = {
  {player = {1, 1}, gems = {{6, 1}, {1, 3}}, exit = {6, 3}, crates = {{3, 1}, {3, 3}, {4, 3}}},
  {player = {4, 2}, gems = {{1, 1}, {6, 3}}, exit = {1, 3}, crates = {{3, 2}, {2, 3}, {5, 3}}},
}

local function pos(view)
  local p = view.world_position
  return {x = p.x, y = p.y, z = p.z}
end
local function by_xz(a, b) if a.x ~= b.x then return a.x < b.x end return a.z < b.z end
local function sorted_positions(name)
  local out = {}
  for _, v in ipairs(h.find_all(name)) do out[#out + 1] = pos(v) end
  table.sort(out, by_xz)
  return out
end
local function snapshot(label)
  local s = {label = label, frame = h.frame()}
  local gs = h.find("GameState")
  if gs then
    s.Level, s.Score, s.Moves, s.Status = gs:var("Level"), gs:var("Score"), gs:var("Moves"), gs:var("Status")
  end
  s.hud = h.ui_text("HudText")
  local p = h.find("Player")
  s.player = p and pos(p)
  s.gems, s.exits, s.crates = sorted_positions("Gem"), sorted_positions("Exit"), sorted_positions("Crate")
  s.crate_models = 0
  for _, v in ipairs(h.find_all("Crate")) do
    if v:component("StaticModel") then s.crate_models = s.crate_models + 1 end
  end
  return s
end

local KEYS = {W = KEY_W, S = KEY_S, A = KEY_A, D = KEY_D, UP = KEY_UP, DOWN = KEY_DOWN, LEFT = KEY_LEFT,
              RIGHT = KEY_RIGHT, R = KEY_R}
local function route(list)
  for name in list:gmatch("%S+") do
    h.key_down(KEYS[name])
    h.run_frames(1)
    h.key_up(KEYS[name])
    h.run_frames(GAP)
  end
end
local snaps, order = {}, {}
local function snap(key, label)
  snaps[key] = snapshot(label)
  order[#order + 1] = key
end

-- drive --------------------------------------------------------------------------------------------
h.start()
snap("start", "at the start")
route("W A");            snap("bumps", "after bumping into two walls")
route("D");              snap("free1", "after one step east")
route("D");              snap("push1", "after pushing the crate at (3, 1) east")
route("RIGHT");          snap("push2", "after pushing it east again")
route("D");              snap("block_gem", "after pushing it towards the gem at (6, 1)")
route("S");              snap("step_s", "after one step south")
route("DOWN");           snap("block_wall", "after pushing the crate at (4, 3) towards the wall")
route("A LEFT S");       snap("beside", "west of the crates at (3, 3) and (4, 3)")
route("D");              snap("block_crate", "after pushing the crate at (3, 3) towards the crate at (4, 3)")
route("A");              snap("gem1", "after the gem at (1, 3)")
route("W D RIGHT D RIGHT D S"); snap("early_exit", "on the exit of level 1 with a gem left")
route("W UP");           snap("gem2", "after the gem at (6, 1)")
route("S DOWN");         snap("level2", "after reaching the exit of level 1")
route("A");              snap("l2push", "after pushing the crate at (3, 2) west")
route("S");              snap("l2step", "after one step south in level 2")
route("A");              snap("block_exit", "after pushing the crate at (2, 3) towards the exit")
route("R");              snap("restart", "after R in level 2")
route("D RIGHT S");      snap("l2gem1", "after the gem at (6, 3)")
route("W A LEFT A W A LEFT"); snap("l2gem2", "after the gem at (1, 1)")
route("S DOWN");         snap("won", "after reaching the exit of level 2")
route("D W");
h.run(1);                snap("won_later", "1 s after winning, after pressing D and W")

-- requirements -------------------------------------------------------------------------------------
local function cell(c, r, y) return {x = c, y = y, z = -r} end
local function cells(list, y)
  local out = {}
  for i, g in ipairs(list) do out[i] = cell(g[1], g[2], y) end
  table.sort(out, by_xz)
  return out
end
local function same_cells(at, label, got, want)
  at.equal(label .. ": how many", #got, #want)
  for i, w in ipairs(want) do at.near(fmt("%s %d", label, i), got[i], w, 0.01) end
end
local function crates_at(check, s, list)
  same_cells(check.at(s.frame), s.label .. ": Crate nodes", s.crates, cells(list, 0.5))
end
-- Level 2's pushes, checked cell by cell: a crate on each listed cell and none on the cells in `empty` (whether
-- crates of level 1 are left over is R9's business).
local function crates_on(check, s, list, empty)
  local at = check.at(s.frame)
  local function crate_on(c, r)
    for _, p in ipairs(s.crates) do
      if math.abs(p.x - c) < 0.01 and math.abs(p.z + r) < 0.01 and math.abs(p.y - 0.5) < 0.01 then return true end
    end
    return false
  end
  for _, g in ipairs(list) do at.truthy(fmt("%s: a Crate on (%d, %d)", s.label, g[1], g[2]), crate_on(g[1], g[2])) end
  for _, g in ipairs(empty) do at.falsy(fmt("%s: no Crate on (%d, %d)", s.label, g[1], g[2]), crate_on(g[1], g[2])) end
end
local function player_at(check, s, c, r)
  check.at(s.frame).near(s.label .. ": Player", s.player, cell(c, r, 0.5), 0.01)
end
local function moves_between(check, a, b, n)
  local d = type(a.Moves) == "number" and type(b.Moves) == "number" and b.Moves - a.Moves or nil
  check.at(b.frame).equal(fmt("Moves counted from '%s' to '%s'", a.label, b.label), d, n)
end
local function level_shown(check, s, n)
  local L, at = LEVELS[n], check.at(s.frame)
  at.equal(s.label .. ": Level", s.Level, n)
  at.near(s.label .. ": Player on the start cell", s.player, cell(L.player[1], L.player[2], 0.5), 0.01)
  same_cells(at, s.label .. ": Gem nodes", s.gems, cells(L.gems, 0.5))
  same_cells(at, s.label .. ": Exit nodes", s.exits, cells({L.exit}, 0))
end

-- the change
requirement("R1", function(check)
  crates_at(check, snaps.start, LEVELS[1].crates)
  check.at(snaps.start.frame).equal("every Crate has a StaticModel", snaps.start.crate_models, 3)
end)

requirement("R2", function(check)
  player_at(check, snaps.push1, 3, 1)
  crates_at(check, snaps.push1, {{4, 1}, {3, 3}, {4, 3}})
  moves_between(check, snaps.free1, snaps.push1, 1)
  player_at(check, snaps.push2, 4, 1)
  crates_at(check, snaps.push2, {{5, 1}, {3, 3}, {4, 3}})
  moves_between(check, snaps.push1, snaps.push2, 1)
  player_at(check, snaps.l2push, 3, 2)
  crates_on(check, snaps.l2push, {{2, 2}, {2, 3}, {5, 3}}, {{3, 2}})
  moves_between(check, snaps.level2, snaps.l2push, 1)
end)

requirement("R3", function(check)
  player_at(check, snaps.block_gem, 4, 1)
  crates_at(check, snaps.block_gem, {{5, 1}, {3, 3}, {4, 3}})
  check.at(snaps.block_gem.frame).equal(snaps.block_gem.label .. ": the gem is still there", #snaps.block_gem.gems, 2)
  player_at(check, snaps.block_wall, 4, 2)
  crates_at(check, snaps.block_wall, {{5, 1}, {3, 3}, {4, 3}})
  player_at(check, snaps.block_crate, 2, 3)
  crates_at(check, snaps.block_crate, {{5, 1}, {3, 3}, {4, 3}})
  player_at(check, snaps.block_exit, 3, 3)
  crates_on(check, snaps.block_exit, {{2, 2}, {2, 3}, {5, 3}}, {{1, 3}})
end)

-- the old game, still working
requirement("R4", function(check)
  local s = snaps.start
  check.at(s.frame).equal("at the start: Moves", s.Moves, 0)
  player_at(check, snaps.bumps, 1, 1)
  check.at(snaps.bumps.frame).equal(snaps.bumps.label .. ": Moves", snaps.bumps.Moves, 0)
  player_at(check, snaps.free1, 2, 1)
  check.at(snaps.free1.frame).equal(snaps.free1.label .. ": Moves", snaps.free1.Moves, 1)
  player_at(check, snaps.beside, 2, 3)
  moves_between(check, snaps.block_wall, snaps.beside, 3)
  moves_between(check, snaps.gem1, snaps.gem2, 9)
  moves_between(check, snaps.restart, snaps.won, 12)
  for _, key in ipairs(order) do
    local v = snaps[key]
    local want = v.Status == "won" and fmt("You win!  Score %s  Moves %s", v.Score, v.Moves)
      or fmt("Level %s  Score %s  Moves %s", v.Level, v.Score, v.Moves)
    check.at(v.frame).equal(v.label .. ": HudText", v.hud, want)
  end
end)

requirement("R5", function(check)
  local s = snaps.start
  level_shown(check, s, 1)
  local at = check.at(s.frame)
  at.equal("at the start: Score", s.Score, 0)
  at.equal("at the start: Status", s.Status, "playing")
  s = snaps.gem1
  check.at(s.frame).equal(s.label .. ": Score", s.Score, 10)
  same_cells(check.at(s.frame), s.label .. ": Gem nodes", s.gems, cells({{6, 1}}, 0.5))
  s = snaps.early_exit
  player_at(check, s, 6, 3)
  check.at(s.frame).equal(s.label .. ": Level", s.Level, 1)
  s = snaps.gem2
  check.at(s.frame).equal(s.label .. ": Score", s.Score, 20)
  check.at(s.frame).equal(s.label .. ": no Gem left", #s.gems, 0)
  s = snaps.level2
  level_shown(check, s, 2)
  check.at(s.frame).equal(s.label .. ": Score", s.Score, 20)
  check.at(snaps.l2gem1.frame).equal(snaps.l2gem1.label .. ": Score", snaps.l2gem1.Score, 30)
  check.at(snaps.l2gem2.frame).equal(snaps.l2gem2.label .. ": Score", snaps.l2gem2.Score, 40)
  s = snaps.won
  at = check.at(s.frame)
  at.equal(s.label .. ": Status", s.Status, "won")
  at.equal(s.label .. ": Level", s.Level, 2)
  at.equal(s.label .. ": Score", s.Score, 40)
  local later = snaps.won_later
  player_at(check, later, 1, 3)
  check.at(later.frame).equal(later.label .. ": Moves unchanged", later.Moves, s.Moves)
end)

requirement("R6", function(check)
  local s, l2 = snaps.restart, snaps.level2
  level_shown(check, s, 2)
  local at = check.at(s.frame)
  at.equal(s.label .. ": Score is the level's starting score", s.Score, l2.Score)
  at.equal(s.label .. ": Moves is the level's starting count", s.Moves, l2.Moves)
  at.equal(s.label .. ": Status", s.Status, "playing")
end)

-- richness
requirement("R7", function(check)
  moves_between(check, snaps.push2, snaps.block_gem, 0)
  moves_between(check, snaps.step_s, snaps.block_wall, 0)
  moves_between(check, snaps.beside, snaps.block_crate, 0)
end)

requirement("R8", function(check)
  crates_at(check, snaps.restart, LEVELS[2].crates)
end)

requirement("R9", function(check)
  crates_at(check, snaps.level2, LEVELS[2].crates)
  crates_at(check, snaps.won, {{2, 2}, {2, 3}, {5, 3}})
end)
