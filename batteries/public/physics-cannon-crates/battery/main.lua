-- Battery for physics-cannon-crates: aims and fires the cannon with the keys, follows every cannonball and crate
-- through the engine's own view, and holds the game's counters to what Bullet did: Hits against the contacts the
-- engine recorded between cannonballs and crates, Knocked against each crate's tilt (a crate that tipped close
-- to 45 degrees may be counted either way). Where the outcome of a shot depends on the solver it checks only
-- that something happened; trajectories are checked from the ball's own start, with a frame's slack.
--
-- Story (60 Hz; a key press is 1 frame down and 3 up):
--   start, 1 s still -> aim presses and clamps -> shot 1 (yaw -30) into the yard: muzzle, speed, flight, the
--   battery's own push; SPACE again 0.25 s later (cooling down) -> shot 2 (yaw 30) -> the battery tips the top
--   crate off the stack -> shot 3 at the stack (yaw 0, elevation 10) -> shots 4-9 over the left wall (removed
--   once below y = -5; shots 1 and 2 expire meanwhile) -> shot 10 into the yard -> SPACE with no shots -> R ->
--   round 2: the top crate tipped again, SPACE held 1.3 s at the stack -> R with a crate given a push in that
--   frame -> 1 s still.
local h = harness
local fmt = string.format

local G = 9.81
local STEP = 1 / 60
local SPEED = 20
local MUZZLE = 1.5
local CANNON = {x = 0, y = 1, z = 0}
local CRATES = {
  {x = -0.7, y = 0.6, z = 20}, {x = 0, y = 0.6, z = 20}, {x = 0.7, y = 0.6, z = 20},
  {x = -0.35, y = 1.8, z = 20}, {x = 0.35, y = 1.8, z = 20},
  {x = 0, y = 3.0, z = 20},
}
local SURE_TILT, MAYBE_TILT = 50, 40          -- degrees: knocked for sure / possibly (the rule says 45)
local SURE_Y, MAYBE_Y = -1.2, -0.8            -- metres: the rule says below -1

local function dir(yaw, elevation)
  local y, e = math.rad(yaw), math.rad(elevation)
  return {x = math.sin(y) * math.cos(e), y = math.sin(e), z = math.cos(y) * math.cos(e)}
end
local function v(p) return p and {x = p.x, y = p.y, z = p.z} end
local function sub(a, b) return {x = a.x - b.x, y = a.y - b.y, z = a.z - b.z} end
local function add(a, b) return {x = a.x + b.x, y = a.y + b.y, z = a.z + b.z} end
local function scale(a, s) return {x = a.x * s, y = a.y * s, z = a.z * s} end
local function dot(a, b) return a.x * b.x + a.y * b.y + a.z * b.z end
local function len(a) return math.sqrt(dot(a, a)) end
local function tilt_of(view)
  local q = view.world_rotation
  local up_y = 1 - 2 * (q.x * q.x + q.z * q.z)
  return math.deg(math.acos(math.max(-1, math.min(1, up_y))))
end

local function state()
  local gs = h.find("GameState")
  if gs == nil then return {} end
  return {Yaw = gs:var("Yaw"), Elevation = gs:var("Elevation"), Shots = gs:var("Shots"), Hits = gs:var("Hits"),
          Knocked = gs:var("Knocked")}
end

-- per-frame bookkeeping ----------------------------------------------------------------------------
local track = {}          -- crate id -> {hit, max_tilt, min_y}
local balls = {}          -- ball id -> {first, last, p0, v0, rows = {frame -> {p, vel}}}
local ball_order = {}
local text_bad = nil      -- first frame whose StatusText disagrees with the variables
local function new_round_tracking()
  track = {}
end
local function crate_track(c)
  local t = track[c.id]
  if t == nil then t = {hit = false, max_tilt = 0, min_y = math.huge}; track[c.id] = t end
  return t
end
local function tick()
  local f = h.frame()
  for _, c in ipairs(h.find_all("Crate")) do
    local t = crate_track(c)
    local tl = tilt_of(c)
    if tl > t.max_tilt then t.max_tilt = tl end
    local y = c.world_position.y
    if y < t.min_y then t.min_y = y end
    local p = c.physics
    if p then
      for _, o in ipairs(p.contacts) do if o.name == "Cannonball" then t.hit = true end end
    end
  end
  for _, b in ipairs(h.find_all("Cannonball")) do
    local rec = balls[b.id]
    local p = b.physics
    local row = {p = v(b.world_position), vel = p and v(p.velocity)}
    if rec == nil then
      rec = {id = b.id, first = f, rows = {}}
      local body, shape = b:component("RigidBody"), b:component("CollisionShape")
      rec.mass = body and body:get("Mass")
      rec.shape = shape and shape:get("ShapeType")
      local size = shape and shape:get("Size")
      rec.diameter = size and size.x * b.world_scale.x
      balls[b.id] = rec
      ball_order[#ball_order + 1] = rec
    end
    rec.last = f
    rec.rows[f] = row
  end
  local s = state()
  if text_bad == nil and s.Shots ~= nil then
    local want = fmt("Shots: %s  Hits: %s  Knocked: %s", tostring(s.Shots), tostring(s.Hits), tostring(s.Knocked))
    local got = h.ui_text("StatusText")
    if got ~= want then text_bad = {frame = f, got = got, want = want} end
  end
end
local function run(frames)
  for _ = 1, frames do h.run_frames(1); tick() end
end
local function press(key, n)
  for _ = 1, (n or 1) do
    h.key_down(key); run(1); h.key_up(key); run(3)
  end
end
local function new_balls(since)
  local out = {}
  for _, r in ipairs(ball_order) do if r.first >= since then out[#out + 1] = r end end
  return out
end
local function alive(rec) return rec ~= nil and rec.last == h.frame() end
-- hits and knocked as Bullet made them this round: hits; knocked for sure; knocked possibly
local function observed()
  local hits, sure, maybe = 0, 0, 0
  for _, t in pairs(track) do
    if t.hit then hits = hits + 1 end
    if t.max_tilt > SURE_TILT or t.min_y < SURE_Y then sure = sure + 1 end
    if t.max_tilt > MAYBE_TILT or t.min_y < MAYBE_Y then maybe = maybe + 1 end
  end
  return {hits = hits, sure = sure, maybe = maybe}
end
local function counters(label)
  local s = state()
  local o = observed()
  return {label = label, frame = h.frame(), Hits = s.Hits, Knocked = s.Knocked, Shots = s.Shots, hits = o.hits,
          sure = o.sure, maybe = o.maybe}
end
local function crate_views_by_start()
  -- each start position's crate: the crate nearest to it now
  local out = {}
  for i, p in ipairs(CRATES) do
    local best, bd = nil, math.huge
    for _, c in ipairs(h.find_all("Crate")) do
      local d = len(sub(v(c.world_position), p))
      if d < bd then best, bd = c, d end
    end
    out[i] = best
  end
  return out
end
local function crates_snapshot(label)
  local out = {label = label, frame = h.frame(), crates = {}}
  for _, c in ipairs(h.find_all("Crate")) do
    out.crates[#out.crates + 1] = {id = c.id, p = v(c.world_position), tilt = tilt_of(c),
                                   speed = c.physics and len(v(c.physics.velocity)),
                                   spin = c.physics and len(v(c.physics.angular_velocity))}
  end
  return out
end
-- the crate standing highest, and a push at its top that tips it off the back of the stack
local function tip_top_crate()
  local top, ty = nil, -math.huge
  for _, c in ipairs(h.find_all("Crate")) do
    if c.world_position.y > ty and tilt_of(c) < 10 then top, ty = c, c.world_position.y end
  end
  local body = top and top:component("RigidBody")
  if body then body:call("ApplyImpulse", Vector3(0, 0, 2.5), Vector3(0, 0.6, 0)) end
  return top and top.id
end

-- drive --------------------------------------------------------------------------------------------
local snaps = {}
h.start()
tick()
snaps.start = {state = state(), crates = crates_snapshot("at the start"), text = h.ui_text("StatusText")}
do
  local setup = {}
  local g = h.find("Ground")
  local gb = g and g:component("RigidBody")
  setup.ground_mass = gb and gb:get("Mass")
  local cannon = h.find("Cannon")
  setup.cannon_pos = cannon and v(cannon.world_position)
  setup.cannon_dir = cannon and v(cannon.direction)
  setup.crates = {}
  for _, c in ipairs(h.find_all("Crate")) do
    local body, shape = c:component("RigidBody"), c:component("CollisionShape")
    local size = shape and shape:get("Size")
    local ws = c.world_scale
    setup.crates[#setup.crates + 1] = {
      mass = body and body:get("Mass"), kinematic = body and body:get("Kinematic"),
      shape = shape and shape:get("ShapeType"),
      size = size and {x = size.x * ws.x, y = size.y * ws.y, z = size.z * ws.z}}
  end
  setup.rays = {}
  for _, s in ipairs(h.scenes()) do
    local w = s:component("PhysicsWorld")
    if w then
      setup.world = true
      local function ray(name, o, d, dist)
        local hit = w:call("RaycastSingle", Ray(Vector3(o.x, o.y, o.z), Vector3(d.x, d.y, d.z)), dist)
        local body = hit and hit.body
        setup.rays[name] = {hit = body ~= nil, name = body and body.node and body.node.name,
                            p = body and v(hit.position), mass = body and body.mass}
      end
      ray("ground", {x = 3, y = 10, z = 12}, {x = 0, y = -1, z = 0}, 20)
      for _, c in ipairs({{-14.5, -7.5}, {14.5, -7.5}, {-14.5, 31.5}, {14.5, 31.5}}) do
        ray(fmt("ground corner (%g, %g)", c[1], c[2]), {x = c[1], y = 10, z = c[2]}, {x = 0, y = -1, z = 0}, 20)
      end
      ray("left wall", {x = 0, y = 1, z = 5}, {x = -1, y = 0, z = 0}, 30)
      ray("right wall", {x = 0, y = 1, z = 5}, {x = 1, y = 0, z = 0}, 30)
      ray("back wall", {x = 5, y = 1, z = 12}, {x = 0, y = 0, z = 1}, 40)
      ray("over the left wall", {x = 0, y = 2.3, z = 5}, {x = -1, y = 0, z = 0}, 30)
      ray("over the back wall", {x = 5, y = 2.3, z = 12}, {x = 0, y = 0, z = 1}, 40)
      break
    end
  end
  snaps.setup = setup
end
run(60)
snaps.still = crates_snapshot("1 s after the start")
snaps.still_state = state()

-- aiming
local aims = {}
local function aim_snap(label)
  local s = state()
  local cannon = h.find("Cannon")
  aims[#aims + 1] = {label = label, frame = h.frame(), Yaw = s.Yaw, Elevation = s.Elevation,
                     dir = cannon and v(cannon.direction)}
end
press(KEY_RIGHT, 3); aim_snap("RIGHT x3")                   -- yaw 15
press(KEY_UP, 2); aim_snap("then UP x2")                    -- elevation 20
press(KEY_LEFT, 14); aim_snap("then LEFT x14")              -- yaw -45 (clamped)
press(KEY_UP, 10); aim_snap("then UP x10")                  -- elevation 60 (clamped)
press(KEY_DOWN, 13); aim_snap("then DOWN x13")              -- elevation 0 (clamped)
press(KEY_RIGHT, 3); press(KEY_UP, 2); aim_snap("then RIGHT x3, UP x2")   -- yaw -30, elevation 10
local expected_aims = {{15, 10}, {15, 20}, {-45, 20}, {-45, 60}, {-45, 0}, {-30, 10}}

-- shot 1, into the yard
local before1 = state()
local f1 = h.frame()
h.key_down(KEY_SPACE); run(1); h.key_up(KEY_SPACE)
local shot1 = new_balls(f1)[1]
local after1 = state()
run(14)
press(KEY_SPACE)                                            -- 0.25 s after shot 1: cooling down
local cool = {count = #new_balls(f1), Shots = state().Shots, frame = h.frame()}
local push = {}
if shot1 and alive(shot1) then
  run(shot1.first + 20 - h.frame())
  local b = nil
  for _, x in ipairs(h.find_all("Cannonball")) do if x.id == shot1.id then b = x end end
  local body = b and b:component("RigidBody")
  if body then body:call("ApplyImpulse", Vector3(4, 0, 0)); push.frame = h.frame() end
end
run(12)
-- shot 2, the other way
press(KEY_RIGHT, 12)                                        -- yaw 30
local f2 = h.frame()
press(KEY_SPACE)
local shot2 = new_balls(f2)[1]
if shot1 then shot1.label = "shot 1" end
if shot2 then shot2.label = "shot 2" end
run(60)
snaps.before_tip = counters("1 s after shot 2 (two cannonballs in the yard, nothing hit)")
-- the battery tips the top crate off the stack
local tipped1 = tip_top_crate()
run(150)
snaps.tipped = counters("2.5 s after the battery pushed the top crate off the stack")
-- shot 3, at the stack
press(KEY_LEFT, 6)                                          -- yaw 0, elevation 10
local f3 = h.frame()
press(KEY_SPACE)
local shot3 = new_balls(f3)[1]
run(60)
snaps.shot3_1s = counters("1 s after the shot at the stack")
run(120)
snaps.shot3_3s = counters("3 s after the shot at the stack")
-- shots 4 to 9 over the left wall, shot 10 into the yard
press(KEY_LEFT, 6)                                          -- yaw -45
press(KEY_UP, 7)                                            -- elevation 45
local over = {}
for i = 4, 9 do
  local fi = h.frame()
  press(KEY_SPACE)
  over[#over + 1] = {n = i, rec = new_balls(fi)[1], Shots = state().Shots}
  run(32)
end
run(240)
for _, o in ipairs(over) do
  o.alive_end = o.rec ~= nil and alive(o.rec)
end
snaps.over_wall = counters("after shots 4-9 over the left wall")
press(KEY_DOWN, 7)                                          -- elevation 10
local f10 = h.frame()
press(KEY_SPACE)
local shot10 = new_balls(f10)[1]
run(32)
local f_empty = h.frame()
press(KEY_SPACE)
snaps.empty = {frame = h.frame(), count = #new_balls(f_empty), Shots = state().Shots}
local before_r1 = counters("just before the first R")
local balls_before_r1 = #h.find_all("Cannonball")
-- round 2
press(KEY_R)
snaps.r1 = {state = state(), crates = crates_snapshot("just after R"), balls = #h.find_all("Cannonball"),
            frame = h.frame()}
new_round_tracking(); tick()
run(60)
snaps.r1_still = crates_snapshot("1 s after R")
local tipped2 = tip_top_crate()
run(150)
snaps.round2_tip = counters("round 2: 2.5 s after the battery pushed the top crate off again")
local f_hold = h.frame()
h.key_down(KEY_SPACE); run(80); h.key_up(KEY_SPACE)
snaps.hold = {frame = h.frame(), count = #new_balls(f_hold), Shots = state().Shots}
run(120)
snaps.round2_shot = counters("round 2: 2 s after the shot at the stack")
-- R with a crate pushed in the same frame
do
  local c = crate_views_by_start()[2]
  local body = c and c:component("RigidBody")
  if body then body:call("ApplyImpulse", Vector3(6, 0, 3)); body:call("ApplyTorqueImpulse", Vector3(0, 0.5, 0)) end
end
press(KEY_R)
new_round_tracking(); tick()
run(56)
snaps.r2_still = crates_snapshot("1 s after R pressed while a crate was pushed")

-- requirements -------------------------------------------------------------------------------------
local function sorted_by_start(list)
  -- match each start position to the nearest crate of a snapshot
  local out = {}
  for i, p in ipairs(CRATES) do
    local best, bd = nil, math.huge
    for _, c in ipairs(list) do
      local d = len(sub(c.p, p))
      if d < bd then best, bd = c, d end
    end
    out[i] = best
  end
  return out
end
local function crates_in_place(check, snap, tol)
  local at = check.at(snap.frame)
  at.equal(snap.label .. ": six Crate nodes", #snap.crates, 6)
  local m = sorted_by_start(snap.crates)
  for i, p in ipairs(CRATES) do
    local c = m[i]
    at.near(fmt("%s: a crate at (%g, %g, %g)", snap.label, p.x, p.y, p.z), c and c.p, p, tol)
    at.less(fmt("%s: the crate at (%g, %g, %g) is upright (degrees of tilt)", snap.label, p.x, p.y, p.z),
      c and c.tilt, 3)
  end
end
local function counters_match(check, c, want_hits, want_knocked)
  local at = check.at(c.frame)
  if want_hits then at.equal(c.label .. ": Hits = crates a cannonball touched this round", c.Hits, c.hits) end
  if want_knocked then
    at.between(c.label .. ": Knocked = crates tipped past 45 degrees this round", c.Knocked, c.sure, c.maybe)
  end
end

requirement("R1", function(check)
  local s = snaps.setup
  check.truthy("a scene has a PhysicsWorld", s.world)
  check.equal("exactly one node named Ground", #h.find_all("Ground"), 1)
  check.equal("exactly one node named Cannon", #h.find_all("Cannon"), 1)
  check.near("Ground is static (mass 0)", s.ground_mass, 0, 1e-9)
  local r = s.rays.ground or {}
  check.equal("a ray down at (3, 10, 12) hits the Ground", r.name, "Ground")
  check.near("the Ground's top is at y = 0", r.p and r.p.y, 0, 0.02)
  for _, c in ipairs({{-14.5, -7.5}, {14.5, -7.5}, {-14.5, 31.5}, {14.5, 31.5}}) do
    local name = fmt("ground corner (%g, %g)", c[1], c[2])
    local rc = s.rays[name] or {}
    check.near(fmt("a ray down at (%g, 10, %g) lands on a floor at y = 0", c[1], c[2]), rc.p and rc.p.y, 0, 0.02)
  end
  for _, w in ipairs({{"left wall", "x", -15}, {"right wall", "x", 15}, {"back wall", "z", 32}}) do
    local rw = s.rays[w[1]] or {}
    check.near(fmt("the %s's inner face (a ray at y = 1)", w[1]), rw.p and rw.p[w[2]], w[3], 0.05)
    check.near(fmt("the %s is static", w[1]), rw.mass, 0, 1e-9)
  end
  check.falsy("nothing over the left wall at y = 2.3", (s.rays["over the left wall"] or {}).hit)
  check.falsy("nothing over the back wall at y = 2.3", (s.rays["over the back wall"] or {}).hit)
  check.near("Cannon at (0, 1, 0)", s.cannon_pos, CANNON, 1e-3)
  check.near("Cannon's forward axis at the start (yaw 0, elevation 10)", s.cannon_dir, dir(0, 10), 0.01)
  check.equal("six Crate nodes", #s.crates, 6)
  for i, c in ipairs(s.crates) do
    check.near(fmt("crate %d: mass 1", i), c.mass, 1, 1e-6)
    check.falsy(fmt("crate %d: not kinematic", i), c.kinematic)
    check.equal(fmt("crate %d: a box shape", i), c.shape, SHAPE_BOX)
    check.near(fmt("crate %d: box size 0.6 x 1.2 x 0.6 (world units)", i), c.size, {x = 0.6, y = 1.2, z = 0.6}, 1e-3)
  end
  crates_in_place(check, snaps.start.crates, 0.02)
  local st = snaps.start.state
  check.equal("Yaw at the start", st.Yaw, 0)
  check.equal("Elevation at the start", st.Elevation, 10)
  check.equal("Shots at the start", st.Shots, 10)
  check.equal("Hits at the start", st.Hits, 0)
  check.equal("Knocked at the start", st.Knocked, 0)
  check.equal("StatusText at the start", snaps.start.text, "Shots: 10  Hits: 0  Knocked: 0")
  crates_in_place(check, snaps.still, 0.05)
  check.at(snaps.still.frame).equal("Knocked 1 s after the start", snaps.still_state.Knocked, 0)
end)

requirement("R2", function(check)
  for i, a in ipairs(aims) do
    local want = expected_aims[i]
    local at = check.at(a.frame)
    at.equal(a.label .. ": Yaw", a.Yaw, want[1])
    at.equal(a.label .. ": Elevation", a.Elevation, want[2])
    at.near(a.label .. ": the Cannon's forward axis points along the aim", a.dir, dir(want[1], want[2]), 0.01)
  end
end)

requirement("R3", function(check)
  local d = dir(-30, 10)
  local muzzle = add(CANNON, scale(d, MUZZLE))
  check.truthy("SPACE fires a Cannonball (in the frame it goes down)", shot1 ~= nil and shot1.first == f1 + 1)
  if shot1 == nil then return end
  local at = check.at(shot1.first)
  at.near("the cannonball's mass", shot1.mass, 2, 1e-6)
  at.equal("the cannonball's shape is a sphere", shot1.shape, SHAPE_SPHERE)
  at.near("the cannonball's diameter (world units)", shot1.diameter, 0.5, 1e-3)
  at.equal("Shots after the first shot", after1.Shots, (before1.Shots or 0) - 1)
  local r0 = shot1.rows[shot1.first]
  local off = sub(r0.p, muzzle)
  local along = dot(off, d)
  at.between("it starts at the muzzle, (0, 1, 0) + 1.5 x the aim (metres along the aim, a step's travel allowed)",
    along, -0.1, 0.75)
  at.less("it starts on the aim's line (metres off it)", len(sub(off, scale(d, along))), 0.1)
  at.near("its velocity when fired: 20 m/s along the aim", r0.vel, scale(d, SPEED), 0.4)
  local r6, r18 = shot1.rows[shot1.first + 6], shot1.rows[shot1.first + 18]
  if r6 and r18 then
    local a = check.at(shot1.first + 18)
    a.near("0.3 s later it flies as Bullet throws it (velocity)", r18.vel, add(scale(d, SPEED), {x = 0, y = -G * 0.3,
      z = 0}), 0.4)
    local travel = sub(r18.p, r6.p)
    local want = add(scale(d, SPEED * 0.2), {x = 0, y = -G * 0.2 * 0.2, z = 0})
    a.near("its travel from 0.1 s to 0.3 s after the shot", travel, want, 0.12)
  else
    at.fail("the cannonball flies for 0.3 s", "it was removed")
  end
  local p0, p1 = push.frame and shot1.rows[push.frame], push.frame and shot1.rows[push.frame + 12]
  if p0 and p1 then
    local a = check.at(push.frame + 12)
    a.near("the battery's 4 N·s push along +X: x velocity 0.2 s later (m/s)", p1.vel.x, d.x * SPEED + 2, 0.2)
    a.near("the battery's push: x travel over 0.2 s (m)", p1.p.x - p0.p.x, (d.x * SPEED + 2) * 0.2, 0.1)
  else
    at.fail("the battery pushes the cannonball in flight", "it was not there 20 frames after the shot")
  end
  check.at(cool.frame).equal("SPACE 0.25 s after a shot fires nothing (cannonballs since shot 1)", cool.count, 1)
  check.at(cool.frame).equal("Shots after that press", cool.Shots, (before1.Shots or 0) - 1)
  check.truthy("SPACE 1.4 s after shot 1 fires shot 2", shot2 ~= nil)
  check.truthy("SPACE fires shot 3 at the stack", shot3 ~= nil)
  for _, o in ipairs(over) do
    check.truthy(fmt("shot %d fires", o.n), o.rec ~= nil)
    check.equal(fmt("Shots after shot %d", o.n), o.Shots, 10 - o.n)
  end
  check.truthy("shot 10 fires", shot10 ~= nil)
  check.at(snaps.empty.frame).equal("SPACE with no shots left fires nothing", snaps.empty.count, 0)
  check.at(snaps.empty.frame).equal("Shots stays 0", snaps.empty.Shots, 0)
end)

requirement("R4", function(check)
  check.truthy("shots 1 and 2 were fired", shot1 ~= nil and shot2 ~= nil)
  for _, rec in ipairs({shot1, shot2}) do
    local lived = (rec.last - rec.first + 1) * STEP
    local lowest = math.huge
    for _, row in pairs(rec.rows) do lowest = math.min(lowest, row.p.y) end
    local at = check.at(rec.last)
    at.greater(rec.label .. " stays in the yard (its lowest height)", lowest, 0)
    at.between(rec.label .. " is removed 6 s after it was fired (seconds it was there)", lived, 5.7, 6.3)
  end
  for _, o in ipairs(over) do
    local rec = o.rec
    if rec then
      local last = rec.rows[rec.last]
      local at = check.at(rec.last)
      at.less(fmt("shot %d (over the wall) is removed soon after it falls below y = -5 (seconds it lived)", o.n),
        (rec.last - rec.first + 1) * STEP, 5.0)
      at.greater(fmt("shot %d was not removed before it fell below y = -5 (its last height)", o.n),
        last and last.p.y, -6.5)
      at.less(fmt("shot %d had fallen near y = -5 when removed (its last height)", o.n), last and last.p.y, -4.0)
      at.falsy(fmt("shot %d is gone", o.n), o.alive_end)
    end
  end
end)

requirement("R5", function(check)
  counters_match(check, snaps.before_tip, true, false)
  check.at(snaps.before_tip.frame).equal("no crate hit by the two yard shots", snaps.before_tip.Hits, 0)
  counters_match(check, snaps.tipped, true, false)
  counters_match(check, snaps.shot3_1s, true, false)
  counters_match(check, snaps.shot3_3s, true, false)
  check.at(snaps.shot3_3s.frame).greater("the shot at the stack hits a crate", snaps.shot3_3s.hits, 0)
  counters_match(check, snaps.over_wall, true, false)
end)

requirement("R6", function(check)
  counters_match(check, snaps.before_tip, false, true)
  check.at(snaps.before_tip.frame).equal("nothing knocked before the battery's push", snaps.before_tip.Knocked, 0)
  local t = snaps.tipped
  check.at(t.frame).greater("the battery's push tipped the top crate over", t.sure, 0)
  counters_match(check, t, false, true)
  counters_match(check, snaps.shot3_3s, false, true)
  check.at(snaps.shot3_3s.frame).greater("the shot at the stack knocks more crates over",
    snaps.shot3_3s.sure, snaps.tipped.maybe)
  counters_match(check, snaps.over_wall, false, true)
  if text_bad then
    check.at(text_bad.frame).equal("StatusText shows Shots, Hits and Knocked (first wrong frame)", text_bad.got,
      text_bad.want)
  else
    check.truthy("StatusText shows Shots, Hits and Knocked in every frame", snaps.start.state.Shots ~= nil)
  end
end)

requirement("R7", function(check)
  local r = snaps.r1
  local at = check.at(r.frame)
  if balls_before_r1 > 0 then at.equal("R removes every cannonball", r.balls, 0) end
  at.equal("R: Yaw", r.state.Yaw, 0)
  at.equal("R: Elevation", r.state.Elevation, 10)
  at.equal("R: Shots", r.state.Shots, 10)
  at.equal("R: Hits", r.state.Hits, 0)
  at.equal("R: Knocked", r.state.Knocked, 0)
  at.greater("crates were knocked before R", before_r1.sure, 0)
  crates_in_place(check, r.crates, 0.05)
  crates_in_place(check, snaps.r1_still, 0.05)
  check.truthy("the battery found a standing top crate after R", tipped2 ~= nil)
end)

-- richness
requirement("R8", function(check)
  local at = check.at(snaps.hold.frame)
  at.equal("SPACE held for 1.3 s fires one cannonball", snaps.hold.count, 1)
  at.equal("Shots after holding SPACE", snaps.hold.Shots, 9)
end)

requirement("R9", function(check)
  local t = snaps.round2_tip
  check.at(t.frame).greater("round 2: the battery's push tipped the top crate over again", t.sure, 0)
  counters_match(check, t, true, true)
  local s = snaps.round2_shot
  check.at(s.frame).greater("round 2: the held shot hits a crate", s.hits, 0)
  counters_match(check, s, true, true)
end)

requirement("R10", function(check)
  crates_in_place(check, snaps.r2_still, 0.05)
  local at = check.at(snaps.r2_still.frame)
  for _, c in ipairs(snaps.r2_still.crates) do
    at.less("a crate at rest 1 s after R (m/s)", c.speed, 0.05)
  end
  check.truthy("the battery tipped crates in both rounds", tipped1 ~= nil and tipped2 ~= nil)
end)
