-- Oracle: a three-level grid maze with gems, an exit, a countdown, restart and a best score in save.json.
local LEVELS = {
  {
    "#######",
    "#P.*..#",
    "#.###.#",
    "#*..E.#",
    "#######",
  },
  {
    "#######",
    "#E...*#",
    "###.###",
    "#*..P.#",
    "#######",
  },
  {
    "#######",
    "#P.#.E#",
    "#..*..#",
    "#*#####",
    "#######",
  },
}
local LEVEL_TIME = 20.0
local GEM_VALUE = 10
local SAVE_FILE = "save.json"

local scene_            ---@type Scene
local gameState_        ---@type Node
local levelRoot_        ---@type Node|nil
local player_           ---@type Node

local walls_ = {}       -- "c,r" -> true
local gems_ = {}        -- "c,r" -> gem node
local gemsLeft_ = 0
local exitCell_ = {c = 0, r = 0}
local cell_ = {c = 0, r = 0}

local level_ = 1
local score_ = 0
local timeLeft_ = LEVEL_TIME
local status_ = "playing"
local best_ = 0

local function key(c, r) return c .. "," .. r end
local function cellPosition(c, r, y) return Vector3(c, y, -r) end

local function publish()
  gameState_:SetVar("Level", level_)
  gameState_:SetVar("Score", score_)
  gameState_:SetVar("TimeLeft", timeLeft_)
  gameState_:SetVar("Status", status_)
  gameState_:SetVar("Best", best_)
end

-- save file ------------------------------------------------------------------------------------------
local function loadBest()
  if not fileSystem:FileExists(SAVE_FILE) then return 0 end
  local file = File(SAVE_FILE, FILE_READ)
  if not file:IsOpen() then return 0 end
  local text = file:ReadString()
  file:Close()
  local ok, data = pcall(cjson.decode, text)
  if ok and type(data) == "table" and type(data.best) == "number" then
    return math.floor(data.best)
  end
  return 0
end

local function saveBest()
  local file = File(SAVE_FILE, FILE_WRITE)
  if not file:IsOpen() then return end
  file:WriteString(cjson.encode({best = best_}))
  file:Close()
end

local function endGame(status)
  status_ = status
  if score_ > best_ then
    best_ = score_
    saveBest()
  end
end

-- levels ---------------------------------------------------------------------------------------------
local function addModel(node, model, material)
  local sm = node:CreateComponent("StaticModel")
  sm.model = cache:GetResource("Model", model)
  sm.material = cache:GetResource("Material", material)
end

local function buildLevel(index)
  if levelRoot_ ~= nil then levelRoot_:Remove() end
  levelRoot_ = scene_:CreateChild("Level")
  walls_, gems_, gemsLeft_ = {}, {}, 0
  for r, row in ipairs(LEVELS[index]) do
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
  floor.position = Vector3(3, -0.05, -2)
  floor.scale = Vector3(7, 1, 5)
  addModel(floor, "Models/Plane.mdl", "Materials/StoneTiled.xml")
  player_.position = cellPosition(cell_.c, cell_.r, 0.5)
  level_ = index
  timeLeft_ = LEVEL_TIME
end

local function newGame()
  score_ = 0
  status_ = "playing"
  buildLevel(1)
end

-- rules ----------------------------------------------------------------------------------------------
local function tryMove(dc, dr)
  local c, r = cell_.c + dc, cell_.r + dr
  if walls_[key(c, r)] then return end
  cell_ = {c = c, r = r}
  player_.position = cellPosition(c, r, 0.5)
  local gem = gems_[key(c, r)]
  if gem ~= nil then
    gem:Remove()
    gems_[key(c, r)] = nil
    gemsLeft_ = gemsLeft_ - 1
    score_ = score_ + GEM_VALUE
  end
  if c == exitCell_.c and r == exitCell_.r and gemsLeft_ == 0 then
    score_ = score_ + math.floor(timeLeft_)
    if level_ < #LEVELS then
      buildLevel(level_ + 1)
    else
      endGame("won")
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
    newGame()
  elseif status_ == "playing" and MOVES[k] ~= nil then
    tryMove(MOVES[k][1], MOVES[k][2])
  end
  publish()
end

function HandleUpdate(eventType, eventData)
  if status_ == "playing" then
    timeLeft_ = timeLeft_ - eventData["TimeStep"]:GetFloat()
    if timeLeft_ <= 0 then
      timeLeft_ = 0
      endGame("lost")
    end
  end
  publish()
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(3, 9, -7)
  cameraNode:LookAt(Vector3(3, 0, -2))
  local camera = cameraNode:CreateComponent("Camera")
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  local lightNode = scene_:CreateChild("Light")
  lightNode.direction = Vector3(0.3, -1.0, 0.4)
  lightNode:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  player_ = scene_:CreateChild("Player")
  player_.scale = Vector3(0.7, 0.7, 0.7)
  addModel(player_, "Models/Box.mdl", "Materials/Mushroom.xml")

  gameState_ = scene_:CreateChild("GameState")
  best_ = loadBest()
  newGame()
  publish()

  SubscribeToEvent("KeyDown", "HandleKeyDown")
  SubscribeToEvent("Update", "HandleUpdate")
end
