-- Oracle: a virtual joystick on the left half of a touch screen moves the player; touches on the right half fire.
local scene_        ---@type Scene
local player_       ---@type Node
local shots_ = 0

local MAX_SPEED = 6.0      -- units per second at full deflection
local STICK_RADIUS = 100   -- pixels of drag for full deflection
local DEAD_ZONE = 10       -- pixels of drag that do nothing

-- The joystick: the finger that owns it (nil: none), where it touched down and where it is now.
local stick_ = {id = nil, x0 = 0, y0 = 0, x = 0, y = 0}

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(0, 25, -12)
  cameraNode:LookAt(Vector3(0, 0, 0))
  local camera = cameraNode:CreateComponent("Camera")
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  local lightNode = scene_:CreateChild("Light")
  lightNode.direction = Vector3(0.3, -1.0, 0.5)
  lightNode:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  local floor = scene_:CreateChild("Floor")
  floor.position = Vector3(0, -0.5, 0)
  floor.scale = Vector3(40, 1, 40)
  floor:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Plane.mdl")

  player_ = scene_:CreateChild("Player")
  player_.position = Vector3(0, 0, 0)
  player_:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Box.mdl")
  player_:SetVar("Shots", Variant(0))

  SubscribeToEvent("TouchBegin", "HandleTouchBegin")
  SubscribeToEvent("TouchMove", "HandleTouchMove")
  SubscribeToEvent("TouchEnd", "HandleTouchEnd")
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleTouchBegin(eventType, eventData)
  local id = eventData["TouchID"]:GetInt()
  local x, y = eventData["X"]:GetInt(), eventData["Y"]:GetInt()
  if x < graphics.width / 2 then
    if stick_.id == nil then
      stick_.id, stick_.x0, stick_.y0, stick_.x, stick_.y = id, x, y, x, y
    end
  else
    shots_ = shots_ + 1
    player_:SetVar("Shots", Variant(shots_))
  end
end

function HandleTouchMove(eventType, eventData)
  if eventData["TouchID"]:GetInt() == stick_.id then
    stick_.x, stick_.y = eventData["X"]:GetInt(), eventData["Y"]:GetInt()
  end
end

function HandleTouchEnd(eventType, eventData)
  if eventData["TouchID"]:GetInt() == stick_.id then
    stick_.id = nil
  end
end

-- The stick's deflection as a world-space direction scaled 0..1 (screen right is +X, screen up is +Z).
local function deflection()
  if stick_.id == nil then return Vector3.ZERO end
  local dx, dy = stick_.x - stick_.x0, stick_.y - stick_.y0
  local len = math.sqrt(dx * dx + dy * dy)
  if len <= DEAD_ZONE then return Vector3.ZERO end
  local amount = math.min(len, STICK_RADIUS) / STICK_RADIUS
  return Vector3(dx / len * amount, 0, -dy / len * amount)
end

function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  local move = deflection()
  if move:LengthSquared() > 0 then
    player_:Translate(move * (MAX_SPEED * dt), TS_WORLD)
  end
end
