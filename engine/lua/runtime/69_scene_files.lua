-- Scene files, part 2: scenes and prefabs in Urho3D's XML and JSON formats.  Scene:LoadXML/LoadJSON,
-- Node:LoadXML/LoadJSON, Scene:InstantiateXML/InstantiateJSON, Node:SaveXML/SaveJSON and Scene:SaveXML/SaveJSON,
-- and the Serializable attribute API (GetAttribute, SetAttribute ...), over part 1's attribute tables
-- (68_scene_attributes.lua).
--
-- A node is <node id="..."> (the scene <scene id="...">) holding <attribute name="..." value="..."/> entries,
-- <component type="..." id="..."> entries with their own attributes, and child <node> entries; in JSON the same
-- as {"id", "attributes": {name: value}, "components": [...], "children": [...]}.  Loading follows Urho3D
-- (Node::LoadXML, Serializable::LoadXML, Scene::InstantiateXML):
--   * node and component IDs come from the file when loading (a taken one is replaced by the scene's next free ID
--     of its range), and are all new when instantiating; the replicated range is 1..0xffffff, the local range
--     from 0x1000000;
--   * attributes are matched by exact name, searching on from the last one found; an unknown name is logged
--     ("Unknown attribute X in XML data") and skipped, an unknown enum value likewise;
--   * a component type Urho3D does not know becomes a placeholder that keeps its attributes (as UnknownComponent
--     does); a type Urho3D knows but this engine does not implement is loaded as a placeholder too, and reported
--     as missing API, so the run says what it lacks.
-- Saving writes what Urho3D writes: every node attribute, a component's attributes that differ from their defaults.
local error, type, tostring, tonumber, ipairs, setmetatable = error, type, tostring, tonumber, ipairs, setmetatable
local sformat, smatch, ssub, mtointeger = string.format, string.match, string.sub, math.tointeger
local REC = E.REC
local T, S = E.urho_text, E.urho_string
local J = E.json_node
local A = E.scene_attr
local table_of, current, apply, finder, enum_index = A.table_of, A.current, A.apply, A.finder, A.enum_index
local vars_get, vars_set, var_names_of, KIND = A.vars_get, A.vars_set, A.var_names_of, A.KIND
local B, I, U, M, F = "bool", "int", "uint", "mask", "float"
local NM = IMPL.Node.methods
local FIRST_LOCAL_ID = 0x01000000
local REPLICATED, LOCAL = 0, 1

----------------------------------------------------------------------------------------------------
-- Loading
----------------------------------------------------------------------------------------------------
-- A component the engine cannot make: Urho3D's UnknownComponent for a type it does not know either, else a stand-in
-- of the real type whose methods report missing API.
local function placeholder(node, type_name, mode, id, quiet)
  local known = E.REGISTRY.classes[type_name] ~= nil and type_name ~= "Component"
  if quiet then
    -- a copy of one already loaded (Node:Clone): said once already
  elseif known then
    E.record_missing(type_name)
    E.log("WARNING", "Component type " .. type_name .. " is not implemented by the grader engine: loaded as a " ..
      "placeholder that keeps its attributes")
  else
    E.log("WARNING", sformat("Component type %08X not known, creating UnknownComponent as placeholder",
      E.sdbm(type_name)))
  end
  local impl = known and IMPL[type_name] or IMPL.Component
  local proxy = setmetatable({}, impl.mt)
  local c = {kind = "component", type_name = type_name, proxy = proxy, node = node, enabled = true, id = 0,
             local_mode = mode == LOCAL or node.id >= FIRST_LOCAL_ID, wanted_id = id, placeholder = true,
             file_attrs = {}, file_attr_order = {}}
  REC[proxy] = c
  node.components[#node.components + 1] = c
  E.register_component(node.scene, c)
  E.scene_event(node.scene, "ComponentAdded", {Node = node.proxy, Component = proxy})
  return c
end

E.scene_placeholder = placeholder

local function safe_create(node, type_name, mode, id)
  if E.COMPONENT_FACTORIES[type_name] then
    local proxy = E.create_component(node, type_name, mode, id)
    return proxy and REC[proxy]
  end
  return placeholder(node, type_name, mode, id)
end

-- The source format: attribute entries and child entries of an XML element or a JSON object.
local XML = {}
function XML.attributes(elem)
  local out = {}
  for _, c in ipairs(elem.children) do
    if c.name == "attribute" then out[#out + 1] = {c.attrs.name or "", c} end
  end
  return out
end
function XML.text(entry) return entry.attrs.value or "" end
function XML.tags(entry)
  local out = {}
  for _, c in ipairs(entry.children) do if c.name == "string" then out[#out + 1] = c.attrs.value or "" end end
  return out
end
function XML.vars(entry, names)
  local values, order = {}, {}
  for _, c in ipairs(entry.children) do
    if c.name == "variant" then
      local key = c.attrs.name
      if key == nil then
        local hash = T.uint(c.attrs.hash)
        key = names[hash] or hash
      end
      if values[key] == nil then order[#order + 1] = key end
      values[key] = E.xml_variant(c, nil, names)
    end
  end
  return values, order
end
function XML.components(elem)
  local out = {}
  for _, c in ipairs(elem.children) do
    if c.name == "component" then out[#out + 1] = {c.attrs.type or "", T.uint(c.attrs.id), c} end
  end
  return out
end
function XML.nodes(elem)
  local out = {}
  for _, c in ipairs(elem.children) do if c.name == "node" then out[#out + 1] = {T.uint(c.attrs.id), c} end end
  return out
end
XML.label = "XML"

local JSON = {}
local function jget(node, key) return node and J.get(node, key) end
local function jtext(node)
  if node == nil then return "" end
  if node.t == J.STRING then return node.v end
  if node.t == J.BOOL then return node.v and "true" or "false" end
  if node.t == J.NUMBER then
    if node.n == 1 or node.n == 2 then return sformat("%d", mtointeger(node.v) or 0) end
    return sformat("%.17g", node.v)
  end
  return ""
end
local function juint(node) return node and node.t == J.NUMBER and T.uint(jtext(node)) or 0 end
function JSON.attributes(obj)
  local out = {}
  local a = jget(obj, "attributes")
  if a == nil or a.t == J.NULL then return out end
  if a.t ~= J.OBJECT then
    E.log("WARNING", "'attributes' object is present but is not a JSON object; skipping load")
    return out
  end
  for _, k in ipairs(a.v.keys) do out[#out + 1] = {k, a.v.map[k]} end
  return out
end
JSON.text = jtext
function JSON.tags(entry)
  local out = {}
  if entry.t == J.ARRAY then for i, c in ipairs(entry.v) do out[i] = jtext(c) end end
  return out
end
function JSON.vars(entry, names)
  local m = E.json_variant_of(entry, "VariantMap", names).value_
  local values = E.variant_map_store[m] or {}
  local order = {}
  if entry.t == J.OBJECT then
    for _, k in ipairs(entry.v.keys) do
      local hash = T.uint(tostring(tonumber(k, 16) or 0))
      local key = names[hash] or hash
      if values[key] ~= nil then order[#order + 1] = key end
    end
  end
  return values, order
end
function JSON.components(obj)
  local out = {}
  local list = jget(obj, "components")
  if list and list.t == J.ARRAY then
    for _, c in ipairs(list.v) do out[#out + 1] = {jtext(jget(c, "type")), juint(jget(c, "id")), c} end
  end
  return out
end
function JSON.nodes(obj)
  local out = {}
  local list = jget(obj, "children")
  if list and list.t == J.ARRAY then
    for _, c in ipairs(list.v) do out[#out + 1] = {juint(jget(c, "id")), c} end
  end
  return out
end
JSON.label = "JSON"

-- Serializable::LoadXML / LoadJSON for one object.
local function load_attributes(r, source, fmt)
  local list = table_of(r)
  local entries = fmt.attributes(source)
  if list == nil then   -- no table: every attribute is kept as text (placeholders, components not listed here)
    r.file_attrs, r.file_attr_order = r.file_attrs or {}, r.file_attr_order or {}
    for _, e in ipairs(entries) do
      if r.file_attrs[e[1]] == nil then r.file_attr_order[#r.file_attr_order + 1] = e[1] end
      r.file_attrs[e[1]] = fmt.text(e[2])
    end
    return
  end
  local find = finder(list)
  for _, e in ipairs(entries) do
    local a = find(e[1])
    if a == nil then
      E.log("WARNING", "Unknown attribute " .. e[1] .. " in " .. fmt.label .. " data")
    elseif a[2] == "tags" then
      NM.RemoveAllTags(r.proxy)
      for _, t in ipairs(fmt.tags(e[2])) do NM.AddTag(r.proxy, t) end
    elseif a[2] == "vars" then
      vars_set(r, fmt.vars(e[2], var_names_of(r)))
    else
      apply(r, a, fmt.text(e[2]))
    end
  end
end

local WORK_LIMIT = 1000000   -- nodes and components one load may create (engine work no budget charges)
-- Node::LoadXML(source, resolver, loadChildren, rewriteIDs, mode) / LoadJSON: replaces r's children and components.
local function load_node(r, source, fmt, ctx)
  NM.RemoveAllChildren(r.proxy)
  NM.RemoveAllComponents(r.proxy)
  load_attributes(r, source, fmt)
  for _, entry in ipairs(fmt.components(source)) do
    ctx.work = ctx.work + 1
    if ctx.work > WORK_LIMIT then error("grader: a scene file creates more than " .. WORK_LIMIT .. " objects", 0) end
    local type_name, id, body = entry[1], entry[2], entry[3]
    local mode = (ctx.mode == REPLICATED and id < FIRST_LOCAL_ID) and REPLICATED or LOCAL
    local c = safe_create(r, type_name, mode, ctx.rewrite and 0 or id)
    if c then load_attributes(c, body, fmt) end
  end
  if not ctx.children then return end
  for _, entry in ipairs(fmt.nodes(source)) do
    ctx.work = ctx.work + 1
    if ctx.work > WORK_LIMIT then error("grader: a scene file creates more than " .. WORK_LIMIT .. " objects", 0) end
    local id, body = entry[1], entry[2]
    local mode = (ctx.mode == REPLICATED and id < FIRST_LOCAL_ID) and REPLICATED or LOCAL
    local child = E.create_child(r, mode, ctx.rewrite and 0 or id)
    load_node(child, body, fmt, ctx)
  end
end

----------------------------------------------------------------------------------------------------
-- Saving
----------------------------------------------------------------------------------------------------
local function saved_attributes(r)
  local list, defaults = table_of(r)
  local out = {}
  if list == nil then
    for _, name in ipairs(r.file_attr_order or {}) do out[#out + 1] = {name, "text", r.file_attrs[name]} end
    return out
  end
  for _, a in ipairs(list) do
    local v = current(r, a)
    if a[2] == "tags" then
      out[#out + 1] = {a[1], "tags", v}
    elseif a[2] == "vars" then
      out[#out + 1] = {a[1], "vars", v}
    elseif v ~= nil and (defaults or v ~= a[3]) then
      out[#out + 1] = {a[1], "text", v}
    end
  end
  return out
end

local function xml_attribute(parent, entry)
  local elem = E.xml_new_element("attribute", parent)
  parent.children[#parent.children + 1] = elem
  E.xml_set_attr(elem, "name", entry[1])
  if entry[2] == "tags" then
    for _, t in ipairs(entry[3]) do
      local s = E.xml_new_element("string", elem)
      elem.children[#elem.children + 1] = s
      E.xml_set_attr(s, "value", t)
    end
  elseif entry[2] == "vars" then
    local values, order = entry[3][1], entry[3][2]
    for _, k in ipairs(order) do
      local key = type(k) == "string" and E.sdbm(k) or k
      local v = values[key]
      if v ~= nil then
        local c = E.xml_new_element("variant", elem)
        elem.children[#elem.children + 1] = c
        E.xml_set_attr(c, "hash", S.int(key))
        E.xml_set_attr(c, "type", v.type_)
        E.xml_set_variant_value(c, v)
      end
    end
  else
    E.xml_set_attr(elem, "value", entry[3])
  end
end
-- Node::SaveXML into `elem` (an element named node or scene).
local function save_node_xml(r, elem)
  E.xml_set_attr(elem, "id", S.int(r.id))
  for _, entry in ipairs(saved_attributes(r)) do xml_attribute(elem, entry) end
  for _, c in ipairs(r.components) do
    if not c.temporary then
      local ce = E.xml_new_element("component", elem)
      elem.children[#elem.children + 1] = ce
      E.xml_set_attr(ce, "type", c.type_name)
      E.xml_set_attr(ce, "id", S.int(c.id))
      for _, entry in ipairs(saved_attributes(c)) do xml_attribute(ce, entry) end
    end
  end
  for _, child in ipairs(r.children) do
    if not child.temporary then
      local ne = E.xml_new_element("node", elem)
      elem.children[#elem.children + 1] = ne
      save_node_xml(child, ne)
    end
  end
end

-- A saved attribute as JSON, as Serializable::SaveJSON writes it (JSONValue::SetVariantValue of its type).
local function json_attribute(r, entry)
  if entry[2] == "tags" then
    local arr = J.new(J.ARRAY, 0, {})
    for i, t in ipairs(entry[3]) do arr.v[i] = E.json_string_node(t) end
    return arr
  elseif entry[2] == "vars" then
    local values, order = entry[3][1], entry[3][2]
    local o = J.object()
    for _, k in ipairs(order) do
      local key = type(k) == "string" and E.sdbm(k) or k
      local v = values[key]
      if v ~= nil then
        local e = J.object()
        J.set(e, "type", E.json_string_node(v.type_))
        J.set(e, "value", E.json_variant_node(v))
        J.set(o, sformat("%08X", key), e)
      end
    end
    return o
  end
  local list = table_of(r)
  local kind
  for _, a in ipairs(list or {}) do if a[1] == entry[1] then kind = a[2] end end
  local text = entry[3]
  if kind == B then return E.json_bool_node(T.bool(text)) end
  if kind == I or kind == M then return J.number(T.int(text), 1) end
  if kind == U then return J.number(T.uint(text), 2) end
  if kind == F then return J.number(T.float(text), 3) end
  return E.json_string_node(text)
end
local function save_node_json(r)
  local o = J.object()
  J.set(o, "id", J.number(r.id, 2))
  local attrs_obj = J.object()
  for _, entry in ipairs(saved_attributes(r)) do J.set(attrs_obj, entry[1], json_attribute(r, entry)) end
  J.set(o, "attributes", attrs_obj)
  local comps = J.new(J.ARRAY, 0, {})
  for _, c in ipairs(r.components) do
    if not c.temporary then
      local co = J.object()
      J.set(co, "type", E.json_string_node(c.type_name))
      J.set(co, "id", J.number(c.id, 2))
      local ca = J.object()
      for _, entry in ipairs(saved_attributes(c)) do J.set(ca, entry[1], json_attribute(c, entry)) end
      J.set(co, "attributes", ca)
      comps.v[#comps.v + 1] = co
    end
  end
  J.set(o, "components", comps)
  local kids = J.new(J.ARRAY, 0, {})
  for _, child in ipairs(r.children) do
    if not child.temporary then kids.v[#kids.v + 1] = save_node_json(child) end
  end
  J.set(o, "children", kids)
  return o
end

----------------------------------------------------------------------------------------------------
-- Sources and destinations: a File, a file name, an XMLElement, a JSONValue
----------------------------------------------------------------------------------------------------
-- The text of a File (what is left to read, as XMLFile::Load reads it) or of a named file; and its name.
local function source_text(src)
  if type(src) == "string" then
    local path = E.clean_path(src)
    local data = E.fs_read(path)
    if data == nil then
      local found = E.find_game_file(path)
      data = found and E.fs_read(found) or E.stock_content(path)   -- then a stock file the engine ships
    end
    if data == nil then
      E.log("ERROR", "Could not open file " .. path)
      return nil
    end
    return data, path, data
  end
  local r = REC[src]
  if r == nil or not E.is(src, "File") then return nil end
  if not r.open or r.data == nil then return nil end
  local data = ssub(r.data, r.pos + 1)
  r.pos = #r.data
  return data, r.name, r.data
end
local function checksum(data)
  local h = 0
  for i = 1, #data do h = (string.byte(data, i) + (h << 6) + (h << 16) - h) & 0xffffffff end
  return h
end

-- The XML root of a source, and the file's name and text when it came from one.
local function xml_source(src)
  local node = E.xml_node(src)
  if node ~= nil then return node end
  if REC[src] and REC[src].kind == "xmlelement" then return nil end   -- a null element
  local text, name, whole = source_text(src)
  if text == nil then return nil end
  if text == "" then
    E.log("ERROR", "Zero sized XML data in " .. tostring(name))
    return nil
  end
  local doc, err = E.xml_parse_document(text)
  if doc == nil or doc.children[1] == nil then
    E.log("ERROR", "Could not parse XML data from " .. tostring(name) .. ": " .. (err or "no root element"))
    return nil
  end
  return doc.children[1], name, whole
end
local function json_source(src)
  local rj = REC[src]
  if rj and rj.kind == "json" then return rj.node end
  local text, name, whole = source_text(src)
  if text == nil then return nil end
  if text == "" then
    E.log("ERROR", "Zero sized JSON data in " .. tostring(name))
    return nil
  end
  local node, err = E.json_parse(text)
  if node == nil then
    E.log("ERROR", "Could not parse JSON data from " .. tostring(name) .. ": " .. err)
    return nil
  end
  return node, name, whole
end

-- Write `text` to a File open for writing or to a named file; the name written to.
local function destination(dest, text)
  if type(dest) == "string" then
    local path = E.clean_path(dest)
    if path == "" then return nil end
    E.fs_write(path, text)
    return path
  end
  local r = REC[dest]
  if r == nil or not E.is(dest, "File") or not r.open or r.mode == 0 then return nil end
  IMPL.File.methods.Write(dest, text)
  return r.name
end

----------------------------------------------------------------------------------------------------
-- The API
----------------------------------------------------------------------------------------------------
local function node_rec(self) return E.node_rec(self) end
local function mode_of(m) return m == LOCAL and LOCAL or REPLICATED end

local function run_load(r, root, fmt, ctx)
  ctx.work = 0
  load_node(r, root, fmt, ctx)
end

-- Node::LoadXML(source) and Node::LoadJSON(source): the node's attributes, components and children from an element.
NM.LoadXML = function(self, source, _resolver, load_children, rewrite, mode)
  local r = node_rec(self)
  local root = E.xml_node(source)
  if root == nil then
    E.log("ERROR", "Could not load " .. r.class_name .. ", null source element")
    return false
  end
  run_load(r, root, XML, {children = load_children ~= false, rewrite = rewrite == true, mode = mode_of(mode)})
  return true
end
NM.LoadJSON = function(self, source, _resolver, load_children, rewrite, mode)
  local r = node_rec(self)
  local rj = REC[source]
  if rj == nil or rj.kind ~= "json" or rj.node.t == J.NULL then
    E.log("ERROR", "Could not load " .. r.class_name .. ", null JSON source element")
    return false
  end
  run_load(r, rj.node, JSON, {children = load_children ~= false, rewrite = rewrite == true, mode = mode_of(mode)})
  return true
end
-- Node:SaveXML(File, indentation) / SaveJSON: the node as a document of its own.
NM.SaveXML = function(self, dest, indentation)
  local r = node_rec(self)
  local doc = E.xml_new_element("#document", nil)
  local root = E.xml_new_element(r.is_scene and "scene" or "node", doc)
  doc.children[1] = root
  save_node_xml(r, root)
  local name = destination(dest, E.xml_write(doc, indentation == nil and "\t" or tostring(indentation)))
  if name and r.is_scene then E.log("INFO", "Saving scene to " .. name) end
  return name ~= nil
end
NM.SaveJSON = function(self, dest, indentation)
  local r = node_rec(self)
  local name = destination(dest, E.json_write(save_node_json(r), indentation))
  if name and r.is_scene then E.log("INFO", "Saving scene to " .. name) end
  return name ~= nil
end

local SC = IMPL.Scene.methods
-- Scene::LoadXML(File | file name | XMLElement): the whole scene replaced by the file's.
local function scene_load(self, src, fmt)
  local r = E.scene_rec(self)
  local root, name, whole
  if fmt == XML then root, name, whole = xml_source(src) else root, name, whole = json_source(src) end
  if root == nil then return false end
  if name ~= nil then
    E.log("INFO", "Loading scene from " .. name)
    SC.Clear(self, true, true)
  end
  run_load(r, root, fmt, {children = true, rewrite = false, mode = REPLICATED})
  if name ~= nil then r.file_name, r.checksum = name, checksum(whole) end
  return true
end
SC.LoadXML = function(self, src) return scene_load(self, src, XML) end
-- The scene's variable names ("Variable Names": names for the hashes of node variables) and a hash's name.
SC.GetVarNamesAttr = function(self) return E.scene_rec(self).var_names or "" end
SC.SetVarNamesAttr = function(self, v) E.scene_rec(self).var_names = tostring(v or "") end
SC.GetVarName = function(self, hash)
  local h = E.is(hash, "StringHash") and hash.value_ or T.uint(tostring(hash))
  return var_names_of(E.scene_rec(self))[h] or ""
end
SC.LoadJSON = function(self, src) return scene_load(self, src, JSON) end
SC.SaveXML = NM.SaveXML
SC.SaveJSON = NM.SaveJSON
-- Scene::InstantiateXML(source, position, rotation, mode): a new child of the scene with new IDs throughout.
local function instantiate(self, src, position, rotation, mode, fmt)
  local r = E.scene_rec(self)
  local root
  if fmt == XML then root = xml_source(src) else root = json_source(src) end
  if root == nil then return nil end
  local node = E.create_child(r, mode_of(mode), 0)
  local ok, err = pcall(run_load, node, root, fmt, {children = true, rewrite = true, mode = mode_of(mode)})
  if not ok then
    NM.Remove(node.proxy)
    error(err, 0)
  end
  NM.SetTransform(node.proxy, position or E.Vector3_new(0, 0, 0), rotation or E.Quaternion_new(1, 0, 0, 0))
  return node.proxy
end
SC.InstantiateXML = function(self, src, position, rotation, mode) return instantiate(self, src, position, rotation,
  mode, XML) end
SC.InstantiateJSON = function(self, src, position, rotation, mode) return instantiate(self, src, position, rotation,
  mode, JSON) end
-- Scene:LoadAsyncXML(File | fileName[, mode]), as Urho3D's: the root's attributes and components at once, the root's
-- child nodes at the scene's next update, during which the scene does not update otherwise.  Urho3D loads as many
-- nodes per update as fit in asyncLoadingMs of wall time, which for most scenes is all of them; headless, all of
-- them load in that one update, so AsyncLoadFinished comes then with no AsyncLoadProgress before it.  Resources
-- load when first asked for, so LOAD_RESOURCES_ONLY finishes at the next update having done nothing.
local LOAD_RESOURCES_ONLY, LOAD_SCENE_AND_RESOURCES = 0, 2
local function stop_async(r) r.async = nil end
SC.LoadAsyncXML = function(self, src, mode)
  local r = E.scene_rec(self)
  mode = mtointeger(mode) or LOAD_SCENE_AND_RESOURCES
  if src == nil then
    E.log("ERROR", "Null file for async loading")
    return false
  end
  stop_async(r)
  local root, name, whole = xml_source(src)
  if root == nil then return false end
  if mode > LOAD_RESOURCES_ONLY then
    E.log("INFO", "Loading scene from " .. tostring(name))
    SC.Clear(self, true, true)
    run_load(r, root, XML, {children = false, rewrite = false, mode = REPLICATED})
  else
    E.log("INFO", "Preloading resources from " .. tostring(name))
  end
  r.async = {mode = mode, root = root, name = name, whole = whole, loaded = 0,
             total = mode > LOAD_RESOURCES_ONLY and #XML.nodes(root) or 0}
  return true
end
-- The scene's update while it loads (90_frame.lua): true when the scene skips the rest of its update.
function E.scene_async_update(r)
  local a = r.async
  if a == nil then return false end
  if a.mode > LOAD_RESOURCES_ONLY then
    local ctx = {children = true, rewrite = false, mode = REPLICATED, work = 0}
    for _, entry in ipairs(XML.nodes(a.root)) do
      local id = entry[1]
      load_node(E.create_child(r, id < FIRST_LOCAL_ID and REPLICATED or LOCAL, id), entry[2], XML, ctx)
      a.loaded = a.loaded + 1
    end
    if a.name ~= nil then r.file_name, r.checksum = a.name, checksum(a.whole) end
  end
  r.async = nil
  E.send_event("AsyncLoadFinished", {Scene = r.proxy}, r.proxy)
  return a.mode > LOAD_RESOURCES_ONLY
end
SC.StopAsyncLoading = function(self) stop_async(E.scene_rec(self)) end
SC.IsAsyncLoading = function(self) return E.scene_rec(self).async ~= nil end
SC.GetAsyncProgress = function(self)
  local a = E.scene_rec(self).async
  if a == nil or a.total == 0 then return 1.0 end
  return a.loaded / a.total
end
SC.GetAsyncLoadMode = function(self)
  local a = E.scene_rec(self).async
  return a and a.mode or LOAD_SCENE_AND_RESOURCES
end
SC.SetAsyncLoadingMs = function(self, ms) E.scene_rec(self).async_ms = math.max(1, mtointeger(ms) or 1) end
SC.GetAsyncLoadingMs = function(self) return E.scene_rec(self).async_ms or 5 end

-- The binary format (Scene::Load/Save/Instantiate, LoadAsync) is not implemented: say so instead of failing quietly.
for _, fmt in ipairs({"Load", "Save", "Instantiate", "LoadAsync"}) do
  SC[fmt] = function()
    E.log("ERROR", "Scene:" .. fmt .. " is not supported headless yet")
    return fmt == "Instantiate" and nil or false
  end
end

----------------------------------------------------------------------------------------------------
-- Serializable: attributes by name or index, as values
----------------------------------------------------------------------------------------------------
local VARIANT_TYPE_OF = {bool = "Bool", int = "Int", uint = "Int", mask = "Int", float = "Float", string = "String",
  vector2 = "Vector2", vector3 = "Vector3", vector4 = "Vector4", quaternion = "Quaternion", color = "Color",
  rect = "Rect", intrect = "IntRect", intvector2 = "IntVector2", enum = "Int", text = "String"}
-- Nodes and components have attribute tables; other Serializables (UI elements) do not, yet.
local function object_rec(self, method)
  local r = REC[self]
  if r ~= nil and r.kind ~= "node" and r.kind ~= "component" then
    local mt = E.dgetmt(self)
    return E.missing((mt and mt.__name or "Serializable") .. ":" .. method)
  end
  if r == nil then E.raise_at_game("invalid 'self' in call to Serializable:" .. method) end
  return r
end
local function attribute_at(r, key)
  local list = table_of(r) or {}
  if type(key) == "number" then return list[(mtointeger(key) or -1) + 1] end
  for _, a in ipairs(list) do if a[1] == key then return a end end
  return nil
end
local function as_variant(a, text)
  if a[2] == "enum" then return E.Variant_new("Int", enum_index(a[6], text) or 0) end
  local rt = smatch(a[2], "^ref:(.*)$")
  if rt then
    local t, name = smatch(text, "^([^;]*);(.*)$")
    return E.Variant_new("ResourceRef", E.ResourceRef_new(t or rt, name or ""))
  end
  local vt = VARIANT_TYPE_OF[a[2]]
  if vt == nil then return E.Variant_new("None", nil) end
  local conv = KIND[a[2]]
  return E.Variant_new(vt, conv and conv[1](text) or text)
end
local SER = class("Serializable").methods
SER.GetNumAttributes = function(self) return #(table_of(object_rec(self, "GetNumAttributes")) or {}) end
SER.GetAttribute = function(self, key)
  local r = object_rec(self, "GetAttribute")
  local a = attribute_at(r, key)
  if a == nil then return E.Variant_new("None", nil) end
  if a[2] == "tags" then return E.Variant_new("StringVector", {table.unpack(r.tags)}) end
  if a[2] == "vars" then return E.Variant_new("VariantMap", E.VariantMap_new((vars_get(r)))) end
  local text = current(r, a)
  if text == nil then text = a[3] end
  return as_variant(a, text)
end
SER.GetAttributeDefault = function(self, key)
  local a = attribute_at(object_rec(self, "GetAttributeDefault"), key)
  if a == nil or a[2] == "tags" or a[2] == "vars" then return E.Variant_new("None", nil) end
  return as_variant(a, a[3])
end
SER.SetAttribute = function(self, key, value)
  local r = object_rec(self, "SetAttribute")
  local a = attribute_at(r, key)
  if a == nil then
    E.log("ERROR", "Could not find attribute " .. tostring(key) .. " in " .. (r.type_name or r.class_name))
    return false
  end
  if a[2] == "tags" or a[2] == "vars" then return false end
  local v = E.variant_of(value)
  local text
  if a[2] == "enum" then text = a[6][(mtointeger(v.value_) or 0) + 1] or a[6][1]
  elseif v.type_ == "ResourceRef" then text = E.resource_ref_text(v.value_)
  elseif v.type_ == "String" then text = v.value_
  else
    local conv = E.VARIANT_TO_TEXT[v.type_]
    if conv == nil then return false end
    text = conv(v.value_)
  end
  apply(r, a, text)
  return true
end
SER.ApplyAttributes = function() end

-- Temporary objects (Serializable::SetTemporary): saving and cloning leave temporary nodes and components out
-- (save_node_xml, save_node_json above; Node:Clone).  A change sends TemporaryChanged from the object itself.
local function serializable_rec(self, method)
  local r = REC[self]
  if r == nil then E.raise_at_game("invalid 'self' in call to Serializable:" .. method) end
  if r.kind == "node" then return E.node_rec(self) end
  return r
end
SER.SetTemporary = function(self, enable)
  local r = serializable_rec(self, "SetTemporary")
  enable = enable ~= nil and enable ~= false
  if (r.temporary == true) == enable then return end
  r.temporary = enable
  E.send_event("TemporaryChanged", {Serializable = self}, self)
end
SER.IsTemporary = function(self) return serializable_rec(self, "IsTemporary").temporary == true end

-- Which replicated attributes a client hands to the game (the InterceptNetworkUpdate event) instead of applying:
-- kept per object by attribute name, for the names the object replicates.  A node replicates these (Urho3D's
-- network attributes of Node); a component the attributes of its scene-file table.
local NODE_NET_ATTRIBUTES = {"Is Enabled", "Name", "Tags", "Scale", "Network Position", "Network Rotation",
  "Network Parent Node"}
local function network_attribute(r, name)
  if r.kind == "node" then
    for _, n in ipairs(NODE_NET_ATTRIBUTES) do if n == name then return n end end
    return nil
  end
  for _, a in ipairs(table_of(r) or {}) do if a[1] == name then return name end end
  return nil
end
SER.SetInterceptNetworkUpdate = function(self, name, enable)
  local r = object_rec(self, "SetInterceptNetworkUpdate")
  local found = network_attribute(r, E.tolua_string(name, "SetInterceptNetworkUpdate", 1))
  if found == nil then return end
  r.intercept = r.intercept or {}
  r.intercept[found] = (enable ~= nil and enable ~= false) or nil
end
SER.GetInterceptNetworkUpdate = function(self, name)
  local r = object_rec(self, "GetInterceptNetworkUpdate")
  local found = network_attribute(r, E.tolua_string(name, "GetInterceptNetworkUpdate", 1))
  return found ~= nil and r.intercept ~= nil and r.intercept[found] == true
end
