-- Oracle: a slingshot siege on Box2D. The waiting bird is a static body the mouse drags (its pull limited to
-- 2 m round the sling); the release turns it dynamic and gives it an impulse of its mass times 8 times the
-- pull. Pigs are destroyed by the contacts that begin with them, judged by the bodies' velocities as they were
-- just before the step (kept in PhysicsPreStep). A launched bird lives 4 s; then the next one is loaded, or,
-- with no bird left and pigs standing, the game is lost. R rebuilds the level.
local ANCHOR = Vector2(0, 2)
local MAX_PULL = 2.0
local MIN_PULL = 0.25
local LAUNCH_GAIN = 8.0        -- launch velocity (m/s) per metre of pull
local GRAB_RADIUS = 0.5
local BIRD_LIFE = 4.0
local KILL_SPEED = 3.0
local SHOTS = 3
local PIG_POINTS = 100
local BIRD_BONUS = 50

local scene_           ---@type Scene
local camera_          ---@type Camera
local gameState_       ---@type Node

local levelNodes_ = {}     -- every node of the level, removed by a restart
-- tables keyed by the node itself: a pig removed by one contact event may come again in the next event of the
-- same step, and a removed node must not be touched
local bodies_ = {}         -- node -> its RigidBody2D (for the velocities before the step)
local preVelocity_ = {}    -- node -> Vector2, its body's velocity just before the step
local pigs_ = {}           -- pig node -> true, while the pig stands

local bird_                ---@type Node|nil
local birdBody_            ---@type RigidBody2D|nil
local birdWaiting_ = false
local dragging_ = false
local flightAge_ = nil     -- seconds since the flying bird's launch; nil when none flies

local score_, shots_, pigsLeft_, result_ = 0, SHOTS, 0, "playing"

local function publish()
  gameState_:SetVar("Score", Variant(score_))
  gameState_:SetVar("Shots", Variant(shots_))
  gameState_:SetVar("PigsLeft", Variant(pigsLeft_))
  gameState_:SetVar("Result", Variant(result_))
end

local function addBody(name, x, y, bodyType)
  local node = scene_:CreateChild(name)
  node.position = Vector3(x, y, 0)
  local body = node:CreateComponent("RigidBody2D")
  body.bodyType = bodyType
  levelNodes_[#levelNodes_ + 1] = node
  bodies_[node] = body
  return node, body
end

local function box(name, x, y, w, h, bodyType)
  local node, body = addBody(name, x, y, bodyType)
  local shape = node:CreateComponent("CollisionBox2D")
  shape.size = Vector2(w, h)
  shape.density = 1.0
  return node, body
end

local function pig(name, x, y)
  local node, body = addBody(name, x, y, BT_DYNAMIC)
  body.fixedRotation = true
  local shape = node:CreateComponent("CollisionCircle2D")
  shape.radius = 0.4
  shape.density = 1.0
  pigs_[node] = true
  return node
end

local function spawnBird()
  bird_ = scene_:CreateChild("Bird")
  bird_.position = Vector3(ANCHOR.x, ANCHOR.y, 0)
  birdBody_ = bird_:CreateComponent("RigidBody2D")
  birdBody_.bodyType = BT_STATIC
  local shape = bird_:CreateComponent("CollisionCircle2D")
  shape.radius = 0.3
  shape.density = 4.0
  bodies_[bird_] = birdBody_
  birdWaiting_ = true
  dragging_ = false
end

local function removeBird()
  if bird_ ~= nil then
    bodies_[bird_] = nil
    preVelocity_[bird_] = nil
    bird_:Remove()
  end
  bird_, birdBody_ = nil, nil
  birdWaiting_ = false
  dragging_ = false
  flightAge_ = nil
end

local function buildLevel()
  for _, node in ipairs(levelNodes_) do node:Remove() end
  levelNodes_, bodies_, preVelocity_, pigs_ = {}, {}, {}, {}
  removeBird()

  box("Ground", 10, -0.5, 40, 1, BT_STATIC)
  box("Block1", 10, 1, 0.4, 2, BT_DYNAMIC)
  box("Block2", 14, 1, 0.4, 2, BT_DYNAMIC)
  box("Block3", 12, 2.2, 4.8, 0.4, BT_DYNAMIC)
  box("Block4", 11.6, 2.8, 0.8, 0.8, BT_DYNAMIC)
  box("Block5", 12.4, 2.8, 0.8, 0.8, BT_DYNAMIC)
  pig("Pig1", 12, 0.4)
  pig("Pig2", 12, 3.6)
  local post = box("Post", 18, 2, 0.4, 4, BT_STATIC)
  local shelf = box("Shelf", 19.7, 3.85, 3, 0.3, BT_DYNAMIC)
  box("Prop", 20.8, 1.85, 0.4, 3.7, BT_DYNAMIC)
  pig("Pig3", 20, 4.4)

  local hinge = shelf:CreateComponent("ConstraintRevolute2D")
  hinge.otherBody = post:GetComponent("RigidBody2D")
  hinge.anchor = Vector2(18.2, 3.85)

  spawnBird()
  score_, shots_, pigsLeft_, result_ = 0, SHOTS, 3, "playing"
  publish()
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  scene_:CreateComponent("PhysicsWorld2D")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(10, 5, -10)
  camera_ = cameraNode:CreateComponent("Camera")
  camera_.orthographic = true
  camera_.orthoSize = 18
  renderer:SetViewport(0, Viewport:new(scene_, camera_))

  gameState_ = scene_:CreateChild("GameState")
  buildLevel()

  SubscribeToEvent("Update", "HandleUpdate")
  SubscribeToEvent(scene_:GetComponent("PhysicsWorld2D"), "PhysicsPreStep", "HandlePreStep")
  SubscribeToEvent("PhysicsBeginContact2D", "HandleBeginContact")
end

function HandlePreStep(eventType, eventData)
  for node, body in pairs(bodies_) do
    local v = body.linearVelocity
    preVelocity_[node] = Vector2(v.x, v.y)
  end
end

local function destroyPig(node)
  pigs_[node] = nil
  bodies_[node] = nil
  node:Remove()
  score_ = score_ + PIG_POINTS
  pigsLeft_ = pigsLeft_ - 1
  if pigsLeft_ == 0 and result_ == "playing" then
    result_ = "won"
    score_ = score_ + BIRD_BONUS * shots_
  end
  publish()
end

local function impactSpeed(a, b)
  local va = preVelocity_[a] or Vector2(0, 0)
  local vb = preVelocity_[b] or Vector2(0, 0)
  return (va - vb):Length()
end

function HandleBeginContact(eventType, eventData)
  local a = eventData["NodeA"]:GetPtr("Node") ---@type Node
  local b = eventData["NodeB"]:GetPtr("Node") ---@type Node
  if a == nil or b == nil then return end
  -- only standing pigs matter; one destroyed by an earlier contact of this step is not destroyed again
  if pigs_[a] == nil and pigs_[b] == nil then return end
  if impactSpeed(a, b) < KILL_SPEED then return end
  if pigs_[a] ~= nil then destroyPig(a) end
  if pigs_[b] ~= nil then destroyPig(b) end
end

local function mouseWorld()
  local m = input.mousePosition
  local p = camera_:ScreenToWorldPoint(Vector3(m.x / graphics.width, m.y / graphics.height, 10))
  return Vector2(p.x, p.y)
end

local function launch()
  local pos = bird_.position
  local pull = ANCHOR - Vector2(pos.x, pos.y)
  if pull:Length() < MIN_PULL then
    bird_.position = Vector3(ANCHOR.x, ANCHOR.y, 0)
    return
  end
  birdBody_.bodyType = BT_DYNAMIC
  birdBody_:ApplyLinearImpulseToCenter(pull * (LAUNCH_GAIN * birdBody_.mass), true)
  birdWaiting_ = false
  flightAge_ = 0
  shots_ = shots_ - 1
  publish()
end

local function endFlight()
  removeBird()
  if result_ ~= "playing" then return end
  if shots_ > 0 then
    spawnBird()
  elseif pigsLeft_ > 0 then
    result_ = "lost"
    publish()
  end
end

function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  if input:GetKeyPress(KEY_R) then
    buildLevel()
    return
  end

  if flightAge_ ~= nil then
    flightAge_ = flightAge_ + dt
    if flightAge_ >= BIRD_LIFE - 1e-4 then endFlight() end
  end

  if not birdWaiting_ or result_ ~= "playing" then
    dragging_ = false
    return
  end
  if not dragging_ and input:GetMouseButtonPress(MOUSEB_LEFT) then
    local p = mouseWorld()
    local b = bird_.position
    if (p - Vector2(b.x, b.y)):Length() <= GRAB_RADIUS then dragging_ = true end
  end
  if dragging_ then
    if input:GetMouseButtonDown(MOUSEB_LEFT) then
      local offset = mouseWorld() - ANCHOR
      local len = offset:Length()
      if len > MAX_PULL then offset = offset * (MAX_PULL / len) end
      bird_.position = Vector3(ANCHOR.x + offset.x, ANCHOR.y + offset.y, 0)
    else
      dragging_ = false
      launch()
    end
  end
end
