-- Battery for physics-marble-course: plays the course for about two simulated minutes with the keys, steering
-- the marble by what it sees (a closed loop on the marble's position and velocity, so any course built to the
-- prompt can be driven), and checks every system against the engine's own view: the forces and the jump
-- against the body's velocity, the lift against its timetable and the drag it gives a marble resting on it,
-- the gate against its hinge, the checkpoints, falls and laps against what the marble actually did, the coins
-- against the nodes left. Where a wrong game would leave the marble stuck (a gate that does not turn, a hurdle
-- it cannot jump) the battery notes it and puts the marble past, so the later requirements are still judged.
--
-- Story: start, still -> each key pushes the marble (0.4 s each way) and the battery pushes it -> jumps on the
-- start pad (one in the air, SPACE held) -> lap 1: north over the seam onto the west lane (a jump there),
-- through the Finish (no lap yet), coin 1, the lift, Checkpoint1, the turnstile, coin 2, Checkpoint2, coin 3,
-- the hurdle (a jump), coin 4, Checkpoint3, the Finish -> lap 2: off the end of the west lane while the lift
-- is away (back at the start: the lap's checkpoints were reset), a long ride on the lift (it waits at the far
-- end, then drags the marble for 1 s, back and out again), Checkpoint1, the battery sends the marble through
-- Checkpoint3 (out of order) and back, Checkpoint2, off the east lane's side (back past Checkpoint2), the rest
-- of the lap -> 10 s more.
local h = harness
local fmt = string.format

local STEP = 1 / 60
local G = 9.81
local START = {x = 0, y = 0.5, z = 0}
local SPAWNS = {{x = 6, y = 0.5, z = 37}, {x = 20, y = 0.5, z = 18}, {x = 6, y = 0.5, z = 0}}
local LIFT_NEAR, LIFT_FAR, LIFT_WAIT, LIFT_TRAVEL = 25, 31, 2, 3
local GATE_CENTER = {x = 10, y = 0.9, z = 37}
local COINS = {{x = 0, z = 15}, {x = 15, z = 35.5}, {x = 20, z = 10}, {x = 10.5, z = 0}}

local function v(p) return p and {x = p.x, y = p.y, z = p.z} end
local function sub(a, b) return {x = a.x - b.x, y = a.y - b.y, z = a.z - b.z} end
local function len(a) return math.sqrt(a.x * a.x + a.y * a.y + a.z * a.z) end
local function flat(a) return math.sqrt(a.x * a.x + a.z * a.z) end
local function rotate(q, p)        -- the quaternion q applied to the vector p
  local w, x, y, z = q.w, q.x, q.y, q.z
  local tx = 2 * (y * p.z - z * p.y)
  local ty = 2 * (z * p.x - x * p.z)
  local tz = 2 * (x * p.y - y * p.x)
  return {x = p.x + w * tx + (y * tz - z * ty), y = p.y + w * ty + (z * tx - x * tz),
          z = p.z + w * tz + (x * ty - y * tx)}
end

-- the lift's timetable, as the prompt states it
local function lift_z(t)
  local period = 2 * (LIFT_WAIT + LIFT_TRAVEL)
  local u = t % period
  local span = LIFT_FAR - LIFT_NEAR
  if u < LIFT_WAIT then return LIFT_NEAR end
  u = u - LIFT_WAIT
  if u < LIFT_TRAVEL then return LIFT_NEAR + span * (1 - math.cos(math.pi * u / LIFT_TRAVEL)) / 2 end
  u = u - LIFT_TRAVEL
  if u < LIFT_WAIT then return LIFT_FAR end
  u = u - LIFT_WAIT
  return LIFT_FAR - span * (1 - math.cos(math.pi * u / LIFT_TRAVEL)) / 2
end
local function lift_phase(t) return t % (2 * (LIFT_WAIT + LIFT_TRAVEL)) end

----------------------------------------------------------------------------------------------------
-- reading the game, every frame
----------------------------------------------------------------------------------------------------
local views = {}
-- a node's view, found once and again only when that node is gone
local function find(name)
  local view = views[name]
  if view == nil or not view.exists then
    view = h.find(name)
    views[name] = view
  end
  return view
end
local VARS = {"Laps", "LapTime", "LastLap", "BestLap", "Checkpoint", "Coins", "Falls"}
local function state()
  local gs = find("GameState")
  local s = {}
  if gs then for _, k in ipairs(VARS) do s[k] = gs:var(k) end end
  return s
end

local rec = {
  lift_err = 0, lift_err_frame = nil, lift_seen = 0,
  hinge_err = 0, hinge_err_frame = nil, gate_tilt = 0, gate_yaw_min = 0, gate_yaw_max = 0, gate_seen = 0,
  falls = {},            -- frames where the marble was below y = -5 (each fall once)
  laps = {},             -- {frame, state} each time Laps went up
  checkpoints = {},      -- {frame, from, to}
  lapclock_bad = nil,    -- first frame where LapTime did not grow by one step (outside a lap's end)
  text_bad = nil,
}
local marble_rows = {}   -- frame -> {p, v, w}
local current = nil      -- the marble as the last frame left it: {p, v, w} (read once a frame: reads cost)
local last_state = {}
local falling = false

local function gate_yaw(q)
  local fwd = rotate(q, {x = 0, y = 0, z = 1})
  return math.deg(math.atan(fwd.x, fwd.z))
end

local function tick()
  local f = h.frame()
  local m = find("Marble")
  local p = m and m.physics
  current = nil
  if p then
    current = {p = v(m.world_position), v = v(p.velocity), w = v(p.angular_velocity)}
    marble_rows[f] = current
    if m.world_position.y < -3 and not falling then
      falling = true
      rec.falls[#rec.falls + 1] = f
    elseif m.world_position.y > -1 then
      falling = false
    end
  end
  local lift = find("Lift")
  if lift then
    local err = math.abs(lift.world_position.z - lift_z(f * STEP))
    rec.lift_seen = rec.lift_seen + 1
    if err > rec.lift_err then rec.lift_err, rec.lift_err_frame = err, f end
  end
  local gate = find("Gate")
  if gate then
    rec.gate_seen = rec.gate_seen + 1
    local q = gate.world_rotation
    local err = len(sub(v(gate.world_position), GATE_CENTER))
    if err > rec.hinge_err then rec.hinge_err, rec.hinge_err_frame = err, f end
    local up = rotate(q, {x = 0, y = 1, z = 0})
    local tilt = math.deg(math.acos(math.max(-1, math.min(1, up.y))))
    if tilt > rec.gate_tilt then rec.gate_tilt = tilt end
    local yaw = gate_yaw(q)
    if yaw < rec.gate_yaw_min then rec.gate_yaw_min = yaw end
    if yaw > rec.gate_yaw_max then rec.gate_yaw_max = yaw end
  end
  local s = state()
  if s.Laps ~= nil and last_state.Laps ~= nil then
    if s.Laps ~= last_state.Laps then rec.laps[#rec.laps + 1] = {frame = f, state = s, before = last_state} end
    if s.Checkpoint ~= last_state.Checkpoint then
      rec.checkpoints[#rec.checkpoints + 1] = {frame = f, from = last_state.Checkpoint, to = s.Checkpoint,
                                               p = m and v(m.world_position)}
    end
    if rec.lapclock_bad == nil and s.Laps == last_state.Laps and type(s.LapTime) == "number"
        and type(last_state.LapTime) == "number" and math.abs(s.LapTime - last_state.LapTime - STEP) > 1e-4 then
      rec.lapclock_bad = {frame = f, before = last_state.LapTime, after = s.LapTime}
    end
  end
  if rec.text_bad == nil and s.Laps ~= nil then
    local want = fmt("Laps: %s  Coins: %s  Falls: %s", tostring(s.Laps), tostring(s.Coins), tostring(s.Falls))
    local got = h.ui_text("HudText")
    if got ~= want then rec.text_bad = {frame = f, got = got, want = want} end
  end
  last_state = s
end

----------------------------------------------------------------------------------------------------
-- driving: keys held per frame, a velocity controller, a route round the loop from wherever the marble is
----------------------------------------------------------------------------------------------------
local held = {}
local function hold(keys)
  local want = {}
  for _, k in ipairs(keys) do want[k] = true end
  for k in pairs(held) do if not want[k] then h.key_up(k); held[k] = nil end end
  for k in pairs(want) do if not held[k] then h.key_down(k); held[k] = true end end
end
local function release() hold({}) end
local function frame()
  h.run_frames(1)
  tick()
end
local function run(frames) for _ = 1, frames do frame() end end

local function marble() return current end
local function lift_now()
  local l = find("Lift")
  return l and l.world_position.z
end

-- keys that push the marble's velocity towards (vx, vz), with a dead band
local function keys_for(mv, vx, vz, band)
  band = band or 0.25
  local keys = {}
  if mv.x < vx - band then keys[#keys + 1] = KEY_D elseif mv.x > vx + band then keys[#keys + 1] = KEY_A end
  if mv.z < vz - band then keys[#keys + 1] = KEY_W elseif mv.z > vz + band then keys[#keys + 1] = KEY_S end
  return keys
end
-- velocity towards a point, slowing down near it
local function toward(p, tx, tz, speed, brake)
  local dx, dz = tx - p.x, tz - p.z
  local d = math.sqrt(dx * dx + dz * dz)
  if d < 1e-6 then return 0, 0 end
  local s = math.min(speed, math.sqrt(2 * (brake or 2.0) * d))
  return dx / d * s, dz / d * s
end

local nav = {hurdle = "approach", gate_stuck = 0, gate_skipped = false}
-- the battery's own move of the marble (the game does not see it as a fall): its body, put and set going
local function put_marble(p, vel)
  local m = find("Marble")
  local body = m and m:component("RigidBody")
  if body == nil then return false end
  body:call("SetPosition", Vector3(p.x, p.y, p.z))
  body:call("SetLinearVelocity", Vector3(vel.x, vel.y, vel.z))
  body:call("SetAngularVelocity", Vector3(0, 0, 0))
  return true
end
local CRUISE = 4.0
-- One frame of driving round the loop; returns the keys to hold (nil when the marble is gone).
local function drive_keys()
  local m = marble()
  if m == nil then return nil end
  local p, mv = m.p, m.v
  local t = h.frame() * STEP
  if p.y < -0.8 then return {} end                                       -- falling: nothing to steer
  local lz = lift_now() or LIFT_FAR
  -- on the lift
  if math.abs(p.x) < 3.2 and p.z > lz - 3.2 and p.z < lz + 3.2 and p.z > 22 and p.z < 34 then
    local u = lift_phase(t)
    if nav.passive then return {} end
    if not nav.stay_on_lift and u >= LIFT_WAIT + LIFT_TRAVEL - 0.05 and u < 2 * LIFT_WAIT + LIFT_TRAVEL - 0.3 then
      local vx, vz = toward(p, 0, 37.5, 3.0)
      return keys_for(mv, vx, vz)
    end
    local lv = (lift_z(t + STEP) - lift_z(t)) / STEP
    local vx, vz = toward(p, 0, lz, 2.0, 3.0)
    return keys_for(mv, vx, vz + lv, 0.15)
  end
  -- the start pad and the west lane: to the lane's end, then onto the lift when it waits at the near end
  if p.z < 22.2 and p.x < 5.2 and (p.z > 3.2 or p.x < 4) then
    if p.z < 19.5 then
      local tx, tz = 0, 20.5
      if p.z < 14 then tx, tz = 0, 15 end
      local vx, vz = toward(p, tx, tz, CRUISE)
      if p.z < 14 then vz = math.max(vz, CRUISE * 0.8) end
      return keys_for(mv, vx, vz)
    end
    local u = lift_phase(t)
    if nav.fall_gap then                                                 -- off the end while the lift is away
      if u > 5.2 and u < 6.0 then nav.jumping_off = h.frame() end
      if nav.jumping_off and h.frame() - nav.jumping_off < 120 then return keys_for(mv, 0, 3.0) end
    elseif u < 0.3 and lz < LIFT_NEAR + 0.05 then
      nav.boarding = h.frame()
    end
    if nav.boarding and h.frame() - nav.boarding < 90 then
      local vx, vz = toward(p, 0, 25, 3.0, 3.0)
      return keys_for(mv, vx, vz)
    end
    local vx, vz = toward(p, 0, 20.5, 1.5, 3.0)
    return keys_for(mv, vx, vz, 0.1)
  end
  -- the north pad: through Checkpoint1, along the gate's free end, coin 2, to the east lane
  if p.z >= 33.8 and p.x < 16.5 then
    if p.x >= 8 and p.x <= 10.6 and flat(mv) < 0.3 then
      nav.gate_stuck = nav.gate_stuck + 1
    else
      nav.gate_stuck = 0
    end
    local vx, vz = toward(p, 15, 35.5, CRUISE, 4.0)
    vx = math.max(vx, 2.5)
    return keys_for(mv, vx, vz)
  end
  if p.z >= 30 and p.x >= 16.5 then
    local vx, vz = toward(p, 20, 29, 3.0)
    return keys_for(mv, vx, vz)
  end
  -- the east lane: coin 3, to the corner (or off its side, when asked)
  if nav.fall_side and p.x >= 16.5 and p.z > 3 and p.z < 8 then return keys_for(mv, 3.0, 0) end
  if p.x >= 16.5 and p.z > 3 then
    local tz = p.z > 10.8 and 10 or 0
    local vx, vz = toward(p, 20, tz, CRUISE, 3.0)
    if p.z > 10.8 then vz = math.min(vz, -2.5) end
    return keys_for(mv, vx, vz)
  end
  -- the south lane: over the hurdle with a jump, coin 4, Checkpoint3, onto the start pad
  if p.x > 14.4 then
    if nav.hurdle == "back" then
      if p.x > 19 then nav.hurdle = "approach" end
      local vx, vz = toward(p, 20, 0, 2.0)
      return keys_for(mv, vx, vz)
    end
    if p.x < 16.2 and math.abs(mv.x) < 0.6 and p.y < 0.6 then
      nav.hurdle = "back"
      nav.hurdle_tries = (nav.hurdle_tries or 0) + 1
    end
    local vx, vz = toward(p, 12, 0, 4.0, 8.0)
    local keys = keys_for(mv, vx, vz)
    if p.x > 15.9 and p.x < 16.8 and mv.x < -2.8 and p.y < 0.55 then keys[#keys + 1] = KEY_SPACE end
    return keys
  end
  local tx = p.x > 11 and 10.5 or 0
  local vx, vz = toward(p, tx, 0, CRUISE, 3.0)
  if p.x > 11 then vx = math.min(vx, -2.5) end
  return keys_for(mv, vx, vz)
end

-- drive round the loop until stop() is true or the time runs out; returns whether stop() became true
local function drive(stop, seconds)
  local frames = math.floor(seconds * 60 + 0.5)
  for _ = 1, frames do
    if stop() then release(); return true end
    local keys = drive_keys()
    if keys == nil then release(); return false end
    hold(keys)
    frame()
    if nav.gate_stuck > 300 then             -- the gate did not turn: carry on past it
      nav.gate_skipped = true
      nav.gate_stuck = 0
      put_marble({x = 12, y = 0.5, z = 36}, {x = 0, y = 0, z = 0})
    end
    if (nav.hurdle_tries or 0) >= 3 then     -- three jumps did not clear the hurdle: carry on past it
      nav.hurdle_skipped = true
      nav.hurdle_tries = 0
      nav.hurdle = "approach"
      put_marble({x = 12.5, y = 0.5, z = 0}, {x = -2, y = 0, z = 0})
    end
  end
  release()
  return stop()
end
local function var(k) return state()[k] end
local function marble_in(x0, x1, z0, z1)
  return function()
    local m = marble()
    return m ~= nil and m.p.x >= x0 and m.p.x <= x1 and m.p.z >= z0 and m.p.z <= z1 and m.p.y > 0
  end
end

-- one frame of driving with SPACE tapped
local function drive_tap_space()
  local keys = drive_keys() or {}
  keys[#keys + 1] = KEY_SPACE
  hold(keys)
  frame()
  release()
end
-- stop on the spot: drive to where the marble is until it is still
local function settle(seconds)
  local m = marble()
  if m == nil then return end
  local tx, tz = m.p.x, m.p.z
  for _ = 1, math.floor(seconds * 60) do
    m = marble()
    if m == nil then break end
    local vx, vz = toward(m.p, tx, tz, 1.5, 3.0)
    hold(keys_for(m.v, vx, vz, 0.05))
    frame()
  end
  release()
end
local function row(f) return marble_rows[f] end
local function falls_now() return var("Falls") or 0 end

----------------------------------------------------------------------------------------------------
-- the story
----------------------------------------------------------------------------------------------------
local snaps = {}
h.start()
tick()
local setup = {}
do
  local m = find("Marble")
  local body, shape = m and m:component("RigidBody"), m and m:component("CollisionShape")
  setup.marble = {p = m and v(m.world_position), mass = body and body:get("Mass"),
                  shape = shape and shape:get("ShapeType"),
                  diameter = shape and shape:get("Size") and shape:get("Size").x * m.world_scale.x}
  local lift = find("Lift")
  local lb = lift and lift:component("RigidBody")
  setup.lift = {kinematic = lb and lb:get("Kinematic"), p = lift and v(lift.world_position)}
  local gate = find("Gate")
  local gb, gs, gk = gate and gate:component("RigidBody"), gate and gate:component("CollisionShape"),
    gate and gate:component("Constraint")
  local gsize = gs and gs:get("Size")
  setup.gate = {p = gate and v(gate.world_position), mass = gb and gb:get("Mass"),
                kinematic = gb and gb:get("Kinematic"), hinge = gk and gk:get("ConstraintType"),
                size = gsize and {x = gsize.x * gate.world_scale.x, y = gsize.y * gate.world_scale.y,
                                  z = gsize.z * gate.world_scale.z}}
  setup.triggers = {}
  for _, name in ipairs({"Checkpoint1", "Checkpoint2", "Checkpoint3", "Finish"}) do
    local n = h.find(name)
    local b = n and n:component("RigidBody")
    setup.triggers[name] = {count = #h.find_all(name), p = n and v(n.world_position), trigger = b and b:get("Trigger")}
  end
  setup.coins = {}
  for _, c in ipairs(h.find_all("Coin")) do
    local b = c:component("RigidBody")
    setup.coins[#setup.coins + 1] = {p = v(c.world_position), trigger = b and b:get("Trigger")}
  end
  setup.rays = {}
  for _, sc in ipairs(h.scenes()) do
    local w = sc:component("PhysicsWorld")
    if w then
      setup.world = true
      local function down(x, z)
        local hit = w:call("RaycastSingle", Ray(Vector3(x, 10, z), Vector3(0, -1, 0)), 30)
        local b = hit and hit.body
        return {hit = b ~= nil, y = b and hit.position.y, name = b and b.node and b.node.name,
                mass = b and b.mass, trigger = b and b.trigger}
      end
      setup.floor = {}
      for _, pt in ipairs({{1.5, 1.5}, {-4.7, -4.7}, {4.7, 4.7}, {2.7, 4.7}, {-2.7, 21.7}, {2.7, 12}, {-2.7, 39.7},
                           {2, 35}, {22.7, 39.7}, {22.7, -2.7}, {17.3, 33.7}, {20, 15}, {5.3, -2.7}, {16.7, 2.7},
                           {12.5, -1.5}}) do
        setup.floor[#setup.floor + 1] = {x = pt[1], z = pt[2], r = down(pt[1], pt[2])}
      end
      setup.void = {}
      for _, pt in ipairs({{5.5, 10}, {3.5, 20}, {0, 31}, {-3.5, 37}, {10, 20}, {16, 20}, {24, 15}, {10, -4},
                           {10, 41}, {-5.5, 0}}) do
        setup.void[#setup.void + 1] = {x = pt[1], z = pt[2], r = down(pt[1], pt[2])}
      end
      setup.lift_ray = down(0, 25)
      setup.hurdle_ray = down(14.2, -2)
      local side = w:call("RaycastSingle", Ray(Vector3(16, 0.3, -2), Vector3(-1, 0, 0)), 5)
      setup.hurdle_face = side and side.body and side.position.x
      break
    end
  end
  setup.state = state()
  setup.text = h.ui_text("HudText")
end
run(30)
snaps.still = {frame = h.frame(), m = marble()}

-- the keys: each pair pushes one way, then the other way back (0.4 s each)
local pushes = {}
local PAIRS = {{KEY_W, "W", 0, 1, KEY_S, "S"}, {KEY_D, "D", 1, 0, KEY_A, "A"}, {KEY_UP, "UP", 0, 1, KEY_DOWN, "DOWN"},
               {KEY_RIGHT, "RIGHT", 1, 0, KEY_LEFT, "LEFT"}}
for _, pr in ipairs(PAIRS) do
  for half = 1, 2 do
    local key, name = pr[1], pr[2]
    local sx, sz = pr[3], pr[4]
    if half == 2 then key, name, sx, sz = pr[5], pr[6], -sx, -sz end
    local f0 = h.frame()
    hold({key}); run(24); release()
    local a, b = row(f0), row(h.frame())
    pushes[#pushes + 1] = {name = name, frame = h.frame(), sx = sx, sz = sz,
                           dv = a and b and {x = b.v.x - a.v.x, y = b.v.y - a.v.y, z = b.v.z - a.v.z}}
  end
  settle(0.5)
end
-- the battery's own push: 2 N·s along +X
do
  local m = find("Marble")
  local body = m and m:component("RigidBody")
  local f0 = h.frame()
  if body then body:call("ApplyImpulse", Vector3(2, 0, 0)) end
  run(6)
  local a, b = row(f0), row(h.frame())
  snaps.impulse = {frame = h.frame(), dvx = a and b and b.v.x - a.v.x}
  settle(1.0)
end

-- jumps on the start pad
do
  local f0 = h.frame()
  hold({KEY_SPACE}); run(1); release()
  snaps.jump = {frame = h.frame(), before = row(f0), after = row(h.frame())}
  run(24)
  local f1 = h.frame()
  hold({KEY_SPACE}); run(1); release()
  snaps.air = {frame = h.frame(), before = row(f1), after = row(h.frame())}
  run(60)
  settle(1.0)
  local f2 = h.frame()
  hold({KEY_SPACE}); run(96); release()
  local takeoffs = 0
  for f = f2 + 1, h.frame() do
    local a, b = row(f - 1), row(f)
    if a and b and b.v.y - a.v.y > 3 and b.v.y > 3 then takeoffs = takeoffs + 1 end
  end
  snaps.held = {frame = h.frame(), takeoffs = takeoffs}
  run(60)
  settle(0.5)
end

-- lap 1: over the seam onto the west lane (a jump there), through the Finish, round the loop
local falls0 = falls_now()
drive(function() local m = marble(); return m == nil or m.p.z > 6.2 end, 10)
do
  local f0 = h.frame()
  drive_tap_space()
  snaps.seam = {frame = h.frame(), before = row(f0), after = row(h.frame()), z = row(f0) and row(f0).p.z}
end
drive(function() local m = marble(); return m == nil or m.p.z > 9.5 end, 5)
snaps.past_finish = {frame = h.frame(), state = state()}
drive(function() return (var("Laps") or 0) >= 1 end, 75)
snaps.lap1 = {frame = h.frame(), state = state(), coins_left = #h.find_all("Coin")}

-- lap 2: into the gap before Checkpoint1 (back to the start), a long ride on the lift, Checkpoint1, the
-- battery's detour through Checkpoint3, a fall off the east lane after Checkpoint2, the rest of the lap
nav.fall_gap = true
drive(function() return falls_now() > falls0 end, 30)
nav.fall_gap, nav.jumping_off = false, nil
do
  local f0 = h.frame()
  run(1)
  snaps.respawn1 = {frame = h.frame(), row = row(h.frame()), state = state(), at = f0}
  run(60)
  snaps.respawn1_later = {frame = h.frame(), row = row(h.frame())}
end
nav.stay_on_lift = true
local on_lift = function()
  local m, lz = marble(), lift_now()
  return m ~= nil and lz ~= nil and m.p.z > lz - 3 and m.p.z < lz + 3 and math.abs(m.p.x) < 3 and m.p.y > 0.3
end
drive(function() return on_lift() and lift_phase(h.frame() * STEP) > LIFT_WAIT + LIFT_TRAVEL + 0.5 end, 40)
-- at the far end: wait on the lift until it leaves, then let it drag the marble for 1 s
drive(function() return lift_phase(h.frame() * STEP) >= 2 * LIFT_WAIT + LIFT_TRAVEL + 0.25 end, 6)
do
  nav.passive = true
  local f0 = h.frame()
  local l0 = lift_now()
  run(60)
  local l1 = lift_now()
  snaps.drag = {frame = h.frame(), on = on_lift(), lift = l0 and l1 and l1 - l0,
                marble = row(f0) and row(h.frame()) and row(h.frame()).p.z - row(f0).p.z}
  nav.passive = false
end
drive(function() return lift_phase(h.frame() * STEP) < 1 end, 6)
nav.stay_on_lift = false
drive(function() return (var("Checkpoint") or 0) >= 1 end, 20)
snaps.cp1 = {frame = h.frame(), state = state()}
-- the battery's detour: through Checkpoint3 with only Checkpoint1 reached, then back
do
  local m = marble()
  local f0 = h.frame()
  put_marble({x = 9.3, y = 0.5, z = 0}, {x = -3, y = 0, z = 0})
  run(60)
  local least = math.huge
  for f = f0 + 1, h.frame() do if row(f) then least = math.min(least, row(f).p.x) end end
  snaps.detour = {frame = h.frame(), state = state(), least_x = least}
  put_marble(m and m.p or {x = 6, y = 0.5, z = 37}, {x = 0, y = 0, z = 0})
  run(2)
end
drive(function() return (var("Checkpoint") or 0) >= 2 end, 30)
snaps.cp2 = {frame = h.frame(), state = state()}
local falls1 = falls_now()
nav.fall_side = true
drive(function() return falls_now() > falls1 end, 20)
nav.fall_side = false
run(1)
snaps.respawn2 = {frame = h.frame(), row = row(h.frame()), state = state()}
drive(function() return (var("Laps") or 0) >= 2 end, 60)
snaps.lap2 = {frame = h.frame(), state = state()}
drive(function() return false end, 10)
snaps.after = {frame = h.frame(), state = state()}
release()

----------------------------------------------------------------------------------------------------
-- requirements
----------------------------------------------------------------------------------------------------
local function num(x) return type(x) == "number" and x or nil end
local function horizontal_speed(r) return r and math.sqrt(r.v.x * r.v.x + r.v.z * r.v.z) end

requirement("R1", function(check)
  check.truthy("a scene has a PhysicsWorld", setup.world)
  for _, name in ipairs({"Marble", "Lift", "Gate", "GameState"}) do
    check.equal("exactly one node named " .. name, #h.find_all(name), 1)
  end
  local mb = setup.marble
  check.near("Marble starts at (0, 0.5, 0)", mb.p, START, 1e-3)
  check.near("Marble's mass", mb.mass, 1, 1e-6)
  check.equal("Marble's shape is a sphere", mb.shape, SHAPE_SPHERE)
  check.near("Marble's diameter (world units)", mb.diameter, 1, 1e-3)
  for _, pt in ipairs(setup.floor or {}) do
    local r = pt.r
    check.near(fmt("the course's floor at (%g, %g): a static top at y = 0", pt.x, pt.z), r.hit and r.y, 0, 0.02)
    check.truthy(fmt("the floor at (%g, %g) is static and solid", pt.x, pt.z), r.hit and r.mass == 0 and not r.trigger)
  end
  for _, pt in ipairs(setup.void or {}) do
    check.falsy(fmt("nothing under (%g, %g): off the course", pt.x, pt.z), pt.r.hit)
  end
  local hr = setup.hurdle_ray or {}
  check.equal("a ray down at (14.2, -2) hits the Hurdle", hr.name, "Hurdle")
  check.near("the Hurdle's top at y = 0.6", hr.y, 0.6, 0.02)
  check.near("the Hurdle's east face at x = 14.4", setup.hurdle_face, 14.4, 0.02)
  for name, want in pairs({Checkpoint1 = {x = 4, y = 1.5, z = 37}, Checkpoint2 = {x = 20, y = 1.5, z = 20},
                           Checkpoint3 = {x = 8, y = 1.5, z = 0}, Finish = {x = 0, y = 1.5, z = 8}}) do
    local t = setup.triggers[name] or {}
    check.equal("exactly one node named " .. name, t.count, 1)
    check.near(name .. " at its place", t.p, want, 1e-3)
    check.truthy(name .. " is a trigger body", t.trigger)
  end
  check.equal("four Coin nodes", #setup.coins, 4)
  for i, c in ipairs(setup.coins) do check.truthy(fmt("coin %d is a trigger body", i), c.trigger) end
  local s = setup.state
  for k, want in pairs({Laps = 0, Checkpoint = 0, Coins = 0, Falls = 0}) do
    check.equal(k .. " at the start", s[k], want)
  end
  for _, k in ipairs({"LapTime", "LastLap", "BestLap"}) do check.near(k .. " at the start", num(s[k]), 0, 1e-6) end
  check.equal("HudText at the start", setup.text, "Laps: 0  Coins: 0  Falls: 0")
  local still = snaps.still.m
  check.at(snaps.still.frame).near("the marble lies still for 0.5 s", still and still.p, START, 0.01)
end)

requirement("R2", function(check)
  for _, p in ipairs(pushes) do
    local at = check.at(p.frame)
    local d = p.dv
    local along = d and (d.x * p.sx + d.z * p.sz) / 0.4
    local across = d and math.abs(d.x * p.sz - d.z * p.sx)
    at.between(p.name .. " held 0.4 s: acceleration along its direction (m/s², 8 N on a 1 kg rolling marble)",
      along, 3.0, 8.5)
    at.less(p.name .. ": speed change across its direction (m/s)", across, 0.3)
  end
  check.at(snaps.impulse.frame).near("the battery's 2 N·s push along +X adds 2 m/s (less what rolling takes)",
    snaps.impulse.dvx, 1.7, 0.45)
end)

requirement("R3", function(check)
  local j = snaps.jump
  local dv = j.before and j.after and j.after.v.y - j.before.v.y
  check.at(j.frame).near("SPACE on the floor: the marble's upward speed (m/s)", dv, 5 - G * STEP, 0.3)
  local a = snaps.air
  check.at(a.frame).truthy("0.4 s later the marble is in the air", a.before and a.before.p.y > 1.0)
  local da = a.before and a.after and a.after.v.y - a.before.v.y
  check.at(a.frame).near("SPACE in the air does nothing (change of upward speed)", da, -G * STEP, 0.3)
end)

requirement("R4", function(check)
  check.truthy("the Lift is a kinematic body", setup.lift.kinematic)
  check.near("the Lift's top at y = 0 (a ray down at (0, 25))", setup.lift_ray and setup.lift_ray.y, 0, 0.02)
  check.equal("the ray down at (0, 25) hits the Lift", setup.lift_ray and setup.lift_ray.name, "Lift")
  check.greater("frames the Lift was seen", rec.lift_seen, 6000)
  check.at(rec.lift_err_frame or h.frame()).less("the Lift keeps its timetable all along (largest error, m)",
    rec.lift_err, 0.1)
  local d = snaps.drag
  local at = check.at(d.frame)
  at.truthy("the marble rode the lift to the far end and stayed on it", d.on)
  at.less("the lift moved back 1 s after leaving the far end (m)", d.lift, -1.5)
  at.greater("the lift dragged the marble resting on it (the marble's share of the lift's travel)",
    d.lift and d.marble and d.marble / d.lift, 0.25)
  check.at(snaps.cp1.frame).equal("the marble crossed the gap on the lift and reached Checkpoint1",
    snaps.cp1.state.Checkpoint, 1)
end)

requirement("R5", function(check)
  local g = setup.gate
  check.near("the Gate's centre at (10, 0.9, 37)", g.p, GATE_CENTER, 1e-3)
  check.near("the Gate's mass", g.mass, 2, 1e-6)
  check.falsy("the Gate is not kinematic", g.kinematic)
  check.near("the Gate's board: 0.2 x 1.2 x 5.8", g.size, {x = 0.2, y = 1.2, z = 5.8}, 1e-3)
  check.equal("the Gate has a hinge Constraint", g.hinge, CONSTRAINT_HINGE)
  check.at(rec.hinge_err_frame or h.frame()).less("the Gate turns about its centre: the centre never moves (m)",
    rec.hinge_err, 0.15)
  check.less("the Gate stays upright (largest tilt, degrees)", rec.gate_tilt, 10)
  check.greater("the marble turned the Gate (its turn, degrees, either way)",
    math.max(rec.gate_yaw_max, -rec.gate_yaw_min), 45)
  check.falsy("the marble got through the Gate by itself", nav.gate_skipped)
end)

requirement("R6", function(check)
  check.at(snaps.past_finish.frame).equal("the Finish with no checkpoint reached: no lap", snaps.past_finish.state.Laps,
    0)
  local d = snaps.detour
  check.at(d.frame).equal("through Checkpoint3 with only Checkpoint1 reached: Checkpoint stays 1", d.state.Checkpoint, 1)
  check.at(d.frame).less("the detour went through Checkpoint3 (the marble's least x)", d.least_x, 7.4)
  local boxes = {{x = 4, z = 37, hx = 0.5, hz = 3}, {x = 20, z = 20, hx = 3, hz = 0.5}, {x = 8, z = 0, hx = 0.5, hz = 3}}
  local seen = 0
  for _, c in ipairs(rec.checkpoints) do
    local at = check.at(c.frame)
    if c.to ~= 0 then
      seen = seen + 1
      at.equal(fmt("Checkpoint goes up one at a time (from %s)", tostring(c.from)), c.to, (c.from or -1) + 1)
      local b = boxes[c.to]
      local inside = b and c.p and math.abs(c.p.x - b.x) <= b.hx + 0.6 and math.abs(c.p.z - b.z) <= b.hz + 0.6
      at.truthy(fmt("Checkpoint became %s where the marble met Checkpoint%s", tostring(c.to), tostring(c.to)), inside)
    end
  end
  check.equal("checkpoints reached in the two laps", seen, 6)
end)

requirement("R7", function(check)
  local r1 = snaps.respawn1
  local at = check.at(r1.frame)
  at.equal("a fall before Checkpoint1: Falls", r1.state.Falls, 1)
  at.near("a fall before Checkpoint1 (after lap 1): back at the start", r1.row and r1.row.p, START, 0.15)
  at.less("and at rest (m/s)", r1.row and len(r1.row.v), 0.5)
  local r2 = snaps.respawn2
  at = check.at(r2.frame)
  at.equal("a fall after Checkpoint2: Falls", r2.state.Falls, 2)
  at.equal("Checkpoint stays 2", r2.state.Checkpoint, 2)
  at.near("a fall after Checkpoint2: back at (20, 0.5, 18)", r2.row and r2.row.p, SPAWNS[2], 0.15)
  at.less("and at rest (m/s)", r2.row and len(r2.row.v), 0.5)
  check.equal("the marble fell twice", #rec.falls, 2)
end)

requirement("R8", function(check)
  check.equal("two laps completed", #rec.laps, 2)
  local prev = 0
  local times = {}
  for i, l in ipairs(rec.laps) do
    local at = check.at(l.frame)
    local lap = (l.frame - prev) * STEP
    times[i] = lap
    prev = l.frame
    at.equal(fmt("lap %d: Laps", i), l.state.Laps, i)
    at.near(fmt("lap %d: LastLap is the lap's time (s)", i), num(l.state.LastLap), lap, 0.1)
    local best = math.huge
    for _, x in ipairs(times) do best = math.min(best, x) end
    at.near(fmt("lap %d: BestLap is the fastest lap so far (s)", i), num(l.state.BestLap), best, 0.1)
    at.less(fmt("lap %d: LapTime starts again", i), num(l.state.LapTime), 0.1)
    at.equal(fmt("lap %d: Checkpoint back to 0", i), l.state.Checkpoint, 0)
  end
  check.greater("lap 2 was the slower one (s)", times[2] and times[1] and times[2] - times[1], 1)
  if rec.lapclock_bad then
    check.at(rec.lapclock_bad.frame).near("LapTime grows by the time step each frame (first wrong frame)",
      rec.lapclock_bad.after - rec.lapclock_bad.before, STEP, 1e-4)
  else
    check.truthy("LapTime grows by the time step each frame", #rec.laps > 0)
  end
  local a = snaps.after
  check.at(a.frame).near("LapTime 10 s after lap 2", num(a.state.LapTime), (a.frame - snaps.lap2.frame) * STEP, 0.1)
end)

requirement("R9", function(check)
  local l1 = snaps.lap1
  check.at(l1.frame).equal("every coin collected on lap 1: Coins", l1.state.Coins, 4)
  check.at(l1.frame).equal("no Coin node left", l1.coins_left, 0)
  if rec.text_bad then
    check.at(rec.text_bad.frame).equal("HudText shows Laps, Coins and Falls (first wrong frame)", rec.text_bad.got,
      rec.text_bad.want)
  else
    check.truthy("HudText shows Laps, Coins and Falls in every frame", setup.state.Laps ~= nil)
  end
end)

-- richness
requirement("R10", function(check)
  local r1, later = snaps.respawn1, snaps.respawn1_later
  check.at(r1.frame).less("back at the start after a fall: no spin left (rad/s)", r1.row and len(r1.row.w), 0.5)
  check.at(later.frame).near("1 s later the marble still lies at the start", later.row and later.row.p, START, 0.2)
end)

requirement("R11", function(check)
  check.at(snaps.held.frame).equal("SPACE held for 1.6 s: one jump", snaps.held.takeoffs, 1)
end)

requirement("R12", function(check)
  local s = snaps.seam
  check.at(s.frame).between("the jump was tried on the west lane, past its seam with the start pad", s.z, 5.8, 7.5)
  local dv = s.before and s.after and s.after.v.y - s.before.v.y
  check.at(s.frame).near("after rolling onto the west lane, SPACE jumps (upward speed, m/s)", dv, 5 - G * STEP, 0.3)
  check.falsy("the marble jumped the hurdle after rolling from the east lane onto the south lane",
    nav.hurdle_skipped)
end)
