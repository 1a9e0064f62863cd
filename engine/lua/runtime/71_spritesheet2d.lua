-- SpriteSheet2D (Urho2D/SpriteSheet2D.cpp): a texture and named sprites on it.  Loaded from a TextureAtlas XML file
-- or its JSON form (the texture at imagePath beside the sheet; a sprite per SubTexture: x, y, width, height, and
-- with frameWidth and frameHeight its offset frameX/frameY and the hot spot they put at the frame's centre); a
-- .plist sheet is refused.  DefineSprite adds a sprite (none without a texture, none over an existing name).
local REC = E.REC
local f32 = E.MATH.f32
local SHEET = class("SpriteSheet2D")
local SH = SHEET.methods
local function sheet_rec(self)
  local r = REC[self]
  if r == nil or r.type_name ~= "SpriteSheet2D" then E.raise_at_game("invalid 'self' (a SpriteSheet2D was expected)") end
  return r
end
E.resource_init("SpriteSheet2D", function(r, proxy)
  r.proxy, r.texture, r.sprites = proxy, nil, {}
end)

local function define(r, name, left, top, right, bottom, hx, hy, ox, oy)
  if r.texture == nil or r.sprites[name] ~= nil then return end
  local sprite = E.new_sprite2d(r.texture, {left, top, right, bottom}, {f32(hx), f32(hy)})
  local s = REC[sprite]
  s.name, s.offset, s.sheet = name, {ox, oy}, r.proxy
  r.sprites[name] = sprite
end
-- The hot spot a trimmed frame gives: the frame's centre, relative to the sprite's rectangle (y up).
local function frame_hot_spot(ox, oy, fw, fh, w, h)
  return f32(f32(ox + f32(fw / 2.0)) / w), f32(1.0 - f32(f32(oy + f32(fh / 2.0)) / h))
end
local function parent_path(name) return name:match("^(.*/)") or "" end

local function load_texture(r, name, image_path)
  local tex_name = parent_path(name) .. image_path
  r.texture = E.get_resource("Texture2D", tex_name)
  if r.texture == nil then return false, "Could not load texture " .. tex_name end
  return true
end

local function load_xml(r, data, name)
  local root = E.xml_parse(data)
  if root == nil then return false, "Could not load sprite sheet" end
  if root.name ~= "TextureAtlas" then return false, "Invalid sprite sheet" end
  local ok, why = load_texture(r, name, root.attrs.imagePath or "")
  if not ok then return false, why end
  local int = FUNCTIONS.ToInt
  for _, el in ipairs(root.children) do
    if el.name == "SubTexture" then
      local a = el.attrs
      local x, y, w, h = int(a.x or ""), int(a.y or ""), int(a.width or ""), int(a.height or "")
      local hx, hy, ox, oy = 0.5, 0.5, 0, 0
      if a.frameWidth ~= nil and a.frameHeight ~= nil then
        ox, oy = int(a.frameX or ""), int(a.frameY or "")
        hx, hy = frame_hot_spot(ox, oy, int(a.frameWidth), int(a.frameHeight), w, h)
      end
      define(r, a.name or "", x, y, x + w, y + h, hx, hy, ox, oy)
    end
  end
  return true
end

local JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT = 2, E.JSON_STRING, 4, E.JSON_OBJECT
local function jget(node, key)
  if node == nil or node.t ~= JSON_OBJECT then return nil end
  return node.v.map[key]
end
local function jint(node)
  if node == nil or node.t ~= JSON_NUMBER then return 0 end
  local v = node.v
  return math.tointeger(v >= 0 and math.floor(v) or -math.floor(-v)) or 0
end
local function jstring(node) if node ~= nil and node.t == JSON_STRING then return node.v end; return "" end
local function load_json(r, data, name)
  local root = E.json_parse(data)
  if root == nil then return false, "Could not load sprite sheet" end
  if root.t == 0 then return false, "Invalid sprite sheet" end
  local ok, why = load_texture(r, name, jstring(jget(root, "imagePath")))
  if not ok then return false, why end
  local list = jget(root, "subtextures")
  for _, sub in ipairs(list ~= nil and list.t == JSON_ARRAY and list.v or {}) do
    local x, y, w, h = jint(jget(sub, "x")), jint(jget(sub, "y")), jint(jget(sub, "width")), jint(jget(sub, "height"))
    local hx, hy, ox, oy = 0.5, 0.5, 0, 0
    local fw, fh = jget(sub, "frameWidth"), jget(sub, "frameHeight")
    if fw ~= nil and fw.t ~= 0 and fh ~= nil and fh.t ~= 0 then
      ox, oy = jint(jget(sub, "frameX")), jint(jget(sub, "frameY"))
      hx, hy = frame_hot_spot(ox, oy, jint(fw), jint(fh), w, h)
    end
    define(r, jstring(jget(sub, "name")), x, y, x + w, y + h, hx, hy, ox, oy)
  end
  return true
end

E.resource_loader("SpriteSheet2D", function(r, data, name)
  r.sprites, r.texture = {}, nil
  local ext = string.lower(name:match("(%.[^%./]*)$") or "")
  if ext == ".xml" then return load_xml(r, data, name) end
  if ext == ".json" then return load_json(r, data, name) end
  if ext == ".plist" then
    E.record_missing("SpriteSheet2D (.plist sprite sheet " .. name .. ")")
    return false, ".plist sprite sheets are not supported by the grader engine: " .. name
  end
  return false, "Unsupported file type"
end)

-- SetTexture: the sheet's texture for sprites defined from now on (those already defined keep theirs).
SH.SetTexture = function(self, texture)
  if texture ~= nil and not E.is(texture, "Texture2D") then
    E.raise_at_game("bad argument #1 to 'SetTexture' (Texture2D expected)")
  end
  sheet_rec(self).texture = texture
end
SH.GetTexture = function(self) return sheet_rec(self).texture end
SH.GetSprite = function(self, name) return sheet_rec(self).sprites[E.tolua_string(name, "GetSprite", 1)] end
SH.DefineSprite = function(self, name, rect, hot_spot)
  local r = sheet_rec(self)
  name = E.tolua_string(name, "DefineSprite", 1)
  if type(rect) ~= "table" or type(rect.left) ~= "number" then
    E.raise_at_game("bad argument #2 to 'DefineSprite' (IntRect expected)")
  end
  local hx, hy = 0.5, 0.5
  if hot_spot ~= nil then
    if type(hot_spot) ~= "table" or type(hot_spot.x) ~= "number" then
      E.raise_at_game("bad argument #3 to 'DefineSprite' (Vector2 expected)")
    end
    hx, hy = hot_spot.x, hot_spot.y
  end
  local function i(v) return math.tointeger(v >= 0 and math.floor(v) or -math.floor(-v)) or 0 end
  define(r, name, i(rect.left), i(rect.top), i(rect.right), i(rect.bottom), hx, hy, 0, 0)
end
