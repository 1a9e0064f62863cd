-- Box2D queries and contacts: raycasts against shapes of each kind, a sensor the falling body passes, and the
-- begin/end contact events globally and for one node.
local S = {domain = "physics2d", frames = 120, record = 20}

local function result(tag, r)
  Trace.node(tag .. " node", r.body and r.body.node)
  Trace.num(tag .. " distance", r.distance)
  Trace.vec2(tag .. " position", r.position)
  Trace.vec2(tag .. " normal", r.normal)
end

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld2D")
  local box = scene_:CreateChild("StaticBox")
  box.position = Vector3(-3, 0, 0)
  box:CreateComponent("RigidBody2D").bodyType = BT_STATIC
  box:CreateComponent("CollisionBox2D").size = Vector2(2, 2)
  local circle = scene_:CreateChild("StaticCircle")
  circle.position = Vector3(3, 0, 0)
  circle:CreateComponent("RigidBody2D").bodyType = BT_STATIC
  circle:CreateComponent("CollisionCircle2D").radius = 1
  local sensor = scene_:CreateChild("Sensor")
  sensor.position = Vector3(0, 2, 0)
  sensor:CreateComponent("RigidBody2D").bodyType = BT_STATIC
  local ss = sensor:CreateComponent("CollisionBox2D")
  ss.size = Vector2(3, 0.5)
  ss.trigger = true
  local ground = scene_:CreateChild("Ground")
  ground.position = Vector3(0, -3, 0)
  ground:CreateComponent("RigidBody2D").bodyType = BT_STATIC
  ground:CreateComponent("CollisionBox2D").size = Vector2(20, 1)
  local faller = scene_:CreateChild("Faller")
  faller.position = Vector3(0.2, 6, 0)
  faller:CreateComponent("RigidBody2D").bodyType = BT_DYNAMIC
  local fs = faller:CreateComponent("CollisionCircle2D")
  fs.radius = 0.3
  fs.density = 1
  SubscribeToEvent("PhysicsBeginContact2D", "HandleContact")
  SubscribeToEvent("PhysicsEndContact2D", "HandleContact")
  SubscribeToEvent(sensor, "NodeBeginContact2D", "HandleContact")
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleContact(eventType, eventData) end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  local world = scene_:GetComponent("PhysicsWorld2D")
  if f == 1 then
    result("across", world:RaycastSingle(Vector2(-10, 0.2), Vector2(10, 0.2)))
    result("down on circle", world:RaycastSingle(Vector2(3.5, 5), Vector2(3.5, -5)))
    local all = world:Raycast(Vector2(-10, 0), Vector2(10, 0))
    Trace.int("all hits", #all)
    for i = 1, #all do result("all " .. i, all[i]) end
  end
  if f % 20 == 0 then
    result("follow " .. f, world:RaycastSingle(Vector2(0.2, 10), Vector2(0.2, -10)))
  end
end

return S
