-- Math value types, part 4: Rect, IntRect, BoundingBox, Sphere, Ray, Plane, Frustum, Polyhedron
-- (Urho3D's Math/Rect.h, BoundingBox.*, Sphere.*, Ray.*, Plane.*, Frustum.*, Polyhedron.*).
-- Member vectors (Rect.min, BoundingBox.max, Sphere.center, ...) are value tables owned by their parent:
-- mutating methods install fresh tables, so a vector the game assigned or read earlier is never altered.
local setmetatable, type = setmetatable, type
local sqrt, sin, cos, tan, huge = math.sqrt, math.sin, math.cos, math.tan, math.huge
local sformat = string.format
local dgetmt = E.dgetmt
local MX = E.MATH
local equals, noverload, toint, normalized3 = MX.equals, MX.noverload, MX.toint, MX.normalized3
local new2, new3, new4, newi2 = MX.new2, MX.new3, MX.new4, MX.newi2
local newm34, inverse4 = MX.newm34, MX.inverse4
local M_EPSILON, M_MIN_NEARCLIP, M_DEGTORAD, M_DEGTORAD_2 = MX.M_EPSILON, MX.M_MIN_NEARCLIP, MX.M_DEGTORAD,
  MX.M_DEGTORAD_2
local INF = huge
local OUTSIDE, INTERSECTS, INSIDE = 0, 1, 2

local RC, IRC, BBC, SPC, RYC, PLC, FRC, PHC = class("Rect"), class("IntRect"), class("BoundingBox"), class("Sphere"),
  class("Ray"), class("Plane"), class("Frustum"), class("Polyhedron")
local mtr, mtir, mtbb, mtsp, mtray, mtpl, mtfr, mtph = RC.mt, IRC.mt, BBC.mt, SPC.mt, RYC.mt, PLC.mt, FRC.mt, PHC.mt
local mt2, mt3, mt4, mti2 = class("Vector2").mt, class("Vector3").mt, class("Vector4").mt, class("IntVector2").mt
local mtm3, mtm34, mtm4 = class("Matrix3").mt, class("Matrix3x4").mt, class("Matrix4").mt

local function fmin(a, b) if a < b then return a end return b end
local function fmax(a, b) if a > b then return a end return b end
local function fabs(a) if a < 0 then return -a end return a end

-- Transform a point by a Matrix3 (no translation) or a Matrix3x4.
local function xform(m, x, y, z)
  return m.m00 * x + m.m01 * y + m.m02 * z + (m.m03 or 0.0),
         m.m10 * x + m.m11 * y + m.m12 * z + (m.m13 or 0.0),
         m.m20 * x + m.m21 * y + m.m22 * z + (m.m23 or 0.0)
end
local xform4_point = MX.xform4_point

----------------------------------------------------------------------------------------------------
-- Rect
----------------------------------------------------------------------------------------------------
local function newrect(x0, y0, x1, y1) return setmetatable({min = new2(x0, y0), max = new2(x1, y1)}, mtr) end
MX.newrect = newrect
E.Rect_new = function(l, t, r, b)
  if l == nil then return newrect(INF, INF, -INF, -INF) end
  return newrect(l * 1.0, t * 1.0, r * 1.0, b * 1.0)
end
MX.COPY[mtr] = function(v) return newrect(v.min.x, v.min.y, v.max.x, v.max.y) end

RC.new = function(a, b, c, d, ...)
  if a == nil then return newrect(INF, INF, -INF, -INF) end
  if type(a) == "number" then
    if type(b) ~= "number" or type(c) ~= "number" or type(d) ~= "number" then noverload("Rect.new", a, b, c, d, ...) end
    return newrect(a * 1.0, b * 1.0, c * 1.0, d * 1.0)
  end
  local mt = dgetmt(a)
  if mt == mtr then return newrect(a.min.x, a.min.y, a.max.x, a.max.y) end
  if mt == mt2 and dgetmt(b) == mt2 then return newrect(a.x, a.y, b.x, b.y) end
  if mt == mt4 then return newrect(a.x, a.y, a.z, a.w) end
  noverload("Rect.new", a, b, c, d, ...)
end

local MR = RC.methods
MR.Define = function(self, a, b)
  local mt = dgetmt(a)
  if mt == mtr then
    self.min, self.max = new2(a.min.x, a.min.y), new2(a.max.x, a.max.y)
  elseif mt == mt2 and b ~= nil then
    self.min, self.max = new2(a.x, a.y), new2(b.x, b.y)
  elseif mt == mt2 then
    self.min, self.max = new2(a.x, a.y), new2(a.x, a.y)
  else
    noverload("Rect:Define", a, b)
  end
end
MR.Merge = function(self, a)
  local mn, mx = self.min, self.max
  local x0, y0, x1, y1
  if dgetmt(a) == mtr then
    x0, y0, x1, y1 = a.min.x, a.min.y, a.max.x, a.max.y
  else
    x0, y0 = a.x, a.y
    x1, y1 = x0, y0
  end
  if x0 < mn.x or y0 < mn.y then self.min = new2(fmin(x0, mn.x), fmin(y0, mn.y)) end
  if x1 > mx.x or y1 > mx.y then self.max = new2(fmax(x1, mx.x), fmax(y1, mx.y)) end
end
MR.Clear = function(self) self.min, self.max = new2(INF, INF), new2(-INF, -INF) end
MR.Clip = function(self, r)
  local x0, y0, x1, y1 = self.min.x, self.min.y, self.max.x, self.max.y
  if r.min.x > x0 then x0 = r.min.x end
  if r.max.x < x1 then x1 = r.max.x end
  if r.min.y > y0 then y0 = r.min.y end
  if r.max.y < y1 then y1 = r.max.y end
  if x0 > x1 or y0 > y1 then x0, y0, x1, y1 = INF, INF, -INF, -INF end
  self.min, self.max = new2(x0, y0), new2(x1, y1)
end
MR.Defined = function(self) return self.min.x ~= INF end
MR.Center = function(self) return new2((self.max.x + self.min.x) * 0.5, (self.max.y + self.min.y) * 0.5) end
MR.Size = function(self) return new2(self.max.x - self.min.x, self.max.y - self.min.y) end
MR.HalfSize = function(self) return new2((self.max.x - self.min.x) * 0.5, (self.max.y - self.min.y) * 0.5) end
MR.Equals = function(self, r)
  return equals(self.min.x, r.min.x) and equals(self.min.y, r.min.y) and equals(self.max.x, r.max.x)
    and equals(self.max.y, r.max.y)
end
MR.IsInside = function(self, p)
  local mn, mx = self.min, self.max
  if dgetmt(p) == mtr then
    local pmn, pmx = p.min, p.max
    if pmx.x < mn.x or pmn.x > mx.x or pmx.y < mn.y or pmn.y > mx.y then return OUTSIDE end
    if pmn.x < mn.x or pmx.x > mx.x or pmn.y < mn.y or pmx.y > mx.y then return INTERSECTS end
    return INSIDE
  end
  if p.x < mn.x or p.y < mn.y or p.x > mx.x or p.y > mx.y then return OUTSIDE end
  return INSIDE
end
MR.ToVector4 = function(self) return new4(self.min.x, self.min.y, self.max.x, self.max.y) end
local function tostringrect(self) return sformat("%g %g %g %g", self.min.x, self.min.y, self.max.x, self.max.y) end
MR.ToString = tostringrect
RC.ops.tostring = tostringrect
RC.ops.eq = function(a, b)
  return a.min.x == b.min.x and a.min.y == b.min.y and a.max.x == b.max.x and a.max.y == b.max.y
end
RC.statics.FULL = function() return newrect(-1.0, -1.0, 1.0, 1.0) end
RC.statics.POSITIVE = function() return newrect(0.0, 0.0, 1.0, 1.0) end
RC.statics.ZERO = function() return newrect(0.0, 0.0, 0.0, 0.0) end

----------------------------------------------------------------------------------------------------
-- IntRect
----------------------------------------------------------------------------------------------------
local function newir(l, t, r, b) return setmetatable({left = l, top = t, right = r, bottom = b}, mtir) end
E.IntRect_new = function(l, t, r, b)
  return newir(toint(l or 0), toint(t or 0), toint(r or 0), toint(b or 0))
end
MX.COPY[mtir] = function(v) return newir(v.left, v.top, v.right, v.bottom) end

IRC.new = function(a, b, c, d, ...)
  if a == nil then return newir(0, 0, 0, 0) end
  if type(a) == "number" then
    if type(b) ~= "number" or type(c) ~= "number" or type(d) ~= "number" then
      noverload("IntRect.new", a, b, c, d, ...)
    end
    return newir(toint(a), toint(b), toint(c), toint(d))
  end
  local mt = dgetmt(a)
  if mt == mtir then return newir(a.left, a.top, a.right, a.bottom) end
  if mt == mti2 and dgetmt(b) == mti2 then return newir(a.x, a.y, b.x, b.y) end
  noverload("IntRect.new", a, b, c, d, ...)
end
local MIR = IRC.methods
MIR.Size = function(self) return newi2(self.right - self.left, self.bottom - self.top) end
MIR.Width = function(self) return self.right - self.left end
MIR.Height = function(self) return self.bottom - self.top end
MIR.IsInside = function(self, p)
  if dgetmt(p) == mtir then
    if p.right < self.left or p.left >= self.right or p.bottom < self.top or p.top >= self.bottom then
      return OUTSIDE
    end
    if p.left < self.left or p.right > self.right or p.top < self.top or p.bottom > self.bottom then
      return INTERSECTS
    end
    return INSIDE
  end
  if p.x < self.left or p.y < self.top or p.x >= self.right or p.y >= self.bottom then return OUTSIDE end
  return INSIDE
end
MIR.Clip = function(self, r)
  if r.left > self.left then self.left = r.left end
  if r.right < self.right then self.right = r.right end
  if r.top > self.top then self.top = r.top end
  if r.bottom < self.bottom then self.bottom = r.bottom end
  if self.left >= self.right or self.top >= self.bottom then
    self.left, self.top, self.right, self.bottom = 0, 0, 0, 0
  end
end
MIR.Merge = function(self, r)
  if self.right - self.left <= 0 or self.bottom - self.top <= 0 then
    self.left, self.top, self.right, self.bottom = r.left, r.top, r.right, r.bottom
  elseif r.right - r.left > 0 and r.bottom - r.top > 0 then
    if r.left < self.left then self.left = r.left end
    if r.top < self.top then self.top = r.top end
    if r.right > self.right then self.right = r.right end
    if r.bottom > self.bottom then self.bottom = r.bottom end
  end
end
IRC.ops.tostring = function(self)
  return sformat("%d %d %d %d", toint(self.left), toint(self.top), toint(self.right), toint(self.bottom))
end
IRC.ops.eq = function(a, b)
  return a.left == b.left and a.top == b.top and a.right == b.right and a.bottom == b.bottom
end
IRC.statics.ZERO = function() return newir(0, 0, 0, 0) end

----------------------------------------------------------------------------------------------------
-- BoundingBox
----------------------------------------------------------------------------------------------------
local function newbb(x0, y0, z0, x1, y1, z1)
  return setmetatable({min = new3(x0, y0, z0), max = new3(x1, y1, z1)}, mtbb)
end
MX.newbb = newbb
E.BoundingBox_new = function(x0, y0, z0, x1, y1, z1)
  if x0 == nil then return newbb(INF, INF, INF, -INF, -INF, -INF) end
  return newbb(x0 * 1.0, y0 * 1.0, z0 * 1.0, x1 * 1.0, y1 * 1.0, z1 * 1.0)
end
MX.COPY[mtbb] = function(v) return newbb(v.min.x, v.min.y, v.min.z, v.max.x, v.max.y, v.max.z) end

local function bb_set(self, x0, y0, z0, x1, y1, z1)
  self.min, self.max = new3(x0, y0, z0), new3(x1, y1, z1)
end
local function bb_clear(self) bb_set(self, INF, INF, INF, -INF, -INF, -INF) end
local function bb_merge_point(self, x, y, z)
  local mn, mx = self.min, self.max
  if x < mn.x or y < mn.y or z < mn.z then self.min = new3(fmin(x, mn.x), fmin(y, mn.y), fmin(z, mn.z)) end
  if x > mx.x or y > mx.y or z > mx.z then self.max = new3(fmax(x, mx.x), fmax(y, mx.y), fmax(z, mx.z)) end
end
local function bb_merge_box(self, x0, y0, z0, x1, y1, z1)
  local mn, mx = self.min, self.max
  if x0 < mn.x or y0 < mn.y or z0 < mn.z then self.min = new3(fmin(x0, mn.x), fmin(y0, mn.y), fmin(z0, mn.z)) end
  if x1 > mx.x or y1 > mx.y or z1 > mx.z then self.max = new3(fmax(x1, mx.x), fmax(y1, mx.y), fmax(z1, mx.z)) end
end
local function bb_merge_vertices(self, verts)
  for i = 1, #verts do local v = verts[i]; bb_merge_point(self, v.x, v.y, v.z) end
end
local function bb_merge_poly(self, poly)
  local faces = poly.faces_
  for i = 1, #faces do bb_merge_vertices(self, faces[i]) end
end

local function bb_define(self, a, b, fname)
  local mt = dgetmt(a)
  if mt == mtbb then
    bb_set(self, a.min.x, a.min.y, a.min.z, a.max.x, a.max.y, a.max.z)
  elseif mt == mt3 then
    if b == nil then bb_set(self, a.x, a.y, a.z, a.x, a.y, a.z)
    else bb_set(self, a.x, a.y, a.z, b.x, b.y, b.z) end
  elseif type(a) == "number" then
    local lo, hi = a * 1.0, b * 1.0
    bb_set(self, lo, lo, lo, hi, hi, hi)
  elseif mt == mtr then
    bb_set(self, a.min.x, a.min.y, 0.0, a.max.x, a.max.y, 0.0)
  elseif mt == mtsp then
    local c, r = a.center, a.radius
    bb_set(self, c.x - r, c.y - r, c.z - r, c.x + r, c.y + r, c.z + r)
  elseif mt == mtfr then
    bb_clear(self)
    bb_merge_vertices(self, a.vertices_)
  elseif mt == mtph then
    bb_clear(self)
    bb_merge_poly(self, a)
  else
    noverload(fname, a, b)
  end
end

BBC.new = function(a, b, ...)
  local box = newbb(INF, INF, INF, -INF, -INF, -INF)
  if a ~= nil then bb_define(box, a, b, "BoundingBox.new") end
  return box
end

local function bb_transformed(self, m)
  local mn, mx = self.min, self.max
  local cx, cy, cz = xform(m, (mx.x + mn.x) * 0.5, (mx.y + mn.y) * 0.5, (mx.z + mn.z) * 0.5)
  local ex, ey, ez = (mx.x - mn.x) * 0.5, (mx.y - mn.y) * 0.5, (mx.z - mn.z) * 0.5
  local nx = fabs(m.m00) * ex + fabs(m.m01) * ey + fabs(m.m02) * ez
  local ny = fabs(m.m10) * ex + fabs(m.m11) * ey + fabs(m.m12) * ez
  local nz = fabs(m.m20) * ex + fabs(m.m21) * ey + fabs(m.m22) * ez
  return cx - nx, cy - ny, cz - nz, cx + nx, cy + ny, cz + nz
end

-- Squared distance from a sphere center to a box (0 inside), shared by the box and sphere tests.
local function box_dist2(mn, mx, c)
  local d2, t = 0.0, 0.0
  if c.x < mn.x then t = c.x - mn.x; d2 = d2 + t * t elseif c.x > mx.x then t = c.x - mx.x; d2 = d2 + t * t end
  if c.y < mn.y then t = c.y - mn.y; d2 = d2 + t * t elseif c.y > mx.y then t = c.y - mx.y; d2 = d2 + t * t end
  if c.z < mn.z then t = c.z - mn.z; d2 = d2 + t * t elseif c.z > mx.z then t = c.z - mx.z; d2 = d2 + t * t end
  return d2
end

local MBB = BBC.methods
MBB.Define = function(self, a, b) bb_define(self, a, b, "BoundingBox:Define") end
MBB.Merge = function(self, a)
  local mt = dgetmt(a)
  if mt == mt3 then
    bb_merge_point(self, a.x, a.y, a.z)
  elseif mt == mtbb then
    bb_merge_box(self, a.min.x, a.min.y, a.min.z, a.max.x, a.max.y, a.max.z)
  elseif mt == mtsp then
    local c, r = a.center, a.radius
    bb_merge_point(self, c.x + r, c.y + r, c.z + r)
    bb_merge_point(self, c.x - r, c.y - r, c.z - r)
  elseif mt == mtfr then
    bb_merge_vertices(self, a.vertices_)
  elseif mt == mtph then
    bb_merge_poly(self, a)
  else
    noverload("BoundingBox:Merge", a)
  end
end
MBB.Clip = function(self, box)
  local mn, mx, bmn, bmx = self.min, self.max, box.min, box.max
  local x0, y0, z0, x1, y1, z1 = mn.x, mn.y, mn.z, mx.x, mx.y, mx.z
  if bmn.x > x0 then x0 = bmn.x end
  if bmx.x < x1 then x1 = bmx.x end
  if bmn.y > y0 then y0 = bmn.y end
  if bmx.y < y1 then y1 = bmx.y end
  if bmn.z > z0 then z0 = bmn.z end
  if bmx.z < z1 then z1 = bmx.z end
  if x0 > x1 or y0 > y1 or z0 > z1 then x0, y0, z0, x1, y1, z1 = INF, INF, INF, -INF, -INF, -INF end
  bb_set(self, x0, y0, z0, x1, y1, z1)
end
MBB.Transform = function(self, m) bb_set(self, bb_transformed(self, m)) end
MBB.Transformed = function(self, m) return newbb(bb_transformed(self, m)) end
MBB.Clear = bb_clear
MBB.Defined = function(self) return self.min.x ~= INF end
MBB.Center = function(self)
  local mn, mx = self.min, self.max
  return new3((mx.x + mn.x) * 0.5, (mx.y + mn.y) * 0.5, (mx.z + mn.z) * 0.5)
end
MBB.Size = function(self)
  local mn, mx = self.min, self.max
  return new3(mx.x - mn.x, mx.y - mn.y, mx.z - mn.z)
end
MBB.HalfSize = function(self)
  local mn, mx = self.min, self.max
  return new3((mx.x - mn.x) * 0.5, (mx.y - mn.y) * 0.5, (mx.z - mn.z) * 0.5)
end
MBB.Projected = function(self, proj)
  local mn, mx = self.min, self.max
  local z0, z1 = mn.z, mx.z
  if z0 < M_MIN_NEARCLIP then z0 = M_MIN_NEARCLIP end
  if z1 < M_MIN_NEARCLIP then z1 = M_MIN_NEARCLIP end
  local rect = newrect(INF, INF, -INF, -INF)
  local rx0, ry0, rx1, ry1 = INF, INF, -INF, -INF
  local xs, ys, zs = {mn.x, mx.x}, {mn.y, mx.y}, {z0, z1}
  for k = 1, 2 do
    for j = 1, 2 do
      for i = 1, 2 do
        local px, py = xform4_point(proj, xs[i], ys[j], zs[k])
        if px < rx0 then rx0 = px end
        if px > rx1 then rx1 = px end
        if py < ry0 then ry0 = py end
        if py > ry1 then ry1 = py end
      end
    end
  end
  rect.min, rect.max = new2(rx0, ry0), new2(rx1, ry1)
  return rect
end
MBB.DistanceToPoint = function(self, p)
  local mn, mx = self.min, self.max
  local ox = fabs((mx.x + mn.x) * 0.5 - p.x) - (mx.x - mn.x) * 0.5
  local oy = fabs((mx.y + mn.y) * 0.5 - p.y) - (mx.y - mn.y) * 0.5
  local oz = fabs((mx.z + mn.z) * 0.5 - p.z) - (mx.z - mn.z) * 0.5
  ox, oy, oz = fmax(0.0, ox), fmax(0.0, oy), fmax(0.0, oz)
  return sqrt(ox * ox + oy * oy + oz * oz)
end
MBB.IsInside = function(self, a)
  local mn, mx = self.min, self.max
  local mt = dgetmt(a)
  if mt == mtbb then
    local bmn, bmx = a.min, a.max
    if bmx.x < mn.x or bmn.x > mx.x or bmx.y < mn.y or bmn.y > mx.y or bmx.z < mn.z or bmn.z > mx.z then
      return OUTSIDE
    end
    if bmn.x < mn.x or bmx.x > mx.x or bmn.y < mn.y or bmx.y > mx.y or bmn.z < mn.z or bmx.z > mx.z then
      return INTERSECTS
    end
    return INSIDE
  elseif mt == mtsp then
    local c, r = a.center, a.radius
    if box_dist2(mn, mx, c) >= r * r then return OUTSIDE end
    if c.x - r < mn.x or c.x + r > mx.x or c.y - r < mn.y or c.y + r > mx.y or c.z - r < mn.z or c.z + r > mx.z then
      return INTERSECTS
    end
    return INSIDE
  end
  if a.x < mn.x or a.x > mx.x or a.y < mn.y or a.y > mx.y or a.z < mn.z or a.z > mx.z then return OUTSIDE end
  return INSIDE
end
MBB.IsInsideFast = function(self, a)
  local mn, mx = self.min, self.max
  if dgetmt(a) == mtsp then
    local r = a.radius
    if box_dist2(mn, mx, a.center) >= r * r then return OUTSIDE end
    return INSIDE
  end
  local bmn, bmx = a.min, a.max
  if bmx.x < mn.x or bmn.x > mx.x or bmx.y < mn.y or bmn.y > mx.y or bmx.z < mn.z or bmn.z > mx.z then
    return OUTSIDE
  end
  return INSIDE
end
local function tostringbb(self)
  local mn, mx = self.min, self.max
  return sformat("%g %g %g - %g %g %g", mn.x, mn.y, mn.z, mx.x, mx.y, mx.z)
end
MBB.ToString = tostringbb
BBC.ops.tostring = tostringbb
BBC.ops.eq = function(a, b)
  local amn, amx, bmn, bmx = a.min, a.max, b.min, b.max
  return amn.x == bmn.x and amn.y == bmn.y and amn.z == bmn.z and amx.x == bmx.x and amx.y == bmx.y
    and amx.z == bmx.z
end

----------------------------------------------------------------------------------------------------
-- Sphere
----------------------------------------------------------------------------------------------------
local function newsp(x, y, z, r) return setmetatable({center = new3(x, y, z), radius = r}, mtsp) end
MX.COPY[mtsp] = function(v) return newsp(v.center.x, v.center.y, v.center.z, v.radius) end

local function sp_merge_point(self, x, y, z)
  if self.radius < 0.0 then
    self.center, self.radius = new3(x, y, z), 0.0
    return
  end
  local c = self.center
  local ox, oy, oz = x - c.x, y - c.y, z - c.z
  local dist = sqrt(ox * ox + oy * oy + oz * oz)
  if dist > self.radius then
    local half = (dist - self.radius) * 0.5
    self.radius = self.radius + half
    local k = half / dist
    self.center = new3(c.x + k * ox, c.y + k * oy, c.z + k * oz)
  end
end
local function sp_merge_box(self, box)
  local mn, mx = box.min, box.max
  sp_merge_point(self, mn.x, mn.y, mn.z)
  sp_merge_point(self, mx.x, mn.y, mn.z)
  sp_merge_point(self, mn.x, mx.y, mn.z)
  sp_merge_point(self, mx.x, mx.y, mn.z)
  sp_merge_point(self, mn.x, mn.y, mx.z)
  sp_merge_point(self, mx.x, mn.y, mx.z)
  sp_merge_point(self, mn.x, mx.y, mx.z)
  sp_merge_point(self, mx.x, mx.y, mx.z)
end
local function sp_merge_vertices(self, verts)
  for i = 1, #verts do local v = verts[i]; sp_merge_point(self, v.x, v.y, v.z) end
end
local function sp_merge_poly(self, poly)
  local faces = poly.faces_
  for i = 1, #faces do sp_merge_vertices(self, faces[i]) end
end
local function sp_clear(self) self.center, self.radius = new3(0.0, 0.0, 0.0), -INF end
local function sp_merge_sphere(self, s)
  local sc, sr = s.center, s.radius
  if self.radius < 0.0 then
    self.center, self.radius = new3(sc.x, sc.y, sc.z), sr
    return
  end
  local c, r = self.center, self.radius
  local ox, oy, oz = sc.x - c.x, sc.y - c.y, sc.z - c.z
  local dist = sqrt(ox * ox + oy * oy + oz * oz)
  if dist + sr < r then return end
  if dist + r < sr then
    self.center, self.radius = new3(sc.x, sc.y, sc.z), sr
    return
  end
  local nx, ny, nz = ox / dist, oy / dist, oz / dist
  local ax, ay, az = c.x - r * nx, c.y - r * ny, c.z - r * nz
  local bx, by, bz = sc.x + sr * nx, sc.y + sr * ny, sc.z + sr * nz
  local cx, cy, cz = (ax + bx) * 0.5, (ay + by) * 0.5, (az + bz) * 0.5
  self.center = new3(cx, cy, cz)
  local dx, dy, dz = bx - cx, by - cy, bz - cz
  self.radius = sqrt(dx * dx + dy * dy + dz * dz)
end

local function sp_define(self, a, b, fname)
  local mt = dgetmt(a)
  if mt == mtsp then
    self.center, self.radius = new3(a.center.x, a.center.y, a.center.z), a.radius
  elseif mt == mt3 then
    self.center, self.radius = new3(a.x, a.y, a.z), b * 1.0
  elseif mt == mtbb then
    sp_clear(self)
    sp_merge_box(self, a)
  elseif mt == mtfr then
    sp_clear(self)
    sp_merge_vertices(self, a.vertices_)
  elseif mt == mtph then
    sp_clear(self)
    sp_merge_poly(self, a)
  else
    noverload(fname, a, b)
  end
end

SPC.new = function(a, b, ...)
  local s = newsp(0.0, 0.0, 0.0, -INF)
  if a ~= nil then sp_define(s, a, b, "Sphere.new") end
  return s
end

local MSP = SPC.methods
MSP.Define = function(self, a, b) sp_define(self, a, b, "Sphere:Define") end
MSP.Merge = function(self, a)
  local mt = dgetmt(a)
  if mt == mt3 then sp_merge_point(self, a.x, a.y, a.z)
  elseif mt == mtbb then sp_merge_box(self, a)
  elseif mt == mtsp then sp_merge_sphere(self, a)
  elseif mt == mtfr then sp_merge_vertices(self, a.vertices_)
  elseif mt == mtph then sp_merge_poly(self, a)
  else noverload("Sphere:Merge", a) end
end
MSP.Clear = sp_clear
MSP.Defined = function(self) return self.radius >= 0.0 end
MSP.IsInside = function(self, a)
  local c, r = self.center, self.radius
  local mt = dgetmt(a)
  if mt == mtsp then
    local ac = a.center
    local dx, dy, dz = ac.x - c.x, ac.y - c.y, ac.z - c.z
    local dist = sqrt(dx * dx + dy * dy + dz * dz)
    if dist >= a.radius + r then return OUTSIDE end
    if dist + a.radius < r then return INSIDE end
    return INTERSECTS
  elseif mt == mtbb then
    local r2 = r * r
    local mn, mx = a.min, a.max
    if box_dist2(mn, mx, c) >= r2 then return OUTSIDE end
    local x0, y0, z0 = mn.x - c.x, mn.y - c.y, mn.z - c.z
    local x1, y1, z1 = mx.x - c.x, mx.y - c.y, mx.z - c.z
    local xs, ys, zs = {x0, x1}, {y0, y1}, {z0, z1}
    for k = 1, 2 do
      for j = 1, 2 do
        for i = 1, 2 do
          local x, y, z = xs[i], ys[j], zs[k]
          if x * x + y * y + z * z >= r2 then return INTERSECTS end
        end
      end
    end
    return INSIDE
  end
  local dx, dy, dz = a.x - c.x, a.y - c.y, a.z - c.z
  if dx * dx + dy * dy + dz * dz < r * r then return INSIDE end
  return OUTSIDE
end
MSP.IsInsideFast = function(self, a)
  local c, r = self.center, self.radius
  if dgetmt(a) == mtsp then
    local ac = a.center
    local dx, dy, dz = ac.x - c.x, ac.y - c.y, ac.z - c.z
    local comb = a.radius + r
    if dx * dx + dy * dy + dz * dz >= comb * comb then return OUTSIDE end
    return INSIDE
  end
  if box_dist2(a.min, a.max, c) >= r * r then return OUTSIDE end
  return INSIDE
end
MSP.Distance = function(self, p)
  local c = self.center
  local dx, dy, dz = p.x - c.x, p.y - c.y, p.z - c.z
  return fmax(sqrt(dx * dx + dy * dy + dz * dz) - self.radius, 0.0)
end
local function local_point(self, theta, phi)
  local r = self.radius
  theta, phi = theta * M_DEGTORAD, phi * M_DEGTORAD
  local st, ct, sp, cp = sin(theta), cos(theta), sin(phi), cos(phi)
  return r * st * sp, r * cp, r * ct * sp
end
MSP.GetLocalPoint = function(self, theta, phi) return new3(local_point(self, theta, phi)) end
MSP.GetPoint = function(self, theta, phi)
  local x, y, z = local_point(self, theta, phi)
  local c = self.center
  return new3(c.x + x, c.y + y, c.z + z)
end
SPC.ops.eq = function(a, b)
  local ac, bc = a.center, b.center
  return ac.x == bc.x and ac.y == bc.y and ac.z == bc.z and a.radius == b.radius
end

----------------------------------------------------------------------------------------------------
-- Plane
----------------------------------------------------------------------------------------------------
local function newpl(nx, ny, nz, d)
  return setmetatable({normal = new3(nx, ny, nz), absNormal = new3(fabs(nx), fabs(ny), fabs(nz)), d = d}, mtpl)
end
MX.newpl = newpl
MX.COPY[mtpl] = function(v)
  local p = newpl(v.normal.x, v.normal.y, v.normal.z, v.d)
  p.absNormal = new3(v.absNormal.x, v.absNormal.y, v.absNormal.z)
  return p
end
-- Plane through point (px, py, pz) with normal (nx, ny, nz) (normalized): nx, ny, nz, d.
local function plane_np(nx, ny, nz, px, py, pz)
  nx, ny, nz = normalized3(nx, ny, nz)
  return nx, ny, nz, -(nx * px + ny * py + nz * pz)
end
-- Plane through three points.
local function plane_3p(x0, y0, z0, x1, y1, z1, x2, y2, z2)
  local ax, ay, az = x1 - x0, y1 - y0, z1 - z0
  local bx, by, bz = x2 - x0, y2 - y0, z2 - z0
  return plane_np(ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx, x0, y0, z0)
end
MX.plane_3p = plane_3p
local function pl_set(self, nx, ny, nz, d)
  self.normal = new3(nx, ny, nz)
  self.absNormal = new3(fabs(nx), fabs(ny), fabs(nz))
  self.d = d
end
local function pl_define(self, a, b, c, fname)
  local mt = dgetmt(a)
  if mt == mt3 and c ~= nil then
    pl_set(self, plane_3p(a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z))
  elseif mt == mt3 and b ~= nil then
    pl_set(self, plane_np(a.x, a.y, a.z, b.x, b.y, b.z))
  elseif mt == mt4 then
    pl_set(self, a.x, a.y, a.z, a.w)
  elseif mt == mtpl then
    pl_set(self, a.normal.x, a.normal.y, a.normal.z, a.d)
    self.absNormal = new3(a.absNormal.x, a.absNormal.y, a.absNormal.z)
  else
    noverload(fname, a, b, c)
  end
end
PLC.new = function(a, b, c, ...)
  local p = newpl(0.0, 0.0, 0.0, 0.0)
  if a ~= nil then pl_define(p, a, b, c, "Plane.new") end
  return p
end
-- The plane transformed by a Matrix3, Matrix3x4 or Matrix4: inverse-transpose applied to (normal, d).
local function pl_transformed(self, m)
  local full
  local mt = dgetmt(m)
  if mt == mtm4 then full = m
  else
    full = {m00 = m.m00, m01 = m.m01, m02 = m.m02, m03 = m.m03 or 0.0, m10 = m.m10, m11 = m.m11, m12 = m.m12,
            m13 = m.m13 or 0.0, m20 = m.m20, m21 = m.m21, m22 = m.m22, m23 = m.m23 or 0.0, m30 = 0.0, m31 = 0.0,
            m32 = 0.0, m33 = 1.0}
  end
  local i = inverse4(full)
  local n = self.normal
  local x, y, z, w = n.x, n.y, n.z, self.d
  return i.m00 * x + i.m10 * y + i.m20 * z + i.m30 * w, i.m01 * x + i.m11 * y + i.m21 * z + i.m31 * w,
    i.m02 * x + i.m12 * y + i.m22 * z + i.m32 * w, i.m03 * x + i.m13 * y + i.m23 * z + i.m33 * w
end
local MPL = PLC.methods
MPL.Define = function(self, a, b, c) pl_define(self, a, b, c, "Plane:Define") end
MPL.Transform = function(self, m) pl_set(self, pl_transformed(self, m)) end
MPL.Transformed = function(self, m) return newpl(pl_transformed(self, m)) end
MPL.Project = function(self, p)
  local n = self.normal
  local k = n.x * p.x + n.y * p.y + n.z * p.z + self.d
  return new3(p.x - n.x * k, p.y - n.y * k, p.z - n.z * k)
end
MPL.Distance = function(self, p)
  local n = self.normal
  return n.x * p.x + n.y * p.y + n.z * p.z + self.d
end
MPL.Reflect = function(self, v)
  local n = self.normal
  local k = 2.0 * (n.x * v.x + n.y * v.y + n.z * v.z)
  return new3(v.x - k * n.x, v.y - k * n.y, v.z - k * n.z)
end
MPL.ReflectionMatrix = function(self)
  local n, d = self.normal, self.d
  local x, y, z = n.x, n.y, n.z
  return newm34(-2.0 * x * x + 1.0, -2.0 * x * y, -2.0 * x * z, -2.0 * x * d,
                -2.0 * y * x, -2.0 * y * y + 1.0, -2.0 * y * z, -2.0 * y * d,
                -2.0 * z * x, -2.0 * z * y, -2.0 * z * z + 1.0, -2.0 * z * d)
end
MPL.ToVector4 = function(self) return new4(self.normal.x, self.normal.y, self.normal.z, self.d) end
PLC.statics.UP = function() return newpl(plane_np(0.0, 1.0, 0.0, 0.0, 0.0, 0.0)) end

----------------------------------------------------------------------------------------------------
-- Ray
----------------------------------------------------------------------------------------------------
local function newray(ox, oy, oz, dx, dy, dz)
  return setmetatable({origin = new3(ox, oy, oz), direction = new3(dx, dy, dz)}, mtray)
end
MX.COPY[mtray] = function(v)
  return newray(v.origin.x, v.origin.y, v.origin.z, v.direction.x, v.direction.y, v.direction.z)
end
E.Ray_new = function(o, d)
  if o == nil then return newray(0.0, 0.0, 0.0, 0.0, 0.0, 0.0) end
  local dx, dy, dz = normalized3(d.x, d.y, d.z)
  return newray(o.x, o.y, o.z, dx, dy, dz)
end

RYC.new = function(a, b, ...)
  if a == nil then return newray(0.0, 0.0, 0.0, 0.0, 0.0, 0.0) end
  local mt = dgetmt(a)
  if mt == mtray then return MX.COPY[mtray](a) end
  if mt == mt3 and dgetmt(b) == mt3 then
    local dx, dy, dz = normalized3(b.x, b.y, b.z)
    return newray(a.x, a.y, a.z, dx, dy, dz)
  end
  noverload("Ray.new", a, b, ...)
end

local function hit_plane(o, d, n, pd)
  local dn = n.x * d.x + n.y * d.y + n.z * d.z
  if fabs(dn) >= M_EPSILON then
    local t = -(n.x * o.x + n.y * o.y + n.z * o.z + pd) / dn
    if t >= 0.0 then return t end
  end
  return INF
end

local function hit_box(o, d, box)
  local mn, mx = box.min, box.max
  if mn.x == INF then return INF end
  local ox, oy, oz, dx, dy, dz = o.x, o.y, o.z, d.x, d.y, d.z
  if not (ox < mn.x or ox > mx.x or oy < mn.y or oy > mx.y or oz < mn.z or oz > mx.z) then return 0.0 end
  local dist = INF
  local t, px, py, pz
  if ox < mn.x and dx > 0.0 then
    t = (mn.x - ox) / dx
    if t < dist then
      py, pz = oy + t * dy, oz + t * dz
      if py >= mn.y and py <= mx.y and pz >= mn.z and pz <= mx.z then dist = t end
    end
  end
  if ox > mx.x and dx < 0.0 then
    t = (mx.x - ox) / dx
    if t < dist then
      py, pz = oy + t * dy, oz + t * dz
      if py >= mn.y and py <= mx.y and pz >= mn.z and pz <= mx.z then dist = t end
    end
  end
  if oy < mn.y and dy > 0.0 then
    t = (mn.y - oy) / dy
    if t < dist then
      px, pz = ox + t * dx, oz + t * dz
      if px >= mn.x and px <= mx.x and pz >= mn.z and pz <= mx.z then dist = t end
    end
  end
  if oy > mx.y and dy < 0.0 then
    t = (mx.y - oy) / dy
    if t < dist then
      px, pz = ox + t * dx, oz + t * dz
      if px >= mn.x and px <= mx.x and pz >= mn.z and pz <= mx.z then dist = t end
    end
  end
  if oz < mn.z and dz > 0.0 then
    t = (mn.z - oz) / dz
    if t < dist then
      px, py = ox + t * dx, oy + t * dy
      if px >= mn.x and px <= mx.x and py >= mn.y and py <= mx.y then dist = t end
    end
  end
  if oz > mx.z and dz < 0.0 then
    t = (mx.z - oz) / dz
    if t < dist then
      px, py = ox + t * dx, oy + t * dy
      if px >= mn.x and px <= mx.x and py >= mn.y and py <= mx.y then dist = t end
    end
  end
  return dist
end
MX.ray_hit_box = hit_box

local function hit_sphere(o, d, s)
  local c, r = s.center, s.radius
  local cx, cy, cz = o.x - c.x, o.y - c.y, o.z - c.z
  local r2 = r * r
  local l2 = cx * cx + cy * cy + cz * cz
  if l2 <= r2 then return 0.0 end
  local a = d.x * d.x + d.y * d.y + d.z * d.z
  local b = 2.0 * (cx * d.x + cy * d.y + cz * d.z)
  local disc = b * b - 4.0 * a * (l2 - r2)
  if disc < 0.0 then return INF end
  local sq = sqrt(disc)
  local dist = (-b - sq) / (2.0 * a)
  if dist >= 0.0 then return dist end
  return (-b + sq) / (2.0 * a)
end

local function hit_triangle(o, d, v0, v1, v2)
  local e1x, e1y, e1z = v1.x - v0.x, v1.y - v0.y, v1.z - v0.z
  local e2x, e2y, e2z = v2.x - v0.x, v2.y - v0.y, v2.z - v0.z
  local dx, dy, dz = d.x, d.y, d.z
  local px, py, pz = dy * e2z - dz * e2y, dz * e2x - dx * e2z, dx * e2y - dy * e2x
  local det = e1x * px + e1y * py + e1z * pz
  if det >= M_EPSILON then
    local tx, ty, tz = o.x - v0.x, o.y - v0.y, o.z - v0.z
    local u = tx * px + ty * py + tz * pz
    if u >= 0.0 and u <= det then
      local qx, qy, qz = ty * e1z - tz * e1y, tz * e1x - tx * e1z, tx * e1y - ty * e1x
      local v = dx * qx + dy * qy + dz * qz
      if v >= 0.0 and u + v <= det then
        local dist = (e2x * qx + e2y * qy + e2z * qz) / det
        if dist >= 0.0 then return dist end
      end
    end
  end
  return INF
end
MX.ray_hit_triangle = hit_triangle

local function hit_frustum(o, d, fr, solid_inside)
  local max_outside, min_inside = 0.0, INF
  local all_inside = true
  local planes = fr.planes_
  for i = 1, 6 do
    local p = planes[i]
    local n = p.normal
    local dist = hit_plane(o, d, n, p.d)
    if n.x * o.x + n.y * o.y + n.z * o.z + p.d < 0.0 then
      max_outside = fmax(max_outside, dist)
      all_inside = false
    else
      min_inside = fmin(min_inside, dist)
    end
  end
  if all_inside then
    if solid_inside then return 0.0 end
    return min_inside
  elseif max_outside <= min_inside then
    return max_outside
  end
  return INF
end

local MRY = RYC.methods
MRY.Define = function(self, o, d)
  self.origin = new3(o.x, o.y, o.z)
  self.direction = new3(normalized3(d.x, d.y, d.z))
end
MRY.Project = function(self, p)
  local o, d = self.origin, self.direction
  local k = (p.x - o.x) * d.x + (p.y - o.y) * d.y + (p.z - o.z) * d.z
  return new3(o.x + k * d.x, o.y + k * d.y, o.z + k * d.z)
end
MRY.Distance = function(self, p)
  local o, d = self.origin, self.direction
  local k = (p.x - o.x) * d.x + (p.y - o.y) * d.y + (p.z - o.z) * d.z
  local x, y, z = p.x - (o.x + k * d.x), p.y - (o.y + k * d.y), p.z - (o.z + k * d.z)
  return sqrt(x * x + y * y + z * z)
end
MRY.ClosestPoint = function(self, ray)
  local o, d = self.origin, self.direction
  local ro, rd = ray.origin, ray.direction
  local p13x, p13y, p13z = o.x - ro.x, o.y - ro.y, o.z - ro.z
  local d1343 = p13x * rd.x + p13y * rd.y + p13z * rd.z
  local d4321 = rd.x * d.x + rd.y * d.y + rd.z * d.z
  local d1321 = p13x * d.x + p13y * d.y + p13z * d.z
  local d4343 = rd.x * rd.x + rd.y * rd.y + rd.z * rd.z
  local d2121 = d.x * d.x + d.y * d.y + d.z * d.z
  local den = d2121 * d4343 - d4321 * d4321
  if fabs(den) < M_EPSILON then return new3(o.x, o.y, o.z) end
  local a = (d1343 * d4321 - d1321 * d4343) / den
  return new3(o.x + a * d.x, o.y + a * d.y, o.z + a * d.z)
end
MRY.HitDistance = function(self, a, b, c)
  local o, d = self.origin, self.direction
  local mt = dgetmt(a)
  if mt == mtbb then return hit_box(o, d, a) end
  if mt == mtsp then return hit_sphere(o, d, a) end
  if mt == mtpl then return hit_plane(o, d, a.normal, a.d) end
  if mt == mt3 then return hit_triangle(o, d, a, b, c) end
  if mt == mtfr then return hit_frustum(o, d, a, b == nil or b) end
  noverload("Ray:HitDistance", a, b, c)
end
MRY.Transformed = function(self, m)
  local o, d = self.origin, self.direction
  local ox, oy, oz = xform(m, o.x, o.y, o.z)
  local dx, dy, dz = d.x, d.y, d.z
  return newray(ox, oy, oz, m.m00 * dx + m.m01 * dy + m.m02 * dz, m.m10 * dx + m.m11 * dy + m.m12 * dz,
                m.m20 * dx + m.m21 * dy + m.m22 * dz)
end
RYC.ops.eq = function(a, b)
  local ao, ad, bo, bd = a.origin, a.direction, b.origin, b.direction
  return ao.x == bo.x and ao.y == bo.y and ao.z == bo.z and ad.x == bd.x and ad.y == bd.y and ad.z == bd.z
end

----------------------------------------------------------------------------------------------------
-- Frustum: six planes (near, left, right, up, down, far) and eight vertices (near 0-3, far 4-7)
----------------------------------------------------------------------------------------------------
local function newfr()
  local planes, verts = {}, {}
  for i = 1, 6 do planes[i] = newpl(0.0, 0.0, 0.0, 0.0) end
  for i = 1, 8 do verts[i] = new3(0.0, 0.0, 0.0) end
  return setmetatable({planes_ = planes, vertices_ = verts}, mtfr)
end
local function copyfr(f)
  local out = newfr()
  local copypl = MX.COPY[mtpl]
  for i = 1, 6 do out.planes_[i] = copypl(f.planes_[i]) end
  for i = 1, 8 do local v = f.vertices_[i]; out.vertices_[i] = new3(v.x, v.y, v.z) end
  return out
end
MX.COPY[mtfr] = copyfr

-- Plane indices (1-based): near, left, right, up, down, far; each through three vertices (1-based).
local PLANE_VERTS = {{3, 2, 1}, {4, 8, 7}, {2, 6, 5}, {1, 5, 8}, {7, 6, 2}, {6, 7, 8}}
local function update_planes(self)
  local v, planes = self.vertices_, self.planes_
  for i = 1, 6 do
    local idx = PLANE_VERTS[i]
    local a, b, c = v[idx[1]], v[idx[2]], v[idx[3]]
    planes[i] = newpl(plane_3p(a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z))
  end
  -- A reflected transform turns the planes inside out: flip them all.
  local near, far5 = planes[1], v[6]
  if near.normal.x * far5.x + near.normal.y * far5.y + near.normal.z * far5.z + near.d < 0.0 then
    for i = 1, 6 do
      local p = planes[i]
      p.normal = new3(-p.normal.x, -p.normal.y, -p.normal.z)
      p.d = -p.d
    end
  end
end

local function define_near_far(self, nx, ny, nz, fx, fy, fz, m)
  local v = self.vertices_
  local pts = {{nx, ny, nz}, {nx, -ny, nz}, {-nx, -ny, nz}, {-nx, ny, nz},
               {fx, fy, fz}, {fx, -fy, fz}, {-fx, -fy, fz}, {-fx, fy, fz}}
  for i = 1, 8 do
    local p = pts[i]
    if m then v[i] = new3(xform(m, p[1], p[2], p[3])) else v[i] = new3(p[1], p[2], p[3]) end
  end
  update_planes(self)
end

local function define_from_projection(self, proj, near_z, far_z)
  local inv = inverse4(proj)
  local v = self.vertices_
  local pts = {{1.0, 1.0}, {1.0, -1.0}, {-1.0, -1.0}, {-1.0, 1.0}}
  for i = 1, 4 do
    v[i] = new3(xform4_point(inv, pts[i][1], pts[i][2], near_z))
    v[i + 4] = new3(xform4_point(inv, pts[i][1], pts[i][2], far_z))
  end
  update_planes(self)
end

local MFR = FRC.methods
MFR.Define = function(self, a, b, c, d, e, f)
  if type(a) == "number" then
    -- fov, aspectRatio, zoom, nearZ, farZ, transform?
    local near_z = fmax(d, 0.0)
    local far_z = fmax(e, near_z)
    local half = tan(a * M_DEGTORAD_2) / c
    local ny, fy = near_z * half, far_z * half
    define_near_far(self, ny * b, ny, near_z, fy * b, fy, far_z, f)
    return
  end
  local mt = dgetmt(a)
  if mt == mt3 then
    define_near_far(self, a.x, a.y, a.z, b.x, b.y, b.z, c)
  elseif mt == mtbb then
    local mn, mx = a.min, a.max
    local pts = {{mx.x, mx.y, mn.z}, {mx.x, mn.y, mn.z}, {mn.x, mn.y, mn.z}, {mn.x, mx.y, mn.z},
                 {mx.x, mx.y, mx.z}, {mx.x, mn.y, mx.z}, {mn.x, mn.y, mx.z}, {mn.x, mx.y, mx.z}}
    local v = self.vertices_
    for i = 1, 8 do
      local p = pts[i]
      if b then v[i] = new3(xform(b, p[1], p[2], p[3])) else v[i] = new3(p[1], p[2], p[3]) end
    end
    update_planes(self)
  elseif mt == mtm4 then
    define_from_projection(self, a, 0.0, 1.0)
  else
    noverload("Frustum:Define", a, b, c, d, e, f)
  end
end
MFR.DefineOrtho = function(self, ortho_size, aspect, zoom, near_z, far_z, m)
  near_z = fmax(near_z, 0.0)
  far_z = fmax(far_z, near_z)
  local half = ortho_size * 0.5 / zoom
  define_near_far(self, half * aspect, half, near_z, half * aspect, half, far_z, m)
end
MFR.DefineSplit = function(self, proj, near, far)
  local _, _, nz, nw = MX.xform4_v4(proj, 0.0, 0.0, near, 1.0)
  local _, _, fz, fw = MX.xform4_v4(proj, 0.0, 0.0, far, 1.0)
  define_from_projection(self, proj, nz / nw, fz / fw)
end
MFR.Transform = function(self, m)
  local v = self.vertices_
  for i = 1, 8 do local p = v[i]; v[i] = new3(xform(m, p.x, p.y, p.z)) end
  update_planes(self)
end
MFR.Transformed = function(self, m)
  local out = newfr()
  local v, ov = self.vertices_, out.vertices_
  for i = 1, 8 do local p = v[i]; ov[i] = new3(xform(m, p.x, p.y, p.z)) end
  update_planes(out)
  return out
end
MFR.UpdatePlanes = update_planes
MFR.IsInside = function(self, a)
  local planes = self.planes_
  local mt = dgetmt(a)
  if mt == mtsp then
    local c, r = a.center, a.radius
    local all_inside = true
    for i = 1, 6 do
      local p = planes[i]
      local n = p.normal
      local dist = n.x * c.x + n.y * c.y + n.z * c.z + p.d
      if dist < -r then return OUTSIDE end
      if dist < r then all_inside = false end
    end
    return all_inside and INSIDE or INTERSECTS
  elseif mt == mtbb then
    local mn, mx = a.min, a.max
    local cx, cy, cz = (mx.x + mn.x) * 0.5, (mx.y + mn.y) * 0.5, (mx.z + mn.z) * 0.5
    local ex, ey, ez = cx - mn.x, cy - mn.y, cz - mn.z
    local all_inside = true
    for i = 1, 6 do
      local p = planes[i]
      local n, an = p.normal, p.absNormal
      local dist = n.x * cx + n.y * cy + n.z * cz + p.d
      local abs_dist = an.x * ex + an.y * ey + an.z * ez
      if dist < -abs_dist then return OUTSIDE end
      if dist < abs_dist then all_inside = false end
    end
    return all_inside and INSIDE or INTERSECTS
  end
  for i = 1, 6 do
    local p = planes[i]
    local n = p.normal
    if n.x * a.x + n.y * a.y + n.z * a.z + p.d < 0.0 then return OUTSIDE end
  end
  return INSIDE
end
MFR.IsInsideFast = function(self, a)
  local planes = self.planes_
  if dgetmt(a) == mtsp then
    local c, r = a.center, a.radius
    for i = 1, 6 do
      local p = planes[i]
      local n = p.normal
      if n.x * c.x + n.y * c.y + n.z * c.z + p.d < -r then return OUTSIDE end
    end
    return INSIDE
  end
  local mn, mx = a.min, a.max
  local cx, cy, cz = (mx.x + mn.x) * 0.5, (mx.y + mn.y) * 0.5, (mx.z + mn.z) * 0.5
  local ex, ey, ez = cx - mn.x, cy - mn.y, cz - mn.z
  for i = 1, 6 do
    local p = planes[i]
    local n, an = p.normal, p.absNormal
    if n.x * cx + n.y * cy + n.z * cz + p.d < -(an.x * ex + an.y * ey + an.z * ez) then return OUTSIDE end
  end
  return INSIDE
end
MFR.Distance = function(self, pt)
  local distance = 0.0
  local planes = self.planes_
  for i = 1, 6 do
    local p = planes[i]
    local n = p.normal
    distance = fmax(-(n.x * pt.x + n.y * pt.y + n.z * pt.z + p.d), distance)
  end
  return distance
end

-- Project an edge (clipped at the near clip distance) and merge it into the rect bounds.
local function project_edge(v0, v1, proj, b)
  local x0, y0, z0, x1, y1, z1 = v0.x, v0.y, v0.z, v1.x, v1.y, v1.z
  if z0 < M_MIN_NEARCLIP and z1 < M_MIN_NEARCLIP then return end
  if z1 < M_MIN_NEARCLIP then
    local k = (M_MIN_NEARCLIP - z0) / (z1 - z0)
    x1, y1, z1 = x0 + (x1 - x0) * k, y0 + (y1 - y0) * k, M_MIN_NEARCLIP
  elseif z0 < M_MIN_NEARCLIP then
    local k = (M_MIN_NEARCLIP - z1) / (z0 - z1)
    x0, y0, z0 = x1 + (x0 - x1) * k, y1 + (y0 - y1) * k, M_MIN_NEARCLIP
  end
  local px, py = xform4_point(proj, x0, y0, z0)
  local qx, qy = xform4_point(proj, x1, y1, z1)
  b[1], b[2] = fmin(b[1], px), fmin(b[2], py)
  b[3], b[4] = fmax(b[3], px), fmax(b[4], py)
  b[1], b[2] = fmin(b[1], qx), fmin(b[2], qy)
  b[3], b[4] = fmax(b[3], qx), fmax(b[4], qy)
end
local EDGES = {{1, 5}, {2, 6}, {3, 7}, {4, 8}, {5, 6}, {6, 7}, {7, 8}, {8, 5}}
MFR.Projected = function(self, proj)
  local v = self.vertices_
  local b = {INF, INF, -INF, -INF}
  for i = 1, 8 do project_edge(v[EDGES[i][1]], v[EDGES[i][2]], proj, b) end
  return newrect(b[1], b[2], b[3], b[4])
end

FRC.new = function(a, ...)
  if a == nil then return newfr() end
  if dgetmt(a) == mtfr then return copyfr(a) end
  noverload("Frustum.new", a, ...)
end

----------------------------------------------------------------------------------------------------
-- Polyhedron: faces_ is a list of faces, each a list of Vector3
----------------------------------------------------------------------------------------------------
local function newph() return setmetatable({faces_ = {}}, mtph) end
local function copy_faces(faces, m)
  local out = {}
  for i = 1, #faces do
    local f, nf = faces[i], {}
    for j = 1, #f do
      local v = f[j]
      if m then nf[j] = new3(xform(m, v.x, v.y, v.z)) else nf[j] = new3(v.x, v.y, v.z) end
    end
    out[i] = nf
  end
  return out
end
MX.COPY[mtph] = function(p) local out = newph(); out.faces_ = copy_faces(p.faces_); return out end

local function box_corners(box)
  local mn, mx = box.min, box.max
  return {new3(mn.x, mn.y, mn.z), new3(mx.x, mn.y, mn.z), new3(mn.x, mx.y, mn.z), new3(mx.x, mx.y, mn.z),
          new3(mn.x, mn.y, mx.z), new3(mx.x, mn.y, mx.z), new3(mn.x, mx.y, mx.z), new3(mx.x, mx.y, mx.z)}
end
local function quad(v, a, b, c, d)
  local p, q, r, s = v[a], v[b], v[c], v[d]
  return {new3(p.x, p.y, p.z), new3(q.x, q.y, q.z), new3(r.x, r.y, r.z), new3(s.x, s.y, s.z)}
end
local function ph_define(self, a, fname)
  local mt = dgetmt(a)
  if mt == mtbb then
    local v = box_corners(a)
    self.faces_ = {quad(v, 4, 8, 6, 2), quad(v, 7, 3, 1, 5), quad(v, 7, 8, 4, 3), quad(v, 2, 6, 5, 1),
                   quad(v, 8, 7, 5, 6), quad(v, 3, 4, 2, 1)}
  elseif mt == mtfr then
    local v = a.vertices_
    self.faces_ = {quad(v, 1, 5, 6, 2), quad(v, 8, 4, 3, 7), quad(v, 8, 5, 1, 4), quad(v, 2, 6, 7, 3),
                   quad(v, 5, 8, 7, 6), quad(v, 4, 1, 2, 3)}
  elseif mt == mtph then
    self.faces_ = copy_faces(a.faces_)
  else
    noverload(fname, a)
  end
end

local function lerp_point(a, b, t)
  return new3(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z))
end
local function ph_clip_plane(self, n, pd)
  local nx, ny, nz = n.x, n.y, n.z
  local clipped = {}
  local faces = self.faces_
  for i = 1, #faces do
    local face = faces[i]
    local out = {}
    local last, last_dist = nil, 0.0
    for j = 1, #face do
      local v = face[j]
      local dist = nx * v.x + ny * v.y + nz * v.z + pd
      if dist >= 0.0 then
        if last_dist < 0.0 then
          local cv = lerp_point(last, v, last_dist / (last_dist - dist))
          out[#out + 1] = cv
          clipped[#clipped + 1] = cv
        end
        out[#out + 1] = new3(v.x, v.y, v.z)
      elseif last_dist >= 0.0 and j ~= 1 then
        local cv = lerp_point(last, v, last_dist / (last_dist - dist))
        out[#out + 1] = cv
        clipped[#clipped + 1] = cv
      end
      last, last_dist = v, dist
    end
    if #face > 0 then
      local first = face[1]
      local dist = nx * first.x + ny * first.y + nz * first.z + pd
      if (last_dist < 0.0 and dist >= 0.0) or (last_dist >= 0.0 and dist < 0.0) then
        local cv = lerp_point(last, first, last_dist / (last_dist - dist))
        out[#out + 1] = cv
        clipped[#clipped + 1] = cv
      end
    end
    if #out < 3 then out = {} end
    faces[i] = out
  end
  local kept = {}
  for i = 1, #faces do if #faces[i] > 0 then kept[#kept + 1] = faces[i] end end
  -- Drop duplicate clipped vertices (later duplicates go first), then chain the rest by nearest neighbour.
  local i = 1
  while i <= #clipped do
    for j = #clipped, i + 1, -1 do
      local a, b = clipped[j], clipped[i]
      if equals(a.x, b.x) and equals(a.y, b.y) and equals(a.z, b.z) then table.remove(clipped, j) end
    end
    i = i + 1
  end
  if #clipped > 3 then
    local out = {table.remove(clipped, 1)}
    while #clipped > 0 do
      local last = out[#out]
      local best, best_i = INF, 1
      for k = 1, #clipped do
        local c = clipped[k]
        local dx, dy, dz = c.x - last.x, c.y - last.y, c.z - last.z
        local d2 = dx * dx + dy * dy + dz * dz
        if d2 < best then best, best_i = d2, k end
      end
      out[#out + 1] = table.remove(clipped, best_i)
    end
    kept[#kept + 1] = out
  end
  self.faces_ = kept
end

PHC.new = function(a, ...)
  local p = newph()
  if a ~= nil then ph_define(p, a, "Polyhedron.new") end
  return p
end
local MPH = PHC.methods
MPH.Define = function(self, a) ph_define(self, a, "Polyhedron:Define") end
MPH.AddFace = function(self, v0, v1, v2, v3)
  local f = {new3(v0.x, v0.y, v0.z), new3(v1.x, v1.y, v1.z), new3(v2.x, v2.y, v2.z)}
  if v3 ~= nil then f[4] = new3(v3.x, v3.y, v3.z) end
  self.faces_[#self.faces_ + 1] = f
end
MPH.Clip = function(self, a)
  local mt = dgetmt(a)
  if mt == mtpl then
    ph_clip_plane(self, a.normal, a.d)
  elseif mt == mtfr then
    for i = 1, 6 do local p = a.planes_[i]; ph_clip_plane(self, p.normal, p.d) end
  elseif mt == mtbb then
    local v = box_corners(a)
    local tris = {{6, 8, 4}, {1, 3, 7}, {4, 8, 7}, {5, 6, 2}, {5, 7, 8}, {2, 4, 3}}
    for i = 1, 6 do
      local t = tris[i]
      local p, q, r = v[t[1]], v[t[2]], v[t[3]]
      local nx, ny, nz, d = plane_3p(p.x, p.y, p.z, q.x, q.y, q.z, r.x, r.y, r.z)
      ph_clip_plane(self, {x = nx, y = ny, z = nz}, d)
    end
  else
    noverload("Polyhedron:Clip", a)
  end
end
MPH.Clear = function(self) self.faces_ = {} end
MPH.Transform = function(self, m) self.faces_ = copy_faces(self.faces_, m) end
MPH.Transformed = function(self, m) local out = newph(); out.faces_ = copy_faces(self.faces_, m); return out end
MPH.Empty = function(self) return #self.faces_ == 0 end
