-- Sprite2D as state (Urho2D/Sprite2D.cpp): a texture, a rectangle of it in pixels, a hot spot, an offset, the texture
-- edge offset and the sprite sheet it came from.  A sprite loaded by name (an image file: Urho2D/Box.png) has the
-- texture of that name and the whole of it as its rectangle (its size is known for Urho3D's stock images, else 0 x
-- 0, as the engine does not decode a game's images for sprites); sprites made by the engine (tile sets, Spriter
-- sets) are given their texture and rectangle there.  Nothing is drawn.
local type = type
local REC = E.REC
local M_LARGE_EPSILON = 0.00005

local S = class("Sprite2D")
local M = S.methods

local function defaults(r)
  r.texture, r.texture_by_name = nil, r.name ~= nil and r.name ~= ""
  r.rect = {0, 0, r.width or 0, r.height or 0}
  r.hot_spot = {0.5, 0.5}
  r.offset = {0, 0}
  r.edge_offset = E.MATH.f32(M_LARGE_EPSILON)
  r.sheet = nil
end
E.resource_init("Sprite2D", function(r) defaults(r) end)

local function srec(self)
  local r = REC[self]
  if r == nil or r.type_name ~= "Sprite2D" then E.raise_at_game("invalid 'self' (a Sprite2D was expected)") end
  return r
end

-- A sprite the engine makes: a texture, a rectangle {left, top, right, bottom} and a hot spot {x, y}.
function E.new_sprite2d(texture, rect, hot_spot)
  local proxy = E.make_resource("Sprite2D", "", nil)
  local r = REC[proxy]
  r.texture, r.texture_by_name = texture, false
  r.rect = {rect[1], rect[2], rect[3], rect[4]}
  r.hot_spot = {hot_spot[1], hot_spot[2]}
  return proxy
end
function E.sprite2d_set_edge_offset(proxy, offset) REC[proxy].edge_offset = offset end

M.SetTexture = function(self, texture)
  local r = srec(self)
  if texture ~= nil and not E.is(texture, "Texture2D") then
    E.raise_at_game("bad argument #1 to 'SetTexture' (Texture2D expected)")
  end
  r.texture, r.texture_by_name = texture, false
end
M.GetTexture = function(self)
  local r = srec(self)
  if r.texture_by_name then   -- the image of the sprite's own name, fetched when first asked for
    r.texture, r.texture_by_name = E.get_resource("Texture2D", r.name, true), false
  end
  return r.texture
end
M.SetRectangle = function(self, rect)
  if type(rect) ~= "table" or type(rect.left) ~= "number" then
    E.raise_at_game("bad argument #1 to 'SetRectangle' (IntRect expected)")
  end
  srec(self).rect = {math.tointeger(rect.left) or 0, math.tointeger(rect.top) or 0, math.tointeger(rect.right) or 0,
    math.tointeger(rect.bottom) or 0}
end
M.GetRectangle = function(self)
  local q = srec(self).rect
  return E.IntRect_new(q[1], q[2], q[3], q[4])
end
M.SetHotSpot = function(self, v)
  if type(v) ~= "table" or type(v.x) ~= "number" then
    E.raise_at_game("bad argument #1 to 'SetHotSpot' (Vector2 expected)")
  end
  srec(self).hot_spot = {E.MATH.f32(v.x), E.MATH.f32(v.y)}
end
M.GetHotSpot = function(self)
  local h = srec(self).hot_spot
  return E.Vector2_new(h[1], h[2])
end
M.SetOffset = function(self, v)
  if type(v) ~= "table" or type(v.x) ~= "number" then
    E.raise_at_game("bad argument #1 to 'SetOffset' (IntVector2 expected)")
  end
  srec(self).offset = {math.tointeger(v.x) or 0, math.tointeger(v.y) or 0}
end
M.GetOffset = function(self)
  local o = srec(self).offset
  return E.IntVector2_new(o[1], o[2])
end
M.SetTextureEdgeOffset = function(self, offset)
  if type(offset) ~= "number" then E.raise_at_game("bad argument #1 to 'SetTextureEdgeOffset' (number expected)") end
  srec(self).edge_offset = E.MATH.f32(offset)
end
M.GetTextureEdgeOffset = function(self) return srec(self).edge_offset end
M.SetSpriteSheet = function(self, sheet) srec(self).sheet = sheet end
M.GetSpriteSheet = function(self) return srec(self).sheet end
