-- Skeletons and skeletal animations as resources: Bone and Skeleton (a model's bones, and the ones an AnimatedModel
-- makes nodes for), Model:GetSkeleton, and the Animation resource with its tracks, keyframes and triggers.  The data
-- comes from the host (engine/_skeletal.py): Urho3D's stock models and animations, or the game's own .mdl/.ani files.
-- An animation's triggers come from its side file (`<name>.xml`, else `<name>.json`) as Urho3D reads them.
--
-- A track keeps its keyframes in flat arrays (times, positions, rotations, scales) in its private record; the
-- AnimationKeyFrame values GetKeyFrame returns are copies (change a track with SetKeyFrame, AddKeyFrame ...).
local error, type, ipairs, setmetatable, tostring, tonumber = error, type, ipairs, setmetatable, tostring, tonumber
local sformat, smatch, sgmatch, tinsert, tremove = string.format, string.match, string.gmatch, table.insert,
  table.remove
local mtointeger = math.tointeger
local REC = E.REC
local f32 = E.MATH.f32
local CHANNEL_POSITION, CHANNEL_ROTATION, CHANNEL_SCALE = 1, 2, 4
local BONECOLLISION_SPHERE, BONECOLLISION_BOX = 1, 2
local M_MAX_UNSIGNED = 4294967295

-- The host's skeletal data for a resource record: the stock data, or the game's file.
local function skeletal_data(kind, r)
  local path = nil
  if r.from_game then path = E.find_game_file(r.name) end
  local data, err = E.host_call(E.host.skeletal, kind, r.name, path)
  if data == nil then E.log("ERROR", tostring(err)) end
  return data
end

-- A Variant from the text of an XML or JSON value (`type`, `value`), as Urho3D's XMLElement::GetVariant reads it.
local function numbers(text)
  local out = {}
  for word in sgmatch(text or "", "%S+") do out[#out + 1] = tonumber(word) or 0 end
  return out
end
local VARIANT_TEXT = {
  Int = function(s) local n = numbers(s)[1] or 0; return mtointeger(n) or (n >= 0 and math.floor(n) or -math.floor(-n)) end,
  Bool = function(s) s = tostring(s or ""):lower(); return s == "true" or s == "1" end,
  Float = function(s) return f32(numbers(s)[1] or 0) end,
  Double = function(s) return numbers(s)[1] or 0.0 end,
  String = function(s) return tostring(s or "") end,
  Vector2 = function(s) local n = numbers(s); return E.Vector2_new(n[1], n[2]) end,
  Vector3 = function(s) local n = numbers(s); return E.Vector3_new(n[1], n[2], n[3]) end,
  Vector4 = function(s) local n = numbers(s); return E.Vector4_new(n[1], n[2], n[3], n[4]) end,
  Quaternion = function(s)
    local n = numbers(s)
    if #n == 3 then return E.IMPL.Quaternion.new(n[1], n[2], n[3]) end
    return E.Quaternion_new(n[1] or 1, n[2] or 0, n[3] or 0, n[4] or 0)
  end,
  Color = function(s) local n = numbers(s); return E.Color_new(n[1] or 0, n[2] or 0, n[3] or 0, n[4] or 1) end,
  IntVector2 = function(s) local n = numbers(s); return E.IntVector2_new(n[1], n[2]) end,
  IntVector3 = function(s) local n = numbers(s); return E.IntVector3_new(n[1], n[2], n[3]) end,
  IntRect = function(s) local n = numbers(s); return E.IntRect_new(n[1], n[2], n[3], n[4]) end,
}
function E.variant_from_text(vtype, text)
  local read = VARIANT_TEXT[vtype]
  if read == nil then return E.Variant_new("None", nil) end
  return E.Variant_new(vtype, read(text))
end

----------------------------------------------------------------------------------------------------
-- Bone and Skeleton
----------------------------------------------------------------------------------------------------
local Bone = class("Bone")
local bone_mt = Bone.mt
local function new_bone(def)
  local b = setmetatable({}, bone_mt)
  b.name = def and def.name or ""
  b.nameHash = E.StringHash_new(b.name)
  b.parentIndex = def and def.parent or 0
  local p, q, s = def and def.position, def and def.rotation, def and def.scale
  b.initialPosition = p and E.Vector3_new(p[1], p[2], p[3]) or E.Vector3_new(0, 0, 0)
  b.initialRotation = q and E.Quaternion_new(q[1], q[2], q[3], q[4]) or E.Quaternion_new(1, 0, 0, 0)
  b.initialScale = s and E.Vector3_new(s[1], s[2], s[3]) or E.Vector3_new(1, 1, 1)
  local o = def and def.offset
  b.offsetMatrix = o and E.Matrix3x4_new(o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9], o[10], o[11], o[12])
    or E.Matrix3x4_new()
  b.animated = true
  b.collisionMask = def and def.collision or 0
  b.radius = def and def.radius or 0.0
  local x = def and def.box
  b.boundingBox = x and E.BoundingBox_new(x[1], x[2], x[3], x[4], x[5], x[6]) or E.BoundingBox_new()
  b.node = nil
  return b
end
Bone.new = function() return new_bone(nil) end

-- A copy of a bone without its node (Skeleton::Define)
local function copy_bone(src)
  local b = setmetatable({}, bone_mt)
  b.name, b.nameHash, b.parentIndex = src.name, E.StringHash_new(src.name), src.parentIndex
  b.initialPosition, b.initialRotation = E.copy_value(src.initialPosition), E.copy_value(src.initialRotation)
  b.initialScale, b.offsetMatrix = E.copy_value(src.initialScale), E.copy_value(src.offsetMatrix)
  b.animated, b.collisionMask, b.radius = src.animated, src.collisionMask, src.radius
  b.boundingBox = E.copy_value(src.boundingBox)
  return b
end
E.copy_bone = copy_bone

-- The live node of a bone, or nil (the node was removed, or never made)
function E.bone_node(b)
  local n = b and REC[b.node]
  if n == nil or n.kind ~= "node" or n.removed then return nil end
  return n
end

local Skeleton = class("Skeleton")
-- A skeleton record: {bones = {Bone ...}, root = 0-based index or nil}
function E.new_skeleton(bones)
  local r = {kind = "skeleton", bones = bones or {}, root = nil}
  for i, b in ipairs(r.bones) do
    if b.parentIndex == i - 1 then r.root = i - 1 end
  end
  return E.new_object("Skeleton", r), r
end
local function skel_rec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "skeleton" then error("invalid 'self' (a Skeleton was expected)", 3) end
  return r
end
function E.skeleton_bone(r, key)
  if type(key) == "number" then return r.bones[E.anim_index(key, 1, "GetBone") + 1] end
  local name = key
  if E.is(key, "StringHash") then
    for _, b in ipairs(r.bones) do if b.nameHash.value_ == key.value_ then return b end end
    return nil
  end
  for _, b in ipairs(r.bones) do if b.name == name then return b end end
  return nil
end
local function bone_index(r, key)
  if type(key) == "string" or E.is(key, "StringHash") then
    local b = E.skeleton_bone(r, key)
    key = b
  end
  for i, b in ipairs(r.bones) do if b == key then return i - 1 end end
  return M_MAX_UNSIGNED
end
local SK = Skeleton.methods
SK.GetNumBones = function(self) return #skel_rec(self).bones end
SK.GetRootBone = function(self)
  local r = skel_rec(self)
  return r.root and r.bones[r.root + 1]
end
SK.GetBone = function(self, key) return E.skeleton_bone(skel_rec(self), key) end
SK.GetBoneIndex = function(self, key) return bone_index(skel_rec(self), key) end
SK.GetBoneParent = function(self, bone)
  local r = skel_rec(self)
  local i = bone_index(r, bone)
  if i == M_MAX_UNSIGNED or bone.parentIndex == i then return nil end
  return r.bones[bone.parentIndex + 1]
end

-- Model: its skeleton and morph names, read when first needed.
local function model_data(m)
  if m.skeletal == nil then
    m.skeletal = {bones = {}, morphs = {}}
    if (m.from_game or (m.num_bones or 0) > 0) then
      local data = skeletal_data("model", m)
      if data then
        for i, def in ipairs(data.bones) do m.skeletal.bones[i] = new_bone(def) end
        for i, name in ipairs(data.morphs or {}) do m.skeletal.morphs[i] = name end
      end
    end
  end
  return m.skeletal
end
E.model_skeletal = model_data
local Model = class("Model")
local base_model_init = E.resource_init_of("Model")
E.resource_init("Model", function(r, proxy, meta)
  if base_model_init and base_model_init(r, proxy, meta) == false then return false end
  r.from_game = meta ~= nil and meta.from_game == true
  r.num_bones = meta and meta.num_bones or 0
end)
Model.methods.GetSkeleton = function(self)
  local m = E.rec(self)
  if m.skeleton_proxy == nil then
    local bones = {}
    for i, b in ipairs(model_data(m).bones) do bones[i] = copy_bone(b) end
    m.skeleton_proxy = E.new_skeleton(bones)
  end
  return m.skeleton_proxy
end
Model.methods.GetNumMorphs = function(self) return #model_data(E.rec(self)).morphs end

----------------------------------------------------------------------------------------------------
-- Animation tracks and keyframes
----------------------------------------------------------------------------------------------------
local Track = class("AnimationTrack")
local track_mt = Track.mt
local KeyFrame = class("AnimationKeyFrame")
local keyframe_mt = KeyFrame.mt

-- A track: public fields name, nameHash, channelMask; keyframes in REC[track]: n, t (times), p (x y z per key),
-- r (w x y z), s (x y z).  Channels the mask lacks hold the defaults (zero, identity, one).
local function new_track(name)
  local track = setmetatable({name = name, nameHash = E.StringHash_new(name), channelMask = 0}, track_mt)
  REC[track] = {kind = "track", n = 0, t = {}, p = {}, r = {}, s = {}}
  return track
end
local function track_rec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "track" then error("invalid 'self' (an AnimationTrack was expected)", 3) end
  return r
end
E.track_rec = track_rec

local function track_from_data(def)
  local track = new_track(def.name)
  track.channelMask = def.mask
  local k = REC[track]
  local times, pos, rot, scl = def.times, def.positions, def.rotations, def.scales
  local n = #times
  k.n, k.t = n, times
  if pos then k.p = pos else for i = 1, 3 * n do k.p[i] = 0.0 end end
  if rot then k.r = rot else for i = 1, n do local j = 4 * (i - 1); k.r[j + 1], k.r[j + 2], k.r[j + 3], k.r[j + 4] = 1.0, 0.0, 0.0, 0.0 end end
  if scl then k.s = scl else for i = 1, 3 * n do k.s[i] = 1.0 end end
  return track
end

local function keyframe_at(k, i)
  local p, r, s = 3 * (i - 1), 4 * (i - 1), 3 * (i - 1)
  return setmetatable({time = k.t[i], position = E.Vector3_new(k.p[p + 1], k.p[p + 2], k.p[p + 3]),
    rotation = E.Quaternion_new(k.r[r + 1], k.r[r + 2], k.r[r + 3], k.r[r + 4]),
    scale = E.Vector3_new(k.s[s + 1], k.s[s + 2], k.s[s + 3])}, keyframe_mt)
end
local function numbers_in(t, keys)
  if type(t) ~= "table" then return false end
  for _, k in ipairs(keys) do if type(t[k]) ~= "number" then return false end end
  return true
end
local XYZ, WXYZ = {"x", "y", "z"}, {"w", "x", "y", "z"}
local function keyframe_values(kf, n, fname)
  if type(kf) ~= "table" then E.anim_arg_error(n, fname, "AnimationKeyFrame", kf) end
  local t = kf.time or 0.0
  local p = kf.position or E.Vector3_new(0, 0, 0)
  local r = kf.rotation or E.Quaternion_new(1, 0, 0, 0)
  local s = kf.scale or E.Vector3_new(1, 1, 1)
  if type(t) ~= "number" or not numbers_in(p, XYZ) or not numbers_in(r, WXYZ) or not numbers_in(s, XYZ) then
    E.anim_arg_error(n, fname, "AnimationKeyFrame", kf)
  end
  return {f32(t), p.x, p.y, p.z, r.w, r.x, r.y, r.z, s.x, s.y, s.z}
end
local function put(k, i, v)
  local p, r, s = 3 * (i - 1), 4 * (i - 1), 3 * (i - 1)
  k.t[i] = v[1]
  k.p[p + 1], k.p[p + 2], k.p[p + 3] = v[2], v[3], v[4]
  k.r[r + 1], k.r[r + 2], k.r[r + 3], k.r[r + 4] = v[5], v[6], v[7], v[8]
  k.s[s + 1], k.s[s + 2], k.s[s + 3] = v[9], v[10], v[11]
end
local function get(k, i)
  local p, r, s = 3 * (i - 1), 4 * (i - 1), 3 * (i - 1)
  return {k.t[i], k.p[p + 1], k.p[p + 2], k.p[p + 3], k.r[r + 1], k.r[r + 2], k.r[r + 3], k.r[r + 4],
    k.s[s + 1], k.s[s + 2], k.s[s + 3]}
end
-- Rebuild a track's arrays from a list of keyframe value rows, sorted by time (stably, as Urho3D's small sorts)
local function rebuild(k, rows, sort)
  if sort then
    for i = 2, #rows do
      local row, j = rows[i], i - 1
      while j >= 1 and rows[j][1] > row[1] do rows[j + 1] = rows[j]; j = j - 1 end
      rows[j + 1] = row
    end
  end
  k.t, k.p, k.r, k.s, k.n = {}, {}, {}, {}, #rows
  for i, row in ipairs(rows) do put(k, i, row) end
end
local function rows_of(k)
  local rows = {}
  for i = 1, k.n do rows[i] = get(k, i) end
  return rows
end

local TM = Track.methods
TM.SetKeyFrame = function(self, index, kf)
  local k = track_rec(self)
  index = E.anim_index(index, 1, "SetKeyFrame")
  local v = keyframe_values(kf, 2, "SetKeyFrame")
  if index < k.n then
    local rows = rows_of(k)
    rows[index + 1] = v
    rebuild(k, rows, true)
  elseif index == k.n then
    TM.AddKeyFrame(self, kf)
  end
end
TM.AddKeyFrame = function(self, kf)
  local k = track_rec(self)
  local v = keyframe_values(kf, 1, "AddKeyFrame")
  local sort = k.n > 0 and k.t[k.n] > v[1]
  put(k, k.n + 1, v)
  k.n = k.n + 1
  if sort then rebuild(k, rows_of(k), true) end
end
TM.InsertKeyFrame = function(self, index, kf)
  local k = track_rec(self)
  index = E.anim_index(index, 1, "InsertKeyFrame")
  local v = keyframe_values(kf, 2, "InsertKeyFrame")
  local rows = rows_of(k)
  if index > #rows then index = #rows end
  tinsert(rows, index + 1, v)
  rebuild(k, rows, true)
end
TM.RemoveKeyFrame = function(self, index)
  local k = track_rec(self)
  index = E.anim_index(index, 1, "RemoveKeyFrame")
  if index >= k.n then return end
  local rows = rows_of(k)
  tremove(rows, index + 1)
  rebuild(k, rows, false)
end
TM.RemoveAllKeyFrames = function(self) rebuild(track_rec(self), {}, false) end
TM.GetKeyFrame = function(self, index)
  local k = track_rec(self)
  index = E.anim_index(index, 1, "GetKeyFrame")
  if index >= k.n then return nil end
  return keyframe_at(k, index + 1)
end
TM.GetNumKeyFrames = function(self) return track_rec(self).n end
-- `track.keyFrames`: a copy of the keyframes, as a list
E.defer(function()
  local index = track_mt.__index
  track_mt.__index = function(t, key)
    if key == "keyFrames" then
      local k = REC[t]
      local out = {}
      for i = 1, k.n do out[i] = keyframe_at(k, i) end
      return out
    end
    return index(t, key)
  end
end)

-- AnimationTrack::GetKeyFrameIndex: the keyframe at or before `time`, walking from the last one used.
function E.track_key_index(k, time, index)
  if time < 0.0 then time = 0.0 end
  local n = k.n
  if index >= n then index = n - 1 end
  local t = k.t
  while index > 0 and time < t[index + 1] do index = index - 1 end
  while index < n - 1 and time >= t[index + 2] do index = index + 1 end
  return index
end

----------------------------------------------------------------------------------------------------
-- AnimationTriggerPoint
----------------------------------------------------------------------------------------------------
local Trigger = class("AnimationTriggerPoint")
local trigger_mt = Trigger.mt
local function new_trigger(time, data)
  return setmetatable({time = time, data = data or E.Variant_new("None", nil)}, trigger_mt)
end
Trigger.new = function() return new_trigger(0.0, nil) end
local function copy_trigger(t, n, fname)
  if type(t) ~= "table" or type(t.time) ~= "number" then
    E.anim_arg_error(n or 1, fname or "?", "AnimationTriggerPoint", t)
  end
  return new_trigger(f32(t.time), E.IMPL.Variant.new(t.data))
end

----------------------------------------------------------------------------------------------------
-- Animation
----------------------------------------------------------------------------------------------------
local Animation = class("Animation")
local function anim_rec(self)
  local r = REC[self]
  if r == nil or r.type_name ~= "Animation" then error("invalid 'self' (an Animation was expected)", 3) end
  return r
end
E.animation_rec = anim_rec

local function sort_triggers(r)
  local list = r.triggers
  for i = 2, #list do
    local x, j = list[i], i - 1
    while j >= 1 and list[j].time > x.time do list[j + 1] = list[j]; j = j - 1 end
    list[j + 1] = x
  end
end
local function add_trigger(r, time, normalized, data)
  r.triggers[#r.triggers + 1] = new_trigger(f32(normalized and time * r.length or time), E.variant_of(data))
  sort_triggers(r)
end

local function add_track(r, track)
  r.tracks[#r.tracks + 1] = track
  r.track_by_name[track.name] = track
end

-- Triggers from the animation's side file in the game folder: <name>.xml, else <name>.json.
local function side_file_triggers(r)
  local base = smatch(r.name, "^(.*)%.[^./]*$") or r.name
  local xml_path = E.find_game_file(base .. ".xml")
  local xml = xml_path and E.fs_read(xml_path)
  if xml then
    local root, err = E.xml_parse(xml)
    if root == nil then E.log("ERROR", "Could not parse " .. base .. ".xml: " .. tostring(err)); return true end
    for _, el in ipairs(root.children) do
      if el.name == "trigger" then
        local a = el.attrs
        local value = E.variant_from_text(a.type, a.value)
        if a.normalizedtime then add_trigger(r, tonumber(a.normalizedtime) or 0, true, value)
        elseif a.time then add_trigger(r, tonumber(a.time) or 0, false, value) end
      end
    end
    return true
  end
  local json_path = E.find_game_file(base .. ".json")
  local json = json_path and E.fs_read(json_path)
  if json then
    local ok, doc = pcall(E.cjson_decode, json)
    if not ok or type(doc) ~= "table" then E.log("ERROR", "Could not parse " .. base .. ".json"); return true end
    for _, t in ipairs(type(doc.triggers) == "table" and doc.triggers or {}) do
      if type(t) == "table" then
        local value = E.variant_from_text(t.type, t.value)
        if type(t.normalizedTime) == "number" then add_trigger(r, t.normalizedTime, true, value)
        elseif type(t.time) == "number" then add_trigger(r, t.time, false, value) end
      end
    end
  end
  return true
end

local function init_animation(r, meta)
  r.animation_name, r.length, r.tracks, r.track_by_name, r.triggers = "", 0.0, {}, {}, {}
  if meta == nil then return true end
  r.from_game = meta.from_game == true
  local data = skeletal_data("animation", r)
  if data == nil then return false end
  r.animation_name = data.name
  r.length = math.max(f32(data.length), 0.0)
  for _, def in ipairs(data.tracks) do
    if r.track_by_name[def.name] == nil then add_track(r, track_from_data(def)) end
  end
  if r.from_game then
    side_file_triggers(r)
  else
    for _, t in ipairs(data.triggers or {}) do add_trigger(r, t.time, t.normalized, E.variant_from_text(t.type, t.value)) end
  end
  return true
end
E.resource_init("Animation", function(r, _, meta) return init_animation(r, meta) end)
Animation.new = function() return E.make_resource("Animation", "", nil) end

local AM = Animation.methods
AM.SetAnimationName = function(self, name) anim_rec(self).animation_name = tostring(name) end
AM.GetAnimationName = function(self) return anim_rec(self).animation_name end
AM.SetLength = function(self, length)
  anim_rec(self).length = math.max(f32(E.anim_number(length, 1, "SetLength")), 0.0)
end
AM.GetLength = function(self) return anim_rec(self).length end
AM.CreateTrack = function(self, name)
  local r = anim_rec(self)
  name = tostring(name)
  local track = r.track_by_name[name]
  if track then return track end
  track = new_track(name)
  add_track(r, track)
  return track
end
AM.RemoveTrack = function(self, name)
  local r = anim_rec(self)
  local track = r.track_by_name[name]
  if track == nil then return false end
  for i, t in ipairs(r.tracks) do if t == track then tremove(r.tracks, i); break end end
  r.track_by_name[name] = nil
  return true
end
AM.RemoveAllTracks = function(self)
  local r = anim_rec(self)
  r.tracks, r.track_by_name = {}, {}
end
AM.GetNumTracks = function(self) return #anim_rec(self).tracks end
AM.GetTrack = function(self, key)
  local r = anim_rec(self)
  if type(key) == "number" then return r.tracks[E.anim_index(key, 1, "GetTrack") + 1] end
  if E.is(key, "StringHash") then
    for _, t in ipairs(r.tracks) do if t.nameHash.value_ == key.value_ then return t end end
    return nil
  end
  return r.track_by_name[key]
end
AM.SetTrigger = function(self, index, trigger)
  local r = anim_rec(self)
  index = E.anim_index(index, 1, "SetTrigger")
  if index == #r.triggers then return AM.AddTrigger(self, trigger) end
  if index < #r.triggers then
    r.triggers[index + 1] = copy_trigger(trigger, 2, "SetTrigger")
    sort_triggers(r)
  end
end
AM.AddTrigger = function(self, a, normalized, data)
  local r = anim_rec(self)
  if type(a) == "number" then return add_trigger(r, a, normalized, data) end
  r.triggers[#r.triggers + 1] = copy_trigger(a, 1, "AddTrigger")
  sort_triggers(r)
end
AM.RemoveTrigger = function(self, index)
  local r = anim_rec(self)
  index = E.anim_index(index, 1, "RemoveTrigger")
  if index < #r.triggers then tremove(r.triggers, index + 1) end
end
AM.RemoveAllTriggers = function(self) anim_rec(self).triggers = {} end
AM.GetNumTriggers = function(self) return #anim_rec(self).triggers end
AM.GetTrigger = function(self, index)
  local t = anim_rec(self).triggers[E.anim_index(index, 1, "GetTrigger") + 1]
  return t and copy_trigger(t)
end
AM.Clone = function(self, name)
  local src = anim_rec(self)
  local copy = E.make_resource("Animation", name or "", nil)
  local r = REC[copy]
  r.animation_name, r.length = src.animation_name, src.length
  for _, track in ipairs(src.tracks) do
    local t = new_track(track.name)
    t.channelMask = track.channelMask
    rebuild(REC[t], rows_of(REC[track]), false)
    add_track(r, t)
  end
  for i, t in ipairs(src.triggers) do r.triggers[i] = copy_trigger(t) end
  return copy
end

E.CHANNEL_POSITION, E.CHANNEL_ROTATION, E.CHANNEL_SCALE = CHANNEL_POSITION, CHANNEL_ROTATION, CHANNEL_SCALE
E.BONECOLLISION_SPHERE, E.BONECOLLISION_BOX = BONECOLLISION_SPHERE, BONECOLLISION_BOX
