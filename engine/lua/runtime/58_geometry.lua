-- Geometry data built in code, as Urho3D keeps it on the CPU: VertexElement, VertexBuffer and IndexBuffer (their
-- bytes, so VectorBuffer round trips are exact), Geometry (buffers and a draw range), Model:new with geometries and
-- LOD levels, a deep Model:Clone, and the stock models whose triangles are known without their files (Box, Plane,
-- Pyramid, Cylinder, Cone, built here at the models' unit size and tessellation).  Raycasts read these
-- (59_octree.lua).  A headless Urho3D keeps every buffer's data (it forces shadowing without a GPU); so does this
-- engine, whatever `shadowed` says.
local error, type, setmetatable, ipairs, pairs, tostring = error, type, setmetatable, ipairs, pairs, tostring
local sformat, spack, sunpack, srep, ssub = string.format, string.pack, string.unpack, string.rep, string.sub
local mfloor, mmin, mmax, sqrt, cos, sin, rad = math.floor, math.min, math.max, math.sqrt, math.cos, math.sin, math.rad
local tconcat = table.concat
local REC = E.REC
local INF = math.huge
local M_MAX_UNSIGNED = 4294967295

local TYPE_INT, TYPE_FLOAT, TYPE_VECTOR2, TYPE_VECTOR3, TYPE_VECTOR4, TYPE_UBYTE4, TYPE_UBYTE4_NORM = 0, 1, 2, 3, 4, 5, 6
local TYPE_BYTES = {[0] = 4, 4, 8, 12, 16, 4, 4}
local SEM_POSITION, SEM_NORMAL, SEM_TANGENT, SEM_TEXCOORD, SEM_COLOR = 0, 1, 3, 4, 5
local SEM_BLENDWEIGHTS, SEM_BLENDINDICES, SEM_OBJECTINDEX = 6, 7, 8
-- The elements behind the legacy element mask bits, in vertex order: type, semantic, index, per instance.
local LEGACY = {
  {TYPE_VECTOR3, SEM_POSITION, 0, false}, {TYPE_VECTOR3, SEM_NORMAL, 0, false},
  {TYPE_UBYTE4_NORM, SEM_COLOR, 0, false}, {TYPE_VECTOR2, SEM_TEXCOORD, 0, false},
  {TYPE_VECTOR2, SEM_TEXCOORD, 1, false}, {TYPE_VECTOR3, SEM_TEXCOORD, 0, false},
  {TYPE_VECTOR3, SEM_TEXCOORD, 1, false}, {TYPE_VECTOR4, SEM_TANGENT, 0, false},
  {TYPE_VECTOR4, SEM_BLENDWEIGHTS, 0, false}, {TYPE_UBYTE4, SEM_BLENDINDICES, 0, false},
  {TYPE_VECTOR4, SEM_TEXCOORD, 4, true}, {TYPE_VECTOR4, SEM_TEXCOORD, 5, true},
  {TYPE_VECTOR4, SEM_TEXCOORD, 6, true}, {TYPE_INT, SEM_OBJECTINDEX, 0, false},
}
E.GEOMETRY_CONST = {TYPE_BYTES = TYPE_BYTES, LEGACY = LEGACY, M_MAX_UNSIGNED = M_MAX_UNSIGNED}

local function int_arg(v, what, i)
  if type(v) ~= "number" then
    E.raise_at_game(sformat("bad argument #%d to '%s' (number expected, got %s)", i, what, type(v)))
  end
  return mfloor(v)
end

----------------------------------------------------------------------------------------------------
-- VertexElement
----------------------------------------------------------------------------------------------------
local VE = class("VertexElement")
local function new_element(t, sem, index, per_instance)
  return setmetatable({type = t or TYPE_VECTOR3, semantic = sem or SEM_POSITION, index = index or 0,
    perInstance = per_instance and true or false, offset = 0}, VE.mt)
end
VE.new = function(t, sem, index, per_instance)
  if t == nil then return new_element() end
  return new_element(int_arg(t, "VertexElement", 1), int_arg(sem, "VertexElement", 2), index and mfloor(index) or 0,
    per_instance)
end

-- Elements from a mask or a list of VertexElements, with their offsets; the vertex size and the legacy mask.
local function layout(spec)
  local elements, offset = {}, 0
  if type(spec) == "number" then
    local mask = mfloor(spec)
    for bit, d in ipairs(LEGACY) do
      if mask & (1 << (bit - 1)) ~= 0 then
        elements[#elements + 1] = {type = d[1], semantic = d[2], index = d[3], per_instance = d[4]}
      end
    end
  elseif type(spec) == "table" then
    for i, e in ipairs(spec) do
      if type(e) ~= "table" or type(e.type) ~= "number" or type(e.semantic) ~= "number" then
        E.raise_at_game(sformat("bad argument #2 to 'SetSize' (element %d is not a VertexElement)", i))
      end
      elements[#elements + 1] = {type = mfloor(e.type), semantic = mfloor(e.semantic), index = mfloor(e.index or 0),
        per_instance = e.perInstance and true or false}
    end
  else
    E.raise_at_game("bad argument #2 to 'SetSize' (element mask or VertexElement list expected)")
  end
  local mask = 0
  for _, e in ipairs(elements) do
    e.offset = offset
    offset = offset + (TYPE_BYTES[e.type] or 0)
    for bit, d in ipairs(LEGACY) do
      if e.type == d[1] and e.semantic == d[2] and e.index == d[3] and e.per_instance == d[4] then
        mask = mask | (1 << (bit - 1))
      end
    end
  end
  return elements, offset, mask
end
E.vertex_layout = layout

----------------------------------------------------------------------------------------------------
-- VertexBuffer
----------------------------------------------------------------------------------------------------
local VB = class("VertexBuffer")
local function new_vertex_buffer()
  return E.new_object("VertexBuffer", {kind = "vertexbuffer", count = 0, elements = {}, size = 0, mask = 0,
    dynamic = false, shadowed = false, data = "", version = 0})
end
E.new_vertex_buffer = new_vertex_buffer
VB.new = new_vertex_buffer
local function vbrec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "vertexbuffer" then error("invalid 'self' (a VertexBuffer was expected)", 3) end
  return r
end
-- The bytes of a VectorBuffer argument (its whole content, as Urho3D's binding reads it).
local function buffer_bytes(v, what)
  local r = REC[v]
  if r == nil or r.kind ~= "vbuf" then
    E.raise_at_game(sformat("bad argument #1 to '%s' (VectorBuffer expected, got %s)", what, type(v)))
  end
  return r.data
end
local function set_vertex_layout(r, count, spec, dynamic)
  local elements, size, mask = layout(spec)
  r.count, r.elements, r.size, r.mask, r.dynamic = mmax(count, 0), elements, size, mask, dynamic and true or false
  r.data = srep("\0", r.count * size)
  r.version = r.version + 1
end
E.set_vertex_layout = set_vertex_layout
local VBM = VB.methods
-- SetData and SetDataRange of a vertex or index buffer record (`what` names it in Urho3D's error)
local function set_buffer_data(r, buf)
  local bytes = buffer_bytes(buf, "SetData")
  local need = r.count * r.size
  if r.count == 0 or #bytes < need then return false end
  r.data = ssub(bytes, 1, need)
  r.version = r.version + 1
  return true
end
local function set_buffer_range(r, buf, start, count, what)
  local bytes = buffer_bytes(buf, "SetDataRange")
  start, count = int_arg(start, "SetDataRange", 2), int_arg(count, "SetDataRange", 3)
  if r.count == 0 or #bytes < count * r.size then return false end
  if start < 0 or count < 0 or start + count > r.count then
    E.log("ERROR", "Illegal range for setting new " .. what .. " buffer data")
    return false
  end
  if count == 0 then return true end
  r.data = ssub(r.data, 1, start * r.size) .. ssub(bytes, 1, count * r.size) .. ssub(r.data, (start + count) * r.size + 1)
  r.version = r.version + 1
  return true
end
VBM.SetShadowed = function(self, v) vbrec(self).shadowed = v and true or false end
VBM.IsShadowed = function(self) return vbrec(self).shadowed end
VBM.IsDynamic = function(self) return vbrec(self).dynamic end
VBM.SetSize = function(self, count, spec, dynamic)
  set_vertex_layout(vbrec(self), int_arg(count, "SetSize", 1), spec, dynamic)
  return true
end
VBM.SetData = function(self, buf) return set_buffer_data(vbrec(self), buf) end
VBM.SetDataRange = function(self, buf, start, count, _discard)
  return set_buffer_range(vbrec(self), buf, start, count, "vertex")
end
VBM.GetData = function(self) return E.VectorBuffer_new(vbrec(self).data) end
VBM.GetVertexCount = function(self) return vbrec(self).count end
VBM.GetVertexSize = function(self) return vbrec(self).size end
VBM.GetElementMask = function(self) return vbrec(self).mask end
VBM.GetElements = function(self)
  local out = {}
  for i, e in ipairs(vbrec(self).elements) do
    local v = new_element(e.type, e.semantic, e.index, e.per_instance)
    v.offset = e.offset
    out[i] = v
  end
  return out
end
-- Urho3D's binding tries the (type, semantic, index) overload first: one argument is a semantic, two or more a
-- type and a semantic.
local function find_element(r, a, b, c)
  local t, sem, index
  if b == nil then sem, index = a, 0 else t, sem, index = a, b, c or 0 end
  for _, e in ipairs(r.elements) do
    if (t == nil or e.type == t) and e.semantic == sem and e.index == index then return e end
  end
  return nil
end
E.find_vertex_element = find_element
VBM.HasElement = function(self, a, b, c) return find_element(vbrec(self), a, b, c) ~= nil end
VBM.GetElementOffset = function(self, a, b, c)
  local e = find_element(vbrec(self), a, b, c)
  return e and e.offset or M_MAX_UNSIGNED
end

----------------------------------------------------------------------------------------------------
-- IndexBuffer
----------------------------------------------------------------------------------------------------
local IB = class("IndexBuffer")
local function new_index_buffer()
  return E.new_object("IndexBuffer", {kind = "indexbuffer", count = 0, size = 0, dynamic = false, shadowed = false,
    data = "", version = 0})
end
IB.new = new_index_buffer
local function ibrec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "indexbuffer" then error("invalid 'self' (an IndexBuffer was expected)", 3) end
  return r
end
local IBM = IB.methods
IBM.SetShadowed = function(self, v) ibrec(self).shadowed = v and true or false end
IBM.IsShadowed = function(self) return ibrec(self).shadowed end
IBM.IsDynamic = function(self) return ibrec(self).dynamic end
IBM.SetSize = function(self, count, large, dynamic)
  local r = ibrec(self)
  r.count, r.size, r.dynamic = mmax(int_arg(count, "SetSize", 1), 0), large and 4 or 2, dynamic and true or false
  r.data = srep("\0", r.count * r.size)
  r.version = r.version + 1
  return true
end
IBM.SetData = function(self, buf) return set_buffer_data(ibrec(self), buf) end
IBM.SetDataRange = function(self, buf, start, count, _discard)
  return set_buffer_range(ibrec(self), buf, start, count, "index")
end
IBM.GetData = function(self) return E.VectorBuffer_new(ibrec(self).data) end
IBM.GetIndexCount = function(self) return ibrec(self).count end
IBM.GetIndexSize = function(self) return ibrec(self).size end

local function index_at(ib, i)   -- 0-based index i of an index buffer record
  return (sunpack(ib.size == 2 and "<I2" or "<I4", ib.data, i * ib.size + 1))
end

----------------------------------------------------------------------------------------------------
-- Geometry
----------------------------------------------------------------------------------------------------
local G = class("Geometry")
local function new_geometry()
  return E.new_object("Geometry", {kind = "geometry", vbs = {false}, ib = nil, prim = 0, index_start = 0,
    index_count = 0, vertex_start = 0, vertex_count = 0, lod_distance = 0.0})
end
E.new_geometry = new_geometry
G.new = new_geometry
local function grec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "geometry" then error("invalid 'self' (a Geometry was expected)", 3) end
  return r
end
local GM = G.methods
GM.SetNumVertexBuffers = function(self, n)
  local r = grec(self)
  n = int_arg(n, "SetNumVertexBuffers", 1)
  if n < 0 or n >= 32 then E.log("ERROR", "Too many vertex streams"); return false end
  for i = #r.vbs + 1, n do r.vbs[i] = false end
  for i = #r.vbs, n + 1, -1 do r.vbs[i] = nil end
  return true
end
GM.GetNumVertexBuffers = function(self) return #grec(self).vbs end
GM.SetVertexBuffer = function(self, index, vb)
  local r = grec(self)
  index = int_arg(index, "SetVertexBuffer", 1)
  if index < 0 or index >= #r.vbs then E.log("ERROR", "Stream index out of bounds"); return false end
  r.vbs[index + 1] = vb or false
  return true
end
GM.GetVertexBuffer = function(self, index)
  local vb = grec(self).vbs[(index or 0) + 1]
  return vb or nil
end
GM.SetIndexBuffer = function(self, ib) grec(self).ib = ib end
GM.GetIndexBuffer = function(self) return grec(self).ib end
GM.SetDrawRange = function(self, prim, index_start, index_count, a, b, _c)
  local r = grec(self)
  prim = int_arg(prim, "SetDrawRange", 1)
  index_start, index_count = int_arg(index_start, "SetDrawRange", 2), int_arg(index_count, "SetDrawRange", 3)
  local ib = r.ib and REC[r.ib]
  local vb = r.vbs[1] and REC[r.vbs[1]]
  if type(a) == "number" then   -- (type, indexStart, indexCount, vertexStart, vertexCount, checkIllegal)
    local vertex_start, vertex_count = mfloor(a), mfloor(b or 0)
    if ib then
      if index_start + index_count > ib.count then E.log("ERROR", "Illegal draw range"); return false end
    else
      index_start, index_count = 0, 0
    end
    if _c ~= false and vb and vertex_start + vertex_count > vb.count then
      E.log("ERROR", "Illegal draw range"); return false
    end
    r.prim, r.index_start, r.index_count, r.vertex_start, r.vertex_count = prim, index_start, index_count,
      vertex_start, vertex_count
    return true
  end
  -- (type, indexStart, indexCount, getUsedVertexRange = true)
  if ib == nil then
    E.log("ERROR", "Null index buffer and no raw index data, can not define indexed draw range")
    return false
  end
  if index_start + index_count > ib.count then E.log("ERROR", "Illegal draw range"); return false end
  r.prim, r.index_start, r.index_count = prim, index_start, index_count
  if a ~= false and vb then
    local lo, hi = INF, -1
    for i = index_start, index_start + index_count - 1 do
      local v = index_at(ib, i)
      if v < lo then lo = v end
      if v > hi then hi = v end
    end
    if hi < 0 then lo, hi = 0, -1 end
    r.vertex_start, r.vertex_count = lo, hi - lo + 1
  else
    r.vertex_start, r.vertex_count = 0, vb and vb.count or 0
  end
  return true
end
GM.GetPrimitiveType = function(self) return grec(self).prim end
GM.GetIndexStart = function(self) return grec(self).index_start end
GM.GetIndexCount = function(self) return grec(self).index_count end
GM.GetVertexStart = function(self) return grec(self).vertex_start end
GM.GetVertexCount = function(self) return grec(self).vertex_count end
GM.SetLodDistance = function(self, d) grec(self).lod_distance = mmax(d, 0.0) end
GM.GetLodDistance = function(self) return grec(self).lod_distance end
GM.IsEmpty = function(self) local r = grec(self); return r.index_count == 0 and r.vertex_count == 0 end

-- The triangles of a geometry record in its own space, as Urho3D's raycasts read them (every three indices, or
-- every three vertices without an index buffer, whatever the primitive type): a flat list x0,y0,z0, x1,..., nine
-- numbers a triangle.  Nil when its positions are not readable (no vertex buffer, or positions not a Vector3 at
-- offset 0, as Geometry::GetHitDistance requires).
function E.geometry_triangles(g)
  local vb = g.vbs[1] and REC[g.vbs[1]]
  if vb == nil or vb.count == 0 then return nil end
  local pos = vb.elements[1]
  if pos == nil or pos.type ~= TYPE_VECTOR3 or pos.semantic ~= SEM_POSITION or pos.offset ~= 0 then return nil end
  local ib = g.ib and REC[g.ib]
  local key = tostring(vb.version) .. "/" .. tostring(ib and ib.version) .. "/" .. g.index_start .. "/" ..
    g.index_count .. "/" .. g.vertex_start .. "/" .. g.vertex_count
  if g.tri_key == key then return g.tris end
  local data, size, tris = vb.data, vb.size, {}
  local function put(v)
    if v < 0 or v >= vb.count then return false end
    local x, y, z = sunpack("<fff", data, v * size + 1)
    tris[#tris + 1], tris[#tris + 2], tris[#tris + 3] = x, y, z
    return true
  end
  if ib and ib.count > 0 then
    local last = mmin(g.index_start + g.index_count, ib.count) - 1
    local i = g.index_start
    while i + 2 <= last do
      local n = #tris
      if not (put(index_at(ib, i)) and put(index_at(ib, i + 1)) and put(index_at(ib, i + 2))) then
        for k = #tris, n + 1, -1 do tris[k] = nil end
      end
      i = i + 3
    end
  else
    local v, last = g.vertex_start, mmin(g.vertex_start + g.vertex_count, vb.count) - 1
    while v + 2 <= last do
      put(v); put(v + 1); put(v + 2)
      v = v + 3
    end
  end
  g.tri_key, g.tris = key, tris
  return tris
end

-- The positions of a geometry record's vertex range (vertexStart, vertexCount) as a flat list x,y,z,..., as Urho3D's
-- CollisionShape reads them for a convex hull; nil when they are not readable (as E.geometry_triangles).
function E.geometry_points(g)
  local vb = g.vbs[1] and REC[g.vbs[1]]
  if vb == nil or vb.count == 0 then return nil end
  local pos = vb.elements[1]
  if pos == nil or pos.type ~= TYPE_VECTOR3 or pos.semantic ~= SEM_POSITION or pos.offset ~= 0 then return nil end
  local out = {}
  for v = g.vertex_start, mmin(g.vertex_start + g.vertex_count, vb.count) - 1 do
    local x, y, z = sunpack("<fff", vb.data, v * vb.size + 1)
    out[#out + 1], out[#out + 2], out[#out + 3] = x, y, z
  end
  return out
end

----------------------------------------------------------------------------------------------------
-- The stock models' geometry: position, normal, colour, UV and tangent (element mask 0x8f, as the stock files
-- hold), one geometry, one LOD level; outward faces wind so that a ray from outside hits them (Urho3D culls back
-- faces in raycasts).
----------------------------------------------------------------------------------------------------
local STOCK_MASK = 0x8f
local function stock_buffers(verts, indices)
  -- verts: list of {px,py,pz, nx,ny,nz, u,v}; tangents point along +U in the face plane
  local parts = {}
  for i, v in ipairs(verts) do
    parts[i] = spack("<fffffffIfffff", v[1], v[2], v[3], v[4], v[5], v[6], 0xffffffff, v[7], v[8], v[9] or 1.0,
      v[10] or 0.0, v[11] or 0.0, 1.0)
  end
  local vb = new_vertex_buffer()
  local vr = REC[vb]
  set_vertex_layout(vr, #verts, STOCK_MASK, false)
  vr.data, vr.shadowed = tconcat(parts), true
  local ib = new_index_buffer()
  local ir = REC[ib]
  local ip = {}
  for i, x in ipairs(indices) do ip[i] = spack("<I2", x) end
  ir.count, ir.size, ir.data, ir.shadowed = #indices, 2, tconcat(ip), true
  local g = new_geometry()
  local gr = REC[g]
  gr.vbs[1], gr.ib, gr.prim, gr.index_start, gr.index_count, gr.vertex_start, gr.vertex_count =
    vb, ib, 0, 0, #indices, 0, #verts
  return vb, ib, g
end

-- A quad of four corners (counter-clockwise seen from outside in a right-handed view, which Urho3D's left-handed
-- Y-up makes its front face), normal n and tangent t: two triangles.
local function add_quad(verts, indices, corners, n, t)
  local base = #verts
  local uv = {{0, 1}, {1, 1}, {1, 0}, {0, 0}}
  for k = 1, 4 do
    local c = corners[k]
    verts[#verts + 1] = {c[1], c[2], c[3], n[1], n[2], n[3], uv[k][1], uv[k][2], t[1], t[2], t[3]}
  end
  for _, k in ipairs({0, 2, 1, 0, 3, 2}) do indices[#indices + 1] = base + k end
end

local function box_solid()
  local verts, indices = {}, {}
  local h = 0.5
  -- each face: corners in an order whose (c2 - c0) x (c1 - c0) points outward, as the 0,2,1 winding reads them
  add_quad(verts, indices, {{-h, -h, -h}, {h, -h, -h}, {h, h, -h}, {-h, h, -h}}, {0, 0, -1}, {1, 0, 0})   -- -Z
  add_quad(verts, indices, {{h, -h, h}, {-h, -h, h}, {-h, h, h}, {h, h, h}}, {0, 0, 1}, {-1, 0, 0})       -- +Z
  add_quad(verts, indices, {{-h, -h, h}, {-h, -h, -h}, {-h, h, -h}, {-h, h, h}}, {-1, 0, 0}, {0, 0, -1})  -- -X
  add_quad(verts, indices, {{h, -h, -h}, {h, -h, h}, {h, h, h}, {h, h, -h}}, {1, 0, 0}, {0, 0, 1})        -- +X
  add_quad(verts, indices, {{-h, h, -h}, {h, h, -h}, {h, h, h}, {-h, h, h}}, {0, 1, 0}, {1, 0, 0})        -- +Y
  add_quad(verts, indices, {{-h, -h, h}, {h, -h, h}, {h, -h, -h}, {-h, -h, -h}}, {0, -1, 0}, {1, 0, 0})   -- -Y
  return verts, indices
end
local function plane_solid()
  local verts, indices = {}, {}
  add_quad(verts, indices, {{-0.5, 0, -0.5}, {0.5, 0, -0.5}, {0.5, 0, 0.5}, {-0.5, 0, 0.5}}, {0, 1, 0}, {1, 0, 0})
  return verts, indices
end
local function flat_triangle(verts, indices, a, b, c)
  -- a, b, c wound so that (c - a) x (b - a) points outward
  local e1 = {c[1] - a[1], c[2] - a[2], c[3] - a[3]}
  local e2 = {b[1] - a[1], b[2] - a[2], b[3] - a[3]}
  local nx, ny, nz = e1[2] * e2[3] - e1[3] * e2[2], e1[3] * e2[1] - e1[1] * e2[3], e1[1] * e2[2] - e1[2] * e2[1]
  local l = sqrt(nx * nx + ny * ny + nz * nz)
  if l > 0 then nx, ny, nz = nx / l, ny / l, nz / l end
  local base = #verts
  for _, p in ipairs({a, b, c}) do verts[#verts + 1] = {p[1], p[2], p[3], nx, ny, nz, 0, 0} end
  indices[#indices + 1], indices[#indices + 2], indices[#indices + 3] = base, base + 2, base + 1
end
local function pyramid_solid()
  local verts, indices = {}, {}
  local apex = {0, 0.5, 0}
  local b = {{-0.5, -0.5, -0.5}, {0.5, -0.5, -0.5}, {0.5, -0.5, 0.5}, {-0.5, -0.5, 0.5}}
  for i = 1, 4 do flat_triangle(verts, indices, b[i], b[i % 4 + 1], apex) end
  flat_triangle(verts, indices, b[1], b[3], b[2])
  flat_triangle(verts, indices, b[1], b[4], b[3])
  return verts, indices
end
-- A 32-gon around Y (angles `offset + k * 11.25` degrees from +X towards +Z), radius 0.5, from y = -0.5 to 0.5;
-- `apex` makes a cone, else a capped cylinder.
local SEGMENTS = 32
local function round_solid(offset, apex)
  local verts, indices = {}, {}
  local ring = {}
  for k = 0, SEGMENTS - 1 do
    local a = rad(offset + k * 360.0 / SEGMENTS)
    ring[k + 1] = {0.5 * cos(a), 0.5 * sin(a)}
  end
  local function side(k)
    local p, q = ring[k], ring[k % SEGMENTS + 1]
    if apex then
      flat_triangle(verts, indices, {p[1], -0.5, p[2]}, {q[1], -0.5, q[2]}, {0, 0.5, 0})
    else
      flat_triangle(verts, indices, {p[1], -0.5, p[2]}, {q[1], 0.5, q[2]}, {p[1], 0.5, p[2]})
      flat_triangle(verts, indices, {p[1], -0.5, p[2]}, {q[1], -0.5, q[2]}, {q[1], 0.5, q[2]})
    end
  end
  for k = 1, SEGMENTS do side(k) end
  for k = 2, SEGMENTS - 1 do   -- caps as fans
    local p0, p, q = ring[1], ring[k], ring[k + 1]
    flat_triangle(verts, indices, {p0[1], -0.5, p0[2]}, {q[1], -0.5, q[2]}, {p[1], -0.5, p[2]})
    if not apex then flat_triangle(verts, indices, {p0[1], 0.5, p0[2]}, {p[1], 0.5, p[2]}, {q[1], 0.5, q[2]}) end
  end
  return verts, indices
end
local STOCK_SOLIDS = {
  ["Models/Box.mdl"] = box_solid, ["Models/Plane.mdl"] = plane_solid, ["Models/Pyramid.mdl"] = pyramid_solid,
  ["Models/Cylinder.mdl"] = function() return round_solid(0.0, false) end,
  ["Models/Cone.mdl"] = function() return round_solid(5.25, true) end,
}

----------------------------------------------------------------------------------------------------
-- Model: geometries with LOD levels and centres, its vertex and index buffers
----------------------------------------------------------------------------------------------------
local Model = class("Model")
local function mrec(self)
  local r = REC[self]
  if r == nil or r.type_name ~= "Model" then error("invalid 'self' (a Model was expected)", 3) end
  return r
end
-- A model record's geometry table, made on first use: from its own data (Model:new and what a game set), or the
-- stock model's solid.  Nil for a model whose geometry is not known (a stock model beyond the solids above).
local function geometries(r)
  if r.geometries then return r.geometries end
  local solid = STOCK_SOLIDS[r.name]
  if solid and r.num_geometries == 1 then
    local vb, ib, g = stock_buffers(solid())
    r.geometries = {{lods = {g}, center = {0.0, 0.0, 0.0}}}
    r.vertex_buffers, r.index_buffers = {vb}, {ib}
    return r.geometries
  end
  if r.data and E.load_model_file(r) then return r.geometries end   -- a model file the game ships
  return nil
end
E.model_geometries = geometries
local function known(self, what)
  local r = mrec(self)
  local g = geometries(r)
  if g == nil then
    return E.missing(sformat("Model:%s (model %s: its geometry is not loaded headless)", what, tostring(r.name)))
  end
  return r, g
end
Model.new = function()
  local m = E.make_resource("Model", "", nil)
  local r = REC[m]
  r.geometries, r.vertex_buffers, r.index_buffers, r.num_geometries = {}, {}, {}, 0
  return m
end
local MM = Model.methods
MM.SetNumGeometries = function(self, n)
  local r, gs = known(self, "SetNumGeometries")
  n = mmax(int_arg(n, "SetNumGeometries", 1), 0)
  for i = #gs + 1, n do gs[i] = {lods = {false}, center = {0.0, 0.0, 0.0}} end
  for i = #gs, n + 1, -1 do gs[i] = nil end
  r.num_geometries = n
end
MM.GetNumGeometries = function(self)
  local r = mrec(self)
  if r.geometries then return #r.geometries end
  return r.num_geometries or 0
end
MM.SetNumGeometryLodLevels = function(self, index, n)
  local _, gs = known(self, "SetNumGeometryLodLevels")
  local g = gs[int_arg(index, "SetNumGeometryLodLevels", 1) + 1]
  if g == nil then E.log("ERROR", "Geometry index out of bounds"); return false end
  n = int_arg(n, "SetNumGeometryLodLevels", 2)
  if n <= 0 then E.log("ERROR", "Zero LOD levels not allowed"); return false end
  for i = #g.lods + 1, n do g.lods[i] = false end
  for i = #g.lods, n + 1, -1 do g.lods[i] = nil end
  return true
end
MM.GetNumGeometryLodLevels = function(self, index)
  local _, gs = known(self, "GetNumGeometryLodLevels")
  local g = gs[(index or 0) + 1]
  return g and #g.lods or 0
end
MM.SetGeometry = function(self, index, lod, geometry)
  local _, gs = known(self, "SetGeometry")
  local g = gs[int_arg(index, "SetGeometry", 1) + 1]
  if g == nil then E.log("ERROR", "Geometry index out of bounds"); return false end
  lod = int_arg(lod, "SetGeometry", 2)
  if lod < 0 or lod >= #g.lods then E.log("ERROR", "LOD level index out of bounds"); return false end
  g.lods[lod + 1] = geometry or false
  return true
end
MM.GetGeometry = function(self, index, lod)
  local _, gs = known(self, "GetGeometry")
  local g = gs[(index or 0) + 1]
  local x = g and g.lods[(lod or 0) + 1]
  return x or nil
end
MM.SetGeometryCenter = function(self, index, center)
  local _, gs = known(self, "SetGeometryCenter")
  local g = gs[int_arg(index, "SetGeometryCenter", 1) + 1]
  if g == nil then E.log("ERROR", "Geometry index out of bounds"); return false end
  g.center = {center.x, center.y, center.z}
  return true
end
MM.GetGeometryCenter = function(self, index)
  local _, gs = known(self, "GetGeometryCenter")
  local g = gs[(index or 0) + 1]
  if g == nil then return E.Vector3_new(0, 0, 0) end
  return E.Vector3_new(g.center[1], g.center[2], g.center[3])
end
MM.SetVertexBuffers = function(self, buffers, _starts, _counts)
  local r = known(self, "SetVertexBuffers")
  local list = {}
  for i, b in ipairs(buffers or {}) do
    if not (REC[b] and REC[b].kind == "vertexbuffer") then E.log("ERROR", "Null model vertex buffers specified"); return false end
    list[i] = b
  end
  r.vertex_buffers = list
  return true
end
MM.SetIndexBuffers = function(self, buffers)
  local r = known(self, "SetIndexBuffers")
  local list = {}
  for i, b in ipairs(buffers or {}) do
    if not (REC[b] and REC[b].kind == "indexbuffer") then E.log("ERROR", "Null model index buffers specified"); return false end
    list[i] = b
  end
  r.index_buffers = list
  return true
end

-- Clone: new buffers holding copies of the data and geometries over them, as Urho3D's Model::Clone, so a clone's
-- vertices change without touching the original's.
local function copy_record(src)
  local out = {}
  for k, v in pairs(src) do out[k] = v end
  return out
end
MM.Clone = function(self, name)
  local src = mrec(self)
  local copy = E.make_resource("Model", name or src.name, nil)
  local r = REC[copy]
  for k, v in pairs(src) do if k ~= "name" and k ~= "geometries" and k ~= "physics_cache" then r[k] = v end end
  local gs = geometries(src)
  if gs then
    local map = {}
    local function dup(obj, class_name)
      if not obj then return obj end
      if map[obj] == nil then map[obj] = E.new_object(class_name, copy_record(REC[obj])) end
      return map[obj]
    end
    r.vertex_buffers, r.index_buffers, r.geometries = {}, {}, {}
    for i, b in ipairs(src.vertex_buffers or {}) do r.vertex_buffers[i] = dup(b, "VertexBuffer") end
    for i, b in ipairs(src.index_buffers or {}) do r.index_buffers[i] = dup(b, "IndexBuffer") end
    for i, g in ipairs(gs) do
      local lods = {}
      for j, geom in ipairs(g.lods) do
        if geom then
          local gr = copy_record(REC[geom])
          gr.vbs, gr.ib, gr.tri_key, gr.tris = {}, dup(gr.ib, "IndexBuffer"), nil, nil
          for k, vb in ipairs(REC[geom].vbs) do gr.vbs[k] = dup(vb, "VertexBuffer") end
          lods[j] = E.new_object("Geometry", gr)
        else
          lods[j] = false
        end
      end
      r.geometries[i] = {lods = lods, center = {g.center[1], g.center[2], g.center[3]}}
    end
  end
  return copy
end
MM.GetBoundingBox = function(self)
  local b = mrec(self).bbox
  if b == nil then return E.IMPL.BoundingBox.new() end
  return E.BoundingBox_new(b[1], b[2], b[3], b[4], b[5], b[6])
end
MM.SetBoundingBox = function(self, box)
  mrec(self).bbox = {box.min.x, box.min.y, box.min.z, box.max.x, box.max.y, box.max.z}
end

----------------------------------------------------------------------------------------------------
-- A model file the game ships (Urho3D's binary "UMDL"/"UMD2" layout): its buffers, geometries, LOD levels,
-- bounding box and geometry centres.  Bones and morphs are skipped (AnimatedModel reads them).  A file that does
-- not parse logs an error and stays without geometry.
----------------------------------------------------------------------------------------------------
local MAX_ITEMS = 1 << 24
local function parse_model(data)
  local pos = 1
  local function need(n)
    if n < 0 or pos + n - 1 > #data then error("truncated", 0) end
  end
  local function u32() need(4); local v = sunpack("<I4", data, pos); pos = pos + 4; return v end
  local function f32() need(4); local v = sunpack("<f", data, pos); pos = pos + 4; return v end
  local function take(n) need(n); local s = ssub(data, pos, pos + n - 1); pos = pos + n; return s end
  local function count() local n = u32(); if n > MAX_ITEMS then error("implausible count", 0) end; return n end
  local magic = take(4)
  if magic ~= "UMDL" and magic ~= "UMD2" then error("not an Urho3D model", 0) end
  local out = {vbs = {}, ibs = {}, geometries = {}}
  for _ = 1, count() do
    local n = count()
    local spec
    if magic == "UMD2" then
      spec = {}
      for i = 1, count() do
        local d = u32()
        spec[i] = {type = d & 0xff, semantic = (d >> 8) & 0xff, index = (d >> 16) & 0xff}
        if TYPE_BYTES[spec[i].type] == nil then error("unknown vertex element type", 0) end
      end
    else
      spec = u32()
    end
    take(8)   -- morph range start and count
    local vb = new_vertex_buffer()
    local r = REC[vb]
    set_vertex_layout(r, 0, spec, false)
    r.count, r.shadowed = n, true
    r.data = take(n * r.size)
    out.vbs[#out.vbs + 1] = vb
  end
  for _ = 1, count() do
    local n, size = count(), u32()
    if size ~= 2 and size ~= 4 then error("bad index size", 0) end
    local ib = new_index_buffer()
    local r = REC[ib]
    r.count, r.size, r.shadowed, r.data = n, size, true, take(n * size)
    out.ibs[#out.ibs + 1] = ib
  end
  for i = 1, count() do
    take(4 * count())   -- bone mapping
    local lods = {}
    for j = 1, count() do
      local distance, prim, vbi, ibi, istart, icount = f32(), u32(), u32(), u32(), u32(), u32()
      local g = new_geometry()
      local gr = REC[g]
      gr.lod_distance, gr.prim = distance, prim
      gr.vbs[1] = out.vbs[vbi + 1] or false
      gr.ib = out.ibs[ibi + 1]
      local ib = gr.ib and REC[gr.ib]
      if ib == nil or istart + icount > ib.count then error("illegal draw range", 0) end
      GM.SetDrawRange(g, prim, istart, icount)
      lods[j] = g
    end
    out.geometries[i] = {lods = lods, center = {0.0, 0.0, 0.0}}
  end
  for _ = 1, count() do   -- morphs
    local stop = data:find("\0", pos, true)
    if stop == nil then error("truncated", 0) end
    pos = stop + 1
    for _ = 1, count() do
      u32()
      local mask, n = u32(), count()
      local per = 4
      for _, bit in ipairs({1, 2, 128}) do if mask & bit ~= 0 then per = per + 12 end end
      take(n * per)
    end
  end
  for _ = 1, count() do   -- bones: name, parent, position, rotation, scale, offset matrix, collision shapes
    local stop = data:find("\0", pos, true)
    if stop == nil then error("truncated", 0) end
    pos = stop + 1
    take(4 + 12 + 16 + 12 + 48)
    local collision = sunpack("B", take(1))
    if collision & 1 ~= 0 then take(4) end
    if collision & 2 ~= 0 then take(24) end
  end
  out.bbox = {f32(), f32(), f32(), f32(), f32(), f32()}
  for i = 1, #out.geometries do
    if pos + 11 > #data then break end
    out.geometries[i].center = {f32(), f32(), f32()}
  end
  return out
end
function E.load_model_file(r)
  if r.model_parse_failed then return false end
  local ok, m = pcall(parse_model, r.data)
  if not ok then
    r.model_parse_failed = true
    E.log("ERROR", sformat("Failed to load model %s: %s", tostring(r.name), tostring(m)))
    return false
  end
  r.geometries, r.vertex_buffers, r.index_buffers = m.geometries, m.vbs, m.ibs
  r.num_geometries, r.bbox = #m.geometries, m.bbox
  return true
end
