-- RotateAround a point in local, parent and world space, for nodes with and without a transformed parent.
local S = {frames = 45, record = 5}

function S.Start()
  scene_ = Scene()
  local parent = scene_:CreateChild("Parent")
  parent.position = Vector3(1, 0, 2)
  parent.rotation = Quaternion(25, Vector3(1, 0, 0))
  parent:SetScale(Vector3(1.5, 1.5, 1.5))
  for i = 0, 2 do
    local n = parent:CreateChild("Orbiter" .. i)
    n.position = Vector3(2, 0.5 * i, 0)
    n:SetScale(Vector3(1, 2, 1))
    local m = scene_:CreateChild("RootOrbiter" .. i)
    m.position = Vector3(0, 0, 3 + i)
  end
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local parent = scene_:GetChild("Parent", false)
  local spaces = {TS_LOCAL, TS_PARENT, TS_WORLD}
  local step = Quaternion(4, Vector3(0, 1, 0))
  for i = 0, 2 do
    parent:GetChild("Orbiter" .. i, false):RotateAround(Vector3(0, 0, 1), step, spaces[i + 1])
    scene_:GetChild("RootOrbiter" .. i, false):RotateAround(Vector3(1, 0, 0), Quaternion(-3, Vector3(0, 0, 1)), spaces[i + 1])
  end
end

return S
