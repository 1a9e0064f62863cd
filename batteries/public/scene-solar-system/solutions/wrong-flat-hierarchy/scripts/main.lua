-- Wrong: all bodies are children of the scene (positions right, hierarchy missing).
local scene_
local sun_, planet_, moon_
local time_ = 0.0

local PLANET_RADIUS, PLANET_PERIOD = 5.0, 10.0
local MOON_RADIUS, MOON_PERIOD = 1.0, 2.0

local function body(parent, name, material, world_scale)
  local node = parent:CreateChild(name)
  node.worldScale = Vector3(world_scale, world_scale, world_scale)
  local model = node:CreateComponent("StaticModel")
  model.model = cache:GetResource("Model", "Models/Sphere.mdl")
  model.material = cache:GetResource("Material", material)
  return node
end

local function place(t)
  local theta = 2 * math.pi * t / PLANET_PERIOD
  local phi = 2 * math.pi * t / MOON_PERIOD
  local planet = Vector3(PLANET_RADIUS * math.cos(theta), 0, -PLANET_RADIUS * math.sin(theta))
  planet_.worldPosition = planet
  moon_.worldPosition = planet + Vector3(MOON_RADIUS * math.cos(phi), 0, -MOON_RADIUS * math.sin(phi))
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")

  local zone = scene_:CreateComponent("Zone")
  zone.boundingBox = BoundingBox(-50, 50)
  zone.ambientColor = Color(0.15, 0.15, 0.2)

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(0, 12, -12)
  cameraNode:LookAt(Vector3(0, 0, 0))
  local camera = cameraNode:CreateComponent("Camera")
  camera.farClip = 200
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  local lightNode = scene_:CreateChild("Light")
  lightNode.direction = Vector3(0.4, -1.0, 0.3)
  local light = lightNode:CreateComponent("Light")
  light.lightType = LIGHT_DIRECTIONAL

  sun_ = body(scene_, "Sun", "Materials/Stone.xml", 2.0)
  planet_ = body(scene_, "Planet", "Materials/Mushroom.xml", 0.8)
  moon_ = body(scene_, "Moon", "Materials/DefaultGrey.xml", 0.3)
  place(time_)

  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  time_ = time_ + eventData["TimeStep"]:GetFloat()
  place(time_)
end
