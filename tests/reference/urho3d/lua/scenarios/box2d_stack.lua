-- Mirrors the idea of Urho3D's sample 27_Physics2D (written here, not copied): boxes and balls dropped in a
-- column onto the ground, where they pile up.
local S = {domain = "physics2d", frames = 180, record = 10}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("PhysicsWorld2D")
  local ground = scene_:CreateChild("Ground")
  ground.position = Vector3(0, -3, 0)
  ground:CreateComponent("RigidBody2D").bodyType = BT_STATIC
  ground:CreateComponent("CollisionBox2D").size = Vector2(32, 0.5)
  for i = 0, 11 do
    local n = scene_:CreateChild("Piece" .. i)
    n.position = Vector3((i % 3) * 0.1 - 0.1, i * 0.8, 0)
    n:CreateComponent("RigidBody2D").bodyType = BT_DYNAMIC
    local s
    if i % 2 == 0 then
      s = n:CreateComponent("CollisionBox2D")
      s.size = Vector2(0.64, 0.64)
    else
      s = n:CreateComponent("CollisionCircle2D")
      s.radius = 0.32
    end
    s.density = 1
    s.friction = 0.5
    s.restitution = 0.1
  end
end

return S
