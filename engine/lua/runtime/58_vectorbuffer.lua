-- VectorBuffer: bytes in memory with a position, Urho3D's Serializer and Deserializer over them (58_serializer.lua
-- has every typed read and write).  Collision events, network messages and Variant:GetBuffer hand games fresh
-- VectorBuffers; geometry code writes vertex data into them (58_geometry.lua reads a buffer's whole content).
local type, setmetatable = type, setmetatable
local ssub, srep = string.sub, string.rep
local mmax, mmin = math.max, math.min
local REC = E.REC
local int_arg = E.tolua_int

local VB = class("VectorBuffer")
local vb_mt = VB.mt
-- A VectorBuffer over `data`, at position 0.
local function new_vb(data)
  local b = setmetatable({}, vb_mt)
  REC[b] = {kind = "vbuf", data = data or "", pos = 0}
  return b
end
E.VectorBuffer_new = new_vb
local function vrec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "vbuf" then E.raise_at_game("invalid 'self' (a VectorBuffer was expected)") end
  return r
end

-- VectorBuffer() or VectorBuffer(source, size): `size` bytes read from another stream (what it has left by default).
VB.new = function(source, size)
  if source == nil then return new_vb("") end
  if size == nil then
    local r = REC[source]
    size = r and type(r.data) == "string" and #r.data - r.pos or 0
  end
  return new_vb(E.stream_read(source, int_arg(size, "VectorBuffer", 2), "VectorBuffer"))
end
local VBM = VB.methods
VBM.SetData = function(self, source, size)
  local r = vrec(self)
  r.data, r.pos = E.stream_read(source, int_arg(size, "SetData", 2), "SetData"), 0
end
VBM.Clear = function(self) local r = vrec(self); r.data, r.pos = "", 0 end
VBM.Resize = function(self, n)
  local r = vrec(self)
  n = mmax(int_arg(n, "Resize", 1), 0)
  if n < #r.data then r.data = ssub(r.data, 1, n) else r.data = r.data .. srep("\0", n - #r.data) end
  r.pos = mmin(r.pos, n)
end
VBM.GetData = function(self) return vrec(self).data end
VBM.GetModifiableData = VBM.GetData

E.install_serializer("VectorBuffer", {
  rec = vrec,
  readable = function() return true end,
  writable = function() return true end,
})

-- Variant:GetBuffer: a VectorBuffer, as Urho3D's binding returns
class("Variant").methods.GetBuffer = function(self)
  local v = self.value_
  if REC[v] and REC[v].kind == "vbuf" then return new_vb(REC[v].data) end
  return new_vb(type(v) == "string" and v or "")
end
