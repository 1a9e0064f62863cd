-- Oracle: a Box2D platformer. The player is a dynamic box whose horizontal speed the keys set; SPACE jumps
-- with an impulse while it stands on the Ground or the Ledge (counted from the contact events); the coin is a
-- sensor collected on contact.
local scene_
local player_, playerBody_
local gameState_
local score_ = 0
local standingOn_ = 0        -- contacts with the Ground or the Ledge going on now

local WALK_SPEED = 4.0
local JUMP_SPEED = 7.0       -- the impulse is mass × this

local function staticBox(name, x, y, w, h)
  local node = scene_:CreateChild(name)
  node.position = Vector3(x, y, 0)
  local body = node:CreateComponent("RigidBody2D")
  body.bodyType = BT_STATIC
  local shape = node:CreateComponent("CollisionBox2D")
  shape.size = Vector2(w, h)
  shape.friction = 0.2
  return node
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  scene_:CreateComponent("PhysicsWorld2D")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(2, 3, -10)
  local camera = cameraNode:CreateComponent("Camera")
  camera.orthographic = true
  camera.orthoSize = 14
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  staticBox("Ground", 0, -0.5, 30, 1)
  staticBox("Ledge", 6, 1.75, 4, 0.5)

  player_ = scene_:CreateChild("Player")
  player_.position = Vector3(0, 0.5, 0)
  playerBody_ = player_:CreateComponent("RigidBody2D")
  playerBody_.bodyType = BT_DYNAMIC
  playerBody_.fixedRotation = true
  local box = player_:CreateComponent("CollisionBox2D")
  box.size = Vector2(1, 1)
  box.density = 1.0
  box.friction = 0.2

  local coin = scene_:CreateChild("Coin")
  coin.position = Vector3(6.5, 2.5, 0)
  coin:CreateComponent("RigidBody2D").bodyType = BT_STATIC
  local circle = coin:CreateComponent("CollisionCircle2D")
  circle.radius = 0.3
  circle.trigger = true

  gameState_ = scene_:CreateChild("GameState")
  gameState_:SetVar("Score", score_)

  SubscribeToEvent(player_, "NodeBeginContact2D", "HandlePlayerBeginContact")
  SubscribeToEvent(player_, "NodeEndContact2D", "HandlePlayerEndContact")
  SubscribeToEvent("Update", "HandleUpdate")
end

local function isPlatform(node)
  return node ~= nil and (node.name == "Ground" or node.name == "Ledge")
end

function HandlePlayerBeginContact(eventType, eventData)
  local other = eventData["OtherNode"]:GetPtr("Node")
  if isPlatform(other) then
    standingOn_ = standingOn_ + 1
  elseif other ~= nil and other.name == "Coin" then
    other:Remove()
    score_ = score_ + 1
    gameState_:SetVar("Score", score_)
  end
end

function HandlePlayerEndContact(eventType, eventData)
  local other = eventData["OtherNode"]:GetPtr("Node")
  if isPlatform(other) then
    standingOn_ = math.max(standingOn_ - 1, 0)
  end
end

function HandleUpdate(eventType, eventData)
  local dir = 0
  if input:GetKeyDown(KEY_D) or input:GetKeyDown(KEY_RIGHT) then dir = dir + 1 end
  if input:GetKeyDown(KEY_A) or input:GetKeyDown(KEY_LEFT) then dir = dir - 1 end
  local velocity = playerBody_.linearVelocity ---@type Vector2
  playerBody_.linearVelocity = Vector2(dir * WALK_SPEED, velocity.y)

  if input:GetKeyPress(KEY_SPACE) and standingOn_ > 0 then
    playerBody_:ApplyLinearImpulseToCenter(Vector2(0, JUMP_SPEED * playerBody_.mass), true)
  end
end
