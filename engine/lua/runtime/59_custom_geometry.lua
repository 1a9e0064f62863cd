-- CustomGeometry: vertices defined in code, per geometry, committed to the drawable (its bounding box and the
-- triangles raycasts hit); UrhoX's ProceduralGeometry builders that have an implementation here (ConvexGeometry).
-- Urho3D's semantics: a new CustomGeometry has one geometry; BeginGeometry(i) clears geometry i's vertices;
-- DefineNormal/Color/TexCoord/Tangent set the last vertex's and add their element to the vertex format; Commit
-- merges every defined vertex into the bounding box; Clear() drops the geometries (and the triangles raycasts
-- test) but keeps the bounding box until the next Commit.  GetVertex returns the vertex itself: changing its fields
-- changes the geometry's definition, as Urho3D's pointer does.
local error, type, setmetatable, ipairs, tostring = error, type, setmetatable, ipairs, tostring
local sformat, spack, tconcat = string.format, string.pack, table.concat
local mfloor, mmax, mmin, sqrt, abs = math.floor, math.max, math.min, math.sqrt, math.abs
local REC, typed_comp_rec = E.REC, E.typed_comp_rec
local INF = math.huge
local MASK_POSITION, MASK_NORMAL, MASK_COLOR, MASK_TEXCOORD1, MASK_TANGENT = 1, 2, 4, 8, 128

local function num(v, what, i)
  if type(v) ~= "number" then
    E.raise_at_game(sformat("bad argument #%d to '%s' (number expected, got %s)", i, what, type(v)))
  end
  return v
end
local function vec(v, what, fields)
  if type(v) ~= "table" then
    E.raise_at_game(sformat("bad argument #1 to '%s' (%s expected, got %s)", what, fields.name, type(v)))
  end
  for _, f in ipairs(fields) do
    if type(v[f]) ~= "number" then
      E.raise_at_game(sformat("bad argument #1 to '%s' (%s expected)", what, fields.name))
    end
  end
  return v
end
local V3, V2, V4, COL = {"x", "y", "z", name = "Vector3"}, {"x", "y", name = "Vector2"},
  {"x", "y", "z", "w", name = "Vector4"}, {"r", "g", "b", "a", name = "Color"}

-- A geometry's vertices are kept flat, as numbers in arrays (a real game defines hundreds of thousands: a table and
-- four vectors per vertex held ten times the bytes): `p` the positions x,y,z,...; `nm`, `col`, `uv`, `tg` the
-- normals, colours, texture coordinates and tangents, each made when a vertex first defines one (zeros for the
-- vertices before). A vertex handed out by GetVertex becomes a CustomGeometryVertex of its own (`views[i]`), the
-- truth for that vertex from then on, so changing its fields changes the definition. Commit shares the position
-- array with the committed geometry (`shared`) until the next change copies it.
local vertex_mt = class("CustomGeometryVertex").mt
local function new_slot() return {prim = 0, n = 0, p = {}, material = nil} end
local function zeros(arr, from, to) for k = from, to do arr[k] = 0 end end
-- an optional array, made for the `n` vertices so far when first needed
local function need(s, key, width)
  local arr = s[key]
  if arr == nil then
    arr = {}
    zeros(arr, 1, width * s.n)
    s[key] = arr
  end
  return arr
end
local OPTIONAL = {{"nm", 3}, {"col", 1}, {"uv", 2}, {"tg", 4}}
local function own_positions(s)
  if s.shared then
    local copy = {}
    for k = 1, 3 * s.n do copy[k] = s.p[k] end
    s.p, s.shared = copy, false
  end
  return s.p
end
local function push_vertex(s, x, y, z)
  local p = own_positions(s)
  local n = s.n + 1
  p[3 * n - 2], p[3 * n - 1], p[3 * n] = x, y, z
  for _, o in ipairs(OPTIONAL) do
    local arr = s[o[1]]
    if arr then zeros(arr, o[2] * (n - 1) + 1, o[2] * n) end
  end
  s.n = n
end
local function truncate(s, n)
  local p = own_positions(s)
  for k = 3 * s.n, 3 * n + 1, -1 do p[k] = nil end
  for _, o in ipairs(OPTIONAL) do
    local arr = s[o[1]]
    if arr then for k = o[2] * s.n, o[2] * n + 1, -1 do arr[k] = nil end end
  end
  if s.views then for i = s.n, n + 1, -1 do s.views[i] = nil end end
  s.n = n
end
-- vertex i's values (1-based), from its CustomGeometryVertex once one was handed out
local function position(s, i)
  local v = s.views and s.views[i]
  if v then local q = v.position; return q.x, q.y, q.z end
  local p, k = s.p, 3 * i
  return p[k - 2], p[k - 1], p[k]
end
local function normal(s, i)
  local v = s.views and s.views[i]
  if v then local q = v.normal; return q.x, q.y, q.z end
  local a, k = s.nm, 3 * i
  if a == nil then return 0, 0, 0 end
  return a[k - 2], a[k - 1], a[k]
end
local function color(s, i)
  local v = s.views and s.views[i]
  if v then return v.color end
  return s.col and s.col[i] or 0
end
local function tex_coord(s, i)
  local v = s.views and s.views[i]
  if v then local q = v.texCoord; return q.x, q.y end
  local a, k = s.uv, 2 * i
  if a == nil then return 0, 0 end
  return a[k - 1], a[k]
end
local function tangent(s, i)
  local v = s.views and s.views[i]
  if v then local q = v.tangent; return q.x, q.y, q.z, q.w end
  local a, k = s.tg, 4 * i
  if a == nil then return 0, 0, 0, 0 end
  return a[k - 3], a[k - 2], a[k - 1], a[k]
end
local function view(s, i)
  local views = s.views
  if views == nil then views = {}; s.views = views end
  local v = views[i]
  if v == nil then
    local tx, ty, tz, tw = tangent(s, i)
    local u, w = tex_coord(s, i)
    v = setmetatable({position = E.Vector3_new(position(s, i)), normal = E.Vector3_new(normal(s, i)),
      color = color(s, i), texCoord = E.Vector2_new(u, w), tangent = E.IMPL.Vector4.new(tx, ty, tz, tw)}, vertex_mt)
    views[i] = v
  end
  return v
end
-- an independent copy of a geometry's definition (Clone), every vertex as it is now
local function copy_slot(s)
  local out = new_slot()
  out.prim, out.material = s.prim, s.material
  for i = 1, s.n do push_vertex(out, position(s, i)) end
  local nm, col, uv, tg = need(out, "nm", 3), need(out, "col", 1), need(out, "uv", 2), need(out, "tg", 4)
  for i = 1, s.n do
    nm[3 * i - 2], nm[3 * i - 1], nm[3 * i] = normal(s, i)
    col[i] = color(s, i)
    uv[2 * i - 1], uv[2 * i] = tex_coord(s, i)
    tg[4 * i - 3], tg[4 * i - 2], tg[4 * i - 1], tg[4 * i] = tangent(s, i)
  end
  return out
end

local CG = class("CustomGeometry")
local drawable = E.drawable_factory({})
E.COMPONENT_FACTORIES.CustomGeometry = function(c)
  drawable(c)
  c.slots = {new_slot()}
  c.geometry_index = 0
  c.element_mask = MASK_POSITION
  c.dynamic = false
  c.committed = {bbox = nil, geoms = {}, mask = MASK_POSITION, vertices = 0}
  c.clone_into = function(src, dst)
    E.clone_drawable(src, dst)
    dst.slots = {}
    for i, s in ipairs(src.slots) do dst.slots[i] = copy_slot(s) end
  end
end
local function crec(self) return typed_comp_rec(self, "CustomGeometry") end
local M = CG.methods
M.Clear = function(self)
  local c = crec(self)
  c.element_mask, c.slots = MASK_POSITION, {}
  c.committed.geoms = {}
end
M.SetNumGeometries = function(self, n)
  local c = crec(self)
  n = mmax(mfloor(num(n, "SetNumGeometries", 1)), 0)
  for i = #c.slots + 1, n do c.slots[i] = new_slot() end
  for i = #c.slots, n + 1, -1 do c.slots[i] = nil end
  for i = #c.committed.geoms, n + 1, -1 do c.committed.geoms[i] = nil end
end
M.GetNumGeometries = function(self) return #crec(self).slots end
M.SetDynamic = function(self, v) crec(self).dynamic = v and true or false end
M.IsDynamic = function(self) return crec(self).dynamic end
-- The geometry being defined, or nil (Urho3D writes out of bounds there; this engine logs it and ignores it).
local function current(c)
  local s = c.slots[c.geometry_index + 1]
  if s == nil then
    if not c.said_bounds then
      c.said_bounds = true
      E.log("ERROR", sformat("CustomGeometry: geometry index %d out of bounds (%d geometries): SetNumGeometries first",
        c.geometry_index, #c.slots))
    end
  end
  return s
end
M.BeginGeometry = function(self, index, prim)
  local c = crec(self)
  index = mfloor(num(index, "BeginGeometry", 1))
  if index < 0 or index > #c.slots then E.log("ERROR", "Geometry index out of bounds"); return end
  c.geometry_index = index
  local s = current(c)
  if s == nil then return end
  local fresh = new_slot()   -- the old vertices stay with whoever holds them (the committed copy, handed-out ones)
  fresh.prim, fresh.material = mfloor(prim or 0), s.material
  c.slots[index + 1] = fresh
  if index == 0 then c.element_mask = MASK_POSITION end
end
M.DefineVertex = function(self, p)
  local c = crec(self)
  vec(p, "DefineVertex", V3)
  local s = current(c)
  if s then push_vertex(s, p.x, p.y, p.z) end
end
-- the geometry whose last vertex a Define* call sets, and that vertex's index (nothing when there is none)
local function last(c)
  local s = current(c)
  if s == nil or s.n == 0 then return nil end
  return s, s.n
end
M.DefineNormal = function(self, n)
  local c = crec(self)
  vec(n, "DefineNormal", V3)
  local s, i = last(c)
  if s == nil then return end
  local a = need(s, "nm", 3)
  a[3 * i - 2], a[3 * i - 1], a[3 * i] = n.x, n.y, n.z
  if s.views and s.views[i] then s.views[i].normal = E.Vector3_new(n.x, n.y, n.z) end
  c.element_mask = c.element_mask | MASK_NORMAL
end
M.DefineColor = function(self, col)
  local c = crec(self)
  vec(col, "DefineColor", COL)
  local s, i = last(c)
  if s == nil then return end
  local u = col:ToUInt()
  need(s, "col", 1)[i] = u
  if s.views and s.views[i] then s.views[i].color = u end
  c.element_mask = c.element_mask | MASK_COLOR
end
M.DefineTexCoord = function(self, t)
  local c = crec(self)
  vec(t, "DefineTexCoord", V2)
  local s, i = last(c)
  if s == nil then return end
  local a = need(s, "uv", 2)
  a[2 * i - 1], a[2 * i] = t.x, t.y
  if s.views and s.views[i] then s.views[i].texCoord = E.Vector2_new(t.x, t.y) end
  c.element_mask = c.element_mask | MASK_TEXCOORD1
end
M.DefineTangent = function(self, t)
  local c = crec(self)
  vec(t, "DefineTangent", V4)
  local s, i = last(c)
  if s == nil then return end
  local a = need(s, "tg", 4)
  a[4 * i - 3], a[4 * i - 2], a[4 * i - 1], a[4 * i] = t.x, t.y, t.z, t.w
  if s.views and s.views[i] then s.views[i].tangent = E.IMPL.Vector4.new(t.x, t.y, t.z, t.w) end
  c.element_mask = c.element_mask | MASK_TANGENT
end
M.DefineGeometry = function(self, index, prim, count, normals, colors, uvs, tangents)
  local c = crec(self)
  index = mfloor(num(index, "DefineGeometry", 1))
  if index < 0 or index > #c.slots then E.log("ERROR", "Geometry index out of bounds"); return end
  c.geometry_index = index
  local s = current(c)
  if s == nil then return end
  count = mmax(mfloor(num(count, "DefineGeometry", 3)), 0)
  s.prim = mfloor(prim or 0)
  for _ = s.n + 1, count do push_vertex(s, 0, 0, 0) end
  if count < s.n then truncate(s, count) end
  if index == 0 then c.element_mask = MASK_POSITION end
  if normals then c.element_mask = c.element_mask | MASK_NORMAL end
  if colors then c.element_mask = c.element_mask | MASK_COLOR end
  if uvs then c.element_mask = c.element_mask | MASK_TEXCOORD1 end
  if tangents then c.element_mask = c.element_mask | MASK_TANGENT end
end
M.Commit = function(self)
  local c = crec(self)
  local x0, y0, z0, x1, y1, z1 = INF, INF, INF, -INF, -INF, -INF
  local geoms, total = {}, 0
  for i, s in ipairs(c.slots) do
    local pos = s.p
    if s.views and next(s.views) ~= nil then   -- vertices handed out may have changed: the positions as they are
      pos = {}
      for j = 1, s.n do pos[3 * j - 2], pos[3 * j - 1], pos[3 * j] = position(s, j) end
    else
      s.shared = true   -- the committed geometry keeps this array until a change copies it (own_positions)
    end
    for k = 1, 3 * s.n, 3 do
      local x, y, z = pos[k], pos[k + 1], pos[k + 2]
      if x < x0 then x0 = x end
      if y < y0 then y0 = y end
      if z < z0 then z0 = z end
      if x > x1 then x1 = x end
      if y > y1 then y1 = y end
      if z > z1 then z1 = z end
    end
    geoms[i] = {prim = s.prim, positions = pos, start = total, count = s.n}
    total = total + s.n
  end
  local bbox = nil
  if x0 ~= INF then bbox = {x0, y0, z0, x1, y1, z1} end
  c.committed = {bbox = bbox, geoms = geoms, mask = c.element_mask, vertices = total}
  c.commits = (c.commits or 0) + 1
end
M.SetMaterial = function(self, a, b)
  local c = crec(self)
  if b == nil and (a == nil or type(a) ~= "number") then
    for _, s in ipairs(c.slots) do s.material = a end
    return
  end
  local s = c.slots[mfloor(num(a, "SetMaterial", 1)) + 1]
  if s == nil then E.log("ERROR", "Material index out of bounds"); return false end
  s.material = b
  return true
end
M.GetMaterial = function(self, index)
  local s = crec(self).slots[(index or 0) + 1]
  return s and s.material
end
M.GetNumVertices = function(self, index)
  local s = crec(self).slots[(index or 0) + 1]
  return s and s.n or 0
end
M.GetVertex = function(self, gi, vi)
  local s = crec(self).slots[(gi or 0) + 1]
  local i = (vi or 0) + 1
  if s == nil or i < 1 or i > s.n or mfloor(i) ~= i then return nil end
  own_positions(s)   -- the vertex handed out may change: the committed geometry keeps its copy
  return view(s, i)
end
-- FillModel: the committed vertices as a model, one vertex buffer in the committed format, a geometry per
-- CustomGeometry geometry over its range, the bounding box.
M.FillModel = function(self, model)
  local c = crec(self)
  local r = model and REC[model]
  if r == nil or r.type_name ~= "Model" then
    E.raise_at_game(sformat("bad argument #1 to 'FillModel' (Model expected, got %s)", type(model)))
  end
  local com = c.committed
  if com.vertices == 0 then return false end
  local mask = com.mask
  local parts = {}
  for i, s in ipairs(c.slots) do
    if com.geoms[i] then
      for j = 1, s.n do
        local bytes = {spack("<fff", position(s, j))}
        if mask & MASK_NORMAL ~= 0 then bytes[#bytes + 1] = spack("<fff", normal(s, j)) end
        if mask & MASK_COLOR ~= 0 then bytes[#bytes + 1] = spack("<I4", color(s, j) & 0xffffffff) end
        if mask & MASK_TEXCOORD1 ~= 0 then bytes[#bytes + 1] = spack("<ff", tex_coord(s, j)) end
        if mask & MASK_TANGENT ~= 0 then bytes[#bytes + 1] = spack("<ffff", tangent(s, j)) end
        parts[#parts + 1] = tconcat(bytes)
      end
    end
  end
  local vb = E.new_vertex_buffer()
  local vr = REC[vb]
  E.set_vertex_layout(vr, 0, mask, c.dynamic)
  vr.data = tconcat(parts)
  vr.count = #vr.data // mmax(vr.size, 1)
  local gs = {}
  for i, g in ipairs(com.geoms) do
    local geom = E.new_geometry()
    local gr = REC[geom]
    gr.vbs[1], gr.prim, gr.vertex_start, gr.vertex_count = vb, g.prim, g.start, g.count
    gs[i] = {lods = {geom}, center = {0.0, 0.0, 0.0}}
  end
  r.geometries, r.vertex_buffers, r.index_buffers, r.num_geometries = gs, {vb}, {}, #gs
  r.bbox = com.bbox and {com.bbox[1], com.bbox[2], com.bbox[3], com.bbox[4], com.bbox[5], com.bbox[6]}
  return true
end

-- The committed geometry of a CustomGeometry record for the engine: its local bounding box {x0,y0,z0,x1,y1,z1} or
-- nil, and its triangles.  E.custom_geometry_triangles(c, "committed") are what raycasts hit: each committed
-- geometry's vertices three at a time (Urho3D's raycast reads every draw range as a triangle list), one flat list
-- x,y,z,... per geometry.  E.custom_geometry_triangles(c, "defined") are what Urho3D's CollisionShape reads for a
-- custom triangle mesh or convex hull: every defined vertex of every geometry in order, committed or not, three to
-- a triangle, as one flat list (a trailing one or two vertices are left out).
function E.custom_geometry_box(c) return c.committed.bbox end
-- Every defined vertex's position, committed or not, as one flat list x,y,z,...: the points Urho3D's CollisionShape
-- builds a custom convex hull from.
function E.custom_geometry_points(c)
  local out = {}
  for _, s in ipairs(c.slots) do
    for j = 1, s.n do
      local k = #out
      out[k + 1], out[k + 2], out[k + 3] = position(s, j)
    end
  end
  return out
end
function E.custom_geometry_triangles(c, source)
  if source == "defined" then
    local out = E.custom_geometry_points(c)
    for k = #out, #out - (#out % 9) + 1, -1 do out[k] = nil end
    return out
  end
  local lists = {}
  local n = mmin(#c.committed.geoms, #c.slots)
  for i = 1, n do
    local pos = c.committed.geoms[i].positions
    local tris = {}
    for k = 1, #pos - (#pos % 9) do tris[k] = pos[k] end
    lists[i] = tris
  end
  return lists
end

----------------------------------------------------------------------------------------------------
-- ProceduralGeometry (UrhoX): a mesh built by a *Geometry() function, turned into a Model or poured into a
-- CustomGeometry.  Positions, normals and UVs per vertex; triangles as a flat index list; groups.
----------------------------------------------------------------------------------------------------
local PG = class("ProceduralGeometry")
-- uvs (u,v per vertex), groups ({start, count, material} index ranges, as three.js's) and prim (0 triangles, 1
-- lines) are optional: the shape builders of 59_procedural_shapes.lua pass them.
local function new_procedural(positions, normals, indices, uvs, groups, prim)
  local x0, y0, z0, x1, y1, z1 = INF, INF, INF, -INF, -INF, -INF
  for k = 1, #positions, 3 do
    local x, y, z = positions[k], positions[k + 1], positions[k + 2]
    x0, y0, z0 = mmin(x0, x), mmin(y0, y), mmin(z0, z)
    x1, y1, z1 = mmax(x1, x), mmax(y1, y), mmax(z1, z)
  end
  return E.new_object("ProceduralGeometry", {kind = "procedural", positions = positions, normals = normals,
    indices = indices, bbox = x0 ~= INF and {x0, y0, z0, x1, y1, z1} or nil, dynamic = false, shadowed = false,
    tangents = false, convert_handedness = false, uvs = uvs, groups = groups, prim = prim or 0})
end
E.new_procedural = new_procedural
local function prec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "procedural" then error("invalid 'self' (a ProceduralGeometry was expected)", 3) end
  return r
end
local PM = PG.methods
PM.SetConvertHandedness = function(self, v) prec(self).convert_handedness = v and true or false end
PM.SetDynamic = function(self, v) prec(self).dynamic = v and true or false end
PM.SetShadowed = function(self, v) prec(self).shadowed = v and true or false end
PM.SetGenerateTangents = function(self, v) prec(self).tangents = v and true or false end
PM.GetVertexCount = function(self) return #prec(self).positions // 3 end
PM.GetIndexCount = function(self) return #prec(self).indices end
PM.GetGroupCount = function(self)
  local r = prec(self)
  if r.groups then return #r.groups end
  return #r.positions > 0 and 1 or 0
end
PM.GetBoundingBox = function(self)
  local b = prec(self).bbox
  if b == nil then return E.IMPL.BoundingBox.new() end
  return E.BoundingBox_new(b[1], b[2], b[3], b[4], b[5], b[6])
end
-- Fill a CustomGeometry: one geometry, a triangle list of the mesh's triangles (indices expanded), committed.
PM.FillCustomGeometry = function(self, target)
  local r = prec(self)
  local c = REC[target]
  if c == nil or c.type_name ~= "CustomGeometry" then
    E.raise_at_game(sformat("bad argument #1 to 'FillCustomGeometry' (CustomGeometry expected, got %s)", type(target)))
  end
  local p = c.proxy
  M.SetNumGeometries(p, 1)
  M.BeginGeometry(p, 0, r.prim)
  local pos, nrm, uv = r.positions, r.normals, r.uvs
  for _, i in ipairs(r.indices) do
    M.DefineVertex(p, E.Vector3_new(pos[3 * i + 1], pos[3 * i + 2], pos[3 * i + 3]))
    M.DefineNormal(p, E.Vector3_new(nrm[3 * i + 1], nrm[3 * i + 2], nrm[3 * i + 3]))
    if uv then M.DefineTexCoord(p, E.Vector2_new(uv[2 * i + 1], uv[2 * i + 2])) end
  end
  M.Commit(p)
  return true
end
-- ToModel: a Model over one indexed list (position, normal, and UV when the mesh has them), a geometry per group
-- (one over every index when there are no groups).
PM.ToModel = function(self)
  local r = prec(self)
  local model = E.IMPL.Model.new()
  local mr = REC[model]
  local parts = {}
  local n = #r.positions // 3
  local uv = r.uvs
  for i = 0, n - 1 do
    parts[#parts + 1] = spack("<ffffff", r.positions[3 * i + 1], r.positions[3 * i + 2], r.positions[3 * i + 3],
      r.normals[3 * i + 1], r.normals[3 * i + 2], r.normals[3 * i + 3])
    if uv then parts[#parts + 1] = spack("<ff", uv[2 * i + 1], uv[2 * i + 2]) end
  end
  local vb = E.new_vertex_buffer()
  local vr = REC[vb]
  E.set_vertex_layout(vr, n, MASK_POSITION | MASK_NORMAL | (uv and MASK_TEXCOORD1 or 0), r.dynamic)
  vr.data, vr.shadowed = tconcat(parts), true
  local ib = E.IMPL.IndexBuffer.new()
  local ir = REC[ib]
  local large = n > 65535
  local ip = {}
  for i, x in ipairs(r.indices) do ip[i] = spack(large and "<I4" or "<I2", x) end
  ir.count, ir.size, ir.data, ir.shadowed = #r.indices, large and 4 or 2, tconcat(ip), true
  local ranges = (r.groups and #r.groups > 0) and r.groups or {{0, #r.indices}}
  local gs = {}
  for k, g in ipairs(ranges) do
    local geom = E.new_geometry()
    local gr = REC[geom]
    gr.vbs[1], gr.ib, gr.prim, gr.index_start, gr.index_count, gr.vertex_start, gr.vertex_count =
      vb, ib, r.prim or 0, g[1], g[2], 0, n
    gs[k] = {lods = {geom}, center = {0, 0, 0}}
  end
  mr.geometries, mr.vertex_buffers, mr.index_buffers, mr.num_geometries = gs, {vb}, {ib}, #gs
  mr.bbox = r.bbox and {r.bbox[1], r.bbox[2], r.bbox[3], r.bbox[4], r.bbox[5], r.bbox[6]}
  return model
end

-- ConvexGeometry(points): the convex hull of the points (three.js's ConvexGeometry, which UrhoX's builders follow
-- by name and signature): flat-shaded triangles, three vertices each with the face's outward normal, wound as
-- Urho3D's front faces.  Fewer than four points not all in one plane give an empty mesh and a logged warning.
local HULL_EPS = 1e-9
local function hull(points)
  local n = #points
  local function sub(a, b) return {a[1] - b[1], a[2] - b[2], a[3] - b[3]} end
  local function cross(a, b) return {a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1]} end
  local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
  local function len(a) return sqrt(dot(a, a)) end
  if n < 4 then return nil end
  -- scale for tolerances
  local extent = 0.0
  for _, p in ipairs(points) do extent = mmax(extent, abs(p[1]), abs(p[2]), abs(p[3])) end
  local eps = HULL_EPS * mmax(extent, 1.0)
  -- an initial tetrahedron: the two points farthest apart along X, the point farthest from their line, the point
  -- farthest from their plane
  local a, b = 1, 1
  for i, p in ipairs(points) do
    if p[1] < points[a][1] then a = i end
    if p[1] > points[b][1] then b = i end
  end
  if a == b then
    for i = 1, n do if len(sub(points[i], points[a])) > len(sub(points[b], points[a])) then b = i end end
  end
  local ab = sub(points[b], points[a])
  if len(ab) <= eps then return nil end
  local c, best = nil, eps
  for i, p in ipairs(points) do
    local d = len(cross(ab, sub(p, points[a]))) / len(ab)
    if d > best then c, best = i, d end
  end
  if c == nil then return nil end
  local normal = cross(ab, sub(points[c], points[a]))
  local d, best2 = nil, eps
  for i, p in ipairs(points) do
    local dist = abs(dot(normal, sub(p, points[a]))) / len(normal)
    if dist > best2 then d, best2 = i, dist end
  end
  if d == nil then return nil end
  -- faces {i, j, k, normal, offset} with outward normals (by the standard right-handed cross product)
  local faces = {}
  local centroid = {(points[a][1] + points[b][1] + points[c][1] + points[d][1]) / 4,
    (points[a][2] + points[b][2] + points[c][2] + points[d][2]) / 4,
    (points[a][3] + points[b][3] + points[c][3] + points[d][3]) / 4}
  local function make_face(i, j, k)
    local nrm = cross(sub(points[j], points[i]), sub(points[k], points[i]))
    local l = len(nrm)
    if l > 0 then nrm = {nrm[1] / l, nrm[2] / l, nrm[3] / l} end
    if dot(nrm, sub(centroid, points[i])) > 0 then j, k = k, j; nrm = {-nrm[1], -nrm[2], -nrm[3]} end
    return {i, j, k, nrm, dot(nrm, points[i]), alive = true}
  end
  faces[1], faces[2], faces[3], faces[4] = make_face(a, b, c), make_face(a, b, d), make_face(a, c, d), make_face(b, c, d)
  local used = {[a] = true, [b] = true, [c] = true, [d] = true}
  for pi = 1, n do
    if not used[pi] then
      local p = points[pi]
      local visible = {}
      for fi, f in ipairs(faces) do
        if f.alive and dot(f[4], p) - f[5] > eps then visible[#visible + 1] = fi end
      end
      if #visible > 0 then
        -- horizon: directed edges of visible faces whose reverse is not on a visible face
        local edges, order = {}, {}
        for _, fi in ipairs(visible) do
          local f = faces[fi]
          for _, e in ipairs({{f[1], f[2]}, {f[2], f[3]}, {f[3], f[1]}}) do
            local key, rkey = e[1] .. ":" .. e[2], e[2] .. ":" .. e[1]
            if edges[rkey] then edges[rkey] = false else edges[key] = e; order[#order + 1] = key end
          end
          f.alive = false
        end
        for _, key in ipairs(order) do
          local e = edges[key]
          if e then
            -- keep the visible face's orientation: new face (e1, e2, p)
            local nrm = cross(sub(points[e[2]], points[e[1]]), sub(p, points[e[1]]))
            local l = len(nrm)
            if l > 0 then nrm = {nrm[1] / l, nrm[2] / l, nrm[3] / l} end
            faces[#faces + 1] = {e[1], e[2], pi, nrm, dot(nrm, points[e[1]]), alive = true}
          end
        end
      end
    end
  end
  local out = {}
  for _, f in ipairs(faces) do if f.alive then out[#out + 1] = f end end
  return out
end
E.convex_hull = hull
FUNCTIONS.ConvexGeometry = function(points)
  if type(points) ~= "table" then
    E.raise_at_game(sformat("bad argument #1 to 'ConvexGeometry' (table of Vector3 expected, got %s)", type(points)))
  end
  local pts = {}
  for i, p in ipairs(points) do
    if type(p) ~= "table" or type(p.x) ~= "number" or type(p.y) ~= "number" or type(p.z) ~= "number" then
      E.raise_at_game(sformat("bad argument #1 to 'ConvexGeometry' (point %d is not a Vector3)", i))
    end
    pts[i] = {p.x, p.y, p.z}
  end
  local faces = hull(pts)
  local positions, normals, indices = {}, {}, {}
  if faces == nil then
    E.log("WARNING", "ConvexGeometry: fewer than four points not in one plane: the mesh is empty")
    return new_procedural(positions, normals, indices)
  end
  for _, f in ipairs(faces) do
    -- Urho3D's front face: (v1 - v0) x (v2 - v0) outward with v = (f1, f2, f3) as the hull stores them
    for _, vi in ipairs({f[1], f[2], f[3]}) do
      local p = pts[vi]
      positions[#positions + 1], positions[#positions + 2], positions[#positions + 3] = p[1], p[2], p[3]
      normals[#normals + 1], normals[#normals + 2], normals[#normals + 3] = f[4][1], f[4][2], f[4][3]
      indices[#indices + 1] = #indices
    end
  end
  return new_procedural(positions, normals, indices)
end
