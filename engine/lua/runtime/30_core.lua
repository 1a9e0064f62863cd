-- Core subsystems: Time, Timer, Log, Engine, Graphics, Renderer, platform queries.  All time is virtual.
local error, type, setmetatable, tostring, select = error, type, setmetatable, tostring, select
local sformat, mfloor = string.format, math.floor
local config = E.host.config

E.clock = {frame = 0, elapsed = 0.0, step = config.time_step}
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

-- Object: the base of every subsystem and component; the script objects' SubscribeToEvent lives on
-- LuaScriptInstance, the global form in events.lua.
local Obj = class("Object")
Obj.methods.GetTypeName = function(self) return E.dgetmt(self).__name end
Obj.methods.GetType = function(self) return E.StringHash_new(E.dgetmt(self).__name) end
Obj.methods.GetCategory = function() return "" end
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
FUNCTIONS.GetLog = function() return GLOBALS.log end

-- Engine
local Engine = class("Engine")
local engine_state = {max_fps = 200, min_fps = 10, time_step_smoothing = 2, pause_minimized = false,
  auto_exit = true}
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
Engine.methods.SetMaxInactiveFps = function() end
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
FUNCTIONS.GetArguments = function() return {} end
FUNCTIONS.GetNumPhysicalCPUs = function() return 1 end
FUNCTIONS.GetNumLogicalCPUs = function() return 1 end
FUNCTIONS.OpenConsoleWindow = function() end
FUNCTIONS.PrintLine = function(s, err) E.log(err and "ERROR" or "INFO", tostring(s)) end
FUNCTIONS.IsNetworkMode = function() return false end
FUNCTIONS.IsServerMode = function() return false end

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
FUNCTIONS.GetGraphics = function() return GLOBALS.graphics end
FUNCTIONS.GetSafeAreaInsets = G.GetSafeAreaInsets
