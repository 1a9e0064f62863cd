-- Reparenting: SetParent keeps the world transform, AddChild keeps the local one; child order with an index;
-- RemoveChild, Remove, RemoveAllChildren; what GetChildren returns, recursively.
local S = {frames = 30, record = 1}

local function names(list)
  local out = {}
  for i = 1, #list do out[i] = list[i].name end
  return table.concat(out, ",")
end

function S.Start()
  scene_ = Scene()
  local a = scene_:CreateChild("A")
  a.position = Vector3(1, 0, 0)
  a.rotation = Quaternion(90, Vector3(0, 1, 0))
  a:SetScale(2)
  local b = scene_:CreateChild("B")
  b.position = Vector3(0, 5, 0)
  b.rotation = Quaternion(-30, Vector3(1, 0, 0))
  for i = 1, 3 do a:CreateChild("A" .. i).position = Vector3(i, 0, 0) end
  for i = 1, 2 do b:CreateChild("B" .. i).position = Vector3(0, 0, i) end
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  local a = scene_:GetChild("A", false)
  local b = scene_:GetChild("B", false)
  if f == 2 then
    a:GetChild("A1", false):SetParent(b)
  elseif f == 4 then
    b:AddChild(a:GetChild("A2", false))
  elseif f == 6 then
    b:AddChild(a:GetChild("A3", false), 0)
  elseif f == 8 then
    Trace.str("b children", names(b:GetChildren(false)))
    Trace.str("scene recursive", names(scene_:GetChildren(true)))
    Trace.int("num recursive", scene_:GetNumChildren(true))
  elseif f == 10 then
    b:RemoveChild(b:GetChild("B1", false))
  elseif f == 12 then
    b:GetChild("A1", false):Remove()
  elseif f == 14 then
    local c = a:CreateChild("C")
    c.worldPosition = Vector3(0, 0, 0)
    c:SetParent(scene_)
  elseif f == 16 then
    local clone = b:Clone()
    clone.name = "BClone"
    clone.position = Vector3(-5, 0, 0)
  elseif f == 18 then
    Trace.str("scene recursive after", names(scene_:GetChildren(true)))
    b:RemoveAllChildren()
  elseif f == 20 then
    local found = scene_:GetChild("B2", true)
    Trace.node("find recursive", found)
    Trace.node("find parent of clone child", found and found.parent)
  end
  b:Yaw(2)
end

return S
