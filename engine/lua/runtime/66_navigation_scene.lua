-- Navigation, part 3: the components (docs/navigation.md).  NavigationMesh and DynamicNavigationMesh collect the
-- geometry of Navigable nodes as Urho3D's CollectGeometries does (a node's enabled box, triangle-mesh and
-- convex-hull CollisionShapes when it has any, else its StaticModels and TerrainPatches; nodes with an Obstacle or a
-- CrowdAgent are left out, with their children), build it tile by tile (66_navigation_build.lua) into the pieces
-- the queries walk (66_navigation_query.lua), and answer Urho3D's queries in world space.  A DynamicNavigationMesh
-- cuts its Obstacles (cylinders, not widened by the agent radius, as Detour's tile cache cuts them) at the scene's
-- SceneSubsystemUpdate after they are added, moved, changed or removed.  Events, defaults and clamps are Urho3D's.
local type, ipairs, tostring = type, ipairs, tostring
local sformat, spack, sunpack = string.format, string.pack, string.unpack
local mfloor, mmin, mmax, abs, sqrt, cos, rad = math.floor, math.min, math.max, math.abs, math.sqrt, math.cos, math.rad
local REC, comp_rec, typed_comp_rec = E.REC, E.comp_rec, E.typed_comp_rec
local FACTORIES = E.COMPONENT_FACTORIES
local Q = E.NAVQ
local v3 = E.Vector3_new
local M_EPSILON = 0.000001
local M_LARGE = 100000000.0

local NAV = {}
E.NAV = NAV

----------------------------------------------------------------------------------------------------
-- Arguments
----------------------------------------------------------------------------------------------------
local function vec3(v, fname, n) return E.class_arg(v, "Vector3", fname, n) end
local number = E.number_arg
local function ivec2(v, fname, n) return E.class_arg(v, "IntVector2", fname, n) end
local function extents_of(v, fname, n)
  if v == nil then return 1.0, 1.0, 1.0 end
  vec3(v, fname, n)
  return v.x, v.y, v.z
end
NAV.vec3, NAV.number = vec3, number

----------------------------------------------------------------------------------------------------
-- Matrices as 12 numbers (rows of a 3x4)
----------------------------------------------------------------------------------------------------
local function node_matrix(n)
  local r = E.world(n)
  return {r.m00, r.m01, r.m02, r.m03, r.m10, r.m11, r.m12, r.m13, r.m20, r.m21, r.m22, r.m23}
end
local function mul(a, b)
  local o = {}
  for row = 0, 2 do
    for col = 0, 3 do
      local v = a[row * 4 + 1] * b[col + 1] + a[row * 4 + 2] * b[4 + col + 1] + a[row * 4 + 3] * b[8 + col + 1]
      if col == 3 then v = v + a[row * 4 + 4] end
      o[row * 4 + col + 1] = v
    end
  end
  return o
end
local function inverse(m)
  local a, b, c, d, e, f, g, h, i = m[1], m[2], m[3], m[5], m[6], m[7], m[9], m[10], m[11]
  local det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
  if det == 0 then det = M_EPSILON end
  local id = 1.0 / det
  local r00, r01, r02 = (e * i - f * h) * id, (c * h - b * i) * id, (b * f - c * e) * id
  local r10, r11, r12 = (f * g - d * i) * id, (a * i - c * g) * id, (c * d - a * f) * id
  local r20, r21, r22 = (d * h - e * g) * id, (b * g - a * h) * id, (a * e - b * d) * id
  local tx, ty, tz = m[4], m[8], m[12]
  return {r00, r01, r02, -(r00 * tx + r01 * ty + r02 * tz), r10, r11, r12, -(r10 * tx + r11 * ty + r12 * tz),
    r20, r21, r22, -(r20 * tx + r21 * ty + r22 * tz)}
end
local function apply(m, x, y, z)
  return m[1] * x + m[2] * y + m[3] * z + m[4], m[5] * x + m[6] * y + m[7] * z + m[8],
    m[9] * x + m[10] * y + m[11] * z + m[12]
end
local function is_identity(m)
  return m[1] == 1 and m[2] == 0 and m[3] == 0 and m[4] == 0 and m[5] == 0 and m[6] == 1 and m[7] == 0 and
    m[8] == 0 and m[9] == 0 and m[10] == 0 and m[11] == 1 and m[12] == 0
end
-- Matrix3x4(translation, rotation, scale) as 12 numbers
local function trs(p, q, s)
  local w, x, y, z = q[1], q[2], q[3], q[4]
  return {(1 - 2 * (y * y + z * z)) * s[1], 2 * (x * y - w * z) * s[2], 2 * (x * z + w * y) * s[3], p[1],
    2 * (x * y + w * z) * s[1], (1 - 2 * (x * x + z * z)) * s[2], 2 * (y * z - w * x) * s[3], p[2],
    2 * (x * z - w * y) * s[1], 2 * (y * z + w * x) * s[2], (1 - 2 * (x * x + y * y)) * s[3], p[3]}
end
local function box_of(m, b)   -- an axis-aligned box {x0, y0, z0, x1, y1, z1} through m
  local cx, cy, cz = (b[1] + b[4]) * 0.5, (b[2] + b[5]) * 0.5, (b[3] + b[6]) * 0.5
  local ex, ey, ez = (b[4] - b[1]) * 0.5, (b[5] - b[2]) * 0.5, (b[6] - b[3]) * 0.5
  local wx, wy, wz = apply(m, cx, cy, cz)
  local nx = abs(m[1]) * ex + abs(m[2]) * ey + abs(m[3]) * ez
  local ny = abs(m[5]) * ex + abs(m[6]) * ey + abs(m[7]) * ez
  local nz = abs(m[9]) * ex + abs(m[10]) * ey + abs(m[11]) * ez
  return {wx - nx, wy - ny, wz - nz, wx + nx, wy + ny, wz + nz}
end

-- World <-> the mesh's space (its node's).
local function to_local(c, x, y, z)
  local nav = c.nav
  if nav.identity then return x, y, z end
  return apply(inverse(node_matrix(c.node)), x, y, z)
end
local function to_world(c, x, y, z)
  local nav = c.nav
  if nav.identity then return x, y, z end
  return apply(node_matrix(c.node), x, y, z)
end
NAV.to_local, NAV.to_world = to_local, to_world

----------------------------------------------------------------------------------------------------
-- Geometry collection
----------------------------------------------------------------------------------------------------
local SHAPE_BOX, SHAPE_TRIANGLEMESH, SHAPE_CONVEXHULL = 0, 6, 7
local function effective(c) return c.enabled and c.node ~= nil and not c.node.removed and c.node.enabled end
NAV.effective = effective

local function has_component(n, type_name)
  for _, x in ipairs(n.components) do if x.type_name == type_name then return true end end
  return false
end

-- The unit box's triangles, wound so that the right-handed cross product of the edges points out.
local UNIT_BOX = (function()
  local out = {}
  local faces = {{0, 1}, {0, -1}, {1, 1}, {1, -1}, {2, 1}, {2, -1}}
  for _, f in ipairs(faces) do
    local axis, sgn = f[1], f[2]
    local u, v = (axis + 1) % 3, (axis + 2) % 3
    local corners = {}
    for _, uv in ipairs({{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}) do
      local p = {0, 0, 0}
      p[axis + 1], p[u + 1], p[v + 1] = 0.5 * sgn, 0.5 * uv[1], 0.5 * uv[2]
      corners[#corners + 1] = p
    end
    for _, tri in ipairs({{1, 2, 3}, {1, 3, 4}}) do
      local a, b, c = corners[tri[1]], corners[tri[2]], corners[tri[3]]
      local e0 = {b[1] - a[1], b[2] - a[2], b[3] - a[3]}
      local e1 = {c[1] - a[1], c[2] - a[2], c[3] - a[3]}
      local n = {e0[2] * e1[3] - e0[3] * e1[2], e0[3] * e1[1] - e0[1] * e1[3], e0[1] * e1[2] - e0[2] * e1[1]}
      if n[axis + 1] * sgn < 0 then b, c = c, b end
      for _, p in ipairs({a, b, c}) do out[#out + 1] = p[1]; out[#out + 1] = p[2]; out[#out + 1] = p[3] end
    end
  end
  return out
end)()

local warned_models = {}
local function model_lists(model, lod)
  local r = REC[model]
  local gs = r and E.model_geometries(r)
  if gs == nil then return nil end
  local lists = {}
  for _, g in ipairs(gs) do
    local n = #g.lods
    local geom = n > 0 and g.lods[mmin(lod, n - 1) + 1]
    local t = geom and REC[geom] and REC[geom].ib and E.geometry_triangles(REC[geom])
    if t then lists[#lists + 1] = t end
  end
  return lists
end

local function hull_lists(points)
  local pts = {}
  for i = 1, #points - 2, 3 do pts[#pts + 1] = {points[i], points[i + 1], points[i + 2]} end
  local faces = E.convex_hull(pts)
  if faces == nil then return {} end
  local t = {}
  for _, f in ipairs(faces) do
    for k = 1, 3 do
      local p = pts[f[k]]
      t[#t + 1], t[#t + 2], t[#t + 3] = p[1], p[2], p[3]
    end
  end
  return {t}
end

local function shape_item(s, inv)
  local t = s.shape_type
  local m = mul(inv, mul(node_matrix(s.node), trs(s.pos, s.rot, s.size)))
  if t == SHAPE_BOX then
    return {box = box_of(m, {-0.5, -0.5, -0.5, 0.5, 0.5, 0.5}), lists = {UNIT_BOX}, m = m}
  elseif t == SHAPE_TRIANGLEMESH then
    if s.model == nil then return nil end
    local lists = model_lists(s.model, s.lod or 0)
    local b = REC[s.model] and REC[s.model].bbox
    if lists == nil or b == nil then return nil end
    return {box = box_of(m, b), lists = lists, m = m}
  elseif t == SHAPE_CONVEXHULL then
    local points
    if s.custom then
      if s.custom.removed then return nil end
      points = E.custom_geometry_points(s.custom)
    elseif s.model then
      local gs = E.model_geometries(REC[s.model])
      if gs == nil then return nil end
      points = {}
      for _, g in ipairs(gs) do
        local n = #g.lods
        local geom = n > 0 and g.lods[mmin(s.lod or 0, n - 1) + 1]
        local list = geom and REC[geom] and E.geometry_points(REC[geom])
        for _, v in ipairs(list or {}) do points[#points + 1] = v end
      end
    else
      return nil
    end
    local lists = hull_lists(points)
    local lo, hi = {math.huge, math.huge, math.huge}, {-math.huge, -math.huge, -math.huge}
    for _, l in ipairs(lists) do
      for i = 1, #l - 2, 3 do
        local x, y, z = apply(m, l[i], l[i + 1], l[i + 2])
        lo[1], lo[2], lo[3] = mmin(lo[1], x), mmin(lo[2], y), mmin(lo[3], z)
        hi[1], hi[2], hi[3] = mmax(hi[1], x), mmax(hi[2], y), mmax(hi[3], z)
      end
    end
    if lo[1] > hi[1] then return nil end
    return {box = {lo[1], lo[2], lo[3], hi[1], hi[2], hi[3]}, lists = lists, m = m}
  end
  return nil
end

local function drawable_item(d, inv)
  local kind = E.DRAWABLE_KINDS[d.type_name]
  local lists = kind.triangles(d)
  if lists == nil then
    local name = kind.name and kind.name(d) or d.type_name
    if not warned_models[name] then
      warned_models[name] = true
      E.log("WARNING", sformat("NavigationMesh: the triangles of %s are not known headless; it is left out", name))
    end
    return nil
  end
  local clean = {}
  for _, l in ipairs(lists) do if l then clean[#clean + 1] = l end end
  local wb = E.drawable_world_box(d)
  if wb == nil then return nil end
  local m = mul(inv, node_matrix(d.node))
  if is_identity(m) then m = nil end
  local box = wb
  if not is_identity(inv) then box = box_of(inv, wb) end
  return {box = box, lists = clean, m = m}
end

local function collect_node(n, inv, items, processed, recursive)
  if processed[n] then return end
  if has_component(n, "Obstacle") or has_component(n, "CrowdAgent") then return end
  processed[n] = true
  local found = false
  for _, s in ipairs(n.components) do
    if s.type_name == "CollisionShape" and effective(s) then
      local t = s.shape_type
      if t == SHAPE_BOX or t == SHAPE_TRIANGLEMESH or t == SHAPE_CONVEXHULL then
        local it = shape_item(s, inv)
        if it then items[#items + 1] = it; found = true end
      end
    end
  end
  if not found then
    for _, d in ipairs(n.components) do
      if (d.type_name == "StaticModel" or d.type_name == "TerrainPatch") and effective(d) then
        local it = drawable_item(d, inv)
        if it then items[#items + 1] = it end
      end
    end
  end
  if recursive then
    for _, child in ipairs(n.children) do collect_node(child, inv, items, processed, recursive) end
  end
end

local function components_below(n, type_name, out)
  for _, x in ipairs(n.components) do if x.type_name == type_name then out[#out + 1] = x end end
  for _, child in ipairs(n.children) do components_below(child, type_name, out) end
  return out
end
NAV.components_below = components_below

-- Off-mesh connections under the mesh's node, in its space.
local function collect_offmesh(c, inv)
  local conns = {}
  for _, o in ipairs(components_below(c.node, "OffMeshConnection", {})) do
    local ep = o.end_point
    if effective(o) and ep and not ep.removed then
      local sw, ew = E.world(o.node), E.world(ep)
      local sx, sy, sz = apply(inv, sw.m03, sw.m13, sw.m23)
      local ex, ey, ez = apply(inv, ew.m03, ew.m13, ew.m23)
      conns[#conns + 1] = {sx = sx, sy = sy, sz = sz, ex = ex, ey = ey, ez = ez, radius = o.Radius,
        bidir = o.Bidirectional, flags = o.Mask & 0xffff, area = o.AreaID & 0xff, comp = o}
    end
  end
  return conns
end

-- Everything a build reads: triangle items, off-mesh connections, NavArea boxes, and the boxes they span.
local function collect(c)
  local inv = inverse(node_matrix(c.node))
  local items, processed = {}, {}
  for _, nv in ipairs(components_below(c.node, "Navigable", {})) do
    if effective(nv) then collect_node(nv.node, inv, items, processed, nv.Recursive) end
  end
  local boxes = {}
  for _, it in ipairs(items) do boxes[#boxes + 1] = it.box end
  local conns = collect_offmesh(c, inv)
  for _, o in ipairs(conns) do
    local r = o.radius
    boxes[#boxes + 1] = box_of(inv, (function()
      local w = E.world(o.comp.node)
      return {w.m03 - r, w.m13 - r, w.m23 - r, w.m03 + r, w.m13 + r, w.m23 + r}
    end)())
  end
  local areas = {}
  for _, a in ipairs(components_below(c.node, "NavArea", {})) do
    if effective(a) then
      local w = E.world(a.node)
      local b = a.bounds
      local wb = {b[1] + w.m03, b[2] + w.m13, b[3] + w.m23, b[4] + w.m03, b[5] + w.m13, b[6] + w.m23}
      local lb = box_of(inv, wb)
      lb.id = a.area_id
      areas[#areas + 1] = lb
      boxes[#boxes + 1] = lb
    end
  end
  return items, conns, areas, boxes, inv
end

----------------------------------------------------------------------------------------------------
-- NavigationMesh state
----------------------------------------------------------------------------------------------------
local DEFAULTS = {TileSize = 128, CellSize = 0.3, CellHeight = 0.2, AgentHeight = 2.0, AgentRadius = 0.6,
  AgentMaxClimb = 0.9, AgentMaxSlope = 45.0, RegionMinSize = 8.0, RegionMergeSize = 20.0, EdgeMaxLength = 12.0,
  EdgeMaxError = 1.3, DetailSampleDistance = 6.0, DetailSampleMaxError = 1.0, PartitionType = 0,
  DrawOffMeshConnections = false, DrawNavAreas = false}
local DEFAULT_KEYS = E.sorted_keys(DEFAULTS)

local function init_mesh(c)
  for _, k in ipairs(DEFAULT_KEYS) do c[k] = DEFAULTS[k] end
  c.padding = {1.0, 1.0, 1.0}
  c.filter = Q.new_filter()
  c.nav = nil
  c.bbox = nil          -- the mesh's box in its space (nil: undefined)
  c.ntx, c.ntz = 0, 0
  c.obstacles = {}
  c.on_scene_set = function(x, scene)
    if x.dynamic then
      E.subscribe(x, nil, scene.proxy, "SceneSubsystemUpdate", function() NAV.update_obstacles(x) end)
    end
    if NAV.on_mesh_added then NAV.on_mesh_added(x, scene) end
  end
  c.on_removed = function(x) E.unsubscribe_all(x) end
end
FACTORIES.NavigationMesh = function(c) init_mesh(c) end
FACTORIES.DynamicNavigationMesh = function(c)
  init_mesh(c)
  c.dynamic = true
  c.TileSize = 64
  c.PartitionType = 1
  c.max_obstacles, c.max_layers, c.draw_obstacles = 1024, 16, false
end

local function mesh_rec(self)
  local c = comp_rec(self)
  if c.type_name ~= "NavigationMesh" and c.type_name ~= "DynamicNavigationMesh" then
    E.raise_at_game("invalid 'self' (a NavigationMesh was expected)")
  end
  return c
end
NAV.mesh_rec = mesh_rec

local function send(c, name, fields)
  fields.Node = c.node and c.node.proxy
  fields.Mesh = c.proxy
  E.send_event(name, fields, c.proxy)
end

local function release(c)
  if c.nav then
    for k = 1, c.nav.ntx * c.nav.ntz do
      local t = c.nav.tiles[k]
      if t then for _, r in ipairs(t.rects) do r.dead = true end end
    end
  end
  c.nav = nil
  c.ntx, c.ntz = 0, 0
  c.bbox = nil
  for _, ob in ipairs(c.obstacles) do ob.applied = nil end
end

local function warn_scale(c)
  local sx, sy, sz = E.world_scale(c.node)
  if abs(sx - 1) > M_EPSILON or abs(sy - 1) > M_EPSILON or abs(sz - 1) > M_EPSILON then
    E.log("WARNING", "Navigation mesh root node has scaling. Agent parameters may not work as intended")
  end
end

-- Recast's cell counts from the current settings.
local function build_params(c, nav)
  local cs, ch = nav.cs, nav.ch
  local p = {bmin = nav.bmin, top = nav.bmax[2] - nav.bmin[2], cs = cs, ch = ch, ts = nav.ts,
    wh = math.ceil(c.AgentHeight / ch), wc = mfloor(c.AgentMaxClimb / ch), wr = math.ceil(c.AgentRadius / cs),
    walk_cos = cos(rad(c.AgentMaxSlope))}
  nav.wh, nav.wc = p.wh, p.wc
  return p
end

-- A new, empty navigation structure over box b (the mesh's space).
local function new_nav(c, b)
  local cs = c.CellSize
  local ts = c.TileSize
  local gw = mfloor((b[4] - b[1]) / cs + 0.5)
  local gh = mfloor((b[6] - b[3]) / cs + 0.5)
  local nav = {bmin = {b[1], b[2], b[3]}, bmax = {b[4], b[5], b[6]}, cs = cs, ch = c.CellHeight, ts = ts,
    ntx = (gw + ts - 1) // ts, ntz = (gh + ts - 1) // ts, tiles = {}, version = 0, conns = {},
    identity = is_identity(node_matrix(c.node))}
  c.ntx, c.ntz = nav.ntx, nav.ntz
  c.bbox = {b[1], b[2], b[3], b[4], b[5], b[6]}
  build_params(c, nav)
  return nav
end

local function tile_box(c, tx, tz)
  local b = c.bbox or {0, 0, 0, 0, 0, 0}
  local edge = c.TileSize * c.CellSize
  if c.nav then edge = c.nav.ts * c.nav.cs end
  return {b[1] + edge * tx, b[2], b[3] + edge * tz, b[1] + edge * (tx + 1), b[5], b[3] + edge * (tz + 1)}
end

-- Mark the spans of tile t that the mesh's applied obstacles cover (DynamicNavigationMesh).
local function mark_obstacles(c, nav, t)
  t.blocked = nil
  local ts, cs, ch = nav.ts, nav.cs, nav.ch
  for _, ob in ipairs(c.obstacles) do
    local a = ob.applied
    if a then
      local px, pz = (a[1] - nav.bmin[1]) / cs, (a[3] - nav.bmin[3]) / cs
      local r = a[4] / cs + 0.5
      local y0 = mfloor((a[2] - nav.bmin[2]) / ch)
      local y1 = mfloor((a[2] + a[5] - nav.bmin[2]) / ch)
      local gx0, gx1 = mmax(mfloor(px - r), t.tx * ts), mmin(mfloor(px + r), t.tx * ts + ts - 1)
      local gz0, gz1 = mmax(mfloor(pz - r), t.tz * ts), mmin(mfloor(pz + r), t.tz * ts + ts - 1)
      for gz = gz0, gz1 do
        for gx = gx0, gx1 do
          local dx, dz = gx + 0.5 - px, gz + 0.5 - pz
          if dx * dx + dz * dz <= r * r then
            local col = (gz - t.tz * ts) * ts + (gx - t.tx * ts) + 1
            for i = t.first[col], t.first[col + 1] - 1 do
              local y = t.yq[i]
              if y >= y0 and y <= y1 then
                t.blocked = t.blocked or {}
                t.blocked[i] = true
              end
            end
          end
        end
      end
    end
  end
end

-- Build tiles from..to (inclusive) with the collected geometry; returns the number built.
local function build_tiles(c, items, areas, x0, z0, x1, z1)
  local nav = c.nav
  local p = build_params(c, nav)
  p.areas = areas
  local built = 0
  for tz = mmax(z0, 0), mmin(z1, nav.ntz - 1) do
    for tx = mmax(x0, 0), mmin(x1, nav.ntx - 1) do
      local t = E.nav_build_tile(p, items, tx, tz)
      local keep = t
      if t and t.n == 0 then
        keep = nil
        if not c.dynamic then E.log("ERROR", "Could not build navigation mesh tile data") end
      end
      if keep and c.dynamic then mark_obstacles(c, nav, keep) end
      Q.set_tile(nav, tx, tz, keep)
      if keep then built = built + 1 end
      if t and (keep or c.dynamic) then
        local b = tile_box(c, tx, tz)
        send(c, "NavigationAreaRebuilt", {BoundsMin = v3(b[1], b[2], b[3]), BoundsMax = v3(b[4], b[5], b[6])})
      end
    end
  end
  return built
end

-- The off-mesh connections attach again whenever tiles changed.
local function attach(c)
  local nav = c.nav
  if nav and nav.links_dirty then Q.attach_offmesh(nav, nav.conns) end
end
NAV.attach = attach

-- Dynamic meshes: register an obstacle (Urho3D's AddObstacle) and tell the game.
local function add_obstacle(c, ob, silent)
  if c.nav == nil then return end
  local listed = false
  for _, x in ipairs(c.obstacles) do if x == ob then listed = true; break end end
  if not listed then c.obstacles[#c.obstacles + 1] = ob end
  ob.mesh = c
  ob.added = true
  if not silent then
    local w = E.world(ob.node)
    E.send_event("NavigationObstacleAdded", {Node = ob.node.proxy, Obstacle = ob.proxy, Position = v3(w.m03, w.m13, w.m23),
      Radius = ob.Radius, Height = ob.Height}, c.proxy)
  end
end
local function remove_obstacle(c, ob, silent)
  if not ob.added then return end
  ob.added = false
  if not silent and ob.node and not ob.node.removed then
    local w = E.world(ob.node)
    E.send_event("NavigationObstacleRemoved", {Node = ob.node.proxy, Obstacle = ob.proxy,
      Position = v3(w.m03, w.m13, w.m23), Radius = ob.Radius, Height = ob.Height}, c.proxy)
  end
end
NAV.add_obstacle, NAV.remove_obstacle = add_obstacle, remove_obstacle

local function scan_obstacles(c)
  local scene = c.node and c.node.scene
  if scene == nil then return end
  for _, ob in ipairs(components_below(scene, "Obstacle", {})) do
    if effective(ob) then add_obstacle(c, ob, false) end
  end
end

function NAV.build(c)
  release(c)
  if c.node == nil then return false end
  warn_scale(c)
  local items, conns, areas, boxes = collect(c)
  if #boxes == 0 then return true end
  local b = {math.huge, math.huge, math.huge, -math.huge, -math.huge, -math.huge}
  for _, x in ipairs(boxes) do
    for k = 1, 3 do b[k] = mmin(b[k], x[k]); b[k + 3] = mmax(b[k + 3], x[k + 3]) end
  end
  local pad = c.padding
  b[1], b[2], b[3] = b[1] - pad[1], b[2] - pad[2], b[3] - pad[3]
  b[4], b[5], b[6] = b[4] + pad[1], b[5] + pad[2], b[6] + pad[3]
  c.nav = new_nav(c, b)
  c.nav.conns = conns
  build_tiles(c, items, areas, 0, 0, c.nav.ntx - 1, c.nav.ntz - 1)
  attach(c)
  send(c, "NavigationMeshRebuilt", {})
  if c.dynamic then scan_obstacles(c) end
  return true
end

local function partial(c, x0, z0, x1, z1)
  local items, conns, areas = collect(c)
  c.nav.conns = conns
  build_tiles(c, items, areas, x0, z0, x1, z1)
  c.nav.links_dirty = true
  attach(c)
  return true
end

local function trunc(v) if v >= 0 then return mfloor(v) end return -mfloor(-v) end

function NAV.build_box(c, box)
  if c.node == nil then return false end
  if c.nav == nil then
    E.log("ERROR", "Navigation mesh must first be built fully before it can be partially rebuilt")
    return false
  end
  warn_scale(c)
  local inv = inverse(node_matrix(c.node))
  local lb = box_of(inv, {box.min.x, box.min.y, box.min.z, box.max.x, box.max.y, box.max.z})
  local nav = c.nav
  local edge = nav.ts * nav.cs
  local function clampi(v, hi) return mmax(0, mmin(v, hi)) end
  local sx = clampi(trunc((lb[1] - nav.bmin[1]) / edge), nav.ntx - 1)
  local sz = clampi(trunc((lb[3] - nav.bmin[3]) / edge), nav.ntz - 1)
  local ex = clampi(trunc((lb[4] - nav.bmin[1]) / edge), nav.ntx - 1)
  local ez = clampi(trunc((lb[6] - nav.bmin[3]) / edge), nav.ntz - 1)
  return partial(c, sx, sz, ex, ez)
end

function NAV.build_range(c, from, to)
  if c.node == nil then return false end
  if c.nav == nil then
    E.log("ERROR", "Navigation mesh must first be built fully before it can be partially rebuilt")
    return false
  end
  warn_scale(c)
  return partial(c, from.x, from.y, to.x, to.y)
end

----------------------------------------------------------------------------------------------------
-- Obstacles of a dynamic mesh: applied at the scene's SceneSubsystemUpdate
----------------------------------------------------------------------------------------------------
local function same(a, b)
  if a == nil or b == nil then return a == b end
  for k = 1, 5 do if a[k] ~= b[k] then return false end end
  return true
end

function NAV.update_obstacles(c)
  local nav = c.nav
  if nav == nil or not effective(c) then return end
  local dirty, order = {}, {}
  local function touch(a)
    if a == nil then return end
    local edge = nav.ts * nav.cs
    local r = a[4] + nav.cs
    local tx0 = mmax(0, mfloor((a[1] - r - nav.bmin[1]) / edge))
    local tx1 = mmin(nav.ntx - 1, mfloor((a[1] + r - nav.bmin[1]) / edge))
    local tz0 = mmax(0, mfloor((a[3] - r - nav.bmin[3]) / edge))
    local tz1 = mmin(nav.ntz - 1, mfloor((a[3] + r - nav.bmin[3]) / edge))
    for tz = tz0, tz1 do
      for tx = tx0, tx1 do
        local k = tz * nav.ntx + tx + 1
        if not dirty[k] then dirty[k] = true; order[#order + 1] = k end
      end
    end
  end
  local keep = {}
  for _, ob in ipairs(c.obstacles) do
    local want = nil
    local alive = not ob.removed and ob.node ~= nil and not ob.node.removed
    if alive and ob.added and effective(ob) then
      local w = E.world(ob.node)
      local x, y, z = to_local(c, w.m03, w.m13, w.m23)
      want = {x, y, z, ob.Radius, ob.Height}
    end
    if not same(want, ob.applied) then
      touch(ob.applied)
      touch(want)
      ob.applied = want
    end
    if alive then keep[#keep + 1] = ob end
  end
  c.obstacles = keep
  if #order == 0 then return end
  table.sort(order)
  for _, k in ipairs(order) do
    local t = nav.tiles[k]
    if t then
      mark_obstacles(c, nav, t)
      Q.rebuild_rects(nav, (k - 1) % nav.ntx, (k - 1) // nav.ntx)
    end
  end
  nav.conns = collect_offmesh(c, inverse(node_matrix(c.node)))
  nav.links_dirty = true
  attach(c)
end

----------------------------------------------------------------------------------------------------
-- Queries in world space (also used by the crowd, 67_crowd.lua)
----------------------------------------------------------------------------------------------------
function NAV.ready(c)
  if c.nav == nil or c.node == nil then return nil end
  attach(c)
  return c.nav
end

function NAV.nearest(c, x, y, z, ex, ey, ez, filter)
  local nav = NAV.ready(c)
  if nav == nil then return nil end
  local lx, ly, lz = to_local(c, x, y, z)
  local r, px, py, pz = Q.nearest(nav, lx, ly, lz, ex, ey, ez, filter or c.filter)
  if r == nil then return nil end
  local wx, wy, wz = to_world(c, px, py, pz)
  return r, wx, wy, wz
end

-- Urho3D's FindPath: a list of {x, y, z, flag} in world space (empty when either end is off the mesh).
function NAV.find_path(c, sx, sy, sz, ex, ey, ez, hx, hy, hz, filter)
  local nav = NAV.ready(c)
  if nav == nil then return {} end
  filter = filter or c.filter
  local lsx, lsy, lsz = to_local(c, sx, sy, sz)
  local lex, ley, lez = to_local(c, ex, ey, ez)
  local rs = Q.nearest(nav, lsx, lsy, lsz, hx, hy, hz, filter)
  local re = Q.nearest(nav, lex, ley, lez, hx, hy, hz, filter)
  if rs == nil or re == nil then return {} end
  local steps, complete = Q.find_corridor(nav, rs, lsx, lsy, lsz, re, lex, ley, lez, filter)
  local last = steps[#steps].rect
  -- the start and the end kept on their pieces (their own heights when over them, as Detour keeps them)
  local function onto(r, x, y, z)
    local px, pz = Q.clamp_to(r, x, z)
    if px == x and pz == z then return x, y, z end
    return px, Q.height_at(nav, r, px, pz), pz
  end
  lsx, lsy, lsz = onto(rs, lsx, lsy, lsz)
  if complete then lex, ley, lez = onto(re, lex, ley, lez)
  else
    local px, pz = Q.clamp_to(last, lex, lez)
    lex, ley, lez = px, Q.height_at(nav, last, px, pz), pz
  end
  local pts = Q.smooth(nav, Q.straight_path(nav, steps, lsx, lsy, lsz, lex, ley, lez), filter)
  for _, p in ipairs(pts) do p[1], p[2], p[3] = to_world(c, p[1], p[2], p[3]) end
  return pts, steps
end

function NAV.corridor(c, rs, sx, sy, sz, re, ex, ey, ez, filter)
  return Q.find_corridor(c.nav, rs, sx, sy, sz, re, ex, ey, ez, filter)
end

----------------------------------------------------------------------------------------------------
-- Tile data: Urho3D's header (x, z, a reference, the size) and this engine's own layout of the tile's floors
----------------------------------------------------------------------------------------------------
local TILE_MAGIC = "NAVT"
local function tile_bytes(t)
  local parts = {TILE_MAGIC, spack("<i4i4", t.ts, t.n)}
  local first = t.first
  for i = 1, t.ts * t.ts + 1 do parts[#parts + 1] = spack("<I4", first[i]) end
  for i = 1, t.n do parts[#parts + 1] = spack("<i4i4fB", t.yq[i], t.ceil[i], t.h[i], t.area[i] & 0xff) end
  return table.concat(parts)
end
local function tile_from_bytes(s, tx, tz)
  if s:sub(1, 4) ~= TILE_MAGIC then return nil end
  local ok, t = pcall(function()
    local ts, n, pos = sunpack("<i4i4", s, 5)
    if ts <= 0 or n < 0 or ts > 4096 then return nil end
    local tile = {tx = tx, tz = tz, ts = ts, n = n, first = {}, yq = {}, ceil = {}, h = {}, area = {}}
    for i = 1, ts * ts + 1 do tile.first[i], pos = sunpack("<I4", s, pos) end
    for i = 1, n do tile.yq[i], tile.ceil[i], tile.h[i], tile.area[i], pos = sunpack("<i4i4fB", s, pos) end
    return tile
  end)
  if ok then return t end
  return nil
end

function NAV.tile_data(c, tile)
  local nav = c.nav
  if nav == nil or tile.x < 0 or tile.y < 0 or tile.x >= nav.ntx or tile.y >= nav.ntz then return "" end
  local t = nav.tiles[tile.y * nav.ntx + tile.x + 1]
  if t == nil then return "" end
  local body = tile_bytes(t)
  return spack("<i4i4I4I4", tile.x, tile.y, (tile.y * nav.ntx + tile.x + 1) << 8, #body) .. body
end

function NAV.add_tile(c, data)
  local nav = c.nav
  if nav == nil or #data < 16 then return false end
  local x, z, _, size = sunpack("<i4i4I4I4", data, 1)
  local body = data:sub(17, 16 + size)
  local t = (x >= 0 and z >= 0 and x < nav.ntx and z < nav.ntz) and tile_from_bytes(body, x, z)
  if not t or t.ts ~= nav.ts then
    E.log("ERROR", "Failed to add navigation mesh tile")
    return false
  end
  if c.dynamic then mark_obstacles(c, nav, t) end
  Q.set_tile(nav, x, z, t)
  send(c, "NavigationTileAdded", {Tile = E.IntVector2_new(x, z)})
  return true
end

----------------------------------------------------------------------------------------------------
-- The Lua API
----------------------------------------------------------------------------------------------------
local NM = class("NavigationMesh").methods
local function clamp_setter(key, lo)
  return function(self, v)
    number(v, "Set" .. key, 1)
    mesh_rec(self)[key] = mmax(v, lo)
  end
end
NM.SetTileSize = function(self, v) number(v, "SetTileSize", 1); mesh_rec(self).TileSize = mmax(mfloor(v), 16) end
for _, k in ipairs({"CellSize", "CellHeight", "AgentHeight", "AgentRadius", "AgentMaxClimb", "RegionMinSize",
  "RegionMergeSize", "EdgeMaxLength", "EdgeMaxError", "DetailSampleDistance", "DetailSampleMaxError"}) do
  NM["Set" .. k] = clamp_setter(k, M_EPSILON)
end
NM.SetAgentMaxSlope = clamp_setter("AgentMaxSlope", 0.0)
for _, k in ipairs({"TileSize", "CellSize", "CellHeight", "AgentHeight", "AgentRadius", "AgentMaxClimb",
  "AgentMaxSlope", "RegionMinSize", "RegionMergeSize", "EdgeMaxLength", "EdgeMaxError", "DetailSampleDistance",
  "DetailSampleMaxError", "PartitionType", "DrawOffMeshConnections", "DrawNavAreas"}) do
  NM["Get" .. k] = function(self) return mesh_rec(self)[k] end
end
NM.SetPartitionType = function(self, v) number(v, "SetPartitionType", 1); mesh_rec(self).PartitionType = mfloor(v) end
NM.SetDrawOffMeshConnections = function(self, v) mesh_rec(self).DrawOffMeshConnections = v and true or false end
NM.SetDrawNavAreas = function(self, v) mesh_rec(self).DrawNavAreas = v and true or false end
NM.SetPadding = function(self, v)
  vec3(v, "SetPadding", 1)
  mesh_rec(self).padding = {v.x, v.y, v.z}
end
NM.GetPadding = function(self) local p = mesh_rec(self).padding; return v3(p[1], p[2], p[3]) end
NM.SetAreaCost = function(self, id, cost)
  number(id, "SetAreaCost", 1); number(cost, "SetAreaCost", 2)
  local f = mesh_rec(self).filter
  id = mfloor(id)
  if id >= 0 and id < 64 then f.costs[id + 1] = cost end
end
NM.GetAreaCost = function(self, id)
  number(id, "GetAreaCost", 1)
  return Q.cost_of(mesh_rec(self).filter, mfloor(id))
end
NM.IsInitialized = function(self) return mesh_rec(self).nav ~= nil end
NM.GetBoundingBox = function(self)
  local b = mesh_rec(self).bbox
  if b == nil then return E.box_value(nil) end
  return E.BoundingBox_new(b[1], b[2], b[3], b[4], b[5], b[6])
end
NM.GetWorldBoundingBox = function(self)
  local c = mesh_rec(self)
  local b = c.bbox
  if b == nil then return E.box_value(nil) end
  if c.node then b = box_of(node_matrix(c.node), b) end
  return E.BoundingBox_new(b[1], b[2], b[3], b[4], b[5], b[6])
end
NM.GetNumTiles = function(self) local c = mesh_rec(self); return E.IntVector2_new(c.ntx, c.ntz) end

NM.Build = function(self, a, b)
  local c = mesh_rec(self)
  if a == nil then return NAV.build(c) end
  if E.is(a, "BoundingBox") then return NAV.build_box(c, a) end
  ivec2(a, "Build", 1); ivec2(b, "Build", 2)
  return NAV.build_range(c, a, b)
end
NM.Allocate = function(self, box, max_tiles)
  local c = mesh_rec(self)
  if not E.is(box, "BoundingBox") then
    E.raise_at_game(sformat("bad argument #1 to 'Allocate' (BoundingBox expected, got %s)", type(box)))
  end
  number(max_tiles, "Allocate", 2)
  release(c)
  if c.node == nil then return false end
  warn_scale(c)
  local inv = inverse(node_matrix(c.node))
  c.nav = new_nav(c, box_of(inv, {box.min.x, box.min.y, box.min.z, box.max.x, box.max.y, box.max.z}))
  send(c, "NavigationMeshRebuilt", {})
  if c.dynamic then scan_obstacles(c) end
  return true
end
NM.GetTileData = function(self, tile)
  ivec2(tile, "GetTileData", 1)
  return E.VectorBuffer_new(NAV.tile_data(mesh_rec(self), tile))
end
NM.AddTile = function(self, buffer)
  local r = REC[buffer]
  if r == nil or r.kind ~= "vbuf" then
    E.raise_at_game(sformat("bad argument #1 to 'AddTile' (VectorBuffer expected, got %s)", type(buffer)))
  end
  return NAV.add_tile(mesh_rec(self), r.data)
end
NM.RemoveTile = function(self, tile)
  ivec2(tile, "RemoveTile", 1)
  local c = mesh_rec(self)
  local nav = c.nav
  if nav == nil or tile.x < 0 or tile.y < 0 or tile.x >= nav.ntx or tile.y >= nav.ntz then return end
  if nav.tiles[tile.y * nav.ntx + tile.x + 1] == nil then return end
  Q.set_tile(nav, tile.x, tile.y, nil)
  send(c, "NavigationTileRemoved", {Tile = E.IntVector2_new(tile.x, tile.y)})
end
NM.RemoveAllTiles = function(self)
  local c = mesh_rec(self)
  local nav = c.nav
  if nav == nil then return end
  for tz = 0, nav.ntz - 1 do
    for tx = 0, nav.ntx - 1 do
      if nav.tiles[tz * nav.ntx + tx + 1] then Q.set_tile(nav, tx, tz, nil) end
    end
  end
  send(c, "NavigationAllTilesRemoved", {})
end
NM.HasTile = function(self, tile)
  ivec2(tile, "HasTile", 1)
  local nav = mesh_rec(self).nav
  if nav == nil or tile.x < 0 or tile.y < 0 or tile.x >= nav.ntx or tile.y >= nav.ntz then return false end
  return nav.tiles[tile.y * nav.ntx + tile.x + 1] ~= nil
end
NM.GetTileBoundingBox = function(self, tile)
  ivec2(tile, "GetTileBoundingBox", 1)
  local b = tile_box(mesh_rec(self), tile.x, tile.y)
  return E.BoundingBox_new(b[1], b[2], b[3], b[4], b[5], b[6])
end
NM.GetTileIndex = function(self, pos)
  vec3(pos, "GetTileIndex", 1)
  local c = mesh_rec(self)
  local b = c.bbox or {0, 0, 0, 0, 0, 0}
  local edge = c.TileSize * c.CellSize
  if c.nav then edge = c.nav.ts * c.nav.cs end
  local x, _, z = pos.x, pos.y, pos.z
  if c.node then x, _, z = apply(inverse(node_matrix(c.node)), pos.x, pos.y, pos.z) end
  local ix, iz = mfloor((x - b[1]) / edge), mfloor((z - b[3]) / edge)
  ix, iz = mmin(mmax(0, ix), c.ntx - 1), mmin(mmax(0, iz), c.ntz - 1)
  return E.IntVector2_new(ix, iz)
end

NM.FindNearestPoint = function(self, point, extents)
  local c = mesh_rec(self)
  vec3(point, "FindNearestPoint", 1)
  local ex, ey, ez = extents_of(extents, "FindNearestPoint", 2)
  local r, x, y, z = NAV.nearest(c, point.x, point.y, point.z, ex, ey, ez)
  if r == nil then return v3(point.x, point.y, point.z) end
  return v3(x, y, z)
end
NM.FindPath = function(self, s, e, extents)
  local c = mesh_rec(self)
  vec3(s, "FindPath", 1); vec3(e, "FindPath", 2)
  local ex, ey, ez = extents_of(extents, "FindPath", 3)
  local pts = NAV.find_path(c, s.x, s.y, s.z, e.x, e.y, e.z, ex, ey, ez)
  local out = {}
  for i, p in ipairs(pts) do out[i] = v3(p[1], p[2], p[3]) end
  return out
end

-- The queries below share: the start's piece (nil: the fallback answer), its local position.
local function start_piece(c, s, ex, ey, ez, filter)
  local nav = NAV.ready(c)
  if nav == nil then return nil end
  filter = filter or c.filter
  local sx, sy, sz = to_local(c, s.x, s.y, s.z)
  local r = Q.nearest(nav, sx, sy, sz, ex, ey, ez, filter)
  if r == nil then return nil end
  return r, nav, filter, sx, sy, sz
end

function NAV.move_along(c, s, e, ex, ey, ez, filter)
  local r, nav, sx, sz, _
  r, nav, filter, sx, _, sz = start_piece(c, s, ex, ey, ez, filter)
  if r == nil then return nil end
  local tx, ty, tz = to_local(c, e.x, e.y, e.z)
  local x, z, reached, rr = Q.move_along(nav, r, sx, sz, tx, tz, filter)
  local y = reached and ty or Q.height_at(nav, rr, x, z)
  return to_world(c, x, y, z)
end
NM.MoveAlongSurface = function(self, s, e, extents, max_visited)
  local c = mesh_rec(self)
  vec3(s, "MoveAlongSurface", 1); vec3(e, "MoveAlongSurface", 2)
  local ex, ey, ez = extents_of(extents, "MoveAlongSurface", 3)
  local x, y, z = NAV.move_along(c, s, e, ex, ey, ez)
  if x == nil then return v3(e.x, e.y, e.z) end
  return v3(x, y, z)
end

function NAV.random_point(c, filter)
  local nav = NAV.ready(c)
  if nav == nil then return nil end
  local r, x, y, z = Q.random_point(nav, filter or c.filter)
  if r == nil then return 0.0, 0.0, 0.0 end
  return to_world(c, x, y, z)
end
NM.GetRandomPoint = function(self)
  local x, y, z = NAV.random_point(mesh_rec(self))
  if x == nil then return v3(0, 0, 0) end
  return v3(x, y, z)
end

function NAV.random_in_circle(c, center, radius, ex, ey, ez, filter)
  local r, nav, cx, cz, _
  r, nav, filter, cx, _, cz = start_piece(c, center, ex, ey, ez, filter)
  if r == nil then return nil end
  local rr, x, y, z = Q.random_point_in_circle(nav, r, cx, cz, radius, filter)
  if rr == nil then return nil end
  return to_world(c, x, y, z)
end
NM.GetRandomPointInCircle = function(self, center, radius, extents)
  local c = mesh_rec(self)
  vec3(center, "GetRandomPointInCircle", 1); number(radius, "GetRandomPointInCircle", 2)
  local ex, ey, ez = extents_of(extents, "GetRandomPointInCircle", 3)
  local x, y, z = NAV.random_in_circle(c, center, radius, ex, ey, ez)
  if x == nil then return v3(center.x, center.y, center.z) end
  return v3(x, y, z)
end

-- distance, hit position (world), hit normal; nil when there is no start piece
function NAV.distance_to_wall(c, point, radius, ex, ey, ez, filter)
  local r, nav, px, py, pz
  r, nav, filter, px, py, pz = start_piece(c, point, ex, ey, ez, filter)
  if r == nil then return nil end
  local d, hx, hz, nx, nz = Q.distance_to_wall(nav, r, px, pz, radius, filter)
  local wx, wy, wz = to_world(c, hx, py, hz)
  return d, wx, wy, wz, nx, nz
end
NM.GetDistanceToWall = function(self, point, radius, extents)
  local c = mesh_rec(self)
  vec3(point, "GetDistanceToWall", 1); number(radius, "GetDistanceToWall", 2)
  local ex, ey, ez = extents_of(extents, "GetDistanceToWall", 3)
  local d = NAV.distance_to_wall(c, point, radius, ex, ey, ez)
  if d == nil then return radius end
  return d
end

-- t along the segment where it leaves the mesh (1: it stays on), and the wall's normal
function NAV.raycast(c, s, e, ex, ey, ez, filter)
  local r, nav, sx, sz, _
  r, nav, filter, sx, _, sz = start_piece(c, s, ex, ey, ez, filter)
  if r == nil then return nil end
  local tx, _, tz = to_local(c, e.x, e.y, e.z)
  return Q.raycast(nav, r, sx, sz, tx, tz, filter)
end
NM.Raycast = function(self, s, e, extents)
  local c = mesh_rec(self)
  vec3(s, "Raycast", 1); vec3(e, "Raycast", 2)
  local ex, ey, ez = extents_of(extents, "Raycast", 3)
  local t = NAV.raycast(c, s, e, ex, ey, ez)
  if t == nil then t = 1.0 end
  return v3(s.x + (e.x - s.x) * t, s.y + (e.y - s.y) * t, s.z + (e.z - s.z) * t)
end

local DM = class("DynamicNavigationMesh").methods
local function dyn_rec(self) return typed_comp_rec(self, "DynamicNavigationMesh") end
DM.SetDrawObstacles = function(self, v) dyn_rec(self).draw_obstacles = v and true or false end
DM.GetDrawObstacles = function(self) return dyn_rec(self).draw_obstacles end
DM.SetMaxLayers = function(self, v)
  number(v, "SetMaxLayers", 1)
  dyn_rec(self).max_layers = mmax(3, mmin(mfloor(v), 255))
end
DM.GetMaxLayers = function(self) return dyn_rec(self).max_layers end
DM.SetMaxObstacles = function(self, v)
  number(v, "SetMaxObstacles", 1)
  dyn_rec(self).max_obstacles = mfloor(v)
end
DM.GetMaxObstacles = function(self) return dyn_rec(self).max_obstacles end

----------------------------------------------------------------------------------------------------
-- Navigable, NavArea, OffMeshConnection, Obstacle
----------------------------------------------------------------------------------------------------
FACTORIES.Navigable = function(c) c.Recursive = true end
local NV = class("Navigable").methods
NV.SetRecursive = function(self, v) typed_comp_rec(self, "Navigable").Recursive = v and true or false end
NV.IsRecursive = function(self) return typed_comp_rec(self, "Navigable").Recursive end

FACTORIES.NavArea = function(c)
  c.area_id = 0
  c.bounds = {-10.0, -10.0, -10.0, 10.0, 10.0, 10.0}
end
local NA = class("NavArea").methods
local function area_rec(self) return typed_comp_rec(self, "NavArea") end
NA.SetAreaID = function(self, id)
  number(id, "SetAreaID", 1)
  id = mfloor(id)
  if id > 255 or id < 0 then
    E.log("ERROR", sformat("NavArea Area ID %d exceeds maximum value of %d", id & 0xffffffff, 255))
  end
  area_rec(self).area_id = id & 0xff
end
NA.GetAreaID = function(self) return area_rec(self).area_id end
NA.SetBoundingBox = function(self, b)
  if not E.is(b, "BoundingBox") then
    E.raise_at_game(sformat("bad argument #1 to 'SetBoundingBox' (BoundingBox expected, got %s)", type(b)))
  end
  area_rec(self).bounds = {b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z}
end
NA.GetBoundingBox = function(self)
  local b = area_rec(self).bounds
  return E.BoundingBox_new(b[1], b[2], b[3], b[4], b[5], b[6])
end
NA.GetWorldBoundingBox = function(self)
  local c = area_rec(self)
  local b = c.bounds
  local ox, oy, oz = 0, 0, 0
  if c.node then local w = E.world(c.node); ox, oy, oz = w.m03, w.m13, w.m23 end
  return E.BoundingBox_new(b[1] + ox, b[2] + oy, b[3] + oz, b[4] + ox, b[5] + oy, b[6] + oz)
end

FACTORIES.OffMeshConnection = function(c)
  c.end_point = nil
  c.Radius, c.Bidirectional, c.Mask, c.AreaID = 1.0, true, 1, 1
end
local OM = class("OffMeshConnection").methods
local function off_rec(self) return typed_comp_rec(self, "OffMeshConnection") end
OM.SetEndPoint = function(self, node)
  local c = off_rec(self)
  if node == nil then c.end_point = nil; return end
  c.end_point = E.node_rec(node)
end
OM.GetEndPoint = function(self)
  local ep = off_rec(self).end_point
  if ep == nil or ep.removed then return nil end
  return ep.proxy
end
OM.SetRadius = function(self, v) number(v, "SetRadius", 1); off_rec(self).Radius = v end
OM.GetRadius = function(self) return off_rec(self).Radius end
OM.SetBidirectional = function(self, v) off_rec(self).Bidirectional = v and true or false end
OM.IsBidirectional = function(self) return off_rec(self).Bidirectional end
OM.SetMask = function(self, v) number(v, "SetMask", 1); off_rec(self).Mask = mfloor(v) & 0xffffffff end
OM.GetMask = function(self) return off_rec(self).Mask end
OM.SetAreaID = function(self, v) number(v, "SetAreaID", 1); off_rec(self).AreaID = mfloor(v) & 0xffffffff end
OM.GetAreaID = function(self) return off_rec(self).AreaID end

-- The DynamicNavigationMesh of a node's nearest ancestor (Node::GetParentComponent with full traversal).
local function owner_mesh(n)
  local p = n.parent
  while p do
    for _, x in ipairs(p.components) do if x.type_name == "DynamicNavigationMesh" then return x end end
    p = p.parent
  end
  return nil
end

FACTORIES.Obstacle = function(c)
  c.Radius, c.Height = 5.0, 5.0
  c.on_scene_set = function(x, scene)
    if x.node == scene then
      E.log("WARNING", "Obstacle should not be created to the root scene node")
      return
    end
    local m = x.mesh or owner_mesh(x.node)
    x.mesh = m
    if m then add_obstacle(m, x, false) end
  end
  local function gone(x)
    if x.mesh then remove_obstacle(x.mesh, x, false) end
    x.removed_from_scene = true
  end
  c.on_scene_removed = gone
  c.on_removed = function(x) gone(x); x.removed = true end
  c.on_set_enabled = function(x)
    if x.mesh == nil then return end
    if effective(x) then add_obstacle(x.mesh, x, false) else remove_obstacle(x.mesh, x, false) end
  end
end
local OB = class("Obstacle").methods
local function ob_rec(self) return typed_comp_rec(self, "Obstacle") end
OB.SetRadius = function(self, v) number(v, "SetRadius", 1); ob_rec(self).Radius = v end
OB.GetRadius = function(self) return ob_rec(self).Radius end
OB.SetHeight = function(self, v) number(v, "SetHeight", 1); ob_rec(self).Height = v end
OB.GetHeight = function(self) return ob_rec(self).Height end

NAV.M_LARGE = M_LARGE
NAV.tostring = tostring
