-- Bullet constraints: a hinge pendulum with limits, a chain of point constraints hanging from a static anchor,
-- a slider, and a cone-twist joint (what ragdolls are built from).
local S = {domain = "physics", frames = 180, record = 10}

local function body(name, pos, mass, size)
  local n = scene_:CreateChild(name)
  n.position = pos
  local b = n:CreateComponent("RigidBody")
  b.mass = mass
  n:CreateComponent("CollisionShape"):SetBox(size)
  return n, b
end

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  local anchor, ab = body("Anchor", Vector3(0, 10, 0), 0, Vector3(1, 1, 1))
  local arm = body("Arm", Vector3(2, 10, 0), 1, Vector3(3, 0.3, 0.3))
  local hinge = arm:CreateComponent("Constraint")
  hinge.constraintType = CONSTRAINT_HINGE
  hinge.otherBody = ab
  hinge.position = Vector3(-1.5, 0, 0)
  hinge.axis = Vector3(0, 0, 1)
  hinge.otherPosition = Vector3(0.5, 0, 0)
  hinge.otherAxis = Vector3(0, 0, 1)
  hinge.lowLimit = Vector2(-80, 0)
  hinge.highLimit = Vector2(80, 0)
  local prev = ab
  for i = 1, 4 do
    local link, lb = body("Link" .. i, Vector3(-2, 10 - i, 0), 0.5, Vector3(0.3, 0.8, 0.3))
    local c = link:CreateComponent("Constraint")
    c.constraintType = CONSTRAINT_POINT
    c.otherBody = prev
    c.worldPosition = Vector3(-2, 10.5 - i, 0)
    c.disableCollision = true
    prev = lb
  end
  prev:ApplyImpulse(Vector3(0, 0, 2))
  local rail, rb = body("Rail", Vector3(6, 8, 0), 0, Vector3(0.2, 0.2, 0.2))
  local slider = body("SliderBody", Vector3(6, 8, 0), 1, Vector3(0.5, 0.5, 0.5))
  local sc = slider:CreateComponent("Constraint")
  sc.constraintType = CONSTRAINT_SLIDER
  sc.otherBody = rb
  sc.axis = Vector3(0, 1, 0)
  sc.otherAxis = Vector3(0, 1, 0)
  sc.lowLimit = Vector2(-3, 0)
  sc.highLimit = Vector2(0, 0)
  local socket, sb = body("Socket", Vector3(-6, 8, 0), 0, Vector3(0.5, 0.5, 0.5))
  local limb = body("Limb", Vector3(-6, 7, 0), 1, Vector3(0.3, 1.5, 0.3))
  local cone = limb:CreateComponent("Constraint")
  cone.constraintType = CONSTRAINT_CONETWIST
  cone.otherBody = sb
  cone.position = Vector3(0, 0.75, 0)
  cone.otherPosition = Vector3(0, -0.25, 0)
  cone.axis = Vector3(0, 1, 0)
  cone.otherAxis = Vector3(0, 1, 0)
  cone.highLimit = Vector2(30, 30)
  limb:GetComponent("RigidBody"):ApplyImpulse(Vector3(1.5, 0, 0.5))
end

return S
