-- Box2D joints: a revolute pendulum with limits and a motorised wheel, a distance joint with a spring, a weld,
-- and a rope (what sample 32_Physics2DConstraints shows, written here).
local S = {domain = "physics2d", frames = 180, record = 10}

local function body(name, x, y, kind, w, h)
  local n = scene_:CreateChild(name)
  n.position = Vector3(x, y, 0)
  local b = n:CreateComponent("RigidBody2D")
  b.bodyType = kind
  local s = n:CreateComponent("CollisionBox2D")
  s.size = Vector2(w, h)
  s.density = 1
  return n, b
end

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld2D")
  local _, anchor = body("Anchor", 0, 5, BT_STATIC, 0.5, 0.5)
  local arm = body("Arm", 2, 5, BT_DYNAMIC, 3, 0.2)
  local rev = arm:CreateComponent("ConstraintRevolute2D")
  rev.otherBody = anchor
  rev.anchor = Vector2(0, 5)
  rev.enableLimit = true
  rev.lowerAngle = -60
  rev.upperAngle = 60
  local _, hub = body("Hub", 5, 2, BT_STATIC, 0.2, 0.2)
  local wheel = body("Wheel", 5, 2, BT_DYNAMIC, 1, 1)
  local motor = wheel:CreateComponent("ConstraintRevolute2D")
  motor.otherBody = hub
  motor.anchor = Vector2(5, 2)
  motor.enableMotor = true
  motor.motorSpeed = 90
  motor.maxMotorTorque = 100
  local _, top = body("SpringTop", -4, 5, BT_STATIC, 0.3, 0.3)
  local bob = body("SpringBob", -4, 3, BT_DYNAMIC, 0.5, 0.5)
  local spring = bob:CreateComponent("ConstraintDistance2D")
  spring.otherBody = top
  spring.ownerBodyAnchor = Vector2(-4, 3)
  spring.otherBodyAnchor = Vector2(-4, 5)
  spring.frequencyHz = 2
  spring.dampingRatio = 0.2
  local _, base = body("WeldBase", -8, 1, BT_DYNAMIC, 1, 0.3)
  local welded = body("Welded", -8, 1.6, BT_DYNAMIC, 0.3, 1)
  local weld = welded:CreateComponent("ConstraintWeld2D")
  weld.otherBody = base
  weld.anchor = Vector2(-8, 1.15)
  local ground = body("Ground", 0, -2, BT_STATIC, 30, 0.5)
  local _, ropeTop = body("RopeTop", 8, 5, BT_STATIC, 0.2, 0.2)
  local swing = body("Swing", 9.5, 5, BT_DYNAMIC, 0.4, 0.4)
  local rope = swing:CreateComponent("ConstraintRope2D")
  rope.otherBody = ropeTop
  rope.ownerBodyAnchor = Vector2(0, 0)
  rope.otherBodyAnchor = Vector2(0, 0)
  rope.maxLength = 2
end

return S
