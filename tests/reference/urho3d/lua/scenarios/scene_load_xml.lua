-- Loading a scene from an XML file of ours (FidelityData/simple_scene.xml): the nodes, IDs, enabled states
-- and transforms Urho3D reads from it, replicated and local.
local S = {frames = 5, record = 5}

function S.Start()
  scene_ = Scene()
  local file = cache:GetFile("FidelityData/simple_scene.xml")
  Trace.bool("file found", file ~= nil)
  if file ~= nil then Trace.bool("loaded", scene_:LoadXML(file)) end
  Trace.str("scene name", scene_.name)
  Trace.int("children", scene_:GetNumChildren(true))
  local n = scene_:CreateChild("AfterLoad")
  Trace.int("next id", n.ID)
end

return S
