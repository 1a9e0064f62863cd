-- Oracle: a Box2D ball run. The ball waits at the top until SPACE, rolls down the ramp and drops into the cup;
-- the cup's sensor scores once per drop; R puts the ball back to wait at the top. Sprites ride on the nodes and an
-- orthographic camera shows the whole level.
local scene_
local ball_, ballBody_
local gameState_
local score_ = 0
local dropping_ = false    -- released and not yet reset
local scored_ = false      -- this drop already reached the cup

local START = Vector2(-5, 4)

local function staticBody(name, x, y)
  local node = scene_:CreateChild(name)
  node.position = Vector3(x, y, 0)
  node:CreateComponent("RigidBody2D").bodyType = BT_STATIC
  return node
end

local function sprite(node, name)
  local s = node:CreateComponent("StaticSprite2D")
  s.sprite = cache:GetResource("Sprite2D", name)
  return s
end

local function waitAtStart()
  ballBody_.bodyType = BT_STATIC          -- a static body has no velocity: it stays exactly here
  ball_.position = Vector3(START.x, START.y, 0)
  ball_.rotation = Quaternion()
  dropping_ = false
  scored_ = false
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  scene_:CreateComponent("PhysicsWorld2D")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(0, 0, -10)
  local camera = cameraNode:CreateComponent("Camera")
  camera.orthographic = true
  camera.orthoSize = 12
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  local ramp = staticBody("Ramp", 0, 0)
  local edge = ramp:CreateComponent("CollisionEdge2D")
  edge:SetVertices(Vector2(-6, 2.5), Vector2(2, -0.5))

  local cup = staticBody("Cup", 4, -4)
  local chain = cup:CreateComponent("CollisionChain2D")
  chain:SetVertexCount(4)
  chain:SetVertex(0, Vector2(-1.2, 1.5))
  chain:SetVertex(1, Vector2(-1.2, 0))
  chain:SetVertex(2, Vector2(1.2, 0))
  chain:SetVertex(3, Vector2(1.2, 3))

  local sensor = staticBody("CupSensor", 4, -3.85)
  local zone = sensor:CreateComponent("CollisionBox2D")
  zone.size = Vector2(2.2, 0.3)
  zone.trigger = true

  ball_ = scene_:CreateChild("Ball")
  ball_.position = Vector3(START.x, START.y, 0)
  sprite(ball_, "Urho2D/Ball.png")
  ballBody_ = ball_:CreateComponent("RigidBody2D")
  local circle = ball_:CreateComponent("CollisionCircle2D")
  circle.radius = 0.25
  circle.density = 1.0
  circle.friction = 0.3
  circle.restitution = 0.5
  waitAtStart()

  gameState_ = scene_:CreateChild("GameState")
  gameState_:SetVar("Score", score_)

  SubscribeToEvent(sensor, "NodeBeginContact2D", "HandleCupContact")
  SubscribeToEvent("KeyDown", "HandleKeyDown")
end

function HandleCupContact(eventType, eventData)
  local other = eventData["OtherNode"]:GetPtr("Node")
  if other == ball_ and dropping_ and not scored_ then
    scored_ = true
    score_ = score_ + 1
    gameState_:SetVar("Score", score_)
  end
end

function HandleKeyDown(eventType, eventData)
  local key = eventData["Key"]:GetInt()
  if key == KEY_SPACE and not dropping_ then
    ballBody_.bodyType = BT_DYNAMIC
    dropping_ = true
  elseif key == KEY_R then
    waitAtStart()
  end
end
