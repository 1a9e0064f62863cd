-- An ObjectAnimation holding two attribute animations, shared by two nodes, one of them with its animation
-- time moved and its animation turned off part of the way.
local S = {domain = "animation", frames = 90, record = 10}

function S.Start()
  scene_ = Scene()
  local move = ValueAnimation()
  move:SetKeyFrame(0, Variant(Vector3(-2, 0, 0)))
  move:SetKeyFrame(0.75, Variant(Vector3(2, 1, 0)))
  move:SetKeyFrame(1.5, Variant(Vector3(-2, 0, 0)))
  local grow = ValueAnimation()
  grow:SetKeyFrame(0, Variant(Vector3(1, 1, 1)))
  grow:SetKeyFrame(1, Variant(Vector3(3, 3, 3)))
  local anim = ObjectAnimation()
  anim:AddAttributeAnimation("Position", move, WM_LOOP, 1)
  anim:AddAttributeAnimation("Scale", grow, WM_CLAMP, 2)
  local a = scene_:CreateChild("A")
  a.objectAnimation = anim
  local b = scene_:CreateChild("B")
  b.objectAnimation = anim
  b:SetAnimationTime(0.5)
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  local b = scene_:GetChild("B", false)
  if f == 30 then b.animationEnabled = false end
  if f == 60 then b.animationEnabled = true end
end

return S
