-- Input: key, mouse and touch state fed by injected events (from the battery or scripted input).
-- Events queued during a frame are applied at the start of the next one, after BeginFrame, as Urho3D
-- applies SDL's queue; the *Press states hold for exactly that frame.
local type, setmetatable, ipairs, pairs, mfloor = type, setmetatable, ipairs, pairs, math.floor
local config = E.host.config

local S = {
  keys_down = {}, keys_press = {}, scancodes_down = {}, scancodes_press = {},
  buttons_down = 0, buttons_press = 0,
  mouse_x = 0, mouse_y = 0,   -- the screen's centre (E.configure)
  move_x = 0, move_y = 0, wheel = 0,
  mouse_visible = true, mouse_mode = 0, mouse_grabbed = false, mouse_locked = false,
  touches = {}, touch_order = {}, touch_emulation = false, has_focus = true, minimized = false,
  toggle_fullscreen = true, screen_keyboard = false, queue = {},
  qualifiers = 0,
}
E.input_state = S
E.on_configure(function() S.mouse_x, S.mouse_y = config.screen_width // 2, config.screen_height // 2 end)

local QUAL = {SHIFT = 1, CTRL = 2, ALT = 4, ANY = 8}
local function qualifiers()
  local q = 0
  local k = S.keys_down
  if k[1073742049] or k[1073742053] then q = q | QUAL.SHIFT end  -- LSHIFT, RSHIFT
  if k[1073742048] or k[1073742052] then q = q | QUAL.CTRL end
  if k[1073742050] or k[1073742054] then q = q | QUAL.ALT end
  return q
end

-- SDL scancodes for the keys games use; other keys report scancode 0.
local SCANCODES = {}
for i = 0, 25 do SCANCODES[97 + i] = 4 + i end               -- a..z
for i = 1, 9 do SCANCODES[48 + i] = 29 + i end               -- 1..9
SCANCODES[48] = 39; SCANCODES[13] = 40; SCANCODES[27] = 41; SCANCODES[8] = 42; SCANCODES[9] = 43; SCANCODES[32] = 44
SCANCODES[1073741903] = 79; SCANCODES[1073741904] = 80; SCANCODES[1073741905] = 81; SCANCODES[1073741906] = 82
SCANCODES[1073742049] = 225; SCANCODES[1073742048] = 224; SCANCODES[1073742050] = 226
SCANCODES[1073742053] = 229; SCANCODES[1073742052] = 228; SCANCODES[1073742054] = 230
E.SCANCODES = SCANCODES

function E.queue_input(event) S.queue[#S.queue + 1] = event end

local send = function(...) return E.send_event(...) end

-- Apply queued input: called by the frame loop after BeginFrame.
function E.process_input()
  S.keys_press, S.scancodes_press = {}, {}
  S.buttons_press = 0
  S.move_x, S.move_y, S.wheel = 0, 0, 0
  for id, t in pairs(S.touches) do t.delta_x, t.delta_y = 0, 0 end
  local queue = S.queue
  S.queue = {}
  for _, ev in ipairs(queue) do
    local kind = ev.kind
    if kind == "key_down" then
      local key = ev.key
      local sc = SCANCODES[key] or 0
      local repeat_ = S.keys_down[key] == true
      S.keys_down[key] = true
      S.keys_press[key] = true
      S.scancodes_down[sc] = true
      S.scancodes_press[sc] = true
      send("KeyDown", {Key = key, Scancode = sc, Buttons = S.buttons_down, Qualifiers = qualifiers(),
                       Repeat = repeat_})
    elseif kind == "key_up" then
      local key = ev.key
      local sc = SCANCODES[key] or 0
      S.keys_down[key] = nil
      S.scancodes_down[sc] = nil
      send("KeyUp", {Key = key, Scancode = sc, Buttons = S.buttons_down, Qualifiers = qualifiers()})
    elseif kind == "text" then
      send("TextInput", {Text = ev.text})
    elseif kind == "mouse_move" then
      local nx, ny = ev.x or (S.mouse_x + ev.dx), ev.y or (S.mouse_y + ev.dy)
      local dx, dy = nx - S.mouse_x, ny - S.mouse_y
      if ev.dx then dx, dy = ev.dx, ev.dy end
      S.mouse_x, S.mouse_y = nx, ny
      S.move_x, S.move_y = S.move_x + dx, S.move_y + dy
      send("MouseMove", {X = nx, Y = ny, DX = dx, DY = dy, Buttons = S.buttons_down, Qualifiers = qualifiers()})
    elseif kind == "mouse_down" then
      S.buttons_down = S.buttons_down | ev.button
      S.buttons_press = S.buttons_press | ev.button
      -- UrhoX adds the cursor position to button events while the mouse is visible (urhox-libs/UI reads it)
      local data = {Button = ev.button, Buttons = S.buttons_down, Qualifiers = qualifiers(), Clicks = 1}
      if S.mouse_visible then data.X, data.Y = S.mouse_x, S.mouse_y end
      send("MouseButtonDown", data)
    elseif kind == "mouse_up" then
      S.buttons_down = S.buttons_down & ~ev.button
      local data = {Button = ev.button, Buttons = S.buttons_down, Qualifiers = qualifiers()}
      if S.mouse_visible then data.X, data.Y = S.mouse_x, S.mouse_y end
      send("MouseButtonUp", data)
    elseif kind == "wheel" then
      S.wheel = S.wheel + ev.amount
      send("MouseWheel", {Wheel = ev.amount, Buttons = S.buttons_down, Qualifiers = qualifiers()})
    elseif kind == "touch_begin" then
      local t = {id = ev.id, x = ev.x, y = ev.y, last_x = ev.x, last_y = ev.y, delta_x = 0, delta_y = 0,
                 pressure = ev.pressure or 1.0}
      S.touches[ev.id] = t
      S.touch_order[#S.touch_order + 1] = ev.id
      send("TouchBegin", {TouchID = ev.id, X = ev.x, Y = ev.y, Pressure = t.pressure})
    elseif kind == "touch_move" then
      local t = S.touches[ev.id]
      if t then
        t.last_x, t.last_y = t.x, t.y
        t.delta_x, t.delta_y = ev.x - t.x, ev.y - t.y
        t.x, t.y = ev.x, ev.y
        send("TouchMove", {TouchID = ev.id, X = ev.x, Y = ev.y, DX = t.delta_x, DY = t.delta_y,
                           Pressure = t.pressure})
      end
    elseif kind == "touch_end" then
      local t = S.touches[ev.id]
      if t then
        S.touches[ev.id] = nil
        local order = {}
        for _, id in ipairs(S.touch_order) do if id ~= ev.id then order[#order + 1] = id end end
        S.touch_order = order
        send("TouchEnd", {TouchID = ev.id, X = ev.x or t.x, Y = ev.y or t.y})
      end
    elseif kind == "resize" then
      E.resize_screen(ev.width, ev.height)
    end
  end
end

local Input = class("Input")
local I = Input.methods
I.GetKeyDown = function(_, key) return S.keys_down[key] == true end
I.GetKeyPress = function(_, key) return S.keys_press[key] == true end
I.GetScancodeDown = function(_, sc) return S.scancodes_down[sc] == true end
I.GetScancodePress = function(_, sc) return S.scancodes_press[sc] == true end
I.GetMouseButtonDown = function(_, b) return (S.buttons_down & b) ~= 0 end
I.GetMouseButtonPress = function(_, b) return (S.buttons_press & b) ~= 0 end
I.GetQualifierDown = function(_, q) return (qualifiers() & q) ~= 0 end
I.GetQualifierPress = function() return false end
I.GetQualifiers = function() return qualifiers() end
I.GetMousePosition = function() return E.IntVector2_new(mfloor(S.mouse_x), mfloor(S.mouse_y)) end
I.GetMouseMove = function() return E.IntVector2_new(mfloor(S.move_x), mfloor(S.move_y)) end
I.GetMouseMoveX = function() return mfloor(S.move_x) end
I.GetMouseMoveY = function() return mfloor(S.move_y) end
I.GetMouseMoveWheel = function() return S.wheel end
I.SetMousePosition = function(_, p) S.mouse_x, S.mouse_y = p.x, p.y end
I.CenterMousePosition = function() S.mouse_x, S.mouse_y = config.screen_width // 2, config.screen_height // 2 end
I.SetMouseVisible = function(_, v) S.mouse_visible = v and true or false end
I.IsMouseVisible = function() return S.mouse_visible end
I.SetMouseGrabbed = function(_, v) S.mouse_grabbed = v and true or false end
I.IsMouseGrabbed = function() return S.mouse_grabbed end
I.SetMouseMode = function(_, mode) S.mouse_mode = mode end
I.GetMouseMode = function() return S.mouse_mode end
I.IsMouseLocked = function() return S.mouse_mode == 1 or S.mouse_mode == 2 end
I.GetNumTouches = function() return #S.touch_order end
I.GetTouch = function(_, index)
  local id = S.touch_order[(index or 0) + 1]
  if id == nil then return nil end
  local t = S.touches[id]
  return E.TouchState_new(t)
end
I.SetTouchEmulation = function(_, v) S.touch_emulation = v and true or false end
I.GetTouchEmulation = function() return S.touch_emulation end
I.GetNumJoysticks = function() return 0 end
I.GetJoystickByIndex = function() return nil end
I.GetJoystick = function() return nil end
I.HasFocus = function() return S.has_focus end
I.IsMinimized = function() return S.minimized end
I.SetToggleFullscreen = function(_, v) S.toggle_fullscreen = v end
I.GetToggleFullscreen = function() return S.toggle_fullscreen end
I.SetScreenKeyboardVisible = function(_, v) S.screen_keyboard = v and true or false end
I.IsScreenKeyboardVisible = function() return S.screen_keyboard end
I.GetScreenKeyboardSupport = function() return true end
I.GetKeyFromName = function(_, name) return E.KEY_NAMES and E.KEY_NAMES[name] or 0 end
I.GetKeyName = function(_, key) return key and key < 128 and string.char(key):upper() or "" end
I.GetScancodeFromKey = function(_, key) return SCANCODES[key] or 0 end
GLOBALS.input = E.new_object("Input")
FUNCTIONS.GetInput = function() return GLOBALS.input end

-- TouchState: a snapshot with Urho3D's field names.
local TS = class("TouchState")
local tsmt = TS.mt
function E.TouchState_new(t)
  return setmetatable({touchID = t.id, position = E.IntVector2_new(mfloor(t.x), mfloor(t.y)),
    lastPosition = E.IntVector2_new(mfloor(t.last_x), mfloor(t.last_y)),
    delta = E.IntVector2_new(mfloor(t.delta_x), mfloor(t.delta_y)), pressure = t.pressure}, tsmt)
end
TS.methods.GetTouchedElement = function() return nil end

----------------------------------------------------------------------------------------------------
-- Controls: the value games fill from input (buttons, yaw, pitch, extra data) and hand to what they drive, as
-- Urho3D's; IsPressed compares with an earlier copy.
----------------------------------------------------------------------------------------------------
local CT = class("Controls")
local ct_mt = CT.mt
local function new_controls()
  return setmetatable({buttons = 0, yaw = 0.0, pitch = 0.0, extraData = E.VariantMap_new()}, ct_mt)
end
E.Controls_new = new_controls
CT.new = function() return new_controls() end
local CTM = CT.methods
local function bits(v, what)
  if type(v) ~= "number" then error(("bad argument #1 to '%s' (number expected, got %s)"):format(what, type(v)), 3) end
  return mfloor(v)
end
CTM.Reset = function(self)
  self.buttons, self.yaw, self.pitch = 0, 0.0, 0.0
  self.extraData = E.VariantMap_new()
end
CTM.Set = function(self, buttons, down)
  local b = bits(buttons, "Set")
  if down == nil or down then self.buttons = mfloor(self.buttons) | b else self.buttons = mfloor(self.buttons) & ~b end
end
CTM.IsDown = function(self, button) return (mfloor(self.buttons) & bits(button, "IsDown")) ~= 0 end
CTM.IsPressed = function(self, button, previous)
  local b = bits(button, "IsPressed")
  return (mfloor(self.buttons) & b) ~= 0 and (previous == nil or (mfloor(previous.buttons) & b) == 0)
end
