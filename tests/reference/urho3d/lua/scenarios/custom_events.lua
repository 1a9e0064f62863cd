-- Custom events: data of each Variant type, events sent from handlers (nested), sender-specific handlers
-- before general ones, and unsubscribing while an event is being handled.
local S = {frames = 6, record = 6}

S.event_fields = {
  Ping = {{"Count", "i"}, {"Scale", "f"}, {"Label", "s"}, {"Flag", "b"}, {"Where", "v3"}},
  Pong = {{"Depth", "i"}},
  NodeSaid = {{"What", "s"}},
}

function S.Start()
  scene_ = Scene()
  local speaker = scene_:CreateChild("Speaker")
  S.speaker = speaker
  SubscribeToEvent("Ping", "HandlePing")
  SubscribeToEvent("Pong", "HandlePong")
  SubscribeToEvent("NodeSaid", "HandleAnySaid")
  SubscribeToEvent(speaker, "NodeSaid", "HandleSpeakerSaid")
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  local data = VariantMap()
  data["Count"] = f
  data["Scale"] = f * 0.25
  data["Label"] = "frame " .. f
  data["Flag"] = f % 2 == 0
  data["Where"] = Vector3(f, -f, 0.5)
  SendEvent("Ping", data)
  local said = VariantMap()
  said["What"] = "hello " .. f
  S.speaker:SendEvent("NodeSaid", said)
  SendEvent("NodeSaid", said)
  if f == 3 then UnsubscribeFromEvent("Pong") end
  if f == 5 then SubscribeToEvent("Pong", "HandlePong") end
end

function HandlePing(eventType, eventData)
  Trace.int("ping count", eventData["Count"]:GetInt())
  Trace.num("ping scale", eventData["Scale"]:GetFloat())
  Trace.str("ping label", eventData["Label"]:GetString())
  Trace.bool("ping flag", eventData["Flag"]:GetBool())
  Trace.vec3("ping where", eventData["Where"]:GetVector3())
  local pong = VariantMap()
  pong["Depth"] = 1
  SendEvent("Pong", pong)
  Trace.mark("after pong")
end

function HandlePong(eventType, eventData)
  local depth = eventData["Depth"]:GetInt()
  if depth < 3 then
    local pong = VariantMap()
    pong["Depth"] = depth + 1
    SendEvent("Pong", pong)
  end
  if depth == 2 and Trace.frame() == 2 then UnsubscribeFromEvent("Ping") end
  if depth == 2 and Trace.frame() == 2 then SubscribeToEvent("Ping", "HandlePing") end
end

function HandleAnySaid(eventType, eventData)
  Trace.mark("any said " .. eventData["What"]:GetString())
end

function HandleSpeakerSaid(eventType, eventData)
  Trace.mark("speaker said " .. eventData["What"]:GetString())
end

return S
