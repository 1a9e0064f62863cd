-- SetEnabled, SetEnabledRecursive, SetDeepEnabled, ResetDeepEnabled: what IsEnabled and IsEnabledSelf say,
-- and the components' effective enabled state.
local S = {frames = 10, record = 1}

function S.Start()
  scene_ = Scene()
  local a = scene_:CreateChild("A")
  local b = a:CreateChild("B")
  local c = b:CreateChild("C")
  c:CreateComponent("StaticModel")
  local d = a:CreateChild("D")
  d.enabled = false
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  local a = scene_:GetChild("A", false)
  local c = scene_:GetChild("C", true)
  local d = scene_:GetChild("D", true)
  if f == 1 then a.enabled = false
  elseif f == 2 then a.enabled = true
  elseif f == 3 then a:SetEnabledRecursive(false)
  elseif f == 4 then a:SetDeepEnabled(true)
  elseif f == 5 then a:ResetDeepEnabled()
  elseif f == 6 then a:SetDeepEnabled(false)
  elseif f == 7 then a:SetEnabledRecursive(true)
  elseif f == 8 then c:GetComponent("StaticModel").enabled = false
  end
  Trace.bool("d self", d:IsEnabledSelf())
  Trace.bool("c effective", c:GetComponent("StaticModel"):IsEnabledEffective())
  Trace.bool("c component", c:GetComponent("StaticModel"):IsEnabled())
end

return S
