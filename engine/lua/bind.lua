-- bind.lua: turns the registry (declarations) and E.IMPL (implementations) into the tables games use.
--
-- Contract for implementation modules (engine/lua/runtime/*.lua, run with _ENV = E):
--   local V = class("Vector3")          -- the implementation record of a declared class
--   V.new = function(...) ... end       -- constructor (all declared overloads)
--   V.methods.Normalize = function(self) ... end
--   V.ops.add = function(a, b) ... end  -- operators by registry name (add sub mul div unm eq lt le tostring ...)
--   V.statics.ZERO = function() return <fresh value> end
--   V.staticfunctions.FromString = function(...) end
--   V.mt                                -- the instance metatable; value types: setmetatable({x=..}, V.mt)
-- Object classes (non-value) keep their private state outside the instance table (see scene.lua).
-- A declared member without an implementation raises a loud, named missing-API error.
local registry = E.REGISTRY
E.UNDECLARED = {}   -- implemented but not declared: reported by coverage, kept empty by a test

local error, type, setmetatable, rawget, rawset, pairs, ipairs, next = error, type, setmetatable, rawget, rawset,
  pairs, ipairs, next
local sformat = string.format
local tsort = table.sort

local sorted_keys = E.sorted_keys

local function missing_fn(name)
  return function() return missing(name) end
end

local OPERATOR_EVENTS = {add = "__add", sub = "__sub", mul = "__mul", div = "__div", unm = "__unm", eq = "__eq",
  lt = "__lt", le = "__le", tostring = "__tostring", concat = "__concat", len = "__len", idiv = "__idiv",
  mod = "__mod"}

local function lineage(name)
  local chain = {}
  while name do
    local decl = registry.classes[name]
    chain[#chain + 1] = decl
    name = decl.base
  end
  return chain
end
E.lineage = lineage

-- The implementation of member `member` for class `name`: most derived implementation wins.
local function find_impl(chain, field, member)
  for _, decl in ipairs(chain) do
    local impl = IMPL[decl.name]
    if impl then
      local fn = impl[field][member]
      if fn ~= nil then return fn end
    end
  end
  return nil
end

E.PUBLIC_FALLBACK = {}   -- class name -> table consulted for names the game added to a class table

local function bind_class(name)
  local decl = registry.classes[name]
  local impl = class(name)
  local chain = lineage(name)
  local methods, getters, setters = {}, {}, {}
  for i = #chain, 1, -1 do
    local d = chain[i]
    for _, m in ipairs(sorted_keys(d.methods)) do
      if d.methods[m].kind == "method" then
        methods[m] = find_impl(chain, "methods", m) or missing_fn(name .. ":" .. m)
      end
    end
    for _, p in ipairs(sorted_keys(d.properties)) do
      local prop = d.properties[p]
      getters[p] = methods[prop.get]
      if prop.set then setters[p] = methods[prop.set] end
    end
  end
  -- Implementations may add undeclared private helpers only under names starting with "_".
  for m in pairs(impl.methods) do
    if methods[m] == nil and m:sub(1, 1) ~= "_" then
      E.UNDECLARED[#E.UNDECLARED + 1] = name .. ":" .. m
    end
  end
  impl.bound_methods, impl.getters, impl.setters = methods, getters, setters
  local fallback = {}
  E.PUBLIC_FALLBACK[name] = fallback
  setmetatable(methods, {__index = function(_, k) local f = fallback[k]; if f ~= nil then return f end end})

  local mt = impl.mt
  mt.__name = name
  mt.__metatable = false
  if decl.value and next(getters) == nil then
    mt.__index = methods
  elseif decl.value then
    mt.__index = function(t, k)
      local m = methods[k]
      if m ~= nil then return m end
      local g = getters[k]
      if g ~= nil then return g(t) end
      return nil
    end
    mt.__newindex = function(t, k, v)
      local s = setters[k]
      if s ~= nil then return s(t, v) end
      rawset(t, k, v)
    end
  else
    mt.__index = function(t, k)
      local g = getters[k]
      if g ~= nil then return g(t) end
      return methods[k]
    end
    mt.__newindex = function(t, k, v)
      local s = setters[k]
      if s ~= nil then return s(t, v) end
      -- like tolua++'s peer table: games may hang their own fields on engine objects. A read-only property too:
      -- tolua++ stores the value beside the object without a word (class_newindex_event), and the stored field then
      -- hides the property when read, as tolua++ reads the peer table first.
      rawset(t, k, v)
    end
  end
  for _, op in ipairs(sorted_keys(decl.operators)) do
    mt[OPERATOR_EVENTS[op]] = find_impl(chain, "ops", op) or missing_fn(name .. ":operator " .. op)
  end
  if impl.ops.tostring and not mt.__tostring then mt.__tostring = impl.ops.tostring end
  if impl.ops.eq and not mt.__eq then mt.__eq = impl.ops.eq end
  if impl.ops.close then mt.__close = impl.ops.close end
end

local class_names = sorted_keys(registry.classes)
for _, name in ipairs(class_names) do bind_class(name) end
for _, name in ipairs(sorted_keys(FUNCTIONS)) do
  if registry.functions[name] == nil then E.UNDECLARED[#E.UNDECLARED + 1] = "function " .. name end
end
for _, name in ipairs(sorted_keys(IMPL)) do
  if registry.classes[name] == nil then E.UNDECLARED[#E.UNDECLARED + 1] = name end
end

-- The public class table of `name` for one environment.
local function public_class(name, for_game)
  local decl = registry.classes[name]
  local impl = IMPL[name]
  local ctor = impl.new
  if ctor == nil and #decl.constructors > 0 then ctor = missing_fn(name .. ":new") end
  local statics = {}
  for _, s in ipairs(sorted_keys(decl.statics)) do
    local fn = impl.statics[s]
    statics[s] = fn or missing_fn(name .. "." .. s)
  end
  local sfuncs = {}
  for _, d in ipairs(lineage(name)) do
    for _, m in ipairs(sorted_keys(d.methods)) do
      if d.methods[m].kind == "staticfunction" and sfuncs[m] == nil then
        sfuncs[m] = find_impl(lineage(name), "staticfunctions", m) or missing_fn(name .. "." .. m)
      end
    end
  end
  local C = {}
  local function new(first, ...)
    if ctor == nil then error(sformat("%s cannot be constructed from Lua", name), 2) end
    if first == C then return ctor(...) end
    return ctor(first, ...)
  end
  local methods = impl.bound_methods
  setmetatable(C, {
    __call = function(_, ...)
      if ctor == nil then error(sformat("%s cannot be constructed from Lua", name), 2) end
      return ctor(...)
    end,
    __index = function(_, k)
      local s = statics[k]
      if s ~= nil then return s() end
      local f = sfuncs[k]
      if f ~= nil then return f end
      if k == "new" then return new end
      if k == "delete" then return function() end end
      return rawget(methods, k)
    end,
    __newindex = function(t, k, v)
      rawset(t, k, v)
      if for_game then E.PUBLIC_FALLBACK[name][k] = v end
    end,
    __name = name .. " (class)",
  })
  return C
end

-- Fill `env` with the declared API: classes, constants, enums, global objects and functions.
function E.install_api(env, for_game)
  for _, name in ipairs(class_names) do
    env[name] = public_class(name, for_game)
  end
  for _, enum_name in ipairs(sorted_keys(registry.enums)) do
    for k, v in pairs(registry.enums[enum_name].values) do env[k] = v end
  end
  for k, c in pairs(registry.constants) do env[k] = c.value end
  if for_game then
    for _, name in ipairs(sorted_keys(registry.functions)) do
      env[name] = FUNCTIONS[name] or missing_fn(name)
    end
    for _, name in ipairs(sorted_keys(registry.globals)) do
      local value = GLOBALS[name]
      if value == nil then
        value = E.new_stub_object(registry.globals[name].type)
      end
      env[name] = value
    end
  end
end

-- An instance of a declared class with no implementation yet: every member is loud.
function E.new_stub_object(class_name)
  local impl = IMPL[class_name]
  if impl == nil then return nil end
  return setmetatable({}, impl.mt)
end

E.EVENT_PARAMS = {}
for name, decl in pairs(registry.events) do
  local params = {}
  for k, v in pairs(decl.params) do params[k] = v end
  E.EVENT_PARAMS[name] = params
end
for _, fn in ipairs(E.DEFERRED) do fn() end

-- Declared versus implemented, for `python -m engine coverage`.
function E.coverage()
  local totals = {classes = {declared = 0, implemented = 0}, members = {declared = 0, implemented = 0},
    functions = {declared = 0, implemented = 0}, events = {declared = 0, implemented = 0}}
  local missing = {}
  for _, name in ipairs(class_names) do
    local decl = registry.classes[name]
    local impl = IMPL[name]
    totals.classes.declared = totals.classes.declared + 1
    local any = impl and (impl.new or next(impl.methods) or next(impl.statics) or E.COMPONENT_FACTORIES and
      E.COMPONENT_FACTORIES[name])
    if any then totals.classes.implemented = totals.classes.implemented + 1 end
    local function count(kind, member, found)
      totals.members.declared = totals.members.declared + 1
      if found then totals.members.implemented = totals.members.implemented + 1
      else missing[#missing + 1] = name .. kind .. member end
    end
    for _, m in ipairs(sorted_keys(decl.methods)) do
      local field = decl.methods[m].kind == "staticfunction" and "staticfunctions" or "methods"
      count(decl.methods[m].kind == "staticfunction" and "." or ":", m, find_impl(lineage(name), field, m) ~= nil)
    end
    for _, s in ipairs(sorted_keys(decl.statics)) do count(".", s, impl and impl.statics[s] ~= nil) end
    if #decl.constructors > 0 then count(":", "new", impl and impl.new ~= nil) end
  end
  for _, name in ipairs(sorted_keys(registry.functions)) do
    totals.functions.declared = totals.functions.declared + 1
    if FUNCTIONS[name] then totals.functions.implemented = totals.functions.implemented + 1
    else missing[#missing + 1] = name .. "()" end
  end
  for _, name in ipairs(sorted_keys(registry.events)) do
    totals.events.declared = totals.events.declared + 1
  end
  local undeclared = {}
  for i, n in ipairs(E.UNDECLARED) do undeclared[i] = n end
  return {totals = totals, missing = missing, undeclared = undeclared}
end
