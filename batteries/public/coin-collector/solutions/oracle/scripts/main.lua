-- Oracle: walk with WASD / arrows, collect coins within the pickup radius, keep score in GameState and on
-- screen, win.
local scene_
local player_
local gameState_
local scoreText_, winText_
local coins_ = {}       -- live coin nodes
local score_ = 0
local won_ = false

local SPEED = 5.0
local PICKUP_RADIUS = {{params.pickup_radius|lua}}
local COIN_VALUE = {{params.coin_value|lua}}
local COIN_POSITIONS = {
  Vector3(4, 0.5, 0), Vector3(4, 0.5, 5), Vector3(-3, 0.5, 5), Vector3(-3.6, 0.5, -4), Vector3(-2.4, 0.5, -4),
}

local function updateUI()
  scoreText_.text = "Score: " .. score_
  gameState_:SetVar("Score", score_)
  gameState_:SetVar("Won", won_)
  if won_ then
    winText_.text = "You win!"
    winText_.visible = true
  end
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(0, 16, -14)
  cameraNode:LookAt(Vector3(0, 0, 0.5))
  local camera = cameraNode:CreateComponent("Camera")
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  local lightNode = scene_:CreateChild("Light")
  lightNode.direction = Vector3(0.4, -1.0, 0.6)
  lightNode:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  local floor = scene_:CreateChild("Floor")
  floor.scale = Vector3(24, 1, 24)
  local floorModel = floor:CreateComponent("StaticModel")
  floorModel.model = cache:GetResource("Model", "Models/Plane.mdl")
  floorModel.material = cache:GetResource("Material", "Materials/StoneTiled.xml")

  player_ = scene_:CreateChild("Player")
  player_.position = Vector3(0, 0.5, 0)
  local model = player_:CreateComponent("StaticModel")
  model.model = cache:GetResource("Model", "Models/Box.mdl")
  model.material = cache:GetResource("Material", "Materials/Stone.xml")

  for i, p in ipairs(COIN_POSITIONS) do
    local coin = scene_:CreateChild("Coin" .. i)
    coin.position = p
    coin.scale = Vector3(0.8, 0.1, 0.8)
    coin.rotation = Quaternion(90, Vector3(1, 0, 0))   -- stand the disc up
    local coinModel = coin:CreateComponent("StaticModel")
    coinModel.model = cache:GetResource("Model", "Models/Cylinder.mdl")
    coinModel.material = cache:GetResource("Material", "Materials/Mushroom.xml")
    coins_[#coins_ + 1] = coin
  end

  gameState_ = scene_:CreateChild("GameState")

  local font = cache:GetResource("Font", "Fonts/Anonymous Pro.ttf")
  scoreText_ = ui.root:CreateChild("Text", "ScoreText")
  scoreText_:SetFont(font, 24)
  scoreText_:SetPosition(20, 20)

  winText_ = ui.root:CreateChild("Text", "WinText")
  winText_:SetFont(font, 48)
  winText_.horizontalAlignment = HA_CENTER
  winText_.verticalAlignment = VA_CENTER
  winText_.visible = false

  updateUI()
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

  local move = Vector3(axis({KEY_D, KEY_RIGHT}, {KEY_A, KEY_LEFT}), 0, axis({KEY_W, KEY_UP}, {KEY_S, KEY_DOWN}))
  if move:LengthSquared() > 0 then
    player_:Translate(move:Normalized() * (SPEED * dt), TS_WORLD)
  end

  -- collect: walk the list backwards so removing an entry never skips the next one
  local playerPos = player_.worldPosition
  local collected = false
  for i = #coins_, 1, -1 do
    local coin = coins_[i]
    local offset = coin.worldPosition - playerPos ---@type Vector3
    if offset:Length() <= PICKUP_RADIUS then
      coin:Remove()
      table.remove(coins_, i)
      score_ = score_ + COIN_VALUE
      collected = true
    end
  end
  if collected then
    if #coins_ == 0 then won_ = true end
    updateUI()
  end
end
