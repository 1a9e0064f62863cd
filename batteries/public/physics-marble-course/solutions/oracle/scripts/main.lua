-- Oracle: a marble course on Bullet. The player rolls a marble with forces and jumps from the floor; a
-- kinematic lift ferries it over a gap, a hinged turnstile turns when pushed, trigger checkpoints must be
-- passed in order, a fall puts the marble back at the last checkpoint, the Finish line completes a lap
-- (lap clock, last and best lap) and trigger coins are picked up once.

----------------------------------------------------------------------------------------------------
-- the course
----------------------------------------------------------------------------------------------------
local FLOORS = {                  -- static boxes, top face at y = 0: {name, x0, x1, z0, z1}
  {"StartPad", -5, 5, -5, 5},
  {"WestLane", -3, 3, 5, 22},
  {"NorthPad", -3, 23, 34, 40},
  {"EastLane", 17, 23, -3, 34},
  {"SouthLane", 5, 17, -3, 3},
}
local FLOOR_THICKNESS = 1.0
local HURDLE = {center = Vector3(14.2, 0.3, 0), size = Vector3(0.4, 0.6, 6)}
local LIFT_SIZE = Vector3(6, 0.5, 6)
local LIFT_X, LIFT_Y = 0, -0.25
local LIFT_NEAR, LIFT_FAR = 25, 31
local LIFT_WAIT, LIFT_TRAVEL = 2, 3                 -- seconds at each end, seconds from end to end
local GATE_CENTER = Vector3(10, 0.9, 37)            -- a turnstile: a board turning about a vertical axis
local GATE_SIZE = Vector3(0.2, 1.2, 5.8)            -- through its centre
local GATE_MASS = 2.0
local CHECKPOINTS = {                               -- trigger boxes and where a fall puts the marble back
  {name = "Checkpoint1", center = Vector3(4, 1.5, 37), size = Vector3(1, 3, 6), spawn = Vector3(6, 0.5, 37)},
  {name = "Checkpoint2", center = Vector3(20, 1.5, 20), size = Vector3(6, 3, 1), spawn = Vector3(20, 0.5, 18)},
  {name = "Checkpoint3", center = Vector3(8, 1.5, 0), size = Vector3(1, 3, 6), spawn = Vector3(6, 0.5, 0)},
}
local FINISH = {center = Vector3(0, 1.5, 8), size = Vector3(6, 3, 1)}
local COINS = {Vector3(0, 0.5, 15), Vector3(15, 0.5, 35.5), Vector3(20, 0.5, 10), Vector3(10.5, 0.5, 0)}
local COIN_DIAMETER = 1.0

----------------------------------------------------------------------------------------------------
-- the marble and the rules
----------------------------------------------------------------------------------------------------
local START = Vector3(0, 0.5, 0)
local MARBLE_MASS, MARBLE_DIAMETER = 1.0, 1.0
local ROLL_FORCE = 8.0                              -- newtons per held direction
local JUMP_IMPULSE = Vector3(0, 5, 0)               -- N·s
local FALL_Y = -5.0
local MOVES = {                                     -- key -> force direction
  {KEY_W, Vector3(0, 0, 1)}, {KEY_UP, Vector3(0, 0, 1)},
  {KEY_S, Vector3(0, 0, -1)}, {KEY_DOWN, Vector3(0, 0, -1)},
  {KEY_D, Vector3(1, 0, 0)}, {KEY_RIGHT, Vector3(1, 0, 0)},
  {KEY_A, Vector3(-1, 0, 0)}, {KEY_LEFT, Vector3(-1, 0, 0)},
}

local scene_
---@type Node
local marble_
---@type RigidBody
local marbleBody_
---@type Node
local lift_
---@type Node
local cameraNode_
local gameState_
local hudText_
local clock_ = 0.0                                  -- seconds since Start(): the lift's timetable
local floorContacts_ = {}                           -- RigidBody -> true while the marble touches that floor
local checkpointOf_ = {}                            -- trigger RigidBody -> checkpoint index
local finishBody_
---@type table<RigidBody, Node>
local coins_ = {}                                   -- trigger RigidBody -> coin node

local state_ = {Laps = 0, LapTime = 0.0, LastLap = 0.0, BestLap = 0.0, Checkpoint = 0, Coins = 0, Falls = 0}

local function publish()
  for k, v in pairs(state_) do gameState_:SetVar(k, v) end
  hudText_.text = string.format("Laps: %d  Coins: %d  Falls: %d", state_.Laps, state_.Coins, state_.Falls)
end

-- The lift's z at time t: a wait at the near end, a smooth trip out, a wait at the far end, a trip back.
local function liftZ(t)
  local period = 2 * (LIFT_WAIT + LIFT_TRAVEL)
  local u = t % period
  local span = LIFT_FAR - LIFT_NEAR
  if u < LIFT_WAIT then return LIFT_NEAR end
  u = u - LIFT_WAIT
  if u < LIFT_TRAVEL then return LIFT_NEAR + span * (1 - math.cos(math.pi * u / LIFT_TRAVEL)) / 2 end
  u = u - LIFT_TRAVEL
  if u < LIFT_WAIT then return LIFT_FAR end
  u = u - LIFT_WAIT
  return LIFT_FAR - span * (1 - math.cos(math.pi * u / LIFT_TRAVEL)) / 2
end

----------------------------------------------------------------------------------------------------
-- building
----------------------------------------------------------------------------------------------------
local function addModel(node, modelName, material)
  local model = node:CreateComponent("StaticModel")
  model.model = cache:GetResource("Model", modelName)
  model.material = cache:GetResource("Material", material)
  return model
end

-- A box node with its model scaled to size and a box shape of that size (the node itself is not scaled, so
-- constraint positions and shape sizes stay in metres).
local function addBox(name, center, size, material)
  local node = scene_:CreateChild(name)
  node.position = center
  local look = node:CreateChild(name .. "Model")
  look.scale = size
  addModel(look, "Models/Box.mdl", material)
  local body = node:CreateComponent("RigidBody")
  node:CreateComponent("CollisionShape"):SetBox(size)
  return node, body
end

local function addTrigger(name, center, size)
  local node = scene_:CreateChild(name)
  node.position = center
  local body = node:CreateComponent("RigidBody")
  body.trigger = true
  node:CreateComponent("CollisionShape"):SetBox(size)
  return node, body
end

local function buildCourse()
  for _, f in ipairs(FLOORS) do
    local name, x0, x1, z0, z1 = f[1], f[2], f[3], f[4], f[5]
    addBox(name, Vector3((x0 + x1) / 2, -FLOOR_THICKNESS / 2, (z0 + z1) / 2),
      Vector3(x1 - x0, FLOOR_THICKNESS, z1 - z0), "Materials/StoneTiled.xml")
  end
  addBox("Hurdle", HURDLE.center, HURDLE.size, "Materials/Stone.xml")

  local liftBody
  lift_, liftBody = addBox("Lift", Vector3(LIFT_X, LIFT_Y, liftZ(0)), LIFT_SIZE, "Materials/Stone.xml")
  liftBody.kinematic = true

  local gate, gateBody = addBox("Gate", GATE_CENTER, GATE_SIZE, "Materials/Stone.xml")
  gateBody.mass = GATE_MASS
  local hinge = gate:CreateComponent("Constraint")
  hinge.constraintType = CONSTRAINT_HINGE
  hinge.worldPosition = GATE_CENTER               -- no other body: the board turns about a point of the world
  hinge.axis = Vector3(0, 1, 0)
  hinge.otherAxis = Vector3(0, 1, 0)
  hinge.lowLimit = Vector2(1, 0)                  -- low above high: no limit, it turns all the way round
  hinge.highLimit = Vector2(-1, 0)

  for i, c in ipairs(CHECKPOINTS) do
    local _, body = addTrigger(c.name, c.center, c.size)
    checkpointOf_[body] = i
  end
  local _, finish = addTrigger("Finish", FINISH.center, FINISH.size)
  finishBody_ = finish

  for _, p in ipairs(COINS) do
    local coin = scene_:CreateChild("Coin")
    coin.position = p
    local look = coin:CreateChild("CoinModel")
    look.scale = Vector3(COIN_DIAMETER, COIN_DIAMETER * 0.2, COIN_DIAMETER)
    look.rotation = Quaternion(90, 0, 0)
    addModel(look, "Models/Cylinder.mdl", "Materials/Stone.xml")
    local body = coin:CreateComponent("RigidBody")
    body.trigger = true
    coin:CreateComponent("CollisionShape"):SetSphere(COIN_DIAMETER)
    coins_[body] = coin
  end
end

local function buildMarble()
  marble_ = scene_:CreateChild("Marble")
  marble_.position = START
  marble_.scale = Vector3(MARBLE_DIAMETER, MARBLE_DIAMETER, MARBLE_DIAMETER)
  addModel(marble_, "Models/Sphere.mdl", "Materials/Stone.xml")
  marbleBody_ = marble_:CreateComponent("RigidBody")
  marbleBody_.mass = MARBLE_MASS
  marble_:CreateComponent("CollisionShape"):SetSphere(1.0)   -- scaled by the node: diameter 1
end

local function followCamera()
  local p = marble_.position
  cameraNode_.position = Vector3(p.x, p.y + 9, p.z - 12)
  cameraNode_:LookAt(p)
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  scene_:CreateComponent("PhysicsWorld")

  cameraNode_ = scene_:CreateChild("Camera")
  local camera = cameraNode_:CreateComponent("Camera")
  camera.farClip = 200
  renderer:SetViewport(0, Viewport:new(scene_, camera))
  local lightNode = scene_:CreateChild("Light")
  lightNode.direction = Vector3(0.4, -1.0, 0.3)
  lightNode:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  buildCourse()
  buildMarble()

  gameState_ = scene_:CreateChild("GameState")
  hudText_ = ui.root:CreateChild("Text", "HudText")
  hudText_:SetFont(cache:GetResource("Font", "Fonts/Anonymous Pro.ttf"), 20)
  hudText_:SetPosition(16, 16)
  publish()
  followCamera()

  SubscribeToEvent(marble_, "NodeCollisionStart", "HandleMarbleCollisionStart")
  SubscribeToEvent(marble_, "NodeCollisionEnd", "HandleMarbleCollisionEnd")
  SubscribeToEvent("Update", "HandleUpdate")
  SubscribeToEvent("PostUpdate", "HandlePostUpdate")
end

----------------------------------------------------------------------------------------------------
-- the rules
----------------------------------------------------------------------------------------------------
local function isFloor(body)
  return body ~= nil and not body.trigger and (body.mass == 0 or body.kinematic)
end

local function onGround()
  return next(floorContacts_) ~= nil
end

local function reachCheckpoint(index)
  if index == state_.Checkpoint + 1 then          -- in order only; an earlier one again changes nothing
    state_.Checkpoint = index
  end
end

local function crossFinish()
  if state_.Checkpoint ~= #CHECKPOINTS then return end
  local lap = state_.LapTime
  state_.Laps = state_.Laps + 1
  state_.LastLap = lap
  if state_.BestLap == 0 or lap < state_.BestLap then state_.BestLap = lap end
  state_.LapTime = 0.0
  state_.Checkpoint = 0
end

local function pickCoin(body)
  local coin = coins_[body]
  if coin == nil then return end
  coins_[body] = nil
  coin:Remove()
  state_.Coins = state_.Coins + 1
end

function HandleMarbleCollisionStart(eventType, eventData)
  local other = eventData["OtherBody"]:GetPtr("RigidBody")
  if other == nil then return end
  if isFloor(other) then
    floorContacts_[other] = true
  elseif other.trigger then
    if checkpointOf_[other] then
      reachCheckpoint(checkpointOf_[other])
    elseif other == finishBody_ then
      crossFinish()
    else
      pickCoin(other)
    end
  end
  publish()
end

function HandleMarbleCollisionEnd(eventType, eventData)
  local other = eventData["OtherBody"]:GetPtr("RigidBody")
  if other ~= nil then floorContacts_[other] = nil end
end

local function respawn()
  local spawn = START
  if state_.Checkpoint > 0 then spawn = CHECKPOINTS[state_.Checkpoint].spawn end
  marble_.position = spawn
  marble_.rotation = Quaternion()
  marbleBody_.linearVelocity = Vector3(0, 0, 0)
  marbleBody_.angularVelocity = Vector3(0, 0, 0)
  state_.Falls = state_.Falls + 1
end

local function steer()
  local force = Vector3(0, 0, 0)
  local seen = {}
  for _, m in ipairs(MOVES) do
    local key, dir = m[1], m[2]
    -- W and UP (and the other pairs) push once together, not twice
    local id = string.format("%g,%g", dir.x, dir.z)
    if input:GetKeyDown(key) and not seen[id] then
      seen[id] = true
      force = force + dir * ROLL_FORCE
    end
  end
  if force:Length() > 0 then marbleBody_:ApplyForce(force) end
end

function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  clock_ = clock_ + dt
  state_.LapTime = state_.LapTime + dt
  lift_.position = Vector3(LIFT_X, LIFT_Y, liftZ(clock_))

  steer()
  if input:GetKeyPress(KEY_SPACE) and onGround() then
    marbleBody_:ApplyImpulse(JUMP_IMPULSE)
  end
  if marble_.position.y < FALL_Y then respawn() end
  publish()
end

function HandlePostUpdate(eventType, eventData)
  followCamera()
end
