-- Urho2D sprites kept as state: Drawable2D (layer, order in layer) and StaticSprite2D.  Nothing is drawn headless;
-- what a game sets reads back, as Urho3D's defaults.  Enough for Urho2D games whose sprites only ride on nodes (the
-- 2D physics samples), and StretchableSprite2D; AnimatedSprite2D is 65_spriter.lua, ParticleEmitter2D 65_particles2d.lua.
local comp_rec = E.comp_rec
local props = E.simple_properties
local drawable = E.drawable_factory
local FACTORIES = E.COMPONENT_FACTORIES

local BLEND_ALPHA = 3   -- BLEND_ALPHA, StaticSprite2D's default blend mode

local D2 = class("Drawable2D")
props(D2, {Layer = 0, OrderInLayer = 0})

local SS = class("StaticSprite2D")
local defaults = {Sprite = function() return nil end, BlendMode = BLEND_ALPHA, FlipX = false, FlipY = false,
  SwapXY = false, Color = function() return E.IMPL.Color.new(1, 1, 1, 1) end, UseHotSpot = false,
  HotSpot = function() return E.Vector2_new(0.5, 0.5) end, CustomMaterial = function() return nil end,
  DrawRect = function() return E.IMPL.Rect.new() end, UseDrawRect = false,
  TextureRect = function() return E.IMPL.Rect.new() end, UseTextureRect = false}
local base = drawable({})
FACTORIES.StaticSprite2D = props(SS, defaults, function(c)
  base(c)
  c.Layer, c.OrderInLayer = 0, 0
end)
local M = SS.methods
M.SetFlip = function(self, x, y, swap)
  local c = comp_rec(self)
  c.FlipX, c.FlipY = x and true or false, y and true or false
  if swap ~= nil then c.SwapXY = swap and true or false end
end
-- alpha is the color's
M.SetAlpha = function(self, a)
  local c = comp_rec(self)
  local col = c.Color
  c.Color = E.IMPL.Color.new(col.r, col.g, col.b, a)
end
M.GetAlpha = function(self) return comp_rec(self).Color.a end

-- StretchableSprite2D: a static sprite drawn as nine patches around a border (in pixels), kept as state.  Urho3D
-- warns about a border wider than the drawn rectangle only as a hint (it clamps when drawing); nothing is drawn
-- here, so the border is kept as given.
local STS = class("StretchableSprite2D")
FACTORIES.StretchableSprite2D = function(c)
  FACTORIES.StaticSprite2D(c)
  c.Border = E.IntRect_new(0, 0, 0, 0)
end
STS.methods.SetBorder = function(self, b) comp_rec(self).Border = E.IntRect_new(b.left, b.top, b.right, b.bottom) end
STS.methods.GetBorder = function(self)
  local b = comp_rec(self).Border
  return E.IntRect_new(b.left, b.top, b.right, b.bottom)
end
