-- Urho3D's Serializer and Deserializer, written once for every stream the engine has (File, 70_io.lua; VectorBuffer,
-- 58_vectorbuffer.lua): the typed reads and writes, byte for byte in Urho3D's binary layout (docs/resources.md,
-- "Binary streams").  The members live on the registry's Serializer and Deserializer classes; a stream class gets
-- the same functions through E.install_serializer, which also registers how to reach its bytes:
--   adapter.rec(self)     the stream's record {data = string (nil when closed), pos = bytes before the position}
--   adapter.readable(r)   may a read take bytes now (false: it reads nothing, as from Urho3D's closed File)
--   adapter.writable(r)   may a write put bytes now
--   adapter.written(r)    after bytes were written (optional: File hands its contents to the file overlay)
-- Reads past the end read what is there, fill the rest of the value with zeros and leave the position at the end.
local type, pairs, ipairs, tostring, tonumber, setmetatable = type, pairs, ipairs, tostring, tonumber, setmetatable
local sformat, spack, sunpack, ssub, sbyte, schar, srep, sfind = string.format, string.pack, string.unpack,
  string.sub, string.byte, string.char, string.rep, string.find
local tconcat, tsort, tunpack = table.concat, table.sort, table.unpack
local mtype, mfloor, mtointeger, sqrt = math.type, math.floor, math.tointeger, math.sqrt
local dgetmt, REC, MX = E.dgetmt, E.REC, E.MATH

local MAX_DEPTH = 64   -- Variants inside Variants (a map or vector that holds itself would never end)
local STREAMS = {}     -- class name -> adapter
local SER, DES = class("Serializer").methods, class("Deserializer").methods

----------------------------------------------------------------------------------------------------
-- Arguments, converted as tolua converts them; anything else is the game's error, at the game's line
----------------------------------------------------------------------------------------------------
local function got(v)
  local mt = dgetmt(v)
  local n = mt and mt.__name
  return type(n) == "string" and n or type(v)
end
local function bad(n, fname, expected, v)
  E.raise_at_game(sformat("bad argument #%d to '%s' (%s expected, got %s)", n, fname, expected, got(v)))
end
-- A number to a C integer: truncated toward zero; NaN is 0, and beyond 64 bits the nearest 64-bit integer.
local function to_int(v)
  if mtype(v) == "integer" then return v end
  if v ~= v then return 0 end
  if v >= 9.2233720368547758e18 then return math.maxinteger end
  if v <= -9.2233720368547758e18 then return math.mininteger end
  return mtointeger(v >= 0 and mfloor(v) or -mfloor(-v))
end
local function int_arg(v, fname, n)
  if mtype(v) == "integer" then return v end
  if type(v) == "string" then v = tonumber(v) end
  if type(v) ~= "number" then bad(n, fname, "number", v) end
  return to_int(v)
end
local function num_arg(v, fname, n)
  if type(v) == "number" then return v end
  local x = type(v) == "string" and tonumber(v) or nil
  if x == nil then bad(n, fname, "number", v) end
  return x
end
local function str_arg(v, fname, n)
  local t = type(v)
  if t == "string" then return v end
  if t == "number" then return tostring(v) end
  bad(n, fname, "string", v)
end
E.tolua_int, E.tolua_number, E.tolua_string = int_arg, num_arg, str_arg

----------------------------------------------------------------------------------------------------
-- Bytes in and out of a stream
----------------------------------------------------------------------------------------------------
local function stream(self)
  local mt = dgetmt(self)
  local a = mt and STREAMS[mt.__name]
  if a == nil then
    E.raise_at_game("invalid 'self' (a Serializer or Deserializer was expected, got " .. got(self) .. ")")
  end
  return a, a.rec(self)
end
-- Up to `n` bytes from the position (fewer at the end).
local function take(self, n)
  local a, r = stream(self)
  if n <= 0 or not a.readable(r) then return "" end
  local pos = r.pos
  local s = ssub(r.data, pos + 1, pos + n)
  r.pos = pos + #s
  return s
end
-- Exactly `n` bytes (n <= 64): what is there, zeros for the rest.
local ZEROS = srep("\0", 64)
local function fixed(self, n)
  local s = take(self, n)
  if #s < n then s = s .. ssub(ZEROS, 1, n - #s) end
  return s
end
-- Write `s` at the position; the bytes written.
local function put(self, s)
  local a, r = stream(self)
  if s == "" or not a.writable(r) then return 0 end
  local d, pos = r.data, r.pos
  if pos >= #d then r.data = d .. s else r.data = ssub(d, 1, pos) .. s .. ssub(d, pos + #s + 1) end
  r.pos = pos + #s
  if a.written then a.written(r) end
  return #s
end
local function put_all(self, s) return put(self, s) == #s end
-- Up to `n` bytes of the stream `source` (VectorBuffer(source, size) and SetData: argument #1 of `fname`).
function E.stream_read(source, n, fname)
  local mt = dgetmt(source)
  if not (mt and STREAMS[mt.__name]) then bad(1, fname, "Deserializer", source) end
  return take(source, n)
end

----------------------------------------------------------------------------------------------------
-- Names behind hashes: what the game hashed here, and the registry's class and event names (resource types,
-- event parameters), so a map read back keys by name and a hash read back keeps its name.
----------------------------------------------------------------------------------------------------
local sdbm = E.sdbm
local NAMES = {}   -- hash -> name
local seeded = false
local function remember(name)
  local h = sdbm(name)
  if NAMES[h] == nil then NAMES[h] = name end
  return h
end
local function name_of(h)
  local n = NAMES[h]
  if n == nil and not seeded then
    seeded = true
    local reg = E.REGISTRY
    for _, c in ipairs(E.sorted_keys(reg.classes)) do remember(c) end
    for _, ev in ipairs(E.sorted_keys(reg.events)) do
      remember(ev)
      for _, p in ipairs(E.sorted_keys(reg.events[ev].params or {})) do remember(p) end
    end
    n = NAMES[h]
  end
  return n
end
local SH_MT = class("StringHash").mt
local function hash_object(h) return setmetatable({value_ = h, name_ = name_of(h)}, SH_MT) end
-- The 32-bit value of a StringHash, a name or a number.
local function hash_value(v)
  local t = type(v)
  if t == "string" then return remember(v) end
  if t == "number" then return to_int(v) & 0xffffffff end
  if t == "table" and type(v.value_) == "number" then
    if type(v.name_) == "string" then remember(v.name_) end
    return v.value_ & 0xffffffff
  end
  return 0
end

----------------------------------------------------------------------------------------------------
-- The value types: their fields in Urho3D's memory order, packed as float32 or int32
----------------------------------------------------------------------------------------------------
local function num_of(x)
  if type(x) == "number" then return x end
  if type(x) == "boolean" then return x and 1 or 0 end
  return 0
end
local function f32(x) return (sunpack("<f", spack("<f", x))) end
-- name -> {fields ("min.x" reaches into a member), "f" or "i", constructor from the unpacked numbers}
local LAYOUT = {
  Vector2 = {{"x", "y"}, "f", function(a, b) return E.Vector2_new(a, b) end},
  Vector3 = {{"x", "y", "z"}, "f", function(a, b, c) return E.Vector3_new(a, b, c) end},
  Vector4 = {{"x", "y", "z", "w"}, "f", function(a, b, c, d) return E.Vector4_new(a, b, c, d) end},
  Quaternion = {{"w", "x", "y", "z"}, "f", function(w, x, y, z) return E.Quaternion_new(w, x, y, z) end},
  Color = {{"r", "g", "b", "a"}, "f", function(r, g, b, a) return E.Color_new(r, g, b, a) end},
  Rect = {{"min.x", "min.y", "max.x", "max.y"}, "f", function(a, b, c, d) return E.Rect_new(a, b, c, d) end},
  BoundingBox = {{"min.x", "min.y", "min.z", "max.x", "max.y", "max.z"}, "f",
    function(...) return E.BoundingBox_new(...) end},
  IntVector2 = {{"x", "y"}, "i", function(a, b) return E.IntVector2_new(a, b) end},
  IntVector3 = {{"x", "y", "z"}, "i", function(a, b, c) return E.IntVector3_new(a, b, c) end},
  IntRect = {{"left", "top", "right", "bottom"}, "i", function(a, b, c, d) return E.IntRect_new(a, b, c, d) end},
  Matrix3 = {{"m00", "m01", "m02", "m10", "m11", "m12", "m20", "m21", "m22"}, "f", MX.newm3},
  Matrix3x4 = {{"m00", "m01", "m02", "m03", "m10", "m11", "m12", "m13", "m20", "m21", "m22", "m23"}, "f", MX.newm34},
  Matrix4 = {{"m00", "m01", "m02", "m03", "m10", "m11", "m12", "m13", "m20", "m21", "m22", "m23", "m30", "m31",
    "m32", "m33"}, "f", MX.newm4},
}
for _, l in pairs(LAYOUT) do
  local paths = {}
  for i, f in ipairs(l[1]) do
    local a, b = f:match("^(%w+)%.(%w+)$")
    paths[i] = a and {a, b} or f
  end
  l.paths, l.size = paths, 4 * #paths
  l.pack = "<" .. srep(l[2] == "f" and "f" or "I4", #paths)
  l.unpack = "<" .. srep(l[2] == "f" and "f" or "i4", #paths)
end
-- The fields of `v` as numbers (nil when one is missing and `strict`; 0 otherwise).
local function field_values(l, v, strict)
  local out = {}
  if type(v) ~= "table" then
    if strict then return nil end
    v = {}
  end
  for i, p in ipairs(l.paths) do
    local x
    if type(p) == "table" then
      local m = v[p[1]]
      x = type(m) == "table" and m[p[2]] or nil
    else
      x = v[p]
    end
    if type(x) ~= "number" then
      if strict then return nil end
      x = 0
    end
    if l[2] == "i" then x = to_int(x) & 0xffffffff end
    out[i] = x
  end
  return out
end
local function pack_value(l, v) return spack(l.pack, tunpack(field_values(l, v, false))) end
local function unpack_value(l, s) return l[3](sunpack(l.unpack, s)) end

for name, l in pairs(LAYOUT) do
  SER["Write" .. name] = function(self, v)
    local vals = field_values(l, v, true)
    if vals == nil then bad(1, "Write" .. name, name, v) end
    return put_all(self, spack(l.pack, tunpack(vals)))
  end
  DES["Read" .. name] = function(self) return unpack_value(l, fixed(self, l.size)) end
end

----------------------------------------------------------------------------------------------------
-- Numbers, strings, VLE
----------------------------------------------------------------------------------------------------
-- Urho3D's variable-length unsigned: 7 bits a byte, low bits first, the fourth byte holding bits 21-28 whole.
local function vle(v)
  v = v & 0xffffffff
  if v < 0x80 then return schar(v) end
  if v < 0x4000 then return schar((v & 0x7f) | 0x80, v >> 7) end
  if v < 0x200000 then return schar((v & 0x7f) | 0x80, ((v >> 7) & 0x7f) | 0x80, v >> 14) end
  return schar((v & 0x7f) | 0x80, ((v >> 7) & 0x7f) | 0x80, ((v >> 14) & 0x7f) | 0x80, (v >> 21) & 0xff)
end
E.vle_bytes = vle
local function read_vle(self)
  local v, shift = 0, 0
  for i = 1, 4 do
    local b = sbyte(fixed(self, 1))
    if i == 4 then return v | (b << 21) end
    v = v | ((b & 0x7f) << shift)
    if b < 0x80 then return v end
    shift = shift + 7
  end
end
-- Bytes up to the first zero, and the zero (Urho3D's WriteString writes a C string).
local function cstring(s)
  local z = sfind(s, "\0", 1, true)
  if z then s = ssub(s, 1, z - 1) end
  return s .. "\0"
end
local function read_cstring(self)
  local a, r = stream(self)
  if not a.readable(r) then return "" end
  local d, pos = r.data, r.pos
  local stop = sfind(d, "\0", pos + 1, true)
  if stop == nil then r.pos = #d; return ssub(d, pos + 1) end
  r.pos = stop
  return ssub(d, pos + 1, stop - 1)
end
-- An unsigned 64-bit number as Lua keeps it: an integer below 2^63, a float above.
local function u64(v) if v < 0 then return v + 18446744073709551616.0 end; return v end
local function u64_arg(v, fname)
  if type(v) == "string" then v = tonumber(v) end
  if mtype(v) == "float" and v >= 9.2233720368547758e18 and v < 18446744073709551616.0 then
    return mtointeger(v - 18446744073709551616.0)
  end
  return int_arg(v, fname, 1)
end
-- The bytes a Write/WriteBuffer argument holds: a VectorBuffer's whole content or a string.
local function bytes_arg(v, fname)
  if type(v) == "string" then return v end
  local r = REC[v]
  if r ~= nil and r.kind == "vbuf" then return r.data end
  bad(1, fname, "VectorBuffer", v)
end

local INTS = {Int = {"<i4", "<I4", 4}, Short = {"<i2", "<I2", 2}, Byte = {"<i1", "<I1", 1},
  UInt = {"<I4", "<I4", 4}, UShort = {"<I2", "<I2", 2}, UByte = {"<I1", "<I1", 1}}
for name, f in pairs(INTS) do
  local rfmt, wfmt, n = f[1], f[2], f[3]
  local mask = (1 << (8 * n)) - 1
  DES["Read" .. name] = function(self) return (sunpack(rfmt, fixed(self, n))) end
  SER["Write" .. name] = function(self, v) return put_all(self, spack(wfmt, int_arg(v, "Write" .. name, 1) & mask)) end
end
DES.ReadInt64 = function(self) return (sunpack("<i8", fixed(self, 8))) end
DES.ReadUInt64 = function(self) return u64((sunpack("<i8", fixed(self, 8)))) end
DES.ReadBool = function(self) return sbyte(fixed(self, 1)) ~= 0 end
DES.ReadFloat = function(self) return (sunpack("<f", fixed(self, 4))) end
DES.ReadDouble = function(self) return (sunpack("<d", fixed(self, 8))) end
DES.ReadVLE = read_vle
DES.ReadNetID = function(self) return (sunpack("<I3", fixed(self, 3))) end
DES.ReadString = read_cstring
DES.ReadFileID = function(self) return take(self, 4) end
DES.ReadStringHash = function(self) return hash_object(sunpack("<I4", fixed(self, 4))) end
-- Urho3D's ReadLine: up to LF, CR or CR LF, the terminator consumed.
DES.ReadLine = function(self)
  local a, r = stream(self)
  if not a.readable(r) then return "" end
  local d, pos = r.data, r.pos
  local stop = sfind(d, "[\r\n]", pos + 1)
  if stop == nil then r.pos = #d; return ssub(d, pos + 1) end
  r.pos = stop
  if sbyte(d, stop) == 13 and sbyte(d, stop + 1) == 10 then r.pos = stop + 1 end
  return ssub(d, pos + 1, stop - 1)
end
-- Read(size) and ReadBuffer give a VectorBuffer of the bytes read (fewer than asked at the end).
DES.Read = function(self, n) return E.VectorBuffer_new(take(self, int_arg(n, "Read", 1))) end
DES.ReadBuffer = function(self) return E.VectorBuffer_new(take(self, read_vle(self))) end

SER.WriteInt64 = function(self, v) return put_all(self, spack("<i8", int_arg(v, "WriteInt64", 1))) end
SER.WriteUInt64 = function(self, v) return put_all(self, spack("<i8", u64_arg(v, "WriteUInt64"))) end
SER.WriteBool = function(self, v) return put_all(self, v and "\1" or "\0") end
SER.WriteFloat = function(self, v) return put_all(self, spack("<f", num_arg(v, "WriteFloat", 1))) end
SER.WriteDouble = function(self, v) return put_all(self, spack("<d", num_arg(v, "WriteDouble", 1))) end
SER.WriteVLE = function(self, v) return put_all(self, vle(int_arg(v, "WriteVLE", 1))) end
SER.WriteNetID = function(self, v) return put_all(self, spack("<I3", int_arg(v, "WriteNetID", 1) & 0xffffff)) end
SER.WriteString = function(self, s) return put_all(self, cstring(str_arg(s, "WriteString", 1))) end
SER.WriteLine = function(self, s) return put_all(self, str_arg(s, "WriteLine", 1) .. "\r\n") end
-- Four bytes: the first four characters, spaces after a shorter name.
SER.WriteFileID = function(self, s)
  s = str_arg(s, "WriteFileID", 1)
  return put_all(self, ssub(s, 1, 4) .. srep(" ", 4 - #s))
end
SER.WriteStringHash = function(self, v)
  if type(v) ~= "string" and not E.is(v, "StringHash") then bad(1, "WriteStringHash", "StringHash", v) end
  return put_all(self, spack("<I4", hash_value(v)))
end
SER.Write = function(self, buf) return put(self, bytes_arg(buf, "Write")) end
SER.WriteBuffer = function(self, buf)
  local s = bytes_arg(buf, "WriteBuffer")
  return put_all(self, vle(#s) .. s)
end

----------------------------------------------------------------------------------------------------
-- Packed vectors and quaternions: int16 each, in float32 arithmetic as Urho3D computes them
----------------------------------------------------------------------------------------------------
local function clamp(x, lo, hi)
  if x < lo then return lo elseif x > hi then return hi end
  return x
end
-- (short)Round(x): to the nearest integer, halves away from zero, as the low 16 bits.
local function short(x)
  if x ~= x then return 0 end
  local i = x >= 0 and mfloor(x + 0.5) or -mfloor(-x + 0.5)
  return to_int(clamp(i, -32768, 32767)) & 0xffff
end
-- Quaternion::Normalized without SSE: unchanged when its squared length is 1 within float epsilon, or 0.
local function normalized(w, x, y, z)
  local len2 = f32(f32(f32(f32(w * w) + f32(x * x)) + f32(y * y)) + f32(z * z))
  local eps = MX.FLT_EPSILON
  if not (len2 + eps >= 1.0 and len2 - eps <= 1.0) and len2 > 0.0 then
    local inv = f32(1.0 / f32(sqrt(len2)))
    return f32(w * inv), f32(x * inv), f32(y * inv), f32(z * inv)
  end
  return w, x, y, z
end
local Q, INV_Q = 32767.0, f32(1.0 / 32767.0)
SER.WritePackedVector3 = function(self, v, max_abs)
  local vals = field_values(LAYOUT.Vector3, v, true)
  if vals == nil then bad(1, "WritePackedVector3", "Vector3", v) end
  local m = f32(num_arg(max_abs, "WritePackedVector3", 2))
  local scale = f32(32767.0 / m)
  local c = {}
  for i = 1, 3 do c[i] = short(f32(clamp(f32(vals[i]), -m, m) * scale)) end
  return put_all(self, spack("<I2I2I2", c[1], c[2], c[3]))
end
DES.ReadPackedVector3 = function(self, max_abs)
  local inv = f32(f32(num_arg(max_abs, "ReadPackedVector3", 1)) / 32767.0)
  local x, y, z = sunpack("<i2i2i2", fixed(self, 6))
  return E.Vector3_new(f32(x * inv), f32(y * inv), f32(z * inv))
end
SER.WritePackedQuaternion = function(self, q)
  local vals = field_values(LAYOUT.Quaternion, q, true)
  if vals == nil then bad(1, "WritePackedQuaternion", "Quaternion", q) end
  local w, x, y, z = normalized(f32(vals[1]), f32(vals[2]), f32(vals[3]), f32(vals[4]))
  local function s(c) return short(f32(clamp(c, -1.0, 1.0) * Q)) end
  return put_all(self, spack("<I2I2I2I2", s(w), s(x), s(y), s(z)))
end
DES.ReadPackedQuaternion = function(self)
  local w, x, y, z = sunpack("<i2i2i2i2", fixed(self, 8))
  return E.Quaternion_new(normalized(f32(w * INV_Q), f32(x * INV_Q), f32(y * INV_Q), f32(z * INV_Q)))
end

----------------------------------------------------------------------------------------------------
-- ResourceRef, ResourceRefList, Variant, VariantVector, VariantMap
----------------------------------------------------------------------------------------------------
-- Urho3D's VariantType numbers; the engine's UInt and StringHash Variants are Urho3D's VAR_INT.
local VARIANT_ID = {UInt = 1, StringHash = 1}
for name, id in pairs(E.VARIANT_TYPE_IDS) do VARIANT_ID[name] = id end

local function resource_ref_bytes(out, v)
  out[#out + 1] = spack("<I4", hash_value(type(v) == "table" and v.type or nil))
  out[#out + 1] = cstring(type(v) == "table" and type(v.name) == "string" and v.name or "")
end
local function resource_ref_list_bytes(out, v)
  local names = type(v) == "table" and type(v.names) == "table" and v.names or {}
  out[#out + 1] = spack("<I4", hash_value(type(v) == "table" and v.type or nil))
  out[#out + 1] = vle(#names)
  for i = 1, #names do
    local n = names[i]
    out[#out + 1] = cstring(type(n) == "string" and n or type(n) == "number" and tostring(n) or "")
  end
end

local variant_bytes, variant_map_bytes
local function deeper(depth, fname)
  if depth > MAX_DEPTH then
    E.raise_at_game(sformat("%s: Variants nested deeper than %d levels (a map or vector that holds itself?)", fname,
      MAX_DEPTH))
  end
end
local function variant_vector_bytes(out, list, depth, fname)
  deeper(depth, fname)
  local n = 0
  if type(list) == "table" then n = #list end
  out[#out + 1] = vle(n)
  for i = 1, n do variant_bytes(out, E.variant_of(list[i]), true, depth + 1, fname) end
end
-- The data of each Variant type (VAR_VOIDPTR and VAR_PTR write a null pointer, as Urho3D does).
local DATA = {
  None = function() end,
  Int = function(out, v) out[#out + 1] = spack("<I4", to_int(num_of(v)) & 0xffffffff) end,
  UInt = function(out, v) out[#out + 1] = spack("<I4", to_int(num_of(v)) & 0xffffffff) end,
  StringHash = function(out, v) out[#out + 1] = spack("<I4", hash_value(v)) end,
  Int64 = function(out, v) out[#out + 1] = spack("<i8", to_int(num_of(v))) end,
  Bool = function(out, v) out[#out + 1] = (v == true or (type(v) == "number" and v ~= 0)) and "\1" or "\0" end,
  Float = function(out, v) out[#out + 1] = spack("<f", num_of(v)) end,
  Double = function(out, v) out[#out + 1] = spack("<d", num_of(v)) end,
  String = function(out, v) out[#out + 1] = cstring(type(v) == "string" and v or "") end,
  Buffer = function(out, v)
    local r = REC[v]
    local s = type(v) == "string" and v or (r ~= nil and r.kind == "vbuf" and r.data) or ""
    out[#out + 1] = vle(#s) .. s
  end,
  VoidPtr = function(out) out[#out + 1] = "\0\0\0\0" end,
  Ptr = function(out) out[#out + 1] = "\0\0\0\0" end,
  ResourceRef = resource_ref_bytes,
  ResourceRefList = resource_ref_list_bytes,
  VariantVector = variant_vector_bytes,
  StringVector = function(out, list)
    local n = type(list) == "table" and #list or 0
    out[#out + 1] = vle(n)
    for i = 1, n do
      local s = list[i]
      out[#out + 1] = cstring(type(s) == "string" and s or type(s) == "number" and tostring(s) or "")
    end
  end,
  VariantMap = function(out, v, depth, fname) variant_map_bytes(out, v, depth, fname) end,
}
for name, l in pairs(LAYOUT) do
  if VARIANT_ID[name] then DATA[name] = function(out, v) out[#out + 1] = pack_value(l, v) end end
end
-- A Variant as Urho3D writes it: its type as one byte (when `with_type`), then its data.
function variant_bytes(out, v, with_type, depth, fname)
  local vt, value = v.type_, v.value_
  if vt == "Ptr" and REC[value] ~= nil and REC[value].kind == "vbuf" then vt = "Buffer" end   -- Variant(VectorBuffer)
  local data = DATA[vt]
  if data == nil then vt, data = "None", DATA.None end
  if with_type then out[#out + 1] = schar(VARIANT_ID[vt]) end
  data(out, value, depth, fname)
end
-- A VariantMap: its count (VLE), then each entry's key hash and Variant, in key hash order (Urho3D writes its
-- hash map's insertion order, which the engine's maps do not keep).  A name and a bare hash of the same key: the
-- name's entry.
function variant_map_bytes(out, map, depth, fname)
  deeper(depth, fname)
  local values = E.variant_map_store[map] or {}
  local entries = {}
  for k, v in pairs(values) do
    local tk = type(k)
    if tk == "string" or tk == "number" then entries[#entries + 1] = {hash_value(k), tk == "string" and k or "", v} end
  end
  tsort(entries, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    if (a[2] == "") ~= (b[2] == "") then return a[2] ~= "" end
    return a[2] < b[2]
  end)
  local kept = {}
  for _, e in ipairs(entries) do
    if #kept == 0 or kept[#kept][1] ~= e[1] then kept[#kept + 1] = e end
  end
  out[#out + 1] = vle(#kept)
  for _, e in ipairs(kept) do
    out[#out + 1] = spack("<I4", e[1])
    variant_bytes(out, E.variant_of(e[3]), true, depth + 1, fname)
  end
end
local function write_with(fname, check, fill)
  return function(self, v)
    v = check(v, fname)
    local out = {}
    fill(out, v, fname)
    return put_all(self, tconcat(out))
  end
end
local function any_variant(v) return E.variant_of(v) end
local function a_table(name)
  return function(v, fname)
    if type(v) ~= "table" then bad(1, fname, name, v) end
    return v
  end
end
local function a_map(v, fname)
  if E.variant_map_store[v] == nil then bad(1, fname, "VariantMap", v) end
  return v
end
SER.WriteVariant = write_with("WriteVariant", any_variant,
  function(out, v, fname) variant_bytes(out, v, true, 0, fname) end)
SER.WriteVariantData = write_with("WriteVariantData", any_variant,
  function(out, v, fname) variant_bytes(out, v, false, 0, fname) end)
SER.WriteVariantVector = write_with("WriteVariantVector", a_table("Variant[]"),
  function(out, v, fname) variant_vector_bytes(out, v, 0, fname) end)
SER.WriteVariantMap = write_with("WriteVariantMap", a_map,
  function(out, v, fname) variant_map_bytes(out, v, 0, fname) end)
SER.WriteResourceRef = write_with("WriteResourceRef", a_table("ResourceRef"), resource_ref_bytes)
SER.WriteResourceRefList = write_with("WriteResourceRefList", a_table("ResourceRefList"), resource_ref_list_bytes)

-- Reading.  A count that runs past the end of the stream stops there (Urho3D would fill the rest from garbage).
local function at_end(self)
  local a, r = stream(self)
  return not a.readable(r) or r.pos >= #r.data
end
local RR_MT, RRL_MT = class("ResourceRef").mt, class("ResourceRefList").mt
local function read_resource_ref(self)
  local t = DES.ReadStringHash(self)
  return setmetatable({type = t, name = read_cstring(self)}, RR_MT)
end
local function read_resource_ref_list(self)
  local t = DES.ReadStringHash(self)
  local names = {}
  for i = 1, read_vle(self) do
    if at_end(self) then break end
    names[i] = read_cstring(self)
  end
  return setmetatable({type = t, names = names}, RRL_MT)
end
local read_variant
local function read_variant_vector(self, depth)
  local list = {}
  for i = 1, read_vle(self) do
    if at_end(self) then break end
    list[i] = read_variant(self, nil, depth + 1)
  end
  return list
end
local function read_variant_map(self, depth)
  local values = {}
  for _ = 1, read_vle(self) do
    if at_end(self) then break end
    local h = sunpack("<I4", fixed(self, 4))
    values[name_of(h) or h] = read_variant(self, nil, depth + 1)
  end
  return E.VariantMap_new(values)
end
local V = E.Variant_new
local NULL_POINTER = function(self) fixed(self, 4); return V("VoidPtr", nil) end
local READ = {
  [1] = function(self) return V("Int", DES.ReadInt(self)) end,
  [2] = function(self) return V("Bool", DES.ReadBool(self)) end,
  [3] = function(self) return V("Float", DES.ReadFloat(self)) end,
  [9] = function(self) return V("String", read_cstring(self)) end,
  [10] = function(self) return V("Buffer", take(self, read_vle(self))) end,
  [11] = NULL_POINTER,
  [12] = function(self) return V("ResourceRef", read_resource_ref(self)) end,
  [13] = function(self) return V("ResourceRefList", read_resource_ref_list(self)) end,
  [14] = function(self, depth) return V("VariantVector", read_variant_vector(self, depth)) end,
  [15] = function(self, depth) return V("VariantMap", read_variant_map(self, depth)) end,
  [18] = NULL_POINTER,
  [22] = function(self) return V("Double", DES.ReadDouble(self)) end,
  [23] = function(self)
    local list = {}
    for i = 1, read_vle(self) do
      if at_end(self) then break end
      list[i] = read_cstring(self)
    end
    return V("StringVector", list)
  end,
  [26] = function(self) return V("Int64", DES.ReadInt64(self)) end,
  [27] = function(self) fixed(self, 4); return V("None", nil) end,   -- custom values: not serialisable
  [28] = function(self) fixed(self, 4); return V("None", nil) end,
}
for name, l in pairs(LAYOUT) do
  local id = VARIANT_ID[name]
  if id then READ[id] = function(self) return V(name, unpack_value(l, fixed(self, l.size))) end end
end
function read_variant(self, vtype, depth)
  if depth > MAX_DEPTH then
    E.raise_at_game(sformat("ReadVariant: Variants nested deeper than %d levels", MAX_DEPTH))
  end
  if vtype == nil then vtype = sbyte(fixed(self, 1)) end
  local read = READ[vtype]
  if read == nil then return V("None", nil) end
  return read(self, depth)
end
DES.ReadResourceRef = read_resource_ref
DES.ReadResourceRefList = read_resource_ref_list
DES.ReadVariant = function(self, vtype)
  if vtype ~= nil then vtype = int_arg(vtype, "ReadVariant", 1) end
  return read_variant(self, vtype, 0)
end
DES.ReadVariantVector = function(self) return read_variant_vector(self, 0) end
DES.ReadVariantMap = function(self) return read_variant_map(self, 0) end

----------------------------------------------------------------------------------------------------
-- Position, size, name
----------------------------------------------------------------------------------------------------
local function size_of(r) local d = r.data; return d and #d or 0 end
DES.GetPosition = function(self) local _, r = stream(self); return r.pos end
DES.Tell = DES.GetPosition
DES.GetSize = function(self) local _, r = stream(self); return size_of(r) end
DES.IsEof = function(self) local _, r = stream(self); return r.pos >= size_of(r) end
DES.Seek = function(self, p)
  local _, r = stream(self)
  local n = size_of(r)
  p = int_arg(p, "Seek", 1)
  if p < 0 then p = 0 elseif p > n then p = n end
  r.pos = p
  return p
end
DES.SeekRelative = function(self, delta)
  local _, r = stream(self)
  return DES.Seek(self, r.pos + int_arg(delta, "SeekRelative", 1))
end
DES.GetName = function(self) local _, r = stream(self); return type(r.name) == "string" and r.name or "" end
DES.GetChecksum = function() return 0 end

-- Give class `name` the Serializer and Deserializer members it does not implement itself, reaching its bytes
-- through `adapter` (see the top of this file).
function E.install_serializer(name, adapter)
  STREAMS[name] = adapter
  local methods, declared = class(name).methods, E.REGISTRY.classes[name].methods
  for _, set in ipairs({DES, SER}) do
    for _, m in ipairs(E.sorted_keys(set)) do
      if methods[m] == nil and declared[m] ~= nil then methods[m] = set[m] end
    end
  end
end
