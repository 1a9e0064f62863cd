-- Core subsystems: Time, Timer, Log, Engine, Graphics, Renderer, platform queries.  All time is virtual.
local error, type, setmetatable, tostring, select = error, type, setmetatable, tostring, select
local sformat, mfloor = string.format, math.floor
local config = E.host.config

E.clock = {frame = 0, elapsed = 0.0, step = nil}
E.on_configure(function() E.clock.step = config.time_step end)
function E.sim_time() return E.clock.elapsed end

local function object(class_name, record)
  local proxy = setmetatable({}, IMPL[class_name] and IMPL[class_name].mt or class(class_name).mt)
  E.REC[proxy] = record or {}
  return proxy
end
E.REC = setmetatable({}, {__mode = "k"})   -- object proxy -> private record
E.new_object = object
local REC = E.REC
local function rec(self, class_name)
  local r = REC[self]
  if r == nil then error(sformat("invalid 'self' in call to %s method", class_name or "engine"), 3) end
  return r
end
E.rec = rec

-- Binary data for the Python host: lupa hands a Lua string to Python as UTF-8 text, which binary data is not, so
-- bytes cross as hex (Python: bytes.fromhex).  Used for pixels and geometry (61_image.lua, 57_physics3d.lua).
local HEX = {}
for i = 0, 255 do HEX[string.char(i)] = sformat("%02x", i) end
function E.hex(s) return (string.gsub(s, ".", HEX)) end
-- The first n numbers of a list as packed little-endian single floats (what Urho3D's float data holds).
function E.pack_floats(values, n)
  local parts = {}
  for first = 1, n, 4096 do
    local last = math.min(first + 4095, n)
    parts[#parts + 1] = string.pack("<" .. string.rep("f", last - first + 1), table.unpack(values, first, last))
  end
  return table.concat(parts)
end

-- Object: the base of every subsystem and component; the script objects' SubscribeToEvent lives on
-- LuaScriptInstance, the global form in events.lua.
local Obj = class("Object")
Obj.methods.GetTypeName = function(self) return E.dgetmt(self).__name end
Obj.methods.GetType = function(self) return E.StringHash_new(E.dgetmt(self).__name) end
Obj.methods.GetCategory = function() return "" end
-- UrhoX: release the script's reference now.  Whatever else holds the object (its node, the scene, a subsystem)
-- keeps it, so for most objects nothing changes; Node and File say what it means for them.
Obj.methods.Dispose = function() end
Obj.methods.SendEvent = function(self, event, data)
  return E.send_event(E.event_name_of(event), data or {}, self)
end

-- Time
local Time = class("Time")
Time.methods.GetTimeStep = function() return E.clock.step end
Time.methods.GetFrameNumber = function() return E.clock.frame end
Time.methods.GetElapsedTime = function() return E.clock.elapsed end
Time.methods.GetSystemTime = function() return mfloor(E.clock.elapsed * 1000) end
Time.methods.GetTimeSinceEpoch = function() return config.epoch + mfloor(E.clock.elapsed) end
-- UrhoX: milliseconds since 1970 on the same virtual clock (the run's epoch plus the simulated time).
Time.methods.GetTimeSinceEpochMs = function() return config.epoch * 1000 + mfloor(E.clock.elapsed * 1000) end
-- The low-resolution timer period: 0 (the system default) everywhere but on Windows, and nothing sets it here.
Time.methods.GetTimerPeriod = function() return 0 end
Time.methods.GetTimeStamp = function() return os.date("!%a %b %d %H:%M:%S %Y", config.epoch + mfloor(E.clock.elapsed)) end
Time.methods.GetFramesPerSecond = function() return 1.0 / E.clock.step end
Time.methods.Sleep = function() end
GLOBALS.time = object("Time")
FUNCTIONS.GetTime = function() return GLOBALS.time end

-- Log
local LEVEL_NAMES = {[-1] = "RAW", [0] = "TRACE", [1] = "DEBUG", [2] = "INFO", [3] = "WARNING", [4] = "ERROR",
  [5] = "NONE"}
local Log = class("Log")
local log_state = {level = 2, timestamps = true, quiet = false}
Log.methods.Write = function(_, level, message)
  if type(level) == "string" and message == nil then level, message = 2, level end
  E.log(LEVEL_NAMES[level] or "INFO", tostring(message))
end
Log.methods.WriteRaw = function(_, message) E.log("RAW", tostring(message)) end
Log.methods.SetLevel = function(_, level) log_state.level = level end
Log.methods.GetLevel = function() return log_state.level end
Log.methods.SetTimeStamp = function(_, enable) log_state.timestamps = enable end
Log.methods.GetTimeStamp = function() return log_state.timestamps end
Log.methods.SetQuiet = function(_, quiet) log_state.quiet = quiet end
Log.methods.IsQuiet = function() return log_state.quiet end
Log.methods.Open = function() end
Log.methods.Close = function() end
Log.methods.GetLastMessage = function()
  local entries = E.state.log
  return entries[#entries] and entries[#entries].message or ""
end
GLOBALS.log = object("Log")
-- LogMessage, sent for each line logged at the Log's level or above (TRACE to ERROR; raw lines and the
-- battery's are not log lines) with the line as the log writes it: "[stamp] LEVEL: message" (the stamp on the
-- virtual clock while time stamps are on).  A line logged while LogMessage is being sent is recorded but sends
-- nothing, as Urho3D's Log does, so a handler that prints cannot recurse.
local LEVEL_NUMBERS = {TRACE = 0, DEBUG = 1, INFO = 2, WARNING = 3, ERROR = 4}
local record_log = E.log
local in_log_event = false
function E.log(level, message)
  record_log(level, message)
  local n = LEVEL_NUMBERS[level]
  if n == nil or in_log_event or n < log_state.level or not E.has_subscribers("LogMessage") then return end
  local line = LEVEL_NAMES[n] .. ": " .. tostring(message)
  if log_state.timestamps then line = "[" .. GLOBALS.time:GetTimeStamp() .. "] " .. line end
  in_log_event = true
  local ok, err = pcall(function() E.send_event("LogMessage", {Message = E.clip_text(line), Level = n}) end)
  in_log_event = false
  if not ok then error(err, 0) end
end
FUNCTIONS.GetLog = function() return GLOBALS.log end

-- Engine
local Engine = class("Engine")
local engine_state = {max_fps = 200, min_fps = 10, max_inactive_fps = 60, time_step_smoothing = 2,
  pause_minimized = false, auto_exit = true}
Engine.methods.Exit = function()
  E.state.exit_requested = true
  E.state.exit_frame = E.clock.frame
  E.log("INFO", "engine:Exit() requested")
end
Engine.methods.IsExiting = function() return E.state.exit_requested == true end
Engine.methods.IsInitialized = function() return true end
Engine.methods.IsHeadless = function() return false end
Engine.methods.SetMaxFps = function(_, fps) engine_state.max_fps = fps end
Engine.methods.GetMaxFps = function() return engine_state.max_fps end
Engine.methods.SetMinFps = function(_, fps) engine_state.min_fps = fps end
Engine.methods.GetMinFps = function() return engine_state.min_fps end
Engine.methods.SetMaxInactiveFps = function(_, fps) engine_state.max_inactive_fps = E.tolua_int(fps, "SetMaxInactiveFps", 2) end
Engine.methods.GetMaxInactiveFps = function() return engine_state.max_inactive_fps end
Engine.methods.SetTimeStepSmoothing = function(_, n) engine_state.time_step_smoothing = n end
Engine.methods.GetTimeStepSmoothing = function() return engine_state.time_step_smoothing end
Engine.methods.SetPauseMinimized = function(_, v) engine_state.pause_minimized = v end
Engine.methods.GetPauseMinimized = function() return engine_state.pause_minimized end
Engine.methods.SetAutoExit = function(_, v) engine_state.auto_exit = v end
Engine.methods.GetAutoExit = function() return engine_state.auto_exit end
Engine.methods.DumpResources = function() end
Engine.methods.DumpMemory = function() end
Engine.methods.CreateConsole = function() return nil end
Engine.methods.CreateDebugHud = function() return nil end
GLOBALS.engine = object("Engine")
FUNCTIONS.GetEngine = function() return GLOBALS.engine end
FUNCTIONS.ErrorExit = function(message)
  E.log("ERROR", tostring(message or "ErrorExit"))
  GLOBALS.engine.Exit()
end
FUNCTIONS.GetPlatform = function() return config.platform end
-- UrhoX's native platform is the device under a web/mini-game host; headless there is no host, so the two agree.
FUNCTIONS.GetNativePlatform = FUNCTIONS.GetPlatform
FUNCTIONS.GetArguments = function() return {} end
FUNCTIONS.GetNumPhysicalCPUs = function() return 1 end
FUNCTIONS.GetNumLogicalCPUs = function() return 1 end
FUNCTIONS.OpenConsoleWindow = function() end

-- The Context's global variables: a VariantMap of the run, empty at start.
local global_vars = E.VariantMap_new()
FUNCTIONS.SetGlobalVar = function(key, value)
  global_vars[E.tolua_string(key, "SetGlobalVar", 1)] = value
end
FUNCTIONS.GetGlobalVar = function(key)
  return global_vars[E.tolua_string(key, "GetGlobalVar", 1)] or E.Variant_new("None", nil)
end
FUNCTIONS.GetGlobalVars = function() return IMPL.VariantMap.new(global_vars) end

-- The machine a game runs on is a sandbox: fixed answers, never the host's.
FUNCTIONS.GetTotalMemory = function() return 4 * 1024 * 1024 * 1024 end   -- 4 GiB
FUNCTIONS.GetHostName = function() return "grader" end
FUNCTIONS.GetLoginName = function() return "player" end
FUNCTIONS.GetOSVersion = function() return "Headless 1.0" end
FUNCTIONS.GetBinaryVersion = function() return 0 end
FUNCTIONS.PrintLine = function(s, err) E.log(err and "ERROR" or "INFO", tostring(s)) end

-- Graphics: a window of the task's size that never draws.
local Graphics = class("Graphics")
local gfx = {title = "", fullscreen = true, borderless = false, resizable = false, vsync = false,
  orientations = "LandscapeLeft LandscapeRight", icon = nil}
E.graphics_state = gfx
local G = Graphics.methods
G.GetWidth = function() return config.screen_width end
G.GetHeight = function() return config.screen_height end
G.GetSize = function() return E.IntVector2_new(config.screen_width, config.screen_height) end
G.GetDPR = function() return config.dpr end
G.GetDisplayDPI = function() return E.Vector3_new(96 * config.dpr, 96 * config.dpr, 96 * config.dpr) end
G.SetWindowTitle = function(_, title) gfx.title = tostring(title) end
G.GetWindowTitle = function() return gfx.title end
G.SetWindowIcon = function(_, icon) gfx.icon = icon end
G.GetFullscreen = function() return gfx.fullscreen end
G.GetBorderless = function() return gfx.borderless end
G.GetResizable = function() return gfx.resizable end
G.GetVSync = function() return gfx.vsync end
G.IsInitialized = function() return true end
G.IsDeviceLost = function() return false end
G.GetMultiSample = function() return 1 end
G.GetApiName = function() return "headless" end
G.SetOrientations = function(_, o) gfx.orientations = o end
G.GetOrientations = function() return gfx.orientations end
G.GetCurrentMonitor = function() return 0 end
G.GetDesktopResolution = function() return E.IntVector2_new(config.screen_width, config.screen_height) end
G.GetWindowPosition = function() return E.IntVector2_new(0, 0) end
G.SetWindowPosition = function() end
G.SetMode = function() return true end
G.ToggleFullscreen = function() gfx.fullscreen = not gfx.fullscreen; return true end
G.Maximize = function() end
G.Minimize = function() end
G.Raise = function() end
G.TakeScreenShot = function() return false end
GLOBALS.graphics = object("Graphics")
-- The window changing size (a phone turned, a window resized): what Graphics::OnWindowResized does on a device.
-- The new size becomes the run's screen, each module that keeps it refreshes (E.on_screen_resize: the UI roots,
-- NanoVG's frame scale), then ScreenMode is sent with OnWindowResized's keys.  The same size again sends nothing,
-- as in Urho3D.  Batteries ask for it with harness.resize; it lands with the next frame's input.
local RESIZE = {}
function E.on_screen_resize(fn) RESIZE[#RESIZE + 1] = fn end
function E.resize_screen(w, h)
  if w == config.screen_width and h == config.screen_height then return end
  config.screen_width, config.screen_height = w, h
  for _, fn in ipairs(RESIZE) do fn(config) end
  E.send_event("ScreenMode", {Width = w, Height = h, Fullscreen = gfx.fullscreen, Resizable = gfx.resizable,
    Borderless = gfx.borderless, HighDPI = config.dpr ~= 1.0})
end
FUNCTIONS.GetGraphics = function() return GLOBALS.graphics end
-- Safe-area insets as a Rect: min = (left, top), max = (right, bottom), in pixels; with calcScale, in
-- device-independent units (divided by the DPR), as urhox-libs/UI's SafeAreaView expects.
FUNCTIONS.GetSafeAreaInsets = function(calc_scale)
  local inset = config.safe_area
  local k = calc_scale and 1 / config.dpr or 1
  return E.Rect_new(inset[1] * k, inset[2] * k, inset[3] * k, inset[4] * k)
end

-- tolua: cast gives the object back (an engine object already carries its most derived class, which is what a
-- correct downcast yields); type names an engine object's class, or a plain Lua value's type.
local tolua = class("tolua")
tolua.staticfunctions.cast = function(object, _type_name) return object end
tolua.staticfunctions.type = function(object)
  local mt = E.dgetmt(object)
  local name = mt and mt.__name
  if type(name) == "string" and E.REGISTRY.classes[name] then return name end
  return type(object)
end

-- Texture formats, reported as Urho3D's OpenGL 3 backend reports them (opaque numbers games pass back to
-- Texture2D:SetSize), and the device capabilities a headless window claims.
local GL_FORMATS = {GetAlphaFormat = 0x1906, GetLuminanceFormat = 0x1909, GetLuminanceAlphaFormat = 0x190A,
  GetRGBFormat = 0x1907, GetRGBAFormat = 0x1908, GetRGBA16Format = 0x805B, GetRGBAFloat16Format = 0x881A,
  GetRGBAFloat32Format = 0x8814, GetRG16Format = 0x822C, GetRGFloat16Format = 0x822F, GetRGFloat32Format = 0x8230,
  GetFloat16Format = 0x822D, GetFloat32Format = 0x822E, GetLinearDepthFormat = 0x822E,
  GetDepthStencilFormat = 0x88F0, GetReadableDepthFormat = 0x81A6, GetShadowMapFormat = 0x81A5,
  GetHiresShadowMapFormat = 0x81A6, GetDummyColorFormat = 0}
for name, value in pairs(GL_FORMATS) do
  G[name] = function() return value end
end
G.GetFormat = function(_, name)
  local n = tostring(name):lower()
  local by_name = {a = 0x1906, l = 0x1909, la = 0x190A, rgb = 0x1907, rgba = 0x1908, rgba16 = 0x805B,
    rgba16f = 0x881A, rgba32f = 0x8814, rg16 = 0x822C, rg16f = 0x822F, rg32f = 0x8230, r16f = 0x822D,
    r32f = 0x822E, lineardepth = 0x822E, d24s8 = 0x88F0, readabledepth = 0x81A6}
  return by_name[n] or 0x1908
end
G.SetSRGB = function(_, v) gfx.srgb = v and true or false end
G.GetSRGB = function() return gfx.srgb == true end
G.GetSRGBSupport = function() return true end
G.GetSRGBWriteSupport = function() return true end
G.SetDither = function(_, v) gfx.dither = v and true or false end
G.GetDither = function() return gfx.dither == true end
G.SetFlushGPU = function(_, v) gfx.flush_gpu = v and true or false end
G.GetFlushGPU = function() return gfx.flush_gpu == true end
G.GetInstancingSupport = function() return true end
G.GetLightPrepassSupport = function() return true end
G.GetDeferredSupport = function() return true end
G.GetHardwareShadowSupport = function() return true end
G.GetReadableDepthSupport = function() return true end
G.GetMaxBones = function() return 128 end
G.GetNumBatches = function() return 0 end
G.GetNumPrimitives = function() return 0 end
G.GetRefreshRate = function() return 60 end
G.GetMonitor = function() return 0 end
G.GetMonitorCount = function() return 1 end
G.GetMaximized = function() return false end
G.GetTripleBuffer = function() return false end
