-- Finding components: by exact type and by a base type, recursively, from a component up to its node's parent;
-- the scene's own component list against its children's; removing components; component IDs.
local S = {frames = 4, record = 1}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  local a = scene_:CreateChild("A")
  local model = a:CreateComponent("StaticModel")
  a:CreateComponent("Light")
  local b = a:CreateChild("B")
  b:CreateComponent("Camera")
  b:CreateComponent("StaticModel")
  Trace.int("scene components", scene_:GetNumComponents())
  Trace.component("scene StaticModel", scene_:GetComponent("StaticModel"))
  Trace.component("scene StaticModel recursive", scene_:GetComponent("StaticModel", true))
  Trace.int("scene StaticModels recursive", #scene_:GetComponents("StaticModel", true))
  Trace.int("scene StaticModels", #scene_:GetComponents("StaticModel", false))
  Trace.component("a Drawable", a:GetComponent("Drawable"))
  Trace.component("a Component", a:GetComponent("Component"))
  Trace.bool("a has Light", a:HasComponent("Light"))
  Trace.bool("a has Camera", a:HasComponent("Camera"))
  Trace.component("b parent Light", b:GetParentComponent("Light"))
  Trace.component("model's Light", model:GetComponent("Light"))
  Trace.int("model id", model.ID)
  Trace.node("model node", model.node)
  Trace.int("children with StaticModel", #scene_:GetChildrenWithComponent("StaticModel", true))
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  local a = scene_:GetChild("A", false)
  if f == 1 then
    a:RemoveComponent("Light")
  elseif f == 2 then
    a:GetComponent("StaticModel"):Remove()
    a:CreateComponent("StaticModel")
  elseif f == 3 then
    a:GetOrCreateComponent("Light")
    a:GetOrCreateComponent("Light")
    a:RemoveComponents("StaticModel")
  end
  Trace.int("a components", a:GetNumComponents())
end

return S
