-- Math value types, part 3: Matrix2, Matrix3, Matrix3x4, Matrix4 (Urho3D's Math/Matrix*.h), row-major fields
-- mRC; vectors are column vectors (M * v).
local setmetatable, type, select = setmetatable, type, select
local sqrt = math.sqrt
local sformat = string.format
local dgetmt = E.dgetmt
local MX = E.MATH
local equals, noverload = MX.equals, MX.noverload
local new2, new3, new4, newq = MX.new2, MX.new3, MX.new4, MX.newq
local quat_from_matrix, rotation_matrix = MX.quat_from_matrix, MX.rotation_matrix

local M2C, M3C, M34C, M4C = class("Matrix2"), class("Matrix3"), class("Matrix3x4"), class("Matrix4")
local mtm2, mtm3, mtm34, mtm4 = M2C.mt, M3C.mt, M34C.mt, M4C.mt
local mt2, mt3, mt4, mtq = class("Vector2").mt, class("Vector3").mt, class("Vector4").mt, class("Quaternion").mt

local function newm2(m00, m01, m10, m11)
  return setmetatable({m00 = m00, m01 = m01, m10 = m10, m11 = m11}, mtm2)
end
local function newm3(m00, m01, m02, m10, m11, m12, m20, m21, m22)
  return setmetatable({m00 = m00, m01 = m01, m02 = m02, m10 = m10, m11 = m11, m12 = m12, m20 = m20, m21 = m21,
                       m22 = m22}, mtm3)
end
local function newm34(m00, m01, m02, m03, m10, m11, m12, m13, m20, m21, m22, m23)
  return setmetatable({m00 = m00, m01 = m01, m02 = m02, m03 = m03, m10 = m10, m11 = m11, m12 = m12, m13 = m13,
                       m20 = m20, m21 = m21, m22 = m22, m23 = m23}, mtm34)
end
local function newm4(m00, m01, m02, m03, m10, m11, m12, m13, m20, m21, m22, m23, m30, m31, m32, m33)
  return setmetatable({m00 = m00, m01 = m01, m02 = m02, m03 = m03, m10 = m10, m11 = m11, m12 = m12, m13 = m13,
                       m20 = m20, m21 = m21, m22 = m22, m23 = m23, m30 = m30, m31 = m31, m32 = m32, m33 = m33}, mtm4)
end
MX.newm2, MX.newm3, MX.newm34, MX.newm4 = newm2, newm3, newm34, newm4

local F2 = {"m00", "m01", "m10", "m11"}
local F3 = {"m00", "m01", "m02", "m10", "m11", "m12", "m20", "m21", "m22"}
local F34 = {"m00", "m01", "m02", "m03", "m10", "m11", "m12", "m13", "m20", "m21", "m22", "m23"}
local F4 = {"m00", "m01", "m02", "m03", "m10", "m11", "m12", "m13", "m20", "m21", "m22", "m23", "m30", "m31", "m32",
  "m33"}

local function copier(fields, mt)
  return function(m)
    local out = {}
    for i = 1, #fields do local k = fields[i]; out[k] = m[k] end
    return setmetatable(out, mt)
  end
end
local copym2, copym3, copym34, copym4 = copier(F2, mtm2), copier(F3, mtm3), copier(F34, mtm34), copier(F4, mtm4)
MX.COPY[mtm2], MX.COPY[mtm3], MX.COPY[mtm34], MX.COPY[mtm4] = copym2, copym3, copym34, copym4

-- A matrix from n numeric arguments (converted to float), or nil when they are not n numbers.
local function from_numbers(fields, mt, ...)
  local n = #fields
  if select("#", ...) ~= n then return nil end
  local out = {}
  for i = 1, n do
    local v = select(i, ...)
    if type(v) ~= "number" then return nil end
    out[fields[i]] = v * 1.0
  end
  return setmetatable(out, mt)
end

local function exact_eq(fields)
  return function(a, b)
    for i = 1, #fields do local k = fields[i]; if a[k] ~= b[k] then return false end end
    return true
  end
end
local function eps_eq(fields)
  return function(a, b)
    for i = 1, #fields do local k = fields[i]; if not equals(a[k], b[k]) then return false end end
    return true
  end
end
local function elementwise(fields, mt, op)
  if op == "add" then
    return function(a, b)
      local out = {}
      for i = 1, #fields do local k = fields[i]; out[k] = a[k] + b[k] end
      return setmetatable(out, mt)
    end
  elseif op == "sub" then
    return function(a, b)
      local out = {}
      for i = 1, #fields do local k = fields[i]; out[k] = a[k] - b[k] end
      return setmetatable(out, mt)
    end
  end
  return function(a, s)   -- scale
    local out = {}
    for i = 1, #fields do local k = fields[i]; out[k] = a[k] * s end
    return setmetatable(out, mt)
  end
end
local function formatter(fields)
  local fmt = ("%g "):rep(#fields):sub(1, -2)
  local n = #fields
  return function(m)
    local vals = {}
    for i = 1, n do vals[i] = m[fields[i]] end
    return sformat(fmt, table.unpack(vals, 1, n))
  end
end

----------------------------------------------------------------------------------------------------
-- Matrix2
----------------------------------------------------------------------------------------------------
M2C.new = function(...)
  local a = ...
  if a == nil then return newm2(1.0, 0.0, 0.0, 1.0) end
  if dgetmt(a) == mtm2 then return copym2(a) end
  local m = from_numbers(F2, mtm2, ...)
  if m then return m end
  noverload("Matrix2.new", ...)
end
local MM2 = M2C.methods
MM2.SetScale = function(self, s)
  if type(s) == "number" then self.m00, self.m11 = s, s else self.m00, self.m11 = s.x, s.y end
end
MM2.Scale = function(self)
  local m00, m01, m10, m11 = self.m00, self.m01, self.m10, self.m11
  return new2(sqrt(m00 * m00 + m10 * m10), sqrt(m01 * m01 + m11 * m11))
end
MM2.Transpose = function(self) return newm2(self.m00, self.m10, self.m01, self.m11) end
MM2.Scaled = function(self, s)
  return newm2(self.m00 * s.x, self.m01 * s.y, self.m10 * s.x, self.m11 * s.y)
end
MM2.Equals = eps_eq(F2)
MM2.Inverse = function(self)
  local m00, m01, m10, m11 = self.m00, self.m01, self.m10, self.m11
  local inv = 1.0 / (m00 * m11 - m01 * m10)
  return newm2(m11 * inv, -m01 * inv, -m10 * inv, m00 * inv)
end
MM2.ToString = formatter(F2)
local OM2 = M2C.ops
OM2.tostring = MM2.ToString
OM2.eq = exact_eq(F2)
OM2.add = elementwise(F2, mtm2, "add")
OM2.sub = elementwise(F2, mtm2, "sub")
local scale2 = elementwise(F2, mtm2, "scale")
OM2.mul = function(a, b)
  if type(b) == "number" then return scale2(a, b) end
  if type(a) == "number" then return scale2(b, a) end
  local mt = dgetmt(b)
  if mt == mt2 then return new2(a.m00 * b.x + a.m01 * b.y, a.m10 * b.x + a.m11 * b.y) end
  if mt == mtm2 then
    return newm2(a.m00 * b.m00 + a.m01 * b.m10, a.m00 * b.m01 + a.m01 * b.m11,
                 a.m10 * b.m00 + a.m11 * b.m10, a.m10 * b.m01 + a.m11 * b.m11)
  end
  noverload("Matrix2 *", a, b)
end
M2C.statics.ZERO = function() return newm2(0.0, 0.0, 0.0, 0.0) end
M2C.statics.IDENTITY = function() return newm2(1.0, 0.0, 0.0, 1.0) end

----------------------------------------------------------------------------------------------------
-- Matrix3
----------------------------------------------------------------------------------------------------
local function identity3() return newm3(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0) end
M3C.new = function(...)
  local a = ...
  if a == nil then return identity3() end
  if dgetmt(a) == mtm3 then return copym3(a) end
  local m = from_numbers(F3, mtm3, ...)
  if m then return m end
  noverload("Matrix3.new", ...)
end

-- Column lengths of the upper-left 3x3 of any matrix table.
local function col_scale(m)
  local m00, m01, m02, m10, m11, m12, m20, m21, m22 = m.m00, m.m01, m.m02, m.m10, m.m11, m.m12, m.m20, m.m21, m.m22
  return sqrt(m00 * m00 + m10 * m10 + m20 * m20), sqrt(m01 * m01 + m11 * m11 + m21 * m21),
    sqrt(m02 * m02 + m12 * m12 + m22 * m22)
end
local function set_scale(self, s)
  if type(s) == "number" then self.m00, self.m11, self.m22 = s, s, s
  else self.m00, self.m11, self.m22 = s.x, s.y, s.z end
end
-- The upper-left 3x3 with each column divided by its length, as nine numbers.
local function unscaled3(m)
  local sx, sy, sz = col_scale(m)
  local ix, iy, iz = 1.0 / sx, 1.0 / sy, 1.0 / sz
  return m.m00 * ix, m.m01 * iy, m.m02 * iz, m.m10 * ix, m.m11 * iy, m.m12 * iz, m.m20 * ix, m.m21 * iy, m.m22 * iz
end

local function inverse3(m00, m01, m02, m10, m11, m12, m20, m21, m22)
  local det = m00 * m11 * m22 + m10 * m21 * m02 + m20 * m01 * m12 - m20 * m11 * m02 - m10 * m01 * m22
    - m00 * m21 * m12
  local inv = 1.0 / det
  return (m11 * m22 - m21 * m12) * inv, -(m01 * m22 - m21 * m02) * inv, (m01 * m12 - m11 * m02) * inv,
    -(m10 * m22 - m20 * m12) * inv, (m00 * m22 - m20 * m02) * inv, -(m00 * m12 - m10 * m02) * inv,
    (m10 * m21 - m20 * m11) * inv, -(m00 * m21 - m20 * m01) * inv, (m00 * m11 - m10 * m01) * inv
end

local MM3 = M3C.methods
MM3.SetScale = set_scale
MM3.Scale = function(self) return new3(col_scale(self)) end
MM3.Transpose = function(self)
  return newm3(self.m00, self.m10, self.m20, self.m01, self.m11, self.m21, self.m02, self.m12, self.m22)
end
MM3.Scaled = function(self, s)
  local x, y, z = s.x, s.y, s.z
  return newm3(self.m00 * x, self.m01 * y, self.m02 * z, self.m10 * x, self.m11 * y, self.m12 * z,
               self.m20 * x, self.m21 * y, self.m22 * z)
end
MM3.Equals = eps_eq(F3)
MM3.Inverse = function(self)
  return newm3(inverse3(self.m00, self.m01, self.m02, self.m10, self.m11, self.m12, self.m20, self.m21, self.m22))
end
MM3.ToString = formatter(F3)

local function mul33(a, b)
  local a00, a01, a02, a10, a11, a12, a20, a21, a22 = a.m00, a.m01, a.m02, a.m10, a.m11, a.m12, a.m20, a.m21, a.m22
  local b00, b01, b02, b10, b11, b12, b20, b21, b22 = b.m00, b.m01, b.m02, b.m10, b.m11, b.m12, b.m20, b.m21, b.m22
  return newm3(a00 * b00 + a01 * b10 + a02 * b20, a00 * b01 + a01 * b11 + a02 * b21, a00 * b02 + a01 * b12 + a02 * b22,
               a10 * b00 + a11 * b10 + a12 * b20, a10 * b01 + a11 * b11 + a12 * b21, a10 * b02 + a11 * b12 + a12 * b22,
               a20 * b00 + a21 * b10 + a22 * b20, a20 * b01 + a21 * b11 + a22 * b21, a20 * b02 + a21 * b12 + a22 * b22)
end

local OM3 = M3C.ops
OM3.tostring = MM3.ToString
OM3.eq = exact_eq(F3)
OM3.add = elementwise(F3, mtm3, "add")
OM3.sub = elementwise(F3, mtm3, "sub")
local scale3 = elementwise(F3, mtm3, "scale")
OM3.mul = function(a, b)
  if type(b) == "number" then return scale3(a, b) end
  if type(a) == "number" then return scale3(b, a) end
  local mt = dgetmt(b)
  if mt == mt3 then
    local x, y, z = b.x, b.y, b.z
    return new3(a.m00 * x + a.m01 * y + a.m02 * z, a.m10 * x + a.m11 * y + a.m12 * z, a.m20 * x + a.m21 * y + a.m22 * z)
  end
  if mt == mtm3 then return mul33(a, b) end
  noverload("Matrix3 *", a, b)
end
M3C.statics.ZERO = function() return newm3(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0) end
M3C.statics.IDENTITY = identity3

----------------------------------------------------------------------------------------------------
-- Matrix3x4 (affine transform: 3x3 rotation-scale plus translation column)
----------------------------------------------------------------------------------------------------
local function identity34() return newm34(1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0) end

-- translation, rotation (quaternion), scale (Vector3 or number)
local function trs34(t, q, s)
  local r00, r01, r02, r10, r11, r12, r20, r21, r22 = rotation_matrix(q.w, q.x, q.y, q.z)
  local sx, sy, sz
  if type(s) == "number" then sx, sy, sz = s, s, s else sx, sy, sz = s.x, s.y, s.z end
  return newm34(r00 * sx, r01 * sy, r02 * sz, t.x * 1.0,
                r10 * sx, r11 * sy, r12 * sz, t.y * 1.0,
                r20 * sx, r21 * sy, r22 * sz, t.z * 1.0)
end
MX.trs34 = trs34

M34C.new = function(...)
  local a, b, c = ...
  if a == nil then return identity34() end
  local mt = dgetmt(a)
  if mt == mtm34 then return copym34(a) end
  if mt == mtm3 then
    return newm34(a.m00, a.m01, a.m02, 0.0, a.m10, a.m11, a.m12, 0.0, a.m20, a.m21, a.m22, 0.0)
  end
  if mt == mtm4 then
    return newm34(a.m00, a.m01, a.m02, a.m03, a.m10, a.m11, a.m12, a.m13, a.m20, a.m21, a.m22, a.m23)
  end
  if mt == mt3 and dgetmt(b) == mtq and (type(c) == "number" or dgetmt(c) == mt3) then return trs34(a, b, c) end
  local m = from_numbers(F34, mtm34, ...)
  if m then return m end
  noverload("Matrix3x4.new", ...)
end

local function set_translation(self, t) self.m03, self.m13, self.m23 = t.x, t.y, t.z end
-- SetRotation takes a Matrix3; a Quaternion is accepted too (the `rotation` property assigns one).
local function set_rotation(self, r)
  if dgetmt(r) == mtq then
    self.m00, self.m01, self.m02, self.m10, self.m11, self.m12, self.m20, self.m21, self.m22 =
      rotation_matrix(r.w, r.x, r.y, r.z)
    return
  end
  self.m00, self.m01, self.m02 = r.m00, r.m01, r.m02
  self.m10, self.m11, self.m12 = r.m10, r.m11, r.m12
  self.m20, self.m21, self.m22 = r.m20, r.m21, r.m22
end
local function to_matrix3(m)
  return newm3(m.m00, m.m01, m.m02, m.m10, m.m11, m.m12, m.m20, m.m21, m.m22)
end
-- Fill (or create) translation, rotation, scale from an affine matrix; returns the three.
local function decompose(m, t, r, s)
  t = t or new3(0.0, 0.0, 0.0)
  r = r or newq(1.0, 0.0, 0.0, 0.0)
  s = s or new3(1.0, 1.0, 1.0)
  t.x, t.y, t.z = m.m03, m.m13, m.m23
  local sx, sy, sz = col_scale(m)
  s.x, s.y, s.z = sx, sy, sz
  local ix, iy, iz = 1.0 / sx, 1.0 / sy, 1.0 / sz
  r.w, r.x, r.y, r.z = quat_from_matrix(m.m00 * ix, m.m01 * iy, m.m02 * iz, m.m10 * ix, m.m11 * iy, m.m12 * iz,
                                        m.m20 * ix, m.m21 * iy, m.m22 * iz)
  return t, r, s
end

local MM34 = M34C.methods
MM34.SetTranslation = set_translation
MM34.SetRotation = set_rotation
MM34.SetScale = set_scale
MM34.ToMatrix3 = to_matrix3
MM34.ToMatrix4 = function(m)
  return newm4(m.m00, m.m01, m.m02, m.m03, m.m10, m.m11, m.m12, m.m13, m.m20, m.m21, m.m22, m.m23, 0.0, 0.0, 0.0, 1.0)
end
MM34.RotationMatrix = function(self) return newm3(unscaled3(self)) end
MM34.Translation = function(self) return new3(self.m03, self.m13, self.m23) end
MM34.Rotation = function(self) return newq(quat_from_matrix(unscaled3(self))) end
MM34.Scale = function(self) return new3(col_scale(self)) end
MM34.Equals = eps_eq(F34)
MM34.Decompose = decompose
MM34.Inverse = function(self)
  local m00, m01, m02, m03 = self.m00, self.m01, self.m02, self.m03
  local m10, m11, m12, m13 = self.m10, self.m11, self.m12, self.m13
  local m20, m21, m22, m23 = self.m20, self.m21, self.m22, self.m23
  local i00, i01, i02, i10, i11, i12, i20, i21, i22 = inverse3(m00, m01, m02, m10, m11, m12, m20, m21, m22)
  return newm34(i00, i01, i02, -(m03 * i00 + m13 * i01 + m23 * i02),
                i10, i11, i12, -(m03 * i10 + m13 * i11 + m23 * i12),
                i20, i21, i22, -(m03 * i20 + m13 * i21 + m23 * i22))
end
MM34.ToString = formatter(F34)

local function mul34(a, b)
  local a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23 =
    a.m00, a.m01, a.m02, a.m03, a.m10, a.m11, a.m12, a.m13, a.m20, a.m21, a.m22, a.m23
  local b00, b01, b02, b03, b10, b11, b12, b13, b20, b21, b22, b23 =
    b.m00, b.m01, b.m02, b.m03, b.m10, b.m11, b.m12, b.m13, b.m20, b.m21, b.m22, b.m23
  return newm34(
    a00 * b00 + a01 * b10 + a02 * b20, a00 * b01 + a01 * b11 + a02 * b21, a00 * b02 + a01 * b12 + a02 * b22,
    a00 * b03 + a01 * b13 + a02 * b23 + a03,
    a10 * b00 + a11 * b10 + a12 * b20, a10 * b01 + a11 * b11 + a12 * b21, a10 * b02 + a11 * b12 + a12 * b22,
    a10 * b03 + a11 * b13 + a12 * b23 + a13,
    a20 * b00 + a21 * b10 + a22 * b20, a20 * b01 + a21 * b11 + a22 * b21, a20 * b02 + a21 * b12 + a22 * b22,
    a20 * b03 + a21 * b13 + a22 * b23 + a23)
end
MX.mul34 = mul34

-- Full 4x4 product; `a` or `b` may be a Matrix3x4 (implicit last row 0 0 0 1).
local function mul44(a, b)
  local a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23 =
    a.m00, a.m01, a.m02, a.m03, a.m10, a.m11, a.m12, a.m13, a.m20, a.m21, a.m22, a.m23
  local a30, a31, a32, a33 = a.m30 or 0.0, a.m31 or 0.0, a.m32 or 0.0, a.m33 or 1.0
  local b00, b01, b02, b03, b10, b11, b12, b13, b20, b21, b22, b23 =
    b.m00, b.m01, b.m02, b.m03, b.m10, b.m11, b.m12, b.m13, b.m20, b.m21, b.m22, b.m23
  local b30, b31, b32, b33 = b.m30 or 0.0, b.m31 or 0.0, b.m32 or 0.0, b.m33 or 1.0
  return newm4(
    a00 * b00 + a01 * b10 + a02 * b20 + a03 * b30, a00 * b01 + a01 * b11 + a02 * b21 + a03 * b31,
    a00 * b02 + a01 * b12 + a02 * b22 + a03 * b32, a00 * b03 + a01 * b13 + a02 * b23 + a03 * b33,
    a10 * b00 + a11 * b10 + a12 * b20 + a13 * b30, a10 * b01 + a11 * b11 + a12 * b21 + a13 * b31,
    a10 * b02 + a11 * b12 + a12 * b22 + a13 * b32, a10 * b03 + a11 * b13 + a12 * b23 + a13 * b33,
    a20 * b00 + a21 * b10 + a22 * b20 + a23 * b30, a20 * b01 + a21 * b11 + a22 * b21 + a23 * b31,
    a20 * b02 + a21 * b12 + a22 * b22 + a23 * b32, a20 * b03 + a21 * b13 + a22 * b23 + a23 * b33,
    a30 * b00 + a31 * b10 + a32 * b20 + a33 * b30, a30 * b01 + a31 * b11 + a32 * b21 + a33 * b31,
    a30 * b02 + a31 * b12 + a32 * b22 + a33 * b32, a30 * b03 + a31 * b13 + a32 * b23 + a33 * b33)
end

-- Transform point (x, y, z) by an affine matrix.
local function xform34(m, x, y, z)
  return m.m00 * x + m.m01 * y + m.m02 * z + m.m03,
         m.m10 * x + m.m11 * y + m.m12 * z + m.m13,
         m.m20 * x + m.m21 * y + m.m22 * z + m.m23
end
MX.xform34 = xform34

local OM34 = M34C.ops
OM34.tostring = MM34.ToString
OM34.eq = exact_eq(F34)
OM34.add = elementwise(F34, mtm34, "add")
OM34.sub = elementwise(F34, mtm34, "sub")
local scale34 = elementwise(F34, mtm34, "scale")
OM34.mul = function(a, b)
  if type(b) == "number" then return scale34(a, b) end
  if type(a) == "number" then return scale34(b, a) end
  local mt = dgetmt(b)
  if mt == mt3 then return new3(xform34(a, b.x, b.y, b.z)) end
  if mt == mtm34 then return mul34(a, b) end
  if mt == mt4 then
    local x, y, z, w = b.x, b.y, b.z, b.w
    return new3(a.m00 * x + a.m01 * y + a.m02 * z + a.m03 * w, a.m10 * x + a.m11 * y + a.m12 * z + a.m13 * w,
                a.m20 * x + a.m21 * y + a.m22 * z + a.m23 * w)
  end
  if mt == mtm4 then return mul44(a, b) end
  noverload("Matrix3x4 *", a, b)
end
M34C.statics.ZERO = function() return newm34(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0) end
M34C.statics.IDENTITY = identity34

----------------------------------------------------------------------------------------------------
-- Matrix4
----------------------------------------------------------------------------------------------------
local function identity4()
  return newm4(1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0)
end
M4C.new = function(...)
  local a = ...
  if a == nil then return identity4() end
  local mt = dgetmt(a)
  if mt == mtm4 then return copym4(a) end
  if mt == mtm3 then
    return newm4(a.m00, a.m01, a.m02, 0.0, a.m10, a.m11, a.m12, 0.0, a.m20, a.m21, a.m22, 0.0, 0.0, 0.0, 0.0, 1.0)
  end
  local m = from_numbers(F4, mtm4, ...)
  if m then return m end
  noverload("Matrix4.new", ...)
end

-- Inverse by cofactors (2x2 minors of the top and bottom row pairs).
local function inverse4(m)
  local m00, m01, m02, m03 = m.m00, m.m01, m.m02, m.m03
  local m10, m11, m12, m13 = m.m10, m.m11, m.m12, m.m13
  local m20, m21, m22, m23 = m.m20, m.m21, m.m22, m.m23
  local m30, m31, m32, m33 = m.m30, m.m31, m.m32, m.m33
  local s0, s1, s2 = m00 * m11 - m10 * m01, m00 * m12 - m10 * m02, m00 * m13 - m10 * m03
  local s3, s4, s5 = m01 * m12 - m11 * m02, m01 * m13 - m11 * m03, m02 * m13 - m12 * m03
  local c5, c4, c3 = m22 * m33 - m32 * m23, m21 * m33 - m31 * m23, m21 * m32 - m31 * m22
  local c2, c1, c0 = m20 * m33 - m30 * m23, m20 * m32 - m30 * m22, m20 * m31 - m30 * m21
  local inv = 1.0 / (s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0)
  return newm4(
    (m11 * c5 - m12 * c4 + m13 * c3) * inv, (-m01 * c5 + m02 * c4 - m03 * c3) * inv,
    (m31 * s5 - m32 * s4 + m33 * s3) * inv, (-m21 * s5 + m22 * s4 - m23 * s3) * inv,
    (-m10 * c5 + m12 * c2 - m13 * c1) * inv, (m00 * c5 - m02 * c2 + m03 * c1) * inv,
    (-m30 * s5 + m32 * s2 - m33 * s1) * inv, (m20 * s5 - m22 * s2 + m23 * s1) * inv,
    (m10 * c4 - m11 * c2 + m13 * c0) * inv, (-m00 * c4 + m01 * c2 - m03 * c0) * inv,
    (m30 * s4 - m31 * s2 + m33 * s0) * inv, (-m20 * s4 + m21 * s2 - m23 * s0) * inv,
    (-m10 * c3 + m11 * c1 - m12 * c0) * inv, (m00 * c3 - m01 * c1 + m02 * c0) * inv,
    (-m30 * s3 + m31 * s1 - m32 * s0) * inv, (m20 * s3 - m21 * s1 + m22 * s0) * inv)
end
MX.inverse4 = inverse4
local function transpose4(m)
  return newm4(m.m00, m.m10, m.m20, m.m30, m.m01, m.m11, m.m21, m.m31, m.m02, m.m12, m.m22, m.m32, m.m03, m.m13,
               m.m23, m.m33)
end
MX.transpose4 = transpose4

local MM4 = M4C.methods
MM4.SetTranslation = set_translation
MM4.SetRotation = set_rotation
MM4.SetScale = set_scale
MM4.ToMatrix3 = to_matrix3
MM4.RotationMatrix = function(self) return newm3(unscaled3(self)) end
MM4.Translation = function(self) return new3(self.m03, self.m13, self.m23) end
MM4.Rotation = function(self) return newq(quat_from_matrix(unscaled3(self))) end
MM4.Scale = function(self) return new3(col_scale(self)) end
MM4.Transpose = transpose4
MM4.Equals = eps_eq(F4)
MM4.Decompose = decompose
MM4.Inverse = inverse4
MM4.ToString = formatter(F4)

local function xform4_v4(m, x, y, z, w)
  return m.m00 * x + m.m01 * y + m.m02 * z + m.m03 * w, m.m10 * x + m.m11 * y + m.m12 * z + m.m13 * w,
    m.m20 * x + m.m21 * y + m.m22 * z + m.m23 * w, m.m30 * x + m.m31 * y + m.m32 * z + m.m33 * w
end
MX.xform4_v4 = xform4_v4
-- Projective transform of a point: divide by w.
local function xform4_point(m, x, y, z)
  local inv_w = 1.0 / (m.m30 * x + m.m31 * y + m.m32 * z + m.m33)
  return (m.m00 * x + m.m01 * y + m.m02 * z + m.m03) * inv_w, (m.m10 * x + m.m11 * y + m.m12 * z + m.m13) * inv_w,
    (m.m20 * x + m.m21 * y + m.m22 * z + m.m23) * inv_w
end
MX.xform4_point = xform4_point

local OM4 = M4C.ops
OM4.tostring = MM4.ToString
OM4.eq = exact_eq(F4)
OM4.add = elementwise(F4, mtm4, "add")
OM4.sub = elementwise(F4, mtm4, "sub")
local scale4 = elementwise(F4, mtm4, "scale")
OM4.mul = function(a, b)
  if type(b) == "number" then return scale4(a, b) end
  if type(a) == "number" then return scale4(b, a) end
  local mt = dgetmt(b)
  if mt == mt3 then return new3(xform4_point(a, b.x, b.y, b.z)) end
  if mt == mt4 then return new4(xform4_v4(a, b.x, b.y, b.z, b.w)) end
  if mt == mtm4 or mt == mtm34 then return mul44(a, b) end
  noverload("Matrix4 *", a, b)
end
M4C.statics.ZERO = function()
  return newm4(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
end
M4C.statics.IDENTITY = identity4

E.Matrix3_new = function(...) return M3C.new(...) end
E.Matrix3x4_new = function(...) return M34C.new(...) end
E.Matrix4_new = function(...) return M4C.new(...) end
