-- Oracle: a hinged door opened and closed by ValueAnimations on the hinge node's Rotation attribute.
local scene_
local door_
local open_ = false               -- where the door is (or is heading)

local CLOSED = Quaternion(0, Vector3.UP)
local OPEN = Quaternion(90, Vector3.UP)
local SWING_SECONDS = 1.0

-- One swing from `from` to `to` over SWING_SECONDS, linear.
local function swing(from, to)
  local anim = ValueAnimation:new()
  anim.interpolationMethod = IM_LINEAR
  anim:SetKeyFrame(0.0, Variant(from))
  anim:SetKeyFrame(SWING_SECONDS, Variant(to))
  return anim
end

local OPENING = swing(CLOSED, OPEN)
local CLOSING = swing(OPEN, CLOSED)

local function box(parent, name, position, scale, material)
  local node = parent:CreateChild(name)
  node.position = position
  node.scale = scale
  local model = node:CreateComponent("StaticModel")
  model.model = cache:GetResource("Model", "Models/Box.mdl")
  model.material = cache:GetResource("Material", material)
  return node
end

-- WM_ONCE removes the animation when it ends, so "still" is "no animation on Rotation".
local function moving()
  return door_:GetAttributeAnimation("Rotation") ~= nil
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")

  local zone = scene_:CreateComponent("Zone")
  zone.boundingBox = BoundingBox(-50, 50)
  zone.ambientColor = Color(0.3, 0.3, 0.35)

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(0.5, 1.6, -5)
  cameraNode:LookAt(Vector3(0.5, 1.0, 0))
  local camera = cameraNode:CreateComponent("Camera")
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  local lightNode = scene_:CreateChild("Sun")
  lightNode.direction = Vector3(0.3, -1.0, 0.5)
  lightNode:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  box(scene_, "Floor", Vector3(0, -0.05, 0), Vector3(10, 0.1, 10), "Materials/StoneTiled.xml")
  box(scene_, "WallLeft", Vector3(-1.5, 1.25, 0), Vector3(3, 2.5, 0.2), "Materials/Stone.xml")
  box(scene_, "WallRight", Vector3(2.5, 1.25, 0), Vector3(3, 2.5, 0.2), "Materials/Stone.xml")

  -- the hinge at the origin; the panel hangs off it towards +X, so it swings about its left edge
  door_ = scene_:CreateChild("Door")
  door_.position = Vector3(0, 0, 0)
  box(door_, "DoorPanel", Vector3(0.5, 1.0, 0), Vector3(1.0, 2.0, 0.08), "Materials/Mushroom.xml")

  SubscribeToEvent("KeyDown", "HandleKeyDown")
end

function HandleKeyDown(eventType, eventData)
  if eventData["Key"]:GetInt() ~= KEY_E or eventData["Repeat"]:GetBool() or moving() then return end
  open_ = not open_
  door_:SetAttributeAnimation("Rotation", open_ and OPENING or CLOSING, WM_ONCE, 1.0)
end
