-- Mirrors what Urho3D's sample 05_AnimatingScene does (written here, not copied): many boxes spun by a
-- script object at their own speeds, with a parent node so that world transforms compound.
local S = {frames = 120, record = 20}

Spinner = ScriptObject()

function Spinner:Start()
  self.speed = Vector3(0, 0, 0)
end

function Spinner:SetSpeed(x, y, z)
  self.speed = Vector3(x, y, z)
end

function Spinner:Update(timeStep)
  self.node:Rotate(Quaternion(self.speed.x * timeStep, self.speed.y * timeStep, self.speed.z * timeStep))
end

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  local zone = scene_:CreateChild("Zone"):CreateComponent("Zone")
  zone.boundingBox = BoundingBox(-1000, 1000)
  local holder = scene_:CreateChild("Holder")
  holder.position = Vector3(0, 0, 10)
  holder:CreateScriptObject("Spinner"):SetSpeed(0, 5, 0)
  SetRandomSeed(42)
  for i = 1, 60 do
    local box = holder:CreateChild("Box")
    box.position = Vector3(Random(20) - 10, Random(20) - 10, Random(20) - 10)
    box.rotation = Quaternion(Random(360), Random(360), Random(360))
    local model = box:CreateComponent("StaticModel")
    model.model = cache:GetResource("Model", "Models/Box.mdl")
    box:CreateScriptObject("Spinner"):SetSpeed(10, 20, 30)
  end
  local light = scene_:CreateChild("Light")
  light:CreateComponent("Light").lightType = LIGHT_POINT
  local camera = scene_:CreateChild("Camera")
  camera:CreateComponent("Camera").farClip = 100
end

return S
