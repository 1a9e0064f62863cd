-- Oracle: a NanoVG health bar (green above 30, red at 30 or less) and a score, driven by SPACE, D, H and R.
local vg_                 ---@type NVGContextWrapper
local MAX_HEALTH = 100
local DAMAGE, HEAL, COIN = 30, 20, 10
local BAR_X, BAR_Y, BAR_W, BAR_H = 20, 20, 200, 20

local health_ = MAX_HEALTH
local score_ = 0

local function gameOver() return health_ <= 0 end

local function restart()
  health_ = MAX_HEALTH
  score_ = 0
end

function Start()
  vg_ = nvgCreate(1)
  nvgCreateFont(vg_, "sans", "Fonts/MiSans-Regular.ttf")
  SubscribeToEvent("KeyDown", "HandleKeyDown")
  SubscribeToEvent(vg_, "NanoVGRender", "HandleRender")
end

function HandleKeyDown(eventType, eventData)
  if eventData["Repeat"]:GetBool() then return end   -- one action per press
  local key = eventData["Key"]:GetInt()
  if key == KEY_R then
    restart()
  elseif gameOver() then
    return
  elseif key == KEY_SPACE then
    score_ = score_ + COIN
  elseif key == KEY_D then
    health_ = math.max(0, health_ - DAMAGE)
  elseif key == KEY_H then
    health_ = math.min(MAX_HEALTH, health_ + HEAL)
  end
end

local function fillRect(x, y, w, h, r, g, b)
  nvgBeginPath(vg_)
  nvgRect(vg_, x, y, w, h)
  nvgFillColor(vg_, nvgRGBA(r, g, b, 255))
  nvgFill(vg_)
end

local function drawText(x, y, size, align, text)
  nvgFontFace(vg_, "sans")
  nvgFontSize(vg_, size)
  nvgTextAlign(vg_, align)
  nvgFillColor(vg_, nvgRGBA(255, 255, 255, 255))
  nvgText(vg_, x, y, text)
end

function HandleRender(eventType, eventData)
  local w, h = graphics.width, graphics.height
  nvgBeginFrame(vg_, w, h, 1.0)

  fillRect(BAR_X, BAR_Y, BAR_W, BAR_H, 60, 60, 60)
  if health_ > 0 then
    local width = BAR_W * health_ / MAX_HEALTH
    if health_ > 30 then
      fillRect(BAR_X, BAR_Y, width, BAR_H, 0, 200, 0)
    else
      fillRect(BAR_X, BAR_Y, width, BAR_H, 220, 0, 0)
    end
  end
  drawText(BAR_X + BAR_W + 12, BAR_Y + BAR_H / 2, 20, NVG_ALIGN_LEFT + NVG_ALIGN_MIDDLE,
    string.format("HP: %d/%d", health_, MAX_HEALTH))
  drawText(w - 20, 20, 28, NVG_ALIGN_RIGHT + NVG_ALIGN_TOP, string.format("Score: %d", score_))
  if gameOver() then
    drawText(w / 2, h / 2, 64, NVG_ALIGN_CENTER + NVG_ALIGN_MIDDLE, "Game Over")
  end

  nvgEndFrame(vg_)
end
