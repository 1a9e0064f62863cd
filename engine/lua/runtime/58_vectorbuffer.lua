-- VectorBuffer members geometry code writes and reads (the buffer itself and its first members are in
-- 57_physics3d.lua): the remaining integer widths, vectors, colours, boxes, sub-buffers, resizing.  Little-endian,
-- as Urho3D's serializers on every platform it runs on.
local type, setmetatable = type, setmetatable
local sformat, spack, sunpack, srep, ssub, schar = string.format, string.pack, string.unpack, string.rep, string.sub,
  string.char
local mfloor, mmax, mmin = math.floor, math.max, math.min
local REC = E.REC
local VBM = class("VectorBuffer").methods

local function vrec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "vbuf" then error("invalid 'self' (a VectorBuffer was expected)", 3) end
  return r
end
local function num(v, what)
  if type(v) ~= "number" then E.raise_at_game(sformat("bad argument #1 to '%s' (number expected, got %s)", what, type(v))) end
  return v
end
local function obj(v, what, fields)
  if type(v) ~= "table" then E.raise_at_game(sformat("bad argument #1 to '%s' (table expected, got %s)", what, type(v))) end
  for _, f in ipairs(fields) do
    if type(v[f]) ~= "number" then E.raise_at_game(sformat("bad argument #1 to '%s' (field '%s' missing)", what, f)) end
  end
  return v
end
local function wr(self, s)
  local r = vrec(self)
  r.data = ssub(r.data, 1, r.pos) .. s .. ssub(r.data, r.pos + #s + 1)
  r.pos = r.pos + #s
  return true
end
-- n bytes from the position (fewer at the end: the position moves to the end and `default` comes back)
local function rd(self, fmt, n, default)
  local r = vrec(self)
  if r.pos + n > #r.data then r.pos = #r.data; return default end
  local a, b, c, d = sunpack(fmt, r.data, r.pos + 1)
  r.pos = r.pos + n
  return a, b, c, d
end
local function int(v, what, bits) return mfloor(num(v, what)) & ((1 << bits) - 1) end

VBM.WriteShort = function(self, v) return wr(self, spack("<I2", int(v, "WriteShort", 16))) end
VBM.WriteUShort = function(self, v) return wr(self, spack("<I2", int(v, "WriteUShort", 16))) end
VBM.WriteInt64 = function(self, v) return wr(self, spack("<i8", mfloor(num(v, "WriteInt64")))) end
VBM.WriteUInt64 = VBM.WriteInt64
VBM.WriteDouble = function(self, v) return wr(self, spack("<d", num(v, "WriteDouble"))) end
VBM.WriteVector2 = function(self, v) obj(v, "WriteVector2", {"x", "y"}); return wr(self, spack("<ff", v.x, v.y)) end
VBM.WriteVector4 = function(self, v)
  obj(v, "WriteVector4", {"x", "y", "z", "w"})
  return wr(self, spack("<ffff", v.x, v.y, v.z, v.w))
end
VBM.WriteQuaternion = function(self, q)
  obj(q, "WriteQuaternion", {"w", "x", "y", "z"})
  return wr(self, spack("<ffff", q.w, q.x, q.y, q.z))
end
VBM.WriteColor = function(self, c)
  obj(c, "WriteColor", {"r", "g", "b", "a"})
  return wr(self, spack("<ffff", c.r, c.g, c.b, c.a))
end
VBM.WriteIntVector2 = function(self, v)
  obj(v, "WriteIntVector2", {"x", "y"})
  return wr(self, spack("<i4i4", mfloor(v.x), mfloor(v.y)))
end
VBM.WriteBoundingBox = function(self, b)
  return wr(self, spack("<ffffff", b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z))
end
VBM.WriteBuffer = function(self, other)
  local s = vrec(other).data
  return wr(self, E.vle_bytes(#s) .. s)
end
VBM.Write = function(self, other) local s = vrec(other).data; wr(self, s); return #s end
VBM.WriteVLE = function(self, v) return wr(self, E.vle_bytes(mfloor(num(v, "WriteVLE")))) end
VBM.WriteLine = function(self, s) return wr(self, tostring(s) .. "\r\n") end
VBM.WriteFileID = function(self, s) return wr(self, ssub(tostring(s) .. "    ", 1, 4)) end

VBM.ReadInt64 = function(self) return rd(self, "<i8", 8, 0) end
VBM.ReadUInt64 = VBM.ReadInt64
VBM.ReadVector4 = function(self)
  local x, y, z, w = rd(self, "<ffff", 16, nil)
  if x == nil then return E.IMPL.Vector4.new(0, 0, 0, 0) end
  return E.IMPL.Vector4.new(x, y, z, w)
end
VBM.ReadColor = function(self)
  local r, g, b, a = rd(self, "<ffff", 16, nil)
  if r == nil then return E.Color_new(0, 0, 0, 0) end
  return E.Color_new(r, g, b, a)
end
VBM.ReadIntVector2 = function(self)
  local x, y = rd(self, "<i4i4", 8, nil)
  return E.IntVector2_new(x or 0, y or 0)
end
VBM.ReadBoundingBox = function(self)
  local r = vrec(self)
  if r.pos + 24 > #r.data then r.pos = #r.data; return E.IMPL.BoundingBox.new() end
  local a, b, c, d, e, f = sunpack("<ffffff", r.data, r.pos + 1)
  r.pos = r.pos + 24
  return E.BoundingBox_new(a, b, c, d, e, f)
end
VBM.ReadFileID = function(self)
  local r = vrec(self)
  local s = ssub(r.data, r.pos + 1, r.pos + 4)
  r.pos = r.pos + #s
  return s
end
VBM.ReadVLE = function(self)
  local v, shift = 0, 0
  for _ = 1, 4 do
    local b = rd(self, "B", 1, nil)
    if b == nil then return v end
    v = v | ((b & 0x7f) << shift)
    if b < 0x80 then return v end
    shift = shift + 7
  end
  return v
end
VBM.ReadBuffer = function(self)
  local r = vrec(self)
  local n = VBM.ReadVLE(self)
  local s = ssub(r.data, r.pos + 1, r.pos + n)
  r.pos = r.pos + #s
  return E.VectorBuffer_new(s)
end
VBM.Read = function(self, n)
  local r = vrec(self)
  local s = ssub(r.data, r.pos + 1, r.pos + mmax(mfloor(num(n, "Read")), 0))
  r.pos = r.pos + #s
  return E.VectorBuffer_new(s)
end
VBM.ReadLine = function(self)
  local r = vrec(self)
  local stop = r.data:find("[\r\n]", r.pos + 1)
  local s
  if stop == nil then s = ssub(r.data, r.pos + 1); r.pos = #r.data; return s end
  s = ssub(r.data, r.pos + 1, stop - 1)
  r.pos = stop
  if ssub(r.data, stop, stop) == "\r" and ssub(r.data, stop + 1, stop + 1) == "\n" then r.pos = stop + 1 end
  return s
end
VBM.Resize = function(self, n)
  local r = vrec(self)
  n = mmax(mfloor(num(n, "Resize")), 0)
  if n < #r.data then r.data = ssub(r.data, 1, n) else r.data = r.data .. srep("\0", n - #r.data) end
  r.pos = mmin(r.pos, n)
end
VBM.SetData = function(self, source, size)
  local r = vrec(self)
  local s = vrec(source)
  local n = mmax(mfloor(num(size, "SetData")), 0)
  r.data = ssub(s.data, s.pos + 1, s.pos + n)
  s.pos = s.pos + #r.data
  r.pos = 0
end
VBM.GetModifiableData = VBM.GetData

-- Urho3D's variable-length unsigned encoding: 7 bits a byte, low bits first, at most four bytes.
function E.vle_bytes(v)
  v = v & 0x1fffffff
  local out = {}
  repeat
    local b = v & 0x7f
    v = v >> 7
    if v > 0 then b = b | 0x80 end
    out[#out + 1] = schar(b)
  until v == 0 or #out == 4
  return table.concat(out)
end
