-- What Urho3D's Lua binding (tolua++) accepts at this commit, probed with pcall: the unary minus on math
-- values, and which overload a number picks where a string overload exists (Scene:GetComponent(id)).
local S = {frames = 1}

function S.Start()
  scene_ = Scene()
  local model = scene_:CreateChild("A"):CreateComponent("StaticModel")
  Trace.bool("unary minus on Vector3", (pcall(function() return -Vector3(1, 2, 3) end)))
  Trace.bool("unary minus on Vector2", (pcall(function() return -Vector2(1, 2) end)))
  Trace.bool("unary minus on Quaternion", (pcall(function() return -Quaternion(1, 0, 0, 0) end)))
  Trace.component("scene GetComponent by id", scene_:GetComponent(model.ID))
  Trace.node("scene GetNode by id", scene_:GetNode(2))
end

return S
