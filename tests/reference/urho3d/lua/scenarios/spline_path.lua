-- SplinePath moving nodes through control points at a constant speed (Bezier, the default interpolation; setting
-- another interpolation mode crashes Urho3D's Lua binding at this commit, so this scenario does not).
local S = {domain = "animation", frames = 120, record = 10}

function S.Start()
  scene_ = Scene()
  local points = {Vector3(0, 0, 0), Vector3(5, 0, 2), Vector3(5, 3, 8), Vector3(-2, 1, 10), Vector3(-4, 0, 0)}
  local paths = {{"Slow", 2}, {"Fast", 5}}
  for p = 1, #paths do
    local holder = scene_:CreateChild(paths[p][1])
    local path = holder:CreateComponent("SplinePath")
    for i = 1, #points do
      local cp = holder:CreateChild("Point" .. i)
      cp.position = points[i]
      path:AddControlPoint(cp, i - 1)
    end
    path.speed = paths[p][2]
    local mover = scene_:CreateChild(paths[p][1] .. "Mover")
    path.controlledNode = mover
    Trace.num(paths[p][1] .. " length", path.length)
    Trace.vec3(paths[p][1] .. " point 0.3", path:GetPoint(0.3))
  end
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  for _, name in ipairs({"Slow", "Fast"}) do
    local path = scene_:GetChild(name, false):GetComponent("SplinePath")
    path:Move(dt)
    if Trace.frame() % 20 == 0 then Trace.bool(name .. " finished", path:IsFinished()) end
  end
end

return S
