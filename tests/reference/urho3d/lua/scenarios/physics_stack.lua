-- Bullet: a stack of five boxes on a floor, then a sixth box thrown into it from the side.
local S = {domain = "physics", frames = 180, record = 10}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  local floor = scene_:CreateChild("Floor")
  floor.position = Vector3(0, -0.5, 0)
  floor:CreateComponent("RigidBody")
  floor:CreateComponent("CollisionShape"):SetBox(Vector3(30, 1, 30))
  for i = 0, 4 do
    local n = scene_:CreateChild("Box" .. i)
    n.position = Vector3(0, 0.5 + i * 1.0, 0)
    local b = n:CreateComponent("RigidBody")
    b.mass = 1
    b.friction = 0.8
    n:CreateComponent("CollisionShape"):SetBox(Vector3(1, 1, 1))
  end
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  if Trace.frame() == 90 then
    local n = scene_:CreateChild("Projectile")
    n.position = Vector3(-6, 3.2, 0)
    local b = n:CreateComponent("RigidBody")
    b.mass = 3
    n:CreateComponent("CollisionShape"):SetSphere(0.8)
    b.linearVelocity = Vector3(12, 0, 0)
  end
end

return S
