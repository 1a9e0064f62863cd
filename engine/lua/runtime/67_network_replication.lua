-- Scene replication in runs with roles (67_network.lua), server-authoritative as Urho3D's: at each network update
-- the server sends every client whose scene is loaded what changed in the REPLICATED part of the connection's scene
-- since the last update it sent that client: nodes created (with their IDs, parents and attributes), attributes
-- changed, components created (with their IDs and attributes) and removed, nodes removed.  LOCAL nodes and
-- components (IDs from 0x1000000), and what lies under a LOCAL node, are never sent.  Attributes are the ones the
-- scene files use (68_scene_attributes.lua: node position, rotation, scale, name, enabled, tags, variables; each
-- implemented component's attributes), plus a few that scene files of this engine do not carry (Text3D's text).
-- Values cross exactly (the codec's doubles), so a client's copy equals the server's after each update.
local ipairs, pairs, type = ipairs, pairs, type
local smatch = string.match
local REC = E.REC
local FIRST_LOCAL_ID = 0x01000000

local function color_of(c, proxy) return E.IMPL.Text3D.methods.GetColor(proxy, 0) end
local function set_color(c, proxy, v) E.IMPL.Text3D.methods.SetColor(proxy, v) end
-- attributes replicated for components whose scene-file table this engine lacks: {name, kind, _, getter, setter}
local EXTRA = {
  Text3D = {
    {"Is Enabled", "bool", "true", "IsEnabled", "SetEnabled"},
    {"Text", "string", "", "GetText", "SetText"},
    {"Font Size", "float", "12", "GetFontSize", "SetFontSize"},
    {"Color", "color", "1 1 1 1", color_of, set_color},
    {"Opacity", "float", "1", "GetOpacity", "SetOpacity"},
    {"Horizontal Alignment", "int", "0", "GetHorizontalAlignment", "SetHorizontalAlignment"},
    {"Vertical Alignment", "int", "0", "GetVerticalAlignment", "SetVerticalAlignment"},
    {"Face Camera Mode", "int", "0", "GetFaceCameraMode", "SetFaceCameraMode"},
  },
}

local function attributes_of(r)
  local A = E.scene_attr
  local list = A.table_of(r)
  if list == nil and r.kind == "component" then list = EXTRA[r.type_name] end
  return list
end
local methods = {}   -- class name -> method name -> function(record, proxy, ...) or false
local function method_of(r, fn)
  if type(fn) == "function" then return fn end
  if type(fn) ~= "string" then return nil end
  local cname = r.type_name or r.class_name
  local by_name = methods[cname]
  if by_name == nil then by_name = {}; methods[cname] = by_name end
  local found = by_name[fn]
  if found == nil then
    local m = E.scene_attr.impl_method(cname, fn)
    found = m and function(_, proxy, ...) return m(proxy, ...) end or false
    by_name[fn] = found
  end
  return found or nil
end

-- An attribute's value as bytes (nil: the engine keeps no state for it, or cannot set it on a client).
local function attribute_bytes(r, a)
  local kind = a[2]
  if kind == "tags" then return E.net_encode(r.tags, "tags") end
  if kind == "vars" then return E.net_encode({order = r.var_order, vars = r.vars}, "node variables") end
  local get, set = method_of(r, a[4]), method_of(r, a[5])
  if get == nil or set == nil then return nil end
  local v = get(r, r.proxy)
  if smatch(kind, "^ref:") then
    local res = v and REC[v]
    v = res and res.name or ""
  elseif kind == "enum" then
    v = math.tointeger(v) or 0
  end
  return E.net_encode_value(v, "attribute " .. a[1])
end

local function apply_attribute(r, a, bytes)
  local kind = a[2]
  local v = E.net_decode(bytes)
  local NM = IMPL.Node.methods
  if kind == "tags" then
    NM.RemoveAllTags(r.proxy)
    for _, t in ipairs(v) do NM.AddTag(r.proxy, t) end
    return
  end
  if kind == "vars" then
    r.vars, r.var_order = v.vars or {}, v.order or {}
    return
  end
  local set = method_of(r, a[5])
  if set == nil then return end
  local rt = smatch(kind, "^ref:(.*)$")
  if rt then v = v ~= "" and E.get_resource(rt, v) or nil end
  set(r, r.proxy, v)
end

----------------------------------------------------------------------------------------------------
-- The server: one snapshot of each scene per update (Scene::PrepareNetworkUpdate), diffed per connection
----------------------------------------------------------------------------------------------------
local function snapshot(scene)
  local nodes, order = {}, {}
  local function object_state(r)
    local attrs, names = {}, {}
    for _, a in ipairs(attributes_of(r) or {}) do
      local bytes = attribute_bytes(r, a)
      if bytes ~= nil and attrs[a[1]] == nil then
        attrs[a[1]] = bytes
        names[#names + 1] = a[1]
      end
    end
    return attrs, names
  end
  local function visit(r, parent_id)
    local comps, comp_order = {}, {}
    for _, c in ipairs(r.components) do
      if c.id < FIRST_LOCAL_ID and not c.placeholder and not c.removed then
        local attrs, names = object_state(c)
        comps[c.id] = {type = c.type_name, attrs = attrs, names = names}
        comp_order[#comp_order + 1] = c.id
      end
    end
    local attrs, names = object_state(r)
    nodes[r.id] = {parent = parent_id, attrs = attrs, names = names, comps = comps, comp_order = comp_order}
    order[#order + 1] = r.id
    for _, child in ipairs(r.children) do
      if child.id < FIRST_LOCAL_ID and not child.removed then visit(child, r.id) end
    end
  end
  visit(scene, 0)
  return {nodes = nodes, order = order, scene_id = scene.id}
end

function E.net_prepare_scenes(connections)
  local prepared = {}
  for _, r in ipairs(connections) do
    if r.connected and r.scene ~= nil and r.scene_loaded and prepared[r.scene] == nil then
      prepared[r.scene] = snapshot(r.scene)
    end
  end
  return prepared
end

local function changed(now, before, names)
  local out, any = {}, false
  for _, name in ipairs(names) do
    if before == nil or before[name] ~= now[name] then
      out[#out + 1] = {name, now[name]}
      any = true
    end
  end
  return any and out or nil
end

-- Connection::SendServerUpdate: what changed since the last update sent on this connection.
function E.net_scene_update(conn, prepared)
  local snap = prepared[conn.scene]
  if snap == nil then return end
  local sent = conn.repl or {nodes = {}}
  local ops = {}
  for _, id in ipairs(snap.order) do
    local now, before = snap.nodes[id], sent.nodes[id]
    local attrs = changed(now.attrs, before and before.attrs, now.names)
    if before == nil or before.parent ~= now.parent or attrs then
      ops[#ops + 1] = {op = "node", id = id, parent = now.parent, attrs = attrs or {}, scene = id == snap.scene_id}
    end
    for _, cid in ipairs(now.comp_order) do
      local c, cb = now.comps[cid], before and before.comps[cid]
      local cattrs = changed(c.attrs, cb and cb.attrs, c.names)
      if cb == nil or cattrs then
        ops[#ops + 1] = {op = "comp", node = id, id = cid, type = c.type, attrs = cattrs or {}}
      end
    end
    if before then
      for _, cid in ipairs(before.comp_order) do
        if now.comps[cid] == nil then ops[#ops + 1] = {op = "rmcomp", id = cid} end
      end
    end
  end
  -- removed nodes, children before their parents (the reverse of the order they were sent in)
  local before_order = sent.order or {}
  for i = #before_order, 1, -1 do
    local id = before_order[i]
    if snap.nodes[id] == nil then ops[#ops + 1] = {op = "rmnode", id = id} end
  end
  conn.repl = snap
  if #ops > 0 then E.net_queue(conn, {k = "scene", ops = ops}) end
end

----------------------------------------------------------------------------------------------------
-- A client: apply an update to the connection's scene (Connection::ProcessSceneUpdate)
----------------------------------------------------------------------------------------------------
local function find_attribute(r, name)
  for _, a in ipairs(attributes_of(r) or {}) do
    if a[1] == name then return a end
  end
  return nil
end
local function apply_all(r, attrs)
  for _, pair in ipairs(attrs) do
    local a = find_attribute(r, pair[1])
    if a then apply_attribute(r, a, pair[2]) end
  end
end

function E.net_apply_scene_update(scene, m)
  local NM = IMPL.Node.methods
  for _, op in ipairs(m.ops) do
    if op.op == "node" then
      local r
      if op.scene then
        r = scene
      else
        r = scene.nodes[op.id]
        local parent = scene.nodes[op.parent] or scene
        if op.parent == 0 then parent = scene end
        if r == nil then
          r = E.create_child(parent, 0, op.id)
        elseif r.parent ~= parent then
          NM.SetParent(r.proxy, parent.proxy)
        end
      end
      apply_all(r, op.attrs)
    elseif op.op == "comp" then
      local node = op.node == scene.id and scene or scene.nodes[op.node]
      local c = scene.component_ids[op.id]
      if c == nil and node then
        local proxy = E.create_component(node, op.type, 0, op.id)
        c = proxy and REC[proxy]
      end
      if c then apply_all(c, op.attrs) end
    elseif op.op == "rmcomp" then
      local c = scene.component_ids[op.id]
      if c then E.remove_component(c) end
    elseif op.op == "rmnode" then
      local r = scene.nodes[op.id]
      if r and r ~= scene then NM.Remove(r.proxy) end
    end
  end
end
