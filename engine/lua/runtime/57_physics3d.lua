-- 3D physics: Urho3D's PhysicsWorld, RigidBody and CollisionShape over Bullet (engine/_bullet.py, pybullet).
-- Semantics follow Urho3D 1.8 (docs/physics.md): a fixed sub-step (fps, default 60) on SceneSubsystemUpdate with
-- Bullet's accumulator and interpolation, PhysicsPreStep/PhysicsPostStep around each sub-step, collision events
-- after each sub-step in Urho3D's order, dynamic bodies writing their node after each sub-step, a node moved by
-- the game teleporting its body.  Lua keeps the component state; Bullet is told lazily (before a step or a query),
-- so a body set up over several calls is built once.
local error, type, ipairs, setmetatable, tostring = error, type, ipairs, setmetatable, tostring
local mfloor, mmin, mmax, sqrt = math.floor, math.min, math.max, math.sqrt
local sunpack, sformat = string.unpack, string.format
local REC, comp_rec, node_rec = E.REC, E.comp_rec, E.node_rec
local FACTORIES = E.COMPONENT_FACTORIES
local B = E.host.bullet
local host_call = E.host_call
local v3 = E.Vector3_new
local function quat(w, x, y, z) return E.Quaternion_new(w, x, y, z) end

local SHAPE_BOX, SHAPE_SPHERE, SHAPE_STATICPLANE, SHAPE_CYLINDER, SHAPE_CAPSULE, SHAPE_CONE = 0, 1, 2, 3, 4, 5
local SHAPE_TRIANGLEMESH, SHAPE_CONVEXHULL, SHAPE_TERRAIN = 6, 7, 8
local COLLISION_NEVER, COLLISION_ACTIVE = 0, 1
local M_MAX_UNSIGNED = 4294967295
local DEFAULT_GRAVITY = {0.0, -9.81, 0.0}
local DEFAULT_MARGIN = 0.04

local function num(v, what, i)
  if type(v) ~= "number" then E.raise_at_game(sformat("bad argument #%d to '%s' (number expected, got %s)", i, what,
    type(v))) end
  return v
end
local function vec(v, what, i)
  if type(v) ~= "table" or type(v.x) ~= "number" or type(v.y) ~= "number" or type(v.z) ~= "number" then
    E.raise_at_game(sformat("bad argument #%d to '%s' (Vector3 expected, got %s)", i, what, type(v)))
  end
  return v
end

----------------------------------------------------------------------------------------------------
-- PhysicsWorld
----------------------------------------------------------------------------------------------------
local worlds_of = setmetatable({}, {__mode = "k"})   -- scene record -> list of world records

local function call(fn, ...) return host_call(fn, ...) end

local function push_world_settings(w)
  if w.wid then call(B.world_set, w.wid, w.gx, w.gy, w.gz, w.fps, w.iterations, w.split) end
end
local function ensure_world(w)
  if w.wid == nil then
    w.wid = call(B.world_new)
    push_world_settings(w)
  end
  return w.wid
end

FACTORIES.PhysicsWorld = function(c)
  c.gx, c.gy, c.gz = DEFAULT_GRAVITY[1], DEFAULT_GRAVITY[2], DEFAULT_GRAVITY[3]
  c.fps, c.max_substeps, c.iterations = 60, 0, 10
  c.interpolation, c.update_enabled, c.split, c.internal_edge = true, true, false, true
  c.max_net_angular = 100.0
  c.acc = 0.0
  c.bodies, c.by_handle, c.node_of, c.next_handle = {}, {}, {}, 1   -- node_of: each body's node record (sync)
  c.constraints, c.next_joint = {}, 1
  c.prev, c.prev_order, c.cur, c.cur_order = {}, {}, {}, {}
  c.frame_contacts = {}   -- body handle -> set of other handles touched this frame (batteries read it)
  c.is_physics_world = true
  c.on_scene_set = function(x, scene)
    local list = worlds_of[scene]
    if list == nil then list = {}; worlds_of[scene] = list end
    list[#list + 1] = x
  end
  c.on_removed = function(x)
    local scene = x.node and x.node.scene
    local list = scene and worlds_of[scene]
    if list then for i, y in ipairs(list) do if y == x then table.remove(list, i); break end end end
    if x.wid then call(B.world_free, x.wid); x.wid = nil end
    for _, b in ipairs(x.bodies) do b.world, b.handle, b.built = nil, nil, false end
    x.bodies, x.by_handle, x.node_of, x.leaves = {}, {}, {}, nil
  end
end

local function world_of_scene(scene, create)
  if scene == nil then return nil end
  local list = worlds_of[scene]
  if list and list[1] then return list[1] end
  if not create then return nil end
  -- RigidBody and CollisionShape create the scene's PhysicsWorld when it has none, as Urho3D does
  local proxy = E.create_component(scene, "PhysicsWorld", 0)
  return proxy and REC[proxy]
end

local W = class("PhysicsWorld").methods
local function wrec(self) return comp_rec(self) end
W.SetGravity = function(self, g)
  local w = wrec(self)
  vec(g, "SetGravity", 1)
  w.gx, w.gy, w.gz = g.x, g.y, g.z
  push_world_settings(w)
end
W.GetGravity = function(self) local w = wrec(self); return v3(w.gx, w.gy, w.gz) end
W.SetFps = function(self, fps)
  local w = wrec(self)
  w.fps = mmax(1, mmin(1000, mfloor(num(fps, "SetFps", 1))))
  push_world_settings(w)
end
W.GetFps = function(self) return wrec(self).fps end
W.SetMaxSubSteps = function(self, n) wrec(self).max_substeps = mfloor(num(n, "SetMaxSubSteps", 1)) end
W.GetMaxSubSteps = function(self) return wrec(self).max_substeps end
W.SetNumIterations = function(self, n)
  local w = wrec(self)
  w.iterations = mmax(1, mmin(10000, mfloor(num(n, "SetNumIterations", 1))))
  push_world_settings(w)
end
W.GetNumIterations = function(self) return wrec(self).iterations end
W.SetUpdateEnabled = function(self, v) wrec(self).update_enabled = v and true or false end
W.IsUpdateEnabled = function(self) return wrec(self).update_enabled end
W.SetInterpolation = function(self, v) wrec(self).interpolation = v and true or false end
W.GetInterpolation = function(self) return wrec(self).interpolation end
W.SetInternalEdge = function(self, v) wrec(self).internal_edge = v and true or false end
W.GetInternalEdge = function(self) return wrec(self).internal_edge end
W.SetSplitImpulse = function(self, v)
  local w = wrec(self)
  w.split = v and true or false
  push_world_settings(w)
end
W.GetSplitImpulse = function(self) return wrec(self).split end
W.SetMaxNetworkAngularVelocity = function(self, v)
  wrec(self).max_net_angular = mmax(1.0, mmin(32767.0, num(v, "SetMaxNetworkAngularVelocity", 1)))
end
W.GetMaxNetworkAngularVelocity = function(self) return wrec(self).max_net_angular end
W.DrawDebugGeometry = function() end
W.RemoveCachedGeometry = function() end

----------------------------------------------------------------------------------------------------
-- RigidBody
----------------------------------------------------------------------------------------------------
local function body_node_transform(c)
  local r = E.world(c.node)
  local sx, sy, sz = E.world_scale(c.node)
  return r.m03, r.m13, r.m23, r.ww, r.wx, r.wy, r.wz, sx, sy, sz
end

-- A CollisionShape as the Bullet host builds it (engine/_bullet.py, body_build): its kind, size and offset scaled by
-- the node's world scale (sx, sy, sz), as Urho3D's CollisionShape scales them, its offset rotation (w x y z) and
-- margin; then a triangle mesh's triangles or a convex hull's points (packed floats, in hex) and their count, or a
-- terrain's heights (packed floats, in hex) and their counts along x and z.  With `at_origin` the offset is left out
-- (a cast or a character places the shape itself).  Nil for a shape with nothing to build yet (a terrain without
-- heights, a mesh whose model had no usable geometry).
local abs = math.abs
local function shape_row(s, sx, sy, sz, at_origin)
  local t = s.bullet_kind or s.shape_type
  local q = s.rot
  local px, py, pz = s.pos[1], s.pos[2], s.pos[3]
  local ax, ay, az = s.size[1] * sx, s.size[2] * sy, s.size[3] * sz
  local g = s.geom
  local extra
  if t == SHAPE_TERRAIN then
    if g == nil then return nil end
    -- Bullet centres a heightfield's heights on its origin; Urho3D moves the shape back up by their middle
    py = py + (g.min + g.max) * 0.5
    ax, ay, az = abs(ax) * g.spacing[1], abs(ay), abs(az) * g.spacing[3]
    extra = {g.hex, g.nx, g.nz}
  elseif t == SHAPE_TRIANGLEMESH or t == SHAPE_CONVEXHULL then
    if g == nil or g.count == 0 then return nil end
    ax, ay, az = abs(ax), abs(ay), abs(az)
    extra = {g.hex, g.count}
  end
  local row
  if at_origin then row = {t, ax, ay, az, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, s.margin}
  else row = {t, ax, ay, az, px * sx, py * sy, pz * sz, q[1], q[2], q[3], q[4], s.margin} end
  if extra then for i, v in ipairs(extra) do row[12 + i] = v end end
  return row
end
E.physics3d_shape_row = shape_row

local function shapes_of(c)
  local out = {}
  local _, _, _, _, _, _, _, sx, sy, sz = body_node_transform(c)
  for _, s in ipairs(c.node.components) do
    if s.type_name == "CollisionShape" and s.enabled and s.shape_type ~= nil then
      out[#out + 1] = shape_row(s, sx, sy, sz, false)
    end
  end
  return out
end

local function mark(c, what)
  c[what] = true
  local w = c.world
  if w then w.pending = true end
end

local function flush_body(c)
  local w = c.world
  if w == nil or c.node == nil then return false end
  local wid = ensure_world(w)
  if c.need_build then
    c.need_build = false
    local px, py, pz, qw, qx, qy, qz, sx, sy, sz = body_node_transform(c)
    c.scale = {sx, sy, sz}
    local warning = call(B.body_build, wid, c.handle, c.mass, c.kinematic, c.trigger, px, py, pz, qw, qx, qy, qz,
      shapes_of(c))
    if warning then E.log("ERROR", warning) end
    c.built = true
    c.moved = false
    c.need_filter, c.need_material, c.need_factors, c.need_gravity = true, true, true, true
  end
  if c.moved then
    c.moved = false
    local px, py, pz, qw, qx, qy, qz, sx, sy, sz = body_node_transform(c)
    local s = c.scale
    if s and (s[1] ~= sx or s[2] ~= sy or s[3] ~= sz) then
      c.need_build = true
      return flush_body(c)
    end
    if c.kinematic then call(B.body_kinematic_target, wid, c.handle, px, py, pz, qw, qx, qy, qz)
    else call(B.body_set_transform, wid, c.handle, px, py, pz, qw, qx, qy, qz) end
  end
  if c.need_filter then
    c.need_filter = false
    call(B.body_filter, wid, c.handle, c.layer, c.mask, c.trigger)
  end
  if c.need_material then
    c.need_material = false
    call(B.body_material, wid, c.handle, c.friction, c.rolling, c.restitution, c.lin_damping, c.ang_damping,
      c.ccd_radius, c.ccd_motion)
  end
  if c.need_factors then
    c.need_factors = false
    local l, a = c.lin_factor, c.ang_factor
    call(B.body_factors, wid, c.handle, l[1], l[2], l[3], a[1], a[2], a[3])
  end
  if c.need_gravity then
    c.need_gravity = false
    local g = c.gravity_override
    local has = g[1] ~= 0 or g[2] ~= 0 or g[3] ~= 0
    call(B.body_gravity, wid, c.handle, c.use_gravity, has, g[1], g[2], g[3])
  end
  return true
end

local build_constraint   -- below
local function flush_world(w)
  if not w.pending then return end
  w.pending = false
  for _, c in ipairs(w.bodies) do
    if c.need_build or c.moved or c.need_filter or c.need_material or c.need_factors or c.need_gravity then
      flush_body(c)
    end
  end
  for _, k in ipairs(w.constraints) do
    if k.need_build then build_constraint(k) end
  end
end
E.physics3d_flush = flush_world

-- the body as Bullet knows it now (built and up to date), or nil when it is in no world
local function live(c)
  local w = c.world
  if w == nil then return nil end
  flush_world(w)
  if not c.built then return nil end
  return w.wid
end

-- For the other 3D physics components (57_physics3d_vehicle.lua): a body's live world id, the scene's world
E.physics3d_live = function(c) return live(c) end
E.physics3d_world_of_scene = function(scene, create) return world_of_scene(scene, create) end
E.physics3d_flush_world_id = function(w) local wid = ensure_world(w); flush_world(w); return wid end

local function join_world(c)
  local node = c.node
  local scene = node and node.scene
  if scene == nil or c.world ~= nil or not (c.enabled and node.enabled) then return end
  local w = world_of_scene(scene, true)
  if w == nil then return end
  c.world = w
  c.handle = w.next_handle
  w.next_handle = w.next_handle + 1
  w.by_handle[c.handle] = c
  w.node_of[c.handle] = c.node
  w.bodies[#w.bodies + 1] = c
  mark(c, "need_build")
end

local function leave_world(c)
  local w = c.world
  if w == nil then return end
  for _, k in ipairs(w.constraints) do
    if k.own_rec == c or k.other == c then k.need_build = true; w.pending = true end
  end
  if c.built and w.wid then call(B.body_free, w.wid, c.handle) end
  for i, x in ipairs(w.bodies) do if x == c then table.remove(w.bodies, i); break end end
  w.by_handle[c.handle] = nil
  w.node_of[c.handle] = nil
  if w.leaves then w.leaves[c.handle] = nil end
  c.world, c.built = nil, false
end

FACTORIES.RigidBody = function(c)
  c.mass, c.friction, c.rolling, c.restitution = 0.0, 0.5, 0.0, 0.0
  c.lin_damping, c.ang_damping = 0.0, 0.0
  c.lin_factor, c.ang_factor = {1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}
  c.lin_rest, c.ang_rest = 0.8, 1.0
  c.anisotropic = {1.0, 1.0, 1.0}
  c.contact_threshold = 1e18
  c.ccd_radius, c.ccd_motion = 0.0, 0.0
  c.use_gravity, c.gravity_override = true, {0.0, 0.0, 0.0}
  c.kinematic, c.trigger = false, false
  c.layer, c.mask, c.event_mode = 1, M_MAX_UNSIGNED, COLLISION_ACTIVE
  c.on_scene_set = function(x) join_world(x) end
  c.on_scene_removed = function(x) leave_world(x) end
  c.on_removed = function(x) leave_world(x) end
  c.on_set_enabled = function(x)
    if x.enabled and x.node and x.node.enabled then join_world(x) else leave_world(x) end
  end
  c.on_marked_dirty = function(x)
    local w = x.world
    if w and not w.applying then x.moved = true; w.pending = true end
  end
  c.clone_into = function(src, dst)
    for _, k in ipairs({"mass", "friction", "rolling", "restitution", "lin_damping", "ang_damping", "lin_rest",
                        "ang_rest", "contact_threshold", "ccd_radius", "ccd_motion", "use_gravity", "kinematic",
                        "trigger", "layer", "mask", "event_mode"}) do dst[k] = src[k] end
    for _, k in ipairs({"lin_factor", "ang_factor", "anisotropic", "gravity_override"}) do
      dst[k] = {src[k][1], src[k][2], src[k][3]}
    end
    if dst.world then mark(dst, "need_build") end
  end
end

local R = class("RigidBody").methods
local function brec(self) return comp_rec(self) end
local function v3t(t) return v3(t[1], t[2], t[3]) end

R.GetPhysicsWorld = function(self) local c = brec(self); return c.world and c.world.proxy end
R.SetMass = function(self, m)
  local c = brec(self)
  m = mmax(num(m, "SetMass", 1), 0.0)
  if m ~= c.mass then c.mass = m; mark(c, "need_build") end
end
R.GetMass = function(self) return brec(self).mass end
local function material_setter(key, name)
  return function(self, v)
    local c = brec(self)
    c[key] = num(v, name, 1)
    mark(c, "need_material")
  end
end
R.SetFriction = material_setter("friction", "SetFriction")
R.GetFriction = function(self) return brec(self).friction end
R.SetRollingFriction = material_setter("rolling", "SetRollingFriction")
R.GetRollingFriction = function(self) return brec(self).rolling end
R.SetRestitution = material_setter("restitution", "SetRestitution")
R.GetRestitution = function(self) return brec(self).restitution end
R.SetLinearDamping = material_setter("lin_damping", "SetLinearDamping")
R.GetLinearDamping = function(self) return brec(self).lin_damping end
R.SetAngularDamping = material_setter("ang_damping", "SetAngularDamping")
R.GetAngularDamping = function(self) return brec(self).ang_damping end
R.SetLinearFactor = function(self, v)
  local c = brec(self); vec(v, "SetLinearFactor", 1)
  c.lin_factor = {v.x, v.y, v.z}; mark(c, "need_factors")
end
R.GetLinearFactor = function(self) return v3t(brec(self).lin_factor) end
R.SetAngularFactor = function(self, v)
  local c = brec(self); vec(v, "SetAngularFactor", 1)
  c.ang_factor = {v.x, v.y, v.z}; mark(c, "need_factors")
end
R.GetAngularFactor = function(self) return v3t(brec(self).ang_factor) end
R.SetLinearRestThreshold = function(self, v) brec(self).lin_rest = num(v, "SetLinearRestThreshold", 1) end
R.GetLinearRestThreshold = function(self) return brec(self).lin_rest end
R.SetAngularRestThreshold = function(self, v) brec(self).ang_rest = num(v, "SetAngularRestThreshold", 1) end
R.GetAngularRestThreshold = function(self) return brec(self).ang_rest end
R.SetAnisotropicFriction = function(self, v) local c = brec(self); vec(v, "SetAnisotropicFriction", 1)
  c.anisotropic = {v.x, v.y, v.z} end
R.GetAnisotropicFriction = function(self) return v3t(brec(self).anisotropic) end
R.SetContactProcessingThreshold = function(self, v) brec(self).contact_threshold = num(v, "SetContactProcessingThreshold", 1) end
R.GetContactProcessingThreshold = function(self) return brec(self).contact_threshold end
R.SetCcdRadius = function(self, v)
  local c = brec(self); c.ccd_radius = mmax(num(v, "SetCcdRadius", 1), 0.0); mark(c, "need_material")
end
R.GetCcdRadius = function(self) return brec(self).ccd_radius end
R.SetCcdMotionThreshold = function(self, v)
  local c = brec(self); c.ccd_motion = mmax(num(v, "SetCcdMotionThreshold", 1), 0.0); mark(c, "need_material")
end
R.GetCcdMotionThreshold = function(self) return brec(self).ccd_motion end
R.SetUseGravity = function(self, v) local c = brec(self); c.use_gravity = v and true or false; mark(c, "need_gravity") end
R.GetUseGravity = function(self) return brec(self).use_gravity end
R.SetGravityOverride = function(self, v)
  local c = brec(self); vec(v, "SetGravityOverride", 1)
  c.gravity_override = {v.x, v.y, v.z}; mark(c, "need_gravity")
end
R.GetGravityOverride = function(self) return v3t(brec(self).gravity_override) end
R.SetKinematic = function(self, v)
  local c = brec(self)
  v = v and true or false
  if v ~= c.kinematic then c.kinematic = v; mark(c, "need_build") end
end
R.IsKinematic = function(self) return brec(self).kinematic end
R.SetTrigger = function(self, v)
  local c = brec(self)
  v = v and true or false
  if v ~= c.trigger then c.trigger = v; mark(c, "need_filter") end
end
R.IsTrigger = function(self) return brec(self).trigger end
R.SetCollisionLayer = function(self, v)
  local c = brec(self); c.layer = mfloor(num(v, "SetCollisionLayer", 1)) & 0xffffffff; mark(c, "need_filter")
end
R.GetCollisionLayer = function(self) return brec(self).layer end
R.SetCollisionMask = function(self, v)
  local c = brec(self); c.mask = mfloor(num(v, "SetCollisionMask", 1)) & 0xffffffff; mark(c, "need_filter")
end
R.GetCollisionMask = function(self) return brec(self).mask end
R.SetCollisionLayerAndMask = function(self, l, m) R.SetCollisionLayer(self, l); R.SetCollisionMask(self, m) end
R.SetCollisionEventMode = function(self, v) brec(self).event_mode = mfloor(num(v, "SetCollisionEventMode", 1)) end
R.GetCollisionEventMode = function(self) return brec(self).event_mode end
R.DisableMassUpdate = function() end
R.EnableMassUpdate = function() end
R.ReAddBodyToWorld = function(self) local c = brec(self); if c.world then mark(c, "need_build") end end

-- transforms: the body's, which is the node's unless the body moved since the node was written
R.GetPosition = function(self)
  local c = brec(self)
  local wid = live(c)
  if wid == nil then local r = E.world(c.node); return v3(r.m03, r.m13, r.m23) end
  local px, py, pz = call(B.body_transform, wid, c.handle)
  if px ~= px then local r = E.world(c.node); return v3(r.m03, r.m13, r.m23) end
  return v3(px, py, pz)
end
R.GetRotation = function(self)
  local c = brec(self)
  local wid = live(c)
  if wid == nil then local r = E.world(c.node); return quat(r.ww, r.wx, r.wy, r.wz) end
  local px, _, _, qw, qx, qy, qz = call(B.body_transform, wid, c.handle)
  if px ~= px then local r = E.world(c.node); return quat(r.ww, r.wx, r.wy, r.wz) end
  return quat(qw, qx, qy, qz)
end
R.SetPosition = function(self, p)
  local c = brec(self); vec(p, "SetPosition", 1)
  if c.node then E.IMPL.Node.methods.SetWorldPosition(c.node.proxy, p) end
end
R.SetRotation = function(self, q)
  local c = brec(self)
  if c.node then E.IMPL.Node.methods.SetWorldRotation(c.node.proxy, q) end
end
R.SetTransform = function(self, p, q) R.SetPosition(self, p); R.SetRotation(self, q) end
R.GetCenterOfMass = function(self) return v3(0, 0, 0) end

R.SetLinearVelocity = function(self, v)
  local c = brec(self); vec(v, "SetLinearVelocity", 1)
  local wid = live(c)
  if wid then call(B.body_set_velocity, wid, c.handle, false, v.x, v.y, v.z) end
end
R.SetAngularVelocity = function(self, v)
  local c = brec(self); vec(v, "SetAngularVelocity", 1)
  local wid = live(c)
  if wid then call(B.body_set_velocity, wid, c.handle, true, v.x, v.y, v.z) end
end
R.GetLinearVelocity = function(self)
  local c = brec(self)
  local wid = live(c)
  if wid == nil then return v3(0, 0, 0) end
  local x, y, z = call(B.body_velocity, wid, c.handle)
  return v3(x, y, z)
end
R.GetAngularVelocity = function(self)
  local c = brec(self)
  local wid = live(c)
  if wid == nil then return v3(0, 0, 0) end
  local _, _, _, x, y, z = call(B.body_velocity, wid, c.handle)
  return v3(x, y, z)
end
R.GetVelocityAtPoint = function(self, p)
  local c = brec(self); vec(p, "GetVelocityAtPoint", 1)
  local wid = live(c)
  if wid == nil then return v3(0, 0, 0) end
  local vx, vy, vz, wx, wy, wz = call(B.body_velocity, wid, c.handle)
  local px, py, pz = call(B.body_transform, wid, c.handle)
  local rx, ry, rz = p.x - px, p.y - py, p.z - pz
  return v3(vx + wy * rz - wz * ry, vy + wz * rx - wx * rz, vz + wx * ry - wy * rx)
end
-- Forces and impulses in world space; `position` is relative to the body's centre, as Urho3D's
R.ApplyForce = function(self, f, p)
  local c = brec(self); vec(f, "ApplyForce", 1)
  local wid = live(c)
  if wid == nil or (f.x == 0 and f.y == 0 and f.z == 0) then return end
  local tx, ty, tz = 0.0, 0.0, 0.0
  if p ~= nil then
    vec(p, "ApplyForce", 2)
    tx, ty, tz = p.y * f.z - p.z * f.y, p.z * f.x - p.x * f.z, p.x * f.y - p.y * f.x
  end
  call(B.body_add_force, wid, c.handle, f.x, f.y, f.z, tx, ty, tz)
end
R.ApplyTorque = function(self, t)
  local c = brec(self); vec(t, "ApplyTorque", 1)
  local wid = live(c)
  if wid == nil or (t.x == 0 and t.y == 0 and t.z == 0) then return end
  call(B.body_add_force, wid, c.handle, 0.0, 0.0, 0.0, t.x, t.y, t.z)
end
R.ApplyImpulse = function(self, i, p)
  local c = brec(self); vec(i, "ApplyImpulse", 1)
  local wid = live(c)
  if wid == nil or (i.x == 0 and i.y == 0 and i.z == 0) then return end
  local tx, ty, tz = 0.0, 0.0, 0.0
  if p ~= nil then
    vec(p, "ApplyImpulse", 2)
    local lf = c.lin_factor
    local ix, iy, iz = i.x * lf[1], i.y * lf[2], i.z * lf[3]
    tx, ty, tz = p.y * iz - p.z * iy, p.z * ix - p.x * iz, p.x * iy - p.y * ix
  end
  call(B.body_impulse, wid, c.handle, i.x, i.y, i.z, tx, ty, tz)
end
R.ApplyTorqueImpulse = function(self, t)
  local c = brec(self); vec(t, "ApplyTorqueImpulse", 1)
  local wid = live(c)
  if wid == nil or (t.x == 0 and t.y == 0 and t.z == 0) then return end
  call(B.body_impulse, wid, c.handle, 0.0, 0.0, 0.0, t.x, t.y, t.z)
end
R.ResetForces = function(self)
  local c = brec(self)
  local wid = live(c)
  if wid then call(B.body_reset_forces, wid, c.handle) end
end
R.Activate = function(self)
  local c = brec(self)
  local wid = live(c)
  if wid then call(B.body_activate, wid, c.handle) end
end
R.IsActive = function(self)
  local c = brec(self)
  local wid = live(c)
  if wid == nil then return false end
  return call(B.body_is_active, wid, c.handle)
end

----------------------------------------------------------------------------------------------------
-- CollisionShape
----------------------------------------------------------------------------------------------------
local function body_of(s)
  local node = s.node
  if node == nil then return nil end
  for _, c in ipairs(node.components) do
    if c.type_name == "RigidBody" then return c end
  end
  return nil
end
local function shape_changed(s)
  local b = body_of(s)
  if b and b.world then mark(b, "need_build") end
end

FACTORIES.CollisionShape = function(s)
  s.shape_type = SHAPE_BOX
  s.size, s.pos, s.rot = {1.0, 1.0, 1.0}, {0.0, 0.0, 0.0}, {1.0, 0.0, 0.0, 0.0}
  s.margin = DEFAULT_MARGIN
  s.lod = 0
  s.on_scene_set = function(x)
    if x.node and x.node.scene then world_of_scene(x.node.scene, true) end
    shape_changed(x)
  end
  s.on_removed = function(x)
    local b = body_of(x)
    x.shape_type, x.bullet_kind, x.geom = nil, nil, nil   -- out of its body from now on
    if b and b.world then mark(b, "need_build") end
  end
  s.on_set_enabled = shape_changed
  s.clone_into = function(src, dst)
    dst.shape_type, dst.margin, dst.lod, dst.model = src.shape_type, src.margin, src.lod, src.model
    dst.bullet_kind, dst.custom, dst.geom = src.bullet_kind, src.custom, src.geom
    dst.size = {src.size[1], src.size[2], src.size[3]}
    dst.pos = {src.pos[1], src.pos[2], src.pos[3]}
    dst.rot = {src.rot[1], src.rot[2], src.rot[3], src.rot[4]}
    shape_changed(dst)
  end
end

local S = class("CollisionShape").methods
local function srec(self) return comp_rec(self) end
local function set_shape(self, kind, sx, sy, sz, pos, rot, what)
  local s = srec(self)
  s.shape_type = kind
  s.size = {sx, sy, sz}
  if pos ~= nil then vec(pos, what, 3); s.pos = {pos.x, pos.y, pos.z} else s.pos = {0.0, 0.0, 0.0} end
  if rot ~= nil then s.rot = {rot.w, rot.x, rot.y, rot.z} else s.rot = {1.0, 0.0, 0.0, 0.0} end
  s.model, s.custom, s.geom, s.bullet_kind = nil, nil, nil, nil
  shape_changed(s)
end
S.SetBox = function(self, size, pos, rot)
  vec(size, "SetBox", 1)
  set_shape(self, SHAPE_BOX, size.x, size.y, size.z, pos, rot, "SetBox")
end
S.SetSphere = function(self, d, pos, rot)
  num(d, "SetSphere", 1)
  set_shape(self, SHAPE_SPHERE, d, d, d, pos, rot, "SetSphere")
end
S.SetStaticPlane = function(self, pos, rot)
  local s = srec(self)
  s.shape_type, s.size = SHAPE_STATICPLANE, {1.0, 1.0, 1.0}
  s.model, s.custom, s.geom, s.bullet_kind = nil, nil, nil, nil
  s.pos = pos and {pos.x, pos.y, pos.z} or {0.0, 0.0, 0.0}
  s.rot = rot and {rot.w, rot.x, rot.y, rot.z} or {1.0, 0.0, 0.0, 0.0}
  shape_changed(s)
end
S.SetCylinder = function(self, d, h, pos, rot)
  num(d, "SetCylinder", 1); num(h, "SetCylinder", 2)
  local s = srec(self)
  set_shape(self, SHAPE_CYLINDER, d, h, d, pos, rot, "SetCylinder")
  s.size = {d, h, d}
end
S.SetCapsule = function(self, d, h, pos, rot)
  num(d, "SetCapsule", 1); num(h, "SetCapsule", 2)
  set_shape(self, SHAPE_CAPSULE, d, h, d, pos, rot, "SetCapsule")
end
S.SetCone = function(self, d, h, pos, rot)
  num(d, "SetCone", 1); num(h, "SetCone", 2)
  set_shape(self, SHAPE_CONE, d, h, d, pos, rot, "SetCone")
end
S.GetShapeType = function(self) return srec(self).shape_type or SHAPE_BOX end
S.SetSize = function(self, v) local s = srec(self); vec(v, "SetSize", 1); s.size = {v.x, v.y, v.z}; shape_changed(s) end
S.GetSize = function(self) return v3t(srec(self).size) end
S.SetPosition = function(self, v) local s = srec(self); vec(v, "SetPosition", 1); s.pos = {v.x, v.y, v.z}; shape_changed(s) end
S.GetPosition = function(self) return v3t(srec(self).pos) end
S.SetRotation = function(self, q) local s = srec(self); s.rot = {q.w, q.x, q.y, q.z}; shape_changed(s) end
S.GetRotation = function(self) local r = srec(self).rot; return quat(r[1], r[2], r[3], r[4]) end
S.SetTransform = function(self, p, q) S.SetPosition(self, p); S.SetRotation(self, q) end
S.SetMargin = function(self, m) local s = srec(self); s.margin = mmax(num(m, "SetMargin", 1), 0.0); shape_changed(s) end
S.GetMargin = function(self) return srec(self).margin end
S.GetLodLevel = function(self) return srec(self).lod end
S.GetModel = function(self) return srec(self).model end
S.GetPhysicsWorld = function(self)
  local s = srec(self)
  local w = s.node and world_of_scene(s.node.scene, false)
  return w and w.proxy
end

----------------------------------------------------------------------------------------------------
-- Shapes from geometry: triangle meshes and convex hulls of a model (Model:new, a game's .mdl file, the stock Box,
-- Plane, Pyramid, Cylinder and Cone: 58_geometry.lua) or of a CustomGeometry (59_custom_geometry.lua), and terrain
-- (59_terrain.lua).  As in Urho3D the geometry is read when the shape is set (and again by SetShapeType, SetModel,
-- SetLodLevel, and for a terrain whenever it is created anew); changing the model or the CustomGeometry later does
-- not change the shape.  Positions are single floats, as Urho3D's vertex data holds them.
----------------------------------------------------------------------------------------------------
local function packed_geometry(flat)
  return {hex = E.hex(E.pack_floats(flat, #flat)), count = #flat // 3}
end

-- Urho3D's TriangleMeshInterface and ConvexData over a model: each geometry at the LOD level (clamped to the
-- geometry's last), its triangles (indexed draw range) or its vertex range's points.  Kept in the model, as Urho3D's
-- PhysicsWorld caches them by model and LOD level, until a buffer of the model changes.
local function buffers_version(gs)
  local parts = {}
  for _, g in ipairs(gs) do
    for _, geom in ipairs(g.lods) do
      local gr = geom and REC[geom]
      if gr then
        local vb, ib = gr.vbs[1] and REC[gr.vbs[1]], gr.ib and REC[gr.ib]
        parts[#parts + 1] = sformat("%s:%s:%d:%d:%d:%d", tostring(vb and vb.version), tostring(ib and ib.version),
          gr.index_start, gr.index_count, gr.vertex_start, gr.vertex_count)
      else
        parts[#parts + 1] = "-"
      end
    end
    parts[#parts + 1] = "|"
  end
  return table.concat(parts, ",")
end
local model_geometry_uncached
local function model_geometry(s, kind)
  local r = REC[s.model]
  local gs = E.model_geometries(r)
  if gs == nil then return nil end
  local version = buffers_version(gs)
  r.physics_cache = r.physics_cache or {}
  local key = kind .. "/" .. s.lod
  local hit = r.physics_cache[key]
  if hit and hit.version == version then return hit.geom end
  local geom = model_geometry_uncached(s, kind, gs)
  r.physics_cache[key] = {version = version, geom = geom}
  return geom
end
function model_geometry_uncached(s, kind, gs)
  local mesh = kind == SHAPE_TRIANGLEMESH
  local what = mesh and "triangle mesh" or "convex hull"
  local flat = {}
  for _, g in ipairs(gs) do
    local n = #g.lods
    local geom = n > 0 and g.lods[mmin(s.lod, n - 1) + 1]
    if not geom then
      E.log("WARNING", "Skipping null geometry for " .. what .. " collision")
    else
      local gr = REC[geom]
      local list
      if mesh then list = gr.ib and E.geometry_triangles(gr) else list = E.geometry_points(gr) end
      if list == nil then
        E.log("WARNING", "Skipping geometry with no or unsuitable CPU-side geometry data for " .. what .. " collision")
      else
        for i = 1, #list do flat[#flat + 1] = list[i] end
      end
    end
  end
  return packed_geometry(flat)
end

-- Urho3D's HeightfieldData: the terrain's heights, every 2^lod-th vertex at a LOD level (the counts halved, rounded
-- up, while both stay above 2), the spacing widened to match.
local function terrain_geometry(s, terrain)
  local f = E.terrain_heightfield(terrain)
  if f == nil then return nil end
  local nx, nz, heights = f.nx, f.nz, f.heights
  local spacing = {f.spacing[1], f.spacing[2], f.spacing[3]}
  local lo, hi = f.min, f.max
  if s.lod > 0 then
    local lx, lz, skip = nx, nz, 1
    for _ = 1, s.lod do
      skip = skip * 2
      spacing[1], spacing[3] = spacing[1] * 2, spacing[3] * 2
      lx, lz = (lx >> 1) + (lx & 1), (lz >> 1) + (lz & 1)
      if lx <= 2 or lz <= 2 then break end
    end
    local values, k = {}, 0
    lo, hi = math.huge, -math.huge
    for z = 0, lz - 1 do
      for x = 0, lx - 1 do
        local h = sunpack("<f", heights, ((z * skip) * nx + x * skip) * 4 + 1)
        k = k + 1
        values[k] = h
        if h < lo then lo = h end
        if h > hi then hi = h end
      end
    end
    nx, nz, heights = lx, lz, E.pack_floats(values, k)
  end
  return {hex = E.hex(heights), nx = nx, nz = nz, spacing = spacing, min = lo, max = hi}
end

local function terrain_of(node)
  if node == nil then return nil end
  for _, c in ipairs(node.components) do if c.type_name == "Terrain" then return c end end
  return nil
end

-- Read the shape's geometry again from its model, CustomGeometry or terrain (nil when there is none to read).
local function capture(s)
  local t = s.shape_type
  s.geom, s.bullet_kind = nil, nil
  if t == SHAPE_TERRAIN then
    local terrain = terrain_of(s.node)
    if terrain then s.geom = terrain_geometry(s, terrain) end
  elseif t == SHAPE_TRIANGLEMESH or t == SHAPE_CONVEXHULL then
    if s.custom then
      if not s.custom.removed then
        s.geom = packed_geometry(t == SHAPE_TRIANGLEMESH and E.custom_geometry_triangles(s.custom, "defined")
          or E.custom_geometry_points(s.custom))
      end
    elseif s.model then
      local r = REC[s.model]
      if r.name == "Models/Sphere.mdl" and E.model_geometries(r) == nil then
        -- the stock sphere's triangles are not known: the sphere it models stands in (unit diameter)
        s.bullet_kind = SHAPE_SPHERE
      else
        s.geom = model_geometry(s, t)
        if s.geom == nil then
          return E.missing(sformat("CollisionShape:%s (model %s: its triangles are not loaded headless)",
            t == SHAPE_TRIANGLEMESH and "SetTriangleMesh" or "SetConvexHull", tostring(r.name)))
        end
      end
    end
  end
end

local function set_geometry_shape(s, kind, scale, pos, rot, what)
  if scale ~= nil then vec(scale, what, 3) end
  if pos ~= nil then vec(pos, what, 4) end
  local sc = scale or v3(1, 1, 1)
  s.shape_type = kind
  s.size = {sc.x, sc.y, sc.z}
  s.pos = pos and {pos.x, pos.y, pos.z} or {0.0, 0.0, 0.0}
  s.rot = rot and {rot.w, rot.x, rot.y, rot.z} or {1.0, 0.0, 0.0, 0.0}
  capture(s)
  shape_changed(s)
end
local function set_model_shape(self, kind, model, lod, scale, pos, rot, what)
  local s = srec(self)
  local r = model and REC[model]
  if model == nil then E.log("ERROR", "Null model, can not set collsion shape"); return end
  if r == nil or r.type_name ~= "Model" then
    E.raise_at_game(sformat("bad argument #1 to '%s' (Model expected, got %s)", what, type(model)))
  end
  s.model, s.custom, s.lod = model, nil, mmax(mfloor(lod or 0), 0)
  set_geometry_shape(s, kind, scale, pos, rot, what)
end
S.SetTriangleMesh = function(self, model, lod, scale, pos, rot)
  return set_model_shape(self, SHAPE_TRIANGLEMESH, model, lod, scale, pos, rot, "SetTriangleMesh")
end
S.SetConvexHull = function(self, model, lod, scale, pos, rot)
  return set_model_shape(self, SHAPE_CONVEXHULL, model, lod, scale, pos, rot, "SetConvexHull")
end
local function set_custom_shape(self, kind, custom, scale, pos, rot, what)
  local s = srec(self)
  if custom == nil then E.log("ERROR", "Null custom geometry, can not set collsion shape"); return end
  local g = REC[custom]
  if g == nil or g.type_name ~= "CustomGeometry" then
    E.raise_at_game(sformat("bad argument #1 to '%s' (CustomGeometry expected, got %s)", what, type(custom)))
  end
  local own_scene = s.node and s.node.scene
  local its_scene = g.node and g.node.scene
  if own_scene ~= its_scene then
    E.log("ERROR", "Custom geometry is not in the same scene as the collision shape, can not set collsion shape")
    return
  end
  s.model, s.custom, s.lod = nil, g, 0
  set_geometry_shape(s, kind, scale, pos, rot, what)
end
S.SetCustomTriangleMesh = function(self, custom, scale, pos, rot)
  return set_custom_shape(self, SHAPE_TRIANGLEMESH, custom, scale, pos, rot, "SetCustomTriangleMesh")
end
S.SetCustomConvexHull = function(self, custom, scale, pos, rot)
  return set_custom_shape(self, SHAPE_CONVEXHULL, custom, scale, pos, rot, "SetCustomConvexHull")
end
-- Urho3D's SetTerrain keeps the shape's size, position and rotation; the heights follow the node's Terrain.
S.SetTerrain = function(self, lod)
  local s = srec(self)
  if terrain_of(s.node) == nil then
    E.log("ERROR", "No terrain component, can not set terrain shape")
    return
  end
  s.shape_type, s.lod, s.model, s.custom = SHAPE_TERRAIN, mmax(mfloor(lod or 0), 0), nil, nil
  capture(s)
  shape_changed(s)
end
-- The node's Terrain was made anew (59_terrain.lua): its terrain shapes read the heights again, as Urho3D's
-- CollisionShape does on TerrainCreated.
function E.physics3d_terrain_created(node)
  for _, s in ipairs(node.components) do
    if s.type_name == "CollisionShape" and s.shape_type == SHAPE_TERRAIN then
      capture(s)
      shape_changed(s)
    end
  end
end
S.SetShapeType = function(self, t)
  local s = srec(self)
  t = mfloor(num(t, "SetShapeType", 1))
  if t == s.shape_type then return end
  s.shape_type = t
  capture(s)
  shape_changed(s)
end
S.SetModel = function(self, model)
  local s = srec(self)
  if model ~= nil and (REC[model] == nil or REC[model].type_name ~= "Model") then
    E.raise_at_game("bad argument #1 to 'SetModel' (Model expected)")
  end
  if model == s.model then return end
  s.model = model
  if s.shape_type >= SHAPE_TRIANGLEMESH then capture(s); shape_changed(s) end
end
S.SetLodLevel = function(self, l)
  local s = srec(self)
  l = mmax(mfloor(num(l, "SetLodLevel", 1)), 0)
  if l == s.lod then return end
  s.lod = l
  if s.shape_type >= SHAPE_TRIANGLEMESH then capture(s); shape_changed(s) end
end

----------------------------------------------------------------------------------------------------
-- Stepping, node sync and collision events
----------------------------------------------------------------------------------------------------
local COLLISION_EVENTS = {"PhysicsCollisionStart", "PhysicsCollision", "PhysicsCollisionEnd", "NodeCollisionStart",
                          "NodeCollision", "NodeCollisionEnd"}
local function wants_contacts(w)
  for _, name in ipairs(COLLISION_EVENTS) do if E.has_subscribers(name) then return true end end
  return #w.bodies <= 256 or w.track_contacts   -- small worlds always keep their pairs (GetCollidingBodies)
end

local node_inverse_apply, qinv, qmul, mark_dirty, world_of = E.node_inverse_apply, E.qinv, E.qmul, E.mark_dirty,
  E.world
local function write_node(r, px, py, pz, qw, qx, qy, qz)
  local p = r.parent
  if p == nil or (p.parent == nil and p.px == 0 and p.py == 0 and p.pz == 0 and p.rw == 1 and p.sx == 1
      and p.sy == 1 and p.sz == 1) then
    r.px, r.py, r.pz = px, py, pz
    r.rw, r.rx, r.ry, r.rz = qw, qx, qy, qz
  else
    r.px, r.py, r.pz = node_inverse_apply(p, px, py, pz, 1)
    local pw = world_of(p)
    local iw, ix, iy, iz = qinv(pw.ww, pw.wx, pw.wy, pw.wz)
    r.rw, r.rx, r.ry, r.rz = qmul(iw, ix, iy, iz, qw, qx, qy, qz)
  end
  if #r.children > 0 then
    mark_dirty(r)
  else
    r.dirty = true   -- a leaf: only the physics components listen to its dirtying, and they ignore this write
  end
  world_of(r)   -- clean again, so the game's next move of the node reaches the body (mark_dirty stops at dirty)
end

-- The records of engine/_bullet_sync.py: handle (int32), position and rotation (x y z, then x y z w; float64), 60
-- bytes each, unpacked one record per C call.
local RECORD, RECORD_SIZE = "<i4ddddddd", 60

-- Which bodies' nodes are leaves right under the scene (written directly, see sync): found once per node, kept while
-- no node changes its parent or children (E.tree_version) and the scene stays the same.
local function leaves(w, scene)
  local t = w.leaves
  if t == nil or w.leaves_version ~= E.tree_version or w.leaves_scene ~= scene then
    t = {}
    w.leaves, w.leaves_version, w.leaves_scene = t, E.tree_version, scene
  end
  return t
end

local function sync(w, alpha, stepped)
  local data = call(B.sync, w.wid, w.interpolation, alpha, stepped)
  local n = #data
  if n == 0 then return end
  local node_of = w.node_of
  w.applying = true
  local scene = w.node and w.node.scene
  local direct = scene ~= nil and scene.px == 0 and scene.py == 0 and scene.pz == 0 and scene.rw == 1
    and scene.sx == 1 and scene.sy == 1 and scene.sz == 1
  local leaf = leaves(w, scene)
  local pos = 1
  while pos <= n do
    local h, px, py, pz, qx, qy, qz, qw
    h, px, py, pz, qx, qy, qz, qw, pos = sunpack(RECORD, data, pos)
    local r = leaf[h]
    if r == nil then
      r = node_of[h]
      if r and not r.removed and r.parent == scene and r.children[1] == nil then leaf[h] = r
      else leaf[h] = false; r = false end
    end
    if r and direct then
      -- a leaf under the scene: its local transform is the world one; it stays dirty, and moved_by_step lets the
      -- game's next move of it reach its body (50_scene.lua's mark_dirty)
      r.px, r.py, r.pz, r.rx, r.ry, r.rz, r.rw = px, py, pz, qx, qy, qz, qw
      r.dirty, r.moved_by_step = true, true
    else
      r = node_of[h]
      if r and not r.removed then write_node(r, px, py, pz, qw, qx, qy, qz) end
    end
  end
  w.applying = false
end

local function pair_alive(a, b) return a.world ~= nil and b.world ~= nil and a.node ~= nil and b.node ~= nil end

local function is_active(c)
  local w = c.world
  if w == nil or not c.built then return false end
  return call(B.body_is_active, w.wid, c.handle)
end
-- Urho3D's filter of the pairs it reports; `active_a`/`active_b` when known (the contacts come with them)
local function reportable(a, b, active_a, active_b)
  if a.mass == 0 and b.mass == 0 then return false end
  if a.event_mode == COLLISION_NEVER or b.event_mode == COLLISION_NEVER then return false end
  if a.event_mode == COLLISION_ACTIVE and b.event_mode == COLLISION_ACTIVE then
    if active_a == nil then active_a = is_active(a) end
    if active_b == nil then active_b = is_active(b) end
    if not active_a and not active_b then return false end
  end
  return true
end

local function read_pairs(w, dt)
  local data = call(B.contacts, w.wid, dt)
  local cur, order = {}, {}
  local pos, n = 1, #data
  local frame = w.frame_contacts
  while pos <= n do
    local ha, hb, flags, bufa, bufb
    ha, hb, flags, bufa, bufb, pos = sunpack("<i4i4Bs4s4", data, pos)
    local a, b = w.by_handle[ha], w.by_handle[hb]
    if a and b then
      local fa, fb = frame[ha], frame[hb]
      if fa == nil then fa = {}; frame[ha] = fa end
      if fb == nil then fb = {}; frame[hb] = fb end
      fa[hb], fb[ha] = true, true
      if reportable(a, b, flags & 1 ~= 0, flags & 2 ~= 0) then
        local key = ha * 0x100000000 + hb
        cur[key] = {a = a, b = b, bufa = bufa, bufb = bufb}
        order[#order + 1] = key
      end
    end
  end
  return cur, order
end

local function send_collisions(w, dt)
  if not wants_contacts(w) then
    w.prev, w.prev_order, w.cur, w.cur_order, w.cur_stale = {}, {}, {}, {}, true
    return
  end
  local cur, order = read_pairs(w, dt)
  w.cur, w.cur_order, w.cur_stale = cur, order, false
  local prev = w.prev
  local world_proxy = w.proxy
  local send = E.send_event
  for _, key in ipairs(order) do
    local p = cur[key]
    local a, b = p.a, p.b
    -- a handler of an earlier pair may have removed this pair's body or node: its events are not sent
    local ok = pair_alive(a, b)
    local na, nb = a.node, b.node
    local trigger = a.trigger or b.trigger
    local new = prev[key] == nil
    local data = ok and {World = world_proxy, NodeA = na.proxy, NodeB = nb.proxy, BodyA = a.proxy, BodyB = b.proxy,
                         Trigger = trigger, Contacts = p.bufa}
    if ok and new then
      send("PhysicsCollisionStart", data, world_proxy)
      ok = pair_alive(a, b)
    end
    if ok then send("PhysicsCollision", data, world_proxy); ok = pair_alive(a, b) end
    if ok then
      local nd = {Body = a.proxy, OtherNode = nb.proxy, OtherBody = b.proxy, Trigger = trigger, Contacts = p.bufa}
      if new then send("NodeCollisionStart", nd, na.proxy); ok = pair_alive(a, b) end
      if ok then send("NodeCollision", nd, na.proxy); ok = pair_alive(a, b) end
    end
    if ok then
      local nd = {Body = b.proxy, OtherNode = na.proxy, OtherBody = a.proxy, Trigger = trigger, Contacts = p.bufb}
      if new then send("NodeCollisionStart", nd, nb.proxy); ok = pair_alive(a, b) end
      if ok then send("NodeCollision", nd, nb.proxy) end
    end
  end
  for _, key in ipairs(w.prev_order) do
    local p = prev[key]
    if cur[key] == nil and pair_alive(p.a, p.b) and reportable(p.a, p.b) then
      local a, b = p.a, p.b
      local na, nb = a.node, b.node
      local trigger = a.trigger or b.trigger
      send("PhysicsCollisionEnd", {World = world_proxy, NodeA = na.proxy, NodeB = nb.proxy, BodyA = a.proxy,
        BodyB = b.proxy, Trigger = trigger}, world_proxy)
      if pair_alive(a, b) then
        send("NodeCollisionEnd", {Body = a.proxy, OtherNode = nb.proxy, OtherBody = b.proxy, Trigger = trigger},
          na.proxy)
      end
      if pair_alive(a, b) then
        send("NodeCollisionEnd", {Body = b.proxy, OtherNode = na.proxy, OtherBody = a.proxy, Trigger = trigger},
          nb.proxy)
      end
    end
  end
  w.prev, w.prev_order = cur, order
end

local function world_update(w, dt)
  if not w.update_enabled or dt <= 0 then return end
  local wid = ensure_world(w)
  local fixed = 1.0 / w.fps
  local max_steps = mfloor(dt * w.fps) + 1
  if w.max_substeps < 0 then fixed, max_steps = dt, 1
  elseif w.max_substeps > 0 then max_steps = mmin(max_steps, w.max_substeps) end
  local steps
  if w.interpolation then
    -- Bullet's stepSimulation: accumulate, take whole sub-steps (clamped; the excess time is dropped)
    w.acc = w.acc + dt
    steps = mfloor(w.acc / fixed + 1e-9)
    if steps > 0 then w.acc = mmax(w.acc - steps * fixed, 0.0) end
    if steps > max_steps then steps = max_steps end
  else
    w.acc = w.acc + dt
    steps = 0
    while w.acc >= fixed - 1e-12 and steps < max_steps do
      steps = steps + 1
      w.acc = w.acc - fixed
    end
  end
  local alpha = w.interpolation and w.acc / fixed or 0.0
  w.frame_contacts = {}
  local send = E.send_event
  for _ = 1, steps do
    if w.removed or w.wid == nil then return end
    send("PhysicsPreStep", {World = w.proxy, TimeStep = fixed}, w.proxy)
    flush_world(w)
    if w.wid == nil then return end
    call(B.substep, wid, fixed)
    send_collisions(w, fixed)
    send("PhysicsPostStep", {World = w.proxy, TimeStep = fixed}, w.proxy)
    if w.wid == nil then return end
    sync(w, alpha, true)
  end
  if steps == 0 and w.interpolation then sync(w, alpha, false) end
  if w.wid then call(B.end_frame, wid) end
end

local function physics3d_update(scene, step)
  local list = worlds_of[scene]
  if list == nil then return end
  for _, w in ipairs({table.unpack(list)}) do
    if w.enabled and w.node and w.node.enabled then world_update(w, step) end
  end
end
-- Chained, so the 2D world's update can share the hook (90_frame.lua calls it after SceneSubsystemUpdate,
-- where Urho3D's PhysicsWorld steps)
local previous_update = E.physics_update
E.physics_update = function(scene, step)
  if previous_update then previous_update(scene, step) end
  physics3d_update(scene, step)
end

W.Update = function(self, dt) world_update(wrec(self), num(dt, "Update", 1)) end
W.UpdateCollisions = function(self) flush_world(wrec(self)) end

----------------------------------------------------------------------------------------------------
-- Queries
----------------------------------------------------------------------------------------------------
local RR = class("PhysicsRaycastResult")
local rr_mt = RR.mt
local function result(body, px, py, pz, nx, ny, nz, distance, fraction)
  return setmetatable({position = v3(px, py, pz), normal = v3(nx, ny, nz), distance = distance,
    hitFraction = fraction, body = body}, rr_mt)
end
RR.new = function() return result(nil, 0, 0, 0, 0, 0, 0, math.huge, 0.0) end
local function no_hit() return result(nil, 0, 0, 0, 0, 0, 0, math.huge, 0.0) end
local function mask_arg(m) if m == nil then return M_MAX_UNSIGNED end return mfloor(m) end

local function ray_args(ray, max_distance, what)
  if type(ray) ~= "table" or type(ray.origin) ~= "table" or type(ray.direction) ~= "table" then
    E.raise_at_game(sformat("bad argument #1 to '%s' (Ray expected)", what))
  end
  num(max_distance, what, 2)
  if max_distance >= math.huge then
    E.log("WARNING", "Infinite maxDistance in physics raycast is not supported")
  end
  local o, d = ray.origin, ray.direction
  return o, d
end

local function hits(w, o, d, dist, mask, single)
  local wid = ensure_world(w)
  flush_world(w)
  local ex, ey, ez = o.x + d.x * dist, o.y + d.y * dist, o.z + d.z * dist
  local data = call(B.raycast, wid, o.x, o.y, o.z, ex, ey, ez, mask, single)
  local out, pos = {}, 1
  while pos <= #data do
    local h, f, px, py, pz, nx, ny, nz
    h, f, px, py, pz, nx, ny, nz, pos = sunpack("<i4ddddddd", data, pos)
    local c = w.by_handle[h]
    if c then
      local dx, dy, dz = px - o.x, py - o.y, pz - o.z
      out[#out + 1] = result(c.proxy, px, py, pz, nx, ny, nz, sqrt(dx * dx + dy * dy + dz * dz), f)
    end
  end
  return out
end

W.RaycastSingle = function(self, ray, max_distance, mask)
  local o, d = ray_args(ray, max_distance, "RaycastSingle")
  return hits(wrec(self), o, d, max_distance, mask_arg(mask), true)[1] or no_hit()
end
W.Raycast = function(self, ray, max_distance, mask)
  local o, d = ray_args(ray, max_distance, "Raycast")
  return hits(wrec(self), o, d, max_distance, mask_arg(mask), false)
end
W.RaycastSingleSegmented = function(self, ray, max_distance, segment, mask, overlap)
  local o, d = ray_args(ray, max_distance, "RaycastSingleSegmented")
  num(segment, "RaycastSingleSegmented", 3)
  overlap = overlap or 0.1
  local w = wrec(self)
  local count = math.ceil(max_distance / segment)
  local sx, sy, sz = o.x, o.y, o.z
  local remaining = max_distance
  for _ = 1, count do
    local dist = mmin(remaining, segment)
    local start = v3(sx, sy, sz)
    local hit = hits(w, start, d, dist, mask_arg(mask), true)[1]
    if hit then
      local p = hit.position
      local dx, dy, dz = p.x - o.x, p.y - o.y, p.z - o.z
      hit.distance = sqrt(dx * dx + dy * dy + dz * dz)
      return hit
    end
    sx, sy, sz = sx + d.x * dist - d.x * overlap, sy + d.y * dist - d.y * overlap, sz + d.z * dist - d.z * overlap
    remaining = remaining - segment
  end
  return no_hit()
end
W.SphereCast = function(self, ray, radius, max_distance, mask)
  local o, d = ray_args(ray, max_distance, "SphereCast")
  num(radius, "SphereCast", 2)
  local w = wrec(self)
  local wid = ensure_world(w)
  flush_world(w)
  local data = call(B.spherecast, wid, radius, o.x, o.y, o.z, d.x, d.y, d.z, max_distance, mask_arg(mask))
  if #data == 0 then return no_hit() end
  local h, f, px, py, pz, nx, ny, nz = sunpack("<i4ddddddd", data)
  local c = w.by_handle[h]
  if c == nil then return no_hit() end
  return result(c.proxy, px, py, pz, nx, ny, nz, f * max_distance, f)
end
-- Urho3D's ConvexCast: the shape (its offset and the node's world scale applied) swept from the start to the end
-- transform; the shape's own body is not hit.  A static plane or a triangle mesh is not convex: an error log and
-- no hit, as Urho3D.
W.ConvexCast = function(self, shape, start_pos, start_rot, end_pos, end_rot, mask)
  local s = REC[shape]
  if s == nil or s.type_name ~= "CollisionShape" then
    E.raise_at_game("bad argument #1 to 'ConvexCast' (CollisionShape expected)")
  end
  vec(start_pos, "ConvexCast", 2); vec(end_pos, "ConvexCast", 4)
  if not E.is(start_rot, "Quaternion") or not E.is(end_rot, "Quaternion") then
    E.raise_at_game("bad argument #3 or #5 to 'ConvexCast' (Quaternion expected)")
  end
  local w = wrec(self)
  local t = s.shape_type
  if t == nil or s.node == nil then
    E.log("ERROR", "Null collision shape for convex cast")
    return no_hit()
  end
  if t == SHAPE_STATICPLANE or t == SHAPE_TRIANGLEMESH or t == SHAPE_TERRAIN then
    E.log("ERROR", "Can not use non-convex collision shape for convex cast")
    return no_hit()
  end
  local wid = ensure_world(w)
  flush_world(w)
  local sx, sy, sz = E.world_scale(s.node)
  local function effective(pos, rot)
    local off = rot * v3(s.pos[1] * sx, s.pos[2] * sy, s.pos[3] * sz)
    local q = rot * quat(s.rot[1], s.rot[2], s.rot[3], s.rot[4])
    return pos.x + off.x, pos.y + off.y, pos.z + off.z, q.w, q.x, q.y, q.z
  end
  local own = body_of(s)
  local exclude = (own and own.world == w and own.handle) or 0
  local shape_data = shape_row(s, sx, sy, sz, true)
  if shape_data == nil then
    E.log("ERROR", "Null collision shape for convex cast")
    return no_hit()
  end
  local ax, ay, az, aqw, aqx, aqy, aqz = effective(start_pos, start_rot)
  local bx, by, bz, bqw, bqx, bqy, bqz = effective(end_pos, end_rot)
  local data = call(B.convexcast, wid, shape_data, ax, ay, az, aqw, aqx, aqy, aqz, bx, by, bz, bqw, bqx, bqy, bqz,
    mask_arg(mask), exclude)
  if #data == 0 then return no_hit() end
  local h, f, px, py, pz, nx, ny, nz = sunpack("<i4ddddddd", data)
  local c = w.by_handle[h]
  if c == nil then return no_hit() end
  local dx, dy, dz = bx - ax, by - ay, bz - az
  return result(c.proxy, px, py, pz, nx, ny, nz, f * sqrt(dx * dx + dy * dy + dz * dz), f)
end

local function handles_to_bodies(w, data)
  local out, pos = {}, 1
  while pos <= #data do
    local h
    h, pos = sunpack("<i4", data, pos)
    local c = w.by_handle[h]
    if c then out[#out + 1] = c.proxy end
  end
  return out
end
W.GetRigidBodies = function(self, what, mask)
  local w = wrec(self)
  local wid = ensure_world(w)
  flush_world(w)
  if E.is(what, "Sphere") then
    local ctr = what.center
    return handles_to_bodies(w, call(B.overlaps, wid, "sphere", 0, ctr.x, ctr.y, ctr.z, what.radius, 0, 0,
      mask_arg(mask)))
  elseif E.is(what, "BoundingBox") then
    local lo, hi = what.min, what.max
    return handles_to_bodies(w, call(B.overlaps, wid, "box", 0, (lo.x + hi.x) / 2, (lo.y + hi.y) / 2,
      (lo.z + hi.z) / 2, (hi.x - lo.x) / 2, (hi.y - lo.y) / 2, (hi.z - lo.z) / 2, mask_arg(mask)))
  end
  local c = REC[what]
  if c == nil or c.type_name ~= "RigidBody" then
    E.raise_at_game("bad argument #1 to 'GetRigidBodies' (Sphere, BoundingBox or RigidBody expected)")
  end
  if c.world ~= w or not c.built then return {} end
  return handles_to_bodies(w, call(B.overlaps, wid, "body", c.handle, 0, 0, 0, 0, 0, 0, c.mask))
end
W.GetCollidingBodies = function(self, body)
  local w = wrec(self)
  local c = REC[body]
  if c == nil or c.type_name ~= "RigidBody" then
    E.raise_at_game("bad argument #1 to 'GetCollidingBodies' (RigidBody expected)")
  end
  if w.cur_stale and w.wid then
    w.cur, w.cur_order = read_pairs(w, 1.0 / w.fps)
    w.cur_stale = false
  end
  local out = {}
  for _, key in ipairs(w.cur_order or {}) do
    local p = w.cur[key]
    if p.a == c then out[#out + 1] = p.b.proxy elseif p.b == c then out[#out + 1] = p.a.proxy end
  end
  return out
end

-- For batteries (engine/lua/harness.lua): what a body touched during the last frame's steps, as node records.
function E.physics3d_contacts_of(c)
  local w = c.world
  if w == nil or c.handle == nil then return {} end
  local set = w.frame_contacts[c.handle]
  local out = {}
  if set == nil then return out end
  local hs = {}
  for h in pairs(set) do hs[#hs + 1] = h end
  table.sort(hs)
  for _, h in ipairs(hs) do
    local o = w.by_handle[h]
    if o and o.node then out[#out + 1] = o.node end
  end
  return out
end

-- The battery's read of a node's rigid body (engine/lua/harness.lua, `view.physics`; docs/tasks.md): nil when the
-- node has no RigidBody, else a plain table of what the body is doing now.
function E.physics3d_view(r, node_view)
  for _, c in ipairs(r.components) do
    if c.type_name == "RigidBody" then
      local proxy = c.proxy
      local contacts = {}
      for i, other in ipairs(E.physics3d_contacts_of(c)) do contacts[i] = node_view(other) end
      return {velocity = R.GetLinearVelocity(proxy), angular_velocity = R.GetAngularVelocity(proxy),
              active = R.IsActive(proxy), mass = c.mass, kinematic = c.kinematic, trigger = c.trigger,
              in_world = c.world ~= nil, contacts = contacts}
    end
  end
  return nil
end

----------------------------------------------------------------------------------------------------
-- Constraint: point, hinge (with Urho3D's hinge limit, which Urho3D applies even at its default (0, 0): the
-- hinge is then held at angle 0), slider (travel limits x in metres, turn limits y in degrees; its rows are solved
-- by engine/_bullet_rows.py) and cone-twist (swing and twist limits).
----------------------------------------------------------------------------------------------------
local CONSTRAINT_POINT, CONSTRAINT_HINGE, CONSTRAINT_SLIDER, CONSTRAINT_CONETWIST = 0, 1, 2, 3
local DEG = math.pi / 180

local function own_body(k)
  local node = k.node
  if node == nil then return nil end
  for _, c in ipairs(node.components) do if c.type_name == "RigidBody" then return c end end
  return nil
end
local function mark_constraint(k)
  k.need_build = true
  if k.world then k.world.pending = true end
end
local function constraint_join(k)
  local node = k.node
  local scene = node and node.scene
  if scene == nil or k.world ~= nil then return end
  local w = world_of_scene(scene, true)
  if w == nil then return end
  k.world = w
  k.jid = w.next_joint
  w.next_joint = w.next_joint + 1
  w.constraints[#w.constraints + 1] = k
  mark_constraint(k)
end
local function constraint_leave(k)
  local w = k.world
  if w == nil then return end
  if w.wid then call(B.constraint_free, w.wid, k.jid) end
  for i, x in ipairs(w.constraints) do if x == k then table.remove(w.constraints, i); break end end
  k.world = nil
end

function build_constraint(k)
  local w = k.world
  local own = own_body(k)
  if own == nil or own.world ~= w or not flush_body(own) or not own.built then return end
  local other = k.other
  if other ~= nil and (other.removed or other.world ~= w or not flush_body(other) or not other.built) then return end
  k.need_build = false
  k.own_rec = own
  local sx, sy, sz = E.world_scale(own.node)
  local ax, ay, az = k.pos[1] * sx, k.pos[2] * sy, k.pos[3] * sz
  local bx, by, bz = k.opos[1], k.opos[2], k.opos[3]
  if other then
    local ox, oy, oz = E.world_scale(other.node)
    bx, by, bz = bx * ox, by * oy, bz * oz
  end
  local a, b = k.rot, k.orot
  local enabled = k.enabled and k.node ~= nil and k.node.enabled
  local low, high, twist, low2, high2 = k.low[1] * DEG, k.high[1] * DEG, 0.0, 0.0, 0.0
  if k.ctype == CONSTRAINT_CONETWIST then
    -- Urho3D: swing spans both highLimit.y, the twist span highLimit.x (Bullet's cone-twist is always limited)
    low, high, twist = 0.0, k.high[2] * DEG, k.high[1] * DEG
  elseif k.ctype == CONSTRAINT_SLIDER then
    -- Urho3D: x the travel (m), y the turn about the axis (degrees)
    low, high, low2, high2 = k.low[1], k.high[1], k.low[2] * DEG, k.high[2] * DEG
  end
  call(B.constraint_build, w.wid, k.jid, k.ctype, own.handle, other and other.handle or 0, ax, ay, az,
    a[1], a[2], a[3], a[4], bx, by, bz, b[1], b[2], b[3], b[4], low, high, k.disable, enabled, twist, low2, high2,
    k.erp, k.cfm)
end

FACTORIES.Constraint = function(k)
  k.ctype = CONSTRAINT_POINT
  k.pos, k.rot, k.opos, k.orot = {0.0, 0.0, 0.0}, {1.0, 0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {1.0, 0.0, 0.0, 0.0}
  k.low, k.high = {0.0, 0.0}, {0.0, 0.0}
  k.erp, k.cfm, k.disable = 0.0, 0.0, false
  k.on_scene_set = constraint_join
  k.on_scene_removed = constraint_leave
  k.on_removed = constraint_leave
  k.on_set_enabled = mark_constraint
end

local K = class("Constraint").methods
local function krec(self) return comp_rec(self) end
local function kset(key, what, size)
  return function(self, v)
    local k = krec(self)
    if size == 2 then
      if type(v) ~= "table" or type(v.x) ~= "number" or type(v.y) ~= "number" then
        E.raise_at_game(sformat("bad argument #1 to '%s' (Vector2 expected, got %s)", what, type(v)))
      end
      k[key] = {v.x, v.y}
    else
      vec(v, what, 1)
      k[key] = {v.x, v.y, v.z}
    end
    mark_constraint(k)
  end
end
K.SetConstraintType = function(self, t)
  local k = krec(self)
  t = mfloor(num(t, "SetConstraintType", 1))
  k.ctype = t
  mark_constraint(k)
end
K.GetConstraintType = function(self) return krec(self).ctype end
K.SetOtherBody = function(self, body)
  local k = krec(self)
  if body == nil then k.other = nil
  else
    local c = REC[body]
    if c == nil or c.type_name ~= "RigidBody" then
      E.raise_at_game("bad argument #1 to 'SetOtherBody' (RigidBody expected)")
    end
    k.other = c
  end
  mark_constraint(k)
end
K.GetOtherBody = function(self) local o = krec(self).other; return o and o.proxy end
K.GetOwnBody = function(self) local o = own_body(krec(self)); return o and o.proxy end
K.GetPhysicsWorld = function(self) local w = krec(self).world; return w and w.proxy end
K.SetPosition = kset("pos", "SetPosition", 3)
K.GetPosition = function(self) return v3t(krec(self).pos) end
K.SetOtherPosition = kset("opos", "SetOtherPosition", 3)
K.GetOtherPosition = function(self) return v3t(krec(self).opos) end
K.SetRotation = function(self, q) local k = krec(self); k.rot = {q.w, q.x, q.y, q.z}; mark_constraint(k) end
K.GetRotation = function(self) local r = krec(self).rot; return quat(r[1], r[2], r[3], r[4]) end
K.SetOtherRotation = function(self, q) local k = krec(self); k.orot = {q.w, q.x, q.y, q.z}; mark_constraint(k) end
K.GetOtherRotation = function(self) local r = krec(self).orot; return quat(r[1], r[2], r[3], r[4]) end
-- Urho3D's SetAxis: the frame's rotation taking Z (point, hinge) or X (slider, cone-twist) onto the axis
local function axis_rotation(k, axis, what)
  vec(axis, what, 1)
  local from = (k.ctype == CONSTRAINT_SLIDER or k.ctype == CONSTRAINT_CONETWIST) and v3(1, 0, 0) or v3(0, 0, 1)
  local q = E.IMPL.Quaternion.new(from, axis)
  return {q.w, q.x, q.y, q.z}
end
K.SetAxis = function(self, axis) local k = krec(self); k.rot = axis_rotation(k, axis, "SetAxis"); mark_constraint(k) end
-- the axis the frame's rotation points Z (point, hinge) or X (slider, cone-twist) along, as Urho3D's GetAxis
local function frame_axis(k, r)
  local q = quat(r[1], r[2], r[3], r[4])
  local from = (k.ctype == CONSTRAINT_SLIDER or k.ctype == CONSTRAINT_CONETWIST) and v3(1, 0, 0) or v3(0, 0, 1)
  return q * from
end
K.GetAxis = function(self) local k = krec(self); return frame_axis(k, k.rot) end
K.GetOtherAxis = function(self) local k = krec(self); return frame_axis(k, k.orot) end
K.SetOtherAxis = function(self, axis)
  local k = krec(self); k.orot = axis_rotation(k, axis, "SetOtherAxis"); mark_constraint(k)
end
K.SetWorldPosition = function(self, p)
  local k = krec(self)
  vec(p, "SetWorldPosition", 1)
  if k.node == nil then return end
  k.pos = {E.node_inverse_apply(k.node, p.x, p.y, p.z, 1)}
  if k.other and k.other.node then k.opos = {E.node_inverse_apply(k.other.node, p.x, p.y, p.z, 1)}
  else k.opos = {p.x, p.y, p.z} end
  mark_constraint(k)
end
K.GetWorldPosition = function(self)
  local k = krec(self)
  if k.node == nil then return v3t(k.pos) end
  return v3(E.node_apply(k.node, k.pos[1], k.pos[2], k.pos[3], 1))
end
K.SetHighLimit = kset("high", "SetHighLimit", 2)
K.GetHighLimit = function(self) local l = krec(self).high; return E.Vector2_new(l[1], l[2]) end
K.SetLowLimit = kset("low", "SetLowLimit", 2)
K.GetLowLimit = function(self) local l = krec(self).low; return E.Vector2_new(l[1], l[2]) end
K.SetERP = function(self, v) local k = krec(self); k.erp = num(v, "SetERP", 1); mark_constraint(k) end
K.GetERP = function(self) return krec(self).erp end
K.SetCFM = function(self, v) local k = krec(self); k.cfm = num(v, "SetCFM", 1); mark_constraint(k) end
K.GetCFM = function(self) return krec(self).cfm end
K.SetDisableCollision = function(self, v) local k = krec(self); k.disable = v and true or false; mark_constraint(k) end
K.GetDisableCollision = function(self) return krec(self).disable end
