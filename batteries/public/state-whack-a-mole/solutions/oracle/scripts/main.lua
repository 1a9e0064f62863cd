-- Oracle: whack-a-mole with four holes (keys 1-4), a fixed mole order, a fixed time per mole, three lives, R
-- restarts.
local ORDER = { {{params.order}} }
local UP_TIME = {{params.up_seconds|lua}}
local START_LIVES = 3
local HOLE_KEYS = {[KEY_1] = 1, [KEY_2] = 2, [KEY_3] = 3, [KEY_4] = 4}

local scene_            ---@type Scene
local gameState_        ---@type Node
local mole_             ---@type Node
local hudText_          ---@type Text

local score_ = 0
local lives_ = START_LIVES
local hole_ = 0         -- the hole the mole is up in, 0 for none
local status_ = "playing"
local index_ = 0        -- the current mole's place in ORDER
local upTimer_ = 0.0    -- seconds the current mole has been up

local function publish()
  gameState_:SetVar("Score", score_)
  gameState_:SetVar("Lives", lives_)
  gameState_:SetVar("Hole", hole_)
  gameState_:SetVar("Status", status_)
  local holes = {}
  for i = 1, 4 do holes[i] = i .. (i == hole_ and ":[M]" or ":[ ]") end
  local line = string.format("Score: %d   Lives: %d\n%s", score_, lives_, table.concat(holes, "  "))
  if status_ == "over" then line = line .. "\nGame over - press R" end
  hudText_.text = line
  mole_.enabled = hole_ ~= 0
  if hole_ ~= 0 then mole_.position = Vector3(hole_ * 2 - 5, 0.5, 0) end
end

local function nextMole()
  index_ = index_ % #ORDER + 1
  hole_ = ORDER[index_]
  upTimer_ = 0.0
end

local function newGame()
  score_ = 0
  lives_ = START_LIVES
  status_ = "playing"
  index_ = 0
  nextMole()
end

function HandleKeyDown(eventType, eventData)
  if eventData["Repeat"]:GetBool() then return end
  local key = eventData["Key"]:GetInt()
  if key == KEY_R then
    newGame()
  elseif status_ == "playing" and HOLE_KEYS[key] == hole_ then
    score_ = score_ + 1
    nextMole()
  end
  publish()
end

function HandleUpdate(eventType, eventData)
  if status_ == "playing" then
    upTimer_ = upTimer_ + eventData["TimeStep"]:GetFloat()
    if upTimer_ >= UP_TIME then
      lives_ = lives_ - 1
      if lives_ <= 0 then
        status_ = "over"
        hole_ = 0
        upTimer_ = 0.0
      else
        nextMole()
      end
    end
  end
  publish()
end

local function addModel(node, model, material)
  local sm = node:CreateComponent("StaticModel")
  sm.model = cache:GetResource("Model", model)
  sm.material = cache:GetResource("Material", material)
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(0, 6, -7)
  cameraNode:LookAt(Vector3(0, 0, 0))
  renderer:SetViewport(0, Viewport:new(scene_, cameraNode:CreateComponent("Camera")))
  local light = scene_:CreateChild("Light")
  light.direction = Vector3(0.3, -1.0, 0.5)
  light:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL
  for i = 1, 4 do
    local holeNode = scene_:CreateChild("Hole" .. i)
    holeNode.position = Vector3(i * 2 - 5, 0, 0)
    holeNode.scale = Vector3(1.4, 0.05, 1.4)
    addModel(holeNode, "Models/Cylinder.mdl", "Materials/Stone.xml")
  end
  mole_ = scene_:CreateChild("Mole")
  addModel(mole_, "Models/Sphere.mdl", "Materials/Mushroom.xml")
  gameState_ = scene_:CreateChild("GameState")

  hudText_ = ui.root:CreateChild("Text", "HudText")
  hudText_:SetFont(cache:GetResource("Font", "Fonts/Anonymous Pro.ttf"), 24)
  hudText_:SetPosition(20, 20)

  newGame()
  publish()
  SubscribeToEvent("KeyDown", "HandleKeyDown")
  SubscribeToEvent("Update", "HandleUpdate")
end
