-- Oracle: a touch gesture recogniser. Single-finger touches make taps, double taps, long presses and swipes;
-- two fingers make a pinch that zooms the camera. Gestures drive the Player's state (shots, jumps, shield, lane).
local scene_        ---@type Scene
local player_       ---@type Node
local camera_       ---@type Camera

local TAP_TIME, TAP_SLOP = 0.3, 20          -- a tap: lifted within 0.3 s, never more than 20 px away
local DOUBLE_TIME, DOUBLE_DIST = 0.4, 40    -- a second tap this soon after, this near the first: a double tap
local LONG_TIME = 0.6                       -- held this long within the slop: a long press
local SWIPE_TIME, SWIPE_DIST = 0.5, 80      -- lifted this soon, this far away: a swipe
local ZOOM_MIN, ZOOM_MAX = 0.5, 2.0
local LANE_WIDTH = 2

local now_ = 0.0                            -- seconds since Start, summed from the frames' TimeStep
local state_ = {Shots = 0, Jumps = 0, Shield = false, Lane = 0, Gesture = "", Gestures = 0}

-- Fingers on the screen by TouchID: {x0, y0, x, y, t0, far (went past the tap slop)}.
local fingers_ = {}
local fingerCount_ = 0
-- The single-finger touch being judged (nil: none, or cancelled by a second finger).
local single_ = nil   ---@type integer|nil
-- A pinch: the two fingers' ids, their distance and the zoom when it began (nil: no pinch).
local pinch_ = nil    ---@type {a: integer, b: integer, dist: number, zoom: number}|nil
-- Set once a second finger joined: nothing is recognised until every finger has lifted.
local blocked_ = false
-- The last tap that may pair into a double tap: {x, y, t (when it lifted)}.
local lastTap_ = nil  ---@type {x: number, y: number, t: number}|nil

local function publish()
  for name, value in pairs(state_) do
    player_:SetVar(name, Variant(value))
  end
  player_.position = Vector3(LANE_WIDTH * state_.Lane, 0, 0)
end

local function recognise(name)
  state_.Gesture = name
  state_.Gestures = state_.Gestures + 1
end

function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")

  local cameraNode = scene_:CreateChild("Camera")
  cameraNode.position = Vector3(0, 12, -14)
  cameraNode:LookAt(Vector3(0, 0, 0))
  camera_ = cameraNode:CreateComponent("Camera")
  camera_.zoom = 1.0
  renderer:SetViewport(0, Viewport:new(scene_, camera_))

  local lightNode = scene_:CreateChild("Light")
  lightNode.direction = Vector3(0.3, -1.0, 0.5)
  lightNode:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL

  for lane = -1, 1 do
    local strip = scene_:CreateChild("LaneStrip")
    strip.position = Vector3(LANE_WIDTH * lane, -0.5, 10)
    strip.scale = Vector3(1.8, 1, 40)
    strip:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Plane.mdl")
  end

  player_ = scene_:CreateChild("Player")
  player_:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Box.mdl")
  publish()

  SubscribeToEvent("TouchBegin", "HandleTouchBegin")
  SubscribeToEvent("TouchMove", "HandleTouchMove")
  SubscribeToEvent("TouchEnd", "HandleTouchEnd")
  SubscribeToEvent("Update", "HandleUpdate")
end

local function distance(ax, ay, bx, by)
  local dx, dy = ax - bx, ay - by
  return math.sqrt(dx * dx + dy * dy)
end

local function pinchDistance()
  local a, b = fingers_[pinch_.a], fingers_[pinch_.b]
  return distance(a.x, a.y, b.x, b.y)
end

function HandleTouchBegin(eventType, eventData)
  local id = eventData["TouchID"]:GetInt()
  local x, y = eventData["X"]:GetInt(), eventData["Y"]:GetInt()
  fingers_[id] = {x0 = x, y0 = y, x = x, y = y, t0 = now_, far = false}
  fingerCount_ = fingerCount_ + 1
  if fingerCount_ == 1 then
    single_ = id
    blocked_ = false
  elseif fingerCount_ == 2 and not blocked_ then
    -- the second finger: the one-finger gesture is off, a pinch begins
    local first = single_
    single_ = nil
    blocked_ = true
    if first ~= nil and fingers_[first] ~= nil then
      pinch_ = {a = first, b = id, zoom = camera_.zoom}
      pinch_.dist = pinchDistance()
      recognise("pinch")
    end
  else
    single_ = nil
    blocked_ = true
  end
  publish()
end

function HandleTouchMove(eventType, eventData)
  local id = eventData["TouchID"]:GetInt()
  local f = fingers_[id]
  if f == nil then return end
  f.x, f.y = eventData["X"]:GetInt(), eventData["Y"]:GetInt()
  if distance(f.x, f.y, f.x0, f.y0) > TAP_SLOP then f.far = true end
  if pinch_ ~= nil and (id == pinch_.a or id == pinch_.b) and pinch_.dist > 0 then
    local zoom = pinch_.zoom * pinchDistance() / pinch_.dist
    camera_.zoom = math.max(ZOOM_MIN, math.min(ZOOM_MAX, zoom))
  end
end

local function endSingle(f)
  local held = now_ - f.t0
  local dx, dy = f.x - f.x0, f.y - f.y0
  if held < TAP_TIME and not f.far then
    if lastTap_ ~= nil and f.t0 - lastTap_.t < DOUBLE_TIME
        and distance(f.x0, f.y0, lastTap_.x, lastTap_.y) <= DOUBLE_DIST then
      state_.Jumps = state_.Jumps + 1
      recognise("double_tap")
      lastTap_ = nil                  -- the next tap starts a new pair
    else
      state_.Shots = state_.Shots + 1
      recognise("tap")
      lastTap_ = {x = f.x0, y = f.y0, t = now_}
    end
  elseif held < SWIPE_TIME and math.sqrt(dx * dx + dy * dy) > SWIPE_DIST then
    if math.abs(dx) >= math.abs(dy) then
      if dx < 0 then
        state_.Lane = math.max(-1, state_.Lane - 1)
        recognise("swipe_left")
      else
        state_.Lane = math.min(1, state_.Lane + 1)
        recognise("swipe_right")
      end
    else
      recognise(dy < 0 and "swipe_up" or "swipe_down")
    end
  end
end

function HandleTouchEnd(eventType, eventData)
  local id = eventData["TouchID"]:GetInt()
  local f = fingers_[id]
  if f == nil then return end
  f.x, f.y = eventData["X"]:GetInt(), eventData["Y"]:GetInt()
  if distance(f.x, f.y, f.x0, f.y0) > TAP_SLOP then f.far = true end
  if single_ == id then
    if not f.longPressed then endSingle(f) end
    single_ = nil
  end
  if pinch_ ~= nil and (id == pinch_.a or id == pinch_.b) then pinch_ = nil end
  fingers_[id] = nil
  fingerCount_ = fingerCount_ - 1
  publish()
end

function HandleUpdate(eventType, eventData)
  now_ = now_ + eventData["TimeStep"]:GetFloat()
  local f = single_ and fingers_[single_]
  if f ~= nil and not f.far and not f.longPressed and now_ - f.t0 >= LONG_TIME then
    f.longPressed = true
    state_.Shield = not state_.Shield
    recognise("long_press")
    publish()
  end
end
