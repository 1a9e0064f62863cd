-- Time as the engine reports it (frame number, time step) and a scene's own clock under SetTimeScale and
-- SetUpdateEnabled, against what its SceneUpdate events carry.  (time:GetElapsedTime() is wall-clock time in
-- Urho3D, so it is not traced: docs/fidelity.md.)
local S = {frames = 60, record = 15}

function S.Start()
  scene_ = Scene()
  local other = Scene()
  other.name = "Other"
  S.other = other
  scene_:CreateChild("Mover")
  SubscribeToEvent("SceneUpdate", "HandleSceneUpdate")
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleSceneUpdate(eventType, eventData)
  local sc = eventData["Scene"]:GetPtr("Scene")
  if sc == scene_ then
    scene_:GetChild("Mover", false):Translate(Vector3(1, 0, 0) * eventData["TimeStep"]:GetFloat())
  end
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  if f == 10 then scene_.timeScale = 0.5 end
  if f == 20 then scene_.updateEnabled = false end
  if f == 30 then scene_.updateEnabled = true end
  if f == 40 then scene_.timeScale = 2 end
  if f == 50 then scene_.elapsedTime = 100 end
  if f % 5 == 0 then
    Trace.int("frame number", time:GetFrameNumber())
    Trace.num("time step", time:GetTimeStep())
    Trace.num("scene elapsed", scene_.elapsedTime)
    Trace.num("other elapsed", S.other.elapsedTime)
    Trace.num("time scale", scene_.timeScale)
  end
end

return S
