-- Oracle: multiplayer tag in rounds.  The server owns everything: it gives each client that connects a
-- REPLICATED node PlayerN, moves the players from their connections' controls, tags by distance, keeps the
-- scores on the nodes, runs the rounds on a timer and announces each round's winner with a RoundOver remote
-- event.  The Game node's variables and the Marker's parent tell every client the state, so a client that joins
-- late sees it at once.  Clients send their keys as controls and show a Hud and a Banner.
local PORT = 2345
local HALF = 10            -- the arena: x and z from -10 to 10
local SPEED, IT_SPEED = 4, 5
local REACH = 1.0
local COOLDOWN = 2.0
local ROUND_TIME, BREAK_TIME = 25, 3
local MARKER_HEIGHT = 2

local BUTTON_UP, BUTTON_DOWN, BUTTON_LEFT, BUTTON_RIGHT = 1, 2, 4, 8

local scene_

----------------------------------------------------------------------------------------------------
-- the server
----------------------------------------------------------------------------------------------------
---@class TagPlayer
---@field number integer
---@field name string
---@field connection Connection
---@field node Node
---@field score integer
---@field cooldown number

---@type TagPlayer[]
local players_ = {}        -- in join order
local joined_ = 0
local game_, marker_
---@type TagPlayer|nil
local it_                  -- the player who is it
local phase_ = "waiting"
local round_ = 0
local timeLeft_ = 0
local breakLeft_ = 0
local lastWinner_ = ""

local function spawnPoint(number)
  return Vector3(-6 + 4 * ((number - 1) % 4), 0, 0)
end

local function publish()
  game_:SetVar("Round", Variant(round_))
  game_:SetVar("TimeLeft", Variant(timeLeft_))
  game_:SetVar("Phase", Variant(phase_))
  game_:SetVar("LastWinner", Variant(lastWinner_))
  for _, p in ipairs(players_) do p.node:SetVar("Score", Variant(p.score)) end
end

local function setIt(p)
  it_ = p
  if p == nil then
    marker_.parent = scene_
    marker_.position = Vector3(0, -MARKER_HEIGHT, 0)
    return
  end
  marker_.parent = p.node
  marker_.position = Vector3(0, MARKER_HEIGHT, 0)
end

-- the player with the lowest score, the lowest number among equals (players_ is in number order)
local function lowestScore()
  local best ---@type TagPlayer|nil
  for _, p in ipairs(players_) do
    if (best == nil or p.score < best.score) then best = p end
  end
  return best
end

local function startRound(number)
  round_ = number
  timeLeft_ = ROUND_TIME
  phase_ = "play"
  for _, p in ipairs(players_) do
    p.node.position = spawnPoint(p.number)
    p.cooldown = 0
  end
  setIt(lowestScore())
end

local function endRound()
  local winner ---@type TagPlayer|nil
  for _, p in ipairs(players_) do
    if winner == nil or p.score > winner.score then winner = p end
  end
  lastWinner_ = winner and winner.name or ""
  local data = VariantMap()
  data["Round"] = round_
  data["Winner"] = lastWinner_
  network:BroadcastRemoteEvent("RoundOver", true, data)
  phase_ = "break"
  timeLeft_ = 0
  breakLeft_ = BREAK_TIME
end

local function move(p, dt)
  local buttons = p.connection.controls.buttons
  local dx, dz = 0, 0
  if buttons & BUTTON_UP ~= 0 then dz = dz + 1 end
  if buttons & BUTTON_DOWN ~= 0 then dz = dz - 1 end
  if buttons & BUTTON_LEFT ~= 0 then dx = dx - 1 end
  if buttons & BUTTON_RIGHT ~= 0 then dx = dx + 1 end
  local len = math.sqrt(dx * dx + dz * dz)
  if len == 0 then return end
  local speed = (p == it_) and IT_SPEED or SPEED
  local pos = p.node.position
  local x = Clamp(pos.x + dx / len * speed * dt, -HALF, HALF)
  local z = Clamp(pos.z + dz / len * speed * dt, -HALF, HALF)
  p.node.position = Vector3(x, 0, z)
end

local function distance(a, b)
  local pa, pb = a.node.position, b.node.position
  local dx, dz = pa.x - pb.x, pa.z - pb.z
  return math.sqrt(dx * dx + dz * dz)
end

local function tagCheck()
  local it = it_
  if it == nil or it.cooldown > 0 then return end
  local target, nearest
  for _, p in ipairs(players_) do
    if p ~= it then
      local d = distance(it, p)
      if d <= REACH and (nearest == nil or d < nearest) then target, nearest = p, d end
    end
  end
  if target == nil then return end
  it.score = it.score + 1
  target.cooldown = COOLDOWN
  setIt(target)
end

function HandleServerUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  if phase_ == "play" then
    for _, p in ipairs(players_) do
      move(p, dt)
      if p.cooldown > 0 then p.cooldown = math.max(0, p.cooldown - dt) end
    end
    tagCheck()
    timeLeft_ = timeLeft_ - dt
    if timeLeft_ <= 0 then endRound() end
  elseif phase_ == "break" then
    breakLeft_ = breakLeft_ - dt
    if breakLeft_ <= 0 then startRound(round_ + 1) end
  end
  publish()
end

local function playerOf(connection)
  for i, p in ipairs(players_) do
    if p.connection == connection then return p, i end
  end
  return nil
end

function HandleClientConnected(eventType, eventData)
  local connection = eventData["Connection"]:GetPtr("Connection")
  connection.scene = scene_
  joined_ = joined_ + 1
  local name = "Player" .. joined_
  local node = scene_:CreateChild(name, REPLICATED)
  node.position = spawnPoint(joined_)
  local body = node:CreateChild("Body", REPLICATED)
  body.position = Vector3(0, 0.5, 0)
  local model = body:CreateComponent("StaticModel", REPLICATED)
  model.model = cache:GetResource("Model", "Models/Box.mdl")
  local p = {number = joined_, name = name, connection = connection, node = node, score = 0, cooldown = 0}
  players_[#players_ + 1] = p
  local data = VariantMap()
  data["Player"] = name
  connection:SendRemoteEvent("TagWelcome", true, data)
  if phase_ == "waiting" then startRound(1) end
  publish()
end

function HandleClientDisconnected(eventType, eventData)
  local connection = eventData["Connection"]:GetPtr("Connection")
  local p, index = playerOf(connection)
  if p == nil then return end
  table.remove(players_, index)
  if p == it_ then setIt(lowestScore()) end
  p.node:Remove()
  publish()
end

local function startServer()
  network:StartServer(PORT)
  local floor = scene_:CreateChild("Floor", REPLICATED)
  floor.scale = Vector3(2 * HALF, 1, 2 * HALF)
  floor.position = Vector3(0, -0.5, 0)
  floor:CreateComponent("StaticModel", REPLICATED).model = cache:GetResource("Model", "Models/Box.mdl")
  game_ = scene_:CreateChild("Game", REPLICATED)
  marker_ = scene_:CreateChild("Marker", REPLICATED)
  local cone = marker_:CreateComponent("StaticModel", REPLICATED)
  cone.model = cache:GetResource("Model", "Models/Cone.mdl")
  setIt(nil)
  publish()
  SubscribeToEvent("ClientConnected", "HandleClientConnected")
  SubscribeToEvent("ClientDisconnected", "HandleClientDisconnected")
  SubscribeToEvent("Update", "HandleServerUpdate")
end

----------------------------------------------------------------------------------------------------
-- a client
----------------------------------------------------------------------------------------------------
local me_ = ""
local hud_, banner_
local bannerRound_ = 0

function HandleWelcome(eventType, eventData)
  me_ = eventData["Player"]:GetString()
end

function HandleRoundOver(eventType, eventData)
  bannerRound_ = eventData["Round"]:GetInt()
  banner_.text = string.format("Round %d winner: %s", bannerRound_, eventData["Winner"]:GetString())
end

local function makeText(name, y)
  local t = ui.root:CreateChild("Text", name)
  t:SetFont(cache:GetResource("Font", "Fonts/Anonymous Pro.ttf"), 18)
  t.position = IntVector2(20, y)
  t.text = ""
  return t
end

function HandleClientUpdate(eventType, eventData)
  local connection = network:GetServerConnection()
  if connection ~= nil then
    local buttons = 0
    if input:GetKeyDown(KEY_W) then buttons = buttons | BUTTON_UP end
    if input:GetKeyDown(KEY_S) then buttons = buttons | BUTTON_DOWN end
    if input:GetKeyDown(KEY_A) then buttons = buttons | BUTTON_LEFT end
    if input:GetKeyDown(KEY_D) then buttons = buttons | BUTTON_RIGHT end
    connection.controls.buttons = buttons
  end

  local game = scene_:GetChild("Game")
  if game == nil then return end
  local round = game:GetVar("Round"):GetInt()
  local timeLeft = game:GetVar("TimeLeft"):GetFloat()
  local lastWinner = game:GetVar("LastWinner"):GetString()
  if round > bannerRound_ then banner_.text = "" end
  local mine = me_ ~= "" and scene_:GetChild(me_) or nil
  local score = mine and mine:GetVar("Score"):GetInt() or 0
  local marker = scene_:GetChild("Marker", true)
  local isIt = mine ~= nil and marker ~= nil and marker.parent == mine
  hud_.text = string.format("Round %d  Time %d\nYou: %s  Score %d%s\nLast winner: %s",
    round, math.ceil(timeLeft - 1e-9), me_, score, isIt and "  IT" or "",
    lastWinner ~= "" and lastWinner or "none")
end

local function startClient()
  local cameraNode = scene_:CreateChild("Camera", LOCAL)
  cameraNode.position = Vector3(0, 18, -14)
  cameraNode:LookAt(Vector3(0, 0, 0))
  local camera = cameraNode:CreateComponent("Camera", LOCAL)
  renderer:SetViewport(0, Viewport:new(scene_, camera))
  hud_ = makeText("Hud", 20)
  banner_ = makeText("Banner", 120)
  SubscribeToEvent("TagWelcome", "HandleWelcome")
  SubscribeToEvent("RoundOver", "HandleRoundOver")
  SubscribeToEvent("Update", "HandleClientUpdate")
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree", LOCAL)
  network:RegisterRemoteEvent("RoundOver")
  network:RegisterRemoteEvent("TagWelcome")
  if IsServerMode() then startServer() else startClient() end
end
