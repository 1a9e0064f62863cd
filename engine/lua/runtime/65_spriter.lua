-- 2D skeletal animation as Urho2D plays Spriter files (Urho2D/AnimationSet2D.cpp, AnimatedSprite2D.cpp,
-- SpriterData2D.cpp, SpriterInstance2D.cpp): an AnimationSet2D read from a .scml file and the AnimatedSprite2D that
-- plays one of its entity's animations.
--
-- A .scml file holds folders of image files (id, name, size, pivot) and entities, each with animations: a length,
-- a looping flag, mainline keys (at a time, which timeline key of each bone and sprite shows, with parents and z
-- order) and timelines (bone or sprite keys: position, angle, scale, alpha, spin, curve, and for sprites the folder
-- and file shown).  A timeline of another type (point, box, sound...) makes the whole file fail, as in Urho2D.  The
-- images themselves are not read: each must exist (the game's file, a stock name, or a sprite of the sprite sheet
-- beside the file, <name>.xml), else the set fails to load naming it; their pixels are never decoded.  Spine
-- skeletons (.json) are not supported by the grader engine: loading one logs an error and records it as missing API.
--
-- Playing (SpriterInstance::Update, on the scene's ScenePostUpdate): the time advances by step * speed; past the
-- end a looping animation wraps (fmod) and a clamped one stops at its length, sending AnimationFinished from the node
-- (Node, Name, Looped; Animation is not a resource here and is left out) each time; then the mainline key is the
-- last one at or before the time, and each of its bone and object refs takes its timeline key interpolated towards
-- the next one (instant, linear, quadratic or cubic curve; the last key wraps to the first only when the file's
-- animation loops; angles turn the way the key's spin says) and is mapped into its parent bone's space.  Loop modes:
-- LM_DEFAULT takes the file's flag, LM_FORCE_LOOPED and LM_FORCE_CLAMPED override it; like Urho2D, the mode only
-- applies when SetAnimation changes the animation.  Times are single precision; positions and angles doubles.
local ipairs, pairs, type, tostring = ipairs, pairs, type, tostring
local sin, cos, fmod, mtointeger = math.sin, math.cos, math.fmod, math.tointeger
local sformat, slower, smatch = string.format, string.lower, string.match
local REC, comp_rec = E.REC, E.comp_rec
local FACTORIES = E.COMPONENT_FACTORIES
local MX = E.MATH
local f32, M_DEGTORAD = MX.f32, MX.M_DEGTORAD
local T = E.urho_text
local PIXEL_SIZE = 0.01
local LM_DEFAULT, LM_FORCE_LOOPED = 0, 1
local INSTANT, LINEAR, QUADRATIC, CUBIC = 0, 1, 2, 3
local CURVES = {instant = INSTANT, linear = LINEAR, quadratic = QUADRATIC, cubic = CUBIC}

----------------------------------------------------------------------------------------------------
-- Reading a .scml file (SpriterData::Load)
----------------------------------------------------------------------------------------------------
local children, child = E.xml_children, E.xml_child
local function aint(node, name, default)
  local v = node and node.attrs[name]
  if v == nil then return default or 0 end
  return T.int(v)
end
local function afloat(node, name, default)
  local v = node and node.attrs[name]
  if v == nil then return default or 0.0 end
  return f32(T.float(v))
end
local function astring(node, name, default)
  local v = node and node.attrs[name]
  if v == nil then return default or "" end
  return v
end
local function abool(node, name, default)   -- pugixml's as_bool: the first character 1, t, T, y or Y
  local v = node and node.attrs[name]
  if v == nil then return default end
  local c = v:sub(1, 1)
  return c == "1" or c == "t" or c == "T" or c == "y" or c == "Y"
end
local function ms(node, name) return f32(afloat(node, name) * f32(0.001)) end

local function load_key(node, kind)
  local curve = CURVES[astring(node, "curve_type", "linear")] or LINEAR
  local key = {id = aint(node, "id"), time = ms(node, "time"), curve = curve, c1 = afloat(node, "c1"),
    c2 = afloat(node, "c2"), kind = kind}
  local obj = child(node, "bone") or child(node, "object")
  key.x, key.y, key.angle = afloat(obj, "x"), afloat(obj, "y"), afloat(obj, "angle")
  key.scale_x, key.scale_y, key.alpha = afloat(obj, "scale_x", 1.0), afloat(obj, "scale_y", 1.0), afloat(obj, "a", 1.0)
  key.spin = aint(node, "spin", 1)
  if kind == "bone" then
    local b = child(node, "bone")
    key.length, key.width = afloat(b, "length", 200.0), afloat(b, "width", 10.0)
  else
    local o = child(node, "object")
    key.folder, key.file = aint(o, "folder", -1), aint(o, "file", -1)
    local px, py = o and o.attrs.pivot_x, o and o.attrs.pivot_y
    key.default_pivot = px == nil and py == nil
    key.pivot_x, key.pivot_y = afloat(o, "pivot_x", 0.0), afloat(o, "pivot_y", 1.0)
  end
  return key
end

local function load_refs(node, name)
  local out = {}
  for i, r in ipairs(children(node, name)) do
    out[i] = {id = aint(r, "id"), parent = aint(r, "parent", -1), timeline = aint(r, "timeline"), key = aint(r, "key"),
      z_index = aint(r, "z_index")}
  end
  return out
end

local function load_animation(node, where)
  local a = {id = aint(node, "id"), name = astring(node, "name"), length = ms(node, "length"),
    looping = abool(node, "looping", true), mainline = {}, timelines = {}}
  for i, k in ipairs(children(child(node, "mainline") or {children = {}}, "key")) do
    a.mainline[i] = {id = aint(k, "id"), time = ms(k, "time"), bone_refs = load_refs(k, "bone_ref"),
      object_refs = load_refs(k, "object_ref")}
  end
  for i, t in ipairs(children(node, "timeline")) do
    local kind = t.attrs.type or astring(t, "object_type", "sprite")
    if kind ~= "bone" and kind ~= "sprite" then
      return nil, sformat("%s: timeline '%s' of animation '%s' is of type '%s' (only bone and sprite timelines are "
        .. "supported)", where, astring(t, "name"), a.name, kind)
    end
    local tl = {id = aint(t, "id"), name = astring(t, "name"), kind = kind, keys = {}}
    for j, k in ipairs(children(t, "key")) do tl.keys[j] = load_key(k, kind) end
    a.timelines[i] = tl
  end
  return a
end

local function load_spriter(root, where)
  if root.name ~= "spriter_data" then return nil, where .. ": the root element is <" .. root.name .. ">, not <spriter_data>" end
  local data = {folders = {}, entities = {}}
  for i, f in ipairs(children(root, "folder")) do
    local folder = {id = aint(f, "id"), name = astring(f, "name"), files = {}}
    for j, x in ipairs(children(f, "file")) do
      folder.files[j] = {id = aint(x, "id"), name = astring(x, "name"), width = afloat(x, "width"),
        height = afloat(x, "height"), pivot_x = afloat(x, "pivot_x", 0.0), pivot_y = afloat(x, "pivot_y", 1.0)}
    end
    data.folders[i] = folder
  end
  for i, e in ipairs(children(root, "entity")) do
    local entity = {id = aint(e, "id"), name = astring(e, "name"), animations = {}}
    for j, a in ipairs(children(e, "animation")) do
      local anim, err = load_animation(a, where)
      if anim == nil then return nil, err end
      entity.animations[j] = anim
    end
    data.entities[i] = entity
  end
  return data
end

----------------------------------------------------------------------------------------------------
-- AnimationSet2D
----------------------------------------------------------------------------------------------------
local AS = class("AnimationSet2D")
local function parent_path(name) return smatch(name, "^(.*/)") or "" end
local function file_stem(name) return (smatch(name, "([^/]*)$"):gsub("%.[^.]*$", "")) end
local function exists(name) return E.find_game_file(name) ~= nil or E.host.resources[name] ~= nil end

-- A sprite sheet's sprite names (SpriteSheet2D's XML: <TextureAtlas><SubTexture name=...>), or nil and why.
local function sheet_names(path)
  local f = E.find_game_file(path)
  local data = f and E.fs_read(f) or E.stock_content(path)
  if data == nil then return nil, "its content is not available" end
  local root, err = E.xml_parse(data)
  if root == nil then return nil, err end
  local names = {}
  for _, s in ipairs(children(root, "SubTexture")) do names[astring(s, "name")] = s end
  return names
end

E.resource_loader("AnimationSet2D", function(r, data, name)
  local ext = slower(smatch(name, "(%.[^./]*)$") or "")
  if ext == ".json" then
    E.record_missing("AnimationSet2D (Spine skeleton " .. name .. ")")
    return false, "Spine animation sets are not supported by the grader engine: " .. name
  end
  if ext ~= ".scml" then return false, "Unsupport animation set file: " .. name end
  if data == "" then return false, "Zero sized XML data in " .. name end
  local root, err = E.xml_parse(data)
  if root == nil then return false, "Could not spriter data from " .. name .. ": " .. err end
  local spriter
  spriter, err = load_spriter(root, name)
  if spriter == nil then return false, "Could not spriter data from " .. err end
  r.spriter = spriter
  -- AnimationSet2D::EndLoadSpriter: a sprite per file, from the sheet beside the file or from the file's image
  local base = parent_path(name)
  local sheet = base .. file_stem(name) .. ".xml"
  if not exists(sheet) then sheet = base .. file_stem(name) .. ".plist" end
  r.files = {}
  if exists(sheet) then
    if sheet:sub(-6) == ".plist" then return false, name .. ": .plist sprite sheets are not supported" end
    local names, why = sheet_names(sheet)
    if names == nil then return false, "Could not load sprite sheet " .. sheet .. ": " .. why end
    r.sheet = sheet
    for _, folder in ipairs(spriter.folders) do
      for _, file in ipairs(folder.files) do
        local sprite_name = file_stem(file.name)
        if names[sprite_name] == nil then return false, "Could not load sprite " .. file.name .. " (" .. name .. ")" end
        r.files[folder.id << 16 | file.id] = {file = file, folder = folder, name = sprite_name}
      end
    end
  else
    local count = 0
    for _, folder in ipairs(spriter.folders) do
      for _, file in ipairs(folder.files) do
        local path = base .. file.name
        if not exists(path) then return false, "Could not load image " .. path .. " (" .. name .. ")" end
        r.files[folder.id << 16 | file.id] = {file = file, folder = folder, name = path}
        count = count + 1
      end
    end
    if count == 0 then return false, name .. ": no image files" end
  end
  r.sprite = E.make_resource("Sprite2D", "", nil)
  return true
end)
local function srec(self)
  local r = REC[self]
  if r == nil or r.type_name ~= "AnimationSet2D" then E.raise_at_game("invalid 'self' (an AnimationSet2D was expected)") end
  return r
end
-- GetNumAnimations, GetAnimation and HasAnimation look at the first entity only, as Urho2D's do.
local function first_entity(r) return r.spriter and r.spriter.entities[1] end
AS.methods.GetNumAnimations = function(self)
  local e = first_entity(srec(self))
  return e and #e.animations or 0
end
AS.methods.GetAnimation = function(self, index)
  local e = first_entity(srec(self))
  local a = e and e.animations[(mtointeger(index) or -1) + 1]
  return a and a.name or ""
end
local function has_animation(r, name)
  local e = first_entity(r)
  for _, a in ipairs(e and e.animations or {}) do if a.name == name then return true end end
  return false
end

----------------------------------------------------------------------------------------------------
-- Playing: SpriterInstance
----------------------------------------------------------------------------------------------------
local function linear(a, b, t) return a + (b - a) * t end
local function quadratic(a, b, c, t) return linear(linear(a, b, t), linear(b, c, t), t) end
local function cubic(a, b, c, d, t) return linear(quadratic(a, b, c, t), quadratic(b, c, d, t), t) end
local function curve_t(key, now, next_time)
  if key.curve == INSTANT then return 0.0 end
  local t = f32(f32(now - key.time) / f32(next_time - key.time))
  if key.curve == QUADRATIC then return quadratic(0.0, key.c1, 1.0, t) end
  if key.curve == CUBIC then return cubic(0.0, key.c1, key.c2, 1.0, t) end
  return t
end
local function copy_key(k)
  local out = {}
  for f, v in pairs(k) do out[f] = v end
  return out
end
-- SpatialInfo::Interpolate (and the bone's length and width, the sprite's pivot)
local function interpolate(k, o, t)
  k.x, k.y = linear(k.x, o.x, t), linear(k.y, o.y, t)
  if k.spin > 0 and o.angle - k.angle < 0.0 then k.angle = linear(k.angle, o.angle + 360.0, t)
  elseif k.spin < 0 and o.angle - k.angle > 0.0 then k.angle = linear(k.angle, o.angle - 360.0, t)
  else k.angle = linear(k.angle, o.angle, t) end
  k.scale_x, k.scale_y, k.alpha = linear(k.scale_x, o.scale_x, t), linear(k.scale_y, o.scale_y, t),
    linear(k.alpha, o.alpha, t)
  if k.kind == "bone" then
    k.length, k.width = linear(k.length, o.length, t), linear(k.width, o.width, t)
  else
    k.pivot_x, k.pivot_y = linear(k.pivot_x, o.pivot_x, t), linear(k.pivot_y, o.pivot_y, t)
  end
end
-- SpatialInfo::UnmapFromParent
local function unmap(k, p)
  local x, y = p.x, p.y
  if k.x ~= 0.0 or k.y ~= 0.0 then
    local px, py = k.x * p.scale_x, k.y * p.scale_y
    local a = p.angle * M_DEGTORAD
    local s, c = sin(a), cos(a)
    x, y = px * c - py * s + p.x, px * s + py * c + p.y
  end
  k.x, k.y = x, y
  k.angle = k.angle + p.angle
  k.scale_x, k.scale_y, k.alpha = k.scale_x * p.scale_x, k.scale_y * p.scale_y, k.alpha * p.alpha
end
local ROOT = {x = 0.0, y = 0.0, angle = 0.0, scale_x = 1.0, scale_y = 1.0, alpha = 1.0}

local function timeline_key(inst, ref)
  local a = inst.animation
  local tl = a.timelines[ref.timeline + 1]
  local src = tl and tl.keys[ref.key + 1]
  if src == nil then return nil end
  local key = copy_key(src)
  key.timeline_name = tl.name
  if #tl.keys == 1 or key.curve == INSTANT then return key end
  local nxt = ref.key + 1
  if nxt >= #tl.keys then
    if not a.looping then return key end
    nxt = 0
  end
  local nk = tl.keys[nxt + 1]
  local next_time = nk.time
  if next_time < key.time then next_time = f32(next_time + a.length) end
  interpolate(key, nk, curve_t(key, inst.time, next_time))
  return key
end

local function update_keys(inst)
  local a = inst.animation
  local main
  for _, k in ipairs(a.mainline) do
    if k.time <= inst.time then main = k end
    if k.time >= inst.time then break end
  end
  main = main or a.mainline[1]
  inst.mainline_key, inst.keys = main, {}
  if main == nil then return end
  local keys = inst.keys
  for _, refs in ipairs({main.bone_refs, main.object_refs}) do
    for _, ref in ipairs(refs) do
      local key = timeline_key(inst, ref)
      if key then
        local parent = ref.parent >= 0 and keys[ref.parent + 1] or ROOT
        unmap(key, parent)
        key.z_index = ref.z_index
        keys[#keys + 1] = key
      end
    end
  end
end

-- SpriterInstance::Update
local function advance(c, inst, delta)
  local a = inst.animation
  if a == nil then return end
  inst.keys = {}
  local last = inst.time
  inst.time = f32(inst.time + delta)
  if inst.time > a.length then
    local send
    if inst.looping then
      inst.time = f32(fmod(inst.time, a.length))
      send = true
    else
      inst.time = a.length
      send = last ~= inst.time
    end
    local node = c.node
    if send and node then
      E.send_event("AnimationFinished", {Node = node.proxy, Name = a.name, Looped = inst.looping}, node.proxy)
      if c.removed or inst.animation == nil then return end
      a = inst.animation
    end
  end
  update_keys(inst)
end

local function set_entity(inst, name)
  for _, e in ipairs(inst.data.entities) do
    if e.name == name then
      if e ~= inst.entity then inst.animation = nil; inst.entity = e end
      return true
    end
  end
  return false
end
local function set_animation(inst, name, loop_mode)
  if inst.entity == nil then return false end
  for _, a in ipairs(inst.entity.animations) do
    if a.name == name then
      if a ~= inst.animation then
        inst.animation = a
        if loop_mode == LM_DEFAULT then inst.looping = a.looping
        else inst.looping = loop_mode == LM_FORCE_LOOPED end
        inst.time = 0.0
        inst.keys = {}
      end
      return true
    end
  end
  return false
end

----------------------------------------------------------------------------------------------------
-- AnimatedSprite2D
----------------------------------------------------------------------------------------------------
local AN = class("AnimatedSprite2D")
local static_sprite = FACTORIES.StaticSprite2D
local function enabled_effective(c) return c.enabled and c.node ~= nil and c.node.enabled end
local function update_animation(c, delta)
  local inst = c.instance
  if inst and inst.animation then advance(c, inst, f32(delta * c.speed)) end
end
local function subscribe(c)
  local scene = c.node and c.node.scene
  if scene and enabled_effective(c) then
    E.subscribe(c, nil, scene.proxy, "ScenePostUpdate", function(_, data)
      if not c.removed and c.node and not c.node.removed then update_animation(c, f32(data.TimeStep:GetFloat())) end
    end)
  else
    E.unsubscribe_all(c)
  end
end
FACTORIES.AnimatedSprite2D = function(c)
  static_sprite(c)
  c.speed, c.loop_mode, c.entity, c.animation_name, c.set, c.instance = 1.0, LM_DEFAULT, "", "", nil, nil
  c.on_scene_set = function(x, scene)
    if scene == x.node then E.log("WARNING", "AnimatedSprite2D should not be created to the root scene node") end
    subscribe(x)
  end
  c.on_scene_removed = function(x) E.unsubscribe_all(x) end
  c.on_set_enabled = subscribe
  c.on_removed = function(x) E.unsubscribe_all(x) end
end
local M = AN.methods
local function arec(self)
  local c = comp_rec(self)
  if c.type_name ~= "AnimatedSprite2D" then E.raise_at_game("invalid 'self' (an AnimatedSprite2D was expected)") end
  return c
end
M.SetAnimationSet = function(self, set)
  local c = arec(self)
  if set == c.set then return end
  if set ~= nil and not E.is(set, "AnimationSet2D") then
    E.raise_at_game("bad argument #1 to 'SetAnimationSet' (AnimationSet2D expected)")
  end
  c.instance = nil
  c.set = set
  if set == nil then return end
  local r = REC[set]
  c.Sprite = r.sprite
  if r.spriter then
    c.instance = {data = r.spriter, entity = nil, animation = nil, looping = false, time = 0.0, keys = {}}
    local first = r.spriter.entities[1]
    if first then
      if c.entity == "" then c.entity = first.name end
      set_entity(c.instance, c.entity)
    end
  end
  c.animation_name, c.loop_mode = "", LM_DEFAULT
end
M.GetAnimationSet = function(self) return arec(self).set end
M.SetEntity = function(self, name)
  local c = arec(self)
  name = tostring(name or "")
  if name == c.entity then return end
  c.entity = name
  if c.instance then set_entity(c.instance, name) end
end
M.GetEntity = function(self) return arec(self).entity end
M.SetAnimation = function(self, name, loop_mode)
  local c = arec(self)
  c.animation_name = tostring(name or "")
  c.loop_mode = mtointeger(loop_mode) or LM_DEFAULT
  local r = c.set and REC[c.set]
  if r == nil or not has_animation(r, c.animation_name) or c.instance == nil then return end
  -- AnimatedSprite2D::SetSpriterAnimation
  if c.entity == "" then c.entity = r.spriter.entities[1].name end
  if not set_entity(c.instance, c.entity) then E.log("ERROR", "Set entity failed"); return end
  if not set_animation(c.instance, c.animation_name, c.loop_mode) then E.log("ERROR", "Set animation failed"); return end
  update_animation(c, 0.0)
end
M.GetAnimation = function(self) return arec(self).animation_name end
M.SetLoopMode = function(self, mode) arec(self).loop_mode = mtointeger(mode) or LM_DEFAULT end
M.GetLoopMode = function(self) return arec(self).loop_mode end
M.SetSpeed = function(self, speed)
  if type(speed) ~= "number" then E.raise_at_game("bad argument #1 to 'SetSpeed' (number expected)") end
  arec(self).speed = f32(speed)
end
M.GetSpeed = function(self) return arec(self).speed end

E.DRAWABLE_KINDS.AnimatedSprite2D = E.DRAWABLE_KINDS.StaticSprite2D

----------------------------------------------------------------------------------------------------
-- The battery's read (engine/lua/harness.lua, `view.sprite_animation`): nil without an AnimatedSprite2D
----------------------------------------------------------------------------------------------------
function E.sprite_animation_view(r)
  local c
  for _, x in ipairs(r.components) do
    if x.type_name == "AnimatedSprite2D" and not x.removed then c = x; break end
  end
  if c == nil then return nil end
  local inst = c.instance
  local a = inst and inst.animation
  local set = c.set and REC[c.set]
  local w = c.node and E.world(c.node)
  local sprites, bones = {}, {}
  for _, k in ipairs(inst and inst.keys or {}) do
    if k.kind == "bone" then
      bones[#bones + 1] = {name = k.timeline_name, x = k.x, y = k.y, angle = k.angle, scale_x = k.scale_x,
        scale_y = k.scale_y, alpha = k.alpha, length = k.length}
    else
      local file = set and set.files[k.folder << 16 | k.file]
      local x, y = k.x, k.y
      if c.FlipX then x = -x end
      if c.FlipY then y = -y end
      x, y = x * PIXEL_SIZE, y * PIXEL_SIZE
      local wx, wy, wz = x, y, 0.0
      if w then
        wx, wy, wz = w.m00 * x + w.m01 * y + w.m03, w.m10 * x + w.m11 * y + w.m13, w.m20 * x + w.m21 * y + w.m23
      end
      sprites[#sprites + 1] = {timeline = k.timeline_name, name = file and file.name or nil,
        folder = k.folder, file = k.file, x = k.x, y = k.y, angle = k.angle, scale_x = k.scale_x,
        scale_y = k.scale_y, alpha = k.alpha, z_index = k.z_index, world_position = E.Vector3_new(wx, wy, wz)}
    end
  end
  return {animation = c.animation_name, playing = a and a.name or nil, entity = c.entity, time = inst and inst.time
    or 0.0, length = a and a.length or 0.0, looping = inst and inst.looping or false, loop_mode = c.loop_mode,
    speed = c.speed, sprites = sprites, bones = bones, enabled = enabled_effective(c)}
end
