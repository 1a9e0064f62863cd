-- Battery for physics2d-ball-cup: a ball released by SPACE rolls down a ramp into a cup whose sensor scores.
-- Reads the level through Box2D's own raycasts and the component views, follows the ball frame by frame (its node,
-- its body's velocity, the contacts that began) and the Score variable.
--
-- Route (60 Hz): 2 s waiting; drop 1 (12 s, the ball bounces in and out of the sensor and comes to rest in the
-- cup); R; 1 s waiting; drop 2 with a second SPACE 0.25 s in and R 1.25 s in (mid-roll); 1 s waiting; drop 3 (12 s).
local h = harness
local fmt, abs, sqrt = string.format, math.abs, math.sqrt

local START = {x = -5, y = 4}
local REST_Y = -4 + 0.25          -- the ball's centre resting on the cup's floor

local trace = {}
local function sample()
  local b = h.find("Ball")
  local gs = h.find("GameState")
  local row = {frame = h.frame(), score = gs and gs:var("Score")}
  if b then
    row.x, row.y = b.world_position.x, b.world_position.y
    local ph = b.physics
    if ph then row.vx, row.vy, row.type = ph.velocity.x, ph.velocity.y, ph.body_type end
  end
  trace[#trace + 1] = row
  return row
end
local function run(frames)
  local last
  for _ = 1, frames do h.run_frames(1); last = sample() end
  return last
end
local function tap(key) h.key_down(key); local r = run(1); h.key_up(key); return r end
local function row_at(frame)
  for i = #trace, 1, -1 do if trace[i].frame == frame then return trace[i] end end
  return nil
end
local function speed(r) return r and r.vx and sqrt(r.vx * r.vx + r.vy * r.vy) or 0 end
-- Contacts between the Ball and a node named `name` that began from frame `since` on.
local function began_with(name, since, before)
  local out = {}
  for _, c in ipairs(h.contacts2d(since)) do
    local a, b = c.node_a and c.node_a.name, c.node_b and c.node_b.name
    if (before == nil or c.frame < before) and ((a == "Ball" and b == name) or (a == name and b == "Ball")) then
      out[#out + 1] = c.frame
    end
  end
  return out
end
-- The ball stayed put over the rows from frame a to frame b: the largest distance from the start.
local function drift(a, b)
  local worst = 0
  for _, r in ipairs(trace) do
    if r.frame >= a and r.frame <= b then
      local d = r.x and sqrt((r.x - START.x) ^ 2 + (r.y - START.y) ^ 2) or math.huge
      if d > worst then worst = d end
    end
  end
  return worst
end

-- drive --------------------------------------------------------------------------------------------
h.start()
h.track_contacts2d()
local first = sample()
local setup = {counts = {}, hits = {}}
for _, name in ipairs({"Ball", "Ramp", "Cup", "CupSensor", "GameState", "Camera"}) do
  setup.counts[name] = #h.find_all(name)
end
do
  for _, name in ipairs({"Ramp", "Cup", "CupSensor"}) do
    local n = h.find(name)
    local b = n and n:component("RigidBody2D")
    setup[name] = b and b:get("BodyType")
  end
  local sensor = h.find("CupSensor")
  local box = sensor and sensor:component("CollisionBox2D")
  setup.sensor_trigger = box and box:get("Trigger")
  local size = box and box:get("Size")
  setup.sensor_size = size and {x = size.x, y = size.y}
  setup.sensor_pos = sensor and {x = sensor.world_position.x, y = sensor.world_position.y}
  local ball = h.find("Ball")
  local circle = ball and ball:component("CollisionCircle2D")
  if circle then
    setup.radius, setup.density = circle:get("Radius"), circle:get("Density")
    setup.friction, setup.restitution = circle:get("Friction"), circle:get("Restitution")
  end
  local sprite = ball and ball:component("StaticSprite2D")
  local res = sprite and sprite:get("Sprite")
  setup.sprite = res and res.name
  local vp = h.viewport(0)
  local cam = vp and vp.camera
  if cam then
    setup.ortho, setup.ortho_size = cam:get("Orthographic"), cam:get("OrthoSize")
    local p = vp.camera_node.world_position
    setup.cam_pos = {x = p.x, y = p.y, z = p.z}
    setup.cam_node = vp.camera_node.name
    setup.in_view = true
    for _, pt in ipairs({{-6, 2.5}, {-5.25, 4.25}, {5.2, -4}, {5.2, -1}, {2.8, -4}}) do
      local s = h.world_to_screen(cam, {x = pt[1], y = pt[2], z = 0})
      if not (s.x >= 0 and s.x <= 1 and s.y >= 0 and s.y <= 1) then setup.in_view = false end
    end
  end
  for _, s in ipairs(h.scenes()) do
    local w = s:component("PhysicsWorld2D")
    if w then
      setup.world = true
      -- {from, to, the node it must hit first, the coordinate to read (x or y), its value}
      for _, ray in ipairs({
          {{-2, 8}, {-2, -8}, "Ramp", "y", 1.0}, {{1, 8}, {1, -8}, "Ramp", "y", -0.125},
          {{-5.8, 8}, {-5.8, -8}, "Ramp", "y", 2.425},
          {{4, 0}, {4, -8}, "Cup", "y", -4}, {{0, -3.5}, {8, -3.5}, "Cup", "x", 2.8},
          {{0, -2.3}, {8, -2.3}, "Cup", "x", 5.2}, {{8, -1.2}, {0, -1.2}, "Cup", "x", 5.2}}) do
        local hit = w:call("RaycastSingle", Vector2(ray[1][1], ray[1][2]), Vector2(ray[2][1], ray[2][2]))
        local node = hit and hit.body and hit.body.node
        setup.hits[#setup.hits + 1] = {ray = ray, name = node and node.name, at = hit and hit.position[ray[4]]}
      end
    end
  end
end

local waited = run(120)
local wait_end = waited.frame

-- drop 1
local d1 = tap(KEY_SPACE).frame
local released = h.find("Ball")
local type_after = released and released.physics and released.physics.body_type
run(89)
local at_1_5 = trace[#trace]
run(90)
local at_3 = trace[#trace]
run(541)
local rest1 = trace[#trace]
local sensor1 = began_with("CupSensor", d1)
local ramp1 = began_with("Ramp", d1)

-- R in the cup
local r1 = tap(KEY_R)
run(59)
local waited2 = trace[#trace]

-- drop 2: SPACE again mid-drop, then R mid-roll
local d2 = tap(KEY_SPACE).frame
run(14)
local before_space = trace[#trace]
local after_space = tap(KEY_SPACE)
run(60)
local before_r = trace[#trace]
local r2 = tap(KEY_R)
run(59)
local waited3 = trace[#trace]

-- drop 3
local d3 = tap(KEY_SPACE).frame
run(719)
local rest3 = trace[#trace]
local sensor3 = began_with("CupSensor", d3)

-- requirements -------------------------------------------------------------------------------------
requirement("R1", function(check)
  check.truthy("a scene has a PhysicsWorld2D", setup.world)
  for _, name in ipairs({"Ball", "Ramp", "Cup", "CupSensor", "GameState", "Camera"}) do
    check.equal("exactly one node named " .. name, setup.counts[name], 1)
  end
  for _, name in ipairs({"Ramp", "Cup", "CupSensor"}) do check.equal(name .. " is a static body", setup[name], BT_STATIC) end
  for _, hit in ipairs(setup.hits) do
    local r = hit.ray
    local what = fmt("a ray from (%g, %g) to (%g, %g)", r[1][1], r[1][2], r[2][1], r[2][2])
    check.equal(what .. " first hits", hit.name, r[3])
    check.near(fmt("%s: where (%s)", what, r[4]), hit.at, r[5], 0.02)
  end
  check.truthy("CupSensor's box is a sensor (trigger)", setup.sensor_trigger)
  check.near("CupSensor's box is 2.2 x 0.3", setup.sensor_size, {x = 2.2, y = 0.3}, 1e-4)
  check.near("CupSensor at (4, -3.85)", setup.sensor_pos, {x = 4, y = -3.85}, 1e-4)
  check.near("the ball's circle radius", setup.radius, 0.25, 1e-4)
  check.near("the ball's density", setup.density, 1, 1e-4)
  check.near("the ball's friction", setup.friction, 0.3, 1e-4)
  check.near("the ball's restitution", setup.restitution, 0.5, 1e-4)
  check.equal("the ball's StaticSprite2D shows", setup.sprite, "Urho2D/Ball.png")
  check.equal("viewport 0's camera is on the node", setup.cam_node, "Camera")
  check.near("the camera node at (0, 0, -10)", setup.cam_pos, {x = 0, y = 0, z = -10}, 1e-4)
  check.equal("the camera is orthographic", setup.ortho, true)
  check.near("its ortho size", setup.ortho_size, 12, 1e-4)
  check.truthy("the ramp, the start and the cup are in view", setup.in_view)
  check.at(first.frame).equal("Score is 0 at the start", first.score, 0)
end)

requirement("R2", function(check)
  check.at(first.frame).near("the ball starts at (-5, 4)", first.x and {x = first.x, y = first.y}, START, 1e-3)
  check.at(wait_end).less("it stays there for 2 s (largest distance, m)", drift(first.frame, wait_end), 1e-3)
end)

requirement("R3", function(check)
  check.at(d1).equal("after SPACE the ball's body is dynamic", type_after, BT_DYNAMIC)
  check.at(at_1_5.frame).greater("it lands on the Ramp within 1.5 s (contacts with it)", #began_with("Ramp", d1, at_1_5.frame), 0)
  check.at(at_1_5.frame).greater("rolling down to the right: x after 1.5 s", at_1_5.x or -99, -4)
  check.at(at_3.frame).greater("x after 3 s", at_3.x or -99, at_1_5.x or 99)
end)

requirement("R4", function(check)
  check.at(rest1.frame).between("12 s after SPACE: the ball inside the cup (x)", rest1.x or -99, 2.95, 5.05)
  check.at(rest1.frame).near("resting on the cup's floor (y)", rest1.y, REST_Y, 0.05)
  check.at(rest1.frame).less("at rest (speed, m/s)", speed(rest1), 0.05)
  check.at(rest1.frame).greater("it touched CupSensor", #sensor1, 0)
  if sensor1[1] then
    local f = sensor1[1]
    local before, at = row_at(f - 1), row_at(f)
    check.at(f - 1).equal("the frame before the first touch: Score", before and before.score, 0)
    check.at(f).greater("in the frame of the first touch: Score", at and at.score or 0, 0)
  end
end)

requirement("R5", function(check)
  check.at(r1.frame).near("R puts the ball back at the start", r1.x and {x = r1.x, y = r1.y}, START, 1e-3)
  check.at(waited2.frame).less("and it waits there 1 s (largest distance, m)", drift(r1.frame, waited2.frame), 1e-3)
  check.at(r1.frame).equal("Score kept", r1.score, rest1.score)
  check.at(before_r.frame).greater("drop 2 rolls fast before R (m/s)", speed(before_r), 1)
  check.at(r2.frame).near("R mid-roll puts the ball back at the start", r2.x and {x = r2.x, y = r2.y}, START, 1e-3)
  check.at(waited3.frame).less("and it waits there 1 s (largest distance, m)", drift(r2.frame, waited3.frame), 1e-3)
  check.at(rest3.frame).between("drop 3 ends in the cup (x)", rest3.x or -99, 2.95, 5.05)
  check.at(rest3.frame).greater("drop 3 touched CupSensor", #sensor3, 0)
  if sensor3[1] then
    local f = sensor3[1]
    local before, at = row_at(f - 1), row_at(f)
    check.at(f).greater("drop 3 scores in the frame of its first touch (Score up)",
      (at and at.score or 0) - (before and before.score or 0), 0)
  end
end)

-- richness
requirement("R6", function(check)
  check.at(rest1.frame).greater("drop 1 went in and out of the sensor (contacts began)", #sensor1, 1)
  check.at(rest1.frame).equal("one point for drop 1", rest1.score, 1)
  check.at(rest3.frame).equal("one point for drop 3: Score after three drops, one reset mid-roll", rest3.score, 2)
end)

requirement("R7", function(check)
  local jump = (after_space.x and before_space.x) and
    sqrt((after_space.x - before_space.x) ^ 2 + (after_space.y - before_space.y) ^ 2) or 99
  check.at(after_space.frame).less("SPACE while falling: no jump of the ball (m in one frame)", jump, 0.3)
  check.at(after_space.frame).near("nor a change of speed beyond a frame of gravity (m/s)",
    speed(after_space), speed(before_space), 0.25)
end)
