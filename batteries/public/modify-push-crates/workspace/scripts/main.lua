-- Gem Maze: walk a grid maze one cell per key press, collect every gem, then reach the exit.
-- See README.md for the rules.
local LEVELS = {
  {
    "########",
    "#P....*#",
    "#......#",
    "#*....E#",
    "########",
  },
  {
    "########",
    "#*..#..#",
    "#...P..#",
    "#E..#.*#",
    "########",
  },
}
local GEM_VALUE = 10

local scene_            ---@type Scene
local gameState_        ---@type Node
local hudText_          ---@type Text
local levelRoot_        ---@type Node|nil
local player_           ---@type Node

local walls_ = {}       -- "c,r" -> true
local gems_ = {}        -- "c,r" -> gem node
local gemsLeft_ = 0
local exitCell_ = {c = 0, r = 0}
local cell_ = {c = 0, r = 0}

local level_ = 1
local score_ = 0
local moves_ = 0
local status_ = "playing"
local levelStartScore_ = 0
local levelStartMoves_ = 0

local function key(c, r) return c .. "," .. r end
local function cellPosition(c, r, y) return Vector3(c, y, -r) end

-- GameState variables and the HUD line always show the current state.
local function publish()
  gameState_:SetVar("Level", level_)
  gameState_:SetVar("Score", score_)
  gameState_:SetVar("Moves", moves_)
  gameState_:SetVar("Status", status_)
  if status_ == "won" then
    hudText_.text = string.format("You win!  Score %d  Moves %d", score_, moves_)
  else
    hudText_.text = string.format("Level %d  Score %d  Moves %d", level_, score_, moves_)
  end
end

local function addModel(node, model, material)
  local sm = node:CreateComponent("StaticModel")
  sm.model = cache:GetResource("Model", model)
  sm.material = cache:GetResource("Material", material)
end

-- Builds level `index` from its map: everything of the previous level goes away with levelRoot_.
local function buildLevel(index)
  if levelRoot_ ~= nil then levelRoot_:Remove() end
  levelRoot_ = scene_:CreateChild("Level")
  walls_, gems_, gemsLeft_ = {}, {}, 0
  local map = LEVELS[index]
  for r, row in ipairs(map) do
    for c = 1, #row do
      local ch = row:sub(c, c)
      local col, line = c - 1, r - 1
      if ch == "#" then
        walls_[key(col, line)] = true
        local wall = levelRoot_:CreateChild("Wall")
        wall.position = cellPosition(col, line, 0.5)
        addModel(wall, "Models/Box.mdl", "Materials/Stone.xml")
      elseif ch == "*" then
        local gem = levelRoot_:CreateChild("Gem")
        gem.position = cellPosition(col, line, 0.5)
        gem.scale = Vector3(0.5, 0.5, 0.5)
        addModel(gem, "Models/Sphere.mdl", "Materials/Mushroom.xml")
        gems_[key(col, line)] = gem
        gemsLeft_ = gemsLeft_ + 1
      elseif ch == "E" then
        exitCell_ = {c = col, r = line}
        local exit = levelRoot_:CreateChild("Exit")
        exit.position = cellPosition(col, line, 0)
        exit.scale = Vector3(0.9, 0.1, 0.9)
        addModel(exit, "Models/Cylinder.mdl", "Materials/StoneTiled.xml")
      elseif ch == "P" then
        cell_ = {c = col, r = line}
      end
    end
  end
  local floor = levelRoot_:CreateChild("Floor")
  floor.position = Vector3((#map[1] - 1) / 2, -0.05, -(#map - 1) / 2)
  floor.scale = Vector3(#map[1], 1, #map)
  addModel(floor, "Models/Plane.mdl", "Materials/StoneTiled.xml")
  player_.position = cellPosition(cell_.c, cell_.r, 0.5)
  level_ = index
  levelStartScore_, levelStartMoves_ = score_, moves_
end

-- R: the current level from its start, with the score and moves it began with.
local function restartLevel()
  score_, moves_ = levelStartScore_, levelStartMoves_
  status_ = "playing"
  buildLevel(level_)
end

local function collectAt(c, r)
  local gem = gems_[key(c, r)]
  if gem == nil then return end
  gem:Remove()
  gems_[key(c, r)] = nil
  gemsLeft_ = gemsLeft_ - 1
  score_ = score_ + GEM_VALUE
end

local function tryMove(dc, dr)
  local c, r = cell_.c + dc, cell_.r + dr
  if walls_[key(c, r)] then return end   -- bumping into a wall is not a move
  cell_ = {c = c, r = r}
  player_.position = cellPosition(c, r, 0.5)
  moves_ = moves_ + 1
  collectAt(c, r)
  if c == exitCell_.c and r == exitCell_.r and gemsLeft_ == 0 then
    if level_ < #LEVELS then
      buildLevel(level_ + 1)
    else
      status_ = "won"
    end
  end
end

local MOVES = {
  [KEY_W] = {0, -1}, [KEY_UP] = {0, -1},
  [KEY_S] = {0, 1}, [KEY_DOWN] = {0, 1},
  [KEY_D] = {1, 0}, [KEY_RIGHT] = {1, 0},
  [KEY_A] = {-1, 0}, [KEY_LEFT] = {-1, 0},
}

function HandleKeyDown(eventType, eventData)
  if eventData["Repeat"]:GetBool() then return end
  local k = eventData["Key"]:GetInt()
  if k == KEY_R then
    restartLevel()
  elseif status_ == "playing" and MOVES[k] ~= nil then
    tryMove(MOVES[k][1], MOVES[k][2])
  end
  publish()
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(3.5, 9, -7.5)
  cameraNode:LookAt(Vector3(3.5, 0, -2))
  local camera = cameraNode:CreateComponent("Camera")
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  local lightNode = scene_:CreateChild("Light")
  lightNode.direction = Vector3(0.3, -1.0, 0.4)
  lightNode:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  player_ = scene_:CreateChild("Player")
  player_.scale = Vector3(0.7, 0.7, 0.7)
  addModel(player_, "Models/Box.mdl", "Materials/Mushroom.xml")

  gameState_ = scene_:CreateChild("GameState")

  hudText_ = ui.root:CreateChild("Text", "HudText")
  hudText_:SetFont(cache:GetResource("Font", "Fonts/Anonymous Pro.ttf"), 22)
  hudText_:SetPosition(16, 16)

  buildLevel(1)
  publish()
  SubscribeToEvent("KeyDown", "HandleKeyDown")
end
