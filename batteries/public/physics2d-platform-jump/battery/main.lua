-- Battery for physics2d-platform-jump: a Box2D platformer. Checks the bodies and shapes (through Box2D's own
-- raycasts and the component views), walking by the keys (the body's velocity, not only the node), the jump's
-- impulse and height, jumps refused in the air, landing on the Ledge and jumping from it, the sensor coin, and
-- two edge cases never stated: a press at the top of a jump (vertical speed about 0) and a press while falling
-- after walking off the Ledge are both refused.
--
-- Route (60 Hz): rest 0.5 s; A 1 s, D 1 s (back to x = 0); jump in place; jump and press again while rising;
-- jump and press at the top; D 0.25 s to x = 1; D held with a jump onto the Ledge (the coin at x = 6.5 is
-- collected on the way); jump on the Ledge; D off its right end and a press while falling; rest.
local h = harness
local fmt, abs = string.format, math.abs

local G = 9.81
local STEP = 1 / 60
local JUMP_RISE = 7 * 7 / (2 * G)      -- 2.50 m; Box2D's discrete steps give about 2.45

local function player() return h.find("Player") end

local trace = {}
local function sample()
  local p = player()
  local gs = h.find("GameState")
  local row = {frame = h.frame(), score = gs and gs:var("Score"), coin = h.find("Coin") ~= nil}
  if p ~= nil then
    local wp, ph = p.world_position, p.physics
    row.x, row.y = wp.x, wp.y
    if ph then
      row.vx, row.vy = ph.velocity.x, ph.velocity.y
      row.on = {}
      for _, c in ipairs(ph.contacts) do row.on[c.name] = true end
    end
  end
  trace[#trace + 1] = row
  return row
end
local function run(frames)
  local last
  for _ = 1, frames do h.run_frames(1); last = sample() end
  return last
end
local function tap(key)
  h.key_down(key)
  local r = run(1)
  h.key_up(key)
  return r
end
local function hold(key, frames)
  local before = trace[#trace]
  h.key_down(key)
  local r = run(frames)
  h.key_up(key)
  local after = run(1)
  return before, r, after
end
-- run until cond(row) or `limit` frames; returns the row that met it (or the last)
local function run_until(cond, limit)
  for _ = 1, limit do
    local r = run(1)
    if cond(r) then return r, true end
  end
  return trace[#trace], false
end
local function peak(from_frame, to_frame)
  local top = -math.huge
  for _, r in ipairs(trace) do
    if r.frame >= from_frame and r.frame <= to_frame and r.y and r.y > top then top = r.y end
  end
  return top
end

-- drive --------------------------------------------------------------------------------------------
h.start()
h.track_contacts2d()
local first = sample()
local setup = {}
do
  local p = player()
  local body = p and p:component("RigidBody2D")
  setup.body_type = body and body:get("BodyType")
  setup.fixed_rotation = body and body:get("FixedRotation")
  setup.mass = p and p.physics and p.physics.mass
  local box = p and p:component("CollisionBox2D")
  local size = box and box:get("Size")
  setup.size = size and {x = size.x, y = size.y}
  local coin = h.find("Coin")
  setup.coin = coin ~= nil
  setup.coin_pos = coin and {x = coin.world_position.x, y = coin.world_position.y}
  local trig = false
  for _, cname in ipairs({"CollisionCircle2D", "CollisionBox2D", "CollisionPolygon2D"}) do
    local c = coin and coin:component(cname)
    if c and c:get("Trigger") then trig = true end
  end
  setup.coin_trigger = trig
  setup.coin_body = coin and coin:component("RigidBody2D") ~= nil
  for _, name in ipairs({"Ground", "Ledge"}) do
    local n = h.find(name)
    local b = n and n:component("RigidBody2D")
    setup[name] = b and b:get("BodyType")
  end
  setup.counts = {}
  for _, name in ipairs({"Player", "Ground", "Ledge", "Coin", "GameState"}) do setup.counts[name] = #h.find_all(name) end
  setup.hits = {}
  for _, s in ipairs(h.scenes()) do
    local w = s:component("PhysicsWorld2D")
    if w then
      setup.world = true
      for _, probe in ipairs({{x = -12, name = "Ground", y = 0}, {x = 10, name = "Ground", y = 0},
                              {x = 4.3, name = "Ledge", y = 2}, {x = 7.7, name = "Ledge", y = 2},
                              {x = 3.6, name = "Ground", y = 0}, {x = 8.4, name = "Ground", y = 0}}) do
        local hit = w:call("RaycastSingle", Vector2(probe.x, 8), Vector2(probe.x, -3))
        local node = hit and hit.body and hit.body.node
        setup.hits[#setup.hits + 1] = {probe = probe, name = node and node.name, y = hit and hit.position.y}
      end
    end
  end
end

local rest = run(30)
local a_before, a_held, a_after = hold(KEY_A, 60)
local d_before, d_held, d_after = hold(KEY_D, 60)
run(10)

-- a jump in place
local j_before = trace[#trace]
local j_tap = tap(KEY_SPACE)
run(100)
local j_peak = peak(j_tap.frame, h.frame())
local j_landed = trace[#trace]

-- a jump and a second press while rising
local d_before2 = trace[#trace]
tap(KEY_SPACE)
run(14)
local dj_before = trace[#trace]
local dj_after = tap(KEY_SPACE)
run(100)
local dj_peak = peak(d_before2.frame, h.frame())
local dj_landed = trace[#trace]

-- a jump and a press at its top: the scene steps before the game's Update sees the press, so the press goes
-- in the frame before the step that brings the vertical velocity to about 0
tap(KEY_SPACE)
run(5)
local top_row = run_until(function(r) return r.vy ~= nil and abs(r.vy - G * STEP) < 0.09 end, 80)
local top_after = tap(KEY_SPACE)
local top_next = run(10)
run(100)
local top_landed = trace[#trace]

-- to x = 1, then D held with a jump onto the Ledge
hold(KEY_D, 15)
run(10)
local ledge_start = trace[#trace].frame
h.key_down(KEY_D)
tap(KEY_SPACE)
run(84)
h.key_up(KEY_D)
local on_ledge = run(30)
local coin_contacts = h.contacts2d(ledge_start)

-- a jump on the Ledge
local lj_before = trace[#trace]
tap(KEY_SPACE)
run(100)
local lj_peak = peak(lj_before.frame, h.frame())
local lj_landed = trace[#trace]

-- D off the right end, a press while falling
h.key_down(KEY_D)
local falling = run_until(function(r) return r.vy ~= nil and r.vy < -1.5 end, 90)
h.key_up(KEY_D)
local fall_tap = tap(KEY_SPACE)
local fall_next = run(6)
local fall_landed = run(60)

-- requirements -------------------------------------------------------------------------------------
local function xy(r) return r and r.x and {x = r.x, y = r.y} or nil end

requirement("R1", function(check)
  check.truthy("a scene has a PhysicsWorld2D", setup.world)
  for _, name in ipairs({"Player", "Ground", "Ledge", "Coin", "GameState"}) do
    check.at(first.frame).equal("exactly one node named " .. name .. " at the start", setup.counts[name], 1)
  end
  check.equal("Ground is a static body", setup.Ground, BT_STATIC)
  check.equal("Ledge is a static body", setup.Ledge, BT_STATIC)
  for _, hit in ipairs(setup.hits) do
    check.equal(fmt("a ray down at x = %g first hits the %s", hit.probe.x, hit.probe.name), hit.name, hit.probe.name)
    check.near(fmt("the %s's top at x = %g", hit.probe.name, hit.probe.x), hit.y, hit.probe.y, 0.02)
  end
  check.equal("Player is a dynamic body", setup.body_type, BT_DYNAMIC)
  check.equal("Player's rotation is fixed", setup.fixed_rotation, true)
  check.near("Player's mass (kg)", setup.mass, 1, 0.01)
  check.near("Player's box is 1 x 1", setup.size, {x = 1, y = 1}, 1e-4)
  check.near("Player starts at (0, 0.5)", xy(first), {x = 0, y = 0.5}, 0.02)
  check.near("Coin at (6.5, 2.5)", setup.coin_pos, {x = 6.5, y = 2.5}, 1e-4)
  check.truthy("Coin has a RigidBody2D", setup.coin_body)
  check.truthy("Coin's shape is a sensor (trigger)", setup.coin_trigger)
  check.equal("Score is 0 at the start", first.score, 0)
end)

requirement("R2", function(check)
  check.at(rest.frame).near("after 0.5 s the player stands on the Ground (centre height)", rest.y, 0.5, 0.05)
  check.at(rest.frame).truthy("and touches the Ground", rest.on and rest.on.Ground)
  check.at(rest.frame).near("without input it stays where it started (x)", rest.x, 0, 1e-3)
  check.at(a_held.frame).near("A held: the body's x velocity (m/s)", a_held.vx, -4, 0.1)
  check.at(a_after.frame).near("A held 1 s: x travel", (a_after.x and a_before.x) and a_after.x - a_before.x, -4,
    0.15)
  check.at(d_held.frame).near("D held: the body's x velocity (m/s)", d_held.vx, 4, 0.1)
  check.at(d_after.frame).near("D held 1 s: x travel", (d_after.x and d_before.x) and d_after.x - d_before.x, 4,
    0.15)
  check.at(d_after.frame).near("released: the body's x velocity drops to 0 at once", d_after.vx, 0, 0.05)
  check.at(d_after.frame).near("walking keeps the player on the Ground (centre height)", d_after.y, 0.5, 0.05)
end)

requirement("R3", function(check)
  check.at(j_tap.frame).near("SPACE on the Ground: upward velocity right after (m/s)", j_tap.vy, 7 - G * STEP, 0.3)
  check.at(j_landed.frame).near("the jump's rise (highest centre less the start)", j_before.y and j_peak - j_before.y, JUMP_RISE,
    0.15)
  check.at(j_tap.frame).near("a jump in place does not move x", (j_tap.x and j_before.x) and j_tap.x - j_before.x,
    0, 0.01)
  check.at(j_landed.frame).near("it lands back on the Ground (centre height)", j_landed.y, 0.5, 0.05)
  check.at(j_landed.frame).truthy("touching the Ground again", j_landed.on and j_landed.on.Ground)
end)

requirement("R4", function(check)
  check.at(dj_after.frame).less("a second SPACE while rising adds nothing (vertical velocity change)",
    (dj_after.vy and dj_before.vy) and dj_after.vy - dj_before.vy or 99, 0.05)
  check.at(dj_landed.frame).near("the rise with the second press is a single jump's", d_before2.y and dj_peak - d_before2.y, JUMP_RISE,
    0.15)
  check.at(dj_landed.frame).near("it lands back on the Ground", dj_landed.y, 0.5, 0.05)
end)

requirement("R5", function(check)
  check.at(on_ledge.frame).truthy("the jump with D held lands on the Ledge (touching it)", on_ledge.on and
    on_ledge.on.Ledge)
  check.at(on_ledge.frame).near("standing on the Ledge (centre height)", on_ledge.y, 2.5, 0.05)
  check.at(on_ledge.frame).between("on the Ledge's span (x)", on_ledge.x, 4, 8)
  check.at(lj_landed.frame).near("a jump from the Ledge rises as one from the Ground", lj_before.y and lj_peak - lj_before.y,
    JUMP_RISE, 0.15)
  check.at(lj_landed.frame).near("it lands back on the Ledge", lj_landed.y, 2.5, 0.05)
end)

requirement("R6", function(check)
  local began
  for _, c in ipairs(coin_contacts) do
    local a, b = c.node_a and c.node_a.name, c.node_b and c.node_b.name
    if began == nil and ((a == "Coin" and b == "Player") or (a == "Player" and b == "Coin")) then began = c.frame end
  end
  check.at(on_ledge.frame).truthy("the Player touched the Coin on its way along the Ledge", began)
  if began then
    local before, at
    for _, r in ipairs(trace) do
      if r.frame == began - 1 then before = r end
      if r.frame == began then at = r end
    end
    check.at(began - 1).equal("the frame before the touch: Coin still there", before and before.coin, true)
    check.at(began - 1).equal("the frame before the touch: Score 0", before and before.score, 0)
    check.at(began).equal("in the frame of the touch: Coin removed", at and at.coin, false)
    check.at(began).equal("in the frame of the touch: Score 1", at and at.score, 1)
  end
  check.at(on_ledge.frame).equal("Score after the Ledge", on_ledge.score, 1)
  check.at(on_ledge.frame).greater("the coin did not stop the player (x past it)", on_ledge.x or 0, 6.5)
end)

-- richness
requirement("R7", function(check)
  check.at(top_row.frame).less("a press at the top of a jump (|vertical velocity after the next step| < 0.09)",
    abs((top_row.vy or 1) - G * STEP), 0.09)
  check.at(top_after.frame).less("is refused: vertical velocity right after (m/s)", top_after.vy or 99, 0.05)
  check.at(top_next.frame).less("still falling 10 frames later (m/s)", top_next.vy or 99, -1)
  check.at(top_landed.frame).near("it lands back on the Ground", top_landed.y, 0.5, 0.05)
end)

requirement("R8", function(check)
  check.at(falling.frame).greater("walked off the Ledge's right end (x)", falling.x or 0, 8.4)
  check.at(falling.frame).less("and falls (m/s)", falling.vy or 0, -1.5)
  check.at(fall_tap.frame).less("a press while falling is refused: vertical velocity (m/s)", fall_tap.vy or 99, -1.5)
  check.at(fall_next.frame).less("still falling 6 frames later (m/s)", fall_next.vy or 99, -2)
  check.at(fall_landed.frame).near("it lands on the Ground", fall_landed.y, 0.5, 0.05)
end)
