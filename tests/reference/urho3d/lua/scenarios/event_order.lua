-- The order of a frame's events: the engine's frame events, two scenes' update sequences, and where a
-- scenario subscribed before or after creating a scene.
local S = {frames = 4}

function S.Start()
  SubscribeToEvent("Update", "OnEvent")
  scene_ = Scene()
  scene_.name = "First"
  local second = Scene()
  second.name = "Second"
  S.second = second
  local names = {"PostUpdate", "RenderUpdate", "PostRenderUpdate", "SceneUpdate", "SceneSubsystemUpdate",
    "UpdateSmoothing", "ScenePostUpdate", "BeginFrame", "EndFrame"}
  for i = 1, #names do SubscribeToEvent(names[i], "OnEvent") end
  SubscribeToEvent(scene_, "AttributeAnimationUpdate", "OnEvent")
end

function OnEvent(eventType, eventData)
end

return S
