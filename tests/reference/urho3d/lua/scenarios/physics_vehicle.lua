-- Mirrors the idea of Urho3D's sample 19_VehicleDemo (written here, not copied): a box hull with four wheel
-- bodies on hinge constraints, driven by torque on the wheels, then braking by damping.
local S = {domain = "physics", frames = 180, record = 10}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  local floor = scene_:CreateChild("Floor")
  floor.position = Vector3(0, -0.5, 0)
  local fb = floor:CreateComponent("RigidBody")
  fb.friction = 1
  floor:CreateComponent("CollisionShape"):SetBox(Vector3(200, 1, 200))
  local hull = scene_:CreateChild("Hull")
  hull.position = Vector3(0, 1.2, 0)
  local hb = hull:CreateComponent("RigidBody")
  hb.mass = 4
  hb.linearDamping = 0.2
  hb.angularDamping = 0.5
  hull:CreateComponent("CollisionShape"):SetBox(Vector3(1.6, 0.5, 3))
  local offsets = {Vector3(-1, -0.4, 1.1), Vector3(1, -0.4, 1.1), Vector3(-1, -0.4, -1.1), Vector3(1, -0.4, -1.1)}
  for i = 1, 4 do
    local w = scene_:CreateChild("Wheel" .. i)
    w.position = hull.position + offsets[i]
    w.rotation = Quaternion(0, 0, 90)
    local wb = w:CreateComponent("RigidBody")
    wb.mass = 1
    wb.friction = 1
    wb.linearDamping = 0.2
    wb.angularDamping = 0.5
    w:CreateComponent("CollisionShape"):SetCylinder(0.8, 0.3)
    local c = w:CreateComponent("Constraint")
    c.constraintType = CONSTRAINT_HINGE
    c.otherBody = hb
    c.worldPosition = w.position
    c.axis = Vector3(0, 1, 0)
    c.otherAxis = Vector3(1, 0, 0)
    c.highLimit = Vector2(0, 0)
    c.lowLimit = Vector2(0, 0)
    c.disableCollision = true
  end
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  for i = 1, 4 do
    local wb = scene_:GetChild("Wheel" .. i, false):GetComponent("RigidBody")
    if f > 20 and f <= 110 then wb:ApplyTorque(Vector3(-6, 0, 0)) end
    if f == 111 then wb.angularDamping = 0.95 end
  end
  if f % 30 == 0 then
    Trace.vec3("hull velocity", scene_:GetChild("Hull", false):GetComponent("RigidBody").linearVelocity)
  end
end

return S
