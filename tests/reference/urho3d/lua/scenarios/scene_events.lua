-- The scene's own events, sent by scene_ as things happen: nodes and components added and removed, names,
-- tags and enabled states changed.
local S = {frames = 8, record = 2}

function S.Start()
  scene_ = Scene()
  local names = {"NodeAdded", "NodeRemoved", "ComponentAdded", "ComponentRemoved", "NodeNameChanged",
    "NodeEnabledChanged", "ComponentEnabledChanged", "NodeTagAdded", "NodeTagRemoved"}
  for i = 1, #names do SubscribeToEvent(scene_, names[i], "HandleSceneEvent") end
  local a = scene_:CreateChild("A")
  a:CreateChild("A1")
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleSceneEvent(eventType, eventData)
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  local a = scene_:GetChild("A", false)
  if f == 1 then
    local m = a:CreateComponent("StaticModel")
    a:CreateChild("A2")
    m.enabled = false
  elseif f == 2 then
    a.name = "Renamed"
    a.name = "A"
    a:AddTag("enemy")
    a:AddTag("enemy")
    a:RemoveTag("enemy")
  elseif f == 3 then
    a.enabled = false
  elseif f == 4 then
    a:RemoveComponent("StaticModel")
  elseif f == 5 then
    a:GetChild("A1", false):Remove()
  elseif f == 6 then
    a:RemoveAllChildren()
    local orphan = Node()
    orphan:CreateChild("Inner")
    scene_:AddChild(orphan)
  end
end

return S
