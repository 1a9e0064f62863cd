-- LuaScripts/Utilities/Touch.lua: the grader engine's own version of the touch helpers that Urho3D's
-- character samples load with `require "LuaScripts/Utilities/Touch"`.  Written for this project.
--
--   UpdateTouches(controls)   call once per update: two fingers moving apart or together vertically zoom
--                             `cameraDistance` (kept in [CAMERA_MIN_DIST, CAMERA_MAX_DIST]); with
--                             `useGyroscope` on, the first joystick's two axes press CTRL_LEFT/RIGHT/FORWARD/BACK
--   cameraDistance, useGyroscope, CAMERA_MIN_DIST, CAMERA_MAX_DIST
-- CTRL_* are the game's own control bits; TOUCH_SENSITIVITY comes from Sample.lua.

CAMERA_MIN_DIST = 1.0
CAMERA_MAX_DIST = 20.0
useGyroscope = false
cameraDistance = 5.0

local GYRO_DEAD_ZONE = 0.1

local function pinchZoom()
  local a, b = input:GetTouch(0), input:GetTouch(1)
  if a.touchedElement ~= nil or b.touchedElement ~= nil then
    return
  end
  local da, db = a.delta.y, b.delta.y
  if not ((da > 0 and db < 0) or (da < 0 and db > 0)) then
    return   -- the fingers must move in opposite directions
  end
  local apartNow = math.abs(a.position.y - b.position.y)
  local apartBefore = math.abs(a.lastPosition.y - b.lastPosition.y)
  local direction = apartNow > apartBefore and -1 or 1   -- spreading the fingers zooms in
  local sensitivity = TOUCH_SENSITIVITY or 2
  cameraDistance = cameraDistance + math.abs(da - db) * direction * sensitivity / 50
  cameraDistance = Clamp(cameraDistance, CAMERA_MIN_DIST, CAMERA_MAX_DIST)
end

local function gyroscope(controls)
  local joystick = input:GetJoystickByIndex(0)
  if joystick == nil or joystick.numAxes < 2 then
    return
  end
  local x, y = joystick:GetAxisPosition(0), joystick:GetAxisPosition(1)
  if x < -GYRO_DEAD_ZONE then controls:Set(CTRL_LEFT, true) end
  if x > GYRO_DEAD_ZONE then controls:Set(CTRL_RIGHT, true) end
  if y < -GYRO_DEAD_ZONE then controls:Set(CTRL_FORWARD, true) end
  if y > GYRO_DEAD_ZONE then controls:Set(CTRL_BACK, true) end
end

function UpdateTouches(controls)
  if input.numTouches == 2 then
    pinchZoom()
  end
  if useGyroscope and input.numJoysticks > 0 then
    gyroscope(controls)
  end
end
