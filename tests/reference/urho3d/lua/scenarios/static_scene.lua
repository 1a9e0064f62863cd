-- Mirrors what Urho3D's sample 04_StaticScene builds (written here, not copied): a floor and a couple of
-- hundred objects placed and turned with Random() after a fixed seed, a light and a camera; nothing moves.
local S = {frames = 5, record = {0, 5}}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  local plane = scene_:CreateChild("Plane")
  plane:SetScale(Vector3(100, 1, 100))
  plane:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Plane.mdl")
  local light = scene_:CreateChild("DirectionalLight")
  light.direction = Vector3(0.6, -1, 0.8)
  light:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL
  SetRandomSeed(1)
  for i = 1, 200 do
    local n = scene_:CreateChild("Mushroom")
    n.position = Vector3(Random(90) - 45, 0, Random(90) - 45)
    n.rotation = Quaternion(0, Random(360), 0)
    n:SetScale(0.5 + Random(2))
    n:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Cone.mdl")
  end
  local camera = scene_:CreateChild("Camera")
  camera:CreateComponent("Camera")
  camera.position = Vector3(0, 5, 0)
end

return S
