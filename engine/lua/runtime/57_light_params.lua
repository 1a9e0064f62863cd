-- Light shadow parameters (value types) and the Light members that take them: BiasParameters,
-- CascadeParameters, FocusParameters, with Urho3D's defaults (Graphics/Light.h).  Nothing renders shadows;
-- the values are kept so a game (or a battery) can read back what it set.  Lights copy them in and out.
local setmetatable, type = setmetatable, type
local noverload = E.MATH.noverload

local BP, CP, FP = class("BiasParameters"), class("CascadeParameters"), class("FocusParameters")
local mtb, mtc, mtf = BP.mt, CP.mt, FP.mt

local function newb(c, s, n)
  return setmetatable({constantBias = c * 1.0, slopeScaledBias = s * 1.0, normalOffset = n * 1.0}, mtb)
end
-- CascadeParameters' split distances are not readable from Lua (Urho3D binds only fadeStart and
-- biasAutoAdjust), and nothing here uses them, so they are not kept.
local function newc(fade, adjust)
  return setmetatable({fadeStart = fade * 1.0, biasAutoAdjust = adjust * 1.0}, mtc)
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
  return newc(fade, adjust or 1.0)
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

local comp_rec = E.comp_rec
local L = class("Light").methods
local base_factory = E.COMPONENT_FACTORIES.Light
E.COMPONENT_FACTORIES.Light = function(c)
  base_factory(c)
  c.ShadowBias = newb(DEFAULT_CONSTANTBIAS, DEFAULT_SLOPESCALEDBIAS, 0.0)
  c.ShadowCascade = newc(DEFAULT_SHADOWFADESTART, DEFAULT_BIASAUTOADJUST)
  c.ShadowFocus = newf(true, true, true, DEFAULT_SHADOWQUANTIZE, DEFAULT_SHADOWMINVIEW)
end
local function copyb(b) return newb(b.constantBias, b.slopeScaledBias, b.normalOffset) end
local function copyc(p) return newc(p.fadeStart, p.biasAutoAdjust) end
local function copyf(p) return newf(p.focus, p.nonUniform, p.autoSize, p.quantize, p.minView) end
L.SetShadowBias = function(self, b) comp_rec(self).ShadowBias = copyb(b) end
L.GetShadowBias = function(self) return copyb(comp_rec(self).ShadowBias) end
L.SetShadowCascade = function(self, p) comp_rec(self).ShadowCascade = copyc(p) end
L.GetShadowCascade = function(self) return copyc(comp_rec(self).ShadowCascade) end
L.SetShadowFocus = function(self, p) comp_rec(self).ShadowFocus = copyf(p) end
L.GetShadowFocus = function(self) return copyf(comp_rec(self).ShadowFocus) end
