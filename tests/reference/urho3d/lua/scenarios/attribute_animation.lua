-- Attribute animation: a ValueAnimation on a node's Position (linear, looped), one on Rotation (spline,
-- clamped, half speed) and one on Scale played once, and an event frame.
local S = {domain = "animation", frames = 150, record = 10}

S.event_fields = {KeyFrameReached = {{"Which", "s"}}}

function S.Start()
  scene_ = Scene()
  local n = scene_:CreateChild("Animated")
  local pos = ValueAnimation()
  pos:SetKeyFrame(0, Variant(Vector3(0, 0, 0)))
  pos:SetKeyFrame(1, Variant(Vector3(4, 0, 0)))
  pos:SetKeyFrame(2, Variant(Vector3(4, 3, -2)))
  pos:SetKeyFrame(3, Variant(Vector3(0, 0, 0)))
  local data = VariantMap()
  data["Which"] = "one second"
  pos:SetEventFrame(1, StringHash("KeyFrameReached"), data)
  n:SetAttributeAnimation("Position", pos, WM_LOOP, 1)
  local m = scene_:CreateChild("Spun")
  local rot = ValueAnimation()
  rot.interpolationMethod = IM_SPLINE
  rot:SetKeyFrame(0, Variant(Quaternion(0, Vector3(0, 1, 0))))
  rot:SetKeyFrame(1, Variant(Quaternion(90, Vector3(0, 1, 0))))
  rot:SetKeyFrame(2, Variant(Quaternion(180, Vector3(0, 1, 0))))
  m:SetAttributeAnimation("Rotation", rot, WM_CLAMP, 0.5)
  local k = scene_:CreateChild("Scaled")
  local sc = ValueAnimation()
  sc:SetKeyFrame(0, Variant(Vector3(1, 1, 1)))
  sc:SetKeyFrame(0.5, Variant(Vector3(2, 0.5, 1)))
  k:SetAttributeAnimation("Scale", sc, WM_ONCE, 1)
  SubscribeToEvent("KeyFrameReached", "HandleKeyFrame")
end

function HandleKeyFrame(eventType, eventData)
end

return S
