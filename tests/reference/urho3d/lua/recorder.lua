-- The reference recorder: runs one scenario and writes its trace, one JSON object per line.
--
-- The same file runs in Urho3D (Lua 5.1, headless, started by record.py) and in the grader's engine (Lua 5.4,
-- started by engine/_differential.py), so it keeps to the Lua both accept: no integer division, no bit
-- operators, no goto, no reliance on integer/float subtypes (every number is written through string.format).
--
-- Configuration: the global RECORDER_CONFIG = {scenario = "name", trace = "path", exit = true}.  The grader's
-- engine sets it before Start; in Urho3D, record.py's entry script sets it and then requires this file (the
-- player cannot pass it: GetArguments() crashes Urho3D's Lua binding at this commit).
--
-- A scenario is a module `scenarios/<name>.lua` returning a table:
--   Start()        builds the scene (global scene_ is the one recorded) and subscribes to events
--   frames         how many frames to run after Start (default 60)
--   record         which frames get a node snapshot: nil = every frame, a number k = every k-th frame (and the
--                  last), or a list of frame numbers; frame 0 is the state right after Start
--   input          scheduled input: {{frame = n, event = "KeyDown", data = {Key = 119, ...}}, ...}, sent with
--                  SendEvent at the start of frame n (in BeginFrame, where Urho3D's Input sends real input)
--   event_fields   fields to record for the scenario's own events: {MyEvent = {{"Value", "f"}, ...}}
--   components     extra component type names to look for (see COMPONENT_TYPES)
--   domain         which tolerances apply: "math" (default), "physics", "physics2d", "ui", "animation"
--
-- What a trace holds (docs/fidelity.md has the format): a header line, then one line per frame with the events
-- the scenario's handlers received in the order they ran (with their data), the values it traced with Trace.*,
-- and on recorded frames every node of scene_ in depth-first order: id, name, parent id, enabled, world
-- position, world rotation (w, x, y, z), world scale, and its components (type names by component id).
-- Floats are written with six decimals (%.6f, trailing zeros dropped, -0 as 0).

local RECORDER_VERSION = "1"
local STEP = 1 / 60

local sformat, floor, tinsert, tconcat, tsort = string.format, math.floor, table.insert, table.concat, table.sort
local G = _G

----------------------------------------------------------------------------------------------------------------
-- JSON text
----------------------------------------------------------------------------------------------------------------
local function num(x)
  if x == nil then return "null" end
  if x ~= x then return '"nan"' end
  if x == math.huge then return '"inf"' end
  if x == -math.huge then return '"-inf"' end
  local s = sformat("%.6f", x)
  s = (string.gsub(s, "0+$", ""))
  s = (string.gsub(s, "%.$", ""))
  if s == "-0" then s = "0" end
  return s
end

local function int(x)
  if x == nil then return "null" end
  return sformat("%d", floor(x + 0.5))
end

local function str(s)
  if s == nil then return "null" end
  s = tostring(s)
  s = (string.gsub(s, '[%c"\\]', function(c) return sformat("\\u%04x", string.byte(c)) end))
  return '"' .. s .. '"'
end

local function bool(b) if b then return "true" end return "false" end

local function vec(...)
  local parts = {}
  local n = select("#", ...)
  for i = 1, n do parts[i] = num((select(i, ...))) end
  return "[" .. tconcat(parts, ",") .. "]"
end

local function node_ref(n)
  if n == nil then return "null" end
  return str(n:GetName() .. "#" .. int(n:GetID()))
end

local function component_ref(c)
  if c == nil then return "null" end
  local n = c:GetNode()
  local owner = "-"
  if n ~= nil then owner = n:GetName() .. "#" .. int(n:GetID()) end
  return str(c:GetTypeName() .. "@" .. owner)
end

----------------------------------------------------------------------------------------------------------------
-- configuration
----------------------------------------------------------------------------------------------------------------
local cfg = rawget(G, "RECORDER_CONFIG") or {}

----------------------------------------------------------------------------------------------------------------
-- the trace being written
----------------------------------------------------------------------------------------------------------------
local lines = {}
local frame = 0
local frame_events, frame_values = {}, {}
G.RECORDER_LINES = lines

-- Values a scenario traces (math results, queries).  Each is [name, value]; kinds fix how a value is written.
local Trace = {}
local function put(name, text) frame_values[#frame_values + 1] = "[" .. str(name) .. "," .. text .. "]" end
function Trace.num(name, x) put(name, num(x)) end
function Trace.int(name, x) put(name, int(x)) end
function Trace.bool(name, b) put(name, bool(b)) end
function Trace.str(name, s) put(name, str(s)) end
function Trace.vec2(name, v) if v == nil then put(name, "null") else put(name, vec(v.x, v.y)) end end
function Trace.vec3(name, v) if v == nil then put(name, "null") else put(name, vec(v.x, v.y, v.z)) end end
function Trace.vec4(name, v) if v == nil then put(name, "null") else put(name, vec(v.x, v.y, v.z, v.w)) end end
function Trace.ivec2(name, v) if v == nil then put(name, "null") else put(name, "[" .. int(v.x) .. "," .. int(v.y) .. "]") end end
function Trace.quat(name, q) if q == nil then put(name, "null") else put(name, vec(q.w, q.x, q.y, q.z)) end end
function Trace.color(name, c) if c == nil then put(name, "null") else put(name, vec(c.r, c.g, c.b, c.a)) end end
function Trace.node(name, n) put(name, node_ref(n)) end
function Trace.component(name, c) put(name, component_ref(c)) end
function Trace.nums(name, list)
  local parts = {}
  for i = 1, #list do parts[i] = num(list[i]) end
  put(name, "[" .. tconcat(parts, ",") .. "]")
end
function Trace.mat34(name, m)
  put(name, vec(m.m00, m.m01, m.m02, m.m03, m.m10, m.m11, m.m12, m.m13, m.m20, m.m21, m.m22, m.m23))
end
-- A mark in the event sequence (for ordering inside a frame): ["mark", {"text": ...}].
function Trace.mark(text) frame_events[#frame_events + 1] = '["mark",{"text":' .. str(text) .. '}]' end
function Trace.frame() return frame end
G.Trace = Trace

----------------------------------------------------------------------------------------------------------------
-- event data: the fields recorded for each event a scenario handles ("f" float, "i" int, "b" bool, "s" string,
-- "n" node pointer, "c" component pointer, "v3" Vector3, "e" UI element pointer)
----------------------------------------------------------------------------------------------------------------
local TIMESTEP = {{"TimeStep", "f"}}
local SCENE_STEP = {{"Scene", "n"}, {"TimeStep", "f"}}
local PHYS_COLLISION = {{"NodeA", "n"}, {"NodeB", "n"}, {"BodyA", "c"}, {"BodyB", "c"}, {"Trigger", "b"}}
local NODE_COLLISION = {{"Body", "c"}, {"OtherNode", "n"}, {"OtherBody", "c"}, {"Trigger", "b"}}
local CONTACT2D = {{"NodeA", "n"}, {"NodeB", "n"}, {"BodyA", "c"}, {"BodyB", "c"}, {"ShapeA", "c"}, {"ShapeB", "c"}}
local NODE_CONTACT2D = {{"Body", "c"}, {"OtherNode", "n"}, {"OtherBody", "c"}, {"Shape", "c"}, {"OtherShape", "c"}}
local EVENT_FIELDS = {
  BeginFrame = {{"FrameNumber", "i"}, {"TimeStep", "f"}},
  EndFrame = {},
  Update = TIMESTEP, PostUpdate = TIMESTEP, RenderUpdate = TIMESTEP, PostRenderUpdate = TIMESTEP,
  SceneUpdate = SCENE_STEP, SceneSubsystemUpdate = SCENE_STEP, ScenePostUpdate = SCENE_STEP,
  AttributeAnimationUpdate = SCENE_STEP,
  UpdateSmoothing = {{"Constant", "f"}, {"SquaredSnapThreshold", "f"}},
  PhysicsPreStep = TIMESTEP, PhysicsPostStep = TIMESTEP,
  PhysicsCollisionStart = PHYS_COLLISION, PhysicsCollision = PHYS_COLLISION, PhysicsCollisionEnd = PHYS_COLLISION,
  NodeCollisionStart = NODE_COLLISION, NodeCollision = NODE_COLLISION, NodeCollisionEnd = NODE_COLLISION,
  PhysicsUpdateContact2D = CONTACT2D, PhysicsBeginContact2D = CONTACT2D, PhysicsEndContact2D = CONTACT2D,
  NodeUpdateContact2D = NODE_CONTACT2D, NodeBeginContact2D = NODE_CONTACT2D, NodeEndContact2D = NODE_CONTACT2D,
  PhysicsPreStep2D = TIMESTEP, PhysicsPostStep2D = TIMESTEP,
  NodeAdded = {{"Scene", "n"}, {"Parent", "n"}, {"Node", "n"}},
  NodeRemoved = {{"Scene", "n"}, {"Parent", "n"}, {"Node", "n"}},
  ComponentAdded = {{"Scene", "n"}, {"Node", "n"}, {"Component", "c"}},
  ComponentRemoved = {{"Scene", "n"}, {"Node", "n"}, {"Component", "c"}},
  NodeNameChanged = {{"Scene", "n"}, {"Node", "n"}},
  NodeEnabledChanged = {{"Scene", "n"}, {"Node", "n"}},
  ComponentEnabledChanged = {{"Scene", "n"}, {"Node", "n"}, {"Component", "c"}},
  NodeTagAdded = {{"Scene", "n"}, {"Node", "n"}, {"Tag", "s"}},
  NodeTagRemoved = {{"Scene", "n"}, {"Node", "n"}, {"Tag", "s"}},
  KeyDown = {{"Key", "i"}, {"Scancode", "i"}, {"Buttons", "i"}, {"Qualifiers", "i"}, {"Repeat", "b"}},
  KeyUp = {{"Key", "i"}, {"Scancode", "i"}, {"Buttons", "i"}, {"Qualifiers", "i"}},
  TextInput = {{"Text", "s"}},
  MouseButtonDown = {{"Button", "i"}, {"Buttons", "i"}, {"Qualifiers", "i"}, {"Clicks", "i"}},
  MouseButtonUp = {{"Button", "i"}, {"Buttons", "i"}, {"Qualifiers", "i"}},
  MouseMove = {{"X", "i"}, {"Y", "i"}, {"DX", "i"}, {"DY", "i"}, {"Buttons", "i"}, {"Qualifiers", "i"}},
  MouseWheel = {{"Wheel", "i"}, {"Buttons", "i"}, {"Qualifiers", "i"}},
  TouchBegin = {{"TouchID", "i"}, {"X", "i"}, {"Y", "i"}, {"Pressure", "f"}},
  TouchEnd = {{"TouchID", "i"}, {"X", "i"}, {"Y", "i"}},
  TouchMove = {{"TouchID", "i"}, {"X", "i"}, {"Y", "i"}, {"DX", "i"}, {"DY", "i"}, {"Pressure", "f"}},
  AnimationTrigger = {{"Node", "n"}, {"Name", "s"}, {"Time", "f"}},
  AnimationFinished = {{"Node", "n"}, {"Name", "s"}, {"Looped", "b"}},
  Released = {{"Element", "e"}}, Pressed = {{"Element", "e"}}, Toggled = {{"Element", "e"}, {"State", "b"}},
  SliderChanged = {{"Element", "e"}, {"Value", "f"}},
}

local function field_text(data, name, kind)
  local v = data[name]
  if v == nil then return "null" end
  if kind == "f" then return num(v:GetFloat()) end
  if kind == "i" then return int(v:GetInt()) end
  if kind == "b" then return bool(v:GetBool()) end
  if kind == "s" then return str(v:GetString()) end
  if kind == "v3" then local p = v:GetVector3(); return vec(p.x, p.y, p.z) end
  if kind == "n" then return node_ref(v:GetPtr("Node")) end
  if kind == "c" then return component_ref(v:GetPtr("Component")) end
  if kind == "e" then
    local e = v:GetPtr("UIElement")
    if e == nil then return "null" end
    return str(e:GetName())
  end
  return "null"
end

local scenario_fields = {}
local function record_event(name, data)
  local fields = scenario_fields[name] or EVENT_FIELDS[name] or {}
  local parts = {}
  for i = 1, #fields do
    local f = fields[i]
    parts[i] = str(f[1]) .. ":" .. field_text(data, f[1], f[2])
  end
  frame_events[#frame_events + 1] = "[" .. str(name) .. ",{" .. tconcat(parts, ",") .. "}]"
end

local function record_error(where, err)
  frame_events[#frame_events + 1] = '["error",{"where":' .. str(where) .. ',"message":' .. str(err) .. '}]'
end

----------------------------------------------------------------------------------------------------------------
-- the scenario's subscriptions, wrapped: each handler call is recorded before it runs.  Urho3D gives the Lua
-- subsystem one handler per event, so the recorder shares the subscriptions it needs itself (BeginFrame,
-- EndFrame) with the scenario's through one dispatcher per event.
----------------------------------------------------------------------------------------------------------------
local real = {
  subscribe = SubscribeToEvent, unsubscribe = UnsubscribeFromEvent, unsubscribe_all = UnsubscribeFromAllEvents,
  has = HasSubscribedToEvent,
}
local scenario_handlers = {}     -- event name -> function
local recorder_pre, recorder_post = {}, {}
local dispatching = {}           -- event name -> true while the real subscription is held by a dispatcher

local function resolve(handler)
  if type(handler) == "function" then return handler end
  if type(handler) ~= "string" then return nil end
  local value = G
  for part in string.gmatch(handler, "[^%.:]+") do
    if type(value) ~= "table" then return nil end
    value = value[part]
  end
  if type(value) == "function" then return value end
  return nil
end

local function call_scenario(name, fn, event_type, data)
  record_event(name, data)
  local ok, err = pcall(fn, event_type, data)
  if not ok then record_error(name, err) end
end

local function ensure_dispatcher(name)
  if dispatching[name] then return end
  dispatching[name] = true
  real.subscribe(name, function(event_type, data)
    local pre = recorder_pre[name]
    if pre then pre(event_type, data) end
    local fn = scenario_handlers[name]
    if fn then call_scenario(name, fn, event_type, data) end
    local post = recorder_post[name]
    if post then post(event_type, data) end
  end)
end

local function release_dispatcher(name)
  if dispatching[name] and recorder_pre[name] == nil and recorder_post[name] == nil
      and scenario_handlers[name] == nil then
    dispatching[name] = nil
    real.unsubscribe(name)
  end
end

local sender_subscriptions = {}  -- {sender, name} pairs the scenario made

G.SubscribeToEvent = function(a, b, c)
  if c ~= nil then
    local fn = resolve(c)
    if fn == nil then return real.subscribe(a, b, c) end
    sender_subscriptions[#sender_subscriptions + 1] = {a, b}
    return real.subscribe(a, b, function(event_type, data) call_scenario(b, fn, event_type, data) end)
  end
  local fn = resolve(b)
  if fn == nil then return real.subscribe(a, b) end
  scenario_handlers[a] = fn
  ensure_dispatcher(a)
end

G.UnsubscribeFromEvent = function(a, b)
  if b ~= nil then return real.unsubscribe(a, b) end
  scenario_handlers[a] = nil
  release_dispatcher(a)
end

G.UnsubscribeFromAllEvents = function()
  local names = {}
  for name in pairs(scenario_handlers) do names[#names + 1] = name end
  tsort(names)
  for _, name in ipairs(names) do
    scenario_handlers[name] = nil
    release_dispatcher(name)
  end
  for _, s in ipairs(sender_subscriptions) do real.unsubscribe(s[1], s[2]) end
  sender_subscriptions = {}
end

G.HasSubscribedToEvent = function(a, b)
  if b ~= nil then return real.has(a, b) end
  return scenario_handlers[a] ~= nil
end

----------------------------------------------------------------------------------------------------------------
-- node snapshots
----------------------------------------------------------------------------------------------------------------
local COMPONENT_TYPES = {
  "StaticModel", "RigidBody", "CollisionShape", "RigidBody2D", "CollisionBox2D", "CollisionCircle2D",
  "LuaScriptInstance", "Octree", "DebugRenderer", "Camera", "Light", "Zone", "StaticModelGroup", "AnimatedModel",
  "AnimationController", "BillboardSet", "DecalSet", "ParticleEmitter", "RibbonTrail", "CustomGeometry", "Skybox",
  "Terrain", "Text3D", "SoundSource", "SoundSource3D", "SoundListener", "LuaScriptInstance", "SplinePath",
  "PhysicsWorld", "Constraint", "RaycastVehicle", "KinematicCharacterController",
  "PhysicsWorld2D", "CollisionPolygon2D", "CollisionChain2D",
  "CollisionEdge2D", "ConstraintRevolute2D", "ConstraintDistance2D", "ConstraintWeld2D", "ConstraintMouse2D",
  "ConstraintPrismatic2D", "ConstraintRope2D", "ConstraintWheel2D", "ConstraintMotor2D", "ConstraintFriction2D",
  "ConstraintPulley2D", "ConstraintGear2D", "StaticSprite2D", "AnimatedSprite2D", "ParticleEmitter2D",
  "TileMap2D", "Renderer2D", "NavigationMesh", "DynamicNavigationMesh", "Navigable", "Obstacle", "CrowdManager",
  "CrowdAgent", "OffMeshConnection", "IKSolver", "IKEffector",
}

-- The node's components by type name in component-id order.  Lua cannot list a node's components at this
-- Urho3D commit, so the recorder asks for each known type (exact type matches, as Node::GetComponents does) and
-- stops once it has found as many as GetNumComponents() says there are.
local function component_list(n, extra)
  local total = n:GetNumComponents()
  local seen, found = {}, {}
  local function scan(type_name)
    local comps = n:GetComponents(type_name, false)
    for i = 1, #comps do
      local c = comps[i]
      local id = c:GetID()
      if not seen[id] then
        seen[id] = true
        found[#found + 1] = {id, c:GetTypeName()}
      end
    end
  end
  for i = 1, #COMPONENT_TYPES do
    if #found >= total then break end
    scan(COMPONENT_TYPES[i])
  end
  for i = 1, #extra do scan(extra[i]) end
  tsort(found, function(x, y) return x[1] < y[1] end)
  local parts = {}
  for i = 1, #found do parts[i] = str(found[i][2]) end
  return "[" .. tconcat(parts, ",") .. "]", total
end

local function snapshot(scene, extra)
  local out = {}
  local function visit(n, parent_id)
    local p, q, s = n:GetWorldPosition(), n:GetWorldRotation(), n:GetWorldScale()
    local comps, ncomp = component_list(n, extra)
    local id = int(n:GetID())
    out[#out + 1] = "[" .. id .. "," .. str(n:GetName()) .. "," .. parent_id .. "," .. bool(n:IsEnabled()) .. ","
      .. vec(p.x, p.y, p.z) .. "," .. vec(q.w, q.x, q.y, q.z) .. "," .. vec(s.x, s.y, s.z) .. "," .. comps .. ","
      .. int(ncomp) .. "]"
    local kids = n:GetChildren(false)
    for i = 1, #kids do visit(kids[i], id) end
  end
  visit(scene, "null")
  return "[" .. tconcat(out, ",") .. "]"
end

----------------------------------------------------------------------------------------------------------------
-- the run
----------------------------------------------------------------------------------------------------------------
local S
local total_frames, record_set, record_every = 60, nil, nil
local inputs_by_frame = {}
local finished = false

local function recorded(f)
  if record_set then return record_set[f] == true end
  if record_every then return f % record_every == 0 or f == total_frames end
  return true
end

local function flush_frame()
  local parts = {'"f":' .. int(frame), '"ev":[' .. tconcat(frame_events, ",") .. "]",
    '"val":[' .. tconcat(frame_values, ",") .. "]"}
  if recorded(frame) then
    local scene = rawget(G, "scene_")
    if scene ~= nil then
      parts[#parts + 1] = '"nodes":' .. snapshot(scene, (S and S.components) or {})
    else
      parts[#parts + 1] = '"nodes":null'
    end
  end
  lines[#lines + 1] = "{" .. tconcat(parts, ",") .. "}"
  frame_events, frame_values = {}, {}
end

local function finish()
  if finished then return end
  finished = true
  local io = rawget(G, "io")
  if cfg.trace and io ~= nil then
    local f = assert(io.open(cfg.trace, "w"))
    f:write(tconcat(lines, "\n"), "\n")
    f:close()
  end
  if cfg.exit then engine:Exit() end
end

local function force_step()
  -- Urho3D's Engine measures each frame's wall time; the reference build binds Engine::SetNextTimeStep so the
  -- recorder can fix every step.  The grader's engine runs at its own fixed step and has no such method.
  if engine ~= nil and engine.SetNextTimeStep ~= nil then engine:SetNextTimeStep(STEP) end
end

local function send_input(f)
  local list = inputs_by_frame[f]
  if list == nil then return end
  for _, item in ipairs(list) do
    local data = VariantMap()
    local keys = {}
    for k in pairs(item.data or {}) do keys[#keys + 1] = k end
    tsort(keys)
    for _, k in ipairs(keys) do data[k] = item.data[k] end
    SendEvent(item.event, data)
  end
end

recorder_pre.BeginFrame = function()
  frame = frame + 1
  send_input(frame)
end

recorder_post.EndFrame = function()
  if finished then return end
  flush_frame()
  force_step()
  if frame >= total_frames then finish() end
end

function Start()
  force_step()
  local name = cfg.scenario
  lines[1] = '{"recorder":' .. str(RECORDER_VERSION) .. ',"scenario":' .. str(name) .. ',"step":' .. num(STEP)
  local ok, mod = pcall(require, "scenarios/" .. tostring(name))
  if not ok then
    lines[1] = lines[1] .. ',"frames":0}'
    record_error("require", mod)
    flush_frame()
    finish()
    return
  end
  S = mod
  total_frames = S.frames or 60
  if type(S.record) == "number" then record_every = S.record
  elseif type(S.record) == "table" then
    record_set = {}
    for _, f in ipairs(S.record) do record_set[f] = true end
    record_set[0] = true
    record_set[total_frames] = true
  end
  for ev, fields in pairs(S.event_fields or {}) do scenario_fields[ev] = fields end
  for _, item in ipairs(S.input or {}) do
    local list = inputs_by_frame[item.frame]
    if list == nil then list = {}; inputs_by_frame[item.frame] = list end
    list[#list + 1] = item
  end
  lines[1] = lines[1] .. ',"domain":' .. str(S.domain or "math") .. ',"frames":' .. int(total_frames) .. "}"
  ensure_dispatcher("BeginFrame")
  ensure_dispatcher("EndFrame")
  local started, err = pcall(S.Start)
  if not started then record_error("Start", err) end
  flush_frame()
  if not started then finish() end
end
