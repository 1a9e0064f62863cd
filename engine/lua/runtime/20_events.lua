-- Events: StringHash, Variant, VariantMap and the subscription table, with Urho3D's semantics:
-- one handler per (receiver, event[, sender]); receivers called in subscription order; a handler
-- named by string is resolved when subscribing; handlers get (eventType: StringHash, eventData: VariantMap).
local error, type, setmetatable, rawget, rawset, pairs, ipairs, tostring, select =
  error, type, setmetatable, rawget, rawset, pairs, ipairs, tostring, select
local sformat, sbyte, mtype, mfloor, mtointeger = string.format, string.byte, math.type, math.floor, math.tointeger

----------------------------------------------------------------------------------------------------
-- StringHash: Urho3D's SDBM hash over the lower-cased? (no: case-sensitive) bytes, 32-bit.
----------------------------------------------------------------------------------------------------
local SH = class("StringHash")
local function sdbm(s)
  local h = 0
  for i = 1, #s do
    h = (sbyte(s, i) + (h << 6) + (h << 16) - h) & 0xffffffff
  end
  return h
end
E.sdbm = sdbm
local function new_hash(value, name)
  return setmetatable({value_ = value, name_ = name}, SH.mt)
end
E.StringHash_new = function(s) return new_hash(sdbm(s), s) end
SH.new = function(a)
  if a == nil then return new_hash(0, "") end
  if type(a) == "string" then return new_hash(sdbm(a), a) end
  if type(a) == "number" then return new_hash(mfloor(a) & 0xffffffff, nil) end
  if E.is(a, "StringHash") then return new_hash(a.value_, a.name_) end
  error("bad argument #1 to 'StringHash'", 2)
end
SH.methods.Value = function(self) return self.value_ end
SH.methods.ToString = function(self) return sformat("%08X", self.value_) end
SH.methods.ToHash = function(self) return self.value_ end
SH.ops.eq = function(a, b) return a.value_ == b.value_ end
SH.ops.lt = function(a, b) return a.value_ < b.value_ end
SH.ops.tostring = function(self) return sformat("%08X", self.value_) end
SH.statics.ZERO = function() return new_hash(0, "") end

----------------------------------------------------------------------------------------------------
-- Variant: a tagged value.  Lua values convert the way Urho3D's Lua binding converts them.
----------------------------------------------------------------------------------------------------
local VT = class("Variant")
local vmt = VT.mt
local function new_variant(vtype, value) return setmetatable({type_ = vtype, value_ = value}, vmt) end
E.Variant_new = new_variant

local VALUE_CLASSES = {"Vector2", "Vector3", "Vector4", "Quaternion", "Color", "IntVector2", "IntVector3",
  "IntRect", "Rect", "Matrix3", "Matrix3x4", "Matrix4", "StringHash", "VariantMap", "ResourceRef", "ResourceRefList"}
local function variant_of(v, hint)
  local t = type(v)
  if t == "nil" then return new_variant("None", nil) end
  if t == "boolean" then return new_variant("Bool", v) end
  if t == "number" then
    if hint == "Int" or hint == "Bool" or hint == "Float" or hint == "Double" or hint == "Int64" or hint == "UInt" then
      return new_variant(hint, v)
    end
    if mtype(v) == "integer" then return new_variant("Int", v) end
    return new_variant("Float", v)
  end
  if t == "string" then return new_variant(hint == "Buffer" and "Buffer" or "String", v) end
  if E.is(v, "Variant") then return v end
  for _, cname in ipairs(VALUE_CLASSES) do
    if E.is(v, cname) then return new_variant(cname, v) end
  end
  return new_variant("Ptr", v)
end
E.variant_of = variant_of
VT.new = function(v, hint)
  if E.is(v, "Variant") then return new_variant(v.type_, v.value_) end
  return variant_of(v, hint)
end

local function numeric(self)
  local v = self.value_
  if type(v) == "number" then return v end
  if type(v) == "boolean" then return v and 1 or 0 end
  return nil
end
local M = VT.methods
M.GetInt = function(self) local n = numeric(self); if n == nil then return 0 end; return mtointeger(n) or (n >= 0 and mfloor(n) or -mfloor(-n)) end
M.GetUInt = M.GetInt
M.GetInt64 = M.GetInt
M.GetUInt64 = M.GetInt
M.GetFloat = function(self) local n = numeric(self); if n == nil then return 0.0 end; return n + 0.0 end
M.GetDouble = M.GetFloat
M.GetBool = function(self)
  local v = self.value_
  if type(v) == "boolean" then return v end
  if type(v) == "number" then return v ~= 0 end
  return false
end
M.GetString = function(self)
  local v = self.value_
  if type(v) == "string" then return v end
  return ""
end
M.GetBuffer = function(self) local v = self.value_; if type(v) == "string" then return v end; return "" end
M.GetPtr = function(self, _type_name)
  local v = self.value_
  if self.type_ == "Ptr" then return v end
  return nil
end
M.GetVoidPtr = M.GetPtr
local function getter_for(cname, default)
  return function(self)
    if self.type_ == cname then return self.value_ end
    return default()
  end
end
-- Defined now, not deferred: the binder copies implementations when it binds a class, so a method added
-- after binding would stay missing.  The math modules (10-13) have registered their constructors by now.
for _, cname in ipairs({"Vector2", "Vector3", "Vector4", "Quaternion", "Color", "IntVector2", "IntVector3",
                        "IntRect", "Rect", "Matrix3", "Matrix3x4", "Matrix4"}) do
  local impl = IMPL[cname]
  if impl and impl.new then M["Get" .. cname] = getter_for(cname, impl.new) end
end
M.GetStringHash = function(self)
  if self.type_ == "StringHash" then return self.value_ end
  return E.StringHash_new("")
end
M.GetVariantMap = function(self)
  if self.type_ == "VariantMap" then return self.value_ end
  return E.VariantMap_new()
end
M.GetVariantVector = function(self) if type(self.value_) == "table" and self.type_ == "VariantVector" then return self.value_ end; return {} end
M.GetStringVector = function(self) if type(self.value_) == "table" and self.type_ == "StringVector" then return self.value_ end; return {} end
M.Get = function(self) return self.value_ end
M.Set = function(self, rhs) self.type_, self.value_ = rhs.type_, rhs.value_ end
M.Clear = function(self) self.type_, self.value_ = "None", nil end
M.GetType = function(self) return E.VARIANT_TYPE_IDS[self.type_] or 0 end
M.GetTypeName = function(self) return self.type_ end
M.IsEmpty = function(self) return self.type_ == "None" end
M.IsZero = function(self)
  local v = self.value_
  return v == nil or v == 0 or v == false or v == ""
end
M.ToString = function(self) return tostring(self.value_) end
VT.ops.eq = function(a, b) return a.type_ == b.type_ and a.value_ == b.value_ end
VT.ops.tostring = function(self) return tostring(self.value_) end
M.GetResourceRef = function(self)
  if self.type_ == "ResourceRef" then return self.value_ end
  return IMPL.ResourceRef.new()
end
M.GetResourceRefList = function(self)
  if self.type_ == "ResourceRefList" then return self.value_ end
  return IMPL.ResourceRefList.new()
end
-- Urho3D's VariantType numbers (Core/Variant.h), one name each.
E.VARIANT_TYPE_IDS = {None = 0, Int = 1, Bool = 2, Float = 3, Vector2 = 4, Vector3 = 5, Vector4 = 6, Quaternion = 7,
  Color = 8, String = 9, Buffer = 10, VoidPtr = 11, ResourceRef = 12, ResourceRefList = 13, VariantVector = 14,
  VariantMap = 15, IntRect = 16, IntVector2 = 17, Ptr = 18, Matrix3 = 19, Matrix3x4 = 20, Matrix4 = 21, Double = 22,
  StringVector = 23, Rect = 24, IntVector3 = 25, Int64 = 26}

----------------------------------------------------------------------------------------------------
-- VariantMap: string or StringHash keys; reading gives a Variant, writing converts a Lua value.
----------------------------------------------------------------------------------------------------
local VM = class("VariantMap")
local vm_store = setmetatable({}, {__mode = "k"})
local vmmt = VM.mt
local function key_of(k)
  if type(k) == "string" then return k end
  if E.is(k, "StringHash") then return k.name_ or k.value_ end
  return k
end
-- The entry for key `k`: by name, or by the name's hash when the map was read from bytes that carry only hashes
-- (Deserializer:ReadVariantMap, 58_serializer.lua).
local function map_get(values, k)
  local key = key_of(k)
  local v = values[key]
  if v == nil and type(key) == "string" then v = values[sdbm(key)] end
  return v
end
local function new_map(values)
  local m = setmetatable({}, vmmt)
  vm_store[m] = values or {}
  return m
end
E.VariantMap_new = new_map
E.variant_map_store = vm_store
VM.new = function(other)
  local values = {}
  if other ~= nil and vm_store[other] then
    for k, v in pairs(vm_store[other]) do values[k] = v end
  end
  return new_map(values)
end
-- Event data maps are built from a Lua table {Name = value} plus the event's declared Variant types.
function E.event_data(event_name, fields)
  local values = {}
  local decl = E.EVENT_PARAMS[event_name]
  for k, v in pairs(fields) do
    values[k] = variant_of(v, decl and decl[k])
  end
  return new_map(values)
end

local map_methods = VM.methods
E.defer(function()
  local methods = VM.bound_methods or map_methods
  vmmt.__index = function(t, k)
    local values = vm_store[t]
    local m = methods[k]
    if m ~= nil then return m end
    return map_get(values, k)   -- nil for a missing key, as Urho3D's VariantMap index
  end
  vmmt.__newindex = function(t, k, v)
    vm_store[t][key_of(k)] = variant_of(v)
  end
end)
for _, vt in ipairs({"Int", "Bool", "Float", "String", "Buffer", "Vector2", "Vector3", "Quaternion",
                     "Color", "IntVector2", "IntVector3", "IntRect", "StringHash", "VariantMap",
                     "VariantVector", "Matrix3", "Matrix3x4", "Matrix4"}) do
  local getter = "Get" .. vt
  map_methods[getter] = function(self, k)
    local v = map_get(vm_store[self], k) or new_variant("None", nil)
    local read = VT.bound_methods and VT.bound_methods[getter] or M[getter]
    if read == nil then return nil end
    return read(v)
  end
end

----------------------------------------------------------------------------------------------------
-- Subscriptions
----------------------------------------------------------------------------------------------------
local subs = {}            -- event name -> array of {receiver=, sender=, fn=, self=, alive=true}
E.subscriptions = subs
local GLOBAL_RECEIVER = "script"
E.GLOBAL_RECEIVER = GLOBAL_RECEIVER

local function event_name_of(e)
  if type(e) == "string" then return e end
  if E.is(e, "StringHash") then return e.name_ or sformat("%08X", e.value_) end
  return nil
end
E.event_name_of = event_name_of

-- Resolve a handler: a function, or one named by string: a global function of the game ("Handle",
-- "Module.handle"), or, for script objects, a method of the object.
local function resolve_handler(receiver_self, handler)
  if type(handler) == "function" then
    -- a script object's function handler is called like its methods: handler(self, eventType, eventData)
    if receiver_self ~= nil then return function(...) return handler(receiver_self, ...) end end
    return handler
  end
  if type(handler) ~= "string" then return nil end
  if receiver_self ~= nil then
    local name = handler:match("[:%.]([%w_]+)$") or handler
    local fn = receiver_self[name]
    if type(fn) == "function" then
      return function(...) return fn(receiver_self, ...) end
    end
    return nil
  end
  local env = E.game_env
  local value = env
  for part in handler:gmatch("[^%.:]+") do
    if type(value) ~= "table" then return nil end
    value = value[part]
  end
  if type(value) == "function" then return value end
  return nil
end

function E.subscribe(receiver, receiver_self, sender, event, handler)
  local name = event_name_of(event)
  if name == nil then error("bad event name for SubscribeToEvent", 3) end
  local fn = resolve_handler(receiver_self, handler)
  if fn == nil then
    E.log("ERROR", sformat("Event handler function %s not found", tostring(handler)))
    return
  end
  local list = subs[name]
  if list == nil then list = {}; subs[name] = list end
  for _, s in ipairs(list) do
    if s.alive and s.receiver == receiver and s.sender == sender then
      s.fn = fn
      return
    end
  end
  list[#list + 1] = {receiver = receiver, sender = sender, fn = fn, alive = true}
end

function E.unsubscribe(receiver, sender, event)
  local name = event_name_of(event)
  local list = name and subs[name]
  if not list then return end
  local keep = {}
  for _, s in ipairs(list) do
    if s.receiver == receiver and (sender == false or s.sender == sender) then
      s.alive = false
    else
      keep[#keep + 1] = s
    end
  end
  subs[name] = keep
end

function E.unsubscribe_all(receiver, except)
  for _, name in ipairs(E.sorted_keys(subs)) do
    if not (except and except[name]) then E.unsubscribe(receiver, false, name) end
  end
end

function E.has_subscribers(name)
  local list = subs[name]
  return list ~= nil and #list > 0
end

-- Objects that block events (Object:SetBlockEvents) receive none: keyed by the object and by its record, as
-- engine receivers subscribe with either.
local BLOCKED = setmetatable({}, {__mode = "k"})
E.blocked_receivers = BLOCKED

E.event_sender = nil
-- Events sent from handlers of events: Urho3D has no limit (a handler that sends the event it handles recurses
-- until the process crashes); here a clear error, well before Lua's C stack limit.
local MAX_EVENT_DEPTH = 50
local depth = 0
function E.events_unwound() depth = 0 end   -- at the top level (E.top) no event is being sent
-- Send `name` with data (a Lua table of fields, or a VariantMap) from `sender` (nil for none).  The game's
-- SendEvent calls tail-call this: level 2 is the game's line.
function E.send_event(name, fields, sender)
  if type(fields) ~= "table" then
    error(sformat("bad argument #2 to 'SendEvent' (VariantMap expected, got %s)", type(fields)), 2)
  end
  local list = subs[name]
  if list == nil or #list == 0 then return end
  if depth >= MAX_EVENT_DEPTH then
    error(sformat("SendEvent: events nested deeper than %d levels (sending %s from a handler of the event it "
      .. "handles?)", MAX_EVENT_DEPTH, tostring(name)), 2)
  end
  local data = fields
  if not E.is(fields, "VariantMap") then data = E.event_data(name, fields or {}) end
  local hash = E.StringHash_new(name)
  local snapshot = {}
  for i, s in ipairs(list) do snapshot[i] = s end
  local previous_sender = E.event_sender
  depth = depth + 1
  -- As Urho3D's Object::SendEvent: first the receivers subscribed to this sender, then the others; a receiver
  -- with both kinds of subscription is called once, by its sender-specific handler.
  local processed
  if sender ~= nil then
    for _, s in ipairs(snapshot) do
      if s.alive and s.sender == sender and not BLOCKED[s.receiver] then
        processed = processed or {}
        processed[s.receiver] = true
        E.event_sender = sender
        E.protected(name, s.fn, hash, data)
      end
    end
  end
  for _, s in ipairs(snapshot) do
    if s.alive and s.sender == nil and not (processed and processed[s.receiver]) and not BLOCKED[s.receiver] then
      E.event_sender = sender
      E.protected(name, s.fn, hash, data)
    end
  end
  depth = depth - 1
  E.event_sender = previous_sender
end

-- Global functions (the LuaScript subsystem is the receiver).
FUNCTIONS.SubscribeToEvent = function(a, b, c)
  if c ~= nil then return E.subscribe(GLOBAL_RECEIVER, nil, a, b, c) end
  return E.subscribe(GLOBAL_RECEIVER, nil, nil, a, b)
end
FUNCTIONS.UnsubscribeFromEvent = function(a, b)
  if b ~= nil then return E.unsubscribe(GLOBAL_RECEIVER, a, b) end
  return E.unsubscribe(GLOBAL_RECEIVER, false, a)
end
FUNCTIONS.UnsubscribeFromAllEvents = function() return E.unsubscribe_all(GLOBAL_RECEIVER) end
FUNCTIONS.UnsubscribeFromAllEventsExcept = function(list)
  local except = {}
  for _, e in ipairs(list or {}) do
    local name = event_name_of(e)
    if name ~= nil then except[name] = true end
  end
  return E.unsubscribe_all(GLOBAL_RECEIVER, except)
end
FUNCTIONS.SendEvent = function(event, data) return E.send_event(event_name_of(event), data or {}, nil) end
FUNCTIONS.GetEventSender = function() return E.event_sender end
FUNCTIONS.HasSubscribedToEvent = function(a, b)
  local sender, event = nil, a
  if b ~= nil then sender, event = a, b end
  local list = subs[event_name_of(event)]
  for _, s in ipairs(list or {}) do
    if s.receiver == GLOBAL_RECEIVER and (b == nil or s.sender == sender) then return true end
  end
  return false
end
-- UnsubscribeFromEvents(sender): every subscription of the script to events from that sender.
FUNCTIONS.UnsubscribeFromEvents = function(sender)
  if sender == nil then return end
  for _, name in ipairs(E.sorted_keys(subs)) do E.unsubscribe(GLOBAL_RECEIVER, sender, name) end
end
-- Urho3D keeps registered names only to print hashes readably; a StringHash made here from a name keeps it anyway.
FUNCTIONS.RegisterEventName = function(name)
  if type(name) ~= "string" then E.raise_at_game("bad argument #1 to 'RegisterEventName' (string expected, got "
    .. type(name) .. ")") end
end

-- Object: blocking and subscription queries (a script object's own forms are LuaScriptObject's).
local OM = class("Object").methods
local function receivers_of(obj) return obj, E.REC[obj] end
OM.SetBlockEvents = function(self, block)
  local a, b = receivers_of(self)
  local v = block and true or nil
  BLOCKED[a] = v
  if b ~= nil then BLOCKED[b] = v end
end
OM.GetBlockEvents = function(self) return BLOCKED[self] == true end
OM.HasSubscribedToEvent = function(self, a, b)
  local sender, event = nil, a
  if b ~= nil then sender, event = a, b end
  local me, record = receivers_of(self)
  for _, s in ipairs(subs[event_name_of(event)] or {}) do
    if s.alive and (s.receiver == me or (record ~= nil and s.receiver == record))
        and (b == nil or s.sender == sender) then
      return true
    end
  end
  return false
end
