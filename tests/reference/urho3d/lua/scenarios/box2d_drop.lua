-- Box2D: a box and a circle dropped onto a static ground box; begin-contact events.
local S = {domain = "physics2d", frames = 150, record = 5}

local function body(name, x, y, kind)
  local n = scene_:CreateChild(name)
  n.position = Vector3(x, y, 0)
  local b = n:CreateComponent("RigidBody2D")
  b.bodyType = kind
  return n, b
end

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld2D")
  local ground = body("Ground", 0, -1, BT_STATIC)
  ground:CreateComponent("CollisionBox2D").size = Vector2(20, 1)
  local box = body("Box", -1, 4, BT_DYNAMIC)
  box.rotation = Quaternion(0, 0, 20)
  local bs = box:CreateComponent("CollisionBox2D")
  bs.size = Vector2(1, 1)
  bs.density = 1
  bs.friction = 0.5
  local ball = body("Ball", 1.5, 6, BT_DYNAMIC)
  local cs = ball:CreateComponent("CollisionCircle2D")
  cs.radius = 0.5
  cs.density = 1
  SubscribeToEvent("PhysicsBeginContact2D", "HandleContact")
end

function HandleContact(eventType, eventData) end

return S
