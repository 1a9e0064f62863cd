-- Oracle: Arena, a top-down game drawn entirely with NanoVG: title, options, the in-game HUD (health, score,
-- timer, cooldown rings, inventory bar, minimap, floating damage numbers), pause and game over. Everything is laid
-- out every frame in logical pixels (the screen divided by the DPR), so a resize or a turned phone re-lays it.
local vg_                 ---@type NVGContextWrapper

local FONT = "sans"
local M = 16
local WORLD_W, WORLD_H = 1600, 1200
local SPEED = 240
local STORM_EVERY, STORM_DAMAGE = 6.0, 10
local RESPAWN = 8.0
local TARGET_HP = 60
local NUMBER_LIFE, NUMBER_START, NUMBER_RISE = 1.0, 30, 50
local SLOT, SLOT_GAP, NUM_SLOTS = 56, 8, 5
local ICON_R = 28

local YELLOW = {255, 220, 0}
local WHITE = {255, 255, 255}
local GREEN_DOT = {80, 220, 120}
local RED_DOT = {230, 60, 60}

local ABILITIES = {
  {key = KEY_Q, letter = "Q", range = 150, damage = 15, cooldown = 2.0, dy = -36},
  {key = KEY_E, letter = "E", range = 250, damage = 40, cooldown = 8.0, dy = 36},
}
local ITEMS = {
  Potion = {heal = 30},
  Bomb = {range = 400, damage = 60},
}
local TARGET_SPOTS = {{"A", 500, 600}, {"B", 1100, 600}, {"C", 800, 250}}
local SLOT_KEYS = {[KEY_1] = 1, [KEY_2] = 2, [KEY_3] = 3, [KEY_4] = 4, [KEY_5] = 5}

-- screens: "title", "options", "playing", "paused", "over"
local screen_ = "title"
local optionsFrom_ = "title"
local showNumbers_, showMinimap_ = true, true
local selected_ = 1
local labelBoxes_ = {}    -- [i] = {x0, y0, x1, y1} in logical pixels: the current menu's labels, from drawing
local slotBoxes_ = {}     -- [i] = {x0, y0, x1, y1}: the inventory slots, from drawing
local game_               ---@type table  the game in progress (nil on Title)
local lw_, lh_, dpr_ = 0, 0, 1

local function onOff(v) return v and "On" or "Off" end

local function menuItems()
  if screen_ == "title" then return {"Play", "Options"} end
  if screen_ == "options" then
    return {"Damage Numbers: " .. onOff(showNumbers_), "Minimap: " .. onOff(showMinimap_), "Back"}
  end
  if screen_ == "paused" then return {"Resume", "Options", "Quit"} end
  if screen_ == "over" then return {"Play Again", "Title"} end
  return {}
end

local function enter(screen)
  screen_ = screen
  selected_ = 1
  labelBoxes_ = {}
end

local function newGame()
  local targets = {}
  for i, spot in ipairs(TARGET_SPOTS) do
    targets[i] = {name = spot[1], x = spot[2], y = spot[3], hp = TARGET_HP, alive = true, back = 0}
  end
  game_ = {time = 0.0, hp = 100, score = 0, px = 800.0, py = 600.0, nextStorm = STORM_EVERY, targets = targets,
    cooldowns = {0.0, 0.0}, slots = {{item = "Potion", count = 3}, {item = "Bomb", count = 2}, {}, {}, {}},
    slot = 1, numbers = {}}
  enter("playing")
end

local function addNumber(x, y, amount)
  local n = game_.numbers
  n[#n + 1] = {x = x, y = y, text = "-" .. amount, age = 0.0}
end

local function hitTarget(t, damage)
  local dealt = math.min(damage, t.hp)
  t.hp = t.hp - dealt
  game_.score = game_.score + dealt
  addNumber(t.x, t.y, dealt)
  if t.hp <= 0 then
    t.alive = false
    t.back = game_.time + RESPAWN
    game_.score = game_.score + 50
  end
end

local function damageAround(range, damage)
  for _, t in ipairs(game_.targets) do
    local dx, dy = t.x - game_.px, t.y - game_.py
    if t.alive and dx * dx + dy * dy <= range * range then hitTarget(t, damage) end
  end
end

local function useAbility(i)
  local a = ABILITIES[i]
  if game_.cooldowns[i] > 0 then return end
  game_.cooldowns[i] = a.cooldown
  damageAround(a.range, a.damage)
end

local function useItem()
  local slot = game_.slots[game_.slot]
  if slot.item == nil or slot.count <= 0 then return end
  local item = ITEMS[slot.item]
  if item.heal then game_.hp = math.min(100, game_.hp + item.heal) end
  if item.damage then damageAround(item.range, item.damage) end
  slot.count = slot.count - 1
  if slot.count == 0 then game_.slots[game_.slot] = {} end
end

local function activate(i)
  if screen_ == "title" then
    if i == 1 then newGame() else optionsFrom_ = "title"; enter("options") end
  elseif screen_ == "options" then
    if i == 1 then showNumbers_ = not showNumbers_
    elseif i == 2 then showMinimap_ = not showMinimap_
    else enter(optionsFrom_) end
  elseif screen_ == "paused" then
    if i == 1 then enter("playing")
    elseif i == 2 then optionsFrom_ = "paused"; enter("options")
    else game_ = nil; enter("title") end
  elseif screen_ == "over" then
    if i == 1 then newGame() else game_ = nil; enter("title") end
  end
end

function Start()
  vg_ = nvgCreate(1)
  nvgCreateFont(vg_, FONT, "Fonts/MiSans-Regular.ttf")
  SubscribeToEvent("Update", "HandleUpdate")
  SubscribeToEvent("KeyDown", "HandleKeyDown")
  SubscribeToEvent("MouseButtonDown", "HandleMouseDown")
  SubscribeToEvent("MouseWheel", "HandleMouseWheel")
  SubscribeToEvent(vg_, "NanoVGRender", "HandleRender")
end

function HandleKeyDown(eventType, eventData)
  if eventData["Repeat"]:GetBool() then return end
  local key = eventData["Key"]:GetInt()
  if screen_ == "playing" then
    if key == KEY_ESCAPE then enter("paused")
    elseif key == KEY_F then useItem()
    elseif SLOT_KEYS[key] then game_.slot = SLOT_KEYS[key]
    else
      for i, a in ipairs(ABILITIES) do
        if key == a.key then useAbility(i) end
      end
    end
    return
  end
  local n = #menuItems()
  if key == KEY_UP then selected_ = math.max(1, selected_ - 1)
  elseif key == KEY_DOWN then selected_ = math.min(n, selected_ + 1)
  elseif key == KEY_RETURN then activate(selected_)
  elseif key == KEY_ESCAPE then
    if screen_ == "options" then enter(optionsFrom_)
    elseif screen_ == "paused" then enter("playing") end
  end
end

local function inside(box, x, y)
  return box ~= nil and x >= box[1] and x <= box[3] and y >= box[2] and y <= box[4]
end

function HandleMouseDown(eventType, eventData)
  if eventData["Button"]:GetInt() ~= MOUSEB_LEFT then return end
  local pos = input:GetMousePosition()
  local x, y = pos.x / dpr_, pos.y / dpr_
  if screen_ == "playing" then
    for i, box in ipairs(slotBoxes_) do
      if inside(box, x, y) then game_.slot = i; return end
    end
    return
  end
  for i, box in ipairs(labelBoxes_) do
    if inside(box, x, y) then
      selected_ = i
      activate(i)
      return
    end
  end
end

function HandleMouseWheel(eventType, eventData)
  if screen_ ~= "playing" then return end
  local wheel = eventData["Wheel"]:GetInt()
  if wheel > 0 then game_.slot = (game_.slot - 2) % NUM_SLOTS + 1
  elseif wheel < 0 then game_.slot = game_.slot % NUM_SLOTS + 1 end
end

local function step(dt)
  local g = game_
  g.time = g.time + dt
  local dx, dy = 0, 0
  if input:GetKeyDown(KEY_D) then dx = dx + 1 end
  if input:GetKeyDown(KEY_A) then dx = dx - 1 end
  if input:GetKeyDown(KEY_S) then dy = dy + 1 end
  if input:GetKeyDown(KEY_W) then dy = dy - 1 end
  g.px = math.max(0, math.min(WORLD_W, g.px + dx * SPEED * dt))
  g.py = math.max(0, math.min(WORLD_H, g.py + dy * SPEED * dt))
  for i = 1, #g.cooldowns do g.cooldowns[i] = math.max(0, g.cooldowns[i] - dt) end
  local keep = {}
  for _, n in ipairs(g.numbers) do
    n.age = n.age + dt
    if n.age < NUMBER_LIFE then keep[#keep + 1] = n end
  end
  g.numbers = keep
  for _, t in ipairs(g.targets) do
    if not t.alive and g.time >= t.back then t.alive, t.hp = true, TARGET_HP end
  end
  while g.time >= g.nextStorm - 1e-9 do
    g.nextStorm = g.nextStorm + STORM_EVERY
    g.hp = math.max(0, g.hp - STORM_DAMAGE)
    addNumber(g.px, g.py, STORM_DAMAGE)
    if g.hp <= 0 then
      g.final = {score = g.score, time = g.time}
      enter("over")
      return
    end
  end
end

function HandleUpdate(eventType, eventData)
  if screen_ == "playing" then step(eventData["TimeStep"]:GetFloat()) end
end

-- drawing ------------------------------------------------------------------------------------------
local function fillRect(x, y, w, h, r, g, b, a)
  nvgBeginPath(vg_)
  nvgRect(vg_, x, y, w, h)
  nvgFillColor(vg_, nvgRGBA(r, g, b, a))
  nvgFill(vg_)
end

local function circle(x, y, radius, rgb, a)
  nvgBeginPath(vg_)
  nvgCircle(vg_, x, y, radius)
  nvgFillColor(vg_, nvgRGBA(rgb[1], rgb[2], rgb[3], a or 255))
  nvgFill(vg_)
end

local function textStyle(size, align)
  nvgFontFace(vg_, FONT)
  nvgFontSize(vg_, size)
  nvgTextAlign(vg_, align)
end

-- Draws text and returns its box {x0, y0, x1, y1} (logical pixels).
local function text(x, y, size, align, s, rgb, a)
  textStyle(size, align)
  nvgFillColor(vg_, nvgRGBA(rgb[1], rgb[2], rgb[3], a or 255))
  nvgText(vg_, x, y, s)
  local _, box = nvgTextBounds(vg_, x, y, s)
  return {box[1], box[2], box[3], box[4]}
end

local function textWidth(size, s)
  textStyle(size, NVG_ALIGN_LEFT + NVG_ALIGN_TOP)
  return (nvgTextBounds(vg_, 0, 0, s))
end

local function overlaps(a, b)
  return a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
end

local function toView(x, y)
  return lw_ / 2 + x - game_.px, lh_ / 2 + y - game_.py
end

local function drawWorld()
  fillRect(0, 0, lw_, lh_, 24, 28, 36, 255)
  local x0, y0 = toView(0, 0)
  nvgBeginPath(vg_)
  nvgRect(vg_, x0, y0, WORLD_W, WORLD_H)
  nvgFillColor(vg_, nvgRGBA(46, 58, 50, 255))
  nvgFill(vg_)
  for _, t in ipairs(game_.targets) do
    if t.alive then
      local x, y = toView(t.x, t.y)
      circle(x, y, 20, {240, 160, 40})
      fillRect(x - 20, y + 26, 40 * t.hp / TARGET_HP, 4, 240, 240, 240, 255)
    end
  end
  local px, py = toView(game_.px, game_.py)
  circle(px, py, 16, {60, 140, 255})
  if showNumbers_ then
    for _, n in ipairs(game_.numbers) do
      local x, y = toView(n.x, n.y)
      local f = n.age / NUMBER_LIFE
      text(x, y - NUMBER_START - NUMBER_RISE * f, 24, NVG_ALIGN_CENTER + NVG_ALIGN_MIDDLE, n.text,
        {255, 90, 80}, math.floor(255 * (1 - f) + 0.5))
    end
  end
end

local function minimapRect()
  local s = 0.3 * math.min(lw_, lh_)
  return lw_ - M - s, lh_ - M - s, s
end

local function drawMinimap()
  local x, y, s = minimapRect()
  fillRect(x, y, s, s, 16, 20, 28, 220)
  for _, t in ipairs(game_.targets) do
    if t.alive then circle(x + t.x / WORLD_W * s, y + t.y / WORLD_H * s, 4, RED_DOT) end
  end
  circle(x + game_.px / WORLD_W * s, y + game_.py / WORLD_H * s, 4, GREEN_DOT)
end

local function drawAbilities()
  for i, a in ipairs(ABILITIES) do
    local cx, cy = M + ICON_R, lh_ / 2 + a.dy
    circle(cx, cy, ICON_R, {40, 46, 64}, 230)
    local left = game_.cooldowns[i]
    if left > 0 then
      nvgBeginPath(vg_)
      nvgArc(vg_, cx, cy, ICON_R + 3, -math.pi / 2, -math.pi / 2 + 2 * math.pi * left / a.cooldown, NVG_CW)
      nvgStrokeColor(vg_, nvgRGBA(120, 200, 255, 255))
      nvgStrokeWidth(vg_, 4)
      nvgStroke(vg_)
      text(cx, cy, 20, NVG_ALIGN_CENTER + NVG_ALIGN_MIDDLE, string.format("%.1f", left), WHITE)
    else
      text(cx, cy, 24, NVG_ALIGN_CENTER + NVG_ALIGN_MIDDLE, a.letter, WHITE)
    end
  end
end

local function drawInventory()
  local total = NUM_SLOTS * SLOT + (NUM_SLOTS - 1) * SLOT_GAP
  local x0, y0 = lw_ / 2 - total / 2, lh_ - M - SLOT
  if showMinimap_ then   -- never under the minimap: sit above it when the screen is too narrow
    local mx, my, s = minimapRect()
    if overlaps({x0, y0, x0 + total, y0 + SLOT}, {mx, my, mx + s, my + s}) then y0 = my - M - SLOT end
  end
  slotBoxes_ = {}
  for i = 1, NUM_SLOTS do
    local x = x0 + (i - 1) * (SLOT + SLOT_GAP)
    fillRect(x, y0, SLOT, SLOT, 50, 56, 74, 220)
    local slot = game_.slots[i] ---@type table
    if slot.item then
      circle(x + SLOT / 2, y0 + 22, 12, slot.item == "Potion" and {200, 60, 160} or {90, 90, 90})
      text(x + SLOT - 4, y0 + SLOT - 2, 16, NVG_ALIGN_RIGHT + NVG_ALIGN_BOTTOM, "x" .. slot.count, WHITE)
    end
    slotBoxes_[i] = {x, y0, x + SLOT, y0 + SLOT}
  end
  local sel = slotBoxes_[game_.slot]
  nvgBeginPath(vg_)
  nvgRect(vg_, sel[1], sel[2], SLOT, SLOT)
  nvgStrokeColor(vg_, nvgRGBA(YELLOW[1], YELLOW[2], YELLOW[3], 255))
  nvgStrokeWidth(vg_, 3)
  nvgStroke(vg_)
end

local function drawHud()
  -- health
  fillRect(M, M, 240, 24, 60, 20, 20, 220)
  fillRect(M, M, 240 * game_.hp / 100, 24, 210, 50, 50, 255)
  text(M + 120, M + 12, 18, NVG_ALIGN_CENTER + NVG_ALIGN_MIDDLE, string.format("HP %d/100", game_.hp), WHITE)
  -- score, right-aligned; the timer centred, or on the row below when the top row is too narrow for it
  local scoreBox = text(lw_ - M, M, 22, NVG_ALIGN_RIGHT + NVG_ALIGN_TOP, "Score: " .. game_.score, WHITE)
  local timeText = string.format("Time: %.1f", game_.time)
  local tw = textWidth(22, timeText)
  local row = {lw_ / 2 - tw / 2 - 8, M, lw_ / 2 + tw / 2 + 8, M + 24}
  local y = M
  if overlaps(row, {M, M, M + 240, M + 24}) or overlaps(row, scoreBox) then y = M + 24 + 8 end
  text(lw_ / 2, y, 22, NVG_ALIGN_CENTER + NVG_ALIGN_TOP, timeText, WHITE)
  drawAbilities()
  drawInventory()
  if showMinimap_ then drawMinimap() end
end

-- The menu's labels, centred, from vertical position y0 down; their boxes are kept for clicks.
local function drawMenu(y0, size, step)
  labelBoxes_ = {}
  for i, label in ipairs(menuItems()) do
    local box = text(lw_ / 2, y0 + (i - 1) * step, size, NVG_ALIGN_CENTER + NVG_ALIGN_MIDDLE, label,
      i == selected_ and YELLOW or WHITE)
    labelBoxes_[i] = {box[1] - 8, box[2] - 4, box[3] + 8, box[4] + 4}
  end
end

local function panel(cx, cy, w, h)
  nvgBeginPath(vg_)
  nvgRoundedRect(vg_, cx - w / 2, cy - h / 2, w, h, 12)
  nvgFillColor(vg_, nvgRGBA(30, 34, 48, 235))
  nvgFill(vg_)
end

local function widest(list, size)
  local w = 0
  for _, s in ipairs(list) do w = math.max(w, textWidth(size, s)) end
  return w
end

local function drawMenuScreen(title)
  local items = menuItems()
  local step = 56
  local h = #items * step
  local y0 = lh_ / 2 - h / 2 + step / 2
  if title then text(lw_ / 2, y0 - 90, 56, NVG_ALIGN_CENTER + NVG_ALIGN_MIDDLE, title, {120, 200, 255}) end
  panel(lw_ / 2, lh_ / 2, widest(items, 32) + 80, h + 24)
  drawMenu(y0, 32, step)
end

local function drawGameOver()
  local f = game_.final
  local lines = {"Game Over", "Score: " .. f.score, string.format("Time: %.1f", f.time)}
  local sizes = {44, 26, 26}
  local items = menuItems()
  local w = 0
  for i, s in ipairs(lines) do w = math.max(w, textWidth(sizes[i], s)) end
  w = math.max(w, widest(items, 30))
  local h = 56 + 40 + 40 + 20 + #items * 50 + 24
  local top = lh_ / 2 - h / 2
  panel(lw_ / 2, lh_ / 2, w + 80, h)
  local y = top + 12 + 28
  for i, s in ipairs(lines) do
    text(lw_ / 2, y, sizes[i], NVG_ALIGN_CENTER + NVG_ALIGN_MIDDLE, s, i == 1 and {255, 90, 80} or WHITE)
    y = y + (i == 1 and 48 or 40)
  end
  drawMenu(y + 20, 30, 50)
end

function HandleRender(eventType, eventData)
  dpr_ = graphics:GetDPR()
  lw_, lh_ = graphics.width / dpr_, graphics.height / dpr_
  nvgBeginFrame(vg_, lw_, lh_, dpr_)
  if screen_ == "playing" or screen_ == "paused" then
    drawWorld()
    drawHud()
    if screen_ == "paused" then
      fillRect(0, 0, lw_, lh_, 0, 0, 0, 150)
      drawMenuScreen(nil)
    else
      labelBoxes_ = {}
    end
  else
    fillRect(0, 0, lw_, lh_, 18, 20, 30, 255)
    if screen_ == "over" then drawGameOver()
    else drawMenuScreen(screen_ == "title" and "ARENA" or "Settings") end
  end
  nvgEndFrame(vg_)
end
