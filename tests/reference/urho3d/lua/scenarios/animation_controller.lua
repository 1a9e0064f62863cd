-- AnimationController on a skinned model: play a looped walk, cross-fade to a run, blend a layered animation
-- on top, change speed; the bone nodes' transforms are what is recorded.
local S = {domain = "animation", frames = 120, record = 10}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  local n = scene_:CreateChild("Mutant")
  n.rotation = Quaternion(0, 180, 0)
  local model = n:CreateComponent("AnimatedModel")
  model.model = cache:GetResource("Model", "Models/Mutant/Mutant.mdl")
  local ctrl = n:CreateComponent("AnimationController")
  ctrl:Play("Models/Mutant/Mutant_Walk.ani", 0, true, 0)
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  local ctrl = scene_:GetChild("Mutant", false):GetComponent("AnimationController")
  if f == 30 then ctrl:PlayExclusive("Models/Mutant/Mutant_Run.ani", 0, true, 0.5) end
  if f == 60 then
    ctrl:Play("Models/Mutant/Layer/Mutant_Wave_LY.ani", 1, false, 0.2)
    ctrl:SetSpeed("Models/Mutant/Mutant_Run.ani", 1.5)
  end
  if f == 90 then ctrl:Stop("Models/Mutant/Layer/Mutant_Wave_LY.ani", 0.3) end
  if f % 10 == 0 then
    Trace.num("run weight", ctrl:GetWeight("Models/Mutant/Mutant_Run.ani"))
    Trace.num("walk weight", ctrl:GetWeight("Models/Mutant/Mutant_Walk.ani"))
    Trace.num("run time", ctrl:GetTime("Models/Mutant/Mutant_Run.ani"))
    Trace.num("wave weight", ctrl:GetWeight("Models/Mutant/Layer/Mutant_Wave_LY.ani"))
  end
end

return S
