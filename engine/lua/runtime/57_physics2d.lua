-- Urho2D physics: PhysicsWorld2D, RigidBody2D, the CollisionShape2D family and the Constraint2D family, over real
-- Box2D in the Python host (engine/_box2d.py, docs/physics2d.md).
--
-- The components keep Urho3D's state here (its defaults, its order of creation, its events); Box2D objects are
-- integer ids in the host.  As in Urho3D: a RigidBody2D makes its b2Body when it enters a scene (creating the
-- scene's PhysicsWorld2D if there is none), shapes make fixtures on their node's body, constraints make joints
-- once both bodies exist.  The world steps once per SceneSubsystemUpdate with that event's time step
-- (PhysicsWorld2D::Update): PhysicsPreStep, the Box2D step (PhysicsUpdateContact2D from Box2D's PreSolve, only
-- when someone listens), awake bodies write their nodes, begin then end contact events, PhysicsPostStep.
-- A node moved by the game teleports its body; the move is handed to Box2D before the next step or query (one
-- crossing per moved body, not per move).
local error, type, setmetatable, ipairs, pairs, tostring, select = error, type, setmetatable, ipairs, pairs,
  tostring, select
local sformat, sunpack, spack, mcos, msin, mpi, mtype = string.format, string.unpack, string.pack, math.cos,
  math.sin, math.pi, math.type
local REC, comp_rec, node_rec = E.REC, E.comp_rec, E.node_rec
local FACTORIES = E.COMPONENT_FACTORIES
local H = {}
do
  -- Calls Box2D may refuse (its assertions, e.g. a density on a shape with no area) return a message: it goes to
  -- the log as an error, and the game goes on, where Urho3D would assert or go on with NaNs.
  local raw = E.host.box2d
  for k, f in pairs(raw) do H[k] = f end
  for _, name in ipairs({"body_set", "body_set_transform", "body_apply", "fixture_set", "joint_set", "joint_target",
                         "world_set", "body_destroy", "fixture_destroy", "joint_destroy", "world_destroy"}) do
    local f = raw[name]
    H[name] = function(...)
      local r = f(...)
      if type(r) == "string" then E.log("ERROR", r) end
      return r
    end
  end
end
local host_call = E.host_call
local Vector2_new = E.Vector2_new
local mark_dirty, world_of, world_scale = E.mark_dirty, E.world, E.world_scale

local DEG2RAD, RAD2DEG = mpi / 180.0, 180.0 / mpi
local BT_STATIC, BT_KINEMATIC, BT_DYNAMIC = 0, 1, 2
local M_MAX_UNSIGNED = 0xFFFFFFFF
local MAX_ITERATIONS = 1000   -- Box2D solver iterations per step at most (Urho2D's defaults: 8 and 3)

local arg_error = E.arg_error
local function num(v, fname, n)
  if type(v) ~= "number" then arg_error(n or 1, fname, "number", v) end
  return v
end
local function vec2(v, fname, n)
  if type(v) ~= "table" or type(v.x) ~= "number" or type(v.y) ~= "number" then
    arg_error(n or 1, fname, "Vector2", v)
  end
  return v.x, v.y
end
-- (x, y) from a Vector2 or two numbers (the declared overloads)
local function vec2_or_xy(a, b, fname)
  if type(a) == "number" then return a, num(b, fname, 2) end
  return vec2(a, fname, 1)
end
local function int(v, fname, n)
  if type(v) ~= "number" then arg_error(n or 1, fname, "number", v) end
  local i = math.tointeger(v)
  if i == nil then i = v >= 0 and math.floor(v) or -math.floor(-v) end
  return i
end

-- The roll angle of a node's world rotation, in degrees (Quaternion::RollAngle), and the inverse.
local euler_angles = E.MATH.euler_angles
local function world_roll(r)
  local _, _, z = euler_angles({w = r.ww, x = r.wx, y = r.wy, z = r.wz})
  return z
end

----------------------------------------------------------------------------------------------------
-- PhysicsWorld2D
----------------------------------------------------------------------------------------------------
local W = class("PhysicsWorld2D")
local WM = W.methods

local function world_rec(self) return comp_rec(self) end

FACTORIES.PhysicsWorld2D = function(c)
  c.wid = host_call(H.world_new, 0.0, -9.81)   -- Box2D's world exists from the component's construction
  c.gravity_x, c.gravity_y = 0.0, -9.81
  c.velocity_iterations, c.position_iterations = 8, 3
  c.update_enabled = true
  c.draw = {Shape = true, Joint = false, Aabb = false, Pair = false, CenterOfMass = false}
  c.bodies = {}           -- body records, in the order they joined (Urho3D's rigidBodies_)
  c.by_bid = {}           -- host body id -> body record
  c.by_fid = {}           -- host fixture id -> shape record
  c.teleports = {}        -- body records whose node moved since the last hand-over
  c.applying = false      -- true while the step writes nodes (their bodies must not follow)
  c.moving, c.generation = {}, -1   -- the body records of the step's moving-body records, and their generation
  c.touching, c.ended = {}, {}      -- body -> {other body -> touching fixture pairs} / {other body -> frame ended}
  c.listening = false               -- contacts gathered (once on, on for good)
  c.on_scene_set = function(x, scene)
    E.subscribe(x, nil, scene.proxy, "SceneSubsystemUpdate", function(_, data)
      if x.update_enabled and not x.removed then E.physics2d_update(x, data.TimeStep:GetFloat()) end
    end)
  end
  c.on_removed = function(x)
    E.unsubscribe_all(x)
    for _, b in ipairs(x.bodies) do E.physics2d_release_body(b) end
    host_call(H.world_destroy, x.wid)
  end
end

local function flush_teleports(w)
  local list = w.teleports
  if #list == 0 then return end
  w.teleports = {}
  for _, b in ipairs(list) do
    b.teleport_pending = false
    local node = b.node
    if b.bid and node and not b.removed then
      local r = world_of(node)
      host_call(H.body_set_transform, b.bid, r.m03, r.m13, world_roll(r) * DEG2RAD)
    end
  end
end
E.physics2d_flush = flush_teleports

WM.SetGravity = function(self, g)
  local w = world_rec(self)
  local x, y = vec2(g, "SetGravity")
  w.gravity_x, w.gravity_y = x, y
  host_call(H.world_set, w.wid, "gravity", x, y)
end
WM.GetGravity = function(self) local w = world_rec(self); return Vector2_new(w.gravity_x, w.gravity_y) end
WM.SetVelocityIterations = function(self, n) world_rec(self).velocity_iterations = int(n, "SetVelocityIterations") end
WM.GetVelocityIterations = function(self) return world_rec(self).velocity_iterations end
WM.SetPositionIterations = function(self, n) world_rec(self).position_iterations = int(n, "SetPositionIterations") end
WM.GetPositionIterations = function(self) return world_rec(self).position_iterations end
WM.SetUpdateEnabled = function(self, v) world_rec(self).update_enabled = v and true or false end
WM.IsUpdateEnabled = function(self) return world_rec(self).update_enabled end
for _, flag in ipairs({"Shape", "Joint", "Aabb", "Pair", "CenterOfMass"}) do
  WM["SetDraw" .. flag] = function(self, v) world_rec(self).draw[flag] = v and true or false end
  WM["GetDraw" .. flag] = function(self) return world_rec(self).draw[flag] end
end
-- Box2D's own world switches (b2World defaults: sleeping, warm starting, continuous physics, auto-clear on)
for _, s in ipairs({{"AllowSleeping", "allowSleeping"}, {"WarmStarting", "warmStarting"},
                    {"ContinuousPhysics", "continuousPhysics"}, {"SubStepping", "subStepping"},
                    {"AutoClearForces", "autoClearForces"}}) do
  local key = s[2]
  WM["Set" .. s[1]] = function(self, v) host_call(H.world_set, world_rec(self).wid, key, v and true or false) end
  WM["Get" .. s[1]] = function(self) return host_call(H.world_get, world_rec(self).wid, key) end
end
WM.DrawDebugGeometry = function() end   -- nothing is drawn headless; the flags above are kept

-- Raycasts: Box2D's callback order, sensors and shapes whose mask misses `collisionMask` skipped (Urho3D's).
local RR = class("PhysicsRaycastResult2D")
local function new_result(px, py, nx, ny, dist, body)
  return setmetatable({position = Vector2_new(px, py), normal = Vector2_new(nx, ny), distance = dist,
                       body = body}, RR.mt)
end
RR.new = function() return new_result(0, 0, 0, 0, 0.0, nil) end

local function ray_hits(w, sx, sy, ex, ey, mask)
  flush_teleports(w)
  local packed = host_call(H.raycast, w.wid, sx, sy, ex, ey, mask)
  local out, pos = {}, 1
  while pos <= #packed do
    local bid, px, py, nx, ny
    bid, px, py, nx, ny, pos = sunpack("<i4dddd", packed, pos)
    local b = w.by_bid[bid]
    local dx, dy = px - sx, py - sy
    out[#out + 1] = {b = b, px = px, py = py, nx = nx, ny = ny, d = math.sqrt(dx * dx + dy * dy)}
  end
  return out
end
local function mask_arg(m, fname)
  if m == nil then return M_MAX_UNSIGNED end
  return int(m, fname, 3)
end
WM.Raycast = function(self, a, b, m)
  local w = world_rec(self)
  local sx, sy = vec2(a, "Raycast", 1)
  local ex, ey = vec2(b, "Raycast", 2)
  local out = {}
  for i, h in ipairs(ray_hits(w, sx, sy, ex, ey, mask_arg(m, "Raycast"))) do
    out[i] = new_result(h.px, h.py, h.nx, h.ny, h.d, h.b and h.b.proxy)
  end
  return out
end
WM.RaycastSingle = function(self, a, b, m)
  local w = world_rec(self)
  local sx, sy = vec2(a, "RaycastSingle", 1)
  local ex, ey = vec2(b, "RaycastSingle", 2)
  local best
  for _, h in ipairs(ray_hits(w, sx, sy, ex, ey, mask_arg(m, "RaycastSingle"))) do
    if best == nil or h.d < best.d then best = h end   -- the first of equally near hits, as Urho3D's '<'
  end
  if best == nil then return new_result(0, 0, 0, 0, 0.0, nil) end
  return new_result(best.px, best.py, best.nx, best.ny, best.d, best.b and best.b.proxy)
end
WM.GetRigidBody = function(self, a, b, m)
  local w = world_rec(self)
  local x, y, mask
  if type(a) == "number" then
    -- screen coordinates: through the first viewport showing this world's scene (as Urho3D)
    local vp = E.physics2d_viewport_point and E.physics2d_viewport_point(w, int(a, "GetRigidBody", 1),
      int(b, "GetRigidBody", 2))
    if vp == nil then return nil end
    x, y, mask = vp.x, vp.y, mask_arg(m, "GetRigidBody")
  else
    x, y = vec2(a, "GetRigidBody", 1)
    mask = b == nil and M_MAX_UNSIGNED or int(b, "GetRigidBody", 2)
  end
  flush_teleports(w)
  local bid = host_call(H.query_point, w.wid, x, y, mask)
  local body = w.by_bid[bid]
  return body and body.proxy
end
WM.GetRigidBodies = function(self, rect, m)
  local w = world_rec(self)
  if type(rect) ~= "table" or rect.min == nil then arg_error(1, "GetRigidBodies", "Rect", rect) end
  flush_teleports(w)
  local ids = {host_call(H.query_aabb, w.wid, rect.min.x, rect.min.y, rect.max.x, rect.max.y,
    mask_arg(m, "GetRigidBodies"))}
  local out = {}
  for _, bid in ipairs(ids) do
    local body = w.by_bid[bid]
    if body then out[#out + 1] = body.proxy end
  end
  return out
end

-- A table the host reads (lupa hands Lua tables to Python as they are)
function E.host_table(t) return t end

----------------------------------------------------------------------------------------------------
-- RigidBody2D
----------------------------------------------------------------------------------------------------
local RB = class("RigidBody2D")
local BM = RB.methods

local function find_world(scene)
  for _, c in ipairs(scene.components) do
    if c.type_name == "PhysicsWorld2D" and not c.removed then return c end
  end
  return REC[E.create_component(scene, "PhysicsWorld2D", 0)]
end

local function body_rec(self) return comp_rec(self) end

local create_fixture, release_fixture, create_joint, release_joint, touch

local function body_props(b)
  return E.host_table({
    vx = b.vx, vy = b.vy, av = b.av, linearDamping = b.linear_damping, angularDamping = b.angular_damping,
    allowSleep = b.allow_sleep, awake = b.awake, fixedRotation = b.fixed_rotation, bullet = b.bullet,
    active = b.active, gravityScale = b.gravity_scale})
end

local function set_mass_data(b)
  host_call(H.body_set, b.bid, "massData", E.host_table({b.mass, b.inertia, b.center_x, b.center_y}))
end

local function create_body(b)
  if b.bid or b.world == nil or b.node == nil then return end
  local r = world_of(b.node)
  b.active = b.enabled and b.node.enabled
  local bid = host_call(H.body_new, b.world.wid, b.body_type, r.m03, r.m13, world_roll(r) * DEG2RAD, body_props(b))
  if bid == 0 then E.raise_at_game("too many RigidBody2D bodies alive (the engine's limit)") end
  if type(bid) == "string" then E.raise_at_game("RigidBody2D: " .. bid) end
  b.bid = bid
  b.world.by_bid[bid] = b
  for _, s in ipairs(b.shapes) do create_fixture(s) end
  if not b.use_fixture_mass then set_mass_data(b) end
  for _, k in ipairs(b.constraints) do create_joint(k) end
end

local function release_body(b)
  if not b.bid then return end
  local list = {}
  for i, k in ipairs(b.constraints) do list[i] = k end
  for _, k in ipairs(list) do release_joint(k) end
  for _, s in ipairs(b.shapes) do release_fixture(s) end
  -- what the game reads back from a released body is the last state Box2D had
  local vx, vy = host_call(H.body_get, b.bid, "linearVelocity")
  b.vx, b.vy = vx, vy
  b.av = host_call(H.body_get, b.bid, "angularVelocity")
  host_call(H.body_destroy, b.bid)
  E.physics2d_forget_touches(b)
  b.world.by_bid[b.bid] = nil
  b.bid = nil
end
E.physics2d_release_body = release_body

local function leave_world(b)
  release_body(b)
  local w = b.world
  if w then
    for i, x in ipairs(w.bodies) do if x == b then table.remove(w.bodies, i); break end end
  end
  b.world = nil
end

FACTORIES.RigidBody2D = function(c)
  c.is_physics2d = true
  c.body_type = BT_STATIC
  c.mass, c.inertia, c.center_x, c.center_y = 0.0, 0.0, 0.0, 0.0
  c.use_fixture_mass = true
  c.linear_damping, c.angular_damping, c.gravity_scale = 0.0, 0.0, 1.0
  c.allow_sleep, c.fixed_rotation, c.bullet, c.awake, c.active = true, false, false, true, true
  c.vx, c.vy, c.av = 0.0, 0.0, 0.0
  c.shapes, c.constraints = {}, {}
  -- RigidBody2D::OnNodeSet: the node's shapes join this body
  for _, s in ipairs(c.node.components) do
    if s.is_shape2d and not s.removed and s.enabled then
      s.body = c
      c.shapes[#c.shapes + 1] = s
    end
  end
  c.on_scene_set = function(x, scene)
    if x.world then return end
    x.world = find_world(scene)
    create_body(x)
    local bodies = x.world.bodies
    bodies[#bodies + 1] = x
  end
  c.on_scene_removed = leave_world
  c.on_removed = function(x)
    leave_world(x)
    for _, s in ipairs(x.shapes) do s.body = nil end
  end
  c.on_marked_dirty = function(x)
    local w = x.world
    if w == nil or w.applying or x.teleport_pending then return end
    x.teleport_pending = true
    w.teleports[#w.teleports + 1] = x
  end
  c.clone_into = function(src, dst)   -- Node:Clone copies the attributes
    local P = dst.proxy
    BM.SetBodyType(P, src.body_type)
    BM.SetUseFixtureMass(P, src.use_fixture_mass)
    BM.SetMass(P, src.mass)
    BM.SetInertia(P, src.inertia)
    BM.SetMassCenter(P, Vector2_new(src.center_x, src.center_y))
    BM.SetLinearDamping(P, src.linear_damping)
    BM.SetAngularDamping(P, src.angular_damping)
    BM.SetGravityScale(P, src.gravity_scale)
    BM.SetAllowSleep(P, src.allow_sleep)
    BM.SetFixedRotation(P, src.fixed_rotation)
    BM.SetBullet(P, src.bullet)
    BM.SetLinearVelocity(P, BM.GetLinearVelocity(src.proxy))
    BM.SetAngularVelocity(P, BM.GetAngularVelocity(src.proxy))
  end
  c.on_set_enabled = function(x)
    local active = x.enabled and x.node ~= nil and x.node.enabled
    x.active = active
    if x.bid then host_call(H.body_set, x.bid, "active", active) end
  end
end

local function flushed(b)
  if b.world and b.teleport_pending then flush_teleports(b.world) end
  return b.bid
end

BM.SetBodyType = function(self, t)
  local b = body_rec(self)
  t = int(t, "SetBodyType")
  if t ~= BT_STATIC and t ~= BT_KINEMATIC and t ~= BT_DYNAMIC then
    E.raise_at_game(sformat("SetBodyType: %d is not a BodyType2D", t))
  end
  b.body_type = t
  if b.bid then
    host_call(H.body_set, b.bid, "type", t)
    if not b.use_fixture_mass then set_mass_data(b) end
  end
end
BM.GetBodyType = function(self) return body_rec(self).body_type end

local function mass_setter(field, fname)
  return function(self, v)
    local b = body_rec(self)
    v = num(v, fname)
    if v < 0 then v = 0.0 end
    if b[field] == v then return end
    b[field] = v
    if not b.use_fixture_mass and b.bid then set_mass_data(b) end
  end
end
BM.SetMass = mass_setter("mass", "SetMass")
BM.SetInertia = mass_setter("inertia", "SetInertia")
BM.SetMassCenter = function(self, v)
  local b = body_rec(self)
  b.center_x, b.center_y = vec2(v, "SetMassCenter")
  if not b.use_fixture_mass and b.bid then set_mass_data(b) end
end
BM.SetUseFixtureMass = function(self, v)
  local b = body_rec(self)
  v = v and true or false
  if b.use_fixture_mass == v then return end
  b.use_fixture_mass = v
  if b.bid then
    if v then host_call(H.body_set, b.bid, "resetMass") else set_mass_data(b) end
  end
end
BM.GetUseFixtureMass = function(self) return body_rec(self).use_fixture_mass end
local function mass_data(b)
  if not b.use_fixture_mass then return b.mass, b.inertia, b.center_x, b.center_y end
  if not b.bid then return 0.0, 0.0, 0.0, 0.0 end
  return host_call(H.body_get, b.bid, "massData")
end
BM.GetMass = function(self) local m = mass_data(body_rec(self)); return m end
BM.GetInertia = function(self) local _, i = mass_data(body_rec(self)); return i end
BM.GetMassCenter = function(self)
  local _, _, x, y = mass_data(body_rec(self))
  return Vector2_new(x, y)
end

-- Plain body settings: kept in the record (the b2BodyDef before the body exists) and passed to Box2D.
local function body_setting(field, key, conv, fname)
  return function(self, v)
    local b = body_rec(self)
    v = conv(v, fname)
    b[field] = v
    if b.bid then host_call(H.body_set, b.bid, key, v) end
  end
end
local function to_bool(v) return v and true or false end
BM.SetLinearDamping = body_setting("linear_damping", "linearDamping", num, "SetLinearDamping")
BM.GetLinearDamping = function(self) return body_rec(self).linear_damping end
BM.SetAngularDamping = body_setting("angular_damping", "angularDamping", num, "SetAngularDamping")
BM.GetAngularDamping = function(self) return body_rec(self).angular_damping end
BM.SetGravityScale = body_setting("gravity_scale", "gravityScale", num, "SetGravityScale")
BM.GetGravityScale = function(self) return body_rec(self).gravity_scale end
BM.SetAllowSleep = body_setting("allow_sleep", "allowSleep", to_bool)
BM.IsAllowSleep = function(self) return body_rec(self).allow_sleep end
BM.SetBullet = body_setting("bullet", "bullet", to_bool)
BM.IsBullet = function(self) return body_rec(self).bullet end
BM.SetFixedRotation = function(self, v)
  local b = body_rec(self)
  b.fixed_rotation = v and true or false
  if b.bid then
    host_call(H.body_set, b.bid, "fixedRotation", b.fixed_rotation)
    if not b.use_fixture_mass then set_mass_data(b) end
  end
end
BM.IsFixedRotation = function(self) return body_rec(self).fixed_rotation end
BM.SetAwake = body_setting("awake", "awake", to_bool)
BM.IsAwake = function(self)
  local b = body_rec(self)
  if b.bid then return host_call(H.body_get, b.bid, "awake") end
  return b.awake
end
BM.SetLinearVelocity = function(self, v)
  local b = body_rec(self)
  local x, y = vec2(v, "SetLinearVelocity")
  if b.bid then host_call(H.body_set, b.bid, "linearVelocity", x, y) else b.vx, b.vy = x, y end
end
BM.GetLinearVelocity = function(self)
  local b = body_rec(self)
  if b.bid then return Vector2_new(host_call(H.body_get, b.bid, "linearVelocity")) end
  return Vector2_new(b.vx, b.vy)
end
BM.SetAngularVelocity = function(self, v)
  local b = body_rec(self)
  v = num(v, "SetAngularVelocity")
  if b.bid then host_call(H.body_set, b.bid, "angularVelocity", v) else b.av = v end
end
BM.GetAngularVelocity = function(self)
  local b = body_rec(self)
  if b.bid then return host_call(H.body_get, b.bid, "angularVelocity") end
  return b.av
end

-- Forces and impulses: only on a body that exists; a zero vector is ignored, as Urho3D does.
local function wake_arg(w) if w == nil then return true end; return w and true or false end
BM.ApplyForce = function(self, f, p, wake)
  local b = body_rec(self)
  local fx, fy = vec2(f, "ApplyForce", 1)
  local px, py = vec2(p, "ApplyForce", 2)
  if flushed(b) and (fx ~= 0 or fy ~= 0) then host_call(H.body_apply, b.bid, "force", fx, fy, px, py, wake_arg(wake)) end
end
BM.ApplyForceToCenter = function(self, f, wake)
  local b = body_rec(self)
  local fx, fy = vec2(f, "ApplyForceToCenter", 1)
  if flushed(b) and (fx ~= 0 or fy ~= 0) then
    host_call(H.body_apply, b.bid, "forceToCenter", fx, fy, 0, 0, wake_arg(wake))
  end
end
BM.ApplyTorque = function(self, t, wake)
  local b = body_rec(self)
  t = num(t, "ApplyTorque")
  if flushed(b) and t ~= 0 then host_call(H.body_apply, b.bid, "torque", t, 0, 0, 0, wake_arg(wake)) end
end
BM.ApplyLinearImpulse = function(self, i, p, wake)
  local b = body_rec(self)
  local ix, iy = vec2(i, "ApplyLinearImpulse", 1)
  local px, py = vec2(p, "ApplyLinearImpulse", 2)
  if flushed(b) and (ix ~= 0 or iy ~= 0) then
    host_call(H.body_apply, b.bid, "linearImpulse", ix, iy, px, py, wake_arg(wake))
  end
end
BM.ApplyLinearImpulseToCenter = function(self, i, wake)
  local b = body_rec(self)
  local ix, iy = vec2(i, "ApplyLinearImpulseToCenter", 1)
  if flushed(b) and (ix ~= 0 or iy ~= 0) then
    host_call(H.body_apply, b.bid, "linearImpulseToCenter", ix, iy, 0, 0, wake_arg(wake))
  end
end
BM.ApplyAngularImpulse = function(self, i, wake)
  local b = body_rec(self)
  i = num(i, "ApplyAngularImpulse")
  if flushed(b) then host_call(H.body_apply, b.bid, "angularImpulse", i, 0, 0, 0, wake_arg(wake)) end
end

----------------------------------------------------------------------------------------------------
-- CollisionShape2D and its kinds
----------------------------------------------------------------------------------------------------
local CS = class("CollisionShape2D")
local SM = CS.methods

-- The fixture's geometry in Box2D's terms, with the node's world scale applied as each Urho3D shape does.
local GEOMETRY = {
  CollisionBox2D = function(s, sx, sy)
    return "box", {s.size_x * 0.5 * sx, s.size_y * 0.5 * sy, s.center_x * sx, s.center_y * sy, s.angle * DEG2RAD}
  end,
  CollisionCircle2D = function(s, sx)
    return "circle", {s.radius * sx, s.center_x * sx, s.center_y * sx}
  end,
  CollisionEdge2D = function(s, sx, sy)
    return "edge", {s.v1x * sx, s.v1y * sy, s.v2x * sx, s.v2y * sy}
  end,
  CollisionPolygon2D = function(s, sx, sy)
    if #s.vertices < 3 then return nil end
    local g = {}
    for _, v in ipairs(s.vertices) do g[#g + 1] = v[1] * sx; g[#g + 1] = v[2] * sy end
    return "polygon", g
  end,
  CollisionChain2D = function(s, sx, sy)
    if #s.vertices < 2 then return nil end   -- Urho3D makes no fixture for a chain of fewer than 2 vertices
    local g = {}
    for _, v in ipairs(s.vertices) do g[#g + 1] = v[1] * sx; g[#g + 1] = v[2] * sy end
    return "chain", g
  end,
}

function create_fixture(s)
  if s.fid or s.removed or not s.enabled then return end
  local b = s.body
  if b == nil or b.bid == nil then return end
  local kind, g = GEOMETRY[s.type_name](s, s.scale_x, s.scale_y)
  if kind == nil then return end
  local fid = host_call(H.fixture_new, b.bid, kind, E.host_table(g), E.host_table({
    density = s.density, friction = s.friction, restitution = s.restitution, sensor = s.trigger,
    categoryBits = s.category_bits, maskBits = s.mask_bits, groupIndex = s.group_index,
    keepMass = not b.use_fixture_mass, loop = s.loop == true}))
  if type(fid) == "string" then
    E.log("ERROR", s.type_name .. ": " .. fid)
    return
  end
  if fid == 0 then E.raise_at_game("too many collision shapes alive (the engine's limit)") end
  s.fid = fid
  b.world.by_fid[fid] = s
end

function release_fixture(s)
  if not s.fid then return end
  local b = s.body
  host_call(H.fixture_destroy, s.fid, b ~= nil and not b.use_fixture_mass)
  if b and b.world then b.world.by_fid[s.fid] = nil end
  s.fid = nil
end

local function recreate_fixture(s)
  release_fixture(s)
  create_fixture(s)
end

local SHAPE_FIELDS = {"density", "friction", "restitution", "trigger", "category_bits", "mask_bits", "group_index",
  "size_x", "size_y", "center_x", "center_y", "angle", "radius", "v1x", "v1y", "v2x", "v2y", "vertices", "loop"}

local function shape_factory(init)
  return function(s)
    s.is_shape2d = true
    s.is_physics2d = true
    s.density, s.friction, s.restitution, s.trigger = 0.0, 0.2, 0.0, false
    s.category_bits, s.mask_bits, s.group_index = 1, 0xFFFF, 0
    init(s)
    -- the node's world scale when the shape is made (Urho3D's cached world scale, refreshed on a scale change)
    s.scale_x, s.scale_y = world_scale(s.node)
    for _, c in ipairs(s.node.components) do
      if c.type_name == "RigidBody2D" and not c.removed then
        s.body = c
        c.shapes[#c.shapes + 1] = s
        create_fixture(s)
        break
      end
    end
    s.on_removed = function(x)
      release_fixture(x)
      local b = x.body
      if b then
        for i, y in ipairs(b.shapes) do if y == x then table.remove(b.shapes, i); break end end
      end
      x.body = nil
    end
    s.on_set_enabled = function(x)
      if x.enabled and x.node and x.node.enabled then create_fixture(x) else release_fixture(x) end
    end
    s.clone_into = function(src, dst)   -- Node:Clone copies the attributes
      for _, k in ipairs(SHAPE_FIELDS) do
        local v = src[k]
        if k == "vertices" and v then
          local copy = {}
          for i, p in ipairs(v) do copy[i] = {p[1], p[2]} end
          v = copy
        end
        dst[k] = v
      end
      recreate_fixture(dst)
    end
    s.on_marked_dirty = function(x)
      local b = x.body
      if b and b.world and b.world.applying then return end   -- a step moves bodies, it never scales them
      local sx, sy = world_scale(x.node)
      local dx, dy = sx - x.scale_x, sy - x.scale_y
      if dx * dx + dy * dy < 0.01 then return end   -- Urho3D's threshold
      x.scale_x, x.scale_y = sx, sy
      recreate_fixture(x)
    end
  end
end

local function shape_rec(self) return comp_rec(self) end

local function fixture_setting(field, conv, fname, apply)
  return function(self, v)
    local s = shape_rec(self)
    v = conv(v, fname)
    if s[field] == v then return end
    s[field] = v
    if s.fid then apply(s, v) end
  end
end
SM.SetDensity = fixture_setting("density", num, "SetDensity", function(s, v)
  host_call(H.fixture_set, s.fid, "density", v, s.body.use_fixture_mass)
end)
SM.SetFriction = fixture_setting("friction", num, "SetFriction", function(s, v)
  host_call(H.fixture_set, s.fid, "friction", v)
end)
SM.SetRestitution = fixture_setting("restitution", num, "SetRestitution", function(s, v)
  host_call(H.fixture_set, s.fid, "restitution", v)
end)
SM.SetTrigger = fixture_setting("trigger", to_bool, "SetTrigger", function(s, v)
  host_call(H.fixture_set, s.fid, "sensor", v)
end)
local function set_filter(s)
  host_call(H.fixture_set, s.fid, "filter", E.host_table({s.category_bits, s.mask_bits, s.group_index}))
end
-- uint16 / int16 fields in Box2D, as Urho3D casts them
SM.SetCategoryBits = fixture_setting("category_bits", function(v, f) return int(v, f) & 0xFFFF end,
  "SetCategoryBits", set_filter)
SM.SetMaskBits = fixture_setting("mask_bits", function(v, f) return int(v, f) & 0xFFFF end, "SetMaskBits",
  set_filter)
SM.SetGroupIndex = fixture_setting("group_index", function(v, f)
  local i = int(v, f) & 0xFFFF
  return i >= 0x8000 and i - 0x10000 or i
end, "SetGroupIndex", set_filter)
SM.GetDensity = function(self) return shape_rec(self).density end
SM.GetFriction = function(self) return shape_rec(self).friction end
SM.GetRestitution = function(self) return shape_rec(self).restitution end
SM.IsTrigger = function(self) return shape_rec(self).trigger end
SM.GetCategoryBits = function(self) return shape_rec(self).category_bits end
SM.GetMaskBits = function(self) return shape_rec(self).mask_bits end
SM.GetGroupIndex = function(self) return shape_rec(self).group_index end
local function fixture_mass(s)
  if not s.fid then return 0.0, 0.0, 0.0, 0.0 end
  return host_call(H.fixture_mass, s.fid)
end
SM.GetMass = function(self) local m = fixture_mass(shape_rec(self)); return m end
SM.GetInertia = function(self) local _, i = fixture_mass(shape_rec(self)); return i end
SM.GetMassCenter = function(self)
  local _, _, x, y = fixture_mass(shape_rec(self))
  return Vector2_new(x, y)
end

-- CollisionBox2D: 0.01 x 0.01 by default (one pixel at Urho2D's PIXEL_SIZE)
local BOX = class("CollisionBox2D").methods
FACTORIES.CollisionBox2D = shape_factory(function(s)
  s.size_x, s.size_y, s.center_x, s.center_y, s.angle = 0.01, 0.01, 0.0, 0.0, 0.0
end)
BOX.SetSize = function(self, a, b)
  local s = shape_rec(self)
  local x, y = vec2_or_xy(a, b, "SetSize")
  if x == s.size_x and y == s.size_y then return end
  s.size_x, s.size_y = x, y
  recreate_fixture(s)
end
BOX.GetSize = function(self) local s = shape_rec(self); return Vector2_new(s.size_x, s.size_y) end
local function center_setter(fname)
  return function(self, a, b)
    local s = shape_rec(self)
    local x, y = vec2_or_xy(a, b, fname)
    if x == s.center_x and y == s.center_y then return end
    s.center_x, s.center_y = x, y
    recreate_fixture(s)
  end
end
BOX.SetCenter = center_setter("SetCenter")
BOX.GetCenter = function(self) local s = shape_rec(self); return Vector2_new(s.center_x, s.center_y) end
BOX.SetAngle = function(self, a)
  local s = shape_rec(self)
  a = num(a, "SetAngle")
  if a == s.angle then return end
  s.angle = a
  recreate_fixture(s)
end
BOX.GetAngle = function(self) return shape_rec(self).angle end

local CIRCLE = class("CollisionCircle2D").methods
FACTORIES.CollisionCircle2D = shape_factory(function(s) s.radius, s.center_x, s.center_y = 0.01, 0.0, 0.0 end)
CIRCLE.SetRadius = function(self, r)
  local s = shape_rec(self)
  r = num(r, "SetRadius")
  if r == s.radius then return end
  s.radius = r
  recreate_fixture(s)
end
CIRCLE.GetRadius = function(self) return shape_rec(self).radius end
CIRCLE.SetCenter = center_setter("SetCenter")
CIRCLE.GetCenter = function(self) local s = shape_rec(self); return Vector2_new(s.center_x, s.center_y) end

local EDGE = class("CollisionEdge2D").methods
FACTORIES.CollisionEdge2D = shape_factory(function(s) s.v1x, s.v1y, s.v2x, s.v2y = 0.0, 0.0, 0.0, 0.0 end)
local function set_edge(s, x1, y1, x2, y2)
  if x1 == s.v1x and y1 == s.v1y and x2 == s.v2x and y2 == s.v2y then return end
  s.v1x, s.v1y, s.v2x, s.v2y = x1, y1, x2, y2
  recreate_fixture(s)
end
EDGE.SetVertex1 = function(self, v)
  local s = shape_rec(self)
  local x, y = vec2(v, "SetVertex1")
  set_edge(s, x, y, s.v2x, s.v2y)
end
EDGE.SetVertex2 = function(self, v)
  local s = shape_rec(self)
  local x, y = vec2(v, "SetVertex2")
  set_edge(s, s.v1x, s.v1y, x, y)
end
EDGE.SetVertices = function(self, a, b)
  local x1, y1 = vec2(a, "SetVertices", 1)
  local x2, y2 = vec2(b, "SetVertices", 2)
  set_edge(shape_rec(self), x1, y1, x2, y2)
end
EDGE.GetVertex1 = function(self) local s = shape_rec(self); return Vector2_new(s.v1x, s.v1y) end
EDGE.GetVertex2 = function(self) local s = shape_rec(self); return Vector2_new(s.v2x, s.v2y) end

-- Polygon and chain: a vertex list; SetVertex on the last index (re)builds the fixture, as Urho3D.
local function vertex_methods(M, fname_prefix)
  M.SetVertexCount = function(self, n)
    local s = shape_rec(self)
    n = int(n, "SetVertexCount")
    if n < 0 then n = 0 end
    if n > 100000 then E.raise_at_game("SetVertexCount: too many vertices") end
    for i = #s.vertices + 1, n do s.vertices[i] = {0.0, 0.0} end
    for i = #s.vertices, n + 1, -1 do s.vertices[i] = nil end
  end
  M.GetVertexCount = function(self) return #shape_rec(self).vertices end
  M.SetVertex = function(self, index, v)
    local s = shape_rec(self)
    index = int(index, "SetVertex", 1)
    local x, y = vec2(v, "SetVertex", 2)
    if index < 0 or index >= #s.vertices then return end
    s.vertices[index + 1] = {x, y}
    if index == #s.vertices - 1 then recreate_fixture(s) end
  end
  M.GetVertex = function(self, index)
    local s = shape_rec(self)
    local v = s.vertices[int(index, "GetVertex") + 1]
    if v == nil then return Vector2_new(0, 0) end
    return Vector2_new(v[1], v[2])
  end
  M.SetVertices = function(self, list)
    local s = shape_rec(self)
    if type(list) ~= "table" then arg_error(1, "SetVertices", "table of Vector2", list) end
    local out = {}
    for i, v in ipairs(list) do
      local x, y = vec2(v, "SetVertices")
      out[i] = {x, y}
    end
    s.vertices = out
    recreate_fixture(s)
  end
end
local POLY = class("CollisionPolygon2D").methods
FACTORIES.CollisionPolygon2D = shape_factory(function(s) s.vertices = {} end)
vertex_methods(POLY)
local CHAIN = class("CollisionChain2D").methods
FACTORIES.CollisionChain2D = shape_factory(function(s) s.vertices = {}; s.loop = false end)
vertex_methods(CHAIN)
CHAIN.SetLoop = function(self, v)
  local s = shape_rec(self)
  v = v and true or false
  if v == s.loop then return end
  s.loop = v
  recreate_fixture(s)
end
CHAIN.GetLoop = function(self) return shape_rec(self).loop end

----------------------------------------------------------------------------------------------------
-- Constraint2D and its kinds.  Each kind lists its parameters: default, and how a change reaches a live joint
-- ("recreate": Urho3D rebuilds the joint; otherwise the Box2D setter Urho3D calls, with its argument builder).
-- Angles and speeds go to Box2D unconverted (radians), as Urho3D passes them.
----------------------------------------------------------------------------------------------------
local V2 = "vector"
local KINDS = {
  ConstraintRevolute2D = {kind = "revolute", params = {
    anchor = {V2, "recreate"}, enableLimit = {false, "EnableLimit"},
    lowerAngle = {0.0, "SetLimits", function(k) return k.p.lowerAngle, k.p.upperAngle end},
    upperAngle = {0.0, "SetLimits", function(k) return k.p.lowerAngle, k.p.upperAngle end},
    enableMotor = {false, "EnableMotor"}, motorSpeed = {0.0, "SetMotorSpeed"},
    maxMotorTorque = {0.0, "SetMaxMotorTorque"}}},
  ConstraintDistance2D = {kind = "distance", params = {
    ownerBodyAnchor = {V2, "recreate"}, otherBodyAnchor = {V2, "recreate"}, frequencyHz = {0.0, "SetFrequency"},
    dampingRatio = {0.0, "SetDampingRatio"}, length = {1.0, "SetLength"}}},
  ConstraintPrismatic2D = {kind = "prismatic", params = {
    anchor = {V2, "recreate"}, axis = {"axis", "recreate"}, enableLimit = {false, "EnableLimit"},
    lowerTranslation = {0.0, "SetLimits", function(k) return k.p.lowerTranslation, k.p.upperTranslation end},
    upperTranslation = {0.0, "SetLimits", function(k) return k.p.lowerTranslation, k.p.upperTranslation end},
    enableMotor = {false, "EnableMotor"}, maxMotorForce = {0.0, "SetMaxMotorForce"},
    motorSpeed = {0.0, "SetMotorSpeed"}}},
  ConstraintWeld2D = {kind = "weld", params = {
    anchor = {V2, "recreate"}, frequencyHz = {0.0, "SetFrequency"}, dampingRatio = {0.0, "SetDampingRatio"}}},
  ConstraintRope2D = {kind = "rope", params = {
    ownerBodyAnchor = {V2, "recreate"}, otherBodyAnchor = {V2, "recreate"}, maxLength = {0.0, "SetMaxLength"}}},
  ConstraintMouse2D = {kind = "mouse", params = {
    target = {V2, "target"}, maxForce = {0.0, "SetMaxForce"}, frequencyHz = {5.0, "SetFrequency"},
    dampingRatio = {0.7, "SetDampingRatio"}}},
  ConstraintWheel2D = {kind = "wheel", params = {
    anchor = {V2, "recreate"}, axis = {"axis", "recreate"}, enableMotor = {false, "EnableMotor"},
    maxMotorTorque = {0.0, "SetMaxMotorTorque"}, motorSpeed = {0.0, "SetMotorSpeed"},
    frequencyHz = {2.0, "SetSpringFrequencyHz"}, dampingRatio = {0.7, "SetSpringDampingRatio"}}},
  ConstraintMotor2D = {kind = "motor", params = {
    linearOffset = {V2, "SetLinearOffset", function(k) return k.p.linearOffset[1], k.p.linearOffset[2] end},
    angularOffset = {0.0, "SetAngularOffset"}, maxForce = {1.0, "SetMaxForce"}, maxTorque = {1.0, "SetMaxTorque"},
    correctionFactor = {0.3, "SetCorrectionFactor"}}},
  ConstraintPulley2D = {kind = "pulley", params = {
    ownerBodyGroundAnchor = {"ground1", "recreate"}, otherBodyGroundAnchor = {"ground2", "recreate"},
    ownerBodyAnchor = {V2, "recreate"}, otherBodyAnchor = {V2, "recreate"}, ratio = {1.0, "recreate"}}},
  ConstraintFriction2D = {kind = "friction", params = {
    anchor = {V2, "recreate"}, maxForce = {0.0, "SetMaxForce"}, maxTorque = {0.0, "SetMaxTorque"}}},
  ConstraintGear2D = {kind = "gear", params = {ratio = {1.0, "SetRatio"}}},
}
-- Box2D's defaults for the vectors (b2PrismaticJointDef/b2WheelJointDef axis (1, 0); pulley ground anchors)
local VECTOR_DEFAULTS = {vector = {0.0, 0.0}, axis = {1.0, 0.0}, ground1 = {-1.0, 1.0}, ground2 = {1.0, 1.0}}

local CN = class("Constraint2D").methods
local function constraint_rec(self) return comp_rec(self) end

local function joint_params(k)
  local t = {}
  for name, v in pairs(k.p) do
    if type(v) == "table" then t[name] = E.host_table({v[1], v[2]}) else t[name] = v end
  end
  if k.joint_kind == "gear" then
    t.joint1 = k.owner_constraint and k.owner_constraint.jid or 0
    t.joint2 = k.other_constraint and k.other_constraint.jid or 0
  end
  return E.host_table(t)
end

local function add_unique(list, x)
  for _, y in ipairs(list) do if y == x then return end end
  list[#list + 1] = x
end
local function remove_from(list, x)
  for i, y in ipairs(list) do if y == x then table.remove(list, i); return end end
end

function create_joint(k)
  if k.jid or k.removed or not k.enabled then return end
  local a, b = k.owner, k.other
  if a == nil or b == nil or a.bid == nil or b.bid == nil or a.world == nil then return end
  if k.joint_kind == "gear" and not (k.owner_constraint and k.owner_constraint.jid and k.other_constraint
      and k.other_constraint.jid) then
    return
  end
  local jid = host_call(H.joint_new, a.world.wid, k.joint_kind, a.bid, b.bid, k.collide_connected, joint_params(k))
  if type(jid) == "string" then
    E.log("ERROR", k.type_name .. ": " .. jid)
    return
  end
  if jid == 0 then E.raise_at_game("too many constraints alive (the engine's limit)") end
  k.jid = jid
  k.world = a.world
  add_unique(a.constraints, k)
  add_unique(b.constraints, k)
end

function release_joint(k)
  if not k.jid then return end
  if k.owner then remove_from(k.owner.constraints, k) end
  if k.other then remove_from(k.other.constraints, k) end
  host_call(H.joint_destroy, k.jid)
  k.jid = nil
end

local function recreate_joint(k)
  local attached = k.attached
  if attached then release_joint(attached) end
  release_joint(k)
  create_joint(k)
  if attached then create_joint(attached) end
end

local function constraint_factory(type_name)
  local spec = KINDS[type_name]
  return function(k)
    k.joint_kind = spec.kind
    k.p = {}
    for name, def in pairs(spec.params) do
      local d = def[1]
      if type(d) == "string" then local v = VECTOR_DEFAULTS[d]; d = {v[1], v[2]} end
      k.p[name] = d
    end
    k.collide_connected = false
    for _, c in ipairs(k.node.components) do
      if c.type_name == "RigidBody2D" and not c.removed then k.owner = c; break end
    end
    if k.owner == nil then E.log("ERROR", "No right body component in node, can not create constraint") end
    k.on_scene_set = function(x, scene) find_world(scene) end
    k.on_removed = function(x)
      release_joint(x)
      if x.owner then remove_from(x.owner.constraints, x) end
      if x.other then remove_from(x.other.constraints, x) end
    end
    k.on_set_enabled = function(x)
      if x.enabled and x.node and x.node.enabled then create_joint(x) else release_joint(x) end
    end
    k.clone_into = function(src, dst)   -- Node:Clone copies the attributes, the other body's too
      for name, v in pairs(src.p) do
        dst.p[name] = type(v) == "table" and {v[1], v[2]} or v
      end
      dst.collide_connected = src.collide_connected
      dst.other = src.other
      recreate_joint(dst)
    end
  end
end

CN.SetOtherBody = function(self, body)
  local k = constraint_rec(self)
  local b = body ~= nil and REC[body] or nil
  if body ~= nil and (b == nil or b.type_name ~= "RigidBody2D") then
    arg_error(1, "SetOtherBody", "RigidBody2D", body)
  end
  if b == k.other then return end
  if k.other and k.jid then release_joint(k) end
  k.other = b
  recreate_joint(k)
end
CN.GetOtherBody = function(self) local k = constraint_rec(self); return k.other and k.other.proxy end
CN.GetOwnerBody = function(self) local k = constraint_rec(self); return k.owner and k.owner.proxy end
CN.SetCollideConnected = function(self, v)
  local k = constraint_rec(self)
  v = v and true or false
  if v == k.collide_connected then return end
  k.collide_connected = v
  recreate_joint(k)
end
CN.GetCollideConnected = function(self) return constraint_rec(self).collide_connected end

local function upper_first(s) return s:sub(1, 1):upper() .. s:sub(2) end
local BOOL_GETTERS = {enableLimit = true, enableMotor = true}
for type_name, spec in pairs(KINDS) do
  local M = class(type_name).methods
  FACTORIES[type_name] = constraint_factory(type_name)
  for name, def in pairs(spec.params) do
    local is_vec = type(def[1]) == "string"
    local is_bool = type(def[1]) == "boolean"
    local how, args = def[2], def[3]
    local setter = "Set" .. upper_first(name)
    local getter = "Get" .. upper_first(name)
    M[setter] = function(self, v)
      local k = constraint_rec(self)
      if is_vec then
        local x, y = vec2(v, setter)
        local old = k.p[name]
        if old[1] == x and old[2] == y then return end
        k.p[name] = {x, y}
      else
        if is_bool then v = v and true or false else v = num(v, setter) end
        if name == "maxLength" and v < 0 then v = 0.0 end
        if k.p[name] == v then return end
        k.p[name] = v
      end
      if how == "recreate" then return recreate_joint(k) end
      if not k.jid then return end
      if how == "target" then return host_call(H.joint_target, k.jid, k.p.target[1], k.p.target[2]) end
      if args then return host_call(H.joint_set, k.jid, how, args(k)) end
      return host_call(H.joint_set, k.jid, how, k.p[name])
    end
    M[getter] = function(self)
      local v = constraint_rec(self).p[name]
      if is_vec then return Vector2_new(v[1], v[2]) end
      return v
    end
    if BOOL_GETTERS[name] then M[getter] = M[getter] end
  end
end
-- Gear: its two constraints (each joint must exist first; re-made when either is re-made)
local GEAR = class("ConstraintGear2D").methods
local function gear_constraint(field, fname)
  return function(self, other)
    local k = constraint_rec(self)
    local o = other ~= nil and REC[other] or nil
    if other ~= nil and (o == nil or o.joint_kind == nil) then arg_error(1, fname, "Constraint2D", other) end
    if k[field] == o then return end
    if k[field] then k[field].attached = nil end
    k[field] = o
    if o then o.attached = k end
    recreate_joint(k)
  end
end
GEAR.SetOwnerConstraint = gear_constraint("owner_constraint", "SetOwnerConstraint")
GEAR.SetOtherConstraint = gear_constraint("other_constraint", "SetOtherConstraint")
GEAR.GetOwnerConstraint = function(self) local o = constraint_rec(self).owner_constraint; return o and o.proxy end
GEAR.GetOtherConstraint = function(self) local o = constraint_rec(self).other_constraint; return o and o.proxy end

----------------------------------------------------------------------------------------------------
-- The step (PhysicsWorld2D::Update) and the contact events
----------------------------------------------------------------------------------------------------
local function contact_info(w, packed, pos)
  local fa, fb, n
  fa, fb, n, pos = sunpack("<i4i4i4", packed, pos)
  local sa, sb = w.by_fid[fa], w.by_fid[fb]
  -- Urho3D's contact buffer: per point, position (Vector2), normal (Vector2), separation (float)
  local parts = {}
  for i = 1, n do
    local x, y, nx, ny, sep
    x, y, nx, ny, sep, pos = sunpack("<ddddd", packed, pos)
    parts[i] = spack("<fffff", x, y, nx, ny, sep)
  end
  local ba, bb = sa and sa.body, sb and sb.body
  return {shape_a = sa, shape_b = sb, body_a = ba, body_b = bb, node_a = ba and ba.node, node_b = bb and bb.node,
          buffer = table.concat(parts)}, pos
end

local function proxy(x) return x and x.proxy end

local has_subscribers = E.has_subscribers
-- The world's event for a contact (sender: the world); returns the data's Enabled (update events).
local function world_send(event, w, info, enabled)
  if not has_subscribers(event) then return enabled end
  local fields = {World = w.proxy, BodyA = proxy(info.body_a), BodyB = proxy(info.body_b), NodeA = proxy(info.node_a),
    NodeB = proxy(info.node_b), Contacts = info.buffer, ShapeA = proxy(info.shape_a), ShapeB = proxy(info.shape_b)}
  if enabled ~= nil then fields.Enabled = enabled end
  local data = E.event_data(event, fields)
  E.send_event(event, data, w.proxy)
  if enabled ~= nil then return data.Enabled:GetBool() end
  return nil
end

-- The nodes' events for a contact: node A's, then node B's (sender: the node), sharing one Enabled as Urho3D's
-- shared event data does; returns it.
local function node_send(event, info, enabled)
  if not has_subscribers(event) then return enabled end
  local na, nb = info.node_a, info.node_b
  local fields = {Contacts = info.buffer, Enabled = enabled}
  for side = 1, 2 do
    local node = side == 1 and na or nb
    if node and not node.removed then
      if side == 1 then
        fields.Body, fields.OtherNode, fields.OtherBody = proxy(info.body_a), proxy(nb), proxy(info.body_b)
        fields.Shape, fields.OtherShape = proxy(info.shape_a), proxy(info.shape_b)
      else
        fields.Body, fields.OtherNode, fields.OtherBody = proxy(info.body_b), proxy(na), proxy(info.body_a)
        fields.Shape, fields.OtherShape = proxy(info.shape_b), proxy(info.shape_a)
      end
      local data = E.event_data(event, fields)
      E.send_event(event, data, node.proxy)
      if enabled ~= nil then enabled = data.Enabled:GetBool(); fields.Enabled = enabled end
    end
  end
  return enabled
end

-- PreSolve's events (PhysicsWorld2D::PreSolve): the world's, then the nodes', starting from Box2D's enabled flag
local function update_send(w, info, enabled)
  enabled = world_send("PhysicsUpdateContact2D", w, info, enabled)
  return node_send("NodeUpdateContact2D", info, enabled)
end

local function wants_presolve()
  return E.has_subscribers("PhysicsUpdateContact2D") or E.has_subscribers("NodeUpdateContact2D")
end

local host_meter, host_unmeter = E.host.meter, E.host.unmeter
local function presolve_callback(w)
  return function(packed, enabled)
    -- called by Box2D inside the step: the game's handlers run metered again, and an abort (budget, memory)
    -- must not unwind through Box2D: it is recorded and raised once the step has returned
    if E.state.aborted then return enabled end
    local info = contact_info(w, packed, 1)
    if host_meter then host_meter() end
    local ok, result = pcall(update_send, w, info, enabled)
    if host_unmeter then host_unmeter() end
    if not ok then
      -- only an abort gets here (send_event records and swallows the game's errors)
      if not E.state.aborted then E.state.aborted = result == "not enough memory" and "memory" or "budget" end
      return enabled
    end
    return result
  end
end

-- Awake bodies write their nodes (RigidBody2D::ApplyWorldTransform).  The step hands over a record per awake moving
-- body (its index in an order Lua re-reads when its generation changes, position, angle: engine/_box2d.py).  A node
-- whose parent is the scene is written here directly.
local RECORD = "<i4fff"   -- engine/_box2d.py _OUT_DTYPE: index in the moving order, x, y, angle; one C call each

-- Write a node whose parent is the scene (world = local when the scene's transform is the identity): as
-- Node::MarkDirty, its children and its other components hear of the move.  The node stays dirty, flagged
-- moved_by_step so that the game's next move of it still notifies its components (50_scene.lua's mark_dirty)
-- and reaches its body, as in Urho3D, whose renderer reads world transforms every frame.
local function identity_transform(r)
  return r.px == 0 and r.py == 0 and r.pz == 0 and r.rw == 1 and r.rx == 0 and r.ry == 0 and r.rz == 0
    and r.sx == 1 and r.sy == 1 and r.sz == 1
end

local function write_root_node(r, x, y, qw, qz)
  r.px, r.py, r.rw, r.rx, r.ry, r.rz = x, y, qw, 0.0, 0.0, qz
  if not r.dirty then
    r.dirty = true
    local kids = r.children
    for i = 1, #kids do mark_dirty(kids[i]) end
    local comps = r.components
    for i = 1, #comps do
      local c = comps[i]
      local on = c.on_marked_dirty
      if on and not c.is_physics2d then on(c) end   -- this file's own hooks ignore the step's writes
    end
  end
  r.moved_by_step = true
end

local function moving_bodies(w, generation)
  if w.generation ~= generation then
    local ids = {host_call(H.moving_order, w.wid)}
    local list = {}
    for i, bid in ipairs(ids) do list[i] = w.by_bid[bid] or false end
    w.moving, w.generation = list, generation
  end
  return w.moving
end

-- Per moving body (as moving_bodies), its node if that is a child of the scene (written directly, see
-- apply_transforms), else false; found once per node, kept while the moving bodies, the node tree
-- (E.tree_version: parents, children, removals) and the scene stay the same.
local function root_nodes(w, generation, scene)
  local t = w.roots
  if t == nil or w.roots_generation ~= generation or w.roots_version ~= E.tree_version or w.roots_scene ~= scene then
    t = {}
    w.roots, w.roots_generation, w.roots_version, w.roots_scene = t, generation, E.tree_version, scene
  end
  return t
end

local function apply_transforms(w, raw, generation)
  local n = #raw
  if n == 0 then return end
  local bodies = moving_bodies(w, generation)
  w.applying = true
  local scene = w.node and (w.node.scene or w.node)
  local direct = scene ~= nil and identity_transform(scene)
  local roots = root_nodes(w, generation, scene)
  local nested
  local pos, k0 = 1, 1
  while pos <= n do
    local i, x, y, a
    i, x, y, a, pos = sunpack(RECORD, raw, pos)
    i = i + 1
    local r = roots[i]
    if r == nil then
      local b = bodies[i]
      r = b and b.node
      if not (r and not r.removed and r.parent == scene) then r = false end
      roots[i] = r
    end
    local half = a * 0.5
    local qw, qz = mcos(half), msin(half)
    if r and direct then
      r.px, r.py, r.rw, r.rx, r.ry, r.rz = x, y, qw, 0.0, 0.0, qz
      if not r.dirty then write_root_node(r, x, y, qw, qz) end
      r.moved_by_step = true
    else
      local b = bodies[i]
      r = b and b.node
      if r and not r.removed then
        if direct and r.parent == scene then
          write_root_node(r, x, y, qw, qz)
        else
          nested = nested or {}
          local depth, p = 0, r.parent
          while p do depth = depth + 1; p = p.parent end
          nested[#nested + 1] = {r, x, y, qw, qz, depth, k0}
        end
      end
    end
    k0 = k0 + 4
  end
  if nested then
    -- through the parents' world transforms, ancestors first (Urho3D delays a body whose parent has a body)
    table.sort(nested, function(a, b) if a[6] ~= b[6] then return a[6] < b[6] end; return a[7] < b[7] end)
    local N = E.IMPL.Node.methods
    for _, t in ipairs(nested) do
      local r = t[1]
      N.SetWorldPosition(r.proxy, E.Vector3_new(t[2], t[3], world_of(r).m23))
      N.SetWorldRotation(r.proxy, E.IMPL.Quaternion.new(t[4], 0.0, 0.0, t[5]))
      r.moved_by_step = true   -- the game's next move reaches the body (see write_root_node)
    end
  end
  w.applying = false
end

E._apply2d = apply_transforms   -- (benchmarks time it alone)

-- Which bodies touch which (for batteries: view.physics.contacts), kept from the begin and end contacts of the
-- steps that gathered them: counts of touching fixture pairs per pair of bodies, and the pairs that stopped
-- touching, with their frame.
local TRACK_ALWAYS = 256   -- worlds this small always gather contacts (the cost is Box2D's time in a crowd)
function touch(w, info, delta)
  local a, b = info.body_a, info.body_b
  if a == nil or b == nil then return end
  for side = 1, 2 do
    local x, y = a, b
    if side == 2 then x, y = b, a end
    local t = w.touching[x]
    if t == nil then t = {}; w.touching[x] = t end
    local n = (t[y] or 0) + delta
    if n <= 0 then
      t[y] = nil
      local ended = w.ended[x]
      if ended == nil then ended = {}; w.ended[x] = ended end
      ended[y] = E.clock.frame
    else
      t[y] = n
    end
  end
end

function E.physics2d_forget_touches(b)
  local w = b.world
  if w == nil then return end
  for other in pairs(w.touching[b] or {}) do
    local t = w.touching[other]
    if t then t[b] = nil end
  end
  w.touching[b], w.ended[b] = nil, nil
end

-- A battery's view of a node's 2D body (harness.lua, `view.physics`), or nil when it has none.
function E.physics2d_view(r, node_view)
  for _, c in ipairs(r.components) do
    if c.type_name == "RigidBody2D" and not c.removed then
      local P = c.proxy
      local w = c.world
      local others, seen = {}, {}
      if w then
        for other in pairs(w.touching[c] or {}) do seen[other] = true end
        for other, frame in pairs(w.ended[c] or {}) do
          if frame == E.clock.frame then seen[other] = true end
        end
      end
      for other in pairs(seen) do if other.node then others[#others + 1] = other end end
      table.sort(others, function(x, y) return x.id < y.id end)   -- component ids: a deterministic order
      local contacts = {}
      for i, other in ipairs(others) do contacts[i] = node_view(other.node) end
      return {velocity = BM.GetLinearVelocity(P), angular_velocity = BM.GetAngularVelocity(P),
              awake = BM.IsAwake(P), mass = BM.GetMass(P), body_type = c.body_type, in_world = c.bid ~= nil,
              contacts = contacts}
    end
  end
  return nil
end

function E.physics2d_update(w, dt)
  local sender = w.proxy
  E.send_event("PhysicsPreStep", {World = sender, TimeStep = dt}, sender)
  if w.removed then return end
  flush_teleports(w)
  local presolve = wants_presolve() and presolve_callback(w) or nil
  local contacts = (has_subscribers("PhysicsBeginContact2D") or has_subscribers("NodeBeginContact2D")
    or has_subscribers("PhysicsEndContact2D") or has_subscribers("NodeEndContact2D")) and 2
    or ((w.listening or E.physics2d_tracking or #w.bodies <= TRACK_ALWAYS) and 1 or 0)
  -- once contacts are gathered, always (begin and end must pair up for `view.physics.contacts`)
  if contacts > 0 then w.listening = true end
  -- iterations are bounded (MAX_ITERATIONS) so that one step's time is: a game asking for a billion would hang
  local vi, pi = math.min(w.velocity_iterations, MAX_ITERATIONS), math.min(w.position_iterations, MAX_ITERATIONS)
  local ok, moved, generation, begins, ends = pcall(host_call, H.step, w.wid, dt, vi, pi, presolve, contacts)
  if E.state.aborted then error(E.ABORT, 0) end
  if not ok then
    -- Box2D asserted inside its step (non-finite state): its world stays locked, so it stops here, once, loudly
    w.update_enabled = false
    E.log("ERROR", "PhysicsWorld2D stopped: " .. tostring(moved))
    error("PhysicsWorld2D stopped: " .. tostring(moved), 0)
  end
  apply_transforms(w, moved, generation)
  local begin_infos, end_infos = {}, {}
  local pos = 1
  while pos <= #begins do begin_infos[#begin_infos + 1], pos = contact_info(w, begins, pos) end
  pos = 1
  while pos <= #ends do end_infos[#end_infos + 1], pos = contact_info(w, ends, pos) end
  -- the contacts hold their nodes until their events are sent (Urho3D's ContactInfo keeps SharedPtrs), so a node
  -- one handler removes stays readable in the later events of this step (50_scene.lua's E.hold_nodes)
  local holding = {}
  for _, list in ipairs({begin_infos, end_infos}) do
    for _, info in ipairs(list) do
      if info.node_a then holding[#holding + 1] = info.node_a end
      if info.node_b then holding[#holding + 1] = info.node_b end
    end
  end
  E.hold_nodes(holding, 1)
  for _, info in ipairs(begin_infos) do
    E.physics2d_log_contact(info, (info.shape_a and info.shape_a.trigger) or (info.shape_b and info.shape_b.trigger)
      or false)
    world_send("PhysicsBeginContact2D", w, info)
    node_send("NodeBeginContact2D", info)
  end
  for _, info in ipairs(begin_infos) do touch(w, info, 1) end
  for _, info in ipairs(end_infos) do touch(w, info, -1) end
  for _, info in ipairs(end_infos) do
    world_send("PhysicsEndContact2D", w, info)
    node_send("NodeEndContact2D", info)
  end
  E.hold_nodes(holding, -1)
  E.send_event("PhysicsPostStep", {World = sender, TimeStep = dt}, sender)
end

-- Batteries: the contacts that began, with their frame (docs/tasks.md).  Contacts are only gathered while someone
-- reads them (a contact event handler, or a battery once it asked: `E.physics2d_track()` starts the log), because
-- gathering them costs Box2D a Python call per touching contact and step.  The log keeps the last MAX_LOG.
local MAX_LOG = 10000
E.physics2d_tracking = false
E.physics2d_log = {}
function E.physics2d_track() E.physics2d_tracking = true end
local function log_contact(info, trigger)
  local log = E.physics2d_log
  if not E.physics2d_tracking then return end
  if #log >= MAX_LOG then table.remove(log, 1) end
  log[#log + 1] = {frame = E.clock.frame, node_a = info.node_a, node_b = info.node_b, shape_a = info.shape_a,
                   shape_b = info.shape_b, trigger = trigger}
end
E.physics2d_log_contact = log_contact

-- GetRigidBody(screenX, screenY): the first viewport showing the world's scene turns the point into the world.
function E.physics2d_viewport_point(w, sx, sy)
  local R = E.IMPL.Renderer.methods
  local n = w.node
  local scene = n and (n.scene or n)
  if scene == nil then return nil end
  for i = 0, R.GetNumViewports() - 1 do
    local vp = R.GetViewport(nil, i)
    if vp and vp:GetScene() == scene.proxy then
      local p = vp:ScreenToWorldPoint(sx, sy, 0.0)
      return {x = p.x, y = p.y}
    end
  end
  return nil
end
