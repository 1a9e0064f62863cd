-- Rendering components kept as state: nothing draws, everything can be asserted.
local error, type, setmetatable, ipairs, pairs, tostring = error, type, setmetatable, ipairs, pairs, tostring
local sformat, tan, rad, sqrt, mmin, mmax = string.format, math.tan, math.rad, math.sqrt, math.min, math.max
local REC, comp_rec = E.REC, E.comp_rec
local config = E.host.config

-- Define Set<Name>/Get<Name> (Is<Name> for booleans) over record fields with defaults.
function E.simple_properties(impl, defaults, factory_extra)
  local M = impl.methods
  local keys = E.sorted_keys(defaults)
  local declared = E.REGISTRY.classes[impl.name].methods
  for _, name in ipairs(keys) do
    local key = name
    local function define(method, fn)
      if declared[method] then M[method] = fn end
    end
    define("Set" .. name, function(self, v) comp_rec(self)[key] = v end)
    define("Get" .. name, function(self) return comp_rec(self)[key] end)
    define("Is" .. name, function(self) return comp_rec(self)[key] end)
    define("Has" .. name, function(self) return comp_rec(self)[key] end)
  end
  return function(c)
    for _, name in ipairs(keys) do
      local v = defaults[name]
      if type(v) == "function" then v = v() end
      c[name] = v
    end
    if factory_extra then factory_extra(c) end
  end
end
local props = E.simple_properties
local function color(r, g, b, a) return function() return E.IMPL.Color.new(r, g, b, a or 1) end end

-- Octree: 59_octree.lua
E.COMPONENT_FACTORIES.DebugRenderer = props(class("DebugRenderer"), {LineAntiAlias = false})
for _, m in ipairs({"AddLine", "AddTriangle", "AddBoundingBox", "AddNode", "AddSphere", "AddCircle", "AddCross",
                    "AddQuad", "AddFrustum", "AddPolyhedron", "AddSkeleton",
                    "AddPolygon", "AddSphereSector"}) do
  class("DebugRenderer").methods[m] = function(self) local c = comp_rec(self); c.count = (c.count or 0) + 1 end
end
-- The view the debug geometry is seen through: a camera's view, projection and frustum, copied by SetView
-- (identity matrices and an empty frustum until then); Render draws nothing.
local DR = class("DebugRenderer").methods
DR.SetView = function(self, camera)
  if camera == nil then return end
  local c = comp_rec(self)
  c.view, c.projection, c.frustum = camera:GetView(), camera:GetProjection(), camera:GetFrustum()
end
DR.GetView = function(self)
  local v = comp_rec(self).view
  return v and E.IMPL.Matrix3x4.new(v) or E.IMPL.Matrix3x4.statics.IDENTITY()
end
DR.GetProjection = function(self)
  local p = comp_rec(self).projection
  return p and E.IMPL.Matrix4.new(p) or E.IMPL.Matrix4.statics.IDENTITY()
end
DR.GetFrustum = function(self)
  local f = comp_rec(self).frustum
  return f and E.IMPL.Frustum.new(f) or E.IMPL.Frustum.new()
end
DR.IsInside = function(self, box)
  local f = comp_rec(self).frustum or E.IMPL.Frustum.new()
  return f:IsInsideFast(box) == 2   -- INSIDE
end
DR.Render = function(self) comp_rec(self) end

-- Camera: Urho3D's projection conventions (D3D depth 0..1), aspect from the screen when automatic.
local Cam = class("Camera")
E.COMPONENT_FACTORIES.Camera = props(Cam, {NearClip = 0.1, FarClip = 1000.0, Fov = 45.0, OrthoSize = 20.0,
  AspectRatio = 1.0, Zoom = 1.0, LodBias = 1.0, ViewMask = 0xffffffff, ViewOverrideFlags = 0, FillMode = 0,
  Orthographic = false, AutoAspectRatio = true, UseReflection = false, UseClipping = false, FlipVertical = false,
  ProjectionOffset = function() return E.Vector2_new(0, 0) end,
  ReflectionPlane = function() return E.IMPL.Plane.statics.UP() end,
  ClipPlane = function() return E.IMPL.Plane.statics.UP() end})
local CM = Cam.methods
-- the planes are copied in and out, as Urho3D's setters and getters copy them
for _, name in ipairs({"ReflectionPlane", "ClipPlane"}) do
  CM["Set" .. name] = function(self, plane) comp_rec(self)[name] = E.IMPL.Plane.new(plane) end
  CM["Get" .. name] = function(self) return E.IMPL.Plane.new(comp_rec(self)[name]) end
end
local function aspect(c)
  if c.AutoAspectRatio then return config.screen_width / config.screen_height end
  return c.AspectRatio
end
CM.GetAspectRatio = function(self) return aspect(comp_rec(self)) end
CM.SetAspectRatio = function(self, v) local c = comp_rec(self); c.AspectRatio = v; c.AutoAspectRatio = false end
-- A custom projection (SetProjection) holds until a setter the projection depends on rebuilds it, as in Urho3D;
-- the near and far clip distances are then the custom matrix's.
local function near_clip(c)
  if c.custom_proj then return c.custom_near end
  if c.Orthographic then return 0.0 end
  return c.NearClip
end
local function far_clip(c)
  if c.custom_proj then return c.custom_far end
  return c.FarClip
end
CM.GetNearClip = function(self) return near_clip(comp_rec(self)) end
CM.GetFarClip = function(self) return far_clip(comp_rec(self)) end
local function projection(c)
  if c.custom_proj then return E.IMPL.Matrix4.new(c.custom_proj) end
  local M4 = E.IMPL.Matrix4
  local m = M4.statics.ZERO()
  local near, far = c.Orthographic and 0.0 or c.NearClip, c.FarClip
  local ar = aspect(c)
  local off = c.ProjectionOffset
  if not c.Orthographic then
    local h = (1.0 / tan(rad(c.Fov) * 0.5)) * c.Zoom
    local w = h / ar
    local q = far / (far - near)
    m.m00, m.m02, m.m11, m.m12, m.m22, m.m23, m.m32 = w, off.x * 2, h, off.y * 2, q, -q * near, 1.0
  else
    local h = (1.0 / (c.OrthoSize * 0.5)) * c.Zoom
    local w = h / ar
    m.m00, m.m03, m.m11, m.m13, m.m22, m.m23, m.m33 = w, off.x * 2, h, off.y * 2, 1.0 / far, 0.0, 1.0
  end
  return m
end
-- the node's world position and rotation (scale dropped), reflected in the reflection plane when reflecting
local function effective_world(c)
  local M34 = E.IMPL.Matrix3x4
  local wr = E.world(c.node)
  local eff = M34.new(E.Vector3_new(wr.m03, wr.m13, wr.m23), E.IMPL.Quaternion.new(wr.ww, wr.wx, wr.wy, wr.wz), 1.0)
  if c.UseReflection then return c.ReflectionPlane:ReflectionMatrix() * eff end
  return eff
end
local function view(c) return effective_world(c):Inverse() end
-- what GetProjection returns: the projection, its Y axis flipped when the camera flips vertically
local function flipped_projection(c)
  local m = projection(c)
  if c.FlipVertical then m.m10, m.m11, m.m12, m.m13 = -m.m10, -m.m11, -m.m12, -m.m13 end
  return m
end
CM.GetProjection = function(self) return flipped_projection(comp_rec(self)) end
CM.GetView = function(self) return view(comp_rec(self)) end
CM.GetEffectiveWorldTransform = function(self) return effective_world(comp_rec(self)) end
local function mat4_of(m34)
  return m34:ToMatrix4()
end
CM.WorldToScreenPoint = function(self, p)
  local c = comp_rec(self)
  local eye = view(c) * p
  local x, y
  if eye.z > 0 then
    local s = flipped_projection(c) * eye
    x, y = s.x, s.y
  else
    x = (-eye.x > 0) and -1.0 or 1.0
    y = (-eye.y > 0) and -1.0 or 1.0
  end
  return E.Vector2_new(x / 2 + 0.5, 1.0 - (y / 2 + 0.5))
end
CM.GetScreenRay = function(self, x, y)
  local c = comp_rec(self)
  if not (far_clip(c) > near_clip(c)) then   -- an invalid projection: a ray forward from the camera
    local wr = E.world(c.node)
    local fx, fy, fz = E.qrot(wr.ww, wr.wx, wr.wy, wr.wz, 0, 0, 1)
    return E.IMPL.Ray.new(E.Vector3_new(wr.m03, wr.m13, wr.m23), E.Vector3_new(fx, fy, fz))
  end
  local vp = flipped_projection(c) * mat4_of(view(c))
  local inv = vp:Inverse()
  x, y = 2.0 * x - 1.0, 1.0 - 2.0 * y
  local near = inv * E.Vector3_new(x, y, 0.0)
  local far = inv * E.Vector3_new(x, y, 1.0)
  return E.IMPL.Ray.new(near, (far - near):Normalized())
end
CM.ScreenToWorldPoint = function(self, sp)
  local c = comp_rec(self)
  local ray = CM.GetScreenRay(self, sp.x, sp.y)
  local d = ray.direction
  local vdir = view(c) * E.IMPL.Vector4.new(d.x, d.y, d.z, 0.0)
  local dist = mmax(sp.z - near_clip(c), 0.0) / vdir.z
  return ray.origin + d * dist
end
CM.GetHalfViewSize = function(self)
  local c = comp_rec(self)
  if c.Orthographic then return c.OrthoSize * 0.5 / c.Zoom end
  return tan(rad(c.Fov) * 0.5) / c.Zoom   -- Urho3D: the half height of the view at distance 1, not at the near plane
end
CM.GetDistance = function(self, p)
  local c = comp_rec(self)
  local wr = E.world(c.node)
  local dx, dy, dz = p.x - wr.m03, p.y - wr.m13, p.z - wr.m23
  if c.Orthographic then
    local fx, fy, fz = E.qrot(wr.ww, wr.wx, wr.wy, wr.wz, 0, 0, 1)
    return math.abs(dx * fx + dy * fy + dz * fz)
  end
  return sqrt(dx * dx + dy * dy + dz * dz)
end


-- SetProjection: a custom matrix, its clip distances read back through its inverse; the aspect stops following
-- the screen
CM.SetProjection = function(self, m)
  local c = comp_rec(self)
  if not E.is(m, "Matrix4") then E.raise_at_game("bad argument #1 to 'SetProjection' (Matrix4 expected)") end
  local inv = m:Inverse()
  c.custom_proj = E.IMPL.Matrix4.new(m)
  c.custom_near = (inv * E.Vector3_new(0.0, 0.0, 0.0)).z
  c.custom_far = (inv * E.Vector3_new(0.0, 0.0, 1.0)).z
  c.AutoAspectRatio = false
end
for _, name in ipairs({"NearClip", "FarClip", "Fov", "OrthoSize", "AspectRatio", "Zoom", "Orthographic",
                       "ProjectionOffset", "UseClipping"}) do
  local set = CM["Set" .. name]
  CM["Set" .. name] = function(self, ...)
    set(self, ...)
    comp_rec(self).custom_proj = nil
  end
end
CM.IsProjectionValid = function(self)
  local c = comp_rec(self)
  return far_clip(c) > near_clip(c)
end
-- the projection as OpenGL takes it: depth -1..1 (Urho3D's OpenGL backend)
CM.GetGPUProjection = function(self)
  local m = flipped_projection(comp_rec(self))
  m.m20, m.m21, m.m22, m.m23 = 2.0 * m.m20 - m.m30, 2.0 * m.m21 - m.m31, 2.0 * m.m22 - m.m32, 2.0 * m.m23 - m.m33
  return m
end
-- Frustums: from the projection parameters, or from the custom matrix when there is one
local function new_frustum() return E.IMPL.Frustum.new() end
local function define(f, c, near, far, world)
  if not c.Orthographic then
    f:Define(c.Fov, aspect(c), c.Zoom, near, far, world)
  else
    f:DefineOrtho(c.OrthoSize, aspect(c), c.Zoom, near, far, world)
  end
  return f
end
CM.GetFrustum = function(self)
  local c = comp_rec(self)
  local f = new_frustum()
  if c.custom_proj then
    f:Define(projection(c) * mat4_of(view(c)))
    return f
  end
  return define(f, c, near_clip(c), far_clip(c), effective_world(c))
end
CM.GetViewSpaceFrustum = function(self)
  local c = comp_rec(self)
  local f = new_frustum()
  if c.custom_proj then
    f:Define(projection(c))
    return f
  end
  return define(f, c, near_clip(c), far_clip(c), nil)
end
local function split_range(c, near, far, fname)
  near = mmax(E.tolua_number(near, fname, 1), near_clip(c))
  far = mmin(E.tolua_number(far, fname, 2), far_clip(c))
  if far < near then far = near end
  return near, far
end
-- the frustum between two view distances, in world space or (`view_space`) in the camera's own
local function split_frustum(self, near, far, fname, view_space)
  local c = comp_rec(self)
  near, far = split_range(c, near, far, fname)
  local f = new_frustum()
  local world = not view_space and effective_world(c) or nil
  if c.custom_proj then
    f:DefineSplit(projection(c), near, far)
    if world then f:Transform(world) end
    return f
  end
  return define(f, c, near, far, world)
end
CM.GetSplitFrustum = function(self, near, far) return split_frustum(self, near, far, "GetSplitFrustum", false) end
CM.GetViewSpaceSplitFrustum = function(self, near, far)
  return split_frustum(self, near, far, "GetViewSpaceSplitFrustum", true)
end
-- the view-space frustum's first near and far corners, written into the two vectors passed (and returned)
CM.GetFrustumSize = function(self, near, far)
  local c = comp_rec(self)
  local v = CM.GetViewSpaceFrustum(self).vertices_
  local n, f = v[1], v[5]
  local ny, fy = n.y, f.y
  if c.FlipVertical then ny, fy = -ny, -fy end
  if E.is(near, "Vector3") then near.x, near.y, near.z = n.x, ny, n.z else near = E.Vector3_new(n.x, ny, n.z) end
  if E.is(far, "Vector3") then far.x, far.y, far.z = f.x, fy, f.z else far = E.Vector3_new(f.x, fy, f.z) end
  return near, far
end
CM.GetDistanceSquared = function(self, p)
  local c = comp_rec(self)
  if not c.Orthographic then
    local wr = E.world(c.node)
    local dx, dy, dz = p.x - wr.m03, p.y - wr.m13, p.z - wr.m23
    return dx * dx + dy * dy + dz * dz
  end
  local d = (view(c) * p).z
  return d * d
end
local M_EPSILON = 0.000001
CM.GetLodDistance = function(self, distance, scale, bias)
  local c = comp_rec(self)
  distance = E.tolua_number(distance, "GetLodDistance", 1)
  local d = mmax(c.LodBias * E.tolua_number(bias, "GetLodDistance", 3) * E.tolua_number(scale, "GetLodDistance", 2)
                 * c.Zoom, M_EPSILON)
  if not c.Orthographic then return distance / d end
  return c.OrthoSize / d
end
-- UrhoX's reverse depth and handedness: state (Urho3D's conventions, left-handed with depth 0..1, by default)
CM.SetReverseZ = function(self, v) comp_rec(self).reverse_z = v and true or false end
CM.GetReverseZ = function(self) return comp_rec(self).reverse_z == true end
CM.UseReverseZ = CM.GetReverseZ
CM.GetFarthestDepthValue = function(self) return comp_rec(self).reverse_z and 0.0 or 1.0 end
CM.SetHandedness = function(self, h) comp_rec(self).handedness = E.tolua_int(h, "SetHandedness", 1) end
CM.GetHandedness = function(self) return comp_rec(self).handedness or 0 end

-- Light, Zone
local Light = class("Light")
E.COMPONENT_FACTORIES.Light = props(Light, {LightType = 2, Color = color(1, 1, 1), Brightness = 1.0,
  Range = 10.0, Fov = 30.0, AspectRatio = 1.0, SpecularIntensity = 1.0, CastShadows = false,
  PerVertex = false, FadeDistance = 0.0, ShadowFadeDistance = 0.0, ShadowIntensity = 0.0,
  ShadowResolution = 1.0, ShadowNearFarRatio = 0.002, Temperature = 6590.0, Radius = 0.0, Length = 0.0,
  UsePhysicalValues = false, ShadowBias = function() return nil end, ShadowCascade = function() return nil end,
  ShadowFocus = function() return nil end, RampTexture = function() return nil end,
  ShapeTexture = function() return nil end, LightMask = 0xffffffff, ViewMask = 0xffffffff})
local Zone = class("Zone")
E.COMPONENT_FACTORIES.Zone = props(Zone, {AmbientColor = color(0.1, 0.1, 0.1), FogColor = color(0, 0, 0),
  FogStart = 250.0, FogEnd = 1000.0, FogHeight = 0.0, FogHeightScale = 0.5, Priority = 0, HeightFog = false,
  Override = false, AmbientGradient = false, BoundingBox = function()
    return E.IMPL.BoundingBox.new(E.Vector3_new(-10, -10, -10), E.Vector3_new(10, 10, 10)) end,
  ZoneTexture = function() return nil end})

-- a zone's box is in its node's space: a point is inside when its local position is in the box
local ZM = Zone.methods
local function zone_inverse(c)
  local w = E.world(c.node)
  return E.IMPL.Matrix3x4.new(w.m00, w.m01, w.m02, w.m03, w.m10, w.m11, w.m12, w.m13, w.m20, w.m21, w.m22,
                              w.m23):Inverse()
end
ZM.GetInverseWorldTransform = function(self) return zone_inverse(comp_rec(self)) end
ZM.IsInside = function(self, p)
  local c = comp_rec(self)
  return c.BoundingBox:IsInside(zone_inverse(c) * p) ~= 0   -- not OUTSIDE
end

-- Drawables
local Drawable = class("Drawable")
local drawable_defaults = {CastShadows = false, Occluder = false, Occludee = true, DrawDistance = 0.0,
  ShadowDistance = 0.0, LodBias = 1.0, ViewMask = 0xffffffff, LightMask = 0xffffffff, ShadowMask = 0xffffffff,
  ZoneMask = 0xffffffff, MaxLights = 0}
props(Drawable, drawable_defaults)
local function drawable_factory(extra)
  local init = {}
  for k, v in pairs(drawable_defaults) do init[k] = v end
  for k, v in pairs(extra or {}) do init[k] = v end
  local keys = E.sorted_keys(init)
  return function(c)
    for _, k in ipairs(keys) do
      local v = init[k]
      if type(v) == "function" then v = v() end
      c[k] = v
    end
    c.materials = {}
  end
end
E.drawable_factory = drawable_factory
local D = Drawable.methods
-- GetBoundingBox, GetWorldBoundingBox, GetDrawableFlags: 59_octree.lua
D.IsInView = function() return true end
D.GetZone = function() return nil end

local SM = class("StaticModel")
E.COMPONENT_FACTORIES.StaticModel = drawable_factory({OcclusionLodLevel = 0xffffffff})
local S = SM.methods
S.SetModel = function(self, model)
  local c = comp_rec(self)
  c.model = model
  local m = model and REC[model]
  local n = m and m.num_geometries or 1
  local mats = {}
  for i = 1, n do mats[i] = c.materials[i] end
  c.materials = mats
end
S.GetModel = function(self) return comp_rec(self).model end
S.SetMaterial = function(self, a, b)
  local c = comp_rec(self)
  if b == nil then
    local n = math.max(#c.materials, 1)
    for i = 1, n do c.materials[i] = a end
    return
  end
  c.materials[a + 1] = b
  return true
end
S.GetMaterial = function(self, index) return comp_rec(self).materials[(index or 0) + 1] end
S.GetNumGeometries = function(self)
  local m = comp_rec(self).model
  return m and REC[m] and REC[m].num_geometries or 0
end
S.SetOcclusionLodLevel = function(self, v) comp_rec(self).OcclusionLodLevel = v end
S.GetOcclusionLodLevel = function(self) return comp_rec(self).OcclusionLodLevel end
S.IsInside = function(self, p) return D.GetWorldBoundingBox(self):IsInside(p) ~= 0 end
S.IsInsideLocal = function(self, p) return D.GetBoundingBox(self):IsInside(p) ~= 0 end
S.ApplyMaterialList = function() return true end
function E.clone_drawable(src, dst)
  for k, v in pairs(src) do
    if k ~= "proxy" and k ~= "node" and k ~= "id" and k ~= "materials" then dst[k] = v end
  end
  for i, m in ipairs(src.materials or {}) do dst.materials[i] = m end
end

-- Renderer and Viewport
local Renderer = class("Renderer")
local rstate = {viewports = {}, hdr = false, default_zone = nil, shadow_quality = 2, draw_shadows = true,
  specular = true, texture_quality = 2, material_quality = 2, shadow_map_size = 1024, dynamic_instancing = true,
  max_occluder_triangles = 5000, num_viewports = 1,
  -- Urho3D's Renderer defaults (Graphics/Renderer.h)
  texture_anisotropy = 4, texture_filter_mode = 2, shadow_softness = 1.0, vsm_min_variance = 0.0000001,
  vsm_light_bleeding = 0.9, vsm_multi_sample = 1, reuse_shadow_maps = true, max_shadow_maps = 1,
  extra_instancing_elements = 0, min_instances = 2, max_sorted_instances = 1000, occlusion_buffer_size = 256,
  occluder_size_threshold = 0.025, threaded_occlusion = false, mobile_shadow_bias_mul = 1.0,
  mobile_shadow_bias_add = 0.0, mobile_normal_offset_mul = 1.0}
local R = Renderer.methods
R.SetViewport = function(_, index, vp) rstate.viewports[index] = vp end
R.GetViewport = function(_, index) return rstate.viewports[index] end
R.SetNumViewports = function(_, n) rstate.num_viewports = n end
R.GetNumViewports = function() return rstate.num_viewports end
R.SetHDRRendering = function(_, v) rstate.hdr = v end
R.GetHDRRendering = function() return rstate.hdr end
R.GetDefaultZone = function()
  if rstate.default_zone == nil then
    local proxy = setmetatable({}, class("Zone").mt)
    local c = {kind = "component", type_name = "Zone", proxy = proxy, enabled = true, id = 0}
    REC[proxy] = c
    E.COMPONENT_FACTORIES.Zone(c)
    rstate.default_zone = proxy
  end
  return rstate.default_zone
end
R.SetShadowQuality = function(_, q) rstate.shadow_quality = q end
R.GetShadowQuality = function() return rstate.shadow_quality end
R.SetDrawShadows = function(_, v) rstate.draw_shadows = v end
R.GetDrawShadows = function() return rstate.draw_shadows end
R.SetSpecularLighting = function(_, v) rstate.specular = v end
R.GetSpecularLighting = function() return rstate.specular end
R.SetTextureQuality = function(_, v) rstate.texture_quality = v end
R.GetTextureQuality = function() return rstate.texture_quality end
R.SetMaterialQuality = function(_, v) rstate.material_quality = v end
R.GetMaterialQuality = function() return rstate.material_quality end
R.SetShadowMapSize = function(_, v) rstate.shadow_map_size = v end
R.GetShadowMapSize = function() return rstate.shadow_map_size end
R.SetDynamicInstancing = function(_, v) rstate.dynamic_instancing = v end
R.GetDynamicInstancing = function() return rstate.dynamic_instancing end
R.SetMaxOccluderTriangles = function(_, v) rstate.max_occluder_triangles = v end
R.GetMaxOccluderTriangles = function() return rstate.max_occluder_triangles end
-- The setters' clamps are Urho3D's (Renderer.cpp); the device is a desktop OpenGL 3 one with hardware shadows.
-- the argument checks (58_serializer.lua, loaded after this file)
local function int_arg(v, f, n) return E.tolua_int(v, f, n) end
local function num_arg(v, f, n) return E.tolua_number(v, f, n) end
local function clamp(v, lo, hi) return mmin(mmax(v, lo), hi) end
R.SetTextureQuality = function(_, v) rstate.texture_quality = clamp(int_arg(v, "SetTextureQuality", 1), 0, 2) end
R.SetMaterialQuality = function(_, v) rstate.material_quality = clamp(int_arg(v, "SetMaterialQuality", 1), 0, 15) end
R.SetShadowMapSize = function(_, v)
  local size, p = mmax(int_arg(v, "SetShadowMapSize", 1), 64), 1
  while p < size do p = p * 2 end
  rstate.shadow_map_size = p
end
R.SetMaxOccluderTriangles = function(_, v)
  rstate.max_occluder_triangles = mmax(int_arg(v, "SetMaxOccluderTriangles", 1), 0)
end
local function setting(name, key, check)
  R["Set" .. name] = function(_, v) local x = check(v, "Set" .. name); if x ~= nil then rstate[key] = x end end
  R["Get" .. name] = function() return rstate[key] end
end
local function bool(v) return v and true or false end
setting("TextureAnisotropy", "texture_anisotropy", function(v, f) return mmax(int_arg(v, f, 1), 1) end)
setting("TextureFilterMode", "texture_filter_mode", function(v, f) return int_arg(v, f, 1) end)
setting("ShadowSoftness", "shadow_softness", function(v, f) return mmax(num_arg(v, f, 1), 0.0) end)
setting("VSMMultiSample", "vsm_multi_sample", function(v, f) return clamp(int_arg(v, f, 1), 1, 16) end)
setting("ReuseShadowMaps", "reuse_shadow_maps", bool)
setting("MaxShadowMaps", "max_shadow_maps", function(v, f)
  v = int_arg(v, f, 1)
  if v >= 1 then return v end   -- fewer than one: ignored
end)
setting("NumExtraInstancingBufferElements", "extra_instancing_elements",
        function(v, f) return clamp(int_arg(v, f, 1), 0, 4) end)
setting("MinInstances", "min_instances", function(v, f) return mmax(int_arg(v, f, 1), 1) end)
setting("MaxSortedInstances", "max_sorted_instances", function(v, f) return mmax(int_arg(v, f, 1), 0) end)
setting("OcclusionBufferSize", "occlusion_buffer_size", function(v, f) return mmax(int_arg(v, f, 1), 1) end)
setting("OccluderSizeThreshold", "occluder_size_threshold", function(v, f) return mmax(num_arg(v, f, 1), 0.0) end)
setting("ThreadedOcclusion", "threaded_occlusion", bool)
setting("MobileShadowBiasMul", "mobile_shadow_bias_mul", function(v, f) return num_arg(v, f, 1) end)
setting("MobileShadowBiasAdd", "mobile_shadow_bias_add", function(v, f) return num_arg(v, f, 1) end)
setting("MobileNormalOffsetMul", "mobile_normal_offset_mul", function(v, f) return num_arg(v, f, 1) end)
R.SetVSMShadowParameters = function(_, min_variance, bleeding)
  rstate.vsm_min_variance = mmax(num_arg(min_variance, "SetVSMShadowParameters", 1), 0.0)
  rstate.vsm_light_bleeding = clamp(num_arg(bleeding, "SetVSMShadowParameters", 2), 0.0, 1.0)
end
R.GetVSMShadowParameters = function() return E.Vector2_new(rstate.vsm_min_variance, rstate.vsm_light_bleeding) end
-- Nothing is drawn: every frame statistic is zero.
for _, name in ipairs({"GetNumViews", "GetNumPrimitives", "GetNumBatches", "GetNumGeometries", "GetNumLights",
                       "GetNumShadowMaps", "GetNumOccluders"}) do
  R[name] = function() return 0 end
end
-- The default technique (Techniques/NoTexture.xml when first asked for), material and light textures.
R.SetDefaultTechnique = function(_, t) rstate.default_technique = t or false end
R.GetDefaultTechnique = function()
  if not rstate.default_technique then
    rstate.default_technique = E.get_resource("Technique", "Techniques/NoTexture.xml") or false
  end
  return rstate.default_technique or nil
end
R.GetDefaultMaterial = function()
  if rstate.default_material == nil then rstate.default_material = E.IMPL.Material.new() end
  return rstate.default_material
end
R.GetDefaultLightRamp = function() return E.get_resource("Texture2D", "Textures/Ramp.png") end
R.GetDefaultLightSpot = function() return E.get_resource("Texture2D", "Textures/Spot.png") end
-- the index'th viewport (0-based) showing `scene`, in viewport order
R.GetViewportForScene = function(_, scene, index)
  index = E.tolua_int(index, "GetViewportForScene", 2)
  local n = rstate.num_viewports
  for i in pairs(rstate.viewports) do if i + 1 > n then n = i + 1 end end   -- the highest index (order unobserved)
  for i = 0, n - 1 do
    local vp = rstate.viewports[i]
    if vp and E.rec(vp).scene == scene then
      if index == 0 then return vp end
      index = index - 1
    end
  end
  return nil
end
-- A path, or an XML file a new path is loaded from (56_render_path.lua), as Urho3D's overloads take either.
local function render_path_of(p)
  if E.is(p, "XMLFile") then return E.render_path_from(p) end
  return p
end
R.SetDefaultRenderPath = function(_, p) rstate.render_path = render_path_of(p) end
-- The default render path is Urho3D's default, RenderPaths/Forward.xml, loaded when first asked for; viewports
-- without their own path use it, as in Urho3D.
local function default_render_path()
  if rstate.render_path == nil then
    rstate.render_path = E.render_path_from(E.get_resource("XMLFile", "RenderPaths/Forward.xml"))
  end
  return rstate.render_path
end
R.GetDefaultRenderPath = default_render_path
R.DrawDebugGeometry = function() end
R.ReloadShaders = function() end
GLOBALS.renderer = E.new_object("Renderer")
FUNCTIONS.GetRenderer = function() return GLOBALS.renderer end
E.renderer_state = rstate

local Viewport = class("Viewport")
Viewport.new = function(scene, camera, rect, render_path)
  -- Viewport:new(scene, camera) or Viewport:new(scene, camera, renderPath)
  if E.is(rect, "XMLFile") or E.is(rect, "RenderPath") then rect, render_path = nil, rect end
  return E.new_object("Viewport", {scene = scene, camera = camera, rect = rect,
    render_path = render_path and render_path_of(render_path), draw_debug = true})
end
local VP = Viewport.methods
VP.SetScene = function(self, s) E.rec(self).scene = s end
VP.GetScene = function(self) return E.rec(self).scene end
VP.SetCamera = function(self, c) E.rec(self).camera = c end
VP.GetCamera = function(self) return E.rec(self).camera end
VP.SetRect = function(self, r) E.rec(self).rect = r end
VP.GetRect = function(self) return E.rec(self).rect or E.IntRect_new(0, 0, 0, 0) end
VP.SetRenderPath = function(self, p) E.rec(self).render_path = render_path_of(p) end
VP.GetRenderPath = function(self) return E.rec(self).render_path or default_render_path() end
VP.SetDrawDebug = function(self, v) E.rec(self).draw_debug = v end
VP.SetCullCamera = function(self, c) E.rec(self).cull_camera = c end
VP.GetCullCamera = function(self) return E.rec(self).cull_camera end
VP.GetDrawDebug = function(self) return E.rec(self).draw_debug end
VP.GetScreenRay = function(self, x, y)
  local cam = E.rec(self).camera
  return cam:GetScreenRay(x / config.screen_width, y / config.screen_height)
end
VP.WorldToScreenPoint = function(self, p)
  local cam = E.rec(self).camera
  local s = cam:WorldToScreenPoint(p)
  return E.IntVector2_new(math.floor(s.x * config.screen_width), math.floor(s.y * config.screen_height))
end
VP.ScreenToWorldPoint = function(self, x, y, depth)
  local cam = E.rec(self).camera
  return cam:ScreenToWorldPoint(E.Vector3_new(x / config.screen_width, y / config.screen_height, depth))
end
