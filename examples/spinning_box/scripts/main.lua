-- A minimal UrhoX game: a box that drifts forward and spins; press SPACE to reset it.
local scene_
local box_

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  local cameraNode = scene_:CreateChild("Camera")
  cameraNode:CreateComponent("Camera")
  cameraNode.position = Vector3(0, 2, -8)
  renderer:SetViewport(0, Viewport:new(scene_, cameraNode:GetComponent("Camera")))

  box_ = scene_:CreateChild("Box")
  local model = box_:CreateComponent("StaticModel")
  model.model = cache:GetResource("Model", "Models/Box.mdl")
  model.material = cache:GetResource("Material", "Materials/Stone.xml")

  local text = ui.root:CreateChild("Text")
  text.text = "SPACE resets the box"
  text:SetFont(cache:GetResource("Font", "Fonts/Anonymous Pro.ttf"), 15)
  text.horizontalAlignment = HA_CENTER
  text.verticalAlignment = VA_CENTER

  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local timeStep = eventData["TimeStep"]:GetFloat()
  box_:Yaw(90 * timeStep)
  box_:Translate(Vector3(0, 0, 1) * timeStep, TS_WORLD)
  if input:GetKeyPress(KEY_SPACE) then
    box_.position = Vector3.ZERO
  end
end
