-- Urho3D's RaycastVehicle (a LogicComponent): a hull RigidBody driven by raycast wheels.  Bullet's btRaycastVehicle
-- runs in Python after each step (engine/_bullet_vehicle.py, with Urho3D's FixedPostUpdate); this keeps the wheel
-- nodes and moves them on ScenePostUpdate (Urho3D's PostUpdate), from the hull's shown (interpolated) transform.
-- As in Urho3D, computing a wheel's transform (PostUpdate, UpdateWheelTransform, ResetWheels) clears its
-- grounded flag until the next step's ray: WheelIsGrounded reads true from a PhysicsPostStep handler on.
local type, ipairs, tostring = type, ipairs, tostring
local mfloor, sformat, sunpack = math.floor, string.format, string.unpack
local REC, comp_rec = E.REC, E.comp_rec
local FACTORIES = E.COMPONENT_FACTORIES
local B = E.host.bullet
local call = E.host_call
local v3 = E.Vector3_new
local function quat(w, x, y, z) return E.Quaternion_new(w, x, y, z) end
local NM = E.IMPL.Node.methods

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

local RIGHT_UP_FORWARD = {0, 1, 2}
local V = class("RaycastVehicle")
for _, s in ipairs({{"RIGHT_UP_FORWARD", RIGHT_UP_FORWARD}, {"RIGHT_FORWARD_UP", {0, 2, 1}},
                    {"UP_FORWARD_RIGHT", {1, 2, 0}}, {"UP_RIGHT_FORWARD", {1, 0, 2}}, {"FORWARD_RIGHT_UP", {2, 0, 1}},
                    {"FORWARD_UP_RIGHT", {2, 1, 0}}}) do
  local axes = s[2]
  V.statics[s[1]] = function() return E.IntVector3_new(axes[1], axes[2], axes[3]) end
end

-- the vehicle's hull body and its world, or nil before Init or once either is gone
local function hull_world(c)
  local hull = c.hull
  if c.vid == nil or hull == nil or hull.removed or c.world == nil or hull.world ~= c.world then return nil end
  local wid = E.physics3d_live(hull)
  if wid == nil or c.world.wid ~= wid then return nil end
  return wid
end

local function node_pose(r)
  local m = E.world(r)
  return m.m03, m.m13, m.m23, m.ww, m.wx, m.wy, m.wz
end

local function post_update(c)
  if not (c.enabled and c.node and c.node.enabled) then return end
  local wid = hull_world(c)
  if wid == nil or #c.wheels == 0 then return end
  local data = call(B.vehicle_post_update, wid, c.vid, node_pose(c.node))
  local pos = 1
  for _, wheel in ipairs(c.wheels) do
    local px, py, pz, qw, qx, qy, qz
    px, py, pz, qw, qx, qy, qz, pos = sunpack("<ddddddd", data, pos)
    local node = wheel.node
    if node and not node.removed then
      local o = wheel.orig
      NM.SetWorldPosition(node.proxy, v3(px, py, pz))
      NM.SetWorldRotation(node.proxy, quat(qw, qx, qy, qz) * quat(o[1], o[2], o[3], o[4]))
    end
  end
end

local function free(c)
  if c.vid ~= nil and c.world ~= nil and c.world.wid ~= nil then call(B.vehicle_free, c.world.wid, c.vid) end
  c.vid, c.world, c.wheels = nil, nil, {}
end

FACTORIES.RaycastVehicle = function(c)
  c.wheels = {}
  c.axes = {RIGHT_UP_FORWARD[1], RIGHT_UP_FORWARD[2], RIGHT_UP_FORWARD[3]}
  c.in_air_rpm, c.max_side_slip = 0.0, 4.0
  c.receiver = {}
  c.on_scene_set = function(x, scene)
    E.subscribe(x.receiver, nil, scene.proxy, "ScenePostUpdate", function() post_update(x) end)
  end
  c.on_removed = function(x)
    E.unsubscribe_all(x.receiver)
    free(x)
  end
  c.on_set_enabled = function(x)
    local wid = hull_world(x)
    if wid then call(B.vehicle_set, wid, x.vid, -1, "enabled", (x.enabled and x.node and x.node.enabled) and 1 or 0) end
  end
end

local M = V.methods
local function vrec(self) return comp_rec(self) end
-- the vehicle's world and a checked wheel index.  A getter (`reading`) given a whole index past the last wheel gets
-- nil for it: Urho3D reads past the end of Bullet's wheel array there (undefined; sample 46 asks for wheel
-- GetNumWheels()), and the getter returns a zero value with a warning, once per method, so such a game runs on.
local warned_past_end = {}
local function at(self, wheel, what, reading)
  local c = vrec(self)
  local wid = hull_world(c)
  if wid == nil then E.raise_at_game(sformat("RaycastVehicle:%s before Init (or without its hull body)", what)) end
  num(wheel, what, 1)
  local i = mfloor(wheel)
  if reading and i == wheel and i >= #c.wheels then
    if not warned_past_end[what] then
      warned_past_end[what] = true
      E.log("WARNING", sformat("RaycastVehicle:%s(%d) of %d wheels reads past the last wheel (undefined in Urho3D): "
        .. "a zero value returned", what, i, #c.wheels))
    end
    return c, wid, nil
  end
  if i ~= wheel or i < 0 or i >= #c.wheels then
    E.raise_at_game(sformat("bad argument #1 to '%s' (wheel index %s of %d wheels)", what, tostring(wheel), #c.wheels))
  end
  return c, wid, i
end

M.RegisterObject = function() end
M.Init = function(self)
  local c = vrec(self)
  local node = c.node
  if node == nil or node.scene == nil then E.raise_at_game("RaycastVehicle:Init needs the component in a scene") end
  local hull = REC[NM.GetOrCreateComponent(node.proxy, "RigidBody")]
  local wid = E.physics3d_live(hull)
  if wid == nil then E.raise_at_game("RaycastVehicle:Init: the hull body is in no physics world") end
  local w = hull.world
  if c.vid == nil or c.world ~= w then
    free(c)
    w.next_vehicle = (w.next_vehicle or 0) + 1
    c.vid = w.next_vehicle
  end
  c.world, c.hull, c.wheels = w, hull, {}
  local a = c.axes
  call(B.vehicle_init, wid, c.vid, hull.handle, a[1], a[2], a[3], c.in_air_rpm, c.max_side_slip)
  if not (c.enabled and node.enabled) then call(B.vehicle_set, wid, c.vid, -1, "enabled", 0) end
end
M.ApplyAttributes = function(self) M.Init(self) end

M.AddWheel = function(self, wheel_node, direction, axle, rest_length, radius, front)
  local c = vrec(self)
  local wid = hull_world(c)
  if wid == nil then E.raise_at_game("RaycastVehicle:AddWheel before Init (or without its hull body)") end
  local r = REC[wheel_node]
  if r == nil or r.kind ~= "node" then E.raise_at_game("bad argument #1 to 'AddWheel' (Node expected)") end
  vec(direction, "AddWheel", 2); vec(axle, "AddWheel", 3)
  num(rest_length, "AddWheel", 4); num(radius, "AddWheel", 5)
  -- Urho3D's connection point: the wheel node's world position less the hull node's, in the hull's frame as is
  local wm, hm = E.world(r), E.world(c.node)
  call(B.vehicle_add_wheel, wid, c.vid, wm.m03 - hm.m03, wm.m13 - hm.m13, wm.m23 - hm.m23, direction.x, direction.y,
    direction.z, axle.x, axle.y, axle.z, rest_length, radius, front and true or false)
  c.wheels[#c.wheels + 1] = {node = r, orig = {wm.ww, wm.wx, wm.wy, wm.wz}}
end
M.GetNumWheels = function(self) return #vrec(self).wheels end

-- wheel fields: setters and getters of one number
local function number_field(key, setter, getter)
  if setter then
    M[setter] = function(self, wheel, value)
      local c, wid, i = at(self, wheel, setter)
      call(B.vehicle_set, wid, c.vid, i, key, num(value, setter, 2))
    end
  end
  M[getter] = function(self, wheel)
    local c, wid, i = at(self, wheel, getter, true)
    if i == nil then return 0.0 end
    return call(B.vehicle_get, wid, c.vid, i, key)
  end
end
number_field("steering", "SetSteeringValue", "GetSteeringValue")
number_field("engine", "SetEngineForce", "GetEngineForce")
number_field("brake", "SetBrake", "GetBrake")
number_field("stiffness", "SetWheelSuspensionStiffness", "GetWheelSuspensionStiffness")
number_field("relaxation", "SetWheelDampingRelaxation", "GetWheelDampingRelaxation")
number_field("compression", "SetWheelDampingCompression", "GetWheelDampingCompression")
number_field("friction_slip", "SetWheelFrictionSlip", "GetWheelFrictionSlip")
number_field("roll_influence", "SetWheelRollInfluence", "GetWheelRollInfluence")
number_field("radius", "SetWheelRadius", "GetWheelRadius")
number_field("rest_length", "SetWheelRestLength", "GetWheelRestLength")
number_field("skid", "SetWheelSkidInfo", "GetWheelSkidInfo")
number_field("max_travel_cm", "SetMaxSuspensionTravel", "GetMaxSuspensionTravel")
number_field("skid_cumulative", "SetWheelSkidInfoCumulative", "GetWheelSkidInfoCumulative")
number_field("side_slip", nil, "GetWheelSideSlipSpeed")

local function vector_field(key, setter, getter)
  if setter then
    M[setter] = function(self, wheel, v)
      local c, wid, i = at(self, wheel, setter)
      vec(v, setter, 2)
      call(B.vehicle_set, wid, c.vid, i, key, v.x, v.y, v.z)
    end
  end
  M[getter] = function(self, wheel)
    local c, wid, i = at(self, wheel, getter, true)
    if i == nil then return v3(0.0, 0.0, 0.0) end
    return v3(call(B.vehicle_get, wid, c.vid, i, key))
  end
end
vector_field("direction", "SetWheelDirection", "GetWheelDirection")
vector_field("axle", "SetWheelAxle", "GetWheelAxle")
vector_field("connection", nil, "GetWheelConnectionPoint")
vector_field("contact_point", nil, "GetContactPosition")
vector_field("contact_normal", nil, "GetContactNormal")
vector_field("world_pos", nil, "GetWheelPosition")

M.GetWheelRotation = function(self, wheel)
  local c, wid, i = at(self, wheel, "GetWheelRotation", true)
  if i == nil then return quat(1.0, 0.0, 0.0, 0.0) end
  return quat(call(B.vehicle_get, wid, c.vid, i, "world_rot"))
end
M.WheelIsGrounded = function(self, wheel)
  local c, wid, i = at(self, wheel, "WheelIsGrounded", true)
  if i == nil then return false end
  return call(B.vehicle_get, wid, c.vid, i, "in_contact")
end
M.IsFrontWheel = function(self, wheel)
  local c, wid, i = at(self, wheel, "IsFrontWheel", true)
  if i == nil then return false end
  return call(B.vehicle_get, wid, c.vid, i, "front")
end

M.UpdateWheelTransform = function(self, wheel, interpolated)
  local c, wid, i = at(self, wheel, "UpdateWheelTransform")
  call(B.vehicle_wheel_transform, wid, c.vid, i, interpolated and true or false, node_pose(c.node))
end
M.ResetSuspension = function(self)
  local c = vrec(self)
  local wid = hull_world(c)
  if wid then call(B.vehicle_reset_suspension, wid, c.vid) end
end
-- the suspensions at rest length, and each wheel node moved (position only) to its wheel, as Urho3D's
M.ResetWheels = function(self)
  local c = vrec(self)
  local wid = hull_world(c)
  if wid == nil then return end
  call(B.vehicle_reset_suspension, wid, c.vid)
  for i, wheel in ipairs(c.wheels) do
    call(B.vehicle_wheel_transform, wid, c.vid, i - 1, true, node_pose(c.node))
    if wheel.node and not wheel.node.removed then
      NM.SetWorldPosition(wheel.node.proxy, v3(call(B.vehicle_get, wid, c.vid, i - 1, "world_pos")))
    end
  end
end

local function vehicle_number(key, setter, getter)
  M[setter] = function(self, value)
    local c = vrec(self)
    c[key] = num(value, setter, 1)
    local wid = hull_world(c)
    if wid then call(B.vehicle_set, wid, c.vid, -1, key, c[key]) end
  end
  M[getter] = function(self) return vrec(self)[key] end
end
vehicle_number("in_air_rpm", "SetInAirRPM", "GetInAirRPM")
vehicle_number("max_side_slip", "SetMaxSideSlipSpeed", "GetMaxSideSlipSpeed")

M.SetCoordinateSystem = function(self, axes)
  local c = vrec(self)
  if axes == nil then axes = {x = 0, y = 1, z = 2} end
  if type(axes) ~= "table" or type(axes.x) ~= "number" or type(axes.y) ~= "number" or type(axes.z) ~= "number" then
    E.raise_at_game("bad argument #1 to 'SetCoordinateSystem' (IntVector3 expected)")
  end
  c.axes = {mfloor(axes.x), mfloor(axes.y), mfloor(axes.z)}
  local wid = hull_world(c)
  if wid then call(B.vehicle_set, wid, c.vid, -1, "axes", c.axes[1], c.axes[2], c.axes[3]) end
end
M.GetCoordinateSystem = function(self)
  local a = vrec(self).axes
  return E.IntVector3_new(a[1], a[2], a[3])
end
