-- Battery for move-with-keys: walking on each key, the arena clamp, the jump curve, no double jump.
-- Every leg is measured relative to where the player was before it, so one bug fails one requirement.
local h = harness
local abs, sqrt, fmt = math.abs, math.sqrt, string.format

local WALK_TOL = 0.07     -- one frame of motion at 4 units/s
local JUMP_TOL = 0.08   -- on top of one frame of timing slack (see on_curve)
local FPS = 60

local function player() return h.find("Player") end
local function pos()
  local p = player()
  if p == nil then return nil end
  local v = p.position
  return {x = v.x, y = v.y, z = v.z}
end
local function delta(a, b)
  if a == nil or b == nil then return nil end
  return {x = b.x - a.x, y = b.y - a.y, z = b.z - a.z}
end

-- Hold keys for a number of frames; returns the player's displacement.
local function hold(keys, frames)
  local before = pos()
  for _, k in ipairs(keys) do h.key_down(k) end
  h.run_frames(frames)
  for _, k in ipairs(keys) do h.key_up(k) end
  h.run_frames(1)   -- the key-ups are applied at the start of this frame, before any movement
  return delta(before, pos())
end

-- Press SPACE (held for one frame) and record y for `frames` frames, counting the press frame as k = 0.
local function jump_trace(frames, extra)
  local ys = {}
  h.key_down(KEY_SPACE)
  h.run_frames(1)
  h.key_up(KEY_SPACE)
  local p = pos()
  ys[0] = p and p.y
  for k = 1, frames do
    if extra and extra[k] then extra[k]() end
    h.run_frames(1)
    p = pos()
    ys[k] = p and p.y
  end
  return ys
end
local function jump_y(tau) return 5 * tau - 6.25 * tau * tau end
-- y at frame k of a jump (k = 0: the frame SPACE was pressed), allowing one frame of slack on when the jump
-- starts (the press frame may count as τ = 0 or as τ = one step) and JUMP_TOL on the height.
local function on_curve(check, name, y, k)
  local a, b, c = jump_y((k - 1) / FPS), jump_y(k / FPS), jump_y((k + 1) / FPS)
  local lo, hi = math.min(a, b, c), math.max(a, b, c)
  return check.between(name, y, lo - JUMP_TOL, hi + JUMP_TOL)
end

-- drive and record ---------------------------------------------------------------------------------
h.start()
local start_pos = pos()
h.run_frames(30)
local idle = delta(start_pos, pos())

local walk = {}
walk.W = hold({KEY_W}, 60)
walk.S = hold({KEY_S}, 30)
walk.UP = hold({KEY_UP}, 30)
walk.DOWN = hold({KEY_DOWN}, 60)
walk.D = hold({KEY_D}, 60)
walk.A = hold({KEY_A}, 30)
walk.RIGHT = hold({KEY_RIGHT}, 30)
walk.LEFT = hold({KEY_LEFT}, 60)

local jump_start = pos()
local single = jump_trace(60)
local jump_end = pos()
h.run_frames(30)

local double = jump_trace(60, {[18] = function() h.key_down(KEY_SPACE) end,
                               [19] = function() h.key_up(KEY_SPACE) end})
h.run_frames(30)
local again = jump_trace(24)
h.run_frames(60)

-- walking during a jump: hold D, press SPACE, keep D for 0.5 s
local air_before = pos()
h.key_down(KEY_D)
h.run_frames(1)
local air = jump_trace(29)
h.key_up(KEY_D)
h.run_frames(1)
local air_delta = delta(air_before, pos())
h.run_frames(60)
local back = hold({KEY_A}, 30)

-- richness drives
local diagonal = hold({KEY_W, KEY_D}, 60)
hold({KEY_S, KEY_A}, 60)
local both_forward = hold({KEY_W, KEY_UP}, 30)
hold({KEY_S}, 30)

-- the four corners of the arena, reached exactly (no reliance on the clamp)
local corners = {}
local function at_corner(label)
  local p = player()
  local cam_node = h.find("Camera")
  local cam = cam_node and cam_node:component("Camera")
  local c = {label = label}
  if p and cam then
    local wp, eye, dir = p.world_position, cam_node.world_position, cam_node.direction
    c.depth = (wp.x - eye.x) * dir.x + (wp.y - eye.y) * dir.y + (wp.z - eye.z) * dir.z
    local s = harness.world_to_screen(cam, Vector3(wp.x, wp.y, wp.z))
    c.x, c.y, c.near, c.far = s.x, s.y, cam:get("NearClip"), cam:get("FarClip")
  end
  corners[#corners + 1] = c
end
hold({KEY_D}, 150); hold({KEY_W}, 150); at_corner("first corner")
hold({KEY_A}, 300); at_corner("second corner")
hold({KEY_S}, 300); at_corner("third corner")
hold({KEY_D}, 300); at_corner("fourth corner")
hold({KEY_A}, 150); hold({KEY_W}, 150)

-- the arena clamp, last (a game without it ends up far away)
local clamp = {}
local function clamp_leg(key, away, frames)
  hold({key}, frames)
  local at_wall = pos()
  local back_delta = hold({away}, 60)
  return at_wall, back_delta
end
clamp.x_wall, clamp.x_back = clamp_leg(KEY_D, KEY_A, 300)    -- 20 units of input towards +X from |x| <= 0.07
clamp.z_wall, clamp.z_back = clamp_leg(KEY_W, KEY_S, 300)
clamp.nx_wall, clamp.nx_back = clamp_leg(KEY_LEFT, KEY_RIGHT, 480)
clamp.nz_wall, clamp.nz_back = clamp_leg(KEY_DOWN, KEY_UP, 480)

-- requirements -------------------------------------------------------------------------------------
requirement("R1", function(check)
  local has_octree = false
  for _, s in ipairs(h.scenes()) do if s:component("Octree") then has_octree = true end end
  check.truthy("a scene has an Octree component", has_octree)
  local cam = h.find("Camera")
  check.truthy("a node named Camera with a Camera component", cam and cam:component("Camera"))
  check.equal("exactly one node named Player", #h.find_all("Player"), 1)
  local sm = player() and player():component("StaticModel")
  local model = sm and sm:get("Model")
  check.equal("Player's model", model and model:GetName(), "Models/Box.mdl")
  check.near("Player starts at the origin", start_pos, {x = 0, y = 0, z = 0}, 1e-6)
  check.near("without input the player stays still", idle, {x = 0, y = 0, z = 0}, 1e-6)
end)

local function leg(check, name, d, expected)
  check.near(fmt("%s moves the player by (%g, %g, %g)", name, expected.x, expected.y, expected.z), d, expected,
    WALK_TOL)
end

requirement("R2", function(check)
  leg(check, "W held 1 s", walk.W, {x = 0, y = 0, z = 4})
  leg(check, "S held 0.5 s", walk.S, {x = 0, y = 0, z = -2})
  leg(check, "UP held 0.5 s", walk.UP, {x = 0, y = 0, z = 2})
  leg(check, "DOWN held 1 s", walk.DOWN, {x = 0, y = 0, z = -4})
end)

requirement("R3", function(check)
  leg(check, "D held 1 s", walk.D, {x = 4, y = 0, z = 0})
  leg(check, "A held 0.5 s", walk.A, {x = -2, y = 0, z = 0})
  leg(check, "RIGHT held 0.5 s", walk.RIGHT, {x = 2, y = 0, z = 0})
  leg(check, "LEFT held 1 s", walk.LEFT, {x = -4, y = 0, z = 0})
end)

requirement("R4", function(check)
  local function wall(name, p, axis, back)
    check.near(name .. ": |" .. axis .. "| stops at 10", p and abs(p[axis]), 10, WALK_TOL)
    check.near(name .. ": 1 s back from the edge moves 4 units", back and abs(back[axis]), 4, WALK_TOL)
  end
  wall("+X edge", clamp.x_wall, "x", clamp.x_back)
  wall("+Z edge", clamp.z_wall, "z", clamp.z_back)
  wall("-X edge", clamp.nx_wall, "x", clamp.nx_back)
  wall("-Z edge", clamp.nz_wall, "z", clamp.nz_back)
end)

requirement("R5", function(check)
  check.near("the player is on the ground before the jump", jump_start and jump_start.y, 0, 1e-9)
  local apex, apex_k, lowest = -1, nil, 0
  for k = 0, 60 do
    local y = single[k]
    if y == nil then check.fail("player exists during the jump"); return end
    if y > apex then apex, apex_k = y, k end
    if y < lowest then lowest = y end
  end
  for _, k in ipairs({6, 12, 24, 36, 42}) do
    on_curve(check, fmt("y at τ = %.2f s", k / FPS), single[k], k)
  end
  check.near("apex height", apex, 1.0, 0.05)
  check.near("apex time (s)", apex_k / FPS, 0.4, 0.05)
  check.greater("never below the ground (lowest y)", lowest, -1e-9)
  for _, k in ipairs({54, 57, 60}) do
    check.near(fmt("landed: y at τ = %.2f s", k / FPS), single[k], 0, 1e-9)
  end
  check.near("a jump does not move the player horizontally", jump_start and jump_end and
    {x = jump_end.x - jump_start.x, y = 0, z = jump_end.z - jump_start.z}, {x = 0, y = 0, z = 0}, 1e-9)
end)

requirement("R6", function(check)
  for _, k in ipairs({24, 30, 42}) do
    on_curve(check, fmt("second SPACE at τ = 0.3 s ignored: y at τ = %.2f s", k / FPS), double[k], k)
  end
  check.near("landed at τ = 0.9 s despite the second SPACE", double[54], 0, 1e-9)
  check.near("a new jump after landing rises to the apex", again[24], 1.0, JUMP_TOL)
end)

requirement("R7", function(check)
  on_curve(check, "y 0.25 s into a jump while D is held", air[15], 15)
  check.near("D held 31 frames through a jump moves 31 * 4 / 60 in x", air_delta and air_delta.x, 31 * 4 / FPS,
    WALK_TOL)
  check.near("walking back afterwards", back and back.x, -2, WALK_TOL)
end)

-- richness
requirement("R8", function(check)
  local d = diagonal
  check.near("distance covered by W+D in 1 s", d and sqrt(d.x * d.x + d.z * d.z), 4, WALK_TOL)
end)

requirement("R9", function(check)
  check.near("distance covered by W+UP in 0.5 s", both_forward and abs(both_forward.z), 2, WALK_TOL)
end)

requirement("R10", function(check)
  for _, c in ipairs(corners) do
    if c.depth == nil then
      check.fail(c.label .. " on screen", "no Player or no Camera node with a Camera component")
    else
      check.between(c.label .. ": in front of the camera, inside its clip range", c.depth, c.near, c.far)
      check.between(c.label .. ": screen x", c.x, 0.02, 0.98)
      check.between(c.label .. ": screen y", c.y, 0.02, 0.98)
    end
  end
end)
