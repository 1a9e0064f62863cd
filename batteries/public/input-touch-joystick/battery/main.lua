-- Battery for input-touch-joystick: drives the virtual joystick and the fire zone with injected touches (one
-- finger, then several at once) and reads the Player's position and its Shots variable.
--
-- A stroke: a finger touches down in the left half, moves by (dx, dy) pixels on the next frame, holds still for
-- exactly 60 frames (1 s, 6 units at full deflection) and lifts; the player must then stand still.
local h = harness
local fmt, sqrt = string.format, math.sqrt

local TOL = 0.12
local SPEED = 6.0

local function pos()
  local p = h.find("Player")
  if p == nil then return nil end
  local v = p.position
  return {x = v.x, y = v.y, z = v.z}
end
local function shots()
  local p = h.find("Player")
  return p and p:var("Shots")
end
local function delta(a, b)
  if a == nil or b == nil then return nil end
  return {x = b.x - a.x, y = b.y - a.y, z = b.z - a.z}
end
local function snap(label) return {label = label, frame = h.frame(), pos = pos(), shots = shots()} end

-- The displacement expected from a drag of (dx, dy) pixels held for one second.
local function expected(dx, dy)
  local len = sqrt(dx * dx + dy * dy)
  if len <= 10 then return {x = 0, y = 0, z = 0} end
  local k = SPEED * math.min(len, 100) / 100 / len
  return {x = dx * k, y = 0, z = -dy * k}
end

-- drive --------------------------------------------------------------------------------------------
local S = {}
h.start()
S.start = snap("at start")
h.run(0.5)
S.idle = snap("0.5 s without touches")

local strokes = {}
local function stroke(name, id, cx, cy, dx, dy)
  h.touch_begin(id, cx, cy)
  h.run_frames(1)
  local st = {name = name, dx = dx, dy = dy, down = snap(name .. ": finger down")}
  h.touch_move(id, cx + dx, cy + dy)
  h.run_frames(1)
  st.a = snap(name .. ": dragged")
  h.run_frames(60)
  st.b = snap(name .. ": held 1 s")
  h.touch_end(id, cx + dx, cy + dy)
  h.run_frames(1)
  st.c = snap(name .. ": lifted")
  h.run_frames(20)
  st.d = snap(name .. ": 20 frames after lifting")
  strokes[name] = st
end
stroke("right 100 px", 0, 300, 400, 100, 0)
stroke("up 100 px", 1, 200, 500, 0, -100)
stroke("up-right (60, -80) px", 0, 400, 300, 60, -80)
stroke("down 60 px", 2, 150, 200, 0, 60)
stroke("left 250 px", 0, 500, 360, -250, 0)
stroke("right 50 px", 3, 300, 400, 50, 0)
stroke("dead zone (8, -5) px", 0, 300, 400, 8, -5)
h.touch_begin(4, 100, 100)
h.run_frames(30)
S.touch_no_drag = snap("a left finger down 0.5 s without dragging")
h.touch_end(4, 100, 100)
h.run_frames(1)
S.before_fire = snap("after all the left-half touches")

-- fire zone
h.touch(900, 300, 5); h.run_frames(1)
S.tap1 = snap("after one right-half tap")
h.touch_begin(6, 1000, 400)
h.run_frames(60)
S.hold = snap("a right-half finger held 1 s")
h.touch_end(6, 1000, 400)
h.run_frames(1)
for i = 1, 3 do h.touch(700 + 100 * i, 100 + 150 * i, i); h.run_frames(2) end
S.taps = snap("after three more taps")

-- several fingers: a second left finger while steering, then a tap while steering
h.touch_begin(1, 300, 400); h.run_frames(1)
h.touch_move(1, 400, 400); h.run_frames(1)
S.multi_a = snap("steering right")
h.touch_begin(3, 100, 600); h.run_frames(1)             -- a second left finger ...
h.touch_move(3, 50, 700); h.run_frames(59)              -- ... dragged down-left, held
S.multi_b = snap("steering right with a second left finger down, 1 s later")
h.touch_end(3, 50, 700); h.run_frames(1)
S.tap_before = snap("steering right, before a tap")
h.touch(1100, 600, 2); h.run_frames(58)                 -- a tap while steering
S.tap_after = snap("steering right, 1 s after lifting the second left finger and a tap")
h.touch_end(1, 400, 400); h.run_frames(10)
S.multi_c = snap("after lifting the steering finger")

-- richness: the fire finger goes down first, then the steering finger
h.touch_begin(0, 1000, 300); h.run_frames(1)
h.touch_begin(1, 300, 400); h.run_frames(1)
h.touch_move(1, 200, 400); h.run_frames(1)
S.second_a = snap("steering left with a fire finger down first")
h.run_frames(60)
S.second_b = snap("steering left with a fire finger down first, 1 s later")
h.touch_end(1, 200, 400); h.run_frames(1)
h.touch_end(0, 1000, 300); h.run_frames(10)
S.second_c = snap("after lifting both")

-- richness: another finger moves and lifts while steering
h.touch_begin(2, 200, 300); h.run_frames(1)
h.touch_move(2, 300, 300); h.run_frames(1)
S.other_a = snap("steering right")
h.touch_begin(3, 1000, 300); h.run_frames(10)
h.touch_move(3, 1100, 100); h.run_frames(20)
h.touch_end(3, 1100, 100); h.run_frames(30)
S.other_b = snap("steering right while a fire finger moved and lifted, 1 s later")
h.touch_end(2, 300, 300); h.run_frames(10)
S.other_c = snap("after lifting the steering finger")

-- requirements -------------------------------------------------------------------------------------
local ZERO = {x = 0, y = 0, z = 0}
local function check_stroke(check, name)
  local st = strokes[name]
  check.at(st.b.frame).near(fmt("%s: 1 s of motion", name), delta(st.a.pos, st.b.pos), expected(st.dx, st.dy), TOL)
end

requirement("R1", function(check)
  local has_octree = false
  for _, sc in ipairs(h.scenes()) do if sc:component("Octree") then has_octree = true end end
  check.truthy("a scene has an Octree component", has_octree)
  local cam = h.find("Camera")
  check.truthy("a node named Camera with a Camera component", cam and cam:component("Camera"))
  check.equal("exactly one node named Player", #h.find_all("Player"), 1)
  local p = h.find("Player")
  local sm = p and p:component("StaticModel")
  local model = sm and sm:get("Model")
  check.equal("Player's StaticModel model", model and model:GetName(), "Models/Box.mdl")
  local at = check.at(S.start.frame)
  at.near("Player starts at the origin", S.start.pos, ZERO, 1e-6)
  at.equal("Shots is 0 at the start", S.start.shots, 0)
  check.at(S.idle.frame).near("without touches the player stays still", delta(S.start.pos, S.idle.pos), ZERO, 1e-6)
end)

requirement("R2", function(check)
  for _, name in ipairs({"right 100 px", "up 100 px", "up-right (60, -80) px", "down 60 px"}) do
    check_stroke(check, name)
  end
end)

requirement("R3", function(check)
  for _, name in ipairs({"left 250 px", "right 50 px", "dead zone (8, -5) px"}) do check_stroke(check, name) end
  check.at(S.touch_no_drag.frame).near("a left finger down without dragging: no motion",
    delta(strokes["dead zone (8, -5) px"].d.pos, S.touch_no_drag.pos), ZERO, 1e-6)
end)

requirement("R4", function(check)
  for _, name in ipairs({"right 100 px", "up 100 px", "up-right (60, -80) px", "down 60 px", "left 250 px",
                         "right 50 px"}) do
    local st = strokes[name]
    check.at(st.d.frame).near(fmt("%s: still after lifting", name), delta(st.c.pos, st.d.pos), ZERO, 1e-6)
    check.at(st.d.frame).near(fmt("%s: y stays 0", name), st.d.pos and st.d.pos.y, 0, 1e-6)
  end
  check.at(S.multi_c.frame).near("lifting the steering finger stops the player",
    delta(S.tap_after.pos, S.multi_c.pos), {x = SPEED / 60, y = 0, z = 0}, TOL)
end)

requirement("R5", function(check)
  check.at(S.before_fire.frame).equal("left-half touches fire nothing", S.before_fire.shots, 0)
  check.at(S.tap1.frame).equal("one right-half tap: Shots", S.tap1.shots, 1)
  check.at(S.hold.frame).equal("a right-half finger held 1 s fires once: Shots", S.hold.shots, 2)
  check.at(S.taps.frame).equal("three more taps: Shots", S.taps.shots, 5)
end)

requirement("R6", function(check)
  check.at(S.multi_b.frame).near("a second left finger down and dragged does not steer",
    delta(S.multi_a.pos, S.multi_b.pos), {x = SPEED, y = 0, z = 0}, TOL)
  check.at(S.multi_b.frame).equal("a second left finger does not fire: Shots", S.multi_b.shots, S.taps.shots)
  check.at(S.tap_after.frame).equal("a tap while steering fires once: Shots", S.tap_after.shots,
    (S.tap_before.shots or 0) + 1)
end)

-- richness
requirement("R7", function(check)
  check.at(S.second_b.frame).near("steering with a fire finger down first: 1 s of motion",
    delta(S.second_a.pos, S.second_b.pos), {x = -SPEED, y = 0, z = 0}, TOL)
  check.at(S.second_c.frame).near("then still after lifting both",
    delta(S.second_b.pos, S.second_c.pos), {x = -SPEED / 60, y = 0, z = 0}, TOL)
end)

requirement("R8", function(check)
  check.at(S.tap_after.frame).near("a second left finger lifting and a tap leave the steering alone",
    delta(S.tap_before.pos, S.tap_after.pos), {x = SPEED, y = 0, z = 0}, TOL)
  check.at(S.other_b.frame).near("another finger moving and lifting does not disturb the steering",
    delta(S.other_a.pos, S.other_b.pos), {x = SPEED, y = 0, z = 0}, TOL)
  check.at(S.other_c.frame).near("then still after lifting the steering finger",
    delta(S.other_b.pos, S.other_c.pos), {x = SPEED / 60, y = 0, z = 0}, TOL)
end)
