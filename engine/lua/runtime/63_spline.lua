-- Spline (Bezier, Catmull-Rom, linear, full Catmull-Rom through Variant knots) and the SplinePath component that
-- moves a node along the world positions of its control-point nodes at a constant speed, as Urho3D's Spline and
-- SplinePath do.  A control point that moves moves its knot (Urho3D listens to the node); a disabled one leaves the
-- curve, an enabled one rejoins it at its place; a removed one keeps its last position.
local error, type, ipairs, tostring = error, type, ipairs, tostring
local sqrt, mfmod, mfloor, tinsert, tremove = math.sqrt, math.fmod, math.floor, table.insert, table.remove
local REC = E.REC
local comp_rec = E.comp_rec
local f32 = E.MATH.f32

local BEZIER_CURVE, CATMULL_ROM_CURVE, LINEAR_CURVE, CATMULL_ROM_FULL_CURVE = 0, 1, 2, 3
local FIELDS = {Vector2 = {"x", "y"}, Vector3 = {"x", "y", "z"}, Vector4 = {"x", "y", "z", "w"},
  Color = {"r", "g", "b", "a"}}
local NUMERIC = {Float = true, Double = true}

-- Knots are {vtype, value}; the curve's arithmetic is per field.
local function combine(vtype, values, weights)
  if NUMERIC[vtype] then
    local s = 0.0
    for i, v in ipairs(values) do s = s + v * weights[i] end
    return s
  end
  local out = E.copy_value(values[1])
  for _, k in ipairs(FIELDS[vtype]) do
    local s = 0.0
    for i, v in ipairs(values) do s = s + v[k] * weights[i] end
    out[k] = s
  end
  return out
end
local function lerp(vtype, a, b, t) return combine(vtype, {a, b}, {1.0 - t, t}) end
local function supported(vtype) return NUMERIC[vtype] or FIELDS[vtype] ~= nil end

local function bezier(vtype, knots, t)
  if #knots == 2 then return lerp(vtype, knots[1], knots[2], t) end
  local reduced = {}
  for i = 2, #knots do reduced[i - 1] = lerp(vtype, knots[i - 1], knots[i], t) end
  return bezier(vtype, reduced, t)
end

local function catmull_rom(vtype, knots, t)
  local n = #knots
  if n < 4 then return nil end
  if t >= 1.0 then return E.copy_value(knots[n - 1]) end
  local origin = mfloor(t * (n - 3))
  t = mfmod(t * (n - 3), 1.0)
  local t2 = t * t
  local t3 = t2 * t
  -- 0.5 * (2 p1 + (-p0 + p2) t + (2 p0 - 5 p1 + 4 p2 - p3) t^2 + (-p0 + 3 p1 - 3 p2 + p3) t^3)
  local p = {knots[origin + 1], knots[origin + 2], knots[origin + 3], knots[origin + 4]}
  return combine(vtype, p, {0.5 * (-t + 2.0 * t2 - t3), 0.5 * (2.0 - 5.0 * t2 + 3.0 * t3),
    0.5 * (t + 4.0 * t2 - 3.0 * t3), 0.5 * (-t2 + t3)})
end

local function linear(vtype, knots, t)
  local n = #knots
  if n < 2 then return nil end
  if t >= 1.0 then return E.copy_value(knots[n]) end
  local origin = mfloor(t * (n - 1))
  if origin > n - 2 then origin = n - 2 end
  if origin < 0 then origin = 0 end
  t = mfmod(t * (n - 1), 1.0)
  return lerp(vtype, knots[origin + 1], knots[origin + 2], t)
end

local function same(vtype, a, b)
  if NUMERIC[vtype] then return a == b end
  for _, k in ipairs(FIELDS[vtype]) do if a[k] ~= b[k] then return false end end
  return true
end

-- Spline::GetPoint: the knots' type name, their values, the mode and f in [0, 1]; nil for an empty result.
local function spline_point(vtype, knots, mode, f)
  local n = #knots
  if n < 2 then return n == 1 and E.copy_value(knots[1]) or nil end
  if not supported(vtype) then return nil end
  if f > 1.0 then f = 1.0 elseif f < 0.0 then f = 0.0 end
  if mode == BEZIER_CURVE then return bezier(vtype, knots, f) end
  if mode == CATMULL_ROM_CURVE then return catmull_rom(vtype, knots, f) end
  if mode == LINEAR_CURVE then return linear(vtype, knots, f) end
  if mode == CATMULL_ROM_FULL_CURVE then
    local full = {}
    if not same(vtype, knots[1], knots[n]) then
      full[1] = knots[1]
      for i = 1, n do full[i + 1] = knots[i] end
      full[n + 2] = knots[n]
    else
      full[1] = knots[n - 1]
      for i = 1, n do full[i + 1] = knots[i] end
      full[n + 2] = knots[2]
    end
    return catmull_rom(vtype, full, f)
  end
  return nil   -- an unsupported mode (logged when it was set)
end
local function check_mode(mode)
  if mode ~= BEZIER_CURVE and mode ~= CATMULL_ROM_CURVE and mode ~= LINEAR_CURVE and mode ~= CATMULL_ROM_FULL_CURVE then
    E.log("ERROR", "Unsupported interpolation mode")
  end
  return mode
end
E.spline_point = spline_point

----------------------------------------------------------------------------------------------------
-- Spline
----------------------------------------------------------------------------------------------------
local Spline = class("Spline")
local function spline_rec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "spline" then error("invalid 'self' (a Spline was expected)", 3) end
  return r
end
Spline.new = function(a)
  local r = {kind = "spline", mode = BEZIER_CURVE, vtype = nil, knots = {}}
  if type(a) == "number" then
    r.mode = check_mode(a)
  elseif a ~= nil then
    local src = spline_rec(a)
    r.mode, r.vtype = src.mode, src.vtype
    for i, k in ipairs(src.knots) do r.knots[i] = E.copy_value(k) end
  end
  return E.new_object("Spline", r)
end
local SM = Spline.methods
local function variant(vtype, value)
  if value == nil then return E.Variant_new("None", nil) end
  return E.Variant_new(vtype, value)
end
local function knot_of(r, knot, what)
  local v = E.variant_of(knot)
  if r.vtype ~= nil and #r.knots > 0 and v.type_ ~= r.vtype then
    E.log("ERROR", string.format("Attempted to %s Spline of type %s where elements are already using %s", what,
      v.type_, r.vtype))
    return nil
  end
  return v
end
SM.GetPoint = function(self, f)
  local r = spline_rec(self)
  return variant(r.vtype, spline_point(r.vtype, r.knots, r.mode, E.anim_number(f, 1, "GetPoint")))
end
SM.GetKnot = function(self, index)
  local r = spline_rec(self)
  local k = r.knots[E.anim_index(index, 1, "GetKnot") + 1]
  return variant(r.vtype, k and E.copy_value(k))
end
SM.SetKnot = function(self, knot, index)
  local r = spline_rec(self)
  index = E.anim_index(index, 2, "SetKnot")
  if index >= #r.knots then return end
  local v = knot_of(r, knot, "set a Knot of a")
  if v then r.knots[index + 1] = E.copy_value(v.value_) end
end
SM.AddKnot = function(self, knot, index)
  local r = spline_rec(self)
  local v = knot_of(r, knot, "add Knot to")
  if v == nil then return end
  if #r.knots == 0 then r.vtype = v.type_ end
  local n = #r.knots
  if index ~= nil then index = E.anim_index(index, 2, "AddKnot") end
  if index == nil or index > n then index = n end
  tinsert(r.knots, index + 1, E.copy_value(v.value_))
end
SM.RemoveKnot = function(self, index)
  local r = spline_rec(self)
  if index == nil then tremove(r.knots) return end
  index = E.anim_index(index, 1, "RemoveKnot")
  if index < #r.knots then tremove(r.knots, index + 1) end
end
SM.Clear = function(self) spline_rec(self).knots = {} end
SM.GetInterpolationMode = function(self) return spline_rec(self).mode end
SM.SetInterpolationMode = function(self, mode)
  spline_rec(self).mode = check_mode(E.anim_number(mode, 1, "SetInterpolationMode"))
end
Spline.ops.eq = function(a, b)
  local x, y = REC[a], REC[b]
  if x == nil or y == nil or x.mode ~= y.mode or #x.knots ~= #y.knots then return false end
  for i, k in ipairs(x.knots) do
    if not same(x.vtype, k, y.knots[i]) then return false end
  end
  return true
end

----------------------------------------------------------------------------------------------------
-- SplinePath
----------------------------------------------------------------------------------------------------
local SP = class("SplinePath")
E.COMPONENT_FACTORIES.SplinePath = function(c)
  c.mode = BEZIER_CURVE
  c.speed, c.elapsed, c.traveled, c.length = 1.0, 0.0, 0.0, 0.0
  c.points = {}           -- {node = record, last = {x, y, z}}
  c.controlled = nil
  c.knot_key = nil        -- the knots the length was computed for
end

-- The knots: the world positions of the enabled control points (a removed one keeps its last position).
local function knots_of(c)
  local knots = {}
  for _, p in ipairs(c.points) do
    local n = p.node
    if not n.removed then
      local w = E.world(n)
      p.last = {w.m03, w.m13, w.m23}
    end
    if n.removed or n.enabled then knots[#knots + 1] = E.Vector3_new(p.last[1], p.last[2], p.last[3]) end
  end
  return knots
end

-- SplinePath::CalculateLength: 1000 chords from the first knot along the curve (kept when there are no knots).
local function refresh(c)
  local knots = knots_of(c)
  local parts = {c.mode}
  for _, k in ipairs(knots) do parts[#parts + 1] = k.x; parts[#parts + 1] = k.y; parts[#parts + 1] = k.z end
  local key = table.concat(parts, ",")
  if key ~= c.knot_key and #knots > 0 then
    c.knot_key = key
    local length = 0.0
    local ax, ay, az = knots[1].x, knots[1].y, knots[1].z
    for i = 0, 1000 do
      local b = spline_point("Vector3", knots, c.mode, f32(i / 1000.0)) or E.Vector3_new(0, 0, 0)
      local dx, dy, dz = ax - b.x, ay - b.y, az - b.z
      length = length + sqrt(dx * dx + dy * dy + dz * dz)
      ax, ay, az = b.x, b.y, b.z
    end
    c.length = length
  end
  return knots
end

local function point(c, f)
  return spline_point("Vector3", refresh(c), c.mode, f) or E.Vector3_new(0, 0, 0)
end

local P = SP.methods
P.AddControlPoint = function(self, node, index)
  local c = comp_rec(self)
  if node == nil then return end
  local n = E.node_rec(node)
  local count = #c.points
  if index ~= nil then index = E.anim_index(index, 2, "AddControlPoint") end
  if index == nil or index > count then index = count end
  tinsert(c.points, index + 1, {node = n, last = {0.0, 0.0, 0.0}})
  refresh(c)
end
P.RemoveControlPoint = function(self, node)
  local c = comp_rec(self)
  local n = REC[node]
  for i, p in ipairs(c.points) do
    if p.node == n then tremove(c.points, i); break end
  end
  refresh(c)
end
P.ClearControlPoints = function(self)
  local c = comp_rec(self)
  c.points = {}
  refresh(c)
end
P.SetInterpolationMode = function(self, mode)
  local c = comp_rec(self)
  c.mode = check_mode(E.anim_number(mode, 1, "SetInterpolationMode"))
  refresh(c)
end
P.GetInterpolationMode = function(self) return comp_rec(self).mode end
P.SetSpeed = function(self, speed) comp_rec(self).speed = f32(E.anim_number(speed, 1, "SetSpeed")) end
P.GetSpeed = function(self) return comp_rec(self).speed end
P.GetLength = function(self)
  local c = comp_rec(self)
  refresh(c)
  return c.length
end
P.SetPosition = function(self, factor)
  local c = comp_rec(self)
  factor = E.anim_number(factor, 1, "SetPosition")
  if factor < 0.0 then factor = 0.0 elseif factor > 1.0 then factor = 1.0 end
  c.traveled = f32(factor)
end
P.GetPosition = function(self)
  local c = comp_rec(self)
  return point(c, c.traveled)
end
P.GetPoint = function(self, factor) return point(comp_rec(self), E.anim_number(factor, 1, "GetPoint")) end
P.SetControlledNode = function(self, node)
  if node ~= nil then comp_rec(self).controlled = E.node_rec(node) end
end
P.GetControlledNode = function(self)
  local n = comp_rec(self).controlled
  if n == nil or n.removed then return nil end
  return n.proxy
end
P.Move = function(self, step)
  local c = comp_rec(self)
  step = E.anim_number(step, 1, "Move")
  refresh(c)
  local n = c.controlled
  if c.traveled >= 1.0 or c.length <= 0.0 or n == nil or n.removed then return end
  c.elapsed = f32(c.elapsed + f32(step))
  c.traveled = f32(c.elapsed * c.speed / c.length)
  n.proxy:SetWorldPosition(point(c, c.traveled))
end
P.Reset = function(self)
  local c = comp_rec(self)
  c.traveled, c.elapsed = 0.0, 0.0
end
P.IsFinished = function(self) return comp_rec(self).traveled >= 1.0 end
