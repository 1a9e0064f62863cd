-- Oracle: a ball dropped on a floor and left to Bullet (restitution 0.9 on both bodies); NodeCollisionStart
-- with the floor counts the bounces; SPACE kicks the ball up with an impulse; R drops it again from the start.
local scene_
local ball_, ballBody_
local gameState_
local bounceText_
local bounces_ = 0

local START = Vector3(0, 5, 0)
local KICK = Vector3(0, 6, 0)       -- N·s: +6 m/s on a 1 kg ball
local RESTITUTION = 0.9

local function showBounces()
  gameState_:SetVar("Bounces", bounces_)
  bounceText_.text = "Bounces: " .. bounces_
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  scene_:CreateComponent("PhysicsWorld")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(0, 4, -14)
  cameraNode:LookAt(Vector3(0, 3, 0))
  local camera = cameraNode:CreateComponent("Camera")
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  local lightNode = scene_:CreateChild("Light")
  lightNode.direction = Vector3(0.4, -1.0, 0.6)
  lightNode:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  local floor = scene_:CreateChild("Floor")
  floor.position = Vector3(0, -0.5, 0)
  floor.scale = Vector3(20, 1, 20)
  local floorModel = floor:CreateComponent("StaticModel")
  floorModel.model = cache:GetResource("Model", "Models/Box.mdl")
  floorModel.material = cache:GetResource("Material", "Materials/StoneTiled.xml")
  local floorBody = floor:CreateComponent("RigidBody")     -- mass 0: static
  floorBody.restitution = RESTITUTION
  floor:CreateComponent("CollisionShape"):SetBox(Vector3(1, 1, 1))

  ball_ = scene_:CreateChild("Ball")
  ball_.position = START
  local ballModel = ball_:CreateComponent("StaticModel")
  ballModel.model = cache:GetResource("Model", "Models/Sphere.mdl")
  ballModel.material = cache:GetResource("Material", "Materials/Stone.xml")
  ballBody_ = ball_:CreateComponent("RigidBody")
  ballBody_.mass = 1.0
  ballBody_.restitution = RESTITUTION
  ball_:CreateComponent("CollisionShape"):SetSphere(1.0)

  gameState_ = scene_:CreateChild("GameState")
  bounceText_ = ui.root:CreateChild("Text", "BounceText")
  bounceText_:SetFont(cache:GetResource("Font", "Fonts/Anonymous Pro.ttf"), 24)
  bounceText_:SetPosition(20, 20)
  showBounces()

  SubscribeToEvent(ball_, "NodeCollisionStart", "HandleBallCollisionStart")
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleBallCollisionStart(eventType, eventData)
  local other = eventData["OtherNode"]:GetPtr("Node")
  if other ~= nil and other.name == "Floor" then
    bounces_ = bounces_ + 1
    showBounces()
  end
end

function HandleUpdate(eventType, eventData)
  if input:GetKeyPress(KEY_SPACE) then
    ballBody_:ApplyImpulse(KICK)
  end
  if input:GetKeyPress(KEY_R) then
    ball_.position = START
    ball_.rotation = Quaternion()
    ballBody_.linearVelocity = Vector3(0, 0, 0)
    ballBody_.angularVelocity = Vector3(0, 0, 0)
    bounces_ = 0
    showBounces()
  end
end
