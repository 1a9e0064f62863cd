-- Navigation, part 2: the walkable cells of each tile (66_navigation_build.lua) made into convex pieces, their
-- links, and Detour's queries over them (docs/navigation.md).  A tile's cells are covered row by row by rectangles
-- of connected cells of one area id (at most MAX_RECT cells a side, never across a tile's edge, as Detour's
-- polygons never cross one); rectangles sharing an edge are linked by portals, the runs of that edge whose cells
-- connect.  The queries then do what Detour's do over polygons: nearest point, A* over the pieces from portal
-- midpoint to portal midpoint (Detour's costs: distance times the area's cost, heuristic 0.999 of the distance
-- left), the funnel over the portals for the straight path, a walk across portals for raycasts, and a bounded
-- search for moveAlongSurface, the distance to the nearest wall and random points.  Everything here works in the
-- mesh's local space; the mesh's node transform is applied by the callers (66_navigation_scene.lua).  Iteration is
-- by tile index, then in creation order: no table is walked with pairs.
local mfloor, mmin, mmax, abs, sqrt = math.floor, math.min, math.max, math.abs, math.sqrt
local huge = math.huge
local tsort = table.sort

local MAX_RECT = 1000
local H_SCALE = 0.999
local EQUAL_EPS2 = (1.0 / 16384.0) ^ 2

local Q = {}
E.NAVQ = Q

----------------------------------------------------------------------------------------------------
-- Query filters: include and exclude flags, area costs (Detour's dtQueryFilter; areas 0..63)
----------------------------------------------------------------------------------------------------
function Q.new_filter()
  local costs = {}
  for i = 1, 64 do costs[i] = 1.0 end
  return {include = 0xffff, exclude = 0, costs = costs}
end
local function passes(f, flags) return (flags & f.include) ~= 0 and (flags & f.exclude) == 0 end
local function cost_of(f, area)
  if area >= 0 and area < 64 then return f.costs[area + 1] end
  return 1.0
end
Q.passes, Q.cost_of = passes, cost_of

----------------------------------------------------------------------------------------------------
-- Cells and spans
----------------------------------------------------------------------------------------------------
-- nav: {bmin = {x, y, z}, cs, ch, ts, ntx, ntz, wh, wc (agent height and climb in cells), tiles = {index -> tile},
--       offmesh = {links}, version}
local function tile_at(nav, gx, gz)
  local ts = nav.ts
  if gx < 0 or gz < 0 then return nil end
  local tx, tz = gx // ts, gz // ts
  if tx >= nav.ntx or tz >= nav.ntz then return nil end
  return nav.tiles[tz * nav.ntx + tx + 1], (gz - tz * ts) * ts + (gx - tx * ts) + 1
end
Q.tile_at = tile_at

-- The span of rect r in cell (gx, gz) (nil outside r).
local function rect_span(r, gx, gz)
  local t = r.tile
  local ts = t.ts
  local col = (gz - t.tz * ts) * ts + (gx - t.tx * ts) + 1
  local rs = t.rect
  for i = t.first[col], t.first[col + 1] - 1 do
    if rs[i] == r then return i end
  end
  return nil
end

-- Two floors connect: within climb of each other, with agent height of shared clearance.
local function connects(nav, ta, i, tb, j)
  local a, b = ta.yq[i], tb.yq[j]
  return abs(a - b) <= nav.wc and mmin(ta.ceil[i], tb.ceil[j]) - mmax(a, b) >= nav.wh
end

-- The surface height of rect r at (x, z) (clamped into the rect).
local function height_at(nav, r, x, z)
  local cs = nav.cs
  local gx = mfloor((x - nav.bmin[1]) / cs)
  local gz = mfloor((z - nav.bmin[3]) / cs)
  if gx < r.x0 then gx = r.x0 elseif gx > r.x1 then gx = r.x1 end
  if gz < r.z0 then gz = r.z0 elseif gz > r.z1 then gz = r.z1 end
  local i = rect_span(r, gx, gz)
  if i == nil then return r.y end
  return r.tile.h[i]
end
Q.height_at = height_at

----------------------------------------------------------------------------------------------------
-- Rectangles
----------------------------------------------------------------------------------------------------
local function usable(t, i) return not (t.blocked and t.blocked[i]) end

-- The span of column col (local) that is usable, unassigned, of area `area` and connects to span i of tile t
-- (and, when given, to span k too).
local function pick(nav, t, col, area, i, k)
  local rs, ar = t.rect, t.area
  for j = t.first[col], t.first[col + 1] - 1 do
    if not rs[j] and ar[j] == area and usable(t, j) and connects(nav, t, i, t, j) and (k == nil or connects(nav, t, k, t, j)) then
      return j
    end
  end
  return nil
end

function Q.build_rects(nav, t)
  local ts, first = t.ts, t.first
  local rs, ar = {}, t.area
  t.rect = rs
  for i = 1, t.n do rs[i] = false end
  local rects = {}
  t.rects = rects
  local gx0, gz0 = t.tx * ts, t.tz * ts
  local cs, bx, bz = nav.cs, nav.bmin[1], nav.bmin[3]
  for lz = 0, ts - 1 do
    for lx = 0, ts - 1 do
      local col = lz * ts + lx + 1
      for i = first[col], first[col + 1] - 1 do
        if not rs[i] and usable(t, i) then
          local area = ar[i]
          local row = {i}
          local x1 = lx
          while x1 + 1 < ts and x1 - lx + 1 < MAX_RECT do
            local j = pick(nav, t, lz * ts + x1 + 2, area, row[#row])
            if j == nil then break end
            row[#row + 1] = j
            x1 = x1 + 1
          end
          for _, j in ipairs(row) do rs[j] = true end   -- claimed while the rows below are tried
          local rows = {row}
          local z1 = lz
          while z1 + 1 < ts and z1 - lz + 1 < MAX_RECT do
            local prev = rows[#rows]
            local nrow = {}
            for kx = 0, x1 - lx do
              local j = pick(nav, t, (z1 + 1) * ts + lx + kx + 1, area, prev[kx + 1], nrow[kx])
              if j == nil then nrow = nil; break end
              nrow[kx + 1] = j
              rs[j] = true
            end
            if nrow == nil then
              -- release the partial row
              for kx = 0, x1 - lx do
                local col2 = (z1 + 1) * ts + lx + kx + 1
                for j = first[col2], first[col2 + 1] - 1 do if rs[j] == true then rs[j] = false end end
              end
              break
            end
            rows[#rows + 1] = nrow
            z1 = z1 + 1
          end
          local r = {tile = t, x0 = gx0 + lx, z0 = gz0 + lz, x1 = gx0 + x1, z1 = gz0 + z1, area = area, flags = 1,
            links = {}, walls = {}, cells = (x1 - lx + 1) * (z1 - lz + 1), y = t.h[i]}
          r.wx0, r.wz0 = bx + r.x0 * cs, bz + r.z0 * cs
          r.wx1, r.wz1 = bx + (r.x1 + 1) * cs, bz + (r.z1 + 1) * cs
          rects[#rects + 1] = r
          r.index = #rects
          for _, rw in ipairs(rows) do for _, j in ipairs(rw) do rs[j] = r end end
        end
      end
    end
  end
end

-- Sides: 0 -x (west), 1 +z (north), 2 +x (east), 3 -z (south).
-- Link r to its neighbours: for each side, the runs of its edge whose cells connect to one neighbouring rect
-- (portals {to =, side =, a =, b =}, cell coordinates along the edge) and the runs that connect to none (walls).
function Q.link_rect(nav, r)
  local links, walls = {}, {}
  local t = r.tile
  for side = 0, 3 do
    local along_x = side == 1 or side == 3
    local a0, a1 = along_x and r.x0 or r.z0, along_x and r.x1 or r.z1
    local run_to, run_a = nil, nil
    local function close(at)
      if run_a ~= nil then
        if run_to then links[#links + 1] = {to = run_to, side = side, a = run_a, b = at - 1}
        else walls[#walls + 1] = {side = side, a = run_a, b = at - 1} end
      end
    end
    for a = a0, a1 do
      local gx, gz, nx, nz
      if side == 0 then gx, gz, nx, nz = r.x0, a, r.x0 - 1, a
      elseif side == 2 then gx, gz, nx, nz = r.x1, a, r.x1 + 1, a
      elseif side == 1 then gx, gz, nx, nz = a, r.z1, a, r.z1 + 1
      else gx, gz, nx, nz = a, r.z0, a, r.z0 - 1 end
      local to = false
      local i = rect_span(r, gx, gz)
      local nt, ncol = tile_at(nav, nx, nz)
      if i and nt and nt.rect then
        for j = nt.first[ncol], nt.first[ncol + 1] - 1 do
          local o = nt.rect[j]
          if o and connects(nav, t, i, nt, j) then to = o; break end
        end
      end
      if run_a == nil or to ~= run_to then
        close(a)
        run_to, run_a = to, a
      end
    end
    close(a1 + 1)
  end
  r.links, r.walls = links, walls
end

-- The edge run of a portal or wall as two points (x, z) ordered left then right for travel out of the rect.
local function edge_points(nav, r, side, a, b)
  local cs, bx, bz = nav.cs, nav.bmin[1], nav.bmin[3]
  if side == 0 then
    local x = r.wx0
    return x, bz + a * cs, x, bz + (b + 1) * cs       -- travelling -x: left is lower z
  elseif side == 2 then
    local x = r.wx1
    return x, bz + (b + 1) * cs, x, bz + a * cs       -- travelling +x: left is higher z
  elseif side == 1 then
    local z = r.wz1
    return bx + a * cs, z, bx + (b + 1) * cs, z       -- travelling +z: left is lower x
  else
    local z = r.wz0
    return bx + (b + 1) * cs, z, bx + a * cs, z       -- travelling -z: left is higher x
  end
end
Q.edge_points = edge_points

----------------------------------------------------------------------------------------------------
-- Tiles: adding, removing, linking
----------------------------------------------------------------------------------------------------
local function kill_tile(t)
  for _, r in ipairs(t.rects or {}) do r.dead = true end
end

-- Relink the rects of tile index k and the rects of its four neighbours that touch it.
local function relink_around(nav, tx, tz)
  local t = nav.tiles[tz * nav.ntx + tx + 1]
  if t then for _, r in ipairs(t.rects) do Q.link_rect(nav, r) end end
  local ts = nav.ts
  for d = 0, 3 do
    local nx, nz = tx, tz
    if d == 0 then nx = tx - 1 elseif d == 1 then nz = tz + 1 elseif d == 2 then nx = tx + 1 else nz = tz - 1 end
    if nx >= 0 and nz >= 0 and nx < nav.ntx and nz < nav.ntz then
      local nt = nav.tiles[nz * nav.ntx + nx + 1]
      if nt then
        for _, r in ipairs(nt.rects) do
          local touch = (d == 0 and r.x1 == nx * ts + ts - 1) or (d == 2 and r.x0 == nx * ts)
            or (d == 1 and r.z0 == nz * ts) or (d == 3 and r.z1 == nz * ts + ts - 1)
          if touch then Q.link_rect(nav, r) end
        end
      end
    end
  end
end

-- Put tile t (or nothing) at (tx, tz); the pieces and links around it are made again.
function Q.set_tile(nav, tx, tz, t)
  local k = tz * nav.ntx + tx + 1
  local old = nav.tiles[k]
  if old then kill_tile(old) end
  nav.tiles[k] = t
  if t then Q.build_rects(nav, t) end
  relink_around(nav, tx, tz)
  nav.version = nav.version + 1
  nav.links_dirty = true
end

-- Make tile (tx, tz)'s pieces again (after its obstacle marks changed).
function Q.rebuild_rects(nav, tx, tz)
  local t = nav.tiles[tz * nav.ntx + tx + 1]
  if t == nil then return end
  kill_tile(t)
  Q.build_rects(nav, t)
  relink_around(nav, tx, tz)
  nav.version = nav.version + 1
  nav.links_dirty = true
end

----------------------------------------------------------------------------------------------------
-- Point location
----------------------------------------------------------------------------------------------------
-- The nearest point on the mesh to (x, y, z) within the half extents: rect, px, py, pz (nil when none).
function Q.nearest(nav, x, y, z, ex, ey, ez, filter)
  local cs, bx, bz = nav.cs, nav.bmin[1], nav.bmin[3]
  local gx0, gx1 = mfloor((x - ex - bx) / cs), mfloor((x + ex - bx) / cs)
  local gz0, gz1 = mfloor((z - ez - bz) / cs), mfloor((z + ez - bz) / cs)
  local maxx, maxz = nav.ntx * nav.ts - 1, nav.ntz * nav.ts - 1
  if gx0 < 0 then gx0 = 0 end
  if gz0 < 0 then gz0 = 0 end
  if gx1 > maxx then gx1 = maxx end
  if gz1 > maxz then gz1 = maxz end
  local best, br, bpx, bpy, bpz = huge, nil, nil, nil, nil
  local ix, iz = mfloor((x - bx) / cs), mfloor((z - bz) / cs)   -- the point's own cell: no clamping there
  for gz = gz0, gz1 do
    local cz0 = bz + gz * cs
    local pz = z
    if gz ~= iz then
      if pz < cz0 then pz = cz0 elseif pz > cz0 + cs then pz = cz0 + cs end
      if abs(pz - z) < 1e-9 then pz = z end
    end
    local dz2 = (pz - z) * (pz - z)
    if dz2 < best then
      for gx = gx0, gx1 do
        local t, col = tile_at(nav, gx, gz)
        if t and t.rect then
          local cx0 = bx + gx * cs
          local px = x
          if gx ~= ix then
            if px < cx0 then px = cx0 elseif px > cx0 + cs then px = cx0 + cs end
            if abs(px - x) < 1e-9 then px = x end
          end
          local dxz = (px - x) * (px - x) + dz2
          if dxz < best then
            local rs, hs = t.rect, t.h
            for i = t.first[col], t.first[col + 1] - 1 do
              local r = rs[i]
              if r and passes(filter, r.flags) then
                local h = hs[i]
                if h >= y - ey and h <= y + ey then
                  local d = dxz + (h - y) * (h - y)
                  if d < best then best, br, bpx, bpy, bpz = d, r, px, h, pz end
                end
              end
            end
          end
        end
      end
    end
  end
  return br, bpx, bpy, bpz
end

-- Is (x, z) inside rect r (its closed square)?
-- (with a tolerance of TOL for the rounding of cell edges)
local TOL = 1e-9
local function inside(r, x, z)
  return x >= r.wx0 - TOL and x <= r.wx1 + TOL and z >= r.wz0 - TOL and z <= r.wz1 + TOL
end
Q.inside = inside
local function clamp_to(r, x, z)
  if x < r.wx0 - TOL then x = r.wx0 elseif x > r.wx1 + TOL then x = r.wx1 end
  if z < r.wz0 - TOL then z = r.wz0 elseif z > r.wz1 + TOL then z = r.wz1 end
  return x, z
end
Q.clamp_to = clamp_to

----------------------------------------------------------------------------------------------------
-- Off-mesh connections: attached to the rects nearest their two ends (within their radius)
----------------------------------------------------------------------------------------------------
-- conns: {{sx, sy, sz, ex, ey, ez, radius, bidir, flags, area, comp}}; every rect's off-mesh links are made again.
function Q.attach_offmesh(nav, conns)
  nav.links_dirty = false
  for k = 1, nav.ntx * nav.ntz do
    local t = nav.tiles[k]
    if t then for _, r in ipairs(t.rects) do r.off = nil end end
  end
  local climb = nav.wc * nav.ch
  local any = Q.new_filter()
  any.include = 0xffff
  for _, c in ipairs(conns) do
    local rad = c.radius
    local ra, ax, ay, az = Q.nearest(nav, c.sx, c.sy, c.sz, rad, climb, rad, any)
    local rb, bx, by, bz = Q.nearest(nav, c.ex, c.ey, c.ez, rad, climb, rad, any)
    if ra and rb then
      local len = sqrt((bx - ax) ^ 2 + (by - ay) ^ 2 + (bz - az) ^ 2)
      local function add(from, to, px, py, pz, qx, qy, qz)
        from.off = from.off or {}
        from.off[#from.off + 1] = {to = to, ax = px, ay = py, az = pz, bx = qx, by = qy, bz = qz, len = len,
          flags = c.flags, area = c.area}
      end
      add(ra, rb, ax, ay, az, bx, by, bz)
      if c.bidir then add(rb, ra, bx, by, bz, ax, ay, az) end
    end
  end
end

----------------------------------------------------------------------------------------------------
-- A*
----------------------------------------------------------------------------------------------------
local function heap_push(h, node)
  local n = #h + 1
  h[n] = node
  while n > 1 do
    local p = n // 2
    local a, b = h[p], h[n]
    if a.f < b.f or (a.f == b.f and a.seq <= b.seq) then break end
    h[p], h[n] = b, a
    n = p
  end
end
local function heap_pop(h)
  local n = #h
  local top = h[1]
  h[1] = h[n]
  h[n] = nil
  n = n - 1
  local i = 1
  while true do
    local l, r, m = i * 2, i * 2 + 1, i
    if l <= n and (h[l].f < h[m].f or (h[l].f == h[m].f and h[l].seq < h[m].seq)) then m = l end
    if r <= n and (h[r].f < h[m].f or (h[r].f == h[m].f and h[r].seq < h[m].seq)) then m = r end
    if m == i then break end
    h[i], h[m] = h[m], h[i]
    i = m
  end
  return top
end

local function dist3(ax, ay, az, bx, by, bz) return sqrt((ax - bx) ^ 2 + (ay - by) ^ 2 + (az - bz) ^ 2) end

-- The point of portal l-r where the segment a-e crosses its line, clamped onto the portal (its middle when they
-- are parallel).  Node positions there, rather than at portal midpoints, keep A*'s corridors close to straight.
local function portal_point(lx, lz, rx, rz, ax, az, ex, ez)
  local px, pz = rx - lx, rz - lz
  local dx, dz = ex - ax, ez - az
  local den = px * dz - pz * dx
  local u = 0.5
  if abs(den) > 1e-12 then u = ((ax - lx) * dz - (az - lz) * dx) / den end
  if u < 0 then u = 0 elseif u > 1 then u = 1 end
  return lx + px * u, lz + pz * u
end

-- The corridor from rect rs (at s) to rect re (at e): a list of steps {rect =, via = link or off-mesh link (nil for
-- the first)}, and whether it reaches re (false: it ends at the piece closest to e).
function Q.find_corridor(nav, rs, sx, sy, sz, re, ex, ey, ez, filter)
  local nodes = {}          -- rect -> node (a lookup, never iterated)
  local heap = {}
  local seq = 0
  local start = {rect = rs, g = 0, x = sx, y = sy, z = sz, seq = 0}
  start.h = dist3(sx, sy, sz, ex, ey, ez) * H_SCALE
  start.f = start.h
  nodes[rs] = start
  heap_push(heap, start)
  local best = start
  local found = nil
  while #heap > 0 do
    local cur = heap_pop(heap)
    if not cur.closed then
      cur.closed = true
      local r = cur.rect
      if r == re then found = cur; break end
      local c = cost_of(filter, r.area)
      local function visit(to, via, px, py, pz)
        if to.dead or not passes(filter, to.flags) then return end
        local node = nodes[to]
        local g = cur.g + dist3(cur.x, cur.y, cur.z, px, py, pz) * c
        local h
        if to == re then
          h = dist3(px, py, pz, ex, ey, ez) * cost_of(filter, re.area)
        else
          h = dist3(px, py, pz, ex, ey, ez) * H_SCALE
        end
        local f = g + h
        if node then
          if f >= node.f then return end
          node.closed = nil
        else
          node = {rect = to}
          nodes[to] = node
        end
        seq = seq + 1
        node.x, node.y, node.z = px, py, pz
        node.g, node.h, node.f, node.parent, node.via, node.seq = g, h, f, cur, via, seq
        heap_push(heap, node)
        if h < best.h or (h == best.h and g < best.g) then best = node end
      end
      for _, l in ipairs(r.links) do
        local to = l.to
        local lx, lz, rx, rz = edge_points(nav, r, l.side, l.a, l.b)
        -- where the portal meets the line from here to the goal (clamped onto it)
        local px, pz = portal_point(lx, lz, rx, rz, cur.x, cur.z, ex, ez)
        visit(to, l, px, height_at(nav, r, px, pz), pz)
      end
      for _, o in ipairs(r.off or {}) do
        if passes(filter, o.flags) then
          -- to the connection's start across r, then along the connection at its area's cost
          local step = dist3(cur.x, cur.y, cur.z, o.ax, o.ay, o.az) * c + o.len * cost_of(filter, o.area)
          -- the node's position is the connection's end; its cost from cur is the step alone
          local to = o.to
          if not to.dead and passes(filter, to.flags) then
            local node = nodes[to]
            local g = cur.g + step
            if node then g = g + dist3(o.bx, o.by, o.bz, node.x, node.y, node.z) * cost_of(filter, to.area) end
            local nx, ny, nz = o.bx, o.by, o.bz
            if node then nx, ny, nz = node.x, node.y, node.z end
            local h = dist3(nx, ny, nz, ex, ey, ez) * (to == re and cost_of(filter, re.area) or H_SCALE)
            local f = g + h
            if node == nil or f < node.f then
              if node then node.closed = nil else node = {rect = to, x = nx, y = ny, z = nz}; nodes[to] = node end
              seq = seq + 1
              node.g, node.h, node.f, node.parent, node.via, node.seq = g, h, f, cur, o, seq
              heap_push(heap, node)
              if h < best.h or (h == best.h and g < best.g) then best = node end
            end
          end
        end
      end
    end
  end
  local last = found or best
  local steps = {}
  local n = last
  while n do
    steps[#steps + 1] = {rect = n.rect, via = n.via}
    n = n.parent
  end
  -- reverse
  local out = {}
  for i = #steps, 1, -1 do out[#out + 1] = steps[i] end
  return out, found ~= nil
end

----------------------------------------------------------------------------------------------------
-- The straight path: the funnel over the corridor's portals
----------------------------------------------------------------------------------------------------
local function cross2(ax, az, bx, bz) return ax * bz - az * bx end

-- Corners of the shortest path from p (in steps[i0].rect) to q along steps[i0..i1] (no off-mesh link inside), as
-- {x, y, z, rect} appended to `out` (the start not included, the end included).
local function funnel(nav, steps, i0, i1, px, pz, qx, qy, qz, out, limit)
  -- portals: {lx, lz, rx, rz, rect} (the rect on the near side); the last is the end point
  local portals = {}
  for i = i0 + 1, i1 do
    local l = steps[i].via
    local from = steps[i - 1].rect
    local lx, lz, rx, rz = edge_points(nav, from, l.side, l.a, l.b)
    portals[#portals + 1] = {lx, lz, rx, rz, from}
  end
  portals[#portals + 1] = {qx, qz, qx, qz, steps[i1].rect, last = true}
  local ax, az = px, pz
  local lx, lz, rx, rz = px, pz, px, pz
  local li, ri = 0, 0
  local i = 1
  local n = #portals
  local function emit(x, z, r)
    out[#out + 1] = {x, height_at(nav, r, x, z), z, r}
  end
  while i <= n do
    local p = portals[i]
    local plx, plz, prx, prz = p[1], p[2], p[3], p[4]
    local restart = false
    -- the right side
    if cross2(rx - ax, rz - az, prx - ax, prz - az) >= 0 then
      if (ax == rx and az == rz) or cross2(lx - ax, lz - az, prx - ax, prz - az) < 0 then
        rx, rz, ri = prx, prz, i
      else
        -- the right crosses the left: the left point is a corner
        local c = portals[li] and portals[li][5] or steps[i0].rect
        emit(lx, lz, c)
        if limit and #out >= limit then return end
        ax, az = lx, lz
        rx, rz, ri = ax, az, li
        i = li + 1
        restart = true
      end
    end
    if not restart then
      if cross2(lx - ax, lz - az, plx - ax, plz - az) <= 0 then
        if (ax == lx and az == lz) or cross2(rx - ax, rz - az, plx - ax, plz - az) > 0 then
          lx, lz, li = plx, plz, i
        else
          local c = portals[ri] and portals[ri][5] or steps[i0].rect
          emit(rx, rz, c)
          if limit and #out >= limit then return end
          ax, az = rx, rz
          lx, lz, li = ax, az, ri
          i = ri + 1
          restart = true
        end
      end
    end
    if not restart then i = i + 1 end
  end
  out[#out + 1] = {qx, qy, qz, steps[i1].rect}
end

-- Append point (x, y, z) unless it equals the last one (which then takes its flag, as Detour merges them).
local function append(points, x, y, z, flag, rect)
  local last = points[#points]
  if last and (last[1] - x) ^ 2 + (last[2] - y) ^ 2 + (last[3] - z) ^ 2 < EQUAL_EPS2 then
    if flag then last.flag = flag end
    return
  end
  points[#points + 1] = {x, y, z, flag = flag, rect = rect}
end

-- The straight path from s to e along the corridor: a list of {x, y, z, flag = "offmesh" (the start of an
-- off-mesh connection), "end" or nil}.
function Q.straight_path(nav, steps, sx, sy, sz, ex, ey, ez)
  local points = {}
  append(points, sx, sy, sz, nil, steps[1].rect)
  local i0 = 1
  local px, pz = sx, sz
  local n = #steps
  while true do
    -- the next off-mesh step after i0, or the end
    local j = i0 + 1
    while j <= n and steps[j].via.len == nil do j = j + 1 end
    local off = j <= n and steps[j].via or nil
    local qx, qy, qz = ex, ey, ez
    if off then qx, qy, qz = off.ax, off.ay, off.az end
    local corners = {}
    funnel(nav, steps, i0, off and j - 1 or n, px, pz, qx, qy, qz, corners)
    for k, c in ipairs(corners) do
      local flag = nil
      if k == #corners then flag = off and "offmesh" or "end" end
      append(points, c[1], c[2], c[3], flag, c[4])
    end
    if off == nil then break end
    append(points, off.bx, off.by, off.bz, nil, steps[j].rect)
    px, pz = off.bx, off.bz
    i0 = j
  end
  return points
end

----------------------------------------------------------------------------------------------------
-- Raycast: walk across portals along the segment (in x, z)
----------------------------------------------------------------------------------------------------
-- Returns t (1 when the segment stays on the mesh), the hit normal (x, z) and the rects crossed.
function Q.raycast(nav, r, sx, sz, ex, ez, filter)
  local dx, dz = ex - sx, ez - sz
  local cs, bx, bz = nav.cs, nav.bmin[1], nav.bmin[3]
  local t0 = 0.0
  for _ = 1, 100000 do
    if inside(r, ex, ez) then return 1.0, 0, 0, r end
    -- where the segment leaves r
    local tx, sidex = huge, nil
    if dx > 0 then tx, sidex = (r.wx1 - sx) / dx, 2 elseif dx < 0 then tx, sidex = (r.wx0 - sx) / dx, 0 end
    local tz, sidez = huge, nil
    if dz > 0 then tz, sidez = (r.wz1 - sz) / dz, 1 elseif dz < 0 then tz, sidez = (r.wz0 - sz) / dz, 3 end
    local t, side, other = tx, sidex, nil
    if tz < tx then t, side = tz, sidez end
    if sidex and sidez and abs(tx - tz) < 1e-12 then other = side == sidex and sidez or sidex end   -- a corner
    if t < t0 then t = t0 end
    if t >= 1.0 then return 1.0, 0, 0, r end
    local hx, hz = sx + dx * t, sz + dz * t
    -- the neighbour across side `sd` at the exit point (a cell index nudged along the ray at cell edges)
    local function across(sd)
      local a
      if sd == 0 or sd == 2 then a = mmin(mmax(mfloor((hz - bz) / cs + (dz > 0 and 1e-9 or -1e-9)), r.z0), r.z1)
      else a = mmin(mmax(mfloor((hx - bx) / cs + (dx > 0 and 1e-9 or -1e-9)), r.x0), r.x1) end
      for _, l in ipairs(r.links) do
        if l.side == sd and a >= l.a and a <= l.b and not l.to.dead and passes(filter, l.to.flags) then return l.to end
      end
      return nil
    end
    local nxt = across(side)
    if nxt == nil and other then nxt = across(other); if nxt then side = other end end
    if nxt == nil then
      local nx, nz = 0, 0
      if side == 0 then nx = 1 elseif side == 2 then nx = -1 elseif side == 1 then nz = -1 else nz = 1 end
      return t, nx, nz, r
    end
    r, t0 = nxt, t
  end
  return t0, 0, 0, r
end

-- Straighten a path where the mesh allows: from each point, the farthest later point of the same on-mesh stretch
-- that a raycast over the mesh reaches (on the same piece the path has there) replaces the points between.
function Q.smooth(nav, points, filter)
  local climb = nav.wc * nav.ch
  local out = {points[1]}
  local i = 1
  local n = #points
  while i < n do
    local p = points[i]
    local best = i + 1
    if p.flag ~= "offmesh" then
      for j = n, i + 2, -1 do
        local ok = true
        for k = i + 1, j - 1 do if points[k].flag == "offmesh" then ok = false; break end end
        if ok then
          local q = points[j]
          local t, _, _, r = Q.raycast(nav, p.rect, p[1], p[3], q[1], q[3], filter)
          if t >= 1.0 and (r == q.rect or abs(height_at(nav, r, q[1], q[3]) - q[2]) <= climb) then best = j; break end
        end
      end
    end
    out[#out + 1] = points[best]
    i = best
  end
  return out
end

----------------------------------------------------------------------------------------------------
-- Searches around a point: rects reachable from r whose square lies within `radius` of (cx, cz)
----------------------------------------------------------------------------------------------------
local function rect_dist2(r, x, z)
  local px, pz = clamp_to(r, x, z)
  return (px - x) ^ 2 + (pz - z) ^ 2
end
Q.rect_dist2 = rect_dist2

function Q.around(nav, r, cx, cz, radius, filter)
  local seen = {[r] = true}
  local list = {r}
  local i = 1
  local r2 = radius * radius
  while i <= #list do
    local cur = list[i]
    i = i + 1
    for _, l in ipairs(cur.links) do
      local to = l.to
      if not seen[to] and not to.dead and passes(filter, to.flags) then
        -- through the portal: the portal must lie within the circle
        local lx, lz, rx, rz = edge_points(nav, cur, l.side, l.a, l.b)
        local px = mmin(mmax(cx, mmin(lx, rx)), mmax(lx, rx))
        local pz = mmin(mmax(cz, mmin(lz, rz)), mmax(lz, rz))
        if (px - cx) ^ 2 + (pz - cz) ^ 2 <= r2 then
          seen[to] = true
          list[#list + 1] = to
        end
      end
    end
  end
  return list
end

-- The distance from (x, z) to the nearest wall within radius: distance, hit point (x, z), normal (x, z).
function Q.distance_to_wall(nav, r, x, z, radius, filter)
  local best, hx, hz, nx, nz = radius, x, z, 0, 0
  for _, cur in ipairs(Q.around(nav, r, x, z, radius, filter)) do
    local function wall(side, a, b)
      local lx, lz, rx, rz = edge_points(nav, cur, side, a, b)
      local sx, sz = rx - lx, rz - lz
      local len2 = sx * sx + sz * sz
      local u = len2 > 0 and ((x - lx) * sx + (z - lz) * sz) / len2 or 0
      if u < 0 then u = 0 elseif u > 1 then u = 1 end
      local px, pz = lx + sx * u, lz + sz * u
      local d = sqrt((px - x) ^ 2 + (pz - z) ^ 2)
      if d < best then
        best, hx, hz = d, px, pz
        nx, nz = 0, 0
        if side == 0 then nx = 1 elseif side == 2 then nx = -1 elseif side == 1 then nz = -1 else nz = 1 end
      end
    end
    for _, w in ipairs(cur.walls) do wall(w.side, w.a, w.b) end
    for _, l in ipairs(cur.links) do
      if l.to.dead or not passes(filter, l.to.flags) then wall(l.side, l.a, l.b) end
    end
  end
  return best, hx, hz, nx, nz
end

-- Detour's moveAlongSurface: the end point when a piece around the segment holds it, else the closest point to it
-- on the pieces the search reached.  Returns x, z (and whether the end was reached), and the rect.
function Q.move_along(nav, r, sx, sz, ex, ez, filter)
  local cx, cz = (sx + ex) * 0.5, (sz + ez) * 0.5
  local radius = sqrt((ex - sx) ^ 2 + (ez - sz) ^ 2) * 0.5 + 0.001
  local list = Q.around(nav, r, cx, cz, radius, filter)
  for _, cur in ipairs(list) do
    if inside(cur, ex, ez) then return ex, ez, true, cur end
  end
  local best, bx, bz, br = huge, sx, sz, r
  for _, cur in ipairs(list) do
    local px, pz = clamp_to(cur, ex, ez)
    local d = (px - ex) ^ 2 + (pz - ez) ^ 2
    if d < best then best, bx, bz, br = d, px, pz, cur end
  end
  return bx, bz, false, br
end

----------------------------------------------------------------------------------------------------
-- Random points (the engine's Random(), Urho3D's LCG)
----------------------------------------------------------------------------------------------------
-- Pick among weighted candidates {rect, x0, z0, x1, z1, weight}: one draw chooses, two place the point.
local function pick_point(nav, cands, total)
  if #cands == 0 or total <= 0 then return nil end
  local u = E.Random() * total
  local chosen = cands[#cands]
  local acc = 0.0
  for _, c in ipairs(cands) do
    acc = acc + c[6]
    if u < acc then chosen = c; break end
  end
  local x = chosen[2] + (chosen[4] - chosen[2]) * E.Random()
  local z = chosen[3] + (chosen[5] - chosen[3]) * E.Random()
  return chosen[1], x, height_at(nav, chosen[1], x, z), z
end

function Q.random_point(nav, filter)
  local cands, total = {}, 0.0
  for k = 1, nav.ntx * nav.ntz do
    local t = nav.tiles[k]
    if t then
      for _, r in ipairs(t.rects) do
        if passes(filter, r.flags) then
          local wgt = (r.wx1 - r.wx0) * (r.wz1 - r.wz0)
          cands[#cands + 1] = {r, r.wx0, r.wz0, r.wx1, r.wz1, wgt}
          total = total + wgt
        end
      end
    end
  end
  return pick_point(nav, cands, total)
end

function Q.random_point_in_circle(nav, r, cx, cz, radius, filter)
  local cands, total = {}, 0.0
  for _, cur in ipairs(Q.around(nav, r, cx, cz, radius, filter)) do
    local x0, z0 = mmax(cur.wx0, cx - radius), mmax(cur.wz0, cz - radius)
    local x1, z1 = mmin(cur.wx1, cx + radius), mmin(cur.wz1, cz + radius)
    if x1 >= x0 and z1 >= z0 then
      local wgt = (x1 - x0) * (z1 - z0)
      cands[#cands + 1] = {cur, x0, z0, x1, z1, wgt}
      total = total + wgt
    end
  end
  if total <= 0 and #cands > 0 then
    local c = cands[1]
    return c[1], c[2], height_at(nav, c[1], c[2], c[3]), c[3]
  end
  return pick_point(nav, cands, total)
end

Q.tsort = tsort
