-- Bullet: a trigger volume a ball falls through; the begin, ongoing and end collision events, global and the
-- node-specific ones the trigger's node sends, with their data.
local S = {domain = "physics", frames = 120, record = 10}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  local floor = scene_:CreateChild("Floor")
  floor.position = Vector3(0, -5.5, 0)
  floor:CreateComponent("RigidBody")
  floor:CreateComponent("CollisionShape"):SetBox(Vector3(20, 1, 20))
  local zone = scene_:CreateChild("TriggerZone")
  zone.position = Vector3(0, 0, 0)
  local tb = zone:CreateComponent("RigidBody")
  tb.trigger = true
  zone:CreateComponent("CollisionShape"):SetBox(Vector3(4, 1, 4))
  local ball = scene_:CreateChild("Ball")
  ball.position = Vector3(0.5, 4, 0)
  local bb = ball:CreateComponent("RigidBody")
  bb.mass = 1
  ball:CreateComponent("CollisionShape"):SetSphere(0.5)
  SubscribeToEvent("PhysicsCollisionStart", "HandleGlobal")
  SubscribeToEvent("PhysicsCollisionEnd", "HandleGlobal")
  SubscribeToEvent(zone, "NodeCollisionStart", "HandleZone")
  SubscribeToEvent(zone, "NodeCollisionEnd", "HandleZone")
end

function HandleGlobal(eventType, eventData) end
function HandleZone(eventType, eventData) end

return S
