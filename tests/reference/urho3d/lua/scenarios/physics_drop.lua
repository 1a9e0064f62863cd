-- Bullet: a sphere, a box and a capsule dropped from different heights onto a static floor; they fall, land
-- and settle.  Collision start events record who touched whom and when.
local S = {domain = "physics", frames = 150, record = 5}

local function body(name, pos, mass, shape)
  local n = scene_:CreateChild(name)
  n.position = pos
  local b = n:CreateComponent("RigidBody")
  b.mass = mass
  local s = n:CreateComponent("CollisionShape")
  shape(s)
  return n, b
end

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  scene_:CreateComponent("PhysicsWorld")
  local floor = body("Floor", Vector3(0, -0.5, 0), 0, function(s) s:SetBox(Vector3(40, 1, 40)) end)
  body("Sphere", Vector3(-2, 4, 0), 1, function(s) s:SetSphere(1) end)
  local box = body("Box", Vector3(0, 6, 0), 2, function(s) s:SetBox(Vector3(1, 1, 1)) end)
  box.rotation = Quaternion(0, 30, 0)
  body("Capsule", Vector3(2, 3, 0), 1, function(s) s:SetCapsule(0.6, 2) end)
  SubscribeToEvent("PhysicsCollisionStart", "HandleCollisionStart")
  Trace.vec3("gravity", scene_:GetComponent("PhysicsWorld").gravity)
end

function HandleCollisionStart(eventType, eventData)
end

return S
