-- 2D particles as Urho2D makes them (Urho2D/ParticleEffect2D.cpp, ParticleEmitter2D.cpp): a ParticleEffect2D read
-- from a Particle Designer file (.pex, root <particleEmitterConfig>) and the ParticleEmitter2D that simulates it.
--
-- The emitter updates on its scene's ScenePostUpdate (no octree needed, as in Urho2D): live particles age and move
-- (gravity mode: gravity, radial and tangential acceleration about the emission point; radial mode: rotation and
-- radius about it), expired ones are dropped by moving the last particle into their place, then new particles are
-- emitted one every lifespan / maxParticles seconds while the effect's duration lasts, each advanced by the time
-- left over in the frame.  ParticlesDuration (the emission time ran out) and ParticlesEnd (the last particle is gone)
-- are sent by the emitter component after the update.  Particles live in world space: the node's world position,
-- roll angle and x scale (times PIXEL_SIZE, 0.01 units a pixel) are taken when a particle is emitted.  Values from
-- the file are in pixels and degrees, as Particle Designer writes them.  Every variance is one Random(-1, 1) draw
-- (Urho3D's LCG, shared with the game's Random calls) in Urho2D's order; timers are single precision, positions and
-- colours doubles.  The particle count is capped as the 3D emitter's (65_particles.lua).
local ipairs, pairs, type, tostring = ipairs, pairs, type, tostring
local sqrt, cos, sin, mmin, mmax, mtointeger = math.sqrt, math.cos, math.sin, math.min, math.max, math.tointeger
local sformat, slower = string.format, string.lower
local REC, comp_rec = E.REC, E.comp_rec
local FACTORIES = E.COMPONENT_FACTORIES
local MX = E.MATH
local f32, M_DEGTORAD = MX.f32, MX.M_DEGTORAD
local T = E.urho_text
local Random = FUNCTIONS.Random
local V2, V3, Col = E.Vector2_new, E.Vector3_new, E.Color_new

local PIXEL_SIZE = 0.01
local BLEND_ALPHA, BLEND_ADDALPHA = 3, 4
local GRAVITY, RADIAL = 0, 1
local LIMIT = E.PARTICLE_LIMITS.per_emitter
-- Particle Designer's GL blend functions for each of Urho3D's blend modes, in BlendMode order
local SRC_BLEND = {1, 1, 0x0306, 0x0302, 0x0302, 1, 0x0305, 1, 0x0302}
local DEST_BLEND = {0, 1, 0, 0x0303, 1, 0x0303, 0x0304, 1, 1}

local function rnd() return Random(-1.0, 1.0) end

----------------------------------------------------------------------------------------------------
-- ParticleEffect2D
----------------------------------------------------------------------------------------------------
local FX = class("ParticleEffect2D")
local function defaults(r)   -- ParticleEffect2D's constructor
  r.sprite = nil
  r.source_variance = {7.0, 7.0}
  r.speed, r.speed_var = 260.0, 10.0
  r.lifespan, r.lifespan_var = 1.0, 0.7
  r.angle, r.angle_var = 0.0, 360.0
  r.gravity = {0.0, 0.0}
  r.radial_accel, r.tangential_accel, r.radial_accel_var, r.tangential_accel_var = -380.0, -140.0, 0.0, 0.0
  r.start_color, r.start_color_var = {1.0, 0.0, 0.0, 1.0}, {0.0, 0.0, 0.0, 0.0}
  r.finish_color, r.finish_color_var = {1.0, 1.0, 0.0, 1.0}, {0.0, 0.0, 0.0, 0.0}
  r.max_particles = 600
  r.start_size, r.start_size_var, r.finish_size, r.finish_size_var = 60.0, 40.0, 5.0, 5.0
  r.duration = -1.0
  r.emitter_type = GRAVITY
  r.max_radius, r.max_radius_var, r.min_radius, r.min_radius_var = 100.0, 0.0, 0.0, 0.0
  r.rotate_per_second, r.rotate_per_second_var = 0.0, 0.0
  r.blend_mode = BLEND_ALPHA
  r.rotation_start, r.rotation_start_var, r.rotation_end, r.rotation_end_var = 0.0, 0.0, 0.0, 0.0
end
E.resource_init("ParticleEffect2D", function(r) defaults(r) end)

local child = E.xml_child
-- ReadFloat and friends: an absent element reads as zeros, as a null XMLElement does
local function read(node, name, attr)
  local c = child(node, name)
  return c and c.attrs[attr] or ""
end
local function rfloat(node, name) return f32(T.float(read(node, name, "value"))) end
local function rint(node, name) return T.int(read(node, name, "value")) end
local function rvec2(node, name) return {f32(T.float(read(node, name, "x"))), f32(T.float(read(node, name, "y")))} end
local function rcolor(node, name)
  local out = {}
  for i, k in ipairs({"red", "green", "blue", "alpha"}) do out[i] = f32(T.float(read(node, name, k))) end
  return out
end
local function parent_path(name)
  local p = name:match("^(.*/)") or ""
  return p
end

E.resource_loader("ParticleEffect2D", function(r, data, name)
  if data == "" then return false, "Could not load particle effect " .. name .. ": zero sized XML data" end
  local root, err = E.xml_parse(data)
  if root == nil then return false, "Could not load particle effect " .. name .. ": " .. err end
  if root.name ~= "particleEmitterConfig" then
    return false, "Could not load particle effect " .. name .. ": the root element is <" .. root.name
      .. ">, not <particleEmitterConfig>"
  end
  local texture = read(root, "texture", "name")
  r.source_variance = rvec2(root, "sourcePositionVariance")
  r.speed, r.speed_var = rfloat(root, "speed"), rfloat(root, "speedVariance")
  r.lifespan, r.lifespan_var = mmax(0.01, rfloat(root, "particleLifeSpan")), rfloat(root, "particleLifespanVariance")
  r.angle, r.angle_var = rfloat(root, "angle"), rfloat(root, "angleVariance")
  r.gravity = rvec2(root, "gravity")
  r.radial_accel, r.tangential_accel = rfloat(root, "radialAcceleration"), rfloat(root, "tangentialAcceleration")
  r.radial_accel_var, r.tangential_accel_var = rfloat(root, "radialAccelVariance"),
    rfloat(root, "tangentialAccelVariance")
  r.start_color, r.start_color_var = rcolor(root, "startColor"), rcolor(root, "startColorVariance")
  r.finish_color, r.finish_color_var = rcolor(root, "finishColor"), rcolor(root, "finishColorVariance")
  r.max_particles = rint(root, "maxParticles")
  r.start_size, r.start_size_var = rfloat(root, "startParticleSize"), rfloat(root, "startParticleSizeVariance")
  r.finish_size = rfloat(root, "finishParticleSize")
  r.finish_size_var = rfloat(root, "FinishParticleSizeVariance")   -- Particle Designer's spelling
  r.duration = math.huge
  if child(root, "duration") then
    local d = rfloat(root, "duration")
    if d > 0.0 then r.duration = d end
  end
  r.emitter_type = rint(root, "emitterType")
  r.max_radius, r.max_radius_var = rfloat(root, "maxRadius"), rfloat(root, "maxRadiusVariance")
  r.min_radius, r.min_radius_var = rfloat(root, "minRadius"), rfloat(root, "minRadiusVariance")
  r.rotate_per_second, r.rotate_per_second_var = rfloat(root, "rotatePerSecond"), rfloat(root, "rotatePerSecondVariance")
  local src, dst = rint(root, "blendFuncSource"), rint(root, "blendFuncDestination")
  r.blend_mode = BLEND_ALPHA
  for i = 1, #SRC_BLEND do
    if SRC_BLEND[i] == src and DEST_BLEND[i] == dst then r.blend_mode = i - 1; break end
  end
  r.rotation_start, r.rotation_start_var = rfloat(root, "rotationStart"), rfloat(root, "rotationStartVariance")
  r.rotation_end, r.rotation_end_var = rfloat(root, "rotationEnd"), rfloat(root, "rotationEndVariance")
  -- EndLoad: the sprite beside the file (a missing one is logged; the effect loads without it)
  local sprite_name = parent_path(name) .. texture
  r.sprite = E.get_resource("Sprite2D", sprite_name, true)
  if r.sprite == nil then E.log("ERROR", "Could not load sprite " .. sprite_name .. " for particle effect") end
  return true
end)
FX.methods.Clone = function(self, name)
  local src = REC[self]
  if src == nil or src.type_name ~= "ParticleEffect2D" then
    E.raise_at_game("invalid 'self' (a ParticleEffect2D was expected)")
  end
  local proxy = E.make_resource("ParticleEffect2D", name and tostring(name) or "", nil)
  local r = REC[proxy]
  for k, v in pairs(src) do
    if k ~= "name" and k ~= "held" and k ~= "kind" and k ~= "type_name" then r[k] = v end
  end
  return proxy
end

----------------------------------------------------------------------------------------------------
-- ParticleEmitter2D
----------------------------------------------------------------------------------------------------
local PE = class("ParticleEmitter2D")
local drawable = E.drawable_factory({})
local function live(c) return not c.removed and c.node ~= nil and not c.node.removed end
local function enabled_effective(c) return c.enabled and c.node ~= nil and c.node.enabled end

local warned = false
local function set_max_particles(c, n)
  n = mmax(n, 1)
  if n > LIMIT then
    if not warned then
      warned = true
      E.log("WARNING", sformat("ParticleEmitter2D: %d particles asked; the engine simulates at most %d per emitter",
        n, LIMIT))
    end
    n = LIMIT
  end
  c.capacity = n
  for i = #c.particles, n + 1, -1 do c.particles[i] = nil end
  c.count = mmin(n, c.count)
end

-- ParticleEmitter2D::UpdateParticle
local function update_particle(c, r, p, step, scale)
  if step > p.ttl then step = p.ttl end
  p.ttl = f32(p.ttl - step)
  if r.emitter_type == RADIAL then
    p.emit_rotation = p.emit_rotation + p.emit_rotation_delta * step
    p.emit_radius = p.emit_radius + p.emit_radius_delta * step
    local a = p.emit_rotation * M_DEGTORAD
    p.x = p.start_x - cos(a) * p.emit_radius
    p.y = p.start_y + sin(a) * p.emit_radius
  else
    local dx, dy = p.x - p.start_x, p.y - p.start_y
    local d = sqrt(dx * dx + dy * dy)
    if d < 0.0001 then d = 0.0001 end
    local rx, ry = dx / d, dy / d
    local tx, ty = rx, ry
    rx, ry = rx * p.radial_accel, ry * p.radial_accel
    local new_y = tx
    tx = -ty * p.tangential_accel
    ty = new_y * p.tangential_accel
    local g = r.gravity
    p.vx = p.vx + (g[1] * scale + rx - tx) * step
    p.vy = p.vy - (g[2] * scale - ry + ty) * step
    p.x = p.x + p.vx * step
    p.y = p.y + p.vy * step
  end
  p.size = p.size + p.size_delta * step
  p.rotation = p.rotation + p.rotation_delta * step
  local col, d = p.color, p.color_delta
  for i = 1, 4 do col[i] = col[i] + d[i] * step end
end

-- ParticleEmitter2D::EmitParticle
local function emit_particle(c, r, wx, wy, wz, angle0, scale)
  if c.count >= r.max_particles or c.count >= c.capacity then return false end
  local lifespan = f32(r.lifespan + r.lifespan_var * rnd())
  if lifespan <= 0.0 then return false end
  local inv = 1.0 / lifespan
  c.count = c.count + 1
  local p = c.particles[c.count]
  if p == nil then p = {color = {0, 0, 0, 0}, color_delta = {0, 0, 0, 0}}; c.particles[c.count] = p end
  p.ttl = lifespan
  p.lifespan = lifespan
  p.x = wx + scale * r.source_variance[1] * rnd()
  p.y = wy + scale * r.source_variance[2] * rnd()
  p.z = wz
  p.start_x, p.start_y = wx, wy
  local angle = (angle0 + r.angle + r.angle_var * rnd()) * M_DEGTORAD
  local speed = scale * (r.speed + r.speed_var * rnd())
  p.vx, p.vy = speed * cos(angle), speed * sin(angle)
  local max_radius = mmax(0.0, scale * (r.max_radius + r.max_radius_var * rnd()))
  local min_radius = mmax(0.0, scale * (r.min_radius + r.min_radius_var * rnd()))
  p.emit_radius = max_radius
  p.emit_radius_delta = (min_radius - max_radius) * inv
  p.emit_rotation = angle0 + r.angle + r.angle_var * rnd()
  p.emit_rotation_delta = r.rotate_per_second + r.rotate_per_second_var * rnd()
  p.radial_accel = scale * (r.radial_accel + r.radial_accel_var * rnd())
  p.tangential_accel = scale * (r.tangential_accel + r.tangential_accel_var * rnd())
  local start_size = scale * mmax(0.1, r.start_size + r.start_size_var * rnd())
  local finish_size = scale * mmax(0.1, r.finish_size + r.finish_size_var * rnd())
  p.size = start_size
  p.size_delta = (finish_size - start_size) * inv
  local k = rnd()
  local sc, sv = r.start_color, r.start_color_var
  for i = 1, 4 do p.color[i] = sc[i] + sv[i] * k end
  k = rnd()
  local fc, fv = r.finish_color, r.finish_color_var
  for i = 1, 4 do p.color_delta[i] = (fc[i] + fv[i] * k - p.color[i]) * inv end
  p.rotation = angle0 + r.rotation_start + r.rotation_start_var * rnd()
  local end_rotation = angle0 + r.rotation_end + r.rotation_end_var * rnd()
  p.rotation_delta = (end_rotation - p.rotation) * inv
  return true
end

-- ParticleEmitter2D::Update
local roll_angle
local function update(c, step)
  local r = c.effect and REC[c.effect]
  if r == nil then return end
  local node = c.node
  local w = E.world(node)
  local wx, wy, wz = w.m03, w.m13, w.m23
  local scale = E.world_scale(node) * PIXEL_SIZE
  local parts = c.particles
  local i = 1
  while i <= c.count do
    local p = parts[i]
    if p.ttl > 0.0 then
      update_particle(c, r, p, step, scale)
      i = i + 1
    else
      if i ~= c.count then parts[i], parts[c.count] = parts[c.count], p end
      c.count = c.count - 1
    end
  end
  if c.emitting and c.emission_time > 0.0 then
    roll_angle = roll_angle or E.IMPL.Quaternion.bound_methods.RollAngle
    local angle0 = roll_angle(E.Quaternion_new(w.ww, w.wx, w.wy, w.wz))
    local between = f32(r.lifespan / c.capacity)
    c.emit_time = f32(c.emit_time + step)
    while c.emit_time > 0.0 do
      if emit_particle(c, r, wx, wy, wz, angle0, scale) then
        update_particle(c, r, parts[c.count], c.emit_time, scale)
      end
      c.emit_time = f32(c.emit_time - between)
    end
    if c.emission_time > 0.0 then c.emission_time = f32(mmax(0.0, c.emission_time - step)) end
  end
end

-- ParticleEmitter2D::HandleScenePostUpdate
local function post_update(c, data)
  if not live(c) then return end
  local had = c.count > 0
  local emitting = c.emission_time > 0.0
  update(c, f32(data.TimeStep:GetFloat()))
  if emitting and c.emission_time == 0.0 then
    E.send_event("ParticlesDuration", {Node = c.node.proxy, Effect = c.effect}, c.proxy)
    if not live(c) then return end
  end
  if had and c.count == 0 then
    E.send_event("ParticlesEnd", {Node = c.node.proxy, Effect = c.effect}, c.proxy)
  end
end
local function subscribe(c)
  local scene = c.node and c.node.scene
  if scene and enabled_effective(c) then
    E.subscribe(c, nil, scene.proxy, "ScenePostUpdate", function(_, data) post_update(c, data) end)
  else
    E.unsubscribe_all(c)
  end
end
FACTORIES.ParticleEmitter2D = function(c)
  drawable(c)
  c.Layer, c.OrderInLayer = 0, 0
  c.effect, c.sprite, c.blend_mode = nil, nil, BLEND_ADDALPHA
  c.particles, c.count, c.capacity = {}, 0, 0
  c.emission_time, c.emit_time, c.emitting = 0.0, 0.0, true
  c.on_scene_set = subscribe
  c.on_scene_removed = function(x) E.unsubscribe_all(x) end
  c.on_set_enabled = subscribe
  c.on_removed = function(x) E.unsubscribe_all(x) end
end
local M = PE.methods
local function prec(self)
  local c = comp_rec(self)
  if c.type_name ~= "ParticleEmitter2D" then E.raise_at_game("invalid 'self' (a ParticleEmitter2D was expected)") end
  return c
end
M.SetEffect = function(self, effect)
  local c = prec(self)
  if effect == c.effect then return end
  if effect ~= nil and not E.is(effect, "ParticleEffect2D") then
    E.raise_at_game("bad argument #1 to 'SetEffect' (ParticleEffect2D expected)")
  end
  c.effect = effect
  if effect == nil then return end
  local r = REC[effect]
  c.sprite, c.blend_mode = r.sprite, r.blend_mode
  set_max_particles(c, r.max_particles)
  c.emit_time = 0.0
  c.emission_time = r.duration
end
M.GetEffect = function(self) return prec(self).effect end
M.SetSprite = function(self, sprite) prec(self).sprite = sprite end
M.GetSprite = function(self) return prec(self).sprite end
M.SetBlendMode = function(self, mode) prec(self).blend_mode = mtointeger(mode) or 0 end
M.GetBlendMode = function(self) return prec(self).blend_mode end
M.SetEmitting = function(self, enable)
  local c = prec(self)
  enable = enable and true or false
  if enable == c.emitting then return end
  c.emitting = enable
  c.emit_time = 0.0
end
M.IsEmitting = function(self) return prec(self).emitting end

-- The octree's view: the particles' box, in world space, as Urho2D computes it after an update
E.DRAWABLE_KINDS.ParticleEmitter2D = {flags = E.DRAWABLE_KINDS.StaticSprite2D.flags, box = function() return nil end,
  world_box = function(c)
    if c.count == 0 then return nil end
    local x0, y0, z0, x1, y1, z1 = math.huge, math.huge, math.huge, -math.huge, -math.huge, -math.huge
    for i = 1, c.count do
      local p = c.particles[i]
      local h = p.size * 0.5
      x0, y0, z0 = mmin(x0, p.x - h), mmin(y0, p.y - h), mmin(z0, p.z)
      x1, y1, z1 = mmax(x1, p.x + h), mmax(y1, p.y + h), mmax(z1, p.z)
    end
    return {x0, y0, z0, x1, y1, z1}
  end}

-- The battery's read (`view.particles`, 65_particles.lua)
E.PARTICLE_VIEWS.ParticleEmitter2D = function(c)
  local r = c.effect and REC[c.effect]
  local list = {}
  for i = 1, c.count do
    local p = c.particles[i]
    list[i] = {index = i - 1, world_position = V3(p.x, p.y, p.z), size = p.size, rotation = p.rotation,
      color = Col(p.color[1], p.color[2], p.color[3], p.color[4]), velocity = V2(p.vx, p.vy),
      time = f32(p.lifespan - p.ttl), time_to_live = p.lifespan}
  end
  return {type = "ParticleEmitter2D", effect = r and r.name or nil, emitting = c.emitting, count = c.count,
    capacity = c.capacity, emission_time = c.emission_time, particles = list, enabled = enabled_effective(c)}
end
