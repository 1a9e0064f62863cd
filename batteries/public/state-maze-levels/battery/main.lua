-- Battery for state-maze-levels: plays the maze with key presses through two complete games and two lost ones,
-- checking the GameState variables, the level's nodes, the countdown, restarts and save.json.
--
-- Story (one key press = 1 frame down + 5 frames up; a move every 0.1 s):
--   seed save.json {"best": 40} -> start -> wall bumps -> level 1 the long way (exit visited while a gem remains)
--   -> level 2: both gems, then wait for the countdown: lost with 57 > 40 (Best, file)
--   -> R -> level 1 the short way -> level 2 -> level 3 -> won (~114: Best, file)
--   -> R (Best kept) -> one gem, R mid-game -> level 1 the long way again (repetition) -> lost with a worse score
--   (file unchanged) -> R -> a held key.
local h = harness
local fmt, floor, abs = string.format, math.floor, math.abs

local GAP = 5                  -- frames between presses
local TIME_TOL = 0.05
local LEVEL_TIME = 20
local SEEDED_BEST = 40
local LEVELS = {
  {player = {1, 1}, gems = {{3, 1}, {1, 3}}, exit = {4, 3}},
  {player = {4, 3}, gems = {{5, 1}, {1, 3}}, exit = {1, 1}},
  {player = {1, 1}, gems = {{3, 2}, {1, 3}}, exit = {5, 1}},
}
local CORNERS = {{0, 0}, {6, 0}, {0, 4}, {6, 4}}

-- save file ----------------------------------------------------------------------------------------
local function write_save(text)
  h.write_file("save.json", text .. "\0")   -- as File:WriteString writes it
end
-- The `best` field of save.json as the game left it: a number, or nil and why not.
local function read_best()
  local text = h.file("save.json")
  if text == nil then return nil, "save.json does not exist" end
  text = text:gsub("%z+$", "")
  local v = text:match('"best"%s*:%s*(-?[%d%.eE+-]+)')
  if v == nil then return nil, "no \"best\" number in save.json: " .. text:sub(1, 80) end
  return tonumber(v)
end

-- reading the game ---------------------------------------------------------------------------------
local function state()
  local gs = h.find("GameState")
  if gs == nil then return {} end
  return {Level = gs:var("Level"), Score = gs:var("Score"), TimeLeft = gs:var("TimeLeft"),
          Status = gs:var("Status"), Best = gs:var("Best")}
end
local function pos(view)
  local p = view.world_position
  return {x = p.x, y = p.y, z = p.z}
end
local function sorted_positions(name)
  local out = {}
  for _, v in ipairs(h.find_all(name)) do out[#out + 1] = pos(v) end
  table.sort(out, function(a, b) if a.x ~= b.x then return a.x < b.x end return a.z < b.z end)
  return out
end
local function project(p)
  local cam_node = h.find("Camera")
  local cam = cam_node and cam_node:component("Camera")
  if cam == nil then return nil end
  local eye, dir = cam_node.world_position, cam_node.direction
  local s = h.world_to_screen(cam, Vector3(p.x, p.y, p.z))
  return {x = s.x, y = s.y, depth = (p.x - eye.x) * dir.x + (p.y - eye.y) * dir.y + (p.z - eye.z) * dir.z,
          near = cam:get("NearClip"), far = cam:get("FarClip")}
end

local function snapshot(label)
  local s = state()
  s.label, s.frame = label, h.frame()
  local p = h.find("Player")
  s.player = p and pos(p)
  s.players = #h.find_all("Player")
  s.gems = sorted_positions("Gem")
  s.exits = sorted_positions("Exit")
  s.file_best, s.file_why = read_best()
  s.screen = {}
  for _, c in ipairs(CORNERS) do
    s.screen[#s.screen + 1] = {name = fmt("maze corner (%d, 0, %d)", c[1], -c[2]),
                               at = project({x = c[1], y = 0, z = -c[2]})}
  end
  if s.player then s.screen[#s.screen + 1] = {name = "Player", at = project(s.player)} end
  return s
end

-- driving ------------------------------------------------------------------------------------------
local KEYS = {W = KEY_W, S = KEY_S, A = KEY_A, D = KEY_D, UP = KEY_UP, DOWN = KEY_DOWN, LEFT = KEY_LEFT,
              RIGHT = KEY_RIGHT, R = KEY_R}
local function press(name)
  h.key_down(KEYS[name])
  h.run_frames(1)
  h.key_up(KEYS[name])
  h.run_frames(GAP)
end
local function route(list)
  for name in list:gmatch("%S+") do press(name) end
end
-- Wait until TimeLeft's fraction is near 0.5, so that floor(TimeLeft) cannot depend on whether the game counts
-- down before or after it handles a key in the same frame.
local function align_half()
  local t = state().TimeLeft
  if type(t) ~= "number" then return end
  local frac = t - floor(t)
  local wait = floor((frac - 0.5) * 60 + 0.5) % 60
  if wait > 0 then h.run_frames(wait) end
end

local snaps = {}
local function snap(key, label) snaps[key] = snapshot(label); return snaps[key] end

write_save('{\n  "player": "me",\n  "best": 40\n}\n')
h.start()
snap("start", "at the start")
h.run_frames(30)
snap("half", "0.5 s after the start")

-- game 1 -------------------------------------------------------------------------------------------
route("W UP A LEFT")                   -- four bumps into walls
snap("bumps", "after bumping into walls")
route("S")
snap("step1", "after one S")
route("DOWN")                          -- (1, 3): first gem
snap("gem1", "after the first gem of level 1")
route("D RIGHT D")                     -- (4, 3): the exit, one gem left
snap("early_exit", "on the exit of level 1 with a gem left")
route("D W UP A LEFT")                 -- (3, 1): second gem
snap("gem2", "after the second gem of level 1")
route("RIGHT D S DOWN")                -- (5, 3), next to the exit
align_half()
snap("pre_exit1", "just before reaching the exit of level 1")
route("A")
snap("level2", "just after completing level 1")
route("A LEFT A")                      -- (1, 3): a gem of level 2
snap("l2gem", "after a gem of level 2")
route("D RIGHT W UP D RIGHT")          -- (5, 1): the other gem; the exit is left alone
snap("l2gems", "after both gems of level 2")
h.run(10)
snap("l2wait", "waiting in level 2")
local until_zero = snaps.l2wait.TimeLeft
h.run_frames(type(until_zero) == "number" and floor(until_zero * 60 - 20) or 0)
snap("before_lost", "a third of a second before the countdown ends")
h.run_frames(40)
snap("lost1", "a third of a second after the countdown ended")
route("A W")                           -- ignored: the game is lost
h.run(1)
snap("lost1_later", "1 s later, after pressing A and W")

-- game 2: restart after losing, win -----------------------------------------------------------------
route("R")
snap("restart1", "after R in the lost game")
route("D RIGHT A LEFT S DOWN D RIGHT")
align_half()
snap("pre_exit2", "game 2: just before reaching the exit of level 1")
route("D")
snap("g2level2", "game 2: just after completing level 1")
route("LEFT A LEFT D RIGHT W UP D RIGHT A LEFT A")
align_half()
snap("pre_exit3", "game 2: just before reaching the exit of level 2")
route("LEFT")
snap("level3", "game 2: just after completing level 2")
route("S DOWN UP D RIGHT D W")
align_half()
snap("pre_win", "game 2: just before reaching the exit of level 3")
route("RIGHT")
snap("won", "just after completing level 3")
h.run(1)
route("A S")                           -- ignored: the game is won
h.run(1)
snap("won_later", "2 s after winning, after pressing A and S")

-- game 3: restart after winning, restart in mid-game, the first route again, lose ----------------
route("R")
snap("restart2", "after R in the won game")
route("S S")
snap("g3gem", "game 3: after a gem")
route("R")
snap("restart3", "after R in the middle of a game")
route("S DOWN D RIGHT D")
snap("early_exit3", "game 3: on the exit of level 1 with a gem left")
route("D W UP A LEFT RIGHT D S DOWN")
snap("pre_exit4", "game 3: just before reaching the exit of level 1")
route("A")
snap("g3level2", "game 3: after reaching the exit of level 1 with every gem")
h.run(20.5)
snap("lost3", "20.5 s after game 3 reached level 2")
route("R")
h.key_down(KEY_D)
h.run_frames(30)
h.key_up(KEY_D)
h.run_frames(2)
snap("held", "after holding D for half a second")

-- requirements -------------------------------------------------------------------------------------
local function cell(c, r, y) return {x = c, y = y, z = -r} end
-- The level's nodes: the player (on its start cell unless gems_left is given), the gems left, the exit.
local function expect_level(check, s, n, gems_left)
  local L = LEVELS[n]
  local at = check.at(s.frame)
  at.equal(s.label .. ": Level", s.Level, n)
  at.equal(s.label .. ": one Player node", s.players, 1)
  if gems_left == nil then
    at.near(s.label .. ": Player on the start cell", s.player, cell(L.player[1], L.player[2], 0.5), 0.01)
  end
  local want = {}
  for i, g in ipairs(gems_left or L.gems) do want[i] = cell(g[1], g[2], 0.5) end
  table.sort(want, function(a, b) if a.x ~= b.x then return a.x < b.x end return a.z < b.z end)
  at.equal(s.label .. ": number of Gem nodes", #s.gems, #want)
  for i, w in ipairs(want) do at.near(fmt("%s: Gem %d", s.label, i), s.gems[i], w, 0.01) end
  at.equal(s.label .. ": number of Exit nodes", #s.exits, 1)
  at.near(s.label .. ": Exit", s.exits[1], cell(L.exit[1], L.exit[2], 0), 0.01)
end
local function expect_vars(check, s, vars)
  local at = check.at(s.frame)
  for _, k in ipairs({"Level", "Score", "Status", "Best"}) do
    if vars[k] ~= nil then at.equal(s.label .. ": " .. k, s[k], vars[k]) end
  end
  if vars.TimeLeft ~= nil then at.near(s.label .. ": TimeLeft", s.TimeLeft, vars.TimeLeft, TIME_TOL) end
end
local function player_at(check, s, c, r)
  check.at(s.frame).near(s.label .. ": Player position", s.player, cell(c, r, 0.5), 0.01)
end
local function num(v) return type(v) == "number" and v or nil end
-- the score a level's exit adds: the whole seconds left just before it was reached (TimeLeft is then x.5)
local function bonus(s) return num(s.TimeLeft) and floor(s.TimeLeft) end
local function add(a, b) return a and b and a + b end

requirement("R1", function(check)
  local has_octree = false
  for _, sc in ipairs(h.scenes()) do if sc:component("Octree") then has_octree = true end end
  check.truthy("a scene has an Octree component", has_octree)
  local cam = h.find("Camera")
  check.truthy("a node named Camera with a Camera component", cam and cam:component("Camera"))
  check.equal("exactly one GameState node", #h.find_all("GameState"), 1)
  local p = h.find("Player")
  check.truthy("Player has a StaticModel", p and p:component("StaticModel"))
  local s = snaps.start
  expect_level(check, s, 1)
  expect_vars(check, s, {Level = 1, Score = 0, Status = "playing", TimeLeft = LEVEL_TIME})
end)

requirement("R2", function(check)
  player_at(check, snaps.bumps, 1, 1)
  player_at(check, snaps.step1, 1, 2)
  player_at(check, snaps.gem1, 1, 3)
  player_at(check, snaps.early_exit, 4, 3)
  player_at(check, snaps.gem2, 3, 1)
  player_at(check, snaps.pre_exit1, 5, 3)
  player_at(check, snaps.l2gem, 1, 3)
  player_at(check, snaps.held, 2, 1)
end)

requirement("R3", function(check)
  expect_vars(check, snaps.gem1, {Score = 10})
  expect_level(check, snaps.gem1, 1, {{3, 1}})
  check.at(snaps.gem1.frame).near("after the first gem of level 1: Player", snaps.gem1.player, cell(1, 3, 0.5), 0.01)
  expect_vars(check, snaps.gem2, {Score = 20})
  check.at(snaps.gem2.frame).equal("after the second gem of level 1: no Gem left", #snaps.gem2.gems, 0)
  expect_vars(check, snaps.l2gem, {Score = add(snaps.level2.Score, 10)})
  check.at(snaps.l2gem.frame).equal("after a gem of level 2: one Gem left", #snaps.l2gem.gems, 1)
end)

requirement("R4", function(check)
  local e = snaps.early_exit
  expect_vars(check, e, {Level = 1, Score = 10, Status = "playing"})
  check.at(e.frame).equal(e.label .. ": one Gem left", #e.gems, 1)
  local s = snaps.level2
  expect_level(check, s, 2)
  expect_vars(check, s, {Score = add(20, bonus(snaps.pre_exit1)), Status = "playing",
                         TimeLeft = LEVEL_TIME - GAP / 60})
  s = snaps.level3
  expect_level(check, s, 3)
  expect_vars(check, s, {Score = add(add(snaps.g2level2.Score, 20), bonus(snaps.pre_exit3)),
                         TimeLeft = LEVEL_TIME - GAP / 60})
  s = snaps.won
  expect_vars(check, s, {Level = 3, Status = "won", Score = add(add(snaps.level3.Score, 20), bonus(snaps.pre_win))})
  check.at(s.frame).equal(s.label .. ": no Gem left", #s.gems, 0)
end)

requirement("R5", function(check)
  local s0, s1 = snaps.start, snaps.half
  expect_vars(check, s1, {TimeLeft = LEVEL_TIME - 0.5})
  local w = snaps.l2wait
  expect_vars(check, w, {Level = 2, Status = "playing",
                         TimeLeft = LEVEL_TIME - (w.frame - snaps.level2.frame + GAP) / 60})
  local b = snaps.before_lost
  expect_vars(check, b, {Status = "playing", TimeLeft = 20 / 60})
  local l = snaps.lost1
  expect_vars(check, l, {Status = "lost", Level = 2})
  check.at(l.frame).equal(l.label .. ": TimeLeft is exactly 0", l.TimeLeft, 0)
  l = snaps.lost1_later
  expect_vars(check, l, {Status = "lost", Score = snaps.lost1.Score})
  check.at(l.frame).equal(l.label .. ": TimeLeft is exactly 0", l.TimeLeft, 0)
  player_at(check, l, 5, 1)
  local won, later = snaps.won, snaps.won_later
  expect_vars(check, later, {Status = "won", Level = 3, Score = won.Score, TimeLeft = num(won.TimeLeft)})
  player_at(check, later, 5, 1)
  check.at(snaps.lost3.frame).equal(snaps.lost3.label .. ": Status", snaps.lost3.Status, "lost")
  check.at(snaps.lost3.frame).equal(snaps.lost3.label .. ": TimeLeft is exactly 0", snaps.lost3.TimeLeft, 0)
  check.truthy("start snapshot taken", s0 ~= nil)
end)

requirement("R6", function(check)
  for _, key in ipairs({"restart1", "restart2", "restart3"}) do
    local s = snaps[key]
    expect_level(check, s, 1)
    expect_vars(check, s, {Level = 1, Score = 0, Status = "playing", TimeLeft = LEVEL_TIME - GAP / 60})
  end
end)

requirement("R7", function(check)
  expect_vars(check, snaps.start, {Best = SEEDED_BEST})
  expect_vars(check, snaps.gem2, {Best = SEEDED_BEST})
end)

requirement("R8", function(check)
  -- a lost game with a better score
  local l = snaps.lost1
  local at = check.at(l.frame)
  at.greater(l.label .. ": the score beats the seeded best", num(l.Score), SEEDED_BEST)
  at.equal(l.label .. ": Best is the score", l.Best, l.Score)
  at.equal(l.label .. ": save.json's best is the score", l.file_best, l.Score)
  -- a won game with a better score
  local w = snaps.won
  at = check.at(w.frame)
  at.equal(w.label .. ": Best is the score", w.Best, w.Score)
  at.equal(w.label .. ": save.json's best is the score", w.file_best, w.Score)
  local pw = snaps.pre_win
  check.at(pw.frame).equal(pw.label .. ": save.json still holds the previous best", pw.file_best, l.Score)
  -- a lost game with a worse score leaves the file alone
  local l3 = snaps.lost3
  check.at(l3.frame).equal(l3.label .. ": the game is lost", l3.Status, "lost")
  check.at(l3.frame).less(l3.label .. ": with a worse score", num(l3.Score), num(w.Score))
  check.at(l3.frame).equal(l3.label .. ": save.json's best is unchanged", l3.file_best, w.Score)
end)

-- richness
requirement("R9", function(check)
  -- game 3, restarted with R after a gem was taken, plays the first game's route exactly as the first game did
  local e = snaps.early_exit3
  expect_vars(check, e, {Level = 1, Score = 10, Status = "playing"})
  check.at(e.frame).equal(e.label .. ": one Gem left", #e.gems, 1)
  player_at(check, e, 4, 3)
  local p = snaps.pre_exit4
  expect_vars(check, p, {Level = 1, Score = 20})
  check.at(p.frame).equal(p.label .. ": no Gem left", #p.gems, 0)
  local s = snaps.g3level2
  expect_level(check, s, 2)
  expect_vars(check, s, {Level = 2, Status = "playing"})
end)

requirement("R10", function(check)
  local best = snaps.won.Best
  for _, key in ipairs({"restart2", "g3gem", "restart3", "lost3", "held"}) do
    local s = snaps[key]
    check.at(s.frame).equal(s.label .. ": Best is kept across restarts", s.Best, best)
  end
  check.at(snaps.restart1.frame).equal(snaps.restart1.label .. ": Best is kept", snaps.restart1.Best,
    snaps.lost1.Best)
end)

requirement("R11", function(check)
  for _, key in ipairs({"start", "level2", "level3", "won"}) do
    local s = snaps[key]
    local at = check.at(s.frame)
    for _, e in ipairs(s.screen) do
      local p, label = e.at, s.label .. ": " .. e.name
      if p == nil then
        at.fail(label .. " on screen", "no Camera node with a Camera component")
      else
        at.between(label .. " in front of the camera, inside its clip range", p.depth, p.near, p.far)
        at.between(label .. " screen x", p.x, 0.02, 0.98)
        at.between(label .. " screen y", p.y, 0.02, 0.98)
      end
    end
  end
end)
