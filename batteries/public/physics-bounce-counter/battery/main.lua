-- Battery for physics-bounce-counter: a ball dropped on a floor and left to Bullet. Checks the bodies'
-- settings, free fall (position and the body's velocity), the rebound, the bounce counter against the
-- contacts the engine itself records, the SPACE kick, R, and that the ball answers an impulse the battery
-- applies (so a ball whose node is placed by hand fails).
--
-- Timeline (60 Hz): the drop bounces at about 0.97 s, 2.53 s and 3.82 s (restitution 0.81 combined); the
-- battery pushes the ball sideways at 0.08 s, taps SPACE at 4.2 s (near the third rebound's top), holds SPACE
-- for 20 frames at 4.7 s, presses R while the ball falls fast, watches the new drop for 1.6 s, then sets the
-- ball's restitution to 0 and watches it land and lie on the floor for 2.5 s.
local h = harness
local fmt = string.format

local G = 9.81
local STEP = 1 / 60

local function ball() return h.find("Ball") end
local function touching_floor(b)
  local p = b and b.physics
  if p == nil then return false end
  for _, c in ipairs(p.contacts) do if c.name == "Floor" then return true end end
  return false
end

-- one row per frame: what the ball does and what the game shows
local trace = {}
local starts, was_touching = 0, false
local function sample()
  local b = ball()
  local gs = h.find("GameState")
  local row = {frame = h.frame(), bounces = gs and gs:var("Bounces"), text = h.ui_text("BounceText")}
  if b ~= nil then
    local wp, p = b.world_position, b.physics
    row.x, row.y, row.z = wp.x, wp.y, wp.z
    if p then row.vx, row.vy = p.velocity.x, p.velocity.y end
    local t = touching_floor(b)
    if t and not was_touching then starts = starts + 1 end
    was_touching = t
    row.touching = t
  end
  row.starts = starts
  trace[#trace + 1] = row
  return row
end
local function run(frames, each)
  local last
  for _ = 1, frames do
    if each then each() end
    h.run_frames(1)
    last = sample()
  end
  return last
end

-- drive --------------------------------------------------------------------------------------------
h.start()
local first = sample()
local setup = {}
do
  local b = ball()
  local body = b and b:component("RigidBody")
  local shape = b and b:component("CollisionShape")
  setup.ball_mass = body and body:get("Mass")
  setup.ball_restitution = body and body:get("Restitution")
  setup.ball_shape = shape and shape:get("ShapeType")
  local size = shape and shape:get("Size")
  setup.ball_diameter = size and size.x * (b.world_scale.x)
  local f = h.find("Floor")
  local fbody = f and f:component("RigidBody")
  setup.floor_mass = fbody and fbody:get("Mass")
  setup.floor_restitution = fbody and fbody:get("Restitution")
  setup.has_world = false
  for _, s in ipairs(h.scenes()) do
    local w = s:component("PhysicsWorld")
    if w then
      setup.has_world = true
      -- the floor's top, found by Bullet: a ray down away from the ball
      local hit = w:call("RaycastSingle", Ray(Vector3(3, 10, 3), Vector3(0, -1, 0)), 20)
      setup.floor_hit_y = hit and hit.body and hit.position.y
      setup.floor_hit_name = hit and hit.body and hit.body.node and hit.body.node.name
    end
  end
end

run(5)
-- the battery's own push (1 N·s along +X) while the ball falls
local before_push = trace[#trace]
do
  local body = ball() and ball():component("RigidBody")
  if body then body:call("ApplyImpulse", Vector3(1, 0, 0)) end
end
local fall = run(25)                                -- 0.5 s of free fall
local after_push = run(10)
run(252 - h.frame())                                -- t = 4.2 s

-- the SPACE tap
local before_tap = trace[#trace]
h.key_down(KEY_SPACE)
local after_tap = run(1)
h.key_up(KEY_SPACE)
run(282 - h.frame())

-- SPACE held for 20 frames
local before_hold = trace[#trace]
h.key_down(KEY_SPACE)
local after_hold = run(20)
h.key_up(KEY_SPACE)

-- R while the ball falls fast (or after 4 s, whatever it does)
for _ = 1, 240 do
  local r = trace[#trace]
  if r.vy and r.vy < -5 and r.y and r.y > 1.5 then break end
  run(1)
end
local before_r = trace[#trace]
h.key_down(KEY_R)
local after_r = run(1)
h.key_up(KEY_R)
local r_frame = h.frame()
local r_fall = run(30)                              -- 0.5 s after R
local r_mid = run(60)                               -- 1.5 s after R: the new drop's first bounce is behind
run(6)

-- the battery takes the ball's restitution away: it lands and stays on the floor
local lie_from = trace[#trace]
do
  local body = ball() and ball():component("RigidBody")
  if body then body:call("SetRestitution", 0) end
end
local lie_to = run(150)

local function row_at(f)
  for _, x in ipairs(trace) do if x.frame == f then return x end end
  return nil
end
local function dv(a, b) return (a and b and a.vy and b.vy) and (b.vy - a.vy) or nil end

-- requirements -------------------------------------------------------------------------------------
requirement("R1", function(check)
  check.truthy("a scene has a PhysicsWorld", setup.has_world)
  check.equal("exactly one node named Ball", #h.find_all("Ball"), 1)
  check.equal("exactly one node named Floor", #h.find_all("Floor"), 1)
  check.near("Ball's mass (kg)", setup.ball_mass, 1, 1e-6)
  check.near("Ball's restitution", setup.ball_restitution, 0.9, 1e-6)
  check.equal("Ball's collision shape is a sphere", setup.ball_shape, SHAPE_SPHERE)
  check.near("Ball's sphere diameter (world units)", setup.ball_diameter, 1, 1e-4)
  check.near("Floor's mass: 0, a static body", setup.floor_mass, 0, 1e-9)
  check.near("Floor's restitution", setup.floor_restitution, 0.9, 1e-6)
  check.equal("a ray down at (3, 10, 3) hits the Floor", setup.floor_hit_name, "Floor")
  check.near("the Floor's top is at y = 0", setup.floor_hit_y, 0, 0.02)
  check.near("Ball starts at (0, 5, 0)", first.y and {x = first.x, y = first.y, z = first.z}, {x = 0, y = 5, z = 0},
    1e-4)
  check.equal("Bounces is 0 at the start", first.bounces, 0)
  check.equal("BounceText at the start", first.text, "Bounces: 0")
end)

requirement("R2", function(check)
  local at = check.at(fall.frame)
  -- the node shows the body one step behind (Urho3D's interpolation): allow for either
  at.near("height after 0.5 s of free fall", fall.y, 5 - 0.5 * G * 0.25, 0.1)
  at.near("the body's vertical velocity after 0.5 s", fall.vy, -G * 0.5, 0.3)
  local px = (before_push.x and after_push.x) and (after_push.x - before_push.x)
  local a = check.at(after_push.frame)
  a.near("a 1 N·s push along +X at 0.08 s: the body's x velocity at 0.67 s (m/s)", after_push.vx, 1, 0.1)
  a.near("a 1 N·s push along +X at 0.08 s: the ball's x travel by 0.67 s", px, 35 * STEP, 0.05)
end)

requirement("R3", function(check)
  local lowest, lowest_frame, apex = math.huge, nil, -math.huge
  for _, r in ipairs(trace) do
    if r.frame <= 75 and r.y and r.y < lowest then lowest, lowest_frame = r.y, r.frame end
    if r.frame > 60 and r.frame <= 150 and r.y and r.y > apex then apex = r.y end
  end
  check.between("the first bounce happens about 0.96 s after the drop (s)", lowest_frame and lowest_frame * STEP,
    0.85, 1.1)
  check.near("at the bounce the ball rests on the floor's top (its centre's height)", lowest, 0.5, 0.1)
  check.between("the first rebound's highest point (centre height)", apex, 3.0, 3.9)
  local second = 0
  for _, r in ipairs(trace) do if r.frame > 75 and r.frame <= 200 and r.touching then second = second + 1 end end
  check.greater("the ball comes down again and bounces a second time", second, 0)
end)

requirement("R4", function(check)
  local bad, last
  for _, r in ipairs(trace) do
    if r.frame > 252 then break end
    last = r
    if bad == nil and (r.bounces ~= r.starts or r.text ~= fmt("Bounces: %s", tostring(r.bounces))) then bad = r end
  end
  local r = bad or last
  for _, f in ipairs({30, 100, 200, 252}) do
    local row = row_at(f)
    check.at(f).equal(fmt("Bounces at %.2f s counts the floor touches so far", f * STEP), row and row.bounces,
      row and row.starts)
  end
  check.at(r.frame).equal("Bounces equals the floor touches in every frame (first wrong frame shown)", r.bounces,
    r.starts)
  check.at(r.frame).equal("BounceText shows Bounces in every frame (first wrong frame shown)", r.text,
    fmt("Bounces: %s", tostring(r.bounces)))
  check.at(252).equal("three floor touches by 4.2 s", row_at(252) and row_at(252).starts, 3)
end)

requirement("R5", function(check)
  check.at(after_tap.frame).near("a SPACE tap adds 6 m/s upward (less one step of gravity)", dv(before_tap, after_tap),
    6 - G * STEP, 0.3)
  check.at(after_tap.frame).near("the tap leaves x velocity alone",
    (before_tap.vx and after_tap.vx) and after_tap.vx - before_tap.vx, 0, 0.05)
end)

requirement("R6", function(check)
  local at = check.at(after_r.frame)
  at.near("R puts the ball back at (0, 5, 0)", after_r.y and {x = after_r.x, y = after_r.y, z = after_r.z},
    {x = 0, y = 5, z = 0}, 0.05)
  at.equal("R sets Bounces to 0", after_r.bounces, 0)
  at.equal("R sets BounceText to 'Bounces: 0'", after_r.text, "Bounces: 0")
  check.at(r_mid.frame).equal("the new drop's first bounce is counted from 0: Bounces 1.5 s after R", r_mid.bounces,
    1)
  check.at(r_mid.frame).equal("BounceText 1.5 s after R", r_mid.text, "Bounces: 1")
end)

-- richness
requirement("R7", function(check)
  check.at(after_hold.frame).near("SPACE held for 20 frames kicks once: vertical velocity change",
    dv(before_hold, after_hold), 6 - 20 * G * STEP, 0.4)
end)

requirement("R8", function(check)
  local at = check.at(lie_to.frame)
  at.near("the ball lies on the floor at the end (centre height)", lie_to.y, 0.5, 0.05)
  at.truthy("the ball still touches the floor at the end", lie_to.touching)
  local counted = (lie_to.bounces and lie_from.bounces) and lie_to.bounces - lie_from.bounces
  at.equal("while it lands and lies there, Bounces grows only by the floor touches that began",
    counted, lie_to.starts - lie_from.starts)
end)
