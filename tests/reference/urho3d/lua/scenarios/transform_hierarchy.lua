-- Transform math through a hierarchy: nested parents with translation, rotation and non-uniform scale; each
-- frame the root yaws, the middle node pitches in its parent's space and the leaf moves along its local axes.
local S = {frames = 90, record = 5}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  local root = scene_:CreateChild("Root")
  root.position = Vector3(1, 2, 3)
  root.rotation = Quaternion(30, Vector3(0, 1, 0))
  root:SetScale(Vector3(2, 1, 0.5))
  local mid = root:CreateChild("Mid")
  mid.position = Vector3(0, 1.5, -2)
  mid.rotation = Quaternion(45, 10, -20)
  mid:SetScale(1.5)
  local leaf = mid:CreateChild("Leaf")
  leaf.position = Vector3(0.25, -0.5, 4)
  leaf.rotation = Quaternion(-15, Vector3(1, 1, 0))
  leaf:SetScale(Vector3(0.5, 2, 1))
  local box = leaf:CreateChild("Box")
  box:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Box.mdl")
  local sibling = root:CreateChild("Sibling")
  sibling.position = Vector3(-3, 0, 0)

  Trace.vec3("leaf local to world", leaf:LocalToWorld(Vector3(1, 2, 3)))
  Trace.vec3("leaf world to local", leaf:WorldToLocal(Vector3(0, 0, 0)))
  Trace.vec3("mid direction", mid.direction)
  Trace.vec3("leaf world direction", leaf.worldDirection)
  Trace.vec3("leaf world up", leaf.worldUp)
  Trace.vec3("leaf world right", leaf.worldRight)
  Trace.mat34("leaf world transform", leaf.worldTransform)
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  local root = scene_:GetChild("Root", false)
  local mid = root:GetChild("Mid", false)
  local leaf = mid:GetChild("Leaf", false)
  root:Yaw(40 * dt)
  mid:Pitch(25 * dt, TS_PARENT)
  leaf:Translate(Vector3(0.5, 0, -0.25) * dt)
  leaf:Roll(-60 * dt, TS_LOCAL)
  if Trace.frame() % 30 == 0 then
    Trace.vec3("leaf position", leaf.position)
    Trace.quat("leaf rotation", leaf.rotation)
    Trace.vec3("box world scale", leaf:GetChild("Box", false).worldScale)
  end
end

return S
