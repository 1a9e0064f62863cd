-- Battery for modify-snake-pause: the new P key (pause, resume, direction keys ignored while paused) and the old
-- game's rules (start, pace, turns, apples, deaths, R), played through four games.
--
-- Game 1: pace, a turn, an ignored reversal, two apples, a bite of its own body. R. Game 2: a pause with a
-- direction key pressed during it, the resume watched frame by frame. R in play. Game 3: into the top wall, then
-- P twice. R. Game 4: P, then R while paused.
-- Keys are pressed in the middle of a step (5 frames after the head moved), so the snake's phase does not matter.
local h = harness
local fmt = string.format

local function cell_of(view)
  if view == nil then return nil end
  local p = view.world_position
  return {x = p.x, y = p.y, z = p.z}
end
local function by_xz(a, b) if a.x ~= b.x then return a.x < b.x end return a.z < b.z end
local function sorted_positions(name)
  local out = {}
  for _, v in ipairs(h.find_all(name)) do out[#out + 1] = cell_of(v) end
  table.sort(out, by_xz)
  return out
end
local function status()
  local gs = h.find("GameState")
  return gs and gs:var("Status")
end
local function head_key()
  local p = cell_of(h.find("Head"))
  return p and fmt("%.2f,%.2f,%.2f", p.x, p.y, p.z) or "none"
end
local function snapshot(label)
  local s = {label = label, frame = h.frame()}
  local gs = h.find("GameState")
  if gs then s.Score, s.Length, s.Status = gs:var("Score"), gs:var("Length"), gs:var("Status") end
  s.hud = h.ui_text("HudText")
  s.head = cell_of(h.find("Head"))
  s.bodies = sorted_positions("Body")
  s.apples = sorted_positions("Apple")
  return s
end

local KEYS = {W = KEY_W, S = KEY_S, A = KEY_A, D = KEY_D, UP = KEY_UP, DOWN = KEY_DOWN, LEFT = KEY_LEFT,
              RIGHT = KEY_RIGHT, R = KEY_R, P = KEY_P}
local function press(name)
  h.key_down(KEYS[name])
  h.run_frames(1)
  h.key_up(KEYS[name])
end
-- n steps of the snake: each ends at the frame the head changes cell (or the game stops playing, or 24 frames
-- pass), then 5 frames more, the middle of the next step.
local function steps(n)
  for _ = 1, n do
    local before = head_key()
    for _ = 1, 24 do
      h.run_frames(1)
      if head_key() ~= before or status() ~= "playing" then break end
    end
  end
  h.run_frames(5)
end
local snaps, order = {}, {}
local function snap(key, label)
  snaps[key] = snapshot(label)
  order[#order + 1] = key
end

-- drive --------------------------------------------------------------------------------------------
h.start()
snap("start", "at the start")
local first_step
do
  local before = head_key()
  for i = 1, 30 do
    h.run_frames(1)
    if head_key() ~= before then first_step = i break end
  end
  h.run_frames(5)
end
snap("step1", "after the first step")
h.run_frames(60);         snap("pace", "1 s later")
press("S"); steps(1);     snap("turn", "after S")
press("W"); steps(1);     snap("reverse", "after W while heading down")
press("A"); steps(2);     snap("apple1", "after the apple on (8, 6)")
steps(2);                 snap("apple2", "after the apple on (6, 6)")
press("W"); steps(1)
press("D"); steps(1);     snap("coiled", "on (7, 5), heading right")
press("S"); steps(1);     snap("bite", "after turning down onto its own body")
h.run(1.0); press("A"); h.run(0.5); snap("bite_later", "1.5 s after the bite, after pressing A")
press("R");               snap("restart1", "after R at game over")
-- game 2: the pause
steps(1);                 snap("before_pause", "one step into game 2")
press("P");               snap("paused", "right after P")
h.run(0.6);               snap("paused_later", "0.6 s into the pause")
press("S"); h.run(0.4);   snap("paused_turn", "after S pressed while paused")
local track = {}          -- the head's cell at each of the 60 frames from the resume on
for i = 1, 60 do
  if i == 1 then
    press("P"); snap("resumed", "right after the second P")
  else
    h.run_frames(1)
  end
  local p = cell_of(h.find("Head"))
  track[i] = p and {c = math.floor(p.x + 0.5), r = math.floor(-p.z + 0.5)} or {c = -99, r = -99}
end
snap("resumed_later", "1 s after the resume")
press("R");               snap("restart2", "after R in play")
-- game 3: P once the game is over
steps(1); press("W"); steps(5); snap("wall", "after steering into the top wall")
press("P");               snap("over_p", "after P at game over")
h.run(0.5); press("P"); h.run(1.0); snap("over_pp", "1 s after pressing P again at game over")
press("R");               snap("restart3", "after R at game over, again")
-- game 4: R while paused
steps(1); press("P");     snap("paused4", "paused one step into game 4")
h.run(0.3); press("R");   snap("restart_paused", "after R while paused")
h.run(0.5);               snap("restart_paused_later", "0.5 s after R while paused")

-- requirements -------------------------------------------------------------------------------------
local function cell(c, r) return {x = c, y = 0.5, z = -r} end
local function cells(list)
  local out = {}
  for i, g in ipairs(list) do out[i] = cell(g[1], g[2]) end
  table.sort(out, by_xz)
  return out
end
local function same_cells(at, label, got, want)
  at.equal(label .. ": how many", #got, #want)
  for i, w in ipairs(want) do at.near(fmt("%s %d", label, i), got[i], w, 0.01) end
end
-- the head on (c, r) and, when given, the body on `body` (a list of cells)
local function snake_at(check, s, c, r, body)
  local at = check.at(s.frame)
  at.near(s.label .. ": Head", s.head, cell(c, r), 0.01)
  if body then same_cells(at, s.label .. ": Body nodes", s.bodies, cells(body)) end
end
local function counts(check, s, score, length, status)
  local at = check.at(s.frame)
  at.equal(s.label .. ": Score", s.Score, score)
  at.equal(s.label .. ": Length", s.Length, length)
  at.equal(s.label .. ": Status", s.Status, status)
end
local function hud(check, s, want) check.at(s.frame).equal(s.label .. ": HudText", s.hud, want) end
local function new_game(check, s)
  snake_at(check, s, 4, 4, {{3, 4}, {2, 4}})
  same_cells(check.at(s.frame), s.label .. ": Apple nodes", s.apples, cells({{8, 6}}))
  counts(check, s, 0, 3, "playing")
  hud(check, s, "Score 0  Length 3")
end
local function pause_works(check)
  local s = snaps.paused_later
  check.at(s.frame).equal("P pauses at all (Status 0.6 s into the pause in game 2)", s.Status, "paused")
  snake_at(check, s, 5, 4)
end

-- the change
requirement("R1", function(check)
  snake_at(check, snaps.before_pause, 5, 4, {{4, 4}, {3, 4}})
  for _, key in ipairs({"paused", "paused_later", "paused_turn"}) do
    local s = snaps[key]
    snake_at(check, s, 5, 4, {{4, 4}, {3, 4}})
    counts(check, s, 0, 3, "paused")
    hud(check, s, "Paused  Score 0  Length 3")
  end
end)

requirement("R2", function(check)
  pause_works(check)
  local s = snaps.resumed
  counts(check, s, 0, 3, "playing")
  hud(check, s, "Score 0  Length 3")
  local last = track[#track]
  local moved = math.abs(last.c - 5) + math.abs(last.r - 4)
  check.at(snaps.resumed_later.frame).greater("cells the head moved in the 1 s after the resume (at least 4)",
    moved, 3.5)
  check.at(snaps.resumed_later.frame).equal(snaps.resumed_later.label .. ": Status", snaps.resumed_later.Status,
    "playing")
end)

requirement("R3", function(check)
  pause_works(check)
  -- track[i] is the frame (i - 1) after the second P
  local frame0, off_row, back = snaps.resumed.frame - 1, nil, nil
  for i, t in ipairs(track) do
    if t.r ~= 4 and off_row == nil then off_row = i end
    if t.c < 5 and back == nil then back = i end
  end
  check.at(frame0 + (off_row or 60)).equal("the head left row 4 after the resume (S was pressed while paused)",
    off_row ~= nil, false)
  check.at(frame0 + (back or 60)).equal("the head went left of column 5 after the resume", back ~= nil, false)
  check.at(frame0 + 60).greater("1 s after the resume: the head went on to the right (column)", track[60].c, 5)
end)

-- the old game, still working
requirement("R4", function(check)
  new_game(check, snaps.start)
  check.at(snaps.start.frame + (first_step or 30)).between("frame of the first step (0.2 s = 12 frames)",
    first_step, 10, 15)
  snake_at(check, snaps.step1, 5, 4, {{4, 4}, {3, 4}})
  snake_at(check, snaps.pace, 10, 4, {{9, 4}, {8, 4}})
  snake_at(check, snaps.turn, 10, 5, {{10, 4}, {9, 4}})
  snake_at(check, snaps.reverse, 10, 6, {{10, 5}, {10, 4}})
  for _, key in ipairs(order) do
    local s = snaps[key]
    if s.Status == "playing" then
      hud(check, s, fmt("Score %s  Length %s", s.Score, s.Length))
      check.at(s.frame).equal(s.label .. ": one Body per cell behind the head", #s.bodies, (s.Length or 0) - 1)
    end
  end
end)

requirement("R5", function(check)
  local s = snaps.apple1
  snake_at(check, s, 8, 6, {{9, 6}, {10, 6}, {10, 5}})
  counts(check, s, 1, 4, "playing")
  same_cells(check.at(s.frame), s.label .. ": Apple nodes", s.apples, cells({{6, 6}}))
  s = snaps.apple2
  snake_at(check, s, 6, 6, {{7, 6}, {8, 6}, {9, 6}, {10, 6}})
  counts(check, s, 2, 5, "playing")
  same_cells(check.at(s.frame), s.label .. ": Apple nodes", s.apples, cells({{11, 2}}))
end)

requirement("R6", function(check)
  snake_at(check, snaps.coiled, 7, 5, {{6, 5}, {6, 6}, {7, 6}, {8, 6}})
  for _, key in ipairs({"bite", "bite_later"}) do
    local s = snaps[key]
    snake_at(check, s, 7, 5, {{6, 5}, {6, 6}, {7, 6}, {8, 6}})
    counts(check, s, 2, 5, "over")
    hud(check, s, "Game over!  Score 2  Length 5")
  end
  local s = snaps.wall
  snake_at(check, s, 5, 0, {{5, 1}, {5, 2}})
  counts(check, s, 0, 3, "over")
  hud(check, s, "Game over!  Score 0  Length 3")
end)

requirement("R7", function(check)
  new_game(check, snaps.restart1)
  new_game(check, snaps.restart2)
  new_game(check, snaps.restart3)
end)

-- richness
requirement("R8", function(check)
  pause_works(check)
  -- from the head's cell just before the second P (R1 checks it is (5, 4))
  local h0 = snaps.paused_turn.head or {x = -99, z = 99}
  local start = {c = math.floor(h0.x + 0.5), r = math.floor(-h0.z + 0.5)}
  local frame0, prev, last_step = snaps.resumed.frame - 1, start, nil
  local jumps, close = {}, {}
  for i, t in ipairs(track) do
    local d = math.abs(t.c - prev.c) + math.abs(t.r - prev.r)
    if d > 1 then jumps[#jumps + 1] = i end
    if d > 0 then
      if last_step ~= nil and i - last_step < 6 then close[#close + 1] = i end
      last_step = i
    end
    prev = t
  end
  check.at(frame0 + (jumps[1] or 60)).equal("frames from the resume (1 = P's) where the head jumped more than a cell",
    table.concat(jumps, " "), "")
  check.at(frame0 + (close[1] or 60)).equal("frames from the resume (1 = P's) with a step under 0.1 s after another",
    table.concat(close, " "), "")
  local moved = math.abs(track[60].c - start.c) + math.abs(track[60].r - start.r)
  check.at(frame0 + 60).less("cells the head moved in the 1 s after the resume (at most 6)", moved, 6.5)
end)

requirement("R9", function(check)
  pause_works(check)
  local wall = snaps.wall
  for _, key in ipairs({"over_p", "over_pp"}) do
    local s = snaps[key]
    snake_at(check, s, 5, 0, {{5, 1}, {5, 2}})
    counts(check, s, 0, 3, "over")
    check.at(s.frame).equal(s.label .. ": HudText as at game over", s.hud, wall.hud)
  end
end)

requirement("R10", function(check)
  local s = snaps.paused4
  check.at(s.frame).equal(s.label .. ": Status", s.Status, "paused")
  new_game(check, snaps.restart_paused)
  s = snaps.restart_paused_later
  local at = check.at(s.frame)
  at.equal(s.label .. ": Status", s.Status, "playing")
  at.greater(s.label .. ": the new snake moves (Head column)", s.head and s.head.x, 4.5)
end)
