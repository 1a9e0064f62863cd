-- Components: the base class, creation by type name, and script objects (LuaScriptInstance).
local error, type, setmetatable, ipairs, pairs, tostring = error, type, setmetatable, ipairs, pairs, tostring
local sformat, tremove = string.format, table.remove
local REC, node_rec = E.REC, E.node_rec

E.COMPONENT_FACTORIES = {}   -- type name -> function(record) initialising the record
-- Declared component classes whose Lua binding Urho3D has but whose factory it never registers (IKConstraint): creating
-- one logs Urho3D's unknown-type error and gives nil, as there, rather than missing API.
E.UNREGISTERED_COMPONENTS = {}
local FIRST_REPLICATED_ID, LAST_REPLICATED_ID = 1, 0x00ffffff
local FIRST_LOCAL_ID, LAST_LOCAL_ID = 0x01000000, 0xffffffff

-- Scene::GetFreeComponentID: the next ID of the range, skipping IDs in use, wrapping at the end.
function E.free_component_id(scene, local_mode)
  while true do
    local id
    if local_mode then
      id = scene.next_local_component
      scene.next_local_component = id < LAST_LOCAL_ID and id + 1 or FIRST_LOCAL_ID
    else
      id = scene.next_component
      scene.next_component = id < LAST_REPLICATED_ID and id + 1 or FIRST_REPLICATED_ID
    end
    if not scene.component_ids[id] then return id end
  end
end

-- A component joins `scene`: the ID it asked for (a file's, kept once) when free, else the scene's next.
function E.register_component(scene, c)
  if scene == nil then return end
  local id = c.wanted_id
  c.wanted_id = nil
  if id == nil or id == 0 or scene.component_ids[id] then id = E.free_component_id(scene, c.local_mode) end
  c.id = id
  scene.component_ids[c.id] = c
  if c.on_scene_set then c.on_scene_set(c, scene) end
end

local function is_component_class(name)
  local decl = E.REGISTRY.classes[name]
  while decl do
    if decl.name == "Component" then return true end
    decl = decl.base and E.REGISTRY.classes[decl.base]
  end
  return false
end

-- Node::CreateComponent(type, mode, id): a node of the local range makes local components only.
local function create_component(node, type_name, mode, id)
  if E.is(type_name, "StringHash") then type_name = type_name.name_ end
  if type(type_name) ~= "string" then error("bad argument #1 to 'CreateComponent' (string expected)", 3) end
  local factory = E.COMPONENT_FACTORIES[type_name]
  if factory == nil then
    if is_component_class(type_name) and not E.UNREGISTERED_COMPONENTS[type_name] then return E.missing(type_name) end
    E.log("ERROR", sformat("Could not create unknown component type %s", type_name))
    return nil
  end
  local impl = IMPL[type_name]
  local proxy = setmetatable({}, impl.mt)
  local c = {kind = "component", type_name = type_name, proxy = proxy, node = node, enabled = true, id = 0,
             local_mode = (mode == 1) or node.id >= FIRST_LOCAL_ID, wanted_id = math.tointeger(id)}
  REC[proxy] = c
  factory(c)
  node.components[#node.components + 1] = c
  E.register_component(node.scene, c)
  E.scene_event(node.scene, "ComponentAdded", {Node = node.proxy, Component = proxy})
  return proxy
end
E.create_component = create_component

-- Node::CloneComponent: a component of src's type on `node` with src's attributes; the scene (the clone's) sends
-- ComponentCloned.  `mode` defaults to src's range.
function E.clone_component(src, node, mode)
  mode = mode or (src.local_mode and 1 or 0)
  local c
  if src.placeholder then   -- a scene file's component the engine cannot make (69_scene_files.lua)
    c = E.scene_placeholder(node, src.type_name, mode, 0, true)
  else
    c = REC[create_component(node, src.type_name, mode)]
  end
  if src.clone_into then src.clone_into(src, c) end
  if src.file_attrs then   -- attributes kept as text from a scene file
    c.file_attrs, c.file_attr_order = {}, {}
    for k, v in pairs(src.file_attrs) do c.file_attrs[k] = v end
    for i, k in ipairs(src.file_attr_order or {}) do c.file_attr_order[i] = k end
  end
  c.enabled = src.enabled
  E.scene_event(node.scene, "ComponentCloned", {Component = src.proxy, CloneComponent = c.proxy})
  return c.proxy
end

local function remove_component(c)
  local node = c.node
  if node == nil then return end
  E.scene_event(node.scene, "ComponentRemoved", {Node = node.proxy, Component = c.proxy})   -- before, as Urho3D
  if c.node ~= node then return end   -- a handler removed it already
  for i, x in ipairs(node.components) do
    if x == c then tremove(node.components, i); break end
  end
  if node.scene then node.scene.component_ids[c.id] = nil end
  if c.on_removed then c.on_removed(c) end
  c.node = nil
  c.removed = true
end
E.remove_component = remove_component

local N = IMPL.Node.methods
N.CreateComponent = function(self, type_name, mode, id) return create_component(node_rec(self), type_name, mode, id) end
N.GetOrCreateComponent = function(self, type_name, mode, id)
  return N.GetComponent(self, type_name) or create_component(node_rec(self), type_name, mode)
end
N.CloneComponent = function(self, component, mode, id)
  local c = REC[component]
  if c == nil then return nil end
  return E.clone_component(c, node_rec(self))
end
-- Node::GetComponent(s) and RemoveComponent(s) match the exact type, as Urho3D compares type hashes: asking a
-- node with a StaticModel for "Drawable" finds nothing (reference scenario component_queries).
local function matches(c, type_name)
  return c.type_name == type_name
end
N.GetComponent = function(self, type_name, recursive)
  if E.is(type_name, "StringHash") then type_name = type_name.name_ end
  local r = node_rec(self)
  local function find(n)
    for _, c in ipairs(n.components) do if matches(c, type_name) then return c.proxy end end
    if recursive then
      for _, child in ipairs(n.children) do
        local found = find(child)
        if found then return found end
      end
    end
    return nil
  end
  return find(r)
end
N.GetComponents = function(self, type_name, recursive)
  local out = {}
  local function walk(n)
    for _, c in ipairs(n.components) do
      if type_name == nil or matches(c, type_name) then out[#out + 1] = c.proxy end
    end
    if recursive then for _, child in ipairs(n.children) do walk(child) end end
  end
  walk(node_rec(self))
  return out
end
N.GetNumComponents = function(self) return #node_rec(self).components end
-- Node::GetParentComponent: the parent's component of that type, or with fullTraversal the nearest ancestor's.
N.GetParentComponent = function(self, type_name, full)
  local p = node_rec(self).parent
  while p do
    local found = N.GetComponent(p.proxy, type_name)
    if found then return found end
    if not full then break end
    p = p.parent
  end
  return nil
end
N.HasComponent = function(self, type_name) return N.GetComponent(self, type_name) ~= nil end
N.RemoveComponent = function(self, what)
  local r = node_rec(self)
  if type(what) == "string" then
    for _, c in ipairs(r.components) do if matches(c, what) then return remove_component(c) end end
    return
  end
  local c = REC[what]
  if c and c.node == r then remove_component(c) end
end
N.RemoveComponents = function(self, type_name)
  local r = node_rec(self)
  local list = {}
  for _, c in ipairs(r.components) do if type_name == nil or matches(c, type_name) then list[#list + 1] = c end end
  for _, c in ipairs(list) do remove_component(c) end
end
N.RemoveAllComponents = function(self) N.RemoveComponents(self, nil) end

-- Component base
local function comp_rec(self)
  local c = REC[self]
  if c == nil or c.kind ~= "component" then error("invalid 'self' (a Component was expected)", 3) end
  return c
end
E.comp_rec = comp_rec
-- self's record when it is a component of `type_name`, for a module's typed checker, which must tail-call it
-- (`local function crec(self) return E.typed_comp_rec(self, "CustomGeometry") end`): a wrong type is then
-- reported at the game's call, and a non-component at the method, as comp_rec reports it.
function E.typed_comp_rec(self, type_name)
  local c = comp_rec(self)
  if c.type_name ~= type_name then
    local article = type_name:find("^[AEIOU]") and "an" or "a"
    error(sformat("invalid 'self' (%s %s was expected)", article, type_name), 3)
  end
  return c
end
local C = class("Component").methods
C.GetNode = function(self) local c = comp_rec(self); return c.node and c.node.proxy end
C.GetScene = function(self) local c = comp_rec(self); return c.node and c.node.scene and c.node.scene.proxy end
C.GetID = function(self) return comp_rec(self).id end
C.IsReplicated = function(self) return comp_rec(self).id < FIRST_LOCAL_ID end
C.SetEnabled = function(self, v)
  local c = comp_rec(self)
  v = v and true or false
  if c.enabled == v then return end
  c.enabled = v
  if c.on_set_enabled then c.on_set_enabled(c) end
  local node = c.node
  if node then E.scene_event(node.scene, "ComponentEnabledChanged", {Node = node.proxy, Component = c.proxy}) end
end
C.IsEnabled = function(self) return comp_rec(self).enabled end
C.IsEnabledEffective = function(self)
  local c = comp_rec(self)
  return c.enabled and c.node ~= nil and c.node.enabled
end
C.Remove = function(self) remove_component(comp_rec(self)) end
C.GetComponent = function(self, type_name)
  local c = comp_rec(self)
  return c.node and N.GetComponent(c.node.proxy, type_name)
end
C.DrawDebugGeometry = function() end

-- Node::AddComponent(component, id, mode): a component made elsewhere joins this node; the ID when given and free
-- in the node's scene, else the scene's next free one of the mode's range.  One that belongs to a node already is
-- taken from it (Urho3D warns and leaves it listed there too; here it leaves that node and its scene, so it is
-- never found twice), and joins the new scene as a created component does: the scene's ComponentAdded event, then
-- the component is told the node changed (its OnMarkedDirty).
N.AddComponent = function(self, component, id, mode)
  local r = node_rec(self)
  if component == nil then return end
  local c = comp_rec(component)
  if c.removed then E.raise_at_game("attempt to use a removed Component") end
  id = id == nil and 0 or E.tolua_int(id, "AddComponent", 2)
  if id < 0 or id > LAST_LOCAL_ID then id = 0 end
  mode = mode == nil and 0 or E.tolua_int(mode, "AddComponent", 3)
  local old = c.node
  if old == r then return end
  if old ~= nil then
    E.log("WARNING", "Component " .. c.type_name .. " already belongs to a node!")
    for i, x in ipairs(old.components) do
      if x == c then tremove(old.components, i); break end
    end
    if old.scene and old.scene.component_ids[c.id] == c then old.scene.component_ids[c.id] = nil end
    if old.scene and c.on_scene_removed then c.on_scene_removed(c) end
  end
  c.node, c.unlistened = r, nil
  r.components[#r.components + 1] = c
  c.local_mode = mode == 1 or r.id >= FIRST_LOCAL_ID
  if r.scene then
    c.wanted_id = id
    E.register_component(r.scene, c)
  else
    c.id = id
  end
  if c.on_marked_dirty then c.on_marked_dirty(c, r) end
  E.scene_event(r.scene, "ComponentAdded", {Node = r.proxy, Component = c.proxy})
end

-- Node::AddListener / RemoveListener: a component told of this node's transform changes (its OnMarkedDirty, the
-- hook the engine's components keep as on_marked_dirty), at once when the node is dirty already.  A node's own
-- components listen from the start, as the Urho3D components that care add themselves when put on a node; removing
-- one of them stops that, and adding it back starts it again.  Each listener is told once per change, in the order
-- they were added.
N.AddListener = function(self, component)
  local r = node_rec(self)
  if component == nil then return end
  local c = comp_rec(component)
  if c.node == r then
    if not c.unlistened then return end
    c.unlistened = nil
  else
    local list = r.listeners
    if list == nil then list = {}; r.listeners = list end
    for _, x in ipairs(list) do if x == c then return end end
    list[#list + 1] = c
  end
  if r.dirty and c.on_marked_dirty then c.on_marked_dirty(c, r) end
end
N.RemoveListener = function(self, component)
  local r = node_rec(self)
  local c = REC[component]
  if c == nil or c.kind ~= "component" then return end
  if c.node == r then c.unlistened = true; return end
  for i, x in ipairs(r.listeners or {}) do
    if x == c then tremove(r.listeners, i); return end
  end
end

----------------------------------------------------------------------------------------------------
-- Script objects, as Urho3D's LuaScriptInstance runs them: ScriptObject() makes a class table;
-- node:CreateScriptObject("Name") creates a LuaScriptInstance component on the node (ComponentAdded, an id),
-- instantiates the class with `instance.node` and `instance.instance`, and calls Start().  While the component
-- is enabled in an enabled node, the instance is subscribed to its scene's SceneUpdate (DelayedStart once, then
-- Update(timeStep)) and ScenePostUpdate (PostUpdate), and to the scene's physics world's PhysicsPreStep and
-- PhysicsPostStep (FixedUpdate, FixedPostUpdate), for the methods its class defines.  These are sender-specific
-- subscriptions, so instances run before the game's global handlers of the same event, in the order they
-- (re)subscribed: an instance disabled and enabled again moves to the end.  Stop() when removed.
----------------------------------------------------------------------------------------------------
E.script_objects = {}   -- in creation order: {instance=, node=, component=, alive=, class_name=}
FUNCTIONS.ScriptObject = function()
  local cls = {}
  cls.__index = cls
  return cls
end

local function call_method(so, name, ...)
  local fn = so.instance[name]
  if type(fn) == "function" then
    E.protected(name, fn, so.instance, ...)
  end
end

local function has_method(so, name) return type(so.instance[name]) == "function" end

local function fixed_update_source(scene)
  for _, c in ipairs(scene.components) do
    if c.type_name == "PhysicsWorld" or c.type_name == "PhysicsWorld2D" then return c end
  end
  return nil
end

local function delayed_start(so)
  if so.delayed_start_pending then
    so.delayed_start_pending = false
    call_method(so, "DelayedStart")
  end
end

-- LuaScriptInstance::SubscribeToScriptMethodEvents / UnsubscribeFromScriptMethodEvents.  The component is the
-- receiver of these (its methods_receiver), apart from the instance's own subscriptions (self:SubscribeToEvent).
local function subscribe_methods(so)
  local node = so.node
  local scene = node and node.scene
  if scene == nil or so.subscribed then return end
  so.subscribed = true
  local receiver = so.methods_receiver
  if has_method(so, "Update") or has_method(so, "DelayedStart") then
    E.subscribe(receiver, nil, scene.proxy, "SceneUpdate", function(_, data)
      delayed_start(so)
      if so.alive and has_method(so, "Update") then call_method(so, "Update", data.TimeStep:GetFloat()) end
    end)
  end
  if has_method(so, "PostUpdate") then
    E.subscribe(receiver, nil, scene.proxy, "ScenePostUpdate", function(_, data)
      call_method(so, "PostUpdate", data.TimeStep:GetFloat())
    end)
  end
  local world = fixed_update_source(scene)
  if world and has_method(so, "FixedUpdate") then
    E.subscribe(receiver, nil, world.proxy, "PhysicsPreStep", function(_, data)
      delayed_start(so)
      if so.alive then call_method(so, "FixedUpdate", data.TimeStep:GetFloat()) end
    end)
  end
  if world and has_method(so, "FixedPostUpdate") then
    E.subscribe(receiver, nil, world.proxy, "PhysicsPostStep", function(_, data)
      call_method(so, "FixedPostUpdate", data.TimeStep:GetFloat())
    end)
  end
end

local function unsubscribe_methods(so)
  if not so.subscribed then return end
  so.subscribed = false
  E.unsubscribe_all(so.methods_receiver)
end

local function update_subscription(c)
  local so = c.script_object
  if so == nil or not so.alive then return end
  if c.enabled and c.node ~= nil and c.node.enabled then subscribe_methods(so) else unsubscribe_methods(so) end
end

function E.script_object_stop(so)
  if not so.alive then return end
  so.alive = false
  unsubscribe_methods(so)
  call_method(so, "Stop")
  E.unsubscribe_all(so)
end

E.COMPONENT_FACTORIES.LuaScriptInstance = function(c)
  c.on_set_enabled = update_subscription
  c.on_removed = function(x) if x.script_object then E.script_object_stop(x.script_object) end end
end

-- The script object of class `class_name` on the LuaScriptInstance record `c` (LuaScriptInstance::CreateObject);
-- nil when the game defines no such class.
local function attach_script_object(node, c, class_name)
  -- "LuaScriptObject" is the base every ScriptObject() class derives from; UrhoX games (urhox-libs/UI among
  -- them) instantiate it directly to get an object that can subscribe to events.
  local cls = class_name == "LuaScriptObject" and E.LUA_SCRIPT_OBJECT or E.game_env[class_name]
  if type(cls) ~= "table" then
    E.log("ERROR", sformat("Could not find Lua table %s", tostring(class_name)))
    return nil
  end
  local instance = setmetatable({}, cls)
  local so = {instance = instance, node = node, component = c, class_name = class_name, alive = true,
              delayed_start_pending = true, subscribed = false, methods_receiver = {}}
  c.script_object = so
  instance.node = node.proxy
  instance.instance = c.proxy
  instance.subscriptions_receiver = so
  node.script_objects[#node.script_objects + 1] = so
  E.script_objects[#E.script_objects + 1] = so
  E.SCRIPT_INSTANCES[instance] = so
  call_method(so, "Start")
  if not has_method(so, "DelayedStart") then so.delayed_start_pending = false end
  update_subscription(c)
  return instance
end
E.attach_script_object = attach_script_object

-- CreateScriptObject(fileName, "ClassName") runs the file first, once per file as LuaFile::LoadAndExecute does
-- (found as `require` finds modules: the game's files, then the engine's Lua libraries).  A file that is not
-- there logs Urho3D's error and makes no object; an error while it runs is the game's error, and no object.
local executed_files = {}
local function run_script_file(name)
  name = tostring(name)
  if executed_files[name] then return true end
  local chunkname, source, key = E.host_call(E.host.find_module, name)
  if chunkname == false then error(source, 0) end   -- past the run's file read budget
  if chunkname == nil then
    E.log("ERROR", sformat("Could not find resource %s", name))
    return false
  end
  if not executed_files[key] then
    local fn, err = load(source, "@" .. chunkname, "t", E.game_env)
    if fn == nil then
      E.log("ERROR", sformat("Lua Execute failed for %s: %s", name, tostring(err)))
      return false
    end
    if not E.protected("CreateScriptObject", fn) then return false end
    executed_files[key] = true
  end
  executed_files[name] = true
  return true
end

local function create_script_object(node, a, b)
  -- CreateScriptObject("ClassName") or CreateScriptObject(fileName, "ClassName")
  if b ~= nil and not run_script_file(a) then return nil end
  local class_name = b or a
  local cls = class_name == "LuaScriptObject" and E.LUA_SCRIPT_OBJECT or E.game_env[class_name]
  if type(cls) ~= "table" then
    E.log("ERROR", sformat("Could not find Lua table %s", tostring(class_name)))
    return nil
  end
  local c = REC[create_component(node, "LuaScriptInstance", 0)]
  c.script_object_type = class_name
  return attach_script_object(node, c, class_name)
end
E.SCRIPT_INSTANCES = setmetatable({}, {__mode = "k"})

N.CreateScriptObject = function(self, a, b) return create_script_object(node_rec(self), a, b) end
N.GetScriptObject = function(self, class_name)
  for _, so in ipairs(node_rec(self).script_objects) do
    if so.alive and (class_name == nil or so.class_name == class_name) then return so.instance end
  end
  return nil
end

-- LuaScriptObject: the base of every ScriptObject() class.  Its members (self:SubscribeToEvent(...) and friends)
-- work on an instance a LuaScriptInstance made, as Urho3D's forward to the instance's own event receiver: the
-- instance's subscriptions, apart from the component's Update/PostUpdate/FixedUpdate ones.  On a bare class table
-- (no instance) they do nothing, as there.
local LSO = class("LuaScriptObject").methods
local function event_names(list)
  local set = {}
  if type(list) == "table" then
    for _, e in ipairs(list) do
      local name = E.event_name_of(e)
      if name ~= nil then set[name] = true end
    end
  end
  return set
end
LSO.GetNode = function(self) return self.node end
LSO.SubscribeToEvent = function(self, a, b, c)
  local so = E.SCRIPT_INSTANCES[self]
  if so == nil then return end
  if c ~= nil then return E.subscribe(so, self, a, b, c) end
  return E.subscribe(so, self, nil, a, b)
end
LSO.UnsubscribeFromEvent = function(self, a, b)
  local so = E.SCRIPT_INSTANCES[self]
  if so == nil then return end
  if b ~= nil then return E.unsubscribe(so, a, b) end
  return E.unsubscribe(so, false, a)
end
-- every subscription of the instance to events of `sender`
LSO.UnsubscribeFromEvents = function(self, sender)
  local so = E.SCRIPT_INSTANCES[self]
  if so == nil or sender == nil then return end
  for _, name in ipairs(E.sorted_keys(E.subscriptions)) do E.unsubscribe(so, sender, name) end
end
LSO.UnsubscribeFromAllEvents = function(self)
  local so = E.SCRIPT_INSTANCES[self]
  if so then E.unsubscribe_all(so) end
end
-- all but the events named in `exceptions` (names or StringHashes)
LSO.UnsubscribeFromAllEventsExcept = function(self, exceptions)
  local so = E.SCRIPT_INSTANCES[self]
  if so then E.unsubscribe_all(so, event_names(exceptions)) end
end
-- HasSubscribedToEvent(event): to that event from any sender; (sender, event): from that sender
LSO.HasSubscribedToEvent = function(self, a, b)
  local so = E.SCRIPT_INSTANCES[self]
  if so == nil then return false end
  local sender, event = nil, a
  if b ~= nil then sender, event = a, b end
  local name = E.event_name_of(event)
  for _, s in ipairs(name and E.subscriptions[name] or {}) do
    if s.alive and s.receiver == so and (b == nil or s.sender == sender) then return true end
  end
  return false
end

-- The same functions serve every ScriptObject() class, with two helpers UrhoX games use beyond Urho3D's list.
local instance_api = {
  GetScene = function(self) return self.node and self.node:GetScene() end,
  SendEvent = function(self, event, data) return E.send_event(E.event_name_of(event), data or {}, self) end,
}
for _, name in ipairs({"GetNode", "SubscribeToEvent", "UnsubscribeFromEvent", "UnsubscribeFromEvents",
                       "UnsubscribeFromAllEvents", "UnsubscribeFromAllEventsExcept", "HasSubscribedToEvent"}) do
  instance_api[name] = LSO[name]
end

-- LuaScriptInstance: the component behind a script object.  SetScriptObjectType(name) releases the object it has
-- (its Stop runs, its subscriptions end) and makes one of the named class (its Start runs); a name no class has
-- logs Urho3D's error and leaves it without an object, its type unchanged.  SetScriptFile(file) runs a LuaFile
-- (once per file, as CreateScriptObject(fileName, ...) does) and remembers it.  CreateObject([file,] type) does
-- both, without a file clearing the remembered one; true when an object was made.
local LSI = class("LuaScriptInstance").methods
local function lsi_rec(self) return E.typed_comp_rec(self, "LuaScriptInstance") end
local function set_object_type(c, name)
  if name == (c.script_object_type or "") then return end
  local so = c.script_object
  if so ~= nil then
    c.script_object = nil
    E.script_object_stop(so)
  end
  if c.node == nil then return end
  if E.attach_script_object(c.node, c, name) ~= nil then c.script_object_type = name end
end
E.set_script_object_type = set_object_type
local function set_script_file(c, file)
  if file ~= nil then
    local f = REC[file]
    if f == nil or not E.is(file, "LuaFile") then
      E.raise_at_game("bad argument #1 to 'SetScriptFile' (LuaFile expected)")
    end
  end
  if file == c.script_file then return end
  c.script_file = file
  if file ~= nil and not run_script_file(REC[file].name) then
    E.log("ERROR", "Execute Lua file failed: " .. tostring(REC[file].name))
  end
end
LSI.GetScriptObjectType = function(self) return lsi_rec(self).script_object_type or "" end
LSI.SetScriptObjectType = function(self, name)
  set_object_type(lsi_rec(self), E.tolua_string(name, "SetScriptObjectType", 1))
end
LSI.GetScriptFile = function(self) return lsi_rec(self).script_file end
LSI.SetScriptFile = function(self, file) set_script_file(lsi_rec(self), file) end
LSI.CreateObject = function(self, a, b)
  local c = lsi_rec(self)
  local file, name = nil, a
  if b ~= nil then file, name = a, b end
  set_script_file(c, file)
  set_object_type(c, E.tolua_string(name, "CreateObject", b ~= nil and 2 or 1))
  return c.script_object ~= nil and c.script_object.alive == true
end
local base_script_object = FUNCTIONS.ScriptObject
FUNCTIONS.ScriptObject = function()
  local cls = base_script_object()
  setmetatable(cls, {__index = instance_api})
  return cls
end
E.LUA_SCRIPT_OBJECT = FUNCTIONS.ScriptObject()

