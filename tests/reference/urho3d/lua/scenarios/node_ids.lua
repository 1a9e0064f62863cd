-- Node and component IDs as the scene hands them out: replicated and local, after removals, for temporary
-- children, and for nodes created outside a scene and added later.
local S = {frames = 12, record = 1}

function S.Start()
  scene_ = Scene()
  local r1 = scene_:CreateChild("R1")
  local l1 = scene_:CreateChild("L1", LOCAL)
  local r2 = scene_:CreateChild("R2", REPLICATED)
  local t1 = scene_:CreateTemporaryChild("T1")
  r1:CreateComponent("StaticModel")
  l1:CreateComponent("StaticModel", LOCAL)
  r2:CreateComponent("Camera")
  Trace.int("r1 id", r1.ID)
  Trace.int("l1 id", l1.ID)
  Trace.bool("l1 replicated", l1.replicated)
  Trace.bool("t1 temporary", t1.temporary)
  Trace.node("get node", scene_:GetNode(r2.ID))
  Trace.node("get missing node", scene_:GetNode(999))
  local orphan = Node()
  orphan.name = "Orphan"
  Trace.int("orphan id", orphan.ID)
  orphan:CreateChild("OrphanChild")
  S.orphan = orphan
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  if f == 2 then
    scene_:GetChild("R1", false):Remove()
  elseif f == 3 then
    local n = scene_:CreateChild("R3")
    Trace.int("r3 id after removal", n.ID)
    Trace.int("r3 component id", n:CreateComponent("StaticModel").ID)
  elseif f == 4 then
    scene_:AddChild(S.orphan)
    Trace.int("orphan id in scene", S.orphan.ID)
    Trace.int("orphan child id", S.orphan:GetChild("OrphanChild", false).ID)
  elseif f == 6 then
    local l2 = scene_:CreateChild("L2", LOCAL)
    Trace.int("l2 id", l2.ID)
    Trace.int("l2 component id", l2:CreateComponent("StaticModel", LOCAL).ID)
  elseif f == 8 then
    scene_:RemoveChildren(false, true, false)
  elseif f == 10 then
    Trace.int("children left", scene_:GetNumChildren(false))
    local n = scene_:CreateChild("R4")
    Trace.int("r4 id", n.ID)
  end
end

return S
