-- Arena Blaster: a top-down arena on the XZ plane. Move with WASD, shoot with the arrow keys, survive the
-- enemies that walk in from the four sides, pick up medkits. See README.md for the rules.
-- F5 saves the run to SAVE_FILE, F9 loads it back.

local ARENA_HALF = 10          -- the floor covers x and z in [-10, 10]
local PLAYER_LIMIT = 9.5       -- the player's centre never leaves [-9.5, 9.5]
local PLAYER_SPEED = 5
local PLAYER_MAX_HP = 5
local BULLET_SPEED = 15
local FIRE_INTERVAL = 0.25
local HIT_RADIUS = 0.6         -- a bullet this close to an enemy's centre hits it
local ENEMY_SPEED = 2
local ENEMY_HP = 3
local ENEMY_SCORE = 10
local TOUCH_RADIUS = 0.9       -- an enemy this close to the player touches it
local SPAWN_INTERVAL = 3
local SPAWN_POINTS = { {0, 9}, {9, 0}, {0, -9}, {-9, 0} }        -- north, east, south, west (x, z)
local MEDKIT_INTERVAL = 10
local MEDKIT_POINTS = { {4, 4}, {-4, 4}, {-4, -4}, {4, -4} }
local PICK_RADIUS = 1.0
local SAVE_FILE = "arena_save.json"
local MESSAGE_SECONDS = 2

local scene_            ---@type Scene
local gameState_        ---@type Node
local player_           ---@type Node
local hudText_          ---@type Text
local gameOverText_     ---@type Text
local saveText_         ---@type Text
local messageTimer_ = 0 -- seconds the SaveText message still shows

-- The run: everything a new run resets.
local hp_ = PLAYER_MAX_HP
local score_ = 0
local kills_ = 0
local time_ = 0
local status_ = "playing"
local spawnTimer_ = SPAWN_INTERVAL     -- seconds until the next enemy
local spawnIndex_ = 1                  -- which of SPAWN_POINTS comes next
local medkitTimer_ = MEDKIT_INTERVAL   -- seconds until the next medkit
local medkitIndex_ = 1
local fireCooldown_ = 0

---@class ArenaEnemy
---@field node Node
---@field hp integer

---@class ArenaBullet
---@field node Node
---@field dx number     -- direction of flight (x, z), a unit vector
---@field dz number

local enemies_ = {}     ---@type ArenaEnemy[]
local bullets_ = {}     ---@type ArenaBullet[]
local medkits_ = {}     ---@type Node[]

local FIRE_KEYS = {
  {key = KEY_UP, dx = 0, dz = 1},
  {key = KEY_DOWN, dx = 0, dz = -1},
  {key = KEY_RIGHT, dx = 1, dz = 0},
  {key = KEY_LEFT, dx = -1, dz = 0},
}

local function addModel(node, model, material)
  local sm = node:CreateComponent("StaticModel")
  sm.model = cache:GetResource("Model", model)
  sm.material = cache:GetResource("Material", material)
end

local function clamp(v, lo, hi)
  if v < lo then return lo end
  if v > hi then return hi end
  return v
end

local function flatDistance(a, b)
  local dx, dz = a.x - b.x, a.z - b.z
  return math.sqrt(dx * dx + dz * dz)
end

-- GameState variables and the HUD always show the current run.
local function publish()
  gameState_:SetVar("HP", hp_)
  gameState_:SetVar("Score", score_)
  gameState_:SetVar("Kills", kills_)
  gameState_:SetVar("Time", time_)
  gameState_:SetVar("Status", status_)
  hudText_.text = string.format("HP %d  Score %d  Time %d", hp_, score_, math.floor(time_))
  gameOverText_.text = string.format("Game Over  Score %d  Press R", score_)
  gameOverText_.visible = status_ == "over"
end

local function spawnEnemy(x, z, hp)
  local node = scene_:CreateChild("Enemy")
  node.position = Vector3(x, 0.5, z)
  node.scale = Vector3(0.8, 0.8, 0.8)
  addModel(node, "Models/Box.mdl", "Materials/Stone.xml")
  node:SetVar("HP", hp)
  enemies_[#enemies_ + 1] = {node = node, hp = hp}
end

local function spawnMedkit(x, z)
  local node = scene_:CreateChild("Medkit")
  node.position = Vector3(x, 0.5, z)
  node.scale = Vector3(0.5, 0.5, 0.5)
  addModel(node, "Models/Sphere.mdl", "Materials/Mushroom.xml")
  medkits_[#medkits_ + 1] = node
end

local function fire(dx, dz)
  local node = scene_:CreateChild("Bullet")
  node.position = player_.position
  node.scale = Vector3(0.25, 0.25, 0.25)
  addModel(node, "Models/Sphere.mdl", "Materials/StoneTiled.xml")
  bullets_[#bullets_ + 1] = {node = node, dx = dx, dz = dz}
end

local function clearEntities()
  for _, e in ipairs(enemies_) do e.node:Remove() end
  for _, b in ipairs(bullets_) do b.node:Remove() end
  for _, m in ipairs(medkits_) do m:Remove() end
  enemies_, bullets_, medkits_ = {}, {}, {}
end

-- R: a new run from the start.
local function newRun()
  clearEntities()
  hp_, score_, kills_, time_, status_ = PLAYER_MAX_HP, 0, 0, 0, "playing"
  spawnTimer_, spawnIndex_ = SPAWN_INTERVAL, 1
  medkitTimer_, medkitIndex_ = MEDKIT_INTERVAL, 1
  fireCooldown_ = 0
  player_.position = Vector3(0, 0.5, 0)
end

local function movePlayer(dt)
  local dx, dz = 0, 0
  if input:GetKeyDown(KEY_W) then dz = dz + 1 end
  if input:GetKeyDown(KEY_S) then dz = dz - 1 end
  if input:GetKeyDown(KEY_D) then dx = dx + 1 end
  if input:GetKeyDown(KEY_A) then dx = dx - 1 end
  local p = player_.position
  player_.position = Vector3(clamp(p.x + dx * PLAYER_SPEED * dt, -PLAYER_LIMIT, PLAYER_LIMIT), 0.5,
                             clamp(p.z + dz * PLAYER_SPEED * dt, -PLAYER_LIMIT, PLAYER_LIMIT))
end

local function showMessage(text)
  saveText_.text = text
  saveText_.visible = true
  messageTimer_ = MESSAGE_SECONDS
end

local function updateMessage(dt)
  if messageTimer_ <= 0 then return end
  messageTimer_ = messageTimer_ - dt
  if messageTimer_ <= 0 then saveText_.visible = false end
end

-- F5: the whole run (player, enemies, medkits, counters and timers) written to SAVE_FILE. A finished run is not
-- saved. Bullets in flight are not part of a save.
local function saveRun()
  if status_ ~= "playing" then return end
  local p = player_.position
  local data = {
    hp = hp_, score = score_, kills = kills_, time = time_,
    spawnTimer = spawnTimer_, spawnIndex = spawnIndex_,
    medkitTimer = medkitTimer_, medkitIndex = medkitIndex_,
    fireCooldown = fireCooldown_,
    player = {x = p.x, z = p.z},
    enemies = {}, medkits = {},
  }
  for i, e in ipairs(enemies_) do
    local q = e.node.position
    data.enemies[i] = {x = q.x, z = q.z, hp = e.hp}
  end
  for i, m in ipairs(medkits_) do
    local q = m.position
    data.medkits[i] = {x = q.x, z = q.z}
  end
  local file = File(SAVE_FILE, FILE_WRITE)
  file:WriteString(cjson.encode(data))
  file:Close()
  showMessage("Saved")
end

-- Whether `data` has every field loadRun reads, of the right type.
local function isSave(data)
  if type(data) ~= "table" or type(data.player) ~= "table" or type(data.enemies) ~= "table"
      or type(data.medkits) ~= "table" then
    return false
  end
  for _, k in ipairs({"hp", "score", "kills", "time", "spawnTimer", "spawnIndex", "medkitTimer", "medkitIndex",
                      "fireCooldown"}) do
    if type(data[k]) ~= "number" then return false end
  end
  if type(data.player.x) ~= "number" or type(data.player.z) ~= "number" then return false end
  for _, e in ipairs(data.enemies) do
    if type(e) ~= "table" or type(e.x) ~= "number" or type(e.z) ~= "number" or type(e.hp) ~= "number" then
      return false
    end
  end
  for _, m in ipairs(data.medkits) do
    if type(m) ~= "table" or type(m.x) ~= "number" or type(m.z) ~= "number" then return false end
  end
  return true
end

-- The save in SAVE_FILE, or nil when there is none or the file is not a save (damaged, or written by something
-- else).
local function readSave()
  if not fileSystem:FileExists(SAVE_FILE) then return nil end
  local file = File(SAVE_FILE, FILE_READ)
  local text = file:ReadString()
  file:Close()
  local ok, data = pcall(cjson.decode, text)
  if ok and isSave(data) then return data end
  return nil
end

-- F9: the saved run replaces the current one, whatever state it is in (game over included).
local function loadRun()
  local data = readSave()
  if data == nil then
    showMessage("No save")
    return
  end
  clearEntities()
  hp_, score_, kills_, time_, status_ = data.hp, data.score, data.kills, data.time, "playing"
  spawnTimer_, spawnIndex_ = data.spawnTimer, data.spawnIndex
  medkitTimer_, medkitIndex_ = data.medkitTimer, data.medkitIndex
  fireCooldown_ = data.fireCooldown
  player_.position = Vector3(data.player.x, 0.5, data.player.z)
  for _, e in ipairs(data.enemies) do spawnEnemy(e.x, e.z, e.hp) end
  for _, m in ipairs(data.medkits) do spawnMedkit(m.x, m.z) end
  showMessage("Loaded")
end

-- Holding an arrow key fires a bullet that way every FIRE_INTERVAL seconds (at once when ready).
local function updateFiring(dt)
  fireCooldown_ = math.max(0, fireCooldown_ - dt)
  if fireCooldown_ > 0 then return end
  for _, f in ipairs(FIRE_KEYS) do
    if input:GetKeyDown(f.key) then
      fire(f.dx, f.dz)
      fireCooldown_ = FIRE_INTERVAL
      return
    end
  end
end

local function killEnemy(i)
  enemies_[i].node:Remove()
  table.remove(enemies_, i)
  score_ = score_ + ENEMY_SCORE
  kills_ = kills_ + 1
end

local function updateBullets(dt)
  local i = 1
  while i <= #bullets_ do
    local b = bullets_[i]
    local p = b.node.position
    p = Vector3(p.x + b.dx * BULLET_SPEED * dt, p.y, p.z + b.dz * BULLET_SPEED * dt)
    b.node.position = p
    local hit = 0   -- index of the enemy hit, 0 for none
    for j, e in ipairs(enemies_) do
      if flatDistance(p, e.node.position) < HIT_RADIUS then hit = j; break end
    end
    if hit > 0 then
      local e = enemies_[hit]
      e.hp = e.hp - 1
      e.node:SetVar("HP", e.hp)
      if e.hp <= 0 then killEnemy(hit) end
    end
    if hit > 0 or math.abs(p.x) > ARENA_HALF or math.abs(p.z) > ARENA_HALF then
      b.node:Remove()
      table.remove(bullets_, i)
    else
      i = i + 1
    end
  end
end

-- Enemies walk straight at the player; one that touches it costs 1 HP and is gone (no score).
local function updateEnemies(dt)
  local target = player_.position
  local i = 1
  while i <= #enemies_ do
    local e = enemies_[i]
    local p = e.node.position
    local dx, dz = target.x - p.x, target.z - p.z
    local d = math.sqrt(dx * dx + dz * dz)
    if d > 0 then
      local step = math.min(d, ENEMY_SPEED * dt)
      p = Vector3(p.x + dx / d * step, p.y, p.z + dz / d * step)
      e.node.position = p
    end
    if flatDistance(p, target) < TOUCH_RADIUS then
      e.node:Remove()
      table.remove(enemies_, i)
      hp_ = hp_ - 1
    else
      i = i + 1
    end
  end
  if hp_ <= 0 then
    hp_ = 0
    status_ = "over"
  end
end

local function updateMedkits()
  local i = 1
  while i <= #medkits_ do
    if flatDistance(medkits_[i].position, player_.position) < PICK_RADIUS then
      medkits_[i]:Remove()
      table.remove(medkits_, i)
      hp_ = math.min(PLAYER_MAX_HP, hp_ + 1)
    else
      i = i + 1
    end
  end
end

local function updateSpawns(dt)
  spawnTimer_ = spawnTimer_ - dt
  if spawnTimer_ <= 0 then
    spawnTimer_ = spawnTimer_ + SPAWN_INTERVAL
    local point = SPAWN_POINTS[spawnIndex_]
    spawnEnemy(point[1], point[2], ENEMY_HP)
    spawnIndex_ = spawnIndex_ % #SPAWN_POINTS + 1
  end
  medkitTimer_ = medkitTimer_ - dt
  if medkitTimer_ <= 0 then
    medkitTimer_ = medkitTimer_ + MEDKIT_INTERVAL
    local point = MEDKIT_POINTS[medkitIndex_]
    spawnMedkit(point[1], point[2])
    medkitIndex_ = medkitIndex_ % #MEDKIT_POINTS + 1
  end
end

function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  updateMessage(dt)
  if status_ == "playing" then
    time_ = time_ + dt
    movePlayer(dt)
    updateFiring(dt)
    updateBullets(dt)
    updateEnemies(dt)
    if status_ == "playing" then
      updateMedkits()
      updateSpawns(dt)
    end
  end
  publish()
end

function HandleKeyDown(eventType, eventData)
  if eventData["Repeat"]:GetBool() then return end
  local k = eventData["Key"]:GetInt()
  if k == KEY_R then
    newRun()
  elseif k == KEY_F5 then
    saveRun()
  elseif k == KEY_F9 then
    loadRun()
  end
  publish()
end

local function createHud()
  local font = cache:GetResource("Font", "Fonts/Anonymous Pro.ttf")
  hudText_ = ui.root:CreateChild("Text", "HudText")
  hudText_:SetFont(font, 22)
  hudText_:SetPosition(16, 16)
  gameOverText_ = ui.root:CreateChild("Text", "GameOverText")
  gameOverText_:SetFont(font, 40)
  gameOverText_:SetAlignment(HA_CENTER, VA_CENTER)
  saveText_ = ui.root:CreateChild("Text", "SaveText")
  saveText_:SetFont(font, 22)
  saveText_:SetAlignment(HA_RIGHT, VA_TOP)
  saveText_:SetPosition(-16, 16)
  saveText_.visible = false
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(0, 22, -8)
  cameraNode:LookAt(Vector3(0, 0, 0))
  local camera = cameraNode:CreateComponent("Camera")
  renderer:SetViewport(0, Viewport:new(scene_, camera))

  local lightNode = scene_:CreateChild("Light")
  lightNode.direction = Vector3(0.3, -1.0, 0.4)
  lightNode:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  local floor = scene_:CreateChild("Floor")
  floor.scale = Vector3(2 * ARENA_HALF, 1, 2 * ARENA_HALF)
  addModel(floor, "Models/Plane.mdl", "Materials/StoneTiled.xml")

  player_ = scene_:CreateChild("Player")
  player_.position = Vector3(0, 0.5, 0)
  player_.scale = Vector3(0.7, 0.7, 0.7)
  addModel(player_, "Models/Box.mdl", "Materials/Mushroom.xml")

  gameState_ = scene_:CreateChild("GameState")
  createHud()
  newRun()
  publish()
  SubscribeToEvent("Update", "HandleUpdate")
  SubscribeToEvent("KeyDown", "HandleKeyDown")
end
