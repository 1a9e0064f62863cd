-- Battery for hud-arena-flow: plays a whole session of the NanoVG arena on a DPR-2 screen that is turned and
-- resized mid-game, reading only the drawn frames (texts, fills, strokes, converted to logical pixels).
--
-- Route (play time T, 60 Hz): title and options menus; a new game; Q refused by its cooldown; walk to target A;
-- Q, E and Q destroy A (damage numbers followed through their life; the E number while the view moves); the
-- storm at 6; inventory selection by keys, wheel and clicks; a potion; a 10 s pause (everything frozen, game keys
-- ignored); options from the pause; the screen turned to portrait, to 4:3 and back; A back at 12.5; a bomb;
-- storms and potions until the game is over at T = 102; Play Again (everything new) and 20 s more; Quit.
local h = harness
local fmt, abs, min, max = string.format, math.abs, math.min, math.max

local DPR = 2.0
local M = 16
local FRAME = 1 / 60
local YELLOW, WHITE = "255,220,0,255", "255,255,255,255"
local GREEN, RED = "80,220,120,255", "230,60,60,255"
local TIME_TOL, POS_TOL = 0.15, 4
local TARGETS = {A = {500, 600}, B = {1100, 600}, C = {800, 250}}
local TITLE_ITEMS = {"Play", "Options"}
local PAUSE_ITEMS = {"Resume", "Options", "Quit"}
local OVER_ITEMS = {"Play Again", "Title"}
local function option_items(numbers, minimap)
  return {"Damage Numbers: " .. numbers, "Minimap: " .. minimap, "Back"}
end

-- the battery's own count of the game: play time and where the player should be
local T = 0.0
local playing = false
local px, py = 800, 600

-- reading a frame ----------------------------------------------------------------------------------
local function rgba(c) return table.concat(c.rgba, ",") end

-- Everything drawn, in logical pixels, copied at one moment.
local function snap(label)
  local sw, sh = h.screen()
  local s = {label = label, frame = h.frame(), lw = sw / DPR, lh = sh / DPR, texts = {}, fills = {}, strokes = {},
    T = T, px = px, py = py}
  for _, c in ipairs(h.drawn()) do
    local b = c.bounds
    local box = {b[1] / DPR, b[2] / DPR, b[3] / DPR, b[4] / DPR}
    local r = {box = box, cx = (box[1] + box[3]) / 2, cy = (box[2] + box[4]) / 2, w = box[3] - box[1],
      ht = box[4] - box[2], rgba = rgba(c), alpha = c.rgba[4]}
    if c.kind == "text" then
      r.text = c.text:match("^%s*(.-)%s*$")
      s.texts[#s.texts + 1] = r
    elseif c.kind == "fill" then
      s.fills[#s.fills + 1] = r
    else
      s.strokes[#s.strokes + 1] = r
    end
  end
  return s
end

local function text_eq(s, str)
  for _, t in ipairs(s.texts) do if t.text == str then return t end end
  return nil
end
local function text_match(s, pattern)
  for _, t in ipairs(s.texts) do
    local v = t.text:match(pattern)
    if v then return t, v end
  end
  return nil, nil
end
local function near_box(a, b, tol)
  return abs(a[1] - b[1]) <= tol and abs(a[2] - b[2]) <= tol and abs(a[3] - b[3]) <= tol and abs(a[4] - b[4]) <= tol
end
local function inside_box(a, b, slack)
  return a[1] >= b[1] - slack and a[2] >= b[2] - slack and a[3] <= b[3] + slack and a[4] <= b[4] + slack
end
local function point_in(x, y, b) return x >= b[1] and x <= b[3] and y >= b[2] and y <= b[4] end
local function overlap(a, b) return a[1] < b[3] - 1 and b[1] < a[3] - 1 and a[2] < b[4] - 1 and b[2] < a[4] - 1 end

local function hud(s)
  local r = {}
  local t, v = text_match(s, "^HP (%-?%d+)/100$")
  r.hp, r.hp_text = tonumber(v), t
  t, v = text_match(s, "^Score: (%d+)$")
  r.score, r.score_text = tonumber(v), t
  t, v = text_match(s, "^Time: (%d+%.%d)$")
  r.time, r.time_text = tonumber(v), t
  for _, f in ipairs(s.fills) do
    if near_box(f.box, {M, M, M + 240, M + 24}, 2) then r.bar_bg = f end
  end
  return r
end
-- The health fill: a fill from the bar's left edge, as tall as the bar, `width` wide.
local function bar_fill(s, width)
  for _, f in ipairs(s.fills) do
    if abs(f.box[1] - M) <= 2 and abs(f.box[2] - M) <= 2 and abs(f.ht - 24) <= 2 and abs(f.w - width) <= 3 then
      return f
    end
  end
  return nil
end

local function minimap(s)
  local size = 0.3 * min(s.lw, s.lh)
  local want = {s.lw - M - size, s.lh - M - size, s.lw - M, s.lh - M}
  local m = {size = size, box = want, green = {}, red = {}}
  for _, f in ipairs(s.fills) do
    if near_box(f.box, want, 3) then m.bg = f end
  end
  for _, f in ipairs(s.fills) do
    if inside_box(f.box, want, 1) and f.w >= 4 and f.w <= 14 and f.ht >= 4 and f.ht <= 14 then
      local dot = {x = f.cx - want[1], y = f.cy - want[2]}
      if f.rgba == GREEN then m.green[#m.green + 1] = dot elseif f.rgba == RED then m.red[#m.red + 1] = dot end
    end
  end
  return m
end
-- Where an arena point shows on a minimap (pixels from its top-left corner).
local function on_map(m, x, y) return {x = x / 1600 * m.size, y = y / 1200 * m.size} end
local function has_dot(list, want)
  for _, d in ipairs(list) do
    if abs(d.x - want.x) <= 3 and abs(d.y - want.y) <= 3 then return true end
  end
  return false
end

-- The inventory: the 56 x 56 fills left to right, the selected one (yellow outline) and the counts.
local function inventory(s)
  local slots = {}
  local icon_y = {s.lh / 2 - 36, s.lh / 2 + 36}   -- the ability icons are 56 across too
  for _, f in ipairs(s.fills) do
    local is_icon = abs(f.cx - (M + 28)) <= 6 and (abs(f.cy - icon_y[1]) <= 6 or abs(f.cy - icon_y[2]) <= 6)
    if abs(f.w - 56) <= 1.5 and abs(f.ht - 56) <= 1.5 and not is_icon then
      local dup = false
      for _, o in ipairs(slots) do if abs(o.cx - f.cx) < 4 and abs(o.cy - f.cy) < 4 then dup = true end end
      if not dup then slots[#slots + 1] = f end
    end
  end
  table.sort(slots, function(a, b) return a.cx < b.cx end)
  local inv = {slots = slots, counts = {}, selected = {}}
  for i, slot in ipairs(slots) do
    for _, st in ipairs(s.strokes) do
      if st.rgba == YELLOW and point_in(st.cx, st.cy, slot.box) then inv.selected[#inv.selected + 1] = i end
    end
    for _, t in ipairs(s.texts) do
      local n = t.text:match("^x(%d+)$")
      if n and point_in(t.cx, t.cy, slot.box) then inv.counts[i] = tonumber(n) end
    end
  end
  inv.sel = #inv.selected == 1 and inv.selected[1] or (#inv.selected == 0 and "none" or "several")
  local c = {}
  for i = 1, 5 do c[i] = inv.counts[i] and ("x" .. inv.counts[i]) or "-" end
  inv.count_str = table.concat(c, " ")
  return inv
end

-- Ability icon i (1 = Q, 2 = E): its letter, the seconds left and the strokes around it.
local LETTERS = {"Q", "E"}
local function icon(s, i)
  local cx, cy = M + 28, s.lh / 2 + (i == 1 and -36 or 36)
  local r = {cx = cx, cy = cy, strokes = 0, min_area = nil}
  for _, t in ipairs(s.texts) do
    if abs(t.cx - cx) <= 8 and abs(t.cy - cy) <= 8 then
      if t.text == LETTERS[i] then r.letter = true end
      local left = t.text:match("^(%d+%.%d)$")
      if left then r.left = tonumber(left) end
    end
  end
  for _, st in ipairs(s.strokes) do
    if inside_box(st.box, {cx - 40, cy - 40, cx + 40, cy + 40}, 0) then
      r.strokes = r.strokes + 1
      local area = st.w * st.ht
      if r.min_area == nil or area < r.min_area then r.min_area = area end
    end
  end
  return r
end
-- A stroke around the icon much smaller than a whole ring (a quarter or less of one).
local FULL_RING = (2 * 31) * (2 * 31)
local function partial_ring(ic) return ic.min_area ~= nil and ic.min_area < 0.5 * FULL_RING end

local function numbers(s)
  local out = {}
  for _, t in ipairs(s.texts) do
    local n = t.text:match("^%-(%d+)$")
    if n then out[#out + 1] = {value = tonumber(n), cx = t.cx, cy = t.cy, alpha = t.alpha} end
  end
  return out
end
local function number_of(s, value)
  for _, n in ipairs(numbers(s)) do if n.value == value then return n end end
  return nil
end

local function labels(s, names)
  local out = {}
  for _, name in ipairs(names) do
    local t = text_eq(s, name)
    if t then out[name] = {cx = t.cx, cy = t.cy, color = t.rgba, box = t.box} end
  end
  return out
end
local function selected_label(s, names)
  local l, sel = labels(s, names), {}
  for _, name in ipairs(names) do
    if l[name] and l[name].color == YELLOW then sel[#sel + 1] = name end
  end
  return table.concat(sel, "+")
end
local function overlay(s)
  for _, f in ipairs(s.fills) do
    local b, c = f.box, f.rgba
    local r, g, bl, a = c:match("(%d+),(%d+),(%d+),(%d+)")
    r, g, bl, a = tonumber(r), tonumber(g), tonumber(bl), tonumber(a)
    if b[1] <= 0.5 and b[2] <= 0.5 and b[3] >= s.lw - 0.5 and b[4] >= s.lh - 0.5 and a > 12 and a < 243
        and (0.299 * r + 0.587 * g + 0.114 * bl) < 128 then
      return true
    end
  end
  return false
end

-- driving ------------------------------------------------------------------------------------------
local function run(n)
  for _ = 1, n do
    h.run_frames(1)
    if playing then T = T + FRAME end
  end
end
local function tap(key) h.key_down(key); run(1); h.key_up(key) end
local function hold(key, frames) h.key_down(key); run(frames); h.key_up(key) end
local function click(x, y) h.click(x * DPR, y * DPR); if playing then T = T + FRAME end; run(1) end
local function click_label(s, name)
  local l = labels(s, {name})[name]
  if l then click(l.cx, l.cy) end
  return l ~= nil
end
local function wheel(amount) h.wheel(amount); run(1) end
local function run_until_T(t) while T < t - 1e-9 do run(1) end end

local S = {}
h.start()
h.run_frames(2)
local sw0, sh0 = h.screen()
S.title = snap("title screen")
tap(KEY_DOWN); S.t_down = snap("title: DOWN")
tap(KEY_UP); S.t_up = snap("title: UP")
tap(KEY_UP); S.t_up2 = snap("title: UP at the top")
tap(KEY_DOWN); tap(KEY_DOWN); S.t_down2 = snap("title: DOWN twice")
tap(KEY_RETURN); run(1)
S.opt = snap("Options from Title")
click_label(S.opt, "Minimap: On"); S.opt_click = snap("Options: clicked 'Minimap: On'")
tap(KEY_RETURN); S.opt_return = snap("Options: RETURN on the Minimap item")
tap(KEY_ESCAPE); run(1); S.title2 = snap("ESCAPE on Options opened from Title")

-- a new game
playing = true
click_label(S.title2, "Play")
run(1)
S.p0 = snap("first frames of a game")
tap(KEY_Q)                                   -- nothing in range, but the cooldown starts
local q1 = T
run(30)
S.q_cd = snap("0.5 s after Q")
hold(KEY_A, 60); px = px - 240
run(6)
S.moved = snap("after walking left 1 s")
tap(KEY_Q); run(1)
S.q_refused = snap("Q pressed again during its cooldown")
run_until_T(q1 + 2.2)
S.q_ready = snap("Q's cooldown over")

tap(KEY_Q)                                   -- A is 60 units away: 15 damage
local hit_frame, q2 = h.frame(), T
S.num0 = snap("the frame of the Q hit")
run(29); S.num_mid = snap("0.5 s after the Q hit")
run(24); S.num_late = snap("0.9 s after the Q hit")
run(12); S.num_gone = snap("1.1 s after the Q hit")

run(6)
tap(KEY_E)                                   -- 40 damage, A at 5 HP
local e_frame = h.frame()
S.e_hit = snap("the frame of the E hit")
hold(KEY_W, 30); py = py - 120
S.anchor = snap("the view moved up 120 units after the E hit")
hold(KEY_S, 30); py = py + 120
run_until_T(q2 + 2.15)
tap(KEY_Q)                                   -- the last 5 HP: destroyed, +50
run(10)
S.killed = snap("A destroyed by Q")

run_until_T(6.25)
local storm_frame = h.frame() - math.floor((T - 6.0) / FRAME + 0.5)
S.storm = snap("0.25 s after the first storm")

-- inventory
local inv_steps = {}
local function inv_step(label, want) inv_steps[#inv_steps + 1] = {s = snap(label), want = want} end
tap(KEY_2); inv_step("key 2", 2)
wheel(-1); inv_step("wheel down", 3)
wheel(1); inv_step("wheel up", 2)
wheel(1); inv_step("wheel up again", 1)
wheel(1); inv_step("wheel up from slot 1 (wraps)", 5)
wheel(-1); inv_step("wheel down from slot 5 (wraps)", 1)
local inv_now = inventory(inv_steps[#inv_steps].s)
local slot_box = {}
for i, f in ipairs(inv_now.slots) do slot_box[i] = {f.cx, f.cy} end
if slot_box[2] then click(slot_box[2][1], slot_box[2][2]) end
inv_step("click on slot 2", 2)
tap(KEY_4); inv_step("key 4", 4)
if slot_box[1] then click(slot_box[1][1], slot_box[1][2]) end
inv_step("click on slot 1", 1)
tap(KEY_F); run(1)
S.potion1 = snap("F on slot 1 (a potion at 90 HP)")
tap(KEY_3); tap(KEY_F); run(1)
S.empty_f = snap("F on the empty slot 3")
tap(KEY_1); run(1)

-- pause: everything frozen, game keys ignored
run_until_T(7.0)
playing = false
tap(KEY_ESCAPE); run(1)
S.pause = snap("ESCAPE: paused")
tap(KEY_Q); tap(KEY_F); tap(KEY_3); wheel(-1)
if slot_box[2] then click(slot_box[2][1], slot_box[2][2]) end
run(600)
S.pause_late = snap("10 s into the pause, after Q, F, 3, the wheel and a click on slot 2")
tap(KEY_DOWN); tap(KEY_RETURN); run(1)
S.opt_pause = snap("Options from the pause")
click_label(S.opt_pause, "Minimap: On")
S.opt_pause_off = snap("Options: minimap turned off")
tap(KEY_ESCAPE); run(1)
S.back_pause = snap("ESCAPE on Options opened from the pause")
playing = true
click_label(S.back_pause, "Resume")
run(59)
S.no_minimap = snap("1 s after Resume, minimap off")
S.no_minimap.resumed_from = S.pause_late

playing = false
tap(KEY_ESCAPE); tap(KEY_DOWN); tap(KEY_RETURN); run(1)
tap(KEY_DOWN); tap(KEY_RETURN); S.opt_mm_on = snap("Options: RETURN on 'Minimap: Off'")
tap(KEY_UP); tap(KEY_RETURN); S.opt_dn_off = snap("Options: RETURN on 'Damage Numbers: On'")
click_label(S.opt_dn_off, "Back"); run(1)
S.back_pause2 = snap("Back on Options opened from the pause")
playing = true
tap(KEY_RETURN); run(1)

-- the screen turns and resizes
local layouts = {}
local function layout_at(w, hh, label)
  h.resize(w, hh); run(2)
  local s = snap(label)
  layouts[#layouts + 1] = s
  return s
end
S.portrait = layout_at(1080, 2400, "turned to portrait (540 x 1200 logical)")
playing = false
tap(KEY_ESCAPE); run(1)
S.pause_portrait = snap("paused in portrait")
playing = true
tap(KEY_ESCAPE); run(1)
S.resume_portrait = snap("ESCAPE again in portrait")
S.square = layout_at(1600, 1200, "resized to 800 x 600 logical")
S.land = layout_at(2400, 1080, "back to 1200 x 540 logical")

run_until_T(12.8)
S.respawn = snap("A back 8 s after it was destroyed")
tap(KEY_2); tap(KEY_F); run(2)         -- the bomb: A destroyed again; numbers are off
S.bomb = snap("a bomb at A (numbers off)")
tap(KEY_1)

-- storms and potions until the game is over
local hp_series = {}
local expect_hp = 100
local potions_at = {[24] = true, [42] = true}
for k = 2, 16 do
  local storm_t = 6 * k
  run_until_T(storm_t + 0.4)
  expect_hp = expect_hp - 10
  local s = snap(fmt("0.4 s after the storm at %d s", storm_t))
  hp_series[#hp_series + 1] = {s = s, hp = expect_hp, t = T}
  if potions_at[storm_t] then
    tap(KEY_F); run(1)
    expect_hp = min(100, expect_hp + 30)
    hp_series[#hp_series + 1] = {s = snap(fmt("a potion after the storm at %d s", storm_t)), hp = expect_hp, t = T}
  end
end
S.slot1_empty = hp_series[#hp_series].s
local over
for _ = 1, 600 do
  run(1)
  local t = h.find_text("Game Over")
  if t and t.text:match("^%s*Game Over%s*$") then over = true; break end
end
playing = false
S.over = snap("Game Over")
tap(KEY_DOWN); S.over_down = snap("Game Over: DOWN")
tap(KEY_UP); S.over_up = snap("Game Over: UP")
playing = true
T = 0
px, py = 800, 600
tap(KEY_RETURN); run(1)
S.new = snap("Play Again")
run_until_T(6.3)
S.new_storm = snap("the new game's first storm")
run_until_T(20.0)
S.new_late = snap("20 s into the new game")

playing = false
tap(KEY_ESCAPE); tap(KEY_DOWN); tap(KEY_RETURN); run(1)
S.opt_kept = snap("Options after Play Again")
tap(KEY_ESCAPE); run(1)
if not h.find_text("Resume") then tap(KEY_ESCAPE); run(1) end   -- back to the pause, whatever ESCAPE did
tap(KEY_DOWN); tap(KEY_DOWN); tap(KEY_RETURN); run(1)
S.quit = snap("Quit from the pause")
click_label(S.quit, "Options"); run(1)
tap(KEY_ESCAPE); run(1)
S.title_back = snap("ESCAPE on Options opened from Title again")

-- requirements -------------------------------------------------------------------------------------
local function menu_ok(check, s, names, want_selected)
  local at = check.at(s.frame)
  local l = labels(s, names)
  for i, name in ipairs(names) do
    at.truthy(fmt("%s: label '%s' drawn", s.label, name), l[name])
    if l[name] then
      at.near(fmt("%s: '%s' centred horizontally", s.label, name), l[name].cx, s.lw / 2, POS_TOL)
      at.between(fmt("%s: '%s' on screen", s.label, name), l[name].cy, 0, s.lh)
      local prev = l[names[i - 1] or ""]
      if prev then at.truthy(fmt("%s: '%s' below '%s'", s.label, name, names[i - 1]), l[name].cy > prev.cy) end
    end
  end
  if want_selected then
    at.equal(s.label .. ": the selected (yellow) item", selected_label(s, names), want_selected)
    for _, name in ipairs(names) do
      if name ~= want_selected and l[name] then
        at.equal(fmt("%s: '%s' white", s.label, name), l[name].color, WHITE)
      end
    end
  end
end
local function no_menu(check, s, names)
  local l = labels(s, names)
  check.at(s.frame).falsy(s.label .. ": none of " .. table.concat(names, ", ") .. " drawn", next(l))
end

local function check_hud_layout(check, s)
  local at = check.at(s.frame)
  local u = hud(s)
  at.truthy(s.label .. ": the health bar's background at (M, M), 240 x 24", u.bar_bg)
  at.truthy(s.label .. ": 'HP N/100' drawn", u.hp_text)
  if u.hp_text then
    at.truthy(s.label .. ": 'HP N/100' inside the bar",
      point_in(u.hp_text.cx, u.hp_text.cy, {M, M, M + 240, M + 24}))
  end
  at.truthy(s.label .. ": 'Score: N' drawn", u.score_text)
  if u.score_text then
    at.near(s.label .. ": the score's right edge at lw - M", u.score_text.box[3], s.lw - M, POS_TOL)
    at.less(s.label .. ": the score at the top", u.score_text.cy, 80)
  end
  at.truthy(s.label .. ": 'Time: S' drawn", u.time_text)
  if u.time_text then
    at.near(s.label .. ": the timer centred horizontally", u.time_text.cx, s.lw / 2, POS_TOL)
    at.less(s.label .. ": the timer at the top", u.time_text.cy, 80)
  end
  for i = 1, 2 do
    local ic = icon(s, i)
    at.truthy(fmt("%s: %s's icon shows its letter or seconds at (M + 28, lh / 2 %s 36)", s.label, LETTERS[i],
      i == 1 and "-" or "+"), ic.letter or ic.left)
  end
  local inv = inventory(s)
  at.equal(s.label .. ": five 56 x 56 slots", #inv.slots, 5)
  if #inv.slots == 5 then
    at.near(s.label .. ": the slot row centred", (inv.slots[1].box[1] + inv.slots[5].box[3]) / 2, s.lw / 2, POS_TOL)
    at.near(s.label .. ": slots 8 apart", inv.slots[2].box[1] - inv.slots[1].box[3], 8, 2)
    at.truthy(s.label .. ": the slot row on screen", inv.slots[1].box[1] >= 0 and inv.slots[5].box[3] <= s.lw
      and inv.slots[1].box[4] <= s.lh)
  end
end

local function check_minimap(check, s, living)
  local at = check.at(s.frame)
  local m = minimap(s)
  local px, py = s.px, s.py
  at.truthy(fmt("%s: the minimap square (side %.1f) at the bottom-right", s.label, m.size), m.bg)
  at.equal(s.label .. ": one green player dot", #m.green, 1)
  at.truthy(fmt("%s: the player's dot at (%g, %g)", s.label, px, py), has_dot(m.green, on_map(m, px, py)))
  at.equal(s.label .. ": red dots (living targets)", #m.red, #living)
  for _, name in ipairs(living) do
    local p = TARGETS[name]
    at.truthy(s.label .. ": target " .. name .. "'s dot", has_dot(m.red, on_map(m, p[1], p[2])))
  end
end

local function hp_is(check, s, want)
  local u = hud(s)
  check.at(s.frame).equal(s.label .. ": HP text", u.hp, want)
  check.at(s.frame).truthy(fmt("%s: the health fill %g wide", s.label, 240 * want / 100),
    want == 0 or bar_fill(s, 240 * want / 100) ~= nil)
end
local function time_is(check, s)
  check.at(s.frame).near(s.label .. ": the timer (play time)", hud(s).time, s.T, TIME_TOL)
end

requirement("R1", function(check)
  check.equal("the test screen", fmt("%dx%d", sw0, sh0), "2400x1080")
  menu_ok(check, S.title, TITLE_ITEMS, "Play")
  menu_ok(check, S.t_down, TITLE_ITEMS, "Options")
  menu_ok(check, S.t_up, TITLE_ITEMS, "Play")
  menu_ok(check, S.t_up2, TITLE_ITEMS, "Play")
  menu_ok(check, S.t_down2, TITLE_ITEMS, "Options")
  menu_ok(check, S.opt, option_items("On", "On"), "Damage Numbers: On")
  menu_ok(check, S.opt_click, option_items("On", "Off"), "Minimap: Off")
  menu_ok(check, S.opt_return, option_items("On", "On"), "Minimap: On")
  menu_ok(check, S.title2, TITLE_ITEMS, "Play")
  no_menu(check, S.title2, {"Back"})
  menu_ok(check, S.opt_pause, option_items("On", "On"), "Damage Numbers: On")
  menu_ok(check, S.opt_pause_off, option_items("On", "Off"), "Minimap: Off")
  menu_ok(check, S.back_pause, PAUSE_ITEMS, "Resume")
  menu_ok(check, S.opt_mm_on, option_items("On", "On"), "Minimap: On")
  menu_ok(check, S.opt_dn_off, option_items("Off", "On"), "Damage Numbers: Off")
  menu_ok(check, S.back_pause2, PAUSE_ITEMS, "Resume")
  menu_ok(check, S.quit, TITLE_ITEMS, "Play")
  menu_ok(check, S.title_back, TITLE_ITEMS, "Play")
  no_menu(check, S.title_back, {"Resume", "Back"})
end)

requirement("R2", function(check)
  local s = S.p0
  no_menu(check, s, TITLE_ITEMS)
  check_hud_layout(check, s)
  hp_is(check, s, 100)
  check.at(s.frame).equal(s.label .. ": score", hud(s).score, 0)
  time_is(check, s)
  for i = 1, 2 do check.at(s.frame).truthy(s.label .. ": " .. LETTERS[i] .. " ready", icon(s, i).letter) end
  time_is(check, S.moved)
  time_is(check, S.storm)
end)

requirement("R3", function(check)
  check_minimap(check, S.p0, {"A", "B", "C"})
  check_minimap(check, S.moved, {"A", "B", "C"})
  check_minimap(check, S.killed, {"B", "C"})
  check_minimap(check, S.respawn, {"A", "B", "C"})
  check_minimap(check, S.bomb, {"B", "C"})
  local m = minimap(S.no_minimap)
  check.at(S.no_minimap.frame).falsy(S.no_minimap.label .. ": no minimap square", m.bg)
  check.at(S.no_minimap.frame).equal(S.no_minimap.label .. ": no dots", #m.green + #m.red, 0)
  check_minimap(check, S.new, {"A", "B", "C"})
end)

requirement("R4", function(check)
  local function at(s) return check.at(s.frame) end
  local qc = icon(S.q_cd, 1)
  at(S.q_cd).near("0.5 s after Q: Q's seconds left", qc.left, 1.5, TIME_TOL)
  at(S.q_cd).falsy("0.5 s after Q: no letter while cooling down", qc.letter)
  at(S.q_cd).greater("0.5 s after Q: a ring around the icon", qc.strokes, 0)
  local qm = icon(S.moved, 1)
  at(S.moved).near(S.moved.label .. ": Q's seconds left", qm.left, 2 - (S.moved.T - q1), TIME_TOL)
  at(S.moved).truthy(S.moved.label .. ": Q's ring shrunk to a short arc (a fifth left)", partial_ring(qm))
  at(S.q_refused).equal(S.q_refused.label .. ": no damage (score)", hud(S.q_refused).score, 0)
  at(S.q_refused).equal(S.q_refused.label .. ": no damage number", #numbers(S.q_refused), 0)
  local qr = icon(S.q_ready, 1)
  at(S.q_ready).truthy(S.q_ready.label .. ": Q's letter back", qr.letter)
  at(S.q_ready).falsy(S.q_ready.label .. ": no seconds", qr.left)
  at(S.q_ready).falsy(S.q_ready.label .. ": no partial ring", partial_ring(qr))
  at(S.num0).equal(S.num0.label .. ": Strike hit A for 15 (score)", hud(S.num0).score, 15)
  at(S.e_hit).equal(S.e_hit.label .. ": Blast hit A for 40 (score)", hud(S.e_hit).score, 55)
  local ec = icon(S.e_hit, 2)
  at(S.e_hit).near(S.e_hit.label .. ": E's seconds left", ec.left, 8.0, TIME_TOL)
  at(S.killed).equal(S.killed.label .. ": the last 5 HP and +50 (score)", hud(S.killed).score, 110)
  at(S.bomb).equal(S.bomb.label .. ": a bomb's 60 and +50 (score)", hud(S.bomb).score, 220)
end)

requirement("R5", function(check)
  local function age(s) return (s.frame - hit_frame + 1) * FRAME end
  local ax, ay = 500, 600
  for _, s in ipairs({S.num0, S.num_mid, S.num_late}) do
    local n = number_of(s, 15)
    local at = check.at(s.frame)
    at.truthy(s.label .. ": '-15' drawn", n)
    if n then
      local vx, vy = s.lw / 2 + ax - 560, s.lh / 2 + ay - 600
      at.near(s.label .. ": '-15' x (A's)", n.cx, vx, POS_TOL)
      at.near(s.label .. ": '-15' y (30 above A, rising 50 per s)", n.cy, vy - 30 - 50 * age(s), POS_TOL)
      at.near(s.label .. ": '-15' alpha (fading)", n.alpha, 255 * (1 - age(s)), 20)
    end
  end
  check.at(S.num_gone.frame).falsy(S.num_gone.label .. ": '-15' removed", number_of(S.num_gone, 15))
  local n5 = number_of(S.killed, 5)
  check.at(S.killed.frame).truthy(S.killed.label .. ": '-5' (the damage dealt, capped)", n5)
  local st = number_of(S.storm, 10)
  local sa = (S.storm.frame - storm_frame + 1) * FRAME
  check.at(S.storm.frame).truthy(S.storm.label .. ": '-10' drawn", st)
  if st then
    check.at(S.storm.frame).near(S.storm.label .. ": '-10' above the player (x)", st.cx, S.storm.lw / 2, POS_TOL)
    check.at(S.storm.frame).near(S.storm.label .. ": '-10' above the player (y)", st.cy,
      S.storm.lh / 2 - 30 - 50 * sa, POS_TOL + 1)
  end
  check.at(S.bomb.frame).equal(S.bomb.label .. ": no damage number with the setting Off", #numbers(S.bomb), 0)
end)

requirement("R6", function(check)
  local first = inventory(S.p0)
  check.at(S.p0.frame).equal(S.p0.label .. ": counts", first.count_str, "x3 x2 - - -")
  check.at(S.p0.frame).equal(S.p0.label .. ": slot 1 selected", first.sel, 1)
  for _, st in ipairs(inv_steps) do
    check.at(st.s.frame).equal(st.s.label .. ": selected slot", inventory(st.s).sel, st.want)
  end
  hp_is(check, S.potion1, 100)
  check.at(S.potion1.frame).equal(S.potion1.label .. ": counts", inventory(S.potion1).count_str, "x2 x2 - - -")
  check.at(S.empty_f.frame).equal(S.empty_f.label .. ": counts", inventory(S.empty_f).count_str, "x2 x2 - - -")
  hp_is(check, S.empty_f, 100)
  check.at(S.bomb.frame).equal(S.bomb.label .. ": counts", inventory(S.bomb).count_str, "x2 x1 - - -")
  check.at(S.slot1_empty.frame).equal(S.slot1_empty.label .. ": the last potion used, slot 1 empty",
    inventory(S.slot1_empty).count_str, "- x1 - - -")
end)

requirement("R7", function(check)
  local p, late = S.pause, S.pause_late
  check.at(p.frame).truthy(p.label .. ": a translucent dark rectangle over the screen", overlay(p))
  menu_ok(check, p, PAUSE_ITEMS, "Resume")
  local u0, u1 = hud(p), hud(late)
  check.at(p.frame).truthy(p.label .. ": the HUD under the overlay", u0.time_text and u0.hp_text)
  check.at(late.frame).near(late.label .. ": the timer frozen", u1.time, u0.time or -1, 0.01)
  hp_is(check, late, 100)
  check.at(late.frame).near(late.label .. ": E's cooldown frozen", icon(late, 2).left, icon(p, 2).left or -1, 0.01)
  local r = S.no_minimap
  no_menu(check, r, PAUSE_ITEMS)
  check.at(r.frame).near(r.label .. ": the timer goes on from where it stopped", hud(r).time, (u1.time or -1) + 1.0,
    TIME_TOL)
  check.at(S.pause_portrait.frame).truthy(S.pause_portrait.label .. ": overlay", overlay(S.pause_portrait))
  menu_ok(check, S.pause_portrait, PAUSE_ITEMS, "Resume")
  no_menu(check, S.resume_portrait, PAUSE_ITEMS)
  no_menu(check, S.quit, {"Resume"})
  check.at(S.quit.frame).falsy(S.quit.label .. ": no HUD on Title", hud(S.quit).hp_text)
end)

requirement("R8", function(check)
  for _, s in ipairs(layouts) do
    check_hud_layout(check, s)
    check_minimap(check, s, {"B", "C"})
  end
  menu_ok(check, S.pause_portrait, PAUSE_ITEMS, "Resume")
end)

requirement("R9", function(check)
  hp_is(check, S.storm, 90)
  for _, e in ipairs(hp_series) do
    hp_is(check, e.s, e.hp)
    time_is(check, e.s)
  end
  local o = S.over
  check.at(o.frame).truthy("the game ends when the storm takes the last HP", over)
  check.at(o.frame).truthy(o.label .. ": 'Game Over'", text_eq(o, "Game Over"))
  local _, score = text_match(o, "^Score: (%d+)$")
  local _, time = text_match(o, "^Time: (%d+%.%d)$")
  check.at(o.frame).equal(o.label .. ": the final score", tonumber(score), 220)
  check.at(o.frame).near(o.label .. ": the final play time", tonumber(time), 102.0, TIME_TOL)
  check.at(o.frame).falsy(o.label .. ": no HUD", text_match(o, "^HP "))
  menu_ok(check, o, OVER_ITEMS, "Play Again")
  menu_ok(check, S.over_down, OVER_ITEMS, "Title")
  menu_ok(check, S.over_up, OVER_ITEMS, "Play Again")
  -- the panel: the smallest fill holding the five texts, as wide as the widest plus 40 a side
  local boxes, widest = {}, 0
  for _, str in ipairs({"Game Over", "Score: " .. (score or "?"), "Time: " .. (time or "?"), "Play Again", "Title"}) do
    local t = text_eq(o, str)
    if t then boxes[#boxes + 1] = t.box; widest = max(widest, t.w) end
  end
  local panel
  for _, f in ipairs(o.fills) do
    local holds = #boxes == 5
    for _, b in ipairs(boxes) do holds = holds and inside_box(b, f.box, 1) end
    if holds and f.w < o.lw - 1 and (panel == nil or f.w * f.ht < panel.w * panel.ht) then panel = f end
  end
  check.at(o.frame).truthy(o.label .. ": a panel holding the five texts", panel)
  if panel then
    check.at(o.frame).near(o.label .. ": the panel's width (widest text + 80)", panel.w, widest + 80, 4)
    check.at(o.frame).near(o.label .. ": the panel centred", panel.cx, o.lw / 2, POS_TOL)
  end
  local n = S.new
  hp_is(check, n, 100)
  check.at(n.frame).equal(n.label .. ": score", hud(n).score, 0)
  time_is(check, n)
  check.at(n.frame).equal(n.label .. ": counts", inventory(n).count_str, "x3 x2 - - -")
  check.at(n.frame).equal(n.label .. ": slot 1 selected", inventory(n).sel, 1)
  for i = 1, 2 do check.at(n.frame).truthy(n.label .. ": " .. LETTERS[i] .. " ready", icon(n, i).letter) end
  hp_is(check, S.new_storm, 90)
  hp_is(check, S.new_late, 70)
  time_is(check, S.new_late)
  menu_ok(check, S.opt_kept, option_items("Off", "On"), "Damage Numbers: Off")
end)

-- richness
requirement("R10", function(check)
  local s = S.anchor
  local n = number_of(s, 40)
  local a = (s.frame - e_frame + 1) * FRAME
  check.at(s.frame).truthy(s.label .. ": '-40' still drawn", n)
  if n then
    local vx, vy = s.lw / 2 + 500 - s.px, s.lh / 2 + 600 - s.py
    check.at(s.frame).near(s.label .. ": '-40' stays over A as the view moves (x)", n.cx, vx, POS_TOL)
    check.at(s.frame).near(s.label .. ": '-40' stays over A as the view moves (y)", n.cy, vy - 30 - 50 * a, POS_TOL + 2)
  end
end)

requirement("R11", function(check)
  for _, s in ipairs(layouts) do
    local parts = {}
    local u = hud(s)
    if u.bar_bg then parts[#parts + 1] = {"health bar", u.bar_bg.box} end
    if u.score_text then parts[#parts + 1] = {"score", u.score_text.box} end
    if u.time_text then parts[#parts + 1] = {"timer", u.time_text.box} end
    local m = minimap(s)
    if m.bg then parts[#parts + 1] = {"minimap", m.box} end
    local inv = inventory(s)
    if #inv.slots == 5 then
      parts[#parts + 1] = {"inventory", {inv.slots[1].box[1], inv.slots[1].box[2], inv.slots[5].box[3],
        inv.slots[5].box[4]}}
    end
    for i = 1, 2 do
      local ic = icon(s, i)
      parts[#parts + 1] = {LETTERS[i] .. " icon", {ic.cx - 28, ic.cy - 28, ic.cx + 28, ic.cy + 28}}
    end
    check.at(s.frame).equal(s.label .. ": HUD parts found", #parts, 7)
    for i = 1, #parts do
      local b = parts[i][2]
      check.at(s.frame).truthy(fmt("%s: the %s on screen", s.label, parts[i][1]),
        b[1] >= -0.5 and b[2] >= -0.5 and b[3] <= s.lw + 0.5 and b[4] <= s.lh + 0.5)
      for j = i + 1, #parts do
        check.at(s.frame).falsy(fmt("%s: the %s and the %s overlap", s.label, parts[i][1], parts[j][1]),
          overlap(b, parts[j][2]))
      end
    end
  end
end)

requirement("R12", function(check)
  local p, late = S.pause, S.pause_late
  check.at(late.frame).equal(late.label .. ": counts", inventory(late).count_str, inventory(p).count_str)
  check.at(late.frame).equal(late.label .. ": selected slot", inventory(late).sel, 1)
  check.at(late.frame).truthy(late.label .. ": Q not used", icon(late, 1).letter)
  check.at(late.frame).equal(late.label .. ": score", hud(late).score, hud(p).score or -1)
  local r = S.no_minimap
  check.at(r.frame).equal(r.label .. ": selected slot after the pause", inventory(r).sel, 1)
  check.at(r.frame).equal(r.label .. ": counts after the pause", inventory(r).count_str, "x2 x2 - - -")
end)
