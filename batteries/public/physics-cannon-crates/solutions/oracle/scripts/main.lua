-- Oracle: a cannon in a walled yard fires Bullet cannonballs at a pyramid of six crates. The arrow keys aim in
-- 5-degree steps, SPACE fires (a cooldown and a shot budget), collision events count the crates a cannonball
-- touched, tilt or a fall marks a crate knocked over, and R starts a new round.
local scene_
local cannon_
local gameState_
local statusText_

local YAW_STEP, ELEVATION_STEP = 5, 5
local YAW_MIN, YAW_MAX = -45, 45
local ELEVATION_MIN, ELEVATION_MAX = 0, 60
local START_YAW, START_ELEVATION = 0, 10
local SHOTS = 10
local COOLDOWN = 0.5              -- seconds between two shots
local LIFETIME = 6.0              -- seconds a cannonball lives
local KILL_Y = -5.0               -- a cannonball below this is removed
local SPEED = 20.0                -- m/s at the muzzle
local BALL_MASS, BALL_DIAMETER = 2.0, 0.5
local MUZZLE = 1.5                -- metres from the cannon's pivot along the aim
local CANNON_POS = Vector3(0, 1, 0)
local CRATE_SIZE = Vector3(0.6, 1.2, 0.6)
local KNOCK_ANGLE = 45            -- degrees from upright
local KNOCK_Y = -1.0
local CRATE_START = {
  Vector3(-0.7, 0.6, 20), Vector3(0, 0.6, 20), Vector3(0.7, 0.6, 20),
  Vector3(-0.35, 1.8, 20), Vector3(0.35, 1.8, 20),
  Vector3(0, 3.0, 20),
}

local yaw_, elevation_ = START_YAW, START_ELEVATION
local shots_, hits_, knocked_ = SHOTS, 0, 0
local clock_ = 0.0
local lastShot_ = -math.huge
local crates_ = {}                -- {node, body, hit, knocked}
local balls_ = {}                 -- {node, born}

local function aimDirection()
  local y, e = math.rad(yaw_), math.rad(elevation_)
  return Vector3(math.sin(y) * math.cos(e), math.sin(e), math.cos(y) * math.cos(e))
end

local function showState()
  gameState_:SetVar("Yaw", yaw_)
  gameState_:SetVar("Elevation", elevation_)
  gameState_:SetVar("Shots", shots_)
  gameState_:SetVar("Hits", hits_)
  gameState_:SetVar("Knocked", knocked_)
  statusText_.text = string.format("Shots: %d  Hits: %d  Knocked: %d", shots_, hits_, knocked_)
end

local function aimCannon()
  cannon_.rotation = Quaternion(-elevation_, yaw_, 0)
end

local function addBox(name, position, size, material)
  local node = scene_:CreateChild(name)
  node.position = position
  node.scale = size
  local model = node:CreateComponent("StaticModel")
  model.model = cache:GetResource("Model", "Models/Box.mdl")
  model.material = cache:GetResource("Material", material)
  node:CreateComponent("RigidBody")                     -- mass 0: static
  node:CreateComponent("CollisionShape"):SetBox(Vector3(1, 1, 1))
  return node
end

local function placeCrates()
  for i, c in ipairs(crates_) do
    c.node.position = CRATE_START[i]
    c.node.rotation = Quaternion()
    c.body.linearVelocity = Vector3(0, 0, 0)
    c.body.angularVelocity = Vector3(0, 0, 0)
    c.hit, c.knocked = false, false
  end
end

local function removeBalls()
  for _, b in ipairs(balls_) do b.node:Remove() end
  balls_ = {}
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  scene_:CreateComponent("PhysicsWorld")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(0, 5, -8)
  cameraNode:LookAt(Vector3(0, 1, 20))
  local camera = cameraNode:CreateComponent("Camera")
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  local lightNode = scene_:CreateChild("Light")
  lightNode.direction = Vector3(0.3, -1.0, 0.5)
  lightNode:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  addBox("Ground", Vector3(0, -0.5, 12), Vector3(30, 1, 40), "Materials/StoneTiled.xml")
  addBox("LeftWall", Vector3(-15.5, 1, 12), Vector3(1, 2, 40), "Materials/Stone.xml")
  addBox("RightWall", Vector3(15.5, 1, 12), Vector3(1, 2, 40), "Materials/Stone.xml")
  addBox("BackWall", Vector3(0, 1, 32.5), Vector3(32, 2, 1), "Materials/Stone.xml")

  cannon_ = scene_:CreateChild("Cannon")
  cannon_.position = CANNON_POS
  local barrel = cannon_:CreateChild("Barrel")
  barrel.position = Vector3(0, 0, 0.75)
  barrel.rotation = Quaternion(90, 0, 0)
  barrel.scale = Vector3(0.4, 1.5, 0.4)
  local barrelModel = barrel:CreateComponent("StaticModel")
  barrelModel.model = cache:GetResource("Model", "Models/Cylinder.mdl")
  barrelModel.material = cache:GetResource("Material", "Materials/Stone.xml")
  aimCannon()

  for i, p in ipairs(CRATE_START) do
    local node = scene_:CreateChild("Crate")
    node.position = p
    node.scale = CRATE_SIZE
    local model = node:CreateComponent("StaticModel")
    model.model = cache:GetResource("Model", "Models/Box.mdl")
    model.material = cache:GetResource("Material", "Materials/Stone.xml")
    local body = node:CreateComponent("RigidBody")
    body.mass = 1.0
    node:CreateComponent("CollisionShape"):SetBox(Vector3(1, 1, 1))
    crates_[i] = {node = node, body = body, hit = false, knocked = false}
    SubscribeToEvent(node, "NodeCollisionStart", "HandleCrateCollision")
  end

  gameState_ = scene_:CreateChild("GameState")
  statusText_ = ui.root:CreateChild("Text", "StatusText")
  statusText_:SetFont(cache:GetResource("Font", "Fonts/Anonymous Pro.ttf"), 20)
  statusText_:SetPosition(16, 16)
  showState()

  SubscribeToEvent("Update", "HandleUpdate")
end

local function crateOf(body)
  for _, c in ipairs(crates_) do if c.body == body then return c end end
  return nil
end

function HandleCrateCollision(eventType, eventData)
  local other = eventData["OtherNode"]:GetPtr("Node")
  if other == nil or other.name ~= "Cannonball" then return end
  local crate = crateOf(eventData["Body"]:GetPtr("RigidBody"))
  if crate ~= nil and not crate.hit then
    crate.hit = true
    hits_ = hits_ + 1
    showState()
  end
end

local function fire()
  if shots_ <= 0 or clock_ - lastShot_ < COOLDOWN then return end
  local dir = aimDirection()
  local node = scene_:CreateChild("Cannonball")
  node.position = CANNON_POS + dir * MUZZLE
  node.scale = Vector3(BALL_DIAMETER, BALL_DIAMETER, BALL_DIAMETER)
  local model = node:CreateComponent("StaticModel")
  model.model = cache:GetResource("Model", "Models/Sphere.mdl")
  model.material = cache:GetResource("Material", "Materials/Stone.xml")
  local body = node:CreateComponent("RigidBody")
  body.mass = BALL_MASS
  node:CreateComponent("CollisionShape"):SetSphere(1.0)
  body:ApplyImpulse(dir * (SPEED * BALL_MASS))
  balls_[#balls_ + 1] = {node = node, born = clock_}
  shots_ = shots_ - 1
  lastShot_ = clock_
end

local function updateBalls()
  local kept = {}
  for _, b in ipairs(balls_) do
    if clock_ - b.born >= LIFETIME or b.node.worldPosition.y < KILL_Y then
      b.node:Remove()
    else
      kept[#kept + 1] = b
    end
  end
  balls_ = kept
end

local function updateKnocked()
  local cosLimit = math.cos(math.rad(KNOCK_ANGLE))
  for _, c in ipairs(crates_) do
    if not c.knocked and (c.node.worldUp.y < cosLimit or c.node.worldPosition.y < KNOCK_Y) then
      c.knocked = true
      knocked_ = knocked_ + 1
    end
  end
end

local function newRound()
  removeBalls()
  placeCrates()
  yaw_, elevation_ = START_YAW, START_ELEVATION
  shots_, hits_, knocked_ = SHOTS, 0, 0
  lastShot_ = -math.huge
  aimCannon()
end

function HandleUpdate(eventType, eventData)
  clock_ = clock_ + eventData["TimeStep"]:GetFloat()
  if input:GetKeyPress(KEY_R) then
    newRound()
  else
    if input:GetKeyPress(KEY_LEFT) then yaw_ = math.max(YAW_MIN, yaw_ - YAW_STEP) end
    if input:GetKeyPress(KEY_RIGHT) then yaw_ = math.min(YAW_MAX, yaw_ + YAW_STEP) end
    if input:GetKeyPress(KEY_DOWN) then elevation_ = math.max(ELEVATION_MIN, elevation_ - ELEVATION_STEP) end
    if input:GetKeyPress(KEY_UP) then elevation_ = math.min(ELEVATION_MAX, elevation_ + ELEVATION_STEP) end
    aimCannon()
    if input:GetKeyPress(KEY_SPACE) then fire() end
  end
  updateBalls()
  updateKnocked()
  showState()
end
