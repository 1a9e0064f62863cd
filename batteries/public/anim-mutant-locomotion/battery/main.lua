-- Battery for anim-mutant-locomotion: drives WASD / Shift and reads the Hero's position, facing and the
-- AnimationController's states (weights, times, looping) at fixed frames, before, during and after each fade.
local h = harness
local fmt, atan, deg, abs, sqrt = string.format, math.atan, math.deg, math.abs, math.sqrt

local IDLE = "Models/Mutant/Mutant_Idle0.ani"
local WALK = "Models/Mutant/Mutant_Walk.ani"
local RUN = "Models/Mutant/Mutant_Run.ani"
local ALL = {IDLE, WALK, RUN}
local POS_TOL, YAW_TOL, FADE_TOL, WEIGHT_TOL, TIME_TOL = 0.15, 5.0, 0.15, 0.02, 0.05
local FADE_FRAMES = 9              -- 0.15 s into a 0.3 s fade

local function hero()
  local all = h.find_all("Hero")
  return #all == 1 and all[1] or nil
end

-- Everything the requirements read, copied now: position, yaw, and per animation its state (or nil).
local function snap(label)
  local s = {label = label, frame = h.frame(), states = {}, others = 0}
  local n = hero()
  if n == nil then return s end
  local p, d = n.world_position, n.direction
  s.pos = {x = p.x, y = p.y, z = p.z}
  s.yaw = deg(atan(d.x, d.z))
  local anim = n.animation
  for _, st in ipairs(anim and anim.states or {}) do
    local known = false
    for _, name in ipairs(ALL) do
      if st.name == name and s.states[name] == nil then
        s.states[name] = {weight = st.weight, time = st.time, length = st.length, looped = st.looped,
                          layer = st.layer, playing = st.playing, speed = st.speed}
        known = true
      end
    end
    if not known then s.others = s.others + st.weight end
  end
  return s
end
local function weight(s, name) return s.states[name] and s.states[name].weight or 0 end

local function hold(keys) for _, k in ipairs(keys) do h.key_down(k) end end
local function release(keys) for _, k in ipairs(keys) do h.key_up(k) end end

-- drive --------------------------------------------------------------------------------------------
local S = {}
h.start()
h.run(1.0)
S.idle1 = snap("standing, 1 s after Start")
h.run(0.5)
S.idle2 = snap("standing, 1.5 s after Start")

hold({KEY_W})                                        -- idle -> walk
h.run_frames(FADE_FRAMES); S.walk_fade = snap("0.15 s after W went down")
h.run_frames(60 - FADE_FRAMES); S.walk1 = snap("walking, 1 s after W went down")
h.run_frames(60); S.walk2 = snap("walking, 2 s after W went down")

hold({KEY_LSHIFT})                                   -- walk -> run
h.run_frames(FADE_FRAMES); S.run_fade = snap("0.15 s after Shift went down while walking")
h.run_frames(30 - FADE_FRAMES); S.run1 = snap("running, 0.5 s after Shift went down")
h.run_frames(60); S.run2 = snap("running, 1.5 s after Shift went down")

release({KEY_W, KEY_LSHIFT})                         -- run -> idle
h.run_frames(1); S.stop0 = snap("1 frame after W and Shift were released")
h.run_frames(FADE_FRAMES - 1); S.stop_fade = snap("0.15 s after W and Shift were released")
h.run_frames(51); S.stop1 = snap("1 s after W and Shift were released")

local dirs = {}
for _, d in ipairs({{KEY_D, "D", 1, 0, 90}, {KEY_S, "S", 0, -1, 180}, {KEY_A, "A", -1, 0, -90}}) do
  local before = snap("before " .. d[2])
  hold({d[1]}); h.run(1.0)
  local after = snap(fmt("%s held 1 s", d[2]))
  release({d[1]}); h.run(0.5)
  dirs[#dirs + 1] = {key = d[2], before = before, after = after, rest = snap(fmt("0.5 s after %s was released", d[2])),
                     dx = d[3], dz = d[4], yaw = d[5]}
end

hold({KEY_W, KEY_D})                                 -- diagonal
S.diag0 = snap("before W+D")
h.run(1.0); S.diag1 = snap("W+D held 1 s")
release({KEY_W, KEY_D}); h.run(0.5)

S.shift0 = snap("before Shift alone")
hold({KEY_LSHIFT}); h.run(0.6); S.shift1 = snap("Shift alone held 0.6 s")
release({KEY_LSHIFT})

-- requirements -------------------------------------------------------------------------------------
local function yaw_diff(a, b)
  local d = (a - b) % 360
  return d > 180 and d - 360 or d
end
local function check_yaw(check, s, want)
  local at = check.at(s.frame)
  if s.yaw == nil then at.fail(s.label .. ": Hero's facing", "no single Hero node"); return end
  at.near(fmt("%s: Hero's facing, degrees from %g", s.label, want), yaw_diff(s.yaw, want), 0, YAW_TOL)
end
local function check_pos(check, s, want, what)
  check.at(s.frame).near(fmt("%s: %s", s.label, what or "Hero's position"), s.pos, want, POS_TOL)
end
local function offset(a, dx, dz)
  return a.pos and {x = a.pos.x + dx, y = 0, z = a.pos.z + dz} or {x = dx, y = 0, z = dz}
end
-- `name` alone at full weight on layer 0, the others silent.
local function check_alone(check, s, name)
  local at = check.at(s.frame)
  local st = s.states[name]
  at.truthy(fmt("%s: %s is playing", s.label, name), st ~= nil)
  at.near(fmt("%s: %s's weight", s.label, name), weight(s, name), 1.0, WEIGHT_TOL)
  at.equal(fmt("%s: %s is on layer 0", s.label, name), st and st.layer, 0)
  for _, other in ipairs(ALL) do
    if other ~= name then at.near(fmt("%s: %s's weight", s.label, other), weight(s, other), 0, WEIGHT_TOL) end
  end
  at.near(fmt("%s: weight of animations other than idle, walk and run", s.label), s.others, 0, WEIGHT_TOL)
end
-- `name`'s time advanced by `dt` seconds of looped play between two snapshots.
local function check_time(check, a, b, name, dt)
  local sa, sb = a.states[name], b.states[name]
  if sa == nil or sb == nil or sa.length <= 0 then
    check.at(b.frame).fail(fmt("%s: %s's time", b.label, name), "not playing"); return
  end
  local want = (sa.time + dt) % sa.length
  local d = abs(sb.time - want)
  d = math.min(d, sa.length - d)
  check.at(b.frame).near(fmt("%s: %s's time is %.3f s on from %.3f s, wrapped into its %.3f s",
    b.label, name, dt, sa.time, sa.length), d, 0, TIME_TOL)
end
local function check_looped(check, s, name)
  local st = s.states[name]
  check.at(s.frame).truthy(fmt("%s: %s is looped", s.label, name), st and st.looped)
end
local function check_fade(check, s, from, to)
  local at = check.at(s.frame)
  at.near(fmt("%s: %s fading in", s.label, to), weight(s, to), 0.5, FADE_TOL)
  at.near(fmt("%s: %s fading out", s.label, from), weight(s, from), 0.5, FADE_TOL)
end

requirement("R1", function(check)
  local octree = false
  for _, scene in ipairs(h.scenes()) do if scene:component("Octree") then octree = true end end
  check.truthy("a scene has an Octree component", octree)
  local cams = h.find_all("Camera")
  check.equal("nodes named Camera", #cams, 1)
  check.truthy("Camera has a Camera component", cams[1] and cams[1]:component("Camera"))
  local n = hero()
  check.truthy("exactly one node named Hero", n)
  local am = n and n:component("AnimatedModel")
  check.truthy("Hero has an AnimatedModel", am)
  local model = am and am:get("Model")
  check.equal("the AnimatedModel's model", model and model:GetName(), "Models/Mutant/Mutant.mdl")
  check.truthy("Hero has an AnimationController", n and n:component("AnimationController"))
end)

requirement("R2", function(check)
  for _, s in ipairs({S.idle1, S.idle2}) do
    check_pos(check, s, {x = 0, y = 0, z = 0})
    check_alone(check, s, IDLE)
  end
  check_time(check, S.idle1, S.idle2, IDLE, 0.5)
  check_looped(check, S.idle2, IDLE)
end)

requirement("R3", function(check)
  check_pos(check, S.walk1, offset(S.idle2, 0, 2))
  check_pos(check, S.walk2, offset(S.idle2, 0, 4))
  check_yaw(check, S.walk2, 0)
  for _, d in ipairs(dirs) do
    check_pos(check, d.after, offset(d.before, 2 * d.dx, 2 * d.dz))
    check_yaw(check, d.after, d.yaw)
  end
end)

requirement("R4", function(check)
  check_alone(check, S.walk1, WALK)
  check_alone(check, S.walk2, WALK)
  check_time(check, S.walk1, S.walk2, WALK, 1.0)
  check_looped(check, S.walk2, WALK)
end)

requirement("R5", function(check)
  check_alone(check, S.run1, RUN)
  check_alone(check, S.run2, RUN)
  check_time(check, S.run1, S.run2, RUN, 1.0)
  check_looped(check, S.run2, RUN)
  check_pos(check, S.run2, offset(S.run1, 0, 5), "Hero's position after 1 s more of running")
  check_yaw(check, S.run2, 0)
end)

requirement("R6", function(check)
  check_fade(check, S.walk_fade, IDLE, WALK)
  check_fade(check, S.run_fade, WALK, RUN)
  check_fade(check, S.stop_fade, RUN, IDLE)
  check_alone(check, S.run1, RUN)            -- 0.5 s after a fade began it is over
  for _, d in ipairs(dirs) do check_alone(check, d.rest, IDLE) end
end)

requirement("R7", function(check)
  check_pos(check, S.stop1, S.stop0.pos, "Hero's position, unchanged since the keys were released")
  check_alone(check, S.stop1, IDLE)
  for _, d in ipairs(dirs) do check_pos(check, d.rest, d.after.pos, "Hero's position, unchanged since the release") end
end)

requirement("R8", function(check)
  local r = sqrt(0.5)
  check_pos(check, S.diag1, offset(S.diag0, 2 * r, 2 * r))
  check_yaw(check, S.diag1, 45)
  check_alone(check, S.diag1, WALK)
end)

requirement("R9", function(check)
  check_pos(check, S.shift1, S.shift0.pos, "Hero's position, unchanged while Shift alone is held")
  check_alone(check, S.shift1, IDLE)
end)

requirement("R10", function(check)
  for _, d in ipairs(dirs) do check_yaw(check, d.rest, d.yaw) end
end)
