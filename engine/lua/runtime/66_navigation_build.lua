-- Navigation, part 1: from triangles to walkable cells (docs/navigation.md).  Recast's pipeline, written here
-- from its published description and kept to the steps whose results a game can observe: triangles are
-- rasterised per tile (plus a border of walkableRadius + 3 cells, as Urho3D configures Recast) into columns of
-- solid spans cellSize wide and cellHeight tall; triangles steeper than agentMaxSlope are solid but not walkable;
-- spans that touch merge (the walkable flag survives when the tops are within agentMaxClimb); then three filters
-- (low obstacles become walkable steps, ledges and spans without agentHeight of clearance become unwalkable), the
-- open space above each walkable span with its four neighbours (reachable within agentMaxClimb, agentHeight of
-- shared clearance), erosion by agentRadius (a chamfer distance, 2 across and 3 diagonally, as Recast counts it)
-- and NavArea boxes.  What comes out is, for each column of the tile's core, its walkable floors: quantised floor,
-- ceiling, surface height (the height of the surface at the cell's centre) and area id.  Regions, contours and
-- polygons are not built: 66_navigation_query.lua makes its own convex pieces (rectangles) from these cells.
local mfloor, mceil, mmin, mmax, abs, sqrt, cos = math.floor, math.ceil, math.min, math.max, math.abs, math.sqrt,
  math.cos
local huge = math.huge

local MAX_HEIGHT = 0xffff          -- the top of the open space above the highest span
local WALKABLE = 63                -- Recast's walkable area id

-- Scratch arrays reused from tile to tile (cleared by count, not by allocation).
local head, smin, smax, sarea, snext, sh = {}, {}, {}, {}, {}, {}
local cfirst, ccount, cy, cceil, carea, csurf, con, dist = {}, {}, {}, {}, {}, {}, {}, {}
local poly_a, poly_b, poly_c, poly_d, poly_e, poly_f = {}, {}, {}, {}, {}, {}

-- Split polygon `inp` (n vertices, flat x y z) at coordinate `v` along axis `ax` (1 x, 3 z): the part below into
-- `lo`, the part at or above into `hi`.  Vertices on the line go to both; returns the two vertex counts.
local function split(inp, n, lo, hi, v, ax)
  if n < 3 then return 0, 0 end
  local nl, nh = 0, 0
  local pj = (n - 1) * 3
  local dp = inp[pj + ax] - v
  for i = 1, n do
    local pi = (i - 1) * 3
    local dq = inp[pi + ax] - v
    if (dp < 0 and dq > 0) or (dp > 0 and dq < 0) then
      local s = dp / (dp - dq)
      local x = inp[pj + 1] + (inp[pi + 1] - inp[pj + 1]) * s
      local y = inp[pj + 2] + (inp[pi + 2] - inp[pj + 2]) * s
      local z = inp[pj + 3] + (inp[pi + 3] - inp[pj + 3]) * s
      lo[nl * 3 + 1], lo[nl * 3 + 2], lo[nl * 3 + 3] = x, y, z
      hi[nh * 3 + 1], hi[nh * 3 + 2], hi[nh * 3 + 3] = x, y, z
      nl, nh = nl + 1, nh + 1
    end
    local x, y, z = inp[pi + 1], inp[pi + 2], inp[pi + 3]
    if dq <= 0 then lo[nl * 3 + 1], lo[nl * 3 + 2], lo[nl * 3 + 3] = x, y, z; nl = nl + 1 end
    if dq >= 0 then hi[nh * 3 + 1], hi[nh * 3 + 2], hi[nh * 3 + 3] = x, y, z; nh = nh + 1 end
    pj, dp = pi, dq
  end
  return nl, nh
end

----------------------------------------------------------------------------------------------------
-- The heightfield of one tile
----------------------------------------------------------------------------------------------------
local HF = {}   -- the tile being built: w (cells a side), ox, oz (its corner), oy, top (height range), cs, ch, n
local climb_merge = 0

-- Add a solid span [lo, hi] (cells) to column `col`, merging with the spans it touches.
local function add_span(col, lo, hi, area, surf)
  local prev, cur = 0, head[col]
  while cur ~= 0 do
    local cmin = smin[cur]
    if cmin > hi then break end
    local cmax = smax[cur]
    if cmax < lo then
      prev, cur = cur, snext[cur]
    else
      if cmin < lo then lo = cmin end
      if cmax > hi then hi, surf = cmax, sh[cur]
      elseif cmax == hi and sh[cur] > surf then surf = sh[cur] end
      if abs(hi - cmax) <= climb_merge and sarea[cur] > area then area = sarea[cur] end
      local nxt = snext[cur]
      if prev == 0 then head[col] = nxt else snext[prev] = nxt end
      cur = nxt
    end
  end
  local n = HF.n + 1
  HF.n = n
  smin[n], smax[n], sarea[n], sh[n] = lo, hi, area, surf
  if prev == 0 then snext[n] = head[col]; head[col] = n
  else snext[n] = snext[prev]; snext[prev] = n end
end

-- A piece of a triangle in one column: y from ymin to ymax (world), surface height `surf`.
local function put(x, z, ymin, ymax, area, surf)
  local oy, top, ich = HF.oy, HF.top, HF.ich
  local lo, hi = ymin - oy, ymax - oy
  if hi < 0 or lo > top then return end
  if lo < 0 then lo = 0 end
  if hi > top then hi = top end
  local ilo = mfloor(lo * ich)
  local ihi = mceil(hi * ich)
  if ilo < 0 then ilo = 0 elseif ilo > MAX_HEIGHT then ilo = MAX_HEIGHT end
  if ihi < ilo + 1 then ihi = ilo + 1 elseif ihi > MAX_HEIGHT then ihi = MAX_HEIGHT end
  add_span(z * HF.w + x + 1, ilo, ihi, area, surf)
end

-- The x interval of the triangle's cross-section at z (nil when the line misses it).
local function cross_section(ax, az, bx, bz, cx, cz, z)
  local lo, hi = huge, -huge
  for e = 1, 3 do
    local x0, z0, x1, z1
    if e == 1 then x0, z0, x1, z1 = ax, az, bx, bz
    elseif e == 2 then x0, z0, x1, z1 = bx, bz, cx, cz
    else x0, z0, x1, z1 = cx, cz, ax, az end
    if (z0 - z) * (z1 - z) <= 0 then
      if z0 == z1 then
        if x0 < lo then lo = x0 end
        if x0 > hi then hi = x0 end
        if x1 < lo then lo = x1 end
        if x1 > hi then hi = x1 end
      else
        local x = x0 + (x1 - x0) * (z - z0) / (z1 - z0)
        if x < lo then lo = x end
        if x > hi then hi = x end
      end
    end
  end
  if lo > hi then return nil end
  return lo, hi
end

-- The heights of the part of polygon `p` (n vertices) between x = xa and x = xb: its lowest and highest, and its
-- vertex count (the polygon's vertices inside, and its edges' crossings of the two lines), without building it.
local function cell_heights(p, n, xa, xb)
  local lo, hi, count = huge, -huge, 0
  local j = (n - 1) * 3
  local px, py = p[j + 1], p[j + 2]
  for i = 0, n - 1 do
    local qx, qy = p[i * 3 + 1], p[i * 3 + 2]
    if qx >= xa and qx <= xb then
      count = count + 1
      if qy < lo then lo = qy end
      if qy > hi then hi = qy end
    end
    if (px < xa and qx > xa) or (px > xa and qx < xa) then
      local y = py + (qy - py) * (xa - px) / (qx - px)
      count = count + 1
      if y < lo then lo = y end
      if y > hi then hi = y end
    end
    if (px < xb and qx > xb) or (px > xb and qx < xb) then
      local y = py + (qy - py) * (xb - px) / (qx - px)
      count = count + 1
      if y < lo then lo = y end
      if y > hi then hi = y end
    end
    px, py = qx, qy
  end
  return lo, hi, count
end

-- Rasterise one triangle into the tile's heightfield.
local function rasterize(ax, ay, az, bx, by, bz, cx, cy, cz, walk_cos)
  local w, cs, ox, oz, ics = HF.w, HF.cs, HF.ox, HF.oz, HF.ics
  local xmin, xmax, zmin, zmax = ax, ax, az, az
  if bx < xmin then xmin = bx elseif bx > xmax then xmax = bx end
  if cx < xmin then xmin = cx elseif cx > xmax then xmax = cx end
  if bz < zmin then zmin = bz elseif bz > zmax then zmax = bz end
  if cz < zmin then zmin = cz elseif cz > zmax then zmax = cz end
  local x0 = mfloor((xmin - ox) * ics)
  local x1 = mfloor((xmax - ox) * ics)
  local z0 = mfloor((zmin - oz) * ics)
  local z1 = mfloor((zmax - oz) * ics)
  if x1 < 0 or z1 < 0 or x0 >= w or z0 >= w then return end
  local ymin, ymax = ay, ay
  if by < ymin then ymin = by elseif by > ymax then ymax = by end
  if cy < ymin then ymin = cy elseif cy > ymax then ymax = cy end
  if ymax < HF.oy or ymin > HF.oy + HF.top then return end
  -- the normal (right-handed cross product of the edges: up for Urho3D's front faces)
  local e0x, e0y, e0z = bx - ax, by - ay, bz - az
  local e1x, e1y, e1z = cx - ax, cy - ay, cz - az
  local nx, ny, nz = e0y * e1z - e0z * e1y, e0z * e1x - e0x * e1z, e0x * e1y - e0y * e1x
  local nl = sqrt(nx * nx + ny * ny + nz * nz)
  local area = 0
  if nl > 0 and ny > walk_cos * nl then area = WALKABLE end
  local planar = nl > 0 and abs(ny) > 1e-6 * nl
  local gx, gz = 0.0, 0.0
  if planar then gx, gz = -nx / ny, -nz / ny end
  -- within one cell: the triangle is the piece
  if x0 == x1 and z0 == z1 then
    local surf = ymax
    if planar then
      surf = ay + gx * (ox + (x0 + 0.5) * cs - ax) + gz * (oz + (z0 + 0.5) * cs - az)
      if surf < ymin then surf = ymin elseif surf > ymax then surf = ymax end
    end
    put(x0, z0, ymin, ymax, area, surf)
    return
  end
  if x0 < -1 then x0 = -1 end
  if x1 > w - 1 then x1 = w - 1 end
  if z0 < -1 then z0 = -1 end
  if z1 > w - 1 then z1 = w - 1 end
  local inp, rest, row = poly_a, poly_b, poly_c
  inp[1], inp[2], inp[3], inp[4], inp[5], inp[6], inp[7], inp[8], inp[9] = ax, ay, az, bx, by, bz, cx, cy, cz
  local nin = 3
  local dxmin, dxmax = mmin(0, gx * cs), mmax(0, gx * cs)
  local dzmin, dzmax = mmin(0, gz * cs), mmax(0, gz * cs)
  for z = z0, z1 do
    local za = oz + z * cs
    local zb = za + cs
    local nrow
    nrow, nin = split(inp, nin, row, rest, zb, 3)
    inp, rest = rest, inp
    if z >= 0 and nrow >= 3 then
      -- the row's x range
      local rx0, rx1 = huge, -huge
      for i = 0, nrow - 1 do
        local x = row[i * 3 + 1]
        if x < rx0 then rx0 = x end
        if x > rx1 then rx1 = x end
      end
      local cx0 = mmax(mfloor((rx0 - ox) * ics), 0)
      local cx1 = mmin(mfloor((rx1 - ox) * ics), w - 1)
      -- the cells wholly inside the triangle (its cross-sections at the strip's two edges bound them)
      local f0, f1 = 1, 0
      if planar and zmin <= za and zmax >= zb then
        local l0, r0 = cross_section(ax, az, bx, bz, cx, cz, za)
        local l1, r1 = cross_section(ax, az, bx, bz, cx, cz, zb)
        if l0 and l1 then
          f0 = mceil((mmax(l0, l1) - ox) * ics)
          f1 = mfloor((mmin(r0, r1) - ox) * ics) - 1
        end
      end
      for x = cx0, cx1 do
        local xa = ox + x * cs
        if x >= f0 and x <= f1 then
          local base = ay + gx * (xa - ax) + gz * (za - az)
          put(x, z, base + dxmin + dzmin, base + dxmax + dzmax, area, base + (gx + gz) * cs * 0.5)
        else
          local lo, hi, nc = cell_heights(row, nrow, xa, xa + cs)
          if nc >= 3 then
            local surf = hi
            if planar then
              surf = ay + gx * (xa + cs * 0.5 - ax) + gz * (za + cs * 0.5 - az)
              if surf < lo then surf = lo elseif surf > hi then surf = hi end
            end
            put(x, z, lo, hi, area, surf)
          end
        end
      end
    end
    if nin < 3 then break end
  end
end

----------------------------------------------------------------------------------------------------
-- Filters, open space, erosion, areas
----------------------------------------------------------------------------------------------------
-- A non-walkable span whose top is within climb of the walkable span below it becomes walkable (a kerb, a stair).
local function filter_low_obstacles(ncol, climb)
  for col = 1, ncol do
    local s = head[col]
    local prev_walk, prev_area, prev_top = false, 0, 0
    while s ~= 0 do
      local walk = sarea[s] ~= 0
      if not walk and prev_walk and abs(smax[s] - prev_top) <= climb then sarea[s] = prev_area end
      prev_walk, prev_area, prev_top = walk, sarea[s], smax[s]
      s = snext[s]
    end
  end
end

-- Ledges: a walkable span with a drop of more than climb to a neighbour (the heightfield's edge counts as one), or
-- whose reachable neighbours differ by more than climb among themselves, is not walkable.
local marks = {}
local function filter_ledges(w, height, climb)
  local nm = 0
  for z = 0, w - 1 do
    for x = 0, w - 1 do
      local col = z * w + x + 1
      local s = head[col]
      while s ~= 0 do
        if sarea[s] ~= 0 then
          local bot = smax[s]
          local sn = snext[s]
          local top = sn ~= 0 and smin[sn] or MAX_HEIGHT
          local minh = MAX_HEIGHT
          local amin, amax = bot, bot
          for d = 1, 4 do
            local ncol = 0
            if d == 1 then if x > 0 then ncol = col - 1 end
            elseif d == 2 then if z < w - 1 then ncol = col + w end
            elseif d == 3 then if x < w - 1 then ncol = col + 1 end
            elseif z > 0 then ncol = col - w end
            if ncol == 0 then
              if -climb - bot < minh then minh = -climb - bot end
            else
              local ns = head[ncol]
              -- the open space below the neighbour's first span
              local ntop = ns ~= 0 and smin[ns] or MAX_HEIGHT
              local lo = bot > -climb and bot or -climb
              if (top < ntop and top or ntop) - lo > height and -climb - bot < minh then minh = -climb - bot end
              while ns ~= 0 do
                local nbot = smax[ns]
                local nn = snext[ns]
                ntop = nn ~= 0 and smin[nn] or MAX_HEIGHT
                lo = bot > nbot and bot or nbot
                if (top < ntop and top or ntop) - lo > height then
                  local dh = nbot - bot
                  if dh < minh then minh = dh end
                  if dh <= climb and dh >= -climb then
                    if nbot < amin then amin = nbot elseif nbot > amax then amax = nbot end
                  end
                end
                ns = nn
              end
            end
          end
          if minh < -climb or amax - amin > climb then nm = nm + 1; marks[nm] = s end
        end
        s = snext[s]
      end
    end
  end
  for i = 1, nm do sarea[marks[i]] = 0 end
end

-- Too little room above: not walkable.
local function filter_low_height(ncol, height)
  for col = 1, ncol do
    local s = head[col]
    while s ~= 0 do
      local nxt = snext[s]
      local top = nxt ~= 0 and smin[nxt] or MAX_HEIGHT
      if top - smax[s] < height then sarea[s] = 0 end
      s = nxt
    end
  end
end

-- The open space above each walkable span, and its connections to the four neighbours (direction d: 0 -x, 1 +z,
-- 2 +x, 3 -z), as span indices (0: none).  Returns the number of open spans.
local function build_open(w, height, climb)
  local n = 0
  for col = 1, w * w do
    cfirst[col] = n + 1
    local s = head[col]
    while s ~= 0 do
      local nxt = snext[s]
      if sarea[s] ~= 0 then
        n = n + 1
        cy[n] = smax[s]
        cceil[n] = nxt ~= 0 and smin[nxt] or MAX_HEIGHT
        carea[n] = sarea[s]
        csurf[n] = sh[s]
      end
      s = nxt
    end
    ccount[col] = n + 1 - cfirst[col]
  end
  for z = 0, w - 1 do
    for x = 0, w - 1 do
      local col = z * w + x + 1
      local i0 = cfirst[col]
      for i = i0, i0 + ccount[col] - 1 do
        local bot, top = cy[i], cceil[i]
        local base = (i - 1) * 4
        for d = 1, 4 do
          local ncol = 0
          if d == 1 then if x > 0 then ncol = col - 1 end
          elseif d == 2 then if z < w - 1 then ncol = col + w end
          elseif d == 3 then if x < w - 1 then ncol = col + 1 end
          elseif z > 0 then ncol = col - w end
          local found = 0
          if ncol ~= 0 then
            local j0 = cfirst[ncol]
            for j = j0, j0 + ccount[ncol] - 1 do
              local nb, nt = cy[j], cceil[j]
              local dh = nb - bot
              if dh <= climb and dh >= -climb and (top < nt and top or nt) - (bot > nb and bot or nb) >= height then
                found = j
                break
              end
            end
          end
          con[base + d] = found
        end
      end
    end
  end
  return n
end

-- Erode the walkable area by `radius` cells: spans closer than that to an edge (a missing connection) go.
-- Connections: con[(i - 1) * 4 + 1] -x, + 2 +z, + 3 +x, + 4 -z.

-- One pass of the distance transform (2 across a side, 3 across a corner) over the columns, forward from the -x,
-- -z corner or backward from the +x, +z one: each span's distance lowered through its neighbours in direction
-- `a` and `b` (con's slots: 1 -x, 2 +z, 3 +x, 4 -z) and, from each, its neighbour turning the corner.
local function chamfer_pass(w, cfirst, ccount, con, dist, forward)
  local a, a_turn, b, b_turn, from, to, step = 1, 4, 4, 3, 0, w - 1, 1
  if not forward then a, a_turn, b, b_turn, from, to, step = 3, 2, 2, 1, w - 1, 0, -1 end
  for z = from, to, step do
    for x = from, to, step do
      local col = z * w + x + 1
      local i0 = cfirst[col]
      for i = i0, i0 + ccount[col] - 1 do
        local d = dist[i]
        if d > 0 then
          local base = (i - 1) * 4
          for side = 1, 2 do
            local dir, turn = a, a_turn
            if side == 2 then dir, turn = b, b_turn end
            local j = con[base + dir]
            if j ~= 0 then
              if dist[j] + 2 < d then d = dist[j] + 2 end
              local k = con[(j - 1) * 4 + turn]
              if k ~= 0 and dist[k] + 3 < d then d = dist[k] + 3 end
            end
          end
          dist[i] = d
        end
      end
    end
  end
end

local function erode(w, n, radius)
  if radius <= 0 then return end
  for i = 1, n do
    local b = (i - 1) * 4
    if con[b + 1] == 0 or con[b + 2] == 0 or con[b + 3] == 0 or con[b + 4] == 0 then dist[i] = 0 else dist[i] = 255 end
  end
  chamfer_pass(w, cfirst, ccount, con, dist, true)    -- from -x, (-x, -z), -z, (+x, -z)
  chamfer_pass(w, cfirst, ccount, con, dist, false)   -- from +x, (+x, +z), +z, (-x, +z)
  local limit = radius * 2
  for i = 1, n do if dist[i] < limit then carea[i] = 0 end end
end

-- NavArea boxes: the open spans of the cells inside the box, whose floor lies within its heights, take its id
-- (an id of 0 makes them unwalkable).
local function mark_areas(w, areas)
  local ox, oz, oy, cs, ch = HF.ox, HF.oz, HF.oy, HF.cs, HF.ch
  for _, a in ipairs(areas) do
    local x0, x1 = mfloor((a[1] - ox) / cs), mfloor((a[4] - ox) / cs)
    local z0, z1 = mfloor((a[3] - oz) / cs), mfloor((a[6] - oz) / cs)
    local y0, y1 = mfloor((a[2] - oy) / ch), mfloor((a[5] - oy) / ch)
    if x1 >= 0 and z1 >= 0 and x0 < w and z0 < w then
      x0, z0, x1, z1 = mmax(x0, 0), mmax(z0, 0), mmin(x1, w - 1), mmin(z1, w - 1)
      for z = z0, z1 do
        for x = x0, x1 do
          local col = z * w + x + 1
          for i = cfirst[col], cfirst[col] + ccount[col] - 1 do
            if carea[i] ~= 0 and cy[i] >= y0 and cy[i] <= y1 then carea[i] = a.id end
          end
        end
      end
    end
  end
end

----------------------------------------------------------------------------------------------------
-- One tile
----------------------------------------------------------------------------------------------------
-- p: the mesh's build parameters {bmin = {x, y, z}, top (height range), cs, ch, ts (tile size), wh, wc, wr (agent
-- height, climb, radius in cells), walk_cos, areas = {{x0, y0, z0, x1, y1, z1, id = }}};
-- items: the geometry, each {box = {x0, y0, z0, x1, y1, z1}, lists = {flat triangle lists}, m = matrix or nil}
-- (the matrix takes the lists' points to the mesh's space).  Returns the tile's cells, or nil when no geometry
-- reaches it: {tx, tz, ts, first = {column -> first span}, yq, ceil, h, area (per span), n}.
function E.nav_build_tile(p, items, tx, tz)
  local cs, ts = p.cs, p.ts
  local border = p.wr + 3
  local w = ts + border * 2
  HF.w, HF.cs, HF.ch, HF.ics, HF.ich = w, cs, p.ch, 1.0 / cs, 1.0 / p.ch
  HF.ox = p.bmin[1] + (tx * ts - border) * cs
  HF.oz = p.bmin[3] + (tz * ts - border) * cs
  HF.oy, HF.top = p.bmin[2], p.top
  HF.n = 0
  climb_merge = p.wc
  local bx0, bz0 = HF.ox, HF.oz
  local bx1, bz1 = bx0 + w * cs, bz0 + w * cs
  local any = false
  for _, it in ipairs(items) do
    local b = it.box
    if b[4] >= bx0 and b[1] <= bx1 and b[6] >= bz0 and b[3] <= bz1 then
      if not any then
        any = true
        for col = 1, w * w do head[col] = 0 end
      end
      local m = it.m
      local walk_cos = p.walk_cos
      for _, t in ipairs(it.lists) do
        if m == nil then
          for i = 0, #t - 9, 9 do
            rasterize(t[i + 1], t[i + 2], t[i + 3], t[i + 4], t[i + 5], t[i + 6], t[i + 7], t[i + 8], t[i + 9], walk_cos)
          end
        else
          local m00, m01, m02, m03 = m[1], m[2], m[3], m[4]
          local m10, m11, m12, m13 = m[5], m[6], m[7], m[8]
          local m20, m21, m22, m23 = m[9], m[10], m[11], m[12]
          for i = 0, #t - 9, 9 do
            local x, y, z = t[i + 1], t[i + 2], t[i + 3]
            local ax, ay, az = m00 * x + m01 * y + m02 * z + m03, m10 * x + m11 * y + m12 * z + m13,
              m20 * x + m21 * y + m22 * z + m23
            x, y, z = t[i + 4], t[i + 5], t[i + 6]
            local bx, by, bz = m00 * x + m01 * y + m02 * z + m03, m10 * x + m11 * y + m12 * z + m13,
              m20 * x + m21 * y + m22 * z + m23
            x, y, z = t[i + 7], t[i + 8], t[i + 9]
            rasterize(ax, ay, az, bx, by, bz, m00 * x + m01 * y + m02 * z + m03, m10 * x + m11 * y + m12 * z + m13,
              m20 * x + m21 * y + m22 * z + m23, walk_cos)
          end
        end
      end
    end
  end
  if not any then return nil end
  local ncol = w * w
  filter_low_obstacles(ncol, p.wc)
  filter_ledges(w, p.wh, p.wc)
  filter_low_height(ncol, p.wh)
  local n = build_open(w, p.wh, p.wc)
  erode(w, n, p.wr)
  mark_areas(w, p.areas)
  -- the core's walkable floors
  local tile = {tx = tx, tz = tz, ts = ts, first = {}, yq = {}, ceil = {}, h = {}, area = {}, n = 0}
  local first, yq, ceil, h, area = tile.first, tile.yq, tile.ceil, tile.h, tile.area
  local k = 0
  for lz = 0, ts - 1 do
    for lx = 0, ts - 1 do
      first[lz * ts + lx + 1] = k + 1
      local col = (lz + border) * w + lx + border + 1
      for i = cfirst[col], cfirst[col] + ccount[col] - 1 do
        if carea[i] ~= 0 then
          k = k + 1
          yq[k], ceil[k], h[k], area[k] = cy[i], cceil[i], csurf[i], carea[i]
        end
      end
    end
  end
  first[ts * ts + 1] = k + 1
  tile.n = k
  return tile
end
