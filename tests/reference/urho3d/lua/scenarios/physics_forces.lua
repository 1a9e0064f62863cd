-- Bullet dynamics under forces: impulses, continuous force and torque, damping, friction on a slope, a
-- kinematic body moved by hand pushing a dynamic one, gravity override and linear/angular factors.
local S = {domain = "physics", frames = 150, record = 10}

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
  body("Floor", Vector3(0, -0.5, 0), 0, Vector3(60, 1, 60))
  local ramp = body("Ramp", Vector3(-10, 2, 0), 0, Vector3(8, 0.5, 4))
  ramp.rotation = Quaternion(0, 0, -20)
  local slider, sb = body("OnRamp", Vector3(-11, 3.5, 0), 1, Vector3(0.8, 0.8, 0.8))
  slider.rotation = Quaternion(0, 0, -20)
  sb.friction = 0.2
  local kicked, kb = body("Kicked", Vector3(0, 0.5, 5), 2, Vector3(1, 1, 1))
  kb:ApplyImpulse(Vector3(6, 4, 0))
  local spun, spb = body("Spun", Vector3(0, 0.5, -5), 1, Vector3(1, 1, 1))
  spb.angularDamping = 0.3
  spb:ApplyTorqueImpulse(Vector3(0, 3, 0))
  local damped, db = body("Damped", Vector3(5, 6, 0), 1, Vector3(0.5, 0.5, 0.5))
  db.linearDamping = 0.8
  db.useGravity = false
  db.linearVelocity = Vector3(0, 0, 8)
  local floaty, fb = body("Floaty", Vector3(8, 1, 0), 1, Vector3(0.5, 0.5, 0.5))
  fb.gravityOverride = Vector3(0, 2, 0)
  fb.linearFactor = Vector3(0, 1, 0)
  fb.angularFactor = Vector3(0, 0, 0)
  local pusher, pb = body("Pusher", Vector3(10, 0.5, 5), 1, Vector3(1, 1, 2))
  pb.kinematic = true
  local pushed = body("Pushed", Vector3(12, 0.5, 5), 1, Vector3(1, 1, 1))
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  local f = Trace.frame()
  local pusher = scene_:GetChild("Pusher", false)
  if f < 100 then pusher:Translate(Vector3(3 * dt, 0, 0), TS_WORLD) end
  local kicked = scene_:GetChild("Kicked", false):GetComponent("RigidBody")
  if f > 30 and f < 60 then kicked:ApplyForce(Vector3(0, 0, -15)) end
  if f % 30 == 0 then
    Trace.vec3("kicked velocity", kicked.linearVelocity)
    Trace.vec3("spun angular velocity", scene_:GetChild("Spun", false):GetComponent("RigidBody").angularVelocity)
    Trace.vec3("damped velocity", scene_:GetChild("Damped", false):GetComponent("RigidBody").linearVelocity)
  end
end

return S
