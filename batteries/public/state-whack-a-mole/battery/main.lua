-- Battery for state-whack-a-mole: presses the number keys and R and reads GameState's Score, Lives, Hole and
-- Status, frame by frame where an escape is due.
--
-- Story (one key press = 1 frame down + 10 frames up):
--   start -> 0.5 s idle -> keys of empty holes -> nine whacks following the order (it wraps after eight)
--   -> wait: three escapes a mole's time apart, game over -> 3 s more and every number key: nothing changes
--   -> R (from game over) -> two whacks -> R (mid-game) -> a whack -> R just before that mole would escape:
--   the new first mole's full time -> R -> three whacks, then the fourth mole's key held (the fifth mole is in
--   the same hole) -> R held for one and a half moles' time.
-- Parameterised (params.toml): the order (each has its 4th and 5th moles in one hole) and a mole's time.
local h = harness
local fmt = string.format

local GAP = 10                 -- frames after each key press
local P = h.params()
local UP_FRAMES = math.tointeger(P.up_seconds * 60)   -- a multiple of 0.25 s: a whole number of frames
local TOL_FRAMES = 3           -- 0.05 s
local ORDER = {}
for hole in P.order:gmatch("%d") do ORDER[#ORDER + 1] = tonumber(hole) end
local HOLE_KEYS = {KEY_1, KEY_2, KEY_3, KEY_4}

-- reading the game ---------------------------------------------------------------------------------
local function state(label)
  local s = {label = label, frame = h.frame()}
  local gs = h.find("GameState")
  s.found = gs ~= nil
  if gs ~= nil then
    s.Score, s.Lives, s.Hole, s.Status = gs:var("Score"), gs:var("Lives"), gs:var("Hole"), gs:var("Status")
  end
  return s
end
-- the hole of the n-th mole of a game (n from 1)
local function nth(n) return ORDER[(n - 1) % #ORDER + 1] end

-- driving ------------------------------------------------------------------------------------------
-- Press a key for one frame; returns the frame it went down in, then lets GAP frames pass.
local function press(key)
  h.key_down(key)
  h.run_frames(1)
  local f = h.frame()
  h.key_up(key)
  h.run_frames(GAP)
  return f
end
-- Run n frames one at a time, recording the state after each.
local function watch(n, label)
  local trace = {}
  for i = 1, n do
    h.run_frames(1)
    trace[i] = state(fmt("%s, frame %d", label, h.frame()))
  end
  return trace
end
-- The states of a trace in which Lives went down, in order.
local function losses(trace, lives_before)
  local out, prev = {}, lives_before
  for _, s in ipairs(trace) do
    if type(s.Lives) == "number" and type(prev) == "number" and s.Lives < prev then out[#out + 1] = s end
    prev = s.Lives
  end
  return out
end

local S, F = {}, {}
h.start()
S.start = state("when Start() returned")
h.run_frames(30)
S.idle = state("0.5 s later, without input")

-- whacking
local empty = {}
for hole = 1, 4 do if hole ~= nth(1) then press(HOLE_KEYS[hole]); empty[#empty + 1] = hole end end
press(KEY_5)
S.miss = state(fmt("after pressing %s and 5 with the mole in hole %d", table.concat(empty, ", "), nth(1)))
S.whacks, F.whacks = {}, {}
for i = 1, 9 do
  F.whacks[i] = press(HOLE_KEYS[nth(i)])
  S.whacks[i] = state(fmt("after whack %d (key %d)", i, nth(i)))
end

-- escapes and game over
F.trace = watch(3 * UP_FRAMES + 60, "waiting after the ninth whack")
h.run(3.0)
for _, k in ipairs(HOLE_KEYS) do press(k) end
S.over_later = state("3 s after the game ended and after pressing 1, 2, 3 and 4")

-- restart
press(KEY_R)
S.restart_over = state("after R in the game that was over")
press(HOLE_KEYS[nth(1)])
S.restart_w1 = state(fmt("after R, then key %d", nth(1)))
press(HOLE_KEYS[nth(2)])
S.restart_w2 = state(fmt("after R, then keys %d and %d", nth(1), nth(2)))
press(KEY_R)
S.restart_mid = state("after R in the middle of a game")
F.mid_whack = press(HOLE_KEYS[nth(1)])
S.restart_mid_w1 = state(fmt("after R in the middle of a game, then key %d", nth(1)))

-- R just before the second mole escapes (it came up at F.mid_whack)
h.run_frames(UP_FRAMES - 8 - (h.frame() - F.mid_whack))
S.late_before = state(fmt("8 frames before the mole in hole %d would escape", nth(2)))
h.key_down(KEY_R)
h.run_frames(1)
F.late_r = h.frame()
h.key_up(KEY_R)
F.late_trace = watch(UP_FRAMES + 20, "after R pressed just before an escape")

-- held keys
press(KEY_R)
press(HOLE_KEYS[nth(1)]); press(HOLE_KEYS[nth(2)]); press(HOLE_KEYS[nth(3)])
S.before_hold = state(fmt("after R, then keys %d, %d and %d (a mole in hole %d, the next one there too)",
  nth(1), nth(2), nth(3), nth(4)))
h.key_down(HOLE_KEYS[nth(4)])
h.run_frames(30)
h.key_up(HOLE_KEYS[nth(4)])
h.run_frames(2)
S.held = state(fmt("after holding %d for half a second", nth(4)))
press(HOLE_KEYS[nth(4)])
S.after_held = state(fmt("after holding %d, then pressing it again", nth(4)))
local HOLD_R = UP_FRAMES + UP_FRAMES // 2   -- one escape in it, the next far from its end
h.key_down(KEY_R)
h.run_frames(HOLD_R)
S.heldR = state(fmt("holding R for %d frames", HOLD_R))
h.key_up(KEY_R)
h.run_frames(2)

-- requirements -------------------------------------------------------------------------------------
local function expect(check, s, vars)
  local at = check.at(s.frame)
  if not s.found then
    at.fail(s.label .. ": GameState", "no node named GameState")
    return
  end
  for _, k in ipairs({"Score", "Lives", "Hole", "Status"}) do
    if vars[k] ~= nil then at.equal(s.label .. ": " .. k, s[k], vars[k]) end
  end
end
-- The n-th life lost in `trace` comes `UP_FRAMES` after frame `since`, leaving `vars`.
local function escape(check, lost, n, since, vars, what)
  local s = lost[n]
  if s == nil then
    check.fail(fmt("%s: a life is lost about %g s after frame %d", what, P.up_seconds, since),
      fmt("only %d lives lost in the frames watched", #lost))
    return nil
  end
  check.at(s.frame).near(fmt("%s: frames from frame %d to the life lost", what, since), s.frame - since,
    UP_FRAMES, TOL_FRAMES)
  expect(check, s, vars)
  return s.frame
end

requirement("R1", function(check)
  expect(check, S.start, {Score = 0, Lives = 3, Hole = nth(1), Status = "playing"})
  expect(check, S.idle, {Score = 0, Lives = 3, Hole = nth(1), Status = "playing"})
end)

requirement("R2", function(check)
  expect(check, S.miss, {Score = 0, Lives = 3, Hole = nth(1), Status = "playing"})
  for i, s in ipairs(S.whacks) do
    expect(check, s, {Score = i, Lives = 3, Hole = nth(i + 1), Status = "playing"})
  end
end)

local lost = losses(F.trace, S.whacks[9].Lives)
requirement("R3", function(check)
  escape(check, lost, 1, F.whacks[9], {Score = 9, Lives = 2, Hole = nth(11), Status = "playing"},
    "the mole after the ninth whack")
  if lost[1] then
    escape(check, lost, 2, lost[1].frame, {Score = 9, Lives = 1, Hole = nth(12), Status = "playing"},
      "the next mole")
  end
end)

requirement("R4", function(check)
  if lost[2] == nil then
    check.fail("the last life is lost", "the first two escapes did not happen (R3)")
    return
  end
  escape(check, lost, 3, lost[2].frame, {Score = 9, Lives = 0, Hole = 0, Status = "over"}, "the third mole left alone")
  local last = F.trace[#F.trace]
  check.at(last.frame).equal(last.label .. ": no other life lost after the game ended", #lost, 3)
  expect(check, last, {Score = 9, Lives = 0, Hole = 0, Status = "over"})
  expect(check, S.over_later, {Score = 9, Lives = 0, Hole = 0, Status = "over"})
end)

requirement("R5", function(check)
  expect(check, S.restart_over, {Score = 0, Lives = 3, Hole = nth(1), Status = "playing"})
  expect(check, S.restart_w1, {Score = 1, Lives = 3, Hole = nth(2), Status = "playing"})
  expect(check, S.restart_w2, {Score = 2, Lives = 3, Hole = nth(3), Status = "playing"})
  expect(check, S.restart_mid, {Score = 0, Lives = 3, Hole = nth(1), Status = "playing"})
  expect(check, S.restart_mid_w1, {Score = 1, Lives = 3, Hole = nth(2), Status = "playing"})
end)

-- richness
requirement("R6", function(check)
  expect(check, S.late_before, {Score = 1, Lives = 3, Hole = nth(2), Status = "playing"})
  local late = losses(F.late_trace, 3)
  local two_thirds = F.late_trace[UP_FRAMES * 2 // 3]   -- two thirds of a mole's time after R
  expect(check, two_thirds, {Score = 0, Lives = 3, Hole = nth(1), Status = "playing"})
  escape(check, late, 1, F.late_r, {Score = 0, Lives = 2, Hole = nth(2), Status = "playing"},
    "the first mole after R")
end)

requirement("R7", function(check)
  expect(check, S.before_hold, {Score = 3, Lives = 3, Hole = nth(4), Status = "playing"})
  expect(check, S.held, {Score = 4, Lives = 3, Hole = nth(5), Status = "playing"})
  expect(check, S.after_held, {Score = 5, Lives = 3, Hole = nth(6), Status = "playing"})
  expect(check, S.heldR, {Score = 0, Lives = 2, Hole = nth(2), Status = "playing"})
end)
