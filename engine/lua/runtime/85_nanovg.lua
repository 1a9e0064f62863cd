-- NanoVG, headless: UrhoX's nvg* API on a recording backend.
--
-- Contexts keep NanoVG's state (the 2x3 transform, paints, scissor, stroke and text style) on a save/restore
-- stack.  Paths accumulate a bounding box in frame coordinates as points are added (each point transformed when
-- it is added, as nanovg does); nvgFill, nvgStroke and nvgText append a command to the context's frame.  A frame
-- (nvgBeginFrame .. nvgEndFrame) is shown when it ends inside the NanoVGRender event, which every live context
-- sends each frame after PostRenderUpdate (lowest render order first): its commands join the display list that
-- the battery reads (E.nanovg.last, topmost last).  Commands carry screen-space bounds: the frame's coordinates
-- scaled to the window (nvgBeginFrame's width and height cover the screen), clipped to the scissor.
--
-- Text follows fontstash: the font size is the height ascender-descender of the font's hhea metrics, advances
-- come from the font file (engine/_fonts.py reads it once), each glyph advance is rounded to whole pixels at the
-- transformed size, and line breaking is nanovg's nvgTextBreakLines.  Glyph ink boxes are approximated by
-- advance boxes.
local error, type, setmetatable, ipairs, pairs, tostring, tonumber, next, select =
  error, type, setmetatable, ipairs, pairs, tostring, tonumber, next, select
local sformat, sbyte, ssub, sfind, slower, sunpack = string.format, string.byte, string.sub, string.find,
  string.lower, string.unpack
local mfloor, mceil, msqrt, msin, mcos, mtan, macos, mabs, mmin, mmax, mpi, mfmod =
  math.floor, math.ceil, math.sqrt, math.sin, math.cos, math.tan, math.acos, math.abs, math.min, math.max, math.pi,
  math.fmod
local dgetmt = E.dgetmt
local REC, clock, config = E.REC, E.clock, E.host.config
local SCREEN_W, SCREEN_H   -- the run's screen (E.configure)
local function screen_size() SCREEN_W, SCREEN_H = config.screen_width, config.screen_height end
E.on_configure(screen_size)
E.on_screen_resize(screen_size)   -- frames begun after a resize cover the new screen

local ALIGN_LEFT, ALIGN_CENTER, ALIGN_RIGHT = 1, 2, 4
local ALIGN_TOP, ALIGN_MIDDLE, ALIGN_BOTTOM, ALIGN_BASELINE, ALIGN_CENTER_VISUAL = 8, 16, 32, 64, 128
local NVG_CW = 2
local MAX_STATES = 32

local Color = class("NVGcolor")
local Paint = class("NVGpaint")
class("NVGglyphPosition")
class("NVGtextRow")
local Ctx = class("NVGContextWrapper")
local COLOR_MT, PAINT_MT = Color.mt, Paint.mt

----------------------------------------------------------------------------------------------------
-- argument checks (tolua's messages, roughly)
----------------------------------------------------------------------------------------------------
local function type_name_of(v)
  local mt = dgetmt(v)
  if mt and type(mt.__name) == "string" then return mt.__name end
  return type(v)
end
local function bad_arg(fname, n, expected, got)
  E.raise_at_game(sformat("bad argument #%d to '%s' (%s expected, got %s)", n, fname, expected, type_name_of(got)))
end

local CTX = setmetatable({}, {__mode = "k"})   -- context proxy -> record
local function ctx_of(ctx, fname)
  local c = CTX[ctx]
  if c == nil then bad_arg(fname, 1, "NVGContextWrapper", ctx) end
  if c.deleted then error(sformat("%s: the NanoVG context was deleted (nvgDelete)", fname), 3) end
  return c
end
local function color_of(col, fname, n)
  if dgetmt(col) ~= COLOR_MT then bad_arg(fname, n, "NVGcolor", col) end
  return col
end

----------------------------------------------------------------------------------------------------
-- colours
----------------------------------------------------------------------------------------------------
local function new_color(r, g, b, a) return setmetatable({r = r, g = g, b = b, a = a}, COLOR_MT) end
-- (unsigned char) of a Lua number, as tolua's C cast does on the usual targets.
local function u8(v)
  if v >= 0 and v < 256 then return v // 1 end
  v = v + 0.0
  if v ~= v then return 0 end
  if v >= 0 then v = mfloor(v) else v = mceil(v) end
  if v > 2147483647 or v < -2147483648 then return 0 end
  return mfloor(v) & 0xFF
end
local function clampf(v, lo, hi) if v < lo then return lo elseif v > hi then return hi end return v end

FUNCTIONS.nvgRGB = function(r, g, b) return new_color(u8(r) / 255, u8(g) / 255, u8(b) / 255, 1.0) end
FUNCTIONS.nvgRGBf = function(r, g, b) return new_color(r + 0.0, g + 0.0, b + 0.0, 1.0) end
FUNCTIONS.nvgRGBA = function(r, g, b, a) return new_color(u8(r) / 255, u8(g) / 255, u8(b) / 255, u8(a) / 255) end
FUNCTIONS.nvgRGBAf = function(r, g, b, a) return new_color(r + 0.0, g + 0.0, b + 0.0, a + 0.0) end
FUNCTIONS.nvgLerpRGBA = function(c0, c1, u)
  color_of(c0, "nvgLerpRGBA", 1); color_of(c1, "nvgLerpRGBA", 2)
  u = clampf(u, 0.0, 1.0)
  local o = 1.0 - u
  return new_color(c0.r * o + c1.r * u, c0.g * o + c1.g * u, c0.b * o + c1.b * u, c0.a * o + c1.a * u)
end
FUNCTIONS.nvgTransRGBA = function(c, a)
  color_of(c, "nvgTransRGBA", 1)
  return new_color(c.r, c.g, c.b, u8(a) / 255)
end
FUNCTIONS.nvgTransRGBAf = function(c, a)
  color_of(c, "nvgTransRGBAf", 1)
  return new_color(c.r, c.g, c.b, a + 0.0)
end
local function hue(h, m1, m2)
  if h < 0 then h = h + 1 end
  if h > 1 then h = h - 1 end
  if h < 1.0 / 6.0 then return m1 + (m2 - m1) * h * 6.0
  elseif h < 3.0 / 6.0 then return m2
  elseif h < 4.0 / 6.0 then return m1 + (m2 - m1) * (2.0 / 3.0 - h) * 6.0 end
  return m1
end
local function hsla(h, s, l, a)
  h = mfmod(h + 0.0, 1.0)
  if h < 0.0 then h = h + 1.0 end
  s = clampf(s, 0.0, 1.0)
  l = clampf(l, 0.0, 1.0)
  local m2 = l <= 0.5 and (l * (1 + s)) or (l + s - l * s)
  local m1 = 2 * l - m2
  return new_color(clampf(hue(h + 1.0 / 3.0, m1, m2), 0.0, 1.0), clampf(hue(h, m1, m2), 0.0, 1.0),
    clampf(hue(h - 1.0 / 3.0, m1, m2), 0.0, 1.0), a)
end
FUNCTIONS.nvgHSL = function(h, s, l) return hsla(h, s, l, 1.0) end
FUNCTIONS.nvgHSLA = function(h, s, l, a) return hsla(h, s, l, u8(a) / 255) end
FUNCTIONS.nvgDegToRad = function(deg) return deg / 180.0 * mpi end
FUNCTIONS.nvgRadToDeg = function(rad) return rad / mpi * 180.0 end

----------------------------------------------------------------------------------------------------
-- render state
----------------------------------------------------------------------------------------------------
-- The state is one flat table: transform a..f, fill (f*) and stroke (s*) paint as kind + inner/outer colours +
-- image, scissor AABB in frame coordinates, stroke and text style.
local function reset_state(st)
  st.a, st.b, st.c, st.d, st.e, st.f = 1.0, 0.0, 0.0, 1.0, 0.0, 0.0
  st.fk, st.fr, st.fg, st.fb, st.fa, st.fr2, st.fg2, st.fb2, st.fa2, st.fimg = "color", 1.0, 1.0, 1.0, 1.0,
    1.0, 1.0, 1.0, 1.0, nil
  st.sk, st.sr, st.sg, st.sb, st.sa, st.sr2, st.sg2, st.sb2, st.sa2, st.simg = "color", 0.0, 0.0, 0.0, 1.0,
    0.0, 0.0, 0.0, 1.0, nil
  st.comp, st.aa, st.sw, st.miter, st.cap, st.join, st.alpha = 0, 1, 1.0, 10.0, 0, 4, 1.0
  st.sc, st.sx0, st.sy0, st.sx1, st.sy1 = false, 0.0, 0.0, 0.0, 0.0
  st.fsize, st.spacing, st.lineh, st.blur, st.align, st.font = 16.0, 0.0, 1.0, 0.0, ALIGN_LEFT | ALIGN_BASELINE, -1
  st.scale_mode, st.thin_dedup = 0, 0
  return st
end
-- Copy state s into d (the stack's tables are reused: nvgSave is called per widget).
local function copy_state(d, s)
  d.a, d.b, d.c, d.d, d.e, d.f = s.a, s.b, s.c, s.d, s.e, s.f
  d.fk, d.fr, d.fg, d.fb, d.fa, d.fr2, d.fg2, d.fb2, d.fa2, d.fimg = s.fk, s.fr, s.fg, s.fb, s.fa, s.fr2, s.fg2,
    s.fb2, s.fa2, s.fimg
  d.sk, d.sr, d.sg, d.sb, d.sa, d.sr2, d.sg2, d.sb2, d.sa2, d.simg = s.sk, s.sr, s.sg, s.sb, s.sa, s.sr2, s.sg2,
    s.sb2, s.sa2, s.simg
  d.comp, d.aa, d.sw, d.miter, d.cap, d.join, d.alpha = s.comp, s.aa, s.sw, s.miter, s.cap, s.join, s.alpha
  d.sc, d.sx0, d.sy0, d.sx1, d.sy1 = s.sc, s.sx0, s.sy0, s.sx1, s.sy1
  d.fsize, d.spacing, d.lineh, d.blur, d.align, d.font = s.fsize, s.spacing, s.lineh, s.blur, s.align, s.font
  d.scale_mode, d.thin_dedup = s.scale_mode, s.thin_dedup
  return d
end

local contexts = {}          -- live contexts in creation order
local next_ctx_id = 0

-- Draw commands are K consecutive slots of a flat array (no table per command: a HUD draws hundreds a frame).
-- Which slots a command fills depends on its kind; E.nanovg_records() turns them into tables.
local K = 28
local F_KIND, F_SHAPE, F_X0, F_Y0, F_X1, F_Y1, F_PAINT, F_R, F_G, F_B, F_A, F_R2, F_G2, F_B2, F_A2, F_IMAGE,
  F_IMAGE_NAME, F_CTX, F_WIDTH, F_TEXT, F_X, F_Y, F_ALIGN, F_BOX_TEXT, F_FACE, F_FONT_FILE, F_SIZE,
  F_SCREEN_SIZE = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
  28
-- The display list: the last frame shown (last, nlast slots) and the one being gathered (cur, ncur);
-- the two arrays swap every frame.
E.nanovg = {last = {}, nlast = 0, last_frame = -1, cur = {}, ncur = 0, dispatching = false, contexts = contexts}
local NV = E.nanovg

local function new_context(aa)
  next_ctx_id = next_ctx_id + 1
  local proxy = setmetatable({}, Ctx.mt)
  local st = reset_state({})
  local c = {kind = "nanovg", proxy = proxy, id = next_ctx_id, aa = aa, order = 0, deleted = false,
    st = st, stack = {st}, nstack = 1, fonts = {}, images = {}, next_image = 1,
    in_frame = false, buf = {}, n = 0, vsx = 1.0, vsy = 1.0, dpr = 1.0, width = 0, height = 0,
    frames = 0, hidden_frames = 0, warned_hidden = false, last_calls = 0, target = nil,
    pn = 0, pkind = nil, pminx = 0.0, pminy = 0.0, pmaxx = 0.0, pmaxy = 0.0, cx = 0.0, cy = 0.0, psub = false,
    bloom = false, color_space = 0, auto_hint = 0, size_method = 0}
  REC[proxy] = c
  CTX[proxy] = c
  contexts[#contexts + 1] = c
  return proxy
end

FUNCTIONS.nvgCreate = function(aa) return new_context(aa) end
local singleton
FUNCTIONS.GetNanoVGContext = function()
  if singleton == nil or CTX[singleton].deleted then singleton = new_context(1) end
  return singleton
end
FUNCTIONS.nvgDelete = function(ctx)
  local c = ctx_of(ctx, "nvgDelete")
  c.deleted = true
  for i, x in ipairs(contexts) do
    if x == c then table.remove(contexts, i); break end
  end
  -- an Object that goes away stops being an event sender
  for _, name in ipairs(E.sorted_keys(E.subscriptions)) do
    local keep = {}
    for _, s in ipairs(E.subscriptions[name]) do
      if s.sender == ctx then s.alive = false else keep[#keep + 1] = s end
    end
    E.subscriptions[name] = keep
  end
end
FUNCTIONS.nvgSetBloomEnabled = function(ctx, v) ctx_of(ctx, "nvgSetBloomEnabled").bloom = v and true or false end
FUNCTIONS.nvgSetColorSpace = function(ctx, v) ctx_of(ctx, "nvgSetColorSpace").color_space = v end
FUNCTIONS.nvgSetRenderTarget = function(ctx, tex) ctx_of(ctx, "nvgSetRenderTarget").target = tex end
FUNCTIONS.nvgSetRenderOrder = function(ctx, order) ctx_of(ctx, "nvgSetRenderOrder").order = order end

FUNCTIONS.nvgBeginFrame = function(ctx, w, h, dpr)
  local c = ctx_of(ctx, "nvgBeginFrame")
  c.nstack = 1
  c.st = reset_state(c.stack[1])
  c.width, c.height, c.dpr = w, h, dpr
  c.vsx = (w and w > 0) and SCREEN_W / w or 1.0
  c.vsy = (h and h > 0) and SCREEN_H / h or 1.0
  c.in_frame, c.n = true, 0
  c.pn, c.pkind, c.psub = 0, nil, false
end
FUNCTIONS.nvgCancelFrame = function(ctx)
  local c = ctx_of(ctx, "nvgCancelFrame")
  c.in_frame, c.n = false, 0
end
FUNCTIONS.nvgEndFrame = function(ctx)
  local c = ctx_of(ctx, "nvgEndFrame")
  if not c.in_frame then return end
  local buf, n = c.buf, c.n
  c.in_frame, c.n = false, 0
  c.frames = c.frames + 1
  c.last_calls = n // K
  if c.target == nil and NV.dispatching then
    local cur, m = NV.cur, NV.ncur
    for i = 1, n do cur[m + i] = buf[i] end
    NV.ncur = m + n
  elseif c.target == nil then
    c.hidden_frames = c.hidden_frames + 1
    if not c.warned_hidden then
      c.warned_hidden = true
      E.log("WARNING", "nvgEndFrame outside the NanoVGRender event: UrhoX shows NanoVG drawing only when it is "
        .. "done in a NanoVGRender handler")
    end
  end
end
FUNCTIONS.nvgGetRenderStats = function(ctx)
  local c = ctx_of(ctx, "nvgGetRenderStats")
  return c.last_calls, c.last_calls * 6
end

-- Save/restore
FUNCTIONS.nvgSave = function(ctx)
  local c = ctx_of(ctx, "nvgSave")
  local n = c.nstack
  if n >= MAX_STATES then return end
  local stack = c.stack
  local st = stack[n + 1]
  if st == nil then st = {}; stack[n + 1] = st end
  c.st = copy_state(st, c.st)
  c.nstack = n + 1
end
FUNCTIONS.nvgRestore = function(ctx)
  local c = ctx_of(ctx, "nvgRestore")
  local n = c.nstack
  if n <= 1 then return end
  c.nstack = n - 1
  c.st = c.stack[n - 1]
end
FUNCTIONS.nvgReset = function(ctx) reset_state(ctx_of(ctx, "nvgReset").st) end

FUNCTIONS.nvgShapeAntiAlias = function(ctx, v) ctx_of(ctx, "nvgShapeAntiAlias").st.aa = v end
FUNCTIONS.nvgFillThinDedup = function(ctx, v) ctx_of(ctx, "nvgFillThinDedup").st.thin_dedup = v end
FUNCTIONS.nvgMiterLimit = function(ctx, v) ctx_of(ctx, "nvgMiterLimit").st.miter = v end
FUNCTIONS.nvgStrokeWidth = function(ctx, v) ctx_of(ctx, "nvgStrokeWidth").st.sw = v + 0.0 end
FUNCTIONS.nvgLineCap = function(ctx, v) ctx_of(ctx, "nvgLineCap").st.cap = v end
FUNCTIONS.nvgLineJoin = function(ctx, v) ctx_of(ctx, "nvgLineJoin").st.join = v end
FUNCTIONS.nvgGlobalAlpha = function(ctx, v) ctx_of(ctx, "nvgGlobalAlpha").st.alpha = v + 0.0 end
FUNCTIONS.nvgGlobalCompositeOperation = function(ctx, op) ctx_of(ctx, "nvgGlobalCompositeOperation").st.comp = op end
FUNCTIONS.nvgGlobalCompositeBlendFunc = function(ctx, s, d)
  ctx_of(ctx, "nvgGlobalCompositeBlendFunc").st.comp = {s, d, s, d}
end
FUNCTIONS.nvgGlobalCompositeBlendFuncSeparate = function(ctx, s, d, sa, da)
  ctx_of(ctx, "nvgGlobalCompositeBlendFuncSeparate").st.comp = {s, d, sa, da}
end

-- Paints: a paint is a plain NVGpaint (its fields as nanovg sets them); its kind is kept aside for the record.
local PAINT_KIND = setmetatable({}, {__mode = "k"})
local function new_paint(kind, a, b, c, d, e, f, ex, ey, radius, feather, icol, ocol, image)
  local p = setmetatable({xform = {a, b, c, d, e, f}, extent = {ex, ey}, radius = radius, feather = feather,
    innerColor = new_color(icol.r, icol.g, icol.b, icol.a), outerColor = new_color(ocol.r, ocol.g, ocol.b, ocol.a),
    image = image or 0}, PAINT_MT)
  PAINT_KIND[p] = kind
  return p
end
FUNCTIONS.nvgLinearGradient = function(ctx, sx, sy, ex, ey, icol, ocol)
  ctx_of(ctx, "nvgLinearGradient")
  color_of(icol, "nvgLinearGradient", 6); color_of(ocol, "nvgLinearGradient", 7)
  local large = 1e5
  local dx, dy = ex - sx, ey - sy
  local d = msqrt(dx * dx + dy * dy)
  if d > 0.0001 then dx, dy = dx / d, dy / d else dx, dy = 0.0, 1.0 end
  return new_paint("linear", dy, -dx, dx, dy, sx - dx * large, sy - dy * large, large, large + d * 0.5, 0.0,
    mmax(1.0, d), icol, ocol)
end
FUNCTIONS.nvgRadialGradient = function(ctx, cx, cy, inr, outr, icol, ocol)
  ctx_of(ctx, "nvgRadialGradient")
  color_of(icol, "nvgRadialGradient", 6); color_of(ocol, "nvgRadialGradient", 7)
  local r = (inr + outr) * 0.5
  return new_paint("radial", 1.0, 0.0, 0.0, 1.0, cx + 0.0, cy + 0.0, r, r, r, mmax(1.0, outr - inr), icol, ocol)
end
local function box_gradient(kind, fname)
  return function(ctx, x, y, w, h, r, f, icol, ocol)
    ctx_of(ctx, fname)
    color_of(icol, fname, 8); color_of(ocol, fname, 9)
    return new_paint(kind, 1.0, 0.0, 0.0, 1.0, x + w * 0.5, y + h * 0.5, w * 0.5, h * 0.5, r + 0.0,
      mmax(1.0, f), icol, ocol)
  end
end
FUNCTIONS.nvgBoxGradient = box_gradient("box", "nvgBoxGradient")
FUNCTIONS.nvgBoxGradientGaussian = box_gradient("box_gaussian", "nvgBoxGradientGaussian")
local function image_pattern(fname, ctx, ox, oy, ex, ey, angle, image, col)
  ctx_of(ctx, fname)
  local cs, sn = mcos(angle), msin(angle)
  return new_paint("image", cs, sn, -sn, cs, ox + 0.0, oy + 0.0, ex + 0.0, ey + 0.0, 0.0, 0.0, col, col, image)
end
FUNCTIONS.nvgImagePattern = function(ctx, ox, oy, ex, ey, angle, image, alpha)
  return image_pattern("nvgImagePattern", ctx, ox, oy, ex, ey, angle, image, new_color(1.0, 1.0, 1.0, alpha + 0.0))
end
FUNCTIONS.nvgImagePatternTinted = function(ctx, ox, oy, ex, ey, angle, image, col)
  color_of(col, "nvgImagePatternTinted", 8)
  return image_pattern("nvgImagePatternTinted", ctx, ox, oy, ex, ey, angle, image, col)
end

FUNCTIONS.nvgFillColor = function(ctx, col)
  local st = ctx_of(ctx, "nvgFillColor").st
  if dgetmt(col) ~= COLOR_MT then bad_arg("nvgFillColor", 2, "NVGcolor", col) end
  local r, g, b, a = col.r, col.g, col.b, col.a
  st.fk, st.fr, st.fg, st.fb, st.fa, st.fr2, st.fg2, st.fb2, st.fa2, st.fimg = "color", r, g, b, a, r, g, b, a, nil
end
FUNCTIONS.nvgStrokeColor = function(ctx, col)
  local st = ctx_of(ctx, "nvgStrokeColor").st
  if dgetmt(col) ~= COLOR_MT then bad_arg("nvgStrokeColor", 2, "NVGcolor", col) end
  local r, g, b, a = col.r, col.g, col.b, col.a
  st.sk, st.sr, st.sg, st.sb, st.sa, st.sr2, st.sg2, st.sb2, st.sa2, st.simg = "color", r, g, b, a, r, g, b, a, nil
end
local function paint_fields(p, fname)
  if dgetmt(p) ~= PAINT_MT then bad_arg(fname, 2, "NVGpaint", p) end
  local i, o = p.innerColor, p.outerColor
  local img = p.image
  if img == 0 then img = nil end
  return PAINT_KIND[p] or "paint", i.r, i.g, i.b, i.a, o.r, o.g, o.b, o.a, img
end
FUNCTIONS.nvgFillPaint = function(ctx, p)
  local st = ctx_of(ctx, "nvgFillPaint").st
  st.fk, st.fr, st.fg, st.fb, st.fa, st.fr2, st.fg2, st.fb2, st.fa2, st.fimg = paint_fields(p, "nvgFillPaint")
end
FUNCTIONS.nvgStrokePaint = function(ctx, p)
  local st = ctx_of(ctx, "nvgStrokePaint").st
  st.sk, st.sr, st.sg, st.sb, st.sa, st.sr2, st.sg2, st.sb2, st.sa2, st.simg = paint_fields(p, "nvgStrokePaint")
end

----------------------------------------------------------------------------------------------------
-- transforms
----------------------------------------------------------------------------------------------------
-- state = t * state (t applied first), as nvgTransformPremultiply
local function premultiply(st, ta, tb, tc, td, te, tf)
  local a, b, c, d, e, f = st.a, st.b, st.c, st.d, st.e, st.f
  st.a, st.b = ta * a + tb * c, ta * b + tb * d
  st.c, st.d = tc * a + td * c, tc * b + td * d
  st.e, st.f = te * a + tf * c + e, te * b + tf * d + f
end
FUNCTIONS.nvgResetTransform = function(ctx)
  local st = ctx_of(ctx, "nvgResetTransform").st
  st.a, st.b, st.c, st.d, st.e, st.f = 1.0, 0.0, 0.0, 1.0, 0.0, 0.0
end
FUNCTIONS.nvgTransform = function(ctx, a, b, c, d, e, f)
  premultiply(ctx_of(ctx, "nvgTransform").st, a, b, c, d, e, f)
end
FUNCTIONS.nvgTranslate = function(ctx, x, y)
  local st = ctx_of(ctx, "nvgTranslate").st
  st.e, st.f = x * st.a + y * st.c + st.e, x * st.b + y * st.d + st.f
end
FUNCTIONS.nvgScale = function(ctx, x, y)
  local st = ctx_of(ctx, "nvgScale").st
  st.a, st.b, st.c, st.d = st.a * x, st.b * x, st.c * y, st.d * y
end
FUNCTIONS.nvgRotate = function(ctx, angle)
  local cs, sn = mcos(angle), msin(angle)
  premultiply(ctx_of(ctx, "nvgRotate").st, cs, sn, -sn, cs, 0.0, 0.0)
end
FUNCTIONS.nvgSkewX = function(ctx, angle) premultiply(ctx_of(ctx, "nvgSkewX").st, 1.0, 0.0, mtan(angle), 1.0, 0.0, 0.0) end
FUNCTIONS.nvgSkewY = function(ctx, angle) premultiply(ctx_of(ctx, "nvgSkewY").st, 1.0, mtan(angle), 0.0, 1.0, 0.0, 0.0) end
FUNCTIONS.nvgCurrentTransform = function(ctx, xform)
  local st = ctx_of(ctx, "nvgCurrentTransform").st
  if type(xform) ~= "table" then bad_arg("nvgCurrentTransform", 2, "table", xform) end
  xform[1], xform[2], xform[3], xform[4], xform[5], xform[6] = st.a, st.b, st.c, st.d, st.e, st.f
end
local function set6(fname, dst, a, b, c, d, e, f)
  if type(dst) ~= "table" then bad_arg(fname, 1, "table", dst) end
  dst[1], dst[2], dst[3], dst[4], dst[5], dst[6] = a, b, c, d, e, f
end
FUNCTIONS.nvgTransformIdentity = function(t) set6("nvgTransformIdentity", t, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0) end
FUNCTIONS.nvgTransformTranslate = function(t, tx, ty) set6("nvgTransformTranslate", t, 1.0, 0.0, 0.0, 1.0, tx, ty) end
FUNCTIONS.nvgTransformScale = function(t, sx, sy) set6("nvgTransformScale", t, sx, 0.0, 0.0, sy, 0.0, 0.0) end
FUNCTIONS.nvgTransformRotate = function(t, a)
  local cs, sn = mcos(a), msin(a)
  set6("nvgTransformRotate", t, cs, sn, -sn, cs, 0.0, 0.0)
end
FUNCTIONS.nvgTransformSkewX = function(t, a) set6("nvgTransformSkewX", t, 1.0, 0.0, mtan(a), 1.0, 0.0, 0.0) end
FUNCTIONS.nvgTransformSkewY = function(t, a) set6("nvgTransformSkewY", t, 1.0, mtan(a), 0.0, 1.0, 0.0, 0.0) end

local function average_scale(st)
  local a, b, c, d = st.a, st.b, st.c, st.d
  return (msqrt(a * a + b * b) + msqrt(c * c + d * d)) * 0.5
end

-- The frame-space AABB of the local rectangle (x0, y0)-(x1, y1) under the state's transform.
local function rect_aabb(st, x0, y0, x1, y1)
  local a, b, c, d, e, f = st.a, st.b, st.c, st.d, st.e, st.f
  if b == 0 and c == 0 then
    local ax, bx, ay, by = a * x0 + e, a * x1 + e, d * y0 + f, d * y1 + f
    if ax > bx then ax, bx = bx, ax end
    if ay > by then ay, by = by, ay end
    return ax, ay, bx, by
  end
  local px1, py1 = a * x0 + c * y0 + e, b * x0 + d * y0 + f
  local px2, py2 = a * x1 + c * y0 + e, b * x1 + d * y0 + f
  local px3, py3 = a * x1 + c * y1 + e, b * x1 + d * y1 + f
  local px4, py4 = a * x0 + c * y1 + e, b * x0 + d * y1 + f
  return mmin(px1, px2, px3, px4), mmin(py1, py2, py3, py4), mmax(px1, px2, px3, px4), mmax(py1, py2, py3, py4)
end

-- Scissor: kept as an AABB in frame coordinates (exact for transforms without rotation).
FUNCTIONS.nvgScissor = function(ctx, x, y, w, h)
  local st = ctx_of(ctx, "nvgScissor").st
  w, h = mmax(0.0, w), mmax(0.0, h)
  st.sc = true
  st.sx0, st.sy0, st.sx1, st.sy1 = rect_aabb(st, x, y, x + w, y + h)
end
FUNCTIONS.nvgIntersectScissor = function(ctx, x, y, w, h)
  local st = ctx_of(ctx, "nvgIntersectScissor").st
  w, h = mmax(0.0, w), mmax(0.0, h)
  local x0, y0, x1, y1 = rect_aabb(st, x, y, x + w, y + h)
  if st.sc then
    x0, y0, x1, y1 = mmax(x0, st.sx0), mmax(y0, st.sy0), mmin(x1, st.sx1), mmin(y1, st.sy1)
    if x1 < x0 then x1 = x0 end
    if y1 < y0 then y1 = y0 end
  end
  st.sc, st.sx0, st.sy0, st.sx1, st.sy1 = true, x0, y0, x1, y1
end
FUNCTIONS.nvgResetScissor = function(ctx) ctx_of(ctx, "nvgResetScissor").st.sc = false end

----------------------------------------------------------------------------------------------------
-- paths
----------------------------------------------------------------------------------------------------
local function add_box(c, x0, y0, x1, y1)   -- frame-space box
  if c.pn == 0 then
    c.pminx, c.pminy, c.pmaxx, c.pmaxy = x0, y0, x1, y1
  else
    if x0 < c.pminx then c.pminx = x0 end
    if y0 < c.pminy then c.pminy = y0 end
    if x1 > c.pmaxx then c.pmaxx = x1 end
    if y1 > c.pmaxy then c.pmaxy = y1 end
  end
  c.pn = c.pn + 1
end
local function add_point(c, st, x, y)       -- a local point
  local px, py = st.a * x + st.c * y + st.e, st.b * x + st.d * y + st.f
  add_box(c, px, py, px, py)
  c.cx, c.cy = x, y
end
local function kind_of(c, kind)
  local k = c.pkind
  if k == nil then c.pkind = kind elseif k ~= kind then c.pkind = "mixed" end
end

FUNCTIONS.nvgBeginPath = function(ctx)
  local c = ctx_of(ctx, "nvgBeginPath")
  c.pn, c.pkind, c.psub = 0, nil, false
end
FUNCTIONS.nvgMoveTo = function(ctx, x, y)
  local c = ctx_of(ctx, "nvgMoveTo")
  add_point(c, c.st, x, y)
  kind_of(c, "path")
  c.psub = true
end
FUNCTIONS.nvgLineTo = function(ctx, x, y)
  local c = ctx_of(ctx, "nvgLineTo")
  add_point(c, c.st, x, y)
  kind_of(c, "path")
  c.psub = true
end
FUNCTIONS.nvgBezierTo = function(ctx, c1x, c1y, c2x, c2y, x, y)
  local c = ctx_of(ctx, "nvgBezierTo")
  local st = c.st
  add_point(c, st, c1x, c1y)
  add_point(c, st, c2x, c2y)
  add_point(c, st, x, y)
  kind_of(c, "path")
  c.psub = true
end
FUNCTIONS.nvgQuadTo = function(ctx, qx, qy, x, y)
  local c = ctx_of(ctx, "nvgQuadTo")
  local st = c.st
  add_point(c, st, qx, qy)
  add_point(c, st, x, y)
  kind_of(c, "path")
  c.psub = true
end
FUNCTIONS.nvgArcTo = function(ctx, x1, y1, x2, y2, radius)
  local c = ctx_of(ctx, "nvgArcTo")
  local st = c.st
  if not c.psub then return end
  local x0, y0 = c.cx, c.cy
  local dx0, dy0, dx1, dy1 = x0 - x1, y0 - y1, x2 - x1, y2 - y1
  local l0, l1 = msqrt(dx0 * dx0 + dy0 * dy0), msqrt(dx1 * dx1 + dy1 * dy1)
  if l0 < 1e-6 or l1 < 1e-6 or radius < 1e-6 then
    add_point(c, st, x1, y1)
    return
  end
  dx0, dy0, dx1, dy1 = dx0 / l0, dy0 / l0, dx1 / l1, dy1 / l1
  local a = macos(clampf(dx0 * dx1 + dy0 * dy1, -1.0, 1.0))
  local t = mtan(a / 2.0)
  if a < 1e-6 or mabs(t) < 1e-9 then
    add_point(c, st, x1, y1)
    return
  end
  local d = radius / t
  add_point(c, st, x1 + dx0 * d, y1 + dy0 * d)
  add_point(c, st, x1, y1)
  add_point(c, st, x1 + dx1 * d, y1 + dy1 * d)
  kind_of(c, "path")
end
FUNCTIONS.nvgClosePath = function(ctx) ctx_of(ctx, "nvgClosePath") end
FUNCTIONS.nvgPathWinding = function(ctx, dir) ctx_of(ctx, "nvgPathWinding") end

-- The points of an elliptical arc that bound it: its ends and the axis extremes it passes.
local function arc_points(c, st, cx, cy, rx, ry, rot, a0, a1, dir)
  local da = a1 - a0
  local two_pi = mpi * 2
  if dir == NVG_CW then
    if mabs(da) >= two_pi then da = two_pi else while da < 0.0 do da = da + two_pi end end
  else
    if mabs(da) >= two_pi then da = -two_pi else while da > 0.0 do da = da - two_pi end end
  end
  local cr, sr = mcos(rot), msin(rot)
  local function at(ang)
    local ex, ey = mcos(ang) * rx, msin(ang) * ry
    add_point(c, st, cx + ex * cr - ey * sr, cy + ex * sr + ey * cr)
  end
  at(a0)
  local lo, hi = a0, a0 + da
  if lo > hi then lo, hi = hi, lo end
  if rot == 0 then
    local k = mceil(lo / (mpi / 2))
    while k * (mpi / 2) < hi and k < mceil(lo / (mpi / 2)) + 5 do
      at(k * (mpi / 2))
      k = k + 1
    end
  else
    for i = 1, 16 do at(lo + (hi - lo) * i / 16) end
  end
  at(a0 + da)
end
FUNCTIONS.nvgArc = function(ctx, cx, cy, r, a0, a1, dir)
  local c = ctx_of(ctx, "nvgArc")
  arc_points(c, c.st, cx, cy, r, r, 0, a0, a1, dir)
  kind_of(c, "path")
  c.psub = true
end
FUNCTIONS.nvgEllipseArc = function(ctx, cx, cy, rx, ry, rot, a0, a1, dir)
  local c = ctx_of(ctx, "nvgEllipseArc")
  arc_points(c, c.st, cx, cy, rx, ry, rot, a0, a1, dir)
  kind_of(c, "path")
  c.psub = true
end
local function shape(fname, kind)
  return function(ctx, x0, y0, x1, y1)
    local c = ctx_of(ctx, fname)
    add_box(c, rect_aabb(c.st, x0, y0, x1, y1))
    kind_of(c, kind)
    c.psub = false
  end
end
local rect_shape = shape("nvgRect", "rect")
FUNCTIONS.nvgRect = function(ctx, x, y, w, h) return rect_shape(ctx, x, y, x + w, y + h) end
local rrect_shape = shape("nvgRoundedRect", "rounded_rect")
FUNCTIONS.nvgRoundedRect = function(ctx, x, y, w, h, _r) return rrect_shape(ctx, x, y, x + w, y + h) end
local rrectv_shape = shape("nvgRoundedRectVarying", "rounded_rect")
FUNCTIONS.nvgRoundedRectVarying = function(ctx, x, y, w, h) return rrectv_shape(ctx, x, y, x + w, y + h) end
local ellipse_shape = shape("nvgEllipse", "ellipse")
FUNCTIONS.nvgEllipse = function(ctx, cx, cy, rx, ry) return ellipse_shape(ctx, cx - rx, cy - ry, cx + rx, cy + ry) end
local circle_shape = shape("nvgCircle", "circle")
FUNCTIONS.nvgCircle = function(ctx, cx, cy, r) return circle_shape(ctx, cx - r, cy - r, cx + r, cy + r) end

----------------------------------------------------------------------------------------------------
-- recording
----------------------------------------------------------------------------------------------------
local function image_name(c, handle)
  local im = handle and c.images[handle]
  return im and im.name or nil
end

-- Clip a frame-space box to the scissor and scale it to the screen.
local function to_screen(c, st, x0, y0, x1, y1)
  if st.sc then
    if x0 < st.sx0 then x0 = st.sx0 end
    if y0 < st.sy0 then y0 = st.sy0 end
    if x1 > st.sx1 then x1 = st.sx1 end
    if y1 > st.sy1 then y1 = st.sy1 end
    if x1 < x0 then x1 = x0 end
    if y1 < y0 then y1 = y0 end
  end
  local sx, sy = c.vsx, c.vsy
  return x0 * sx, y0 * sy, x1 * sx, y1 * sy
end

local function record_path(c, stroke)
  if not c.in_frame or c.pn == 0 then return end
  local st = c.st
  local x0, y0, x1, y1 = c.pminx, c.pminy, c.pmaxx, c.pmaxy
  local alpha = st.alpha
  local b, buf = c.n, c.buf
  c.n = b + K
  if stroke then
    local w = clampf(st.sw * average_scale(st), 0.0, 200.0)
    local hw = w * 0.5
    x0, y0, x1, y1 = to_screen(c, st, x0 - hw, y0 - hw, x1 + hw, y1 + hw)
    buf[b + F_KIND], buf[b + F_PAINT], buf[b + F_WIDTH] = "stroke", st.sk, w * c.vsx
    buf[b + F_R], buf[b + F_G], buf[b + F_B], buf[b + F_A] = st.sr, st.sg, st.sb, st.sa * alpha
    buf[b + F_R2], buf[b + F_G2], buf[b + F_B2], buf[b + F_A2] = st.sr2, st.sg2, st.sb2, st.sa2 * alpha
    buf[b + F_IMAGE], buf[b + F_IMAGE_NAME] = st.simg, st.simg and image_name(c, st.simg) or nil
  else
    x0, y0, x1, y1 = to_screen(c, st, x0, y0, x1, y1)
    buf[b + F_KIND], buf[b + F_PAINT], buf[b + F_WIDTH] = "fill", st.fk, nil
    buf[b + F_R], buf[b + F_G], buf[b + F_B], buf[b + F_A] = st.fr, st.fg, st.fb, st.fa * alpha
    buf[b + F_R2], buf[b + F_G2], buf[b + F_B2], buf[b + F_A2] = st.fr2, st.fg2, st.fb2, st.fa2 * alpha
    buf[b + F_IMAGE], buf[b + F_IMAGE_NAME] = st.fimg, st.fimg and image_name(c, st.fimg) or nil
  end
  buf[b + F_SHAPE], buf[b + F_CTX] = c.pkind, c.id
  buf[b + F_X0], buf[b + F_Y0], buf[b + F_X1], buf[b + F_Y1] = x0, y0, x1, y1
end
FUNCTIONS.nvgFill = function(ctx) record_path(ctx_of(ctx, "nvgFill"), false) end
FUNCTIONS.nvgStroke = function(ctx) record_path(ctx_of(ctx, "nvgStroke"), true) end

----------------------------------------------------------------------------------------------------
-- images
----------------------------------------------------------------------------------------------------
local function be16(s, i) local a, b = sbyte(s, i, i + 1); return (a or 0) * 256 + (b or 0) end
local function le16(s, i) local a, b = sbyte(s, i, i + 1); return (b or 0) * 256 + (a or 0) end
local function le24(s, i) local a, b, c = sbyte(s, i, i + 2); return ((c or 0) << 16) | ((b or 0) << 8) | (a or 0) end
-- Width and height from an image file's header (PNG, JPEG, GIF, BMP, WebP, DDS, KTX), or nil.
local function image_size(data)
  if #data < 24 then return nil end
  if ssub(data, 1, 8) == "\137PNG\r\n\26\n" then
    return sunpack(">I4I4", data, 17)
  end
  if ssub(data, 1, 2) == "\255\216" then
    local i = 3
    while i + 8 < #data do
      if sbyte(data, i) ~= 0xFF then i = i + 1
      else
        local m = sbyte(data, i + 1)
        if m >= 0xC0 and m <= 0xCF and m ~= 0xC4 and m ~= 0xC8 and m ~= 0xCC then
          return be16(data, i + 7), be16(data, i + 5)
        elseif m == 0xD8 or (m >= 0xD0 and m <= 0xD7) or m == 0x01 or m == 0xFF then
          i = i + (m == 0xFF and 1 or 2)
        else
          i = i + 2 + be16(data, i + 2)
        end
      end
    end
    return nil
  end
  if ssub(data, 1, 4) == "GIF8" then return le16(data, 7), le16(data, 9) end
  if ssub(data, 1, 2) == "BM" then
    local w, h = sunpack("<i4i4", data, 19)
    return w, mabs(h)
  end
  if ssub(data, 1, 4) == "RIFF" and ssub(data, 9, 12) == "WEBP" then
    local chunk = ssub(data, 13, 16)
    if chunk == "VP8X" then return le24(data, 25) + 1, le24(data, 28) + 1 end
    if chunk == "VP8L" then
      local b1, b2, b3, b4 = sbyte(data, 22, 25)
      local bits = b1 | (b2 << 8) | (b3 << 16) | (b4 << 24)
      return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    end
    if chunk == "VP8 " then return le16(data, 27) & 0x3FFF, le16(data, 29) & 0x3FFF end
    return nil
  end
  if ssub(data, 1, 4) == "DDS " then
    local h, w = sunpack("<I4I4", data, 13)
    return w, h
  end
  if ssub(data, 1, 12) == "\171KTX 11\187\r\n\26\n" and #data >= 44 then
    local w, h = sunpack("<I4I4", data, 37)
    return w, h
  end
  return nil
end
E.image_size = image_size

local function normalize(name)
  name = tostring(name or ""):gsub("\\", "/"):gsub("^%./", "")
  return name
end
-- A stock resource's name: as given, or under Urho3D's resource folders (fileSystem:GetProgramDir() is "").
local function stock_name(name)
  local stripped = name:gsub("^Data/", ""):gsub("^CoreData/", "")
  return stripped
end
local function add_image(c, name, w, h, flags)
  local handle = c.next_image
  c.next_image = handle + 1
  c.images[handle] = {name = name, width = w, height = h, flags = flags or 0}
  return handle
end
FUNCTIONS.nvgCreateImage = function(ctx, path, flags)
  local c = ctx_of(ctx, "nvgCreateImage")
  local name = normalize(path)
  local found = E.find_game_file(name)
  local data = found and E.fs_read(found)
  if data == nil then
    local resources = E.host.resources or {}
    local meta = resources[name] or resources[stock_name(name)]
    if meta ~= nil and meta.width then return add_image(c, name, meta.width, meta.height, flags) end
    E.log("ERROR", sformat("nvgCreateImage: could not find image %s", name))
    return -1
  end
  local w, h = image_size(data)
  if w == nil then
    E.log("ERROR", sformat("nvgCreateImage: %s is not an image the engine can read", name))
    return -1
  end
  return add_image(c, name, w, h, flags)
end
FUNCTIONS.nvgDeleteImage = function(ctx, image) ctx_of(ctx, "nvgDeleteImage").images[image] = nil end
FUNCTIONS.nvgCreateVideo = function(ctx, texture)
  local c = ctx_of(ctx, "nvgCreateVideo")
  local r = texture and REC[texture]
  if r == nil then return 0 end
  return add_image(c, r.name ~= "" and r.name or "texture", r.width or 0, r.height or 0, 0)
end
FUNCTIONS.nvgDeleteVideo = function(ctx, image) ctx_of(ctx, "nvgDeleteVideo").images[image] = nil end
FUNCTIONS.nvgImageSize = function(ctx, image)
  local im = ctx_of(ctx, "nvgImageSize").images[image]
  if im == nil then return 0, 0 end
  return im.width, im.height
end

----------------------------------------------------------------------------------------------------
-- fonts
----------------------------------------------------------------------------------------------------
-- Font files: metrics read once by the host (engine/_fonts.py), shared by every context.
local FILES = {}
local function load_font_file(kind, key)
  local ck = kind .. ":" .. key
  local f = FILES[ck]
  if f ~= nil then return f or nil end
  if not utf8.len(key) then return nil, E.clean_string(E.clip_text(key, 200)) .. ": font name is not valid UTF-8" end
  local m, err = E.host_call(E.host.font_metrics, kind, key)
  if m == nil then
    FILES[ck] = false
    return nil, err
  end
  if m.warning then E.log("WARNING", m.warning) end
  f = {key = ck, upm = m.upm, asc = m.ascent, desc = m.descent, gap = m.line_gap, notdef = m.notdef,
    adv = m.advances, sha256 = m.sha256, os2_asc = m.os2_ascent or 0, os2_desc = m.os2_descent or 0}
  f.height = f.asc - f.desc
  FILES[ck] = f
  return f
end
local fallback_file   -- DejaVu Sans, for glyphs no font of the chain has
local function get_fallback()
  if fallback_file == nil then
    fallback_file = load_font_file("stock", "@fallback") or false
    if not fallback_file then
      E.log("ERROR", "NanoVG fallback font (DejaVu Sans) is not installed: see docs/fonts.md")
    end
  end
  return fallback_file or nil
end
-- Wide glyphs (CJK, kana, hangul, fullwidth forms, emoji) that a font lacks are one em of UrhoX's built-in
-- MiSans, whose stand-in metrics are Roboto's (hhea 1900/-500 at 2048 units per em).
local WIDE = {upm = 2048, asc = 1900, desc = -500, height = 2400}
local WIDE_RANGES = {
  {0x1100, 0x115F}, {0x2E80, 0x303E}, {0x3041, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF},
  {0xA960, 0xA97F}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F}, {0xFF00, 0xFF60},
  {0xFFE0, 0xFFE6}, {0x1F000, 0x1FAFF}, {0x20000, 0x3FFFD},
}
local function is_wide(cp)
  if cp < 0x1100 then return false end
  for i = 1, #WIDE_RANGES do
    local r = WIDE_RANGES[i]
    if cp < r[1] then return false end
    if cp <= r[2] then return true end
  end
  return false
end

-- Register the fonts UrhoX ships as resources (cache:Exists, GetResource("Font", ...)).
local RESOURCES = E.host.resources or {}
for _, name in ipairs(E.host.builtin_fonts or {}) do
  if RESOURCES[name] == nil then RESOURCES[name] = {type = "Font", size = 0} end
end

FUNCTIONS.nvgCreateFont = function(ctx, name, filename)
  local c = ctx_of(ctx, "nvgCreateFont")
  name = tostring(name)
  local fname = normalize(filename)
  local file, err
  local path = E.find_game_file(fname)
  if path ~= nil then
    file, err = load_font_file("game", path)
  else
    file, err = load_font_file("stock", stock_name(fname))
  end
  if file == nil then
    E.log("ERROR", sformat("nvgCreateFont: could not load font %s: %s", fname, tostring(err)))
    return -1
  end
  local id = #c.fonts
  c.fonts[id + 1] = {id = id, name = name, file = file, path = fname, fallbacks = {}, px = {}, wc = {}, nwc = 0}
  return id
end
local function font_by_id(c, id)
  if type(id) ~= "number" then return nil end
  local f = c.fonts[id + 1]
  if f == nil or f.deleted then return nil end
  return f
end
local function find_font(c, name)
  for _, f in ipairs(c.fonts) do
    if f.name == name and not f.deleted then return f end
  end
  return nil
end
FUNCTIONS.nvgFindFont = function(ctx, name)
  local f = find_font(ctx_of(ctx, "nvgFindFont"), name)
  return f and f.id or -1
end
FUNCTIONS.nvgDeleteFont = function(ctx, id)
  local f = font_by_id(ctx_of(ctx, "nvgDeleteFont"), id)
  if f == nil then return 0 end
  f.deleted = true
  return 1
end
local function add_fallback(base, fb)
  if base == nil or fb == nil then return 0 end
  if #base.fallbacks >= 20 then return 0 end
  base.fallbacks[#base.fallbacks + 1] = fb
  base.px, base.wc, base.nwc = {}, {}, 0
  return 1
end
FUNCTIONS.nvgAddFallbackFontId = function(ctx, base, fb)
  local c = ctx_of(ctx, "nvgAddFallbackFontId")
  return add_fallback(font_by_id(c, base), font_by_id(c, fb))
end
FUNCTIONS.nvgAddFallbackFont = function(ctx, base, fb)
  local c = ctx_of(ctx, "nvgAddFallbackFont")
  return add_fallback(find_font(c, base), find_font(c, fb))
end
FUNCTIONS.nvgFontSize = function(ctx, size) ctx_of(ctx, "nvgFontSize").st.fsize = size + 0.0 end
FUNCTIONS.nvgFontBlur = function(ctx, blur) ctx_of(ctx, "nvgFontBlur").st.blur = blur + 0.0 end
FUNCTIONS.nvgTextLetterSpacing = function(ctx, s) ctx_of(ctx, "nvgTextLetterSpacing").st.spacing = s + 0.0 end
FUNCTIONS.nvgTextLineHeight = function(ctx, h) ctx_of(ctx, "nvgTextLineHeight").st.lineh = h + 0.0 end
FUNCTIONS.nvgTextAlign = function(ctx, align) ctx_of(ctx, "nvgTextAlign").st.align = align end
FUNCTIONS.nvgFontFaceId = function(ctx, id)
  local c = ctx_of(ctx, "nvgFontFaceId")
  c.st.font = font_by_id(c, id) and id or -1
end
FUNCTIONS.nvgFontFace = function(ctx, name)
  local c = ctx_of(ctx, "nvgFontFace")
  local f = find_font(c, name)
  c.st.font = f and f.id or -1
end
FUNCTIONS.nvgForceAutoHint = function(ctx, v) ctx_of(ctx, "nvgForceAutoHint").auto_hint = v end
FUNCTIONS.nvgGetForceAutoHint = function(ctx) return ctx_of(ctx, "nvgGetForceAutoHint").auto_hint end
FUNCTIONS.nvgFontSizeMethod = function(ctx, v)
  local c = ctx_of(ctx, "nvgFontSizeMethod")
  if v ~= c.size_method then
    c.size_method = v
    for _, f in ipairs(c.fonts) do f.px, f.wc, f.nwc = {}, {}, 0 end
  end
end
FUNCTIONS.nvgGetFontSizeMethod = function(ctx) return ctx_of(ctx, "nvgGetFontSizeMethod").size_method end
FUNCTIONS.nvgTextScaleMode = function(ctx, v) ctx_of(ctx, "nvgTextScaleMode").st.scale_mode = v end

----------------------------------------------------------------------------------------------------
-- text measurement (fontstash's arithmetic at the transformed size)
----------------------------------------------------------------------------------------------------
local function trunc(v) if v >= 0 then return mfloor(v) end return mceil(v) end

-- Decode one UTF-8 code point at byte i: code point and the index after it (invalid bytes are skipped).
local function decode(s, i)
  local b = sbyte(s, i)
  if b < 0x80 then return b, i + 1 end
  local n, cp
  if b >= 0xF0 and b < 0xF8 then n, cp = 3, b & 0x07
  elseif b >= 0xE0 then n, cp = 2, b & 0x0F
  elseif b >= 0xC2 and b < 0xE0 then n, cp = 1, b & 0x1F
  else return nil, i + 1 end
  for k = 1, n do
    local x = sbyte(s, i + k)
    if x == nil or x < 0x80 or x > 0xBF then return nil, i + 1 end
    cp = (cp << 6) | (x & 0x3F)
  end
  return cp, i + n + 1
end

-- Whole-pixel advance of code point cp at isize (tenths of a pixel) for a context font and its fallbacks.
local function glyph_px(c, font, isize, cp)
  local cache = font.px[isize]
  if cache == nil then cache = {}; font.px[isize] = cache end
  local v = cache[cp]
  if v ~= nil then return v end
  local file = font.file
  local adv = file.adv[cp]
  local src = file
  if adv == nil then
    for _, fb in ipairs(font.fallbacks) do
      local a = fb.file.adv[cp]
      if a ~= nil then adv, src = a, fb.file; break end
    end
    if adv == nil then
      if is_wide(cp) then
        adv, src = WIDE.upm, WIDE
      else
        local dv = get_fallback()
        local a = dv and dv.adv[cp]
        if a ~= nil then adv, src = a, dv else adv, src = file.notdef, file end
      end
    end
  end
  local size = isize / 10.0
  local scale
  if c.size_method == 1 then scale = size * 96.0 / 72.0 / src.upm else scale = size / src.height end
  local xadv10 = trunc(scale * adv * 10.0)
  v = trunc(xadv10 / 10.0 + 0.5)
  cache[cp] = v
  return v
end

-- The text style at the current transform: font, fontstash size (tenths), whole-pixel spacing, scale.
local function text_style(c)
  local st = c.st
  local font = font_by_id(c, st.font)
  if font == nil then return nil end
  local fscale
  if st.scale_mode == 1 then
    fscale = c.dpr or 1.0
  else
    fscale = mmin(mfloor(average_scale(st) / 0.01 + 0.5) * 0.01, 4.0) * (c.dpr or 1.0)
  end
  if fscale <= 0 then fscale = 1.0 end
  local isize = trunc(st.fsize * fscale * 10.0)
  local spacing = trunc(st.spacing * fscale + 0.5)
  return font, isize, spacing, fscale
end

-- Advance of a whole string in fontstash pixels.
local function advance_of(c, font, isize, spacing, s)
  if isize < 2 then return 0 end
  local wc
  if spacing == 0 then
    wc = font.wc[isize]
    if wc == nil then wc = {}; font.wc[isize] = wc end
    local w = wc[s]
    if w ~= nil then return w end
  end
  local x, i, n, first = 0, 1, #s, true
  while i <= n do
    local cp
    cp, i = decode(s, i)
    if cp ~= nil then
      if first then first = false else x = x + spacing end
      x = x + glyph_px(c, font, isize, cp)
    end
  end
  if wc then
    if font.nwc > 4096 then font.wc, font.nwc = {}, 0; wc = {}; font.wc[isize] = wc end
    wc[s] = x
    font.nwc = font.nwc + 1
  end
  return x
end

-- Vertical metrics in fontstash pixels: ascender, descender, line height.
local function vmetrics(font, isize)
  local f = font.file
  local size = isize / 10.0
  return f.asc / f.height * size, f.desc / f.height * size, (f.height + f.gap) / f.height * size
end
local function valign_offset(align, asc, desc)
  if align & ALIGN_TOP ~= 0 then return asc
  elseif align & ALIGN_MIDDLE ~= 0 then return (asc + desc) / 2.0
  elseif align & ALIGN_BASELINE ~= 0 then return 0.0
  elseif align & ALIGN_BOTTOM ~= 0 then return desc
  elseif align & ALIGN_CENTER_VISUAL ~= 0 then return (asc + desc) / 2.0 end
  return 0.0
end
local function halign_shift(align, width)
  if align & ALIGN_LEFT ~= 0 then return 0.0
  elseif align & ALIGN_RIGHT ~= 0 then return width
  elseif align & ALIGN_CENTER ~= 0 then return width * 0.5 end
  return 0.0
end

-- Draw (record) one line of text; returns the x after it, as nvgText.
local function draw_text(c, x, y, s, box_text)
  local st = c.st
  local font, isize, spacing, fscale = text_style(c)
  if font == nil then return x end
  local inv = 1.0 / fscale
  local adv = advance_of(c, font, isize, spacing, s)
  local align = st.align
  local sx = x * fscale - halign_shift(align, adv)
  local asc, desc, lineh = 0.0, 0.0, 0.0
  if isize >= 2 then asc, desc, lineh = vmetrics(font, isize) end
  local base = y * fscale + valign_offset(align, asc, desc)
  local endx = (sx + adv) * inv
  if c.in_frame and isize >= 2 and s ~= "" then
    local lx0, lx1 = sx * inv, endx
    local ly0 = (base - asc) * inv
    local ly1 = ly0 + lineh * inv
    local x0, y0, x1, y1 = to_screen(c, st, rect_aabb(st, lx0, ly0, lx1, ly1))
    local ax, ay = st.a * x + st.c * y + st.e, st.b * x + st.d * y + st.f
    local b, buf = c.n, c.buf
    c.n = b + K
    buf[b + F_KIND], buf[b + F_SHAPE], buf[b + F_PAINT], buf[b + F_CTX] = "text", nil, st.fk, c.id
    buf[b + F_X0], buf[b + F_Y0], buf[b + F_X1], buf[b + F_Y1] = x0, y0, x1, y1
    buf[b + F_R], buf[b + F_G], buf[b + F_B], buf[b + F_A] = st.fr, st.fg, st.fb, st.fa * st.alpha
    buf[b + F_TEXT], buf[b + F_BOX_TEXT], buf[b + F_X], buf[b + F_Y] = s, box_text, ax * c.vsx, ay * c.vsy
    buf[b + F_ALIGN], buf[b + F_FACE], buf[b + F_FONT_FILE] = align, font.name, font.path
    buf[b + F_SIZE], buf[b + F_SCREEN_SIZE] = st.fsize, st.fsize * average_scale(st) * c.vsy
  end
  return endx
end

FUNCTIONS.nvgText = function(ctx, x, y, s, _end)
  local c = ctx_of(ctx, "nvgText")
  if type(s) ~= "string" then
    if type(s) == "number" then s = tostring(s) else bad_arg("nvgText", 4, "string", s) end
  end
  return draw_text(c, x, y, s, nil)
end

FUNCTIONS.nvgTextBounds = function(ctx, x, y, s, a5, a6)
  local c = ctx_of(ctx, "nvgTextBounds")
  if type(s) ~= "string" then
    if type(s) == "number" then s = tostring(s) else bad_arg("nvgTextBounds", 4, "string", s) end
  end
  local bounds = type(a5) == "table" and a5 or type(a6) == "table" and a6 or {0.0, 0.0, 0.0, 0.0}
  local font, isize, spacing, fscale = text_style(c)
  if font == nil then return 0.0, bounds end
  local inv = 1.0 / fscale
  local adv = advance_of(c, font, isize, spacing, s)
  local align = c.st.align
  local asc, desc, lineh = 0.0, 0.0, 0.0
  if isize >= 2 then asc, desc, lineh = vmetrics(font, isize) end
  local sx = x * fscale - halign_shift(align, adv)
  local miny = y * fscale + valign_offset(align, asc, desc) - asc
  bounds[1], bounds[2], bounds[3], bounds[4] = sx * inv, miny * inv, (sx + adv) * inv, (miny + lineh) * inv
  return adv * inv, bounds
end

FUNCTIONS.nvgTextMetrics = function(ctx)
  local c = ctx_of(ctx, "nvgTextMetrics")
  local font, isize, _, fscale = text_style(c)
  if font == nil then return 0.0, 0.0, 0.0 end
  if isize < 2 then return 0.0, 0.0, 0.0 end
  local asc, desc, lineh = vmetrics(font, isize)
  local inv = 1.0 / fscale
  return asc * inv, desc * inv, lineh * inv
end

-- nanovg's nvgTextBreakLines, with byte indices: rows {start, stop (exclusive), next, width, minx, maxx}.
local SPACE, NEWLINE, CHAR, CJK = 0, 1, 2, 3
local function char_type(cp, pcp)
  if cp == 9 or cp == 11 or cp == 12 or cp == 32 or cp == 0xA0 then return SPACE end
  if cp == 10 then return pcp == 13 and SPACE or NEWLINE end
  if cp == 13 then return pcp == 10 and SPACE or NEWLINE end
  if cp == 0x85 then return NEWLINE end
  if (cp >= 0x4E00 and cp <= 0x9FFF) or (cp >= 0x3000 and cp <= 0x30FF) or (cp >= 0xFF00 and cp <= 0xFFEF)
    or (cp >= 0x1100 and cp <= 0x11FF) or (cp >= 0x3130 and cp <= 0x318F) or (cp >= 0xAC00 and cp <= 0xD7AF) then
    return CJK
  end
  return CHAR
end
local function break_lines(c, s, break_width, max_rows)
  local rows = {}
  local font, isize, spacing, fscale = text_style(c)
  if font == nil or s == "" or max_rows == 0 then return rows end
  local inv = 1.0 / fscale
  break_width = break_width * fscale
  local row_start_x, row_width, row_min_x, row_max_x = 0.0, 0.0, 0.0, 0.0
  local row_start, row_end, word_start = nil, nil, nil
  local word_start_x, word_min_x = 0.0, 0.0
  local break_end, break_width_, break_max_x = nil, 0.0, 0.0
  local ptype, pcp = SPACE, 0
  local nextx, first = 0.0, true
  local i, n = 1, #s
  local function push(start, stop, nxt, width, minx, maxx)
    rows[#rows + 1] = {start = start, stop = stop, next = nxt, width = width * inv, minx = minx * inv,
      maxx = maxx * inv}
    return #rows >= max_rows
  end
  while i <= n do
    local str = i
    local cp
    cp, i = decode(s, i)
    if cp ~= nil then
      local it_x = nextx
      if first then first = false else nextx = nextx + spacing end
      local q0 = nextx
      nextx = nextx + (isize >= 2 and glyph_px(c, font, isize, cp) or 0)
      local q1 = nextx
      local it_next = i
      local t = char_type(cp, pcp)
      if t == NEWLINE then
        if push(row_start or str, row_end or str, it_next, row_width, row_min_x, row_max_x) then return rows end
        break_end, break_width_, break_max_x = row_start, 0.0, 0.0
        row_start, row_end, row_width, row_min_x, row_max_x = nil, nil, 0.0, 0.0, 0.0
      elseif row_start == nil then
        if t == CHAR or t == CJK then
          row_start_x, row_start, row_end = it_x, str, it_next
          row_width, row_min_x, row_max_x = nextx - row_start_x, q0 - row_start_x, q1 - row_start_x
          word_start, word_start_x, word_min_x = str, it_x, q0 - row_start_x
          break_end, break_width_, break_max_x = row_start, 0.0, 0.0
        end
      else
        local next_width = nextx - row_start_x
        if t == CHAR or t == CJK then
          row_end, row_width, row_max_x = it_next, nextx - row_start_x, q1 - row_start_x
        end
        if ((ptype == CHAR or ptype == CJK) and t == SPACE) or t == CJK then
          break_end, break_width_, break_max_x = str, row_width, row_max_x
        end
        if (ptype == SPACE and (t == CHAR or t == CJK)) or t == CJK then
          word_start, word_start_x, word_min_x = str, it_x, q0
        end
        if (t == CHAR or t == CJK) and next_width > break_width then
          if break_end == row_start then
            if push(row_start, str, str, row_width, row_min_x, row_max_x) then return rows end
            row_start_x, row_start, row_end = it_x, str, it_next
            row_width, row_min_x, row_max_x = nextx - row_start_x, q0 - row_start_x, q1 - row_start_x
            word_start, word_start_x, word_min_x = str, it_x, q0 - row_start_x
          else
            if push(row_start, break_end, word_start, break_width_, row_min_x, break_max_x) then return rows end
            row_start_x, row_start, row_end = word_start_x, word_start, it_next
            row_width, row_min_x, row_max_x = nextx - row_start_x, word_min_x - row_start_x, q1 - row_start_x
          end
          break_end, break_width_, break_max_x = row_start, 0.0, 0.0
        end
      end
      pcp, ptype = cp, t
    end
  end
  if row_start ~= nil then push(row_start, row_end, n + 1, row_width, row_min_x, row_max_x) end
  return rows
end
E.nvg_break_lines = break_lines

-- nanovg's nvgTextGlyphPositions (not exposed by UrhoX): {str = byte index, x, minx, maxx} per glyph.
local function glyph_positions(c, x, y, s)
  local out = {}
  local font, isize, spacing, fscale = text_style(c)
  if font == nil or s == "" then return out end
  local inv = 1.0 / fscale
  local adv = advance_of(c, font, isize, spacing, s)
  local nextx = x * fscale - halign_shift(c.st.align, adv)
  local i, n, first = 1, #s, true
  while i <= n do
    local str = i
    local cp
    cp, i = decode(s, i)
    if cp ~= nil then
      local it_x = nextx
      if first then first = false else nextx = nextx + spacing end
      local q0 = nextx
      nextx = nextx + (isize >= 2 and glyph_px(c, font, isize, cp) or 0)
      out[#out + 1] = {str = str, x = it_x * inv, minx = q0 * inv, maxx = nextx * inv}
    end
  end
  return out
end
E.nvg_glyph_positions = glyph_positions

FUNCTIONS.nvgTextBox = function(ctx, x, y, break_width, s, _end)
  local c = ctx_of(ctx, "nvgTextBox")
  if type(s) ~= "string" then
    if type(s) == "number" then s = tostring(s) else bad_arg("nvgTextBox", 5, "string", s) end
  end
  local st = c.st
  if font_by_id(c, st.font) == nil then return end
  local _, _, lineh = FUNCTIONS.nvgTextMetrics(ctx)
  local old = st.align
  local halign = old & (ALIGN_LEFT | ALIGN_CENTER | ALIGN_RIGHT)
  local valign = old & (ALIGN_TOP | ALIGN_MIDDLE | ALIGN_BOTTOM | ALIGN_BASELINE | ALIGN_CENTER_VISUAL)
  st.align = ALIGN_LEFT | valign
  for _, row in ipairs(break_lines(c, s, break_width, 1 << 30)) do
    local text = ssub(s, row.start, row.stop - 1)
    if halign & ALIGN_LEFT ~= 0 then
      draw_text(c, x, y, text, s)
    elseif halign & ALIGN_CENTER ~= 0 then
      draw_text(c, x + break_width * 0.5 - row.width * 0.5, y, text, s)
    elseif halign & ALIGN_RIGHT ~= 0 then
      draw_text(c, x + break_width - row.width, y, text, s)
    end
    y = y + lineh * st.lineh
  end
  st.align = old
end

FUNCTIONS.nvgTextBoxBounds = function(ctx, x, y, break_width, s, a6, a7)
  local c = ctx_of(ctx, "nvgTextBoxBounds")
  if type(s) ~= "string" then
    if type(s) == "number" then s = tostring(s) else bad_arg("nvgTextBoxBounds", 5, "string", s) end
  end
  local bounds = type(a6) == "table" and a6 or type(a7) == "table" and a7 or {0.0, 0.0, 0.0, 0.0}
  local st = c.st
  local font, isize, _, fscale = text_style(c)
  if font == nil then
    bounds[1], bounds[2], bounds[3], bounds[4] = 0.0, 0.0, 0.0, 0.0
    return bounds
  end
  local _, _, lineh = FUNCTIONS.nvgTextMetrics(ctx)
  local old = st.align
  local halign = old & (ALIGN_LEFT | ALIGN_CENTER | ALIGN_RIGHT)
  local valign = old & (ALIGN_TOP | ALIGN_MIDDLE | ALIGN_BOTTOM | ALIGN_BASELINE | ALIGN_CENTER_VISUAL)
  st.align = ALIGN_LEFT | valign
  local minx, miny, maxx, maxy = x, y, x, y
  local rminy, rmaxy = 0.0, 0.0
  if isize >= 2 then
    local asc, desc, lh = vmetrics(font, isize)
    rminy = (valign_offset(st.align, asc, desc) - asc) / fscale
    rmaxy = rminy + lh / fscale
  end
  for _, row in ipairs(break_lines(c, s, break_width, 1 << 30)) do
    local dx = 0.0
    if halign & ALIGN_LEFT ~= 0 then dx = 0.0
    elseif halign & ALIGN_CENTER ~= 0 then dx = break_width * 0.5 - row.width * 0.5
    elseif halign & ALIGN_RIGHT ~= 0 then dx = break_width - row.width end
    local rminx, rmaxx = x + row.minx + dx, x + row.maxx + dx
    if rminx < minx then minx = rminx end
    if rmaxx > maxx then maxx = rmaxx end
    if y + rminy < miny then miny = y + rminy end
    if y + rmaxy > maxy then maxy = y + rmaxy end
    y = y + lineh * st.lineh
  end
  st.align = old
  bounds[1], bounds[2], bounds[3], bounds[4] = minx, miny, maxx, maxy
  return bounds
end

-- Native UI text (Text, LineEdit) measures with the same font files, the way Urho3D's FreeType faces do
-- (UI/FontFaceFreeType.cpp): a face of pointSize is y_ppem = round(pointSize * 96 / 72) pixels, advances are
-- hinted, so whole pixels; ascender and row height come from hhea, raised by OS/2's win/typo metrics.
-- Glyphs the font lacks fall back as NanoVG's do (wide ones one em of MiSans' stand-in, others DejaVu Sans).
local UI_FACES = {}
local function ui_font_file(name)
  local fname = normalize(name)
  local path = E.find_game_file(fname)
  if path ~= nil then return load_font_file("game", path) end
  return load_font_file("stock", stock_name(fname))
end
function E.ui_font_face(name, point_size)
  local key = tostring(name) .. "@" .. tostring(point_size)
  local face = UI_FACES[key]
  if face ~= nil then return face or nil end
  local file = ui_font_file(name)
  if file == nil then
    UI_FACES[key] = false
    return nil
  end
  local ppem = mfloor(trunc(point_size * 64) * 96 / 72 / 64 + 0.5)
  local scale = ppem / file.upm
  local asc = math.ceil(file.asc * scale)
  local height = mfloor((file.asc - file.desc + file.gap) * scale + 0.5)
  local os2_asc, os2_desc = file.os2_asc * scale, file.os2_desc * scale
  local ascender = mmax(asc, os2_asc)
  local descender = mmax(mfloor(file.desc * scale), os2_desc)
  face = {file = file, ppem = ppem, ascender = ascender, row_height = mmax(height, ascender + descender), px = {}}
  UI_FACES[key] = face
  return face
end
function E.ui_glyph_advance(face, cp)
  local v = face.px[cp]
  if v ~= nil then return v end
  local file = face.file
  local adv, upm = file.adv[cp], file.upm
  if adv == nil then
    if is_wide(cp) then
      adv, upm = WIDE.upm, WIDE.upm
    else
      local dv = get_fallback()
      local a = dv and dv.adv[cp]
      if a ~= nil then adv, upm = a, dv.upm else adv = file.notdef end
    end
  end
  v = mfloor(adv * face.ppem / upm + 0.5)
  face.px[cp] = v
  return v
end

-- Text measurement for the engine's own users (the battery, tests): the advance of s in a context's style.
function E.nvg_measure(ctx, s)
  local c = CTX[ctx]
  if c == nil then return nil end
  local font, isize, spacing, fscale = text_style(c)
  if font == nil then return nil end
  return advance_of(c, font, isize, spacing, s) / fscale
end

----------------------------------------------------------------------------------------------------
-- dispatch: NanoVGRender after PostRenderUpdate, every live context in render order
----------------------------------------------------------------------------------------------------
local function render_order_less(x, y)
  if x.order ~= y.order then return x.order < y.order end
  return x.id < y.id
end
local function nanovg_render()
  NV.ncur = 0
  if #contexts > 0 then
    local order = {}
    for i, c in ipairs(contexts) do order[i] = c end
    table.sort(order, render_order_less)
    NV.dispatching = true
    for _, c in ipairs(order) do
      if not c.deleted then
        E.send_event("NanoVGRender", {}, c.proxy)
        if c.in_frame then c.in_frame, c.n = false, 0 end   -- a frame left open by the handler is not shown
      end
    end
    NV.dispatching = false
  end
  NV.last, NV.cur = NV.cur, NV.last
  NV.nlast, NV.last_frame = NV.ncur, clock.frame
end

-- The last frame's commands as tables, in draw order.
function E.nanovg_records()
  local out = {}
  local buf = NV.last
  for b = 0, NV.nlast - 1, K do
    local kind = buf[b + F_KIND]
    local r = {kind = kind, shape = buf[b + F_SHAPE], x0 = buf[b + F_X0], y0 = buf[b + F_Y0], x1 = buf[b + F_X1],
      y1 = buf[b + F_Y1], paint = buf[b + F_PAINT], r = buf[b + F_R], g = buf[b + F_G], b = buf[b + F_B],
      a = buf[b + F_A], ctx = buf[b + F_CTX]}
    if kind == "text" then
      r.text, r.box_text, r.x, r.y = buf[b + F_TEXT], buf[b + F_BOX_TEXT], buf[b + F_X], buf[b + F_Y]
      r.align, r.face, r.font_file = buf[b + F_ALIGN], buf[b + F_FACE], buf[b + F_FONT_FILE]
      r.size, r.screen_size = buf[b + F_SIZE], buf[b + F_SCREEN_SIZE]
    else
      r.r2, r.g2, r.b2, r.a2 = buf[b + F_R2], buf[b + F_G2], buf[b + F_B2], buf[b + F_A2]
      r.image, r.image_name, r.width = buf[b + F_IMAGE], buf[b + F_IMAGE_NAME], buf[b + F_WIDTH]
    end
    out[#out + 1] = r
  end
  return out
end
local previous_hook = E.render_hook
E.render_hook = function(step)
  if previous_hook then previous_hook(step) end
  nanovg_render()
end

----------------------------------------------------------------------------------------------------
-- argument checks from the registry (engine/api/nanovg.api), made before the function runs as tolua makes them:
-- a live NVGContextWrapper, numbers (numeric strings converted, as lua_tonumber does), NVGcolor and NVGpaint
-- values.  Each nvg* function above is wrapped once, by code generated from its declaration; the wrapper
-- tail-calls the function, so the errors of both name the game's line.  Without these checks a wrong value was
-- stored in the context and failed later inside the engine (a render order that is a table broke the frame).
----------------------------------------------------------------------------------------------------
do
  local function arg_error(fname, n, expected, got)
    -- arg_error <- check <- wrapper <- the game
    error(sformat("bad argument #%d to '%s' (%s expected, got %s)", n, fname, expected, type_name_of(got)), 4)
  end
  local C = {
    ctx = function(v, fname, n)
      local c = CTX[v]
      if c == nil then arg_error(fname, n, "NVGContextWrapper", v) end
      if c.deleted then error(sformat("%s: the NanoVG context was deleted (nvgDelete)", fname), 3) end
    end,
    number = function(v, fname, n)
      if type(v) == "string" then
        local x = tonumber(v)
        if x ~= nil then return x end
      end
      arg_error(fname, n, "number", v)
    end,
    color = function(v, fname, n) if dgetmt(v) ~= COLOR_MT then arg_error(fname, n, "NVGcolor", v) end end,
    paint = function(v, fname, n) if dgetmt(v) ~= PAINT_MT then arg_error(fname, n, "NVGpaint", v) end end,
  }
  local KIND = {number = "number", integer = "number", NVGContextWrapper = "ctx", NVGcolor = "color",
    NVGpaint = "paint"}
  local function kind_of(t)
    if KIND[t] then return KIND[t] end
    if E.REGISTRY.enums[t] then return "number" end
    return nil
  end
  -- Per position: the kind every overload agrees on (nil: not checked) and whether it may be nil.
  local function plan(decl)
    local most = 0
    for _, sig in ipairs(decl.overloads) do most = math.max(most, #sig.params) end
    local out = {}
    for i = 1, most do
      local kind, optional, agree = nil, false, true
      for j, sig in ipairs(decl.overloads) do
        local p = sig.params[i]
        local k = p and kind_of(p.type)
        if p == nil or p.optional then optional = true end
        if j == 1 then kind = k elseif k ~= kind then agree = false end
      end
      out[i] = {kind = agree and kind or nil, optional = optional}
    end
    return out
  end
  local factories = {}
  local function wrap(name, impl, decl)
    local positions = plan(decl)
    local names, lines = {}, {}
    for i, p in ipairs(positions) do
      local a = "a" .. i
      names[i] = a
      if p.kind == "number" then
        lines[#lines + 1] = sformat("if type(%s) ~= 'number' %sthen %s = C.number(%s, fname, %d) end", a,
          p.optional and sformat("and %s ~= nil ", a) or "", a, a, i)
      elseif p.kind then
        lines[#lines + 1] = sformat("%sC.%s(%s, fname, %d)", p.optional and sformat("if %s ~= nil then ", a) or "",
          p.kind, a, i) .. (p.optional and " end" or "")
      end
    end
    if #lines == 0 then return impl end
    names[#names + 1] = "..."
    local params = table.concat(names, ", ")
    local src = "local impl, C, fname, type = ...\nreturn function(" .. params .. ")\n" .. table.concat(lines, "\n") ..
      "\nreturn impl(" .. params .. ")\nend"
    local factory = factories[src]   -- one compiled factory per distinct check, instantiated per function
    if factory == nil then
      factory = E.unmetered(load(src, "@engine/runtime/85_nanovg.lua (argument checks)", "t", {}))
      factories[src] = factory
    end
    return factory(impl, C, name, type)
  end
  for _, name in ipairs(E.sorted_keys(FUNCTIONS)) do
    local decl = E.REGISTRY.functions[name]
    if ssub(name, 1, 3) == "nvg" and decl then FUNCTIONS[name] = wrap(name, FUNCTIONS[name], decl) end
  end
end
