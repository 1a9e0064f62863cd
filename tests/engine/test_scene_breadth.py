"""Scene and node breadth: Node:AddComponent and listeners, temporary objects and TemporaryChanged, network
interception flags, NodeCloned/ComponentCloned, the Scene's bookkeeping members, and the LuaScriptObject and
LuaScriptInstance members.  Expected values follow Urho3D's Node.cpp, Scene.cpp, Serializable.cpp and
LuaScriptInstance.cpp/.pkg."""

from __future__ import annotations

from typing import Any

from engine.testing import engine_eval, lua, new_engine


def messages(engine: Any, level: str) -> list[str]:
    return [e["message"] for e in engine.report().log if e["level"] == level]


def test_add_component_moves_a_component_to_the_node_with_urho3d_ids_and_events() -> None:
    engine = new_engine()
    out = lua("""
    local scene = Scene()
    local a, b = scene:CreateChild("A"), scene:CreateChild("B")
    local light = a:CreateComponent("Light")
    light.range = 7
    local before = light.ID
    local added = {}
    SubscribeToEvent(scene, "ComponentAdded", function(_, d)
      added[#added + 1] = d["Node"]:GetPtr().name .. ":" .. d["Component"]:GetPtr():GetTypeName()
    end)
    b:AddComponent(light, 500, REPLICATED)
    local moved = {light.node.name, a:GetNumComponents(), b:GetNumComponents(), light.ID,
                   scene:GetComponent(before) == nil, scene:GetComponent(500) == light, light.range}
    -- a taken ID gives the scene's next free one of the range; LOCAL mode gives a local ID
    local other = b:CreateComponent("Camera")
    local c = scene:CreateChild("C")
    c:AddComponent(other, 500, REPLICATED)
    local other_id = other.ID
    local d = scene:CreateChild("D")
    local cam2 = c:CreateComponent("Camera")
    d:AddComponent(cam2, 0, LOCAL)
    -- a node outside any scene keeps the ID given
    local loose = Node()
    loose:AddComponent(other, 77, REPLICATED)
    return moved, other_id, cam2.ID, loose:GetComponent("Camera").ID, added
    """, engine)
    assert out[0] == ["B", 0, 1, 500, True, True, 7.0]
    assert out[1] == 3 and out[2] == 0x01000000 and out[3] == 77
    assert out[4] == ["B:Light", "B:Camera", "C:Camera", "C:Camera", "D:Camera"]
    assert messages(engine, "WARNING").count("Component Light already belongs to a node!") == 1
    assert messages(engine, "WARNING").count("Component Camera already belongs to a node!") == 3


def test_add_component_refuses_a_removed_component() -> None:
    out = lua("""
    local scene = Scene()
    local c = scene:CreateChild("A"):CreateComponent("Light")
    c:Remove()
    local ok, err = pcall(function() scene:CreateChild("B"):AddComponent(c, 0, REPLICATED) end)
    return ok, err
    """)
    assert out[0] is False and "removed Component" in out[1]


def test_listeners_hear_other_nodes_dirty_changes_once_each() -> None:
    engine = new_engine()
    lua("""
    scene = Scene()
    a, b = scene:CreateChild("A"), scene:CreateChild("B")
    comp = a:CreateComponent("Light")
    calls = {}
    """, engine)
    # a probe in place of the component's OnMarkedDirty: it records the node that changed
    engine_eval(engine, "E.REC[G.comp].on_marked_dirty = function(c, n) G.calls[#G.calls + 1] = n.name end")
    out = lua("""
    local function step(f) calls = {}; f(); local got = calls; calls = {}; return got end
    a:GetWorldPosition(); b:GetWorldPosition()                 -- both clean
    local r = {}
    r[1] = step(function() b:AddListener(comp) end)          -- clean: nothing yet
    r[2] = step(function() b:SetPosition(Vector3(1, 0, 0)) end)
    r[3] = step(function() b:SetPosition(Vector3(2, 0, 0)) end)   -- still dirty: Urho3D stops there
    b:GetWorldPosition()
    r[4] = step(function() b:AddListener(comp) end)          -- not added twice
    r[5] = step(function() b:Translate(Vector3(1, 0, 0)) end)
    r[6] = step(function() a:SetPosition(Vector3(0, 1, 0)) end)   -- its own node, as always
    r[7] = step(function() b:RemoveListener(comp) end)
    b:GetWorldPosition(); a:GetWorldPosition()
    r[8] = step(function() b:SetPosition(Vector3(5, 0, 0)) end)
    r[9] = step(function() a:RemoveListener(comp) end)
    r[10] = step(function() a:SetPosition(Vector3(0, 2, 0)) end)  -- not any more
    r[11] = step(function() a:AddListener(comp) end)             -- back, and told at once: the node is dirty
    b:AddListener(comp)
    b:GetWorldPosition()
    local light2 = scene:CreateChild("X"):CreateComponent("Light")
    b:AddListener(light2)
    light2:Remove()                                            -- an expired listener drops out quietly
    r[12] = step(function() b:SetPosition(Vector3(6, 0, 0)) end)
    return r
    """, engine)
    assert out == [[], ["B"], [], [], ["B"], ["A"], [], [], [], [], ["A"], ["B"]]


def test_temporary_objects_send_temporary_changed_and_are_not_saved() -> None:
    engine = new_engine()
    out = lua("""
    local scene = Scene()
    local keep = scene:CreateChild("Keep")
    local temp = scene:CreateChild("Temp")
    local model = keep:CreateComponent("StaticModel")
    local light = keep:CreateComponent("Light")
    local seen = {}
    SubscribeToEvent("TemporaryChanged", function(_, d)
      local s = d["Serializable"]:GetPtr()
      seen[#seen + 1] = s:GetTypeName() .. (GetEventSender() == s and "" or "?")
    end)
    temp:SetTemporary(true)
    temp.temporary = true                 -- no change, no event
    light.temporary = true
    model:SetTemporary(false)             -- no change
    local flags = {temp:IsTemporary(), temp.temporary, light:IsTemporary(), model.temporary,
                   keep:CreateTemporaryChild("T2"):IsTemporary()}
    local f = File("scene.xml", FILE_WRITE)
    scene:SaveXML(f)
    f:Close()
    local text = File("scene.xml", FILE_READ):ReadString()
    local clone = keep:Clone()
    return seen, flags, text:find("Temp", 1, true) == nil, text:find("T2", 1, true) == nil,
      text:find('type="Light"', 1, true) == nil, text:find('type="StaticModel"', 1, true) ~= nil,
      clone:GetNumComponents(), clone:GetNumChildren()
    """, engine)
    assert out[0] == ["Node", "Light", "Node"]  # the last from CreateTemporaryChild, as Urho3D's CreateChild
    assert out[1] == [True, True, True, False, True]
    assert out[2:] == [True, True, True, True, 1, 0]


def test_intercept_network_update_flags_by_replicated_attribute_name() -> None:
    out = lua("""
    local scene = Scene()
    local node = scene:CreateChild("N")
    local model = node:CreateComponent("StaticModel")
    node:SetInterceptNetworkUpdate("Network Position", true)
    node:SetInterceptNetworkUpdate("Position", true)      -- a file-only attribute: not replicated, ignored
    model:SetInterceptNetworkUpdate("Model", true)
    model:SetInterceptNetworkUpdate("Cast Shadows", true)
    model:SetInterceptNetworkUpdate("Cast Shadows", false)
    return {node:GetInterceptNetworkUpdate("Network Position"), node:GetInterceptNetworkUpdate("Position"),
            node:GetInterceptNetworkUpdate("Name"), node:GetInterceptNetworkUpdate("network position"),
            model:GetInterceptNetworkUpdate("Model"), model:GetInterceptNetworkUpdate("Cast Shadows"),
            scene:CreateChild("M"):GetInterceptNetworkUpdate("Network Position")}
    """)
    assert out == [True, False, False, False, True, False, False]


def test_clone_sends_component_cloned_then_node_cloned_bottom_up() -> None:
    out = lua("""
    local scene = Scene()
    local p = scene:CreateChild("P")
    p:CreateComponent("StaticModel")
    local c = p:CreateChild("C")
    c:CreateComponent("Light")
    local l = scene:CreateChild("L", LOCAL)
    local order = {}
    SubscribeToEvent(scene, "ComponentCloned", function(_, d)
      local src, dst = d["Component"]:GetPtr(), d["CloneComponent"]:GetPtr()
      order[#order + 1] = "C:" .. src.node.name .. ">" .. dst:GetTypeName() .. tostring(dst.node ~= src.node)
    end)
    SubscribeToEvent(scene, "NodeCloned", function(_, d)
      local src, dst = d["Node"]:GetPtr(), d["CloneNode"]:GetPtr()
      order[#order + 1] = "N:" .. src.name .. ">" .. dst.name .. tostring(dst ~= src and d["Scene"]:GetPtr() == scene)
    end)
    local copy = p:Clone()
    local events = order
    order = {}
    local ids = {copy:IsReplicated(), copy:GetChild("C"):IsReplicated(), p:Clone(LOCAL):IsReplicated(),
                 p:Clone(LOCAL):GetComponent("StaticModel"):IsReplicated(), l:Clone():IsReplicated(),
                 scene:Clone() == nil}
    return events, ids, #order
    """)
    assert out[0] == ["C:P>StaticModeltrue", "C:C>Lighttrue", "N:C>Ctrue", "N:P>Ptrue"]
    assert out[1] == [True, True, False, False, False, True]
    assert out[2] == 4 + 4 + 1  # two more clones of P, one of L (LOCAL: one NodeCloned), none of the scene


def test_scene_bookkeeping_members() -> None:
    engine = new_engine()
    out = lua("""
    local scene = Scene()
    scene:SetFileName("Scenes/Level.xml")
    local name = scene.fileName
    scene.fileName = "other.xml"
    scene:BeginThreadedUpdate()
    local threaded = {scene:IsThreadedUpdate(), scene.threadedUpdate}
    local node = scene:CreateChild("N")
    local light = node:CreateComponent("Light")
    scene:DelayedMarkedDirty(light)
    scene:EndThreadedUpdate()
    scene:MarkNetworkUpdate(node)
    scene:MarkNetworkUpdate(light)
    scene:MarkReplicationDirty(node)
    scene:PrepareNetworkUpdate()
    local id, cid = node.ID, light.ID
    local child = node:CreateChild("Kid")
    node:SetOwner({})
    scene:NodeRemoved(node)
    local gone = {scene:GetNode(id) == nil, node.scene == nil, scene:GetComponent(cid) == nil, node.parent == scene,
                  node.ID, light.ID, child.ID, node:GetOwner() == nil}
    scene:NodeAdded(node)
    local back = {node.ID, scene:GetNode(node.ID) == node, node.scene == scene, light.ID,
                  scene:GetComponent(light.ID) == light, child.ID, child.scene == scene}
    scene:ComponentRemoved(light)
    local cgone = {scene:GetComponent(back[4]) == nil, light.ID}
    scene:ComponentAdded(light)
    return name, scene:GetFileName(), threaded, gone, back, cgone, light.ID, scene:GetComponent(light.ID) == light
    """, engine)
    assert out[0] == "Scenes/Level.xml" and out[1] == "other.xml"
    assert out[2] == [False, False]
    # NodeRemoved takes the subtree out of the scene's registry (IDs 0, no owner), leaving the tree as it is;
    # NodeAdded gives IDs anew from the replicated range, as Urho3D's ResetScene and NodeAdded do
    assert out[3] == [True, True, True, True, 0, 0, 0, True]
    assert out[4] == [4, True, True, 2, True, 5, True]
    assert out[5] == [True, 0]
    assert out[6] == 3 and out[7] is True


def test_cleanup_connection_clears_the_owner_of_nodes_it_owned() -> None:
    out = lua("""
    local scene = Scene()
    local a, b = scene:CreateChild("A"), scene:CreateChild("B")
    local conn, other = {}, {}
    a:SetOwner(conn); b:CreateChild("C"):SetOwner(conn); b:SetOwner(other)
    scene:CleanupConnection(conn)
    return a:GetOwner() == nil, b:GetChild("C"):GetOwner() == nil, b:GetOwner() == other
    """)
    assert out == [True, True, True]


SCRIPT_GAME = r"""
Pinger = ScriptObject()
function Pinger:Start() self.got = {} end
function Pinger:OnPing(_, data) self.got[#self.got + 1] = "ping" .. data["N"]:GetInt() end
function Pinger:OnPong(_, data) self.got[#self.got + 1] = "pong" end
function Pinger:Stop() log_lines[#log_lines + 1] = "stop Pinger" end
Other = ScriptObject()
function Other:Start() log_lines[#log_lines + 1] = "start Other" end
log_lines = {}
function Start() end
"""


def test_lua_script_object_members_are_the_registry_class_members() -> None:
    engine = new_engine(SCRIPT_GAME)
    engine.start()
    out = lua("""
    local scene = Scene()
    local node = scene:CreateChild("N")
    local obj = node:CreateScriptObject("Pinger")
    local same = obj.SubscribeToEvent == LuaScriptObject.SubscribeToEvent
      and obj.HasSubscribedToEvent == LuaScriptObject.HasSubscribedToEvent and obj:GetNode() == node
    local sender = scene:CreateChild("S")
    obj:SubscribeToEvent("Ping", "OnPing")
    obj:SubscribeToEvent(sender, "Pong", "OnPong")
    local has = {obj:HasSubscribedToEvent("Ping"), obj:HasSubscribedToEvent("Pong"),
                 obj:HasSubscribedToEvent(sender, "Pong"), obj:HasSubscribedToEvent(node, "Pong"),
                 obj:HasSubscribedToEvent(sender, "Ping"), obj:HasSubscribedToEvent("Update")}
    SendEvent("Ping", {N = 1})
    sender:SendEvent("Pong", VariantMap())
    obj:UnsubscribeFromEvents(sender)
    sender:SendEvent("Pong", VariantMap())
    local after_events = {obj:HasSubscribedToEvent("Pong"), obj:HasSubscribedToEvent("Ping")}
    obj:SubscribeToEvent("Pong", "OnPong")
    obj:SubscribeToEvent("Extra", "OnPong")
    obj:UnsubscribeFromAllEventsExcept({"Ping", StringHash("Extra")})
    local except = {obj:HasSubscribedToEvent("Ping"), obj:HasSubscribedToEvent("Pong"),
                    obj:HasSubscribedToEvent("Extra")}
    obj:UnsubscribeFromAllEvents()
    SendEvent("Ping", {N = 2})
    local bare = LuaScriptObject.HasSubscribedToEvent(Pinger, "Ping")
    return same, has, obj.got, after_events, except, obj:HasSubscribedToEvent("Ping"), bare
    """, engine)
    assert out[0] is True
    assert out[1] == [True, True, True, False, False, False]
    assert out[2] == ["ping1", "pong"]
    assert out[3] == [False, True]
    assert out[4] == [True, False, True]
    assert out[5] is False and out[6] is False


def test_lua_script_instance_create_object_type_and_file() -> None:
    engine = new_engine(SCRIPT_GAME, {"Scripts/Extra.lua": "Extra = ScriptObject()\n"
                                      "function Extra:Start() log_lines[#log_lines + 1] = 'start Extra' end\n"
                                      "extra_runs = (extra_runs or 0) + 1\n"})
    engine.start()
    out = lua("""
    local scene = Scene()
    local node = scene:CreateChild("N")
    local inst = node:CreateComponent("LuaScriptInstance")
    local empty = {inst.scriptObjectType, inst:GetScriptFile() == nil}
    local made = inst:CreateObject("Pinger")
    local first = {made, inst:GetScriptObjectType(), node:GetScriptObject("Pinger") ~= nil,
                   node:GetScriptObject("Pinger").instance == inst}
    inst:SetScriptObjectType("Other")            -- releases the Pinger (Stop), makes an Other (Start)
    local second = {inst.scriptObjectType, node:GetScriptObject("Pinger") == nil, node:GetScriptObject("Other") ~= nil}
    local failed = inst:CreateObject("NoSuchClass")
    local third = {failed, inst:GetScriptObjectType(), node:GetScriptObject("Other") == nil}
    local file = cache:GetResource("LuaFile", "Scripts/Extra.lua")
    local ok = inst:CreateObject(file, "Extra")
    inst.scriptFile = file                        -- the same file: not run again
    local fourth = {ok, inst.scriptFile == file, inst.scriptObjectType, extra_runs}
    local other = node:CreateScriptObject("Pinger")
    return empty, first, second, third, fourth, log_lines, node:GetComponents("LuaScriptInstance")[2].scriptObjectType
    """, engine)
    assert out[0] == ["", True]
    assert out[1] == [True, "Pinger", True, True]
    assert out[2] == ["Other", True, True]
    assert out[3] == [False, "Other", True]
    assert out[4] == [True, True, "Extra", 1]
    assert out[5] == ["stop Pinger", "start Other", "start Extra"]
    assert out[6] == "Pinger"
    assert any("Could not find Lua table NoSuchClass" in m for m in messages(engine, "ERROR"))


def test_loaded_script_object_type_attribute_uses_set_script_object_type() -> None:
    engine = new_engine(SCRIPT_GAME)
    engine.start()
    out = lua("""
    local scene = Scene()
    local xml = XMLFile()
    xml:FromString('<node id="5"><component type="LuaScriptInstance" id="9">' ..
      '<attribute name="Script Object Type" value="Other"/></component></node>')
    local node = scene:CreateChild("N")
    node:LoadXML(xml:GetRoot())
    local inst = node:GetComponent("LuaScriptInstance")
    return inst.scriptObjectType, log_lines
    """, engine)
    assert out == ["Other", ["start Other"]]
