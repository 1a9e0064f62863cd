-- Battery for physics2d-sling-siege: a slingshot siege on Box2D, played with the mouse and R for about a
-- minute. It checks the level (bodies, shapes, the hinge, the camera), the drag (the bird follows the mouse,
-- static, its pull limited to 2 m along the mouse's direction, a short pull put back), the launch (the body's
-- velocity = 8 x the pull, a ballistic flight, the bird's 4 s life and the next bird), the pigs' destruction
-- rule (the battery keeps every body's velocity at the end of each frame, which is its velocity before the next
-- step, and judges each contact that began with a pig against it), the hinged shelf, the end of the game (lost
-- only when the last bird is gone, won in the frame of the last pig with the bonus), the restart, and four
-- edge cases never stated: a bird in flight cannot be grabbed, a restart mid-flight leaves no timer behind, a
-- restart mid-drag leaves no drag behind, and a pig that two bodies hit in one step counts once.
--
-- Story (60 Hz, about 59 simulated s): G1 rest 2 s; drags; shot 1 (a lob at Pig3) with a grab at the flying
-- bird and a press at the empty sling; shot 2 (pulled past the limit, at the structure); shot 3; the end of
-- that game. G2 restart; three shots thrown away; lost.
-- G3 restart; a drag cut by a restart; Pig2 hops gently, then hard onto the crates' seam; Pig1 hops onto the
-- ground; the Prop is pushed away and the Shelf swings down. G4 restart; a shot cut by a restart; Pig1 and
-- Pig2 thrown; a lob kills Pig3: won.
local h = harness
local fmt, abs, sqrt = string.format, math.abs, math.sqrt

local STEP = 1 / 60
local G = 9.81
local ANCHOR = {x = 0, y = 2}
local GAIN = 8
local LIFE_FRAMES = 240
local KILL, KILL_LOW, KILL_HIGH = 3.0, 2.7, 3.3
local HINGE = {x = 18.2, y = 3.85}

local BODIES = {"Bird", "Block1", "Block2", "Block3", "Block4", "Block5", "Pig1", "Pig2", "Pig3", "Shelf", "Prop"}
local PIGS = {Pig1 = true, Pig2 = true, Pig3 = true}
local START = {
  Ground = {x = 10, y = -0.5}, Block1 = {x = 10, y = 1}, Block2 = {x = 14, y = 1}, Block3 = {x = 12, y = 2.2},
  Block4 = {x = 11.6, y = 2.8}, Block5 = {x = 12.4, y = 2.8}, Pig1 = {x = 12, y = 0.4}, Pig2 = {x = 12, y = 3.6},
  Post = {x = 18, y = 2}, Shelf = {x = 19.7, y = 3.85}, Prop = {x = 20.8, y = 1.85}, Pig3 = {x = 20, y = 4.4},
  Bird = {x = 0, y = 2},
}
local LEVEL = {"Ground", "Block1", "Block2", "Block3", "Block4", "Block5", "Pig1", "Pig2", "Post", "Shelf", "Prop",
               "Pig3", "Bird", "GameState", "Camera"}

local function xy(p) return p and {x = p.x, y = p.y} or nil end
local function dist(a, b) return sqrt((a.x - b.x) ^ 2 + (a.y - b.y) ^ 2) end

----------------------------------------------------------------------------------------------------
-- reading the game
----------------------------------------------------------------------------------------------------
local views = {}
local function find(name)
  local v = views[name]
  if v == nil or not v.exists then
    v = h.find(name)
    views[name] = v
  end
  return v
end
local function state()
  local gs = find("GameState")
  if gs == nil then return {} end
  return {score = gs:var("Score"), shots = gs:var("Shots"), pigs = gs:var("PigsLeft"), result = gs:var("Result")}
end
local function body_of(name)
  local n = find(name)
  return n and n:component("RigidBody2D")
end
local function angle_of(view)
  local q = view.world_rotation
  return 2 * math.atan(q.z, q.w)
end

-- every frame: each body's velocity (its velocity before the next step), pigs alive, the state
local prev = {}          -- name -> {x, y}: velocities at the end of the last frame
local restart_frames = {}
local audit = {missed = {}, unjust = {}, judged = 0}
local rows = {}          -- frame -> {state, bird = {p, v, type} or nil, pigs = {name = true}}
local pig_ids = {}       -- name -> node id alive at the end of the last frame
local bird_removed = {}  -- frames where a Bird node that had flown disappeared
local last_bird = nil    -- {id, dynamic}

local function tick()
  local f = h.frame()
  -- contacts that began in this frame's step, judged against the velocities before it
  if not restart_frames[f] then
    local hits = {}
    for _, c in ipairs(h.contacts2d(f)) do
      if c.frame == f and c.node_a and c.node_b then
        local a, b = c.node_a.name, c.node_b.name
        for side = 1, 2 do
          local pig, other = a, b
          if side == 2 then pig, other = b, a end
          if PIGS[pig] and pig_ids[pig] ~= nil and (side == 1 and c.node_a.id or c.node_b.id) == pig_ids[pig] then
            local vp, vo = prev[pig] or {x = 0, y = 0}, prev[other] or {x = 0, y = 0}
            local s = dist(vp, vo)
            if hits[pig] == nil or s > hits[pig].speed then hits[pig] = {speed = s, other = other} end
          end
        end
      end
    end
    for pig, id in pairs(pig_ids) do
      local n = h.find(pig)
      local alive = n ~= nil and n.id == id
      local hit = hits[pig]
      if hit and hit.speed >= KILL_HIGH then
        audit.judged = audit.judged + 1
        if alive then audit.missed[#audit.missed + 1] = {frame = f, pig = pig, other = hit.other, speed = hit.speed} end
      end
      if not alive and not (hit and hit.speed >= KILL_LOW) then
        audit.unjust[#audit.unjust + 1] = {frame = f, pig = pig, speed = hit and hit.speed or 0}
      end
    end
  end
  -- velocities, pigs, the bird
  prev = {}
  for _, name in ipairs(BODIES) do
    local n = find(name)
    local ph = n and n.physics
    if ph then prev[name] = {x = ph.velocity.x, y = ph.velocity.y} end
  end
  pig_ids = {}
  local pigs = {}
  for name in pairs(PIGS) do
    local n = find(name)
    if n then pig_ids[name] = n.id; pigs[name] = true end
  end
  local row = {frame = f, state = state(), pigs = pigs, birds = #h.find_all("Bird")}
  local b = find("Bird")
  if b and b.physics then
    row.bird = {id = b.id, p = xy(b.world_position), v = xy(b.physics.velocity), type = b.physics.body_type}
  end
  if last_bird and last_bird.dynamic and (row.bird == nil or row.bird.id ~= last_bird.id) then
    bird_removed[#bird_removed + 1] = f
  end
  last_bird = row.bird and {id = row.bird.id, dynamic = row.bird.type == BT_DYNAMIC} or nil
  rows[f] = row
  return row
end
local function run(frames)
  local r
  for _ = 1, frames do h.run_frames(1); r = tick() end
  return r
end
local function now() return rows[h.frame()] or tick() end
local function set_velocity(name, vx, vy)
  local body = body_of(name)
  if body == nil then return false end
  body:call("SetLinearVelocity", Vector2(vx, vy))
  prev[name] = {x = vx, y = vy}
  return true
end
local function tap(key)
  h.key_down(key)
  local r = run(1)
  h.key_up(key)
  return r
end
local function restart()
  restart_frames[h.frame() + 1] = true
  local r = tap(KEY_R)
  return r
end

----------------------------------------------------------------------------------------------------
-- the mouse, through the game's camera
----------------------------------------------------------------------------------------------------
local cam
local function screen(p)
  if cam == nil then
    local vp = h.viewport(0)
    cam = vp and vp.camera
  end
  if cam == nil then return 640, 360 end
  local s = h.world_to_screen(cam, {x = p.x, y = p.y, z = 0})
  local w, hh = h.screen()
  return math.floor(s.x * w + 0.5), math.floor(s.y * hh + 0.5)
end
local function mouse_at(p) local x, y = screen(p); h.mouse_to(x, y) end
-- press on the waiting bird, drag to `to` (world), hold `hold` frames; returns the row after the drag
local function drag(to, hold)
  mouse_at(ANCHOR)
  h.mouse_down(1)
  run(1)
  mouse_at(to)
  return run(hold or 2)
end
local function release()
  h.mouse_up(1)
  return run(1)
end
-- the pull that throws a bird from the sling to `target` in `tau` seconds
local function aim(target, tau)
  local pull = {x = 1, y = 1}
  for _ = 1, 20 do
    local s = {x = ANCHOR.x - pull.x, y = ANCHOR.y - pull.y}
    local vx = (target.x - s.x) / tau
    local vy = (target.y - s.y) / tau + G * tau / 2
    pull = {x = vx / GAIN, y = vy / GAIN}
  end
  return pull
end
local function wait_bird(limit)
  for _ = 1, limit do
    local r = run(1)
    if r.bird and r.bird.type ~= BT_DYNAMIC then return r end
  end
  return now()
end
-- a whole shot: drag to anchor - pull, release; returns {drag row, launch row}
local function shoot(pull, hold)
  local to = {x = ANCHOR.x - pull.x, y = ANCHOR.y - pull.y}
  local d = drag(to, hold or 2)
  local l = release()
  return d, l
end

----------------------------------------------------------------------------------------------------
-- G1: the level, drags, three shots
----------------------------------------------------------------------------------------------------
h.start()
h.track_contacts2d()
local first = tick()
local setup = {counts = {}, pos = {}, types = {}, mass = {}, total = h.count_nodes()}
for _, name in ipairs(LEVEL) do setup.counts[name] = #h.find_all(name) end
for name in pairs(START) do
  local n = find(name)
  setup.pos[name] = n and xy(n.world_position)
  setup.types[name] = n and n.physics and n.physics.body_type
  setup.mass[name] = n and n.physics and n.physics.mass
end
do
  for _, s in ipairs(h.scenes()) do
    local w = s:component("PhysicsWorld2D")
    if w then
      setup.world = true
      setup.hits = {}
      for _, x in ipairs({-6, 4, 27}) do
        local hit = w:call("RaycastSingle", Vector2(x, 0.6), Vector2(x, -3))
        local node = hit and hit.body and hit.body.node
        setup.hits[#setup.hits + 1] = {x = x, name = node and node.name, y = hit and hit.position.y}
      end
    end
  end
  local fixed = true
  for pig in pairs(PIGS) do
    local b = body_of(pig)
    local c = find(pig) and find(pig):component("CollisionCircle2D")
    if not (b and b:get("FixedRotation")) then fixed = false end
    setup[pig .. "_r"] = c and c:get("Radius")
  end
  setup.pigs_fixed = fixed
  local bc = find("Bird") and find("Bird"):component("CollisionCircle2D")
  setup.bird_r = bc and bc:get("Radius")
  local sizes = {}
  for _, name in ipairs({"Ground", "Block1", "Block2", "Block3", "Block4", "Block5", "Post", "Shelf", "Prop"}) do
    local c = find(name) and find(name):component("CollisionBox2D")
    local s = c and c:get("Size")
    sizes[name] = s and {x = s.x, y = s.y}
  end
  setup.sizes = sizes
  -- the hinge: a revolute constraint between the Shelf and the Post
  local function revolute(a, b)
    local n = find(a)
    local k = n and n:component("ConstraintRevolute2D")
    local other = k and k:get("OtherBody")
    return other ~= nil and other.node ~= nil and other.node.name == b
  end
  setup.hinge = revolute("Shelf", "Post") or revolute("Post", "Shelf")
  local vp = h.viewport(0)
  local camv = vp and vp.camera
  setup.camera = camv and {ortho = camv:get("Orthographic"), size = camv:get("OrthoSize"),
                           pos = xy(vp.camera_node.world_position), z = vp.camera_node.world_position.z}
end

local rest = run(120)
local rest_pos, rest_awake = {}, 0
for name in pairs(START) do
  local n = find(name)
  rest_pos[name] = n and xy(n.world_position)
  if n and n.physics and n.physics.awake and n.physics.body_type == BT_DYNAMIC then rest_awake = rest_awake + 1 end
end

-- drags
local d1 = drag({x = -1, y = 1.5}, 2)
local d1_hold = run(30)
mouse_at({x = -3, y = -2})
local d2 = run(2)
mouse_at({x = 0.1, y = 1.95})
local d3 = run(2)
local d3_rel = release()
local d3_after = run(30)

-- shot 1: a lob at Pig3, and a grab at the flying bird
local pig3 = find("Pig3")
local target1 = pig3 and xy(pig3.world_position) or {x = 20, y = 4.43}
local s1_drag, s1_launch = shoot(aim(target1, 2.0))
local s1_flight = {}
for i = 1, 19 do s1_flight[i] = run(1) end
local grab_before = now()
local gp = grab_before.bird and grab_before.bird.p or {x = 2, y = 4}
mouse_at(gp)
h.mouse_down(1)
run(1)
mouse_at({x = gp.x - 1.5, y = gp.y - 1})
run(2)
local grab_release = release()
local grab_after = run(3)
-- and a press at the sling's point, where a waiting bird would be
local sling_before = now()
mouse_at(ANCHOR)
h.mouse_down(1)
run(1)
mouse_at({x = -1, y = 1.5})
run(2)
local sling_release = release()
local sling_after = run(3)
local s1_end = wait_bird(300)

-- shot 2: past the limit, flat at the structure
local dir2 = {x = 1 / sqrt(1.0625), y = 0.25 / sqrt(1.0625)}
local s2_drag, s2_launch = shoot({x = dir2.x * 3, y = dir2.y * 3})
local s2_end = wait_bird(300)

-- shot 3: a lob at a standing pig of the structure
local t3 = find("Pig2") or find("Pig1") or find("Pig3")
if s2_end.bird and t3 then shoot(aim(xy(t3.world_position), 1.6)) end
local g1_end = run(300)

----------------------------------------------------------------------------------------------------
-- G2: restart; three shots thrown away; lost
----------------------------------------------------------------------------------------------------
local g2_restart = restart()
local g2_count = h.count_nodes()
local g2_pos = {}
for name in pairs(START) do local n = find(name); g2_pos[name] = n and xy(n.world_position) end
local g2_counts = {}
for _, name in ipairs(LEVEL) do g2_counts[name] = #h.find_all(name) end
local g2_settle = run(60)
local g2_settle_pos = {}
for name in pairs(START) do local n = find(name); g2_settle_pos[name] = n and xy(n.world_position) end
local away = {x = -0.6, y = -0.6}
local g2_shots = {}
for i = 1, 3 do
  local _, l = shoot(away)
  local shot = {launch = l}
  shot.before_end = run(LIFE_FRAMES - 10)
  shot["end"] = (i < 3) and wait_bird(40) or run(20)
  g2_shots[i] = shot
end
local g2_later = run(120)
local g2_bird_after = #h.find_all("Bird")

----------------------------------------------------------------------------------------------------
-- G3: restart; a drag cut by a restart; hops; the shelf
----------------------------------------------------------------------------------------------------
restart()
run(60)
drag({x = 1.5, y = 2.5}, 2)
local g3_cut = restart()
run(2)
local g3_rel = release()
local g3_after = run(60)
run(30)

-- Pig2: a gentle hop (lands at about 2 m/s), then a hard one onto the crates' seam (about 4.5 m/s)
local hop = {}
hop.gentle_set = set_velocity("Pig2", 0, 2)
hop.gentle_before = now()
local gentle_land = nil
for _ = 1, 60 do
  local r = run(1)
  if gentle_land == nil and r.frame > hop.gentle_before.frame + 5 then
    for _, c in ipairs(h.contacts2d(r.frame)) do
      if c.frame == r.frame and (c.node_a.name == "Pig2" or c.node_b.name == "Pig2") then gentle_land = r end
    end
  end
end
hop.gentle_land = gentle_land
hop.gentle_after = now()
run(30)
hop.hard_set = set_velocity("Pig2", 0, 4.5)
hop.hard_before = now()
local hard_contact = nil
for _ = 1, 90 do
  local r = run(1)
  if hard_contact == nil and r.frame > hop.hard_before.frame + 5 then
    for _, c in ipairs(h.contacts2d(r.frame)) do
      if c.frame == r.frame and (c.node_a.name == "Pig2" or c.node_b.name == "Pig2") then hard_contact = r end
    end
  end
end
hop.hard_contact = hard_contact
hop.hard_prev = hard_contact and rows[hard_contact.frame - 1]
hop.hard_after = run(30)

-- Pig1: a hard hop onto the ground (the ground is static: only the pig moves)
hop.ground_set = set_velocity("Pig1", 0, 4.5)
hop.ground_before = now()
local ground_contact = nil
for _ = 1, 90 do
  local r = run(1)
  if ground_contact == nil and r.frame > hop.ground_before.frame + 5 then
    for _, c in ipairs(h.contacts2d(r.frame)) do
      if c.frame == r.frame and (c.node_a.name == "Pig1" or c.node_b.name == "Pig1") then ground_contact = r end
    end
  end
end
hop.ground_contact = ground_contact
hop.ground_prev = ground_contact and rows[ground_contact.frame - 1]
run(20)

-- the Prop pushed away: the Shelf swings on its hinge and Pig3 falls
local shelf_rec = {err = 0, min_angle = 0, seen = 0}
local prop_set = set_velocity("Prop", 3, 0)
local pig3_gone = nil
for _ = 1, 240 do
  local r = run(1)
  local s = find("Shelf")
  if s then
    local a = angle_of(s)
    local p = s.world_position
    local ex, ey = p.x - 1.5 * math.cos(a), p.y - 1.5 * math.sin(a)
    local e = dist({x = ex, y = ey}, HINGE)
    shelf_rec.seen = shelf_rec.seen + 1
    if e > shelf_rec.err then shelf_rec.err = e end
    if a < shelf_rec.min_angle then shelf_rec.min_angle = a end
  end
  if pig3_gone == nil and not r.pigs.Pig3 then pig3_gone = r end
end
local g3_end = now()

----------------------------------------------------------------------------------------------------
-- G4: restart; a shot cut by a restart; Pig1 and Pig2 thrown; a lob kills Pig3: won
----------------------------------------------------------------------------------------------------
restart()
run(60)
local _, g4_cut_launch = shoot(away)
run(60)
local g4_restart = restart()
local g4_bird = find("Bird")
local g4_bird_id = g4_bird and g4_bird.id
local g4_wait = run(LIFE_FRAMES - 61 + 30)
local g4_bird_now = find("Bird")
local g4_wait_birds = #h.find_all("Bird")

set_velocity("Pig1", 0, 4.5)
run(110)
local g4_one = now()
set_velocity("Pig2", -5, 3)
run(110)
local g4_two = now()
local p3 = find("Pig3")
local g4_target = p3 and xy(p3.world_position) or {x = 20, y = 4.43}
local _, g4_launch = shoot(aim(g4_target, 2.0))
local g4_won = nil
local g4_before_won = nil
for _ = 1, 200 do
  local before = now()
  local r = run(1)
  if g4_won == nil and r.state.result == "won" then g4_won, g4_before_won = r, before end
end
local g4_gone = run(LIFE_FRAMES - 200 + 20)
local g4_gone_frame = nil
for _, f in ipairs(bird_removed) do
  if g4_launch and f > g4_launch.frame and g4_gone_frame == nil then g4_gone_frame = f end
end
local g4_later = run(120)
local g4_later_birds = #h.find_all("Bird")

----------------------------------------------------------------------------------------------------
-- requirements
----------------------------------------------------------------------------------------------------
local function removal_after(launch_frame)
  for _, f in ipairs(bird_removed) do if f > launch_frame then return f end end
  return nil
end

requirement("R1", function(check)
  check.truthy("a scene has a PhysicsWorld2D", setup.world)
  for _, name in ipairs(LEVEL) do
    check.at(first.frame).equal("exactly one node named " .. name .. " when Start() returns", setup.counts[name], 1)
  end
  for name, p in pairs(START) do
    check.at(first.frame).near(name .. " starts where the table puts it", setup.pos[name], p, 0.01)
  end
  for _, hit in ipairs(setup.hits or {}) do
    check.equal(fmt("a ray down at x = %g hits the Ground", hit.x), hit.name, "Ground")
    check.near(fmt("the Ground's top at x = %g", hit.x), hit.y, 0, 0.02)
  end
  check.equal("Ground is static", setup.types.Ground, BT_STATIC)
  check.equal("Post is static", setup.types.Post, BT_STATIC)
  local masses = {Block1 = 0.8, Block2 = 0.8, Block3 = 1.92, Block4 = 0.64, Block5 = 0.64, Shelf = 0.9,
                  Prop = 1.48, Pig1 = 0.16 * math.pi, Pig2 = 0.16 * math.pi, Pig3 = 0.16 * math.pi}
  for name, m in pairs(masses) do
    check.equal(name .. " is dynamic", setup.types[name], BT_DYNAMIC)
    check.near(name .. "'s mass (kg)", setup.mass[name], m, 0.01)
  end
  local sizes = {Ground = {x = 40, y = 1}, Block1 = {x = 0.4, y = 2}, Block2 = {x = 0.4, y = 2},
                 Block3 = {x = 4.8, y = 0.4}, Block4 = {x = 0.8, y = 0.8}, Block5 = {x = 0.8, y = 0.8},
                 Post = {x = 0.4, y = 4}, Shelf = {x = 3, y = 0.3}, Prop = {x = 0.4, y = 3.7}}
  for name, s in pairs(sizes) do check.near(name .. "'s CollisionBox2D size", setup.sizes[name], s, 1e-3) end
  for pig in pairs(PIGS) do check.near(pig .. "'s circle radius", setup[pig .. "_r"], 0.4, 1e-3) end
  check.truthy("the pigs' rotation is fixed", setup.pigs_fixed)
  check.near("the Bird's circle radius", setup.bird_r, 0.3, 1e-3)
  check.truthy("the waiting Bird is not dynamic", setup.types.Bird ~= nil and setup.types.Bird ~= BT_DYNAMIC)
  check.truthy("a ConstraintRevolute2D joins the Shelf and the Post", setup.hinge)
  check.truthy("viewport 0 shows an orthographic camera", setup.camera and setup.camera.ortho)
  check.near("its ortho size", setup.camera and setup.camera.size, 18, 1e-3)
  check.near("its node at (10, 5)", setup.camera and setup.camera.pos, {x = 10, y = 5}, 1e-3)
  check.at(first.frame).equal("Score starts at 0", first.state.score, 0)
  check.at(first.frame).equal("Shots starts at 3", first.state.shots, 3)
  check.at(first.frame).equal("PigsLeft starts at 3", first.state.pigs, 3)
  check.at(first.frame).equal("Result starts as playing", first.state.result, "playing")
end)

requirement("R2", function(check)
  for name, p in pairs(START) do
    check.at(rest.frame).near(name .. " still in place after 2 s (within 6 cm)", rest_pos[name], p, 0.06)
  end
  check.at(rest.frame).equal("every dynamic body asleep after 2 s", rest_awake, 0)
  check.at(rest.frame).equal("no pig destroyed by the level settling (PigsLeft)", rest.state.pigs, 3)
  check.at(rest.frame).truthy("the three pigs are there", rest.pigs.Pig1 and rest.pigs.Pig2 and rest.pigs.Pig3)
  check.at(rest.frame).equal("Score still 0", rest.state.score, 0)
end)

requirement("R3", function(check)
  check.at(d1.frame).near("dragged: the bird is under the mouse", d1.bird and d1.bird.p, {x = -1, y = 1.5}, 0.04)
  check.at(d1_hold.frame).near("held for half a second: it stays there", d1_hold.bird and d1_hold.bird.p,
    {x = -1, y = 1.5}, 0.04)
  check.at(d1_hold.frame).truthy("and is not dynamic while dragged", d1_hold.bird and d1_hold.bird.type ~= BT_DYNAMIC)
  check.at(d1_hold.frame).near("and does not move by itself (velocity)", d1_hold.bird and d1_hold.bird.v,
    {x = 0, y = 0}, 1e-3)
  local lim = {x = ANCHOR.x - 2 * 3 / 5, y = ANCHOR.y - 2 * 4 / 5}
  check.at(d2.frame).near("a pull of 5 m down-left stops 2 m from the sling, in the mouse's direction",
    d2.bird and d2.bird.p, lim, 0.05)
  check.at(d3.frame).near("back near the sling it follows the mouse", d3.bird and d3.bird.p, {x = 0.1, y = 1.95},
    0.04)
  check.at(d3_rel.frame).near("a release with a short pull puts it back on the sling", d3_rel.bird and d3_rel.bird.p,
    ANCHOR, 0.01)
  check.at(d3_after.frame).truthy("not launched (not dynamic)", d3_after.bird and d3_after.bird.type ~= BT_DYNAMIC)
  check.at(d3_after.frame).near("and still on the sling", d3_after.bird and d3_after.bird.p, ANCHOR, 0.01)
  check.at(d3_after.frame).equal("no shot used", d3_after.state.shots, 3)
  if s2_drag then
    check.at(s2_drag.frame).near("a pull past the limit along (1, 0.25) stays 2 m from the sling",
      s2_drag.bird and s2_drag.bird.p and dist(s2_drag.bird.p, ANCHOR), 2, 0.04)
  end
end)

local function launch_checks(check, drag_row, launch_row, label)
  local p = drag_row and drag_row.bird and drag_row.bird.p
  if p == nil or launch_row == nil then
    check.fail(label .. ": no bird to launch")
    return
  end
  local pull = {x = ANCHOR.x - p.x, y = ANCHOR.y - p.y}
  local want = {x = GAIN * pull.x, y = GAIN * pull.y - G * STEP / 2}   -- with or without gravity's first step
  check.at(launch_row.frame).equal(label .. ": the released bird is dynamic", launch_row.bird and launch_row.bird.type,
    BT_DYNAMIC)
  check.at(launch_row.frame).near(label .. ": its velocity after the release is 8 x the pull (m/s)",
    launch_row.bird and launch_row.bird.v, want, 0.2)
  return pull
end

requirement("R4", function(check)
  launch_checks(check, s1_drag, s1_launch, "shot 1")
  check.at(s1_launch.frame).equal("shot 1 uses a shot", s1_launch.state.shots, 2)
  if s1_launch.bird then
    local p0, v0 = s1_launch.bird.p, s1_launch.bird.v
    local worst, wf = 0, s1_launch.frame
    for n, r in ipairs(s1_flight) do
      if r.bird then
        local want = {x = p0.x + n * STEP * v0.x, y = p0.y + n * STEP * v0.y - G * STEP * STEP * n * (n + 1) / 2}
        local e = dist(r.bird.p, want)
        if e > worst then worst, wf = e, r.frame end
      else
        worst, wf = 99, r.frame
      end
    end
    check.at(wf).less("its flight follows Box2D's gravity (largest miss over 0.3 s, m)", worst, 0.02)
  end
  local s2pull = launch_checks(check, s2_drag, s2_launch, "shot 2 (pulled past the limit)")
  if s2pull and s2_launch and s2_launch.bird then
    check.at(s2_launch.frame).near("shot 2 leaves at 16 m/s (2 m of pull)",
      sqrt(s2_launch.bird.v.x ^ 2 + (s2_launch.bird.v.y + G * STEP) ^ 2), 16, 0.3)
  end
  -- a bird's life: G2's first shot
  local l = g2_shots[1].launch
  local gone = l and removal_after(l.frame)
  check.at(l.frame).equal("G2: a released bird flies (dynamic)", l.bird and l.bird.type, BT_DYNAMIC)
  check.at(gone or l.frame).between("it is removed 4 s after its launch (frames after the launch)",
    gone and gone - l.frame or -1, LIFE_FRAMES - 2, LIFE_FRAMES + 2)
  local e = g2_shots[1]["end"]
  check.at(e.frame).near("then the next bird waits on the sling", e.bird and e.bird.p, ANCHOR, 0.01)
  check.at(e.frame).truthy("not dynamic", e.bird and e.bird.type ~= BT_DYNAMIC)
  check.at(e.frame).less("it came right away (frames after the removal)", gone and e.frame - gone or 99, 2)
  check.at(e.frame).equal("one Bird node", e.birds, 1)
end)

requirement("R5", function(check)
  check.at(hop.gentle_before.frame).truthy("the battery set Pig2 moving up at 2 m/s", hop.gentle_set)
  check.at(hop.gentle_after.frame).truthy("Pig2 landed back on the crates (a contact began)", hop.gentle_land)
  check.at(hop.gentle_after.frame).truthy("a landing at about 2 m/s leaves Pig2 standing", hop.gentle_after.pigs.Pig2)
  check.at(hop.gentle_after.frame).equal("PigsLeft unchanged", hop.gentle_after.state.pigs, 3)
  check.at(hop.gentle_after.frame).equal("Score unchanged", hop.gentle_after.state.score, 0)
  local hc = hop.hard_contact
  check.at(hop.hard_after.frame).truthy("a hop at 4.5 m/s: Pig2 lands back on the crates", hc)
  if hc then
    check.at(hc.frame - 1).truthy("Pig2 there the frame before its landing", hop.hard_prev and hop.hard_prev.pigs.Pig2)
    check.at(hc.frame).falsy("destroyed (removed) in the frame its landing contact began", hc.pigs.Pig2)
  end
  local gc = hop.ground_contact
  check.at(hop.ground_before.frame).truthy("Pig1 hops at 4.5 m/s and lands on the ground", gc)
  if gc then
    check.at(gc.frame - 1).truthy("Pig1 there the frame before", hop.ground_prev and hop.ground_prev.pigs.Pig1)
    check.at(gc.frame).falsy("a pig falling onto the static ground is destroyed in that frame", gc.pigs.Pig1)
  end
  check.greater("contacts at 3.3 m/s or more judged over the whole game", audit.judged, 3)
  for i, m in ipairs(audit.missed) do
    if i > 3 then break end
    check.at(m.frame).fail(fmt("%s met %s at %.2f m/s (the velocities before the step) and was not destroyed",
      m.pig, m.other, m.speed))
  end
  for i, u in ipairs(audit.unjust) do
    if i > 3 then break end
    check.at(u.frame).fail(fmt("%s was removed without a contact of 2.7 m/s or more in that frame (fastest %.2f)",
      u.pig, u.speed))
  end
end)

requirement("R6", function(check)
  check.truthy("the battery pushed the Prop", prop_set)
  check.greater("the Shelf was there while it swung (frames)", shelf_rec.seen, 200)
  check.less("the Shelf's hinged end stays at (18.2, 3.85) (largest miss, m)", shelf_rec.err, 0.05)
  check.less("the Shelf swings down past 60 degrees (its lowest angle, rad)", shelf_rec.min_angle, -math.pi / 3)
  check.at(g3_end.frame).truthy("Pig3 falls and is destroyed", pig3_gone)
end)

requirement("R7", function(check)
  -- lost: G2
  for i, s in ipairs(g2_shots) do
    check.at(s.launch.frame).equal(fmt("G2 shot %d leaves %d shots", i, 3 - i), s.launch.state.shots, 3 - i)
    check.at(s.before_end.frame).equal(fmt("G2 shot %d: still playing while the bird flies", i),
      s.before_end.state.result, "playing")
  end
  local last = g2_shots[3]
  local gone = last.launch and removal_after(last.launch.frame)
  check.at(last["end"].frame).truthy("the last bird is removed 4 s after its launch", gone and
    abs(gone - last.launch.frame - LIFE_FRAMES) <= 2)
  if gone then
    check.at(gone - 1).equal("the frame before its removal: still playing", rows[gone - 1].state.result, "playing")
    check.at(gone).equal("lost in the frame the last bird goes, pigs standing", rows[gone].state.result, "lost")
  end
  check.at(g2_later.frame).equal("no bird after the game is lost", g2_bird_after, 0)
  check.at(g2_later.frame).equal("Score 0 (no pig hit)", g2_later.state.score, 0)
  check.at(g2_later.frame).equal("PigsLeft 3", g2_later.state.pigs, 3)
  -- won: G4
  check.at(g4_one.frame).equal("G4: Pig1 thrown onto the ground: PigsLeft 2", g4_one.state.pigs, 2)
  check.at(g4_one.frame).equal("Score 100", g4_one.state.score, 100)
  check.at(g4_two.frame).equal("Pig2 thrown off the structure: PigsLeft 1", g4_two.state.pigs, 1)
  check.at(g4_two.frame).equal("Score 200", g4_two.state.score, 200)
  check.at(g4_two.frame).equal("still playing", g4_two.state.result, "playing")
  check.at(g4_launch and g4_launch.frame or g4_two.frame).equal("the lob at Pig3 leaves 2 shots",
    g4_launch and g4_launch.state.shots, 2)
  check.at(g4_gone.frame).truthy("the lob destroys Pig3 and the game is won", g4_won)
  if g4_won then
    check.at(g4_won.frame).falsy("won in the frame the last pig goes", g4_won.pigs.Pig3)
    check.at(g4_won.frame - 1).truthy("(Pig3 there the frame before)", g4_before_won and g4_before_won.pigs.Pig3)
    check.at(g4_won.frame).equal("PigsLeft 0", g4_won.state.pigs, 0)
    check.at(g4_won.frame).equal("Score: 3 pigs and 2 birds left (300 + 100)", g4_won.state.score, 400)
  end
  check.at(g4_later.frame).equal("the won game keeps its Score", g4_later.state.score, 400)
  check.at(g4_later.frame).equal("and its Result", g4_later.state.result, "won")
  check.at(g4_later.frame).equal("no new bird after the win", g4_later_birds, 0)
  -- the first game's end, whatever the shots did
  local e = g1_end
  if e.state.shots == 0 and e.birds == 0 then
    check.at(e.frame).equal("G1: the game over with no bird left is won exactly when no pig stands",
      e.state.result, (e.state.pigs == 0) and "won" or "lost")
  end
end)

requirement("R8", function(check)
  check.at(g2_restart.frame).equal("R: Score back to 0", g2_restart.state.score, 0)
  check.at(g2_restart.frame).equal("R: Shots back to 3", g2_restart.state.shots, 3)
  check.at(g2_restart.frame).equal("R: PigsLeft back to 3", g2_restart.state.pigs, 3)
  check.at(g2_restart.frame).equal("R: Result back to playing", g2_restart.state.result, "playing")
  for _, name in ipairs(LEVEL) do
    check.at(g2_restart.frame).equal("R: exactly one " .. name, g2_counts[name], 1)
  end
  check.at(g2_restart.frame).equal("R: as many nodes as at the start", g2_count, setup.total)
  for name, p in pairs(START) do
    check.at(g2_restart.frame).near("R: " .. name .. " back in place", g2_pos[name], p, 0.02)
    check.at(g2_settle.frame).near("R: " .. name .. " stays in place (1 s later, 6 cm)", g2_settle_pos[name], p, 0.06)
  end
  check.at(g2_restart.frame).truthy("R: the bird waits, not dynamic", g2_restart.bird and
    g2_restart.bird.type ~= BT_DYNAMIC)
  check.at(g3_end.frame).truthy("R works again after a lost game (G3 played)", hop.hard_contact ~= nil)
end)

-- richness
requirement("R9", function(check)
  local b, a = grab_before, grab_after
  check.at(b.frame).truthy("a bird in flight", b.bird and b.bird.type == BT_DYNAMIC)
  if b.bird and a.bird then
    local n = a.frame - b.frame
    local want = {x = b.bird.v.x, y = b.bird.v.y - n * G * STEP}
    check.at(a.frame).near("a press, drag and release on the flying bird change nothing (its velocity)",
      a.bird.v, want, 0.05)
  else
    check.at(a.frame).fail("the flying bird is gone after the grab attempt")
  end
  check.at(grab_release.frame).equal("and use no shot", grab_release.state.shots, 2)
  check.at(a.frame).equal("still one shot used after it", a.state.shots, 2)
  local sb, sa = sling_before, sling_after
  if sb.bird and sa.bird then
    local n = sa.frame - sb.frame
    local want = {x = sb.bird.v.x, y = sb.bird.v.y - n * G * STEP}
    check.at(sa.frame).near("a press, drag and release at the empty sling change nothing either (its velocity)",
      sa.bird.v, want, 0.05)
    local m = 0
    for k = 1, n do
      local t = k * STEP
      local want_p = {x = sb.bird.p.x + sb.bird.v.x * t,
                      y = sb.bird.p.y + sb.bird.v.y * t - G * STEP * STEP * k * (k + 1) / 2}
      local r = rows[sb.frame + k]
      local e = r and r.bird and dist(r.bird.p, want_p) or 99
      if e > m then m = e end
    end
    check.at(sa.frame).less("nor its path (largest miss, m)", m, 0.02)
  else
    check.at(sa.frame).fail("the flying bird is gone after the press at the sling")
  end
  check.at(sling_release.frame).equal("and use no shot", sling_release.state.shots, 2)
  check.at(sa.frame).equal("one Bird node", sa.birds, 1)
end)

requirement("R10", function(check)
  check.at(g4_cut_launch and g4_cut_launch.frame or g4_restart.frame).truthy("a bird launched before the restart",
    g4_cut_launch and g4_cut_launch.bird and g4_cut_launch.bird.type == BT_DYNAMIC)
  check.at(g4_restart.frame).truthy("after the restart a bird waits", g4_bird_id ~= nil)
  check.at(g4_wait.frame).truthy("4.5 s after the cut launch the same bird still waits", g4_bird_now ~= nil and
    g4_bird_now.id == g4_bird_id)
  check.at(g4_wait.frame).equal("one Bird node", g4_wait_birds, 1)
  check.at(g4_wait.frame).near("on the sling", g4_wait.bird and g4_wait.bird.p, ANCHOR, 0.01)
  check.at(g4_wait.frame).equal("Shots still 3", g4_wait.state.shots, 3)
  check.at(g4_wait.frame).equal("still playing", g4_wait.state.result, "playing")
  local gone = g4_gone_frame
  check.at(gone or g4_gone.frame).between("the next launch's bird lives its full 4 s (frames)",
    gone and g4_launch and gone - g4_launch.frame or -1, LIFE_FRAMES - 2, LIFE_FRAMES + 2)
end)

requirement("R11", function(check)
  check.at(g3_cut.frame).near("a restart while dragging puts a bird on the sling", g3_cut.bird and g3_cut.bird.p,
    ANCHOR, 0.01)
  check.at(g3_rel.frame).truthy("releasing the mouse after it launches nothing", g3_rel.bird and
    g3_rel.bird.type ~= BT_DYNAMIC)
  check.at(g3_after.frame).near("the bird stays on the sling", g3_after.bird and g3_after.bird.p, ANCHOR, 0.01)
  check.at(g3_after.frame).equal("Shots still 3", g3_after.state.shots, 3)
end)

requirement("R12", function(check)
  local hc = hop.hard_contact
  check.at(hop.hard_after.frame).truthy("Pig2 landed on the crates' seam", hc)
  if hc then
    local both = {}
    for _, c in ipairs(h.contacts2d(hc.frame)) do
      if c.frame == hc.frame then
        local a, b = c.node_a.name, c.node_b.name
        if a == "Pig2" then both[b] = true elseif b == "Pig2" then both[a] = true end
      end
    end
    check.at(hc.frame).truthy("it met both crates in one step", both.Block4 and both.Block5)
    check.at(hc.frame).equal("destroyed once: PigsLeft 2", hc.state.pigs, 2)
    check.at(hc.frame).equal("Score 100", hc.state.score, 100)
  end
  check.at(hop.hard_after.frame).equal("half a second later: PigsLeft 2", hop.hard_after.state.pigs, 2)
  check.at(hop.hard_after.frame).equal("Score 100", hop.hard_after.state.score, 100)
  check.at(hop.hard_after.frame).equal("still playing", hop.hard_after.state.result, "playing")
end)
