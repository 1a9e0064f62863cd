-- Values as bytes, for what crosses from one Lua state to another: the network's messages between the roles of a
-- run (67_network.lua: remote events' VariantMaps, controls, scene updates) and what a battery reads from another
-- role (harness.lua, h.role).  Only data crosses: nil, booleans, integers, floats, strings, the math value types,
-- Variants, VariantMaps, StringHashes and plain tables; anything else is refused (or, for the battery's views,
-- lent as a numbered handle through `lend`).  Encoding is deterministic: table keys are sorted.
local type, ipairs, pairs, error, tostring = type, ipairs, pairs, error, tostring
local spack, sunpack, sformat, schar, tconcat, tsort = string.pack, string.unpack, string.format, string.char,
  table.concat, table.sort
local mtype = math.type
local REC = E.REC

local MAX_DEPTH = 32
E.NET_MAX_BYTES = 1024 * 1024   -- one encoded value (a remote event's data, a message's payload)

local T_NIL, T_FALSE, T_TRUE, T_INT, T_FLOAT, T_STRING, T_MATH, T_VARIANT, T_MAP, T_TABLE, T_HANDLE, T_HASH =
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11

-- math value types: name, fields written as doubles (integers for the Int types), constructor
local MATH = {
  {"Vector2", {"x", "y"}, "d", function(a) return E.Vector2_new(a[1], a[2]) end},
  {"Vector3", {"x", "y", "z"}, "d", function(a) return E.Vector3_new(a[1], a[2], a[3]) end},
  {"Vector4", {"x", "y", "z", "w"}, "d", function(a) return E.Vector4_new(a[1], a[2], a[3], a[4]) end},
  {"Quaternion", {"w", "x", "y", "z"}, "d", function(a) return E.Quaternion_new(a[1], a[2], a[3], a[4]) end},
  {"Color", {"r", "g", "b", "a"}, "d", function(a) return E.Color_new(a[1], a[2], a[3], a[4]) end},
  {"IntVector2", {"x", "y"}, "j", function(a) return E.IntVector2_new(a[1], a[2]) end},
  {"IntVector3", {"x", "y", "z"}, "j", function(a) return E.IntVector3_new(a[1], a[2], a[3]) end},
  {"IntRect", {"left", "top", "right", "bottom"}, "j", function(a) return E.IntRect_new(a[1], a[2], a[3], a[4]) end},
}
local MATH_BY_NAME = {}
for i, m in ipairs(MATH) do m.index = i; MATH_BY_NAME[m[1]] = m end

local function key_rank(k)
  local t = type(k)
  if t == "number" then return 1 elseif t == "string" then return 2 elseif t == "boolean" then return 3 end
  return nil
end
local function sorted_keys(t, what)
  local keys = {}
  for k in pairs(t) do
    if key_rank(k) == nil then error(what .. ": a table key must be a number, a string or a boolean", 0) end
    keys[#keys + 1] = k
  end
  tsort(keys, function(a, b)
    local ra, rb = key_rank(a), key_rank(b)
    if ra ~= rb then return ra < rb end
    if ra == 3 then return (a and 1 or 0) < (b and 1 or 0) end
    return a < b
  end)
  return keys
end

-- encode(v, lend): the bytes; `lend(v)` gives a handle number for a value data cannot carry (or nil: refused).
local function encoder(lend, what, max)
  local out, size = {}, 0
  local function put(s)
    size = size + #s
    if size > max then error(sformat("%s: more than %d bytes", what, max), 0) end
    out[#out + 1] = s
  end
  local enc
  local function variant(v, depth)
    local vt, value = v.type_, v.value_
    if vt == "Ptr" and REC[value] and REC[value].kind == "vbuf" then vt, value = "Buffer", REC[value].data end
    if vt == "Ptr" or vt == "VoidPtr" then vt, value = "None", nil end   -- pointers do not cross (as Urho3D's)
    put(spack("<Bs1", T_VARIANT, vt))
    if vt == "VariantVector" then
      put(spack("<I4", #value))
      for _, x in ipairs(value) do variant(E.variant_of(x), depth + 1) end
    else
      enc(value, depth + 1)
    end
  end
  function enc(v, depth)
    if depth > MAX_DEPTH then error(what .. ": nested deeper than " .. MAX_DEPTH .. " levels", 0) end
    local t = type(v)
    if t == "nil" then put(schar(T_NIL))
    elseif t == "boolean" then put(schar(v and T_TRUE or T_FALSE))
    elseif t == "number" then
      if mtype(v) == "integer" then put(spack("<Bj", T_INT, v)) else put(spack("<Bd", T_FLOAT, v)) end
    elseif t == "string" then put(spack("<Bs4", T_STRING, v))
    else
      local mt = E.dgetmt(v)
      local cname = mt and mt.__name
      local m = cname and MATH_BY_NAME[cname]
      if m then
        put(spack("<BB", T_MATH, m.index))
        for _, f in ipairs(m[2]) do put(spack("<" .. m[3], v[f])) end
      elseif cname == "Rect" then
        put(spack("<BBdddd", T_MATH, 0, v.min.x, v.min.y, v.max.x, v.max.y))
      elseif cname == "Variant" then variant(v, depth)
      elseif cname == "StringHash" then put(spack("<BI4s1", T_HASH, v.value_, v.name_ or ""))
      elseif cname == "VariantMap" then
        local values = E.variant_map_store[v]
        local keys = sorted_keys(values, what)
        put(spack("<BI4", T_MAP, #keys))
        for _, k in ipairs(keys) do
          enc(k, depth + 1)
          variant(values[k], depth + 1)
        end
      elseif cname == "VectorBuffer" and REC[v] then
        variant(E.Variant_new("Buffer", REC[v].data), depth)
      elseif t == "table" and mt == nil then
        local keys = sorted_keys(v, what)
        put(spack("<BI4", T_TABLE, #keys))
        for _, k in ipairs(keys) do
          enc(k, depth + 1)
          enc(v[k], depth + 1)
        end
      else
        local handle = lend and lend(v)
        if handle == nil then error(sformat("%s: a %s cannot be sent", what, cname or t), 0) end
        put(spack("<BI4", T_HANDLE, handle))
      end
    end
  end
  return function(v) enc(v, 0); return tconcat(out) end
end

-- `max`: the most bytes (default E.NET_MAX_BYTES)
function E.net_encode(v, what, lend, max) return encoder(lend, what or "value", max or E.NET_MAX_BYTES)(v) end

-- decode(bytes, borrow): the value; `borrow(n)` makes the stand-in of handle n.
function E.net_decode(s, borrow)
  local pos = 1
  local dec
  local function variant()
    local vt
    vt, pos = sunpack("<s1", s, pos)
    if vt == "VariantVector" then
      local n
      n, pos = sunpack("<I4", s, pos)
      local list = {}
      for i = 1, n do
        pos = pos + 1   -- the nested variant's tag
        list[i] = variant()
      end
      return E.Variant_new(vt, list)
    end
    return E.Variant_new(vt, dec())
  end
  function dec()
    local tag = sunpack("<B", s, pos)
    pos = pos + 1
    if tag == T_NIL then return nil end
    if tag == T_FALSE then return false end
    if tag == T_TRUE then return true end
    local v
    if tag == T_INT then v, pos = sunpack("<j", s, pos); return v end
    if tag == T_FLOAT then v, pos = sunpack("<d", s, pos); return v end
    if tag == T_STRING then v, pos = sunpack("<s4", s, pos); return v end
    if tag == T_MATH then
      local index
      index, pos = sunpack("<B", s, pos)
      if index == 0 then
        local a, b, c, d
        a, b, c, d, pos = sunpack("<dddd", s, pos)
        return E.Rect_new(a, b, c, d)
      end
      local m = MATH[index]
      local args = {}
      for i = 1, #m[2] do args[i], pos = sunpack("<" .. m[3], s, pos) end
      return m[4](args)
    end
    if tag == T_VARIANT then return variant() end
    if tag == T_HASH then
      local value, name
      value, name, pos = sunpack("<I4s1", s, pos)
      local h = E.StringHash_new(name)
      if name == "" then h.value_, h.name_ = value, nil end
      return h
    end
    if tag == T_MAP then
      local n
      n, pos = sunpack("<I4", s, pos)
      local values = {}
      for _ = 1, n do
        local k = dec()
        pos = pos + 1
        values[k] = variant()
      end
      return E.VariantMap_new(values)
    end
    if tag == T_TABLE then
      local n
      n, pos = sunpack("<I4", s, pos)
      local t = {}
      for _ = 1, n do
        local k = dec()
        t[k] = dec()
      end
      return t
    end
    if tag == T_HANDLE then
      v, pos = sunpack("<I4", s, pos)
      if borrow == nil then error("a handle in data that carries none", 0) end
      return borrow(v)
    end
    error("bad network data (tag " .. tostring(tag) .. ")", 0)
  end
  return dec()
end

-- One plain value (a number, boolean, string, nil or math value) as encode would write it, without its setup: what
-- scene replication writes for each attribute of each replicated object at each network update.
local PACK = {}
for _, m in ipairs(MATH) do
  local fmt, f, index = "<BB" .. string.rep(m[3], #m[2]), m[2], m.index
  if #f == 2 then
    PACK[m[1]] = function(v) return spack(fmt, T_MATH, index, v[f[1]], v[f[2]]) end
  elseif #f == 3 then
    PACK[m[1]] = function(v) return spack(fmt, T_MATH, index, v[f[1]], v[f[2]], v[f[3]]) end
  else
    PACK[m[1]] = function(v) return spack(fmt, T_MATH, index, v[f[1]], v[f[2]], v[f[3]], v[f[4]]) end
  end
end
local BOOL_BYTES = {[true] = schar(T_TRUE), [false] = schar(T_FALSE)}
local NIL_BYTES = schar(T_NIL)
function E.net_encode_value(v, what)
  local t = type(v)
  if t == "number" then
    if mtype(v) == "integer" then return spack("<Bj", T_INT, v) end
    return spack("<Bd", T_FLOAT, v)
  end
  if t == "boolean" then return BOOL_BYTES[v] end
  if t == "nil" then return NIL_BYTES end
  if t == "string" and #v <= E.NET_MAX_BYTES - 5 then return spack("<Bs4", T_STRING, v) end
  local mt = E.dgetmt(v)
  local pack = mt and PACK[mt.__name]
  if pack then return pack(v) end
  return E.net_encode(v, what)
end

-- Bytes for the Python host cross as hex (30_core.lua's E.hex); back the other way as they are.
local UNHEX = {}
for i = 0, 255 do UNHEX[sformat("%02x", i)] = schar(i) end
function E.unhex(h) return (string.gsub(h, "..", UNHEX)) end
