-- XMLFile and XMLElement (Urho3D's Resource/XMLFile.h, XMLElement.h, a pugixml document underneath), and the text
-- conversions Urho3D's StringUtils and String constructors make, shared by the scene files (68_scene_files.lua).
--
-- The document is a tree of element nodes {name, attrs, attr_order, children, texts, parent}: `attrs` by name,
-- `attr_order` their order, `children` the child elements, `texts` the element's text runs (pugixml's PCDATA and
-- CDATA children; GetValue reads the first).  The UI's style and layout loader (83_ui_style.lua) walks the same
-- tree.  Comments, processing instructions and the declaration are dropped, as pugixml's default parse drops them;
-- text that is only whitespace is dropped as well, as its default keeps no whitespace-only PCDATA.
local error, type, tostring, tonumber, ipairs, setmetatable = error, type, tostring, tonumber, ipairs, setmetatable
local sfind, ssub, smatch, sgsub, slower, supper, sformat, sbyte = string.find, string.sub, string.match,
  string.gsub, string.lower, string.upper, string.format, string.byte
local tconcat, tremove, tinsert, mtointeger, mfloor = table.concat, table.remove, table.insert, math.tointeger,
  math.floor
local REC = E.REC
local MAX_XML_DEPTH = 256

----------------------------------------------------------------------------------------------------
-- Text to values and back, as Urho3D converts them (Core/StringUtils.cpp; String(float) prints "%g")
----------------------------------------------------------------------------------------------------
local T = {}
E.urho_text = T

-- C's strtod on `s` from `pos`: the number and the position after it (pos itself when there is none).
local function strtod(s, pos)
  local start = smatch(s, "^[ \t\n\r\f\v]*()", pos)
  local num, after = smatch(s, "^([+-]?%d*%.?%d*)()", start)
  if num == nil or not sfind(num, "%d") then
    local special, after2 = smatch(s, "^([+-]?[IiNn][NnAa][FfNn])()", start)
    if special then
      local l = slower(special)
      local v = (sfind(l, "nan") and (0.0 / 0.0)) or (sfind(l, "^%-") and -math.huge or math.huge)
      return v, after2
    end
    return 0.0, pos
  end
  local exp, after3 = smatch(s, "^([eE][+-]?%d+)()", after)
  if exp then num, after = num .. exp, after3 end
  return (tonumber(num) or 0.0) + 0.0, after
end
T.strtod = strtod

-- CountElements(source, ' '): the runs of non-separator characters.
local function count_elements(s)
  local n = 0
  for _ in s:gmatch("[^ ]+") do n = n + 1 end
  return n
end
local function floats(s, n)
  local out, pos = {}, 1
  for i = 1, n do out[i], pos = strtod(s, pos) end
  return out
end

function T.bool(s)
  s = tostring(s or "")
  for i = 1, #s do
    local c = slower(ssub(s, i, i))
    if c == "t" or c == "y" or c == "1" then return true end
    if c ~= " " and c ~= "\t" then break end
  end
  return false
end
-- strtol / strtoul, base 10 (Urho3D's ToInt and ToUInt), truncated to 32 bits as the casts do
local function strtol(s)
  local num = smatch(tostring(s or ""), "^[ \t\n\r\f\v]*([+-]?%d+)")
  if num == nil then return 0 end
  return mtointeger(tonumber(num)) or (sfind(num, "^%-") and math.mininteger or math.maxinteger)
end
function T.int(s)
  local v = strtol(s)
  if v > 2147483647 then v = 2147483647 elseif v < -2147483648 then v = -2147483648 end
  return v
end
function T.uint(s)
  local v = strtol(s)
  if v > 4294967295 or v < -4294967295 then return 4294967295 end
  return v & 0xffffffff
end
function T.int64(s) return strtol(s) end
function T.float(s) return (strtod(tostring(s or ""), 1)) end
T.double = T.float

local function vec(n, make, default, allow_fewer)
  return function(s)
    s = tostring(s or "")
    local count = count_elements(s)
    if count < n and not allow_fewer then return default() end
    local f = floats(s, n)
    return make(f)
  end
end
T.vector2 = vec(2, function(f) return E.Vector2_new(f[1], f[2]) end, function() return E.Vector2_new(0, 0) end)
T.vector3 = vec(3, function(f) return E.Vector3_new(f[1], f[2], f[3]) end, function() return E.Vector3_new(0, 0, 0) end)
T.vector4 = vec(4, function(f) return E.Vector4_new(f[1], f[2], f[3], f[4]) end,
  function() return E.Vector4_new(0, 0, 0, 0) end)
T.rect = vec(4, function(f) return E.Rect_new(f[1], f[2], f[3], f[4]) end, function() return E.Rect_new(0, 0, 0, 0) end)
local function ints(n, make, default)
  return function(s)
    s = tostring(s or "")
    if count_elements(s) < n then return default() end
    local out, rest = {}, s
    for i = 1, n do
      local num, after = smatch(rest, "^[ \t\n\r\f\v]*([+-]?%d*)()")
      out[i] = T.int(num)
      rest = ssub(rest, after)
    end
    return make(out)
  end
end
T.intvector2 = ints(2, function(v) return E.IntVector2_new(v[1], v[2]) end,
  function() return E.IntVector2_new(0, 0) end)
T.intvector3 = ints(3, function(v) return E.IntVector3_new(v[1], v[2], v[3]) end,
  function() return E.IntVector3_new(0, 0, 0) end)
T.intrect = ints(4, function(v) return E.IntRect_new(v[1], v[2], v[3], v[4]) end,
  function() return E.IntRect_new(0, 0, 0, 0) end)
function T.color(s)
  s = tostring(s or "")
  local n = count_elements(s)
  if n < 3 then return E.Color_new(1, 1, 1, 1) end
  local f = floats(s, n > 3 and 4 or 3)
  return E.Color_new(f[1], f[2], f[3], f[4] or 1.0)
end
function T.quaternion(s)
  s = tostring(s or "")
  local n = count_elements(s)
  if n < 3 then return E.Quaternion_new(1, 0, 0, 0) end
  if n < 4 then
    local f = floats(s, 3)
    return IMPL.Quaternion.new(f[1], f[2], f[3])   -- Euler angles in degrees
  end
  local f = floats(s, 4)
  return E.Quaternion_new(f[1], f[2], f[3], f[4])
end
local function matrix(n, ctor, identity)
  return function(s)
    s = tostring(s or "")
    if count_elements(s) < n then return identity() end
    local f = floats(s, n)
    return ctor(table.unpack(f, 1, n))
  end
end
T.matrix3 = matrix(9, E.Matrix3_new, function() return E.Matrix3_new() end)
T.matrix3x4 = matrix(12, E.Matrix3x4_new, function() return E.Matrix3x4_new() end)
T.matrix4 = matrix(16, E.Matrix4_new, function() return E.Matrix4_new() end)

-- C's strtol / strtoul in another base (2 to 36, or 0: decimal, octal after "0", hex after "0x"); the value
-- clamped to `lo`..`hi` as strtol clamps (strtoul negates a negative value modulo 2^64)
local function strtol_base(s, base, lo, hi)
  s = tostring(s or "")
  local sign, rest = smatch(s, "^[ \t\n\r\f\v]*([+-]?)(.*)$")
  if (base == 0 or base == 16) and smatch(rest, "^0[xX]%x") then
    rest, base = ssub(rest, 3), 16
  elseif base == 0 then
    base = smatch(rest, "^0") and 8 or 10
  end
  if base < 2 or base > 36 then return 0 end
  local v, overflow = 0, false
  for i = 1, #rest do
    local d = tonumber(ssub(rest, i, i), 36)
    if d == nil or d >= base then break end
    if v > (math.maxinteger - d) // base then overflow = true; break end
    v = v * base + d
  end
  if sign == "-" then v = -v end
  if overflow then return sign == "-" and lo or hi end
  if v > hi then return hi elseif v < lo then return lo end
  return v
end
local function int_parser(parse10, lo, hi)
  return function(source, base)
    base = mtointeger(base) or 10
    if base == 10 then return parse10(source) end
    return strtol_base(source, base, lo, hi)
  end
end
-- Urho3D's global string conversions (Core/StringUtils): what its XML readers use, for the game
FUNCTIONS.ToBool = function(source) return T.bool(source) end
FUNCTIONS.ToFloat = function(source) return E.MATH.f32(T.float(source)) end
FUNCTIONS.ToInt = int_parser(T.int, -2147483648, 2147483647)
FUNCTIONS.ToUInt = int_parser(T.uint, 0, 4294967295)
FUNCTIONS.ToInt64 = int_parser(T.int64, math.mininteger, math.maxinteger)
FUNCTIONS.ToUInt64 = int_parser(T.int64, math.mininteger, math.maxinteger)
FUNCTIONS.ToVector2 = function(source) return T.vector2(source) end
FUNCTIONS.ToVector3 = function(source) return T.vector3(source) end
local vector4_missing_zero = vec(4, function(f) return E.Vector4_new(f[1], f[2], f[3], f[4]) end, nil, true)
FUNCTIONS.ToVector4 = function(source, allow_missing)
  if allow_missing then return vector4_missing_zero(source) end
  return T.vector4(source)
end
FUNCTIONS.ToRect = function(source) return T.rect(source) end
FUNCTIONS.ToIntRect = function(source) return T.intrect(source) end
FUNCTIONS.ToIntVector2 = function(source) return T.intvector2(source) end
FUNCTIONS.ToIntVector3 = function(source) return T.intvector3(source) end
FUNCTIONS.ToColor = function(source) return T.color(source) end
FUNCTIONS.ToQuaternion = function(source) return T.quaternion(source) end
FUNCTIONS.ToMatrix3 = function(source) return T.matrix3(source) end
FUNCTIONS.ToMatrix3x4 = function(source) return T.matrix3x4(source) end
FUNCTIONS.ToMatrix4 = function(source) return T.matrix4(source) end

-- Values to text, as Urho3D's String constructors and ToString methods print them.
local function g(x) return sformat("%g", x) end
local function gs(...)
  local out = {}
  for i, v in ipairs({...}) do out[i] = g(v) end
  return tconcat(out, " ")
end
-- A number as an integer the way a C cast truncates it (NaN 0, beyond 64 bits the nearest end).
local function to_integer(v)
  v = tonumber(v) or 0
  if mtointeger(v) then return mtointeger(v) end
  if v ~= v then return 0 end
  if v >= 9.2233720368547758e18 then return math.maxinteger end
  if v <= -9.2233720368547758e18 then return math.mininteger end
  return mtointeger(v >= 0 and mfloor(v) or -mfloor(-v))
end
T.to_integer = to_integer
local S = {}
E.urho_string = S
S.bool = function(v) return v and "true" or "false" end
S.int = function(v) return sformat("%d", to_integer(v)) end
S.float = function(v) return g(tonumber(v) or 0) end
S.double = function(v) return sformat("%.15g", tonumber(v) or 0) end
S.vector2 = function(v) return gs(v.x, v.y) end
S.vector3 = function(v) return gs(v.x, v.y, v.z) end
S.vector4 = function(v) return gs(v.x, v.y, v.z, v.w) end
S.quaternion = function(v) return gs(v.w, v.x, v.y, v.z) end
S.color = function(v) return gs(v.r, v.g, v.b, v.a) end
S.rect = function(v) return gs(v.min.x, v.min.y, v.max.x, v.max.y) end
S.intvector2 = function(v) return sformat("%d %d", v.x, v.y) end
S.intvector3 = function(v) return sformat("%d %d %d", v.x, v.y, v.z) end
S.intrect = function(v) return sformat("%d %d %d %d", v.left, v.top, v.right, v.bottom) end
local function fields(names)
  return function(m)
    local out = {}
    for i, k in ipairs(names) do out[i] = g(m[k]) end
    return tconcat(out, " ")
  end
end
S.matrix3 = fields({"m00", "m01", "m02", "m10", "m11", "m12", "m20", "m21", "m22"})
S.matrix3x4 = fields({"m00", "m01", "m02", "m03", "m10", "m11", "m12", "m13", "m20", "m21", "m22", "m23"})
S.matrix4 = fields({"m00", "m01", "m02", "m03", "m10", "m11", "m12", "m13", "m20", "m21", "m22", "m23", "m30", "m31",
  "m32", "m33"})

-- ResourceRef / ResourceRefList: a resource type (a StringHash that keeps its name) and name(s).
local RR, RRL = class("ResourceRef"), class("ResourceRefList")
local function type_hash(t)
  if E.is(t, "StringHash") then return E.StringHash_new(t.name_ or ""), t end
  if t == nil then return E.StringHash_new("") end
  return E.StringHash_new(tostring(t))
end
function E.ResourceRef_new(t, name)
  return setmetatable({type = type_hash(t), name = tostring(name or "")}, RR.mt)
end
RR.new = function(a, b)
  if E.is(a, "ResourceRef") then return E.ResourceRef_new(a.type, a.name) end
  return E.ResourceRef_new(a, b)
end
RR.ops.eq = function(a, b) return a.type.value_ == b.type.value_ and a.name == b.name end
RRL.new = function(t) return setmetatable({type = type_hash(t), names = {}}, RRL.mt) end
RRL.ops.eq = function(a, b)
  if a.type.value_ ~= b.type.value_ or #a.names ~= #b.names then return false end
  for i, n in ipairs(a.names) do if b.names[i] ~= n then return false end end
  return true
end
-- "Type;Name", as Urho3D writes a resource reference (the type by its name when the hash has one).
function E.resource_ref_text(ref)
  local t = ref and ref.type
  local tn = E.is(t, "StringHash") and (t.name_ or sformat("%08X", t.value_)) or tostring(t or "")
  return tn .. ";" .. tostring(ref and ref.name or "")
end

----------------------------------------------------------------------------------------------------
-- The reader
----------------------------------------------------------------------------------------------------
local ENTITIES = {lt = "<", gt = ">", amp = "&", quot = "\"", apos = "'"}
local function decode(s)
  if not sfind(s, "&", 1, true) then return s end
  return (sgsub(s, "&(#?)([xX]?)(%w+);", function(num, hex, body)
    if num == "" then return ENTITIES[body] or ("&" .. body .. ";") end
    local code = tonumber(body, hex ~= "" and 16 or 10)
    if code == nil or code < 0 or code > 0x10FFFF then return "" end
    return utf8.char(code)
  end))
end
local function new_element(name, parent)
  return {name = name, attrs = {}, attr_order = {}, children = {}, parent = parent}
end
E.xml_new_element = new_element
local function add_text(node, text)
  if node.texts == nil then node.texts = {} end
  node.texts[#node.texts + 1] = text
end

-- Parse `src` into a document node whose children are the top-level elements; nil and a message when malformed.
function E.xml_parse_document(src)
  if type(src) ~= "string" then return nil, "no XML data" end
  if ssub(src, 1, 3) == "\239\187\191" then src = ssub(src, 4) end
  src = sgsub(src, "\r\n?", "\n")
  local doc = new_element("#document", nil)
  local stack = {doc}
  local pos = 1
  while true do
    local s = sfind(src, "<", pos, true)
    local cur = stack[#stack]
    if #stack > 1 then
      local text = ssub(src, pos, (s or #src + 1) - 1)
      if sfind(text, "[^ \t\n]") then add_text(cur, decode(text)) end
    end
    if s == nil then break end
    if ssub(src, s, s + 3) == "<!--" then
      local e = sfind(src, "-->", s + 4, true)
      if e == nil then return nil, "unterminated comment" end
      pos = e + 3
    elseif ssub(src, s, s + 8) == "<![CDATA[" then
      local e = sfind(src, "]]>", s + 9, true)
      if e == nil then return nil, "unterminated CDATA section" end
      if #stack > 1 then add_text(cur, ssub(src, s + 9, e - 1)) end
      pos = e + 3
    elseif ssub(src, s, s + 1) == "<?" then
      local e = sfind(src, "?>", s + 2, true)
      if e == nil then return nil, "unterminated processing instruction" end
      pos = e + 2
    elseif ssub(src, s, s + 1) == "<!" then
      local e = sfind(src, ">", s + 2, true)
      if e == nil then return nil, "unterminated declaration" end
      pos = e + 1
    elseif ssub(src, s, s + 1) == "</" then
      local name, after = smatch(src, "^</%s*([%w_:%.%-]+)%s*>()", s)
      if name == nil then return nil, "malformed end tag" end
      if #stack == 1 or cur.name ~= name then return nil, "mismatched end tag </" .. name .. ">" end
      stack[#stack] = nil
      pos = after
    else
      local name, p = smatch(src, "^<([%w_:%.%-]+)()", s)
      if name == nil then return nil, "malformed tag" end
      local node = new_element(name, cur)
      local open
      while true do
        p = smatch(src, "^%s*()", p)
        if ssub(src, p, p + 1) == "/>" then open, p = false, p + 2; break end
        if ssub(src, p, p) == ">" then open, p = true, p + 1; break end
        local an, _, av, after = smatch(src, "^([%w_:%.%-]+)%s*=%s*(['\"])(.-)%2()", p)
        if an == nil then return nil, "malformed attribute in <" .. name .. ">" end
        if node.attrs[an] == nil then node.attr_order[#node.attr_order + 1] = an end
        node.attrs[an] = decode(sgsub(av, "[\t\n]", " "))   -- pugixml's parse_wconv_attribute
        p = after
      end
      cur.children[#cur.children + 1] = node
      if open then
        if #stack > MAX_XML_DEPTH then return nil, "XML nested deeper than " .. MAX_XML_DEPTH .. " levels" end
        stack[#stack + 1] = node
      end
      pos = p
    end
  end
  if #stack ~= 1 then return nil, "unclosed element <" .. stack[#stack].name .. ">" end
  return doc
end
-- The root element of `src`, or nil and a message.
function E.xml_parse(src)
  local doc, err = E.xml_parse_document(src)
  if doc == nil then return nil, err end
  if doc.children[1] == nil then return nil, "no root element" end
  return doc.children[1]
end

----------------------------------------------------------------------------------------------------
-- The writer (pugixml's save with format_indent: a declaration, one element per line, " />" for empty ones)
----------------------------------------------------------------------------------------------------
local ATTR_ESC = {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ["\""] = "&quot;"}
local TEXT_ESC = {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;"}
local function escape(s, map)
  return (sgsub(s, "[&<>\"%c]", function(c)
    if map[c] then return map[c] end
    if c == "\n" or c == "\t" then return map == TEXT_ESC and c or sformat("&#%d;", sbyte(c)) end
    return sformat("&#%d;", sbyte(c))
  end))
end
local function attr_names(node)
  local order = node.attr_order
  if order and #order > 0 then return order end
  return E.sorted_keys(node.attrs)   -- built in code without an order (the UI's stock style)
end
local function write_node(out, node, indent, depth)
  local pad = string.rep(indent, depth)
  local parts = {pad, "<", node.name}
  for _, k in ipairs(attr_names(node)) do
    local v = node.attrs[k]
    if v ~= nil then parts[#parts + 1] = sformat(" %s=\"%s\"", k, escape(v, ATTR_ESC)) end
  end
  local texts = node.texts or {}
  if #node.children == 0 and #texts == 0 then
    parts[#parts + 1] = " />"
    out[#out + 1] = tconcat(parts)
    return
  end
  parts[#parts + 1] = ">"
  if #node.children == 0 then
    for _, t in ipairs(texts) do parts[#parts + 1] = escape(t, TEXT_ESC) end
    parts[#parts + 1] = "</" .. node.name .. ">"
    out[#out + 1] = tconcat(parts)
    return
  end
  out[#out + 1] = tconcat(parts)
  for _, t in ipairs(texts) do out[#out + 1] = string.rep(indent, depth + 1) .. escape(t, TEXT_ESC) end
  for _, c in ipairs(node.children) do write_node(out, c, indent, depth + 1) end
  out[#out + 1] = pad .. "</" .. node.name .. ">"
end
-- The document `doc` (a "#document" node) as text.
function E.xml_write(doc, indentation)
  local out = {"<?xml version=\"1.0\"?>"}
  for _, c in ipairs(doc.children) do write_node(out, c, indentation or "\t", 0) end
  return tconcat(out, "\n") .. "\n"
end

----------------------------------------------------------------------------------------------------
-- XMLFile
----------------------------------------------------------------------------------------------------
local XF = class("XMLFile")
local XFM = XF.methods
local function xfile(self)
  local r = REC[self]
  if r == nil or r.kind ~= "resource" or r.doc == nil then
    E.raise_at_game("invalid 'self' in call to XMLFile method")
  end
  return r
end
-- Loading an XMLFile resource: the game's file or a stock file's content (60_resources.lua).
E.resource_loader("XMLFile", function(r, data, name)
  if data == "" then return false, "Zero sized XML data in " .. name end
  local doc, err = E.xml_parse_document(data)
  if doc == nil then return false, "Could not parse XML data from " .. name .. ": " .. err end
  r.doc = doc
  return true
end)
-- Stock XML files whose content the engine has as a Lua table (the UI's default style): name -> document maker.
E.STOCK_XML_DOCUMENTS = {}
E.resource_init("XMLFile", function(r)
  local make = E.STOCK_XML_DOCUMENTS[r.name]
  r.doc = make and make() or new_element("#document", nil)
  -- a stock file of Urho3D's that the engine lists but has no content for: its root is empty
  r.no_content = make == nil and E.host.resources[r.name] ~= nil and E.stock_content(r.name) == nil
end)
XF.new = function() return E.make_resource("XMLFile", "", nil) end
-- An element node's first child element named `name` (nil when none), and all of them in document order: what the
-- engine's own readers of XML resources walk (particle effects, Spriter sets, render paths).
function E.xml_child(node, name)
  for _, c in ipairs(node.children) do if c.name == name then return c end end
  return nil
end
function E.xml_children(node, name)
  local out = {}
  for _, c in ipairs(node.children) do if c.name == name then out[#out + 1] = c end end
  return out
end

-- The parsed root of an XMLFile resource (nil for a stock file whose content the engine does not ship).
function E.xml_root(file)
  local r = REC[file]
  local doc = r and r.doc
  return doc and doc.children[1]
end

local XE = class("XMLElement")
local xe_mt = XE.mt
local function element(file, node)
  local proxy = setmetatable({}, xe_mt)
  REC[proxy] = {kind = "xmlelement", file = file, node = node}
  return proxy
end
E.xml_element = element
local function empty() return element(nil, nil) end
local function xrec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "xmlelement" then
    E.raise_at_game("invalid 'self' in call to XMLElement method")
  end
  return r
end
-- The node behind an XMLElement (nil for a null element).
function E.xml_node(el)
  local r = REC[el]
  return r and r.kind == "xmlelement" and r.node or nil
end

XFM.FromString = function(self, source)
  local r = xfile(self)
  if type(source) ~= "string" or source == "" then return false end
  local doc, err = E.xml_parse_document(source)
  if doc == nil then
    E.log("ERROR", "Could not parse XML data from string: " .. err)
    return false
  end
  r.doc = doc
  return true
end
XFM.GetRoot = function(self, name)
  local r = xfile(self)
  local root = r.doc.children[1]
  if root == nil and r.no_content and not r.warned then
    r.warned = true
    E.log("WARNING", "XMLFile " .. r.name .. ": the content of Urho3D's stock file is not available headless " ..
      "(only its name is known); its root is empty")
  end
  if root == nil or (name ~= nil and name ~= "" and root.name ~= name) then return empty() end
  return element(self, root)
end
XFM.CreateRoot = function(self, name)
  local r = xfile(self)
  r.doc = new_element("#document", nil)
  local root = new_element(tostring(name or ""), r.doc)
  r.doc.children[1] = root
  return element(self, root)
end
XFM.GetOrCreateRoot = function(self, name)
  local r = xfile(self)
  local root = r.doc.children[1]
  if root ~= nil and (name == nil or name == "" or root.name == name) then return element(self, root) end
  if root ~= nil then
    E.log("WARNING", "XMLFile already has root " .. root.name .. ", deleting it and creating root " .. tostring(name))
  end
  return XFM.CreateRoot(self, name)
end
XFM.ToString = function(self, indentation)
  return E.xml_write(xfile(self).doc, indentation == nil and "\t" or tostring(indentation))
end
XFM.Save = function(self, file_name, indentation)
  local r = xfile(self)
  if type(file_name) ~= "string" and file_name ~= nil then   -- a File or a VectorBuffer: Resource:Save writes it
    return IMPL.Resource.methods.Save(self, file_name)
  end
  if type(file_name) ~= "string" or file_name == "" then return false end
  E.fs_write(E.clean_path(file_name), E.xml_write(r.doc, indentation == nil and "\t" or tostring(indentation)))
  return true
end

----------------------------------------------------------------------------------------------------
-- XMLElement
----------------------------------------------------------------------------------------------------
local M = XE.methods
XE.statics.EMPTY = empty
local function node_of(self) return xrec(self).node end
local function child_elements(node, name)
  local out = {}
  for _, c in ipairs(node.children) do
    if name == nil or name == "" or c.name == name then out[#out + 1] = c end
  end
  return out
end
local function index_in_parent(node)
  local p = node.parent
  if p == nil then return nil end
  for i, c in ipairs(p.children) do if c == node then return i end end
  return nil
end
local function copy_node(node, parent)
  local n = new_element(node.name, parent)
  for i, k in ipairs(node.attr_order) do n.attr_order[i] = k end
  for k, v in pairs(node.attrs) do n.attrs[k] = v end
  if node.texts then n.texts = {table.unpack(node.texts)} end
  for i, c in ipairs(node.children) do n.children[i] = copy_node(c, n) end
  return n
end
local function detach(node)
  local i = index_in_parent(node)
  if i then tremove(node.parent.children, i) end
  node.parent = nil
end

M.IsNull = function(self) return node_of(self) == nil end
M.NotNull = function(self) return node_of(self) ~= nil end
M.GetName = function(self) local n = node_of(self); return n and n.name or "" end
M.GetFile = function(self) return xrec(self).file end
M.HasChild = function(self, name)
  local n = node_of(self)
  return n ~= nil and #child_elements(n, tostring(name or "")) > 0 and name ~= nil and name ~= ""
end
M.GetChild = function(self, name)
  local r = xrec(self)
  if r.node == nil then return empty() end
  local c = child_elements(r.node, name)[1]
  return c and element(r.file, c) or empty()
end
M.GetNext = function(self, name)
  local r = xrec(self)
  local n = r.node
  if n == nil or n.parent == nil then return empty() end
  local i = index_in_parent(n)
  local sibs = n.parent.children
  for j = i + 1, #sibs do
    if name == nil or name == "" or sibs[j].name == name then return element(r.file, sibs[j]) end
  end
  return empty()
end
M.GetParent = function(self)
  local r = xrec(self)
  local p = r.node and r.node.parent
  if p == nil or p.name == "#document" then return empty() end
  return element(r.file, p)
end
M.GetNumAttributes = function(self)
  local n = node_of(self)
  if n == nil then return 0 end
  local count = 0
  for _ in pairs(n.attrs) do count = count + 1 end
  return count
end
M.HasAttribute = function(self, name) local n = node_of(self); return n ~= nil and n.attrs[tostring(name)] ~= nil end
M.GetValue = function(self)
  local n = node_of(self)
  return n and n.texts and n.texts[1] or ""
end
local function attr(self, name)
  local n = node_of(self)
  if n == nil or name == nil then return "" end
  return n.attrs[tostring(name)] or ""
end
E.xml_attr = function(node, name) return node and node.attrs[name] or "" end
M.GetAttribute = function(self, name) return attr(self, name) end
M.GetAttributeLower = function(self, name) return slower(attr(self, name)) end
M.GetAttributeUpper = function(self, name) return supper(attr(self, name)) end
M.GetAttributeNames = function(self)
  local n = node_of(self)
  local out = {}
  if n == nil then return out end
  for _, k in ipairs(attr_names(n)) do if n.attrs[k] ~= nil then out[#out + 1] = k end end
  return out
end
local function getter(conv) return function(self, name) return conv(attr(self, name)) end end
M.GetBool = getter(T.bool)
M.GetInt = getter(T.int)
M.GetUInt = getter(T.uint)
M.GetInt64 = getter(T.int64)
M.GetUInt64 = getter(T.int64)
M.GetFloat = getter(T.float)
M.GetDouble = getter(T.double)
M.GetColor = getter(T.color)
M.GetIntRect = getter(T.intrect)
M.GetIntVector2 = getter(T.intvector2)
M.GetIntVector3 = getter(T.intvector3)
M.GetRect = getter(T.rect)
M.GetQuaternion = getter(T.quaternion)
M.GetVector2 = getter(T.vector2)
M.GetVector3 = getter(T.vector3)
M.GetVector4 = getter(T.vector4)
M.GetVector = function(self, name)   -- ToVector4(source, allowMissingCoords): missing coordinates are 0
  local s = attr(self, name)
  local f = floats(s, 4)
  local n = count_elements(s)
  for i = n + 1, 4 do f[i] = 0.0 end
  return E.Vector4_new(f[1], f[2], f[3], f[4])
end
M.GetMatrix3 = getter(T.matrix3)
M.GetMatrix3x4 = getter(T.matrix3x4)
M.GetMatrix4 = getter(T.matrix4)
M.GetBoundingBox = function(self)
  local lo, hi = T.vector3(attr(self, "min")), T.vector3(attr(self, "max"))
  return E.BoundingBox_new(lo.x, lo.y, lo.z, hi.x, hi.y, hi.z)
end

-- Variants as Urho3D writes them in XML: type="Int" value="5"; a VariantMap as <variant hash=... type=...> children.
local VARIANT_TEXT = {Int = T.int, Bool = T.bool, Float = T.float, Double = T.double, Int64 = T.int64,
  String = tostring, Vector2 = T.vector2, Vector3 = T.vector3, Vector4 = T.vector4, Quaternion = T.quaternion,
  Color = T.color, IntRect = T.intrect, IntVector2 = T.intvector2, IntVector3 = T.intvector3, Rect = T.rect,
  Matrix3 = T.matrix3, Matrix3x4 = T.matrix3x4, Matrix4 = T.matrix4}
local VARIANT_STRING = {Int = S.int, Bool = S.bool, Float = S.float, Double = S.double, Int64 = S.int,
  String = tostring, Vector2 = S.vector2, Vector3 = S.vector3, Vector4 = S.vector4, Quaternion = S.quaternion,
  Color = S.color, IntRect = S.intrect, IntVector2 = S.intvector2, IntVector3 = S.intvector3, Rect = S.rect,
  Matrix3 = S.matrix3, Matrix3x4 = S.matrix3x4, Matrix4 = S.matrix4}
E.VARIANT_FROM_TEXT, E.VARIANT_TO_TEXT = VARIANT_TEXT, VARIANT_STRING
local TYPE_NAMES = {}
for name, id in pairs(E.VARIANT_TYPE_IDS) do TYPE_NAMES[id] = name end
local function variant_map_of(node, key_names)
  local values = {}
  for _, c in ipairs(node and node.children or {}) do
    if c.name == "variant" then
      local key = c.attrs.name
      if key == nil then
        local hash = T.uint(c.attrs.hash)
        key = key_names and key_names[hash] or hash
      end
      values[key] = E.xml_variant(c, nil, key_names)
    end
  end
  return E.VariantMap_new(values)
end
-- The Variant an element holds: its "type" attribute (or `type_name`) and its "value" attribute or children.
function E.xml_variant(node, type_name, key_names)
  type_name = type_name or (node and node.attrs.type) or "None"
  if type(type_name) == "number" then type_name = TYPE_NAMES[type_name] or "None" end
  local value = node and node.attrs.value or ""
  if type_name == "VariantMap" then return E.Variant_new("VariantMap", variant_map_of(node, key_names)) end
  if type_name == "ResourceRef" then
    local t, name = smatch(value, "^([^;]*);?(.*)$")
    return E.Variant_new("ResourceRef", E.ResourceRef_new(t or "", name or ""))
  end
  local conv = VARIANT_TEXT[type_name]
  if conv == nil then return E.Variant_new("None", nil) end
  return E.Variant_new(type_name, conv(value))
end
E.xml_variant_map = variant_map_of
M.GetVariant = function(self) return E.xml_variant(node_of(self)) end
M.GetVariantValue = function(self, vtype) return E.xml_variant(node_of(self), vtype) end
M.GetVariantMap = function(self) return variant_map_of(node_of(self)):GetVariantMap() end
M.GetResourceRef = function(self)
  local t, name = smatch(attr(self, "value"), "^([^;]*);?(.*)$")
  return E.ResourceRef_new(t or "", name or "")
end
M.GetResourceRefList = function(self)
  local parts = {}
  for p in (attr(self, "value") .. ";"):gmatch("([^;]*);") do parts[#parts + 1] = p end
  local list = IMPL.ResourceRefList.new(parts[1] or "")
  for i = 2, #parts do list.names[#list.names + 1] = parts[i] end
  return list
end

-- Writing
local function set_attr(self, name, value)
  local n = node_of(self)
  if n == nil or name == nil or name == "" then return false end
  name = tostring(name)
  if n.attrs[name] == nil then n.attr_order[#n.attr_order + 1] = name end
  n.attrs[name] = tostring(value)
  return true
end
E.xml_set_attr = function(node, name, value)
  if node.attrs[name] == nil then node.attr_order[#node.attr_order + 1] = name end
  node.attrs[name] = value
end
M.SetAttribute = function(self, a, b)
  if b == nil then return false end   -- SetAttribute(value) is for an attribute an XPath query selected
  return set_attr(self, a, b)
end
local function setter(conv) return function(self, name, v) return set_attr(self, name, conv(v)) end end
M.SetBool = setter(S.bool)
M.SetInt = setter(function(v) return S.int(T.int(S.int(v))) end)
M.SetUInt = setter(function(v) return S.int(to_integer(v) & 0xffffffff) end)
M.SetInt64 = setter(S.int)
M.SetUInt64 = setter(S.int)
M.SetFloat = setter(function(v) return g(E.MATH.f32(tonumber(v) or 0)) end)
M.SetDouble = setter(S.double)
M.SetString = setter(tostring)
M.SetColor = setter(S.color)
M.SetIntRect = setter(S.intrect)
M.SetIntVector2 = setter(S.intvector2)
M.SetIntVector3 = setter(S.intvector3)
M.SetRect = setter(S.rect)
M.SetQuaternion = setter(S.quaternion)
M.SetVector2 = setter(S.vector2)
M.SetVector3 = setter(S.vector3)
M.SetVector4 = setter(S.vector4)
M.SetMatrix3 = setter(S.matrix3)
M.SetMatrix3x4 = setter(S.matrix3x4)
M.SetMatrix4 = setter(S.matrix4)
M.SetBoundingBox = function(self, box)
  return set_attr(self, "min", S.vector3(box.min)) and set_attr(self, "max", S.vector3(box.max))
end
M.SetValue = function(self, value)
  local n = node_of(self)
  if n == nil then return false end
  add_text(n, tostring(value))
  return true
end
-- A Variant's value on `node`: its text in "value", a VariantMap as <variant> children.
function E.xml_set_variant_value(node, v)
  local t = v.type_
  if t == "VariantMap" then
    local values = E.variant_map_store[v.value_] or {}
    local keys = {}
    for k in pairs(values) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(keys) do
      local c = new_element("variant", node)
      node.children[#node.children + 1] = c
      E.xml_set_attr(c, "hash", S.int(type(k) == "number" and k or E.sdbm(k)))   -- keys are StringHashes
      E.xml_set_attr(c, "type", values[k].type_)
      E.xml_set_variant_value(c, values[k])
    end
    return true
  end
  if t == "ResourceRef" then
    local ref = v.value_
    E.xml_set_attr(node, "value", E.resource_ref_text(ref))
    return true
  end
  local conv = VARIANT_STRING[t]
  if conv == nil then return false end
  E.xml_set_attr(node, "value", conv(v.value_))
  return true
end
M.SetVariant = function(self, v)
  local n = node_of(self)
  if n == nil or not E.is(v, "Variant") then return false end
  E.xml_set_attr(n, "type", v.type_)
  return E.xml_set_variant_value(n, v)
end
M.SetVariantValue = function(self, v)
  local n = node_of(self)
  if n == nil or not E.is(v, "Variant") then return false end
  return E.xml_set_variant_value(n, v)
end
M.SetVectorVariant = function(self, name, v)
  if not E.is(v, "Variant") then return false end
  local conv = VARIANT_STRING[v.type_]
  if conv == nil then return false end
  return set_attr(self, name, conv(v.value_))
end
M.SetResourceRef = function(self, ref) return set_attr(self, "value", E.resource_ref_text(ref)) end
M.SetResourceRefList = function(self, list)
  local t = list.type
  local parts = {E.is(t, "StringHash") and (t.name_ or "") or tostring(t or "")}
  for i, name in ipairs(list.names or {}) do parts[i + 1] = name end
  return set_attr(self, "value", tconcat(parts, ";"))
end

-- Structure
M.CreateChild = function(self, name)
  local r = xrec(self)
  if r.node == nil then return empty() end
  local c = new_element(tostring(name or ""), r.node)
  r.node.children[#r.node.children + 1] = c
  return element(r.file, c)
end
M.GetOrCreateChild = function(self, name)
  local child = M.GetChild(self, name)
  if node_of(child) ~= nil then return child end
  return M.CreateChild(self, name)
end
M.AppendChild = function(self, other, as_copy)
  local n, o = node_of(self), E.xml_node(other)
  if n == nil or o == nil then return false end
  if not as_copy then
    local p = n
    while p do
      if p == o then return false end   -- a node cannot move into itself
      p = p.parent
    end
    detach(o)
  else
    o = copy_node(o, n)
  end
  o.parent = n
  n.children[#n.children + 1] = o
  return true
end
M.RemoveChild = function(self, what)
  local n = node_of(self)
  if n == nil then return false end
  local target
  if type(what) == "string" then
    target = child_elements(n, what)[1]
  else
    target = E.xml_node(what)
    if target and target.parent ~= n then target = nil end
  end
  if target == nil then return false end
  detach(target)
  return true
end
M.RemoveChildren = function(self, name)
  local n = node_of(self)
  if n == nil then return false end
  for _, c in ipairs(child_elements(n, name)) do detach(c) end
  return true
end
M.RemoveAttribute = function(self, name)
  local n = node_of(self)
  if n == nil or name == nil or n.attrs[tostring(name)] == nil then return false end
  name = tostring(name)
  n.attrs[name] = nil
  for i, k in ipairs(n.attr_order) do if k == name then tremove(n.attr_order, i); break end end
  return true
end
M.Remove = function(self)
  local n = node_of(self)
  if n == nil or n.parent == nil then return false end
  detach(n)
  return true
end
