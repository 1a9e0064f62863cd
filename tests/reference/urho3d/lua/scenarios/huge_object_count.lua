-- Mirrors what Urho3D's sample 20_HugeObjectCount does with its animation on (written here, not copied): a
-- grid of boxes, every one rotated a little each frame from an Update handler.
local S = {frames = 90, record = {0, 1, 45, 90}}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  local model = cache:GetResource("Model", "Models/Box.mdl")
  S.boxes = {}
  for y = -15, 14 do
    for x = -15, 14 do
      local box = scene_:CreateChild("Box")
      box.position = Vector3(x * 0.3, 0, y * 0.3)
      box:SetScale(0.25)
      box:CreateComponent("StaticModel").model = model
      S.boxes[#S.boxes + 1] = box
    end
  end
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  local q = Quaternion(10 * dt, 20 * dt, 30 * dt)
  local boxes = S.boxes
  for i = 1, #boxes do boxes[i]:Rotate(q) end
end

return S
