-- Battery for hud-health-score: presses SPACE, D, H and R and reads the NanoVG frame: the bar's background, the
-- health fill (its width and colour), the "HP: H/100" and "Score: N" texts and "Game Over".
--
-- Story: start -> H at full health -> R -> SPACE x3 -> D D (70, 40) -> D H H (10, 30, 50: red, red, green)
--   -> H H D D D (exactly 0: game over) -> SPACE H ignored -> R -> D D D D (10, then 0, not -20) -> H ignored
--   -> R -> D held for a second.
local h = harness
local fmt = string.format

local SW, SH = h.screen()
local TOL = 2
local BAR = {20, 20, 220, 40}
local GREY, GREEN, RED = "60,60,60,255", "0,200,0,255", "220,0,0,255"

local function rgba(c) return table.concat(c.rgba, ",") end
local function near(a, b) return math.abs(a - b) <= TOL end
local function centre(b) return (b[1] + b[3]) / 2, (b[2] + b[4]) / 2 end

-- Everything the requirements read, copied at one moment.
local function snap(label)
  local s = {label = label, frame = h.frame(), background = false, fills = {}}
  for _, c in ipairs(h.drawn()) do
    local b = c.bounds
    if c.kind == "fill" and near(b[1], BAR[1]) and near(b[2], BAR[2]) and near(b[4], BAR[4]) then
      local col = rgba(c)
      if col == GREY and near(b[3], BAR[3]) then
        s.background = true
      elseif col == GREEN or col == RED then
        s.fills[#s.fills + 1] = {width = b[3] - b[1], color = col == GREEN and "green" or "red"}
      end
    end
  end
  for _, t in ipairs(h.drawn_text()) do
    local text = t.text:match("^%s*(.-)%s*$")
    local cx, cy = centre(t.bounds)
    local hp = text:match("^HP: (%-?%d+)/100$")
    if hp and s.hp == nil then s.hp, s.hp_where = tonumber(hp), {cx, cy} end
    local score = text:match("^Score: (%-?%d+)$")
    if score and s.score == nil then s.score, s.score_where = tonumber(score), {cx, cy} end
    if text == "Game Over" and s.over == nil then s.over = {cx, cy} end
  end
  return s
end
local function tap(key) h.press(key, 1); h.run_frames(3) end

-- drive --------------------------------------------------------------------------------------------
local S = {}
h.start()
h.run_frames(2)
S.start = snap("at the start")
tap(KEY_H)
S.heal_full = snap("after H at full health")
tap(KEY_R)
S.restart0 = snap("after R")
for _ = 1, 3 do tap(KEY_SPACE) end
S.coins = snap("after SPACE three times")
tap(KEY_D); S.d70 = snap("after one D")
tap(KEY_D); S.d40 = snap("after two D")
tap(KEY_D); S.d10 = snap("after three D")
tap(KEY_H); S.h30 = snap("after three D and one H")
tap(KEY_H); S.h50 = snap("after three D and two H")
tap(KEY_H); tap(KEY_H); tap(KEY_D); tap(KEY_D)
S.pre_zero = snap("one D away from 0")
tap(KEY_D)
S.zero = snap("after the D that brings health to exactly 0")
tap(KEY_SPACE); tap(KEY_H)
h.run(1.0)
S.zero_later = snap("1 s after pressing SPACE and H with the game over")
tap(KEY_R)
S.restart = snap("after R with the game over")
tap(KEY_D); tap(KEY_D); tap(KEY_D)
S.again10 = snap("after R and three D")
tap(KEY_D)
S.overshoot = snap("after a fourth D (30 damage with 10 health left)")
tap(KEY_H); tap(KEY_SPACE)
S.overshoot_later = snap("after H and SPACE with the game over")
tap(KEY_R)
S.restart2 = snap("after R again")
h.key_down(KEY_D)
h.run(1.0)
S.held = snap("holding D for a second")
h.key_up(KEY_D)
h.run_frames(10)
S.released = snap("after releasing D")

-- requirements -------------------------------------------------------------------------------------
-- The health shown by snapshot `s`: the text, the fill (width 2 x health, colour) or none at 0.
local function health(check, s, hp, what)
  local at = check.at(s.frame)
  at.equal(fmt("%s: HP text (%s)", s.label, what), s.hp, hp)
  at.truthy(s.label .. ": the bar's grey background from (20, 20) to (220, 40)", s.background)
  if hp <= 0 then
    at.equal(s.label .. ": no health fill at 0", #s.fills, 0)
    return
  end
  at.equal(s.label .. ": one health fill on the bar", #s.fills, 1)
  local f = s.fills[1]
  if f then
    at.near(fmt("%s: health fill width (2 x %d)", s.label, hp), f.width, 2 * hp, TOL)
    at.equal(s.label .. ": health fill colour", f.color, hp > 30 and "green" or "red")
  end
end
local function score(check, s, n)
  check.at(s.frame).equal(s.label .. ": Score text", s.score, n)
end
local function over(check, s, shown)
  local at = check.at(s.frame)
  if shown then
    at.truthy(s.label .. ": Game Over drawn", s.over)
    if s.over then at.near(s.label .. ": Game Over centred horizontally", s.over[1], SW / 2, 40) end
  else
    at.falsy(s.label .. ": no Game Over", s.over)
  end
end

requirement("R1", function(check)
  local s = S.start
  health(check, s, 100, "full")
  score(check, s, 0)
  over(check, s, false)
  local at = check.at(s.frame)
  if s.hp_where then
    at.truthy(s.label .. ": HP text in the top-left quarter", s.hp_where[1] < SW / 2 and s.hp_where[2] < SH / 2)
  end
  if s.score_where then
    at.truthy(s.label .. ": Score text in the top-right quarter",
      s.score_where[1] >= SW / 2 and s.score_where[2] < SH / 2)
  end
end)

requirement("R2", function(check)
  score(check, S.restart0, 0)
  score(check, S.coins, 30)
end)

requirement("R3", function(check)
  health(check, S.d70, 70, "100 - 30")
  health(check, S.d40, 40, "70 - 30")
  score(check, S.d40, 30)
end)

requirement("R4", function(check)
  health(check, S.d10, 10, "40 - 30")
  health(check, S.h30, 30, "10 + 20")
  health(check, S.h50, 50, "30 + 20")
end)

requirement("R5", function(check)
  health(check, S.pre_zero, 30, "50 + 20 + 20 - 30 - 30")
  over(check, S.pre_zero, false)
  health(check, S.zero, 0, "30 - 30")
  over(check, S.zero, true)
  health(check, S.zero_later, 0, "H ignored")
  score(check, S.zero_later, 30)
  over(check, S.zero_later, true)
  health(check, S.restart, 100, "restarted")
  score(check, S.restart, 0)
  over(check, S.restart, false)
end)

-- richness
requirement("R6", function(check)
  health(check, S.heal_full, 100, "healing never goes past the maximum")
end)

requirement("R7", function(check)
  health(check, S.again10, 10, "three D after a restart")
  health(check, S.overshoot, 0, "health stops at 0")
  over(check, S.overshoot, true)
  health(check, S.overshoot_later, 0, "H ignored")
  score(check, S.overshoot_later, 0)
  over(check, S.overshoot_later, true)
end)

requirement("R8", function(check)
  health(check, S.restart2, 100, "restarted")
  health(check, S.held, 70, "a held D is one press")
  health(check, S.released, 70, "a held D is one press")
end)
