-- Yoga flexbox layout: UrhoX's YG* global functions over real Yoga, which lives in the Python host
-- (engine/_yoga.py, docs/yoga.md).
--
-- A node is an empty proxy of class YGNodeRef; its private record (E.REC and NODES) holds the integer id the host
-- knows it by.  Every function checks its arguments as declared in engine/api/yoga.api (a live YGNodeRef, a
-- number or numeric string, an enum argument that is a value of its enum after tolua's C cast) and makes one call
-- into the host with plain numbers.  Functions whose declaration says all there is to check are built from the
-- registry by the loop at the end of this file; the others are written out.
--
-- Emulated here, because the pinned Yoga (3.2.1) predates them: the min/max/flex-basis keywords max-content,
-- fit-content and stretch (they constrain nothing, as in the Yoga UrhoX builds, and read back with their unit),
-- and the unit of YGNodeStyleGetGap (Yoga 3.2.1 returns a bare float).
--
-- Layout results change only in YGNodeCalculateLayout, YGNodeRemoveChild, YGNodeRemoveAllChildren and YGNodeReset:
-- a node's left, top, width and height are read in one crossing and kept until the next of those calls (UI
-- libraries read them several times per node and frame).
local error, type, tonumber, tostring, setmetatable, pairs, ipairs = error, type, tonumber, tostring, setmetatable,
  pairs, ipairs
local tunpack = table.unpack
local sformat, ssub = string.format, string.sub
local mtointeger, mfloor, mceil, HUGE = math.tointeger, math.floor, math.ceil, math.huge
local dgetmt, state = E.dgetmt, E.state
local Y = E.host.yoga
local REGISTRY = E.REGISTRY

local NAN = -(0.0 / 0.0)          -- a quiet NaN with the sign of C's NAN (0.0/0.0 is negative on x86)
local UNIT_POINT, UNIT_PERCENT, UNIT_UNDEFINED = 1, 2, 0
local EDGE_END = 5                -- the last edge layout getters accept
local DIRECTION_LTR = 1
local MAX_LIVE = Y.max_live_nodes()

class("YGNodeRef")
class("YGConfigRef")

local NODES = setmetatable({}, {__mode = "k"})   -- proxy -> record {id, freed, kw, gapu, epoch, l, t, w, h}
local BY_ID = {}                                  -- id -> proxy, for every live node
local live = 0
local epoch = 0                                   -- bumped whenever layout results may change
local CONFIG = E.new_object("YGConfigRef", {kind = "yoga_config"})

----------------------------------------------------------------------------------------------------
-- argument checks.  A checker is a closure made once per function and parameter, called by the function the game
-- called: its errors name the game's line (level 3 in the checker, 4 in bad_arg).
----------------------------------------------------------------------------------------------------
local function describe(v)
  local t = type(v)
  if t == "number" then return sformat("number %s", tostring(v)) end
  local mt = dgetmt(v)
  if mt and type(mt.__name) == "string" then return mt.__name end
  return t
end
local function bad_arg(fname, n, expected, got)
  error(sformat("bad argument #%d to '%s' (%s expected, got %s)", n, fname, expected, describe(got)), 4)
end
-- tolua reads numbers with lua_isnumber: numeric strings pass.
local function to_number(v)
  local t = type(v)
  if t == "number" then return v end
  if t == "string" then return tonumber(v) end
  return nil
end
-- An int argument: a finite number cast to an integer like C does (toward zero); nil when that is impossible.
local function to_int(v)
  v = to_number(v)
  if v == nil then return nil end
  local i = mtointeger(v)
  if i ~= nil or v ~= v or v == HUGE or v == -HUGE then return i end
  return mtointeger(v >= 0 and mfloor(v) or mceil(v))
end

-- Each YG enum of the registry as the set of its values.
local ENUM_SETS = {}
for name, enum in pairs(REGISTRY.enums) do
  if ssub(name, 1, 2) == "YG" then
    local set = {}
    for _, value in pairs(enum.values) do set[value] = true end
    ENUM_SETS[name] = set
  end
end

-- The checker of parameter n (of type ptype) of fname: it returns what the host takes (a node's record).
local function checker(ptype, fname, n)
  if ptype == "YGNodeRef" then
    return function(v)
      local r = NODES[v]
      if r == nil then bad_arg(fname, n, "YGNodeRef", v) end
      if r.freed then
        error(sformat("bad argument #%d to '%s' (the Yoga node was freed by YGNodeFree or YGNodeFreeRecursive)",
          n, fname), 3)
      end
      return r
    end
  elseif ptype == "YGConfigRef" then
    return function(v)
      if v ~= CONFIG then bad_arg(fname, n, "YGConfigRef", v) end
      return v
    end
  elseif ptype == "number" then
    return function(v)
      local x = to_number(v)
      if x == nil then bad_arg(fname, n, "number", v) end
      return x
    end
  elseif ptype == "integer" then
    return function(v)
      local x = to_int(v)
      if x == nil then bad_arg(fname, n, "integer", v) end
      return x
    end
  end
  local set = ENUM_SETS[ptype]
  if set == nil then
    error(sformat("engine/api/yoga.api: %s takes a %s, which 86_yoga.lua cannot check", fname, ptype))
  end
  return function(v)
    local x = to_int(v)
    if x == nil or not set[x] then bad_arg(fname, n, ptype, v) end
    return x
  end
end
-- The checkers of every declared parameter of fname, in order.
local function checkers(fname)
  local decl = REGISTRY.functions[fname]
  if decl == nil then error("engine/api/yoga.api does not declare " .. fname) end
  local out = {}
  for i, p in ipairs(decl.overloads[1].params) do out[i] = checker(p.type, fname, i) end
  return tunpack(out)
end

----------------------------------------------------------------------------------------------------
-- nodes
----------------------------------------------------------------------------------------------------
local function node_proxy(id)
  local r = {kind = "yoga_node", id = id, freed = false, kw = nil, gapu = nil, epoch = -1}
  local proxy = E.new_object("YGNodeRef", r)
  NODES[proxy] = r
  BY_ID[id] = proxy
  live = live + 1
  return proxy
end
local function retire(id)
  NODES[BY_ID[id]].freed = true
  BY_ID[id] = nil
  live = live - 1
end
local function retire_all(...)
  local ids = {...}
  for i = 1, #ids do retire(ids[i]) end
end

FUNCTIONS.YGNodeNew = function()
  local id = Y.node_new()
  if id == 0 then
    local msg = sformat("YGNodeNew: more than %d live Yoga nodes (free them with YGNodeFree or YGNodeFreeRecursive)",
      MAX_LIVE)
    state.errors[#state.errors + 1] = {message = msg, traceback = E.debug.traceback("", 2), frame = state.frame,
      phase = "limit"}
    E.abort("memory")
  end
  return node_proxy(id)
end
do
  local c1 = checkers("YGNodeFree")
  FUNCTIONS.YGNodeFree = function(node)
    local id = c1(node).id
    Y.node_free(id)
    retire(id)
  end
end
do
  local c1 = checkers("YGNodeFreeRecursive")
  -- the ids of a whole subtree come back as one long tuple: a host call that allocates (E.host_call)
  FUNCTIONS.YGNodeFreeRecursive = function(node) retire_all(E.host_call(Y.node_free_recursive, c1(node).id)) end
end
do
  local c1 = checkers("YGNodeReset")
  FUNCTIONS.YGNodeReset = function(node)
    local r = c1(node)
    local err = Y.node_reset(r.id)
    if err then error("YGNodeReset: " .. err, 2) end
    r.kw, r.gapu = nil, nil
    epoch = epoch + 1
  end
end
FUNCTIONS.YGNodeGetLiveCount = function() return live end
FUNCTIONS.YGGetUndefined = function() return NAN end

-- children
do
  local c1, c2, c3 = checkers("YGNodeInsertChild")
  FUNCTIONS.YGNodeInsertChild = function(node, child, index)
    local err = Y.insert_child(c1(node).id, c2(child).id, c3(index))
    if err then error("YGNodeInsertChild: " .. err, 2) end
  end
end
do
  local c1, c2 = checkers("YGNodeRemoveChild")
  FUNCTIONS.YGNodeRemoveChild = function(node, child)
    Y.remove_child(c1(node).id, c2(child).id)
    epoch = epoch + 1
  end
end
do
  local c1 = checkers("YGNodeRemoveAllChildren")
  FUNCTIONS.YGNodeRemoveAllChildren = function(node)
    Y.YGNodeRemoveAllChildren(c1(node).id)
    epoch = epoch + 1
  end
end
do
  local c1, c2 = checkers("YGNodeGetChild")
  FUNCTIONS.YGNodeGetChild = function(node, index)
    local id = Y.get_child(c1(node).id, c2(index))
    if id == 0 then return nil end
    return BY_ID[id]
  end
end
do
  local c1 = checkers("YGNodeGetParent")
  FUNCTIONS.YGNodeGetParent = function(node)
    local id = Y.get_parent(c1(node).id)
    if id == 0 then return nil end
    return BY_ID[id]
  end
end

-- layout
do
  local c1, c2, c3, c4 = checkers("YGNodeCalculateLayout")
  FUNCTIONS.YGNodeCalculateLayout = function(node, width, height, direction)
    local id, w, h = c1(node).id, c2(width), c3(height)
    local d = DIRECTION_LTR
    if direction ~= nil then d = c4(direction) end
    Y.calculate_layout(id, w, h, d)
    epoch = epoch + 1
  end
end
do
  local c1 = checkers("YGNodeMarkDirty")
  FUNCTIONS.YGNodeMarkDirty = function(node)
    c1(node)
    -- UrhoX binds no measure functions, and Yoga aborts when any other node is marked dirty.
    error("YGNodeMarkDirty: Only leaf nodes with custom measure functions should manually mark themselves as dirty", 2)
  end
end

local function box(r)
  if r.epoch ~= epoch then
    r.l, r.t, r.w, r.h = Y.layout_box(r.id)
    r.epoch = epoch
  end
  return r
end
for _, getter in ipairs({{"YGNodeLayoutGetLeft", "l"}, {"YGNodeLayoutGetTop", "t"}, {"YGNodeLayoutGetWidth", "w"},
                         {"YGNodeLayoutGetHeight", "h"}}) do
  local name, field = getter[1], getter[2]
  local c1 = checkers(name)
  FUNCTIONS[name] = function(node) return box(c1(node))[field] end
end
-- The layout's edge getters take a physical or start/end edge, never a shorthand (Yoga aborts on those).
for _, name in ipairs({"YGNodeLayoutGetMargin", "YGNodeLayoutGetPadding", "YGNodeLayoutGetBorder"}) do
  local c1, c2 = checkers(name)
  local fn = Y[name]
  FUNCTIONS[name] = function(node, edge)
    local id, e = c1(node).id, c2(edge)
    if e > EDGE_END then
      error(sformat("%s: Cannot get layout properties of multi-edge shorthands (edge %d)", name, e), 2)
    end
    return fn(id, e)
  end
end

-- baseline (UrhoX's own: a fixed baseline for alignItems = baseline, through Yoga's baseline function)
do
  local c1, c2 = checkers("YGNodeSetBaselineValue")
  FUNCTIONS.YGNodeSetBaselineValue = function(node, baseline)
    local id, b = c1(node).id, c2(baseline)
    if b ~= b then error("YGNodeSetBaselineValue: the baseline is NaN (Yoga aborts on a NaN baseline)", 2) end
    Y.set_baseline(id, b)
  end
end
do
  local c1 = checkers("YGNodeClearBaselineValue")
  FUNCTIONS.YGNodeClearBaselineValue = function(node) Y.clear_baseline(c1(node).id) end
end

-- config: one per run (YGConfigGetDefault), never Yoga's process-wide default
FUNCTIONS.YGConfigGetDefault = function() return CONFIG end
do
  local c1, c2 = checkers("YGConfigSetPointScaleFactor")
  FUNCTIONS.YGConfigSetPointScaleFactor = function(config, factor)
    c1(config)
    local f = c2(factor)
    if not (f >= 0) then
      error(sformat("YGConfigSetPointScaleFactor: Scale factor should not be less than zero (got %s)", tostring(f)),
        2)
    end
    Y.set_point_scale_factor(f)
  end
end
do
  local c1 = checkers("YGConfigGetPointScaleFactor")
  FUNCTIONS.YGConfigGetPointScaleFactor = function(config)
    c1(config)
    return Y.get_point_scale_factor()
  end
end

----------------------------------------------------------------------------------------------------
-- style: intrinsic sizing keywords and gap units
----------------------------------------------------------------------------------------------------
local KEYWORDS = {MaxContent = 4, FitContent = 5, Stretch = 6}   -- YGUnit values of Yoga's newer keywords
local CLEARS_KEYWORD = {YGNodeStyleSetFlexBasisAuto = "FlexBasis"}   -- setter -> the property it sets
local KEYWORD_GETTER = {}                                            -- getter -> property
for _, prop in ipairs({"MinWidth", "MinHeight", "MaxWidth", "MaxHeight", "FlexBasis"}) do
  local set = "YGNodeStyleSet" .. prop
  CLEARS_KEYWORD[set], CLEARS_KEYWORD[set .. "Percent"] = prop, prop
  KEYWORD_GETTER["YGNodeStyleGet" .. prop] = prop
  -- The closest Yoga 3.2.1 has: no constraint for min/max (the keywords resolve to undefined in the Yoga that
  -- has them) and auto for the flex basis (sized by content).
  local fallback = prop == "FlexBasis" and Y.YGNodeStyleSetFlexBasisAuto or Y[set]
  for _, word in ipairs({"MaxContent", "FitContent", "Stretch"}) do
    local name, unit = set .. word, KEYWORDS[word]
    local c1 = checkers(name)
    FUNCTIONS[name] = function(node)
      local r = c1(node)
      if prop == "FlexBasis" then fallback(r.id) else fallback(r.id, NAN) end
      local kw = r.kw
      if kw == nil then kw = {}; r.kw = kw end
      kw[prop] = unit
    end
  end
end

local function set_gap(name, unit)
  local fn = Y[name]
  local c1, c2, c3 = checkers(name)
  return function(node, gutter, length)
    local r = c1(node)
    local g = c2(gutter)
    fn(r.id, g, c3(length))
    local gapu = r.gapu
    if gapu == nil then gapu = {}; r.gapu = gapu end
    gapu[g] = unit
  end
end
FUNCTIONS.YGNodeStyleSetGap = set_gap("YGNodeStyleSetGap", UNIT_POINT)
FUNCTIONS.YGNodeStyleSetGapPercent = set_gap("YGNodeStyleSetGapPercent", UNIT_PERCENT)
do
  local c1, c2 = checkers("YGNodeStyleGetGap")
  FUNCTIONS.YGNodeStyleGetGap = function(node, gutter)
    local r = c1(node)
    local g = c2(gutter)
    local v = Y.YGNodeStyleGetGap(r.id, g)
    if v ~= v then return {value = v, unit = UNIT_UNDEFINED} end
    return {value = v, unit = r.gapu and r.gapu[g] or UNIT_POINT}
  end
end

----------------------------------------------------------------------------------------------------
-- everything else: one host call, with the checks its declaration implies
----------------------------------------------------------------------------------------------------
local function generic(name, sig)
  local fn = Y[name]
  if sig.params[1] == nil or sig.params[1].type ~= "YGNodeRef" or #sig.params > 3 then
    error(sformat("engine/api/yoga.api: %s does not take a node first, which 86_yoga.lua cannot call", name))
  end
  local c1, c2, c3 = checkers(name)
  local clears, kw_prop = CLEARS_KEYWORD[name], KEYWORD_GETTER[name]
  if sig.returns and ssub(sig.returns, 1, 1) == "{" then      -- {value: number, unit: YGUnit}: Yoga's YGValue
    local function value(r, v, u)
      local kw = kw_prop and r.kw and r.kw[kw_prop]
      if kw then return {value = NAN, unit = kw} end
      return {value = v, unit = u}
    end
    if c2 then return function(node, a) local r = c1(node); return value(r, fn(r.id, c2(a))) end end
    return function(node) local r = c1(node); return value(r, fn(r.id)) end
  end
  if clears then
    local function cleared(r) if r.kw then r.kw[clears] = nil end end
    if c2 then return function(node, a) local r = c1(node); fn(r.id, c2(a)); cleared(r) end end
    return function(node) local r = c1(node); fn(r.id); cleared(r) end
  end
  if sig.returns then
    if c2 then return function(node, a) return fn(c1(node).id, c2(a)) end end
    return function(node) return fn(c1(node).id) end
  end
  if c3 then return function(node, a, b) fn(c1(node).id, c2(a), c3(b)) end end
  if c2 then return function(node, a) fn(c1(node).id, c2(a)) end end
  return function(node) fn(c1(node).id) end
end

for _, name in ipairs(E.sorted_keys(REGISTRY.functions)) do
  if ssub(name, 1, 2) == "YG" and FUNCTIONS[name] == nil and Y[name] ~= nil then
    FUNCTIONS[name] = generic(name, REGISTRY.functions[name].overloads[1])
  end
end
