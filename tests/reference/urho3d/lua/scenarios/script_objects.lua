-- Script object lifecycle: Start, DelayedStart, Update, PostUpdate, Stop, their order across objects and
-- relative to the scene's update events, objects created and removed mid-run, and their own subscriptions.
local S = {frames = 8, record = 2}

Lifecycle = ScriptObject()

function Lifecycle:Start()
  Trace.mark("start " .. self.node.name)
  self.ticks = 0
  self:SubscribeToEvent("Poke", "Lifecycle:HandlePoke")
end

function Lifecycle:DelayedStart()
  Trace.mark("delayed start " .. self.node.name)
end

function Lifecycle:Update(timeStep)
  self.ticks = self.ticks + 1
  Trace.mark("update " .. self.node.name .. " " .. self.ticks)
  self.node:Translate(Vector3(0, timeStep, 0))
end

function Lifecycle:PostUpdate(timeStep)
  Trace.mark("post update " .. self.node.name)
end

function Lifecycle:Stop()
  Trace.mark("stop " .. self.node.name)
end

function Lifecycle:HandlePoke(eventType, eventData)
  Trace.mark("poked " .. self.node.name)
end

function S.Start()
  scene_ = Scene()
  SubscribeToEvent("SceneUpdate", "HandleSceneUpdate")
  scene_:CreateChild("First"):CreateScriptObject("Lifecycle")
  scene_:CreateChild("Second"):CreateScriptObject("Lifecycle")
  SubscribeToEvent("Update", "HandleUpdate")
  SubscribeToEvent("ScenePostUpdate", "HandleScenePostUpdate")
end

function HandleSceneUpdate(eventType, eventData)
  Trace.mark("scene update")
end

function HandleScenePostUpdate(eventType, eventData)
  Trace.mark("scene post update")
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  if f == 2 then
    scene_:CreateChild("Third"):CreateScriptObject("Lifecycle")
  elseif f == 3 then
    SendEvent("Poke", VariantMap())
  elseif f == 4 then
    scene_:GetChild("First", false):Remove()
  elseif f == 5 then
    scene_:GetChild("Second", false).enabled = false
  elseif f == 6 then
    scene_:GetChild("Second", false).enabled = true
    local obj = scene_:GetChild("Third", false):GetScriptObject()
    Trace.int("third ticks", obj.ticks)
  end
end

return S
