-- Oracle: a city block built from a digit layout (buildings of stacked floors with a roof, plazas with a lamp),
-- and mouse picking through the octree that highlights the clicked building's floors.
local LAYOUT = {
  {3, 1, 0, 2},
  {2, 0, 4, 1},
  {1, 2, 3, 0},
}
local LOT_SPACING = 10.0
local FOOTPRINT = 8.0
local FLOOR_HEIGHT = 3.0
local ROOF_HEIGHT = 2.0
local HIGHLIGHT = "Materials/GreenTransparent.xml"

local scene_, city_, camera_
local floors_ = {}                -- building name -> {{model, material}, ...}
local selected_ = ""

local function model_node(parent, name, model, material, position, scale)
  local node = parent:CreateChild(name)
  node.position = position
  node.scale = scale
  local sm = node:CreateComponent("StaticModel")
  sm.model = cache:GetResource("Model", model)
  sm.material = cache:GetResource("Material", material)
  sm.castShadows = true
  return node, sm
end

local function build_building(name, centre, floors)
  local building = city_:CreateChild(name)
  building.position = centre
  local list = {}
  for k = 1, floors do
    local material = k == 1 and "Materials/Stone.xml" or "Materials/StoneTiled.xml"
    local _, sm = model_node(building, "Floor_" .. k, "Models/Box.mdl", material,
      Vector3(0, FLOOR_HEIGHT * (k - 0.5), 0), Vector3(FOOTPRINT, FLOOR_HEIGHT, FOOTPRINT))
    list[k] = {model = sm, material = sm.material}
  end
  model_node(building, "Roof", "Models/Pyramid.mdl", "Materials/DefaultGrey.xml",
    Vector3(0, FLOOR_HEIGHT * floors + ROOF_HEIGHT / 2, 0), Vector3(FOOTPRINT, ROOF_HEIGHT, FOOTPRINT))
  floors_[name] = list
end

local function build_plaza(name, centre)
  local plaza = model_node(city_, name, "Models/Plane.mdl", "Materials/StoneSmall.xml", centre,
    Vector3(FOOTPRINT, 1, FOOTPRINT))
  local lamp = plaza:CreateChild("Lamp")
  lamp.worldPosition = centre + Vector3(0, 4, 0)
  local light = lamp:CreateComponent("Light")
  light.lightType = LIGHT_POINT
  light.range = 8
  light.color = Color(1.0, 0.85, 0.6)
end

local function select(name)
  if floors_[selected_] then
    for _, f in ipairs(floors_[selected_]) do f.model.material = f.material end
  end
  selected_ = name
  if floors_[name] then
    local green = cache:GetResource("Material", HIGHLIGHT)
    for _, f in ipairs(floors_[name]) do f.model.material = green end
  end
  city_:SetVar("Selected", Variant(selected_))
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")

  local zone = scene_:CreateComponent("Zone")
  zone.boundingBox = BoundingBox(-200, 200)
  zone.ambientColor = Color(0.35, 0.35, 0.4)

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(15, 40, -50)
  cameraNode:LookAt(Vector3(15, 0, -10))
  camera_ = cameraNode:CreateComponent("Camera")
  renderer:SetViewport(0, Viewport:new(scene_, camera_))

  local sun = scene_:CreateChild("Sun")
  sun.direction = Vector3(0.5, -1.0, 0.3)
  local light = sun:CreateComponent("Light")
  light.lightType = LIGHT_DIRECTIONAL
  light.castShadows = true

  model_node(scene_, "Ground", "Models/Plane.mdl", "Materials/DefaultGrey.xml", Vector3(15, -0.01, -10),
    Vector3(60, 1, 50))

  city_ = scene_:CreateChild("City")
  for r, row in ipairs(LAYOUT) do
    for c, floors in ipairs(row) do
      local suffix = string.format("_%d_%d", r - 1, c - 1)
      local centre = Vector3(LOT_SPACING * (c - 1), 0, -LOT_SPACING * (r - 1))
      if floors > 0 then build_building("Building" .. suffix, centre, floors)
      else build_plaza("Plaza" .. suffix, centre) end
    end
  end
  select("")

  input.mouseVisible = true
  SubscribeToEvent("MouseButtonDown", "HandleMouseButtonDown")
end

-- The building a scene node belongs to (the node itself or its ancestor just below City), or "".
local function building_of(node)
  while node ~= nil and node ~= scene_ do
    if node.parent == city_ then
      return floors_[node.name] and node.name or ""
    end
    node = node.parent
  end
  return ""
end

function HandleMouseButtonDown(eventType, eventData)
  if eventData["Button"]:GetInt() ~= MOUSEB_LEFT then return end
  local pos = input.mousePosition
  local ray = camera_:GetScreenRay(pos.x / graphics.width, pos.y / graphics.height)
  local hit = scene_:GetComponent("Octree"):RaycastSingle(ray, RAY_TRIANGLE, 500, DRAWABLE_GEOMETRY)
  select(hit.drawable and building_of(hit.node) or "")
end
