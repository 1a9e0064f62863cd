-- LookAt, SetDirection and Yaw/Pitch/Roll in each transform space, under a rotated and scaled parent.
local S = {frames = 60, record = 10}

local targets = {Vector3(5, 0, 0), Vector3(0, 10, 0.001), Vector3(-3, -2, -7), Vector3(0, 0, 0)}

function S.Start()
  scene_ = Scene()
  local parent = scene_:CreateChild("Parent")
  parent.position = Vector3(2, 1, -1)
  parent.rotation = Quaternion(0, 60, 20)
  parent:SetScale(Vector3(1, 2, 0.5))
  local spaces = {TS_LOCAL, TS_PARENT, TS_WORLD}
  for i = 1, 3 do
    local n = parent:CreateChild("Yawer" .. i)
    n.position = Vector3(i, 0, 0)
    n.rotation = Quaternion(15 * i, Vector3(1, 0, 1))
    local m = scene_:CreateChild("RootYawer" .. i)
    m.position = Vector3(0, i, 0)
    m.rotation = Quaternion(-10 * i, Vector3(0, 1, 1))
  end
  local looker = parent:CreateChild("Looker")
  looker.position = Vector3(0, 1, 1)
  local free = scene_:CreateChild("FreeLooker")
  free.position = Vector3(1, 1, 1)
  for i = 1, #targets do
    Trace.bool("look " .. i, free:LookAt(targets[i]))
    Trace.quat("free rotation " .. i, free.rotation)
    Trace.bool("look child " .. i, looker:LookAt(targets[i], Vector3(0, 1, 0), TS_WORLD))
    Trace.quat("child world rotation " .. i, looker.worldRotation)
  end
  Trace.bool("look at self", free:LookAt(free.worldPosition))
  Trace.bool("look local", looker:LookAt(Vector3(1, 0, 0), Vector3(0, 0, 1), TS_LOCAL))
  Trace.quat("local look rotation", looker.rotation)
  Trace.bool("look parent", looker:LookAt(Vector3(0, 3, 0), Vector3(1, 0, 0), TS_PARENT))
  Trace.quat("parent look rotation", looker.rotation)
  local dir = scene_:CreateChild("Director")
  dir.direction = Vector3(1, 1, 0)
  Trace.quat("set direction", dir.rotation)
  local wdir = parent:CreateChild("WorldDirector")
  wdir.worldDirection = Vector3(0, -1, 1)
  Trace.vec3("world direction", wdir.worldDirection)
  S.spaces = spaces
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local parent = scene_:GetChild("Parent", false)
  for i = 1, 3 do
    local space = S.spaces[i]
    local n = parent:GetChild("Yawer" .. i, false)
    n:Yaw(3, space)
    n:Pitch(-2, space)
    n:Roll(1.5, space)
    local m = scene_:GetChild("RootYawer" .. i, false)
    m:Yaw(-4, space)
    m:Pitch(1, space)
  end
  local free = scene_:GetChild("FreeLooker", false)
  free:Translate(Vector3(0.1, 0, 0.05), TS_WORLD)
  free:LookAt(Vector3(0, 0, 0), Vector3(0, 1, 0))
end

return S
