"""Scenes and prefabs in Urho3D's XML and JSON formats, and the XMLFile / JSONFile APIs they are read with."""

from __future__ import annotations

from typing import Any

import pytest

from engine.testing import lua, new_engine

PREFAB = """<?xml version="1.0"?>
<node id="50">
\t<attribute name="Name" value="Crate" />
\t<attribute name="Tags"><string value="pickup" /><string value="wood" /></attribute>
\t<attribute name="Position" value="1 2 3" />
\t<attribute name="Scale" value="2 2 2" />
\t<attribute name="Variables"><variant hash="1234" type="Int" value="7" /></attribute>
\t<component type="StaticModel" id="60">
\t\t<attribute name="Model" value="Model;Models/Box.mdl" />
\t\t<attribute name="Material" value="Material;Materials/Stone.xml" />
\t\t<attribute name="Cast Shadows" value="true" />
\t\t<attribute name="No Such Attribute" value="1" />
\t</component>
\t<component type="Light" id="61">
\t\t<attribute name="Light Type" value="spot" />
\t\t<attribute name="Range" value="25" />
\t\t<attribute name="Depth Slope Bias" value="0.75" />
\t</component>
\t<component type="FancyThing" id="62"><attribute name="Power" value="9000" /></component>
\t<node id="51">
\t\t<attribute name="Name" value="Lid" />
\t\t<attribute name="Is Enabled" value="false" />
\t\t<attribute name="Position" value="0 0.5 0" />
\t\t<component type="RigidBody" id="63"><attribute name="Mass" value="2.5" /></component>
\t</node>
\t<node id="16777300">
\t\t<attribute name="Name" value="Sparks" />
\t</node>
</node>
"""

SCENE = """<?xml version="1.0"?>
<scene id="1">
\t<attribute name="Name" value="Level" />
\t<attribute name="Next Replicated Node ID" value="100" />
\t<component type="Octree" id="1" />
\t<component type="PhysicsWorld" id="2"><attribute name="Gravity" value="0 -20 0" /></component>
\t<node id="2"><attribute name="Name" value="A" /></node>
\t<node id="5"><attribute name="Name" value="B" /><node id="3"><attribute name="Name" value="C" /></node></node>
\t<node id="16777216"><attribute name="Name" value="Local" />
\t\t<component type="Camera" id="16777216"><attribute name="FOV" value="60" /></component></node>
</scene>
"""


def engine_with(**files: str) -> Any:
    return new_engine(files=files)


def messages(engine: Any) -> list[str]:
    return [e["message"] for e in engine.report().log]


def test_a_prefab_instantiates_into_the_expected_hierarchy_with_new_ids() -> None:
    engine = engine_with(**{"Objects/Crate.xml": PREFAB})
    out = lua("""
      scene_ = Scene()
      scene_:CreateComponent("Octree")
      local a = scene_:InstantiateXML(cache:GetFile("Objects/Crate.xml"), Vector3(10, 0, 0), Quaternion(90, Vector3.UP))
      local b = scene_:InstantiateXML(cache:GetResource("XMLFile", "Objects/Crate.xml"):GetRoot(), Vector3(0, 0, 5),
        Quaternion())
      local lid, sparks = a:GetChild("Lid"), a:GetChild("Sparks")
      local sm, light = a:GetComponent("StaticModel"), a:GetComponent("Light")
      local function ids(n) local t = {n.ID} for _, c in ipairs(n:GetComponents()) do t[#t + 1] = c.ID end return t end
      return {a = ids(a), lid = ids(lid), sparks = sparks.ID, b = ids(b), b_lid = b:GetChild("Lid").ID,
        parent = a.parent.ID, name = a.name, pos = {a.position.x, a.position.y, a.position.z},
        world_lid = {lid.worldPosition.x, lid.worldPosition.y, lid.worldPosition.z}, scale = a.scale.x,
        tags = a:GetTags(), var = a:GetVar(StringHash(1234)):GetInt(), lid_enabled = lid.enabled,
        model = sm.model.name, material = sm:GetMaterial(0).name, shadows = sm.castShadows,
        light = {light.lightType, light.range}, mass = lid:GetComponent("RigidBody").mass,
        children = scene_:GetNumChildren(true)}""", engine)
    # Urho3D's Scene::InstantiateXML: the root is the scene's next free ID, everything under it gets new IDs of its
    # range (Sparks was local in the file), components included
    assert out["a"] == [2, 2, 3, 4] and out["lid"] == [3, 5] and out["sparks"] == 16777216
    assert out["b"] == [4, 6, 7, 8] and out["b_lid"] == 5 and out["parent"] == 1
    assert out["name"] == "Crate" and out["pos"] == [10, 0, 0] and out["scale"] == 2
    assert out["world_lid"] == pytest.approx([10, 1, 0])   # the root's transform from the call, the Lid's from the file
    assert out["tags"] == ["pickup", "wood"] and out["var"] == 7 and out["lid_enabled"] is False
    assert out["model"] == "Models/Box.mdl" and out["material"] == "Materials/Stone.xml" and out["shadows"] is True
    assert out["light"] == [1, 25] and out["mass"] == 2.5 and out["children"] == 6
    log = messages(engine)
    assert log.count("Unknown attribute No Such Attribute in XML data") == 2
    assert log.count("Component type 3E1F1FA5 not known, creating UnknownComponent as placeholder") == 2
    assert engine.report().missing_api == []


def test_loading_a_scene_keeps_the_files_ids_and_continues_from_them() -> None:
    engine = engine_with(**{"Scenes/Level.xml": SCENE})
    out = lua("""
      scene_ = Scene()
      scene_:CreateChild("Discarded")
      local ok = scene_:LoadXML(cache:GetFile("Scenes/Level.xml"))
      local ids = {}
      for _, n in ipairs(scene_:GetChildren(true)) do ids[#ids + 1] = n.name .. "#" .. n.ID end
      local next_node = scene_:CreateChild("New").ID
      local local_node = scene_:CreateChild("NewLocal", LOCAL).ID
      local taken = scene_:CreateChild("Taken", REPLICATED, 5).ID
      local free = scene_:CreateChild("Free", REPLICATED, 42).ID
      return {ok = ok, name = scene_.name, ids = ids, next_node = next_node, local_node = local_node, taken = taken,
        free = free, gravity = scene_:GetComponent("PhysicsWorld").gravity.y,
        fov = scene_:GetChild("Local"):GetComponent("Camera").fov,
        camera_id = scene_:GetChild("Local"):GetComponent("Camera").ID, file = scene_.fileName,
        checksum = scene_.checksum}""", engine)
    assert out["ok"] is True and out["name"] == "Level"
    assert out["ids"] == ["A#2", "B#5", "C#3", "Local#16777216"]
    # the file set the replicated counter to 100; the local counter restarted with the scene's Clear
    assert out["next_node"] == 100 and out["local_node"] == 16777217
    assert out["taken"] == 101 and out["free"] == 42    # a taken ID is replaced by the next free one
    assert out["gravity"] == -20 and out["fov"] == 60 and out["camera_id"] == 16777216
    assert out["file"] == "Scenes/Level.xml" and out["checksum"] != 0
    assert "Loading scene from Scenes/Level.xml" in messages(engine)


def test_a_scene_saved_to_xml_loads_back_to_the_same_scene() -> None:
    engine = engine_with(**{"Objects/Crate.xml": PREFAB})
    first, second, text = lua("""
      local function describe(scene)
        local out = {}
        for _, n in ipairs(scene:GetChildren(true)) do
          local comps = {}
          for _, c in ipairs(n:GetComponents()) do comps[#comps + 1] = c.typeName .. "#" .. c.ID end
          local p, r = n.worldPosition, n.worldRotation
          out[#out + 1] = string.format("%s#%d %s %.4f %.4f %.4f %.4f %.4f %s %s", n.name, n.ID, tostring(n.enabled),
            p.x, p.y, p.z, r.w, r.y, table.concat(comps, ","), table.concat(n:GetTags(), ";"))
        end
        return out
      end
      local s = Scene()
      s:CreateComponent("Octree")
      local a = s:InstantiateXML(cache:GetFile("Objects/Crate.xml"), Vector3(3, 0, 0), Quaternion(30, Vector3.UP))
      a:SetVar("score", 42)
      s:SaveXML("saves/level.xml")
      local again = Scene()
      again:LoadXML("saves/level.xml")
      local f = File("saves/level.xml")
      local text = f:ReadString()
      f:Close()
      return describe(s), describe(again), text""", engine)
    assert first == second and len(first) == 3
    assert '<component type="FancyThing" id="4">' in text and '<attribute name="Power" value="9000" />' in text
    assert '<attribute name="Depth Slope Bias" value="0.75" />' in text   # kept as it came
    assert '<attribute name="Light Type" value="Spot" />' in text          # enums by name
    assert f'<variant hash="{_sdbm("score")}" type="Int" value="42" />' in text
    assert lua("""local s = Scene() s:LoadXML("saves/level.xml")
                  return s:GetChild("Crate"):GetVar("score"):GetInt()""", engine) == 42


def _sdbm(s: str) -> int:
    h = 0
    for b in s.encode():
        h = (b + (h << 6) + (h << 16) - h) & 0xFFFFFFFF
    return h


def test_json_scenes_round_trip_and_instantiate() -> None:
    engine = engine_with(**{"Objects/Crate.xml": PREFAB})
    out = lua("""
      local s = Scene()
      s:CreateComponent("Octree")
      s:InstantiateXML(cache:GetFile("Objects/Crate.xml"), Vector3(1, 0, 0), Quaternion())
      s:SaveJSON("level.json")
      local back = Scene()
      local ok = back:LoadJSON("level.json")
      local crate = back:GetChild("Crate")
      local f = File("crate.json", FILE_WRITE)
      crate:SaveJSON(f)
      f:Close()
      local copy = back:InstantiateJSON("crate.json", Vector3(0, 5, 0), Quaternion())
      return {ok = ok, crate = crate.ID, pos = crate.position.x, lid = crate:GetChild("Lid").ID,
        light = crate:GetComponent("Light").range, copy_children = copy:GetNumChildren(true),
        copy_id = copy.ID,
        text_has_attrs = File("level.json"):ReadString():find('"Light Type": "Spot"', 1, true) ~= nil}
    """, engine)
    assert out["ok"] is True and out["crate"] == 2 and out["pos"] == 1 and out["lid"] == 3 and out["light"] == 25
    assert out["copy_id"] == 4 and out["copy_children"] == 2 and out["text_has_attrs"] is True


def test_node_load_xml_replaces_the_nodes_content_and_save_xml_writes_a_node_document() -> None:
    engine = engine_with(**{"Objects/Crate.xml": PREFAB})
    out = lua("""
      local s = Scene()
      local n = s:CreateChild("Holder")
      n:CreateChild("Old")
      local ok = n:LoadXML(cache:GetResource("XMLFile", "Objects/Crate.xml"):GetRoot())
      local f = File("node.xml", FILE_WRITE)
      n:SaveXML(f, "  ")
      f:Close()
      local x = XMLFile()
      x:FromString(File("node.xml"):ReadString())
      return {ok = ok, name = n.name, id = n.ID, old = n:GetChild("Old") == nil, lid = n:GetChild("Lid").ID,
        root = x:GetRoot().name, first = x:GetRoot():GetChild("attribute"):GetAttribute("name")}""", engine)
    assert out == {"ok": True, "name": "Crate", "id": 2, "old": True, "lid": 51, "root": "node", "first": "Is Enabled"}


def test_components_the_engine_lacks_are_loaded_as_placeholders_and_named_as_missing() -> None:
    engine = engine_with(**{"a.xml": '<node id="1"><component type="NetworkPriority" id="1">'
                                     '<attribute name="Base Priority" value="50" />'
                                     '</component></node>'})
    assert lua("""local s = Scene() local n = s:InstantiateXML("a.xml", Vector3(), Quaternion())
                  return n:GetComponent("NetworkPriority") ~= nil""", engine) is True
    assert engine.report().missing_api == ["NetworkPriority"]
    with pytest.raises(Exception, match="not implemented by the grader engine: NetworkPriority:GetBasePriority"):
        lua("return scene_ and nil or Scene():InstantiateXML('a.xml', Vector3(), Quaternion())"
            ":GetComponent('NetworkPriority'):GetBasePriority()", engine)


def test_bad_scene_files_fail_with_urho3ds_errors() -> None:
    engine = engine_with(**{"bad.xml": "<scene><node></scene>", "empty.xml": ""})
    assert lua("""local s = Scene()
                  return s:LoadXML("bad.xml"), s:LoadXML("empty.xml"), s:LoadXML("missing.xml"),
                    s:InstantiateXML("bad.xml", Vector3(), Quaternion()) == nil""", engine) == [
        False, False, False, True]
    log = messages(engine)
    assert "Could not parse XML data from bad.xml: mismatched end tag </scene>" in log
    assert "Zero sized XML data in empty.xml" in log and "Could not open file missing.xml" in log


def test_serializable_attributes_by_name() -> None:
    assert lua("""
      local s = Scene()
      local n = s:CreateChild("N")
      local light = n:CreateComponent("Light")
      light:SetAttribute("Range", Variant(33.0))
      n:SetAttribute("Position", Variant(Vector3(1, 2, 3)))
      return light:GetAttribute("Range"):GetFloat(), light.range, n.position.y, n:GetAttribute("Name"):GetString(),
        light:GetAttribute("Light Type"):GetInt(), light:GetAttributeDefault("Range"):GetFloat(),
        light:SetAttribute("Nope", Variant(1))""") == [33, 33, 2, "N", 2, 10, False]


def test_xml_file_and_element_api() -> None:
    engine = engine_with(**{"data/levels.xml": """<?xml version="1.0"?>
<!-- comment -->
<levels version="2">
  <level name="cave" time="90.5" boss="true" spawn="1 2 3" tint="1 0 0"><![CDATA[Dark & deep]]></level>
  <level name="sky" time="120" boss="no"/>
  <note>Mind the gap &amp; the &lt;edge&gt;</note>
</levels>"""})
    out = lua("""
      local root = cache:GetResource("XMLFile", "data/levels.xml"):GetRoot()
      local first = root:GetChild("level")
      local second = first:GetNext("level")
      local out = {root.name, root:GetInt("version"), first:GetAttribute("name"), first:GetFloat("time"),
        first:GetBool("boss"), second:GetBool("boss"), first:GetVector3("spawn").z, first:GetColor("tint").a,
        first:GetValue(), root:GetChild("note"):GetValue(), second:GetNext("level"):IsNull(),
        root:GetChild("nothing").null, first.parent.name, root:HasChild("note"), first:GetNumAttributes(),
        first:GetAttributeNames()[2], first:GetAttribute("missing"), first:HasAttribute("time")}
      local x = XMLFile()
      local r = x:CreateRoot("save")
      local e = r:CreateChild("player")
      e:SetAttribute("name", "Ann & Bob")
      e:SetInt("score", 12)
      e:SetFloat("speed", 2.5)
      e:SetVector3("pos", Vector3(1, 0.5, -2))
      e:SetBool("alive", true)
      r:CreateChild("gone"):Remove()
      out[#out + 1] = x:ToString()
      out[#out + 1] = x:Save("saves/x.xml") and File("saves/x.xml"):ReadString() == x:ToString()
      return out""", engine)
    assert out[:18] == ["levels", 2, "cave", 90.5, True, False, 3, 1, "Dark & deep", "Mind the gap & the <edge>",
                        True, True, "levels", True, 5, "time", "", True]
    assert out[18] == ('<?xml version="1.0"?>\n<save>\n\t<player name="Ann &amp; Bob" score="12" speed="2.5" '
                       'pos="1 0.5 -2" alive="true" />\n</save>\n')
    assert out[19] is True


def test_json_file_and_value_api() -> None:
    engine = engine_with(**{"data/cfg.json": '{"name": "hero", "hp": 100, "speed": 2.5, "big": 3000000000,\n'
                                             ' "tags": ["a", "b",], /* c */ "nested": {"x": null, "y": true}}'})
    out = lua("""
      local root = cache:GetResource("JSONFile", "data/cfg.json"):GetRoot()
      local tags = root:Get("tags")
      local out = {root:Get("name"):GetString(), root:Get("hp"):GetInt(), root:Get("hp").numberTypeName,
        root:Get("speed"):GetFloat(), root:Get("big").numberTypeName, root:Get("big"):GetUInt(), tags:Size(),
        tags:GetArray()[2]:GetString(), root:Get("nested"):Get("x").null, root:Get("missing").valueTypeName,
        root:Contains("hp"), root:Get("name"):GetInt(5)}
      local f = JSONFile()
      local r = f:GetRoot()
      r:Set("b", JSONValue(0.1))
      r:Set("a", JSONValue(true))
      local n = JSONValue() n:SetInt(7) r:Set("n", n)
      local list = JSONValue() list:Push(JSONValue("x")) list:Push(JSONValue(1e30)) r:Set("list", list)
      r:Get("list"):Push(JSONValue(false))   -- Get returns a reference into the file's tree
      out[#out + 1] = f:ToString("  ")
      local bad = JSONFile()
      out[#out + 1] = bad:FromString("{1: 2}")
      return out""", engine)
    assert out[:12] == ["hero", 100, "Int", 2.5, "Unsigned", 3000000000, 2, "b", True, "Null", True, 5]
    assert out[12] == '{\n  "b": 0.1,\n  "a": true,\n  "n": 7,\n  "list": [\n    "x",\n    1e30,\n    false\n  ]\n}'
    assert out[13] is False
    assert any(m.startswith("Could not parse JSON data from string") for m in messages(engine))


def test_the_stock_scene_of_sample_38_is_a_stand_in_with_the_lights_the_sample_toggles() -> None:
    out = lua("""
      local s = Scene()
      local ok = s:LoadXML(cache:GetFile("Scenes/SceneLoadExample.xml"))
      local layout = ui:LoadLayout(cache:GetResource("XMLFile", "UI/UILoadExample.xml"))
      return ok, s:GetChild("Light1", true):GetComponent("Light") ~= nil, s:GetChild("Light2", true) ~= nil,
        layout:GetChild("ToggleLight1", true) ~= nil, layout:GetChild("ToggleLight2", true) ~= nil""")
    assert out == [True, True, True, True, True]


def test_xml_and_json_methods_check_their_arguments_at_the_games_line() -> None:
    engine = new_engine()
    with pytest.raises(Exception, match=r"test:1: bad argument #2 to 'SetColor' \(Color expected, got number 5\)"):
        lua("XMLFile():CreateRoot('r'):SetColor('c', 5)", engine)
    with pytest.raises(Exception, match=r"test:1: invalid 'self' in call to XMLElement method"):
        lua("local e = XMLFile():CreateRoot('r') e.SetValue({}, 'x')", engine)
    with pytest.raises(Exception, match=r"test:1: invalid 'self' in call to JSONValue method"):
        lua("local v = JSONValue() v.Size(5)", engine)
    assert lua("""local e = XMLFile():CreateRoot('r') e:SetInt('i', 0/0) e:SetFloat('f', 1/0)
                  local v = JSONValue() v:SetInt(1e300)
                  return e:GetAttribute('i'), e:GetAttribute('f'), v:GetInt()""", engine) == [
        "-2147483648", "inf", -2147483648]


def test_a_script_object_in_a_prefab_is_created_and_started() -> None:
    engine = new_engine("""
Spinner = ScriptObject()
function Spinner:Start() self.node:SetVar("started", true) end
function Spinner:Update(dt) self.node:Yaw(90 * dt) end
""", files={"Objects/Spinner.xml": '<node id="1"><attribute name="Name" value="S" />'
                                     '<component type="LuaScriptInstance" id="1">'
                                     '<attribute name="Script Object Type" value="Spinner" /></component></node>'})
    engine.start()
    assert lua("""scene_ = Scene() scene_:CreateComponent("Octree")
                  spun = scene_:InstantiateXML("Objects/Spinner.xml", Vector3(), Quaternion())
                  scene_:Update(0.5)
                  return spun:GetVar("started"):GetBool(), spun:GetScriptObject("Spinner") ~= nil,
                    spun.rotation:YawAngle()""", engine) == [True, True, pytest.approx(45)]


def test_async_loading_finishes_at_the_scenes_next_update() -> None:
    engine = new_engine("""
function Start()
  scene_ = Scene()
  ok = scene_:LoadAsyncXML(cache:GetFile("Scenes/Level.xml"))
  during = {scene_.asyncLoading, scene_:GetNumChildren(true), scene_:GetComponent("PhysicsWorld") ~= nil}
  SubscribeToEvent(scene_, "AsyncLoadFinished", function()
    finished = {time:GetFrameNumber(), scene_.asyncLoading, scene_:GetNumChildren(true), scene_.elapsedTime}
  end)
end
""", files={"Scenes/Level.xml": SCENE})
    engine.start()
    engine.run_frames(2)
    assert lua("return ok, during, finished", engine) == [True, [True, 0, True], [1, False, 4, 0]]
    assert lua("return scene_.elapsedTime > 0", engine) is True   # updates again from the next frame
