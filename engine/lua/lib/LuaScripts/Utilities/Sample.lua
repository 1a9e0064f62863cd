-- LuaScripts/Utilities/Sample.lua: the grader engine's own version of the sample framework that Urho3D's Lua
-- samples and UrhoX games load with `require "LuaScripts/Utilities/Sample"`.  Written for this project.
--
-- What a game gets from it (all globals, as the samples expect):
--   SampleStart()                 touch set-up on mobile, window title and icon, console and debug HUD, and the
--                                 key / touch / scene-update handlers below
--   SampleInitMouseMode(mode)     remember the mouse mode the sample wants and apply it
--   CreateLogo(), SetLogoVisible(enable)
--   SetWindowTitleAndIcon(), CreateConsoleAndDebugHud(), InitTouchInput()
--   GetScreenJoystickPatchString() a sample may redefine it; the default patches nothing
--   scene_, cameraNode, yaw, pitch, paused, drawDebug, touchEnabled, useMouseMode_, TOUCH_SENSITIVITY,
--   screenJoystickIndex, screenJoystickSettingsIndex
--
-- Keys: F1 toggles the console, F2 the debug HUD, F3 the runtime debugger when there is one; ESC hides the
-- console when it is shown and otherwise asks the engine to exit (on the web it frees the mouse instead).
-- While touch is enabled, dragging on empty screen space turns `cameraNode` (yaw / pitch).
--
-- As in UrhoX, the framework's handlers are subscribed by a private script object, not as the script's global
-- handlers, so a game's own SubscribeToEvent("KeyDown", ...) or global HandleKeyDown neither replaces nor is
-- replaced by them.

scene_ = nil
cameraNode = nil
yaw = 0
pitch = 0
paused = false
drawDebug = false
touchEnabled = false
useMouseMode_ = MM_ABSOLUTE
TOUCH_SENSITIVITY = 2
screenJoystickIndex = M_MAX_UNSIGNED
screenJoystickSettingsIndex = M_MAX_UNSIGNED

local logo = nil          -- the logo Sprite, once CreateLogo made it
local receiverNode = nil  -- a detached node holding the framework's script object
local receiver = nil

local function platform()
  return GetPlatform()
end

local function isMobilePlatform()
  local p = platform()
  return p == "Android" or p == "iOS"
end

-- The script object class whose instance receives the framework's events.
SampleFrameworkReceiver = ScriptObject()

local function subscribe(eventName, method)
  receiver:SubscribeToEvent(eventName, "SampleFrameworkReceiver:" .. method)
end

function SampleStart()
  if receiver == nil then
    receiverNode = Node()
    receiver = receiverNode:CreateScriptObject("SampleFrameworkReceiver")
  end

  if isMobilePlatform() or input.touchEmulation then
    InitTouchInput()
  elseif input:GetNumJoysticks() == 0 then
    -- a desktop may still have a touch screen: switch touch on at the first touch
    subscribe("TouchBegin", "HandleTouchBegin")
  end

  SetWindowTitleAndIcon()
  CreateConsoleAndDebugHud()

  subscribe("KeyDown", "HandleKeyDown")
  subscribe("KeyUp", "HandleKeyUp")
  subscribe("SceneUpdate", "HandleSceneUpdate")
end

-- Touch: the camera follows drags on empty space (see HandleSceneUpdate).
function InitTouchInput()
  touchEnabled = true
end

function GetScreenJoystickPatchString()
  return ""
end

function SampleInitMouseMode(mode)
  useMouseMode_ = mode
  if platform() == "Web" then
    -- a browser only locks the pointer after a click
    input.mouseVisible = true
    subscribe("MouseButtonDown", "HandleMouseModeRequest")
    subscribe("MouseModeChanged", "HandleMouseModeChange")
    return
  end
  if mode == MM_FREE then
    input.mouseVisible = true
  end
  if mode ~= MM_ABSOLUTE then
    input.mouseMode = mode
    if console ~= nil and console.visible then
      input:SetMouseMode(MM_ABSOLUTE, true)
    end
  end
end

function CreateLogo()
  local texture = cache:GetResource("Texture2D", "Textures/FishBoneLogo.png")
  if texture == nil then
    return
  end
  local width, height = texture.width, texture.height
  logo = ui.root:CreateChild("Sprite")
  logo:SetTexture(texture)
  logo:SetSize(width, height)
  logo:SetScale(256 / width)
  logo.hotSpot = IntVector2(width, height)
  logo:SetAlignment(HA_RIGHT, VA_BOTTOM)
  logo.opacity = 0.9
  logo.priority = -100   -- below every other element
end

function SetLogoVisible(enable)
  if logo ~= nil then
    logo.visible = enable
  end
end

function SetWindowTitleAndIcon()
  graphics:SetWindowIcon(cache:GetResource("Image", "Textures/UrhoIcon.png"))
  graphics.windowTitle = "Urho3D Sample"
end

function CreateConsoleAndDebugHud()
  local style = cache:GetResource("XMLFile", "UI/DefaultStyle.xml")
  if style == nil then
    return
  end
  local con = engine:CreateConsole()
  con.defaultStyle = style
  con.background.opacity = 0.8
  local hud = engine:CreateDebugHud()
  hud.defaultStyle = style
end

----------------------------------------------------------------------------------------------------
-- Handlers (methods of the framework's script object)
----------------------------------------------------------------------------------------------------
function SampleFrameworkReceiver:HandleKeyDown(eventType, eventData)
  local key = eventData["Key"]:GetInt()
  if key == KEY_F1 then
    console:Toggle()
  elseif key == KEY_F2 then
    debugHud:ToggleAll()
  elseif key == KEY_F3 then
    local debugger = rawget(_G, "runtimeDebugger")
    if debugger ~= nil then
      debugger:Toggle()
    end
  end
end

function SampleFrameworkReceiver:HandleKeyUp(eventType, eventData)
  if eventData["Key"]:GetInt() ~= KEY_ESCAPE then
    return
  end
  if console:IsVisible() then
    console:SetVisible(false)
  elseif platform() == "Web" then
    input.mouseVisible = true
    if useMouseMode_ ~= MM_ABSOLUTE then
      input.mouseMode = MM_FREE
    end
  else
    engine:Exit()
  end
end

function SampleFrameworkReceiver:HandleSceneUpdate(eventType, eventData)
  if not touchEnabled or cameraNode == nil then
    return
  end
  for i = 0, input:GetNumTouches() - 1 do
    local touch = input:GetTouch(i)
    if touch.touchedElement == nil then
      local delta = touch.delta
      if delta.x ~= 0 or delta.y ~= 0 then
        local camera = cameraNode:GetComponent("Camera")
        if camera == nil then
          return
        end
        local perPixel = TOUCH_SENSITIVITY * camera.fov / graphics.height
        yaw = yaw + perPixel * delta.x
        pitch = pitch + perPixel * delta.y
        cameraNode:SetRotation(Quaternion(pitch, yaw, 0))
      else
        local cursor = ui:GetCursor()
        if cursor ~= nil and cursor:IsVisible() then
          cursor:SetPosition(touch.position)
        end
      end
    end
  end
end

function SampleFrameworkReceiver:HandleTouchBegin(eventType, eventData)
  InitTouchInput()
  receiver:UnsubscribeFromEvent("TouchBegin")
end

function SampleFrameworkReceiver:HandleMouseModeRequest(eventType, eventData)
  if console ~= nil and console.visible then
    return
  end
  if input.mouseMode == MM_ABSOLUTE then
    input.mouseVisible = false
  elseif useMouseMode_ == MM_FREE then
    input.mouseVisible = true
  end
  input.mouseMode = useMouseMode_
end

function SampleFrameworkReceiver:HandleMouseModeChange(eventType, eventData)
  input.mouseVisible = not eventData["MouseLocked"]:GetBool()
end
