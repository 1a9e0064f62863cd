-- Bullet: balls with restitution 0, 0.5 and 0.9 dropped on a floor with restitution 1: how high each bounces
-- and when it comes to rest.
local S = {domain = "physics", frames = 180, record = 5}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  local floor = scene_:CreateChild("Floor")
  floor.position = Vector3(0, -0.5, 0)
  local fb = floor:CreateComponent("RigidBody")
  fb.restitution = 1
  floor:CreateComponent("CollisionShape"):SetBox(Vector3(20, 1, 20))
  local values = {0, 0.5, 0.9}
  for i = 1, 3 do
    local n = scene_:CreateChild("Ball" .. i)
    n.position = Vector3(i * 2 - 4, 3, 0)
    local b = n:CreateComponent("RigidBody")
    b.mass = 1
    b.restitution = values[i]
    b.friction = 0.5
    n:CreateComponent("CollisionShape"):SetSphere(0.5)
  end
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  if Trace.frame() % 15 == 0 then
    for i = 1, 3 do
      local b = scene_:GetChild("Ball" .. i, false):GetComponent("RigidBody")
      Trace.vec3("ball " .. i .. " velocity", b.linearVelocity)
      Trace.bool("ball " .. i .. " active", b.active)
    end
  end
end

return S
