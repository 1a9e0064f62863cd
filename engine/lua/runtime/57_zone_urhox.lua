-- UrhoX's own Zone properties that TapTap's rendering guide documents, with the defaults it gives: the depth fog's
-- density (1: 0 turns the depth fog off), auto exposure and the vignette (off; the vignette's intensity 1), the
-- ambient light's source (AMBIENT_PREBAKED) and intensity (0.3), and the source and vignette textures (none).
-- Nothing is drawn: they are state a game sets and reads back (56_render.lua keeps the rest of the Zone).
local base = E.COMPONENT_FACTORIES.Zone
local urhox = E.simple_properties(class("Zone"), {FogDensity = 1.0, AutoExposureEnabled = false,
  VignetteEnabled = false, VignetteIntensity = 1.0, AmbientSource = 0, AmbientIntensity = 0.3,
  SourceTexture = function() return nil end, VignetteTexture = function() return nil end})
E.COMPONENT_FACTORIES.Zone = function(c)
  base(c)
  urhox(c)
end
