-- Mirrors the idea of Urho3D's sample 13_Ragdolls (written here, not copied): a figure of capsule bodies held
-- together by cone-twist and hinge constraints, pushed over and falling onto the floor.
local S = {domain = "physics", frames = 180, record = 10}

local function part(name, pos, size, mass)
  local n = scene_:CreateChild(name)
  n.position = pos
  local b = n:CreateComponent("RigidBody")
  b.mass = mass
  b.linearDamping = 0.05
  b.angularDamping = 0.85
  n:CreateComponent("CollisionShape"):SetCapsule(size.x, size.y)
  return n, b
end

local function joint(child, parentBody, kind, at, axis, low, high)
  local c = child:CreateComponent("Constraint")
  c.constraintType = kind
  c.otherBody = parentBody
  c.worldPosition = at
  c.axis = axis
  c.otherAxis = axis
  if high then c.highLimit = high end
  if low then c.lowLimit = low end
  c.disableCollision = true
end

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  local floor = scene_:CreateChild("Floor")
  floor.position = Vector3(0, -0.5, 0)
  floor:CreateComponent("RigidBody")
  floor:CreateComponent("CollisionShape"):SetBox(Vector3(50, 1, 50))
  local torso, tb = part("Torso", Vector3(0, 1.6, 0), Vector2(0.5, 0.9), 3)
  local head, hb = part("Head", Vector3(0, 2.3, 0), Vector2(0.35, 0.4), 1)
  joint(head, tb, CONSTRAINT_CONETWIST, Vector3(0, 2.05, 0), Vector3(0, 1, 0), nil, Vector2(30, 30))
  local sides = {-1, 1}
  for i = 1, 2 do
    local s = sides[i]
    local upper, ub = part("UpperLeg" .. i, Vector3(0.15 * s, 0.95, 0), Vector2(0.22, 0.5), 1.5)
    joint(upper, tb, CONSTRAINT_CONETWIST, Vector3(0.15 * s, 1.15, 0), Vector3(0, 1, 0), nil, Vector2(45, 45))
    local lower, lb = part("LowerLeg" .. i, Vector3(0.15 * s, 0.4, 0), Vector2(0.2, 0.55), 1)
    joint(lower, ub, CONSTRAINT_HINGE, Vector3(0.15 * s, 0.68, 0), Vector3(1, 0, 0), Vector2(-90, 0), Vector2(0, 0))
    local arm, ab = part("Arm" .. i, Vector3(0.4 * s, 1.75, 0), Vector2(0.18, 0.6), 0.7)
    joint(arm, tb, CONSTRAINT_CONETWIST, Vector3(0.3 * s, 1.95, 0), Vector3(0, 1, 0), nil, Vector2(70, 70))
  end
  tb:ApplyImpulse(Vector3(0, 0, 4), Vector3(0, 0.4, 0))
end

return S
