-- Urho2D tile maps as state and queries (Urho2D/TmxFile2D.cpp, TileMap2D.cpp, TileMapLayer2D.cpp, TileMapDefs2D.cpp;
-- docs/urho2d.md): a TmxFile2D read from a Tiled map (.tmx), the TileMap2D component that shows it, one
-- TileMapLayer2D per layer, and the Tile2D, TileMapObject2D and TileMapInfo2D values games read.
--
-- Reading a map (TmxFile2D::EndLoad): the root <map> must have a version starting "1." and an orthogonal, isometric,
-- staggered or hexagonal orientation; tile sizes become world units (times PIXEL_SIZE).  The map's children are read
-- in file order: tile sets (inline, or an external .tsx beside the map; one image cut into tiles from the margin by
-- spacing, or a collection of images packed into one atlas as Urho2D packs them), tile layers (XML, CSV or base64
-- data, no compression), object groups and image layers.  Tiled's y-down pixel positions become Urho2D's y-up world
-- positions with the map height flipping them (TileMapInfo2D::ConvertPosition).  Anything Urho2D refuses makes the
-- load fail with Urho2D's message, and GetResource returns nil.
--
-- Showing it (TileMap2D::SetTmxFile): a temporary local child "_root_" of the map's node holds one temporary child
-- per layer (named as the layer) with its TileMapLayer2D, draw order 10 x its index; a tile layer makes a temporary
-- child "Tile" per non-empty cell at TileIndexToPosition, with a StaticSprite2D (the tile's sprite and flips, the
-- layer's draw order as its layer, y * width + x as its order in layer); an object group a child "Object" per
-- object (with a StaticSprite2D for tile objects); an image layer one "Tile" at the map's top left.  Arithmetic is
-- single precision where Urho2D's is.  Nothing is drawn.
local ipairs, type, tostring, setmetatable = ipairs, type, tostring, setmetatable
local sformat, smatch, ssub, sgsub, sbyte = string.format, string.match, string.sub, string.gsub, string.byte
local mtointeger, mfmod = math.tointeger, math.fmod
local REC, typed_comp_rec = E.REC, E.typed_comp_rec
local FACTORIES = E.COMPONENT_FACTORIES
local f32 = E.MATH.f32
local T = E.urho_text
local children, child = E.xml_children, E.xml_child
local V2, V3 = E.Vector2_new, E.Vector3_new
local NM = E.IMPL.Node.methods

local PIXEL_SIZE = f32(0.01)
local O_ORTHOGONAL, O_ISOMETRIC, O_STAGGERED, O_HEXAGONAL = 0, 1, 2, 3
local ORIENTATIONS = {orthogonal = O_ORTHOGONAL, isometric = O_ISOMETRIC, staggered = O_STAGGERED,
  hexagonal = O_HEXAGONAL}
local LT_TILE_LAYER, LT_OBJECT_GROUP, LT_IMAGE_LAYER, LT_INVALID = 0, 1, 2, 0xffff
local OT_RECTANGLE, OT_ELLIPSE, OT_POLYGON, OT_POLYLINE, OT_TILE = 0, 1, 2, 3, 4
local FLIP_HORIZONTAL, FLIP_VERTICAL, FLIP_DIAGONAL, FLIP_ALL = 0x80000000, 0x40000000, 0x20000000, 0xF0000000
local LOCAL = 1
local INT_MIN, INT_MAX = -2147483648, 2147483647

-- XMLElement's typed reads of an attribute (a missing one reads as Urho3D's default)
local function attr(node, name) return node.attrs[name] end
local function aint(node, name) return T.int(attr(node, name) or "") end
local function auint(node, name) return T.uint(attr(node, name) or "") end
local function afloat(node, name) return f32(T.float(attr(node, name) or "")) end
local function astring(node, name) return attr(node, name) or "" end
local function parent_path(name) return smatch(name, "^(.*/)") or "" end
-- C's (int) cast of a float: towards zero (clamped where C's is undefined)
local function to_int(v)
  if v ~= v then return 0 end
  if v >= INT_MAX then return INT_MAX elseif v <= INT_MIN then return INT_MIN end
  return mtointeger(v >= 0 and math.floor(v) or -math.floor(-v))
end

----------------------------------------------------------------------------------------------------
-- TileMapInfo2D: the map's orientation, size in tiles and tile size in world units (a value, as tolua copies it)
----------------------------------------------------------------------------------------------------
local INFO = class("TileMapInfo2D")
local function new_info(o, w, h, tw, th)
  return setmetatable({orientation = o, width = w, height = h, tileWidth = tw, tileHeight = th}, INFO.mt)
end
local function copy_info(i) return new_info(i.orientation, i.width, i.height, i.tileWidth, i.tileHeight) end
local function map_width(i) return f32(i.width * i.tileWidth) end
local function map_height(i)
  if i.orientation == O_STAGGERED then return f32(f32((i.height + 1) * 0.5) * i.tileHeight) end
  if i.orientation == O_HEXAGONAL then
    return f32(f32(i.height * 0.5) * f32(i.tileHeight + f32(i.tileHeight * 0.5)))
  end
  return f32(i.height * i.tileHeight)
end
INFO.methods.GetMapWidth = function(self) return map_width(self) end
INFO.methods.GetMapHeight = function(self) return map_height(self) end

-- Tiled's pixel position (y down from the map's top) to Urho2D's world position
local function convert_position(i, px, py)
  if i.orientation == O_ISOMETRIC then
    local ix, iy = f32(f32(px * PIXEL_SIZE) / i.tileHeight), f32(f32(py * PIXEL_SIZE) / i.tileHeight)
    return f32(f32(f32(f32(i.width + ix) - iy) * i.tileWidth) * 0.5),
      f32(f32(f32(f32(f32(i.height * 2.0) - ix) - iy) * i.tileHeight) * 0.5)
  end
  return f32(px * PIXEL_SIZE), f32(map_height(i) - f32(py * PIXEL_SIZE))
end

local function tile_index_to_position(i, x, y)
  local tw, th = i.tileWidth, i.tileHeight
  local o = i.orientation
  if o == O_ISOMETRIC then
    return f32(f32((i.width + x - y - 1) * tw) * 0.5), f32(f32((i.height * 2 - x - y - 2) * th) * 0.5)
  elseif o == O_STAGGERED or o == O_HEXAGONAL then
    local k = o == O_STAGGERED and 0.5 or 0.75
    local py = f32(f32((i.height - 1 - y) * k) * th)
    if mfmod(y, 2) == 0 then return f32(x * tw), py end
    return f32(f32(x + 0.5) * tw), py
  end
  return f32(x * tw), f32((i.height - 1 - y) * th)
end

-- (x, y) of the tile under a world position, and whether it is inside the map
local function position_to_tile_index(i, px, py)
  px, py = f32(px), f32(py)
  local tw, th = i.tileWidth, i.tileHeight
  local o = i.orientation
  local x, y
  if o == O_ISOMETRIC then
    local ox = f32(f32(px / tw) - f32(i.height * 0.5))
    local oy = f32(py / th)
    x = to_int(f32(f32(i.width - oy) + ox))
    y = to_int(f32(f32(i.height - oy) - ox))
  elseif o == O_STAGGERED then
    y = to_int(f32((i.height - 1) - f32(f32(py * 2.0) / th)))
    if mfmod(y, 2) == 0 then x = to_int(f32(px / tw)) else x = to_int(f32(f32(px / tw) - 0.5)) end
  elseif o == O_HEXAGONAL then
    y = to_int(f32((i.height - 1) - f32(f32(py / 0.75) / th)))
    if mfmod(y, 2) == 0 then x = to_int(f32(px / tw)) else x = to_int(f32(f32(px / tw) - 0.75)) end
  else
    x = to_int(f32(px / tw))
    y = i.height - 1 - to_int(f32(py / th))
  end
  return x >= 0 and x < i.width and y >= 0 and y < i.height, x, y
end

----------------------------------------------------------------------------------------------------
-- PropertySet2D, Tile2D, TileMapObject2D
----------------------------------------------------------------------------------------------------
local function load_properties(node)   -- <properties><property name value/>...: a later name replaces an earlier
  local values = {}
  for _, p in ipairs(children(node, "property")) do values[astring(p, "name")] = astring(p, "value") end
  return values
end
local function props_of(r)
  if r == nil or r.kind ~= "tilemap" then E.raise_at_game("invalid 'self' in a tile map object's method") end
  return r.props
end
local function has_property(self, name) local p = props_of(REC[self]); return p ~= nil and p[tostring(name)] ~= nil end
local function get_property(self, name) local p = props_of(REC[self]); return p and p[tostring(name)] or "" end
local PS = class("PropertySet2D")
PS.methods.HasProperty, PS.methods.GetProperty = has_property, get_property

local TILE = class("Tile2D")
local TM = TILE.methods
local function tile_rec(self)
  local r = REC[self]
  if r == nil or r.what ~= "tile" then E.raise_at_game("invalid 'self' (a Tile2D was expected)") end
  return r
end
TM.GetGid = function(self) return tile_rec(self).gid & ~FLIP_ALL end
TM.GetFlipX = function(self) return tile_rec(self).gid & FLIP_HORIZONTAL ~= 0 end
TM.GetFlipY = function(self) return tile_rec(self).gid & FLIP_VERTICAL ~= 0 end
TM.GetSwapXY = function(self) return tile_rec(self).gid & FLIP_DIAGONAL ~= 0 end
TM.GetSprite = function(self) return tile_rec(self).sprite end
TM.HasProperty, TM.GetProperty = has_property, get_property

local OBJ = class("TileMapObject2D")
local OM = OBJ.methods
local function obj_rec(self)
  local r = REC[self]
  if r == nil or r.what ~= "object" then E.raise_at_game("invalid 'self' (a TileMapObject2D was expected)") end
  return r
end
OM.GetObjectType = function(self) return obj_rec(self).object_type end
OM.GetName = function(self) return obj_rec(self).name end
OM.GetType = function(self) return obj_rec(self).type end
OM.GetPosition = function(self) local p = obj_rec(self).position; return V2(p[1], p[2]) end
OM.GetSize = function(self) local s = obj_rec(self).size; return V2(s[1], s[2]) end
OM.GetNumPoints = function(self) return #obj_rec(self).points end
OM.GetPoint = function(self, index)
  local p = obj_rec(self).points[(mtointeger(index) or -1) + 1]
  if p == nil then return V2(0.0, 0.0) end
  return V2(p[1], p[2])
end
OM.GetTileGid = function(self) return obj_rec(self).gid & ~FLIP_ALL end
OM.GetTileFlipX = function(self) return obj_rec(self).gid & FLIP_HORIZONTAL ~= 0 end
OM.GetTileFlipY = function(self) return obj_rec(self).gid & FLIP_VERTICAL ~= 0 end
OM.GetTileSwapXY = function(self) return obj_rec(self).gid & FLIP_DIAGONAL ~= 0 end
OM.GetTileSprite = function(self) return obj_rec(self).sprite end
OM.HasProperty, OM.GetProperty = has_property, get_property

----------------------------------------------------------------------------------------------------
-- Reading a .tmx file
----------------------------------------------------------------------------------------------------
-- A file the map names (a .tsx tile set): the game's, else Urho3D's stock content; nil when neither.
local function read_file(path)
  local f = E.find_game_file(path)
  if f then return E.fs_read(f) end
  return E.stock_content(path)
end
local function exists(path) return E.find_game_file(path) ~= nil or E.host.resources[path] ~= nil end

-- Urho3D's DecodeBase64: from the first base64 character up to the first other character or '='
local B64 = {}
do
  local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  for i = 1, #alphabet do B64[sbyte(alphabet, i)] = i - 1 end
end
local function decode_base64(s)
  local start = 1
  while start <= #s and B64[sbyte(s, start)] == nil do start = start + 1 end
  local out, quad, n = {}, {}, 0
  for pos = start, #s do
    local v = B64[sbyte(s, pos)]
    if v == nil then break end
    n = n + 1
    quad[n] = v
    if n == 4 then
      out[#out + 1] = (quad[1] << 2 | quad[2] >> 4) & 0xff
      out[#out + 1] = (quad[2] << 4 | quad[3] >> 2) & 0xff
      out[#out + 1] = (quad[3] << 6 | quad[4]) & 0xff
      n = 0
    end
  end
  if n > 0 then   -- a partial group, zero-filled, gives three bytes as Urho3D's does
    for j = n + 1, 4 do quad[j] = 0 end
    out[#out + 1] = (quad[1] << 2 | quad[2] >> 4) & 0xff
    out[#out + 1] = (quad[2] << 4 | quad[3] >> 2) & 0xff
    out[#out + 1] = (quad[3] << 6 | quad[4]) & 0xff
  end
  return out
end

-- AreaAllocator in its fast mode (Urho3D's Math/AreaAllocator), which packs a collection tile set's images
local function new_allocator(w, h, max_w, max_h)
  return {size = {w, h}, max = {max_w, max_h}, double_width = true, free = {{0, 0, w, h}}}
end
local function allocate(a, w, h)
  if w < 0 then w = 0 end
  if h < 0 then h = 0 end
  local best
  while true do
    local best_area = math.maxinteger
    best = nil
    for _, f in ipairs(a.free) do
      local fw, fh = f[3] - f[1], f[4] - f[2]
      if fw >= w and fh >= h and fw * fh < best_area then best, best_area = f, fw * fh end
    end
    if best then break end
    local first = a.free[1]
    if a.double_width and a.size[1] < a.max[1] then
      local old = a.size[1]
      a.size[1] = old << 1
      if #a.free == 1 and first[1] == 0 and first[2] == 0 and first[3] == old and first[4] == a.size[2] then
        first[3] = a.size[1]
      else
        a.free[#a.free + 1] = {old, 0, a.size[1], a.size[2]}
      end
    elseif not a.double_width and a.size[2] < a.max[2] then
      local old = a.size[2]
      a.size[2] = old << 1
      if #a.free == 1 and first[1] == 0 and first[2] == 0 and first[3] == a.size[1] and first[4] == old then
        first[4] = a.size[2]
      else
        a.free[#a.free + 1] = {0, old, a.size[1], a.size[2]}
      end
    else
      return nil
    end
    a.double_width = not a.double_width
  end
  local x, y = best[1], best[2]
  local right, bottom = x + w, y + h
  best[1] = right
  if best[4] - best[2] > 2 * h or h >= a.size[2] // 2 then
    a.free[#a.free + 1] = {x, bottom, best[3], best[4]}
    best[4] = bottom
  end
  return x, y
end

local function new_tile(gid, file)
  local id = gid & ~FLIP_ALL
  return E.new_object("Tile2D", {kind = "tilemap", what = "tile", gid = gid, sprite = file.sprites[id],
    props = file.tile_props[id]})
end

-- TmxFile2D::LoadTileSet; nil or an error message
local function load_tileset(file, element, name)
  local firstgid = auint(element, "firstgid")
  local ts = element
  local source = attr(element, "source")
  if source ~= nil then
    ts = file.tsx[source]
    if ts == nil then
      local path = parent_path(name) .. source
      local data = read_file(path)
      local root = data and E.xml_parse(data)
      if root == nil then return "Load TSX file failed " .. path end
      ts = root.name == "tileset" and root or nil
      if ts == nil then return "Load TSX file failed " .. path end
      file.tsx[source] = ts
    end
  end
  local tile_w, tile_h = aint(ts, "tilewidth"), aint(ts, "tileheight")
  local spacing, margin = aint(ts, "spacing"), aint(ts, "margin")
  local image = child(ts, "image")
  local single = image ~= nil
  if single then
    local path = parent_path(name) .. astring(image, "source")
    local texture = E.get_resource("Texture2D", path, true)
    if texture == nil then return "Could not load texture " .. path end
    local hx, hy = 0.0, 0.0
    local offset = child(ts, "tileoffset")
    if offset then
      hx, hy = f32(hx + f32(afloat(offset, "x") / tile_w)), f32(hy + f32(afloat(offset, "y") / tile_h))
    end
    local image_w, image_h = aint(image, "width"), aint(image, "height")
    if tile_w + spacing <= 0 or tile_h + spacing <= 0 then   -- Urho2D would cut the same tile forever
      return sformat("%s: tile set '%s' has tiles of no size", name, astring(ts, "name"))
    end
    local gid = firstgid
    local y = margin
    while y + tile_h <= image_h - margin do
      local x = margin
      while x + tile_w <= image_w - margin do
        file.sprites[gid] = E.new_sprite2d(texture, {x, y, x + tile_w, y + tile_h}, {hx, hy})
        file.sprite_order[#file.sprite_order + 1] = gid
        gid = gid + 1
        x = x + tile_w + spacing
      end
      y = y + tile_h + spacing
    end
  end
  local images = {}
  for _, tile in ipairs(children(ts, "tile")) do
    local gid = firstgid + auint(tile, "id")
    local img = not single and child(tile, "image") or nil
    if img then
      local path = parent_path(name) .. astring(img, "source")
      if not exists(path) then return "Could not load image " .. path end
      images[#images + 1] = {gid = gid, w = aint(img, "width"), h = aint(img, "height")}
    end
    -- a tile's collision shapes (<objectgroup>) are not reachable from Lua (GetTileCollisionShapes is not bound)
    local props = child(tile, "properties")
    if props then file.tile_props[gid] = load_properties(props) end
  end
  if not single then
    if #images == 0 then return name .. ": a tile set with neither an image nor tile images" end
    local alloc = new_allocator(128, 128, 2048, 2048)
    for _, info in ipairs(images) do
      info.x, info.y = allocate(alloc, info.w + 1, info.h + 1)
      if info.x == nil then return "Could not allocate area" end
    end
    local texture = E.make_resource("Texture2D", "", nil)
    REC[texture].width, REC[texture].height = alloc.size[1], alloc.size[2]
    for _, info in ipairs(images) do
      if file.sprites[info.gid] == nil then file.sprite_order[#file.sprite_order + 1] = info.gid end
      file.sprites[info.gid] = E.new_sprite2d(texture, {info.x, info.y, info.x + info.w, info.y + info.h}, {0.0, 0.0})
    end
  end
  return nil
end

local function load_layer_info(element, kind)
  local visible = true
  if attr(element, "visible") ~= nil then visible = aint(element, "visible") ~= 0 end
  return {kind = kind, name = astring(element, "name"), width = aint(element, "width"),
    height = aint(element, "height"), visible = visible, props = nil}
end

-- TmxTileLayer2D::Load; the layer, or nil and an error message
local function load_tile_layer(file, element)
  local layer = load_layer_info(element, LT_TILE_LAYER)
  local data = child(element, "data")
  if data == nil then return nil, "Could not find data in layer" end
  if attr(data, "compression") ~= nil then return nil, "Compression not supported now" end
  local encoding = attr(data, "encoding") or "xml"
  local w, h = layer.width, layer.height
  local cells = {}   -- index y * w + x + 1 -> Tile2D (or false)
  local function put(index, gid)
    if gid > 0 then cells[index] = new_tile(gid, file) else cells[index] = false end
  end
  if encoding == "xml" then
    local tiles = children(data, "tile")
    for index = 1, w * h do
      local t = tiles[index]
      if t == nil then return nil, "Could not read the tiles of layer " .. layer.name end
      put(index, auint(t, "gid"))
    end
  elseif encoding == "csv" then
    local text = data.texts and data.texts[1] or ""
    local values = {}
    for v in string.gmatch(text, "[^,]+") do values[#values + 1] = v end
    if #values < w * h then return nil, "Could not read the tiles of layer " .. layer.name end
    for index = 1, w * h do put(index, T.uint((sgsub(values[index], "\n", "")))) end
  elseif encoding == "base64" then
    local bytes = decode_base64(data.texts and data.texts[1] or "")
    if #bytes < 4 * w * h then return nil, "Could not read the tiles of layer " .. layer.name end
    for index = 1, w * h do
      local b = (index - 1) * 4
      put(index, bytes[b + 1] | bytes[b + 2] << 8 | bytes[b + 3] << 16 | bytes[b + 4] << 24)
    end
  else
    return nil, "Invalid encoding: " .. encoding
  end
  layer.cells = cells
  local props = child(element, "properties")
  if props then layer.props = load_properties(props) end
  return layer
end

-- TmxObjectGroup2D::StoreObject
local function load_object(file, element)
  local o = {kind = "tilemap", what = "object", name = astring(element, "name"), type = astring(element, "type"),
    position = {0.0, 0.0}, size = {0.0, 0.0}, points = {}, gid = 0, sprite = nil, props = nil}
  if attr(element, "gid") ~= nil then o.object_type = OT_TILE
  elseif child(element, "polygon") then o.object_type = OT_POLYGON
  elseif child(element, "polyline") then o.object_type = OT_POLYLINE
  elseif child(element, "ellipse") then o.object_type = OT_ELLIPSE
  else o.object_type = OT_RECTANGLE end
  local info = file.info
  local x, y = afloat(element, "x"), afloat(element, "y")
  local w, h = afloat(element, "width"), afloat(element, "height")
  local t = o.object_type
  if t == OT_RECTANGLE or t == OT_ELLIPSE then
    o.position = {convert_position(info, x, f32(y + h))}
    o.size = {f32(w * PIXEL_SIZE), f32(h * PIXEL_SIZE)}
  elseif t == OT_TILE then
    o.position = {convert_position(info, x, y)}
    o.gid = auint(element, "gid")
    o.sprite = file.sprites[o.gid & ~FLIP_ALL]
    if attr(element, "width") ~= nil or attr(element, "height") ~= nil then
      o.size = {f32(w * PIXEL_SIZE), f32(h * PIXEL_SIZE)}
    elseif o.sprite then   -- the sprite's size in pixels, as Urho2D takes it
      local q = REC[o.sprite].rect
      o.size = {(q[3] - q[1]) * 1.0, (q[4] - q[2]) * 1.0}
    end
  else
    local list = {}
    for p in string.gmatch(astring(child(element, t == OT_POLYGON and "polygon" or "polyline"), "points"), "[^ ]+") do
      list[#list + 1] = p
    end
    if #list <= 1 then   -- Urho2D stops here: no points, and the object's properties are not read
      return E.new_object("TileMapObject2D", o)
    end
    for i, p in ipairs(list) do
      local v = T.vector2((sgsub(p, ",", " ")))
      o.points[i] = {convert_position(info, f32(x + f32(v.x)), f32(y + f32(v.y)))}
    end
  end
  local props = child(element, "properties")
  if props then o.props = load_properties(props) end
  return E.new_object("TileMapObject2D", o)
end

local function load_object_group(file, element)
  local layer = load_layer_info(element, LT_OBJECT_GROUP)
  layer.objects = {}
  for _, o in ipairs(children(element, "object")) do layer.objects[#layer.objects + 1] = load_object(file, o) end
  local props = child(element, "properties")
  if props then layer.props = load_properties(props) end
  return layer
end

-- TmxImageLayer2D::Load
local function load_image_layer(file, element, name)
  local layer = load_layer_info(element, LT_IMAGE_LAYER)
  local image = child(element, "image")
  if image == nil then return nil, nil end   -- Urho2D fails the file without a message
  layer.position = {0.0, map_height(file.info)}
  layer.source = astring(image, "source")
  local path = parent_path(name) .. layer.source
  local texture = E.get_resource("Texture2D", path, true)
  if texture == nil then return nil, "Could not load texture " .. path end
  local t = REC[texture]
  layer.sprite = E.new_sprite2d(texture, {0, 0, t.width or 0, t.height or 0}, {0.0, 1.0})
  local props = child(element, "properties")
  if props then layer.props = load_properties(props) end
  return layer
end

local TMX = class("TmxFile2D")
E.resource_init("TmxFile2D", function(r)
  r.info = {orientation = O_ORTHOGONAL, width = 0, height = 0, tileWidth = 0.0, tileHeight = 0.0}
  r.layers, r.sprites, r.sprite_order, r.tile_props, r.tsx = {}, {}, {}, {}, {}
  r.edge_offset = 0.0
end)
E.resource_loader("TmxFile2D", function(r, data, name)
  local root, err = E.xml_parse(data)
  if root == nil then return false, "Load XML failed " .. name .. ": " .. err end
  if root.name ~= "map" then return false, "Invalid tmx file " .. name end
  local version = astring(root, "version")
  if ssub(version, 1, 2) ~= "1." then return false, "Invalid TMX version: " .. version end
  local orientation = ORIENTATIONS[astring(root, "orientation")]
  if orientation == nil then return false, "Unsupported orientation type " .. astring(root, "orientation") end
  r.info = {orientation = orientation, width = aint(root, "width"), height = aint(root, "height"),
    tileWidth = f32(afloat(root, "tilewidth") * PIXEL_SIZE), tileHeight = f32(afloat(root, "tileheight") * PIXEL_SIZE)}
  for _, element in ipairs(root.children) do
    local kind = element.name
    local layer, why
    if kind == "tileset" then
      why = load_tileset(r, element, name)
      if why then return false, why end
    elseif kind == "layer" or kind == "objectgroup" or kind == "imagelayer" then
      if kind == "layer" then layer, why = load_tile_layer(r, element)
      elseif kind == "objectgroup" then layer = load_object_group(r, element)
      else layer, why = load_image_layer(r, element, name) end
      if layer == nil then return false, why and (why .. " (" .. name .. ")") end
      r.layers[#r.layers + 1] = layer
    end
  end
  r.tsx = {}
  return true
end)
local function tmx_rec(self)
  local r = REC[self]
  if r == nil or r.type_name ~= "TmxFile2D" then E.raise_at_game("invalid 'self' (a TmxFile2D was expected)") end
  return r
end
TMX.methods.SetSpriteTextureEdgeOffset = function(self, offset)
  if type(offset) ~= "number" then
    E.raise_at_game("bad argument #1 to 'SetSpriteTextureEdgeOffset' (number expected)")
  end
  local r = tmx_rec(self)
  r.edge_offset = f32(offset)
  for _, gid in ipairs(r.sprite_order) do E.sprite2d_set_edge_offset(r.sprites[gid], r.edge_offset) end
end
TMX.methods.GetSpriteTextureEdgeOffset = function(self) return tmx_rec(self).edge_offset end

----------------------------------------------------------------------------------------------------
-- TileMapLayer2D
----------------------------------------------------------------------------------------------------
local LAYER = class("TileMapLayer2D")
local LM = LAYER.methods
FACTORIES.TileMapLayer2D = function(c)
  c.tile_map, c.layer, c.draw_order, c.visible, c.nodes = nil, nil, 0, true, {}
end
local function lrec(self) return typed_comp_rec(self, "TileMapLayer2D") end
local function live(n) return n and not n.removed and n or nil end

local function sprite_of(n)
  for _, x in ipairs(n.components) do
    if x.type_name == "StaticSprite2D" and not x.removed then return x end
  end
  return nil
end
local function add_sprite(n, sprite, gid, draw_order, order)
  local s = REC[E.create_component(n, "StaticSprite2D", 0)]
  s.Sprite = sprite
  s.FlipX, s.FlipY, s.SwapXY = gid & FLIP_HORIZONTAL ~= 0, gid & FLIP_VERTICAL ~= 0, gid & FLIP_DIAGONAL ~= 0
  s.Layer, s.OrderInLayer = draw_order, order
  return s
end
local function child_node(c, name, x, y)
  local n = REC[NM.CreateTemporaryChild(c.node.proxy, name)]
  NM.SetPosition(n.proxy, V3(x, y, 0.0))
  return n
end

local function set_draw_order(c, order)
  if order == c.draw_order then return end
  c.draw_order = order
  for _, n in ipairs(c.nodes) do
    local s = live(n) and sprite_of(n)
    if s then s.Layer = order end
  end
end
local function set_visible(c, visible)
  if visible == c.visible then return end
  c.visible = visible
  for _, n in ipairs(c.nodes) do
    if live(n) then NM.SetEnabled(n.proxy, visible) end
  end
end

-- TileMapLayer2D::Initialize with a layer of the map's file
local function init_layer(c, map, layer)
  c.tile_map, c.layer = map, layer
  local info = map.info
  if layer.kind == LT_TILE_LAYER then
    local w = layer.width
    for y = 0, layer.height - 1 do
      for x = 0, w - 1 do
        local index = y * w + x + 1
        local tile = layer.cells[index]
        if tile then
          local t = REC[tile]
          local n = child_node(c, "Tile", tile_index_to_position(info, x, y))
          add_sprite(n, t.sprite, t.gid, c.draw_order, y * w + x)
          c.nodes[index] = n
        else
          c.nodes[index] = false
        end
      end
    end
  elseif layer.kind == LT_OBJECT_GROUP then
    for i, object in ipairs(layer.objects) do
      local o = REC[object]
      local n = child_node(c, "Object", o.position[1], o.position[2])
      if o.object_type == OT_TILE and o.gid & ~FLIP_ALL ~= 0 and o.sprite then
        local s = add_sprite(n, o.sprite, o.gid, c.draw_order, to_int(f32(f32(10.0 - o.position[2]) * 100)))
        if info.orientation == O_ISOMETRIC then s.UseHotSpot, s.HotSpot = true, V2(0.5, 0.0) end
      end
      c.nodes[i] = n
    end
  elseif layer.kind == LT_IMAGE_LAYER and layer.sprite then
    local n = child_node(c, "Tile", layer.position[1], layer.position[2])
    add_sprite(n, layer.sprite, 0, c.draw_order, 0)
    c.nodes[1] = n
  end
  set_visible(c, layer.visible)
end

LM.SetDrawOrder = function(self, order)
  if type(order) ~= "number" then E.raise_at_game("bad argument #1 to 'SetDrawOrder' (number expected)") end
  set_draw_order(lrec(self), mtointeger(order) or to_int(order))
end
LM.GetDrawOrder = function(self) return lrec(self).draw_order end
LM.SetVisible = function(self, visible) set_visible(lrec(self), visible and true or false) end
LM.IsVisible = function(self) return lrec(self).visible end
LM.HasProperty = function(self, name)
  local l = lrec(self).layer
  return l ~= nil and l.props ~= nil and l.props[tostring(name)] ~= nil
end
LM.GetProperty = function(self, name)
  local l = lrec(self).layer
  return l and l.props and l.props[tostring(name)] or ""
end
LM.GetLayerType = function(self) local l = lrec(self).layer; return l and l.kind or LT_INVALID end
LM.GetWidth = function(self) local l = lrec(self).layer; return l and l.width or 0 end
LM.GetHeight = function(self) local l = lrec(self).layer; return l and l.height or 0 end
local function cell_index(c, x, y)
  local l = c.layer
  if l == nil or l.kind ~= LT_TILE_LAYER then return nil end
  x, y = mtointeger(x), mtointeger(y)
  if x == nil or y == nil or x < 0 or x >= l.width or y < 0 or y >= l.height then return nil end
  return y * l.width + x + 1
end
LM.GetTile = function(self, x, y)
  local c = lrec(self)
  local i = cell_index(c, x, y)
  return i and c.layer.cells[i] or nil
end
LM.GetTileNode = function(self, x, y)
  local c = lrec(self)
  local i = cell_index(c, x, y)
  local n = i and live(c.nodes[i])
  return n and n.proxy or nil
end
LM.GetNumObjects = function(self)
  local l = lrec(self).layer
  return l and l.kind == LT_OBJECT_GROUP and #l.objects or 0
end
LM.GetObject = function(self, index)
  local l = lrec(self).layer
  if l == nil or l.kind ~= LT_OBJECT_GROUP then return nil end
  return l.objects[(mtointeger(index) or -1) + 1]
end
LM.GetObjectNode = function(self, index)
  local c = lrec(self)
  if c.layer == nil or c.layer.kind ~= LT_OBJECT_GROUP then return nil end
  local n = live(c.nodes[(mtointeger(index) or -1) + 1])
  return n and n.proxy or nil
end
LM.GetImageNode = function(self)
  local c = lrec(self)
  if c.layer == nil or c.layer.kind ~= LT_IMAGE_LAYER then return nil end
  local n = live(c.nodes[1])
  return n and n.proxy or nil
end

----------------------------------------------------------------------------------------------------
-- TileMap2D
----------------------------------------------------------------------------------------------------
local MAP = class("TileMap2D")
local MM = MAP.methods
FACTORIES.TileMap2D = function(c)
  c.tmx, c.root, c.layers = nil, nil, {}
  c.info = {orientation = O_ORTHOGONAL, width = 0, height = 0, tileWidth = 0.0, tileHeight = 0.0}
end
local function mrec(self) return typed_comp_rec(self, "TileMap2D") end

local function set_tmx_file(c, tmx)
  if tmx == c.tmx then return end
  local root = live(c.root)
  if root then NM.RemoveAllChildren(root.proxy) end
  c.layers = {}
  c.tmx = tmx
  if tmx == nil then return end
  local file = REC[tmx]
  c.info = file.info
  if root == nil then
    root = REC[NM.CreateTemporaryChild(c.node.proxy, "_root_", LOCAL)]
    c.root = root
  end
  for i, layer in ipairs(file.layers) do
    local n = REC[NM.CreateTemporaryChild(root.proxy, layer.name, LOCAL)]
    local l = REC[E.create_component(n, "TileMapLayer2D", LOCAL)]
    init_layer(l, c, layer)
    set_draw_order(l, (i - 1) * 10)
    c.layers[i] = l
  end
end
E.tilemap_set_tmx_file = set_tmx_file

MM.SetTmxFile = function(self, tmx)
  if tmx ~= nil and not E.is(tmx, "TmxFile2D") then
    E.raise_at_game("bad argument #1 to 'SetTmxFile' (TmxFile2D expected)")
  end
  set_tmx_file(mrec(self), tmx)
end
MM.GetTmxFile = function(self) return mrec(self).tmx end
MM.GetInfo = function(self) return copy_info(mrec(self).info) end
MM.GetNumLayers = function(self) return #mrec(self).layers end
MM.GetLayer = function(self, index)
  local l = mrec(self).layers[(mtointeger(index) or -1) + 1]
  return l and not l.removed and l.proxy or nil
end
MM.TileIndexToPosition = function(self, x, y)
  if type(x) ~= "number" or type(y) ~= "number" then
    E.raise_at_game("bad argument to 'TileIndexToPosition' (two integers expected)")
  end
  return V2(tile_index_to_position(mrec(self).info, to_int(x), to_int(y)))
end
-- tolua's binding: PositionToTileIndex(position[, x, y]) returns whether the position is on the map, then x and y
MM.PositionToTileIndex = function(self, position)
  if type(position) ~= "table" or type(position.x) ~= "number" or type(position.y) ~= "number" then
    E.raise_at_game("bad argument #1 to 'PositionToTileIndex' (Vector2 expected)")
  end
  return position_to_tile_index(mrec(self).info, position.x, position.y)
end

----------------------------------------------------------------------------------------------------
-- For tests and batteries: Urho2D's conversions on an info table
----------------------------------------------------------------------------------------------------
E.tilemap_math = {convert_position = convert_position, tile_index_to_position = tile_index_to_position,
  position_to_tile_index = position_to_tile_index, map_width = map_width, map_height = map_height}
