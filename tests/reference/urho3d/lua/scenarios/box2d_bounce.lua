-- Box2D: circles with restitution 0, 0.5 and 0.9 bouncing on the ground; velocities every 15 frames.
local S = {domain = "physics2d", frames = 180, record = 5}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld2D")
  local ground = scene_:CreateChild("Ground")
  ground.position = Vector3(0, -0.5, 0)
  ground:CreateComponent("RigidBody2D").bodyType = BT_STATIC
  local gs = ground:CreateComponent("CollisionBox2D")
  gs.size = Vector2(20, 1)
  gs.restitution = 0
  local values = {0, 0.5, 0.9}
  for i = 1, 3 do
    local n = scene_:CreateChild("Ball" .. i)
    n.position = Vector3(i * 2 - 4, 3, 0)
    n:CreateComponent("RigidBody2D").bodyType = BT_DYNAMIC
    local c = n:CreateComponent("CollisionCircle2D")
    c.radius = 0.25
    c.density = 1
    c.restitution = values[i]
  end
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  if Trace.frame() % 15 == 0 then
    for i = 1, 3 do
      local b = scene_:GetChild("Ball" .. i, false):GetComponent("RigidBody2D")
      Trace.vec2("ball " .. i .. " velocity", b.linearVelocity)
      Trace.bool("ball " .. i .. " awake", b.awake)
    end
  end
end

return S
