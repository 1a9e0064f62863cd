-- Terrain: Urho3D's heightmap terrain as state and queries (docs/content3d.md, "Terrain").  Its layout follows
-- Urho3D's: the heightmap's pixel (x, numVertices.y - 1 - z) is vertex (x, z) (the image's top row is the far, +Z
-- edge), heights are the red byte (plus green / 256 with two or more components) times spacing.y, the vertices are
-- spacing.x and spacing.z apart and centred on the node, and each quad is split along its (x, z + 1)-(x + 1, z)
-- diagonal; GetHeight and GetNormal interpolate over those triangles.  Like Urho3D it makes a child node
-- "Patch_x_z" per patch (temporary, local) holding a TerrainPatch, the drawable octree queries see (59_octree.lua).
-- Heights are single-precision, as Urho3D keeps them; CollisionShape:SetTerrain hands them to Bullet's heightfield
-- (57_physics3d.lua).  Nothing is drawn: there are no LOD levels in use (every patch is at LOD 0, as in a headless
-- Urho3D), no geometry buffers and no occlusion.
local error, type, ipairs, tostring = error, type, ipairs, tostring
local sformat, sbyte, sunpack = string.format, string.byte, string.unpack
local mfloor, mmin, mmax, sqrt = math.floor, math.min, math.max, math.sqrt
local REC, typed_comp_rec = E.REC, E.typed_comp_rec
local FACTORIES = E.COMPONENT_FACTORIES
local f32 = E.MATH.f32
local v3 = E.Vector3_new
local M_MAX_UNSIGNED = 4294967295
local MIN_PATCH_SIZE, MAX_PATCH_SIZE, MAX_LOD_LEVELS = 4, 128, 4
local DRAWABLE_GEOMETRY, RAY_AABB, RAY_TRIANGLE_UV = 1, 0, 3

local T = class("Terrain")
local TM = T.methods
local P = class("TerrainPatch")
local PM = P.methods

local function trec(self) return typed_comp_rec(self, "Terrain") end
local function prec(self) return typed_comp_rec(self, "TerrainPatch") end

-- The properties Urho3D's Terrain hands on to its patches (and their defaults)
local PATCH_PROPERTIES = {DrawDistance = 0.0, ShadowDistance = 0.0, LodBias = 1.0, ViewMask = M_MAX_UNSIGNED,
  LightMask = M_MAX_UNSIGNED, ShadowMask = M_MAX_UNSIGNED, ZoneMask = M_MAX_UNSIGNED, MaxLights = 0,
  CastShadows = false, Occluder = false, Occludee = true}
local PATCH_KEYS = E.sorted_keys(PATCH_PROPERTIES)

FACTORIES.Terrain = function(c)
  c.spacing = {1.0, 0.25, 1.0}
  c.patch_size, c.max_lods, c.num_lods, c.occlusion_lod = 32, MAX_LOD_LEVELS, 1, M_MAX_UNSIGNED
  c.smoothing = false
  c.num_patches, c.num_vertices, c.origin, c.patch_world_size = {0, 0}, {0, 0}, {0.0, 0.0}, {0.0, 0.0}
  c.heights, c.min_height, c.max_height = nil, 0.0, 0.0
  c.patches = {}
  c.neighbors = {}
  for _, k in ipairs(PATCH_KEYS) do c[k] = PATCH_PROPERTIES[k] end
  c.on_set_enabled = function(x)
    local on = x.enabled and x.node ~= nil and x.node.enabled
    for _, p in ipairs(x.patches) do if not p.removed then p.enabled = on end end
  end
end
FACTORIES.TerrainPatch = function(c)
  for _, k in ipairs(PATCH_KEYS) do c[k] = PATCH_PROPERTIES[k] end
  c.coords, c.box, c.lod = {0, 0}, nil, 0
  c.materials = {}
end

----------------------------------------------------------------------------------------------------
-- Heights
----------------------------------------------------------------------------------------------------
-- The height of vertex (x, z), clamped into the terrain (Urho3D's GetRawHeight).
local function raw_height(c, x, z)
  local h = c.heights
  if h == nil then return 0.0 end
  local nx, nz = c.num_vertices[1], c.num_vertices[2]
  x = mmax(0, mmin(x, nx - 1))
  z = mmax(0, mmin(z, nz - 1))
  return (sunpack("<f", h, (z * nx + x) * 4 + 1))
end
E.terrain_raw_height = raw_height

-- Urho3D's GetRawNormal: the eight neighbours' slopes.
local function raw_normal(c, x, z)
  local base = raw_height(c, x, z)
  local n = raw_height(c, x, z - 1) - base
  local ne = raw_height(c, x + 1, z - 1) - base
  local e = raw_height(c, x + 1, z) - base
  local se = raw_height(c, x + 1, z + 1) - base
  local s = raw_height(c, x, z + 1) - base
  local sw = raw_height(c, x - 1, z + 1) - base
  local w = raw_height(c, x - 1, z) - base
  local nw = raw_height(c, x - 1, z - 1) - base
  local up = 0.5 * (c.spacing[1] + c.spacing[3])
  local nx = -ne - e - se + sw + w + nw
  local ny = 8.0 * up
  local nz = n + ne - se - s - sw + nw
  local l = sqrt(nx * nx + ny * ny + nz * nz)
  return nx / l, ny / l, nz / l
end

-- The float-to-unsigned conversion Urho3D does on a grid position: towards zero (a position before the first
-- vertex then clamps onto it).
local function trunc(v) if v >= 0 then return mfloor(v) end return -mfloor(-v) end

-- Heights from the heightmap, as Urho3D's CreateGeometry copies them (z-major, one a vertex), smoothed when the
-- terrain smooths.  Returns them packed, their lowest and highest, and each patch's box {x0, y0, z0, x1, y1, z1}.
local function read_heights(c, image)
  local nx, nz = c.num_vertices[1], c.num_vertices[2]
  local comps = image.comps
  local sy = f32(c.spacing[2])
  local memo = {}   -- byte pair -> height (the same pixel value gives the same height)
  local all = {}
  for z = 0, nz - 1 do
    local row = E.image_row(image, nz - 1 - z + 1)
    local base = z * nx
    for x = 0, nx - 1 do
      local r, g = sbyte(row, x * comps + 1, x * comps + 2)
      local key = comps == 1 and r or r * 256 + g
      local h = memo[key]
      if h == nil then
        if comps == 1 then h = f32(r * sy) else h = f32((r + g / 256.0) * sy) end
        memo[key] = h
      end
      all[base + x + 1] = h
    end
  end
  if c.smoothing then
    -- Urho3D's 3x3 kernel (1 2 1 / 2 4 2 / 1 2 1) / 16 over the unsmoothed heights, edges clamped
    local src = all
    all = {}
    for z = 0, nz - 1 do
      local up, mid, down = mmax(z - 1, 0) * nx + 1, z * nx + 1, mmin(z + 1, nz - 1) * nx + 1
      for x = 0, nx - 1 do
        local l, r = mmax(x - 1, 0), mmin(x + 1, nx - 1)
        all[mid + x] = f32((src[up + l] + src[up + x] * 2 + src[up + r] + src[mid + l] * 2 + src[mid + x] * 4
          + src[mid + r] * 2 + src[down + l] + src[down + x] * 2 + src[down + r]) / 16.0)
      end
    end
  end
  local lo, hi = math.huge, -math.huge
  local ps, npx, npz = c.patch_size, c.num_patches[1], c.num_patches[2]
  local plo, phi = {}, {}
  for z = 0, nz - 1 do
    local base = z * nx
    for px = 0, npx - 1 do   -- this row's lowest and highest under each patch column
      local a, b = math.huge, -math.huge
      for x = px * ps, px * ps + ps do
        local h = all[base + x + 1]
        if h < a then a = h end
        if h > b then b = h end
      end
      for pz = mmax(0, (z - 1) // ps), mmin(npz - 1, z // ps) do
        if z >= pz * ps and z <= pz * ps + ps then
          local k = pz * npx + px + 1
          if plo[k] == nil or a < plo[k] then plo[k] = a end
          if phi[k] == nil or b > phi[k] then phi[k] = b end
        end
      end
    end
    for x = 1, nx do
      local h = all[base + x]
      if h < lo then lo = h end
      if h > hi then hi = h end
    end
  end
  local boxes = {}
  for k = 1, npx * npz do boxes[k] = {0.0, plo[k], 0.0, ps * c.spacing[1], phi[k], ps * c.spacing[3]} end
  return E.pack_floats(all, nx * nz), lo, hi, boxes
end

----------------------------------------------------------------------------------------------------
-- Geometry: sizes, heights and patches (Urho3D's CreateGeometry)
----------------------------------------------------------------------------------------------------
local function patch_at(c, x, z)
  if x < 0 or x >= c.num_patches[1] or z < 0 or z >= c.num_patches[2] then return nil end
  return c.patches[z * c.num_patches[1] + x + 1]
end
local function neighbor_patch(c, x, z)
  local nb = c.neighbors
  if z >= c.num_patches[2] and nb.north then return patch_at(nb.north, x, z - c.num_patches[2]) end
  if z < 0 and nb.south then return patch_at(nb.south, x, z + nb.south.num_patches[2]) end
  if x < 0 and nb.west then return patch_at(nb.west, x + nb.west.num_patches[1], z) end
  if x >= c.num_patches[1] and nb.east then return patch_at(nb.east, x - c.num_patches[1], z) end
  return patch_at(c, x, z)
end

local function create_geometry(c)
  local node = c.node
  if node == nil then return end
  local had = #c.patches
  local lod_size, lods = c.patch_size, 1
  while lod_size > MIN_PATCH_SIZE and lods < c.max_lods do
    lod_size = lod_size // 2
    lods = lods + 1
  end
  c.num_lods = lods
  local ps, sp = c.patch_size, c.spacing
  c.patch_world_size = {sp[1] * ps, sp[3] * ps}
  local image = c.height_map and REC[c.height_map]
  if image then
    c.num_patches = {(image.width - 1) // ps, (image.height - 1) // ps}
    c.num_vertices = {c.num_patches[1] * ps + 1, c.num_patches[2] * ps + 1}
    c.origin = {-0.5 * c.num_patches[1] * c.patch_world_size[1], -0.5 * c.num_patches[2] * c.patch_world_size[2]}
    c.heights, c.min_height, c.max_height, c.boxes = read_heights(c, image)
  else
    c.num_patches, c.num_vertices, c.origin = {0, 0}, {0, 0}, {0.0, 0.0}
    c.heights, c.min_height, c.max_height, c.boxes = nil, 0.0, 0.0, {}
  end
  -- patch nodes beyond the new size go; the others are kept and reused, as Urho3D does
  local keep = {}
  for _, child in ipairs({table.unpack(node.children)}) do
    local px, pz = tostring(child.name):match("^Patch_(%-?%d+)_(%-?%d+)$")
    local has_patch = false
    for _, x in ipairs(child.components) do if x.type_name == "TerrainPatch" then has_patch = true end end
    if px and has_patch then
      px, pz = tonumber(px), tonumber(pz)
      if px < c.num_patches[1] and pz < c.num_patches[2] then keep[px .. "_" .. pz] = child
      else E.IMPL.Node.methods.Remove(child.proxy) end
    end
  end
  c.patches = {}
  local enabled = c.enabled and node.enabled
  for z = 0, c.num_patches[2] - 1 do
    for x = 0, c.num_patches[1] - 1 do
      local pnode = keep[x .. "_" .. z]
      if pnode == nil then
        pnode = REC[E.IMPL.Node.methods.CreateTemporaryChild(node.proxy, "Patch_" .. x .. "_" .. z, 1)]
      end
      E.IMPL.Node.methods.SetPosition(pnode.proxy, v3(c.origin[1] + x * c.patch_world_size[1], 0.0,
        c.origin[2] + z * c.patch_world_size[2]))
      local p
      for _, comp in ipairs(pnode.components) do if comp.type_name == "TerrainPatch" then p = comp end end
      if p == nil then
        p = REC[E.create_component(pnode, "TerrainPatch", 1)]
        p.owner = c
        p.coords = {x, z}
        p.enabled = enabled
        p.material = c.material
        for _, k in ipairs(PATCH_KEYS) do p[k] = c[k] end
      end
      p.box, p.tris, p.lod = c.boxes[#c.patches + 1], nil, 0
      c.patches[#c.patches + 1] = p
    end
  end
  if #c.patches > 0 or had > 0 then
    E.send_event("TerrainCreated", {Node = node.proxy}, node.proxy)
    if E.physics3d_terrain_created then E.physics3d_terrain_created(node) end
  end
end
E.terrain_create_geometry = create_geometry

----------------------------------------------------------------------------------------------------
-- Terrain members
----------------------------------------------------------------------------------------------------
local function num(v, what)
  if type(v) ~= "number" then E.raise_at_game(sformat("bad argument #1 to '%s' (number expected)", what)) end
  return v
end
local function is_pow2(n) return n > 0 and (n & (n - 1)) == 0 end

TM.SetPatchSize = function(self, size)
  local c = trec(self)
  size = mfloor(num(size, "SetPatchSize"))
  if size < MIN_PATCH_SIZE or size > MAX_PATCH_SIZE or not is_pow2(size) then return end
  if size ~= c.patch_size then c.patch_size = size; create_geometry(c) end
end
TM.GetPatchSize = function(self) return trec(self).patch_size end
TM.SetSpacing = function(self, s)
  local c = trec(self)
  if not E.is(s, "Vector3") then E.raise_at_game("bad argument #1 to 'SetSpacing' (Vector3 expected)") end
  local sp = c.spacing
  if s.x ~= sp[1] or s.y ~= sp[2] or s.z ~= sp[3] then c.spacing = {s.x, s.y, s.z}; create_geometry(c) end
end
TM.GetSpacing = function(self) local s = trec(self).spacing; return v3(s[1], s[2], s[3]) end
TM.SetMaxLodLevels = function(self, n)
  local c = trec(self)
  n = mmax(1, mmin(mfloor(num(n, "SetMaxLodLevels")), MAX_LOD_LEVELS))
  if n ~= c.max_lods then c.max_lods = n; create_geometry(c) end
end
TM.GetMaxLodLevels = function(self) return trec(self).max_lods end
TM.SetOcclusionLodLevel = function(self, n)
  local c = trec(self)
  n = mfloor(num(n, "SetOcclusionLodLevel"))
  if n ~= c.occlusion_lod then c.occlusion_lod = n; create_geometry(c) end
end
TM.GetOcclusionLodLevel = function(self) return trec(self).occlusion_lod end
TM.SetSmoothing = function(self, v)
  local c = trec(self)
  v = v and true or false
  if v ~= c.smoothing then c.smoothing = v; create_geometry(c) end
end
TM.GetSmoothing = function(self) return trec(self).smoothing end
TM.SetHeightMap = function(self, image)
  local c = trec(self)
  local r = image and REC[image]
  if image ~= nil and (r == nil or r.type_name ~= "Image") then
    E.raise_at_game("bad argument #1 to 'SetHeightMap' (Image expected)")
  end
  if r and not E.image_known(r) then
    return E.missing(sformat("Terrain:SetHeightMap (image %s: %s)", tostring(r.name), E.image_unknown_why(r)))
  end
  c.height_map = image
  create_geometry(c)
  return true
end
TM.GetHeightMap = function(self) return trec(self).height_map end
TM.ApplyHeightMap = function(self)
  local c = trec(self)
  if c.height_map then create_geometry(c) end
end
TM.SetMaterial = function(self, m)
  local c = trec(self)
  c.material = m
  for _, p in ipairs(c.patches) do p.material = m end
end
TM.GetMaterial = function(self) return trec(self).material end
for _, k in ipairs(PATCH_KEYS) do
  local getter = type(PATCH_PROPERTIES[k]) == "boolean" and k ~= "CastShadows" and "Is" .. k or "Get" .. k
  TM["Set" .. k] = function(self, v)
    local c = trec(self)
    c[k] = v
    for _, p in ipairs(c.patches) do p[k] = v end
  end
  TM[getter] = function(self) return trec(self)[k] end
end
TM.IsVisible = function() return true end
TM.GetNumVertices = function(self) local n = trec(self).num_vertices; return E.IntVector2_new(n[1], n[2]) end
TM.GetNumPatches = function(self) local n = trec(self).num_patches; return E.IntVector2_new(n[1], n[2]) end
TM.GetPatch = function(self, a, b)
  local c = trec(self)
  local p
  if b == nil then p = c.patches[mfloor(num(a, "GetPatch")) + 1] else p = patch_at(c, mfloor(a), mfloor(b)) end
  return p and p.proxy
end
TM.GetNeighborPatch = function(self, x, z)
  local p = neighbor_patch(trec(self), mfloor(x), mfloor(z))
  return p and p.proxy
end
for _, side in ipairs({"North", "South", "West", "East"}) do
  local key = side:lower()
  TM["Set" .. side .. "Neighbor"] = function(self, other)
    local o = other and REC[other]
    if other ~= nil and (o == nil or o.type_name ~= "Terrain") then
      E.raise_at_game(sformat("bad argument #1 to 'Set%sNeighbor' (Terrain expected)", side))
    end
    trec(self).neighbors[key] = o
  end
  TM["Get" .. side .. "Neighbor"] = function(self)
    local o = trec(self).neighbors[key]
    return o and not o.removed and o.proxy or nil
  end
end
TM.SetNeighbors = function(self, north, south, west, east)
  TM.SetNorthNeighbor(self, north); TM.SetSouthNeighbor(self, south)
  TM.SetWestNeighbor(self, west); TM.SetEastNeighbor(self, east)
end

-- A world position in heightmap grid units (x, z), from the node's inverse world transform.
local function grid_position(c, p)
  local lx, _, lz = E.node_inverse_apply(c.node, p.x, p.y, p.z, 1)
  return (lx - c.origin[1]) / c.spacing[1], (lz - c.origin[2]) / c.spacing[3]
end
-- The three vertices and weights of the triangle under a grid position, as Urho3D's GetHeight picks them.
local function triangle_at(xpos, zpos)
  local xi, zi = trunc(xpos), trunc(zpos)
  local xf, zf = xpos - mfloor(xpos), zpos - mfloor(zpos)
  if xf + zf >= 1.0 then
    return xi + 1, zi + 1, xi, zi + 1, xi + 1, zi, 1.0 - xf, 1.0 - zf
  end
  return xi, zi, xi + 1, zi, xi, zi + 1, xf, zf
end
TM.GetHeight = function(self, p)
  local c = trec(self)
  if not E.is(p, "Vector3") then E.raise_at_game("bad argument #1 to 'GetHeight' (Vector3 expected)") end
  if c.node == nil then return 0.0 end
  local x1, z1, x2, z2, x3, z3, xf, zf = triangle_at(grid_position(c, p))
  local h = raw_height(c, x1, z1) * (1.0 - xf - zf) + raw_height(c, x2, z2) * xf + raw_height(c, x3, z3) * zf
  local w = E.world(c.node)
  local _, sy = E.world_scale(c.node)
  return sy * h + w.m13   -- as Urho3D: assumes an upright terrain node
end
TM.GetNormal = function(self, p)
  local c = trec(self)
  if not E.is(p, "Vector3") then E.raise_at_game("bad argument #1 to 'GetNormal' (Vector3 expected)") end
  if c.node == nil then return v3(0, 1, 0) end
  local x1, z1, x2, z2, x3, z3, xf, zf = triangle_at(grid_position(c, p))
  local ax, ay, az = raw_normal(c, x1, z1)
  local bx, by, bz = raw_normal(c, x2, z2)
  local cx, cy, cz = raw_normal(c, x3, z3)
  local wa = 1.0 - xf - zf
  local nx, ny, nz = ax * wa + bx * xf + cx * zf, ay * wa + by * xf + cy * zf, az * wa + bz * xf + cz * zf
  local l = sqrt(nx * nx + ny * ny + nz * nz)
  if l > 0 then nx, ny, nz = nx / l, ny / l, nz / l end
  local w = E.world(c.node)
  return E.IMPL.Quaternion.new(w.ww, w.wx, w.wy, w.wz) * v3(nx, ny, nz)
end
local function round_int(v) return mfloor(v + 0.5) end
TM.WorldToHeightMap = function(self, p)
  local c = trec(self)
  if c.node == nil then return E.IntVector2_new(0, 0) end
  local xpos, zpos = grid_position(c, p)
  local x = mmax(0, mmin(round_int(xpos), c.num_vertices[1] - 1))
  local z = mmax(0, mmin(round_int(zpos), c.num_vertices[2] - 1))
  return E.IntVector2_new(x, c.num_vertices[2] - 1 - z)
end
TM.HeightMapToWorld = function(self, pixel)
  local c = trec(self)
  if c.node == nil then return v3(0, 0, 0) end
  local x = pixel.x * c.spacing[1] + c.origin[1]
  local z = (c.num_vertices[2] - 1 - pixel.y) * c.spacing[3] + c.origin[2]
  local wx, wy, wz = E.node_apply(c.node, x, 0.0, z, 1)
  local out = v3(wx, wy, wz)
  out.y = TM.GetHeight(self, out)
  return out
end
TM.GetHeightData = function(self)
  local c = trec(self)
  local out = {}
  if c.heights == nil then return out end
  for k = 1, #c.heights // 4 do out[k] = sunpack("<f", c.heights, (k - 1) * 4 + 1) end
  return out
end

-- For CollisionShape:SetTerrain (57_physics3d.lua): the heights (packed floats, z-major), the vertex counts, the
-- spacing and the lowest and highest height; nil without heights.
function E.terrain_heightfield(c)
  if c.heights == nil then return nil end
  return {heights = c.heights, nx = c.num_vertices[1], nz = c.num_vertices[2], spacing = c.spacing,
    min = c.min_height, max = c.max_height}
end

----------------------------------------------------------------------------------------------------
-- TerrainPatch: a drawable holding one patch's part of the heights
----------------------------------------------------------------------------------------------------
PM.GetOwner = function(self) local o = prec(self).owner; return o and not o.removed and o.proxy or nil end
PM.SetOwner = function(self, t) prec(self).owner = t and REC[t] end
PM.GetCoordinates = function(self) local k = prec(self).coords; return E.IntVector2_new(k[1], k[2]) end
PM.SetCoordinates = function(self, v) prec(self).coords = {v.x, v.y} end
PM.GetLodLevel = function(self) return prec(self).lod end
PM.ResetLod = function(self) prec(self).lod = 0 end
PM.SetMaterial = function(self, m) prec(self).material = m end
PM.SetBoundingBox = function(self, b)
  prec(self).box = {b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z}
end
PM.SetNeighbors = function(self, north, south, west, east)
  prec(self).set_neighbors = {north and REC[north], south and REC[south], west and REC[west], east and REC[east]}
end
-- The patch's neighbours: those set, else those of its terrain's layout (neighbouring terrains at the edges)
for i, side in ipairs({"North", "South", "West", "East"}) do
  local dx, dz = ({0, 0, -1, 1})[i], ({1, -1, 0, 0})[i]
  PM["Get" .. side .. "Patch"] = function(self)
    local p = prec(self)
    if p.set_neighbors then local n = p.set_neighbors[i]; return n and n.proxy or nil end
    local o = p.owner
    if o == nil or o.removed then return nil end
    local n = neighbor_patch(o, p.coords[1] + dx, p.coords[2] + dz)
    return n and n.proxy or nil
  end
end
for _, k in ipairs(PATCH_KEYS) do
  local getter = type(PATCH_PROPERTIES[k]) == "boolean" and k ~= "CastShadows" and "Is" .. k or "Get" .. k
  if PM["Set" .. k] == nil and E.REGISTRY.classes.TerrainPatch.methods["Set" .. k] then
    PM["Set" .. k] = function(self, v) prec(self)[k] = v end
  end
  if PM[getter] == nil and E.REGISTRY.classes.TerrainPatch.methods[getter] then
    PM[getter] = function(self) return prec(self)[k] end
  end
end

-- The patch's triangles in its node's space, in Urho3D's index order: per quad (x, z + 1), (x + 1, z), (x, z) and
-- (x, z + 1), (x + 1, z + 1), (x + 1, z).
local function patch_triangles(p)
  if p.tris then return p.tris end
  local c = p.owner
  local tris = {}
  if c and not c.removed and c.heights then
    local ps, sx, sz = c.patch_size, c.spacing[1], c.spacing[3]
    local bx, bz = p.coords[1] * ps, p.coords[2] * ps
    local n = 0
    local function put(x, z)
      tris[n + 1], tris[n + 2], tris[n + 3] = x * sx, raw_height(c, bx + x, bz + z), z * sz
      n = n + 3
    end
    for z = 0, ps - 1 do
      for x = 0, ps - 1 do
        put(x, z + 1); put(x + 1, z); put(x, z)
        put(x, z + 1); put(x + 1, z + 1); put(x + 1, z)
      end
    end
  end
  p.tris = tris
  return tris
end
E.DRAWABLE_KINDS.TerrainPatch = {flags = DRAWABLE_GEOMETRY,
  box = function(p) return p.box end,
  triangles = function(p) return {patch_triangles(p)} end,
  name = function() return "TerrainPatch" end,
  ray = function(p, q, results)
    if q.level == RAY_TRIANGLE_UV then
      E.log("WARNING", "RAY_TRIANGLE_UV query level is not supported for TerrainPatch component")
      return
    end
    if q.level == RAY_AABB then return end
    E.drawable_mesh_level(p, q, results, E.DRAWABLE_KINDS.TerrainPatch, E.world(p.node), M_MAX_UNSIGNED)
  end}
