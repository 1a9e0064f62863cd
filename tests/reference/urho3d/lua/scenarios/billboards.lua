-- Mirrors what Urho3D's sample 07_Billboards does (written here, not copied): billboard sets whose nodes
-- rotate, with billboards placed at random, and spot lights that turn.
local S = {frames = 60, record = 20}

function S.Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  SetRandomSeed(7)
  for i = 1, 6 do
    local n = scene_:CreateChild("Smoke")
    n.position = Vector3(Random(40) - 20, Random(5) + 5, Random(40) - 20)
    local set = n:CreateComponent("BillboardSet")
    set.numBillboards = 8
    set.sorted = true
    for j = 0, 7 do
      local bb = set:GetBillboard(j)
      bb.position = Vector3(Random(6) - 3, Random(4) - 2, Random(6) - 3)
      bb.size = Vector2(Random(1) + 0.5, Random(1) + 0.5)
      bb.rotation = Random() * 360
      bb.enabled = true
    end
    set:Commit()
  end
  for i = 1, 3 do
    local light = scene_:CreateChild("SpotLight")
    light.position = Vector3(i * 5 - 10, 8, 0)
    light.rotation = Quaternion(60, i * 90, 0)
    light:CreateComponent("Light").lightType = LIGHT_SPOT
  end
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  local lights = scene_:GetChildrenWithComponent("Light", false)
  for i = 1, #lights do lights[i]:Rotate(Quaternion(0, 22.5 * dt, 0), TS_WORLD) end
  local sets = scene_:GetChildrenWithComponent("BillboardSet", false)
  for i = 1, #sets do
    local set = sets[i]:GetComponent("BillboardSet")
    for j = 0, set.numBillboards - 1 do
      local bb = set:GetBillboard(j)
      bb.rotation = bb.rotation + 20 * dt
    end
    set:Commit()
    if Trace.frame() % 20 == 0 then
      Trace.num("set " .. i .. " rotation 0", set:GetBillboard(0).rotation)
      Trace.vec3("set " .. i .. " position 3", set:GetBillboard(3).position)
    end
  end
end

return S
