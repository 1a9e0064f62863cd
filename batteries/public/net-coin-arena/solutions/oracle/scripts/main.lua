-- Oracle: a server-authoritative coin arena.  Each client sends its WASD keys as its connection's Controls; the
-- server moves one REPLICATED player node per connection (PlayerN, numbered by join order), keeps it inside the
-- arena, awards the coin to the first player that reaches it (the node variable Score) and moves the coin to its
-- next spot.  The server tells each client which node is its own (remote event PlayerAssigned), and the client
-- shows that node's score in the Text ScoreText.
local PORT = 2345
local SPEED = 4.0
local HALF_SIZE = 8.0
local PICK_RADIUS = 1.0
local CTRL_FORWARD, CTRL_BACK, CTRL_LEFT, CTRL_RIGHT = 1, 2, 4, 8
local COIN_SPOTS = { Vector3(4, 0, 0), Vector3(0, 0, 4), Vector3(-4, 0, 0), Vector3(0, 0, -4) }

local scene_
-- server
local players_ = {}      -- in join order: {connection = Connection, node = Node}
local joined_ = 0
local coin_
local coinSpot_ = 1
-- client
local myNodeId_ = 0
local scoreText_

local function addModel(node, model, material)
  local sm = node:CreateComponent("StaticModel")
  sm.model = cache:GetResource("Model", model)
  sm.material = cache:GetResource("Material", material)
  return sm
end

local function startServer()
  network:StartServer(PORT)

  local floor = scene_:CreateChild("Floor")
  floor.position = Vector3(0, -0.5, 0)
  floor.scale = Vector3(2 * HALF_SIZE + 1, 1, 2 * HALF_SIZE + 1)
  addModel(floor, "Models/Box.mdl", "Materials/Stone.xml")

  local sun = scene_:CreateChild("Sun")
  sun.direction = Vector3(0.5, -1, 0.8)
  sun:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  coin_ = scene_:CreateChild("Coin")
  coin_.position = COIN_SPOTS[1]
  coin_.scale = Vector3(0.8, 0.1, 0.8)
  addModel(coin_, "Models/Cylinder.mdl", "Materials/DefaultGrey.xml")

  SubscribeToEvent("ClientConnected", "HandleClientConnected")
  SubscribeToEvent("ClientDisconnected", "HandleClientDisconnected")
  SubscribeToEvent("Update", "HandleServerUpdate")
end

local function startClient()
  local cameraNode = scene_:CreateChild("Camera", LOCAL)
  cameraNode.position = Vector3(0, 18, -14)
  cameraNode:LookAt(Vector3(0, 0, 0))
  local camera = cameraNode:CreateComponent("Camera", LOCAL)
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  scoreText_ = ui.root:CreateChild("Text", "ScoreText")
  scoreText_:SetFont(cache:GetResource("Font", "Fonts/Anonymous Pro.ttf"), 24)
  scoreText_.position = IntVector2(20, 20)
  scoreText_.text = "Score: 0"

  SubscribeToEvent("PlayerAssigned", "HandlePlayerAssigned")
  SubscribeToEvent("ServerDisconnected", "HandleServerDisconnected")
  SubscribeToEvent("Update", "HandleClientUpdate")
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree", LOCAL)
  network:RegisterRemoteEvent("PlayerAssigned")
  if IsServerMode() then startServer() else startClient() end
end

-- Server ------------------------------------------------------------------------------------------------------------

function HandleClientConnected(eventType, eventData)
  local connection = eventData["Connection"]:GetPtr("Connection")
  joined_ = joined_ + 1
  local node = scene_:CreateChild("Player" .. joined_)
  node.position = Vector3(0, 0, 0)
  node:SetVar("Score", Variant(0))
  addModel(node, "Models/Sphere.mdl", "Materials/Stone.xml")
  players_[#players_ + 1] = { connection = connection, node = node }

  connection.scene = scene_
  local data = VariantMap()
  data["NodeID"] = node.ID
  connection:SendRemoteEvent("PlayerAssigned", true, data)
end

function HandleClientDisconnected(eventType, eventData)
  local connection = eventData["Connection"]:GetPtr("Connection")
  for i, player in ipairs(players_) do
    if player.connection == connection then
      player.node:Remove()
      table.remove(players_, i)
      return
    end
  end
end

local function clamp(v, lo, hi)
  if v < lo then return lo elseif v > hi then return hi end
  return v
end

local function movePlayer(node, controls, dt)
  local dx, dz = 0, 0
  if controls:IsDown(CTRL_FORWARD) then dz = dz + 1 end
  if controls:IsDown(CTRL_BACK) then dz = dz - 1 end
  if controls:IsDown(CTRL_LEFT) then dx = dx - 1 end
  if controls:IsDown(CTRL_RIGHT) then dx = dx + 1 end
  if dx == 0 and dz == 0 then return end
  local step = Vector3(dx, 0, dz):Normalized() * (SPEED * dt)
  local p = node.position
  node.position = Vector3(clamp(p.x + step.x, -HALF_SIZE, HALF_SIZE), 0, clamp(p.z + step.z, -HALF_SIZE, HALF_SIZE))
end

local function tryPickUp(node)
  local p, c = node.position, COIN_SPOTS[coinSpot_]
  local dx, dz = p.x - c.x, p.z - c.z
  if dx * dx + dz * dz > PICK_RADIUS * PICK_RADIUS then return end
  node:SetVar("Score", Variant(node:GetVar("Score"):GetInt() + 1))
  coinSpot_ = coinSpot_ % #COIN_SPOTS + 1
  coin_.position = COIN_SPOTS[coinSpot_]
end

function HandleServerUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  for _, player in ipairs(players_) do
    movePlayer(player.node, player.connection.controls, dt)
    tryPickUp(player.node)
  end
end

-- Client ------------------------------------------------------------------------------------------------------------

function HandlePlayerAssigned(eventType, eventData)
  myNodeId_ = eventData["NodeID"]:GetInt()
  scoreText_.text = "Score: 0"
end

function HandleServerDisconnected(eventType, eventData)
  myNodeId_ = 0
  scoreText_.text = "Score: 0"
end

function HandleClientUpdate(eventType, eventData)
  local connection = network:GetServerConnection()
  if connection == nil then return end
  local controls = Controls()
  controls:Set(CTRL_FORWARD, input:GetKeyDown(KEY_W))
  controls:Set(CTRL_BACK, input:GetKeyDown(KEY_S))
  controls:Set(CTRL_LEFT, input:GetKeyDown(KEY_A))
  controls:Set(CTRL_RIGHT, input:GetKeyDown(KEY_D))
  connection.controls = controls

  local node = myNodeId_ ~= 0 and scene_:GetNode(myNodeId_) or nil
  if node ~= nil then
    scoreText_.text = "Score: " .. node:GetVar("Score"):GetInt()
  end
end
