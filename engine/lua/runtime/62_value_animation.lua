-- Attribute animation, as Urho3D's ValueAnimation, ValueAnimationInfo, ObjectAnimation and Animatable do it:
-- keyframes of one Variant type interpolated linearly (Slerp for quaternions) or along a Hermite spline, played on
-- a named attribute (61_attributes.lua) with a wrap mode (loop, once, clamp) and a speed; event frames sent by the
-- animated object when the animation's time passes them.  Nodes and components advance their animations on their
-- scene's AttributeAnimationUpdate (Scene::Update's second event), UI elements on PostUpdate.
--
-- Times are what Urho3D keeps in single precision (keyframe and event times, an animation's current time, the step
-- it adds), rounded to float32 here too: whether an event frame at 1.0 s fires on frame 60 or 61 of a 1/60 s step
-- depends on it.  Interpolated values are computed in doubles.
local error, type, ipairs, pairs, tostring, tonumber = error, type, ipairs, pairs, tostring, tonumber
local sformat, sfind, ssub, tremove, tinsert = string.format, string.find, string.sub, table.remove, table.insert
local mfmod, huge = math.fmod, math.huge
local REC = E.REC
local MX = E.MATH
local f32 = MX.f32

local IM_NONE, IM_LINEAR, IM_SPLINE = 0, 1, 2
local WM_LOOP, WM_ONCE, WM_CLAMP = 0, 1, 2

-- Value types: the fields of the table-valued ones; which interpolate (ValueAnimation::SetValueType); which only
-- linearly (and truncate to integers).
local FIELDS = {Vector2 = {"x", "y"}, Vector3 = {"x", "y", "z"}, Vector4 = {"x", "y", "z", "w"},
  Quaternion = {"w", "x", "y", "z"}, Color = {"r", "g", "b", "a"}, IntVector2 = {"x", "y"},
  IntVector3 = {"x", "y", "z"}, IntRect = {"left", "top", "right", "bottom"}}
local INTERPOLATABLE = {Float = true, Vector2 = true, Vector3 = true, Vector4 = true, Quaternion = true, Color = true,
  IntRect = true, IntVector2 = true, IntVector3 = true}
local INTEGER_VALUED = {IntRect = true, IntVector2 = true, IntVector3 = true}

local function copy(v)
  if type(v) == "table" then return E.copy_math_value(v) or v end
  return v
end
E.copy_value = copy

local function trunc(x)
  if x >= 0 then return math.floor(x) end
  return -math.floor(-x)
end

-- a * (1 - t) + b * t, per field (Urho3D's Lerp for floats, vectors and colours)
local function lerp(vtype, a, b, t)
  if vtype == "Float" then return a * (1.0 - t) + b * t end
  if vtype == "Quaternion" then return a:Slerp(b, t) end
  local out = copy(a)
  local s = 1.0 - t
  for _, k in ipairs(FIELDS[vtype]) do
    local v = a[k] * s + b[k] * t
    if INTEGER_VALUED[vtype] then v = trunc(v) end
    out[k] = v
  end
  return out
end

-- a * ha + b * hb + c * hc + d * hd, per field (no normalisation, as Urho3D's spline of quaternions)
local function hermite(vtype, a, b, c, d, ha, hb, hc, hd)
  if vtype == "Float" then return a * ha + b * hb + c * hc + d * hd end
  local out = copy(a)
  for _, k in ipairs(FIELDS[vtype]) do out[k] = a[k] * ha + b[k] * hb + c[k] * hc + d[k] * hd end
  return out
end

-- (a - b) * t
local function sub_mul(vtype, a, b, t)
  if vtype == "Float" then return (a - b) * t end
  local out = copy(a)
  for _, k in ipairs(FIELDS[vtype]) do out[k] = (a[k] - b[k]) * t end
  return out
end

local function same(vtype, a, b)
  local keys = FIELDS[vtype]
  if keys == nil then return a == b end
  for _, k in ipairs(keys) do if a[k] ~= b[k] then return false end end
  return true
end

----------------------------------------------------------------------------------------------------
-- ValueAnimation
----------------------------------------------------------------------------------------------------
local VA = class("ValueAnimation")
local function new_value_animation_record(r)
  r.method, r.tension = IM_LINEAR, 0.5
  r.vtype, r.interpolatable = "None", false
  r.keys, r.events = {}, {}
  r.begin, r.finish = huge, -huge
  r.tangents = nil   -- spline tangents, recomputed when the keys change
end
E.resource_init("ValueAnimation", function(r, _, meta)
  new_value_animation_record(r)
  if meta and meta.from_game then r.load_error = "ValueAnimation files" end
end)
VA.new = function() return E.make_resource("ValueAnimation", "", nil) end

local function va_rec(self, n, fname)
  local r = REC[self]
  if r == nil or r.type_name ~= "ValueAnimation" then
    if n then E.anim_arg_error(n, fname, "ValueAnimation", self) end
    error("invalid 'self' (a ValueAnimation was expected)", 3)
  end
  if r.load_error then E.missing(r.load_error .. " (" .. r.name .. ")") end
  return r
end

local function set_value_type(r, vtype)
  if vtype == r.vtype then return end
  r.vtype = vtype
  r.interpolatable = INTERPOLATABLE[vtype] == true
  if INTEGER_VALUED[vtype] and r.method == IM_SPLINE then r.method = IM_LINEAR end
  r.keys, r.events = {}, {}
  r.begin, r.finish = huge, -huge
  r.tangents = nil
end

local TYPE_NAMES = {}
for name, id in pairs(E.VARIANT_TYPE_IDS) do TYPE_NAMES[id] = name end

local M = VA.methods
M.SetValueType = function(self, vtype)
  local r = va_rec(self)
  set_value_type(r, type(vtype) == "number" and (TYPE_NAMES[vtype] or "None") or tostring(vtype))
end
M.GetValueType = function(self) return E.VARIANT_TYPE_IDS[va_rec(self).vtype] or 0 end
M.SetInterpolationMethod = function(self, method)
  local r = va_rec(self)
  method = E.anim_number(method, 1, "SetInterpolationMethod")
  if method == IM_SPLINE and INTEGER_VALUED[r.vtype] then method = IM_LINEAR end
  r.method = method
  r.tangents = nil
end
M.GetInterpolationMethod = function(self) return va_rec(self).method end
M.SetSplineTension = function(self, tension)
  local r = va_rec(self)
  r.tension = E.anim_number(tension, 1, "SetSplineTension")
  r.tangents = nil
end
M.GetSplineTension = function(self) return va_rec(self).tension end
M.SetKeyFrame = function(self, time, value)
  local r = va_rec(self)
  local v = E.variant_of(value)
  if r.vtype == "None" then set_value_type(r, v.type_)
  elseif v.type_ ~= r.vtype then return false end
  time = f32(E.anim_number(time, 1, "SetKeyFrame"))
  local key = {time = time, value = copy(v.value_)}
  local keys = r.keys
  if #keys == 0 or time > keys[#keys].time then
    keys[#keys + 1] = key
  else
    for i, k in ipairs(keys) do
      if time == k.time then return false end   -- two keys at one time would divide by zero
      if time < k.time then tinsert(keys, i, key); break end
    end
  end
  if time < r.begin then r.begin = time end
  if time > r.finish then r.finish = time end
  r.tangents = nil
  return true
end
M.SetEventFrame = function(self, time, event_type, data)
  local r = va_rec(self)
  time = f32(E.anim_number(time, 1, "SetEventFrame"))
  local name = E.event_name_of(event_type)
  if name == nil then E.raise_at_game("bad argument #2 to 'SetEventFrame' (StringHash expected)") end
  local frame = {time = time, event = name, data = E.IMPL.VariantMap.new(data)}
  local events = r.events
  if #events == 0 or time >= events[#events].time then
    events[#events + 1] = frame
  else
    for i, e in ipairs(events) do
      if time < e.time then tinsert(events, i, frame); break end
    end
  end
  if time < r.begin then r.begin = time end
  if time > r.finish then r.finish = time end
end

local function is_valid(r)
  local n = #r.keys
  return r.method == IM_NONE or (r.method == IM_LINEAR and n > 1) or (r.method == IM_SPLINE and n > 2)
end

local function update_tangents(r)
  local keys, n, tension, vtype = r.keys, #r.keys, r.tension, r.vtype
  local tangents = {}
  for i = 2, n - 1 do tangents[i] = sub_mul(vtype, keys[i + 1].value, keys[i - 1].value, tension) end
  local ends
  if not same(vtype, keys[1].value, keys[n].value) then
    ends = sub_mul(vtype, keys[1].value, keys[1].value, tension)   -- an open spline's ends have no tangent
  else
    ends = sub_mul(vtype, keys[2].value, keys[n - 1].value, tension)
  end
  tangents[1], tangents[n] = ends, ends
  r.tangents = tangents
end

-- ValueAnimation::GetAnimationValue
local function value_at(r, scaled)
  local keys = r.keys
  local n = #keys
  if n == 0 then return nil end
  local i = 2
  while i <= n and not (scaled < keys[i].time) do i = i + 1 end
  if i > n or not r.interpolatable or r.method == IM_NONE then return copy(keys[i - 1].value) end
  local k1, k2 = keys[i - 1], keys[i]
  local t = (scaled - k1.time) / (k2.time - k1.time)
  if r.method == IM_LINEAR then return lerp(r.vtype, k1.value, k2.value, t) end
  if r.tangents == nil then update_tangents(r) end
  local tt = t * t
  local ttt = t * tt
  return hermite(r.vtype, k1.value, k2.value, r.tangents[i - 1], r.tangents[i], 2.0 * ttt - 3.0 * tt + 1.0,
    -2.0 * ttt + 3.0 * tt, ttt - 2.0 * tt + t, ttt - tt)
end
E.value_animation_value = value_at

----------------------------------------------------------------------------------------------------
-- One animation playing on a target (ValueAnimationInfo): its own time, wrap mode and speed
----------------------------------------------------------------------------------------------------
local function wrap_arg(wrap, n, fname)
  if wrap == nil then return WM_LOOP end
  return E.anim_number(wrap, n, fname)
end
local function speed_arg(speed, n, fname)
  if speed == nil then return 1.0 end
  return f32(E.anim_number(speed, n, fname))
end
local function new_info(target, animation, wrap, speed, apply)
  return {target = target, animation = animation, wrap = wrap or WM_LOOP, speed = math.max(0.0, speed or 1.0),
    time = 0.0, last_scaled = 0.0, apply = apply}
end
E.new_value_animation_info = new_info

local function scaled_time(r, wrap, time)
  local b, e = r.begin, r.finish
  if wrap == WM_LOOP then
    local span = f32(e - b)
    local t = mfmod(f32(time - b), span)
    if t < 0.0 then t = f32(t + span) end
    return f32(b + t), false
  end
  local finished = wrap == WM_ONCE and time >= e
  if time < b then return b, finished end
  if time > e then return e, finished end
  return time, finished
end

local function frames_between(r, from, to, out)
  for _, frame in ipairs(r.events) do
    if frame.time > to then break end
    if frame.time >= from then out[#out + 1] = frame end
  end
end

-- ValueAnimationInfo::SetTime: apply the value at `time`, send the event frames passed since the last time.
-- Returns true when the animation is done (played once to its end, or not playable) or its target went away.
local function info_set_time(info, time)
  local anim = info.animation and REC[info.animation]
  if anim == nil then return true end
  info.time = f32(time)
  if not is_valid(anim) then return true end
  local scaled, finished = scaled_time(anim, info.wrap, info.time)
  local value = value_at(anim, scaled)
  if value ~= nil then info.apply(info, value) end
  if #anim.events > 0 then
    local frames = {}
    local last = info.last_scaled
    if info.wrap == WM_LOOP and last > scaled then
      frames_between(anim, last, anim.finish, frames)
      frames_between(anim, anim.begin, scaled, frames)
    else
      frames_between(anim, last, scaled, frames)
    end
    local sender = info.target_proxy
    for _, frame in ipairs(frames) do
      E.send_event(frame.event, frame.data, sender)
      if info.gone and info.gone() then return true end
    end
  end
  info.last_scaled = scaled
  return finished
end
E.value_animation_info_set_time = info_set_time
E.value_animation_info_update = function(info, step)
  if info.animation == nil then return true end
  return info_set_time(info, f32(info.time + f32(step * info.speed)))
end
local info_update = E.value_animation_info_update

----------------------------------------------------------------------------------------------------
-- ObjectAnimation: named attribute animations shared by the objects it is set on
----------------------------------------------------------------------------------------------------
local OA = class("ObjectAnimation")
E.resource_init("ObjectAnimation", function(r, _, meta)
  r.list, r.by_name = {}, {}
  if meta and meta.from_game then r.load_error = "ObjectAnimation files" end
end)
OA.new = function() return E.make_resource("ObjectAnimation", "", nil) end
local function oa_rec(self, n, fname)
  local r = REC[self]
  if r == nil or r.type_name ~= "ObjectAnimation" then
    if n then E.anim_arg_error(n, fname, "ObjectAnimation", self) end
    error("invalid 'self' (an ObjectAnimation was expected)", 3)
  end
  if r.load_error then E.missing(r.load_error .. " (" .. r.name .. ")") end
  return r
end
local OM = OA.methods
OM.AddAttributeAnimation = function(self, name, animation, wrap, speed)
  local r = oa_rec(self)
  name = E.attribute_name(name, "AddAttributeAnimation")
  if animation == nil then return end
  wrap, speed = wrap_arg(wrap, 3, "AddAttributeAnimation"), speed_arg(speed, 4, "AddAttributeAnimation")
  va_rec(animation, 2, "AddAttributeAnimation").owner = self
  local entry = {name = name, animation = animation, wrap = wrap, speed = math.max(0.0, speed)}
  local old = r.by_name[name]
  if old then
    for i, e in ipairs(r.list) do if e == old then r.list[i] = entry end end
  else
    r.list[#r.list + 1] = entry
  end
  r.by_name[name] = entry
  E.send_event("AttributeAnimationAdded", {ObjectAnimation = self, AttributeAnimationName = name}, self)
end
local function oa_remove(self, r, entry)
  E.send_event("AttributeAnimationRemoved", {ObjectAnimation = self, AttributeAnimationName = entry.name}, self)
  local animation = REC[entry.animation]
  if animation then animation.owner = nil end
  for i, e in ipairs(r.list) do if e == entry then tremove(r.list, i); break end end
  r.by_name[entry.name] = nil
end
OM.RemoveAttributeAnimation = function(self, what)
  local r = oa_rec(self)
  if type(what) == "string" then
    local entry = r.by_name[what]
    if entry then oa_remove(self, r, entry) end
    return
  end
  for _, entry in ipairs(r.list) do
    if entry.animation == what then return oa_remove(self, r, entry) end
  end
end
OM.GetAttributeAnimation = function(self, name)
  local entry = oa_rec(self).by_name[name]
  return entry and entry.animation
end
OM.GetAttributeAnimationWrapMode = function(self, name)
  local entry = oa_rec(self).by_name[name]
  return entry and entry.wrap or WM_LOOP
end
OM.GetAttributeAnimationSpeed = function(self, name)
  local entry = oa_rec(self).by_name[name]
  return entry and entry.speed or 1.0
end

----------------------------------------------------------------------------------------------------
-- Animatable: nodes, components and UI elements
----------------------------------------------------------------------------------------------------
local function target_rec(self)
  local t = REC[self]
  if t == nil or (t.kind ~= "node" and t.kind ~= "component" and t.kind ~= "ui") then
    error("invalid 'self' (an Animatable was expected)", 3)
  end
  if t.removed then error("attempt to use a removed " .. (t.kind == "node" and "Node" or "Component"), 3) end
  return t
end

-- A target destroyed in Urho3D terms: a removed node, or a component removed or on a removed node
local function gone(t)
  if t.removed then return true end
  if t.kind == "component" then return t.node == nil or t.node.removed == true end
  return false
end

local function state_of(t)
  local a = t.attribute_animation
  if a == nil then
    a = {target = t, enabled = true, list = {}, by_name = {}, object_animation = nil, subscribed = nil}
    t.attribute_animation = a
  end
  return a
end

local function scene_of(t)
  if t.kind == "node" then return t.scene end
  if t.kind == "component" then return t.node and t.node.scene end
  return nil
end

local update_all
-- Node/Component::OnAttributeAnimationAdded: the scene's AttributeAnimationUpdate (nothing outside a scene);
-- UIElement: PostUpdate.
local function subscribe(a)
  local t = a.target
  if t.kind == "ui" then
    E.subscribe(a, nil, nil, "PostUpdate", function(_, data) update_all(a, data.TimeStep:GetFloat()) end)
    a.subscribed = "PostUpdate"
    return
  end
  local scene = scene_of(t)
  if scene == nil then return end
  E.subscribe(a, nil, scene.proxy, "AttributeAnimationUpdate", function(_, data)
    update_all(a, data.TimeStep:GetFloat())
  end)
  a.subscribed = "AttributeAnimationUpdate"
end
local function unsubscribe(a)
  if a.subscribed then E.unsubscribe(a, false, a.subscribed) end
  a.subscribed = nil
end

local set_attribute_animation
-- Animatable::UpdateAttributeAnimations
function update_all(a, step)
  local t = a.target
  if gone(t) then return unsubscribe(a) end
  if not a.enabled then return end
  step = f32(step)
  local finished = {}
  local list = {}
  for i, info in ipairs(a.list) do list[i] = info end
  for _, info in ipairs(list) do
    if a.by_name[info.name] == info then
      local done = info_update(info, step)
      if gone(t) then return end
      if done then finished[#finished + 1] = info.name end
    end
  end
  for _, name in ipairs(finished) do set_attribute_animation(t, name, nil) end
end

function set_attribute_animation(t, name, animation, wrap, speed)
  local a = state_of(t)
  local info = a.by_name[name]
  if animation ~= nil then
    local vr = va_rec(animation, 2, "SetAttributeAnimation")
    if info and info.animation == animation then
      info.wrap, info.speed = wrap, speed
      return
    end
    local attr = info and info.attr
    if attr == nil then
      local cls
      attr, cls = E.find_attribute(t, name)
      if attr == nil then
        return E.missing(sformat("attribute animation of %s attribute '%s'", cls, name))
      end
    end
    if vr.vtype ~= attr.vtype then
      E.log("ERROR", "Invalid value type")
      return
    end
    local new = new_info(t, animation, wrap, speed, function(_, value) attr.set(t.proxy, value) end)
    new.name, new.attr, new.target_proxy = name, attr, t.proxy
    new.gone = function() return gone(t) end
    if info then
      for i, x in ipairs(a.list) do if x == info then a.list[i] = new end end
    else
      a.list[#a.list + 1] = new
    end
    a.by_name[name] = new
    if info == nil and #a.list == 1 then subscribe(a) end
  else
    if info == nil then return end
    for i, x in ipairs(a.list) do if x == info then tremove(a.list, i); break end end
    a.by_name[name] = nil
    if #a.list == 0 then unsubscribe(a) end
  end
end

-- Animatable::FindAttributeAnimationTarget: "attr", or for nodes "#0/#child/@Component#1/attr", for UI elements
-- "#0/#child/attr".
local function split(name)
  local parts = {}
  local start = 1
  while true do
    local s = sfind(name, "/", start, true)
    if s == nil then parts[#parts + 1] = ssub(name, start); break end
    parts[#parts + 1] = ssub(name, start, s - 1)
    start = s + 1
  end
  return parts
end
local function find_target(t, name)
  local parts = split(name)
  if #parts == 1 or t.kind == "component" then return t, name end
  local cur = t.proxy
  local i = 1
  while i < #parts and ssub(parts[i], 1, 1) == "#" do
    local key = ssub(parts[i], 2)
    local index = key:match("^%d+") and math.tointeger(tonumber(key:match("^%d+")))
    if index then cur = cur:GetChild(index) else cur = cur:GetChild(key, true) end
    if cur == nil then
      E.log("ERROR", (t.kind == "ui" and "Could not find element by name " or "Could not find node by name ") .. key)
      return nil
    end
    i = i + 1
  end
  if i == #parts then return REC[cur], parts[#parts] end
  if t.kind == "ui" or i ~= #parts - 1 or ssub(parts[i], 1, 1) ~= "@" then
    E.log("ERROR", "Invalid name " .. name)
    return nil
  end
  local cname, index = ssub(parts[i], 2):match("^([^#]*)#?(%d*)$")
  local component
  if index == nil or index == "" then
    component = cur:GetComponent(cname or ssub(parts[i], 2))
  else
    component = cur:GetComponents(cname)[math.tointeger(tonumber(index)) + 1]
  end
  if component == nil then
    E.log("ERROR", "Could not find component by name " .. name)
    return nil
  end
  return REC[component], parts[#parts]
end

local function set_object_attribute_animation(t, name, animation, wrap, speed)
  local target, out = find_target(t, name)
  if target then set_attribute_animation(target, out, animation, wrap, speed) end
end

local function set_object_animation(t, oa)
  local a = state_of(t)
  if oa == a.object_animation then return end
  if oa ~= nil then oa_rec(oa, 1, "SetObjectAnimation") end
  local old = a.object_animation
  if old then
    for _, entry in ipairs(REC[old].list) do set_object_attribute_animation(t, entry.name, nil, WM_LOOP, 1.0) end
    E.unsubscribe(a, old, "AttributeAnimationAdded")
    E.unsubscribe(a, old, "AttributeAnimationRemoved")
  end
  a.object_animation = oa
  if oa then
    local r = oa_rec(oa)
    for _, entry in ipairs(r.list) do
      set_object_attribute_animation(t, entry.name, entry.animation, entry.wrap, entry.speed)
    end
    E.subscribe(a, nil, oa, "AttributeAnimationAdded", function(_, data)
      local entry = REC[oa].by_name[data.AttributeAnimationName:GetString()]
      if entry then set_object_attribute_animation(t, entry.name, entry.animation, entry.wrap, entry.speed) end
    end)
    E.subscribe(a, nil, oa, "AttributeAnimationRemoved", function(_, data)
      set_object_attribute_animation(t, data.AttributeAnimationName:GetString(), nil, WM_LOOP, 1.0)
    end)
  end
end

local AN = class("Animatable").methods
AN.SetObjectAnimation = function(self, oa) set_object_animation(target_rec(self), oa) end
AN.GetObjectAnimation = function(self)
  local a = target_rec(self).attribute_animation
  return a and a.object_animation
end
AN.RemoveObjectAnimation = function(self) set_object_animation(target_rec(self), nil) end
AN.SetAttributeAnimation = function(self, name, animation, wrap, speed)
  local t = target_rec(self)
  name = E.attribute_name(name, "SetAttributeAnimation")
  wrap, speed = wrap_arg(wrap, 3, "SetAttributeAnimation"), speed_arg(speed, 4, "SetAttributeAnimation")
  set_attribute_animation(t, name, animation, wrap, speed)
end
AN.RemoveAttributeAnimation = function(self, name)
  set_attribute_animation(target_rec(self), E.attribute_name(name, "RemoveAttributeAnimation"), nil)
end
local function info_of(self, name)
  local a = target_rec(self).attribute_animation
  return a and a.by_name[name]
end
AN.GetAttributeAnimation = function(self, name) local i = info_of(self, name); return i and i.animation end
AN.SetAttributeAnimationWrapMode = function(self, name, wrap)
  local i = info_of(self, name)
  wrap = E.anim_number(wrap, 2, "SetAttributeAnimationWrapMode")
  if i then i.wrap = wrap end
end
AN.GetAttributeAnimationWrapMode = function(self, name) local i = info_of(self, name); return i and i.wrap or WM_LOOP end
AN.SetAttributeAnimationSpeed = function(self, name, speed)
  local i = info_of(self, name)
  speed = f32(E.anim_number(speed, 2, "SetAttributeAnimationSpeed"))
  if i then i.speed = speed end
end
AN.GetAttributeAnimationSpeed = function(self, name) local i = info_of(self, name); return i and i.speed or 1.0 end
AN.SetAttributeAnimationTime = function(self, name, time)
  local i = info_of(self, name)
  time = E.anim_number(time, 2, "SetAttributeAnimationTime")
  if i then info_set_time(i, time) end
end
AN.GetAttributeAnimationTime = function(self, name) local i = info_of(self, name); return i and i.time or 0.0 end
AN.SetAnimationEnabled = function(self, enable)
  local t = target_rec(self)
  local a = state_of(t)
  enable = enable and true or false
  if a.object_animation then
    for _, entry in ipairs(REC[a.object_animation].list) do
      local target = find_target(t, entry.name)
      if target and target ~= t then state_of(target).enabled = enable end
    end
  end
  a.enabled = enable
end
AN.GetAnimationEnabled = function(self)
  local a = target_rec(self).attribute_animation
  return a == nil or a.enabled
end
AN.SetAnimationTime = function(self, time)
  local t = target_rec(self)
  time = E.anim_number(time, 1, "SetAnimationTime")
  local a = state_of(t)
  if a.object_animation then
    for _, entry in ipairs(REC[a.object_animation].list) do
      local target, out = find_target(t, entry.name)
      if target then
        local info = target.attribute_animation and target.attribute_animation.by_name[out]
        if info then info_set_time(info, time) end
      end
    end
  else
    local list = {}
    for i, info in ipairs(a.list) do list[i] = info end
    for _, info in ipairs(list) do info_set_time(info, time) end
  end
end

----------------------------------------------------------------------------------------------------
-- Material shader parameter animation (Material::SetShaderParameterAnimation): played on the material's scene's
-- AttributeAnimationUpdate when it has one (Material:SetScene), else on Update; applied with SetShaderParameter.
----------------------------------------------------------------------------------------------------
-- The parameters every material has from Material::ResetToDefaults
local DEFAULT_SHADER_PARAMETERS = {UOffset = true, VOffset = true, MatDiffColor = true, MatEmissiveColor = true,
  MatEnvMapColor = true, MatSpecColor = true, Roughness = true, Metallic = true}
local MAT = class("Material").methods
local function material_state(m)
  local s = m.parameter_animation
  if s == nil then
    s = {list = {}, by_name = {}, subscribed = nil}
    m.parameter_animation = s
  end
  return s
end
local function material_update(self, s, step)
  step = f32(step)
  local list, finished = {}, {}
  for i, info in ipairs(s.list) do list[i] = info end
  for _, info in ipairs(list) do
    if s.by_name[info.name] == info and info_update(info, step) then finished[#finished + 1] = info.name end
  end
  for _, name in ipairs(finished) do MAT.SetShaderParameterAnimation(self, name, nil) end
end
local function material_subscription(self, m)
  local s = material_state(m)
  if #s.list > 0 and s.subscribed == nil then
    local handler = function(_, data) material_update(self, s, data.TimeStep:GetFloat()) end
    if m.scene then
      E.subscribe(s, nil, m.scene, "AttributeAnimationUpdate", handler)
      s.subscribed = "AttributeAnimationUpdate"
    else
      E.subscribe(s, nil, nil, "Update", handler)
      s.subscribed = "Update"
    end
  elseif s.subscribed and #s.list == 0 then
    E.unsubscribe(s, false, s.subscribed)
    s.subscribed = nil
  end
end
MAT.SetScene = function(self, scene)
  local m = E.rec(self)
  if scene ~= nil and not (REC[scene] and REC[scene].is_scene) then E.anim_arg_error(1, "SetScene", "Scene", scene) end
  local s = material_state(m)
  if s.subscribed then E.unsubscribe(s, false, s.subscribed); s.subscribed = nil end
  m.scene = scene
  material_subscription(self, m)
end
MAT.GetScene = function(self) return E.rec(self).scene end
MAT.SetShaderParameterAnimation = function(self, name, animation, wrap, speed)
  local m = E.rec(self)
  name = E.attribute_name(name, "SetShaderParameterAnimation")
  wrap, speed = wrap_arg(wrap, 3, "SetShaderParameterAnimation"), speed_arg(speed, 4, "SetShaderParameterAnimation")
  local s = material_state(m)
  local info = s.by_name[name]
  if animation ~= nil then
    va_rec(animation, 2, "SetShaderParameterAnimation")
    if info and info.animation == animation then
      info.wrap, info.speed = wrap, speed
      return
    end
    if m.params[name] == nil and not DEFAULT_SHADER_PARAMETERS[name] then
      E.log("ERROR", m.name .. " has no shader parameter: " .. name)
      return
    end
    local new = new_info(m, animation, wrap, speed, function(_, value) MAT.SetShaderParameter(self, name, value) end)
    new.name, new.target_proxy = name, self
    if info then
      for i, x in ipairs(s.list) do if x == info then s.list[i] = new end end
    else
      s.list[#s.list + 1] = new
    end
    s.by_name[name] = new
  elseif info then
    for i, x in ipairs(s.list) do if x == info then tremove(s.list, i); break end end
    s.by_name[name] = nil
  end
  material_subscription(self, m)
end
local function param_info(self, name)
  local s = E.rec(self).parameter_animation
  return s and s.by_name[name]
end
MAT.SetShaderParameterAnimationWrapMode = function(self, name, wrap)
  local info = param_info(self, name)
  wrap = E.anim_number(wrap, 2, "SetShaderParameterAnimationWrapMode")
  if info then info.wrap = wrap end
end
MAT.SetShaderParameterAnimationSpeed = function(self, name, speed)
  local info = param_info(self, name)
  speed = f32(E.anim_number(speed, 2, "SetShaderParameterAnimationSpeed"))
  if info then info.speed = speed end
end
MAT.GetShaderParameterAnimation = function(self, name) local i = param_info(self, name); return i and i.animation end
MAT.GetShaderParameterAnimationWrapMode = function(self, name)
  local i = param_info(self, name)
  return i and i.wrap or WM_LOOP
end
MAT.GetShaderParameterAnimationSpeed = function(self, name)
  local i = param_info(self, name)
  return i and i.speed or 0.0
end
