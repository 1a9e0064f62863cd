-- Console and DebugHud: headless, so they only keep their state (visibility, style, rows, HUD mode).
-- Both exist from the start as the globals `console` and `debugHud`; engine:CreateConsole() and
-- engine:CreateDebugHud() return them.  Their elements (background, line edit, close button, HUD texts) are
-- made when first asked for and are not added to the UI root.
local tostring = tostring
local DEBUGHUD_SHOW_ALL = 15

local con = {visible = false, auto_visible_on_error = false, interpreter = "LuaScriptInterpreter",
  buffered_rows = 256, rows = 16, history_rows = 16, focus_on_show = true, history = {}, history_position = 0,
  auto_complete = {}}
E.console_state = con

local Console = class("Console")
local C = Console.methods
local function element(key, type_name)
  return function()
    if con[key] == nil then con[key] = (E.new_ui_element(type_name)) end
    return con[key]
  end
end
C.GetBackground = element("background", "BorderImage")
C.GetLineEdit = element("line_edit", "LineEdit")
C.GetCloseButton = element("close_button", "Button")
C.SetDefaultStyle = function(_, style) con.style = style end
C.GetDefaultStyle = function() return con.style end
C.SetVisible = function(_, v) con.visible = v and true or false end
C.IsVisible = function() return con.visible end
C.Toggle = function() con.visible = not con.visible end
C.SetAutoVisibleOnError = function(_, v) con.auto_visible_on_error = v and true or false end
C.IsAutoVisibleOnError = function() return con.auto_visible_on_error end
C.SetCommandInterpreter = function(_, s) con.interpreter = tostring(s) end
C.GetCommandInterpreter = function() return con.interpreter end
C.SetNumBufferedRows = function(_, n) con.buffered_rows = n end
C.GetNumBufferedRows = function() return con.buffered_rows end
C.SetNumRows = function(_, n) con.rows = n end
C.GetNumRows = function() return con.rows end
C.SetNumHistoryRows = function(_, n) con.history_rows = n end
C.GetNumHistoryRows = function() return con.history_rows end
C.GetHistoryPosition = function() return con.history_position end
C.GetHistoryRow = function(_, i) return con.history[(i or 0) + 1] or "" end
C.SetFocusOnShow = function(_, v) con.focus_on_show = v and true or false end
C.GetFocusOnShow = function() return con.focus_on_show end
C.AddAutoComplete = function(_, s) con.auto_complete[tostring(s)] = true end
C.RemoveAutoComplete = function(_, s) con.auto_complete[tostring(s)] = nil end
C.UpdateElements = function() end
C.CopySelectedRows = function() end
GLOBALS.console = E.new_object("Console")
FUNCTIONS.GetConsole = function() return GLOBALS.console end

local hud = {mode = 0, max_depth = 4, interval = 1.0, renderer_stats = false, app_stats = {}}
E.debug_hud_state = hud
local DebugHud = class("DebugHud")
local H = DebugHud.methods
local function text(key)
  return function()
    if hud[key] == nil then hud[key] = (E.new_ui_element("Text")) end
    return hud[key]
  end
end
H.GetStatsText = text("stats_text")
H.GetModeText = text("mode_text")
H.GetProfilerText = text("profiler_text")
H.SetDefaultStyle = function(_, style) hud.style = style end
H.GetDefaultStyle = function() return hud.style end
H.SetMode = function(_, m) hud.mode = m end
H.GetMode = function() return hud.mode end
H.Toggle = function(_, m) hud.mode = hud.mode ~ m end
H.ToggleAll = function() hud.mode = hud.mode ~ DEBUGHUD_SHOW_ALL end
H.SetProfilerMaxDepth = function(_, d) hud.max_depth = d end
H.GetProfilerMaxDepth = function() return hud.max_depth end
H.SetProfilerInterval = function(_, v) hud.interval = v end
H.GetProfilerInterval = function() return hud.interval end
H.SetUseRendererStats = function(_, v) hud.renderer_stats = v and true or false end
H.GetUseRendererStats = function() return hud.renderer_stats end
H.SetAppStats = function(_, label, stats)
  if E.is(stats, "Variant") then stats = stats:ToString() end
  hud.app_stats[tostring(label)] = tostring(stats)
end
H.ResetAppStats = function(_, label)
  local had = hud.app_stats[tostring(label)] ~= nil
  hud.app_stats[tostring(label)] = nil
  return had
end
H.ClearAppStats = function() hud.app_stats = {} end
H.Update = function() end
GLOBALS.debugHud = E.new_object("DebugHud")
FUNCTIONS.GetDebugHud = function() return GLOBALS.debugHud end

local Engine = IMPL.Engine.methods
Engine.CreateConsole = function() return GLOBALS.console end
Engine.CreateDebugHud = function() return GLOBALS.debugHud end

-- Whether console commands run as Lua (nothing is typed into a headless console, so this is only kept).
local execute_commands = true
FUNCTIONS.SetExecuteConsoleCommands = function(enable) execute_commands = enable and true or false end
FUNCTIONS.GetExecuteConsoleCommands = function() return execute_commands end
-- A headless process has no console input.
FUNCTIONS.GetConsoleInput = function() return "" end
