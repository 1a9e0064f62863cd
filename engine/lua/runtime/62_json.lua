-- JSONFile and JSONValue (Urho3D's Resource/JSONFile.h, JSONValue.h; rapidjson underneath).
--
-- A value is a node {t = value type, n = number type, v = payload}: a boolean, a number, a string, an array (a list
-- of nodes) or an object ({keys = names in insertion order, map = name -> node}: Urho3D's JSONObject is a HashMap,
-- which iterates in insertion order).  A JSONValue proxy refers to a node: Get(key), operator [] and a file's
-- GetRoot() return references into the tree, as the C++ binding returns references; Set, Push and the constructors
-- copy.  Numbers parse as rapidjson reads them (an int, else an unsigned, else a double) and print as its
-- PrettyWriter prints them (the shortest text that reads back, "1.0" for an integral double).
local error, type, tostring, tonumber, ipairs, setmetatable, select = error, type, tostring, tonumber, ipairs,
  setmetatable, select
local sfind, ssub, smatch, sgsub, sformat, sbyte, schar, srep = string.find, string.sub, string.match, string.gsub,
  string.format, string.byte, string.char, string.rep
local tconcat, tremove, tinsert, mtype, mtointeger, mfloor, mhuge = table.concat, table.remove, table.insert,
  math.type, math.tointeger, math.floor, math.huge
local REC = E.REC
local MAX_DEPTH = 1000
local NULL, BOOL, NUMBER, STRING, ARRAY, OBJECT = 0, 1, 2, 3, 4, 5
E.JSON_STRING, E.JSON_OBJECT = STRING, OBJECT   -- node types other readers of the tree test
local NT_NAN, NT_INT, NT_UINT, NT_DOUBLE = 0, 1, 2, 3
local VALUE_TYPE_NAMES = {[0] = "Null", "Bool", "Number", "String", "Array", "Object"}
local NUMBER_TYPE_NAMES = {[0] = "NaN", "Int", "Unsigned", "Real"}

local function new_node(t, n, v) return {t = t or NULL, n = n or NT_NAN, v = v} end
local function new_object() return new_node(OBJECT, NT_NAN, {keys = {}, map = {}}) end
local function number_node(x, nt)
  if nt == nil then
    if mtype(x) == "integer" and x >= -2147483648 and x <= 2147483647 then nt = NT_INT
    elseif mtype(x) == "integer" and x >= 0 and x <= 4294967295 then nt = NT_UINT
    else nt = NT_DOUBLE end
  end
  return new_node(NUMBER, nt, x + 0.0)
end
local function copy(node)
  if node.t == ARRAY then
    local list = {}
    for i, c in ipairs(node.v) do list[i] = copy(c) end
    return new_node(ARRAY, NT_NAN, list)
  elseif node.t == OBJECT then
    local o = new_object()
    for i, k in ipairs(node.v.keys) do
      o.v.keys[i] = k
      o.v.map[k] = copy(node.v.map[k])
    end
    return o
  end
  return new_node(node.t, node.n, node.v)
end
-- SetType: a node that changes type loses its payload; one that keeps it keeps it.
local function set_type(node, t)
  if node.t == t then return end
  node.t, node.n = t, NT_NAN
  if t == ARRAY then node.v = {}
  elseif t == OBJECT then node.v = {keys = {}, map = {}}
  elseif t == STRING then node.v = ""
  else node.v = nil end
end
local function assign(node, src)
  node.t, node.n, node.v = src.t, src.n, src.v
end
local function object_set(node, key, value)
  set_type(node, OBJECT)
  local o = node.v
  if o.map[key] == nil then o.keys[#o.keys + 1] = key end
  o.map[key] = value
end
local function object_get(node, key)
  if node.t ~= OBJECT then return nil end
  return node.v.map[key]
end
E.json_node = {new = new_node, object = new_object, number = number_node, set = object_set, get = object_get,
  copy = copy, NULL = NULL, BOOL = BOOL, NUMBER = NUMBER, STRING = STRING, ARRAY = ARRAY, OBJECT = OBJECT}
function E.json_string_node(s) return new_node(STRING, NT_NAN, tostring(s)) end
function E.json_bool_node(b) return new_node(BOOL, NT_NAN, b and true or false) end

----------------------------------------------------------------------------------------------------
-- Reading (rapidjson with comments and trailing commas allowed, as Urho3D's JSONFile asks)
----------------------------------------------------------------------------------------------------
local ESCAPES = {['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t"}
function E.json_parse(s)
  if type(s) ~= "string" then return nil, "no JSON data" end
  local pos = 1
  local function fail(msg) error({json_error = sformat("%s at offset %d", msg, pos - 1)}, 0) end
  local function skip()
    while true do
      pos = sfind(s, "[^ \t\r\n]", pos) or #s + 1
      if ssub(s, pos, pos + 1) == "//" then
        pos = (sfind(s, "\n", pos, true) or #s) + 1
      elseif ssub(s, pos, pos + 1) == "/*" then
        local e = sfind(s, "*/", pos + 2, true)
        if e == nil then fail("unterminated comment") end
        pos = e + 2
      else
        return
      end
    end
  end
  local value
  local function str()
    pos = pos + 1
    local parts = {}
    while true do
      local e = sfind(s, '["\\%c]', pos)
      if e == nil then fail("missing a closing quotation mark in string") end
      parts[#parts + 1] = ssub(s, pos, e - 1)
      local c = ssub(s, e, e)
      if c == '"' then pos = e + 1; break end
      if c ~= "\\" then pos = e; fail("invalid character in string") end
      local esc = ssub(s, e + 1, e + 1)
      if esc == "u" then
        local hex = smatch(s, "^%x%x%x%x", e + 2)
        if hex == nil then pos = e; fail("incorrect hex digit after \\u escape in string") end
        local code = tonumber(hex, 16)
        local after = e + 6
        if code >= 0xD800 and code <= 0xDBFF then
          local lo = smatch(s, "^\\u(%x%x%x%x)", after)
          local low = lo and tonumber(lo, 16)
          if low == nil or low < 0xDC00 or low > 0xDFFF then pos = e; fail("invalid surrogate in string") end
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
          after = after + 6
        end
        parts[#parts + 1] = utf8.char(code)
        pos = after
      elseif ESCAPES[esc] then
        parts[#parts + 1] = ESCAPES[esc]
        pos = e + 2
      else
        pos = e; fail("invalid escape character in string")
      end
    end
    return tconcat(parts)
  end
  local depth = 0
  function value()
    skip()
    local c = ssub(s, pos, pos)
    if c == "{" or c == "[" then
      depth = depth + 1
      if depth > MAX_DEPTH then fail("nested too deeply") end
      pos = pos + 1
      local node = c == "{" and new_object() or new_node(ARRAY, NT_NAN, {})
      local close = c == "{" and "}" or "]"
      skip()
      if ssub(s, pos, pos) == close then
        pos = pos + 1
      else
        while true do
          if c == "{" then
            skip()
            if ssub(s, pos, pos) ~= '"' then fail("missing a name for object member") end
            local key = str()
            skip()
            if ssub(s, pos, pos) ~= ":" then fail("missing a colon after a name of object member") end
            pos = pos + 1
            local v = value()
            if node.v.map[key] == nil then node.v.keys[#node.v.keys + 1] = key end
            node.v.map[key] = v   -- a repeated name keeps its first place and takes the last value
          else
            node.v[#node.v + 1] = value()
          end
          skip()
          local sep = ssub(s, pos, pos)
          pos = pos + 1
          if sep == close then break end
          if sep ~= "," then pos = pos - 1; fail("missing a comma or '" .. close .. "'") end
          skip()
          if ssub(s, pos, pos) == close then pos = pos + 1; break end   -- a trailing comma
        end
      end
      depth = depth - 1
      return node
    elseif c == '"' then
      return new_node(STRING, NT_NAN, str())
    elseif ssub(s, pos, pos + 3) == "true" then
      pos = pos + 4
      return new_node(BOOL, NT_NAN, true)
    elseif ssub(s, pos, pos + 4) == "false" then
      pos = pos + 5
      return new_node(BOOL, NT_NAN, false)
    elseif ssub(s, pos, pos + 3) == "null" then
      pos = pos + 4
      return new_node()
    end
    local num, after = smatch(s, "^(%-?%d+%.?%d*[eE]?[+-]?%d*)()", pos)
    if num == nil or sfind(num, "^%-?0%d") or sfind(num, "%.$") or sfind(num, "%.[eE]") or sfind(num, "[eE][+-]?$")
    then
      fail("invalid value")
    end
    pos = after
    if not sfind(num, "[.eE]") then
      local i = mtointeger(tonumber(num))
      if i ~= nil and i >= -2147483648 and i <= 4294967295 then return number_node(i) end
    end
    return number_node(tonumber(num) + 0.0, NT_DOUBLE)
  end
  local ok, result = pcall(function()
    local v = value()
    skip()
    if pos <= #s then fail("the document root must not be followed by other values") end
    return v
  end)
  if ok then return result end
  if type(result) == "table" and result.json_error then return nil, result.json_error end
  error(result, 0)
end

----------------------------------------------------------------------------------------------------
-- Writing (rapidjson's PrettyWriter with the file's indentation)
----------------------------------------------------------------------------------------------------
local function escape(s)
  return '"' .. sgsub(s, '[%c"\\]', function(c)
    if c == '"' then return '\\"' elseif c == "\\" then return "\\\\" elseif c == "\n" then return "\\n"
    elseif c == "\r" then return "\\r" elseif c == "\t" then return "\\t" elseif c == "\b" then return "\\b"
    elseif c == "\f" then return "\\f" end
    return sformat("\\u%04X", sbyte(c))
  end) .. '"'
end
-- A double as rapidjson's Grisu2 and Prettify print it: the shortest digits that read back, in decimal notation
-- between 1e-7 and 1e21, else as d.ddde±x.
function E.json_number_text(x)
  if x ~= x or x == mhuge or x == -mhuge then return "null" end
  if x == 0 then return (1 / x < 0) and "-0.0" or "0.0" end
  local text
  for p = 1, 17 do
    text = sformat("%." .. p .. "e", x)
    if tonumber(text) == x then break end
  end
  local sign, d1, rest, exp = smatch(text, "^(%-?)(%d)%.?(%d*)e([+-]%d+)$")
  local digits = sgsub(d1 .. rest, "0+$", "")
  if digits == "" then digits = "0" end
  local k = tonumber(exp) - (#digits - 1)   -- value = digits * 10^k
  local length = #digits
  local kk = length + k                      -- 10^(kk-1) <= value < 10^kk
  if k >= 0 and kk <= 21 then
    return sign .. digits .. srep("0", k) .. ".0"
  elseif kk > 0 and kk <= 21 then
    return sign .. ssub(digits, 1, kk) .. "." .. ssub(digits, kk + 1)
  elseif kk > -6 and kk <= 0 then
    return sign .. "0." .. srep("0", -kk) .. digits
  elseif length == 1 then
    return sign .. digits .. "e" .. (kk - 1)
  end
  return sign .. ssub(digits, 1, 1) .. "." .. ssub(digits, 2) .. "e" .. (kk - 1)
end
local function number_text(node)
  if node.n == NT_INT or node.n == NT_UINT then return sformat("%d", mtointeger(node.v) or 0) end
  return E.json_number_text(node.v)
end
local function write(out, node, indent, depth)
  local t = node.t
  if t == NULL then out[#out + 1] = "null"
  elseif t == BOOL then out[#out + 1] = node.v and "true" or "false"
  elseif t == NUMBER then out[#out + 1] = number_text(node)
  elseif t == STRING then out[#out + 1] = escape(node.v)
  elseif t == ARRAY then
    if #node.v == 0 then out[#out + 1] = "[]"; return end
    out[#out + 1] = "[\n"
    for i, c in ipairs(node.v) do
      out[#out + 1] = srep(indent, depth + 1)
      write(out, c, indent, depth + 1)
      out[#out + 1] = i < #node.v and ",\n" or "\n"
    end
    out[#out + 1] = srep(indent, depth) .. "]"
  else
    local keys = node.v.keys
    if #keys == 0 then out[#out + 1] = "{}"; return end
    out[#out + 1] = "{\n"
    for i, k in ipairs(keys) do
      out[#out + 1] = srep(indent, depth + 1) .. escape(k) .. ": "
      write(out, node.v.map[k], indent, depth + 1)
      out[#out + 1] = i < #keys and ",\n" or "\n"
    end
    out[#out + 1] = srep(indent, depth) .. "}"
  end
end
-- PrettyWriter indents with the first character of `indentation`, repeated its length times.
function E.json_write(node, indentation)
  indentation = indentation == nil and "\t" or tostring(indentation)
  local indent = srep(ssub(indentation, 1, 1), #indentation)
  local out = {}
  write(out, node, indent, 0)
  return tconcat(out)
end

----------------------------------------------------------------------------------------------------
-- JSONValue
----------------------------------------------------------------------------------------------------
local JV = class("JSONValue")
local jv_mt = JV.mt
local function value_of(node)
  local proxy = setmetatable({}, jv_mt)
  REC[proxy] = {kind = "json", node = node}
  return proxy
end
E.json_value = value_of
local function jrec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "json" then
    E.raise_at_game("invalid 'self' in call to JSONValue method")
  end
  return r
end
local function jnode(self) return jrec(self).node end
-- The node of a JSONValue, or of a Lua value converted as the constructors convert it.
local function node_from(v)
  local r = REC[v]
  if r and r.kind == "json" then return copy(r.node) end
  local t = type(v)
  if v == nil then return new_node() end
  if t == "boolean" then return new_node(BOOL, NT_NAN, v) end
  if t == "number" then return number_node(v, NT_DOUBLE) end   -- JSONValue(double)
  if t == "string" then return new_node(STRING, NT_NAN, v) end
  if t == "table" then
    if #v > 0 or next(v) == nil then
      local list = {}
      for i = 1, #v do list[i] = node_from(v[i]) end
      return new_node(ARRAY, NT_NAN, list)
    end
    local o = new_object()
    local keys = {}
    for k in pairs(v) do if type(k) == "string" then keys[#keys + 1] = k end end
    table.sort(keys)
    for _, k in ipairs(keys) do object_set(o, k, node_from(v[k])) end
    return o
  end
  E.raise_at_game("bad argument #1 to 'JSONValue' (a boolean, number, string, table or JSONValue expected)")
end
E.json_node_from = node_from
JV.new = function(v) return value_of(node_from(v)) end
local function empty_value() return value_of(new_node()) end
JV.statics.EMPTY = empty_value
JV.statics.emptyArray = function() return {} end
JV.statics.emptyObject = function() return {} end

local M = JV.methods
M.SetBool = function(self, v) assign(jnode(self), new_node(BOOL, NT_NAN, v and true or false)) end
M.SetInt = function(self, v)
  v = E.urho_text.int(tostring(E.urho_text.to_integer(v)))
  assign(jnode(self), number_node(v, NT_INT))
end
M.SetUint = function(self, v)
  v = E.urho_text.to_integer(v) & 0xffffffff
  assign(jnode(self), number_node(v, NT_UINT))
end
M.SetFloat = function(self, v) assign(jnode(self), number_node(E.MATH.f32(tonumber(v) or 0.0), NT_DOUBLE)) end
M.SetDouble = function(self, v) assign(jnode(self), number_node(tonumber(v) or 0.0, NT_DOUBLE)) end
M.SetString = function(self, v) assign(jnode(self), new_node(STRING, NT_NAN, tostring(v))) end
M.SetArray = function(self, list)
  local n = {}
  for i = 1, #(list or {}) do n[i] = node_from(list[i]) end
  assign(jnode(self), new_node(ARRAY, NT_NAN, n))
end
M.SetObject = function(self, tbl)
  local o = new_object()
  local keys = {}
  for k in pairs(tbl or {}) do if type(k) == "string" then keys[#keys + 1] = k end end
  table.sort(keys)
  for _, k in ipairs(keys) do object_set(o, k, node_from(tbl[k])) end
  assign(jnode(self), o)
end
M.GetValueType = function(self) return jnode(self).t end
M.GetNumberType = function(self) return jnode(self).n end
M.GetValueTypeName = function(self) return VALUE_TYPE_NAMES[jnode(self).t] end
M.GetNumberTypeName = function(self) return NUMBER_TYPE_NAMES[jnode(self).n] end
M.IsNull = function(self) return jnode(self).t == NULL end
M.IsBool = function(self) return jnode(self).t == BOOL end
M.IsNumber = function(self) return jnode(self).t == NUMBER end
M.IsString = function(self) return jnode(self).t == STRING end
M.IsArray = function(self) return jnode(self).t == ARRAY end
M.IsObject = function(self) return jnode(self).t == OBJECT end
M.GetBool = function(self, default)
  local n = jnode(self)
  if n.t == BOOL then return n.v end
  return default == true
end
local function c_int(x, lo, hi)
  if x ~= x or x >= hi + 1 or x <= lo - 1 then return lo end   -- out of range: what x86's conversion gives
  return mtointeger(x >= 0 and mfloor(x) or -mfloor(-x))
end
M.GetInt = function(self, default)
  local n = jnode(self)
  if n.t == NUMBER then return c_int(n.v, -2147483648, 2147483647) end
  return default or 0
end
M.GetUInt = function(self, default)
  local n = jnode(self)
  if n.t == NUMBER then
    local x = n.v
    if x < 0 then return c_int(x, -2147483648, 2147483647) & 0xffffffff end
    if x >= 4294967296 then return 0 end
    return mtointeger(mfloor(x))
  end
  return default or 0
end
M.GetFloat = function(self, default)
  local n = jnode(self)
  if n.t == NUMBER then return E.MATH.f32(n.v) end
  return default or 0.0
end
M.GetDouble = function(self, default)
  local n = jnode(self)
  if n.t == NUMBER then return n.v end
  return default or 0.0
end
M.GetString = function(self, default)
  local n = jnode(self)
  if n.t == STRING then return n.v end
  return default or ""
end
M.GetArray = function(self)
  local n = jnode(self)
  local out = {}
  if n.t == ARRAY then for i, c in ipairs(n.v) do out[i] = value_of(c) end end
  return out
end
M.GetObject = function(self)
  local n = jnode(self)
  local out = {}
  if n.t == OBJECT then for _, k in ipairs(n.v.keys) do out[k] = value_of(n.v.map[k]) end end
  return out
end
M.Push = function(self, v)
  local n = jnode(self)
  set_type(n, ARRAY)
  n.v[#n.v + 1] = node_from(v)
end
M.Pop = function(self)
  local n = jnode(self)
  if n.t == ARRAY then n.v[#n.v] = nil end
end
M.Insert = function(self, pos, v)
  local n = jnode(self)
  if n.t ~= ARRAY then return end
  pos = mtointeger(pos) or 0
  if pos < 0 or pos > #n.v then return end
  tinsert(n.v, pos + 1, node_from(v))
end
M.Erase = function(self, a, length)
  local n = jnode(self)
  if type(a) == "string" then
    if n.t ~= OBJECT or n.v.map[a] == nil then return false end
    n.v.map[a] = nil
    for i, k in ipairs(n.v.keys) do if k == a then tremove(n.v.keys, i); break end end
    return true
  end
  if n.t ~= ARRAY then return end
  local pos = mtointeger(a) or 0
  length = mtointeger(length or 1) or 1
  for _ = 1, length do
    if pos < 0 or pos >= #n.v then break end
    tremove(n.v, pos + 1)
  end
end
M.Resize = function(self, size)
  local n = jnode(self)
  set_type(n, ARRAY)
  size = math.max(0, mtointeger(size) or 0)
  for i = #n.v + 1, size do n.v[i] = new_node() end
  for i = #n.v, size + 1, -1 do n.v[i] = nil end
end
M.Size = function(self)
  local n = jnode(self)
  if n.t == ARRAY then return #n.v end
  if n.t == OBJECT then return #n.v.keys end
  return 0
end
M.Set = function(self, key, v) object_set(jnode(self), tostring(key), node_from(v)) end
M.Get = function(self, key)
  local c = object_get(jnode(self), tostring(key))
  return c and value_of(c) or empty_value()
end
M.Contains = function(self, key) return object_get(jnode(self), tostring(key)) ~= nil end
M.Clear = function(self)
  local n = jnode(self)
  if n.t == ARRAY then n.v = {} elseif n.t == OBJECT then n.v = {keys = {}, map = {}} end
end

-- Variants in JSON, as Urho3D's JSONValue::SetVariantValue / GetVariantValue write and read them.
local T, S = E.urho_text, E.urho_string
function E.json_variant_node(v)
  local t = v.type_
  if t == "Bool" then return new_node(BOOL, NT_NAN, v.value_ and true or false) end
  if t == "Int" then return number_node(E.urho_text.int(tostring(E.urho_text.to_integer(v.value_))), NT_INT) end
  if t == "Float" then return number_node(E.MATH.f32(v.value_), NT_DOUBLE) end
  if t == "Double" then return number_node(v.value_, NT_DOUBLE) end
  if t == "String" then return new_node(STRING, NT_NAN, v.value_) end
  if t == "ResourceRef" then return new_node(STRING, NT_NAN, E.resource_ref_text(v.value_)) end
  if t == "VariantMap" then
    local o = new_object()
    local values = E.variant_map_store[v.value_] or {}
    local keys = {}
    for k in pairs(values) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(keys) do
      local entry = new_object()
      object_set(entry, "type", new_node(STRING, NT_NAN, values[k].type_))
      object_set(entry, "value", E.json_variant_node(values[k]))
      object_set(o, sformat("%08X", type(k) == "number" and k or E.sdbm(k)), entry)
    end
    return o
  end
  local conv = E.VARIANT_TO_TEXT[t]
  return new_node(STRING, NT_NAN, conv and conv(v.value_) or tostring(v.value_ or ""))
end
function E.json_variant_of(node, type_name, key_names)
  if type_name == "Bool" then return E.Variant_new("Bool", node.t == BOOL and node.v or false) end
  if type_name == "Int" then
    return E.Variant_new("Int", node.t == NUMBER and c_int(node.v, -2147483648, 2147483647) or 0)
  end
  if type_name == "Float" then return E.Variant_new("Float", node.t == NUMBER and E.MATH.f32(node.v) or 0.0) end
  if type_name == "Double" then return E.Variant_new("Double", node.t == NUMBER and node.v or 0.0) end
  local text = node.t == STRING and node.v or ""
  if type_name == "String" then return E.Variant_new("String", text) end
  if type_name == "ResourceRef" then
    local a, b = smatch(text, "^([^;]*);([^;]*)$")
    return E.Variant_new("ResourceRef", E.ResourceRef_new(a or "", b or ""))
  end
  if type_name == "VariantMap" then
    local values = {}
    if node.t == OBJECT then
      for _, k in ipairs(node.v.keys) do
        local entry = node.v.map[k]
        local hash = T.uint(tostring(tonumber(k, 16) or 0))
        local key = key_names and key_names[hash] or hash
        local et = object_get(entry, "type")
        values[key] = E.json_variant_of(object_get(entry, "value") or new_node(), et and et.t == STRING and et.v)
      end
    end
    return E.Variant_new("VariantMap", E.VariantMap_new(values))
  end
  local conv = E.VARIANT_FROM_TEXT[type_name]
  if conv == nil then return E.Variant_new("None", nil) end
  return E.Variant_new(type_name, conv(text))
end
M.SetVariant = function(self, v)
  local n = jnode(self)
  if n.t ~= NULL then E.log("WARNING", "JsonValue is not null") end
  object_set(n, "type", new_node(STRING, NT_NAN, v.type_))
  object_set(n, "value", E.json_variant_node(v))
end
M.GetVariant = function(self)
  local n = jnode(self)
  local t = object_get(n, "type")
  return E.json_variant_of(object_get(n, "value") or new_node(), t and t.t == STRING and t.v or "None")
end
M.SetVariantMap = function(self, map)
  local n = jnode(self)
  set_type(n, OBJECT)
  local v = E.json_variant_node(E.Variant_new("VariantMap", map))
  for _, k in ipairs(v.v.keys) do object_set(n, k, v.v.map[k]) end
end
M.GetVariantMap = function(self)
  local n = jnode(self)
  if n.t ~= OBJECT then
    E.log("ERROR", "JSONValue is not a object")
    return E.VariantMap_new()
  end
  return E.json_variant_of(n, "VariantMap").value_
end

----------------------------------------------------------------------------------------------------
-- JSONFile
----------------------------------------------------------------------------------------------------
local JF = class("JSONFile")
local JFM = JF.methods
E.resource_init("JSONFile", function(r) r.root = new_node() end)
E.resource_loader("JSONFile", function(r, data, name)
  if data == "" then return false, "Zero sized JSON data in " .. name end
  local node, err = E.json_parse(data)
  if node == nil then return false, "Could not parse JSON data from " .. name .. ": " .. err end
  r.root = node
  return true
end)
local function jfile(self)
  local r = REC[self]
  if r == nil or r.kind ~= "resource" or r.root == nil then
    E.raise_at_game("invalid 'self' in call to JSONFile method")
  end
  return r
end
JF.new = function() return E.make_resource("JSONFile", "", nil) end
JFM.FromString = function(self, source)
  local r = jfile(self)
  if type(source) ~= "string" or source == "" then return false end
  local node, err = E.json_parse(source)
  if node == nil then
    E.log("ERROR", "Could not parse JSON data from string: " .. err)
    return false
  end
  r.root = node
  return true
end
JFM.GetRoot = function(self) return value_of(jfile(self).root) end
JFM.ToString = function(self, indentation) return E.json_write(jfile(self).root, indentation) end
JFM.Save = function(self, file_name, indentation)
  local r = jfile(self)
  if type(file_name) ~= "string" and file_name ~= nil then   -- a File or a VectorBuffer: Resource:Save writes it
    return IMPL.Resource.methods.Save(self, file_name)
  end
  if type(file_name) ~= "string" or file_name == "" then return false end
  E.fs_write(E.clean_path(file_name), E.json_write(r.root, indentation))
  return true
end
-- The root node of a JSONFile resource.
function E.json_root(file)
  local r = REC[file]
  return r and r.root
end
