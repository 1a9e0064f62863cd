-- Kinematic characters: Urho3D's KinematicCharacterController and UrhoX's CharacterComponent, both over Bullet's
-- btKinematicCharacterController (engine/_bullet_character.py), which runs after each step.  The character's shape
-- is its node's CollisionShape (its offset kept apart, as Urho3D's controller does); after each step the node is
-- put at the controller's position (PhysicsPostStep).  CharacterComponent is UrhoX's and undocumented: what it
-- does here is what its declaration implies (docs/physics.md, "CharacterComponent").
local type, ipairs = type, ipairs
local mfloor, sformat, sqrt, atan, rad, deg = math.floor, string.format, math.sqrt, math.atan, math.rad, math.deg
local comp_rec = E.comp_rec
local FACTORIES = E.COMPONENT_FACTORIES
local B = E.host.bullet
local call = E.host_call
local v3 = E.Vector3_new
local NM = E.IMPL.Node.methods
local SHAPE_STATICPLANE, SHAPE_TRIANGLEMESH, SHAPE_TERRAIN = 2, 6, 8

local function num(v, what, i)
  if type(v) ~= "number" then
    E.raise_at_game(sformat("bad argument #%d to '%s' (number expected, got %s)", i, what, type(v)))
  end
  return v
end
local function vec(v, what, i)
  if type(v) ~= "table" or type(v.x) ~= "number" or type(v.y) ~= "number" or type(v.z) ~= "number" then
    E.raise_at_game(sformat("bad argument #%d to '%s' (Vector3 expected, got %s)", i, what, type(v)))
  end
  return v
end

local function shape_of(node, what)
  for _, s in ipairs(node.components) do
    if s.type_name == "CollisionShape" and s.shape_type ~= nil then return s end
  end
  E.raise_at_game(sformat("%s needs a CollisionShape on its node (created before it)", what))
end

-- The controller's ghost, made when the component joins a scene that has a PhysicsWorld (Urho3D's OnSceneSet)
local function add_to_world(c, scene, what)
  local w = E.physics3d_world_of_scene(scene, false)
  if w == nil then return end
  local node = c.node
  local s = shape_of(node, what)
  local t = s.shape_type
  if t == SHAPE_STATICPLANE or t == SHAPE_TRIANGLEMESH or t == SHAPE_TERRAIN then
    E.raise_at_game(sformat("%s needs a convex CollisionShape", what))
  end
  local wid = E.physics3d_flush_world_id(w)
  w.next_character = (w.next_character or 0) + 1
  c.world, c.kid = w, w.next_character
  c.offset = {s.pos[1], s.pos[2], s.pos[3]}
  local sx, sy, sz = E.world_scale(node)
  local m = E.world(node)
  local row = E.physics3d_shape_row(s, sx, sy, sz, true)
  if row == nil then E.raise_at_game(sformat("%s needs a CollisionShape with a shape", what)) end
  call(B.character_init, wid, c.kid, row, m.m03, m.m13, m.m23, m.ww, m.wx, m.wy, m.wz, c.layer, c.mask)
  for _, key in ipairs({"step_height", "max_jump_height", "fall_speed", "jump_speed", "max_slope", "linear_damping",
                        "angular_damping"}) do
    call(B.character_set, wid, c.kid, key, c[key])
  end
  call(B.character_set, wid, c.kid, "gravity", c.gravity[1], c.gravity[2], c.gravity[3])
  E.subscribe(c.receiver, nil, w.proxy, "PhysicsPostStep", function(_, data)
    if c.post_step then c.post_step(c, data.TimeStep:GetFloat()) end
  end)
  if c.pre_step then
    E.subscribe(c.receiver, nil, w.proxy, "PhysicsPreStep", function(_, data) c.pre_step(c, data.TimeStep:GetFloat()) end)
  end
end

local function remove_from_world(c)
  E.unsubscribe_all(c.receiver)
  if c.kid and c.world and c.world.wid then call(B.character_free, c.world.wid, c.kid) end
  c.kid, c.world = nil, nil
end

-- the controller's world id, or a clear error (Urho3D would crash without its controller)
local function ctrl(c, what)
  if c.kid == nil or c.world == nil or c.world.wid == nil then
    E.raise_at_game(sformat("%s: no controller (the scene had no PhysicsWorld when the component was added)", what))
  end
  return c.world.wid
end

local function position(c)
  local x, y, z = call(B.character_get, c.world.wid, c.kid, "position")
  local o = c.offset
  return x - o[1], y - o[2], z - o[3]
end

-- after each step: the node where the controller is
local function sync_node(c)
  if c.kid == nil or c.node == nil or c.node.removed then return end
  NM.SetWorldPosition(c.node.proxy, v3(position(c)))
end

local function base_factory(c)
  c.layer, c.mask = 1, 0xffff
  c.gravity = {0.0, -14.0, 0.0}
  c.step_height, c.max_jump_height, c.fall_speed, c.jump_speed = 0.4, 2.0, 55.0, 9.0
  c.max_slope, c.linear_damping, c.angular_damping = 45.0, 0.2, 0.2
  c.receiver = {}
  c.on_removed = remove_from_world
  c.on_scene_removed = remove_from_world
  c.on_set_enabled = function(x)
    if x.kid and x.world and x.world.wid then
      call(B.character_set, x.world.wid, x.kid, "enabled", (x.enabled and x.node and x.node.enabled) and 1 or 0)
    end
  end
end

----------------------------------------------------------------------------------------------------
-- KinematicCharacterController (Urho3D's, with its defaults: gravity (0, -14, 0), step 0.4, jump speed 9, fall
-- speed 55, slope 45 degrees, damping 0.2, layer 1, mask 0xffff)
----------------------------------------------------------------------------------------------------
FACTORIES.KinematicCharacterController = function(c)
  base_factory(c)
  c.on_scene_set = function(x, scene) add_to_world(x, scene, "KinematicCharacterController") end
  c.post_step = sync_node
end

do
  local M = class("KinematicCharacterController").methods
  local function rec(self) return comp_rec(self) end
  local function setting(key, setter, getter, convert)
    M[setter] = function(self, v)
      local c = rec(self)
      c[key] = num(v, setter, 1)
      if c.kid then call(B.character_set, ctrl(c, setter), c.kid, key, convert and convert(c[key]) or c[key]) end
    end
    M[getter] = function(self) return rec(self)[key] end
  end
  setting("step_height", "SetStepHeight", "GetStepHeight")
  setting("max_jump_height", "SetMaxJumpHeight", "GetMaxJumpHeight")
  setting("fall_speed", "SetFallSpeed", "GetFallSpeed")
  setting("jump_speed", "SetJumpSpeed", "GetJumpSpeed")
  setting("max_slope", "SetMaxSlope", "GetMaxSlope")
  setting("linear_damping", "SetLinearDamping", "GetLinearDamping")
  setting("angular_damping", "SetAngularDamping", "GetAngularDamping")
  local function filter(self, layer, mask, what)
    local c = rec(self)
    c.layer, c.mask = mfloor(layer) & 0xffffffff, mfloor(mask) & 0xffffffff
    if c.kid then
      local wid = ctrl(c, what)
      call(B.character_set, wid, c.kid, "layer", c.layer)
      call(B.character_set, wid, c.kid, "mask", c.mask)
    end
  end
  M.SetCollisionLayer = function(self, v) filter(self, num(v, "SetCollisionLayer", 1), rec(self).mask, "SetCollisionLayer") end
  M.SetCollisionMask = function(self, v) filter(self, rec(self).layer, num(v, "SetCollisionMask", 1), "SetCollisionMask") end
  M.SetCollisionLayerAndMask = function(self, l, m)
    filter(self, num(l, "SetCollisionLayerAndMask", 1), num(m, "SetCollisionLayerAndMask", 2), "SetCollisionLayerAndMask")
  end
  M.GetCollisionLayer = function(self) return rec(self).layer end
  M.GetCollisionMask = function(self) return rec(self).mask end
  M.SetGravity = function(self, g)
    local c = rec(self)
    vec(g, "SetGravity", 1)
    c.gravity = {g.x, g.y, g.z}
    if c.kid then call(B.character_set, ctrl(c, "SetGravity"), c.kid, "gravity", g.x, g.y, g.z) end
  end
  M.GetGravity = function(self) local g = rec(self).gravity; return v3(g[1], g[2], g[3]) end
  M.GetPhysicsWorld = function(self) local w = rec(self).world; return w and w.proxy end
  M.OnGround = function(self)
    local c = rec(self)
    return call(B.character_get, ctrl(c, "OnGround"), c.kid, "on_ground")
  end
  M.CanJump = M.OnGround
  M.Jump = function(self, v)
    local c = rec(self)
    local wid = ctrl(c, "Jump")
    if v == nil then call(B.character_jump, wid, c.kid, 0, 0, 0) else vec(v, "Jump", 1); call(B.character_jump, wid, c.kid, v.x, v.y, v.z) end
  end
  M.ApplyImpulse = function(self, v)   -- Bullet's applyImpulse is a jump along the impulse
    local c = rec(self)
    vec(v, "ApplyImpulse", 1)
    call(B.character_jump, ctrl(c, "ApplyImpulse"), c.kid, v.x, v.y, v.z)
  end
  M.SetWalkDirection = function(self, v)
    local c = rec(self)
    vec(v, "SetWalkDirection", 1)
    call(B.character_set, ctrl(c, "SetWalkDirection"), c.kid, "walk", v.x, v.y, v.z)
  end
  M.SetLinearVelocity = function(self, v)
    local c = rec(self)
    vec(v, "SetLinearVelocity", 1)
    call(B.character_set, ctrl(c, "SetLinearVelocity"), c.kid, "linear_velocity", v.x, v.y, v.z)
  end
  M.GetLinearVelocity = function(self)
    local c = rec(self)
    return v3(call(B.character_get, ctrl(c, "GetLinearVelocity"), c.kid, "linear_velocity"))
  end
  M.SetAngularVelocity = function(self, v)
    local c = rec(self)
    vec(v, "SetAngularVelocity", 1)
    call(B.character_set, ctrl(c, "SetAngularVelocity"), c.kid, "angular_velocity", v.x, v.y, v.z)
  end
  M.GetAngularVelocity = function(self)
    local c = rec(self)
    return v3(call(B.character_get, ctrl(c, "GetAngularVelocity"), c.kid, "angular_velocity"))
  end
  M.Warp = function(self, p)
    local c = rec(self)
    vec(p, "Warp", 1)
    call(B.character_place, ctrl(c, "Warp"), c.kid, true, p.x, p.y, p.z)
  end
end

----------------------------------------------------------------------------------------------------
-- CharacterComponent (UrhoX): the same controller driven by its `controls` each step.  Buttons as Urho3D's
-- character samples define them (1 forward, 2 back, 4 left, 8 right, 16 jump) and 32 run, UrhoX's CTRL_* globals;
-- `controls.yaw` turns the moves (degrees about Y).  walkSpeed and runSpeed are distances per physics step, as
-- Bullet's walk direction takes them (TapTap's shooter example sets 0.025 and 0.1 and blends its animations at
-- moveSpeed 1.5 and 6 m/s, at 60 steps a second); with enableWalkMode the character walks unless run is held, else
-- it always runs.  In the air it keeps its speed, steering towards the input by airControlFactor per step up to
-- airSpeedRatio x that speed, slowed by airFriction per second.  autoRotateToMoveDir turns the node's yaw towards
-- the move at rotationSpeed degrees per second.  moveSpeed (m/s), localVelocityX/Y (right, forward in the node's
-- frame), smoothMoveSpeed (moveSpeed smoothed over a tenth of a second) and moveDirection (degrees, the move's angle
-- from the node's forward) describe the last step's horizontal motion.
----------------------------------------------------------------------------------------------------
local CTRL_FORWARD, CTRL_BACK, CTRL_LEFT, CTRL_RIGHT, CTRL_JUMP, CTRL_RUN = 1, 2, 4, 8, 16, 32
local MOVING_SPEED = 0.1
-- the default speeds (UrhoX's WALK_SPEED and RUN_SPEED globals, engine/api/physics.api): per step, as TapTap's
-- example sets them (1.5 and 6 m/s at 60 steps a second)
local WALK_SPEED, RUN_SPEED = 0.025, 0.1

local function char_pre_step(c, dt)
  if c.kid == nil or not (c.enabled and c.node and c.node.enabled) then return end
  local wid = c.world.wid
  local ctl = c.controls
  local b = ctl.buttons
  local buttons = (type(b) == "number" and b >= 0 and b < 2 ^ 53) and mfloor(b) or 0   -- a junk value: none
  local fwd = ((buttons & CTRL_FORWARD) ~= 0 and 1 or 0) - ((buttons & CTRL_BACK) ~= 0 and 1 or 0)
  local right = ((buttons & CTRL_RIGHT) ~= 0 and 1 or 0) - ((buttons & CTRL_LEFT) ~= 0 and 1 or 0)
  local yaw = rad(type(ctl.yaw) == "number" and ctl.yaw or 0.0)
  -- the input turned by yaw about Y (Urho3D's left-handed rotation: +Z forward, +X right)
  local dx, dz = right * math.cos(yaw) + fwd * math.sin(yaw), fwd * math.cos(yaw) - right * math.sin(yaw)
  local len = sqrt(dx * dx + dz * dz)
  if len > 0 then dx, dz = dx / len, dz / len end
  c.input_dir = len > 0 and {dx, dz} or nil
  local running = not c.walk_mode or (buttons & CTRL_RUN) ~= 0
  local speed = (running and c.run_speed or c.walk_speed) / dt   -- a distance per step, as m/s
  local grounded = call(B.character_get, wid, c.kid, "on_ground")
  local vx, vz = c.vel[1], c.vel[2]
  if grounded then
    vx, vz = dx * speed, dz * speed
  else
    if len > 0 then
      local f = c.air_control
      vx, vz = vx + (dx * speed * c.air_speed_ratio - vx) * f, vz + (dz * speed * c.air_speed_ratio - vz) * f
    end
    local keep = 1.0 - c.air_friction * dt
    if keep < 0 then keep = 0 end
    vx, vz = vx * keep, vz * keep
  end
  c.vel = {vx, vz}
  call(B.character_set, wid, c.kid, "walk", vx * dt, 0.0, vz * dt)
  c.jump_started = false
  local jump_down = (buttons & CTRL_JUMP) ~= 0
  if jump_down and not c.jump_held and grounded then
    call(B.character_jump, wid, c.kid, 0, 0, 0)
    c.jump_started, c.jumping = true, true
  end
  c.jump_held = jump_down
end

local function char_post_step(c, dt)
  if c.kid == nil or c.node == nil or c.node.removed then return end
  local before = E.world(c.node)
  local bx, bz = before.m03, before.m23
  sync_node(c)
  local grounded = call(B.character_get, c.world.wid, c.kid, "on_ground")
  if grounded and not c.jump_started then c.jumping = false end
  local after = E.world(c.node)
  local vx, vz = (after.m03 - bx) / dt, (after.m23 - bz) / dt
  c.move_speed = sqrt(vx * vx + vz * vz)
  local k = dt / 0.1
  if k > 1 then k = 1 end
  c.smooth_speed = c.smooth_speed + (c.move_speed - c.smooth_speed) * k
  local node = c.node
  if c.auto_rotate and c.input_dir then
    local want = deg(atan(c.input_dir[1], c.input_dir[2]))
    local have = NM.GetWorldRotation(node.proxy):YawAngle()
    local diff = (want - have + 180) % 360 - 180
    local most = c.rotation_speed * dt
    if diff > most then diff = most elseif diff < -most then diff = -most end
    NM.SetWorldRotation(node.proxy, E.IMPL.Quaternion.new(have + diff, v3(0, 1, 0)))
  end
  local r = NM.GetWorldRotation(node.proxy)
  local fwd, side = r * v3(0, 0, 1), r * v3(1, 0, 0)
  c.local_x, c.local_y = vx * side.x + vz * side.z, vx * fwd.x + vz * fwd.z
  c.move_direction = c.move_speed > MOVING_SPEED and deg(atan(c.local_x, c.local_y)) or 0.0
end

FACTORIES.CharacterComponent = function(c)
  base_factory(c)
  c.linear_damping = 0.0   -- the component sets its speed each step
  c.controls = E.Controls_new()
  c.rotation_speed, c.auto_rotate = 720.0, true
  c.air_control, c.air_friction, c.air_speed_ratio = 0.1, 0.0, 1.0
  c.walk_speed, c.run_speed, c.walk_mode = WALK_SPEED, RUN_SPEED, false
  c.vel, c.move_speed, c.smooth_speed, c.local_x, c.local_y, c.move_direction = {0.0, 0.0}, 0.0, 0.0, 0.0, 0.0, 0.0
  c.jumping, c.jump_started, c.jump_held = false, false, false
  c.pre_step, c.post_step = char_pre_step, char_post_step
  c.on_scene_set = function(x, scene) add_to_world(x, scene, "CharacterComponent") end
end

local CM = class("CharacterComponent").methods
local function crec(self) return comp_rec(self) end
local function plain(key, setter, getter, kind)
  if setter then
    CM[setter] = function(self, v)
      if kind == "boolean" then crec(self)[key] = v and true or false else crec(self)[key] = num(v, setter, 1) end
    end
  end
  CM[getter] = function(self) return crec(self)[key] end
end
plain("rotation_speed", "SetRotationSpeed", "GetRotationSpeed")
plain("auto_rotate", "SetAutoRotateToMoveDir", "GetAutoRotateToMoveDir", "boolean")
plain("air_control", "SetAirControlFactor", "GetAirControlFactor")
plain("air_friction", "SetAirFriction", "GetAirFriction")
plain("air_speed_ratio", "SetAirSpeedRatio", "GetAirSpeedRatio")
plain("walk_speed", "SetWalkSpeed", "GetWalkSpeed")
plain("run_speed", "SetRunSpeed", "GetRunSpeed")
plain("walk_mode", "SetEnableWalkMode", "GetEnableWalkMode", "boolean")
plain("move_speed", nil, "GetMoveSpeed")
plain("smooth_speed", nil, "GetSmoothMoveSpeed")
plain("local_x", nil, "GetLocalVelocityX")
plain("local_y", nil, "GetLocalVelocityY")
plain("move_direction", nil, "GetMoveDirection")
plain("jumping", nil, "IsJumping")
plain("jump_started", nil, "IsJumpStarted")
plain("controls", nil, "GetControls")
CM.IsMoving = function(self) return crec(self).move_speed > MOVING_SPEED end
CM.IsOnGround = function(self)
  local c = crec(self)
  if c.kid == nil or c.world == nil or c.world.wid == nil then return false end
  return call(B.character_get, c.world.wid, c.kid, "on_ground")
end
