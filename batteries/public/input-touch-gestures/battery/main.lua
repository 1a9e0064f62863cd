-- Battery for input-touch-gestures: injects touch strokes (taps, pairs of taps, long presses, swipes, drags that
-- are no gesture, two-finger pinches) and reads the Player's variables and position and the camera's zoom.
--
-- Every stroke keeps well away from the thresholds: taps last 0.1 s, double-tap gaps are 0.15 s (pairs) or
-- 0.55 s (no pair), long presses are read at 0.45 s (not yet) and 0.8 s, swipes move 150 px in 0.2 s. Sections
-- are 0.5 s apart so no tap pairs across them.
local h = harness
local fmt, floor = string.format, math.floor

local ZOOM_TOL = 0.05
local POS_TOL = 0.01
local GAP = 0.5

local function player_state()
  local p = h.find("Player")
  if p == nil then return {} end
  local pos = p.position
  return {Shots = p:var("Shots"), Jumps = p:var("Jumps"), Shield = p:var("Shield"), Lane = p:var("Lane"),
          Gesture = p:var("Gesture"), Gestures = p:var("Gestures"), x = pos.x, y = pos.y, z = pos.z}
end
local function zoom()
  local cam = h.find("Camera")
  local c = cam and cam:component("Camera")
  return c and c:get("Zoom")
end
local function snap(label)
  local s = player_state()
  s.label, s.frame, s.zoom = label, h.frame(), zoom()
  return s
end

-- One finger: touches down at pts[1], moves through the other points at even intervals and lifts at the last
-- one `seconds` after touching down; then one more frame.
local function stroke(id, pts, seconds)
  local n = floor(seconds * 60 + 0.5)
  h.touch_begin(id, pts[1][1], pts[1][2])
  local moves, done = #pts - 1, 0
  for k = 1, moves do
    local at = floor(n * k / (moves + 1))
    if at > done then h.run_frames(at - done); done = at end
    h.touch_move(id, pts[k + 1][1], pts[k + 1][2])
  end
  if n > done then h.run_frames(n - done) end
  h.touch_end(id, pts[#pts][1], pts[#pts][2])
  h.run_frames(1)
end
local function tap(id, x, y) stroke(id, {{x, y}}, 0.1) end
local function swipe(id, x, y, dx, dy)
  stroke(id, {{x, y}, {x + dx / 3, y + dy / 3}, {x + 2 * dx / 3, y + 2 * dy / 3}, {x + dx, y + dy}}, 0.2)
end
local function wait(s) h.run(s) end
-- Two fingers a and b: a touches down, b 3 frames later; each step moves them to new x positions on a row at
-- y, 3 frames apart; calls back after each step with its index; then `first` lifts, and the other 3 frames
-- later (moving `last_dx` first, quickly).
local function pinch(a, b, ax, bx, y, steps, on_step, first, last_dx)
  h.touch_begin(a, ax, y); h.run_frames(3)
  h.touch_begin(b, bx, y); h.run_frames(1)
  local pos = {[a] = ax, [b] = bx}
  if on_step then on_step(0) end
  for i, st in ipairs(steps) do
    h.touch_move(a, st[1], y); h.touch_move(b, st[2], y); pos[a], pos[b] = st[1], st[2]
    h.run_frames(3)
    if on_step then on_step(i) end
  end
  local other = first == a and b or a
  h.touch_end(first, pos[first], y); h.run_frames(3)
  if last_dx and last_dx ~= 0 then h.touch_move(other, pos[other] + last_dx, y); h.run_frames(2) end
  h.touch_end(other, pos[other] + (last_dx or 0), y); h.run_frames(1)
end

-- drive --------------------------------------------------------------------------------------------
local S = {}
h.start()
h.run_frames(2)
S.start = snap("at the start")

-- taps
tap(0, 400, 300); S.tap1 = snap("after one tap")
wait(GAP)
tap(0, 200, 200); h.run(0.15); tap(0, 300, 300); S.far_pair = snap("after two quick taps 141 px apart")
wait(GAP)
tap(0, 500, 500); h.run(0.55); tap(0, 505, 500); S.late_pair = snap("after two taps 0.55 s apart")
wait(GAP)

-- double taps
S.before_double = snap("before a double tap")
tap(0, 600, 400); S.double_first = snap("after the first tap of a pair")
h.run(0.15); tap(0, 610, 405); S.double = snap("after a second tap 0.15 s later, 11 px away")
h.run(0.15); tap(0, 605, 400); S.triple = snap("after a third tap 0.15 s later")
wait(GAP)

-- long press
S.before_long = snap("before a long press")
h.touch_begin(0, 700, 300)
h.run(0.45); S.long_045 = snap("a finger held still for 0.45 s")
h.run(0.35); S.long_080 = snap("the finger held still for 0.8 s")
h.run(0.4); S.long_120 = snap("the finger held still for 1.2 s")
h.touch_end(0, 700, 300); h.run_frames(1); S.long_lift = snap("after lifting the long-pressed finger")
wait(GAP)
h.touch_begin(0, 300, 500); h.run(0.8); h.touch_end(0, 300, 500); h.run_frames(1)
S.long2 = snap("after a second long press")
wait(GAP)

-- swipes
local swipes = {}
local function do_swipe(label, dx, dy, want, lane)
  local before = snap("before " .. label)
  swipe(0, 640, 360, dx, dy)
  swipes[#swipes + 1] = {before = before, after = snap("after " .. label), want = want, lane = lane}
  h.run(0.2)
end
do_swipe("a swipe right", 150, 0, "swipe_right", 1)
do_swipe("a second swipe right", 150, 0, "swipe_right", 1)
do_swipe("a swipe left", -150, 0, "swipe_left", 0)
do_swipe("a second swipe left", -150, 0, "swipe_left", -1)
do_swipe("a third swipe left", -150, 0, "swipe_left", -1)
do_swipe("a swipe up", 0, -150, "swipe_up", -1)
do_swipe("a swipe down", 0, 150, "swipe_down", -1)
do_swipe("a swipe (120, -90) px", 120, -90, "swipe_right", 0)
do_swipe("a swipe (70, -110) px", 70, -110, "swipe_up", 0)
wait(GAP)

-- touches that are no gesture
S.before_none = snap("before touches that are no gesture")
local none = {}
stroke(0, {{400, 360}, {430, 360}, {460, 360}, {490, 360}, {520, 360}, {550, 360}}, 0.9)
none[#none + 1] = snap("after a slow drag of 150 px over 0.9 s")
wait(GAP)
stroke(0, {{640, 360}, {700, 360}, {645, 360}}, 0.15)
none[#none + 1] = snap("after a 0.15 s touch that went 60 px away and came back")
wait(GAP)
stroke(0, {{640, 360}, {665, 360}, {690, 360}}, 0.2)
none[#none + 1] = snap("after a quick 50 px drag")
wait(GAP)
stroke(0, {{640, 360}}, 0.45)
none[#none + 1] = snap("after a still touch of 0.45 s")
wait(GAP)

-- pinches
S.before_pinch = snap("before a quick pinch")
local quick = {}
pinch(0, 1, 540, 740, 360, {{540, 790}, {540, 840}}, function(i) quick[i] = snap(fmt("quick pinch, step %d", i)) end,
  1, 0)
S.quick_after = snap("after a quick pinch from 200 to 300 px (the still finger lifted 0.25 s after touching)")
wait(GAP)
tap(0, 640, 360); S.tap_after_pinch = snap("after a tap once the pinch is over")
wait(GAP)
local long = {}
pinch(0, 1, 540, 740, 360, {{390, 990}, {240, 1140}, {620, 660}, {630, 650}, {540, 740}},
  function(i) long[i] = snap(fmt("long pinch, step %d", i)) end, 0, 150)
S.long_pinch_after = snap("after the long pinch, the second finger swiping 150 px as it lifts")
wait(GAP)
local third = {}
pinch(0, 1, 540, 740, 360, {{590, 690}}, function(i) third[i] = snap(fmt("third pinch, step %d", i)) end, 0, 0)
wait(GAP)

-- richness: taps right after other gestures
local after = {}
local function tap_after(label, fn, x, y)
  fn()
  local before = snap("before a tap right after " .. label)
  h.run(0.15)
  tap(0, x, y)
  after[#after + 1] = {before = before, after = snap("after a tap 0.15 s after " .. label)}
  wait(GAP)
end
tap_after("a long press", function()
  h.touch_begin(0, 500, 300); h.run(0.8); h.touch_end(0, 500, 300); h.run_frames(1)
end, 500, 300)
tap_after("a swipe", function() swipe(0, 500, 300, 150, 0) end, 500, 300)
tap_after("a pinch", function() pinch(0, 1, 500, 700, 300, {{480, 720}}, nil, 1, 0) end, 500, 300)

-- richness: any finger ids
local ids = {}
S.before_ids = snap("before touches with finger ids 2 to 9")
tap(4, 300, 300); ids.tap = snap("after a tap with finger id 4")
wait(GAP)
tap(6, 800, 300); h.run(0.15); tap(2, 805, 300); ids.double = snap("after taps with finger ids 6 then 2")
wait(GAP)
swipe(9, 640, 360, 150, 0); ids.swipe = snap("after a swipe right with finger id 9")
wait(0.3)
S.ids_pinch_before = snap("before a pinch with finger ids 7 and 3")
pinch(7, 3, 540, 740, 360, {{540, 840}}, function(i) if i == 0 then ids.pinch0 = snap("pinch ids 7 and 3 begun") end end,
  3, 0)
ids.pinch = snap("after a pinch with finger ids 7 and 3")

-- requirements -------------------------------------------------------------------------------------
local function counts(check, s, want)
  local at = check.at(s.frame)
  for _, k in ipairs({"Shots", "Jumps", "Shield", "Lane", "Gesture", "Gestures"}) do
    if want[k] ~= nil then at.equal(fmt("%s: %s", s.label, k), s[k], want[k]) end
  end
end
-- `s` recognised exactly `n` more gestures than `before`, the last named `name` (nil: none at all).
local function recognised(check, before, s, n, name)
  local at = check.at(s.frame)
  local b, a = before.Gestures, s.Gestures
  at.equal(fmt("%s: gestures recognised since '%s'", s.label, before.label),
    (type(a) == "number" and type(b) == "number") and a - b or nil, n)
  if name then at.equal(s.label .. ": Gesture", s.Gesture, name) end
end
local function plus(before, key, n)
  return type(before[key]) == "number" and before[key] + n or nil
end

requirement("R1", function(check)
  local has_octree = false
  for _, sc in ipairs(h.scenes()) do if sc:component("Octree") then has_octree = true end end
  check.truthy("a scene has an Octree component", has_octree)
  local cam = h.find("Camera")
  check.truthy("a node named Camera with a Camera component", cam and cam:component("Camera"))
  local vp = h.viewport(0)
  check.equal("viewport 0's camera is the Camera node's", vp and vp.camera_node and vp.camera_node.name, "Camera")
  check.equal("exactly one node named Player", #h.find_all("Player"), 1)
  local p = h.find("Player")
  local sm = p and p:component("StaticModel")
  local model = sm and sm:get("Model")
  check.equal("Player's StaticModel model", model and model:GetName(), "Models/Box.mdl")
  local s = S.start
  local at = check.at(s.frame)
  at.near("camera zoom at the start", s.zoom, 1.0, 1e-6)
  at.near("Player at the origin", s.x and Vector3(s.x, s.y, s.z), Vector3(0, 0, 0), POS_TOL)
  counts(check, s, {Shots = 0, Jumps = 0, Shield = false, Lane = 0, Gesture = "", Gestures = 0})
end)

requirement("R2", function(check)
  counts(check, S.tap1, {Shots = 1, Jumps = 0, Gesture = "tap", Gestures = 1})
  counts(check, S.far_pair, {Shots = 3, Jumps = 0, Gesture = "tap", Gestures = 3})
  counts(check, S.late_pair, {Shots = 5, Jumps = 0, Gesture = "tap", Gestures = 5})
end)

requirement("R3", function(check)
  local b = S.before_double
  counts(check, S.double_first, {Shots = plus(b, "Shots", 1), Jumps = b.Jumps, Gesture = "tap"})
  counts(check, S.double, {Shots = plus(b, "Shots", 1), Jumps = plus(b, "Jumps", 1), Gesture = "double_tap"})
  recognised(check, b, S.double, 2)
  counts(check, S.triple, {Shots = plus(b, "Shots", 2), Jumps = plus(b, "Jumps", 1), Gesture = "tap"})
  recognised(check, b, S.triple, 3)
end)

requirement("R4", function(check)
  local b = S.before_long
  recognised(check, b, S.long_045, 0)
  counts(check, S.long_045, {Shield = false})
  recognised(check, b, S.long_080, 1, "long_press")
  counts(check, S.long_080, {Shield = true, Shots = b.Shots})
  recognised(check, b, S.long_120, 1, "long_press")
  recognised(check, b, S.long_lift, 1, "long_press")
  counts(check, S.long_lift, {Shield = true, Shots = b.Shots, Jumps = b.Jumps})
  recognised(check, b, S.long2, 2, "long_press")
  counts(check, S.long2, {Shield = false})
end)

requirement("R5", function(check)
  for _, sw in ipairs(swipes) do
    recognised(check, sw.before, sw.after, 1, sw.want)
    counts(check, sw.after, {Lane = sw.lane, Shots = sw.before.Shots})
    check.at(sw.after.frame).near(sw.after.label .. ": Player x is 2 x Lane", sw.after.x, 2 * sw.lane, POS_TOL)
  end
end)

requirement("R6", function(check)
  for _, s in ipairs(none) do
    recognised(check, S.before_none, s, 0)
    counts(check, s, {Shots = S.before_none.Shots, Lane = S.before_none.Lane, Shield = S.before_none.Shield})
  end
end)

requirement("R7", function(check)
  local b = S.before_pinch
  recognised(check, b, quick[0], 1, "pinch")
  check.at(quick[2].frame).near(quick[2].label .. ": zoom (fingers 200 -> 300 px apart)", quick[2].zoom, 1.5,
    ZOOM_TOL)
  recognised(check, b, S.quick_after, 1, "pinch")
  counts(check, S.quick_after, {Shots = b.Shots, Jumps = b.Jumps, Lane = b.Lane})
  check.at(S.quick_after.frame).near(S.quick_after.label .. ": zoom stays", S.quick_after.zoom, 1.5, ZOOM_TOL)
  counts(check, S.tap_after_pinch, {Shots = plus(b, "Shots", 1), Gesture = "tap"})
  -- the long pinch (from 1.5, 200 px): 600 px (x3), 900 px (x4.5): at most 2; 40 px, 20 px: at least 0.5
  check.at(long[1].frame).near(long[1].label .. ": zoom at most 2.0", long[1].zoom, 2.0, ZOOM_TOL)
  check.at(long[2].frame).near(long[2].label .. ": zoom at most 2.0", long[2].zoom, 2.0, ZOOM_TOL)
  check.at(long[3].frame).near(long[3].label .. ": zoom at least 0.5", long[3].zoom, 0.5, ZOOM_TOL)
  check.at(long[4].frame).near(long[4].label .. ": zoom at least 0.5", long[4].zoom, 0.5, ZOOM_TOL)
  recognised(check, S.tap_after_pinch, S.long_pinch_after, 1, "pinch")
  counts(check, S.long_pinch_after, {Lane = S.tap_after_pinch.Lane, Shots = S.tap_after_pinch.Shots})
  check.at(S.long_pinch_after.frame).near(S.long_pinch_after.label .. ": zoom stays after lifting",
    S.long_pinch_after.zoom, long[5].zoom, 1e-6)
end)

-- richness
requirement("R8", function(check)
  for _, t in ipairs(after) do
    counts(check, t.after, {Shots = plus(t.before, "Shots", 1), Jumps = t.before.Jumps, Gesture = "tap"})
    recognised(check, t.before, t.after, 1, "tap")
  end
end)

requirement("R9", function(check)
  -- the long pinch began at zoom 1.5: back to its starting distance (200 px) -> 1.5; the third pinch from 1.5
  -- halves the distance (200 -> 100 px) -> 0.75
  check.at(long[5].frame).near(long[5].label .. ": zoom with the fingers 200 px apart, as at the start",
    long[5].zoom, 1.5, ZOOM_TOL)
  check.at(third[1].frame).near(third[1].label .. ": zoom after halving the distance from zoom 1.5",
    third[1].zoom, 0.75, ZOOM_TOL)
end)

requirement("R10", function(check)
  local b = S.before_ids
  counts(check, ids.tap, {Shots = plus(b, "Shots", 1), Gesture = "tap"})
  counts(check, ids.double, {Shots = plus(b, "Shots", 2), Jumps = plus(b, "Jumps", 1), Gesture = "double_tap"})
  counts(check, ids.swipe, {Lane = math.min(1, (b.Lane or 0) + 1), Gesture = "swipe_right"})
  recognised(check, S.ids_pinch_before, ids.pinch0, 1, "pinch")
  recognised(check, S.ids_pinch_before, ids.pinch, 1, "pinch")
  check.at(ids.pinch.frame).greater(ids.pinch.label .. ": spreading the fingers zoomed in", ids.pinch.zoom,
    (S.ids_pinch_before.zoom or 99) + 0.1)
end)
