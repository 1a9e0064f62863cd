-- Wrong: a hierarchy of spinning pivots. The planet is right, but the moon's pivot spins at 180°/s
-- relative to a parent that already turns at 36°/s, so in world space the moon orbits at 216°/s.
local scene_
local planetPivot_, moonPivot_

local function sphere(node, material)
  local model = node:CreateComponent("StaticModel")
  model.model = cache:GetResource("Model", "Models/Sphere.mdl")
  model.material = cache:GetResource("Material", material)
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(0, 12, -12)
  cameraNode:LookAt(Vector3.ZERO)
  renderer:SetViewport(0, Viewport:new(scene_, cameraNode:CreateComponent("Camera")))

  local lightNode = scene_:CreateChild("Light")
  lightNode.direction = Vector3(0.3, -1, 0.2)
  lightNode:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  local sun = scene_:CreateChild("Sun")
  sun:SetScale(2.0)
  sphere(sun, "Materials/Stone.xml")

  planetPivot_ = sun:CreateChild("PlanetPivot")
  planetPivot_:SetScale(0.5)                       -- undo the sun's scale for everything below
  local planet = planetPivot_:CreateChild("Planet")
  planet.position = Vector3(5, 0, 0)
  sphere(planet, "Materials/Mushroom.xml")
  planet:SetScale(0.8)

  moonPivot_ = planet:CreateChild("MoonPivot")
  moonPivot_:SetScale(1 / 0.8)
  local moon = moonPivot_:CreateChild("Moon")
  moon.position = Vector3(1, 0, 0)
  moon:SetScale(0.3)
  sphere(moon, "Materials/DefaultGrey.xml")

  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  planetPivot_:Yaw(36 * dt)    -- 360° every 10 s
  moonPivot_:Yaw(180 * dt)     -- bug: 360° every 2 s relative to the planet, which already turns
end
