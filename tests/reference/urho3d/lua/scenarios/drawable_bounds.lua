-- Drawables' bounding boxes from the stock models, through transforms, and as a node moves.
local S = {frames = 10, record = 5}

local function box(name, b)
  Trace.vec3(name .. " min", b.min)
  Trace.vec3(name .. " max", b.max)
end

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
    box(models[i] .. " model", m.model.boundingBox)
    box(models[i] .. " world", m.worldBoundingBox)
  end
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local sphere = scene_:GetChild("Sphere", false)
  sphere:Translate(Vector3(0, 0.5, 0), TS_WORLD)
  if Trace.frame() % 3 == 0 then box("moved sphere world", sphere:GetComponent("StaticModel").worldBoundingBox) end
end

return S
