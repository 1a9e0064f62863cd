-- Battery for anim-mutant-arena: plays a little over two minutes frame by frame, recording every frame the hero,
-- the gong, the gate, the platform and the rocks (and, around each transition, the animation states and the right
-- hand), then checks the recording.
--
-- Story: idle -> walk, run, stop, the four directions, a diagonal, Shift alone -> a standing jump with keys and
-- SPACE pressed in the air -> a running jump -> a jump right after its landing -> a throw while walking that turns
-- before the release and starts running, F pressed during it, a throw during its fade-out (two rocks at once)
-- -> a throw in the air -> a throw across a landing -> four throws at the gong: a hit, a hit while the gate
-- opens, a hit while it closes, a hit once it is closed again -> a long walk while the platform laps.
local h = harness
local fmt, floor, abs, sqrt, atan, deg, min, max = string.format, math.floor, math.abs, math.sqrt, math.atan,
  math.deg, math.min, math.max

local DT = 1 / 60
local IDLE = "Models/Mutant/Mutant_Idle0.ani"
local WALK = "Models/Mutant/Mutant_Walk.ani"
local RUN = "Models/Mutant/Mutant_Run.ani"
local JUMP = "Models/Mutant/Mutant_Jump1.ani"
local THROW = "Models/Mutant/Layer/Mutant_Throw_LY.ani"
local HAND = "Mutant:RightHand"
local GONG = {x = 0, y = 2, z = 14}
local GATE = {x = 5, y = 0, z = 14}
local WAYPOINTS = {{x = -6, y = 0.25, z = 4}, {x = -6, y = 0.25, z = 10}, {x = -12, y = 0.25, z = 10},
                   {x = -12, y = 0.25, z = 4}}
local POS_TOL, HEIGHT_TOL, YAW_TOL = 0.2, 0.15, 5.0
local FADE_TOL, WEIGHT_TOL, TIME_TOL = 0.15, 0.02, 0.05
local GATE_TOL = 4.0               -- degrees
local LAP_TOL = 3                  -- frames (0.05 s)

----------------------------------------------------------------------------------------------------
-- reading the game
----------------------------------------------------------------------------------------------------
local cache = {}
local function unique(name)
  local v = cache[name]
  if v and v.exists then return v end
  local all = h.find_all(name)
  v = #all == 1 and all[1] or nil
  cache[name] = v
  return v
end
-- The node with the AnimatedModel: HeroModel as asked, else Hero itself (R1 tells them apart).
local function model_node()
  local m = unique("HeroModel")
  if m and m:component("AnimatedModel") then return m end
  local hero = unique("Hero")
  if hero and hero:component("AnimatedModel") then return hero end
  return m
end
local function xyz(v) return {x = v.x, y = v.y, z = v.z} end
local function yaw_of(view)
  local d = view.direction
  return deg(atan(d.x, d.z))
end
local function yaw_diff(a, b)
  local d = (a - b) % 360
  return d > 180 and d - 360 or d
end
local function dist(a, b)
  if a == nil or b == nil then return math.huge end
  local dx, dy, dz = a.x - b.x, a.y - b.y, a.z - b.z
  return sqrt(dx * dx + dy * dy + dz * dz)
end
local function hdist(a, b)
  local dx, dz = a.x - b.x, a.z - b.z
  return sqrt(dx * dx + dz * dz)
end

-- The animation states of the hero's model, by animation resource name (the first state of each).
local function anim_states()
  local m = model_node()
  local anim = m and m.animation
  local out = {}
  for _, st in ipairs(anim and anim.states or {}) do
    if out[st.name] == nil then
      out[st.name] = {weight = st.weight, time = st.time, length = st.length, layer = st.layer, looped = st.looped,
                      start_bone = st.start_bone, speed = st.speed, playing = st.playing}
    end
    out[#out + 1] = {name = st.name, weight = st.weight, layer = st.layer}
  end
  return out
end

----------------------------------------------------------------------------------------------------
-- the recorder: every frame the battery runs is recorded
----------------------------------------------------------------------------------------------------
local REC = {}
local detail_ = 0                  -- frames left to record the animation states and the hand
local rocks_ = false               -- whether to record the rocks (from the first throw to the last hit)
local gate_ = false                -- whether to record the gate (from the throws at the gong on)
local function record()
  local r = {frame = h.frame()}
  local hero = unique("Hero")
  if hero then
    local p = hero.world_position
    r.hero = {x = p.x, y = p.y, z = p.z, yaw = yaw_of(hero)}
  end
  local gong = unique("Gong")
  r.hits = gong and gong:var("Hits")
  local gate = gate_ and unique("Gate")
  if gate then
    r.gate = yaw_of(gate)
    r.gate_animated = false
    for _, a in ipairs(gate.animation and gate.animation.attributes or {}) do
      if a.attribute == "Rotation" then r.gate_animated = true end
    end
  end
  local platform = unique("Platform")
  r.platform = platform and xyz(platform.world_position)
  r.rocks = {}
  for _, rock in ipairs(rocks_ and h.find_all("Rock") or {}) do
    local p = rock.world_position
    r.rocks[#r.rocks + 1] = {id = rock.id, x = p.x, y = p.y, z = p.z}
  end
  if detail_ > 0 then
    detail_ = detail_ - 1
    r.anim = anim_states()
    local m = model_node()
    local hand = m and m:child(HAND)
    r.hand = hand and xyz(hand.world_position)
  end
  REC[r.frame] = r
  return r
end
local function tick(n) for _ = 1, n do h.run_frames(1); record() end end
local function detail(n) detail_ = max(detail_, n) end

local function down(keys) for _, k in ipairs(keys) do h.key_down(k) end end
local function up(keys) for _, k in ipairs(keys) do h.key_up(k) end end
-- Keys held for `n` frames; released for the frame after.
local function hold(keys, n) down(keys); tick(n); up(keys) end
-- One frame's press: the key goes down, this frame runs, the key is up for the next.  Returns the frame.
local function press(key)
  h.key_down(key)
  tick(1)
  h.key_up(key)
  return h.frame()
end
local function now() return REC[h.frame()] end

-- Walk (2 units/s) to about (x, z): first along X, then along Z.
local function walk_to(x, z)
  local p = now().hero
  if p == nil then return end
  local n = floor(abs(x - p.x) * 30 + 0.5)
  if n > 0 then hold({x > p.x and KEY_D or KEY_A}, n) end
  tick(1)
  p = now().hero
  n = floor(abs(z - p.z) * 30 + 0.5)
  if n > 0 then hold({z > p.z and KEY_W or KEY_S}, n) end
  tick(1)
end

----------------------------------------------------------------------------------------------------
-- drive
----------------------------------------------------------------------------------------------------
local S = {}
local function snap(key) S[key] = now(); return S[key] end

h.start()
local start = {frame = h.frame()}
do
  local hero, model = unique("Hero"), model_node()
  start.hero = hero and {pos = xyz(hero.world_position), yaw = yaw_of(hero)}
  start.model = model and {name = model.name, parent = model.parent and model.parent.name,
    pos = xyz(model.world_position), yaw = yaw_of(model), am = model:component("AnimatedModel"),
    ctrl = model:component("AnimationController")}
  local am = start.model and start.model.am
  local mdl = am and am:get("Model")
  start.model_name = mdl and mdl:GetName()
  local gong, gate, platform = unique("Gong"), unique("Gate"), unique("Platform")
  start.gong = gong and {pos = xyz(gong.world_position), hits = gong:var("Hits"), model = gong:component("StaticModel")}
  start.gate = gate and {pos = xyz(gate.world_position), rot = gate.world_rotation}
  start.platform = platform and {pos = xyz(platform.world_position), model = platform:component("StaticModel")}
  start.waypoints = {}
  for i = 1, 4 do
    local w = unique("Waypoint_" .. i)
    start.waypoints[i] = w and xyz(w.world_position)
  end
  start.paths = {}
  h.count_nodes(function(v)
    for _, c in ipairs(v.components) do
      if c.type == "SplinePath" then
        local ctl = c:get("ControlledNode")
        start.paths[#start.paths + 1] = {mode = c:get("InterpolationMode"), speed = c:get("Speed"),
          controlled = ctl and ctl:GetName(), length = c:get("Length")}
      end
    end
    return false
  end)
  local octree = false
  for _, scene in ipairs(h.scenes()) do if scene:component("Octree") then octree = true end end
  start.octree = octree
  local vp = h.viewport(0)
  start.camera = vp and vp.camera_node and vp.camera_node.name
  start.cameras = #h.find_all("Camera")
end
record()

-- A: idle ------------------------------------------------------------------------------------------
detail(95)
tick(60); snap("idle1")
tick(30); snap("idle2")

-- B: locomotion ------------------------------------------------------------------------------------
local F = {}                        -- frames where inputs took effect
detail(125)
down({KEY_W}); tick(1); F.walk = h.frame(); tick(59); snap("walk1")
tick(60); snap("walk2")
detail(125)
down({KEY_LSHIFT}); tick(1); F.run = h.frame(); tick(59); snap("run1")
tick(60); snap("run2")
detail(80)
up({KEY_W, KEY_LSHIFT}); tick(1); F.stop = h.frame(); snap("stop0"); tick(59); snap("stop1")
local dirs = {}
for _, d in ipairs({{KEY_D, "D", 1, 0, 90}, {KEY_S, "S", 0, -1, 180}, {KEY_A, "A", -1, 0, -90},
                    {KEY_LEFT, "LEFT", -1, 0, -90}, {KEY_UP, "UP", 0, 1, 0}}) do
  local before = now()
  detail(95)
  hold({d[1]}, 60)
  local after = now()
  tick(30)
  dirs[#dirs + 1] = {key = d[2], before = before, after = after, rest = now(), dx = d[3], dz = d[4], yaw = d[5]}
end
S.diag0 = now()
hold({KEY_W, KEY_D}, 60); S.diag1 = now()
tick(30)
S.shift0 = now()
detail(40)
hold({KEY_LSHIFT}, 36); S.shift1 = now()
tick(20)

-- C: jumps -----------------------------------------------------------------------------------------
local J = {}
detail(90)
J.stand = press(KEY_SPACE)          -- from idle; SPACE again and D in the air change nothing
tick(17); press(KEY_SPACE)
tick(5); hold({KEY_D}, 12)
tick(50)
J.stand_end = h.frame()
tick(30)

detail(30)
down({KEY_W, KEY_LSHIFT}); tick(30)   -- a running jump; the keys change in the air
detail(90)
J.run = press(KEY_SPACE)
tick(11); up({KEY_W, KEY_LSHIFT}); down({KEY_A})
local landed = nil
for _ = 1, 70 do
  tick(1)
  if landed == nil and now().hero and now().hero.y == 0 then landed = h.frame() end
end
up({KEY_A})
J.run_landed = landed
J.run_end = h.frame()
tick(20)

detail(120)                          -- a jump three frames after a landing
J.first = press(KEY_SPACE)
landed = nil
for _ = 1, 70 do
  tick(1)
  if now().hero and now().hero.y == 0 then landed = h.frame(); break end
end
J.first_landed = landed
tick(2)
J.again = press(KEY_SPACE)
tick(60)
tick(30)

-- D: throws ----------------------------------------------------------------------------------------
walk_to(4, -4)
tick(30)
rocks_ = true
local T = {}
detail(120)
down({KEY_D}); tick(30)              -- walking +X
T.p1 = press(KEY_F)
tick(5); up({KEY_D}); down({KEY_W})  -- turns to +Z before the release
tick(6); T.p1_again = press(KEY_F)   -- ignored: the throw is under way
tick(5); down({KEY_LSHIFT}); T.shift = h.frame() + 1
tick(14); T.p2 = press(KEY_F)        -- 0.55 s after the first press: the first throw fades out
tick(6); up({KEY_W, KEY_LSHIFT})
tick(100)
T.d_end = h.frame()
tick(30)

press(KEY_A); tick(30)               -- face -X; a throw in the air
detail(80)
T.jump1 = press(KEY_SPACE)
tick(2); T.p3 = press(KEY_F)
tick(120)
detail(100)                          -- a throw across a landing
T.jump2 = press(KEY_SPACE)
tick(35); T.p4 = press(KEY_F)
tick(60)
tick(60)

-- E: the gong and the gate -------------------------------------------------------------------------
walk_to(0, 2)
press(KEY_W)                        -- face +Z
tick(60)
local G = {hits_before = now().hits}
gate_ = true
G.p1 = press(KEY_F)
tick(35); G.p2 = press(KEY_F)        -- its rock hits while the gate opens
tick(479); G.p3 = press(KEY_F)       -- its rock hits while the gate closes
tick(299); G.p4 = press(KEY_F)       -- its rock hits the closed gate again
tick(660)
rocks_ = false
G.hits = {}                          -- the frames where Hits went up
for f = G.p1, h.frame() do
  local a, b = REC[f - 1].hits, REC[f].hits
  if type(a) == "number" and type(b) == "number" and b > a then G.hits[#G.hits + 1] = f end
end
G.h1, G.h2, G.h3, G.h4 = G.hits[1], G.hits[2], G.hits[3], G.hits[4]

-- F: a long walk while the platform laps ------------------------------------------------------------
gate_ = false
local LEGS = {{{KEY_W}, 2, 0, 1, 150}, {{KEY_D, KEY_LSHIFT}, 5, 1, 0, 90}, {{KEY_S}, 2, 0, -1, 150},
              {{KEY_A, KEY_LSHIFT}, 5, -1, 0, 90}, {{KEY_S, KEY_A}, 2, -sqrt(0.5), -sqrt(0.5), 120},
              {{KEY_W, KEY_D}, 2, sqrt(0.5), sqrt(0.5), 120}}
S.long0 = now()
local expect = S.long0.hero and {x = S.long0.hero.x, y = 0, z = S.long0.hero.z}
local legs = 0
while h.time() < 121 do
  local leg = LEGS[legs % #LEGS + 1]
  hold(leg[1], leg[5])
  tick(20)
  if expect then
    expect.x, expect.z = expect.x + leg[2] * leg[3] * leg[5] * DT, expect.z + leg[2] * leg[4] * leg[5] * DT
  end
  legs = legs + 1
end
S.long1 = now()
S.long_expect = expect
S.long_legs = legs

----------------------------------------------------------------------------------------------------
-- helpers for the checks
----------------------------------------------------------------------------------------------------
local function weight(r, name) return r and r.anim and r.anim[name] and r.anim[name].weight or 0 end
-- The weight of every layer-0 state but `name`.
local function others0(r, name)
  local sum = 0
  for _, st in ipairs(r and r.anim or {}) do
    if st.name ~= name and st.layer == 0 then sum = sum + st.weight end
  end
  return sum
end
-- `name` alone at full weight on layer 0, looped, at speed 1.
local function check_alone(check, r, name, label)
  local at = check.at(r.frame)
  local st = r.anim and r.anim[name]
  at.truthy(fmt("%s: %s is playing", label, name), st ~= nil)
  at.near(fmt("%s: %s's weight", label, name), weight(r, name), 1.0, WEIGHT_TOL)
  at.equal(fmt("%s: %s's layer", label, name), st and st.layer, 0)
  at.equal(fmt("%s: %s is looped", label, name), st and st.looped, true)
  at.near(fmt("%s: %s's speed", label, name), st and st.speed or 0, 1.0, 1e-3)
  at.near(fmt("%s: weight of the other layer-0 animations", label), others0(r, name), 0, WEIGHT_TOL)
end
-- Time of `name` advanced by `dt` seconds of looped play at speed 1 between two records.
local function check_time(check, a, b, name, dt, label)
  local sa, sb = a.anim and a.anim[name], b.anim and b.anim[name]
  if sa == nil or sb == nil or sa.length <= 0 then
    check.at(b.frame).fail(label .. ": " .. name .. "'s time", "not playing"); return
  end
  local want = (sa.time + dt) % sa.length
  local d = abs(sb.time - want)
  d = min(d, sa.length - d)
  check.at(b.frame).near(fmt("%s: %s's time %.3f s on from %.3f s, wrapped into %.3f s", label, name, dt, sa.time,
    sa.length), d, 0, TIME_TOL)
end
local function check_pos(check, r, want, label)
  local at = check.at(r.frame)
  at.near(label .. ": Hero's position", r.hero and {x = r.hero.x, y = r.hero.y, z = r.hero.z}, want, POS_TOL)
end
local function check_yaw(check, r, want, label)
  local at = check.at(r.frame)
  if r.hero == nil then at.fail(label .. ": Hero's facing", "no single Hero node"); return end
  at.near(fmt("%s: Hero's facing, degrees from %g", label, want), yaw_diff(r.hero.yaw, want), 0, YAW_TOL)
end
local function offset(r, dx, dz)
  local p = r.hero or {x = 0, z = 0}
  return {x = p.x + dx, y = 0, z = p.z + dz}
end

-- A cross-fade into `to` from the frame `from_frame` its cause took effect: it starts within two frames, then
-- the new weight rises by DT/fade each frame to 1 while the rest of layer `layer` falls as much (when `mirror`).
local function check_fade(check, label, from_frame, to, fade, mirror)
  local n = floor(fade * 60 + 0.5)
  local s = nil
  for f = from_frame, from_frame + 3 do
    if weight(REC[f], to) > 0.001 then s = f; break end
  end
  if s == nil then
    check.at(from_frame + 3).fail(fmt("%s: %s starts fading in within two frames", label, to),
      fmt("weight %.3f", weight(REC[from_frame + 3], to)))
    return
  end
  local worst, worst_frame, worst_what = 0, s, ""
  for k = 0, n + 2 do
    local r = REC[s + k]
    local e = min(1, (k + 1) / n)
    local d = abs(weight(r, to) - e)
    if d > worst then
      worst, worst_frame, worst_what = d, s + k, fmt("%s at %.3f, steady %.3f", to, weight(r, to), e)
    end
    if mirror then
      local o = abs(others0(r, to) - (1 - e))
      if o > worst then
        worst, worst_frame, worst_what = o, s + k, fmt("the others at %.3f, steady %.3f", others0(r, to), 1 - e)
      end
    end
  end
  check.at(worst_frame).less(fmt("%s: the largest distance from a steady %.2f s fade into %s (%s)", label, fade, to,
    worst_what), worst, FADE_TOL)
  check.at(s + n + 2).near(fmt("%s: %s's weight once the fade is over", label, to), weight(REC[s + n + 2], to), 1,
    WEIGHT_TOL)
end

-- The rocks that appeared in frames [a, b], in order: {id, frame, positions = {[frame] = p}}.
local function rocks_born(a, b)
  local seen, out = {}, {}
  for f = a - 1, a - 1 do for _, rk in ipairs(REC[f] and REC[f].rocks or {}) do seen[rk.id] = true end end
  for f = a, b do
    for _, rk in ipairs(REC[f] and REC[f].rocks or {}) do
      if not seen[rk.id] then
        seen[rk.id] = true
        out[#out + 1] = {id = rk.id, frame = f}
      end
    end
  end
  return out
end
local function rock_at(id, f)
  for _, rk in ipairs(REC[f] and REC[f].rocks or {}) do if rk.id == id then return rk end end
  return nil
end
local function last_frame_of(id, from)
  local f = from
  while rock_at(id, f + 1) do f = f + 1 end
  return f
end

-- The throw released in [press, press + 40]: its rock appears when the throw's time passes 0.25 s, at the hand.
local function check_release(check, label, press_frame, rock)
  if rock == nil then
    check.at(press_frame + 40).fail(label .. ": a Rock appears within 0.67 s of the press", "none")
    return
  end
  local r = REC[rock.frame]
  local st = r.anim and r.anim[THROW]
  check.at(rock.frame).near(fmt("%s: the throw's time in the frame the Rock appears", label),
    st and st.time or -1, 0.25 + DT / 2, TIME_TOL)
  local p = rock_at(rock.id, rock.frame)
  local nxt = rock_at(rock.id, rock.frame + 1)
  local dir = nxt and {x = nxt.x - p.x, y = 0, z = nxt.z - p.z} or {x = 0, y = 0, z = 0}
  local best = math.huge
  for _, f in ipairs({rock.frame - 1, rock.frame}) do
    local hand = REC[f] and REC[f].hand
    best = min(best, dist(p, hand), dist({x = p.x - dir.x, y = p.y, z = p.z - dir.z}, hand))
  end
  check.at(rock.frame).less(label .. ": the Rock's distance from the right hand when it appears", best, 0.3)
end
-- The rock flies level at 12 units/s along `yaw` over frames [f0, f1].
local function check_flight(check, label, rock, f0, f1, yaw)
  local a, b = rock_at(rock.id, f0), rock_at(rock.id, f1)
  if a == nil or b == nil then
    check.at(f1).fail(fmt("%s: the Rock flies from frame %d to %d", label, f0, f1), "it is gone"); return
  end
  local t = (f1 - f0) * DT
  local want = {x = a.x + 12 * t * math.sin(math.rad(yaw)), y = a.y, z = a.z + 12 * t * math.cos(math.rad(yaw))}
  check.at(f1).near(fmt("%s: the Rock %.2f s later (12 units/s, facing %g degrees, level)", label, t, yaw),
    {x = b.x, y = b.y, z = b.z}, want, POS_TOL)
end

----------------------------------------------------------------------------------------------------
-- requirements
----------------------------------------------------------------------------------------------------
requirement("R1", function(check)
  check.truthy("a scene has an Octree component", start.octree)
  check.equal("nodes named Camera", start.cameras, 1)
  check.equal("viewport 0's camera node", start.camera, "Camera")
  check.near("Hero's position", start.hero and start.hero.pos, {x = 0, y = 0, z = 0}, 0.01)
  check.near("Hero's facing, degrees from +Z", start.hero and yaw_diff(start.hero.yaw, 0) or 999, 0, 1)
  local m = start.model
  check.equal("the AnimatedModel's node", m and m.name, "HeroModel")
  check.equal("HeroModel's parent", m and m.parent, "Hero")
  check.truthy("HeroModel has an AnimationController", m and m.ctrl)
  check.equal("the AnimatedModel's model", start.model_name, "Models/Mutant/Mutant.mdl")
  check.near("HeroModel's position", m and m.pos, {x = 0, y = 0, z = 0}, 0.01)
  check.near("HeroModel's facing, degrees from -Z", m and abs(yaw_diff(m.yaw, 180)) or 999, 0, 1)
  check.near("Gong's position", start.gong and start.gong.pos, GONG, 0.01)
  check.truthy("Gong has a StaticModel", start.gong and start.gong.model)
  check.equal("Gong's Hits", start.gong and start.gong.hits, 0)
  check.near("Gate's position", start.gate and start.gate.pos, GATE, 0.01)
  check.near("Gate's rotation (closed)", start.gate and start.gate.rot.w and abs(start.gate.rot.w) or 0, 1, 1e-3)
  for i, w in ipairs(WAYPOINTS) do
    check.near("Waypoint_" .. i .. "'s position", start.waypoints[i], w, 0.01)
  end
  check.near("Platform's position", start.platform and start.platform.pos, WAYPOINTS[1], 0.01)
  check.truthy("Platform has a StaticModel", start.platform and start.platform.model)
  local path
  for _, p in ipairs(start.paths) do if p.controlled == "Platform" then path = p end end
  check.truthy("a SplinePath controls the Platform", path)
  check.equal("its interpolation", path and path.mode, LINEAR_CURVE)
  check.near("its speed", path and path.speed or 0, 3, 1e-4)
  check.near("its length (the square loop)", path and path.length or 0, 24, 0.05)
end)

requirement("R2", function(check)
  check_pos(check, S.idle1, {x = 0, y = 0, z = 0}, "standing 1 s")
  check_alone(check, S.idle1, IDLE, "standing 1 s")
  check_alone(check, S.idle2, IDLE, "standing 1.5 s")
  check_time(check, S.idle1, S.idle2, IDLE, 0.5, "standing")
  check_pos(check, S.walk1, offset(REC[F.walk - 1], 0, 2), "W held 1 s")
  check_pos(check, S.walk2, offset(REC[F.walk - 1], 0, 4), "W held 2 s")
  check_alone(check, S.walk1, WALK, "W held 1 s")
  check_alone(check, S.walk2, WALK, "W held 2 s")
  check_time(check, S.walk1, S.walk2, WALK, 1.0, "walking")
  check_pos(check, S.run2, offset(S.run1, 0, 5), "Shift and W held 2 s")
  check_alone(check, S.run1, RUN, "Shift and W held 1 s")
  check_alone(check, S.run2, RUN, "Shift and W held 2 s")
  check_time(check, S.run1, S.run2, RUN, 1.0, "running")
  check_pos(check, S.stop1, S.stop0.hero and xyz(S.stop0.hero) or {x = 0, y = 0, z = 0}, "1 s after the keys went up")
  check_alone(check, S.stop1, IDLE, "1 s after the keys went up")
  for _, d in ipairs(dirs) do
    check_pos(check, d.after, offset(d.before, 2 * d.dx, 2 * d.dz), d.key .. " held 1 s")
    check_yaw(check, d.after, d.yaw, d.key .. " held 1 s")
    check_yaw(check, d.rest, d.yaw, "0.5 s after " .. d.key .. " went up")
    check_alone(check, d.rest, IDLE, "0.5 s after " .. d.key .. " went up")
  end
  local r = sqrt(0.5)
  check_pos(check, S.diag1, offset(S.diag0, 2 * r, 2 * r), "W and D held 1 s")
  check_yaw(check, S.diag1, 45, "W and D held 1 s")
  check.at(S.long1.frame).near(fmt("after %d legs of walking and running (%.0f s)", S.long_legs,
    (S.long1.frame - S.long0.frame) * DT), S.long1.hero and xyz(S.long1.hero), S.long_expect, 0.3)
end)

requirement("R3", function(check)
  check_fade(check, "W pressed while standing", F.walk, WALK, 0.25, true)
  check_fade(check, "Shift pressed while walking", F.run, RUN, 0.25, true)
  check_fade(check, "W and Shift released while running", F.stop, IDLE, 0.25, true)
end)

requirement("R4", function(check)
  local function arc(label, j, base, vx, vz, frames)
    for _, k in ipairs(frames) do
      local r = REC[j + k - 1]
      local t = k * DT
      local want = {x = base.x + vx * t, y = 6 * t - 7.5 * t * t, z = base.z + vz * t}
      check.at(r.frame).near(fmt("%s: %.2f s after SPACE, height %.2f", label, t, want.y), r.hero and r.hero.y,
        want.y, HEIGHT_TOL)
      check.at(r.frame).near(fmt("%s: %.2f s after SPACE, ground position", label, t),
        r.hero and {x = r.hero.x, y = 0, z = r.hero.z}, {x = want.x, y = 0, z = want.z}, POS_TOL)
    end
  end
  local function landing(label, j)
    local f = nil
    for k = 1, 80 do
      local r = REC[j + k]
      if r and r.hero and r.hero.y == 0 then f = j + k; break end
    end
    check.at(f or j + 80).near(label .. ": seconds from SPACE to the landing (y exactly 0)",
      f and (f - j + 1) * DT or -1, 0.8, TIME_TOL)
    return f
  end
  local b0 = REC[J.stand - 1]
  arc("standing jump (SPACE again and D held in the air)", J.stand, b0.hero or {x = 0, z = 0}, 0, 0,
    {6, 12, 24, 30, 36, 42})
  local f = landing("standing jump", J.stand)
  check_yaw(check, REC[J.stand + 40], b0.hero and b0.hero.yaw or 0, "in the air with D held")
  if f then
    check.at(f + 10).near("10 frames after the landing: height", REC[f + 10].hero and REC[f + 10].hero.y, 0, 1e-6)
  end
  local b1 = REC[J.run - 1]
  arc("running jump (W and Shift released, A held in the air)", J.run, b1.hero or {x = 0, z = 0}, 0, 5,
    {6, 18, 30, 42})
  local lf = landing("running jump", J.run)
  check_yaw(check, REC[J.run + 40], 0, "running jump, in the air with A held")
  if lf then
    check.at(lf + 30).near("0.5 s after the landing with A held: moving -X at 2 units/s",
      REC[lf + 30].hero and REC[lf + 30].hero.x, (REC[lf].hero and REC[lf].hero.x or 0) - 1, POS_TOL)
  end
end)

requirement("R5", function(check)
  local function jump_anim(label, j, from_name)
    check_fade(check, label, j, JUMP, 0.1, true)
    local a, b = REC[j + 8], REC[j + 20]
    local sa, sb = a.anim and a.anim[JUMP], b.anim and b.anim[JUMP]
    check.at(b.frame).equal(label .. ": Mutant_Jump1 is on layer 0", sb and sb.layer, 0)
    check.at(b.frame).equal(label .. ": Mutant_Jump1 is not looped", sb and sb.looped, false)
    check.at(b.frame).near(label .. ": Mutant_Jump1's time over 0.2 s (speed 2.5)",
      sa and sb and sb.time - sa.time or -1, 0.5, TIME_TOL)
    check.at(a.frame).near(label .. ": Mutant_Jump1's time 9 frames after SPACE, from its start",
      sa and sa.time or -1, 9 * DT * 2.5, 0.1)
  end
  jump_anim("standing jump", J.stand)
  jump_anim("running jump", J.run)
  if J.run_landed then check_fade(check, "landing with A held", J.run_landed, WALK, 0.2, true) end
  local f = nil
  for k = 40, 80 do
    if REC[J.stand + k] and REC[J.stand + k].hero and REC[J.stand + k].hero.y == 0 then f = J.stand + k; break end
  end
  if f then check_fade(check, "landing with no key held", f, IDLE, 0.2, true) end
  local r = REC[J.again + 1]
  local st = r.anim and r.anim[JUMP]
  check.at(r.frame).near("a jump 3 frames after a landing: Mutant_Jump1's time 2 frames after SPACE",
    st and st.time or -1, 2 * DT * 2.5, 0.1)
  check.at(J.again + 20).near("a jump 3 frames after a landing: Mutant_Jump1's weight",
    weight(REC[J.again + 20], JUMP), 1, WEIGHT_TOL)
end)

-- The throw state in records [a, b].
local function throw_at(f) local r = REC[f]; return r and r.anim and r.anim[THROW] end
local function throw_end(a, b)
  for f = a, b do
    local st = throw_at(f)
    if st and st.time >= st.length - 1e-4 then return f end
  end
  return nil
end

requirement("R6", function(check)
  local p = T.p1
  check_fade(check, "F while walking", p, THROW, 0.1, false)
  local st = throw_at(p + 10)
  check.at(p + 10).equal("the throw's layer", st and st.layer, 1)
  check.at(p + 10).equal("the throw's start bone", st and st.start_bone, "Mutant:Spine")
  check.at(p + 10).equal("the throw is not looped", st and st.looped, false)
  check.at(p + 10).near("the throw's speed", st and st.speed or 0, 1, 1e-3)
  check.at(p + 13).greater("the throw's time 2 frames after F was pressed again (not restarted)",
    throw_at(p + 13) and throw_at(p + 13).time or -1, 0.19)
  -- layer 0 goes on: walking to the turn, then the walk-to-run fade under the throw
  local worst, wf = 0, p
  for f = p, p + 16 do
    local d = abs(weight(REC[f], WALK) - 1) + others0(REC[f], WALK)
    if d > worst then worst, wf = d, f end
  end
  check.at(wf).less("while the throw starts: how far layer 0 is from Mutant_Walk alone", worst, WEIGHT_TOL)
  check_fade(check, "Shift pressed while walking and throwing", T.shift, RUN, 0.25, true)
  local moved = REC[p + 24].hero and REC[p + 10].hero and REC[p + 24].hero.z - REC[p + 10].hero.z or 0
  check.at(p + 24).greater("the hero moves on +Z while it throws", moved, 0.3)
  local e = throw_end(p, p + 40)
  check.at(e or p + 40).truthy("the throw reaches its end", e)
  if e then
    local ok = true
    for f = p + 7, e - 1 do
      if abs(weight(REC[f], THROW) - 1) > WEIGHT_TOL then ok = false end
    end
    check.at(e).truthy("the throw's weight stays 1 from the end of its fade-in to its end", ok)
  end
  -- the second throw, 0.55 s after the first, plays from its start
  local q = T.p2
  check.at(q + 1).less("F during the first throw's fade-out: the throw's time 2 frames later",
    throw_at(q + 1) and throw_at(q + 1).time or 99, 2 * DT + TIME_TOL)
  check.at(q + 12).near("F during the first throw's fade-out: the throw's weight 0.2 s later",
    weight(REC[q + 12], THROW), 1, WEIGHT_TOL)
  local e2 = throw_end(q, q + 40)
  if e2 then
    local gone = nil
    for f = e2, e2 + 30 do
      if weight(REC[f], THROW) <= 0.001 then gone = f; break end
    end
    check.at(gone or e2 + 30).near("seconds from the throw's end until it stops playing (0.2 s fade-out)",
      gone and (gone - e2) * DT or -1, 0.2, TIME_TOL)
    check.at(e2 + 6).between("the throw's weight 0.1 s after its end", weight(REC[e2 + 6], THROW), 0.3, 0.7)
  else
    check.at(q + 40).fail("the second throw reaches its end", "it does not")
  end
  -- a throw across a landing keeps its weight
  local l = nil
  for f = T.p4, T.p4 + 30 do
    if REC[f].hero and REC[f].hero.y == 0 then l = f; break end
  end
  check.at(T.p4 + 30).truthy("the hero lands during the throw pressed 0.6 s into a jump", l)
  local worst2, wf2 = 0, T.p4
  for f = T.p4 + 7, T.p4 + 24 do
    local d = abs(weight(REC[f], THROW) - 1)
    if d > worst2 then worst2, wf2 = d, f end
  end
  check.at(wf2).less("a throw across a landing: its weight's distance from 1", worst2, WEIGHT_TOL)
end)

requirement("R7", function(check)
  local born = rocks_born(T.p1, T.p2 - 1)
  check.at(T.p2 - 1).equal("rocks released by the first throw (F pressed twice)", #born, 1)
  local r1 = born[1]
  check_release(check, "the throw while walking", T.p1, r1)
  if r1 then
    local r = REC[r1.frame]
    check.at(r1.frame).near("the hero's facing at the release (it turned to +Z)",
      r.hero and yaw_diff(r.hero.yaw, 0) or 99, 0, YAW_TOL)
    check_flight(check, "the throw while walking", r1, r1.frame + 1, r1.frame + 30, 0)
  end
  local r3 = rocks_born(T.p3, T.p3 + 40)[1]
  check_release(check, "the throw in the air", T.p3, r3)
  if r3 then
    check.at(r3.frame).greater("the hero is in the air at the release: its height", REC[r3.frame].hero and
      REC[r3.frame].hero.y or 0, 0.5)
    check_flight(check, "the throw in the air", r3, r3.frame + 1, r3.frame + 60, -90)
    local last = last_frame_of(r3.id, r3.frame)
    check.at(last + 1).near("the rock thrown in the air: seconds from its release until it is gone",
      (last + 1 - r3.frame) * DT, 1.5, TIME_TOL)
  end
  local r4 = rocks_born(T.p4, T.p4 + 40)[1]
  check_release(check, "the throw across a landing", T.p4, r4)
end)

requirement("R8", function(check)
  check.equal("Hits before any rock is thrown at the gong", G.hits_before, 0)
  for i, hf in ipairs({G.h1, G.h2, G.h3, G.h4}) do
    check.truthy(fmt("throw %d at the gong hits it", i), hf)
    if hf then
      check.at(hf).equal(fmt("Hits after hit %d", i), REC[hf].hits, i)
      local near_rock = false
      for _, rk in ipairs(REC[hf].rocks) do if hdist(rk, GONG) <= 1.0 then near_rock = true end end
      check.at(hf).falsy(fmt("hit %d: no rock is left within 1.0 of the gong", i), near_rock)
      local prev = REC[hf - 1]
      local closest = math.huge
      for _, rk in ipairs(prev.rocks) do closest = min(closest, hdist(rk, GONG)) end
      check.at(hf - 1).greater(fmt("hit %d: the closest rock a frame earlier (the hit is not late)", i), closest, 0.99)
    end
  end
  if not (G.h1 and G.h2 and G.h3 and G.h4) then return end
  local function gate(label, f, want, animated)
    local r = REC[f]
    check.at(f).near(fmt("%s: the gate's angle", label), r.gate and yaw_diff(r.gate, 0) or 999, want, GATE_TOL)
    if animated then
      check.at(f).truthy(fmt("%s: a Rotation attribute animation turns the gate", label), r.gate_animated)
    end
  end
  gate("0.5 s after the first hit (opening)", G.h1 + 30, 30, true)
  gate("3 s after the first hit", G.h1 + 180, 90)
  gate("7.2 s after the second hit (the closing was postponed)", G.h2 + 432, 90)
  gate("8.25 s after the second hit (closing)", G.h2 + 495, 45, true)
  gate("9.2 s after the second hit (closed; the hit while closing changed nothing)", G.h2 + 552, 0)
  gate("12 s after the second hit", G.h2 + 720, 0)
  gate("0.75 s after the fourth hit (opening again)", G.h4 + 45, 45, true)
  gate("1.6 s after the fourth hit", G.h4 + 96, 90)
  gate("7.3 s after the fourth hit", G.h4 + 438, 90)
  gate("8.25 s after the fourth hit (closing)", G.h4 + 495, 45, true)
  gate("9.2 s after the fourth hit", G.h4 + 552, 0)
end)

requirement("R9", function(check)
  local wp = WAYPOINTS
  local function at_start(r) return r and r.platform and dist(r.platform, wp[1]) <= 0.01 end
  -- the point `s` units along the loop
  local function along(s)
    s = s % 24
    local i = floor(s / 6)
    local a, b = wp[i + 1], wp[(i + 1) % 4 + 1]
    local t = (s - 6 * i) / 6
    return {x = a.x + (b.x - a.x) * t, y = a.y, z = a.z + (b.z - a.z) * t}
  end
  local last = h.frame()
  local departures, arrivals = {}, {}
  for f = start.frame + 1, last do
    if at_start(REC[f - 1]) and not at_start(REC[f]) then departures[#departures + 1] = f end
    if #departures > #arrivals and at_start(REC[f]) and not at_start(REC[f - 1]) then arrivals[#arrivals + 1] = f end
  end
  check.greater("laps completed in the play", #arrivals, 10)
  check.at(departures[1] or last).near("seconds from Start until the platform first leaves Waypoint_1",
    departures[1] and (departures[1] - start.frame - 1) * DT or -1, 2.0, LAP_TOL * DT)
  local worst_travel, wt_frame, worst_wait, ww_frame, worst_pos, wp_frame = 0, start.frame, 0, start.frame, 0,
    start.frame
  for i, a in ipairs(arrivals) do
    local d = departures[i]
    local travel = (a - d) * DT
    if abs(travel - 8) > abs(worst_travel - 8) or worst_travel == 0 then worst_travel, wt_frame = travel, a end
    if departures[i + 1] then
      local wait = (departures[i + 1] - a) * DT
      if abs(wait - 2) > abs(worst_wait - 2) or worst_wait == 0 then worst_wait, ww_frame = wait, departures[i + 1] end
    end
    for f = d, a - 1 do
      local e = dist(REC[f].platform, along(3 * (f - d + 1) * DT))
      if e > worst_pos then worst_pos, wp_frame = e, f end
    end
  end
  check.at(wt_frame).near("the lap whose travel time is furthest from 8 s", worst_travel, 8, LAP_TOL * DT)
  check.at(ww_frame).near("the wait at Waypoint_1 furthest from 2 s", worst_wait, 2, LAP_TOL * DT)
  check.at(wp_frame).less("the platform's largest distance from its place on the loop at 3 units/s", worst_pos, POS_TOL)
end)

requirement("R10", function(check)
  if not (G.h1 and G.h2) then check.fail("two hits while the gate opens", "no hits"); return end
  local drop, df = 0, G.h1
  for f = G.h1 + 1, G.h1 + 100 do
    local a, b = REC[f - 1].gate, REC[f].gate
    if a and b and a - b > drop then drop, df = a - b, f end
  end
  check.at(df).less("the largest step back of the gate's angle while it opens (hit again after 0.6 s)", drop, 0.5)
  check.at(G.h1 + 96).near("the gate's angle 1.6 s after the first hit", REC[G.h1 + 96].gate or 0, 90, GATE_TOL)
end)

requirement("R11", function(check)
  check_pos(check, S.shift1, S.shift0.hero and xyz(S.shift0.hero) or {x = 0, y = 0, z = 0}, "Shift alone held 0.6 s")
  check_alone(check, S.shift1, IDLE, "Shift alone held 0.6 s")
end)

requirement("R12", function(check)
  local first = rocks_born(T.p1, T.p2 - 1)[1]
  local second = rocks_born(T.p2, T.p2 + 40)[1]
  check.truthy("the second throw releases a rock", second)
  if first == nil or second == nil then return end
  local f0 = second.frame
  check.at(f0).truthy("the first rock is still there when the second appears", rock_at(first.id, f0))
  -- each rock flies on as it flew in its first frames: 12 units/s, the same way
  for _, x in ipairs({{"the first rock", first, f0 - 5}, {"the second rock", second, f0 + 1}}) do
    local a, b, c = rock_at(x[2].id, x[3]), rock_at(x[2].id, x[3] + 5), rock_at(x[2].id, f0 + 30)
    if a == nil or b == nil or c == nil then
      check.at(f0 + 30).fail(x[1] .. " flies until 0.5 s after the second rock appeared", "it is gone")
    else
      local vx, vz = (b.x - a.x) / (5 * DT), (b.z - a.z) / (5 * DT)
      check.at(x[3] + 5).near(x[1] .. "'s speed", sqrt(vx * vx + vz * vz), 12, 0.5)
      local t = (f0 + 30 - x[3] - 5) * DT
      check.at(f0 + 30).near(fmt("%s %.2f s on, as it flew", x[1], t), {x = c.x, y = c.y, z = c.z},
        {x = b.x + vx * t, y = b.y, z = b.z + vz * t}, POS_TOL)
    end
  end
end)
