-- MathDefs and Random global functions (Urho3D's Math/MathDefs.h and Math/Random.*).
-- Float-returning functions return Lua floats (UrhoX pushes C floats); trigonometry is in degrees.
-- Random uses Urho3D's own LCG with the seed starting at 1; the float arithmetic of Random(range),
-- Random(min, max), RandomInt and RandomNormal is done in single precision, exactly as the C++ does.
local sqrt, sin, cos, tan, asin, acos, atan, floor, ceil, log, fmod =
  math.sqrt, math.sin, math.cos, math.tan, math.asin, math.acos, math.atan, math.floor, math.ceil, math.log,
  math.fmod
local MX = E.MATH
local toint, f32, cround, equals = MX.toint, MX.f32, MX.cround, MX.equals
local M_DEGTORAD, M_RADTODEG = MX.M_DEGTORAD, MX.M_RADTODEG
local F = FUNCTIONS

local function u32(v) return toint(v) & 0xFFFFFFFF end

F.Equals = function(a, b) return equals(a, b) end
F.IsNaN = function(v) return v ~= v end
F.Lerp = function(a, b, t) return (a * (1.0 - t) + b * t) * 1.0 end
F.InverseLerp = function(a, b, x) return (x - a) / (b - a) end
F.Min = function(a, b) if a < b then return a * 1.0 end return b * 1.0 end
F.Max = function(a, b) if a > b then return a * 1.0 end return b * 1.0 end
F.Abs = function(v) if v >= 0.0 then return v * 1.0 end return -v * 1.0 end
F.Sign = function(v) if v > 0.0 then return 1.0 elseif v < 0.0 then return -1.0 end return 0.0 end
local function clampf(v, lo, hi)
  if v < lo then return lo * 1.0 elseif v > hi then return hi * 1.0 end
  return v * 1.0
end
F.Clamp = clampf
F.SmoothStep = function(a, b, t)
  t = clampf((t - a) / (b - a), 0.0, 1.0)
  return t * t * (3.0 - 2.0 * t)
end
F.Sin = function(a) return sin(a * M_DEGTORAD) end
F.Cos = function(a) return cos(a * M_DEGTORAD) end
F.Tan = function(a) return tan(a * M_DEGTORAD) end
F.Asin = function(x) return M_RADTODEG * asin(clampf(x, -1.0, 1.0)) end
F.Acos = function(x) return M_RADTODEG * acos(clampf(x, -1.0, 1.0)) end
F.Atan = function(x) return M_RADTODEG * atan(x) end
F.Atan2 = function(y, x) return M_RADTODEG * atan(y * 1.0, x * 1.0) end
F.Sqrt = function(x) return sqrt(x) end
F.Pow = function(x, y) return (x * 1.0) ^ y end
F.Ln = function(x) return log(x) end
F.Mod = function(x, y) return fmod(x * 1.0, y * 1.0) end
F.Fract = function(x) return x - floor(x) * 1.0 end
F.Floor = function(x) return floor(x) * 1.0 end
F.Round = function(x) return cround(x) * 1.0 end
F.Ceil = function(x) return ceil(x) * 1.0 end
F.FloorToInt = function(x) return toint(floor(x)) end
F.RoundToInt = function(x) return toint(cround(x)) end
F.CeilToInt = function(x) return toint(ceil(x)) end
F.MinInt = function(a, b) a, b = toint(a), toint(b); if a < b then return a end return b end
F.MaxInt = function(a, b) a, b = toint(a), toint(b); if a > b then return a end return b end
F.AbsInt = function(v) v = toint(v); if v >= 0 then return v end return -v end
F.ClampInt = function(v, lo, hi)
  v, lo, hi = toint(v), toint(lo), toint(hi)
  if v < lo then return lo elseif v > hi then return hi end
  return v
end
F.IsPowerOfTwo = function(v)
  v = u32(v)
  return v ~= 0 and (v & (v - 1)) == 0
end
F.NextPowerOfTwo = function(v)
  v = (u32(v) - 1) & 0xFFFFFFFF
  v = v | (v >> 1)
  v = v | (v >> 2)
  v = v | (v >> 4)
  v = v | (v >> 8)
  v = v | (v >> 16)
  return (v + 1) & 0xFFFFFFFF
end
F.CountSetBits = function(v)
  v = u32(v)
  local n = 0
  while v ~= 0 do v = v & (v - 1); n = n + 1 end
  return n
end
F.LogBaseTwo = function(v)
  v = u32(v)
  local n = 0
  v = v >> 1
  while v ~= 0 do n = n + 1; v = v >> 1 end
  return n
end
F.SDBMHash = function(hash, c)
  hash = u32(hash)
  c = toint(c) & 0xFF
  return (c + (hash << 6) + (hash << 16) - hash) & 0xFFFFFFFF
end

----------------------------------------------------------------------------------------------------
-- Random: one global LCG state shared with the engine (particle emitters draw from it as in Urho3D)
----------------------------------------------------------------------------------------------------
local seed = 1
local function rand()
  seed = (seed * 214013 + 2531011) & 0xFFFFFFFF
  return (seed >> 16) & 32767
end
E.Rand = rand
E.SetRandomSeed = function(s) seed = u32(s) end
E.GetRandomSeed = function() return seed end

local function random01() return rand() / 32768.0 end
E.Random = random01
local function std_normal()
  local v = 0.0
  for _ = 1, 12 do v = v + rand() / 32768.0 end   -- exact in single precision
  return v - 6.0
end

F.SetRandomSeed = E.SetRandomSeed
F.GetRandomSeed = E.GetRandomSeed
F.Rand = rand
F.RandStandardNormal = std_normal
F.Random = function(a, b)
  if a == nil then return random01() end
  if b == nil then
    -- Rand() * range / 32767.0f
    return f32(f32(rand() * f32(a)) / 32767.0)
  end
  -- Rand() * (max - min) / 32767.0f + min
  local lo = f32(a)
  local span = f32(f32(b) - lo)
  return f32(f32(f32(rand() * span) / 32767.0) + lo)
end
F.RandomInt = function(a, b)
  if b == nil then
    -- (int)(Random() * range)
    return toint(f32(random01() * f32(toint(a))))
  end
  local lo = toint(a)
  local span = f32(toint(b) - lo)
  return toint(f32(random01() * span)) + lo
end
F.RandomNormal = function(mean, variance)
  return f32(f32(std_normal() * f32(sqrt(f32(variance)))) + f32(mean))
end

----------------------------------------------------------------------------------------------------
-- StringUtils: character classes and case of one character code (the C locale: ASCII only; codes of 256 and
-- above are neither letters nor digits and keep their case), hexadecimal and memory-size text.
----------------------------------------------------------------------------------------------------
local sformat = string.format
local function char_arg(v, fname)
  if type(v) ~= "number" then
    error(sformat("bad argument #1 to '%s' (number expected, got %s)", fname, type(v)), 3)
  end
  return u32(v)
end
F.IsAlpha = function(ch)
  ch = char_arg(ch, "IsAlpha")
  return (ch >= 65 and ch <= 90) or (ch >= 97 and ch <= 122)
end
F.IsDigit = function(ch)
  ch = char_arg(ch, "IsDigit")
  return ch >= 48 and ch <= 57
end
F.ToUpper = function(ch)
  ch = char_arg(ch, "ToUpper")
  if ch >= 97 and ch <= 122 then return ch - 32 end
  return ch
end
F.ToLower = function(ch)
  ch = char_arg(ch, "ToLower")
  if ch >= 65 and ch <= 90 then return ch + 32 end
  return ch
end
F.ToStringHex = function(v) return sformat("%08x", char_arg(v, "ToStringHex")) end
-- Below 1024 "<n> b"; above, the value in the largest power of 1024 it reaches, one decimal, and k M G T P E.
F.GetFileSizeString = function(size)
  if type(size) ~= "number" then
    error(sformat("bad argument #1 to 'GetFileSizeString' (number expected, got %s)", type(size)), 2)
  end
  size = toint(size)
  if size < 0 then size = 0 end
  if size < 1024 then return sformat("%d b", size) end
  local exponent = toint(floor(log(size * 1.0) / log(1024.0)))
  if exponent > 6 then exponent = 6 end
  return sformat("%.1f %s", size / 1024.0 ^ exponent, ("kMGTPE"):sub(exponent, exponent))
end
