-- Image: pixels in memory, as Urho3D's Image holds them (what a Terrain reads its heights from, 59_terrain.lua).
-- An image is made in code (Image() and SetSize, then SetPixel) or loaded: a game's PNG file is decoded on the
-- Python side (engine/_png.py, as Urho3D's stb_image gives it: the file's own channel count), a stock image's pixels
-- are known for the stock images engine/_stock_data.py holds (Textures/HeightMap.png); any other stock image is known
-- by its size only, and reading its pixels is missing API, by name.  Other formats a game ships (JPEG, DDS, ...) are
-- not decoded: their pixels are missing API too.
--
-- Pixels are kept a row at a time (row k = z * height + y, from the top): a string of width * components bytes until
-- the game writes to that row, then a table of one integer a pixel (its bytes, the first in the lowest 8 bits), so
-- SetPixel costs the same whatever the image's width.
local error, type, setmetatable, ipairs, tostring = error, type, setmetatable, ipairs, tostring
local sformat, sbyte, schar, srep, ssub, spack = string.format, string.byte, string.char, string.rep, string.sub,
  string.pack
local mfloor, mmin, mmax = math.floor, math.min, math.max
local REC = E.REC
local CF_NONE = 0

local Image = class("Image")
local IM = Image.methods
local function irec(self)
  local r = REC[self]
  if r == nil or r.type_name ~= "Image" then error("invalid 'self' (an Image was expected)", 3) end
  return r
end

local function set_pixels(r, width, height, depth, comps, data)
  r.width, r.height, r.depth, r.comps = width, height, depth, comps
  r.rows, r.pixels_known = {}, true
  local n = width * comps
  for k = 1, height * depth do
    r.rows[k] = data and ssub(data, (k - 1) * n + 1, k * n) or srep("\0", n)
  end
  r.size = width * height * depth * comps
end

local function is_png(data) return ssub(data, 1, 8) == "\137PNG\r\n\26\n" end
local STOCK_PIXELS = {}
for _, name in ipairs(E.host.stock_images or {}) do STOCK_PIXELS[name] = true end
E.resource_init("Image", function(r, _, meta)
  r.width, r.height, r.depth, r.comps = r.width or 0, r.height or 0, 1, 0
  r.rows, r.pixels_known = {}, r.name == ""   -- Image() starts with no pixels (and may be given some)
  if meta ~= nil and not meta.from_game then
    if STOCK_PIXELS[r.name] then   -- a stock image whose pixels engine/_stock_data.py holds
      local w, h, c, pixels = E.host_call(E.host.stock_image, r.name)
      set_pixels(r, w, h, 1, c, pixels)
    else
      r.why_unknown = "its pixels are not loaded headless"
    end
  end
end)
-- A game's image file: a PNG file is decoded on the Python side, one that does not decode is no resource (Urho3D logs
-- why); any other format loads without pixels.
E.resource_loader("Image", function(r, data, name)
  if not is_png(data) then
    r.why_unknown = "only PNG files are decoded headless"
    return true
  end
  local w, h, c, pixels = E.host_call(E.host.image, E.hex(data))
  if w == nil then return false, sformat("Could not load image %s: %s", tostring(name), tostring(h)) end
  set_pixels(r, w, h, 1, c, pixels)
  r.why_unknown = nil
  return true
end)
Image.new = function() return E.make_resource("Image", "", nil) end

-- The record when its pixels are known; reading the pixels of an image whose pixels are not is missing API.
local function known(self, what)
  local r = irec(self)
  if not r.pixels_known then
    return E.missing(sformat("Image:%s (image %s: %s)", what, tostring(r.name), r.why_unknown or "no pixels"))
  end
  return r
end
E.image_known = function(r) return r.pixels_known end
E.image_unknown_why = function(r) return r.why_unknown or "no pixels" end

local function int(v, what, i)
  if type(v) ~= "number" then
    E.raise_at_game(sformat("bad argument #%d to '%s' (number expected, got %s)", i, what, type(v)))
  end
  return mfloor(v)
end

IM.SetSize = function(self, width, height, a, b)
  local r = irec(self)
  local depth, comps = 1, a
  if b ~= nil then depth, comps = a, b end
  width, height = int(width, "SetSize", 1), int(height, "SetSize", 2)
  depth, comps = int(depth, "SetSize", 3), int(comps, "SetSize", b ~= nil and 4 or 3)
  if r.pixels_known and width == r.width and height == r.height and depth == r.depth and comps == r.comps then
    return true
  end
  if width <= 0 or height <= 0 or depth <= 0 then return false end
  if comps > 4 or comps < 1 then
    E.log("ERROR", "More than 4 color components are not supported")
    return false
  end
  r.why_unknown = nil
  set_pixels(r, width, height, depth, comps, nil)   -- Urho3D leaves the bytes undefined; here they are zero
  return true
end
IM.GetWidth = function(self) return irec(self).width or 0 end
IM.GetHeight = function(self) return irec(self).height or 0 end
IM.GetDepth = function(self) return known(self, "GetDepth").depth end
IM.GetComponents = function(self) return known(self, "GetComponents").comps end
IM.IsCompressed = function() return false end
IM.GetCompressedFormat = function() return CF_NONE end
IM.GetNumCompressedLevels = function() return 0 end
IM.IsCubemap = function() return false end
IM.IsArray = function() return false end
IM.IsSRGB = function() return false end
IM.HasAlphaChannel = function(self) return known(self, "HasAlphaChannel").comps > 3 end

-- A pixel's bytes as one integer (the first byte lowest), or nil outside the image.
local function pixel(r, x, y, z)
  if x < 0 or x >= r.width or y < 0 or y >= r.height or z < 0 or z >= r.depth then return nil end
  local k = z * r.height + y + 1
  local row = r.rows[k]
  if type(row) == "table" then return row[x + 1] end
  local c = r.comps
  local b0, b1, b2, b3 = sbyte(row, x * c + 1, x * c + c)
  return (b0 or 0) | ((b1 or 0) << 8) | ((b2 or 0) << 16) | ((b3 or 0) << 24)
end
local function writable_row(r, k)
  local row = r.rows[k]
  if type(row) == "table" then return row end
  local c, t = r.comps, {}
  for x = 0, r.width - 1 do
    local b0, b1, b2, b3 = sbyte(row, x * c + 1, x * c + c)
    t[x + 1] = (b0 or 0) | ((b1 or 0) << 8) | ((b2 or 0) << 16) | ((b3 or 0) << 24)
  end
  r.rows[k] = t
  return t
end
local MASKS = {0xff, 0xffff, 0xffffff, 0xffffffff}
local function set_pixel(r, x, y, z, value)
  if x < 0 or x >= r.width or y < 0 or y >= r.height or z < 0 or z >= r.depth then return end
  writable_row(r, z * r.height + y + 1)[x + 1] = value & MASKS[r.comps]
end

-- Row k (1-based: z * height + y + 1) as a string of width * components bytes, for the engine's readers (Terrain).
local FORMATS = {"I1", "I2", "I3", "I4"}
local function row_string(r, k)
  local row = r.rows[k]
  if type(row) ~= "table" then return row end
  local f, parts, n = FORMATS[r.comps], {}, #row
  for first = 1, n, 1024 do
    local last = mmin(first + 1023, n)
    parts[#parts + 1] = spack("<" .. srep(f, last - first + 1), table.unpack(row, first, last))
  end
  return table.concat(parts)
end
E.image_row = row_string

local function color_uint(c, what)
  if not E.is(c, "Color") then E.raise_at_game(sformat("bad argument #3 to '%s' (Color expected)", what)) end
  return E.IMPL.Color.methods.ToUInt(c)
end
IM.SetPixel = function(self, x, y, a, b)
  local r = known(self, "SetPixel")
  if b ~= nil then return set_pixel(r, int(x, "SetPixel", 1), int(y, "SetPixel", 2), int(a, "SetPixel", 3),
    color_uint(b, "SetPixel")) end
  set_pixel(r, int(x, "SetPixel", 1), int(y, "SetPixel", 2), 0, color_uint(a, "SetPixel"))
end
IM.SetPixelInt = function(self, x, y, a, b)
  local r = known(self, "SetPixelInt")
  if b ~= nil then return set_pixel(r, int(x, "SetPixelInt", 1), int(y, "SetPixelInt", 2), int(a, "SetPixelInt", 3),
    int(b, "SetPixelInt", 4)) end
  set_pixel(r, int(x, "SetPixelInt", 1), int(y, "SetPixelInt", 2), 0, int(a, "SetPixelInt", 3))
end

-- Urho3D clamps x and y into the image (z out of range reads black).
local function clamped(r, x, y, z)
  if z < 0 or z >= r.depth or r.comps == 0 then return nil end
  return pixel(r, mmax(0, mmin(x, r.width - 1)), mmax(0, mmin(y, r.height - 1)), z)
end
local f32 = E.MATH.f32
local function channel(v, shift) return f32(((v >> shift) & 0xff) / 255.0) end
local function pixel_color(r, x, y, z)
  local v = clamped(r, x, y, z)
  if v == nil then return E.Color_new(0, 0, 0, 1) end
  local c = r.comps
  if c == 1 then
    local g = channel(v, 0)
    return E.Color_new(g, g, g, 1)
  end
  -- channels the image lacks keep Urho3D's default colour, white
  return E.Color_new(channel(v, 0), channel(v, 8), c >= 3 and channel(v, 16) or 1.0, c >= 4 and channel(v, 24) or 1.0)
end
IM.GetPixel = function(self, x, y, z)
  local r = known(self, "GetPixel")
  return pixel_color(r, int(x, "GetPixel", 1), int(y, "GetPixel", 2), z and int(z, "GetPixel", 3) or 0)
end
IM.GetPixelInt = function(self, x, y, z)
  local r = known(self, "GetPixelInt")
  local v = clamped(r, int(x, "GetPixelInt", 1), int(y, "GetPixelInt", 2), z and int(z, "GetPixelInt", 3) or 0)
  if v == nil then return 0xff000000 end
  local c = r.comps
  if c == 1 then return 0xff000000 | (v << 16) | (v << 8) | v end
  if c < 4 then return 0xff000000 | v end
  return v
end
-- Urho3D's GetPixelBilinear: x and y in 0..1, texel centres at half pixels, clamped; the colours lerped
IM.GetPixelBilinear = function(self, x, y)
  local r = known(self, "GetPixelBilinear")
  x = mmax(0.0, mmin(f32(f32(x * r.width) - 0.5), r.width - 1.0))
  y = mmax(0.0, mmin(f32(f32(y * r.height) - 0.5), r.height - 1.0))
  local xi, yi = mfloor(x), mfloor(y)
  local xf, yf = x - xi, y - yi
  local top = pixel_color(r, xi, yi, 0):Lerp(pixel_color(r, xi + 1, yi, 0), xf)
  local bottom = pixel_color(r, xi, yi + 1, 0):Lerp(pixel_color(r, xi + 1, yi + 1, 0), xf)
  return top:Lerp(bottom, yf)
end

IM.ClearInt = function(self, value)
  local r = known(self, "ClearInt")
  value = int(value, "ClearInt", 1)
  local c = r.comps
  if c == 0 then return end
  local one = ssub(spack("<I4", value & 0xffffffff), 1, c)
  local row = srep(one, r.width)
  for k = 1, #r.rows do r.rows[k] = row end
end
IM.Clear = function(self, color) IM.ClearInt(self, color_uint(color, "Clear")) end
IM.FlipVertical = function(self)
  local r = known(self, "FlipVertical")
  local rows, h = r.rows, r.height
  for z = 0, r.depth - 1 do
    local base = z * h
    for y = 1, h // 2 do
      rows[base + y], rows[base + h - y + 1] = rows[base + h - y + 1], rows[base + y]
    end
  end
  return true
end
IM.FlipHorizontal = function(self)
  local r = known(self, "FlipHorizontal")
  local c = r.comps
  for k = 1, #r.rows do
    local row = row_string(r, k)
    local parts = {}
    for x = r.width - 1, 0, -1 do parts[#parts + 1] = ssub(row, x * c + 1, x * c + c) end
    r.rows[k] = table.concat(parts)
  end
  return true
end
