-- AnimationController, as Urho3D's: animations by resource name, each with a control record (speed, target
-- weight, fade time, auto-fade, remove on completion) over an AnimationState of the node's AnimatedModel (model
-- mode) or of its own (node hierarchy mode, without an AnimatedModel).  It advances on its scene's ScenePostUpdate
-- while enabled: time by speed * step (AnimationFinished, AnimationTrigger), weight towards the target at
-- 1 / fadeTime per second, and removes an animation faded to zero.  The model applies the result at RenderUpdate
-- (64_animated_model.lua); node hierarchy states are applied right after the update.
local error, type, ipairs, tostring, setmetatable = error, type, ipairs, tostring, setmetatable
local mmax, mmin, tremove = math.max, math.min, table.remove
local REC, comp_rec = E.REC, E.comp_rec
local f32 = E.MATH.f32
local ABM_LERP = 0
local COMMAND_STAY_TIME = 0.25

local AC = class("AnimationController")

-- The first component of a type on the node of component record `c` (its record), or nil.
function E.sibling_component(c, type_name)
  if c.node == nil then return nil end
  for _, x in ipairs(c.node.components) do
    if x.type_name == type_name then return x end
  end
  return nil
end
local function model_of(c) return E.sibling_component(c, "AnimatedModel") end

-- AnimationController::GetAnimationState(name or hash): the model's state, or one of the node states
local function get_state(c, key)
  local model = model_of(c)
  if model then
    local proxy = E.find_model_state(model, key)
    return proxy and REC[proxy]
  end
  for _, s in ipairs(c.node_states) do
    local a = s.animation and REC[s.animation]
    if a then
      if type(key) == "string" and (a.name == key or a.animation_name == key) then return s end
      if E.is(key, "StringHash") and (E.sdbm(a.name) == key.value_ or E.sdbm(a.animation_name) == key.value_) then
        return s
      end
    end
  end
  return nil
end

local function internal_path(name, fname)
  if type(name) ~= "string" then E.anim_arg_error(1, fname or "?", "string", name) end
  return (name:gsub("\\", "/"))
end

-- AnimationController::FindAnimation: the control index (1-based or nil) and the state for a resource or
-- animation name.
local function find(c, name, fname)
  name = internal_path(name, fname)
  local s = get_state(c, name)
  if s then name = REC[s.animation].name end
  for i, ctrl in ipairs(c.animations) do
    if ctrl.name == name then return i, s end
  end
  return nil, s
end

local function scene_post_update(c)
  return function(_, data) E.animation_controller_update(c, data.TimeStep:GetFloat()) end
end
local function enabled_effective(c) return c.enabled and c.node ~= nil and c.node.enabled end
local function update_subscription(c)
  local scene = c.node and c.node.scene
  if scene and enabled_effective(c) then
    E.subscribe(c, nil, scene.proxy, "ScenePostUpdate", scene_post_update(c))
  else
    E.unsubscribe(c, false, "ScenePostUpdate")
  end
end

E.COMPONENT_FACTORIES.AnimationController = function(c)
  c.animations = {}
  c.node_states = {}
  c.on_scene_set = function(x) update_subscription(x) end
  c.on_scene_removed = function(x) E.unsubscribe(x, false, "ScenePostUpdate") end
  c.on_set_enabled = update_subscription
  c.on_removed = function(x) E.unsubscribe_all(x) end
end

local function add_state(c, animation)
  if animation == nil then return nil end
  local model = model_of(c)
  if model then
    local proxy = model.proxy:AddAnimationState(animation)
    return proxy and REC[proxy]
  end
  local _, s = E.new_animation_state(nil, c.node, animation)
  c.node_states[#c.node_states + 1] = s
  return s
end

local function remove_state(c, s)
  local model = model_of(c)
  if model then return model.proxy:RemoveAnimationState(s.proxy) end
  for i, x in ipairs(c.node_states) do
    if x == s then tremove(c.node_states, i); s.removed = true; return end
  end
end

-- AnimationController::Update
function E.animation_controller_update(c, step)
  step = f32(step)
  local i = 1
  while i <= #c.animations do
    local ctrl = c.animations[i]
    local s = get_state(c, ctrl.name)
    local remove = false
    if s == nil then
      remove = true
    else
      if ctrl.speed ~= 0.0 then E.animation_state_add_time(s, f32(ctrl.speed * step)) end
      if c.removed or c.node == nil or c.node.removed then return end
      local target, fade = ctrl.target, ctrl.fade
      local length = s.animation and REC[s.animation].length or 0.0
      if not s.looped and s.time >= length and ctrl.autofade > 0.0 then
        target, fade = 0.0, ctrl.autofade
      end
      local weight = s.weight
      if weight ~= target then
        if fade > 0.0 then
          local delta = f32(f32(1.0 / fade) * step)
          if weight < target then weight = mmin(f32(weight + delta), target)
          elseif weight > target then weight = mmax(f32(weight - delta), target) end
          s.proxy:SetWeight(weight)
        else
          s.proxy:SetWeight(target)
        end
      end
      if s.weight == 0.0 and (target == 0.0 or fade == 0.0) and ctrl.remove_on_completion then remove = true end
    end
    if ctrl.set_time_ttl > 0.0 then ctrl.set_time_ttl = mmax(f32(ctrl.set_time_ttl - step), 0.0) end
    if ctrl.set_weight_ttl > 0.0 then ctrl.set_weight_ttl = mmax(f32(ctrl.set_weight_ttl - step), 0.0) end
    if remove then
      if s then remove_state(c, s) end
      -- the list may have changed under an event handler: remove this control wherever it is now
      for j, x in ipairs(c.animations) do if x == ctrl then tremove(c.animations, j); break end end
    else
      i = i + 1
    end
  end
  for _, s in ipairs(c.node_states) do E.apply_animation_state(s) end
end

local function new_control(name)
  return {name = name, speed = 1.0, target = 0.0, fade = 0.0, autofade = 0.0, set_time_ttl = 0.0,
    set_weight_ttl = 0.0, remove_on_completion = true}
end

local M = AC.methods
local function opt_number(v, n, fname, default)
  if v == nil then return default end
  return E.anim_number(v, n, fname)
end
M.Play = function(self, name, layer, looped, fade)
  local c = comp_rec(self)
  layer = E.anim_index(layer, 2, "Play") & 0xff
  fade = opt_number(fade, 4, "Play", 0.0)
  local animation = E.get_resource("Animation", internal_path(name, "Play"))
  if animation == nil then return false end
  local index, s = find(c, REC[animation].name)
  if s == nil then
    s = add_state(c, animation)
    if s == nil then return false end
  end
  if index == nil then
    c.animations[#c.animations + 1] = new_control(REC[animation].name)
    index = #c.animations
  end
  s.proxy:SetLayer(layer)
  s.proxy:SetLooped(looped)
  c.animations[index].target = 1.0
  c.animations[index].fade = f32(fade)
  return true
end
M.PlayExclusive = function(self, name, layer, looped, fade)
  local ok = M.Play(self, name, layer, looped, fade)
  if ok then M.FadeOthers(self, name, 0.0, opt_number(fade, 4, "PlayExclusive", 0.0)) end
  return ok
end
M.Stop = function(self, name, fade)
  local c = comp_rec(self)
  fade = opt_number(fade, 2, "Stop", 0.0)
  local index, s = find(c, name, "Stop")
  if index then
    c.animations[index].target = 0.0
    c.animations[index].fade = f32(fade)
  end
  return index ~= nil or s ~= nil
end
M.StopLayer = function(self, layer, fade)
  local c = comp_rec(self)
  layer = E.anim_index(layer, 1, "StopLayer") & 0xff
  fade = opt_number(fade, 2, "StopLayer", 0.0)
  for _, ctrl in ipairs(c.animations) do
    local s = get_state(c, ctrl.name)
    if s and s.layer == layer then ctrl.target, ctrl.fade = 0.0, f32(fade) end
  end
end
M.StopAll = function(self, fade)
  local c = comp_rec(self)
  fade = f32(opt_number(fade, 1, "StopAll", 0.0))
  for _, ctrl in ipairs(c.animations) do ctrl.target, ctrl.fade = 0.0, fade end
end
M.Fade = function(self, name, weight, fade)
  local c = comp_rec(self)
  weight, fade = E.anim_number(weight, 2, "Fade"), E.anim_number(fade, 3, "Fade")
  local index = find(c, name, "Fade")
  if index == nil then return false end
  c.animations[index].target = f32(mmin(mmax(weight, 0.0), 1.0))
  c.animations[index].fade = f32(fade)
  return true
end
M.FadeOthers = function(self, name, weight, fade)
  local c = comp_rec(self)
  weight, fade = E.anim_number(weight, 2, "FadeOthers"), E.anim_number(fade, 3, "FadeOthers")
  local index, s = find(c, name, "FadeOthers")
  if index == nil or s == nil then return false end
  for i, ctrl in ipairs(c.animations) do
    if i ~= index then
      local other = get_state(c, ctrl.name)
      if other and other.layer == s.layer then
        ctrl.target = f32(mmin(mmax(weight, 0.0), 1.0))
        ctrl.fade = f32(fade)
      end
    end
  end
  return true
end
M.SetLayer = function(self, name, layer)
  layer = E.anim_index(layer, 2, "SetLayer")
  local s = get_state(comp_rec(self), internal_path(name, "SetLayer"))
  if s == nil then return false end
  s.proxy:SetLayer(layer)
  return true
end
M.SetStartBone = function(self, name, bone_name)
  local model = model_of(comp_rec(self))
  if model == nil then return false end
  local proxy = E.find_model_state(model, internal_path(name, "SetStartBone"))
  if proxy == nil then return false end
  E.set_start_bone(REC[proxy], E.skeleton_bone(model.skeleton, E.anim_string(bone_name, 2, "SetStartBone")))
  return true
end
M.SetTime = function(self, name, time)
  local c = comp_rec(self)
  time = E.anim_number(time, 2, "SetTime")
  local index, s = find(c, name, "SetTime")
  if index == nil or s == nil then return false end
  local length = REC[s.animation].length
  time = mmin(mmax(time, 0.0), length)
  s.proxy:SetTime(time)
  c.animations[index].set_time_ttl = COMMAND_STAY_TIME
  return true
end
M.SetSpeed = function(self, name, speed)
  local c = comp_rec(self)
  speed = E.anim_number(speed, 2, "SetSpeed")
  local index = find(c, name, "SetSpeed")
  if index == nil then return false end
  c.animations[index].speed = f32(speed)
  return true
end
M.SetWeight = function(self, name, weight)
  local c = comp_rec(self)
  weight = E.anim_number(weight, 2, "SetWeight")
  local index, s = find(c, name, "SetWeight")
  if index == nil or s == nil then return false end
  weight = f32(mmin(mmax(weight, 0.0), 1.0))
  s.proxy:SetWeight(weight)
  local ctrl = c.animations[index]
  ctrl.set_weight_ttl = COMMAND_STAY_TIME
  ctrl.target, ctrl.fade = weight, 0.0   -- cancels a fade
  return true
end
M.SetRemoveOnCompletion = function(self, name, remove)
  local c = comp_rec(self)
  local index, s = find(c, name, "SetRemoveOnCompletion")
  if index == nil or s == nil then return false end
  c.animations[index].remove_on_completion = remove and true or false
  return true
end
M.SetLooped = function(self, name, looped)
  local s = get_state(comp_rec(self), internal_path(name, "SetLooped"))
  if s == nil then return false end
  s.proxy:SetLooped(looped)
  return true
end
M.SetBlendMode = function(self, name, mode)
  mode = E.anim_number(mode, 2, "SetBlendMode")
  local s = get_state(comp_rec(self), internal_path(name, "SetBlendMode"))
  if s == nil then return false end
  s.proxy:SetBlendMode(mode)
  return true
end
M.SetAutoFade = function(self, name, fade)
  local c = comp_rec(self)
  fade = E.anim_number(fade, 2, "SetAutoFade")
  local index = find(c, name, "SetAutoFade")
  if index == nil then return false end
  c.animations[index].autofade = f32(mmax(fade, 0.0))
  return true
end
M.IsPlaying = function(self, key)
  local c = comp_rec(self)
  if type(key) == "number" then
    key = E.anim_index(key, 1, "IsPlaying") & 0xff
    for _, ctrl in ipairs(c.animations) do
      local s = get_state(c, ctrl.name)
      if s and s.layer == key then return true end
    end
    return false
  end
  return (find(c, key, "IsPlaying")) ~= nil
end
M.IsFadingIn = function(self, name)
  local c = comp_rec(self)
  local index, s = find(c, name, "IsFadingIn")
  if index == nil or s == nil then return false end
  local ctrl = c.animations[index]
  return ctrl.fade ~= 0.0 and ctrl.target > s.weight
end
M.IsFadingOut = function(self, name)
  local c = comp_rec(self)
  local index, s = find(c, name, "IsFadingOut")
  if index == nil or s == nil then return false end
  local ctrl = c.animations[index]
  return (ctrl.fade ~= 0.0 and ctrl.target < s.weight)
    or (not s.looped and s.time >= REC[s.animation].length and ctrl.autofade ~= 0.0)
end
M.IsAtEnd = function(self, name)
  local c = comp_rec(self)
  local index, s = find(c, name, "IsAtEnd")
  if index == nil or s == nil then return false end
  return s.time >= REC[s.animation].length
end
local function state_value(field, default, fname)
  return function(self, name)
    local s = get_state(comp_rec(self), internal_path(name, fname))
    if s == nil then return default end
    return s[field]
  end
end
M.GetLayer = state_value("layer", 0, "GetLayer")
M.GetTime = state_value("time", 0.0, "GetTime")
M.GetWeight = state_value("weight", 0.0, "GetWeight")
M.IsLooped = state_value("looped", false, "IsLooped")
M.GetBlendMode = state_value("blend", ABM_LERP, "GetBlendMode")
M.GetLength = function(self, name)
  local s = get_state(comp_rec(self), internal_path(name, "GetLength"))
  return s and REC[s.animation].length or 0.0
end
M.GetStartBone = function(self, name)
  local s = get_state(comp_rec(self), internal_path(name, "GetStartBone"))
  return s and s.model and s.start_bone or nil
end
M.GetStartBoneName = function(self, name)
  local bone = M.GetStartBone(self, name)
  return bone and bone.name or ""
end
local function control_value(field, default, fname)
  return function(self, name)
    local c = comp_rec(self)
    local index = find(c, name, fname)
    if index == nil then return default end
    return c.animations[index][field]
  end
end
M.GetSpeed = control_value("speed", 0.0, "GetSpeed")
M.GetFadeTarget = control_value("target", 0.0, "GetFadeTarget")
M.GetFadeTime = control_value("fade", 0.0, "GetFadeTime")
M.GetAutoFade = control_value("autofade", 0.0, "GetAutoFade")
M.GetRemoveOnCompletion = control_value("remove_on_completion", false, "GetRemoveOnCompletion")
M.GetAnimationState = function(self, key)
  if type(key) == "string" then key = internal_path(key, "GetAnimationState") end
  local s = get_state(comp_rec(self), key)
  return s and s.proxy
end

-- AnimationControl: the copy of a control record GetAnimation(index) returns
local Control = class("AnimationControl")
local control_mt = Control.mt
local function control_copy(ctrl)
  local t = setmetatable({}, control_mt)
  t.name = ctrl and ctrl.name or ""
  t.hash = E.StringHash_new(t.name)
  t.speed = ctrl and ctrl.speed or 1.0
  t.targetWeight = ctrl and ctrl.target or 0.0
  t.fadeTime = ctrl and ctrl.fade or 0.0
  t.autoFadeTime = ctrl and ctrl.autofade or 0.0
  t.removeOnCompletion = ctrl == nil or ctrl.remove_on_completion
  return t
end
Control.new = function() return control_copy(nil) end
M.GetAnimation = function(self, index)
  local ctrl = comp_rec(self).animations[E.anim_index(index, 1, "GetAnimation") + 1]
  return ctrl and control_copy(ctrl)
end
M.GetNumAnimations = function(self) return #comp_rec(self).animations end

----------------------------------------------------------------------------------------------------
-- The battery's read of a node's animation (engine/lua/harness.lua, `view.animation`; docs/tasks.md): nil when the
-- node has no AnimatedModel, AnimationController or attribute animation; else plain tables of what plays.
----------------------------------------------------------------------------------------------------
local BLEND_NAMES = {[0] = "lerp", [1] = "additive"}
local WRAP_NAMES = {[0] = "loop", [1] = "once", [2] = "clamp"}
function E.animation_view(r, node_view)
  local model, ctrl
  for _, x in ipairs(r.components) do
    if x.type_name == "AnimatedModel" and model == nil then model = x end
    if x.type_name == "AnimationController" and ctrl == nil then ctrl = x end
  end
  local attr = r.attribute_animation
  if model == nil and ctrl == nil and (attr == nil or #attr.list == 0) then return nil end
  local states = {}
  local list = {}
  if model then
    for _, proxy in ipairs(model.states) do list[#list + 1] = REC[proxy] end
  elseif ctrl then
    for _, s in ipairs(ctrl.node_states) do list[#list + 1] = s end
  end
  for _, s in ipairs(list) do
    local a = s.animation and REC[s.animation]
    local row = {name = a and a.name or "", animation_name = a and a.animation_name or "", weight = s.weight,
      time = s.time, length = a and a.length or 0.0, layer = s.layer, looped = s.looped,
      blend = BLEND_NAMES[s.blend] or tostring(s.blend), start_bone = s.start_bone and s.start_bone.name or nil,
      playing = false}
    for _, x in ipairs(ctrl and ctrl.animations or {}) do
      if a and x.name == a.name then
        row.playing, row.speed, row.target_weight, row.fade_time = true, x.speed, x.target, x.fade
      end
    end
    states[#states + 1] = row
  end
  local attributes = {}
  for _, info in ipairs(attr and attr.list or {}) do
    attributes[#attributes + 1] = {attribute = info.name, time = info.time, speed = info.speed,
      wrap = WRAP_NAMES[info.wrap] or tostring(info.wrap)}
  end
  local bones = {}
  if model then
    for i, b in ipairs(model.skeleton.bones) do
      local n = E.bone_node(b)
      bones[i] = {name = b.name, node = n and node_view(n), animated = b.animated}
    end
  end
  return {states = states, bones = bones, attributes = attributes,
    enabled = attr == nil or attr.enabled}
end
