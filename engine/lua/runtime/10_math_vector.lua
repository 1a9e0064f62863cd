-- Math value types, part 1: shared helpers, Vector2, Vector3, Vector4, IntVector2, IntVector3 and the
-- Vector* global functions.  Semantics follow Urho3D's Math/Vector*.h; values are plain tables with the
-- registry's data fields.  Float fields are stored as Lua floats (UrhoX pushes C floats with
-- lua_pushnumber), integer fields as Lua integers (C truncation on conversion).
local setmetatable, type, error, select, tonumber = setmetatable, type, error, select, tonumber
local sqrt, floor, ceil, acos, sin, mtype = math.sqrt, math.floor, math.ceil, math.acos, math.sin, math.type
local huge, pi = math.huge, math.pi
local sformat, spack, sunpack = string.format, string.pack, string.unpack
local tconcat = table.concat
local dgetmt = E.dgetmt

----------------------------------------------------------------------------------------------------
-- Shared helpers for the math modules (10-19)
----------------------------------------------------------------------------------------------------
local MX = {}
E.MATH = MX

MX.FLT_EPSILON = 1.1920928955078125e-07     -- std::numeric_limits<float>::epsilon(), used by Urho3D::Equals
MX.M_EPSILON = 0.000001
MX.M_LARGE_EPSILON = 0.00005
MX.M_MIN_NEARCLIP = 0.01
MX.M_INFINITY = huge
MX.M_DEGTORAD = pi / 180.0
MX.M_DEGTORAD_2 = pi / 360.0
MX.M_RADTODEG = 180.0 / pi
local FLT_EPSILON, M_RADTODEG = MX.FLT_EPSILON, MX.M_RADTODEG

-- C's (int) conversion of a number: truncation toward zero.
local function toint(v)
  if mtype(v) == "integer" then return v end
  v = tonumber(v)
  if v == nil then error("number expected", 3) end
  if v >= 0 then return floor(v) end
  return ceil(v)
end
MX.toint = toint

-- C's integer division (truncates toward zero); Lua's // floors.
local function cdiv(a, b)
  local q = a // b
  if q < 0 and q * b ~= a then q = q + 1 end
  return q
end
MX.cdiv = cdiv

-- Round a double to the nearest IEEE single (what a C float holds).
local function f32(x)
  return (sunpack("<f", spack("<f", x)))
end
MX.f32 = f32

-- Half an angle in degrees, in radians, as Urho3D computes it before sinf/cosf: `angle *= M_DEGTORAD_2` in single
-- precision.  The rounding matters at the branch cuts: Quaternion(180, axis) has w = cosf(float(pi/2)) = -4.4e-8
-- in Urho3D, so its Euler angles read -180, where cos(pi/2) in double (+6e-17) would give +180.
local F32_DEGTORAD_2 = f32(pi / 360.0)
function MX.half_angle(degrees)
  return f32(f32(degrees) * F32_DEGTORAD_2)
end

local function equals(a, b)
  return a + FLT_EPSILON >= b and a - FLT_EPSILON <= b
end
MX.equals = equals

-- Clamped acos in degrees (Urho3D::Acos).
local function acos_deg(x)
  if x < -1.0 then x = -1.0 elseif x > 1.0 then x = 1.0 end
  return M_RADTODEG * acos(x)
end
MX.acos_deg = acos_deg

-- C round(): half away from zero.
local function cround(x)
  if x ~= x or x == huge or x == -huge then return x end
  if x < 0 then
    local f = floor(-x)
    local d = -x - f
    if d >= 0.5 then f = f + 1 end
    return -f
  end
  local f = floor(x)
  if x - f >= 0.5 then f = f + 1 end
  return f
end
MX.cround = cround

local function describe(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do
    local v = select(i, ...)
    local mt = dgetmt(v)
    parts[i] = (type(v) == "table" and mt and mt.__name) or type(v)
  end
  return tconcat(parts, ", ")
end
-- A call that matches no declared overload: loud, with the argument types.
local function noverload(name, ...)
  error(sformat("%s: no overload accepts (%s)", name, describe(...)), 3)
end
MX.noverload = noverload

----------------------------------------------------------------------------------------------------
-- Classes and fast constructors
----------------------------------------------------------------------------------------------------
local V2, V3, V4, IV2, IV3 = class("Vector2"), class("Vector3"), class("Vector4"), class("IntVector2"),
  class("IntVector3")
local mt2, mt3, mt4, mti2, mti3 = V2.mt, V3.mt, V4.mt, IV2.mt, IV3.mt

local function new2(x, y) return setmetatable({x = x, y = y}, mt2) end
local function new3(x, y, z) return setmetatable({x = x, y = y, z = z}, mt3) end
local function new4(x, y, z, w) return setmetatable({x = x, y = y, z = z, w = w}, mt4) end
local function newi2(x, y) return setmetatable({x = x, y = y}, mti2) end
local function newi3(x, y, z) return setmetatable({x = x, y = y, z = z}, mti3) end
MX.new2, MX.new3, MX.new4, MX.newi2, MX.newi3 = new2, new3, new4, newi2, newi3

-- Exported constructors for other engine modules: they accept any numbers and store them as Urho3D would.
E.Vector2_new = function(x, y) return new2((x or 0) * 1.0, (y or 0) * 1.0) end
E.Vector3_new = function(x, y, z) return new3((x or 0) * 1.0, (y or 0) * 1.0, (z or 0) * 1.0) end
E.Vector4_new = function(x, y, z, w) return new4((x or 0) * 1.0, (y or 0) * 1.0, (z or 0) * 1.0, (w or 0) * 1.0) end
E.IntVector2_new = function(x, y) return newi2(toint(x or 0), toint(y or 0)) end
E.IntVector3_new = function(x, y, z) return newi3(toint(x or 0), toint(y or 0), toint(z or 0)) end

----------------------------------------------------------------------------------------------------
-- Vector2
----------------------------------------------------------------------------------------------------
V2.new = function(a, b, ...)
  if a == nil then return new2(0.0, 0.0) end
  if type(a) == "number" then
    if type(b) ~= "number" then noverload("Vector2.new", a, b, ...) end
    return new2(a * 1.0, b * 1.0)
  end
  local mt = dgetmt(a)
  if mt == mt2 then return new2(a.x, a.y) end
  if mt == mti2 then return new2(a.x * 1.0, a.y * 1.0) end
  noverload("Vector2.new", a, b, ...)
end

local M2 = V2.methods
M2.Normalize = function(self)
  local x, y = self.x, self.y
  local l2 = x * x + y * y
  if not equals(l2, 1.0) and l2 > 0.0 then
    local inv = 1.0 / sqrt(l2)
    self.x, self.y = x * inv, y * inv
  end
end
M2.Normalized = function(self)
  local x, y = self.x, self.y
  local l2 = x * x + y * y
  if not equals(l2, 1.0) and l2 > 0.0 then
    local inv = 1.0 / sqrt(l2)
    return new2(x * inv, y * inv)
  end
  return new2(x, y)
end
M2.Length = function(self) local x, y = self.x, self.y; return sqrt(x * x + y * y) end
M2.LengthSquared = function(self) local x, y = self.x, self.y; return x * x + y * y end
M2.DotProduct = function(self, r) return self.x * r.x + self.y * r.y end
M2.AbsDotProduct = function(self, r)
  local a, b = self.x * r.x, self.y * r.y
  if a < 0 then a = -a end
  if b < 0 then b = -b end
  return a + b
end
M2.ProjectOntoAxis = function(self, axis)
  local n = M2.Normalized(axis)
  return self.x * n.x + self.y * n.y
end
M2.Angle = function(self, r)
  local x, y, rx, ry = self.x, self.y, r.x, r.y
  return acos_deg((x * rx + y * ry) / (sqrt(x * x + y * y) * sqrt(rx * rx + ry * ry)))
end
M2.Abs = function(self)
  local x, y = self.x, self.y
  return new2(x >= 0 and x or -x, y >= 0 and y or -y)
end
M2.Lerp = function(self, r, t)
  local s = 1.0 - t
  return new2(self.x * s + r.x * t, self.y * s + r.y * t)
end
M2.Equals = function(self, r) return equals(self.x, r.x) and equals(self.y, r.y) end
M2.IsNaN = function(self) return self.x ~= self.x or self.y ~= self.y end
local function tostring2(self) return sformat("%g %g", self.x, self.y) end
M2.ToString = tostring2

local O2 = V2.ops
O2.tostring = tostring2
O2.eq = function(a, b) return a.x == b.x and a.y == b.y end
O2.add = function(a, b) return new2(a.x + b.x, a.y + b.y) end
O2.sub = function(a, b) return new2(a.x - b.x, a.y - b.y) end
O2.unm = function(a) return new2(-a.x, -a.y) end
O2.mul = function(a, b)
  if type(b) == "number" then return new2(a.x * b, a.y * b) end
  if type(a) == "number" then return new2(b.x * a, b.y * a) end
  if dgetmt(b) ~= mt2 then noverload("Vector2 *", a, b) end
  return new2(a.x * b.x, a.y * b.y)
end
O2.div = function(a, b)
  if type(b) == "number" then return new2(a.x / b, a.y / b) end
  if dgetmt(a) ~= mt2 or dgetmt(b) ~= mt2 then noverload("Vector2 /", a, b) end
  return new2(a.x / b.x, a.y / b.y)
end

local S2 = V2.statics
S2.ZERO = function() return new2(0.0, 0.0) end
S2.LEFT = function() return new2(-1.0, 0.0) end
S2.RIGHT = function() return new2(1.0, 0.0) end
S2.UP = function() return new2(0.0, 1.0) end
S2.DOWN = function() return new2(0.0, -1.0) end
S2.ONE = function() return new2(1.0, 1.0) end

----------------------------------------------------------------------------------------------------
-- Vector3
----------------------------------------------------------------------------------------------------
V3.new = function(a, b, c, ...)
  if a == nil then return new3(0.0, 0.0, 0.0) end
  if type(a) == "number" then
    if type(b) ~= "number" then noverload("Vector3.new", a, b, c, ...) end
    if c == nil then return new3(a * 1.0, b * 1.0, 0.0) end
    return new3(a * 1.0, b * 1.0, c * 1.0)
  end
  local mt = dgetmt(a)
  if mt == mt3 then return new3(a.x, a.y, a.z) end
  if mt == mt2 then
    if b == nil then return new3(a.x, a.y, 0.0) end
    if type(b) ~= "number" then noverload("Vector3.new", a, b, c, ...) end
    return new3(a.x, a.y, b * 1.0)
  end
  if mt == mti3 then return new3(a.x * 1.0, a.y * 1.0, a.z * 1.0) end
  noverload("Vector3.new", a, b, c, ...)
end

local function normalized3(x, y, z)
  local l2 = x * x + y * y + z * z
  if not equals(l2, 1.0) and l2 > 0.0 then
    local inv = 1.0 / sqrt(l2)
    return x * inv, y * inv, z * inv
  end
  return x, y, z
end
MX.normalized3 = normalized3

local M3 = V3.methods
M3.Normalize = function(self)
  local x, y, z = self.x, self.y, self.z
  local l2 = x * x + y * y + z * z
  if not equals(l2, 1.0) and l2 > 0.0 then
    local inv = 1.0 / sqrt(l2)
    self.x, self.y, self.z = x * inv, y * inv, z * inv
  end
end
M3.Normalized = function(self) return new3(normalized3(self.x, self.y, self.z)) end
M3.Length = function(self) local x, y, z = self.x, self.y, self.z; return sqrt(x * x + y * y + z * z) end
M3.LengthSquared = function(self) local x, y, z = self.x, self.y, self.z; return x * x + y * y + z * z end
M3.DotProduct = function(self, r) return self.x * r.x + self.y * r.y + self.z * r.z end
M3.AbsDotProduct = function(self, r)
  local a, b, c = self.x * r.x, self.y * r.y, self.z * r.z
  if a < 0 then a = -a end
  if b < 0 then b = -b end
  if c < 0 then c = -c end
  return a + b + c
end
M3.ProjectOntoAxis = function(self, axis)
  local nx, ny, nz = normalized3(axis.x, axis.y, axis.z)
  return self.x * nx + self.y * ny + self.z * nz
end
M3.ProjectOntoPlane = function(self, origin, normal)
  local x, y, z = self.x, self.y, self.z
  local nx, ny, nz = normalized3(normal.x, normal.y, normal.z)
  local d = (x - origin.x) * nx + (y - origin.y) * ny + (z - origin.z) * nz
  return new3(x - nx * d, y - ny * d, z - nz * d)
end
M3.ProjectOntoLine = function(self, from, to, clamped)
  local fx, fy, fz = from.x, from.y, from.z
  local dx, dy, dz = to.x - fx, to.y - fy, to.z - fz
  local l2 = dx * dx + dy * dy + dz * dz
  local factor = ((self.x - fx) * dx + (self.y - fy) * dy + (self.z - fz) * dz) / l2
  if clamped then
    if factor < 0.0 then factor = 0.0 elseif factor > 1.0 then factor = 1.0 end
  end
  return new3(fx + dx * factor, fy + dy * factor, fz + dz * factor)
end
M3.DistanceToPoint = function(self, p)
  local x, y, z = self.x - p.x, self.y - p.y, self.z - p.z
  return sqrt(x * x + y * y + z * z)
end
M3.DistanceToPlane = function(self, origin, normal)
  local nx, ny, nz = normalized3(normal.x, normal.y, normal.z)
  return (self.x - origin.x) * nx + (self.y - origin.y) * ny + (self.z - origin.z) * nz
end
M3.Orthogonalize = function(self, axis)
  -- axis x self, then x axis, normalized
  local ax, ay, az = axis.x, axis.y, axis.z
  local x, y, z = self.x, self.y, self.z
  local cx, cy, cz = ay * z - az * y, az * x - ax * z, ax * y - ay * x
  return new3(normalized3(cy * az - cz * ay, cz * ax - cx * az, cx * ay - cy * ax))
end
M3.CrossProduct = function(self, r)
  local x, y, z, rx, ry, rz = self.x, self.y, self.z, r.x, r.y, r.z
  return new3(y * rz - z * ry, z * rx - x * rz, x * ry - y * rx)
end
M3.Abs = function(self)
  local x, y, z = self.x, self.y, self.z
  return new3(x >= 0 and x or -x, y >= 0 and y or -y, z >= 0 and z or -z)
end
M3.Lerp = function(self, r, t)
  local s = 1.0 - t
  return new3(self.x * s + r.x * t, self.y * s + r.y * t, self.z * s + r.z * t)
end
M3.Equals = function(self, r) return equals(self.x, r.x) and equals(self.y, r.y) and equals(self.z, r.z) end
M3.IsNaN = function(self) return self.x ~= self.x or self.y ~= self.y or self.z ~= self.z end
M3.Angle = function(self, r)
  local x, y, z, rx, ry, rz = self.x, self.y, self.z, r.x, r.y, r.z
  return acos_deg((x * rx + y * ry + z * rz) / (sqrt(x * x + y * y + z * z) * sqrt(rx * rx + ry * ry + rz * rz)))
end
local function tostring3(self) return sformat("%g %g %g", self.x, self.y, self.z) end
M3.ToString = tostring3

local O3 = V3.ops
O3.tostring = tostring3
O3.eq = function(a, b) return a.x == b.x and a.y == b.y and a.z == b.z end
O3.add = function(a, b) return new3(a.x + b.x, a.y + b.y, a.z + b.z) end
O3.sub = function(a, b) return new3(a.x - b.x, a.y - b.y, a.z - b.z) end
O3.unm = function(a) return new3(-a.x, -a.y, -a.z) end
O3.mul = function(a, b)
  if type(b) == "number" then return new3(a.x * b, a.y * b, a.z * b) end
  if type(a) == "number" then return new3(b.x * a, b.y * a, b.z * a) end
  if dgetmt(b) ~= mt3 then noverload("Vector3 *", a, b) end
  return new3(a.x * b.x, a.y * b.y, a.z * b.z)
end
O3.div = function(a, b)
  if type(b) == "number" then return new3(a.x / b, a.y / b, a.z / b) end
  if dgetmt(a) ~= mt3 or dgetmt(b) ~= mt3 then noverload("Vector3 /", a, b) end
  return new3(a.x / b.x, a.y / b.y, a.z / b.z)
end

local S3 = V3.statics
S3.ZERO = function() return new3(0.0, 0.0, 0.0) end
S3.LEFT = function() return new3(-1.0, 0.0, 0.0) end
S3.RIGHT = function() return new3(1.0, 0.0, 0.0) end
S3.UP = function() return new3(0.0, 1.0, 0.0) end
S3.DOWN = function() return new3(0.0, -1.0, 0.0) end
S3.FORWARD = function() return new3(0.0, 0.0, 1.0) end
S3.BACK = function() return new3(0.0, 0.0, -1.0) end
S3.ONE = function() return new3(1.0, 1.0, 1.0) end

----------------------------------------------------------------------------------------------------
-- Vector4
----------------------------------------------------------------------------------------------------
V4.new = function(a, b, c, d, ...)
  if a == nil then return new4(0.0, 0.0, 0.0, 0.0) end
  if type(a) == "number" then
    if type(b) ~= "number" or type(c) ~= "number" or type(d) ~= "number" then
      noverload("Vector4.new", a, b, c, d, ...)
    end
    return new4(a * 1.0, b * 1.0, c * 1.0, d * 1.0)
  end
  local mt = dgetmt(a)
  if mt == mt4 then return new4(a.x, a.y, a.z, a.w) end
  if mt == mt3 and type(b) == "number" then return new4(a.x, a.y, a.z, b * 1.0) end
  noverload("Vector4.new", a, b, c, d, ...)
end

local M4 = V4.methods
M4.DotProduct = function(self, r) return self.x * r.x + self.y * r.y + self.z * r.z + self.w * r.w end
M4.AbsDotProduct = function(self, r)
  local a, b, c, d = self.x * r.x, self.y * r.y, self.z * r.z, self.w * r.w
  if a < 0 then a = -a end
  if b < 0 then b = -b end
  if c < 0 then c = -c end
  if d < 0 then d = -d end
  return a + b + c + d
end
M4.ProjectOntoAxis = function(self, axis)
  local nx, ny, nz = normalized3(axis.x, axis.y, axis.z)
  return self.x * nx + self.y * ny + self.z * nz
end
M4.Abs = function(self)
  local x, y, z, w = self.x, self.y, self.z, self.w
  return new4(x >= 0 and x or -x, y >= 0 and y or -y, z >= 0 and z or -z, w >= 0 and w or -w)
end
M4.Lerp = function(self, r, t)
  local s = 1.0 - t
  return new4(self.x * s + r.x * t, self.y * s + r.y * t, self.z * s + r.z * t, self.w * s + r.w * t)
end
M4.Equals = function(self, r)
  return equals(self.x, r.x) and equals(self.y, r.y) and equals(self.z, r.z) and equals(self.w, r.w)
end
M4.IsNaN = function(self) return self.x ~= self.x or self.y ~= self.y or self.z ~= self.z or self.w ~= self.w end
local function tostring4(self) return sformat("%g %g %g %g", self.x, self.y, self.z, self.w) end
M4.ToString = tostring4

local O4 = V4.ops
O4.tostring = tostring4
O4.eq = function(a, b) return a.x == b.x and a.y == b.y and a.z == b.z and a.w == b.w end
O4.add = function(a, b) return new4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w) end
O4.sub = function(a, b) return new4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w) end
O4.unm = function(a) return new4(-a.x, -a.y, -a.z, -a.w) end
O4.mul = function(a, b)
  if type(b) == "number" then return new4(a.x * b, a.y * b, a.z * b, a.w * b) end
  if type(a) == "number" then return new4(b.x * a, b.y * a, b.z * a, b.w * a) end
  if dgetmt(b) ~= mt4 then noverload("Vector4 *", a, b) end
  return new4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w)
end
O4.div = function(a, b)
  if type(b) == "number" then return new4(a.x / b, a.y / b, a.z / b, a.w / b) end
  if dgetmt(a) ~= mt4 or dgetmt(b) ~= mt4 then noverload("Vector4 /", a, b) end
  return new4(a.x / b.x, a.y / b.y, a.z / b.z, a.w / b.w)
end

local S4 = V4.statics
S4.ZERO = function() return new4(0.0, 0.0, 0.0, 0.0) end
S4.ONE = function() return new4(1.0, 1.0, 1.0, 1.0) end

----------------------------------------------------------------------------------------------------
-- IntVector2 / IntVector3 (C int arithmetic; division truncates toward zero)
----------------------------------------------------------------------------------------------------
IV2.new = function(a, b, ...)
  if a == nil then return newi2(0, 0) end
  if type(a) == "number" then
    if type(b) ~= "number" then noverload("IntVector2.new", a, b, ...) end
    return newi2(toint(a), toint(b))
  end
  if dgetmt(a) == mti2 then return newi2(a.x, a.y) end
  noverload("IntVector2.new", a, b, ...)
end

local function ilen(x, y, z) return sqrt((x * x + y * y + z * z) * 1.0) end
local MI2 = IV2.methods
local function tostringi2(self) return sformat("%d %d", toint(self.x), toint(self.y)) end
MI2.ToString = tostringi2
MI2.ToHash = function(self) return (toint(self.x) * 31 + toint(self.y)) & 0xFFFFFFFF end
MI2.Length = function(self) return ilen(self.x, self.y, 0) end

local OI2 = IV2.ops
OI2.tostring = tostringi2
OI2.eq = function(a, b) return a.x == b.x and a.y == b.y end
OI2.add = function(a, b) return newi2(a.x + b.x, a.y + b.y) end
OI2.sub = function(a, b) return newi2(a.x - b.x, a.y - b.y) end
OI2.unm = function(a) return newi2(-a.x, -a.y) end
OI2.mul = function(a, b)
  if type(b) == "number" then b = toint(b); return newi2(a.x * b, a.y * b) end
  if type(a) == "number" then a = toint(a); return newi2(b.x * a, b.y * a) end
  if dgetmt(b) ~= mti2 then noverload("IntVector2 *", a, b) end
  return newi2(a.x * b.x, a.y * b.y)
end
OI2.div = function(a, b)
  if type(b) == "number" then b = toint(b); return newi2(cdiv(a.x, b), cdiv(a.y, b)) end
  if dgetmt(a) ~= mti2 or dgetmt(b) ~= mti2 then noverload("IntVector2 /", a, b) end
  return newi2(cdiv(a.x, b.x), cdiv(a.y, b.y))
end

local SI2 = IV2.statics
SI2.ZERO = function() return newi2(0, 0) end
SI2.LEFT = function() return newi2(-1, 0) end
SI2.RIGHT = function() return newi2(1, 0) end
SI2.UP = function() return newi2(0, 1) end
SI2.DOWN = function() return newi2(0, -1) end
SI2.ONE = function() return newi2(1, 1) end

IV3.new = function(a, b, c, ...)
  if a == nil then return newi3(0, 0, 0) end
  if type(a) == "number" then
    if type(b) ~= "number" or type(c) ~= "number" then noverload("IntVector3.new", a, b, c, ...) end
    return newi3(toint(a), toint(b), toint(c))
  end
  if dgetmt(a) == mti3 then return newi3(a.x, a.y, a.z) end
  noverload("IntVector3.new", a, b, c, ...)
end

local MI3 = IV3.methods
local function tostringi3(self) return sformat("%d %d %d", toint(self.x), toint(self.y), toint(self.z)) end
MI3.ToString = tostringi3
MI3.ToHash = function(self) return (toint(self.x) * 961 + toint(self.y) * 31 + toint(self.z)) & 0xFFFFFFFF end
MI3.Length = function(self) return ilen(self.x, self.y, self.z) end

local OI3 = IV3.ops
OI3.tostring = tostringi3
OI3.eq = function(a, b) return a.x == b.x and a.y == b.y and a.z == b.z end
OI3.add = function(a, b) return newi3(a.x + b.x, a.y + b.y, a.z + b.z) end
OI3.sub = function(a, b) return newi3(a.x - b.x, a.y - b.y, a.z - b.z) end
OI3.unm = function(a) return newi3(-a.x, -a.y, -a.z) end
OI3.mul = function(a, b)
  if type(b) == "number" then b = toint(b); return newi3(a.x * b, a.y * b, a.z * b) end
  if type(a) == "number" then a = toint(a); return newi3(b.x * a, b.y * a, b.z * a) end
  if dgetmt(b) ~= mti3 then noverload("IntVector3 *", a, b) end
  return newi3(a.x * b.x, a.y * b.y, a.z * b.z)
end
OI3.div = function(a, b)
  if type(b) == "number" then b = toint(b); return newi3(cdiv(a.x, b), cdiv(a.y, b), cdiv(a.z, b)) end
  if dgetmt(a) ~= mti3 or dgetmt(b) ~= mti3 then noverload("IntVector3 /", a, b) end
  return newi3(cdiv(a.x, b.x), cdiv(a.y, b.y), cdiv(a.z, b.z))
end

local SI3 = IV3.statics
SI3.ZERO = function() return newi3(0, 0, 0) end
SI3.LEFT = function() return newi3(-1, 0, 0) end
SI3.RIGHT = function() return newi3(1, 0, 0) end
SI3.UP = function() return newi3(0, 1, 0) end
SI3.DOWN = function() return newi3(0, -1, 0) end
SI3.FORWARD = function() return newi3(0, 0, 1) end
SI3.BACK = function() return newi3(0, 0, -1) end
SI3.ONE = function() return newi3(1, 1, 1) end

----------------------------------------------------------------------------------------------------
-- Vector* global functions (overloaded on the vector type)
----------------------------------------------------------------------------------------------------
local function fmin(a, b) if a < b then return a end return b end
local function fmax(a, b) if a > b then return a end return b end
local function ffloor(x) return floor(x) * 1.0 end
local function fceil(x) return ceil(x) * 1.0 end
local function fround(x) return cround(x) * 1.0 end
local function ifloor(x) return toint(floor(x)) end
local function iceil(x) return toint(ceil(x)) end
local function iround(x) return toint(cround(x)) end

FUNCTIONS.VectorLerp = function(a, b, t)
  local mt = dgetmt(a)
  if mt == mt3 then
    return new3(a.x + (b.x - a.x) * t.x, a.y + (b.y - a.y) * t.y, a.z + (b.z - a.z) * t.z)
  elseif mt == mt2 then
    return new2(a.x + (b.x - a.x) * t.x, a.y + (b.y - a.y) * t.y)
  elseif mt == mt4 then
    return new4(a.x + (b.x - a.x) * t.x, a.y + (b.y - a.y) * t.y, a.z + (b.z - a.z) * t.z, a.w + (b.w - a.w) * t.w)
  end
  noverload("VectorLerp", a, b, t)
end

local function componentwise2(name, f)
  return function(a, b)
    local mt = dgetmt(a)
    if mt == mt3 then return new3(f(a.x, b.x), f(a.y, b.y), f(a.z, b.z)) end
    if mt == mt2 then return new2(f(a.x, b.x), f(a.y, b.y)) end
    if mt == mti2 then return newi2(f(a.x, b.x), f(a.y, b.y)) end
    if mt == mti3 then return newi3(f(a.x, b.x), f(a.y, b.y), f(a.z, b.z)) end
    if mt == mt4 then return new4(f(a.x, b.x), f(a.y, b.y), f(a.z, b.z), f(a.w, b.w)) end
    noverload(name, a, b)
  end
end
FUNCTIONS.VectorMin = componentwise2("VectorMin", fmin)
FUNCTIONS.VectorMax = componentwise2("VectorMax", fmax)

local function componentwise1(name, f, allow4)
  return function(a)
    local mt = dgetmt(a)
    if mt == mt3 then return new3(f(a.x), f(a.y), f(a.z)) end
    if mt == mt2 then return new2(f(a.x), f(a.y)) end
    if allow4 and mt == mt4 then return new4(f(a.x), f(a.y), f(a.z), f(a.w)) end
    noverload(name, a)
  end
end
FUNCTIONS.VectorFloor = componentwise1("VectorFloor", ffloor, true)
FUNCTIONS.VectorRound = componentwise1("VectorRound", fround, true)
FUNCTIONS.VectorCeil = componentwise1("VectorCeil", fceil, true)

local function toint_vector(name, f)
  return function(a)
    local mt = dgetmt(a)
    if mt == mt3 then return newi3(f(a.x), f(a.y), f(a.z)) end
    if mt == mt2 then return newi2(f(a.x), f(a.y)) end
    noverload(name, a)
  end
end
FUNCTIONS.VectorFloorToInt = toint_vector("VectorFloorToInt", ifloor)
FUNCTIONS.VectorRoundToInt = toint_vector("VectorRoundToInt", iround)
FUNCTIONS.VectorCeilToInt = toint_vector("VectorCeilToInt", iceil)

-- StableRandom: Fract(Sin(dot(seed, (12.9898, 78.233)) * M_RADTODEG) * 43758.5453), i.e. the classic shader hash.
local function stable2(x, y)
  local v = sin(x * 12.9898 + y * 78.233) * 43758.5453
  return v - floor(v)
end
FUNCTIONS.StableRandom = function(seed)
  if type(seed) == "number" then return stable2(seed, seed) end
  local mt = dgetmt(seed)
  if mt == mt2 then return stable2(seed.x, seed.y) end
  if mt == mt3 then return stable2(stable2(seed.x, seed.y), seed.z) end
  noverload("StableRandom", seed)
end

-- A deep copy of any math value (nil for anything else); other engine modules use it to copy like tolua does.
local COPY = {}
MX.COPY = COPY
COPY[mt2] = function(v) return new2(v.x, v.y) end
COPY[mt3] = function(v) return new3(v.x, v.y, v.z) end
COPY[mt4] = function(v) return new4(v.x, v.y, v.z, v.w) end
COPY[mti2] = function(v) return newi2(v.x, v.y) end
COPY[mti3] = function(v) return newi3(v.x, v.y, v.z) end
function E.copy_math_value(v)
  local f = COPY[dgetmt(v)]
  if f then return f(v) end
  return nil
end
