-- Oracle: a play timer on a NanoVG HUD and a pause menu (Escape / P) driven by the keys and the mouse.
local vg_                 ---@type NVGContextWrapper
local playTime_ = 0.0     -- seconds of play, advanced only while not paused
local paused_ = false
local selected_ = 1       -- index into ITEMS
local itemBoxes_ = {}     -- [i] = {x0, y0, x1, y1}: each label's box in screen pixels, filled while drawing

local ITEMS = {"Resume", "Restart", "Quit"}
local ITEM_Y0, ITEM_STEP = 300, 70
local ITEM_SIZE = 40
local WHITE = {255, 255, 255}
local YELLOW = {255, 220, 0}

local function openMenu()
  paused_ = true
  selected_ = 1
end

local function activate(index)
  local item = ITEMS[index]
  if item == "Resume" then
    paused_ = false
  elseif item == "Restart" then
    playTime_ = 0.0
    paused_ = false
  elseif item == "Quit" then
    engine:Exit()
  end
end

function Start()
  vg_ = nvgCreate(1)
  nvgCreateFont(vg_, "sans", "Fonts/MiSans-Regular.ttf")
  SubscribeToEvent("Update", "HandleUpdate")
  SubscribeToEvent("KeyDown", "HandleKeyDown")
  SubscribeToEvent("MouseButtonDown", "HandleMouseDown")
  SubscribeToEvent(vg_, "NanoVGRender", "HandleRender")
end

function HandleUpdate(eventType, eventData)
  if not paused_ then
    playTime_ = playTime_ + eventData["TimeStep"]:GetFloat()
  end
end

function HandleKeyDown(eventType, eventData)
  if eventData["Repeat"]:GetBool() then return end   -- a held key toggles once
  local key = eventData["Key"]:GetInt()
  if key == KEY_ESCAPE or key == KEY_P then
    if paused_ then paused_ = false else openMenu() end
    return
  end
  if not paused_ then return end
  if key == KEY_UP then
    selected_ = math.max(1, selected_ - 1)
  elseif key == KEY_DOWN then
    selected_ = math.min(#ITEMS, selected_ + 1)
  elseif key == KEY_RETURN then
    activate(selected_)
  end
end

function HandleMouseDown(eventType, eventData)
  if not paused_ or eventData["Button"]:GetInt() ~= MOUSEB_LEFT then return end
  local pos = input:GetMousePosition()
  for i, box in ipairs(itemBoxes_) do
    if pos.x >= box[1] and pos.x <= box[3] and pos.y >= box[2] and pos.y <= box[4] then
      activate(i)
      return
    end
  end
end

local function drawText(x, y, size, align, text, rgb)
  nvgFontFace(vg_, "sans")
  nvgFontSize(vg_, size)
  nvgTextAlign(vg_, align)
  nvgFillColor(vg_, nvgRGBA(rgb[1], rgb[2], rgb[3], 255))
  nvgText(vg_, x, y, text)
end

local function drawMenu(w, h)
  -- dim the game, then a panel with the items
  nvgBeginPath(vg_)
  nvgRect(vg_, 0, 0, w, h)
  nvgFillColor(vg_, nvgRGBA(0, 0, 0, 160))
  nvgFill(vg_)

  local cx = w / 2
  nvgBeginPath(vg_)
  nvgRoundedRect(vg_, cx - 160, ITEM_Y0 - 60, 320, ITEM_STEP * #ITEMS + 50, 12)
  nvgFillColor(vg_, nvgRGBA(30, 34, 48, 230))
  nvgFill(vg_)

  for i, label in ipairs(ITEMS) do
    local y = ITEM_Y0 + (i - 1) * ITEM_STEP
    drawText(cx, y, ITEM_SIZE, NVG_ALIGN_CENTER + NVG_ALIGN_MIDDLE, label, i == selected_ and YELLOW or WHITE)
    local half = nvgTextBounds(vg_, cx, y, label) / 2
    itemBoxes_[i] = {cx - half - 12, y - ITEM_SIZE / 2 - 6, cx + half + 12, y + ITEM_SIZE / 2 + 6}
  end
end

function HandleRender(eventType, eventData)
  local w, h = graphics.width, graphics.height
  nvgBeginFrame(vg_, w, h, 1.0)
  drawText(20, 20, 32, NVG_ALIGN_LEFT + NVG_ALIGN_TOP, string.format("Time: %.1f", playTime_), WHITE)
  if paused_ then
    drawMenu(w, h)
  else
    itemBoxes_ = {}
  end
  nvgEndFrame(vg_)
end
