-- AnimatedModel and AnimationState, as Urho3D plays skeletal animation: setting a model with bones creates one
-- LOCAL child node per bone (in bone order, then parented as the skeleton says) and sends BoneHierarchyCreated;
-- animation states (weight, time, looping, layer, blend mode, start bone, per-bone weights) are applied to the bone
-- nodes when the model's animation is dirty, during the octree's RenderUpdate: the bones are reset to their bind
-- pose, the states applied in layer order (lerp or additive blending by weight), then the model node is marked
-- dirty.  As in headless Urho3D, only a model in a scene with an Octree (on the scene node, there when the model
-- joined the scene) and enabled is updated.  AnimationState:AddTime sends AnimationFinished and AnimationTrigger
-- from the model's node.  An AnimationState made on a node (AnimationState(node, animation)) drives that node's
-- hierarchy by track name, at full weight, when Apply() is called (the AnimationController does it every frame).
--
-- Times and weights are kept in single precision as Urho3D keeps them; transforms are computed in doubles.
local error, type, ipairs, pairs = error, type, ipairs, pairs
local sqrt, acos, sin, mmax, mmin, tremove = math.sqrt, math.acos, math.sin, math.max, math.min, table.remove
local REC, comp_rec = E.REC, E.comp_rec
local MX = E.MATH
local f32 = MX.f32
local M_EPSILON = 0.000001
local ABM_LERP, ABM_ADDITIVE = 0, 1
local CHANNEL_POSITION, CHANNEL_ROTATION, CHANNEL_SCALE = 1, 2, 4
local M_MAX_UNSIGNED = 4294967295
local BONECOLLISION_SPHERE, BONECOLLISION_BOX = 1, 2

local function equals(a, b) return a + M_EPSILON >= b and a - M_EPSILON <= b end

local slerp = MX.slerp_numbers   -- Quaternion::Slerp on plain numbers (11_math_quat.lua)
local function normalized(w, x, y, z)
  local len2 = w * w + x * x + y * y + z * z
  if len2 ~= 1.0 and len2 > 0.0 then
    local inv = 1.0 / sqrt(len2)
    return w * inv, x * inv, y * inv, z * inv
  end
  return w, x, y, z
end

----------------------------------------------------------------------------------------------------
-- AnimationState
----------------------------------------------------------------------------------------------------
local State = class("AnimationState")
local function state_rec(self)
  local s = REC[self]
  if s == nil or s.kind ~= "animation_state" then error("invalid 'self' (an AnimationState was expected)", 3) end
  return s
end
E.animation_state_rec = state_rec

local function mark_animation_dirty(c) if c and c.is_master then c.animation_dirty = true end end
local function mark_order_dirty(c) if c and c.is_master then c.order_dirty = true end end
E.mark_animation_dirty = mark_animation_dirty

local function animation_of(s) return s.animation and REC[s.animation] end
local function length_of(s) local a = animation_of(s); return a and a.length or 0.0 end

-- AnimationState::SetStartBone (model mode): the tracks of the start bone and the bones below it.
local function set_start_bone(s, bone)
  local c = s.model
  local a = animation_of(s)
  if c == nil or a == nil then return end
  local skel = c.skeleton
  if bone == nil then
    bone = skel.root and skel.bones[skel.root + 1]
    if bone == nil then return end
  end
  if bone == s.start_bone and #s.tracks > 0 then return end
  s.start_bone = bone
  s.tracks = {}
  local start_node = E.bone_node(bone)
  if start_node == nil then return end
  for _, track in ipairs(a.tracks) do
    local track_bone
    if track.name == bone.name then
      track_bone = bone
    elseif start_node.proxy:GetChild(track.name, true) then
      track_bone = E.skeleton_bone(skel, track.name)
    end
    local n = track_bone and E.bone_node(track_bone)
    if n then s.tracks[#s.tracks + 1] = {track = track, bone = track_bone, node = n, weight = 1.0, key = 0} end
  end
  mark_animation_dirty(c)
end
E.set_start_bone = set_start_bone

-- A state on a model (AnimatedModel::AddAnimationState) or on a node hierarchy (AnimationController's node mode)
function E.new_animation_state(model, node, animation)
  local s = {kind = "animation_state", model = model, node = node, animation = animation, start_bone = nil,
    looped = false, weight = model and 0.0 or 1.0, time = 0.0, layer = 0, blend = ABM_LERP, tracks = {}}
  local proxy = E.new_object("AnimationState", s)
  s.proxy = proxy
  local a = animation and REC[animation]
  if model then
    set_start_bone(s, nil)
  elseif node and a then
    for _, track in ipairs(a.tracks) do
      local target
      if node.name == track.name or #a.tracks == 1 then
        target = node
      else
        local found = node.proxy:GetChild(track.name, true)
        target = found and REC[found]
        if target == nil then
          E.log("WARNING", "Node " .. track.name .. " not found for node animation " .. (a.name or ""))
        end
      end
      if target then s.tracks[#s.tracks + 1] = {track = track, node = target, weight = 1.0, key = 0} end
    end
  end
  return proxy, s
end

State.new = function(owner, animation)
  local r = REC[owner]
  if r and r.kind == "component" and r.type_name == "AnimatedModel" then
    return (E.new_animation_state(r, nil, animation))
  elseif r and r.kind == "node" then
    return (E.new_animation_state(nil, r, animation))
  end
  return (E.new_animation_state(nil, nil, animation))
end

local function set_time(s, time)
  local a = animation_of(s)
  if a == nil then return end
  time = f32(time)
  if time < 0.0 then time = 0.0 elseif time > a.length then time = a.length end
  if time ~= s.time then
    s.time = time
    mark_animation_dirty(s.model)
  end
end

local function sender_node(s)
  local n = s.model and s.model.node or s.node
  if n == nil or n.removed then return nil end
  return n
end

-- AnimationState::AddTime: advance, wrap or clamp, AnimationFinished when the end is reached (or looped past),
-- then AnimationTrigger for each trigger passed.
local function add_time(s, delta)
  local a = animation_of(s)
  if a == nil or (s.model == nil and s.node == nil) then return end
  local length = a.length
  delta = f32(delta)
  if delta == 0.0 or length == 0.0 then return end
  local send_finish = false
  local old = s.time
  local time = f32(old + delta)
  if s.looped then
    while time >= length do time = f32(time - length); send_finish = true end
    while time < 0.0 do time = f32(time + length); send_finish = true end
  end
  set_time(s, time)
  if not s.looped then
    if delta > 0.0 and old < length and s.time == length then send_finish = true
    elseif delta < 0.0 and old > 0.0 and s.time == 0.0 then send_finish = true end
  end
  if send_finish then
    local n = sender_node(s)
    if n == nil then return end
    E.send_event("AnimationFinished", {Node = n.proxy, Animation = s.animation, Name = a.animation_name,
      Looped = s.looped}, n.proxy)
    if n.removed or s.removed then return end
  end
  if #a.triggers > 0 then
    local wrap = false
    if delta > 0.0 and old > time then old = f32(old - length); wrap = true end
    if delta < 0.0 and time > old then time = f32(time - length); wrap = true end
    if old > time then old, time = time, old end
    local triggers = {}
    for i, t in ipairs(a.triggers) do triggers[i] = t end
    for _, t in ipairs(triggers) do
      local frame_time = t.time
      if s.looped and wrap then frame_time = math.fmod(frame_time, length) end
      if old <= frame_time and time > frame_time then
        local n = sender_node(s)
        if n == nil then return end
        E.send_event("AnimationTrigger", {Node = n.proxy, Animation = s.animation, Name = a.animation_name,
          Time = t.time, Data = t.data}, n.proxy)
        if n.removed or s.removed then return end
      end
    end
  end
end
E.animation_state_add_time = add_time

-- AnimationState::ApplyTrack: the keyframes around the state's time, interpolated, blended into the node.
local function apply_track(s, st, weight, silent)
  local track = st.track
  local k = REC[track]
  local n = st.node
  if k.n == 0 or n == nil or n.removed then return end
  local a = animation_of(s)
  local frame = E.track_key_index(k, s.time, st.key)
  st.key = frame
  local next_frame = frame + 1
  local interpolate = true
  if next_frame >= k.n then
    if not s.looped then next_frame, interpolate = frame, false else next_frame = 0 end
  end
  local mask = track.channelMask
  local i, j = frame, next_frame
  local px, py, pz, rw, rx, ry, rz, sx, sy, sz
  local P, R, S = k.p, k.r, k.s
  if interpolate then
    local interval = k.t[j + 1] - k.t[i + 1]
    if interval < 0.0 then interval = interval + a.length end
    local t = interval > 0.0 and (s.time - k.t[i + 1]) / interval or 1.0
    if mask & CHANNEL_POSITION ~= 0 then
      local u = 1.0 - t
      px, py, pz = P[3 * i + 1] * u + P[3 * j + 1] * t, P[3 * i + 2] * u + P[3 * j + 2] * t,
        P[3 * i + 3] * u + P[3 * j + 3] * t
    end
    if mask & CHANNEL_ROTATION ~= 0 then
      rw, rx, ry, rz = slerp(R[4 * i + 1], R[4 * i + 2], R[4 * i + 3], R[4 * i + 4], R[4 * j + 1], R[4 * j + 2],
        R[4 * j + 3], R[4 * j + 4], t)
    end
    if mask & CHANNEL_SCALE ~= 0 then
      local u = 1.0 - t
      sx, sy, sz = S[3 * i + 1] * u + S[3 * j + 1] * t, S[3 * i + 2] * u + S[3 * j + 2] * t,
        S[3 * i + 3] * u + S[3 * j + 3] * t
    end
  else
    px, py, pz = P[3 * i + 1], P[3 * i + 2], P[3 * i + 3]
    rw, rx, ry, rz = R[4 * i + 1], R[4 * i + 2], R[4 * i + 3], R[4 * i + 4]
    sx, sy, sz = S[3 * i + 1], S[3 * i + 2], S[3 * i + 3]
  end
  if s.blend == ABM_ADDITIVE then
    local b = st.bone
    if mask & CHANNEL_POSITION ~= 0 then
      local ip = b.initialPosition
      px, py, pz = n.px + (px - ip.x) * weight, n.py + (py - ip.y) * weight, n.pz + (pz - ip.z) * weight
    end
    if mask & CHANNEL_ROTATION ~= 0 then
      local q = b.initialRotation
      local iw, ix, iy, iz = E.qinv(q.w, q.x, q.y, q.z)
      local dw, dx, dy, dz = E.qmul(rw, rx, ry, rz, iw, ix, iy, iz)
      rw, rx, ry, rz = normalized(E.qmul(dw, dx, dy, dz, n.rw, n.rx, n.ry, n.rz))
      if not equals(weight, 1.0) then rw, rx, ry, rz = slerp(n.rw, n.rx, n.ry, n.rz, rw, rx, ry, rz, weight) end
    end
    if mask & CHANNEL_SCALE ~= 0 then
      local is = b.initialScale
      sx, sy, sz = n.sx + (sx - is.x) * weight, n.sy + (sy - is.y) * weight, n.sz + (sz - is.z) * weight
    end
  elseif not equals(weight, 1.0) then
    local u = 1.0 - weight
    if mask & CHANNEL_POSITION ~= 0 then
      px, py, pz = n.px * u + px * weight, n.py * u + py * weight, n.pz * u + pz * weight
    end
    if mask & CHANNEL_ROTATION ~= 0 then rw, rx, ry, rz = slerp(n.rw, n.rx, n.ry, n.rz, rw, rx, ry, rz, weight) end
    if mask & CHANNEL_SCALE ~= 0 then
      sx, sy, sz = n.sx * u + sx * weight, n.sy * u + sy * weight, n.sz * u + sz * weight
    end
  end
  if silent then
    if mask & CHANNEL_POSITION ~= 0 then n.px, n.py, n.pz = px, py, pz end
    if mask & CHANNEL_ROTATION ~= 0 then n.rw, n.rx, n.ry, n.rz = rw, rx, ry, rz end
    if mask & CHANNEL_SCALE ~= 0 then n.sx, n.sy, n.sz = sx, sy, sz end
  else
    local proxy = n.proxy
    if mask & CHANNEL_POSITION ~= 0 then proxy:SetPosition(E.Vector3_new(px, py, pz)) end
    if mask & CHANNEL_ROTATION ~= 0 then proxy:SetRotation(E.Quaternion_new(rw, rx, ry, rz)) end
    if mask & CHANNEL_SCALE ~= 0 then proxy:SetScale(E.Vector3_new(sx, sy, sz)) end
  end
end

-- AnimationState::Apply
local function apply_state(s)
  if animation_of(s) == nil or not (s.weight > 0.0) then return end
  if s.model then
    for _, st in ipairs(s.tracks) do
      local w = s.weight * st.weight
      if not equals(w, 0.0) and st.bone.animated then apply_track(s, st, w, true) end
    end
  else
    for _, st in ipairs(s.tracks) do apply_track(s, st, 1.0, false) end
  end
end
E.apply_animation_state = apply_state

local function track_index(s, key)
  for i, st in ipairs(s.tracks) do
    local n = st.node
    if n and not n.removed then
      if type(key) == "string" and n.name == key then return i end
      if E.is(key, "StringHash") and E.sdbm(n.name) == key.value_ then return i end
      if type(key) == "table" and REC[key] == n then return i end
    end
  end
  return nil
end
local function set_bone_weight(s, index, weight, recursive)
  local st = index and s.tracks[index]
  if st == nil then return end
  weight = f32(mmin(mmax(weight, 0.0), 1.0))
  if weight ~= st.weight then
    st.weight = weight
    mark_animation_dirty(s.model)
  end
  if recursive and st.node and not st.node.removed then
    for _, child in ipairs(st.node.children) do
      local ci = track_index(s, child.proxy)
      if ci then set_bone_weight(s, ci, weight, true) end
    end
  end
end

local SM = State.methods
SM.SetStartBone = function(self, bone)
  if bone ~= nil and not E.is(bone, "Bone") then E.anim_arg_error(1, "SetStartBone", "Bone", bone) end
  set_start_bone(state_rec(self), bone)
end
SM.GetStartBone = function(self) local s = state_rec(self); return s.model and s.start_bone or nil end
SM.SetLooped = function(self, looped) state_rec(self).looped = looped and true or false end
SM.IsLooped = function(self) return state_rec(self).looped end
SM.SetWeight = function(self, weight)
  local s = state_rec(self)
  weight = E.anim_number(weight, 1, "SetWeight")
  if s.model == nil then return end   -- node animation plays at full weight
  weight = f32(mmin(mmax(weight, 0.0), 1.0))
  if weight ~= s.weight then
    s.weight = weight
    mark_animation_dirty(s.model)
  end
end
SM.GetWeight = function(self) return state_rec(self).weight end
SM.AddWeight = function(self, delta)
  if E.anim_number(delta, 1, "AddWeight") == 0.0 then return end
  local s = state_rec(self)
  SM.SetWeight(self, f32(s.weight + delta))
end
SM.SetTime = function(self, time) set_time(state_rec(self), E.anim_number(time, 1, "SetTime")) end
SM.GetTime = function(self) return state_rec(self).time end
SM.AddTime = function(self, delta) add_time(state_rec(self), E.anim_number(delta, 1, "AddTime")) end
SM.SetLayer = function(self, layer)
  local s = state_rec(self)
  layer = E.anim_index(layer, 1, "SetLayer") & 0xff
  if layer ~= s.layer then
    s.layer = layer
    mark_order_dirty(s.model)
  end
end
SM.GetLayer = function(self) return state_rec(self).layer end
SM.SetBlendMode = function(self, mode)
  local s = state_rec(self)
  mode = E.anim_number(mode, 1, "SetBlendMode")
  if s.model and s.blend ~= mode then
    s.blend = mode
    mark_animation_dirty(s.model)
  end
end
SM.GetBlendMode = function(self) return state_rec(self).blend end
SM.SetBoneWeight = function(self, key, weight, recursive)
  local s = state_rec(self)
  weight = E.anim_number(weight, 2, "SetBoneWeight")
  local index = type(key) == "number" and E.anim_index(key, 1, "SetBoneWeight") + 1 or track_index(s, key)
  set_bone_weight(s, index, weight, recursive)
end
SM.GetBoneWeight = function(self, key)
  local s = state_rec(self)
  local index = type(key) == "number" and E.anim_index(key, 1, "GetBoneWeight") + 1 or track_index(s, key)
  local st = index and s.tracks[index]
  return st and st.weight or 0.0
end
SM.GetTrackIndex = function(self, key)
  local i = track_index(state_rec(self), key)
  return i and i - 1 or M_MAX_UNSIGNED
end
SM.GetAnimation = function(self) return state_rec(self).animation end
SM.IsEnabled = function(self) return state_rec(self).weight > 0.0 end
SM.GetLength = function(self) return length_of(state_rec(self)) end
SM.Apply = function(self) apply_state(state_rec(self)) end

----------------------------------------------------------------------------------------------------
-- AnimatedModel
----------------------------------------------------------------------------------------------------
local AMC = class("AnimatedModel")
local static_model = E.COMPONENT_FACTORIES.StaticModel
E.animated_models = {}   -- live AnimatedModel records, in creation order (the octree updates them)

local function find_octree(scene)
  if scene == nil then return nil end
  for _, x in ipairs(scene.components) do
    if x.type_name == "Octree" then return x end
  end
  return nil
end
local function enabled_effective(c)
  return c.enabled and c.node ~= nil and c.node.enabled
end

E.COMPONENT_FACTORIES.AnimatedModel = function(c)
  static_model(c)
  c.skeleton_proxy, c.skeleton = E.new_skeleton({})
  c.states = {}
  c.animation_dirty, c.order_dirty = false, false
  c.lod_bias, c.update_invisible = 1.0, false
  c.morphs = {}
  c.is_master = true
  for _, x in ipairs(c.node.components) do
    if x.type_name == "AnimatedModel" then c.is_master = false; break end
  end
  c.octree = nil
  c.on_scene_set = function(x, scene) x.octree = find_octree(scene) end
  c.on_scene_removed = function(x) x.octree = nil end
  c.on_set_enabled = function(x)
    if enabled_effective(x) and x.node and x.octree == nil then x.octree = find_octree(x.node.scene) end
  end
  c.on_removed = function(x)
    -- ~AnimatedModel: remove the bone hierarchy when no other AnimatedModel in its parent node uses it
    local root = x.skeleton.root and x.skeleton.bones[x.skeleton.root + 1]
    local n = E.bone_node(root)
    if n and n.parent then
      for _, y in ipairs(n.parent.components) do if y.type_name == "AnimatedModel" then return end end
      n.proxy:Remove()
    end
  end
  local list = E.animated_models
  list[#list + 1] = c
  if #list % 64 == 0 then E.prune_animated_models() end
end

local function remove_root_bone(c)
  local skel = c.skeleton
  local n = E.bone_node(skel.root and skel.bones[skel.root + 1])
  if n then n.proxy:Remove() end
end

local function remove_all_states(c)
  if #c.states > 0 then
    for _, proxy in ipairs(c.states) do REC[proxy].removed = true end
    c.states = {}
    mark_animation_dirty(c)
  end
end

-- AnimatedModel::SetSkeleton: for the master model, copy the bones and (createBones) make their nodes.
local function set_skeleton(c, bones, create_bones)
  local node = c.node
  local skel = c.skeleton
  if c.is_master then
    local dest = skel.bones
    if #dest == #bones and #dest > 0 then
      local compatible = true
      for i, b in ipairs(dest) do
        if not (b.node and b.name == bones[i].name and b.parentIndex == bones[i].parentIndex) then
          compatible = false
          break
        end
      end
      if compatible then
        for i, b in ipairs(dest) do
          local keep_node, keep_animated = b.node, b.animated
          local copy = E.copy_bone(bones[i])
          for k, v in pairs(copy) do b[k] = v end
          b.node, b.animated = keep_node, keep_animated
        end
        return
      end
    end
    remove_all_states(c)
    if create_bones then remove_root_bone(c) end
    local copies = {}
    for i, b in ipairs(bones) do copies[i] = E.copy_bone(b) end
    local _, r = E.new_skeleton(copies)
    skel.bones, skel.root = r.bones, r.root
    -- dummy bones that do not affect skinning lose their collision data (AnimatedModel::FinalizeBoneBoundingBoxes)
    for _, b in ipairs(skel.bones) do
      local size = b.boundingBox.max - b.boundingBox.min
      if b.collisionMask & BONECOLLISION_BOX ~= 0 and (b.boundingBox.min.x > b.boundingBox.max.x
          or size:Length() < M_EPSILON) then
        b.collisionMask = b.collisionMask & ~BONECOLLISION_BOX
      end
      if b.collisionMask & BONECOLLISION_SPHERE ~= 0 and b.radius < M_EPSILON then
        b.collisionMask = b.collisionMask & ~BONECOLLISION_SPHERE
      end
    end
    if create_bones then
      local temporary = c.temporary == true
      for _, b in ipairs(skel.bones) do
        local bone_node = node.proxy:CreateChild(b.name, 1)   -- LOCAL: bones are never replicated
        bone_node:SetTransform(b.initialPosition, b.initialRotation, b.initialScale)
        bone_node:SetTemporary(temporary)
        b.node = bone_node
      end
      for i, b in ipairs(skel.bones) do
        local parent = b.parentIndex
        if parent ~= i - 1 and parent < #skel.bones then skel.bones[parent + 1].node:AddChild(b.node) end
      end
    end
    E.send_event("BoneHierarchyCreated", {Node = node.proxy}, node.proxy)
  else
    local copies = {}
    for i, b in ipairs(bones) do copies[i] = E.copy_bone(b) end
    local _, r = E.new_skeleton(copies)
    skel.bones, skel.root = r.bones, r.root
    if create_bones then
      for _, b in ipairs(skel.bones) do b.node = node.proxy:GetChild(b.name, true) end
    end
  end
end

local AM = AMC.methods
local static_set_model = E.IMPL.StaticModel.methods.SetModel
AM.SetModel = function(self, model)
  local c = comp_rec(self)
  if model ~= nil and not (REC[model] and REC[model].kind == "resource") then
    E.anim_arg_error(1, "SetModel", "Model", model)
  end
  if model == c.model then return end
  if c.node == nil then
    E.log("ERROR", "Can not set model while model component is not attached to a scene node")
    return
  end
  static_set_model(self, model)
  if model ~= nil then
    local m = E.rec(model)
    local data = E.model_skeletal(m)
    c.morphs = {}
    for i, name in ipairs(data.morphs) do c.morphs[i] = {name = name, weight = 0.0} end
    set_skeleton(c, data.bones, true)
  else
    remove_root_bone(c)
    c.morphs = {}
    set_skeleton(c, {}, false)
  end
end
AM.GetSkeleton = function(self) return comp_rec(self).skeleton_proxy end
AM.IsMaster = function(self) return comp_rec(self).is_master end

local function find_state(c, key)
  if type(key) == "number" then return c.states[E.anim_index(key, 1, "GetAnimationState") + 1] end
  for _, proxy in ipairs(c.states) do
    local s = REC[proxy]
    local a = animation_of(s)
    if type(key) == "string" then
      if a and (a.name == key or a.animation_name == key) then return proxy end
    elseif E.is(key, "StringHash") then
      if a and (E.sdbm(a.name) == key.value_ or E.sdbm(a.animation_name) == key.value_) then return proxy end
    elseif s.animation == key then
      return proxy
    end
  end
  return nil
end
E.find_model_state = find_state

AM.AddAnimationState = function(self, animation)
  local c = comp_rec(self)
  if not c.is_master then
    E.log("ERROR", "Can not add animation state to non-master model")
    return nil
  end
  if animation ~= nil and not (REC[animation] and REC[animation].type_name == "Animation") then
    E.anim_arg_error(1, "AddAnimationState", "Animation", animation)
  end
  if animation == nil or #c.skeleton.bones == 0 then return nil end
  local existing = find_state(c, animation)
  if existing then return existing end
  local proxy = E.new_animation_state(c, nil, animation)
  c.states[#c.states + 1] = proxy
  mark_order_dirty(c)
  return proxy
end
local function remove_state_at(c, i)
  REC[c.states[i]].removed = true
  tremove(c.states, i)
  mark_animation_dirty(c)
end
AM.RemoveAnimationState = function(self, key)
  local c = comp_rec(self)
  if type(key) == "number" then
    key = E.anim_index(key, 1, "RemoveAnimationState")
    if key < #c.states then remove_state_at(c, key + 1) end
    return
  end
  if key ~= nil and REC[key] and REC[key].kind == "animation_state" then
    for i, proxy in ipairs(c.states) do if proxy == key then return remove_state_at(c, i) end end
    return
  end
  if key ~= nil and REC[key] and REC[key].type_name == "Animation" then key = REC[key].name end
  local proxy = find_state(c, key)
  if proxy == nil then return end
  for i, x in ipairs(c.states) do if x == proxy then return remove_state_at(c, i) end end
end
AM.RemoveAllAnimationStates = function(self) remove_all_states(comp_rec(self)) end
AM.GetNumAnimationStates = function(self) return #comp_rec(self).states end
AM.GetAnimationState = function(self, key) return find_state(comp_rec(self), key) end
AM.SetAnimationLodBias = function(self, bias)
  comp_rec(self).lod_bias = mmax(f32(E.anim_number(bias, 1, "SetAnimationLodBias")), 0.0)
end
AM.GetAnimationLodBias = function(self) return comp_rec(self).lod_bias end
AM.SetUpdateInvisible = function(self, enable) comp_rec(self).update_invisible = enable and true or false end
AM.GetUpdateInvisible = function(self) return comp_rec(self).update_invisible end
local function morph_index(c, key)
  if type(key) == "number" then return E.anim_index(key, 1, "MorphWeight") + 1 end
  for i, m in ipairs(c.morphs) do
    if (type(key) == "string" and m.name == key) or (E.is(key, "StringHash") and E.sdbm(m.name) == key.value_) then
      return i
    end
  end
  return nil
end
AM.SetMorphWeight = function(self, key, weight)
  local c = comp_rec(self)
  weight = E.anim_number(weight, 2, "SetMorphWeight")
  local i = morph_index(c, key)
  if i and c.morphs[i] then c.morphs[i].weight = f32(mmin(mmax(weight, 0.0), 1.0)) end
end
AM.GetMorphWeight = function(self, key)
  local c = comp_rec(self)
  local i = morph_index(c, key)
  return i and c.morphs[i] and c.morphs[i].weight or 0.0
end
AM.ResetMorphWeights = function(self) for _, m in ipairs(comp_rec(self).morphs) do m.weight = 0.0 end end
AM.GetNumMorphs = function(self) return #comp_rec(self).morphs end

-- The bones' bounding box in the model node's space (AnimatedModel::UpdateBoneBoundingBox), or nil without bones.
local function bone_bounding_box(c)
  if #c.skeleton.bones == 0 or c.node == nil then return nil end
  local node = c.node.proxy
  local inverse = node:GetWorldTransform():Inverse()
  local box = E.BoundingBox_new()
  for _, b in ipairs(c.skeleton.bones) do
    local n = E.bone_node(b)
    if n then
      if b.collisionMask & BONECOLLISION_BOX ~= 0 then
        box:Merge(b.boundingBox:Transformed(inverse * n.proxy:GetWorldTransform()))
      elseif b.collisionMask & BONECOLLISION_SPHERE ~= 0 then
        local center = inverse * n.proxy:GetWorldPosition()
        local r = b.radius * 0.5
        box:Merge(E.BoundingBox_new(center.x - r, center.y - r, center.z - r, center.x + r, center.y + r,
          center.z + r))
      end
    end
  end
  return box
end
AM.UpdateBoneBoundingBox = function() end   -- the bone box is computed when asked for

-- The octree's view of an AnimatedModel (59_octree.lua): a StaticModel whose world box is its bones' (the master's,
-- for a second model on the node), and whose ray test at RAY_TRIANGLE and beyond hits bone boxes and spheres, one
-- result per bone hit (subObject = bone index), as AnimatedModel::ProcessRayQuery.
local KINDS = E.DRAWABLE_KINDS
local RAY_TRIANGLE = 2
local static_kind = KINDS.StaticModel
local function master_of(c)
  if c.is_master or c.node == nil then return c end
  for _, x in ipairs(c.node.components) do
    if x.type_name == "AnimatedModel" and x.is_master then return x end
  end
  return c
end
local animated_kind
animated_kind = {flags = static_kind.flags, box = static_kind.box, triangles = static_kind.triangles,
  name = static_kind.name,
  world_box = function(c)
    c = master_of(c)
    local box = bone_bounding_box(c)
    if box == nil or not box:Defined() then
      local b = static_kind.box(c)
      if b == nil or c.node == nil then return b end
      return E.transform_box(b, E.world(c.node))
    end
    local w = box:Transformed(c.node.proxy:GetWorldTransform())
    return {w.min.x, w.min.y, w.min.z, w.max.x, w.max.y, w.max.z}
  end,
  ray = function(c, q, results)
    if q.level < RAY_TRIANGLE or #c.skeleton.bones == 0 then
      return E.drawable_mesh_level(c, q, results, animated_kind, E.world(c.node), M_MAX_UNSIGNED)
    end
    local wb = animated_kind.world_box(c)
    if wb == nil or q.ray:HitDistance(E.box_value(wb)) >= q.max then return end
    local nx, ny, nz = -q.direction.x, -q.direction.y, -q.direction.z
    for i, b in ipairs(c.skeleton.bones) do
      local n = E.bone_node(b)
      local distance
      if n and b.collisionMask & BONECOLLISION_BOX ~= 0 then
        local transform = n.proxy:GetWorldTransform()
        distance = q.ray:HitDistance(b.boundingBox:Transformed(transform))
        if distance < q.max then distance = q.ray:Transformed(transform:Inverse()):HitDistance(b.boundingBox) end
      elseif n and b.collisionMask & BONECOLLISION_SPHERE ~= 0 then
        distance = q.ray:HitDistance(E.IMPL.Sphere.new(n.proxy:GetWorldPosition(), b.radius))
      end
      if distance and distance < q.max then E.ray_result_push(results, q, distance, nx, ny, nz, c, i - 1) end
    end
  end}
KINDS.AnimatedModel = animated_kind

-- AnimatedModel::ApplyAnimation: states in layer order (a stable sort), bones reset, states applied.
local function apply_animation(c)
  if c.order_dirty then
    local list = c.states
    for i = 2, #list do
      local x, j = list[i], i - 1
      while j >= 1 and REC[list[j]].layer > REC[x].layer do list[j + 1] = list[j]; j = j - 1 end
      list[j + 1] = x
    end
    c.order_dirty = false
  end
  if c.is_master then
    for _, b in ipairs(c.skeleton.bones) do
      local n = b.animated and E.bone_node(b)
      if n then
        local p, q, s = b.initialPosition, b.initialRotation, b.initialScale
        n.px, n.py, n.pz = p.x, p.y, p.z
        n.rw, n.rx, n.ry, n.rz = q.w, q.x, q.y, q.z
        n.sx, n.sy, n.sz = s.x, s.y, s.z
      end
    end
    for _, proxy in ipairs(c.states) do apply_state(REC[proxy]) end
    E.mark_dirty(c.node)
  end
  c.animation_dirty = false
end

-- Headless Urho3D updates an octree's drawables on RenderUpdate (Octree::HandleRenderUpdate): the animated models
-- whose animation is dirty are applied.
local function live(c) return not c.removed and c.node ~= nil and not c.node.removed end
function E.prune_animated_models()
  local alive = {}
  for _, c in ipairs(E.animated_models) do if live(c) then alive[#alive + 1] = c end end
  E.animated_models = alive
end
-- Other drawables the octree updates (Drawable::Update of those queued with MarkForUpdate) add fn(octree) here; they
-- run after the animated models, in the order they were added (65_particles.lua).
E.OCTREE_UPDATES = {}
-- Then the scene sends SceneDrawableUpdateFinished (Scene, TimeStep: the frame's, unscaled), where custom animation
-- such as IK runs on the animated bones (64_ik.lua).
local function octree_update(oct, step)
  local node = oct.node
  local scene = node and node.scene
  if scene == nil or not scene.update_enabled or oct.removed then return end
  E.prune_animated_models()
  for _, c in ipairs(E.animated_models) do
    if live(c) and c.octree == oct and c.node.scene == scene and enabled_effective(c)
        and (c.animation_dirty or c.order_dirty) then
      apply_animation(c)
    end
  end
  for _, fn in ipairs(E.OCTREE_UPDATES) do fn(oct) end
  if not scene.removed and E.has_subscribers("SceneDrawableUpdateFinished") then
    E.send_event("SceneDrawableUpdateFinished", {Scene = scene.proxy, TimeStep = step}, scene.proxy)
  end
end
local base_octree = E.COMPONENT_FACTORIES.Octree
E.COMPONENT_FACTORIES.Octree = function(c)
  base_octree(c)
  E.subscribe(c, nil, nil, "RenderUpdate", function(_, data) octree_update(c, data.TimeStep:GetFloat()) end)
  local removed = c.on_removed
  c.on_removed = function(x)
    if removed then removed(x) end
    E.unsubscribe_all(x)
  end
end
