-- 3D particles as Urho3D makes them (Graphics/ParticleEffect.cpp, ParticleEmitter.cpp): a ParticleEffect resource
-- (read from Urho3D's XML particle effect format or built in code) and the ParticleEmitter, a BillboardSet whose
-- billboards are its particles.  ColorFrame and TextureFrame are the effect's keys.
--
-- When the emitter updates: on its scene's ScenePostUpdate the emitter keeps the step and asks its octree for an
-- update (Drawable::MarkForUpdate); the octree runs it during RenderUpdate (64_animated_model.lua's octree update),
-- so only an emitter in a scene with an Octree (on the scene node) simulates, as in Urho3D.  Urho3D updates an
-- emitter only in frames after a camera saw it (unless the effect says updateInvisible); nothing is drawn here, so
-- every emitter counts as seen every frame (headless Urho3D would update it once).  The same handler sends
-- ParticleEffectFinished (from the node) once emission has stopped and the last particle is gone, then applies the
-- auto-remove mode.
--
-- The update is ParticleEmitter::Update step by step: the active/inactive period, the emission timer (one interval
-- drawn between 1/maxRate and 1/minRate per particle, at most 100 particles a frame, the first free slot), then each
-- live particle: expiry when its timer has reached its time to live, constant force (through the node's inverse
-- world rotation when relative), damping, position, rotation, size add/mul, colour frames, texture frames.  New
-- particles draw from Urho3D's Random() (the LCG shared with the game's Random calls, 14_math_funcs.lua) in
-- Urho3D's order, with the arguments of a Vector3 drawn left to right as clang (Android, iOS) evaluates them.
-- Times (timers, time to live, rates, intervals, frame times) are single precision as Urho3D keeps them, so
-- particle counts, expiry frames and frame indices match its floats; positions, velocities, sizes and colours are
-- doubles.  The engine simulates at most PER_EMITTER particles per emitter and TOTAL in all (a larger count is cut
-- and logged once): engine work the instruction budget does not charge stays bounded.
local setmetatable, ipairs, pairs, type, tostring = setmetatable, ipairs, pairs, type, tostring
local sqrt, cos, sin, mmin, mmax, mtointeger = math.sqrt, math.cos, math.sin, math.min, math.max, math.tointeger
local sformat = string.format
local REC, comp_rec = E.REC, E.comp_rec
local FACTORIES = E.COMPONENT_FACTORIES
local MX = E.MATH
local f32, M_DEGTORAD = MX.f32, MX.M_DEGTORAD
local T = E.urho_text
local Random = FUNCTIONS.Random   -- Urho3D's Random(), Random(range): single precision, the shared LCG
local V2, V3, Col, Rct = E.Vector2_new, E.Vector3_new, E.Color_new, E.Rect_new

local DEFAULT_NUM_PARTICLES = 10
local MAX_PARTICLES_IN_FRAME = 100
local MIN_EMISSION_RATE = 0.01
local M_MAX_INT = 2147483647
local PER_EMITTER, TOTAL = 10000, 100000
E.PARTICLE_LIMITS = {per_emitter = PER_EMITTER, total = TOTAL}
local SPHERE, BOX, SPHEREVOLUME, CYLINDER, RING = 0, 1, 2, 3, 4
local EMITTER_TYPE_NAMES = {sphere = SPHERE, box = BOX, spherevolume = SPHEREVOLUME, cylinder = CYLINDER, ring = RING}
local FACE_CAMERA_NAMES = {"none", "rotate xyz", "rotate y", "lookat xyz", "lookat y", "lookat mixed", "direction"}
local FC_ROTATE_XYZ, FC_DIRECTION = 1, 6
local REMOVE_COMPONENT, REMOVE_NODE = 1, 2

-- Urho3D's Lerp<float>(a, b, t): a * (1.0 - t) in double plus b * t in float, stored as a float.
local function lerpf(a, b, t) return f32(a * (1.0 - t) + f32(b * t)) end
local function copy2(v) return V2(v.x, v.y) end
local function copy3(v) return V3(v.x, v.y, v.z) end
local function copyc(v) return Col(v.r, v.g, v.b, v.a) end
local function copyr(v) return Rct(v.min.x, v.min.y, v.max.x, v.max.y) end
local function normalize(x, y, z)
  local l2 = x * x + y * y + z * z
  if l2 ~= 1.0 and l2 > 0.0 then
    local inv = 1.0 / sqrt(l2)
    return x * inv, y * inv, z * inv
  end
  return x, y, z
end
local function num(v, what)
  if type(v) ~= "number" then E.raise_at_game(sformat("bad argument to '%s' (number expected, got %s)", what, type(v))) end
  return v
end

----------------------------------------------------------------------------------------------------
-- ColorFrame and TextureFrame: plain records with data fields, as tolua exposes Urho3D's structs
----------------------------------------------------------------------------------------------------
local CF, TF = class("ColorFrame"), class("TextureFrame")
local cf_mt, tf_mt = CF.mt, TF.mt
local function color_frame(color, time)
  return setmetatable({color = color and copyc(color) or Col(1, 1, 1, 1), time = f32(time or 0.0)}, cf_mt)
end
local function texture_frame(uv, time)
  return setmetatable({uv = uv and copyr(uv) or Rct(0, 0, 1, 1), time = f32(time or 0.0)}, tf_mt)
end
CF.new = function(color, time) return color_frame(color, time) end
TF.new = function() return texture_frame(nil, 0.0) end
-- ColorFrame::Interpolate: the colour `time` seconds in, between this key and the next (the next's colour when the
-- next key is not later).
local function interpolate(a, b, time, out)
  local interval = f32(b.time - a.time)
  local ca, cb = a.color, b.color
  if interval > 0.0 then
    local t = f32(f32(time - a.time) / interval)
    local it = 1.0 - t
    out.r, out.g, out.b, out.a = ca.r * it + cb.r * t, ca.g * it + cb.g * t, ca.b * it + cb.b * t, ca.a * it + cb.a * t
  else
    out.r, out.g, out.b, out.a = cb.r, cb.g, cb.b, cb.a
  end
  return out
end
CF.methods.Interpolate = function(self, nxt, time) return interpolate(self, nxt, f32(num(time, "Interpolate")), Col()) end

----------------------------------------------------------------------------------------------------
-- ParticleEffect
----------------------------------------------------------------------------------------------------
local PEff = class("ParticleEffect")
local function defaults(r)
  r.material = nil
  r.num_particles = DEFAULT_NUM_PARTICLES
  r.update_invisible, r.relative, r.scaled, r.sorted, r.fixed_screen_size = false, true, true, false, false
  r.anim_lod_bias = 0.0
  r.emitter_type, r.emitter_size = SPHERE, V3(0, 0, 0)
  r.dir_min, r.dir_max = V3(-1, -1, -1), V3(1, 1, 1)
  r.constant_force, r.damping = V3(0, 0, 0), 0.0
  r.active_time, r.inactive_time = 0.0, 0.0
  r.rate_min, r.rate_max = 10.0, 10.0
  r.size_min, r.size_max = V2(0.1, 0.1), V2(0.1, 0.1)
  r.ttl_min, r.ttl_max = 1.0, 1.0
  r.vel_min, r.vel_max = 1.0, 1.0
  r.rot_min, r.rot_max, r.rot_speed_min, r.rot_speed_max = 0.0, 0.0, 0.0, 0.0
  r.size_add, r.size_mul = 0.0, 1.0
  r.colors, r.textures = {}, {}
  r.face_camera = FC_ROTATE_XYZ
end
E.resource_init("ParticleEffect", function(r) defaults(r) end)
PEff.new = function() return E.make_resource("ParticleEffect", "", nil) end
local function erec(self)
  local r = REC[self]
  if r == nil or r.type_name ~= "ParticleEffect" then E.raise_at_game("invalid 'self' (a ParticleEffect was expected)") end
  return r
end

-- Loading Urho3D's XML format (ParticleEffect::Load): every element optional, defaults first.
local child, children = E.xml_child, E.xml_children
local function has(node, attr) return node.attrs[attr] ~= nil end
local function minmax(node, conv, lo, hi)
  if node == nil then return lo, hi end
  if has(node, "value") then lo = conv(node.attrs.value); hi = conv(node.attrs.value) end
  if has(node, "min") and has(node, "max") then lo, hi = conv(node.attrs.min), conv(node.attrs.max) end
  return lo, hi
end
local function ffloat(s) return f32(T.float(s)) end
local function attr(node, name) return node.attrs[name] or "" end

local function load_effect(r, root)
  defaults(r)
  local e = child(root, "material")
  local material_name = e and attr(e, "name") or ""
  e = child(root, "numparticles")
  if e then r.num_particles = T.int(attr(e, "value")) & 0xffffffff end
  for key, field in pairs({updateinvisible = "update_invisible", relative = "relative", scaled = "scaled",
                           sorted = "sorted", fixedscreensize = "fixed_screen_size"}) do
    e = child(root, key)
    if e then r[field] = T.bool(attr(e, "enable")) end
  end
  e = child(root, "animlodbias")
  if e then r.anim_lod_bias = ffloat(attr(e, "value")) end
  e = child(root, "emittertype")
  if e then
    local t = string.lower(attr(e, "value"))
    if t == "point" then r.emitter_type, r.emitter_size = SPHERE, V3(0, 0, 0)   -- deprecated: a zero sphere
    else r.emitter_type = EMITTER_TYPE_NAMES[t] or SPHERE end
  end
  e = child(root, "emittersize")
  if e then r.emitter_size = T.vector3(attr(e, "value")) end
  e = child(root, "emitterradius")
  if e then local v = ffloat(attr(e, "value")); r.emitter_size = V3(v, v, v) end
  r.dir_min, r.dir_max = minmax(child(root, "direction"), T.vector3, r.dir_min, r.dir_max)
  e = child(root, "constantforce")
  if e then r.constant_force = T.vector3(attr(e, "value")) end
  e = child(root, "dampingforce")
  if e then r.damping = ffloat(attr(e, "value")) end
  e = child(root, "activetime")
  if e then r.active_time = ffloat(attr(e, "value")) end
  if r.active_time < 0.0 then r.active_time = math.huge end
  e = child(root, "inactivetime")
  if e then r.inactive_time = ffloat(attr(e, "value")) end
  if r.inactive_time < 0.0 then r.inactive_time = math.huge end
  r.rate_min, r.rate_max = minmax(child(root, "emissionrate"), ffloat, r.rate_min, r.rate_max)
  e = child(root, "interval")
  if e then
    local imin, imax = minmax(e, ffloat, 0.0, 0.0)
    r.rate_max, r.rate_min = f32(1.0 / imin), f32(1.0 / imax)
  end
  r.size_min, r.size_max = minmax(child(root, "particlesize"), T.vector2, r.size_min, r.size_max)
  r.ttl_min, r.ttl_max = minmax(child(root, "timetolive"), ffloat, r.ttl_min, r.ttl_max)
  r.vel_min, r.vel_max = minmax(child(root, "velocity"), ffloat, r.vel_min, r.vel_max)
  r.rot_min, r.rot_max = minmax(child(root, "rotation"), ffloat, r.rot_min, r.rot_max)
  r.rot_speed_min, r.rot_speed_max = minmax(child(root, "rotationspeed"), ffloat, r.rot_speed_min, r.rot_speed_max)
  e = child(root, "faceCameraMode")
  if e then
    local mode = string.lower(attr(e, "value"))
    r.face_camera = FC_ROTATE_XYZ
    for i, n in ipairs(FACE_CAMERA_NAMES) do if n == mode then r.face_camera = i - 1 end end
  end
  e = child(root, "sizedelta")
  if e then
    if has(e, "add") then r.size_add = ffloat(e.attrs.add) end
    if has(e, "mul") then r.size_mul = ffloat(e.attrs.mul) end
  end
  e = child(root, "color")
  if e then r.colors[1] = color_frame(T.color(attr(e, "value")), 0.0) end
  local fades = children(root, "colorfade")
  if #fades > 0 then
    r.colors = {}
    for i, x in ipairs(fades) do r.colors[i] = color_frame(T.color(attr(x, "color")), ffloat(attr(x, "time"))) end
  end
  if #r.colors == 0 then r.colors[1] = color_frame(nil, 0.0) end
  local anims = children(root, "texanim")
  if #anims > 0 then
    r.textures = {}
    for i, x in ipairs(anims) do r.textures[i] = texture_frame(T.rect(attr(x, "uv")), ffloat(attr(x, "time"))) end
  end
  -- ParticleEffect::EndLoad: the material last (a missing one logs and leaves none)
  if material_name ~= "" then r.material = E.get_resource("Material", material_name) end
end
E.load_particle_effect = load_effect
E.resource_loader("ParticleEffect", function(r, data, name)
  if data == "" then return false, "Load particle effect file failed: " .. name .. ": zero sized XML data" end
  local root, err = E.xml_parse(data)
  if root == nil then return false, "Load particle effect file failed: " .. name .. ": " .. err end
  load_effect(r, root)
  return true
end)

local EM = PEff.methods
local function getter(field, copy)
  if copy then return function(self) return copy(erec(self)[field]) end end
  return function(self) return erec(self)[field] end
end
local function setter(field, conv)
  return function(self, v)
    local r = erec(self)
    r[field] = conv(v)
  end
end
local function fnum(name) return function(v) return f32(num(v, name)) end end
local function fbool(v) return v and true or false end
local function fvec3(v)
  if not E.is(v, "Vector3") then E.raise_at_game("bad argument #1 (Vector3 expected, got " .. type(v) .. ")") end
  return copy3(v)
end
local function fvec2(v)
  if not E.is(v, "Vector2") then E.raise_at_game("bad argument #1 (Vector2 expected, got " .. type(v) .. ")") end
  return copy2(v)
end
local function frame_arg(v, class_name, method)
  if not E.is(v, class_name) then
    E.raise_at_game(sformat("bad argument #1 to '%s' (%s expected, got %s)", method, class_name, type(v)))
  end
  return v
end
local function rate(name) return function(v) return f32(mmax(num(v, name), MIN_EMISSION_RATE)) end end
local function nonneg(name) return function(v) return f32(mmax(num(v, name), 0.0)) end end
local FIELDS = {   -- property -> record field, setter conversion, getter copy
  Material = {"material", function(v) return v end},
  UpdateInvisible = {"update_invisible", fbool}, Relative = {"relative", fbool}, Scaled = {"scaled", fbool},
  Sorted = {"sorted", fbool}, FixedScreenSize = {"fixed_screen_size", fbool},
  AnimationLodBias = {"anim_lod_bias", fnum("SetAnimationLodBias")},
  EmitterType = {"emitter_type", function(v) return mtointeger(num(v, "SetEmitterType")) or 0 end},
  EmitterSize = {"emitter_size", fvec3, copy3}, MinDirection = {"dir_min", fvec3, copy3},
  MaxDirection = {"dir_max", fvec3, copy3}, ConstantForce = {"constant_force", fvec3, copy3},
  DampingForce = {"damping", fnum("SetDampingForce")}, ActiveTime = {"active_time", fnum("SetActiveTime")},
  InactiveTime = {"inactive_time", fnum("SetInactiveTime")},
  MinEmissionRate = {"rate_min", rate("SetMinEmissionRate")}, MaxEmissionRate = {"rate_max", rate("SetMaxEmissionRate")},
  MinParticleSize = {"size_min", fvec2, copy2}, MaxParticleSize = {"size_max", fvec2, copy2},
  MinTimeToLive = {"ttl_min", nonneg("SetMinTimeToLive")}, MaxTimeToLive = {"ttl_max", nonneg("SetMaxTimeToLive")},
  MinVelocity = {"vel_min", fnum("SetMinVelocity")}, MaxVelocity = {"vel_max", fnum("SetMaxVelocity")},
  MinRotation = {"rot_min", fnum("SetMinRotation")}, MaxRotation = {"rot_max", fnum("SetMaxRotation")},
  MinRotationSpeed = {"rot_speed_min", fnum("SetMinRotationSpeed")},
  MaxRotationSpeed = {"rot_speed_max", fnum("SetMaxRotationSpeed")},
  SizeAdd = {"size_add", fnum("SetSizeAdd")}, SizeMul = {"size_mul", fnum("SetSizeMul")},
}
for _, prop in ipairs(E.sorted_keys(FIELDS)) do
  local f = FIELDS[prop]
  EM["Set" .. prop] = setter(f[1], f[2])
  local get = getter(f[1], f[3])
  if f[2] == fbool then EM["Is" .. prop] = get else EM["Get" .. prop] = get end
end
EM.GetUpdateInvisible, EM.IsUpdateInvisible = EM.IsUpdateInvisible, nil
EM.SetNumParticles = function(self, n)
  n = mtointeger(num(n, "SetNumParticles")) or math.floor(n)
  erec(self).num_particles = mmax(n, 0)
end
EM.GetNumParticles = function(self) return erec(self).num_particles end

-- Colour and texture frames (AddColorTime keeps them sorted: a key goes before the first later one)
local function insert_sorted(list, frame)
  for i, x in ipairs(list) do
    if x.time > frame.time then table.insert(list, i, frame); return end
  end
  list[#list + 1] = frame
end
local function resize(list, n, make)
  n = mmax(mtointeger(n) or 0, 0)
  for i = #list + 1, n do list[i] = make() end
  for i = #list, n + 1, -1 do list[i] = nil end
end
local function remove_at(list, index)
  if #list == 0 then return end
  table.remove(list, mmin((mtointeger(index) or 0) + 1, #list))
end
local function set_at(list, index, frame, make)
  index = mtointeger(index) or 0
  if index < 0 then return end
  if #list < index + 1 then resize(list, index + 1, make) end
  list[index + 1] = frame
end
local function sorted(list)
  local out = {}
  for _, x in ipairs(list) do insert_sorted(out, x) end
  return out
end
EM.AddColorTime = function(self, color, time)
  insert_sorted(erec(self).colors, color_frame(frame_arg(color, "Color", "AddColorTime"), num(time, "AddColorTime")))
end
EM.AddColorFrame = function(self, cf)
  cf = frame_arg(cf, "ColorFrame", "AddColorFrame")
  insert_sorted(erec(self).colors, color_frame(cf.color, cf.time))
end
EM.RemoveColorFrame = function(self, index) remove_at(erec(self).colors, index) end
EM.SetColorFrame = function(self, index, cf)
  cf = frame_arg(cf, "ColorFrame", "SetColorFrame")
  set_at(erec(self).colors, index, color_frame(cf.color, cf.time), color_frame)
end
EM.SetNumColorFrames = function(self, n) resize(erec(self).colors, n, color_frame) end
EM.SortColorFrames = function(self) local r = erec(self); r.colors = sorted(r.colors) end
EM.GetNumColorFrames = function(self) return #erec(self).colors end
EM.GetColorFrame = function(self, index)
  local x = erec(self).colors[(mtointeger(index) or -1) + 1]
  return x and color_frame(x.color, x.time)
end
EM.AddTextureTime = function(self, uv, time)
  insert_sorted(erec(self).textures, texture_frame(frame_arg(uv, "Rect", "AddTextureTime"), num(time, "AddTextureTime")))
end
EM.AddTextureFrame = function(self, tf)
  tf = frame_arg(tf, "TextureFrame", "AddTextureFrame")
  insert_sorted(erec(self).textures, texture_frame(tf.uv, tf.time))
end
EM.RemoveTextureFrame = function(self, index) remove_at(erec(self).textures, index) end
EM.SetTextureFrame = function(self, index, tf)
  tf = frame_arg(tf, "TextureFrame", "SetTextureFrame")
  set_at(erec(self).textures, index, texture_frame(tf.uv, tf.time), texture_frame)
end
EM.SetNumTextureFrames = function(self, n) resize(erec(self).textures, n, texture_frame) end
EM.SortTextureFrames = function(self) local r = erec(self); r.textures = sorted(r.textures) end
EM.GetNumTextureFrames = function(self) return #erec(self).textures end
EM.GetTextureFrame = function(self, index)
  local x = erec(self).textures[(mtointeger(index) or -1) + 1]
  return x and texture_frame(x.uv, x.time)
end
EM.Clone = function(self, name)
  local src = erec(self)
  local proxy = E.make_resource("ParticleEffect", name and tostring(name) or "", nil)
  local r = REC[proxy]
  for k, v in pairs(src) do
    if k ~= "name" and k ~= "held" and k ~= "kind" and k ~= "type_name" then r[k] = v end
  end
  for _, k in ipairs({"emitter_size", "dir_min", "dir_max", "constant_force"}) do r[k] = copy3(src[k]) end
  r.size_min, r.size_max = copy2(src.size_min), copy2(src.size_max)
  r.colors, r.textures = {}, {}
  for i, x in ipairs(src.colors) do r.colors[i] = color_frame(x.color, x.time) end
  for i, x in ipairs(src.textures) do r.textures[i] = texture_frame(x.uv, x.time) end
  return proxy
end

----------------------------------------------------------------------------------------------------
-- ParticleEmitter
----------------------------------------------------------------------------------------------------
local PEm = class("ParticleEmitter")
local billboard_set = FACTORIES.BillboardSet
local new_billboard = E.new_billboard
local emitters = {}   -- every emitter made, pruned of removed ones when the limits are counted
local said = {}
local function say_once(key, message)
  if said[key] then return end
  said[key] = true
  E.log("WARNING", message)
end
local function live(c) return not c.removed and c.node ~= nil and not c.node.removed end
local function enabled_effective(c) return c.enabled and c.node ~= nil and c.node.enabled end

local function set_num_billboards(c, n)
  local list = c.billboards
  for i = #list + 1, n do list[i] = new_billboard() end
  for i = #list, n + 1, -1 do list[i] = nil end
  c.commits = c.commits + 1
end
-- ParticleEmitter::SetNumParticles, within the engine's limits.
local function set_num_particles(c, n)
  if n > M_MAX_INT or n < 0 then n = 0 end
  if n > PER_EMITTER then
    say_once("per", sformat("ParticleEmitter: %d particles asked; the engine simulates at most %d per emitter", n,
      PER_EMITTER))
    n = PER_EMITTER
  end
  local others, kept = 0, 0
  for i = 1, #emitters do
    local x = emitters[i]
    if live(x) or x == c then
      kept = kept + 1
      emitters[kept] = x
      if x ~= c then others = others + #x.particles end
    end
  end
  for i = #emitters, kept + 1, -1 do emitters[i] = nil end
  if others + n > TOTAL then
    say_once("total", sformat("ParticleEmitter: the engine simulates at most %d particles in all emitters", TOTAL))
    n = mmax(TOTAL - others, 0)
  end
  local list = c.particles
  for i = #list + 1, n do list[i] = {vx = 0.0, vy = 0.0, vz = 0.0, sx = 0.0, sy = 0.0, timer = 0.0, ttl = 0.0,
    scale = 1.0, rot_speed = 0.0, ci = 0, ti = 0} end
  for i = #list, n + 1, -1 do list[i] = nil end
  set_num_billboards(c, n)
end

local function any_active(c)
  for _, b in ipairs(c.billboards) do if b.enabled then return true end end
  return false
end
local function set_emitting(c, enable)
  if enable == c.emitting then return end
  c.emitting = enable
  c.send_finished = enable or any_active(c)   -- stopping with live particles: the event waits for them
  c.period_timer = 0.0
end
local function remove_all(c)
  for _, b in ipairs(c.billboards) do b.enabled = false end
  c.commits = c.commits + 1
end
local function reset(c)
  remove_all(c)
  c.emission_timer = 0.0
  set_emitting(c, true)
end
local function apply_effect(c)
  local r = c.effect and REC[c.effect]
  if r == nil then return end
  c.material = r.material
  set_num_particles(c, r.num_particles)
  c.Relative, c.Scaled, c.Sorted, c.FixedScreenSize = r.relative, r.scaled, r.sorted, r.fixed_screen_size
  c.AnimationLodBias, c.FaceCameraMode = r.anim_lod_bias, r.face_camera
end

-- ParticleEmitter::EmitNewParticle: the first free slot, or false.
local function emit(c, r)
  local index
  local bbs = c.billboards
  for i = 1, #bbs do if not bbs[i].enabled then index = i; break end end
  if index == nil then return false end
  local p, b = c.particles[index], bbs[index]
  local dmin, dmax = r.dir_min, r.dir_max
  local dx = lerpf(dmin.x, dmax.x, Random(1.0))
  local dy = lerpf(dmin.y, dmax.y, Random(1.0))
  local dz = lerpf(dmin.z, dmax.z, Random(1.0))
  dx, dy, dz = normalize(dx, dy, dz)
  local es, kind = r.emitter_size, r.emitter_type
  local px, py, pz = 0.0, 0.0, 0.0
  if kind == SPHERE or kind == SPHEREVOLUME then
    local ux = f32(Random(2.0) - 1.0)
    local uy = f32(Random(2.0) - 1.0)
    local uz = f32(Random(2.0) - 1.0)
    ux, uy, uz = normalize(ux, uy, uz)
    local k = 0.5
    if kind == SPHEREVOLUME then k = Random() ^ (1.0 / 3.0) * 0.5 end
    px, py, pz = es.x * ux * k, es.y * uy * k, es.z * uz * k
  elseif kind == BOX then
    px = f32(Random(es.x) - es.x * 0.5)
    py = f32(Random(es.y) - es.y * 0.5)
    pz = f32(Random(es.z) - es.z * 0.5)
  elseif kind == CYLINDER then
    local angle = Random(360.0) * M_DEGTORAD
    local radius = sqrt(Random()) * 0.5
    local cx = cos(angle) * radius
    local cy = Random() - 0.5
    px, py, pz = cx * es.x, cy * es.y, sin(angle) * radius * es.z
  elseif kind == RING then
    local angle = Random(360.0) * M_DEGTORAD
    local cy = Random(2.0) - 1.0
    px, py, pz = cos(angle) * es.x * 0.5, cy * es.y * 0.5, sin(angle) * es.z * 0.5
  end
  local t = Random(1.0)
  local smin, smax = r.size_min, r.size_max
  p.sx, p.sy = smin.x * (1.0 - t) + smax.x * t, smin.y * (1.0 - t) + smax.y * t
  p.timer = 0.0
  p.ttl = lerpf(r.ttl_min, r.ttl_max, Random(1.0))
  p.scale = 1.0
  p.rot_speed = lerpf(r.rot_speed_min, r.rot_speed_max, Random(1.0))
  p.ci, p.ti = 0, 0
  if c.FaceCameraMode == FC_DIRECTION then
    px, py, pz = px + dx * p.sy, py + dy * p.sy, pz + dz * p.sy
  end
  if not c.Relative then
    local w = E.world(c.node)
    px, py, pz = w.m00 * px + w.m01 * py + w.m02 * pz + w.m03, w.m10 * px + w.m11 * py + w.m12 * pz + w.m13,
      w.m20 * px + w.m21 * py + w.m22 * pz + w.m23
    dx, dy, dz = E.qrot(w.ww, w.wx, w.wy, w.wz, dx, dy, dz)
  end
  local speed = lerpf(r.vel_min, r.vel_max, Random(1.0))
  p.vx, p.vy, p.vz = speed * dx, speed * dy, speed * dz
  p.dx, p.dy, p.dz = dx, dy, dz
  b.position = V3(px, py, pz)
  b.size = V2(p.sx, p.sy)
  local tex = r.textures[1]
  b.uv = tex and copyr(tex.uv) or Rct(0, 0, 1, 1)
  b.rotation = lerpf(r.rot_min, r.rot_max, Random(1.0))
  local col = r.colors[1]
  b.color = col and copyc(col.color) or Col(1, 1, 1, 1)
  b.enabled = true
  return true
end

-- ParticleEmitter::Update (during the octree's update).
local function update(c)
  local r = c.effect and REC[c.effect]
  if r == nil or not c.need_update then return end
  local parts, bbs = c.particles, c.billboards
  if #parts ~= #bbs then set_num_billboards(c, #parts) end
  local step = c.last_step
  local commit = false
  c.period_timer = f32(c.period_timer + step)
  if c.emitting then
    local active = r.active_time
    if active ~= 0.0 and c.period_timer >= active then
      c.emitting = false
      c.period_timer = f32(c.period_timer - active)
    end
  else
    local inactive = r.inactive_time
    if inactive ~= 0.0 and c.period_timer >= inactive then
      c.emitting = true
      c.send_finished = true
      c.period_timer = f32(c.period_timer - inactive)
    end
    if inactive == 0.0 then c.period_timer = 0.0 end
  end
  if c.emitting then
    c.emission_timer = f32(c.emission_timer + step)
    local imin, imax = f32(1.0 / r.rate_max), f32(1.0 / r.rate_min)
    if c.emission_timer < -imax then c.emission_timer = -imax end
    local counter = MAX_PARTICLES_IN_FRAME
    while c.emission_timer > 0.0 and counter > 0 do
      c.emission_timer = f32(c.emission_timer - lerpf(imin, imax, Random(1.0)))
      if not emit(c, r) then break end
      counter = counter - 1
      commit = true
    end
  end
  local node = c.node
  local w = E.world(node)
  local relative = c.Relative
  local cf = r.constant_force
  local fx, fy, fz = cf.x, cf.y, cf.z
  local has_force = fx ~= 0.0 or fy ~= 0.0 or fz ~= 0.0
  if has_force and relative then
    local iw, ix, iy, iz = E.qinv(w.ww, w.wx, w.wy, w.wz)
    fx, fy, fz = E.qrot(iw, ix, iy, iz, fx, fy, fz)
  end
  local kx, ky, kz = 1.0, 1.0, 1.0
  if c.Scaled and not relative then kx, ky, kz = E.world_scale(node) end
  local damping, size_add, size_mul = r.damping, r.size_add, r.size_mul
  local sizing = size_add ~= 0.0 or size_mul ~= 1.0
  local colors, textures = r.colors, r.textures
  local ncol, ntex = #colors, #textures
  for i = 1, #parts do
    local p, b = parts[i], bbs[i]
    if b.enabled then
      commit = true
      if p.timer >= p.ttl then
        b.enabled = false
      else
        p.timer = f32(p.timer + step)
        if has_force then p.vx, p.vy, p.vz = p.vx + step * fx, p.vy + step * fy, p.vz + step * fz end
        if damping ~= 0.0 then
          p.vx, p.vy, p.vz = p.vx - step * damping * p.vx, p.vy - step * damping * p.vy, p.vz - step * damping * p.vz
        end
        local pos = b.position
        b.position = V3(pos.x + step * p.vx * kx, pos.y + step * p.vy * ky, pos.z + step * p.vz * kz)
        p.dx, p.dy, p.dz = normalize(p.vx, p.vy, p.vz)
        b.rotation = b.rotation + step * p.rot_speed
        if sizing then
          local s = p.scale + step * size_add
          if s < 0.0 then s = 0.0 end
          if size_mul ~= 1.0 then s = s * (step * (size_mul - 1.0) + 1.0) end
          p.scale = s
          b.size = V2(p.sx * s, p.sy * s)
        end
        local ci = p.ci
        if ci < ncol then
          if ci < ncol - 1 and p.timer >= colors[ci + 2].time then ci = ci + 1; p.ci = ci end
          if ci < ncol - 1 then b.color = interpolate(colors[ci + 1], colors[ci + 2], p.timer, Col())
          else b.color = copyc(colors[ci + 1].color) end
        end
        local ti = p.ti
        if ntex > 0 and ti < ntex - 1 and p.timer >= textures[ti + 2].time then
          b.uv = copyr(textures[ti + 2].uv)
          p.ti = ti + 1
        end
      end
    end
  end
  if commit then c.commits = c.commits + 1 end
  c.need_update = false
end

local function find_octree(scene)
  if scene == nil then return nil end
  for _, x in ipairs(scene.components) do if x.type_name == "Octree" then return x end end
  return nil
end

-- ParticleEmitter::HandleScenePostUpdate
local function post_update(c, data)
  if not live(c) then return end
  c.last_step = f32(data.TimeStep:GetFloat())
  local oct = c.octree
  if oct and not oct.removed and not c.queued then
    c.need_update = true
    c.queued = true
    local q = oct.particle_queue
    if q == nil then q = {}; oct.particle_queue = q end
    q[#q + 1] = c
  end
  if not c.emitting and c.send_finished and not any_active(c) then
    c.send_finished = false
    local node = c.node
    E.send_event("ParticleEffectFinished", {Node = node.proxy, Effect = c.effect}, node.proxy)
    if not live(c) then return end
    if c.auto_remove == REMOVE_COMPONENT then E.remove_component(c)
    elseif c.auto_remove == REMOVE_NODE then c.node.proxy:Remove() end
  end
end
-- The emitters queued by their scenes' ScenePostUpdate, updated by their octree in queue order.
E.OCTREE_UPDATES[#E.OCTREE_UPDATES + 1] = function(oct)
  local q = oct.particle_queue
  if q == nil or #q == 0 then return end
  oct.particle_queue = {}
  for _, c in ipairs(q) do
    c.queued = false
    if live(c) and c.octree == oct and enabled_effective(c) then
      if c.type_name == "ParticleEmitter" then update(c) end
    end
  end
end

local function subscribe(c)
  local scene = c.node and c.node.scene
  if scene and enabled_effective(c) then
    E.subscribe(c, nil, scene.proxy, "ScenePostUpdate", function(_, data) post_update(c, data) end)
    if c.octree == nil then c.octree = find_octree(scene) end
  else
    E.unsubscribe_all(c)
  end
end
FACTORIES.ParticleEmitter = function(c)
  billboard_set(c)
  c.particles, c.effect = {}, nil
  c.period_timer, c.emission_timer, c.last_step = 0.0, 0.0, 0.0
  c.emitting, c.need_update, c.serialize, c.send_finished, c.auto_remove, c.queued = true, false, true, true, 0, false
  emitters[#emitters + 1] = c
  set_num_particles(c, DEFAULT_NUM_PARTICLES)
  c.on_scene_set = function(x, scene) x.octree = find_octree(scene); subscribe(x) end
  c.on_scene_removed = function(x) x.octree = nil; E.unsubscribe_all(x) end
  c.on_set_enabled = subscribe
  c.on_removed = function(x) E.unsubscribe_all(x) end
end
local PM = PEm.methods
local function prec(self)
  local c = comp_rec(self)
  if c.type_name ~= "ParticleEmitter" then E.raise_at_game("invalid 'self' (a ParticleEmitter was expected)") end
  return c
end
PM.SetEffect = function(self, effect)
  local c = prec(self)
  if effect == c.effect then return end
  if effect ~= nil and not E.is(effect, "ParticleEffect") then
    E.raise_at_game("bad argument #1 to 'SetEffect' (ParticleEffect expected)")
  end
  reset(c)
  c.effect = effect
  apply_effect(c)
end
PM.GetEffect = function(self) return prec(self).effect end
PM.SetNumParticles = function(self, n)
  n = num(n, "SetNumParticles")
  set_num_particles(prec(self), mtointeger(n) or math.floor(n))
end
PM.GetNumParticles = function(self) return #prec(self).particles end
PM.SetEmitting = function(self, enable) set_emitting(prec(self), enable and true or false) end
PM.IsEmitting = function(self) return prec(self).emitting end
PM.SetSerializeParticles = function(self, enable) prec(self).serialize = enable and true or false end
PM.GetSerializeParticles = function(self) return prec(self).serialize end
PM.SetAutoRemoveMode = function(self, mode) prec(self).auto_remove = mtointeger(num(mode, "SetAutoRemoveMode")) or 0 end
PM.GetAutoRemoveMode = function(self) return prec(self).auto_remove end
PM.ResetEmissionTimer = function(self) prec(self).emission_timer = 0.0 end
PM.RemoveAllParticles = function(self) remove_all(prec(self)) end
PM.Reset = function(self) reset(prec(self)) end
PM.ApplyEffect = function(self) apply_effect(prec(self)) end

-- The octree's view: a BillboardSet (59_octree.lua)
E.DRAWABLE_KINDS.ParticleEmitter = E.DRAWABLE_KINDS.BillboardSet

----------------------------------------------------------------------------------------------------
-- The battery's read (engine/lua/harness.lua, `view.particles`): one table per particle emitter of the node
----------------------------------------------------------------------------------------------------
E.PARTICLE_VIEWS = {}   -- component type -> function(record) -> table
E.PARTICLE_VIEWS.ParticleEmitter = function(c)
  local r = c.effect and REC[c.effect]
  local w = c.node and E.world(c.node)
  local list = {}
  for i, b in ipairs(c.billboards) do
    local p = c.particles[i]
    if b.enabled and p then
      local pos = b.position
      local x, y, z = pos.x, pos.y, pos.z
      if c.Relative and w then
        x, y, z = w.m00 * x + w.m01 * y + w.m02 * z + w.m03, w.m10 * x + w.m11 * y + w.m12 * z + w.m13,
          w.m20 * x + w.m21 * y + w.m22 * z + w.m23
      end
      list[#list + 1] = {index = i - 1, position = copy3(pos), world_position = V3(x, y, z), size = copy2(b.size),
        color = copyc(b.color), rotation = b.rotation, uv = copyr(b.uv), velocity = V3(p.vx, p.vy, p.vz),
        time = p.timer, time_to_live = p.ttl}
    end
  end
  return {type = "ParticleEmitter", effect = r and r.name or nil, emitting = c.emitting, count = #list,
    capacity = #c.particles, relative = c.Relative, particles = list, enabled = enabled_effective(c),
    emission_timer = c.emission_timer, period_timer = c.period_timer}
end
function E.particles_view(r)
  local out
  for _, c in ipairs(r.components) do
    local fn = E.PARTICLE_VIEWS[c.type_name]
    if fn and not c.removed then
      out = out or {}
      out[#out + 1] = fn(c)
    end
  end
  return out
end
