-- Input as events: key, text, mouse, wheel and touch events sent on a schedule (what a headless Urho3D can
-- receive; its Input subsystem is not initialised without a window, so this is how the recorder injects input),
-- and a node that a handler moves from the event data.
local S = {frames = 30, record = 5}

local KEY_W, KEY_A, KEY_SPACE = 119, 97, 32
S.input = {
  {frame = 2, event = "KeyDown", data = {Key = KEY_W, Scancode = 26, Buttons = 0, Qualifiers = 0, Repeat = false}},
  {frame = 3, event = "TextInput", data = {Text = "w"}},
  {frame = 4, event = "KeyDown", data = {Key = KEY_W, Scancode = 26, Buttons = 0, Qualifiers = 0, Repeat = true}},
  {frame = 6, event = "KeyUp", data = {Key = KEY_W, Scancode = 26, Buttons = 0, Qualifiers = 0}},
  {frame = 7, event = "KeyDown", data = {Key = KEY_A, Scancode = 4, Buttons = 0, Qualifiers = 1, Repeat = false}},
  {frame = 8, event = "KeyUp", data = {Key = KEY_A, Scancode = 4, Buttons = 0, Qualifiers = 1}},
  {frame = 10, event = "MouseMove", data = {X = 640, Y = 360, DX = 12, DY = -5, Buttons = 0, Qualifiers = 0}},
  {frame = 11, event = "MouseButtonDown", data = {Button = 1, Buttons = 1, Qualifiers = 0, Clicks = 1}},
  {frame = 12, event = "MouseMove", data = {X = 650, Y = 350, DX = 10, DY = -10, Buttons = 1, Qualifiers = 0}},
  {frame = 13, event = "MouseButtonUp", data = {Button = 1, Buttons = 0, Qualifiers = 0}},
  {frame = 15, event = "MouseWheel", data = {Wheel = -2, Buttons = 0, Qualifiers = 0}},
  {frame = 18, event = "TouchBegin", data = {TouchID = 0, X = 100, Y = 200, Pressure = 1}},
  {frame = 19, event = "TouchMove", data = {TouchID = 0, X = 120, Y = 190, DX = 20, DY = -10, Pressure = 0.5}},
  {frame = 20, event = "TouchEnd", data = {TouchID = 0, X = 120, Y = 190}},
  {frame = 22, event = "KeyDown", data = {Key = KEY_SPACE, Scancode = 44, Buttons = 0, Qualifiers = 0, Repeat = false}},
  {frame = 22, event = "KeyUp", data = {Key = KEY_SPACE, Scancode = 44, Buttons = 0, Qualifiers = 0}},
}

function S.Start()
  scene_ = Scene()
  scene_:CreateChild("Player")
  local names = {"KeyDown", "KeyUp", "TextInput", "MouseMove", "MouseButtonDown", "MouseButtonUp", "MouseWheel",
    "TouchBegin", "TouchMove", "TouchEnd"}
  for i = 1, #names do SubscribeToEvent(names[i], "Handle" .. names[i]) end
end

local function player() return scene_:GetChild("Player", false) end

function HandleKeyDown(eventType, eventData)
  local key = eventData["Key"]:GetInt()
  if key == KEY_W then player():Translate(Vector3(0, 0, 1)) end
  if key == KEY_A then player():Translate(Vector3(-1, 0, 0)) end
  if key == KEY_SPACE then player():Translate(Vector3(0, 2, 0)) end
end
function HandleKeyUp(eventType, eventData) player():Yaw(eventData["Key"]:GetInt() % 7) end
function HandleTextInput(eventType, eventData) player().name = "Player" end
function HandleMouseMove(eventType, eventData)
  player():Pitch(eventData["DY"]:GetInt() * 0.5)
end
function HandleMouseButtonDown(eventType, eventData) player():SetScale(1.5) end
function HandleMouseButtonUp(eventType, eventData) player():SetScale(1) end
function HandleMouseWheel(eventType, eventData)
  player():Translate(Vector3(0, 0, eventData["Wheel"]:GetInt()), TS_WORLD)
end
function HandleTouchBegin(eventType, eventData) player():Roll(10) end
function HandleTouchMove(eventType, eventData) player():Roll(eventData["DX"]:GetInt()) end
function HandleTouchEnd(eventType, eventData) player():Roll(-5) end

return S
