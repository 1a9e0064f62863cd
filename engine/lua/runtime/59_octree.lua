-- Drawables' bounding boxes and the Octree's queries: raycasts at the AABB, OBB and triangle levels, and point,
-- box, sphere and frustum queries, as Urho3D's Octree answers them.
--
-- Which drawables an octree holds: the enabled drawables of enabled nodes in the scene whose root carries that
-- Octree (the first one), plus those added with AddManualDrawable.  Urho3D keeps them in a loose octree; the results
-- are the same drawables, visited here in scene order (depth first, components in order), so results at equal
-- distances come in scene order where Urho3D's come in octant order.  Per drawable, as Urho3D's ProcessRayQuery:
--   RAY_AABB      the world bounding box; the normal is the ray's reverse
--   RAY_OBB       the local bounding box in the drawable's space
--   RAY_TRIANGLE  the drawable's triangles in its space, back faces culled; the normal is the world transform of the
--                 hit geometry's face normal, which Urho3D takes from the last triangle the ray crosses in index
--                 order (not the nearest); subObject is the geometry's index
-- Triangles are known for CustomGeometry, models built in code or shipped by the game, and the stock Box, Plane,
-- Pyramid, Cylinder and Cone (58_geometry.lua).  For another stock model the oriented box stands in, and the log
-- says so once per model ("is not supported headless").
local type, setmetatable, ipairs, tostring = type, setmetatable, ipairs, tostring
local sformat, tsort = string.format, table.sort
local sqrt, mmin, mmax, abs = math.sqrt, math.min, math.max, math.abs
local REC, comp_rec, typed_comp_rec = E.REC, E.comp_rec, E.typed_comp_rec
local MX = E.MATH
local INF = math.huge
local M_MAX_UNSIGNED = 4294967295
local M_EPSILON = 0.000001
local M_LARGE_VALUE = 100000000.0
local DRAWABLE_GEOMETRY, DRAWABLE_LIGHT, DRAWABLE_ZONE, DRAWABLE_GEOMETRY2D = 1, 2, 4, 8
local RAY_AABB, RAY_OBB, RAY_TRIANGLE, RAY_TRIANGLE_UV = 0, 1, 2, 3
local LIGHT_DIRECTIONAL, LIGHT_SPOT = 0, 1
local hit_box, hit_triangle = MX.ray_hit_box, MX.ray_hit_triangle
local Inverse34 = E.IMPL.Matrix3x4.methods.Inverse
local v3 = E.Vector3_new

----------------------------------------------------------------------------------------------------
-- Boxes as six numbers: x0, y0, z0, x1, y1, z1 (nil: undefined)
----------------------------------------------------------------------------------------------------
local function transform_box(b, m)
  local cx, cy, cz = (b[1] + b[4]) * 0.5, (b[2] + b[5]) * 0.5, (b[3] + b[6]) * 0.5
  local ex, ey, ez = (b[4] - b[1]) * 0.5, (b[5] - b[2]) * 0.5, (b[6] - b[3]) * 0.5
  local wx = m.m00 * cx + m.m01 * cy + m.m02 * cz + m.m03
  local wy = m.m10 * cx + m.m11 * cy + m.m12 * cz + m.m13
  local wz = m.m20 * cx + m.m21 * cy + m.m22 * cz + m.m23
  local nx = abs(m.m00) * ex + abs(m.m01) * ey + abs(m.m02) * ez
  local ny = abs(m.m10) * ex + abs(m.m11) * ey + abs(m.m12) * ez
  local nz = abs(m.m20) * ex + abs(m.m21) * ey + abs(m.m22) * ez
  return {wx - nx, wy - ny, wz - nz, wx + nx, wy + ny, wz + nz}
end
local function merge(a, b)
  if a == nil then return b and {b[1], b[2], b[3], b[4], b[5], b[6]} end
  if b == nil then return a end
  return {mmin(a[1], b[1]), mmin(a[2], b[2]), mmin(a[3], b[3]), mmax(a[4], b[4]), mmax(a[5], b[5]), mmax(a[6], b[6])}
end
local function bbox_value(b)
  if b == nil then return E.IMPL.BoundingBox.new() end
  return E.BoundingBox_new(b[1], b[2], b[3], b[4], b[5], b[6])
end
local function box_table(b) return {min = {x = b[1], y = b[2], z = b[3]}, max = {x = b[4], y = b[5], z = b[6]}} end
E.transform_box, E.merge_box, E.box_value = transform_box, merge, bbox_value

----------------------------------------------------------------------------------------------------
-- Drawable kinds: flags, local box, triangles (a list of flat triangle lists, one per geometry; nil: unknown)
----------------------------------------------------------------------------------------------------
local KINDS = {}
E.DRAWABLE_KINDS = KINDS

local function model_box(c)
  local r = c.model and REC[c.model]
  return r and r.bbox
end
local function model_triangles(c)
  local r = c.model and REC[c.model]
  if r == nil then return {} end
  local gs = E.model_geometries(r)
  if gs == nil then return nil end
  local lists = {}
  for i, g in ipairs(gs) do
    local geom = g.lods[1]
    lists[i] = geom and E.geometry_triangles(REC[geom]) or false
  end
  return lists
end
local function model_name(c)
  local r = c.model and REC[c.model]
  return r and r.name or "?"
end
KINDS.StaticModel = {flags = DRAWABLE_GEOMETRY, box = model_box, triangles = model_triangles, name = model_name}
KINDS.Skybox = KINDS.StaticModel
KINDS.CustomGeometry = {flags = DRAWABLE_GEOMETRY, box = function(c) return E.custom_geometry_box(c) end,
  triangles = function(c) return E.custom_geometry_triangles(c, "committed") end,
  name = function() return "CustomGeometry" end}
KINDS.StaticSprite2D = {flags = DRAWABLE_GEOMETRY2D, box = function() return nil end}
KINDS.Zone = {flags = DRAWABLE_ZONE, box = function(c)
  local b = c.BoundingBox
  return b and {b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z}
end}

local function kind_of(c) return KINDS[c.type_name] end

-- A drawable record's world box (six numbers or nil).
local function world_box(c)
  local k = kind_of(c)
  if k == nil then return nil end
  if k.world_box then return k.world_box(c) end
  local b = k.box(c)
  if b == nil then return nil end
  if c.node == nil then return {b[1], b[2], b[3], b[4], b[5], b[6]} end
  return transform_box(b, E.world(c.node))
end
E.drawable_world_box = world_box

-- StaticModelGroup: the model at every instance node (the group's own node draws nothing unless it is one).
local function instances(c)
  local out = {}
  for _, n in ipairs(c.instance_nodes or {}) do if not n.removed then out[#out + 1] = n end end
  return out
end
KINDS.StaticModelGroup = {flags = DRAWABLE_GEOMETRY, box = model_box, triangles = model_triangles, name = model_name,
  world_box = function(c)
    local b = model_box(c)
    if b == nil then return nil end
    local out
    for _, n in ipairs(instances(c)) do out = merge(out, transform_box(b, E.world(n))) end
    return out
  end}

-- BillboardSet: each enabled billboard as a cube of half size (size.x + size.y) / sqrt(2) around its centre, in
-- world space (relative: through the node's transform; scaled: by its world scale), and the node's position.
local INV_SQRT_TWO = 1.0 / sqrt(2.0)
local function billboard_spheres(c)
  local w = E.world(c.node)
  local sx, sy = 1.0, 1.0
  if c.Scaled then sx, sy = E.world_scale(c.node) end
  local out = {}
  for i, b in ipairs(c.billboards or {}) do
    if b.enabled then
      local size = INV_SQRT_TWO * (b.size.x * sx + b.size.y * sy)
      local p = b.position
      local x, y, z = p.x, p.y, p.z
      if c.Relative then
        x, y, z = w.m00 * p.x + w.m01 * p.y + w.m02 * p.z + w.m03, w.m10 * p.x + w.m11 * p.y + w.m12 * p.z + w.m13,
          w.m20 * p.x + w.m21 * p.y + w.m22 * p.z + w.m23
      end
      out[#out + 1] = {x, y, z, size, i - 1}
    end
  end
  return out, w
end
KINDS.BillboardSet = {flags = DRAWABLE_GEOMETRY, box = function() return nil end,
  world_box = function(c)
    if c.node == nil then return nil end
    local spheres, w = billboard_spheres(c)
    local out = {w.m03, w.m13, w.m23, w.m03, w.m13, w.m23}
    for _, s in ipairs(spheres) do out = merge(out, {s[1] - s[4], s[2] - s[4], s[3] - s[4], s[1] + s[4], s[2] + s[4],
      s[3] + s[4]}) end
    return out
  end}

-- Light: a directional light's box is everything; a spot light's its frustum's; a point light's its range cube.
local function light_frustum(c)
  local w = E.world(c.node)
  local m = E.IMPL.Matrix3x4.new(v3(w.m03, w.m13, w.m23), E.IMPL.Quaternion.new(w.ww, w.wx, w.wy, w.wz), 1.0)
  local f = E.IMPL.Frustum.new()
  f:Define(c.Fov, c.AspectRatio, 1.0, 0.01, c.Range, m)
  return f
end
KINDS.Light = {flags = DRAWABLE_LIGHT, box = function() return nil end,
  world_box = function(c)
    if c.LightType == LIGHT_DIRECTIONAL then
      return {-M_LARGE_VALUE, -M_LARGE_VALUE, -M_LARGE_VALUE, M_LARGE_VALUE, M_LARGE_VALUE, M_LARGE_VALUE}
    end
    if c.node == nil then return nil end
    if c.LightType == LIGHT_SPOT then
      local b = E.IMPL.BoundingBox.new(light_frustum(c))
      return {b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z}
    end
    local w = E.world(c.node)
    local r = c.Range
    return {w.m03 - r, w.m13 - r, w.m23 - r, w.m03 + r, w.m13 + r, w.m23 + r}
  end}

----------------------------------------------------------------------------------------------------
-- Drawable members: bounding boxes and flags
----------------------------------------------------------------------------------------------------
local D = class("Drawable").methods
D.GetBoundingBox = function(self)
  local c = comp_rec(self)
  local k = kind_of(c)
  return bbox_value(k and k.box(c))
end
D.GetWorldBoundingBox = function(self) return bbox_value(world_box(comp_rec(self))) end
D.GetDrawableFlags = function(self)
  local k = kind_of(comp_rec(self))
  return k and k.flags or 0
end
D.MarkForUpdate = function() end

----------------------------------------------------------------------------------------------------
-- Ray tests
----------------------------------------------------------------------------------------------------
local RQR = class("RayQueryResult")
local function ray_result(px, py, pz, nx, ny, nz, distance, c, sub)
  return setmetatable({position = v3(px, py, pz), normal = v3(nx, ny, nz), textureUV = E.Vector2_new(0, 0),
    distance = distance, drawable = c and c.proxy, node = c and c.node and c.node.proxy, subObject = sub}, RQR.mt)
end
RQR.new = function() return ray_result(0, 0, 0, 0, 0, 0, 0.0, nil, 0) end
local OQR = class("OctreeQueryResult")
local function query_result(c)
  return setmetatable({drawable = c and c.proxy, node = c and c.node and c.node.proxy}, OQR.mt)
end
OQR.new = function() return query_result(nil) end

local function push(results, q, distance, nx, ny, nz, c, sub)
  local o, d = q.origin, q.direction
  results[#results + 1] = ray_result(o.x + d.x * distance, o.y + d.y * distance, o.z + d.z * distance, nx, ny, nz,
    distance, c, sub)
end
local function aabb_level(c, q, results)
  local b = world_box(c)
  if b == nil then return end
  local dist = hit_box(q.origin, q.direction, box_table(b))
  if dist < q.max then push(results, q, dist, -q.direction.x, -q.direction.y, -q.direction.z, c, M_MAX_UNSIGNED) end
end

-- The nearest hit of a local ray on a flat triangle list, and the raw normal (v1 - v0) x (v2 - v0) of the last
-- triangle the ray crosses, as Ray::HitDistance reports it.
local function hit_triangles(o, d, tris)
  local nearest, nx, ny, nz = INF, 0.0, 0.0, 0.0
  local ox, oy, oz, dx, dy, dz = o.x, o.y, o.z, d.x, d.y, d.z
  for k = 1, #tris - 8, 9 do
    local ax, ay, az = tris[k], tris[k + 1], tris[k + 2]
    local e1x, e1y, e1z = tris[k + 3] - ax, tris[k + 4] - ay, tris[k + 5] - az
    local e2x, e2y, e2z = tris[k + 6] - ax, tris[k + 7] - ay, tris[k + 8] - az
    local px, py, pz = dy * e2z - dz * e2y, dz * e2x - dx * e2z, dx * e2y - dy * e2x
    local det = e1x * px + e1y * py + e1z * pz
    if det >= M_EPSILON then
      local tx, ty, tz = ox - ax, oy - ay, oz - az
      local u = tx * px + ty * py + tz * pz
      if u >= 0.0 and u <= det then
        local qx, qy, qz = ty * e1z - tz * e1y, tz * e1x - tx * e1z, tx * e1y - ty * e1x
        local v = dx * qx + dy * qy + dz * qz
        if v >= 0.0 and u + v <= det then
          local dist = (e2x * qx + e2y * qy + e2z * qz) / det
          if dist >= 0.0 then
            nx, ny, nz = e1y * e2z - e1z * e2y, e1z * e2x - e1x * e2z, e1x * e2y - e1y * e2x
            if dist < nearest then nearest = dist end
          end
        end
      end
    end
  end
  return nearest, nx, ny, nz
end
E.ray_hit_triangles = hit_triangles

local said = {}
local function say_once(key, text)
  if said[key] then return end
  said[key] = true
  E.log("WARNING", text)
end

-- OBB and triangle levels of a mesh drawable placed by world matrix w (a node record or a matrix).
local function mesh_level(c, q, results, k, w, sub_default)
  local b = k.box(c)
  if b == nil then return end
  local inv = Inverse34(w)
  local o, d = q.origin, q.direction
  local lo = v3(inv.m00 * o.x + inv.m01 * o.y + inv.m02 * o.z + inv.m03,
    inv.m10 * o.x + inv.m11 * o.y + inv.m12 * o.z + inv.m13, inv.m20 * o.x + inv.m21 * o.y + inv.m22 * o.z + inv.m23)
  local ld = v3(inv.m00 * d.x + inv.m01 * d.y + inv.m02 * d.z, inv.m10 * d.x + inv.m11 * d.y + inv.m12 * d.z,
    inv.m20 * d.x + inv.m21 * d.y + inv.m22 * d.z)
  local dist = hit_box(lo, ld, box_table(b))
  local nx, ny, nz = -d.x, -d.y, -d.z
  local sub = sub_default
  if q.level >= RAY_TRIANGLE and dist < q.max then
    local lists = k.triangles and k.triangles(c)
    if lists == nil then
      say_once("tri:" .. k.name(c), sformat("Octree raycast at RAY_TRIANGLE against %s is not supported headless "
        .. "(its triangles are not loaded): its oriented bounding box stands in", k.name(c)))
    else
      if q.level == RAY_TRIANGLE_UV then
        say_once("uv", "Octree raycast at RAY_TRIANGLE_UV is not supported headless: textureUV reads zero")
      end
      dist = INF
      for i, tris in ipairs(lists) do
        if tris then
          local gd, gx, gy, gz = hit_triangles(lo, ld, tris)
          if gd < q.max and gd < dist then
            dist = gd
            local wx = w.m00 * gx + w.m01 * gy + w.m02 * gz
            local wy = w.m10 * gx + w.m11 * gy + w.m12 * gz
            local wz = w.m20 * gx + w.m21 * gy + w.m22 * gz
            local l = sqrt(wx * wx + wy * wy + wz * wz)
            if l > 0 then nx, ny, nz = wx / l, wy / l, wz / l else nx, ny, nz = wx, wy, wz end
            sub = i - 1
          end
        end
      end
    end
  end
  if dist < q.max then push(results, q, dist, nx, ny, nz, c, sub) end
end

local function process_ray(c, q, results)
  local k = kind_of(c)
  local t = c.type_name
  if q.level == RAY_AABB then
    if t == "Light" and c.LightType == LIGHT_DIRECTIONAL then return end
    return aabb_level(c, q, results)
  end
  if t == "StaticModel" or t == "Skybox" or t == "CustomGeometry" then
    if t == "CustomGeometry" and q.level == RAY_TRIANGLE_UV then
      say_once("cg-uv", "RAY_TRIANGLE_UV query level is not supported for CustomGeometry component")
      return
    end
    return mesh_level(c, q, results, k, E.world(c.node), M_MAX_UNSIGNED)
  end
  if t == "StaticModelGroup" then
    for i, n in ipairs(instances(c)) do mesh_level(c, q, results, k, E.world(n), i - 1) end
    return
  end
  if t == "BillboardSet" then
    if q.level < RAY_TRIANGLE then return aabb_level(c, q, results) end
    local wb = world_box(c)
    if wb == nil or hit_box(q.origin, q.direction, box_table(wb)) >= q.max then return end
    local spheres = billboard_spheres(c)
    for _, s in ipairs(spheres) do
      local dist = q.ray:HitDistance(E.IMPL.Sphere.new(v3(s[1], s[2], s[3]), s[4]))
      if dist < q.max then push(results, q, dist, -q.direction.x, -q.direction.y, -q.direction.z, c, s[5]) end
    end
    return
  end
  if t == "Light" then
    if c.LightType == LIGHT_DIRECTIONAL then return end
    local dist
    if q.level == RAY_OBB then
      local w = E.world(c.node)
      local inv = Inverse34(w)
      local lray = q.ray:Transformed(inv)
      dist = lray:HitDistance(bbox_value(world_box(c)):Transformed(inv))
    elseif q.level == RAY_TRIANGLE then
      if c.LightType == LIGHT_SPOT then
        dist = q.ray:HitDistance(light_frustum(c))
      else
        local w = E.world(c.node)
        dist = q.ray:HitDistance(E.IMPL.Sphere.new(v3(w.m03, w.m13, w.m23), c.Range))
      end
    else
      say_once("light-uv", "RAY_TRIANGLE_UV query level is not supported for Light component")
      return
    end
    if dist < q.max then push(results, q, dist, -q.direction.x, -q.direction.y, -q.direction.z, c, M_MAX_UNSIGNED) end
    return
  end
  if k.ray then return k.ray(c, q, results) end
  return aabb_level(c, q, results)
end
E.drawable_process_ray = process_ray
E.drawable_mesh_level, E.ray_result_push = mesh_level, push   -- AnimatedModel's ray test (64_animated_model.lua)

----------------------------------------------------------------------------------------------------
-- The octree's drawables and its queries
----------------------------------------------------------------------------------------------------
local Oct = class("Octree")
local OM = Oct.methods
E.COMPONENT_FACTORIES.Octree = function(c)
  c.levels, c.box, c.manual = 8, {-1000.0, -1000.0, -1000.0, 1000.0, 1000.0, 1000.0}, {}
end
local function orec(self) return typed_comp_rec(self, "Octree") end
OM.SetSize = function(self, box, levels)
  local c = orec(self)
  c.box = {box.min.x, box.min.y, box.min.z, box.max.x, box.max.y, box.max.z}
  c.levels = mmax(mmin(math.floor(levels or 8), 255), 1)
end
OM.GetNumLevels = function(self) return orec(self).levels end
OM.AddManualDrawable = function(self, drawable)
  local c, d = orec(self), REC[drawable]
  if d == nil or kind_of(d) == nil then return end
  for _, x in ipairs(c.manual) do if x == d then return end end
  if d.node and d.node.scene == (c.node and c.node.scene) then return end   -- already in this octree
  c.manual[#c.manual + 1] = d
end
OM.RemoveManualDrawable = function(self, drawable)
  local c, d = orec(self), REC[drawable]
  for i, x in ipairs(c.manual) do if x == d then table.remove(c.manual, i); return end end
end
OM.QueueUpdate = function() end
OM.DrawDebugGeometry = function() end

-- The drawables this octree holds that pass the flags and view mask, in scene order, then the manual ones.
local function drawables(c, flags, mask)
  local out = {}
  flags, mask = math.floor(flags or 255), math.floor(mask or M_MAX_UNSIGNED)
  local function take(d)
    local k = kind_of(d)
    if k and (k.flags & flags) ~= 0 and ((d.ViewMask or M_MAX_UNSIGNED) & mask) ~= 0 then out[#out + 1] = d end
  end
  local node = c.node
  local scene = node and node.scene
  if scene and scene == node then
    local first
    for _, x in ipairs(scene.components) do if x.type_name == "Octree" then first = x; break end end
    if first == c then
      local function visit(n)
        if n.enabled then
          for _, d in ipairs(n.components) do if d.enabled and not d.removed then take(d) end end
        end
        for _, child in ipairs(n.children) do visit(child) end
      end
      visit(scene)
    end
  end
  for _, d in ipairs(c.manual) do if not d.removed and d.enabled then take(d) end end
  return out
end
E.octree_drawables = drawables

local function ray_query(self, ray, level, max_distance, flags, mask, what)
  if not E.is(ray, "Ray") then
    E.raise_at_game(sformat("bad argument #1 to '%s' (Ray expected, got %s)", what, type(ray)))
  end
  if type(level) ~= "number" or type(max_distance) ~= "number" then
    E.raise_at_game(sformat("bad arguments to '%s' (ray, level, maxDistance, drawableFlags expected)", what))
  end
  return {ray = ray, origin = ray.origin, direction = ray.direction, level = math.floor(level), max = max_distance},
    drawables(orec(self), flags, mask)
end
-- Stable by distance: equal distances keep the order the drawables were visited in.
local function sort_results(results)
  for i, r in ipairs(results) do r._seq = i end
  tsort(results, function(a, b)
    if a.distance ~= b.distance then return a.distance < b.distance end
    return a._seq < b._seq
  end)
  for _, r in ipairs(results) do r._seq = nil end
end
OM.Raycast = function(self, ray, level, max_distance, flags, mask)
  local q, list = ray_query(self, ray, level, max_distance, flags, mask, "Raycast")
  local results = {}
  for _, d in ipairs(list) do process_ray(d, q, results) end
  sort_results(results)
  return results
end
OM.RaycastSingle = function(self, ray, level, max_distance, flags, mask)
  local q, list = ray_query(self, ray, level, max_distance, flags, mask, "RaycastSingle")
  local order = {}
  for i, d in ipairs(list) do
    local b = world_box(d)
    order[i] = {d = d, dist = b and hit_box(q.origin, q.direction, box_table(b)) or INF, seq = i}
  end
  tsort(order, function(a, b)
    if a.dist ~= b.dist then return a.dist < b.dist end
    return a.seq < b.seq
  end)
  local results, closest = {}, INF
  for _, o in ipairs(order) do
    if o.dist < mmin(closest, q.max) then
      local n = #results
      process_ray(o.d, q, results)
      if #results > n then closest = mmin(closest, results[#results].distance) end
    else
      break
    end
  end
  if #results == 0 then
    local r = ray_result(0, 0, 0, 0, 0, 0, INF, nil, 0)
    return r
  end
  sort_results(results)
  return results[1]
end

-- GetDrawables(point | box | frustum | sphere, flags, viewMask) and GetAllDrawables(flags, viewMask)
local OUTSIDE = 0
OM.GetDrawables = function(self, shape, flags, mask)
  local list = drawables(orec(self), flags, mask)
  local test
  if E.is(shape, "Vector3") then
    test = function(b) return bbox_value(b):IsInside(shape) ~= OUTSIDE end
  elseif E.is(shape, "BoundingBox") then
    test = function(b) return shape:IsInsideFast(bbox_value(b)) ~= OUTSIDE end
  elseif E.is(shape, "Sphere") or E.is(shape, "Frustum") then
    test = function(b) return shape:IsInsideFast(bbox_value(b)) ~= OUTSIDE end
  else
    E.raise_at_game(sformat("bad argument #1 to 'GetDrawables' (Vector3, BoundingBox, Frustum or Sphere expected, "
      .. "got %s)", type(shape)))
  end
  local out = {}
  for _, d in ipairs(list) do
    local b = world_box(d)
    if b and test(b) then out[#out + 1] = query_result(d) end
  end
  return out
end
OM.GetAllDrawables = function(self, flags, mask)
  local out = {}
  for _, d in ipairs(drawables(orec(self), flags, mask)) do out[#out + 1] = query_result(d) end
  return out
end
