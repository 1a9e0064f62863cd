-- Oracle: the stock Mutant moved with WASD / arrows (Shift runs), its AnimationController cross-fading idle, walk
-- and run with PlayExclusive whenever what the hero does changes.
local scene_, hero_, controller_, camera_node_
local doing_ = nil                -- "idle" | "walk" | "run"

local ANIMATIONS = {
  idle = "Models/Mutant/Mutant_Idle0.ani",
  walk = "Models/Mutant/Mutant_Walk.ani",
  run = "Models/Mutant/Mutant_Run.ani",
}
local WALK_SPEED, RUN_SPEED = 2.0, 5.0
local FADE_SECONDS = 0.3
local CAMERA_OFFSET = Vector3(0, 6, -9)

local function held(a, b) return input:GetKeyDown(a) or input:GetKeyDown(b) end

-- Start the animation for `what` unless it is the one playing, fading every other one out.
local function animate(what, fade)
  if what == doing_ then return end
  doing_ = what
  controller_:PlayExclusive(ANIMATIONS[what], 0, true, fade)
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")

  local zone = scene_:CreateComponent("Zone")
  zone.boundingBox = BoundingBox(-100, 100)
  zone.ambientColor = Color(0.3, 0.3, 0.35)

  local sun = scene_:CreateChild("Sun")
  sun.direction = Vector3(0.4, -1.0, 0.6)
  sun:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  local floor = scene_:CreateChild("Floor")
  floor.scale = Vector3(100, 1, 100)
  local plane = floor:CreateComponent("StaticModel")
  plane.model = cache:GetResource("Model", "Models/Plane.mdl")
  plane.material = cache:GetResource("Material", "Materials/StoneTiled.xml")

  hero_ = scene_:CreateChild("Hero")
  hero_.position = Vector3(0, 0, 0)
  local model = hero_:CreateComponent("AnimatedModel")
  model.model = cache:GetResource("Model", "Models/Mutant/Mutant.mdl")
  model.material = cache:GetResource("Material", "Models/Mutant/Materials/mutant_M.xml")
  model.castShadows = true
  controller_ = hero_:CreateComponent("AnimationController")
  animate("idle", 0.0)

  camera_node_ = scene_:CreateChild("Camera")
  local camera = camera_node_:CreateComponent("Camera")
  camera.farClip = 300
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  SubscribeToEvent("Update", "HandleUpdate")
  HandleUpdate("Update", nil)     -- place the camera
end

function HandleUpdate(eventType, eventData)
  local dt = eventData and eventData["TimeStep"]:GetFloat() or 0.0
  local move = Vector3(0, 0, 0)
  if held(KEY_W, KEY_UP) then move = move + Vector3(0, 0, 1) end
  if held(KEY_S, KEY_DOWN) then move = move + Vector3(0, 0, -1) end
  if held(KEY_D, KEY_RIGHT) then move = move + Vector3(1, 0, 0) end
  if held(KEY_A, KEY_LEFT) then move = move + Vector3(-1, 0, 0) end

  if move:LengthSquared() > 0 then
    move:Normalize()
    local running = input:GetQualifierDown(QUAL_SHIFT)
    hero_.position = hero_.position + move * ((running and RUN_SPEED or WALK_SPEED) * dt)
    hero_.direction = move
    animate(running and "run" or "walk", FADE_SECONDS)
  else
    animate("idle", FADE_SECONDS)
  end

  camera_node_.position = hero_.position + CAMERA_OFFSET
  camera_node_:LookAt(hero_.position + Vector3(0, 1, 0))
end
