-- Battery for anim-door-toggle: drives E presses (quick, mid-swing, held, right after a swing) and samples the
-- Door's yaw, its attribute animations and its panel's box at fixed frames after each press.
local h = harness
local fmt, atan, deg, sqrt, abs = string.format, math.atan, math.deg, math.sqrt, math.abs

local STEP_FRAMES = {15, 30, 45}           -- 0.25, 0.5, 0.75 s after the key goes down
local TURN_TOL, REST_TOL = 4.0, 1.0

local function door()
  local all = h.find_all("Door")
  return #all == 1 and all[1] or nil
end

-- The first StaticModel on the Door node or below it.
local function panel_model(node)
  if node == nil then return nil end
  local sm = node:component("StaticModel")
  if sm then return sm end
  for _, c in ipairs(node.children) do
    local found = panel_model(c)
    if found then return found end
  end
  return nil
end

-- Everything the requirements read about the door, copied now.
local function snap(label)
  local d = door()
  local s = {label = label, frame = h.frame()}
  if d == nil then return s end
  local dir = d.world_rotation * Vector3(0, 0, 1)
  local up = d.world_rotation * Vector3(0, 1, 0)
  s.yaw = deg(atan(dir.x, dir.z))
  s.tilt = deg(math.acos(math.min(1, math.max(-1, up.y))))
  s.animated = false
  local anim = d.animation
  for _, a in ipairs(anim and anim.attributes or {}) do
    if a.attribute == "Rotation" then s.animated = true end
  end
  local sm = panel_model(d)
  if sm then
    local box = sm:get("worldBoundingBox")
    local c = box and box.center
    if c then
      local p = d.world_position
      s.panel = {x = c.x - p.x, z = c.z - p.z}
    end
  end
  return s
end

-- Press E (down for `hold` frames), then sample at each of `frames` counted from the frame the key went down.
local function press_and_sample(label, frames, hold)
  local samples, start = {}, h.frame()
  h.key_down(KEY_E)
  local released = false
  for _, f in ipairs(frames) do
    while h.frame() - start < f do
      if not released and h.frame() - start >= (hold or 1) then h.key_up(KEY_E); released = true end
      h.run_frames(1)
    end
    samples[#samples + 1] = snap(fmt("%s, %d frames after the press", label, f))
    samples[#samples].k = f
  end
  if not released then h.key_up(KEY_E) end
  return samples
end

-- Bring the door to rest at `yaw` (a mistake earlier must not derail the later parts): wait, press E once if
-- it rests at the other end, wait again.
local function settle(yaw)
  h.run(1.5)
  local s = snap("")
  if s.yaw ~= nil and math.abs(s.yaw - yaw) > 45 then
    h.press(KEY_E, 1)
    h.run(1.5)
  end
end

-- drive --------------------------------------------------------------------------------------------
local S = {}
h.start()
S.start = snap("when Start returned")
h.run(1.0)
S.idle = snap("1 s without input")

S.open = press_and_sample("opening", {15, 30, 45, 90, 180})
S.close = press_and_sample("closing", {15, 30, 45, 90, 120})
-- a second press half way through an opening
S.mid_first = press_and_sample("opening again", {30})
S.mid = press_and_sample("E pressed half way through the opening", {15, 60, 90})   -- 45 .. 90 frames in
-- pressed again 4 frames after a swing ended: it turns at once
S.quick_first = press_and_sample("closing before a quick press", {64})
S.quick = press_and_sample("E pressed 4 frames after the door finished closing", {30, 90})
-- held for 1.5 s on the open door: one close
settle(90)
S.held = press_and_sample("E held 1.5 s on the open door", {45, 90, 150}, 90)

-- requirements -------------------------------------------------------------------------------------
local function near_yaw(check, s, want, tol)
  local at = check.at(s.frame)
  if s.yaw == nil then at.fail(s.label .. ": door yaw", "no single Door node"); return end
  at.near(fmt("%s: door yaw (degrees)", s.label), s.yaw, want, tol)
  at.near(fmt("%s: the door turns about Y only (tilt of its up axis, degrees)", s.label), s.tilt, 0, 1.0)
end

local function swing_checks(check, samples, from, to)
  for _, s in ipairs(samples) do
    if s.k <= 45 then
      near_yaw(check, s, from + (to - from) * s.k / 60, TURN_TOL)
    else
      near_yaw(check, s, to, REST_TOL)
    end
  end
end

requirement("R1", function(check)
  local found = false
  for _, scene in ipairs(h.scenes()) do if scene:component("Octree") then found = true end end
  check.truthy("a scene has an Octree component", found)
  local cams = h.find_all("Camera")
  check.equal("nodes named Camera", #cams, 1)
  check.truthy("Camera has a Camera component", cams[1] and cams[1]:component("Camera"))
  local d = door()
  check.truthy("exactly one node named Door", d)
  check.near("Door's world position", d and d.world_position, {x = 0, y = 0, z = 0}, 0.01)
  check.truthy("a StaticModel on Door or below it", panel_model(d))
end)

requirement("R2", function(check)
  near_yaw(check, S.start, 0, REST_TOL)
  near_yaw(check, S.idle, 0, REST_TOL)
end)

requirement("R3", function(check)
  for _, s in ipairs({S.open[2], S.close[2]}) do
    check.at(s.frame).truthy(s.label .. ": the Door node has an attribute animation on Rotation", s.animated)
  end
end)

requirement("R4", function(check) swing_checks(check, S.open, 0, 90) end)
requirement("R5", function(check) swing_checks(check, S.close, 90, 0) end)

requirement("R6", function(check)
  near_yaw(check, S.mid_first[1], 45, TURN_TOL)
  near_yaw(check, S.mid[1], 45 + 90 * 15 / 60, TURN_TOL)
  near_yaw(check, S.mid[2], 90, REST_TOL)
  near_yaw(check, S.mid[3], 90, REST_TOL)
end)

requirement("R7", function(check)
  near_yaw(check, S.held[1], 90 - 90 * 45 / 60, TURN_TOL)
  near_yaw(check, S.held[2], 0, REST_TOL)
  near_yaw(check, S.held[3], 0, REST_TOL)
end)

requirement("R8", function(check)
  local closed, open = S.start.panel, S.open[4].panel
  if closed == nil or open == nil then
    check.fail("the door's panel box", "no StaticModel on Door or below it")
    return
  end
  local r_closed = sqrt(closed.x ^ 2 + closed.z ^ 2)
  local r_open = sqrt(open.x ^ 2 + open.z ^ 2)
  check.at(S.start.frame).greater("closed: the panel's centre is off the hinge line (horizontal distance)", r_closed,
    0.25)
  check.at(S.open[4].frame).near("open: the panel's centre is as far from the hinge line", r_open, r_closed, 0.05)
  -- a quarter turn of yaw +90 maps the offset (x, z) to (z, -x)
  check.at(S.open[4].frame).near("open: the panel's centre has swung a quarter turn about the hinge",
    {x = open.x, y = 0, z = open.z}, {x = closed.z, y = 0, z = -closed.x}, 0.05)
end)

requirement("R9", function(check)
  near_yaw(check, S.quick_first[1], 0, REST_TOL)
  near_yaw(check, S.quick[1], 45, TURN_TOL)
  near_yaw(check, S.quick[2], 90, REST_TOL)
end)
