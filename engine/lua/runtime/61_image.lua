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
local slower = string.lower
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
    r.why_unknown, r.pixels_known = "only PNG files are decoded headless", false
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
-- A pixel's channels as Urho3D's GetPixel gives them (x and y clamped, z outside black; missing channels white).
local function channels(r, x, y, z)
  local v = clamped(r, x, y, z)
  if v == nil then return 0.0, 0.0, 0.0, 1.0 end
  local c = r.comps
  if c == 1 then
    local g = channel(v, 0)
    return g, g, g, 1.0
  end
  return channel(v, 0), channel(v, 8), c >= 3 and channel(v, 16) or 1.0, c >= 4 and channel(v, 24) or 1.0
end
-- Color::Lerp in single precision, channel by channel.
local function lerp4(r1, g1, b1, a1, r2, g2, b2, a2, t)
  local s = f32(1.0 - t)
  return f32(f32(r1 * s) + f32(r2 * t)), f32(f32(g1 * s) + f32(g2 * t)), f32(f32(b1 * s) + f32(b2 * t)),
    f32(f32(a1 * s) + f32(a2 * t))
end
-- The four pixels from (xi, yi) on slice z, lerped across by xf and down by yf.
local function lerp4_rows(r, xi, yi, z, xf, yf)
  local ar, ag, ab, aa = channels(r, xi, yi, z)
  local br, bg, bb, ba = channels(r, xi + 1, yi, z)
  local tr, tg, tb, ta = lerp4(ar, ag, ab, aa, br, bg, bb, ba, xf)
  ar, ag, ab, aa = channels(r, xi, yi + 1, z)
  br, bg, bb, ba = channels(r, xi + 1, yi + 1, z)
  local ur, ug, ub, ua = lerp4(ar, ag, ab, aa, br, bg, bb, ba, xf)
  return lerp4(tr, tg, tb, ta, ur, ug, ub, ua, yf)
end
local function clampf(v, lo, hi) if v < lo then return lo elseif v > hi then return hi end; return v end
-- Urho3D's GetPixelBilinear on slice z: x and y in 0..1, texel centres at half pixels, clamped; the four
-- colours lerped in single precision.  Coordinates already NaN are the caller's.
local function bilinear(r, x, y, z)
  x = clampf(f32(f32(x * r.width) - 0.5), 0.0, r.width - 1.0)
  y = clampf(f32(f32(y * r.height) - 0.5), 0.0, r.height - 1.0)
  local xi, yi = mfloor(x), mfloor(y)
  local xf, yf = f32(x - xi), f32(y - yi)
  return lerp4_rows(r, xi, yi, z, xf, yf)
end
local num_arg = E.number_arg
IM.GetPixelBilinear = function(self, x, y)
  local r = known(self, "GetPixelBilinear")
  return E.Color_new(bilinear(r, num_arg(x, "GetPixelBilinear", 1), num_arg(y, "GetPixelBilinear", 2), 0))
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

----------------------------------------------------------------------------------------------------
-- Regions, resampling and trilinear reads (Resource/Image.cpp's GetSubimage, SetSubimage, Resize,
-- GetPixelTrilinear)
----------------------------------------------------------------------------------------------------
local function rect_arg(rect, what, i)
  if type(rect) ~= "table" or type(rect.left) ~= "number" or type(rect.top) ~= "number"
      or type(rect.right) ~= "number" or type(rect.bottom) ~= "number" then
    E.raise_at_game(sformat("bad argument #%d to '%s' (IntRect expected)", i, what))
  end
  return mfloor(rect.left), mfloor(rect.top), mfloor(rect.right), mfloor(rect.bottom)
end
local function has_data(r) return r.width > 0 and r.comps > 0 end
-- A region inside the image, at least a pixel wide and high (Urho3D rejects an empty one; a reversed one is
-- rejected here too, where Urho3D would go on with a negative size).
local function valid_region(r, left, top, right, bottom)
  return left >= 0 and top >= 0 and right <= r.width and bottom <= r.height and right > left and bottom > top
end
local function new_image(width, height, comps)
  local img = Image.new()
  set_pixels(REC[img], width, height, 1, comps, nil)
  return img
end

IM.GetSubimage = function(self, rect)
  local r = known(self, "GetSubimage")
  local left, top, right, bottom = rect_arg(rect, "GetSubimage", 1)
  if not has_data(r) then return nil end
  if r.depth > 1 then
    E.log("ERROR", "Subimage not supported for 3D images")
    return nil
  end
  if not valid_region(r, left, top, right, bottom) then
    E.log("ERROR", "Can not get subimage from image " .. tostring(r.name) .. " with invalid region")
    return nil
  end
  local c = r.comps
  local img = new_image(right - left, bottom - top, c)
  local rows = REC[img].rows
  for y = top, bottom - 1 do rows[y - top + 1] = ssub(row_string(r, y + 1), left * c + 1, right * c) end
  return img
end

-- Urho3D's GetPixelBilinear(u, v):ToUInt() for resampling; a coordinate that is NaN (0 / 0, a 1-pixel target of
-- a wider source) makes every channel NaN, which converts to 0 in each byte.
-- Color::ToUInt of four channels: each (int)(v * 255) in single precision, clamped to a byte (NaN gives 0).
local function channel_byte(v)
  local p = f32(v * 255.0)
  if p ~= p or p >= 2147483648.0 or p < -2147483648.0 then return 0 end
  local i = math.tointeger(p >= 0 and mfloor(p) or -mfloor(-p))
  if i < 0 then return 0 elseif i > 255 then return 255 end
  return i
end
local function color_bytes(cr, cg, cb, ca)
  return (channel_byte(ca) << 24) | (channel_byte(cb) << 16) | (channel_byte(cg) << 8) | channel_byte(cr)
end
local function resample(r, u, v)
  if u ~= u or v ~= v then return 0 end
  return color_bytes(bilinear(r, u, v, 0))
end
local function ratio(i, n) if n == 0 then return 0.0 / 0.0 end; return f32(i / n) end

-- `src` stretched over w x h pixels, corner to corner, by bilinear reads: rows of pixel values (Urho3D's Resize and
-- SetSubimage sample so, and shrinking skip the pixels between their samples)
local function stretched(src, w, h)
  local mask = MASKS[src.comps]
  local rows = {}
  for y = 0, h - 1 do
    local v = src.height > 1 and ratio(y, h - 1) or 0.0
    local line = {}
    for x = 0, w - 1 do
      local u = src.width > 1 and ratio(x, w - 1) or 0.0
      line[x + 1] = resample(src, u, v) & mask
    end
    rows[y + 1] = line
  end
  return rows
end
IM.SetSubimage = function(self, image, rect)
  local r = known(self, "SetSubimage")
  if not E.is(image, "Image") then E.raise_at_game("bad argument #1 to 'SetSubimage' (Image expected)") end
  local src = known(image, "SetSubimage")
  local left, top, right, bottom = rect_arg(rect, "SetSubimage", 2)
  if not has_data(r) then return false end
  if r.depth > 1 then
    E.log("ERROR", "Image::SetSubimage is not supported for compressed or 3D images")
    return false
  end
  if r.comps ~= src.comps then
    E.log("ERROR", "Can not set subimage in image " .. tostring(r.name) .. " with different number of components")
    return false
  end
  if not valid_region(r, left, top, right, bottom) then
    E.log("ERROR", "Can not set subimage in image " .. tostring(r.name) .. " with invalid region")
    return false
  end
  local w, h, c = right - left, bottom - top, r.comps
  if w == src.width and h == src.height then
    local rows = {}
    for y = 0, h - 1 do rows[y + 1] = row_string(src, y + 1) end   -- read first: the source may be this image
    for y = 0, h - 1 do
      local k = top + y + 1
      local row = row_string(r, k)
      r.rows[k] = ssub(row, 1, left * c) .. ssub(rows[y + 1], 1, w * c) .. ssub(row, right * c + 1)
    end
    return true
  end
  -- a region of another size: the source stretched over it
  local values = stretched(src, w, h)
  for y = 0, h - 1 do
    local row = writable_row(r, top + y + 1)
    local line = values[y + 1]
    for x = 0, w - 1 do row[left + x + 1] = line[x + 1] end
  end
  return true
end

local MAX_RESIZE_PIXELS = 4096 * 4096
-- Resize: every new pixel a bilinear read of the old image at (x / (width - 1), y / (height - 1)), as Urho3D's
-- (which samples corner to corner and, shrinking, skips pixels between its samples).
IM.Resize = function(self, width, height)
  local r = known(self, "Resize")
  width, height = int(width, "Resize", 1), int(height, "Resize", 2)
  if r.depth > 1 then
    E.log("ERROR", "Resize not supported for 3D images")
    return false
  end
  if not has_data(r) or width <= 0 or height <= 0 then return false end
  if width * height > MAX_RESIZE_PIXELS then
    E.log("ERROR", sformat("Resize: %dx%d is too large headless (limit %d pixels)", width, height, MAX_RESIZE_PIXELS))
    return false
  end
  local rows = stretched(r, width, height)
  r.width, r.height, r.rows = width, height, rows
  r.size = width * height * r.depth * r.comps
  return true
end

-- Urho3D's GetPixelTrilinear: a 2D image, or a read in the last slice, is bilinear (the last slice's passing the
-- already scaled x and y on, as Urho3D does); otherwise the two slices around z, lerped.
IM.GetPixelTrilinear = function(self, x, y, z)
  local r = known(self, "GetPixelTrilinear")
  x, y = num_arg(x, "GetPixelTrilinear", 1), num_arg(y, "GetPixelTrilinear", 2)
  z = num_arg(z, "GetPixelTrilinear", 3)
  if r.depth < 2 then return E.Color_new(bilinear(r, x, y, 0)) end
  x = clampf(f32(f32(x * r.width) - 0.5), 0.0, r.width - 1.0)
  y = clampf(f32(f32(y * r.height) - 0.5), 0.0, r.height - 1.0)
  z = clampf(f32(f32(z * r.depth) - 0.5), 0.0, r.depth - 1.0)
  local xi, yi, zi = mfloor(x), mfloor(y), mfloor(z)
  if zi == r.depth - 1 then return E.Color_new(bilinear(r, x, y, 0)) end
  local xf, yf, zf = f32(x - xi), f32(y - yi), f32(z - zi)
  local nr, ng, nb, na = lerp4_rows(r, xi, yi, zi, xf, yf)
  local fr, fg, fb, fa = lerp4_rows(r, xi, yi, zi + 1, xf, yf)
  return E.Color_new(lerp4(nr, ng, nb, na, fr, fg, fb, fa, zf))
end

----------------------------------------------------------------------------------------------------
-- Saving: PNG, BMP, TGA and DDS files written through the engine's file layer (59_files.lua: nothing reaches the
-- disk).  BMP and TGA are byte for byte what Urho3D's stb_image_write gives (24-bit BMP, run-length TGA); DDS is
-- Urho3D's uncompressed RGBA header and pixels; PNG is a valid file of the same pixels, its data stored
-- uncompressed (Urho3D's deflate stream differs in bytes, not in the image).  JPEG and WebP are not encoded
-- headless: SaveJPG and SaveWEBP stay missing API.
----------------------------------------------------------------------------------------------------
local MAX_SAVE_BYTES = 64 * 1024 * 1024
local tconcat = table.concat

-- The image's pixels (first slice) as one string, rows from the top.
local function pixel_bytes(r)
  local parts = {}
  for k = 1, r.height do parts[k] = row_string(r, k) end
  return tconcat(parts)
end

local CRC = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do
    if c & 1 == 1 then c = 0xedb88320 ~ (c >> 1) else c = c >> 1 end
  end
  CRC[i] = c
end
local function crc32(s)
  local c = 0xffffffff
  for i = 1, #s do c = CRC[(c ~ sbyte(s, i)) & 0xff] ~ (c >> 8) end
  return c ~ 0xffffffff
end
local function adler32(s)
  local a, b = 1, 0
  for i = 1, #s, 4096 do
    local bytes = {sbyte(s, i, mmin(i + 4095, #s))}
    for j = 1, #bytes do
      a = a + bytes[j]
      b = b + a
    end
    a, b = a % 65521, b % 65521
  end
  return (b << 16) | a
end
local PNG_COLOR_TYPES = {0, 4, 2, 6}   -- grey, grey + alpha, RGB, RGBA: 8 bits a channel
local function png_chunk(kind, body) return spack(">I4", #body) .. kind .. body .. spack(">I4", crc32(kind .. body)) end
local function png_bytes(r)
  local lines = {}
  for k = 1, r.height do lines[k] = "\0" .. row_string(r, k) end   -- filter type 0 on every row
  local raw = tconcat(lines)
  local z = {"\120\1"}
  local pos, n = 1, #raw
  repeat
    local len = mmin(65535, n - pos + 1)
    local last = pos + len > n
    z[#z + 1] = schar(last and 1 or 0) .. spack("<I2I2", len, len ~ 0xffff) .. ssub(raw, pos, pos + len - 1)
    pos = pos + len
  until last
  z[#z + 1] = spack(">I4", adler32(raw))
  return "\137PNG\r\n\26\n" .. png_chunk("IHDR", spack(">I4I4BBBBB", r.width, r.height, 8, PNG_COLOR_TYPES[r.comps],
    0, 0, 0)) .. png_chunk("IDAT", tconcat(z)) .. png_chunk("IEND", "")
end

-- C's integer division (toward zero) by 255.
local function cdiv255(v) if v >= 0 then return v // 255 end; return -((-v) // 255) end
local function bmp_bytes(r)
  local w, h, c = r.width, r.height, r.comps
  local pad = (-w * 3) & 3
  local out = {spack("<c2I4I2I2I4", "BM", 54 + (w * 3 + pad) * h, 0, 0, 54),
    spack("<I4i4i4I2I2I4I4I4I4I4I4", 40, w, h, 1, 24, 0, 0, 0, 0, 0, 0)}
  local padding = srep("\0", pad)
  for k = h, 1, -1 do   -- bottom row first
    local row, parts = row_string(r, k), {}
    for x = 0, w - 1 do
      local p = x * c
      local d0, d1, d2, d3 = sbyte(row, p + 1, p + c)
      if c <= 2 then parts[x + 1] = schar(d0, d0, d0)
      elseif c == 3 then parts[x + 1] = schar(d2, d1, d0)
      else   -- alpha composited over magenta, as stb_image_write does
        parts[x + 1] = schar(255 + cdiv255((d2 - 255) * d3), cdiv255(d1 * d3), 255 + cdiv255((d0 - 255) * d3))
      end
    end
    out[#out + 1] = tconcat(parts) .. padding
  end
  return tconcat(out)
end

-- A TGA pixel: grey (and alpha), or BGR (and alpha).
local function tga_pixel(row, x, c)
  local p = x * c
  local d0, d1, d2, d3 = sbyte(row, p + 1, p + c)
  if c == 1 then return schar(d0) elseif c == 2 then return schar(d0, d1)
  elseif c == 3 then return schar(d2, d1, d0) end
  return schar(d2, d1, d0, d3)
end
-- Run-length TGA, packets chosen as stb_image_write chooses them (a literal packet ends where a pixel equals the one
-- two before it, its quirk; a run packet takes up to 128 equal pixels).
local function tga_bytes(r)
  local w, h, c = r.width, r.height, r.comps
  local alpha = (c == 2 or c == 4) and 1 or 0
  local colour = c - alpha
  local out = {spack("<BBBI2I2BI2I2I2I2BB", 0, 0, (colour < 2 and 3 or 2) + 8, 0, 0, 0, 0, 0, w, h,
    (colour + alpha) * 8, alpha * 8)}
  for k = h, 1, -1 do
    local row = row_string(r, k)
    local function px(x) return ssub(row, x * c + 1, x * c + c) end
    local i = 0
    while i < w do
      local len, same = 1, false
      if i < w - 1 then
        len = 2
        same = px(i) == px(i + 1)
        if not same then
          for kk = i + 2, w - 1 do
            if len >= 128 then break end
            if px(kk - 2) ~= px(kk) then len = len + 1 else len = len - 1; break end
          end
        else
          for kk = i + 2, w - 1 do
            if len >= 128 then break end
            if px(i) == px(kk) then len = len + 1 else break end
          end
        end
      end
      if same then
        out[#out + 1] = schar((len - 129) & 0xff) .. tga_pixel(row, i, c)
      else
        local parts = {schar(len - 1)}
        for j = 0, len - 1 do parts[#parts + 1] = tga_pixel(row, i + j, c) end
        out[#out + 1] = tconcat(parts)
      end
      i = i + len
    end
  end
  return tconcat(out)
end

local function dds_bytes(r)
  local header = spack("<I4I4I4I4I4I4I4", 124, 0x00021007, r.height, r.width, 0, 0, 1) .. srep("\0", 4 * 11)
    .. spack("<I4I4I4I4I4I4I4I4", 32, 0x41, 0, 32, 0xff, 0xff00, 0xff0000, 0xff000000) .. srep("\0", 20)
  return "DDS " .. header .. pixel_bytes(r)
end

local function save_path(file_name, what)
  file_name = E.tolua_string(file_name, what, 1)
  local path = E.clean_path(file_name)
  if path == "" then return nil end
  return path
end
local function too_big(r, what)
  if r.width * r.height * mmax(r.comps, 1) * 2 + 1024 > MAX_SAVE_BYTES then
    E.log("ERROR", sformat("%s: image %dx%d is too large to save headless (limit %d bytes)", what, r.width, r.height,
      MAX_SAVE_BYTES))
    return true
  end
  return false
end
-- Urho3D's Image::Save(dest): a PNG of the image, nil when there is nothing to save (logged as Urho3D logs it).
local function png_of(r)
  if not has_data(r) then
    E.log("ERROR", "Can not save zero-sized image " .. tostring(r.name))
    return nil
  end
  if too_big(r, "Save") then return nil end
  return png_bytes(r)
end
E.image_png = function(proxy) return png_of(known(proxy, "Save")) end

IM.SavePNG = function(self, file_name)
  local r = known(self, "SavePNG")
  local path = save_path(file_name, "SavePNG")
  if path == nil then return false end
  E.fs_write(path, "")   -- the file opens (and is emptied) before the image is checked
  local data = png_of(r)
  if data == nil then return false end
  E.fs_write(path, data)
  return true
end
-- SaveBMP and SaveTGA: the image's bytes in that format, when it has pixels and is not too big to write
local function save_as(fname, encode)
  return function(self, file_name)
    local r = known(self, fname)
    local path = save_path(file_name, fname)
    if path == nil or not has_data(r) or too_big(r, fname) then return false end
    E.fs_write(path, encode(r))
    return true
  end
end
IM.SaveBMP = save_as("SaveBMP", bmp_bytes)
IM.SaveTGA = save_as("SaveTGA", tga_bytes)
-- One level (an image has no precomputed mip levels unless a texture made them), 32-bit RGBA only.
IM.SaveDDS = function(self, file_name)
  local r = known(self, "SaveDDS")
  local path = save_path(file_name, "SaveDDS")
  if path == nil then return false end
  E.fs_write(path, "")
  if r.comps ~= 4 then
    E.log("ERROR", sformat("Can not save image with %d components to DDS", r.comps))
    return false
  end
  if too_big(r, "SaveDDS") then return false end
  E.fs_write(path, dds_bytes(r))
  return true
end
-- Image::SaveFile by extension (what Resource:Save(fileName) calls for an image).
E.image_save_file = function(self, file_name)
  local name = slower(E.tolua_string(file_name, "Save", 1))
  local function ends(ext) return ssub(name, -#ext) == ext end
  if ends(".dds") then return IM.SaveDDS(self, file_name)
  elseif ends(".bmp") then return IM.SaveBMP(self, file_name)
  elseif ends(".jpg") or ends(".jpeg") then return E.missing("Image:SaveJPG (JPEG files are not encoded headless)")
  elseif ends(".tga") then return IM.SaveTGA(self, file_name)
  elseif ends(".webp") then return E.missing("Image:SaveWEBP (WebP files are not encoded headless)") end
  return IM.SavePNG(self, file_name)
end

-- LoadColorLUT: a 3-channel PNG strip of 16 slices (256 x 16, slice z in columns z * 16 .. z * 16 + 15) made a
-- 16 x 16 x 16 volume, as Urho3D does.  Pixels a smaller strip lacks read as zero here (Urho3D reads past its data).
-- Other formats than PNG are not decoded headless (missing API); DDS, KTX and PVR are refused as Urho3D refuses them.
local COLOR_LUT_SIZE = 16
IM.LoadColorLUT = function(self, source)
  local r = irec(self)
  local data, name = E.resource_source_bytes(source, "LoadColorLUT")
  if data == nil then return false end
  local id = ssub(data, 1, 4)
  if id == "DDS " or id == "\171KTX" or id == "PVR\3" then
    E.log("ERROR", "Invalid image format, can not load image")
    return false
  end
  if not is_png(data) then return E.missing("Image:LoadColorLUT (only PNG files are decoded headless)") end
  local w, h, c, pixels = E.host_call(E.host.image, E.hex(data))
  if w == nil then
    E.log("ERROR", sformat("Could not load image %s: %s", tostring(name), tostring(h)))
    return false
  end
  if c ~= 3 then
    E.log("ERROR", "Invalid image format, can not load image")
    return false
  end
  local n = COLOR_LUT_SIZE
  local parts = {}
  for z = 0, n - 1 do
    for y = 0, n - 1 do
      local first = y * w * 3 + z * n * 3 + 1
      local row = ssub(pixels, first, first + n * 3 - 1)
      if y >= h or z * n >= w then row = "" end
      parts[#parts + 1] = row .. srep("\0", n * 3 - #row)
    end
  end
  set_pixels(r, n, n, n, 3, table.concat(parts))
  r.why_unknown = nil
  return true
end
