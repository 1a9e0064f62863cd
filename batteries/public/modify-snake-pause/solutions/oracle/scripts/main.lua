-- Grid Snake: steer a snake around a walled grid, eat apples to grow, don't hit a wall or yourself.
-- See README.md for the rules. P pauses and resumes the game.
local COLS, ROWS = 16, 12
local STEP_TIME = 0.2                       -- seconds between two steps of the snake
local START_CELLS = {{4, 4}, {3, 4}, {2, 4}} -- head first; the snake starts heading right
local APPLE_CELLS = {{8, 6}, {6, 6}, {11, 2}, {2, 8}, {12, 8}, {7, 1}, {1, 1}, {9, 4}}

local scene_            ---@type Scene
local gameState_        ---@type Node
local hudText_          ---@type Text
local head_             ---@type Node
local apple_            ---@type Node
local bodyNodes_ = {}   -- one "Body" node per segment behind the head

local cells_ = {}       -- the snake's cells, head first: {c = ..., r = ...}
local dir_ = {1, 0}     -- direction of the last step
local nextDir_ = {1, 0} -- direction of the next step
local appleIndex_ = 1
local appleCell_ = {c = 0, r = 0}
local stepTimer_ = 0
local score_ = 0
local status_ = "playing"   -- "playing", "paused" or "over"

local DIRS = {
  [KEY_W] = {0, -1}, [KEY_UP] = {0, -1},
  [KEY_S] = {0, 1}, [KEY_DOWN] = {0, 1},
  [KEY_D] = {1, 0}, [KEY_RIGHT] = {1, 0},
  [KEY_A] = {-1, 0}, [KEY_LEFT] = {-1, 0},
}

local function cellPosition(c, r) return Vector3(c, 0.5, -r) end

local function addModel(node, model, material)
  local sm = node:CreateComponent("StaticModel")
  sm.model = cache:GetResource("Model", model)
  sm.material = cache:GetResource("Material", material)
end

-- GameState variables and the HUD line always show the current state.
local function publish()
  gameState_:SetVar("Score", score_)
  gameState_:SetVar("Length", #cells_)
  gameState_:SetVar("Status", status_)
  if status_ == "over" then
    hudText_.text = string.format("Game over!  Score %d  Length %d", score_, #cells_)
  elseif status_ == "paused" then
    hudText_.text = string.format("Paused  Score %d  Length %d", score_, #cells_)
  else
    hudText_.text = string.format("Score %d  Length %d", score_, #cells_)
  end
end

-- Head and Body nodes follow cells_: one Body node per cell behind the head.
local function syncNodes()
  head_.position = cellPosition(cells_[1].c, cells_[1].r)
  while #bodyNodes_ < #cells_ - 1 do
    local body = scene_:CreateChild("Body")
    body.scale = Vector3(0.8, 0.8, 0.8)
    addModel(body, "Models/Box.mdl", "Materials/Stone.xml")
    bodyNodes_[#bodyNodes_ + 1] = body
  end
  while #bodyNodes_ > #cells_ - 1 do
    table.remove(bodyNodes_):Remove()
  end
  for i, body in ipairs(bodyNodes_) do
    body.position = cellPosition(cells_[i + 1].c, cells_[i + 1].r)
  end
end

local function onSnake(c, r, from, to)
  for i = from, to do
    if cells_[i].c == c and cells_[i].r == r then return true end
  end
  return false
end

-- The apple goes to the next cell of APPLE_CELLS (in a loop) that the snake does not cover.
local function placeApple()
  for _ = 1, #APPLE_CELLS do
    local cell = APPLE_CELLS[appleIndex_]
    appleIndex_ = appleIndex_ % #APPLE_CELLS + 1
    if not onSnake(cell[1], cell[2], 1, #cells_) then
      appleCell_ = {c = cell[1], r = cell[2]}
      apple_.position = cellPosition(cell[1], cell[2])
      return
    end
  end
end

local function restart()
  cells_ = {}
  for i, cell in ipairs(START_CELLS) do cells_[i] = {c = cell[1], r = cell[2]} end
  dir_, nextDir_ = {1, 0}, {1, 0}
  appleIndex_ = 1
  placeApple()
  stepTimer_ = 0
  score_ = 0
  status_ = "playing"
  syncNodes()
end

local function step()
  dir_ = nextDir_
  local c, r = cells_[1].c + dir_[1], cells_[1].r + dir_[2]
  local eating = c == appleCell_.c and r == appleCell_.r
  -- the tail moves away in this step unless the snake grows
  local hitSelf = onSnake(c, r, 1, eating and #cells_ or #cells_ - 1)
  if c < 0 or c >= COLS or r < 0 or r >= ROWS or hitSelf then
    status_ = "over"                        -- the snake stays where it was
    return
  end
  table.insert(cells_, 1, {c = c, r = r})
  if eating then
    score_ = score_ + 1
    placeApple()
  else
    table.remove(cells_)
  end
  syncNodes()
end

-- Paused or over: the snake stands still and its step timer does not run.
function HandleUpdate(eventType, eventData)
  if status_ ~= "playing" then return end
  stepTimer_ = stepTimer_ + eventData["TimeStep"]:GetFloat()
  while status_ == "playing" and stepTimer_ >= STEP_TIME - 1e-6 do
    stepTimer_ = stepTimer_ - STEP_TIME
    step()
  end
  publish()
end

function HandleKeyDown(eventType, eventData)
  if eventData["Repeat"]:GetBool() then return end
  local k = eventData["Key"]:GetInt()
  if k == KEY_R then
    restart()
  elseif k == KEY_P then
    -- P pauses a game in play and resumes a paused one; a finished game stays finished
    if status_ == "playing" then
      status_ = "paused"
    elseif status_ == "paused" then
      status_ = "playing"
    end
  elseif status_ == "playing" and DIRS[k] ~= nil then
    local d = DIRS[k]
    -- turning straight back onto the neck is ignored
    if d[1] ~= -dir_[1] or d[2] ~= -dir_[2] then nextDir_ = d end
  end
  publish()
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3((COLS - 1) / 2, 14, -(ROWS - 1) / 2 - 6)
  cameraNode:LookAt(Vector3((COLS - 1) / 2, 0, -(ROWS - 1) / 2))
  local camera = cameraNode:CreateComponent("Camera")
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  local lightNode = scene_:CreateChild("Light")
  lightNode.direction = Vector3(0.3, -1.0, 0.4)
  lightNode:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  local floor = scene_:CreateChild("Floor")
  floor.position = Vector3((COLS - 1) / 2, 0, -(ROWS - 1) / 2)
  floor.scale = Vector3(COLS, 1, ROWS)
  addModel(floor, "Models/Plane.mdl", "Materials/StoneTiled.xml")
  for c = -1, COLS do
    for r = -1, ROWS do
      if c == -1 or c == COLS or r == -1 or r == ROWS then
        local wall = scene_:CreateChild("Wall")
        wall.position = cellPosition(c, r)
        addModel(wall, "Models/Box.mdl", "Materials/Stone.xml")
      end
    end
  end

  head_ = scene_:CreateChild("Head")
  addModel(head_, "Models/Box.mdl", "Materials/Mushroom.xml")
  apple_ = scene_:CreateChild("Apple")
  apple_.scale = Vector3(0.6, 0.6, 0.6)
  addModel(apple_, "Models/Sphere.mdl", "Materials/Mushroom.xml")

  gameState_ = scene_:CreateChild("GameState")
  hudText_ = ui.root:CreateChild("Text", "HudText")
  hudText_:SetFont(cache:GetResource("Font", "Fonts/Anonymous Pro.ttf"), 22)
  hudText_:SetPosition(16, 16)

  restart()
  publish()
  SubscribeToEvent("Update", "HandleUpdate")
  SubscribeToEvent("KeyDown", "HandleKeyDown")
end
