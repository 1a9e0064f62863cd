-- Scene graph: Scene, Node, Component.  State lives in private records (E.REC[proxy]); the game only
-- holds proxies, so what a battery reads through the engine cannot be patched from game code.
-- Transforms follow Urho3D: local position/rotation/scale, world = parent world * local (a 3x4 matrix),
-- world rotation = parent world rotation * rotation.
local error, type, setmetatable, ipairs, pairs, tostring, select = error, type, setmetatable, ipairs, pairs,
  tostring, select
local sformat, sqrt, mabs, msin, mcos, rad, tremove, tinsert = string.format, math.sqrt, math.abs, math.sin,
  math.cos, math.rad, table.remove, table.insert
local REC = E.REC
local V3mt, Qmt = class("Vector3").mt, class("Quaternion").mt
local function v3(x, y, z) return setmetatable({x = x, y = y, z = z}, V3mt) end
local function quat(w, x, y, z) return setmetatable({w = w, x = x, y = y, z = z}, Qmt) end

local TS_LOCAL, TS_PARENT, TS_WORLD = 0, 1, 2
local FIRST_REPLICATED_ID, FIRST_LOCAL_ID = 1, 0x01000000
local LAST_REPLICATED_ID, LAST_LOCAL_ID = 0x00ffffff, 0xffffffff

----------------------------------------------------------------------------------------------------
-- quaternion helpers on plain numbers
----------------------------------------------------------------------------------------------------
local function qmul(aw, ax, ay, az, bw, bx, by, bz)
  return aw * bw - ax * bx - ay * by - az * bz,
         aw * bx + ax * bw + ay * bz - az * by,
         aw * by + ay * bw + az * bx - ax * bz,
         aw * bz + az * bw + ax * by - ay * bx
end
local function qnorm(w, x, y, z)
  local len2 = w * w + x * x + y * y + z * z
  if len2 ~= 1 and len2 > 0 then
    local inv = 1 / sqrt(len2)
    return w * inv, x * inv, y * inv, z * inv
  end
  return w, x, y, z
end
local function qinv(w, x, y, z)
  local len2 = w * w + x * x + y * y + z * z
  if len2 == 1 then return w, -x, -y, -z end
  if len2 >= 1e-8 then local inv = 1 / len2; return w * inv, -x * inv, -y * inv, -z * inv end
  return 1, 0, 0, 0
end
local function qrot(w, x, y, z, vx, vy, vz)
  -- v + 2 * (w * (q x v) + q x (q x v))
  local c1x, c1y, c1z = y * vz - z * vy, z * vx - x * vz, x * vy - y * vx
  local c2x, c2y, c2z = y * c1z - z * c1y, z * c1x - x * c1z, x * c1y - y * c1x
  return vx + 2 * (c1x * w + c2x), vy + 2 * (c1y * w + c2y), vz + 2 * (c1z * w + c2z)
end
local function axis_angle(angle, ax, ay, az)
  local len = sqrt(ax * ax + ay * ay + az * az)
  if len > 0 then ax, ay, az = ax / len, ay / len, az / len end
  local half = E.MATH.half_angle(angle)
  local s = msin(half)
  return mcos(half), ax * s, ay * s, az * s
end
E.qmul, E.qrot, E.qinv, E.qnorm = qmul, qrot, qinv, qnorm

----------------------------------------------------------------------------------------------------
-- records
----------------------------------------------------------------------------------------------------
local Node = class("Node")
local Scene = class("Scene")
local node_mt, scene_mt = Node.mt, Scene.mt

local function new_node_record(proxy, class_name)
  return {
    kind = "node", class_name = class_name, proxy = proxy, id = 0, name = "", tags = {}, vars = {}, var_order = {},
    enabled = true, enabled_prev = true, parent = nil, children = {}, components = {}, scene = nil,
    temporary = false, px = 0.0, py = 0.0, pz = 0.0, rw = 1.0, rx = 0.0, ry = 0.0, rz = 0.0, sx = 1.0, sy = 1.0,
    sz = 1.0, dirty = true, script_objects = {},
  }
end

-- Removed nodes that something still holds, as Urho3D's SharedPtrs keep a node alive after its removal: the
-- contacts of a 2D physics step hold their nodes until their events are sent (57_physics2d.lua), so a handler
-- reads a node an earlier handler removed, as a detached node (ID 0, no scene).  Counts, by node record.
local held = setmetatable({}, {__mode = "k"})
function E.hold_nodes(records, delta)
  for _, r in ipairs(records) do
    local n = (held[r] or 0) + delta
    held[r] = n > 0 and n or nil
  end
end

local function node_rec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "node" then error("invalid 'self' (a Node was expected)", 3) end
  if r.removed and not held[r] then error("attempt to use a removed Node", 3) end
  return r
end
E.node_rec = node_rec

local function mark_dirty(r)
  -- A node a physics step wrote stays dirty but still tells its components of the game's next move
  -- (moved_by_step: engine/lua/runtime/57_physics2d.lua), so that move reaches its body.
  if r.dirty and not r.moved_by_step then return end
  r.moved_by_step = nil
  r.dirty = true
  for _, c in ipairs(r.children) do mark_dirty(c) end
  local comps = r.components
  for i = 1, #comps do
    local c = comps[i]
    local on = c.on_marked_dirty
    if on and not c.unlistened then on(c, r) end
  end
  -- components of other nodes that listen to this one (Node:AddListener, 55_components.lua); a removed or moved
  -- one drops out of the list, as Urho3D's expired weak pointers do
  local extra = r.listeners
  if extra then
    local i = 1
    while i <= #extra do
      local c = extra[i]
      if c.removed or c.node == nil or c.node == r then
        tremove(extra, i)
      else
        if c.on_marked_dirty then c.on_marked_dirty(c, r) end
        i = i + 1
      end
    end
  end
end
E.mark_dirty = mark_dirty

-- Recompute the world matrix (m00..m23) and world rotation of r.
local function update_world(r)
  local w, x, y, z = r.rw, r.rx, r.ry, r.rz
  local sx, sy, sz = r.sx, r.sy, r.sz
  local l00, l01, l02 = (1 - 2 * (y * y + z * z)) * sx, (2 * (x * y - w * z)) * sy, (2 * (x * z + w * y)) * sz
  local l10, l11, l12 = (2 * (x * y + w * z)) * sx, (1 - 2 * (x * x + z * z)) * sy, (2 * (y * z - w * x)) * sz
  local l20, l21, l22 = (2 * (x * z - w * y)) * sx, (2 * (y * z + w * x)) * sy, (1 - 2 * (x * x + y * y)) * sz
  local l03, l13, l23 = r.px, r.py, r.pz
  local p = r.parent
  if p == nil then
    r.m00, r.m01, r.m02, r.m03 = l00, l01, l02, l03
    r.m10, r.m11, r.m12, r.m13 = l10, l11, l12, l13
    r.m20, r.m21, r.m22, r.m23 = l20, l21, l22, l23
    r.ww, r.wx, r.wy, r.wz = w, x, y, z
  else
    if p.dirty then update_world(p) end
    local a00, a01, a02, a03 = p.m00, p.m01, p.m02, p.m03
    local a10, a11, a12, a13 = p.m10, p.m11, p.m12, p.m13
    local a20, a21, a22, a23 = p.m20, p.m21, p.m22, p.m23
    r.m00 = a00 * l00 + a01 * l10 + a02 * l20
    r.m01 = a00 * l01 + a01 * l11 + a02 * l21
    r.m02 = a00 * l02 + a01 * l12 + a02 * l22
    r.m03 = a00 * l03 + a01 * l13 + a02 * l23 + a03
    r.m10 = a10 * l00 + a11 * l10 + a12 * l20
    r.m11 = a10 * l01 + a11 * l11 + a12 * l21
    r.m12 = a10 * l02 + a11 * l12 + a12 * l22
    r.m13 = a10 * l03 + a11 * l13 + a12 * l23 + a13
    r.m20 = a20 * l00 + a21 * l10 + a22 * l20
    r.m21 = a20 * l01 + a21 * l11 + a22 * l21
    r.m22 = a20 * l02 + a21 * l12 + a22 * l22
    r.m23 = a20 * l03 + a21 * l13 + a22 * l23 + a23
    r.ww, r.wx, r.wy, r.wz = qmul(p.ww, p.wx, p.wy, p.wz, w, x, y, z)
  end
  r.dirty = false
end
local function world(r)
  if r.dirty then update_world(r) end
  return r
end
E.world = world

local function world_scale(r)
  world(r)
  return sqrt(r.m00 * r.m00 + r.m10 * r.m10 + r.m20 * r.m20), sqrt(r.m01 * r.m01 + r.m11 * r.m11 + r.m21 * r.m21),
    sqrt(r.m02 * r.m02 + r.m12 * r.m12 + r.m22 * r.m22)
end
E.world_scale = world_scale

-- Inverse of a 3x4 affine matrix applied to a point (w=1) or a direction (w=0).
local function inverse_apply(r, x, y, z, w)
  world(r)
  local a, b, c = r.m00, r.m01, r.m02
  local d, e, f = r.m10, r.m11, r.m12
  local g, h, i = r.m20, r.m21, r.m22
  local det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
  if det == 0 then return 0.0, 0.0, 0.0 end
  local inv = 1 / det
  local i00, i01, i02 = (e * i - f * h) * inv, (c * h - b * i) * inv, (b * f - c * e) * inv
  local i10, i11, i12 = (f * g - d * i) * inv, (a * i - c * g) * inv, (c * d - a * f) * inv
  local i20, i21, i22 = (d * h - e * g) * inv, (b * g - a * h) * inv, (a * e - b * d) * inv
  if w ~= 0 then x, y, z = x - r.m03, y - r.m13, z - r.m23 end
  return i00 * x + i01 * y + i02 * z, i10 * x + i11 * y + i12 * z, i20 * x + i21 * y + i22 * z
end
local function apply(r, x, y, z, w)
  world(r)
  local ox, oy, oz = r.m00 * x + r.m01 * y + r.m02 * z, r.m10 * x + r.m11 * y + r.m12 * z,
    r.m20 * x + r.m21 * y + r.m22 * z
  if w ~= 0 then ox, oy, oz = ox + r.m03, oy + r.m13, oz + r.m23 end
  return ox, oy, oz
end
E.node_apply, E.node_inverse_apply = apply, inverse_apply

-- parent "is the scene or none": Urho3D treats both the same for TS_PARENT/TS_WORLD shortcuts.
local function parent_is_root(r)
  local p = r.parent
  return p == nil or p.is_scene == true
end

----------------------------------------------------------------------------------------------------
-- scene bookkeeping
----------------------------------------------------------------------------------------------------
local function scene_of(r) return r.scene end

-- Urho3D's scene change events (NodeAdded, NodeNameChanged, ComponentRemoved, ...) are sent by the scene.
local function scene_event(scene, name, fields)
  if scene and E.has_subscribers(name) then
    fields.Scene = scene.proxy
    E.send_event(name, fields, scene.proxy)
  end
end
E.scene_event = scene_event

-- Scene::GetFreeNodeID: the next ID of the range from the scene's counter, skipping IDs in use, wrapping at the end.
local function free_node_id(scene, local_mode)
  while true do
    local id
    if local_mode then
      id = scene.next_local_node
      scene.next_local_node = id < LAST_LOCAL_ID and id + 1 or FIRST_LOCAL_ID
    else
      id = scene.next_node
      scene.next_node = id < LAST_REPLICATED_ID and id + 1 or FIRST_REPLICATED_ID
    end
    if not scene.nodes[id] then return id end
  end
end
E.free_node_id = free_node_id

-- Add r's subtree to `scene`; `id` (the subtree root's, when given and free) as Node::CreateChild(id, mode) keeps it.
local function register_node(scene, r, id)
  if scene == nil then return end
  if id == nil or id == 0 or scene.nodes[id] then id = free_node_id(scene, r.local_mode) end
  r.id = id
  r.scene = scene
  scene.nodes[id] = r
  for _, t in ipairs(r.tags) do E.tag_in_scene(scene, r, t) end
  for _, c in ipairs(r.components) do E.register_component(scene, c) end
  for _, child in ipairs(r.children) do register_node(scene, child) end
end

local function unregister_node(r)
  local scene = r.scene
  if scene then scene.nodes[r.id] = nil end
  for _, c in ipairs(r.components) do
    if scene then scene.component_ids[c.id] = nil end
    if c.on_scene_removed then c.on_scene_removed(c) end
  end
  for _, child in ipairs(r.children) do unregister_node(child) end
  r.scene = nil
end

-- Every change of a parent or of a list of children, and every removal, counts here (the physics syncs cache which
-- nodes they may write directly while it stays the same).
E.tree_version = 0

local function detach(r)
  local p = r.parent
  if p == nil then return end
  local kids = p.children
  for i = 1, #kids do
    if kids[i] == r then tremove(kids, i); break end
  end
  r.parent = nil
  E.tree_version = E.tree_version + 1
end

local function attach(parent, r, index, id)
  if r == parent then return end
  local p = parent
  while p do
    if p == r then return end   -- would create a cycle
    p = p.parent
  end
  local old_scene = r.scene
  if r.parent and old_scene and old_scene == parent.scene then
    scene_event(old_scene, "NodeRemoved", {Parent = r.parent.proxy, Node = r.proxy})
  end
  detach(r)
  r.parent = parent
  if index == nil or index > #parent.children then
    parent.children[#parent.children + 1] = r
  else
    tinsert(parent.children, index + 1, r)
  end
  E.tree_version = E.tree_version + 1
  if parent.scene ~= old_scene then
    if old_scene then unregister_node(r) end
    register_node(parent.scene, r, id)
  end
  r.dirty = false
  mark_dirty(r)
  scene_event(r.scene, "NodeAdded", {Parent = parent.proxy, Node = r.proxy})
end

local function new_node(class_name)
  local mt = class_name == "Scene" and scene_mt or node_mt
  local proxy = setmetatable({}, mt)
  local r = new_node_record(proxy, class_name)
  REC[proxy] = r
  return r
end

local function remove_node(r)
  if r.removed then return end
  local scene = r.scene
  if r.parent then scene_event(scene, "NodeRemoved", {Parent = r.parent.proxy, Node = r.proxy}) end
  local function stop_scripts(x)
    for _, so in ipairs(x.script_objects) do E.script_object_stop(so) end
    for _, c in ipairs(x.children) do stop_scripts(c) end
  end
  stop_scripts(r)
  unregister_node(r)
  detach(r)
  -- Urho3D destroys a removed node and its subtree; using one afterwards is an error here, loudly
  local function mark(x)
    x.removed = true
    for _, c in ipairs(x.children) do mark(c) end
  end
  mark(r)
  E.tree_version = E.tree_version + 1
end

----------------------------------------------------------------------------------------------------
-- Node methods
----------------------------------------------------------------------------------------------------
local N = Node.methods
local function vec_args(a, b, c)
  if type(a) == "number" then return a, b or 0, c or 0 end
  if a == nil then error("bad argument (Vector3 expected, got nil)", 3) end
  return a.x or 0, a.y or 0, a.z or 0
end

local function set_name(r, name)
  name = tostring(name or "")
  if name == r.name then return end
  r.name = name
  scene_event(r.scene, "NodeNameChanged", {Node = r.proxy})
end
N.SetName = function(self, name) set_name(node_rec(self), name) end
N.GetName = function(self) return node_rec(self).name end
N.GetNameHash = function(self) return E.StringHash_new(node_rec(self).name) end
N.GetID = function(self)
  local r = node_rec(self)
  if r.removed then return 0 end   -- a held removed node: Urho3D's Node::ResetScene sets its ID to 0
  return r.id
end
N.IsReplicated = function(self) return node_rec(self).id < FIRST_LOCAL_ID end

N.SetPosition = function(self, p)
  local r = node_rec(self)
  r.px, r.py, r.pz = p.x, p.y, p.z
  mark_dirty(r)
end
N.GetPosition = function(self) local r = node_rec(self); return v3(r.px, r.py, r.pz) end
N.SetPosition2D = function(self, a, b)
  local r = node_rec(self)
  if type(a) == "number" then r.px, r.py = a, b else r.px, r.py = a.x, a.y end
  mark_dirty(r)
end
N.GetPosition2D = function(self) local r = node_rec(self); return E.Vector2_new(r.px, r.py) end
N.SetRotation = function(self, q)
  local r = node_rec(self)
  r.rw, r.rx, r.ry, r.rz = q.w, q.x, q.y, q.z
  mark_dirty(r)
end
N.GetRotation = function(self) local r = node_rec(self); return quat(r.rw, r.rx, r.ry, r.rz) end
N.SetRotation2D = function(self, angle)
  local r = node_rec(self)
  r.rw, r.rx, r.ry, r.rz = axis_angle(angle, 0, 0, 1)
  mark_dirty(r)
end
N.GetRotation2D = function(self) local r = node_rec(self); return quat(r.rw, r.rx, r.ry, r.rz):RollAngle() end
N.SetScale = function(self, a, b, c)
  local r = node_rec(self)
  if type(a) == "number" and b == nil then r.sx, r.sy, r.sz = a, a, a else r.sx, r.sy, r.sz = vec_args(a, b, c) end
  -- Urho3D avoids exact zero scale, which would make the transform singular
  if r.sx == 0 then r.sx = 1e-5 end
  if r.sy == 0 then r.sy = 1e-5 end
  if r.sz == 0 then r.sz = 1e-5 end
  mark_dirty(r)
end
N.GetScale = function(self) local r = node_rec(self); return v3(r.sx, r.sy, r.sz) end
N.SetScale2D = function(self, a, b)
  local r = node_rec(self)
  if type(a) == "number" then r.sx, r.sy = a, b else r.sx, r.sy = a.x, a.y end
  mark_dirty(r)
end
N.GetScale2D = function(self) local r = node_rec(self); return E.Vector2_new(r.sx, r.sy) end
N.SetTransform = function(self, pos, rot, scale)
  local r = node_rec(self)
  r.px, r.py, r.pz = pos.x, pos.y, pos.z
  if rot then r.rw, r.rx, r.ry, r.rz = rot.w, rot.x, rot.y, rot.z end
  if type(scale) == "number" then r.sx, r.sy, r.sz = scale, scale, scale
  elseif scale then r.sx, r.sy, r.sz = scale.x, scale.y, scale.z end
  mark_dirty(r)
end
N.SetDirection = function(self, d)
  local q = E.IMPL.Quaternion.new()
  q:FromRotationTo(v3(0, 0, 1), d)
  N.SetRotation(self, q)
end
N.GetDirection = function(self) local r = node_rec(self); return v3(qrot(r.rw, r.rx, r.ry, r.rz, 0, 0, 1)) end
N.GetUp = function(self) local r = node_rec(self); return v3(qrot(r.rw, r.rx, r.ry, r.rz, 0, 1, 0)) end
N.GetRight = function(self) local r = node_rec(self); return v3(qrot(r.rw, r.rx, r.ry, r.rz, 1, 0, 0)) end

N.GetWorldPosition = function(self) local r = world(node_rec(self)); return v3(r.m03, r.m13, r.m23) end
N.GetWorldPosition2D = function(self) local r = world(node_rec(self)); return E.Vector2_new(r.m03, r.m13) end
N.GetWorldRotation = function(self) local r = world(node_rec(self)); return quat(r.ww, r.wx, r.wy, r.wz) end
N.GetWorldRotation2D = function(self) return N.GetWorldRotation(self):RollAngle() end
N.GetWorldScale = function(self) return v3(world_scale(node_rec(self))) end
N.GetWorldScale2D = function(self) local x, y = world_scale(node_rec(self)); return E.Vector2_new(x, y) end
N.GetWorldDirection = function(self) local r = world(node_rec(self)); return v3(qrot(r.ww, r.wx, r.wy, r.wz, 0, 0, 1)) end
N.GetWorldUp = function(self) local r = world(node_rec(self)); return v3(qrot(r.ww, r.wx, r.wy, r.wz, 0, 1, 0)) end
N.GetWorldRight = function(self) local r = world(node_rec(self)); return v3(qrot(r.ww, r.wx, r.wy, r.wz, 1, 0, 0)) end
N.GetWorldTransform = function(self)
  local r = world(node_rec(self))
  local m = E.IMPL.Matrix3x4.new()
  m.m00, m.m01, m.m02, m.m03 = r.m00, r.m01, r.m02, r.m03
  m.m10, m.m11, m.m12, m.m13 = r.m10, r.m11, r.m12, r.m13
  m.m20, m.m21, m.m22, m.m23 = r.m20, r.m21, r.m22, r.m23
  return m
end
N.GetTransform = function(self)
  local r = node_rec(self)
  return E.IMPL.Matrix3x4.new(v3(r.px, r.py, r.pz), quat(r.rw, r.rx, r.ry, r.rz), v3(r.sx, r.sy, r.sz))
end

N.SetWorldPosition = function(self, p)
  local r = node_rec(self)
  if parent_is_root(r) then r.px, r.py, r.pz = p.x, p.y, p.z
  else r.px, r.py, r.pz = inverse_apply(r.parent, p.x, p.y, p.z, 1) end
  mark_dirty(r)
end
N.SetWorldPosition2D = function(self, a, b)
  local x, y = a, b
  if type(a) ~= "number" then x, y = a.x, a.y end
  N.SetWorldPosition(self, v3(x, y, world(node_rec(self)).m23))
end
N.SetWorldRotation = function(self, q)
  local r = node_rec(self)
  if parent_is_root(r) then r.rw, r.rx, r.ry, r.rz = q.w, q.x, q.y, q.z
  else
    local p = world(r.parent)
    local iw, ix, iy, iz = qinv(p.ww, p.wx, p.wy, p.wz)
    r.rw, r.rx, r.ry, r.rz = qmul(iw, ix, iy, iz, q.w, q.x, q.y, q.z)
  end
  mark_dirty(r)
end
N.SetWorldRotation2D = function(self, angle) N.SetWorldRotation(self, quat(axis_angle(angle, 0, 0, 1))) end
N.SetWorldScale = function(self, a, b, c)
  local r = node_rec(self)
  local x, y, z
  if type(a) == "number" and b == nil then x, y, z = a, a, a else x, y, z = vec_args(a, b, c) end
  if not parent_is_root(r) then
    local px, py, pz = world_scale(r.parent)
    x, y, z = x / px, y / py, z / pz
  end
  N.SetScale(self, x, y, z)
end
N.SetWorldDirection = function(self, d)
  -- Urho3D turns the direction into parent space first, then takes the shortest arc from FORWARD there
  local r = node_rec(self)
  local dx, dy, dz = d.x, d.y, d.z
  if not parent_is_root(r) then
    local p = world(r.parent)
    local iw, ix, iy, iz = qinv(p.ww, p.wx, p.wy, p.wz)
    dx, dy, dz = qrot(iw, ix, iy, iz, dx, dy, dz)
  end
  local q = E.IMPL.Quaternion.new()
  q:FromRotationTo(v3(0, 0, 1), v3(dx, dy, dz))
  N.SetRotation(self, q)
end

N.Translate = function(self, d, space)
  local r = node_rec(self)
  space = space or TS_LOCAL
  if space == TS_LOCAL then
    local x, y, z = qrot(r.rw, r.rx, r.ry, r.rz, d.x, d.y, d.z)
    r.px, r.py, r.pz = r.px + x, r.py + y, r.pz + z
  elseif space == TS_PARENT or parent_is_root(r) then
    r.px, r.py, r.pz = r.px + d.x, r.py + d.y, r.pz + d.z
  else
    local x, y, z = inverse_apply(r.parent, d.x, d.y, d.z, 0)
    r.px, r.py, r.pz = r.px + x, r.py + y, r.pz + z
  end
  mark_dirty(r)
end
N.Translate2D = function(self, d, space) N.Translate(self, v3(d.x, d.y, 0), space) end

local function rotate(r, dw, dx, dy, dz, space)
  space = space or TS_LOCAL
  if space == TS_LOCAL then
    r.rw, r.rx, r.ry, r.rz = qnorm(qmul(r.rw, r.rx, r.ry, r.rz, dw, dx, dy, dz))
  elseif space == TS_PARENT or parent_is_root(r) then
    r.rw, r.rx, r.ry, r.rz = qnorm(qmul(dw, dx, dy, dz, r.rw, r.rx, r.ry, r.rz))
  else
    local wr = world(r)
    local ww, wx, wy, wz = wr.ww, wr.wx, wr.wy, wr.wz
    local iw, ix, iy, iz = qinv(ww, wx, wy, wz)
    local aw, ax, ay, az = qmul(r.rw, r.rx, r.ry, r.rz, iw, ix, iy, iz)
    aw, ax, ay, az = qmul(aw, ax, ay, az, dw, dx, dy, dz)
    r.rw, r.rx, r.ry, r.rz = qmul(aw, ax, ay, az, ww, wx, wy, wz)
  end
  mark_dirty(r)
end
N.Rotate = function(self, q, space) rotate(node_rec(self), q.w, q.x, q.y, q.z, space) end
N.Rotate2D = function(self, angle, space)
  local w, x, y, z = axis_angle(angle, 0, 0, 1)
  rotate(node_rec(self), w, x, y, z, space)
end
N.Yaw = function(self, angle, space)
  local w, x, y, z = axis_angle(angle, 0, 1, 0)
  rotate(node_rec(self), w, x, y, z, space)
end
N.Pitch = function(self, angle, space)
  local w, x, y, z = axis_angle(angle, 1, 0, 0)
  rotate(node_rec(self), w, x, y, z, space)
end
N.Roll = function(self, angle, space)
  local w, x, y, z = axis_angle(angle, 0, 0, 1)
  rotate(node_rec(self), w, x, y, z, space)
end
N.RotateAround = function(self, point, q, space)
  local r = node_rec(self)
  space = space or TS_LOCAL
  local parent_space_point
  local old_w, old_x, old_y, old_z = r.rw, r.rx, r.ry, r.rz
  if space == TS_LOCAL then
    local x, y, z = qrot(r.rw, r.rx, r.ry, r.rz, point.x * r.sx, point.y * r.sy, point.z * r.sz)
    parent_space_point = v3(r.px + x, r.py + y, r.pz + z)
    r.rw, r.rx, r.ry, r.rz = qnorm(qmul(r.rw, r.rx, r.ry, r.rz, q.w, q.x, q.y, q.z))
  elseif space == TS_PARENT or parent_is_root(r) then
    parent_space_point = point
    r.rw, r.rx, r.ry, r.rz = qnorm(qmul(q.w, q.x, q.y, q.z, r.rw, r.rx, r.ry, r.rz))
  else
    parent_space_point = v3(inverse_apply(r.parent, point.x, point.y, point.z, 1))
    local wr = world(r)
    local ww, wx, wy, wz = wr.ww, wr.wx, wr.wy, wr.wz
    local iw, ix, iy, iz = qinv(ww, wx, wy, wz)
    local aw, ax, ay, az = qmul(r.rw, r.rx, r.ry, r.rz, iw, ix, iy, iz)
    aw, ax, ay, az = qmul(aw, ax, ay, az, q.w, q.x, q.y, q.z)
    r.rw, r.rx, r.ry, r.rz = qmul(aw, ax, ay, az, ww, wx, wy, wz)
  end
  -- position = point + newRot * (oldRot^-1 * (position - point))
  local ow, ox, oy, oz = qinv(old_w, old_x, old_y, old_z)
  local dx, dy, dz = qrot(ow, ox, oy, oz, r.px - parent_space_point.x, r.py - parent_space_point.y,
    r.pz - parent_space_point.z)
  dx, dy, dz = qrot(r.rw, r.rx, r.ry, r.rz, dx, dy, dz)
  r.px, r.py, r.pz = parent_space_point.x + dx, parent_space_point.y + dy, parent_space_point.z + dz
  mark_dirty(r)
end
N.Scale = function(self, a, b, c)
  local r = node_rec(self)
  local x, y, z
  if type(a) == "number" and b == nil then x, y, z = a, a, a else x, y, z = vec_args(a, b, c) end
  r.sx, r.sy, r.sz = r.sx * x, r.sy * y, r.sz * z
  mark_dirty(r)
end
N.Scale2D = function(self, s) N.Scale(self, s.x, s.y, 1) end
N.LookAt = function(self, target, up, space)
  local r = node_rec(self)
  space = space or TS_WORLD
  up = up or v3(0, 1, 0)
  local tx, ty, tz = target.x, target.y, target.z
  if space == TS_LOCAL then tx, ty, tz = apply(r, tx, ty, tz, 1)
  elseif space == TS_PARENT and not parent_is_root(r) then tx, ty, tz = apply(r.parent, tx, ty, tz, 1) end
  local wr = world(r)
  local dx, dy, dz = tx - wr.m03, ty - wr.m13, tz - wr.m23
  if dx == 0 and dy == 0 and dz == 0 then return false end
  local q = E.IMPL.Quaternion.new()
  if not q:FromLookRotation(v3(dx, dy, dz), up) then return false end
  N.SetWorldRotation(self, q)
  return true
end
N.LocalToWorld = function(self, v)
  local r = node_rec(self)
  if E.is(v, "Vector4") then return v3(apply(r, v.x, v.y, v.z, v.w)) end
  return v3(apply(r, v.x, v.y, v.z, 1))
end
N.LocalToWorld2D = function(self, v)
  local x, y = apply(node_rec(self), v.x, v.y, 0, 1)
  return E.Vector2_new(x, y)
end
N.WorldToLocal = function(self, v)
  local r = node_rec(self)
  if E.is(v, "Vector4") then return v3(inverse_apply(r, v.x, v.y, v.z, v.w)) end
  return v3(inverse_apply(r, v.x, v.y, v.z, 1))
end
N.WorldToLocal2D = function(self, v)
  local x, y = inverse_apply(node_rec(self), v.x, v.y, 0, 1)
  return E.Vector2_new(x, y)
end

-- enable state
local function set_enabled(r, enable, recursive, store_self)
  if store_self then r.enabled_prev = enable end
  if r.enabled ~= enable then
    r.enabled = enable
    for _, c in ipairs(r.components) do
      if c.on_node_set_enabled then c.on_node_set_enabled(c) end
    end
    scene_event(r.scene, "NodeEnabledChanged", {Node = r.proxy})
    for _, c in ipairs(r.components) do
      if c.on_set_enabled then c.on_set_enabled(c) end   -- Component::OnSetEnabled
      scene_event(r.scene, "ComponentEnabledChanged", {Node = r.proxy, Component = c.proxy})
    end
  end
  if recursive then
    for _, child in ipairs(r.children) do set_enabled(child, enable, true, store_self) end
  end
end
N.SetEnabled = function(self, enable) set_enabled(node_rec(self), enable and true or false, false, true) end
N.SetEnabledRecursive = function(self, enable) set_enabled(node_rec(self), enable and true or false, true, true) end
N.SetDeepEnabled = function(self, enable) set_enabled(node_rec(self), enable and true or false, true, false) end
N.ResetDeepEnabled = function(self)
  local function reset(r)
    set_enabled(r, r.enabled_prev, false, false)
    for _, c in ipairs(r.children) do reset(c) end
  end
  reset(node_rec(self))
end
N.IsEnabled = function(self) return node_rec(self).enabled end
N.IsEnabledSelf = function(self) return node_rec(self).enabled_prev end

-- hierarchy
-- Node::CreateChild(id, mode, temporary): the ID when it is given and free, else the scene's next free one.
local function create_child(parent, mode, id, temporary)
  local r = new_node("Node")
  r.local_mode = (mode == 1)
  if temporary then   -- set before the node joins its parent, as Urho3D's CreateChild does: its event comes first
    r.temporary = true
    E.send_event("TemporaryChanged", {Serializable = r.proxy}, r.proxy)
  end
  id = math.tointeger(id) or 0
  if id < 0 or id > LAST_LOCAL_ID then id = 0 end
  attach(parent, r, nil, id)
  if parent.scene == nil then r.id = id end
  return r
end
E.create_child = create_child
N.CreateChild = function(self, name, mode, id, temporary)
  local parent = node_rec(self)
  if type(name) == "number" then   -- CreateChild(id, mode, temporary)
    return create_child(parent, mode, name, id).proxy
  end
  local r = create_child(parent, mode, id, temporary)
  if type(name) == "string" then set_name(r, name) end   -- after adding, as Urho3D's CreateChild does
  return r.proxy
end
N.CreateTemporaryChild = function(self, name, mode, id) return N.CreateChild(self, name, mode, id, true) end
N.AddChild = function(self, child, index)
  if child == nil then return end
  attach(node_rec(self), node_rec(child), index)
end
N.RemoveChild = function(self, child)
  local r = node_rec(self)
  local c = REC[child]
  if c and c.parent == r then remove_node(c) end
end
N.RemoveAllChildren = function(self)
  local r = node_rec(self)
  local kids = {}
  for i, c in ipairs(r.children) do kids[i] = c end
  for _, c in ipairs(kids) do remove_node(c) end
end
N.RemoveChildren = function(self, remove_replicated, remove_local, recursive)
  local r = node_rec(self)
  local kids = {}
  for i, c in ipairs(r.children) do kids[i] = c end
  for _, c in ipairs(kids) do
    local is_local = c.id >= FIRST_LOCAL_ID
    if recursive then N.RemoveChildren(c.proxy, remove_replicated, remove_local, true) end
    if (is_local and remove_local) or (not is_local and remove_replicated) then remove_node(c) end
  end
end
N.Remove = function(self)
  local r = REC[self]
  if r == nil or r.removed then return end
  remove_node(r)
end
-- UrhoX: release the script's reference now rather than at collection.  The scene graph holds its own references,
-- so a node with a parent stays where it is, its handle still usable (UrhoX does not document what a released
-- handle does next); a node nothing else holds (no parent) is destroyed, as its last reference going would
-- destroy it, and its handle then fails as a removed node's does.
N.Dispose = function(self)
  local r = REC[self]
  if r == nil or r.removed or r.parent ~= nil or r.is_scene then return end
  remove_node(r)
end
N.SetParent = function(self, parent)
  local r = node_rec(self)
  local p = node_rec(parent)
  -- keep the world transform, as Urho3D's SetParent does
  local wr = world(r)
  local px, py, pz = wr.m03, wr.m13, wr.m23
  local qw, qx, qy, qz = wr.ww, wr.wx, wr.wy, wr.wz
  local sx, sy, sz = world_scale(r)
  attach(p, r)
  N.SetWorldPosition(self, v3(px, py, pz))
  N.SetWorldRotation(self, quat(qw, qx, qy, qz))
  N.SetWorldScale(self, sx, sy, sz)
end
N.GetParent = function(self) local p = node_rec(self).parent; return p and p.proxy end
N.GetScene = function(self) local s = node_rec(self).scene; return s and s.proxy end
N.IsChildOf = function(self, node)
  local target = REC[node]
  local p = node_rec(self).parent
  while p do
    if p == target then return true end
    p = p.parent
  end
  return false
end
N.GetNumChildren = function(self, recursive)
  local r = node_rec(self)
  if not recursive then return #r.children end
  local n = 0
  local function count(x) for _, c in ipairs(x.children) do n = n + 1; count(c) end end
  count(r)
  return n
end
local function collect_children(r, recursive, out, pred)
  for _, c in ipairs(r.children) do
    if pred == nil or pred(c) then out[#out + 1] = c.proxy end
    if recursive then collect_children(c, true, out, pred) end
  end
  return out
end
N.GetChildren = function(self, recursive) return collect_children(node_rec(self), recursive, {}) end
N.GetChild = function(self, key, recursive)
  local r = node_rec(self)
  if type(key) == "number" then
    local c = r.children[key + 1]
    return c and c.proxy
  end
  local name = type(key) == "string" and key or (E.is(key, "StringHash") and key.name_) or nil
  local function find(x)
    for _, c in ipairs(x.children) do
      if c.name == name then return c end
      if recursive then
        local found = find(c)
        if found then return found end
      end
    end
    return nil
  end
  local found = find(r)
  return found and found.proxy
end
N.GetChildrenWithComponent = function(self, type_name, recursive)
  return collect_children(node_rec(self), recursive, {}, function(c)
    for _, comp in ipairs(c.components) do if comp.type_name == type_name then return true end end
    return false
  end)
end
N.GetChildrenWithTag = function(self, tag, recursive)
  return collect_children(node_rec(self), recursive, {}, function(c)
    for _, t in ipairs(c.tags) do if t == tag then return true end end
    return false
  end)
end

N.GetChildrenWithName = function(self, name, recursive)
  name = type(name) == "string" and name or (E.is(name, "StringHash") and name.name_) or tostring(name)
  return collect_children(node_rec(self), recursive, {}, function(c) return c.name == name end)
end

-- 2D and world-space shorthands, as Urho3D's Node.h writes them: a Vector2 position is (x, y, 0), an angle a roll,
-- a Vector2 scale (x, y, 1) and a number scale uniform.
local function scale3(scale)
  if scale == nil then return nil end
  if type(scale) == "number" then return v3(scale, scale, scale) end
  return v3(scale.x, scale.y, 1.0)
end
N.SetTransform2D = function(self, pos, angle, scale)
  N.SetTransform(self, v3(pos.x, pos.y, 0.0), quat(axis_angle(angle, 0, 0, 1)), scale3(scale))
end
N.SetWorldTransform = function(self, pos, rot, scale)
  N.SetWorldPosition(self, pos)
  N.SetWorldRotation(self, rot)
  if scale ~= nil then N.SetWorldScale(self, scale) end
end
N.SetWorldTransform2D = function(self, pos, angle, scale)
  N.SetWorldTransform(self, v3(pos.x, pos.y, 0.0), quat(axis_angle(angle, 0, 0, 1)), scale3(scale))
end
N.SetWorldScale2D = function(self, a, b)
  if type(a) == "number" then N.SetWorldScale(self, v3(a, b, 1.0)) else N.SetWorldScale(self, v3(a.x, a.y, 1.0)) end
end
N.RotateAround2D = function(self, point, angle, space)
  N.RotateAround(self, v3(point.x, point.y, 0.0), quat(axis_angle(angle, 0, 0, 1)), space)
end
-- The world scale with the sign of each axis: the world transform's columns against the world rotation's.
N.GetSignedWorldScale = function(self)
  local r = world(node_rec(self))
  local ax, ay, az = qrot(r.ww, r.wx, r.wy, r.wz, 1, 0, 0)
  local bx, by, bz = qrot(r.ww, r.wx, r.wy, r.wz, 0, 1, 0)
  local cx, cy, cz = qrot(r.ww, r.wx, r.wy, r.wz, 0, 0, 1)
  return v3(ax * r.m00 + ay * r.m10 + az * r.m20, bx * r.m01 + by * r.m11 + bz * r.m21,
    cx * r.m02 + cy * r.m12 + cz * r.m22)
end
N.MarkDirty = function(self) mark_dirty(node_rec(self)) end
N.IsDirty = function(self) return node_rec(self).dirty == true end
-- As Urho3D's Node::SetID: the node's own id only (the scene's lookup keeps the id it registered).
N.SetID = function(self, id) node_rec(self).id = E.tolua_int(id, "SetID", 1) end
N.SetOwner = function(self, connection) node_rec(self).owner = connection end
N.GetOwner = function(self) return node_rec(self).owner end
N.GetNumNetworkComponents = function(self)
  local n = 0
  for _, c in ipairs(node_rec(self).components) do if c.id < FIRST_LOCAL_ID then n = n + 1 end end
  return n
end
-- Move one of this node's components to `index` in its list (Urho3D ignores a component of another node).
N.ReorderComponent = function(self, component, index)
  local r = node_rec(self)
  local comps = r.components
  for i, c in ipairs(comps) do
    if c.proxy == component then
      table.remove(comps, i)
      local at = math.max(0, math.min(E.tolua_int(index, "ReorderComponent", 2), #comps))
      table.insert(comps, at + 1, c)
      return
    end
  end
end

-- tags and vars
N.AddTag = function(self, tag)
  local r = node_rec(self)
  if tag == nil or tag == "" then return end
  for _, t in ipairs(r.tags) do if t == tag then return end end
  r.tags[#r.tags + 1] = tag
  if r.scene then E.tag_in_scene(r.scene, r, tag) end
  scene_event(r.scene, "NodeTagAdded", {Node = r.proxy, Tag = tag})
end
N.AddTags = function(self, tags, sep)
  if type(tags) == "string" then
    -- Urho3D's Lua binding takes the separator as a char, i.e. its code (59 for ';'); a one-character string works too
    if type(sep) == "number" then sep = string.char(math.tointeger(sep) or 59) end
    sep = sep or ";"
    for t in tags:gmatch("[^" .. sep:gsub("%W", "%%%0") .. "]+") do N.AddTag(self, t) end
  else
    for _, t in ipairs(tags) do N.AddTag(self, t) end
  end
end
N.RemoveTag = function(self, tag)
  local r = node_rec(self)
  for i, t in ipairs(r.tags) do
    if t == tag then
      tremove(r.tags, i)
      scene_event(r.scene, "NodeTagRemoved", {Node = r.proxy, Tag = tag})
      return true
    end
  end
  return false
end
N.RemoveAllTags = function(self)
  local r = node_rec(self)
  local old = r.tags
  r.tags = {}
  for _, t in ipairs(old) do scene_event(r.scene, "NodeTagRemoved", {Node = r.proxy, Tag = t}) end
end
N.HasTag = function(self, tag)
  for _, t in ipairs(node_rec(self).tags) do if t == tag then return true end end
  return false
end
N.GetTags = function(self) local out = {}; for i, t in ipairs(node_rec(self).tags) do out[i] = t end; return out end
local function var_key(k)
  if type(k) == "string" then return k end
  if E.is(k, "StringHash") then return k.name_ or k.value_ end
  return k
end
-- Urho3D keys variables by StringHash: a variable loaded from a file is known by its hash only, and reading or
-- writing it by name finds it through the name's hash.
local function stored_key(r, k)
  if r.vars[k] == nil and type(k) == "string" then
    local h = E.sdbm(k)
    if r.vars[h] ~= nil then return h end
  end
  return k
end
N.SetVar = function(self, key, value)
  local r = node_rec(self)
  local k = stored_key(r, var_key(key))
  if r.vars[k] == nil then r.var_order[#r.var_order + 1] = k end
  r.vars[k] = E.variant_of(value)
end
N.GetVar = function(self, key)
  local r = node_rec(self)
  return r.vars[stored_key(r, var_key(key))] or E.Variant_new("None", nil)
end
N.GetVars = function(self)
  local r = node_rec(self)
  local values = {}
  for k, v in pairs(r.vars) do values[k] = v end
  return E.VariantMap_new(values)
end

-- Node::Clone(mode): a copy of the subtree under the same parent, temporary parts left out.  A part keeps the
-- replicated range only when it is replicated and the mode is REPLICATED (the default).  The scene sends
-- ComponentCloned for each component (55_components.lua) and NodeCloned for each node once its subtree is copied,
-- so a child's NodeCloned comes before its parent's.
N.Clone = function(self, mode)
  local src = node_rec(self)
  local parent = src.parent
  if parent == nil or src.is_scene then
    E.log("ERROR", "Can not clone node without a parent")
    return nil
  end
  local replicated = mode == nil or mode == 0
  local function clone_into(p, s)
    local r = new_node("Node")
    r.local_mode = not (replicated and s.id < FIRST_LOCAL_ID)
    r.name = s.name
    r.px, r.py, r.pz, r.rw, r.rx, r.ry, r.rz, r.sx, r.sy, r.sz = s.px, s.py, s.pz, s.rw, s.rx, s.ry, s.rz, s.sx,
      s.sy, s.sz
    for i, t in ipairs(s.tags) do r.tags[i] = t end
    for i, k in ipairs(s.var_order) do r.var_order[i] = k; r.vars[k] = s.vars[k] end
    r.enabled, r.enabled_prev = s.enabled, s.enabled_prev
    attach(p, r)
    -- temporary components and child nodes are not cloned (Node::CloneRecursive)
    for _, c in ipairs(s.components) do
      if not c.temporary then E.clone_component(c, r, (replicated and c.id < FIRST_LOCAL_ID) and 0 or 1) end
    end
    for _, child in ipairs(s.children) do
      if not child.temporary then clone_into(r, child) end
    end
    scene_event(s.scene, "NodeCloned", {Node = s.proxy, CloneNode = r.proxy})
    return r
  end
  return clone_into(parent, src).proxy
end

Node.new = function()
  local r = new_node("Node")
  return r.proxy
end

----------------------------------------------------------------------------------------------------
-- Scene
----------------------------------------------------------------------------------------------------
local SC = Scene.methods
Scene.new = function()
  local r = new_node("Scene")
  r.kind = "node"
  r.is_scene = true
  -- the scene's id -> component map is its own table: r.components is the scene node's own component list
  r.nodes, r.component_ids = {}, {}
  r.next_node, r.next_local_node = FIRST_REPLICATED_ID, FIRST_LOCAL_ID
  r.next_component, r.next_local_component = FIRST_REPLICATED_ID, FIRST_LOCAL_ID
  r.update_enabled = true
  r.tag_counter = 0
  r.time_scale = 1.0
  r.elapsed = 0.0
  r.smoothing_constant = 50.0
  r.snap_threshold = 5.0
  r.scene = r
  register_node(r, r, FIRST_REPLICATED_ID)
  r.next_node = FIRST_REPLICATED_ID + 1
  E.scenes[#E.scenes + 1] = r
  return r.proxy
end
E.scenes = {}
local function scene_rec(self)
  local r = node_rec(self)
  if not r.is_scene then error("invalid 'self' (a Scene was expected)", 3) end
  return r
end
E.scene_rec = scene_rec
SC.GetNode = function(self, id) local n = scene_rec(self).nodes[id]; return n and n.proxy end
-- Urho3D's Scene keeps a list per tag, appended to as nodes get the tag in the scene; the order is that.
function E.tag_in_scene(scene, r, tag)
  scene.tag_counter = scene.tag_counter + 1
  r.tag_seq = r.tag_seq or {}
  r.tag_seq[tag] = scene.tag_counter
end
SC.GetNodesWithTag = function(self, tag)
  local scene = scene_rec(self)
  local found = {}
  for _, r in pairs(scene.nodes) do
    if r ~= scene and r.tag_seq and r.tag_seq[tag] then
      for _, t in ipairs(r.tags) do
        if t == tag then found[#found + 1] = r; break end
      end
    end
  end
  table.sort(found, function(a, b) return a.tag_seq[tag] < b.tag_seq[tag] end)
  local out = {}
  for i, r in ipairs(found) do out[i] = r.proxy end
  return out
end
SC.GetComponent = function(self, a, b)
  if type(a) == "number" then
    local c = scene_rec(self).component_ids[a]
    return c and c.proxy
  end
  return N.GetComponent(self, a, b)
end
SC.SetUpdateEnabled = function(self, v) scene_rec(self).update_enabled = v and true or false end
SC.IsUpdateEnabled = function(self) return scene_rec(self).update_enabled end
SC.SetTimeScale = function(self, s) scene_rec(self).time_scale = s end
SC.GetTimeScale = function(self) return scene_rec(self).time_scale end
SC.SetElapsedTime = function(self, t) scene_rec(self).elapsed = t end
SC.GetElapsedTime = function(self) return scene_rec(self).elapsed end
SC.SetSmoothingConstant = function(self, v) scene_rec(self).smoothing_constant = v end
SC.GetSmoothingConstant = function(self) return scene_rec(self).smoothing_constant end
SC.SetSnapThreshold = function(self, v) scene_rec(self).snap_threshold = v end
SC.GetSnapThreshold = function(self) return scene_rec(self).snap_threshold end
-- Scene::Clear(clearReplicated, clearLocal): the nodes and components of those ranges; the name and variable names
-- too when clearing both; the ranges' ID counters start again.
SC.Clear = function(self, clear_replicated, clear_local)
  local r = scene_rec(self)
  if clear_replicated == nil then clear_replicated = true end
  if clear_local == nil then clear_local = true end
  N.RemoveChildren(self, clear_replicated, clear_local, true)
  local doomed = {}
  for _, c in ipairs(r.components) do
    local is_local = c.id >= FIRST_LOCAL_ID
    if (is_local and clear_local) or (not is_local and clear_replicated) then doomed[#doomed + 1] = c end
  end
  for _, c in ipairs(doomed) do E.remove_component(c) end
  if clear_replicated and clear_local then
    set_name(r, "")
    r.var_names = nil
    r.file_name, r.checksum = "", 0
  end
  if clear_replicated then r.next_node, r.next_component = FIRST_REPLICATED_ID, FIRST_REPLICATED_ID end
  if clear_local then r.next_local_node, r.next_local_component = FIRST_LOCAL_ID, FIRST_LOCAL_ID end
end
SC.GetFileName = function(self) return scene_rec(self).file_name or "" end
SC.GetChecksum = function(self) return scene_rec(self).checksum or 0 end
SC.IsReplicatedID = function(a, id)   -- static in Urho3D: Scene.IsReplicatedID(id) or scene:IsReplicatedID(id)
  if id == nil then id = a end
  return (math.tointeger(id) or 0) < FIRST_LOCAL_ID
end
SC.GetFreeNodeID = function(self, mode) return free_node_id(scene_rec(self), mode == 1) end
SC.GetFreeComponentID = function(self, mode) return E.free_component_id(scene_rec(self), mode == 1) end
SC.Update = function(self, step) E.update_scene(scene_rec(self), step) end
-- UrhoX's setter of the name Scene:GetFileName reports (loading from a file sets it too).
SC.SetFileName = function(self, name) scene_rec(self).file_name = E.tolua_string(name, "SetFileName", 1) end
-- Threaded update: Urho3D enters it only when its work queue has worker threads; the engine runs none, so the scene
-- never does, and components marked dirty "for later" have no later to wait for (EndThreadedUpdate would run them).
SC.BeginThreadedUpdate = function(self) scene_rec(self) end
SC.EndThreadedUpdate = function(self) scene_rec(self) end
SC.IsThreadedUpdate = function(self) scene_rec(self); return false end
SC.DelayedMarkedDirty = function(self) scene_rec(self) end
-- Network bookkeeping: the replication of 67_network_replication.lua compares a whole snapshot of the scene at each
-- network update, so every change is found without being marked first; marking one is accepted and changes nothing.
SC.MarkNetworkUpdate = function(self) scene_rec(self) end
SC.MarkReplicationDirty = function(self) scene_rec(self) end
SC.PrepareNetworkUpdate = function(self) scene_rec(self) end
-- Scene::CleanupConnection: nodes the connection owned own nothing any more.
SC.CleanupConnection = function(self, connection)
  local r = scene_rec(self)
  if connection == nil then return end
  local function walk(x)
    if x.owner == connection then x.owner = nil end
    for _, c in ipairs(x.children) do walk(c) end
  end
  walk(r)
end
-- Scene::NodeAdded / NodeRemoved / ComponentAdded / ComponentRemoved, which Urho3D's nodes call as they join and
-- leave a scene, exposed to call by hand: they change the scene's ID registry (what GetNode and GetComponent(id)
-- find) and the objects' scene and IDs, never the tree.  Removing takes the subtree out with IDs 0 and no owner
-- (Node::ResetScene, Component IDs 0); adding gives an object of ID 0 a new replicated ID and keeps another ID when
-- it is free (Urho3D would take it from the object holding it; here that object keeps it and this one gets a new one).
local function node_arg(x, fname)
  local r = REC[x]
  if r == nil or r.kind ~= "node" then
    if x == nil then return nil end
    E.raise_at_game("bad argument #1 to '" .. fname .. "' (Node expected)")
  end
  return r
end
local function comp_arg(x, fname)
  local c = REC[x]
  if c == nil or c.kind ~= "component" then
    if x == nil then return nil end
    E.raise_at_game("bad argument #1 to '" .. fname .. "' (Component expected)")
  end
  return c
end
SC.NodeAdded = function(self, node)
  local scene = scene_rec(self)
  local r = node_arg(node, "NodeAdded")
  if r == nil or r.removed or r.scene == scene then return end
  if r.scene then unregister_node(r) end
  local function prepare(x)
    x.local_mode = x.id >= FIRST_LOCAL_ID
    for _, c in ipairs(x.components) do
      c.local_mode, c.wanted_id = c.id >= FIRST_LOCAL_ID, c.id
    end
    for _, child in ipairs(x.children) do prepare(child) end
  end
  prepare(r)
  register_node(scene, r, r.id)
end
SC.NodeRemoved = function(self, node)
  local scene = scene_rec(self)
  local r = node_arg(node, "NodeRemoved")
  if r == nil or r.scene ~= scene or r == scene then return end
  unregister_node(r)
  local function reset(x)
    x.id, x.owner = 0, nil
    for _, c in ipairs(x.components) do c.id = 0 end
    for _, child in ipairs(x.children) do reset(child) end
  end
  reset(r)
end
SC.ComponentAdded = function(self, component)
  local scene = scene_rec(self)
  local c = comp_arg(component, "ComponentAdded")
  if c == nil or c.removed or scene.component_ids[c.id] == c then return end
  c.wanted_id = c.id
  E.register_component(scene, c)
end
SC.ComponentRemoved = function(self, component)
  local scene = scene_rec(self)
  local c = comp_arg(component, "ComponentRemoved")
  if c == nil or scene.component_ids[c.id] ~= c then return end
  scene.component_ids[c.id] = nil
  c.id = 0
  if c.on_scene_removed then c.on_scene_removed(c) end
end
-- Loading and saving: engine/lua/runtime/68_scene_files.lua.
