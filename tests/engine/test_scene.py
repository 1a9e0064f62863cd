"""Scene graph semantics against Urho3D's: transforms, hierarchy, ids, components, events, script objects."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine, EngineSettings
from engine.testing import lua, new_engine


def vec(v: dict) -> tuple[float, ...]:
    # to float32 precision: rotations carry Urho3D's single-precision round-off (angles are halved in float)
    return tuple(round(v[k], 6) + 0.0 for k in ("x", "y", "z"))


def test_value_semantics_of_properties() -> None:
    assert lua("local n = Node(); n.position = Vector3(1, 2, 3); n.position.y = 5; return n.position.y") == 2.0
    assert lua("local n = Node(); local v = Vector3(1, 2, 3); n.position = v; v.x = 9; return n.position.x") == 1.0
    assert lua("local n = Node(); n:SetPosition(Vector3(1, 2, 3)); return n:GetPosition().z") == 3.0


def test_world_transform_composes_parent_rotation_scale_and_translation() -> None:
    out = lua("""
    local s = Scene()
    local parent = s:CreateChild("P")
    parent.position = Vector3(10, 0, 0)
    parent.rotation = Quaternion(0, 90, 0)   -- yaw 90: local +Z points to world +X
    parent.scale = Vector3(2, 2, 2)
    local child = parent:CreateChild("C")
    child.position = Vector3(0, 0, 1)
    return child.worldPosition, child.worldScale, child:GetWorldDirection()
    """)
    assert vec(out[0]) == (12.0, 0.0, 0.0)
    assert vec(out[1]) == (2.0, 2.0, 2.0)
    assert vec(out[2]) == (1.0, 0.0, 0.0)


@pytest.mark.parametrize(
    ("space", "expected"),
    [("TS_LOCAL", (1.0, 0.0, 0.0)), ("TS_PARENT", (0.0, 0.0, 1.0)), ("TS_WORLD", (0.0, 0.0, 0.5))],
)
def test_translate_in_each_space(space: str, expected: tuple[float, ...]) -> None:
    out = lua(f"""
    local s = Scene()
    local parent = s:CreateChild("P")
    parent.scale = Vector3(2, 2, 2)
    local n = parent:CreateChild("N")
    n.rotation = Quaternion(0, 90, 0)
    n:Translate(Vector3(0, 0, 1), {space})
    return n.position
    """)
    assert vec(out) == expected


def test_yaw_pitch_roll_and_lookat() -> None:
    out = lua("""
    local n = Scene():CreateChild("N")
    n:Yaw(90)
    local d1 = n.direction
    n.rotation = Quaternion.IDENTITY
    n:Pitch(90)
    local d2 = n.direction
    n.rotation = Quaternion.IDENTITY
    n.position = Vector3(0, 0, 0)
    n:LookAt(Vector3(0, 0, -5))
    return d1, d2, n.worldDirection, n:LookAt(Vector3(0, 0, 0))
    """)
    assert vec(out[0]) == (1.0, 0.0, 0.0)
    assert vec(out[1]) == (0.0, -1.0, 0.0)
    assert vec(out[2]) == (0.0, 0.0, -1.0)
    assert out[3] is False  # looking at its own position fails, as in Urho3D


def test_set_world_direction_takes_the_shortest_arc_in_parent_space() -> None:
    # Urho3D: SetRotation(Quaternion(FORWARD, parentWorldRotation^-1 * direction)) (reference: lookat_yaw_pitch);
    # the world shortest arc turned into parent space differs by a twist about the direction
    out = lua("""
    local parent = Scene():CreateChild("P")
    parent.rotation = Quaternion(0, 60, 20)
    local n = parent:CreateChild("N")
    n.worldDirection = Vector3(0, -1, 1)
    local expected = Quaternion(Vector3(0, 0, 1), parent.worldRotation:Inverse() * Vector3(0, -1, 1))
    return n.rotation:Equals(expected), n.worldDirection
    """)
    assert out[0] is True
    assert vec(out[1]) == pytest.approx((0.0, -0.707107, 0.707107), abs=1e-6)


def test_set_world_position_under_a_transformed_parent() -> None:
    out = lua("""
    local s = Scene()
    local p = s:CreateChild("P")
    p.position = Vector3(5, 0, 0); p.rotation = Quaternion(0, 0, 90); p.scale = Vector3(2, 2, 2)
    local c = p:CreateChild("C")
    c.worldPosition = Vector3(1, 2, 3)
    return c.worldPosition
    """)
    assert vec(out) == (1.0, 2.0, 3.0)


def test_ids_hierarchy_and_lookup() -> None:
    out = lua("""
    local s = Scene()
    local a = s:CreateChild("A")
    local b = a:CreateChild("B")
    local l = s:CreateChild("L", LOCAL)
    local found = s:GetChild("B", true)
    b:AddTag("enemy")
    return s.ID, a.ID, b.ID, l.ID, found == b, s:GetChild("B") == nil, s:GetNumChildren(true),
      #s:GetChildrenWithTag("enemy", true), s:GetNode(b.ID) == b
    """)
    assert out == [1, 2, 3, 0x01000000, True, True, 3, 1, True]


def test_scene_change_events_follow_urho3d() -> None:
    # The scene sends these as things change (reference scenario scene_events): CreateChild names the node after
    # adding it, reparenting sends NodeRemoved first, components announce removal and enabled changes.
    out = lua("""
    local seen = {}
    local s = Scene()
    for _, e in ipairs({"NodeAdded", "NodeRemoved", "NodeNameChanged", "NodeTagAdded", "NodeTagRemoved",
        "NodeEnabledChanged", "ComponentAdded", "ComponentRemoved", "ComponentEnabledChanged"}) do
      SubscribeToEvent(s, e, function(t, d) seen[#seen + 1] = e .. ":" .. d["Node"]:GetPtr("Node").name end)
    end
    local a = s:CreateChild("A")
    local b = s:CreateChild("B")
    local m = a:CreateComponent("StaticModel")
    m.enabled = false
    m.enabled = false
    a:AddTag("t"); a:AddTag("t"); a:RemoveTag("t")
    a.enabled = false
    b:AddChild(a)
    a:RemoveComponent("StaticModel")
    return table.concat(seen, ",")
    """)
    assert out.split(",") == [
        "NodeAdded:", "NodeNameChanged:A", "NodeAdded:", "NodeNameChanged:B", "ComponentAdded:A",
        "ComponentEnabledChanged:A", "NodeTagAdded:A", "NodeTagRemoved:A", "NodeEnabledChanged:A",
        "ComponentEnabledChanged:A", "NodeRemoved:A", "NodeAdded:A", "ComponentRemoved:A"]


def test_remove_detaches_and_invalidates() -> None:
    out = lua("""
    local s = Scene()
    local a = s:CreateChild("A")
    a:CreateChild("Kid")
    a:Remove()
    return s:GetNumChildren(true), pcall(function() return a.name end)
    """)
    assert out[0] == 0
    assert out[1] is False


def test_vars_and_custom_fields() -> None:
    out = lua("""
    local n = Scene():CreateChild("N")
    n:SetVar("hp", 10)
    n:SetVar(StringHash("name"), "orc")
    n.myField = 7     -- games may hang their own fields on engine objects (tolua peers)
    return n:GetVar("hp"):GetInt(), n:GetVar("name"):GetString(), n.myField, n:GetVar("none"):IsEmpty()
    """)
    assert out == [10, "orc", 7, True]


def test_tags_scene_lookup_in_tagging_order_and_separator_codes() -> None:
    # Scene:GetNodesWithTag lists nodes in the order they got the tag in the scene; AddTags takes the separator
    # as a char code, as Urho3D's binding does, or as a one-character string (reference scenario vars_tags)
    out = lua("""
    local s = Scene()
    local a, b, c = s:CreateChild("A"), s:CreateChild("B"), s:CreateChild("C")
    c:AddTag("t"); a:AddTag("t")
    local orphan = Node(); orphan.name = "D"; orphan:AddTag("t"); s:AddChild(orphan)
    b:AddTags("t;u", 59); a:RemoveTag("t"); a:AddTag("t")
    local names = {}
    for _, n in ipairs(s:GetNodesWithTag("t")) do names[#names + 1] = n.name end
    c:AddTags("x.y", ".")
    return table.concat(names, ","), #s:GetNodesWithTag("u"), c:HasTag("y")
    """)
    assert out == ["C,D,B,A", 1, True]


def test_components_create_get_remove_and_unknown_types() -> None:
    engine = new_engine()
    out = lua("""
    local n = Scene():CreateChild("N")
    local m = n:CreateComponent("StaticModel")
    m.model = cache:GetResource("Model", "Models/Box.mdl")
    local box = m.worldBoundingBox
    local unknown = n:CreateComponent("NoSuchThing")
    local same = n:GetComponent("StaticModel") == m
    local as_drawable = n:GetComponent("Drawable")   -- exact types only, as Urho3D (reference: component_queries)
    m:Remove()
    return box.max.x, unknown == nil, same, as_drawable == nil, n:GetComponent("StaticModel") == nil
    """, engine)
    assert out == [0.5, True, True, True, True]
    assert any("unknown component type NoSuchThing" in e["message"] for e in engine.report().log)


def test_parent_components_are_found_up_the_hierarchy() -> None:
    out = lua("""
    local a = Scene():CreateChild("A")
    a:CreateComponent("Light")
    local c = a:CreateChild("B"):CreateChild("C")
    return c.parent:GetParentComponent("Light") ~= nil, c:GetParentComponent("Light") == nil,
      c:GetParentComponent("Light", true) ~= nil, c:GetParentComponent("Camera", true) == nil
    """)
    assert out == [True, True, True, True]


def test_the_scene_lists_only_its_own_components() -> None:
    # Urho3D: a scene node's components are its own; the scene's id -> component map is separate
    # (tests/reference/urho3d: transform_hierarchy and others recorded it)
    out = lua("""
    local scene = Scene()
    scene:CreateComponent("Octree")
    local child = scene:CreateChild("Child")
    local model = child:CreateComponent("StaticModel")
    return scene:GetNumComponents(), #scene:GetComponents("StaticModel", false),
      scene:GetComponent("StaticModel") == nil, #scene:GetComponents("StaticModel", true), child:GetNumComponents(),
      scene:GetComponent(model.ID) == model
    """)
    assert out == [1, 0, True, 1, 1, True]


def test_octree_raycasts_in_an_empty_scene_miss_without_a_stand_in() -> None:
    # implemented (tests/engine/test_content3d.py, reference scenario octree_raycast): a miss is Urho3D's empty result
    engine = new_engine()
    out = lua("""
    local octree = Scene():CreateComponent("Octree")
    local ray = Ray(Vector3(0, 0, 0), Vector3(0, 0, 1))
    local r = octree:RaycastSingle(ray, RAY_TRIANGLE, 100, DRAWABLE_GEOMETRY)
    return r.node == nil, r.drawable == nil, r.distance == math.huge, r.position.z, #octree:Raycast(ray, RAY_OBB, 100,
      DRAWABLE_GEOMETRY)
    """, engine)
    assert out == [True, True, True, 0, 0]
    assert not [e for e in engine.report().log if "not supported headless" in e["message"]]


def test_missing_resources_return_nil_and_log() -> None:
    engine = new_engine()
    assert lua("return cache:GetResource('Model', 'Models/Nope.mdl') == nil", engine) is True
    assert any(e["level"] == "ERROR" and "Models/Nope.mdl" in e["message"] for e in engine.report().log)


def test_event_order_within_a_frame_and_unsubscribe() -> None:
    engine = new_engine("""
    order = {}
    local function add(name) return function() order[#order + 1] = name end end
    function Start()
      local s = Scene()     -- a scene subscribes to Update when created, before the handlers below
      SubscribeToEvent(s, "SceneUpdate", add("SceneUpdate"))
      SubscribeToEvent("BeginFrame", add("BeginFrame"))
      SubscribeToEvent("Update", add("Update"))
      SubscribeToEvent("PostUpdate", add("PostUpdate"))
      SubscribeToEvent("RenderUpdate", add("RenderUpdate"))
      SubscribeToEvent("PostRenderUpdate", add("PostRenderUpdate"))
      SubscribeToEvent("EndFrame", add("EndFrame"))
      SubscribeToEvent("KeyDown", add("KeyDown"))
    end
    """)
    engine.start()
    engine.queue_input({"kind": "key_down", "key": 32})
    engine.run_frames(1)
    order = [engine.game_env["order"][i] for i in range(1, len(engine.game_env["order"]) + 1)]
    assert order == ["BeginFrame", "KeyDown", "SceneUpdate", "Update", "PostUpdate", "RenderUpdate",
                     "PostRenderUpdate", "EndFrame"]


def test_scene_update_sends_urho3d_sequence_with_smoothing_factor() -> None:
    # Scene::Update (reference scenario event_order): SceneUpdate, AttributeAnimationUpdate, SceneSubsystemUpdate,
    # UpdateSmoothing with 1 - 2^(-step * constant), ScenePostUpdate; the elapsed time grows after them
    engine = new_engine("""
    seen = {}
    function Start()
      scene_ = Scene()
      for _, e in ipairs({"SceneUpdate", "AttributeAnimationUpdate", "SceneSubsystemUpdate", "UpdateSmoothing",
          "ScenePostUpdate"}) do
        SubscribeToEvent(scene_, e, function(t, d)
          seen[#seen + 1] = e
          if e == "UpdateSmoothing" then constant = d["Constant"]:GetFloat() end
          if e == "ScenePostUpdate" then elapsed_in_post = scene_.elapsedTime end
        end)
      end
    end
    """)
    engine.start()
    engine.run_frames(1)
    assert lua("return table.concat(seen, ',')", engine) == (
        "SceneUpdate,AttributeAnimationUpdate,SceneSubsystemUpdate,UpdateSmoothing,ScenePostUpdate")
    assert lua("return constant", engine) == pytest.approx(1 - 2 ** (-50 / 60))
    assert lua("return {elapsed_in_post, scene_.elapsedTime}", engine) == pytest.approx([0.0, 1 / 60])


def test_one_handler_per_event_and_string_handlers_resolved_at_subscription() -> None:
    engine = new_engine("""
    hits = ""
    function A() hits = hits .. "A" end
    function B() hits = hits .. "B" end
    function Start()
      SubscribeToEvent("Update", "A")
      SubscribeToEvent("Update", "B")   -- replaces A: one handler per (receiver, event)
      SubscribeToEvent("MyEvent", "A")
    end
    """)
    engine.start()
    engine.run_frames(2)
    lua("SendEvent('MyEvent', VariantMap())", engine)
    lua("UnsubscribeFromEvent('Update')", engine)
    engine.run_frames(2)
    assert engine.game_env["hits"] == "BBA"


def test_sender_specific_receivers_first_and_each_receiver_once() -> None:
    # Urho3D's Object::SendEvent (reference scenario custom_events): receivers subscribed to the sender run
    # first; a receiver with both a general and a sender-specific handler runs once, by the specific one
    out = lua("""
    local seen = {}
    local n = Scene():CreateChild("N")
    SubscribeToEvent("Said", function() seen[#seen + 1] = "general" end)
    SubscribeToEvent(n, "Said", function() seen[#seen + 1] = "specific" end)
    local obj = n:CreateScriptObject("LuaScriptObject")
    obj:SubscribeToEvent("Said", function() seen[#seen + 1] = "object general" end)
    n:SendEvent("Said", VariantMap())
    SendEvent("Said", VariantMap())
    return table.concat(seen, ",")
    """)
    assert out == "specific,object general,general,object general"


def test_event_data_values_and_custom_events() -> None:
    engine = new_engine("""
    got = nil
    function Start()
      SubscribeToEvent("Custom", function(eventType, eventData)
        got = eventData["Count"]:GetInt() + eventData["Scale"]:GetFloat() .. eventData["Name"]:GetString()
          .. tostring(eventData["Missing"]) .. tostring(eventType == StringHash("Custom"))
      end)
      local data = VariantMap()
      data["Count"] = 2
      data["Scale"] = 0.5
      data["Name"] = "x"
      SendEvent("Custom", data)
    end
    """)
    engine.start()
    assert engine.game_env["got"] == "2.5xniltrue"


def test_script_objects_lifecycle() -> None:
    engine = new_engine("""
    Rotator = ScriptObject()
    calls = {}
    function Rotator:Start() calls[#calls + 1] = "Start"; self.speed = 90 end
    function Rotator:DelayedStart() calls[#calls + 1] = "DelayedStart" end
    function Rotator:Update(timeStep) self.node:Yaw(self.speed * timeStep) end
    function Rotator:PostUpdate(timeStep) if #calls < 4 then calls[#calls + 1] = "PostUpdate" end end
    function Rotator:Stop() calls[#calls + 1] = "Stop" end
    function Start()
      scene_ = Scene()
      box_ = scene_:CreateChild("Box")
      rot_ = box_:CreateScriptObject("Rotator")
    end
    """)
    engine.start()
    engine.run_frames(60)
    assert lua("return box_.rotation:YawAngle()", engine) == pytest.approx(90.0, abs=1e-5)
    assert lua("return box_:GetScriptObject('Rotator') == rot_", engine) is True
    lua("box_:Remove()", engine)
    calls = [engine.game_env["calls"][i] for i in range(1, len(engine.game_env["calls"]) + 1)]
    assert calls == ["Start", "DelayedStart", "PostUpdate", "PostUpdate", "Stop"]


def test_script_objects_are_components_updated_by_their_scene_events() -> None:
    # Urho3D's LuaScriptInstance (reference scenario script_objects): a component with an id; its Update runs from a
    # SceneUpdate subscription to its scene, before the game's global SceneUpdate handler; disabled, it stops, and
    # enabled again it subscribes anew, after the others
    engine = new_engine("""
    seen = {}
    Mark = ScriptObject()
    function Mark:Update(dt) seen[#seen + 1] = self.node.name end
    function Start()
      scene_ = Scene()
      SubscribeToEvent("SceneUpdate", function() seen[#seen + 1] = "global" end)
      a_ = scene_:CreateChild("A"); a_:CreateScriptObject("Mark")
      b_ = scene_:CreateChild("B"); b_:CreateScriptObject("Mark")
    end
    """)
    engine.start()
    engine.run_frames(1)
    lua("a_.enabled = false", engine)
    engine.run_frames(1)
    lua("a_.enabled = true", engine)
    engine.run_frames(1)
    assert lua("return table.concat(seen, ',')", engine) == "A,B,global,B,global,B,A,global"
    out = lua("""
    local c = a_:GetComponent("LuaScriptInstance")
    return a_:GetNumComponents(), c.ID, c:GetTypeName(), a_:GetScriptObject().instance == c
    """, engine)
    assert out == [1, 1, "LuaScriptInstance", True]


def test_a_bare_lua_script_object_subscribes_with_self_first() -> None:
    """urhox-libs/UI makes `node:CreateScriptObject("LuaScriptObject")` just to own its event subscriptions;
    a function handler of a script object is called like a method: (self, eventType, eventData)."""
    engine = new_engine("""
    got = {}
    function Start()
      holder = Node():CreateScriptObject("LuaScriptObject")
      holder.tag = "holder"
      holder:SubscribeToEvent("Update", function(self, eventType, eventData)
        got[#got + 1] = self.tag .. ":" .. tostring(eventData["TimeStep"]:GetFloat() > 0)
        if #got == 2 then self:UnsubscribeFromEvent("Update") end
      end)
    end
    """)
    engine.start()
    engine.run_frames(4)
    assert lua("return table.concat(got, ',')", engine) == "holder:true,holder:true"
    assert engine.report().outcome == "clean"


def test_files_save_and_load_within_a_run_and_cjson() -> None:
    engine = new_engine(files={"data/levels.json": '{"levels": [1, 2, 3], "name": "x"}'})
    out = lua("""
    local path = fileSystem:GetAppPreferencesDir("org", "app") .. "save.json"
    local f = File(path, FILE_WRITE)
    f:WriteString(cjson.encode({score = 10, name = "me"}))
    f:Close()
    local r = File(path, FILE_READ)
    local saved = cjson.decode(r:ReadString())
    r:Close()
    local via_cache = require("cjson").decode(cache:GetFile("data/levels.json"):ReadLine())
    local lf = File("data/levels.json", FILE_READ)
    local data = cjson.decode(lf:ReadLine())
    return saved.score, saved.name, fileSystem:FileExists(path), #data.levels, via_cache.name,
      File("nope.txt", FILE_READ):IsOpen()
    """, engine)
    assert out == [10, "me", True, 3, "x", False]


def test_require_forms_resolve_against_scripts() -> None:
    engine = new_engine(files={
        "scripts/Game/Player.lua": "return {kind = 'player'}",
        "scripts/ui/theme.lua": "return {kind = 'theme'}",
        "scripts/app/router/init.lua": "return {kind = 'router'}",
    })
    out = lua("""
    return require("Game.Player").kind, require("ui/theme").kind, require("scripts/app/router").kind,
      require("Game/Player") == require("Game.Player"), select(2, pcall(require, "Nope")):match("not found") ~= nil
    """, engine)
    assert out == ["player", "theme", "router", True, True]


def test_camera_projection_round_trip() -> None:
    out = lua("""
    local s = Scene()
    local cn = s:CreateChild("Cam")
    cn.position = Vector3(0, 0, -10)
    local cam = cn:CreateComponent("Camera")
    local screen = cam:WorldToScreenPoint(Vector3(0, 0, 0))
    local world = cam:ScreenToWorldPoint(Vector3(0.5, 0.5, 10))
    local ray = cam:GetScreenRay(0.5, 0.5)
    return screen, world, ray.direction
    """)
    assert round(out[0]["x"], 6) == 0.5 and round(out[0]["y"], 6) == 0.5
    assert vec(out[1]) == pytest.approx((0.0, 0.0, 0.0), abs=1e-5)
    assert vec(out[2]) == pytest.approx((0.0, 0.0, 1.0), abs=1e-6)


def test_camera_half_view_size_is_at_unit_distance() -> None:
    # Urho3D's Camera::GetHalfViewSize: tan(fov / 2) / zoom, whatever the near clip (reference: camera_math)
    out = lua("""
    local cam = Scene():CreateChild("C"):CreateComponent("Camera")
    cam.fov = 60; cam.nearClip = 0.5
    local a = cam:GetHalfViewSize()
    cam.zoom = 2
    local b = cam:GetHalfViewSize()
    cam.orthographic = true; cam.orthoSize = 20
    return a, b, cam:GetHalfViewSize()
    """)
    assert out == pytest.approx([0.57735027, 0.28867513, 5.0])


def test_engine_exit_stops_the_loop() -> None:
    engine = new_engine("function Start() SubscribeToEvent('Update', function() engine:Exit() end) end")
    engine.start()
    engine.run_frames(10)
    assert engine.frame == 1
    assert engine.report().exit_requested is True


def test_screen_facts_follow_the_settings(tmp_path: Path) -> None:
    """graphics size and DPR, and the safe-area insets games lay their HUD out by (urhox-libs' SafeAreaView)."""
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "main.lua").write_text("function Start() end\n")
    engine = Engine(tmp_path, EngineSettings(screen_width=800, screen_height=600, dpr=2.0,
                                             safe_area=(10, 40, 10, 20)))
    out = lua("""
    local px, dip = GetSafeAreaInsets(), GetSafeAreaInsets(true)
    return graphics.width, graphics:GetHeight(), graphics:GetDPR(), px.min.x, px.min.y, px.max.x, px.max.y,
      dip.min.y, dip.max.y
    """, engine)
    assert out == [800, 600, 2.0, 10.0, 40.0, 10.0, 20.0, 20.0, 10.0]


def test_audio_lists_every_sound_source_and_keeps_declick_state() -> None:
    assert lua("""
    local s = Scene()
    local a = s:CreateChild("a"):CreateComponent("SoundSource3D")
    local b = s:CreateChild("b"):CreateComponent("SoundSource")
    local other = Scene():CreateChild("c"):CreateComponent("SoundSource")
    a:SetDeclickEnabled(true)
    local list = audio:GetSoundSources()
    b:StopImmediate()
    return #list, list[1] == a, list[2] == b, list[3] == other, a.declickEnabled, b:GetDeclickEnabled(),
           b:IsFadingOut()
    """) == [3, True, True, True, True, False, False]


def test_a_disposed_file_is_closed_and_its_data_kept() -> None:
    assert lua("""
    local f = File("notes.txt", FILE_WRITE); f:WriteString("hi"); f:Dispose()
    local g = File("notes.txt", FILE_READ)
    return f:IsOpen(), g:ReadString()
    """) == [False, "hi"]


def test_dispose_releases_the_scripts_reference_only() -> None:
    """UrhoX's Dispose: a node the scene holds stays; a detached node nothing holds is destroyed; a component and a
    plain object are held by their owners and stay as they were."""
    assert lua("""
    local scene = Scene()
    local kept = scene:CreateChild("Kept")
    local light = kept:CreateComponent("Light")
    kept:Dispose(); light:Dispose(); scene:Dispose(); time:Dispose()
    local loose = Node()
    loose:SetName("Loose")
    loose:Dispose()
    return scene:GetChild("Kept") == kept, kept:GetComponent("Light") == light, scene:GetNumChildren(),
           kept:GetName(), (pcall(function() return loose.name end)), tostring(time:GetTimeStep() > 0)
    """) == [True, True, 1, "Kept", False, "true"]


def test_a_reflecting_camera_views_from_its_mirror_image() -> None:
    """Camera reflection and clip planes (sample 23's water): Plane.UP by default, copied in and out; with
    useReflection the view is from the node's mirror image in the plane (GetEffectiveWorldTransform)."""
    out = lua("""
    local scene = Scene(); local n = scene:CreateChild("c"); n.position = Vector3(0, 5, -10)
    local cam = n:CreateComponent("Camera")
    local default = cam.reflectionPlane
    local straight = cam:WorldToScreenPoint(Vector3(0, 5, 0))
    cam.reflectionPlane = Plane(Vector3(0, 1, 0), Vector3(0, 1, 0))
    cam.useReflection = true
    local mirrored = cam.effectiveWorldTransform:Translation()
    local seen = cam:WorldToScreenPoint(Vector3(0, -3, 0))
    local plane = Plane(Vector3(0, 1, 0), Vector3(0, 0, 0)); cam.clipPlane = plane; plane.d = 99
    return {default.normal.y, default.d, straight.x, straight.y, mirrored.y, mirrored.z, seen.x, seen.y,
            cam.clipPlane.d, cam.useClipping}
    """)
    assert out == [1.0, 0.0, 0.5, 0.5, -3.0, -10.0, 0.5, 0.5, 0.0, False]


def test_a_render_target_texture_has_one_render_surface_holding_its_viewports() -> None:
    """Render-to-texture as state (samples 10 and 23): a render-target texture's surface, the same object on every
    call, sized as its texture, with the viewports and update mode the game gives it; other textures have none."""
    out = lua("""
    local t = Texture2D()
    t:SetSize(1024, 768, Graphics:GetRGBFormat(), TEXTURE_RENDERTARGET)
    local plain = Texture2D(); plain:SetSize(4, 4, Graphics:GetRGBFormat())
    local s = t.renderSurface
    local before = {s.numViewports, s.updateMode}
    local scene = Scene(); local cam = scene:CreateChild("c"):CreateComponent("Camera")
    local vp = Viewport:new(scene, cam)
    s:SetViewport(1, vp)
    s.updateMode = SURFACE_UPDATEALWAYS
    return {plain:GetRenderSurface() == nil, s == t:GetRenderSurface(), s.width, s.height, before, s.numViewports,
            s:GetViewport(0) == nil, s:GetViewport(1) == vp, s.updateMode, s.parentTexture == t, s.usage}
    """)
    assert out == [True, True, 1024, 768, [0, 1], 2, True, True, 2, True, 2]


def test_a_stretchable_sprite_keeps_its_border_and_saves_it() -> None:
    """StretchableSprite2D (sample 51): a StaticSprite2D with a border, copied in and out, saved as "Border"."""
    out = lua("""
    local scene = Scene()
    local node = scene:CreateChild("s")
    local sprite = node:CreateComponent("StretchableSprite2D")
    local b = IntRect(25, 20, 15, 10)
    sprite.border = b
    b.left = 99
    sprite.layer = 3
    local f = File("sprite.xml", FILE_WRITE)
    node:SaveXML(f)
    f:Close()
    local x = XMLFile()
    x:FromString(File("sprite.xml"):ReadString())
    local copy = scene:CreateChild("copy")
    copy:LoadXML(x:GetRoot())
    local loaded = copy:GetComponent("StretchableSprite2D")
    return {sprite.border.left, sprite.border.top, sprite.border.right, sprite.border.bottom, sprite.layer,
            loaded.border.left, loaded.border.bottom, loaded.layer, sprite.flipX}
    """)
    assert out == [25, 20, 15, 10, 3, 25, 10, 3, False]


def test_2d_and_world_transform_shorthands_signed_scale_and_component_order() -> None:
    """Node's remaining Urho3D members: the 2D and world-space setters as Node.h composes them, the signed world
    scale, children by name, the owner, the dirty flag, network component counts and ReorderComponent."""
    out = lua("""
      local scene = Scene()
      local p = scene:CreateChild("P"); p.scale = Vector3(2, -3, 1); p:Rotate(Quaternion(0, 0, 90))
      local n = p:CreateChild("N"); n:CreateChild("x"); n:CreateChild("y"):CreateChild("x"); n:CreateChild("x")
      n:CreateComponent("StaticModel"); n:CreateComponent("Light"); local cam = n:CreateComponent("Camera", LOCAL)
      n:ReorderComponent(cam, 0); n:ReorderComponent(cam, 99)
      local m = scene:CreateChild("M"); m:SetTransform2D(Vector2(1, 2), 45, 2)
      local m_scale = m.scale
      m:RotateAround2D(Vector2(0, 0), 90, TS_PARENT)
      local w = scene:CreateChild("W"); w:SetWorldTransform2D(Vector2(3, 4), 30, Vector2(2, 5))
      local q = scene:CreateChild("Q"); q:SetWorldTransform(Vector3(1, 2, 3), Quaternion(0, 90, 0), 4)
      local s = scene:CreateChild("S"); s:SetWorldScale2D(3, 4)
      local _ = n.worldPosition   -- the world transform computed: clean until something moves it
      local dirty_before = n.dirty
      n:MarkDirty()
      return {#n:GetChildrenWithName("x"), #n:GetChildrenWithName("x", true), n:GetComponents()[3]:GetTypeName(),
        p.signedWorldScale.y, p.worldScale.y, m.position.x, m.position.y, m_scale.z, m.rotation:RollAngle(),
        w.position.z, w.scale.x, w.scale.y, w.scale.z, q.worldPosition.z, q.worldScale.y, q.rotation:YawAngle(),
        s.scale.x, s.scale.z, n.numNetworkComponents, n.owner == nil, dirty_before, n:IsDirty()}
    """)
    assert out[:3] == [2, 3, "Camera"]
    assert out[3] == pytest.approx(-3) and out[4] == pytest.approx(3)
    assert out[5:9] == pytest.approx([-2, 1, 2, 135])
    assert out[9:13] == pytest.approx([0, 2, 5, 1])
    assert out[13:16] == pytest.approx([3, 4, 90])
    assert out[16:18] == pytest.approx([3, 1])
    assert out[18:] == [2, True, False, True]
