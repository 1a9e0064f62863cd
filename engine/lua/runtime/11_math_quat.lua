-- Math value types, part 2: Quaternion and Color (Urho3D's Math/Quaternion.* and Math/Color.*).
-- Left-handed, Y-up; angles in degrees; Euler angles are applied Z first, then X, then Y.
local setmetatable, type = setmetatable, type
local sqrt, sin, cos, asin, acos, atan, floor, fmod = math.sqrt, math.sin, math.cos, math.asin, math.acos,
  math.atan, math.floor, math.fmod
local sformat = string.format
local dgetmt = E.dgetmt
local MX = E.MATH
local equals, normalized3, noverload, acos_deg, f32, toint = MX.equals, MX.normalized3, MX.noverload, MX.acos_deg,
  MX.f32, MX.toint
local new3, new4 = MX.new3, MX.new4
local M_EPSILON, M_DEGTORAD_2, M_RADTODEG = MX.M_EPSILON, MX.M_DEGTORAD_2, MX.M_RADTODEG

local Q, C = class("Quaternion"), class("Color")
local mtq, mtc = Q.mt, C.mt
local mt3, mt4 = class("Vector3").mt, class("Vector4").mt
local mtm3 = class("Matrix3").mt

local function newq(w, x, y, z) return setmetatable({w = w, x = x, y = y, z = z}, mtq) end
local function newc(r, g, b, a) return setmetatable({r = r, g = g, b = b, a = a}, mtc) end
local function newm3(m00, m01, m02, m10, m11, m12, m20, m21, m22)
  return setmetatable({m00 = m00, m01 = m01, m02 = m02, m10 = m10, m11 = m11, m12 = m12, m20 = m20, m21 = m21,
                       m22 = m22}, mtm3)
end
MX.newq, MX.newc = newq, newc
E.Quaternion_new = function(w, x, y, z)
  if w == nil then return newq(1.0, 0.0, 0.0, 0.0) end
  return newq(w * 1.0, x * 1.0, y * 1.0, z * 1.0)
end
E.Color_new = function(r, g, b, a)
  if r == nil then return newc(1.0, 1.0, 1.0, 1.0) end
  return newc(r * 1.0, g * 1.0, b * 1.0, (a or 1.0) * 1.0)
end
MX.COPY[mtq] = function(v) return newq(v.w, v.x, v.y, v.z) end
MX.COPY[mtc] = function(v) return newc(v.r, v.g, v.b, v.a) end

----------------------------------------------------------------------------------------------------
-- Quaternion builders: each returns w, x, y, z
----------------------------------------------------------------------------------------------------
local half_angle = MX.half_angle
local function angle_axis(angle, ax, ay, az)
  ax, ay, az = normalized3(ax, ay, az)
  angle = half_angle(angle)
  local s, c = sin(angle), cos(angle)
  return c, ax * s, ay * s, az * s
end

-- Rotation Z first, then X, then Y: q = qY * qX * qZ.
local function euler(x, y, z)
  x, y, z = half_angle(x), half_angle(y), half_angle(z)
  local sx, cx, sy, cy, sz, cz = sin(x), cos(x), sin(y), cos(y), sin(z), cos(z)
  return cy * cx * cz + sy * sx * sz,
         cy * sx * cz + sy * cx * sz,
         sy * cx * cz - cy * sx * sz,
         cy * cx * sz - sy * sx * cz
end

local function from_matrix(m00, m01, m02, m10, m11, m12, m20, m21, m22)
  local t = m00 + m11 + m22
  if t > 0.0 then
    local inv = 0.5 / sqrt(1.0 + t)
    return 0.25 / inv, (m21 - m12) * inv, (m02 - m20) * inv, (m10 - m01) * inv
  elseif m00 > m11 and m00 > m22 then
    local inv = 0.5 / sqrt(1.0 + m00 - m11 - m22)
    return (m21 - m12) * inv, 0.25 / inv, (m01 + m10) * inv, (m20 + m02) * inv
  elseif m11 > m22 then
    local inv = 0.5 / sqrt(1.0 + m11 - m00 - m22)
    return (m02 - m20) * inv, (m01 + m10) * inv, 0.25 / inv, (m12 + m21) * inv
  else
    local inv = 0.5 / sqrt(1.0 + m22 - m00 - m11)
    return (m10 - m01) * inv, (m02 + m20) * inv, (m12 + m21) * inv, 0.25 / inv
  end
end
MX.quat_from_matrix = from_matrix

-- The rotation whose matrix has the three axes as columns.
local function from_axes(xa, ya, za)
  return from_matrix(xa.x, ya.x, za.x, xa.y, ya.y, za.y, xa.z, ya.z, za.z)
end

local function rotation_to(sx, sy, sz, ex, ey, ez)
  sx, sy, sz = normalized3(sx, sy, sz)
  ex, ey, ez = normalized3(ex, ey, ez)
  local d = sx * ex + sy * ey + sz * ez
  if d > -1.0 + M_EPSILON then
    local cx, cy, cz = sy * ez - sz * ey, sz * ex - sx * ez, sx * ey - sy * ex
    local s = sqrt((1.0 + d) * 2.0)
    local inv = 1.0 / s
    return 0.5 * s, cx * inv, cy * inv, cz * inv
  end
  -- Opposite directions: turn 180 degrees about an axis perpendicular to start (RIGHT x start, else UP x start).
  local ax, ay, az = 0.0, -sz, sy
  if sqrt(ax * ax + ay * ay + az * az) < M_EPSILON then ax, ay, az = sz, 0.0, -sx end
  return angle_axis(180.0, ax, ay, az)
end

-- Returns ok, w, x, y, z.
local function look_rotation(dir, up)
  local fx, fy, fz = normalized3(dir.x, dir.y, dir.z)
  local ux, uy, uz = 0.0, 1.0, 0.0
  if up ~= nil then ux, uy, uz = up.x, up.y, up.z end
  local vx, vy, vz = fy * uz - fz * uy, fz * ux - fx * uz, fx * uy - fy * ux
  local w, x, y, z
  if vx * vx + vy * vy + vz * vz >= M_EPSILON then
    vx, vy, vz = normalized3(vx, vy, vz)
    -- up' = v x forward; right = up' x forward
    local px, py, pz = vy * fz - vz * fy, vz * fx - vx * fz, vx * fy - vy * fx
    local rx, ry, rz = py * fz - pz * fy, pz * fx - px * fz, px * fy - py * fx
    w, x, y, z = from_matrix(rx, px, fx, ry, py, fy, rz, pz, fz)
  else
    w, x, y, z = rotation_to(0.0, 0.0, 1.0, fx, fy, fz)
  end
  if w ~= w or x ~= x or y ~= y or z ~= z then return false end
  return true, w, x, y, z
end

Q.new = function(a, b, c, d, ...)
  if a == nil then return newq(1.0, 0.0, 0.0, 0.0) end
  if type(a) == "number" then
    if d ~= nil then
      if type(b) ~= "number" or type(c) ~= "number" or type(d) ~= "number" then
        noverload("Quaternion.new", a, b, c, d, ...)
      end
      return newq(a * 1.0, b * 1.0, c * 1.0, d * 1.0)
    end
    if c ~= nil then
      if type(b) ~= "number" or type(c) ~= "number" then noverload("Quaternion.new", a, b, c, d, ...) end
      return newq(euler(a, b, c))
    end
    if b == nil then return newq(angle_axis(a, 0.0, 0.0, 1.0)) end
    if dgetmt(b) == mt3 then return newq(angle_axis(a, b.x, b.y, b.z)) end
    noverload("Quaternion.new", a, b, c, d, ...)
  end
  local mt = dgetmt(a)
  if mt == mtq then return newq(a.w, a.x, a.y, a.z) end
  if mt == mt3 then
    if c ~= nil then return newq(from_axes(a, b, c)) end
    if b ~= nil then return newq(rotation_to(a.x, a.y, a.z, b.x, b.y, b.z)) end
    return newq(euler(a.x, a.y, a.z))
  end
  if mt == mtm3 then
    return newq(from_matrix(a.m00, a.m01, a.m02, a.m10, a.m11, a.m12, a.m20, a.m21, a.m22))
  end
  noverload("Quaternion.new", a, b, c, d, ...)
end

local MQ = Q.methods
local function set4(q, w, x, y, z) q.w, q.x, q.y, q.z = w, x, y, z end
MQ.FromAngleAxis = function(self, angle, axis) set4(self, angle_axis(angle, axis.x, axis.y, axis.z)) end
MQ.FromEulerAngles = function(self, x, y, z) set4(self, euler(x, y, z)) end
MQ.FromRotationTo = function(self, s, e) set4(self, rotation_to(s.x, s.y, s.z, e.x, e.y, e.z)) end
MQ.FromAxes = function(self, xa, ya, za) set4(self, from_axes(xa, ya, za)) end
MQ.FromRotationMatrix = function(self, m)
  set4(self, from_matrix(m.m00, m.m01, m.m02, m.m10, m.m11, m.m12, m.m20, m.m21, m.m22))
end
MQ.FromLookRotation = function(self, dir, up)
  local ok, w, x, y, z = look_rotation(dir, up)
  if ok then set4(self, w, x, y, z) end
  return ok
end
MQ.Normalize = function(self)
  local w, x, y, z = self.w, self.x, self.y, self.z
  local l2 = w * w + x * x + y * y + z * z
  if not equals(l2, 1.0) and l2 > 0.0 then
    local inv = 1.0 / sqrt(l2)
    set4(self, w * inv, x * inv, y * inv, z * inv)
  end
end
MQ.Normalized = function(self)
  local w, x, y, z = self.w, self.x, self.y, self.z
  local l2 = w * w + x * x + y * y + z * z
  if not equals(l2, 1.0) and l2 > 0.0 then
    local inv = 1.0 / sqrt(l2)
    return newq(w * inv, x * inv, y * inv, z * inv)
  end
  return newq(w, x, y, z)
end
MQ.Inverse = function(self)
  local w, x, y, z = self.w, self.x, self.y, self.z
  local l2 = w * w + x * x + y * y + z * z
  if l2 == 1.0 then return newq(w, -x, -y, -z) end
  if l2 >= M_EPSILON then
    local inv = 1.0 / l2
    return newq(w * inv, -x * inv, -y * inv, -z * inv)
  end
  return newq(1.0, 0.0, 0.0, 0.0)
end
MQ.LengthSquared = function(self)
  local w, x, y, z = self.w, self.x, self.y, self.z
  return w * w + x * x + y * y + z * z
end
MQ.DotProduct = function(self, r) return self.w * r.w + self.x * r.x + self.y * r.y + self.z * r.z end
MQ.Equals = function(self, r)
  return equals(self.w, r.w) and equals(self.x, r.x) and equals(self.y, r.y) and equals(self.z, r.z)
end
MQ.IsNaN = function(self) return self.w ~= self.w or self.x ~= self.x or self.y ~= self.y or self.z ~= self.z end
MQ.Conjugate = function(self) return newq(self.w, -self.x, -self.y, -self.z) end

local function euler_angles(q)
  local w, x, y, z = q.w, q.x, q.y, q.z
  local check = 2.0 * (-y * z + w * x)
  if check < -0.995 then
    return -90.0, 0.0, -atan(2.0 * (x * z - w * y), 1.0 - 2.0 * (y * y + z * z)) * M_RADTODEG
  elseif check > 0.995 then
    return 90.0, 0.0, atan(2.0 * (x * z - w * y), 1.0 - 2.0 * (y * y + z * z)) * M_RADTODEG
  end
  return asin(check) * M_RADTODEG,
         atan(2.0 * (x * z + w * y), 1.0 - 2.0 * (x * x + y * y)) * M_RADTODEG,
         atan(2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z)) * M_RADTODEG
end
MX.euler_angles = euler_angles
MQ.EulerAngles = function(self) return new3(euler_angles(self)) end
MQ.YawAngle = function(self) local _, y = euler_angles(self); return y end
MQ.PitchAngle = function(self) local x = euler_angles(self); return x end
MQ.RollAngle = function(self) local _, _, z = euler_angles(self); return z end
MQ.Axis = function(self)
  local s = sqrt(1.0 - self.w * self.w)
  return new3(self.x / s, self.y / s, self.z / s)
end
MQ.Angle = function(self) return 2.0 * acos_deg(self.w) end

-- The 3x3 rotation matrix of quaternion (w, x, y, z), as nine numbers in row order.
local function rotation_matrix(w, x, y, z)
  return 1.0 - 2.0 * y * y - 2.0 * z * z, 2.0 * x * y - 2.0 * w * z, 2.0 * x * z + 2.0 * w * y,
         2.0 * x * y + 2.0 * w * z, 1.0 - 2.0 * x * x - 2.0 * z * z, 2.0 * y * z - 2.0 * w * x,
         2.0 * x * z - 2.0 * w * y, 2.0 * y * z + 2.0 * w * x, 1.0 - 2.0 * x * x - 2.0 * y * y
end
MX.rotation_matrix = rotation_matrix
MQ.RotationMatrix = function(self) return newm3(rotation_matrix(self.w, self.x, self.y, self.z)) end

-- Quaternion::Slerp on plain numbers: the Quaternion value's Slerp and the bones' blending (64_animated_model.lua)
local function slerp_numbers(w, x, y, z, rw, rx, ry, rz, t)
  local cos_angle = w * rw + x * rx + y * ry + z * rz
  local sign = 1.0
  if cos_angle < 0.0 then cos_angle, sign = -cos_angle, -1.0 end
  local angle = acos(cos_angle)
  local sin_angle = sin(angle)
  local t1, t2
  if sin_angle > 0.001 then
    local inv = 1.0 / sin_angle
    t1 = sin((1.0 - t) * angle) * inv
    t2 = sin(t * angle) * inv
  else
    t1, t2 = 1.0 - t, t
  end
  t2 = t2 * sign
  return w * t1 + rw * t2, x * t1 + rx * t2, y * t1 + ry * t2, z * t1 + rz * t2
end
MX.slerp_numbers = slerp_numbers
MQ.Slerp = function(self, r, t)
  return newq(slerp_numbers(self.w, self.x, self.y, self.z, r.w, r.x, r.y, r.z, t))
end
MQ.Nlerp = function(self, r, t, shortest)
  local w, x, y, z = self.w, self.x, self.y, self.z
  local rw, rx, ry, rz = r.w, r.x, r.y, r.z
  if shortest and (w * rw + x * rx + y * ry + z * rz) < 0.0 then rw, rx, ry, rz = -rw, -rx, -ry, -rz end
  local q = newq(w + (rw - w) * t, x + (rx - x) * t, y + (ry - y) * t, z + (rz - z) * t)
  MQ.Normalize(q)
  return q
end
local function tostringq(self) return sformat("%g %g %g %g", self.w, self.x, self.y, self.z) end
MQ.ToString = tostringq

-- Rotate vector (vx, vy, vz) by quaternion q: v + 2 * (w * (q x v) + q x (q x v)).
local function rotate(q, vx, vy, vz)
  local qw, qx, qy, qz = q.w, q.x, q.y, q.z
  local c1x, c1y, c1z = qy * vz - qz * vy, qz * vx - qx * vz, qx * vy - qy * vx
  local c2x, c2y, c2z = qy * c1z - qz * c1y, qz * c1x - qx * c1z, qx * c1y - qy * c1x
  return vx + 2.0 * (c1x * qw + c2x), vy + 2.0 * (c1y * qw + c2y), vz + 2.0 * (c1z * qw + c2z)
end
MX.rotate = rotate

local function qmul(a, b)
  local aw, ax, ay, az = a.w, a.x, a.y, a.z
  local bw, bx, by, bz = b.w, b.x, b.y, b.z
  return newq(aw * bw - ax * bx - ay * by - az * bz,
              aw * bx + ax * bw + ay * bz - az * by,
              aw * by + ay * bw + az * bx - ax * bz,
              aw * bz + az * bw + ax * by - ay * bx)
end
MX.qmul = qmul

local OQ = Q.ops
OQ.tostring = tostringq
OQ.eq = function(a, b) return a.w == b.w and a.x == b.x and a.y == b.y and a.z == b.z end
OQ.add = function(a, b) return newq(a.w + b.w, a.x + b.x, a.y + b.y, a.z + b.z) end
OQ.sub = function(a, b) return newq(a.w - b.w, a.x - b.x, a.y - b.y, a.z - b.z) end
OQ.unm = function(a) return newq(-a.w, -a.x, -a.y, -a.z) end
OQ.mul = function(a, b)
  if type(b) == "number" then return newq(a.w * b, a.x * b, a.y * b, a.z * b) end
  if type(a) == "number" then return newq(b.w * a, b.x * a, b.y * a, b.z * a) end
  local mt = dgetmt(b)
  if mt == mt3 then return new3(rotate(a, b.x, b.y, b.z)) end
  if mt == mtq and dgetmt(a) == mtq then return qmul(a, b) end
  noverload("Quaternion *", a, b)
end

Q.statics.IDENTITY = function() return newq(1.0, 0.0, 0.0, 0.0) end

----------------------------------------------------------------------------------------------------
-- Color
----------------------------------------------------------------------------------------------------
local function from_uint(self, c)
  c = toint(c) & 0xFFFFFFFF
  self.a = f32(((c >> 24) & 0xFF) / 255.0)
  self.b = f32(((c >> 16) & 0xFF) / 255.0)
  self.g = f32(((c >> 8) & 0xFF) / 255.0)
  self.r = f32((c & 0xFF) / 255.0)
end

C.new = function(a, b, c, d, ...)
  if a == nil then return newc(1.0, 1.0, 1.0, 1.0) end
  if type(a) == "number" then
    if b == nil then   -- Color(unsigned): packed ABGR, as Urho3D's explicit constructor
      local col = newc(0.0, 0.0, 0.0, 0.0)
      from_uint(col, a)
      return col
    end
    if type(b) ~= "number" or type(c) ~= "number" then noverload("Color.new", a, b, c, d, ...) end
    if d == nil then return newc(a * 1.0, b * 1.0, c * 1.0, 1.0) end
    return newc(a * 1.0, b * 1.0, c * 1.0, d * 1.0)
  end
  local mt = dgetmt(a)
  if mt == mtc then
    if b == nil then return newc(a.r, a.g, a.b, a.a) end
    return newc(a.r, a.g, a.b, b * 1.0)
  end
  if mt == mt3 then return newc(a.x, a.y, a.z, 1.0) end
  if mt == mt4 then return newc(a.x, a.y, a.z, a.w) end
  noverload("Color.new", a, b, c, d, ...)
end

-- Channel min and max (Color::Bounds), optionally clipped to [0, 1].
local function bounds(self, clipped)
  local r, g, b = self.r, self.g, self.b
  local lo, hi
  if r > g then
    if g > b then hi, lo = r, b
    else hi, lo = (r > b and r or b), g end
  else
    if b > g then hi, lo = b, r
    else hi, lo = g, (r < b and r or b) end
  end
  if clipped then
    hi = hi > 1.0 and 1.0 or (hi < 0.0 and 0.0 or hi)
    lo = lo > 1.0 and 1.0 or (lo < 0.0 and 0.0 or lo)
  end
  return lo, hi
end

local function hue(self, lo, hi)
  local chroma = hi - lo
  if chroma <= M_EPSILON then return 0.0 end
  local r, g, b = self.r, self.g, self.b
  if equals(g, hi) then
    return (b + 2.0 * chroma - r) / (6.0 * chroma)
  elseif equals(b, hi) then
    return (4.0 * chroma - g + r) / (6.0 * chroma)
  end
  local h = (g - b) / (6.0 * chroma)
  if h < 0.0 then return 1.0 + h end
  if h >= 1.0 then return h - 1.0 end
  return h
end
local function sat_hsv(lo, hi)
  if hi <= M_EPSILON then return 0.0 end
  return 1.0 - lo / hi
end
local function sat_hsl(lo, hi)
  if hi <= M_EPSILON or lo >= 1.0 - M_EPSILON then return 0.0 end
  local hl = hi + lo
  if hl <= 1.0 then return (hi - lo) / hl end
  return (lo - hi) / (hl - 2.0)
end
local function from_hcm(self, h, c, m)
  if h < 0.0 or h >= 1.0 then h = h - floor(h) end
  local hs = h * 6.0
  local x = fmod(hs, 2.0) - 1.0
  if x < 0 then x = -x end
  x = c * (1.0 - x)
  local r, g, b
  if hs < 2.0 then
    b = 0.0
    if hs < 1.0 then g, r = x, c else g, r = c, x end
  elseif hs < 4.0 then
    r = 0.0
    if hs < 3.0 then g, b = c, x else g, b = x, c end
  else
    g = 0.0
    if hs < 5.0 then r, b = x, c else r, b = c, x end
  end
  self.r, self.g, self.b = r + m, g + m, b + m
end

-- (int)(v * 255.0f) clamped to [0, 255], computed in single precision as Urho3D does.
local INT_MIN = -2147483648
local function channel_byte(v)
  local p = f32(f32(v) * 255.0)
  local i
  if p ~= p or p >= 2147483648.0 or p < -2147483648.0 then i = INT_MIN else i = toint(p) end
  if i < 0 then return 0 end
  if i > 255 then return 255 end
  return i
end

local MC = C.methods
MC.ToUInt = function(self)
  return (channel_byte(self.a) << 24) | (channel_byte(self.b) << 16) | (channel_byte(self.g) << 8)
    | channel_byte(self.r)
end
MC.FromUInt = from_uint
MC.ToHSL = function(self)
  local lo, hi = bounds(self, true)
  return new3(hue(self, lo, hi), sat_hsl(lo, hi), (hi + lo) * 0.5)
end
MC.ToHSV = function(self)
  local lo, hi = bounds(self, true)
  return new3(hue(self, lo, hi), sat_hsv(lo, hi), hi)
end
MC.FromHSL = function(self, h, s, l, a)
  local c
  if l < 0.5 then c = (1.0 + (2.0 * l - 1.0)) * s else c = (1.0 - (2.0 * l - 1.0)) * s end
  from_hcm(self, h, c, l - 0.5 * c)
  self.a = (a or 1.0) * 1.0
end
MC.FromHSV = function(self, h, s, v, a)
  local c = v * s
  from_hcm(self, h, c, v - c)
  self.a = (a or 1.0) * 1.0
end
MC.ToVector3 = function(self) return new3(self.r, self.g, self.b) end
MC.ToVector4 = function(self) return new4(self.r, self.g, self.b, self.a) end
MC.SumRGB = function(self) return self.r + self.g + self.b end
MC.Average = function(self) return (self.r + self.g + self.b) / 3.0 end
MC.Luma = function(self) return self.r * 0.299 + self.g * 0.587 + self.b * 0.114 end
MC.Chroma = function(self) local lo, hi = bounds(self, true); return hi - lo end
MC.Hue = function(self) local lo, hi = bounds(self, true); return hue(self, lo, hi) end
MC.SaturationHSL = function(self) local lo, hi = bounds(self, true); return sat_hsl(lo, hi) end
MC.SaturationHSV = function(self) local lo, hi = bounds(self, true); return sat_hsv(lo, hi) end
MC.Lightness = function(self) local lo, hi = bounds(self, true); return (hi + lo) * 0.5 end
MC.MaxRGB = function(self)
  local r, g, b = self.r, self.g, self.b
  if r > g then return r > b and r or b end
  return g > b and g or b
end
MC.MinRGB = function(self)
  local r, g, b = self.r, self.g, self.b
  if r < g then return r < b and r or b end
  return g < b and g or b
end
MC.Value = MC.MaxRGB
MC.Range = function(self) local lo, hi = bounds(self, false); return hi - lo end
local function clip01(v) return v > 1.0 and 1.0 or (v < 0.0 and 0.0 or v) end
MC.Clip = function(self, clip_alpha)
  self.r, self.g, self.b = clip01(self.r), clip01(self.g), clip01(self.b)
  if clip_alpha then self.a = clip01(self.a) end
end
MC.Invert = function(self, invert_alpha)
  self.r, self.g, self.b = 1.0 - self.r, 1.0 - self.g, 1.0 - self.b
  if invert_alpha then self.a = 1.0 - self.a end
end
MC.Lerp = function(self, rhs, t)
  local s = 1.0 - t
  return newc(self.r * s + rhs.r * t, self.g * s + rhs.g * t, self.b * s + rhs.b * t, self.a * s + rhs.a * t)
end
MC.Abs = function(self)
  local r, g, b, a = self.r, self.g, self.b, self.a
  return newc(r >= 0 and r or -r, g >= 0 and g or -g, b >= 0 and b or -b, a >= 0 and a or -a)
end
MC.Equals = function(self, o)
  return equals(self.r, o.r) and equals(self.g, o.g) and equals(self.b, o.b) and equals(self.a, o.a)
end
local function tostringc(self) return sformat("%g %g %g %g", self.r, self.g, self.b, self.a) end
MC.ToString = tostringc

local OC = C.ops
OC.tostring = tostringc
OC.eq = function(a, b) return a.r == b.r and a.g == b.g and a.b == b.b and a.a == b.a end
OC.add = function(a, b) return newc(a.r + b.r, a.g + b.g, a.b + b.b, a.a + b.a) end
OC.mul = function(a, b)
  if type(b) == "number" then return newc(a.r * b, a.g * b, a.b * b, a.a * b) end
  if type(a) == "number" then return newc(b.r * a, b.g * a, b.b * a, b.a * a) end
  noverload("Color *", a, b)
end

local SC = C.statics
SC.WHITE = function() return newc(1.0, 1.0, 1.0, 1.0) end
SC.GRAY = function() return newc(0.5, 0.5, 0.5, 1.0) end
SC.BLACK = function() return newc(0.0, 0.0, 0.0, 1.0) end
SC.RED = function() return newc(1.0, 0.0, 0.0, 1.0) end
SC.GREEN = function() return newc(0.0, 1.0, 0.0, 1.0) end
SC.BLUE = function() return newc(0.0, 0.0, 1.0, 1.0) end
SC.CYAN = function() return newc(0.0, 1.0, 1.0, 1.0) end
SC.MAGENTA = function() return newc(1.0, 0.0, 1.0, 1.0) end
SC.YELLOW = function() return newc(1.0, 1.0, 0.0, 1.0) end
SC.TRANSPARENT_BLACK = function() return newc(0.0, 0.0, 0.0, 0.0) end
