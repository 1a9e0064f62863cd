-- UrhoX's rendering additions to Urho3D, as state (nothing is drawn): the Zone properties TapTap documents, the
-- Zone and Light extras it does not, the renderer's volumetric fog settings and LocalFogVolume.
--
-- UrhoX's own Zone properties that TapTap's rendering guide documents, with the defaults it gives: the depth fog's
-- density (1: 0 turns the depth fog off), auto exposure and the vignette (off; the vignette's intensity 1), the
-- ambient light's source (AMBIENT_PREBAKED) and intensity (0.3), and the source and vignette textures (none).
-- Nothing is drawn: they are state a game sets and reads back (56_render.lua keeps the rest of the Zone).
local urhox = E.simple_properties(class("Zone"), {FogDensity = 1.0, AutoExposureEnabled = false,
  VignetteEnabled = false, VignetteIntensity = 1.0, AmbientSource = 0, AmbientIntensity = 0.3,
  SourceTexture = function() return nil end, VignetteTexture = function() return nil end})

-- UrhoX's rendering extras on Zone and Light that nothing documents here (bloom and its modes, SSR, SSGI, FXAA, the
-- tonemap LUT; volumetric and physical light parameters): state a game sets and reads back, with this engine's
-- defaults (off, no effect: 0 or 1 as the quantity's neutral value; docs/content3d.md, "Rendering state").
local zone_extras = E.simple_properties(class("Zone"), {BloomMode = 0, BloomPlusEnabled = false,
  BloomPlusIntensity = 1.0, BloomThreshold = 1.0, BloomWeight = 1.0, BloomUEIntensity = 1.0, BloomUEThreshold = 1.0,
  BloomUESizeScale = 1.0, FXAAEnabled = false, SSGIEnabled = false, SSGIIntensity = 1.0, SSGIQuality = 1,
  SSREnabled = false, TonemapLUTEnabled = false})
local base_zone = E.COMPONENT_FACTORIES.Zone
E.COMPONENT_FACTORIES.Zone = function(c)
  base_zone(c)
  urhox(c)
  zone_extras(c)
  c.bloom_ue_sizes, c.bloom_ue_tints = {}, {}
end
local ZM = class("Zone").methods
local function stage_arg(v, fname) return E.tolua_int(v, fname, 1) end
ZM.SetBloomUESize = function(self, stage, size)
  E.comp_rec(self).bloom_ue_sizes[stage_arg(stage, "SetBloomUESize")] = E.tolua_number(size, "SetBloomUESize", 2)
end
ZM.GetBloomUESize = function(self, stage)
  return E.comp_rec(self).bloom_ue_sizes[stage_arg(stage, "GetBloomUESize")] or 1.0
end
ZM.SetBloomUETint = function(self, stage, tint)
  local c = E.comp_rec(self)
  c.bloom_ue_tints[stage_arg(stage, "SetBloomUETint")] = E.copy_math_value(tint)
end
ZM.GetBloomUETint = function(self, stage)
  local t = E.comp_rec(self).bloom_ue_tints[stage_arg(stage, "GetBloomUETint")]
  return t and E.copy_math_value(t) or E.IMPL.Color.new(1, 1, 1, 1)
end
-- a baked texture from the cache stands in as the source texture (no baking happens headless)
ZM.SetSourceTextureFromBakeCache = function(self, texture) E.comp_rec(self).SourceTexture = texture end
-- the ambient colours at the zone's two ends: Urho3D blends them with the neighbouring zones' when the gradient is
-- on; here both are the zone's own ambient colour (the neighbour lookup is not modelled)
ZM.GetAmbientStartColor = function(self) return E.copy_math_value(E.comp_rec(self).AmbientColor) end
ZM.GetAmbientEndColor = function(self) return E.copy_math_value(E.comp_rec(self).AmbientColor) end

local light_extras = E.simple_properties(class("Light"), {AbsorptionColor = function()
  return E.IMPL.Color.new(1, 1, 1, 1) end, AbsorptionIntensity = 0.0, BarnDoorAngle = 0.0, BarnDoorLength = 0.0,
  InnerConeAngle = 0.0, OuterConeAngle = 15.0, LightShaftHeight = 1.0, LightShaftScale = 1.0, PhaseG = 0.0,
  PunctualLight = true, ScatteringColor = function() return E.IMPL.Color.new(1, 1, 1, 1) end,
  ScatteringIntensity = 0.0, SoftRadius = 0.0, SourceHeight = 0.0, SourceWidth = 0.0, UseTemperature = false,
  VolumetricBlend = 1.0, VolumetricDepthMask = 1.0, VolumetricEnabled = false, VolumetricMaskIntensity = 1.0})
local base_light = E.COMPONENT_FACTORIES.Light
E.COMPONENT_FACTORIES.Light = function(c)
  base_light(c)
  light_extras(c)
  c.static_light = false
end
class("Light").methods.SetStatic = function(self, flag) E.comp_rec(self).static_light = flag and true or false end

-- UrhoX's volumetric fog settings on the renderer (the census of real games counts the family among what they call):
-- state with this engine's defaults (froxels off, an 8-pixel grid 64 slices deep, history weight 0.9, no debug view).
local fog = {froxel = false, pixel_size = 8, size_z = 64, history = 0.9, debug = 0}
local RM = class("Renderer").methods
RM.SetVolumetricFogFroxelEnabled = function(_, v) fog.froxel = v and true or false end
RM.GetVolumetricFogFroxelEnabled = function() return fog.froxel end
RM.SetVolumetricFogGridPixelSize = function(_, v)
  fog.pixel_size = math.max(1, E.tolua_int(v, "SetVolumetricFogGridPixelSize", 1))
end
RM.GetVolumetricFogGridPixelSize = function() return fog.pixel_size end
RM.SetVolumetricFogGridSizeZ = function(_, v)
  fog.size_z = math.max(1, E.tolua_int(v, "SetVolumetricFogGridSizeZ", 1))
end
RM.GetVolumetricFogGridSizeZ = function() return fog.size_z end
RM.SetVolumetricFogHistoryWeight = function(_, v)
  fog.history = E.tolua_number(v, "SetVolumetricFogHistoryWeight", 1)
end
RM.GetVolumetricFogHistoryWeight = function() return fog.history end
RM.SetVolumetricFogDebugMode = function(_, v) fog.debug = E.tolua_int(v, "SetVolumetricFogDebugMode", 1) end
RM.GetVolumetricFogDebugMode = function() return fog.debug end

-- UrhoX's LocalFogVolume (a volume of fog around its node; the census of real games counts it): state with this
-- engine's defaults (white albedo, no emission, extinction and falloff 1, isotropic phase, no draw distance limit).
E.COMPONENT_FACTORIES.LocalFogVolume = E.simple_properties(class("LocalFogVolume"), {
  Albedo = function() return E.IMPL.Color.new(1, 1, 1, 1) end,
  Emissive = function() return E.IMPL.Color.new(0, 0, 0, 1) end,
  RadialExtinction = 1.0, HeightExtinction = 1.0, HeightFalloff = 1.0, RadialFalloff = 1.0, PhaseG = 0.0,
  MaxDrawDistance = 0.0})
