-- Light shadow parameters (value types) and the Light members that take them: BiasParameters,
-- CascadeParameters, FocusParameters, with Urho3D's defaults (Graphics/Light.h).  Nothing renders shadows;
-- the values are kept so a game (or a battery) can read back what it set.  Lights copy them in and out.
local setmetatable, type, rawget = setmetatable, type, rawget
local noverload = E.MATH.noverload

local BP, CP, FP = class("BiasParameters"), class("CascadeParameters"), class("FocusParameters")
local mtb, mtc, mtf = BP.mt, CP.mt, FP.mt

local function newb(c, s, n)
  return setmetatable({constantBias = c * 1.0, slopeScaledBias = s * 1.0, normalOffset = n * 1.0}, mtb)
end
-- CascadeParameters' split distances are not readable from Lua (Urho3D binds only fadeStart and
-- biasAutoAdjust); they are kept out of sight (splits_) for the light's number of shadow splits.
local function newc(fade, adjust, splits)
  splits = splits or {0.0, 0.0, 0.0, 0.0}
  return setmetatable({fadeStart = fade * 1.0, biasAutoAdjust = adjust * 1.0,
                       splits_ = {splits[1] * 1.0, splits[2] * 1.0, splits[3] * 1.0, splits[4] * 1.0}}, mtc)
end
local function newf(focus, non_uniform, auto_size, quantize, min_view)
  return setmetatable({focus = focus and true or false, nonUniform = non_uniform and true or false,
    autoSize = auto_size and true or false, quantize = quantize * 1.0, minView = min_view * 1.0}, mtf)
end

BP.new = function(c, s, n, ...)
  if c == nil then return newb(0.0, 0.0, 0.0) end
  if type(c) ~= "number" or type(s) ~= "number" or (n ~= nil and type(n) ~= "number") then
    noverload("BiasParameters.new", c, s, n, ...)
  end
  return newb(c, s, n or 0.0)
end
CP.new = function(s1, s2, s3, s4, fade, adjust, ...)
  if s1 == nil then return newc(0.0, 0.0) end
  for _, v in ipairs({s1, s2, s3, s4, fade}) do
    if type(v) ~= "number" then noverload("CascadeParameters.new", s1, s2, s3, s4, fade, adjust, ...) end
  end
  if adjust ~= nil and type(adjust) ~= "number" then
    noverload("CascadeParameters.new", s1, s2, s3, s4, fade, adjust, ...)
  end
  return newc(fade, adjust or 1.0, {s1, s2, s3, s4})
end
FP.new = function(focus, non_uniform, auto_size, quantize, min_view, ...)
  if focus == nil then return newf(false, false, false, 0.0, 0.0) end
  if type(quantize) ~= "number" or type(min_view) ~= "number" then
    noverload("FocusParameters.new", focus, non_uniform, auto_size, quantize, min_view, ...)
  end
  return newf(focus, non_uniform, auto_size, quantize, min_view)
end

-- Urho3D's defaults for a new Light.
local DEFAULT_CONSTANTBIAS, DEFAULT_SLOPESCALEDBIAS = 0.0002, 0.5
local DEFAULT_SHADOWFADESTART, DEFAULT_BIASAUTOADJUST = 0.8, 1.0
local DEFAULT_SHADOWQUANTIZE, DEFAULT_SHADOWMINVIEW = 0.5, 3.0
local DEFAULT_SHADOWSPLIT, DEFAULT_SHADOWMAXEXTRUSION = 1000.0, 1000.0

local comp_rec = E.comp_rec
local L = class("Light").methods
local base_factory = E.COMPONENT_FACTORIES.Light
E.COMPONENT_FACTORIES.Light = function(c)
  base_factory(c)
  c.ShadowBias = newb(DEFAULT_CONSTANTBIAS, DEFAULT_SLOPESCALEDBIAS, 0.0)
  c.ShadowCascade = newc(DEFAULT_SHADOWFADESTART, DEFAULT_BIASAUTOADJUST, {DEFAULT_SHADOWSPLIT, 0.0, 0.0, 0.0})
  c.shadow_max_extrusion = DEFAULT_SHADOWMAXEXTRUSION
  c.ShadowFocus = newf(true, true, true, DEFAULT_SHADOWQUANTIZE, DEFAULT_SHADOWMINVIEW)
end
local function copyb(b) return newb(b.constantBias, b.slopeScaledBias, b.normalOffset) end
local function copyc(p) return newc(p.fadeStart, p.biasAutoAdjust, rawget(p, "splits_")) end
local function copyf(p) return newf(p.focus, p.nonUniform, p.autoSize, p.quantize, p.minView) end
-- the setters validate as Urho3D's do: biases clamped, cascade splits and fade start kept in range, focus limits
local function clamp(v, lo, hi) return math.min(math.max(v, lo), hi) end
L.SetShadowBias = function(self, b)
  comp_rec(self).ShadowBias = newb(clamp(b.constantBias, -1.0, 1.0), clamp(b.slopeScaledBias, -16.0, 16.0),
                                   math.max(b.normalOffset, 0.0))
end
L.GetShadowBias = function(self) return copyb(comp_rec(self).ShadowBias) end
L.SetShadowCascade = function(self, p)
  local c = copyc(p)
  local splits = c.splits_
  for i = 1, E.light_max_cascade_splits() do splits[i] = math.max(splits[i], 0.0) end
  c.fadeStart = clamp(c.fadeStart, 0.000001, 1.0)
  comp_rec(self).ShadowCascade = c
end
L.GetShadowCascade = function(self) return copyc(comp_rec(self).ShadowCascade) end
L.SetShadowFocus = function(self, p)
  comp_rec(self).ShadowFocus = newf(p.focus, p.nonUniform, p.autoSize, math.max(p.quantize, 0.1),
                                    math.max(p.minView, 1.0))   -- SHADOW_MIN_QUANTIZE, SHADOW_MIN_VIEW
end
L.GetShadowFocus = function(self) return copyf(comp_rec(self).ShadowFocus) end

-- The light's own derived values (Graphics/Light.cpp): shadow splits, frustum, effective colour.
local MAX_CASCADE_SPLITS_DESKTOP, MAX_CASCADE_SPLITS_MOBILE = 4, 1
local config = E.host.config
-- cascades a device supports: one on mobile graphics (Android, iOS, tvOS), four elsewhere
local function max_cascade_splits()
  local p = tostring(config.platform)
  if p == "Android" or p == "iOS" or p == "tvOS" then return MAX_CASCADE_SPLITS_MOBILE end
  return MAX_CASCADE_SPLITS_DESKTOP
end
E.light_max_cascade_splits = max_cascade_splits
L.GetNumShadowSplits = function(self)
  local s = comp_rec(self).ShadowCascade.splits_
  local n = 1
  if s[2] > s[1] then
    n = 2
    if s[3] > s[2] then
      n = 3
      if s[4] > s[3] then n = 4 end
    end
  end
  return math.min(n, max_cascade_splits())
end
L.SetShadowMaxExtrusion = function(self, v)
  comp_rec(self).shadow_max_extrusion = math.max(E.tolua_number(v, "SetShadowMaxExtrusion", 1), 0.0)
end
L.GetShadowMaxExtrusion = function(self) return comp_rec(self).shadow_max_extrusion end
-- a spot light's frustum: its fov and aspect ratio out to its range, from its node's position and rotation
L.GetFrustum = function(self)
  local c = comp_rec(self)
  local wr = E.world(c.node)
  local m = E.IMPL.Matrix3x4.new(E.Vector3_new(wr.m03, wr.m13, wr.m23),
                                 E.IMPL.Quaternion.new(wr.ww, wr.wx, wr.wy, wr.wz), 1.0)
  local f = E.IMPL.Frustum.new()
  f:Define(c.Fov, c.AspectRatio, 1.0, 0.01, c.Range, m)   -- from M_MIN_NEARCLIP
  return f
end
-- the colour of a black body at the light's temperature, by the approximation Urho3D uses (Planckian locus in CIE
-- 1960 UCS, then XYZ to linear sRGB)
local function temperature_color(t)
  local t2 = t * t
  local u = (0.860117757 + 1.54118254e-4 * t + 1.28641212e-7 * t2) / (1.0 + 8.42420235e-4 * t + 7.08145163e-7 * t2)
  local v = (0.317398726 + 4.22806245e-5 * t + 4.20481691e-8 * t2) / (1.0 - 2.89741816e-5 * t + 1.61456053e-7 * t2)
  local d = 2.0 * u - 8.0 * v + 4.0
  local x, y = 3.0 * u / d, 2.0 * v / d
  local X, Z = x / y, (1.0 - x - y) / y
  return 3.2404542 * X - 1.5371385 - 0.4985314 * Z, -0.9692660 * X + 1.8760108 + 0.0415560 * Z,
    0.0556434 * X - 0.2040259 + 1.0572252 * Z
end
L.GetColorFromTemperature = function(self)
  local r, g, b = temperature_color(comp_rec(self).Temperature)
  return E.Color_new(r, g, b, 1.0)
end
local function effective_color(c)
  local col, k = c.Color, c.Brightness
  if c.UsePhysicalValues then
    local tr, tg, tb = temperature_color(c.Temperature)
    local energy = (k * 4.0 * math.pi) * 16.0 / (100.0 * 100.0) / math.pi   -- lumens to the shader's scale
    return E.Color_new(tr * col.r * energy, tg * col.g * energy, tb * col.b * energy, 1.0)
  end
  return E.Color_new(col.r * k, col.g * k, col.b * k, 1.0)
end
L.GetEffectiveColor = function(self) return effective_color(comp_rec(self)) end
L.GetEffectiveSpecularIntensity = function(self)
  local c = comp_rec(self)
  return c.SpecularIntensity * math.abs(c.Brightness)
end
L.IsNegative = function(self)
  local e = effective_color(comp_rec(self))
  return e.r + e.g + e.b < 0.0
end
