-- Octree raycasts against the stock models (triangle, oriented and axis-aligned box levels), after a move.
local S = {frames = 10, record = 5}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  local models = {"Box", "Sphere", "Cylinder", "Cone", "Plane", "Torus", "Pyramid", "TeaPot"}
  for i = 1, #models do
    local n = scene_:CreateChild(models[i])
    n.position = Vector3(i * 3 - 12, 0, 10)
    n.rotation = Quaternion(i * 20, i * 7, 0)
    n:SetScale(Vector3(1, 1 + i * 0.25, 1))
    local m = n:CreateComponent("StaticModel")
    m.model = cache:GetResource("Model", "Models/" .. models[i] .. ".mdl")
  end
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  local sphere = scene_:GetChild("Sphere", false)
  sphere:Translate(Vector3(0, 0.5, 0), TS_WORLD)
  if f == 2 or f == 9 then
    local octree = scene_:GetComponent("Octree")
    local result = octree:RaycastSingle(Ray(Vector3(-9, 0, 0), Vector3(0, 0, 1)), RAY_TRIANGLE, 100,
      DRAWABLE_GEOMETRY)
    Trace.node("ray hit node", result.node)
    Trace.num("ray hit distance", result.distance)
    Trace.vec3("ray hit position", result.position)
    Trace.vec3("ray hit normal", result.normal)
    local aabb = octree:RaycastSingle(Ray(Vector3(-6, 40, 10), Vector3(0, -1, 0)), RAY_AABB, 100,
      DRAWABLE_GEOMETRY)
    Trace.node("aabb hit node", aabb.node)
    Trace.num("aabb hit distance", aabb.distance)
    local all = octree:Raycast(Ray(Vector3(-20, 0, 10), Vector3(1, 0, 0)), RAY_OBB, 100, DRAWABLE_GEOMETRY)
    Trace.int("ray hits", #all)
    for i = 1, #all do Trace.node("hit " .. i, all[i].node) end
  end
end

return S
