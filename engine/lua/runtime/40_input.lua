-- Input: key, mouse and touch state fed by injected events (from the battery or scripted input).
-- Events queued during a frame are applied at the start of the next one, after BeginFrame, as Urho3D
-- applies SDL's queue; the *Press states hold for exactly that frame.
local type, setmetatable, ipairs, pairs, mfloor = type, setmetatable, ipairs, pairs, math.floor
local config = E.host.config

local S = {
  keys_down = {}, keys_press = {}, keys_release = {}, scancodes_down = {}, scancodes_press = {},
  scancodes_release = {}, buttons_down = 0, buttons_press = 0, buttons_release = 0,
  mouse_x = 0, mouse_y = 0,   -- the screen's centre (E.configure)
  move_x = 0, move_y = 0, wheel = 0,
  mouse_visible = true, mouse_mode = 0, mouse_grabbed = false, mouse_locked = false,
  -- what the game last asked for without suppressing the event: the Reset* functions go back to it
  last_mouse_visible = true, last_mouse_mode = 0, last_mouse_grabbed = false,
  last_visible_position = nil,   -- where the cursor was when it was hidden (restored when shown again)
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

-- SDL 2's US keyboard: the name of every scancode (what SDL_GetScancodeName reports; scancodes without a name
-- report "") and the key each one produces by default.
local SCANCODE_NAMES = {}
local function names_from(first, list)
  for i, name in ipairs(list) do SCANCODE_NAMES[first + i - 1] = name end
end
for i = 0, 25 do SCANCODE_NAMES[4 + i] = string.char(65 + i) end             -- A..Z
for i = 1, 9 do SCANCODE_NAMES[29 + i] = tostring(i) end                      -- 1..9, then 0
SCANCODE_NAMES[39] = "0"
for i = 1, 12 do SCANCODE_NAMES[57 + i] = "F" .. i end                        -- 58..69
for i = 1, 9 do SCANCODE_NAMES[88 + i] = "Keypad " .. i end                   -- 89..97
for i = 13, 24 do SCANCODE_NAMES[91 + i] = "F" .. i end                       -- 104..115
names_from(40, {"Return", "Escape", "Backspace", "Tab", "Space", "-", "=", "[", "]", "\\", "#", ";", "'", "`", ",",
  ".", "/", "CapsLock"})
names_from(70, {"PrintScreen", "ScrollLock", "Pause", "Insert", "Home", "PageUp", "Delete", "End", "PageDown",
  "Right", "Left", "Down", "Up", "Numlock", "Keypad /", "Keypad *", "Keypad -", "Keypad +", "Keypad Enter"})
names_from(98, {"Keypad 0", "Keypad ."})
names_from(101, {"Application", "Power", "Keypad ="})
names_from(116, {"Execute", "Help", "Menu", "Select", "Stop", "Again", "Undo", "Cut", "Copy", "Paste", "Find",
  "Mute", "VolumeUp", "VolumeDown"})
names_from(133, {"Keypad ,", "Keypad = (AS400)"})
names_from(153, {"AltErase", "SysReq", "Cancel", "Clear", "Prior", "Return", "Separator", "Out", "Oper",
  "Clear / Again", "CrSel", "ExSel"})
names_from(176, {"Keypad 00", "Keypad 000", "ThousandsSeparator", "DecimalSeparator", "CurrencyUnit",
  "CurrencySubUnit", "Keypad (", "Keypad )", "Keypad {", "Keypad }", "Keypad Tab", "Keypad Backspace", "Keypad A",
  "Keypad B", "Keypad C", "Keypad D", "Keypad E", "Keypad F", "Keypad XOR", "Keypad ^", "Keypad %", "Keypad <",
  "Keypad >", "Keypad &", "Keypad &&", "Keypad |", "Keypad ||", "Keypad :", "Keypad #", "Keypad Space", "Keypad @",
  "Keypad !", "Keypad MemStore", "Keypad MemRecall", "Keypad MemClear", "Keypad MemAdd", "Keypad MemSubtract",
  "Keypad MemMultiply", "Keypad MemDivide", "Keypad +/-", "Keypad Clear", "Keypad ClearEntry", "Keypad Binary",
  "Keypad Octal", "Keypad Decimal", "Keypad Hexadecimal"})
names_from(224, {"Left Ctrl", "Left Shift", "Left Alt", "Left GUI", "Right Ctrl", "Right Shift", "Right Alt",
  "Right GUI"})
names_from(257, {"ModeSwitch", "AudioNext", "AudioPrev", "AudioStop", "AudioPlay", "AudioMute", "MediaSelect", "WWW",
  "Mail", "Calculator", "Computer", "AC Search", "AC Home", "AC Back", "AC Forward", "AC Stop", "AC Refresh",
  "AC Bookmarks", "BrightnessDown", "BrightnessUp", "DisplaySwitch", "KBDIllumToggle", "KBDIllumDown", "KBDIllumUp",
  "Eject", "Sleep", "App1", "App2", "AudioRewind", "AudioFastForward"})
local NUM_SCANCODES = 512
local SCANCODE_MASK = 0x40000000   -- keys without a character are their scancode with this bit set
-- The default key of each named scancode: the character for the printing keys, the control character for
-- Return, Escape, Backspace, Tab, Space and Delete, otherwise the masked scancode.
local DEFAULT_KEYS = {[40] = 13, [41] = 27, [42] = 8, [43] = 9, [44] = 32, [76] = 127}
local KEYMAP = {}       -- scancode -> key
local SCANCODES = {}    -- key -> scancode (the first scancode producing it, as SDL_GetScancodeFromKey finds)
for sc = 0, 286 do
  local name = SCANCODE_NAMES[sc]
  if name then
    local key = DEFAULT_KEYS[sc]
    if key == nil then
      if (sc >= 4 and sc <= 39) or (sc >= 45 and sc <= 56) then key = string.byte(name:lower()) end
      key = key or (sc | SCANCODE_MASK)
    end
    KEYMAP[sc] = key
    if SCANCODES[key] == nil then SCANCODES[key] = sc end
  end
end
E.SCANCODES = SCANCODES

function E.queue_input(event) S.queue[#S.queue + 1] = event end

local send = function(...) return E.send_event(...) end

-- Apply queued input: called by the frame loop after BeginFrame.
function E.process_input()
  send("InputBegin", {})
  S.keys_press, S.scancodes_press, S.keys_release, S.scancodes_release = {}, {}, {}, {}
  S.buttons_press, S.buttons_release = 0, 0
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
      S.keys_release[key] = true
      S.scancodes_release[sc] = true
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
      S.buttons_release = S.buttons_release | ev.button
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
    elseif kind == "app_background" then   -- the player switched away (SDL's application events, UrhoX's names)
      send("AppWillEnterBackground", {})
      send("AppDidEnterBackground", {})
    elseif kind == "app_foreground" then
      send("AppWillEnterForeground", {})
      send("AppDidEnterForebackground", {})   -- UrhoX's spelling of "AppDidEnterForeground"
    end
  end
  send("InputEnd", {})
end

local Input = class("Input")
local I = Input.methods
local function int_arg(v, fname, n) return E.tolua_int(v, fname, n) end
-- Key queries fold letters to lower case first, as Urho3D does (SDL reports letter keys in lower case).
local function key_arg(v, fname)
  local key = int_arg(v, fname, 2)
  if key >= 65 and key <= 90 then key = key + 32 end
  return key
end
I.GetKeyDown = function(_, key) return S.keys_down[key_arg(key, "GetKeyDown")] == true end
I.GetKeyPress = function(_, key) return S.keys_press[key_arg(key, "GetKeyPress")] == true end
-- UrhoX: true on the frame the key went up (the mirror of GetKeyPress).
I.GetKeyRelease = function(_, key) return S.keys_release[key_arg(key, "GetKeyRelease")] == true end
I.GetScancodeDown = function(_, sc) return S.scancodes_down[int_arg(sc, "GetScancodeDown", 2)] == true end
I.GetScancodePress = function(_, sc) return S.scancodes_press[int_arg(sc, "GetScancodePress", 2)] == true end
I.GetScancodeRelease = function(_, sc) return S.scancodes_release[int_arg(sc, "GetScancodeRelease", 2)] == true end
I.GetMouseButtonDown = function(_, b) return (S.buttons_down & int_arg(b, "GetMouseButtonDown", 2)) ~= 0 end
I.GetMouseButtonPress = function(_, b) return (S.buttons_press & int_arg(b, "GetMouseButtonPress", 2)) ~= 0 end
I.GetMouseButtonRelease = function(_, b)
  return (S.buttons_release & int_arg(b, "GetMouseButtonRelease", 2)) ~= 0
end
-- A qualifier is the left or the right key of its kind; QUAL_ANY and combinations match nothing, as in Urho3D.
local QUAL_KEYS = {[QUAL.SHIFT] = {1073742049, 1073742053}, [QUAL.CTRL] = {1073742048, 1073742052},
  [QUAL.ALT] = {1073742050, 1073742054}}
local function qualifier_in(set, q, fname)
  local keys = QUAL_KEYS[int_arg(q, fname, 2)]
  return keys ~= nil and (set[keys[1]] == true or set[keys[2]] == true)
end
I.GetQualifierDown = function(_, q) return qualifier_in(S.keys_down, q, "GetQualifierDown") end
I.GetQualifierPress = function(_, q) return qualifier_in(S.keys_press, q, "GetQualifierPress") end
I.GetQualifierRelease = function(_, q) return qualifier_in(S.keys_release, q, "GetQualifierRelease") end
I.GetQualifiers = function() return qualifiers() end
I.GetMousePosition = function() return E.IntVector2_new(mfloor(S.mouse_x), mfloor(S.mouse_y)) end
I.GetMouseMove = function() return E.IntVector2_new(mfloor(S.move_x), mfloor(S.move_y)) end
I.GetMouseMoveX = function() return mfloor(S.move_x) end
I.GetMouseMoveY = function() return mfloor(S.move_y) end
I.GetMouseMoveWheel = function() return S.wheel end
-- Positions arrive in the graphics' pixels; the window behind them measures the screen in device-independent
-- units, so the scale from window to backbuffer coordinates is the device pixel ratio (1 by default).
I.GetInputScale = function() return E.Vector2_new(config.dpr, config.dpr) end
I.SetMousePosition = function(_, p) S.mouse_x, S.mouse_y = p.x, p.y end
I.CenterMousePosition = function() S.mouse_x, S.mouse_y = config.screen_width // 2, config.screen_height // 2 end

-- Mouse visibility, grab and mode, with Urho3D's bookkeeping: a call that does not suppress its event records the
-- value as the one Reset* returns to, and a change of visibility or mode sends MouseVisibleChanged or
-- MouseModeChanged.  The relative mode hides the cursor and remembers what the game asked for meanwhile.
-- Unlike desktop Urho3D, changing the mode or the visibility never grabs or releases the mouse by itself (as on
-- Urho3D's mobile builds, where the grab stays out of the way of touch UI): only SetMouseGrabbed does, so a UI
-- keeps its clicks under a hidden or relative mouse.
local MM_ABSOLUTE, MM_RELATIVE, MM_WRAP, MM_FREE = 0, 1, 2, 3
local set_mouse_grabbed
local function set_mouse_visible(enable, suppress)
  local was = S.mouse_visible
  if S.touch_emulation then enable = true end
  if S.mouse_mode == MM_RELATIVE then
    if not suppress then S.last_mouse_visible = enable end
    enable = false
  end
  if enable ~= S.mouse_visible then
    if not enable then
      S.last_visible_position = {S.mouse_x, S.mouse_y}
      S.mouse_visible = false
    else
      S.mouse_visible = true
      -- the cursor comes back where it was hidden, or where the UI's own cursor is
      local ui = GLOBALS.ui
      local cursor = ui and ui:GetCursor()
      if cursor ~= nil and cursor:IsVisible() then
        local p = cursor:GetScreenPosition()
        S.mouse_x, S.mouse_y = p.x, p.y
      elseif S.last_visible_position then
        S.mouse_x, S.mouse_y = S.last_visible_position[1], S.last_visible_position[2]
      end
    end
  end
  if S.mouse_visible ~= was and not suppress then
    S.last_mouse_visible = S.mouse_visible
    send("MouseVisibleChanged", {Visible = S.mouse_visible})
  end
end
set_mouse_grabbed = function(grab, suppress)
  S.mouse_grabbed = grab
  if not suppress then S.last_mouse_grabbed = grab end
end
local function is_mouse_locked()
  local mode = S.mouse_mode
  return not ((mode == MM_ABSOLUTE and S.mouse_visible) or mode == MM_FREE)
end
local function set_mouse_mode(mode, suppress)
  local previous = S.mouse_mode
  if mode ~= previous then
    S.mouse_mode = mode
    if previous == MM_RELATIVE then set_mouse_visible(S.last_mouse_visible, false) end
    if mode == MM_RELATIVE then set_mouse_visible(false, true) end
  end
  if not suppress then
    S.last_mouse_mode = mode
    if S.mouse_mode ~= previous then
      send("MouseModeChanged", {Mode = mode, MouseLocked = is_mouse_locked()})
    end
  end
end
I.SetMouseVisible = function(_, v, suppress) set_mouse_visible(v and true or false, suppress and true or false) end
I.ResetMouseVisible = function() set_mouse_visible(S.last_mouse_visible, false) end
I.IsMouseVisible = function() return S.mouse_visible end
I.SetMouseGrabbed = function(_, v, suppress) set_mouse_grabbed(v and true or false, suppress and true or false) end
I.ResetMouseGrabbed = function() set_mouse_grabbed(S.last_mouse_grabbed, true) end
I.IsMouseGrabbed = function() return S.mouse_grabbed end
I.SetMouseMode = function(_, mode, suppress)
  set_mouse_mode(int_arg(mode, "SetMouseMode", 2), suppress and true or false)
end
I.ResetMouseMode = function() set_mouse_mode(S.last_mouse_mode, false) end
I.GetMouseMode = function() return S.mouse_mode end
I.IsMouseLocked = function() return is_mouse_locked() end
I.GetNumTouches = function() return #S.touch_order end
I.GetTouch = function(_, index)
  local id = S.touch_order[(index or 0) + 1]
  if id == nil then return nil end
  local t = S.touches[id]
  return E.TouchState_new(t)
end
-- Touch emulation needs a visible cursor, and its first use adds the virtual touch device (which gestures need).
I.SetTouchEmulation = function(_, v)
  v = v and true or false
  if v == S.touch_emulation then return end
  if v then
    if not S.mouse_visible then set_mouse_visible(true, false) end
    S.touch_device = true
  end
  S.touch_emulation = v
end
I.GetTouchEmulation = function() return S.touch_emulation end
I.HasFocus = function() return S.has_focus end
I.IsMinimized = function() return S.minimized end
I.SetToggleFullscreen = function(_, v) S.toggle_fullscreen = v end
I.GetToggleFullscreen = function() return S.toggle_fullscreen end
I.SetScreenKeyboardVisible = function(_, v) S.screen_keyboard = v and true or false end
I.IsScreenKeyboardVisible = function() return S.screen_keyboard end
I.GetScreenKeyboardSupport = function() return true end

-- Key and scancode names, as SDL 2 gives them.
local function scancode_name(sc)
  if sc < 0 or sc >= NUM_SCANCODES then return "" end
  return SCANCODE_NAMES[sc] or ""
end
local function scancode_from_name(name)
  if name == "" then return 0 end
  local wanted = name:lower()
  for sc = 0, 286 do
    local n = SCANCODE_NAMES[sc]
    if n and n:lower() == wanted then return sc end
  end
  return 0
end
I.GetScancodeName = function(_, sc) return scancode_name(int_arg(sc, "GetScancodeName", 2)) end
I.GetScancodeFromName = function(_, name) return scancode_from_name(E.tolua_string(name, "GetScancodeFromName", 2)) end
I.GetScancodeFromKey = function(_, key) return SCANCODES[int_arg(key, "GetScancodeFromKey", 2)] or 0 end
I.GetKeyFromScancode = function(_, sc) return KEYMAP[int_arg(sc, "GetKeyFromScancode", 2)] or 0 end
-- A key's name: its scancode's name for the keys without a character and for the control keys, otherwise the
-- character itself in UTF-8 (letters in upper case).
local NAMED_CONTROL_KEYS = {[13] = 40, [27] = 41, [8] = 42, [9] = 43, [32] = 44, [127] = 76}
I.GetKeyName = function(_, key)
  key = int_arg(key, "GetKeyName", 2)
  if key & SCANCODE_MASK ~= 0 then return scancode_name(key & ~SCANCODE_MASK) end
  if NAMED_CONTROL_KEYS[key] then return scancode_name(NAMED_CONTROL_KEYS[key]) end
  if key >= 97 and key <= 122 then key = key - 32 end
  if key <= 0 or key > 0x7FFFFFFF then return "" end
  return utf8.char(key)
end
-- A name that is one character (in UTF-8) is that character's key (letters in lower case); any other name is the
-- key of the scancode of that name.
I.GetKeyFromName = function(_, name)
  name = E.tolua_string(name, "GetKeyFromName", 2)
  local lead, n = string.byte(name, 1) or 0, #name
  if lead >= 0xC0 then
    local len = lead >= 0xF0 and 4 or lead >= 0xE0 and 3 or 2
    if n ~= len then return 0 end
    local key = lead & (len == 4 and 0x07 or len == 3 and 0x0F or 0x1F)
    for i = 2, len do key = (key << 6) | (string.byte(name, i) & 0x3F) end
    return key
  end
  if n == 1 then
    if lead >= 65 and lead <= 90 then return lead + 32 end
    return lead
  end
  return KEYMAP[scancode_from_name(name)] or 0
end

-- Joysticks.  No device is ever plugged in headless; the game's screen joysticks (UI layouts whose "Button",
-- "Axis" and "Hat" children make the joystick's controls) are the only ones, with ids from 0x40000000 up as
-- Urho3D gives them, listed in the order added.  Touches do not drive them here: their controls stay neutral.
local SCREEN_JOYSTICK_START_ID = 0x40000000
local JS = class("JoystickState")
local js_mt = JS.mt
local JS_REC = setmetatable({}, {__mode = "k"})   -- state -> {buttons, press, axes, hats, element}
S.joysticks = {}                                  -- the states, in the order added
local function joystick_of(id)
  for _, js in ipairs(S.joysticks) do if js.joystickID == id then return js end end
  return nil
end
local function js_rec(self)
  local r = JS_REC[self]
  if r == nil then E.raise_at_game("invalid 'self' in call to JoystickState method") end
  return r
end
local JM = JS.methods
JM.IsController = function(self) js_rec(self); return false end
JM.GetNumButtons = function(self) return #js_rec(self).buttons end
JM.GetNumAxes = function(self) return #js_rec(self).axes end
JM.GetNumHats = function(self) return #js_rec(self).hats end
-- Out-of-range indices read as released, centred and HAT_CENTER, as Urho3D's.
JM.GetButtonDown = function(self, i) return js_rec(self).buttons[int_arg(i, "GetButtonDown", 2) + 1] == true end
JM.GetButtonPress = function(self, i) return js_rec(self).press[int_arg(i, "GetButtonPress", 2) + 1] == true end
JM.GetAxisPosition = function(self, i) return js_rec(self).axes[int_arg(i, "GetAxisPosition", 2) + 1] or 0.0 end
JM.GetHatPosition = function(self, i) return js_rec(self).hats[int_arg(i, "GetHatPosition", 2) + 1] or 0 end

I.GetNumJoysticks = function() return #S.joysticks end
I.GetJoystickByIndex = function(_, index) return S.joysticks[int_arg(index, "GetJoystickByIndex", 2) + 1] end
I.GetJoystick = function(_, id) return joystick_of(int_arg(id, "GetJoystick", 2)) end
I.GetJoystickByName = function(_, name)
  name = E.tolua_string(name, "GetJoystickByName", 2)
  for _, js in ipairs(S.joysticks) do if js.name == name then return js end end
  return nil
end
-- AddScreenJoystick(layoutFile?, styleFile?): the layout (by default UI/ScreenJoystick.xml from the game's files)
-- is loaded as a UI layout, sized to the UI root and added to it; -1 when it cannot be loaded (the error logged).
I.AddScreenJoystick = function(_, layout_file, style_file)
  local ui = GLOBALS.ui
  if layout_file == nil then
    layout_file = GLOBALS.cache:GetResource("XMLFile", "UI/ScreenJoystick.xml")
    if layout_file == nil then return -1 end
  end
  local element = ui:LoadLayout(layout_file, style_file)
  if element == nil then return -1 end
  local root = ui:GetRoot()
  element:SetSize(root:GetSize())
  root:AddChild(element)
  local id = SCREEN_JOYSTICK_START_ID
  while joystick_of(id) do id = id + 1 end
  local r = {buttons = {}, press = {}, axes = {}, hats = {}, element = element}
  for i = 0, element:GetNumChildren() - 1 do
    local child = element:GetChild(i)
    local name = child:GetName()
    if name:sub(1, 6) == "Button" then
      r.buttons[#r.buttons + 1] = false
      r.press[#r.press + 1] = false
    elseif name:sub(1, 4) == "Axis" then
      r.axes[#r.axes + 1] = 0.0
      E.log("WARNING", "Axis emulation for screen joystick is not fully supported yet")
    elseif name:sub(1, 3) == "Hat" then
      r.hats[#r.hats + 1] = 0
    end
    child:SetVar("VAR_SCREEN_JOYSTICK_ID", id)
  end
  local js = setmetatable({name = element:GetName(), joystickID = id}, js_mt)
  JS_REC[js] = r
  S.joysticks[#S.joysticks + 1] = js
  return id
end
I.RemoveScreenJoystick = function(_, id)
  id = int_arg(id, "RemoveScreenJoystick", 2)
  for i, js in ipairs(S.joysticks) do
    if js.joystickID == id then
      JS_REC[js].element:Remove()
      table.remove(S.joysticks, i)
      return true
    end
  end
  E.log("ERROR", ("Failed to remove non-existing screen joystick ID #%d"):format(id))
  return false
end
I.SetScreenJoystickVisible = function(_, id, enable)
  local js = joystick_of(int_arg(id, "SetScreenJoystickVisible", 2))
  if js then JS_REC[js].element:SetVisible(enable and true or false) end
end
I.IsScreenJoystickVisible = function(_, id)
  local js = joystick_of(int_arg(id, "IsScreenJoystickVisible", 2))
  return js ~= nil and JS_REC[js].element:IsVisible()
end

-- UrhoX's accelerometer switch: plain state, off until enabled (no readings arrive headless).
S.accelerometer = false
I.EnableAccelerometer = function() S.accelerometer = true end
I.DisableAccelerometer = function() S.accelerometer = false end
I.IsAccelerometerEnabled = function() return S.accelerometer end

-- Gestures ($1 templates): headless there is no touch device, so nothing is ever recorded or loaded and there
-- are no templates; the calls answer as Urho3D's do then.  SaveGesture answers true even for an unknown id:
-- Urho3D tests SDL's result against zero and SDL reports "unknown gesture" as -1.  The file-name forms open the
-- file first (for writing: creating it empty), as Urho3D's Lua binding does.
local function gesture_file(src, mode, fname)
  if type(src) == "string" then
    local f = IMPL.File.new(src, mode)
    local open = f:IsOpen()
    f:Close()
    return open
  end
  if src == nil then return false end
  if not E.is(src, "File") then
    E.raise_at_game(("bad argument #2 to '%s' (File expected, got %s)"):format(fname, type(src)))
  end
  return true
end
I.RecordGesture = function()
  E.log("ERROR", "Can not record gesture: no touch devices")
  return false
end
I.SaveGestures = function(_, dest)
  gesture_file(dest, 1, "SaveGestures")
  return false
end
I.SaveGesture = function(_, dest, id)
  int_arg(id, "SaveGesture", 3)
  return gesture_file(dest, 1, "SaveGesture")
end
I.LoadGestures = function(_, src)
  if gesture_file(src, 0, "LoadGestures") then E.log("ERROR", "Can not load gestures: no touch devices") end
  return 0
end
I.RemoveGesture = function(_, id) int_arg(id, "RemoveGesture", 2); return false end
I.RemoveAllGestures = function() end
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
