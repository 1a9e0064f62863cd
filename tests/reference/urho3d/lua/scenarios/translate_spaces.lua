-- Translate and Rotate in local, parent and world space; SetWorldPosition/Rotation/Scale under a transformed
-- parent; 2D variants.
local S = {frames = 40, record = 4}

function S.Start()
  scene_ = Scene()
  local parent = scene_:CreateChild("Parent")
  parent.position = Vector3(-2, 3, 1)
  parent.rotation = Quaternion(20, -35, 10)
  parent:SetScale(Vector3(2, 0.5, 1.25))
  for i = 0, 2 do
    local n = parent:CreateChild("Mover" .. i)
    n.position = Vector3(0, i, 0)
    n.rotation = Quaternion(30, Vector3(0, 0, 1))
  end
  local w = parent:CreateChild("WorldSetter")
  w.worldPosition = Vector3(1, 1, 1)
  w.worldRotation = Quaternion(45, Vector3(0, 1, 0))
  w.worldScale = Vector3(1, 1, 1)
  Trace.vec3("world setter local position", w.position)
  Trace.quat("world setter local rotation", w.rotation)
  Trace.vec3("world setter local scale", w.scale)
  local flat = scene_:CreateChild("Flat")
  flat:SetPosition2D(Vector2(3, 4))
  flat:SetRotation2D(30)
  flat:SetScale2D(Vector2(2, 3))
  Trace.vec2("position 2d", flat:GetPosition2D())
  Trace.num("rotation 2d", flat:GetRotation2D())
  Trace.vec2("scale 2d", flat:GetScale2D())
  local child2d = flat:CreateChild("Flat child")
  child2d:SetPosition2D(1, 0)
  Trace.vec2("world position 2d", child2d:GetWorldPosition2D())
  Trace.num("world rotation 2d", child2d:GetWorldRotation2D())
  local zero = scene_:CreateChild("ZeroScale")
  zero:SetScale(Vector3(0, 1, 1))
  Trace.vec3("zero scale kept", zero.scale)
  local sc = scene_:CreateChild("Scaler")
  sc:SetScale(2)
  sc:Scale(Vector3(1, 0.5, 3))
  Trace.vec3("scale multiplied", sc.scale)
  local tr = scene_:CreateChild("Transformed")
  tr:SetTransform(Vector3(1, 2, 3), Quaternion(10, 20, 30), Vector3(1, 2, 1))
  Trace.mat34("transform", tr.transform)
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local parent = scene_:GetChild("Parent", false)
  local spaces = {TS_LOCAL, TS_PARENT, TS_WORLD}
  for i = 0, 2 do
    local n = parent:GetChild("Mover" .. i, false)
    n:Translate(Vector3(0.05, 0.02, -0.03), spaces[i + 1])
    n:Rotate(Quaternion(2, Vector3(0, 1, 0)), spaces[i + 1])
  end
  local flat = scene_:GetChild("Flat", false)
  flat:Translate2D(Vector2(0.1, -0.05))
  flat:Rotate2D(3)
end

return S
