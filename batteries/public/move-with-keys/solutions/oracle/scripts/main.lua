-- Oracle: a box walked with WASD / arrow keys at 4 units/s (diagonals normalised), clamped to the arena,
-- with an analytic jump y = 5τ - 6.25τ² lasting 0.8 s.
local scene_
local player_
local jumpTime_ = nil          -- τ while in the air, nil on the ground

local SPEED = 4.0
local ARENA = 10.0
local JUMP_V, JUMP_G, JUMP_DURATION = 5.0, 12.5, 0.8

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(0, 22, -20)
  cameraNode:LookAt(Vector3(0, 0, 0))
  local camera = cameraNode:CreateComponent("Camera")
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  local lightNode = scene_:CreateChild("Light")
  lightNode.direction = Vector3(0.5, -1.0, 0.8)
  lightNode:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  local floor = scene_:CreateChild("Floor")
  floor.position = Vector3(0, -0.5, 0)
  floor.scale = Vector3(2 * ARENA + 1, 1, 2 * ARENA + 1)
  local floorModel = floor:CreateComponent("StaticModel")
  floorModel.model = cache:GetResource("Model", "Models/Plane.mdl")
  floorModel.material = cache:GetResource("Material", "Materials/StoneTiled.xml")

  player_ = scene_:CreateChild("Player")
  player_.position = Vector3(0, 0, 0)
  local model = player_:CreateComponent("StaticModel")
  model.model = cache:GetResource("Model", "Models/Box.mdl")
  model.material = cache:GetResource("Material", "Materials/Stone.xml")

  SubscribeToEvent("Update", "HandleUpdate")
end

local function axis(positive, negative)
  local v = 0
  if input:GetKeyDown(positive[1]) or input:GetKeyDown(positive[2]) then v = v + 1 end
  if input:GetKeyDown(negative[1]) or input:GetKeyDown(negative[2]) then v = v - 1 end
  return v
end

function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  local pos = player_.position ---@type Vector3

  local move = Vector3(axis({KEY_D, KEY_RIGHT}, {KEY_A, KEY_LEFT}), 0, axis({KEY_W, KEY_UP}, {KEY_S, KEY_DOWN}))
  if move:LengthSquared() > 0 then
    local step = move:Normalized() * (SPEED * dt)
    pos.x = Clamp(pos.x + step.x, -ARENA, ARENA)
    pos.z = Clamp(pos.z + step.z, -ARENA, ARENA)
  end

  if jumpTime_ == nil and input:GetKeyPress(KEY_SPACE) then
    jumpTime_ = 0.0
  end
  if jumpTime_ ~= nil then
    jumpTime_ = jumpTime_ + dt
    if jumpTime_ >= JUMP_DURATION then
      jumpTime_ = nil
      pos.y = 0.0
    else
      pos.y = JUMP_V * jumpTime_ - 0.5 * JUMP_G * jumpTime_ * jumpTime_
    end
  end

  player_.position = pos
end
