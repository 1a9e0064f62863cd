-- AnimationStateMachine and ParameterContext: UrhoX's data-driven animation state machine, headless.
--
-- A machine holds typed parameters (float, int, bool, trigger; numbers clamped to their min/max) and layers; each
-- layer has states (one animation, a blend space, or empty) and transitions (from a state, a list of states or "*",
-- to a state, when a condition over the parameters and the layer's stateTime / normalizedTime / animationFinished
-- holds, gated by exitTime).  The configuration comes from a .fsm JSON file (LoadFromJSON / LoadFromJSONFile; blend
-- spaces from .blendspace JSON files).  Start() enters each layer's default state.
--
-- Each update (Update(timeStep) by hand, and automatically on the scene's SceneUpdate, which the scene sends before
-- the ScenePostUpdate the AnimationController advances on, so the controller plays what the machine chose in the
-- same frame), every layer in order: its state clock and blend advance, a blend space's weights follow the
-- parameters, then its transitions are tried by priority (higher first, ties in declaration order); the first whose
-- source matches and whose condition holds fires: the target state is entered (its clock restarts) and its
-- animations are played through the node's AnimationController on the layer's index, faded in over the blend time
-- while the layer's previous animations fade out.  A trigger is set until a fired transition whose condition names
-- it consumes it, and at the end of every update all triggers are cleared: a trigger lives for one update.
--
-- Conditions are parsed here (never loaded as Lua); an error is logged once with the condition's text and that
-- transition never fires.  Everything runs in a fixed order over ordered lists.
local error, type, ipairs, tostring, tonumber, pcall, setmetatable = error, type, ipairs, tostring, tonumber, pcall,
  setmetatable
local mabs, mmin, mmax, mfloor, tointeger = math.abs, math.min, math.max, math.floor, math.tointeger
local sformat, ssub, sfind = string.format, string.sub, string.find
local tsort, tconcat = table.sort, table.concat
local REC, comp_rec = E.REC, E.comp_rec
local f32 = E.MATH.f32
local J = E.json_node
local HUGE = math.huge
local MAX_CONDITION = 4096   -- characters of one condition
local MAX_DEPTH = 64         -- nesting of one condition
local ABM_LERP, ABM_ADDITIVE = 0, 1
local DEFAULT_BLEND_TIME = 0.2

local function arg_error(n, fname, expected, v) E.anim_arg_error(n, fname, expected, v) end
local function check_string(v, n, fname) return E.anim_string(v, n, fname) end
local function check_number(v, n, fname) return E.anim_number(v, n, fname) end
local function check_bool(v, n, fname)
  if type(v) ~= "boolean" then arg_error(n, fname, "boolean", v) end
  return v
end
local function opt_number(v, n, fname, default)
  if v == nil then return default end
  return check_number(v, n, fname)
end
-- an optional layer index (default 0), as an unsigned index; nil when out of range
local function layer_of(c, index, n, fname)
  local i = index == nil and 0 or E.anim_index(index, n, fname)
  return c.layers[i + 1]
end

----------------------------------------------------------------------------------------------------
-- Parameters
----------------------------------------------------------------------------------------------------
local PARAM_TYPES = {float = true, int = true, bool = true, trigger = true}

local function new_store() return {list = {}, map = {}, warned = {}} end

local function truncate(v)   -- as a C++ int conversion (NaN and out of range: 0)
  if v ~= v or v >= 2147483648 or v <= -2147483649 then return 0 end
  return tointeger(v >= 0 and mfloor(v) or -mfloor(-v)) or 0
end

local function clamp_number(p, v)
  if p.type == "int" then
    v = truncate(v)
  else
    v = f32(v)
  end
  if p.min and v < p.min then v = p.type == "int" and (tointeger(p.min) or v) or f32(p.min) end
  if p.max and v > p.max then v = p.type == "int" and (tointeger(p.max) or v) or f32(p.max) end
  return v
end

local function define(store, name, ptype, default, min, max)
  local p = store.map[name]
  if p == nil then
    p = {name = name}
    store.map[name] = p
    store.list[#store.list + 1] = p
  end
  p.type, p.min, p.max = ptype, min, max
  if ptype == "bool" then
    p.default = default and true or false
  elseif ptype == "trigger" then
    p.default = false
  else
    if ptype == "int" then
      -- a finite integer range; bounds outside it are ignored
      if p.min and (p.min ~= p.min or mabs(p.min) == HUGE) then p.min = nil end
      if p.max and (p.max ~= p.max or mabs(p.max) == HUGE) then p.max = nil end
      if p.min then p.min = mfloor(p.min) end
      if p.max then p.max = mfloor(p.max) end
    end
    p.default = clamp_number(p, default or 0)
  end
  p.value = p.default
  return p
end

local function find_param(store, name, fname)
  local p = store.map[name]
  if p == nil and not store.warned[name] then
    store.warned[name] = true
    E.log("WARNING", sformat("AnimationStateMachine::%s: parameter '%s' is not defined", fname, name))
  end
  return p
end

-- the value of `v` stored in parameter p, converted to p's type
local function set_param(p, v)
  if p.type == "bool" or p.type == "trigger" then
    if type(v) == "number" then v = v ~= 0 end
    p.value = v and true or false
  else
    if type(v) == "boolean" then v = v and 1 or 0 end
    p.value = clamp_number(p, v)
  end
end
local function as_number(p)
  if p == nil then return 0 end
  if type(p.value) == "boolean" then return p.value and 1 or 0 end
  return p.value
end
local function as_bool(p)
  if p == nil then return false end
  if type(p.value) == "number" then return p.value ~= 0 end
  return p.value
end
local function reset_triggers(store)
  for _, p in ipairs(store.list) do if p.type == "trigger" then p.value = false end end
end

local PC = class("ParameterContext")
local function context_of(store)
  if store.proxy == nil then
    local proxy = E.new_object("ParameterContext", {kind = "parameter_context", store = store})
    store.proxy = proxy
  end
  return store.proxy
end
local function pc_store(self)
  local r = REC[self]
  if r == nil or r.kind ~= "parameter_context" then
    E.raise_at_game("invalid 'self' in call to ParameterContext method")
  end
  return r.store
end
local PM = PC.methods
PM.HasParameter = function(self, name)
  return pc_store(self).map[check_string(name, 1, "HasParameter")] ~= nil
end
local function setter(fname, check, is_trigger)
  return function(store, name, value)
    name = check_string(name, 1, fname)
    if not is_trigger then value = check(value, 2, fname) end
    local p = find_param(store, name, fname)
    if p == nil then return end
    set_param(p, is_trigger and true or value)
  end
end
local set_float = setter("SetFloat", check_number)
local set_int = setter("SetInt", check_number)
local set_bool = setter("SetBool", check_bool)
local set_trigger = setter("SetTrigger", nil, true)
local function getter(fname, conv)
  return function(store, name)
    return conv(store.map[check_string(name, 1, fname)])
  end
end
local get_float = getter("GetFloat", as_number)
local get_int = getter("GetInt", function(p) return truncate(as_number(p)) end)
local get_bool = getter("GetBool", as_bool)
PM.SetFloat = function(self, name, v) set_float(pc_store(self), name, v) end
PM.SetInt = function(self, name, v) set_int(pc_store(self), name, v) end
PM.SetBool = function(self, name, v) set_bool(pc_store(self), name, v) end
PM.SetTrigger = function(self, name) set_trigger(pc_store(self), name) end
PM.GetFloat = function(self, name) return get_float(pc_store(self), name) end
PM.GetInt = function(self, name) return get_int(pc_store(self), name) end
PM.GetBool = function(self, name) return get_bool(pc_store(self), name) end
PM.IsTriggerActivated = function(self, name)
  local p = pc_store(self).map[check_string(name, 1, "IsTriggerActivated")]
  return p ~= nil and p.type == "trigger" and p.value == true
end
PM.SetValue = function(self, name, v)
  local store = pc_store(self)
  name = check_string(name, 1, "SetValue")
  if E.is(v, "Variant") then v = v.value_ end
  if type(v) ~= "number" and type(v) ~= "boolean" then return end
  local p = find_param(store, name, "SetValue")
  if p then set_param(p, v) end
end
PM.GetValue = function(self, name)
  local p = pc_store(self).map[check_string(name, 1, "GetValue")]
  if p == nil then return E.Variant_new("None", nil) end
  if p.type == "float" then return E.Variant_new("Float", p.value) end
  if p.type == "int" then return E.Variant_new("Int", p.value) end
  return E.Variant_new("Bool", p.value)
end
PM.Clear = function(self)
  local store = pc_store(self)
  store.list, store.map = {}, {}
end
PM.ResetToDefaults = function(self)
  for _, p in ipairs(pc_store(self).list) do p.value = p.default end
end
PM.ResetTriggers = function(self) reset_triggers(pc_store(self)) end
local function param_text(p)
  local v = p.value
  if type(v) == "number" and p.type == "float" then v = sformat("%g", v) end
  return sformat("%s (%s) = %s", p.name, p.type, tostring(v))
end
PM.DebugPrint = function(self)
  for _, p in ipairs(pc_store(self).list) do E.log("INFO", "  " .. param_text(p)) end
end

----------------------------------------------------------------------------------------------------
-- Conditions: a small expression language, parsed into closures.
--   or-expr := and-expr {'or' and-expr};  and-expr := unary {'and' unary};  unary := 'not' unary | comparison
--   comparison := operand [('>'|'<'|'>='|'<='|'=='|'!=') operand]
--   operand := number | 'true' | 'false' | name | name '(' args ')' | '-' operand | '(' or-expr ')'
-- Names are the layer's builtins (stateTime, normalizedTime, animationFinished) or parameters; functions are abs,
-- min, max, clamp.  Numbers compare as numbers (a boolean is 1 or 0); a number used as a truth value is true when
-- it is not 0.
----------------------------------------------------------------------------------------------------
local function tokenize(text)
  local toks = {}
  local i, n = 1, #text
  while i <= n do
    local ch = ssub(text, i, i)
    if sfind(ch, "^%s") then
      i = i + 1
    elseif sfind(ch, "^[%a_]") then
      local s, e = sfind(text, "^[%w_]+", i)
      toks[#toks + 1] = {k = "name", v = ssub(text, s, e), at = i}
      i = e + 1
    elseif sfind(ch, "^[%d%.]") then
      local s, e = sfind(text, "^%d*%.?%d*", i)
      local s2, e2 = sfind(text, "^[eE][%+%-]?%d+", e + 1)
      if s2 then e = e2 end
      local v = tonumber(ssub(text, s, e))
      if v == nil then return nil, sformat("bad number at %d", i) end
      toks[#toks + 1] = {k = "num", v = v + 0.0, at = i}
      i = e + 1
    else
      local two = ssub(text, i, i + 1)
      if two == ">=" or two == "<=" or two == "==" or two == "!=" then
        toks[#toks + 1] = {k = "op", v = two, at = i}
        i = i + 2
      elseif ch == ">" or ch == "<" or ch == "(" or ch == ")" or ch == "," or ch == "-" then
        toks[#toks + 1] = {k = "op", v = ch, at = i}
        i = i + 1
      else
        return nil, sformat("unexpected '%s' at %d", ch, i)
      end
    end
  end
  return toks
end

local function truth(v)
  if type(v) == "number" then return v ~= 0 end
  return v == true
end
local function num(v)
  if type(v) == "boolean" then return v and 1 or 0 end
  return v
end
local FUNCTIONS = {
  abs = {1, function(a) return mabs(num(a)) end},
  min = {2, function(a, b) return mmin(num(a), num(b)) end},
  max = {2, function(a, b) return mmax(num(a), num(b)) end},
  clamp = {3, function(x, lo, hi) return mmin(mmax(num(x), num(lo)), num(hi)) end},
}
local COMPARE = {
  [">"] = function(a, b) return num(a) > num(b) end,
  ["<"] = function(a, b) return num(a) < num(b) end,
  [">="] = function(a, b) return num(a) >= num(b) end,
  ["<="] = function(a, b) return num(a) <= num(b) end,
  ["=="] = function(a, b) return num(a) == num(b) end,
  ["!="] = function(a, b) return num(a) ~= num(b) end,
}
local KEYWORDS = {["and"] = true, ["or"] = true, ["not"] = true, ["true"] = true, ["false"] = true}

-- compile(text) -> closure(env) and the list of names read, or nil and an error.  env.lookup(name) gives a name's
-- value (nil when unknown: env.err is set).
local function compile(text)
  if #text > MAX_CONDITION then return nil, "condition too long" end
  local toks, terr = tokenize(text)
  if toks == nil then return nil, terr end
  local pos, depth = 1, 0
  local names, seen = {}, {}
  local function peek() return toks[pos] end
  local function fail(msg)
    local t = toks[pos]
    error({cond_error = t and sformat("%s at %d", msg, t.at) or (msg .. " at end")}, 0)
  end
  local function accept(k, v)
    local t = toks[pos]
    if t and t.k == k and (v == nil or t.v == v) then pos = pos + 1; return t end
    return nil
  end
  local function expect(k, v, what) return accept(k, v) or fail("expected " .. what) end
  local or_expr
  local function operand()
    depth = depth + 1
    if depth > MAX_DEPTH then fail("nested too deeply") end
    local t = peek()
    local node
    if t == nil then fail("expected a value") end
    if t.k == "num" then
      pos = pos + 1
      local v = t.v
      node = function() return v end
    elseif accept("op", "-") then
      local inner = operand()
      node = function(env) return -num(inner(env)) end
    elseif accept("op", "(") then
      node = or_expr()
      expect("op", ")", "')'")
    elseif t.k == "name" and (t.v == "true" or t.v == "false") then
      pos = pos + 1
      local v = t.v == "true"
      node = function() return v end
    elseif t.k == "name" and not KEYWORDS[t.v] then
      pos = pos + 1
      local name = t.v
      if accept("op", "(") then
        local f = FUNCTIONS[name]
        if f == nil then pos = pos - 2; fail("unknown function '" .. name .. "'") end
        local args = {}
        if not accept("op", ")") then
          repeat args[#args + 1] = or_expr() until not accept("op", ",")
          expect("op", ")", "')'")
        end
        if #args ~= f[1] then
          error({cond_error = sformat("%s() takes %d arguments, got %d", name, f[1], #args)}, 0)
        end
        local fn = f[2]
        if #args == 1 then
          local a = args[1]
          node = function(env) return fn(a(env)) end
        elseif #args == 2 then
          local a, b = args[1], args[2]
          node = function(env) return fn(a(env), b(env)) end
        else
          local a, b, d = args[1], args[2], args[3]
          node = function(env) return fn(a(env), b(env), d(env)) end
        end
      else
        if not seen[name] then seen[name] = true; names[#names + 1] = name end
        node = function(env) return env.lookup(name) end
      end
    else
      fail("expected a value")
    end
    depth = depth - 1
    return node
  end
  local function comparison()
    local left = operand()
    local t = peek()
    if t and t.k == "op" and COMPARE[t.v] then
      pos = pos + 1
      local cmp = COMPARE[t.v]
      local right = operand()
      return function(env) return cmp(left(env), right(env)) end
    end
    return left
  end
  local function unary()
    if accept("name", "not") then
      depth = depth + 1
      if depth > MAX_DEPTH then fail("nested too deeply") end
      local inner = unary()
      depth = depth - 1
      return function(env) return not truth(inner(env)) end
    end
    return comparison()
  end
  local function and_expr()
    local left = unary()
    while accept("name", "and") do
      local a, b = left, unary()
      left = function(env) return truth(a(env)) and truth(b(env)) end
    end
    return left
  end
  or_expr = function()
    local left = and_expr()
    while accept("name", "or") do
      local a, b = left, and_expr()
      left = function(env) return truth(a(env)) or truth(b(env)) end
    end
    return left
  end
  if #toks == 0 then return nil, "empty condition" end
  local ok, result = pcall(function()
    local root = or_expr()
    if pos <= #toks then fail("unexpected '" .. tostring(toks[pos].v) .. "'") end
    return root
  end)
  if not ok then
    if type(result) == "table" and result.cond_error then return nil, result.cond_error end
    error(result, 0)
  end
  return result, names
end

----------------------------------------------------------------------------------------------------
-- Blend spaces
----------------------------------------------------------------------------------------------------
-- weights of a blend space at the store's parameter values: an ordered list of {path, weight, speed}, one per
-- animation path (points sharing an animation add up), in the order the points were declared
local function merge(points, w)
  local out, index = {}, {}
  for i, p in ipairs(points) do
    local k = index[p.animation]
    if k == nil then
      out[#out + 1] = {path = p.animation, weight = 0.0, speed = p.speed}
      k = #out
      index[p.animation] = k
    end
    out[k].weight = out[k].weight + (w[i] or 0.0)
  end
  return out
end

-- linear interpolation between the two points around v in a list of {pos, index} sorted by pos
local function interpolate_line(line, v, w, scale)
  local n = #line
  if n == 0 then return end
  if v <= line[1].pos then w[line[1].index] = (w[line[1].index] or 0) + scale; return end
  if v >= line[n].pos then w[line[n].index] = (w[line[n].index] or 0) + scale; return end
  for k = 1, n - 1 do
    local a, b = line[k], line[k + 1]
    if v >= a.pos and v < b.pos then
      local t = (v - a.pos) / (b.pos - a.pos)
      w[a.index] = (w[a.index] or 0) + scale * (1 - t)
      w[b.index] = (w[b.index] or 0) + scale * t
      return
    end
  end
end
local function sorted_line(entries)
  tsort(entries, function(a, b)
    if a.pos ~= b.pos then return a.pos < b.pos end
    return a.index < b.index
  end)
  -- one entry per position (the first declared)
  local out = {}
  for _, e in ipairs(entries) do
    if #out == 0 or out[#out].pos ~= e.pos then out[#out + 1] = e end
  end
  return out
end

local function weights_1d(bs, store)
  local v = as_number(store.map[bs.parameter])
  local line = {}
  for i, p in ipairs(bs.points) do line[#line + 1] = {pos = p.value, index = i} end
  local w = {}
  interpolate_line(sorted_line(line), v, w, 1.0)
  return w
end

local function wrap_angle(a)
  a = a % 360.0
  if a > 180.0 then a = a - 360.0 end
  return a
end
-- polar: x is a direction in degrees, y a speed (the radius).  The two declared directions around the parameter's
-- direction (wrapping at +-180) are blended by angle; along each direction, its points (and the centre points, at
-- radius 0) are blended by radius, clamped at the innermost and outermost radius.
local function weights_polar(bs, store)
  local angle = wrap_angle(as_number(store.map[bs.parameter_x]))
  local radius = mmax(as_number(store.map[bs.parameter_y]), 0.0)
  local center
  local dirs, by_angle = {}, {}
  for i, p in ipairs(bs.points) do
    if p.y <= 0.0 then
      if center == nil then center = i end
    else
      local a = wrap_angle(p.x)   -- +180 and -180 are one direction (180)
      if by_angle[a] == nil then by_angle[a] = {}; dirs[#dirs + 1] = a end
      local list = by_angle[a]
      list[#list + 1] = {pos = p.y, index = i}
    end
  end
  local w = {}
  if #dirs == 0 then
    if center then w[center] = 1.0 end
    return w
  end
  tsort(dirs)
  local function along(a, scale)
    local line = {}
    if center then line[1] = {pos = 0.0, index = center} end
    for _, e in ipairs(by_angle[a]) do line[#line + 1] = e end
    interpolate_line(sorted_line(line), radius, w, scale)
  end
  local n = #dirs
  local lo, hi, t
  if angle < dirs[1] or angle > dirs[n] or n == 1 then
    lo, hi = dirs[n], dirs[1]
    local span = dirs[1] + 360.0 - dirs[n]
    local from_lo = angle >= dirs[n] and angle - dirs[n] or angle + 360.0 - dirs[n]
    t = span > 0.0 and from_lo / span or 0.0
  else
    for k = 1, n - 1 do
      if angle >= dirs[k] and angle <= dirs[k + 1] then
        lo, hi = dirs[k], dirs[k + 1]
        t = (dirs[k + 1] > dirs[k]) and (angle - dirs[k]) / (dirs[k + 1] - dirs[k]) or 0.0
        break
      end
    end
  end
  if t >= 1.0 then along(hi, 1.0)
  elseif t <= 0.0 then along(lo, 1.0)
  else
    along(lo, 1.0 - t)
    along(hi, t)
  end
  return w
end
-- triangulation and gradient: weighted by inverse squared distance in the (x, y) plane (a point exactly at the
-- parameters takes everything)
local function weights_distance(bs, store)
  local x = as_number(store.map[bs.parameter_x])
  local y = as_number(store.map[bs.parameter_y])
  local w, total = {}, 0.0
  for i, p in ipairs(bs.points) do
    local d2 = (p.x - x) ^ 2 + (p.y - y) ^ 2
    if d2 == 0.0 then return {[i] = 1.0} end
    w[i] = 1.0 / d2
    total = total + w[i]
  end
  for i in ipairs(bs.points) do w[i] = w[i] / total end
  return w
end

local function blend_weights(bs, store)
  local w
  if bs.dims == 1 then w = weights_1d(bs, store)
  elseif bs.mode == "polar" then w = weights_polar(bs, store)
  else w = weights_distance(bs, store) end
  return merge(bs.points, w)
end

----------------------------------------------------------------------------------------------------
-- Reading the JSON tree
----------------------------------------------------------------------------------------------------
local function jget(node, key) return node and J.get(node, key) end
local function jnum(node, key)
  local v = jget(node, key)
  return v and v.t == J.NUMBER and v.v or nil
end
local function jstr(node, key)
  local v = jget(node, key)
  return v and v.t == J.STRING and v.v or nil
end
local function jbool(node, key)
  local v = jget(node, key)
  if v == nil then return nil end
  if v.t == J.BOOL then return v.v end
  if v.t == J.NUMBER then return v.v ~= 0 end
  return nil
end
local function jpairs(node)   -- an object's entries in file order
  local out = {}
  if node and node.t == J.OBJECT then
    for _, k in ipairs(node.v.keys) do out[#out + 1] = {k, node.v.map[k]} end
  end
  return out
end
local function jlist(node)
  if node and node.t == J.ARRAY then return node.v end
  return {}
end

local function load_error(c, msg) E.log("ERROR", "AnimationStateMachine: " .. msg) end

-- a .blendspace tree -> the blend space record, or nil and why
local function parse_blend_space(root, path)
  if root.t ~= J.OBJECT then return nil, "blend space " .. path .. " is not a JSON object" end
  local kind = jstr(root, "type")
  local bs = {kind = "blend_space", name = jstr(root, "name") or "", points = {}}
  if kind == "BlendSpace1D" then
    bs.dims = 1
    bs.parameter = jstr(root, "parameter") or ""
  elseif kind == "BlendSpace2D" then
    bs.dims = 2
    bs.mode = jstr(root, "mode") or "polar"
    bs.parameter_x = jstr(root, "parameterX") or ""
    bs.parameter_y = jstr(root, "parameterY") or ""
  else
    return nil, sformat("blend space %s has an unknown type '%s'", path, tostring(kind))
  end
  for _, pn in ipairs(jlist(jget(root, "points"))) do
    local anim = jstr(pn, "animation")
    if anim then
      local p = {animation = anim, speed = jnum(pn, "speed") or 1.0}
      if bs.dims == 1 then p.value = jnum(pn, "value") or 0.0
      else p.x, p.y = jnum(pn, "x") or 0.0, jnum(pn, "y") or 0.0 end
      bs.points[#bs.points + 1] = p
    end
  end
  return bs
end

-- BlendSpaceResource: a .blendspace file through the resource cache (machines read theirs so too)
E.resource_loader("BlendSpaceResource", function(r, data, name)
  local root, err = E.json_parse(data)
  if root == nil then return false, "Could not parse JSON data from " .. name .. ": " .. err end
  local bs, why = parse_blend_space(root, name)
  if bs == nil then return false, "AnimationStateMachine: " .. why end
  r.blend_space = bs
  return true
end)

local function read_blend_space(c, path)
  local cached = c.blend_spaces[path]
  if cached ~= nil then return cached or nil end
  c.blend_spaces[path] = false
  local res = E.get_resource("BlendSpaceResource", path)
  local bs = res and REC[res].blend_space
  if bs == nil then return nil end
  c.blend_spaces[path] = bs
  return bs
end

-- The blend space objects a BlendSpaceResource gives: points added or cleared here change what every machine
-- using the file blends from its next update.
local BSR = class("BlendSpaceResource")
BSR.methods.GetBlendSpace = function(self)
  local r = REC[self]
  local bs = r and r.blend_space
  if bs == nil then return nil end
  if bs.proxy == nil then bs.proxy = E.new_object(bs.dims == 1 and "BlendSpace1D" or "BlendSpace2D", bs) end
  return bs.proxy
end
local function bs_rec(self, dims)
  local r = REC[self]
  if r == nil or r.kind ~= "blend_space" or (dims and r.dims ~= dims) then
    E.raise_at_game("invalid 'self' in call to a BlendSpace method")
  end
  return r
end
local BB = class("BlendSpaceBase").methods
BB.GetBlendSpaceName = function(self) return bs_rec(self).name end
BB.GetBlendSpaceType = function(self) return bs_rec(self).dims == 1 and "BlendSpace1D" or "BlendSpace2D" end
local B1 = class("BlendSpace1D").methods
B1.GetParameterName = function(self) return bs_rec(self, 1).parameter end
B1.AddPoint = function(self, value, animation, speed)
  local bs = bs_rec(self, 1)
  bs.points[#bs.points + 1] = {value = check_number(value, 1, "AddPoint"),
    animation = check_string(animation, 2, "AddPoint"), speed = opt_number(speed, 3, "AddPoint", 1.0)}
end
B1.ClearPoints = function(self) bs_rec(self, 1).points = {} end
local B2 = class("BlendSpace2D").methods
B2.GetParameterNameX = function(self) return bs_rec(self, 2).parameter_x end
B2.GetParameterNameY = function(self) return bs_rec(self, 2).parameter_y end
B2.AddPoint = function(self, x, y, animation, speed)
  local bs = bs_rec(self, 2)
  bs.points[#bs.points + 1] = {x = check_number(x, 1, "AddPoint"), y = check_number(y, 2, "AddPoint"),
    animation = check_string(animation, 3, "AddPoint"), speed = opt_number(speed, 4, "AddPoint", 1.0)}
end
B2.ClearPoints = function(self) bs_rec(self, 2).points = {} end
-- weights are computed from the points at each update (no triangulation is kept): nothing to build
B2.BuildTriangulation = function(self) bs_rec(self, 2) end

-- AnimationBlendWeight: a plain record of an animation path, a weight and a speed
local ABW = class("AnimationBlendWeight")
ABW.new = function(path, weight, speed)
  if path == nil then return setmetatable({animationPath = "", weight = 0.0, speed = 1.0}, ABW.mt) end
  return setmetatable({animationPath = check_string(path, 1, "AnimationBlendWeight"),
    weight = check_number(weight, 2, "AnimationBlendWeight"),
    speed = opt_number(speed, 3, "AnimationBlendWeight", 1.0)}, ABW.mt)
end

local function new_layer(name, index)
  return {name = name, index = index, default_state = "", weight = 1.0, blend = ABM_LERP, bone_mask = nil, states = {},
    state_map = {}, transitions = {}, current = nil, previous = "", state_time = 0.0, fade = 0.0,
    blend_left = 0.0, playing = {}, weights = {}}
end

local function add_transition(c, layer, spec)
  local t = {from = spec.from, to = spec.to, text = spec.condition or "", priority = spec.priority or 0,
    blend_time = spec.blend_time, exit_time = spec.exit_time, order = #layer.transitions + 1}
  if t.text:match("^%s*$") then
    t.eval, t.names = function() return true end, {}
  else
    local fn, names = compile(t.text)
    if fn == nil then
      t.bad = true
      load_error(c, sformat("bad condition '%s' (%s -> %s): %s", t.text, tostring(spec.from_text), t.to, names))
    else
      t.eval, t.names = fn, names
    end
  end
  layer.transitions[#layer.transitions + 1] = t
  layer.sorted = nil
end

local function read_state(name, node)
  local s = {name = name, loop = jbool(node, "loop") or false, speed = jnum(node, "speed") or 1.0,
    blend_time = jnum(node, "blendTime"), blend_in = jnum(node, "blendInTime"),
    blend_out = jnum(node, "blendOutTime"), bone_mask = jstr(node, "boneMask"), events = {}}
  if jstr(node, "animation") then s.animation = jstr(node, "animation")
  elseif jstr(node, "blendSpace") then s.blend_space = jstr(node, "blendSpace") end
  for _, ev in ipairs(jlist(jget(node, "events"))) do
    local en = jstr(ev, "name")
    if en then
      s.events[#s.events + 1] = {name = en, time = jnum(ev, "time") or 0.0, normalized = jbool(ev, "normalized")
        or false}
    end
  end
  return s
end

local function load_json(c, root)
  if root == nil or root.t ~= J.OBJECT then load_error(c, "the state machine is not a JSON object"); return false end
  local layers_node = jget(root, "layers")
  if layers_node == nil or layers_node.t ~= J.ARRAY then
    load_error(c, "the state machine has no 'layers' array")
    return false
  end
  c.name = jstr(root, "name") or ""
  c.default_blend_time = jnum(root, "defaultBlendTime") or DEFAULT_BLEND_TIME
  c.started = false
  c.layers = {}
  c.bone_masks = {}
  for _, e in ipairs(jpairs(jget(root, "boneMasks"))) do
    local mask = {start_bone = jstr(e[2], "startBone")}
    local bones = jget(e[2], "bones")
    if bones and bones.t == J.ARRAY then
      mask.bones = {}
      for _, b in ipairs(bones.v) do
        if b.t == J.STRING then mask.bones[#mask.bones + 1] = b.v end
      end
    end
    c.bone_masks[e[1]] = mask
  end
  for _, e in ipairs(jpairs(jget(root, "parameters"))) do
    local name, node = e[1], e[2]
    local ptype = jstr(node, "type")
    if ptype == nil or not PARAM_TYPES[ptype] then
      load_error(c, sformat("parameter '%s' has an unknown type '%s'", name, tostring(ptype)))
    elseif ptype == "bool" then
      define(c.store, name, "bool", jbool(node, "default"))
    elseif ptype == "trigger" then
      define(c.store, name, "trigger")
    else
      define(c.store, name, ptype, jnum(node, "default") or 0, jnum(node, "min"), jnum(node, "max"))
    end
  end
  for i, ln in ipairs(layers_node.v) do
    local layer = new_layer(jstr(ln, "name") or ("Layer" .. (i - 1)), i - 1)
    layer.default_state = jstr(ln, "defaultState") or ""
    layer.weight = mmin(mmax(jnum(ln, "weight") or 1.0, 0.0), 1.0)
    layer.blend = jstr(ln, "blendMode") == "additive" and ABM_ADDITIVE or ABM_LERP
    layer.bone_mask = jstr(ln, "boneMask")
    for _, se in ipairs(jpairs(jget(ln, "states"))) do
      local s = read_state(se[1], se[2])
      if layer.state_map[s.name] == nil then layer.states[#layer.states + 1] = s end
      layer.state_map[s.name] = s
    end
    for _, tn in ipairs(jlist(jget(ln, "transitions"))) do
      local from, from_text = {}, nil
      local fnode = jget(tn, "from")
      if fnode and fnode.t == J.STRING then
        from[1] = fnode.v
      elseif fnode and fnode.t == J.ARRAY then
        for _, x in ipairs(fnode.v) do if x.t == J.STRING then from[#from + 1] = x.v end end
      end
      from_text = tconcat(from, "|")
      local to = jstr(tn, "to")
      if #from == 0 or to == nil then
        load_error(c, sformat("a transition of layer '%s' lacks 'from' or 'to'", layer.name))
      else
        local cond = jget(tn, "condition")
        local text = cond and cond.t == J.STRING and cond.v or ""
        add_transition(c, layer, {from = from, from_text = from_text, to = to, condition = text,
          priority = jnum(tn, "priority"), blend_time = jnum(tn, "blendTime"), exit_time = jnum(tn, "exitTime")})
      end
    end
    c.layers[#c.layers + 1] = layer
  end
  return true
end

----------------------------------------------------------------------------------------------------
-- Playing
----------------------------------------------------------------------------------------------------
local function controller_of(c) return E.sibling_component(c, "AnimationController") end
local function model_of(c) return E.sibling_component(c, "AnimatedModel") end

-- an animation path resolved once per machine: {name = resource name, length} or false
local function resolve(c, path)
  local r = c.animations[path]
  if r ~= nil then return r end
  r = false
  if path:sub(1, 7) == "uuid://" then
    load_error(c, sformat("cannot load animation %s: asset uuids cannot be resolved here", path))
  else
    local res = E.get_resource("Animation", path)
    if res then r = {name = REC[res].name, length = REC[res].length} end
  end
  c.animations[path] = r
  return r
end

-- what a state plays now: an ordered list of {path, weight, speed}
local function state_tracks(c, s)
  if s.animation then return {{path = s.animation, weight = 1.0, speed = 1.0}} end
  if s.blend_space then
    local bs = read_blend_space(c, s.blend_space)
    if bs then return blend_weights(bs, c.store) end
  end
  return {}
end

-- the animation that times the state (a blend space's heaviest), its length and the state's play rate
local function timing(c, layer)
  local s = layer.current
  if s == nil then return 0.0, 1.0 end
  local best
  for _, tr in ipairs(layer.tracks or {}) do
    if best == nil or tr.weight > best.weight then best = tr end
  end
  if best == nil then return 0.0, s.speed end
  local r = resolve(c, best.path)
  return r and r.length or 0.0, s.speed * best.speed
end
local function normalized_time(c, layer)
  local length, rate = timing(c, layer)
  local s = layer.current
  if s == nil then return 0.0 end
  if length <= 0.0 then return s.loop and 0.0 or 1.0 end
  local t = layer.state_time * rate / length
  if s.loop then return t - mfloor(t) end
  return mmin(mmax(t, 0.0), 1.0)
end
local function animation_finished(c, layer)
  local s = layer.current
  if s == nil or s.loop then return false end
  local length, rate = timing(c, layer)
  return length <= 0.0 or layer.state_time * rate >= length
end

local function apply_mask(c, ctrl, name, mask_name)
  local mask = mask_name and c.bone_masks[mask_name]
  if mask == nil then
    if mask_name and not c.logged["mask:" .. mask_name] then
      c.logged["mask:" .. mask_name] = true
      load_error(c, sformat("bone mask '%s' is not defined", mask_name))
    end
    return
  end
  if mask.start_bone then ctrl.proxy:SetStartBone(name, mask.start_bone) end
  if mask.bones then
    local model = model_of(c)
    local st = ctrl.proxy:GetAnimationState(name)
    if model and st then
      local keep = {}
      for _, b in ipairs(mask.bones) do keep[b] = true end
      for _, bone in ipairs(model.skeleton.bones) do st:SetBoneWeight(bone.name, keep[bone.name] and 1.0 or 0.0) end
    end
  end
end

local function start_animation(c, ctrl, layer, name, speed, fade)
  local s = layer.current
  local p = ctrl.proxy
  p:Play(name, layer.index, s.loop, fade)
  p:SetTime(name, 0.0)
  p:SetSpeed(name, s.speed * speed)
  p:SetBlendMode(name, layer.blend)
  p:SetRemoveOnCompletion(name, s.blend_space == nil)   -- a blend space keeps its points at weight 0
  apply_mask(c, ctrl, name, s.bone_mask or layer.bone_mask)
end

-- Bring the controller in line with the layer's state: its animations (one per resource; a blend space's points
-- sharing an animation add up) at the layer's weight times their blend weight, faded over `fade`; what the layer
-- played and no longer does fades out over `fade_out`.  Entering a state restarts every animation it plays.
local function sync(c, layer, fade, fade_out, entering)
  local tracks = state_tracks(c, layer.current)
  layer.tracks = tracks
  local names, weights, speeds = {}, {}, {}
  for _, tr in ipairs(tracks) do
    local r = resolve(c, tr.path)
    if r then
      tr.name = r.name
      if weights[r.name] == nil then
        names[#names + 1] = r.name
        weights[r.name], speeds[r.name] = 0.0, tr.speed
      end
      weights[r.name] = weights[r.name] + tr.weight
    end
  end
  layer.weights = weights
  local ctrl = controller_of(c)
  if ctrl then
    local p = ctrl.proxy
    local was = {}
    for _, old in ipairs(layer.playing) do
      was[old] = true
      if weights[old] == nil then
        p:SetRemoveOnCompletion(old, true)
        p:Stop(old, fade_out)
      end
    end
    for _, name in ipairs(names) do
      if entering or not was[name] then
        start_animation(c, ctrl, layer, name, speeds[name], fade)
      else
        local speed = f32(layer.current.speed * speeds[name])
        if p:GetSpeed(name) ~= speed then p:SetSpeed(name, speed) end
      end
      local target = f32(mmin(mmax(layer.weight * weights[name], 0.0), 1.0))
      if entering or p:GetFadeTarget(name) ~= target then p:Fade(name, target, fade) end
    end
  end
  layer.playing = names
end

-- a blend space's weights follow the parameters; every animation follows the layer's weight
local function refresh_weights(c, layer)
  if layer.current then sync(c, layer, layer.fade, layer.fade, false) end
end

local function enter(c, layer, s, fade, fade_out)
  if layer.current then layer.previous = layer.current.name end
  layer.current = s
  layer.state_time = 0.0
  layer.fade = f32(mmax(fade, 0.0))
  layer.blend_left = layer.fade
  sync(c, layer, layer.fade, f32(mmax(fade_out, 0.0)), true)
end

local function blend_time_of(c, t, target)
  if t and t.blend_time then return t.blend_time end
  if target.blend_in then return target.blend_in end
  if target.blend_time then return target.blend_time end
  return c.default_blend_time
end

local function sorted_transitions(layer)
  if layer.sorted == nil then
    local list = {}
    for i, t in ipairs(layer.transitions) do list[i] = t end
    tsort(list, function(a, b)
      if a.priority ~= b.priority then return a.priority > b.priority end
      return a.order < b.order
    end)
    layer.sorted = list
  end
  return layer.sorted
end

local function from_matches(t, current)
  for _, f in ipairs(t.from) do
    if f == "*" then
      if current.name ~= t.to then return true end   -- "*" never re-enters the target itself
    elseif f == current.name then
      return true
    end
  end
  return false
end

local function evaluate(c, layer, t)
  if t.bad then return false end
  local env = {}
  env.lookup = function(name)
    if name == "stateTime" then return layer.state_time end
    if name == "normalizedTime" then return normalized_time(c, layer) end
    if name == "animationFinished" then return animation_finished(c, layer) end
    local p = c.store.map[name]
    if p == nil then
      env.err = env.err or sformat("unknown name '%s'", name)
      return 0
    end
    return p.value
  end
  local v = t.eval(env)
  if env.err then
    t.bad = true
    load_error(c, sformat("bad condition '%s' (-> %s): %s", t.text, t.to, env.err))
    return false
  end
  return truth(v)
end

local function update_layer(c, layer, step)
  local s = layer.current
  if s == nil then return end
  layer.state_time = f32(layer.state_time + step)
  if layer.blend_left > 0.0 then layer.blend_left = f32(mmax(layer.blend_left - step, 0.0)) end
  refresh_weights(c, layer)
  for _, t in ipairs(sorted_transitions(layer)) do
    if from_matches(t, s) and (t.exit_time == nil or normalized_time(c, layer) >= t.exit_time)
        and evaluate(c, layer, t) then
      local target = layer.state_map[t.to]
      if target == nil then
        if not t.logged_target then
          t.logged_target = true
          load_error(c, sformat("transition to unknown state '%s' in layer '%s'", t.to, layer.name))
        end
      else
        for _, name in ipairs(t.names) do
          local p = c.store.map[name]
          if p and p.type == "trigger" then p.value = false end
        end
        local fade = blend_time_of(c, t, target)
        enter(c, layer, target, fade, s.blend_out or fade)
        return
      end
    end
  end
end

local function update(c, step)
  if not c.started then return end
  step = f32(step)
  for _, layer in ipairs(c.layers) do
    update_layer(c, layer, step)
    if c.removed then return end
  end
  reset_triggers(c.store)
end

----------------------------------------------------------------------------------------------------
-- The component
----------------------------------------------------------------------------------------------------
local ASM = class("AnimationStateMachine")

local function scene_update(c)
  return function(_, data) update(c, data.TimeStep:GetFloat()) end
end
local function update_subscription(c)
  local scene = c.node and c.node.scene
  if scene and c.enabled and c.node.enabled then
    E.subscribe(c, nil, scene.proxy, "SceneUpdate", scene_update(c))
  else
    E.unsubscribe(c, false, "SceneUpdate")
  end
end

E.COMPONENT_FACTORIES.AnimationStateMachine = function(c)
  c.name = ""
  c.default_blend_time = DEFAULT_BLEND_TIME
  c.store = new_store()
  c.layers = {}
  c.bone_masks = {}
  c.blend_spaces = {}
  c.animations = {}
  c.logged = {}
  c.started = false
  c.on_scene_set = function(x) update_subscription(x) end
  c.on_scene_removed = function(x) E.unsubscribe(x, false, "SceneUpdate") end
  c.on_set_enabled = update_subscription
  c.on_removed = function(x) E.unsubscribe_all(x) end
end

local M = ASM.methods
M.LoadFromJSON = function(self, json)
  local c = comp_rec(self)
  local r = REC[json]
  if r == nil or r.kind ~= "json" then arg_error(1, "LoadFromJSON", "JSONValue", json) end
  return load_json(c, r.node)
end
M.LoadFromJSONFile = function(self, file)
  local c = comp_rec(self)
  if file == nil then load_error(c, "LoadFromJSONFile: no file"); return false end
  local root = E.json_root(file)
  if root == nil then arg_error(1, "LoadFromJSONFile", "JSONFile", file) end
  return load_json(c, root)
end
M.SetName = function(self, name) comp_rec(self).name = check_string(name, 1, "SetName") end
M.GetName = function(self) return comp_rec(self).name end
local function first_layer(c)
  if #c.layers == 0 then c.layers[1] = new_layer("Base", 0) end
  return c.layers[1]
end
M.SetDefaultState = function(self, name)
  first_layer(comp_rec(self)).default_state = check_string(name, 1, "SetDefaultState")
end
M.SetDefaultBlendTime = function(self, time)
  comp_rec(self).default_blend_time = mmax(check_number(time, 1, "SetDefaultBlendTime"), 0.0)
end
M.Start = function(self)
  local c = comp_rec(self)
  for _, layer in ipairs(c.layers) do
    local s = layer.state_map[layer.default_state]
    layer.previous = ""
    layer.current = nil
    if s == nil then
      load_error(c, sformat("layer '%s' has no state '%s'", layer.name, layer.default_state))
      layer.playing, layer.weights, layer.tracks = {}, {}, {}
    else
      enter(c, layer, s, 0.0, 0.0)
    end
  end
  c.started = true
end
M.GetNumLayers = function(self) return #comp_rec(self).layers end
M.SetLayerWeight = function(self, index, weight)
  local c = comp_rec(self)
  local layer = layer_of(c, index, 1, "SetLayerWeight")
  weight = check_number(weight, 2, "SetLayerWeight")
  if layer == nil then return end
  layer.weight = f32(mmin(mmax(weight, 0.0), 1.0))
  refresh_weights(c, layer)
end
M.GetLayerWeight = function(self, index)
  local layer = layer_of(comp_rec(self), index, 1, "GetLayerWeight")
  return layer and layer.weight or 0.0
end
M.AddTransitionSimple = function(self, from, to, condition)
  local c = comp_rec(self)
  from = check_string(from, 1, "AddTransitionSimple")
  to = check_string(to, 2, "AddTransitionSimple")
  condition = check_string(condition, 3, "AddTransitionSimple")
  add_transition(c, first_layer(c), {from = {from}, from_text = from, to = to, condition = condition})
end

local function opt_range(v, n, fname)
  if v == nil then return nil end
  return check_number(v, n, fname)
end
M.DefineFloat = function(self, name, default, min, max)
  define(comp_rec(self).store, check_string(name, 1, "DefineFloat"), "float", opt_number(default, 2,
    "DefineFloat", 0.0), opt_range(min, 3, "DefineFloat"), opt_range(max, 4, "DefineFloat"))
end
M.DefineInt = function(self, name, default, min, max)
  define(comp_rec(self).store, check_string(name, 1, "DefineInt"), "int", opt_number(default, 2, "DefineInt", 0),
    opt_range(min, 3, "DefineInt"), opt_range(max, 4, "DefineInt"))
end
M.DefineBool = function(self, name, default)
  if default ~= nil then check_bool(default, 2, "DefineBool") end
  define(comp_rec(self).store, check_string(name, 1, "DefineBool"), "bool", default)
end
M.DefineTrigger = function(self, name)
  define(comp_rec(self).store, check_string(name, 1, "DefineTrigger"), "trigger")
end
M.GetParameterContext = function(self) return context_of(comp_rec(self).store) end
M.SetParameterContext = function(self, context)
  local c = comp_rec(self)
  local r = REC[context]
  if r == nil or r.kind ~= "parameter_context" then arg_error(1, "SetParameterContext", "ParameterContext", context) end
  c.store = r.store
end
M.SetFloat = function(self, name, v) set_float(comp_rec(self).store, name, v) end
M.SetInt = function(self, name, v) set_int(comp_rec(self).store, name, v) end
M.SetBool = function(self, name, v) set_bool(comp_rec(self).store, name, v) end
M.SetTrigger = function(self, name) set_trigger(comp_rec(self).store, name) end
M.GetFloat = function(self, name) return get_float(comp_rec(self).store, name) end
M.GetInt = function(self, name) return get_int(comp_rec(self).store, name) end
M.GetBool = function(self, name) return get_bool(comp_rec(self).store, name) end

M.GetCurrentState = function(self, index)
  local layer = layer_of(comp_rec(self), index, 1, "GetCurrentState")
  return layer and layer.current and layer.current.name or ""
end
M.GetPreviousState = function(self, index)
  local layer = layer_of(comp_rec(self), index, 1, "GetPreviousState")
  return layer and layer.previous or ""
end
M.IsInState = function(self, name, index)
  name = check_string(name, 1, "IsInState")
  local layer = layer_of(comp_rec(self), index, 2, "IsInState")
  return layer ~= nil and layer.current ~= nil and layer.current.name == name
end
M.GetStateTime = function(self, index)
  local layer = layer_of(comp_rec(self), index, 1, "GetStateTime")
  return layer and layer.current and layer.state_time or 0.0
end
M.GetNormalizedTime = function(self, index)
  local c = comp_rec(self)
  local layer = layer_of(c, index, 1, "GetNormalizedTime")
  return layer and normalized_time(c, layer) or 0.0
end
M.IsAnimationFinished = function(self, index)
  local c = comp_rec(self)
  local layer = layer_of(c, index, 1, "IsAnimationFinished")
  return layer ~= nil and animation_finished(c, layer)
end
M.ForceState = function(self, name, index)
  local c = comp_rec(self)
  name = check_string(name, 1, "ForceState")
  local i = index == nil and 0 or E.anim_index(index, 2, "ForceState")
  local layer = c.layers[i + 1]
  if layer == nil then return end
  local s = layer.state_map[name]
  if s == nil then
    load_error(c, sformat("ForceState: layer '%s' has no state '%s'", layer.name, name))
    return
  end
  enter(c, layer, s, 0.0, 0.0)
  c.started = true
end
M.IsTransitioning = function(self, index)
  local layer = layer_of(comp_rec(self), index, 1, "IsTransitioning")
  return layer ~= nil and layer.blend_left > 0.0
end
M.Update = function(self, step)
  update(comp_rec(self), check_number(step, 1, "Update"))
end

-- Debug output: INFO lines of the log
local function info(fmt, ...) E.log("INFO", sformat(fmt, ...)) end
M.DebugPrintParameters = function(self)
  local c = comp_rec(self)
  info("AnimationStateMachine '%s' parameters: %d", c.name, #c.store.list)
  for _, p in ipairs(c.store.list) do info("  %s", param_text(p)) end
end
M.DebugPrintState = function(self)
  local c = comp_rec(self)
  for i, layer in ipairs(c.layers) do
    info("  layer %d '%s': state '%s' (previous '%s') time %g normalized %g%s", i - 1, layer.name,
      layer.current and layer.current.name or "", layer.previous, layer.state_time, normalized_time(c, layer),
      layer.blend_left > 0.0 and " transitioning" or "")
  end
end
M.DebugPrintTransitions = function(self)
  local c = comp_rec(self)
  for i, layer in ipairs(c.layers) do
    for _, t in ipairs(sorted_transitions(layer)) do
      info("  layer %d: %s -> %s when '%s' priority %g%s", i - 1, tconcat(t.from, "|"), t.to, t.text, t.priority,
        t.bad and " (invalid)" or "")
    end
  end
end
M.DebugPrintLayers = function(self)
  local c = comp_rec(self)
  for i, layer in ipairs(c.layers) do
    info("  layer %d '%s': weight %g %s, %d states, %d transitions, bone mask '%s'", i - 1, layer.name,
      layer.weight, layer.blend == ABM_ADDITIVE and "additive" or "lerp", #layer.states, #layer.transitions,
      layer.bone_mask or "")
  end
end
M.DebugEvaluateCondition = function(self, text)
  local c = comp_rec(self)
  text = check_string(text, 1, "DebugEvaluateCondition")
  local fn, names = compile(text)
  if fn == nil then info("condition '%s': error: %s", text, names); return end
  local layer = c.layers[1] or new_layer("", 0)
  local t = {eval = fn, names = names, text = text, to = "?"}
  info("condition '%s' = %s", text, tostring(evaluate(c, layer, t)))
end
M.DebugPrintSkeleton = function(self)
  local model = model_of(comp_rec(self))
  if model == nil then info("no AnimatedModel"); return end
  for i, bone in ipairs(model.skeleton.bones) do info("  bone %d '%s' parent %d", i - 1, bone.name, bone.parentIndex
    or -1) end
end
M.DebugPrintBlendSpaceTracks = function(self)
  local c = comp_rec(self)
  for i, layer in ipairs(c.layers) do
    if layer.current and layer.current.blend_space then
      for _, tr in ipairs(layer.tracks or {}) do
        info("  layer %d '%s': %s weight %g", i - 1, layer.current.name, tr.path, tr.weight)
      end
    end
  end
end
