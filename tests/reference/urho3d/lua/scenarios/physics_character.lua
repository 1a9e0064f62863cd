-- Mirrors the idea of Urho3D's sample 18_CharacterDemo (written here, not copied): an upright capsule body
-- moved by impulses from scripted key events, jumping when a downward ray finds ground, over a step.
local S = {domain = "physics", frames = 180, record = 10}

local KEY_W, KEY_D, KEY_SPACE = 119, 100, 32
S.input = {
  {frame = 10, event = "KeyDown", data = {Key = KEY_W, Scancode = 26, Buttons = 0, Qualifiers = 0, Repeat = false}},
  {frame = 70, event = "KeyDown", data = {Key = KEY_SPACE, Scancode = 44, Buttons = 0, Qualifiers = 0, Repeat = false}},
  {frame = 72, event = "KeyUp", data = {Key = KEY_SPACE, Scancode = 44, Buttons = 0, Qualifiers = 0}},
  {frame = 100, event = "KeyDown", data = {Key = KEY_D, Scancode = 7, Buttons = 0, Qualifiers = 0, Repeat = false}},
  {frame = 130, event = "KeyUp", data = {Key = KEY_W, Scancode = 26, Buttons = 0, Qualifiers = 0}},
  {frame = 150, event = "KeyUp", data = {Key = KEY_D, Scancode = 7, Buttons = 0, Qualifiers = 0}},
}

local held = {}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld")
  local floor = scene_:CreateChild("Floor")
  floor.position = Vector3(0, -0.5, 0)
  floor:CreateComponent("RigidBody")
  floor:CreateComponent("CollisionShape"):SetBox(Vector3(100, 1, 100))
  local step = scene_:CreateChild("Step")
  step.position = Vector3(0, 0.15, 6)
  step:CreateComponent("RigidBody")
  step:CreateComponent("CollisionShape"):SetBox(Vector3(6, 0.3, 2))
  local ch = scene_:CreateChild("Character")
  ch.position = Vector3(0, 1, 0)
  local b = ch:CreateComponent("RigidBody")
  b.mass = 1
  b.friction = 1
  b.angularFactor = Vector3(0, 0, 0)
  b.collisionEventMode = COLLISION_ALWAYS
  ch:CreateComponent("CollisionShape"):SetCapsule(0.7, 1.8, Vector3(0, 0.9, 0))
  SubscribeToEvent("KeyDown", "HandleKeyDown")
  SubscribeToEvent("KeyUp", "HandleKeyUp")
  SubscribeToEvent("PhysicsPreStep", "HandlePreStep")
end

function HandleKeyDown(eventType, eventData) held[eventData["Key"]:GetInt()] = true end
function HandleKeyUp(eventType, eventData) held[eventData["Key"]:GetInt()] = nil end

function HandlePreStep(eventType, eventData)
  local ch = scene_:GetChild("Character", false)
  local b = ch:GetComponent("RigidBody")
  local world = scene_:GetComponent("PhysicsWorld")
  local hit = world:RaycastSingle(Ray(ch.worldPosition + Vector3(0, 0.1, 0), Vector3(0, -1, 0)), 0.3)
  local grounded = hit.body ~= nil
  local move = Vector3(0, 0, 0)
  if held[KEY_W] then move = move + Vector3(0, 0, 1) end
  if held[KEY_D] then move = move + Vector3(1, 0, 0) end
  local v = b.linearVelocity
  local planar = Vector3(v.x, 0, v.z)
  if grounded then
    b:ApplyImpulse(move * 0.2)
    b:ApplyImpulse(planar * -0.1)
    if held[KEY_SPACE] then b:ApplyImpulse(Vector3(0, 5, 0)) end
  else
    b:ApplyImpulse(move * 0.02)
  end
  if Trace.frame() % 30 == 0 then Trace.bool("grounded", grounded) end
end

return S
