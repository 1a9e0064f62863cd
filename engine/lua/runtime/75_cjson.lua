-- cjson: the JSON module UrhoX ships (require "cjson" and the global cjson).  Objects are encoded with
-- sorted keys, so output never depends on table layout.
local error, type, tostring, pairs, ipairs, select, setmetatable = error, type, tostring, pairs, ipairs, select,
  setmetatable
local sformat, sbyte, schar, ssub, sfind, sgsub, tconcat, tsort, mtype, mhuge, mfloor =
  string.format, string.byte, string.char, string.sub, string.find, string.gsub, table.concat, table.sort,
  math.type, math.huge, math.floor
local utf8char = utf8.char

-- shared by every cjson table and the platform fakes: its metatable is locked like every engine object's
local null = setmetatable({}, {__tostring = function() return "null" end, __metatable = false})
local ESC = {['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n", ["\r"] = "\\r",
  ["\t"] = "\\t", ["/"] = "\\/"}
local function escape(s)
  return '"' .. sgsub(s, '[%c"\\/]', function(c) return ESC[c] or sformat("\\u%04x", sbyte(c)) end) .. '"'
end

local function is_array(t)
  local n = 0
  for k in pairs(t) do
    if mtype(k) ~= "integer" or k < 1 then return false end
    if k > n then n = k end
  end
  return n
end

-- Values one encode may visit: a table that holds the same subtable twice is encoded once per reference (as
-- lua-cjson does), so a few nested tables can stand for 2^300 values, all of it engine work the instruction budget
-- never sees.  Real save data is far smaller.
local MAX_ENCODE_VALUES = 1000000
local MAX_DECODE_DEPTH = 1000   -- lua-cjson's default decode_max_depth
local encoded = 0
local encode
function encode(v, depth)
  encoded = encoded + 1
  if encoded > MAX_ENCODE_VALUES then
    error(sformat("Cannot serialise, more than %d values (a subtable referenced many times is encoded each time)",
      MAX_ENCODE_VALUES), 0)
  end
  local t = type(v)
  if v == nil or v == null then return "null" end
  if t == "boolean" then return v and "true" or "false" end
  if t == "number" then
    if v ~= v or v == mhuge or v == -mhuge then error("Cannot serialise number: must not be NaN or Infinity", 0) end
    if mtype(v) == "integer" then return tostring(v) end
    if v == mfloor(v) and v > -1e15 and v < 1e15 then return sformat("%d", v) end
    return sformat("%.14g", v)
  end
  if t == "string" then return escape(v) end
  if t == "table" then
    if depth > 1000 then error("Cannot serialise, excessive nesting (1001)", 0) end
    local n = is_array(v)
    local out = {}
    if n and (n > 0 or next(v) == nil) then
      for i = 1, n do out[i] = encode(v[i], depth + 1) end
      return "[" .. tconcat(out, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do
      local kt = type(k)
      if kt ~= "string" and kt ~= "number" then error("Cannot serialise table: table key must be a number or string", 0) end
      keys[#keys + 1] = k
    end
    tsort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for i, k in ipairs(keys) do out[i] = escape(tostring(k)) .. ":" .. encode(v[k], depth + 1) end
    return "{" .. tconcat(out, ",") .. "}"
  end
  error("Cannot serialise " .. t .. ": type not supported", 0)
end

local function decode(s)
  if type(s) ~= "string" then error("bad argument #1 to 'decode' (string expected)", 2) end
  local pos, depth = 1, 0
  local function fail(msg) error(sformat("Expected %s but found invalid token at character %d", msg, pos), 0) end
  local function skip() pos = sfind(s, "[^ \t\r\n]", pos) or #s + 1 end
  local value
  local function str()
    pos = pos + 1
    local parts = {}
    while true do
      local c = ssub(s, pos, pos)
      if c == "" then fail("string end") end
      if c == '"' then pos = pos + 1; break end
      if c == "\\" then
        local e = ssub(s, pos + 1, pos + 1)
        local map = {b = "\b", f = "\f", n = "\n", r = "\r", t = "\t", ['"'] = '"', ["\\"] = "\\", ["/"] = "/"}
        if e == "u" then
          local hex = ssub(s, pos + 2, pos + 5)
          local cp = tonumber(hex, 16)
          if not cp then fail("unicode escape") end
          pos = pos + 6
          if cp >= 0xD800 and cp <= 0xDBFF and ssub(s, pos, pos + 1) == "\\u" then
            local lo = tonumber(ssub(s, pos + 2, pos + 5), 16)
            if lo and lo >= 0xDC00 and lo <= 0xDFFF then
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
              pos = pos + 6
            end
          end
          parts[#parts + 1] = utf8char(cp)
        elseif map[e] then
          parts[#parts + 1] = map[e]
          pos = pos + 2
        else
          fail("escape")
        end
      else
        local stop = sfind(s, '["\\]', pos) or #s + 1
        parts[#parts + 1] = ssub(s, pos, stop - 1)
        pos = stop
      end
    end
    return tconcat(parts)
  end
  local function nest()
    depth = depth + 1
    if depth > MAX_DECODE_DEPTH then
      error(sformat("Found too many nested data structures (%d) at character %d", depth, pos), 0)
    end
  end
  function value()
    skip()
    local c = ssub(s, pos, pos)
    if c == "{" then
      nest()
      pos = pos + 1
      local obj = {}
      skip()
      if ssub(s, pos, pos) == "}" then pos = pos + 1; depth = depth - 1; return obj end
      while true do
        skip()
        if ssub(s, pos, pos) ~= '"' then fail("object key string") end
        local k = str()
        skip()
        if ssub(s, pos, pos) ~= ":" then fail("colon") end
        pos = pos + 1
        obj[k] = value()
        skip()
        local d = ssub(s, pos, pos)
        pos = pos + 1
        if d == "}" then depth = depth - 1; return obj end
        if d ~= "," then fail("comma or object end") end
      end
    elseif c == "[" then
      nest()
      pos = pos + 1
      local arr = {}
      skip()
      if ssub(s, pos, pos) == "]" then pos = pos + 1; depth = depth - 1; return arr end
      while true do
        arr[#arr + 1] = value()
        skip()
        local d = ssub(s, pos, pos)
        pos = pos + 1
        if d == "]" then depth = depth - 1; return arr end
        if d ~= "," then fail("comma or array end") end
      end
    elseif c == '"' then
      return str()
    elseif ssub(s, pos, pos + 3) == "true" then pos = pos + 4; return true
    elseif ssub(s, pos, pos + 4) == "false" then pos = pos + 5; return false
    elseif ssub(s, pos, pos + 3) == "null" then pos = pos + 4; return null
    else
      local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
      if not num or num == "" then fail("value") end
      pos = pos + #num
      return math.tointeger(tonumber(num)) or tonumber(num)
    end
  end
  local result = value()
  skip()
  if pos <= #s then fail("the end") end
  return result
end

-- One count per outermost encode: a metamethod that encodes again while a table is encoded joins the count.
local active = 0
local function encode_value(v)
  if active == 0 then encoded = 0 end
  active = active + 1
  local ok, res = pcall(encode, v, 0)
  active = active - 1
  if not ok then error(res, 0) end
  return res
end

local function make_cjson()
  return {encode = encode_value, decode = decode, null = null,
    encode_sparse_array = function() end, encode_max_depth = function() end, decode_max_depth = function() end,
    encode_number_precision = function() end, encode_keep_buffer = function() end,
    encode_invalid_numbers = function() end, decode_invalid_numbers = function() end,
    new = make_cjson, _NAME = "cjson", _VERSION = "2.1.0"}
end
E.cjson_encode, E.cjson_decode, E.cjson_null = encode_value, decode, null
E.BUILTIN_MODULES.cjson = function() return make_cjson() end
E.BUILTIN_MODULES["cjson.safe"] = function() return make_cjson() end
E.EXTRA_GLOBALS = E.EXTRA_GLOBALS or {}
E.EXTRA_GLOBALS.cjson = make_cjson
