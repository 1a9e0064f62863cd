-- Bullet queries: single and all-hit raycasts, a sphere cast and a segmented raycast against static shapes of
-- each kind, and a raycast following a falling body; collision masks filter hits.
local S = {domain = "physics", frames = 60, record = 30}

local function result(tag, r)
  Trace.node(tag .. " node", r.body and r.body.node)
  Trace.num(tag .. " distance", r.distance)
  Trace.vec3(tag .. " position", r.position)
  Trace.vec3(tag .. " normal", r.normal)
end

function S.Start()
  scene_ = Scene()
  local world = scene_:CreateComponent("PhysicsWorld")
  local shapes = {
    {"Box", function(s) s:SetBox(Vector3(2, 2, 2)) end},
    {"Sphere", function(s) s:SetSphere(2) end},
    {"Cylinder", function(s) s:SetCylinder(2, 2) end},
    {"Capsule", function(s) s:SetCapsule(1.5, 3) end},
    {"Cone", function(s) s:SetCone(2, 2) end},
  }
  for i = 1, #shapes do
    local n = scene_:CreateChild(shapes[i][1])
    n.position = Vector3(i * 4 - 12, 0, 0)
    n.rotation = Quaternion(0, 0, 15 * i)
    local b = n:CreateComponent("RigidBody")
    b.collisionLayer = i % 2 + 1
    shapes[i][2](n:CreateComponent("CollisionShape"))
  end
  local falling = scene_:CreateChild("Falling")
  falling.position = Vector3(0, 10, 5)
  falling:CreateComponent("RigidBody").mass = 1
  falling:CreateComponent("CollisionShape"):SetBox(Vector3(1, 1, 1))
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  local world = scene_:GetComponent("PhysicsWorld")
  if f == 1 then
    for i = 1, 5 do
      local x = i * 4 - 12
      result("down " .. i, world:RaycastSingle(Ray(Vector3(x + 0.3, 10, 0.2), Vector3(0, -1, 0)), 50))
      result("side " .. i, world:RaycastSingle(Ray(Vector3(x, 0.1, -10), Vector3(0, 0, 1)), 50))
    end
    local all = world:Raycast(Ray(Vector3(-20, 0, 0), Vector3(1, 0, 0)), 100)
    Trace.int("all hits", #all)
    for i = 1, #all do result("all " .. i, all[i]) end
    local masked = world:Raycast(Ray(Vector3(-20, 0, 0), Vector3(1, 0, 0)), 100, 2)
    Trace.int("masked hits", #masked)
    result("sphere cast", world:SphereCast(Ray(Vector3(-20, 1.2, 0), Vector3(1, 0, 0)), 0.5, 100))
    result("segmented", world:RaycastSingleSegmented(Ray(Vector3(-20, 0, 0), Vector3(1, 0, 0)), 100, 3))
    result("miss", world:RaycastSingle(Ray(Vector3(0, 10, 0), Vector3(0, 1, 0)), 50))
  end
  if f % 10 == 0 then
    result("follow " .. f, world:RaycastSingle(Ray(Vector3(0, 20, 5), Vector3(0, -1, 0)), 100))
  end
end

return S
