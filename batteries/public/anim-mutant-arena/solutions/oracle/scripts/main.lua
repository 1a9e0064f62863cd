-- Oracle: the Mutant in an arena.  Layer 0 is a locomotion state machine (idle, walk, run, jump) whose
-- transitions cross-fade for as long as the pair of states says; layer 1 is an upper-body throw whose trigger
-- releases a rock from the right hand.  Rocks that hit the gong open the gate with attribute animations, and a
-- platform rides a SplinePath around four waypoints, pausing at the first one each lap.

----------------------------------------------------------------------------------------------------
-- tuning, all from the task
----------------------------------------------------------------------------------------------------
local WALK_SPEED, RUN_SPEED = 2.0, 5.0
local JUMP_SPEED, GRAVITY = 6.0, 15.0

local ANIM = {
  idle = "Models/Mutant/Mutant_Idle0.ani",
  walk = "Models/Mutant/Mutant_Walk.ani",
  run = "Models/Mutant/Mutant_Run.ani",
  jump = "Models/Mutant/Mutant_Jump1.ani",
}
local JUMP_ANIM_SPEED = 2.5
local GROUND_FADE, INTO_JUMP_FADE, OUT_OF_JUMP_FADE = 0.25, 0.1, 0.2

local THROW = "Models/Mutant/Layer/Mutant_Throw_LY.ani"
local THROW_LAYER, THROW_START_BONE = 1, "Mutant:Spine"
local THROW_FADE_IN, THROW_FADE_OUT = 0.1, 0.2
local RELEASE_TIME, RELEASE_TAG = 0.25, "release"
local HAND_BONE = "Mutant:RightHand"

local ROCK_SPEED, ROCK_LIFE, ROCK_SCALE = 12.0, 1.5, 0.3
local GONG_POSITION = Vector3(0, 2, 14)
local HIT_RADIUS = 1.0

local GATE_POSITION = Vector3(5, 0, 14)
local GATE_SWING, GATE_HOLD = 1.5, 7.5          -- seconds to swing; seconds from a hit until it closes
local GATE_CLOSED, GATE_OPEN = Quaternion(0, Vector3.UP), Quaternion(90, Vector3.UP)

local WAYPOINTS = {Vector3(-6, 0.25, 4), Vector3(-6, 0.25, 10), Vector3(-12, 0.25, 10), Vector3(-12, 0.25, 4)}
local PLATFORM_SPEED, PLATFORM_WAIT = 3.0, 2.0

local CAMERA_POSITION, CAMERA_TARGET = Vector3(0, 18, -14), Vector3(0, 0, 6)

----------------------------------------------------------------------------------------------------
-- state
----------------------------------------------------------------------------------------------------
local scene_, hero_, controller_, hand_
local gong_, gate_, platform_, path_

local state_ = nil                -- "idle" | "walk" | "run" | "jump"
local airborne_ = false
local vertical_speed_ = 0.0
local air_velocity_ = Vector3(0, 0, 0)

local throwing_ = false           -- from the press until the throw reaches its end
local rocks_ = {}                 -- {node, direction, age}

local gate_phase_ = "closed"      -- "closed" | "opening" | "open" | "closing"
local gate_clock_ = 0.0           -- seconds since the current swing began
local gate_close_in_ = 0.0        -- seconds until the gate starts closing (while opening or open)

local platform_waiting_ = PLATFORM_WAIT

----------------------------------------------------------------------------------------------------
-- building the arena
----------------------------------------------------------------------------------------------------
local function model_node(parent, name, model, material, position, scale)
  local node = parent:CreateChild(name)
  node.position = position
  node.scale = scale or Vector3(1, 1, 1)
  local sm = node:CreateComponent("StaticModel")
  sm.model = cache:GetResource("Model", model)
  sm.material = cache:GetResource("Material", material)
  sm.castShadows = true
  return node
end

-- A linear swing of the gate's Rotation attribute from one quaternion to another.
local function swing(from, to)
  local anim = ValueAnimation:new()
  anim.interpolationMethod = IM_LINEAR
  anim:SetKeyFrame(0.0, Variant(from))
  anim:SetKeyFrame(GATE_SWING, Variant(to))
  return anim
end
local OPENING, CLOSING = swing(GATE_CLOSED, GATE_OPEN), swing(GATE_OPEN, GATE_CLOSED)

local function build_environment()
  local zone = scene_:CreateComponent("Zone")
  zone.boundingBox = BoundingBox(-100, 100)
  zone.ambientColor = Color(0.3, 0.3, 0.35)

  local sun = scene_:CreateChild("Sun")
  sun.direction = Vector3(0.4, -1.0, 0.6)
  local light = sun:CreateComponent("Light")
  light.lightType = LIGHT_DIRECTIONAL
  light.castShadows = true

  model_node(scene_, "Floor", "Models/Plane.mdl", "Materials/StoneTiled.xml", Vector3(0, 0, 4), Vector3(60, 1, 60))

  local camera_node = scene_:CreateChild("Camera")
  camera_node.position = CAMERA_POSITION
  camera_node:LookAt(CAMERA_TARGET)
  local camera = camera_node:CreateComponent("Camera")
  camera.farClip = 300
  renderer:SetViewport(0, Viewport:new(scene_, camera))
end

local function build_hero()
  hero_ = scene_:CreateChild("Hero")
  hero_.position = Vector3(0, 0, 0)
  -- The Mutant faces -Z in its file: turned round on a child node, it faces the Hero's +Z.
  local body = hero_:CreateChild("HeroModel")
  body.rotation = Quaternion(180, Vector3.UP)
  local model = body:CreateComponent("AnimatedModel")
  model.model = cache:GetResource("Model", "Models/Mutant/Mutant.mdl")
  model.material = cache:GetResource("Material", "Models/Mutant/Materials/mutant_M.xml")
  model.castShadows = true
  controller_ = body:CreateComponent("AnimationController")
  hand_ = body:GetChild(HAND_BONE, true)

  -- The release is a trigger of the throw animation: AnimationTrigger arrives in the frame its time passes it.
  local throw = cache:GetResource("Animation", THROW)
  throw:RemoveAllTriggers()
  throw:AddTrigger(RELEASE_TIME, false, Variant(RELEASE_TAG))
  SubscribeToEvent(body, "AnimationTrigger", "HandleAnimationTrigger")
end

local function build_gong_and_gate()
  gong_ = model_node(scene_, "Gong", "Models/Cylinder.mdl", "Materials/DefaultGrey.xml", GONG_POSITION,
    Vector3(2.0, 0.2, 2.0))
  gong_.rotation = Quaternion(90, Vector3.RIGHT)
  gong_:SetVar("Hits", Variant(0))

  gate_ = scene_:CreateChild("Gate")
  gate_.position = GATE_POSITION
  gate_.rotation = GATE_CLOSED
  model_node(gate_, "GatePanel", "Models/Box.mdl", "Materials/Stone.xml", Vector3(2, 1.5, 0), Vector3(4, 3, 0.3))
end

local function build_platform()
  local path_node = scene_:CreateChild("PlatformPath")
  path_ = path_node:CreateComponent("SplinePath")
  path_.interpolationMode = LINEAR_CURVE
  path_.speed = PLATFORM_SPEED
  local points = {}
  for i, p in ipairs(WAYPOINTS) do
    points[i] = scene_:CreateChild("Waypoint_" .. i)
    points[i].position = p
  end
  for _, i in ipairs({1, 2, 3, 4, 1}) do path_:AddControlPoint(points[i]) end

  platform_ = model_node(scene_, "Platform", "Models/Box.mdl", "Materials/Stone.xml", WAYPOINTS[1],
    Vector3(2, 0.5, 2))
  path_.controlledNode = platform_
end

----------------------------------------------------------------------------------------------------
-- layer 0: the locomotion state machine
----------------------------------------------------------------------------------------------------
-- How long the cross-fade from one state to another takes.
local function fade_time(from, to)
  if from == nil then return 0.0 end
  if to == "jump" then return INTO_JUMP_FADE end
  if from == "jump" then return OUT_OF_JUMP_FADE end
  return GROUND_FADE
end

local function enter(state)
  if state == state_ then return end
  local name = ANIM[state]
  local fade = fade_time(state_, state)
  state_ = state
  controller_:PlayExclusive(name, 0, state ~= "jump", fade)
  -- a state entered again soon after it was left finds its animation still fading out: play it from the start
  controller_:SetTime(name, 0.0)
  controller_:SetSpeed(name, state == "jump" and JUMP_ANIM_SPEED or 1.0)
end

local function held(a, b) return input:GetKeyDown(a) or input:GetKeyDown(b) end

-- The direction the movement keys ask for (unit length, or zero).
local function wanted_direction()
  local move = Vector3(0, 0, 0)
  if held(KEY_W, KEY_UP) then move = move + Vector3(0, 0, 1) end
  if held(KEY_S, KEY_DOWN) then move = move + Vector3(0, 0, -1) end
  if held(KEY_D, KEY_RIGHT) then move = move + Vector3(1, 0, 0) end
  if held(KEY_A, KEY_LEFT) then move = move + Vector3(-1, 0, 0) end
  if move:LengthSquared() > 0 then move:Normalize() end
  return move
end

local function ground_velocity()
  local move = wanted_direction()
  if move:LengthSquared() == 0 then return move, "idle" end
  local running = input:GetQualifierDown(QUAL_SHIFT)
  return move * (running and RUN_SPEED or WALK_SPEED), running and "run" or "walk"
end

local function jump()
  local velocity = ground_velocity()
  airborne_ = true
  vertical_speed_ = JUMP_SPEED
  air_velocity_ = velocity
  if velocity:LengthSquared() > 0 then hero_.direction = velocity:Normalized() end
  enter("jump")
end

local function update_hero(dt)
  if airborne_ then
    local p = hero_.position + air_velocity_ * dt
    vertical_speed_ = vertical_speed_ - GRAVITY * dt
    p.y = p.y + vertical_speed_ * dt
    if p.y <= 0 then
      p.y = 0
      airborne_ = false
    end
    hero_.position = p
    if airborne_ then return end
  end
  local velocity, state = ground_velocity()
  if velocity:LengthSquared() > 0 then
    hero_.position = hero_.position + velocity * dt
    hero_.direction = velocity:Normalized()
  end
  enter(state)
end

----------------------------------------------------------------------------------------------------
-- layer 1: the throw, and the rocks it releases
----------------------------------------------------------------------------------------------------
local function throw()
  if throwing_ then return end
  throwing_ = true
  controller_:Play(THROW, THROW_LAYER, false, THROW_FADE_IN)
  controller_:SetTime(THROW, 0.0)          -- the last throw may still be fading out at its end
  controller_:SetStartBone(THROW, THROW_START_BONE)
  controller_:SetSpeed(THROW, 1.0)
  controller_:SetAutoFade(THROW, THROW_FADE_OUT)
end

local function update_throw()
  if throwing_ and (not controller_:IsPlaying(THROW) or controller_:IsAtEnd(THROW)) then throwing_ = false end
end

local function release_rock()
  local rock = model_node(scene_, "Rock", "Models/Sphere.mdl", "Materials/Stone.xml", hand_.worldPosition,
    Vector3(ROCK_SCALE, ROCK_SCALE, ROCK_SCALE))
  local facing = hero_:GetDirection()
  local dir = Vector3(facing.x, 0, facing.z):Normalized()
  rocks_[#rocks_ + 1] = {node = rock, direction = dir, age = 0.0}
end

local on_gong_hit                 -- defined with the gate

local function horizontal_distance(a, b)
  local dx, dz = a.x - b.x, a.z - b.z
  return math.sqrt(dx * dx + dz * dz)
end

local function update_rocks(dt)
  local kept = {}
  for _, rock in ipairs(rocks_) do
    rock.age = rock.age + dt
    rock.node.position = rock.node.position + rock.direction * (ROCK_SPEED * dt)
    if horizontal_distance(rock.node.worldPosition, gong_.worldPosition) <= HIT_RADIUS then
      rock.node:Remove()
      on_gong_hit()
    elseif rock.age >= ROCK_LIFE then
      rock.node:Remove()
    else
      kept[#kept + 1] = rock
    end
  end
  rocks_ = kept
end

----------------------------------------------------------------------------------------------------
-- the gong and the gate
----------------------------------------------------------------------------------------------------
local function set_gate(phase, animation)
  gate_phase_ = phase
  gate_clock_ = 0.0
  if animation then gate_:SetAttributeAnimation("Rotation", animation, WM_ONCE, 1.0) end
end

on_gong_hit = function()
  gong_:SetVar("Hits", Variant(gong_:GetVar("Hits"):GetInt() + 1))
  if gate_phase_ == "closing" then return end
  if gate_phase_ == "closed" then set_gate("opening", OPENING) end
  gate_close_in_ = GATE_HOLD
end

local function update_gate(dt)
  if gate_phase_ == "closed" then return end
  gate_clock_ = gate_clock_ + dt
  if gate_phase_ == "closing" then
    if gate_clock_ >= GATE_SWING then
      gate_phase_ = "closed"
      gate_.rotation = GATE_CLOSED
    end
    return
  end
  if gate_phase_ == "opening" and gate_clock_ >= GATE_SWING then gate_phase_ = "open" end
  gate_close_in_ = gate_close_in_ - dt
  if gate_close_in_ <= 0 then set_gate("closing", CLOSING) end
end

----------------------------------------------------------------------------------------------------
-- the platform
----------------------------------------------------------------------------------------------------
local function update_platform(dt)
  if platform_waiting_ > 0 then
    platform_waiting_ = platform_waiting_ - dt
    if platform_waiting_ > 0 then return end
    dt = -platform_waiting_                -- the part of the step left after the wait
    platform_waiting_ = 0
    path_:Reset()
  end
  path_:Move(dt)
  if path_:IsFinished() then platform_waiting_ = PLATFORM_WAIT end
end

----------------------------------------------------------------------------------------------------
-- the game
----------------------------------------------------------------------------------------------------
function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  build_environment()
  build_hero()
  build_gong_and_gate()
  build_platform()
  enter("idle")

  SubscribeToEvent("KeyDown", "HandleKeyDown")
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleKeyDown(eventType, eventData)
  if eventData["Repeat"]:GetBool() then return end
  local key = eventData["Key"]:GetInt()
  if key == KEY_SPACE and not airborne_ then
    jump()
  elseif key == KEY_F then
    throw()
  end
end

function HandleAnimationTrigger(eventType, eventData)
  local data = eventData["Data"]
  if data and data:GetString() == RELEASE_TAG then release_rock() end
end

function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  update_hero(dt)
  update_throw()
  update_rocks(dt)
  update_gate(dt)
  update_platform(dt)
end
