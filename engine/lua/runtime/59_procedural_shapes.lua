-- UrhoX's three.js-style shape builders (docs/content3d.md, "Procedural shapes"): BoxGeometry(...) and its kin
-- return a ProceduralGeometry (59_custom_geometry.lua) with three.js's vertex and index layout, counts, groups,
-- normals and UVs for the same arguments and defaults.  Written here from the shapes' definitions.
--
-- Coordinates.  UrhoX says a shape given only by numbers renders as it does in three.js, and coordinates the game
-- hands over (path points, profiles, contours, vertex tables) are used as they are.  three.js is right-handed and
-- Urho3D left-handed, so a parametric shape is mirrored through the XY plane: every position's and normal's Z is
-- negated and every triangle's winding swapped, which keeps its faces outward and puts it where a three.js scene,
-- seen through a camera converted the same way, shows it (a PlaneGeometry faces -Z, toward Urho3D's usual camera;
-- a thetaStart/phiStart arc is mirrored).  Shapes from the game's coordinates (Polyhedron, Tube, Shape, Extrude)
-- keep three.js's numbers as they are: (v1 - v0) x (v2 - v0) points out of a front face in both engines.
-- LatheGeometry and CapsuleGeometry sweep around Y and are mirrored like the parametric shapes (a profile's radius
-- and height are unchanged by it).
--
-- three.js's non-indexed shapes (the polyhedra, Extrude, RoundedBox) are indexed here 0, 1, 2, ...: index count
-- equals vertex count.  Work is bounded: no argument may ask for more than MAX_VERTICES vertices (an error at the
-- game's line), a contour or path takes at most MAX_POINTS points.
local type, ipairs = type, ipairs
local sformat = string.format
local mfloor, mmax, mmin, sqrt, abs = math.floor, math.max, math.min, math.sqrt, math.abs
local sin, cos, atan, acos, PI = math.sin, math.cos, math.atan, math.acos, math.pi
local tolua_int, tolua_number = E.tolua_int, E.tolua_number
local new_procedural = E.new_procedural

local MAX_VERTICES = 262144   -- 2^18 vertices: about 60 MB of Lua arrays at the most
local MAX_POINTS = 4096       -- profile and path points (and polyhedron vertices and triangles)
local MAX_CONTOUR = 1024      -- 2D contour points (ear clipping takes time with the square of the count)
local TAU = 2 * PI

----------------------------------------------------------------------------------------------------
-- Arguments
----------------------------------------------------------------------------------------------------
local function opt_num(v, default, fname, n)
  if v == nil then return default end
  return tolua_number(v, fname, n)
end
local function opt_int(v, default, fname, n)
  if v == nil then return default end
  return tolua_int(v, fname, n)
end
local function opt_bool(v, default)
  if v == nil then return default end
  return v and true or false
end
local function budget(count, fname)
  if count > MAX_VERTICES then
    E.raise_at_game(sformat("%s: too many vertices (%.0f asked, at most %d)", fname, count, MAX_VERTICES))
  end
end
local function table_arg(v, fname, n, what)
  if type(v) ~= "table" then
    E.raise_at_game(sformat("bad argument #%d to '%s' (table of %s expected, got %s)", n, fname, what, type(v)))
  end
  if #v > MAX_POINTS then
    E.raise_at_game(sformat("%s: too many points (%d, at most %d)", fname, #v, MAX_POINTS))
  end
  return v
end
-- a list of points with the given fields, as {x, y[, z]} triples of numbers
local function point_list(v, fname, n, what, fields)
  table_arg(v, fname, n, what)
  local out = {}
  for i, p in ipairs(v) do
    local q = {}
    for k, field in ipairs(fields) do
      q[k] = type(p) == "table" and p[field] or nil
      if type(q[k]) ~= "number" then
        E.raise_at_game(sformat("bad argument #%d to '%s' (point %d is not a %s)", n, fname, i, what))
      end
    end
    out[i] = q
  end
  return out
end
local function vec2_list(v, fname, n) return point_list(v, fname, n, "Vector2", {"x", "y"}) end
local function vec3_list(v, fname, n) return point_list(v, fname, n, "Vector3", {"x", "y", "z"}) end

----------------------------------------------------------------------------------------------------
-- Mesh under construction: flat positions, normals, UVs (three.js's numbers), 0-based indices, groups
----------------------------------------------------------------------------------------------------
local function mesh() return {p = {}, n = {}, uv = {}, idx = {}, groups = {}, nv = 0} end
local function vert(m, x, y, z, nx, ny, nz, u, v)
  local k = m.nv
  local p, nm, uv = m.p, m.n, m.uv
  p[3 * k + 1], p[3 * k + 2], p[3 * k + 3] = x, y, z
  nm[3 * k + 1], nm[3 * k + 2], nm[3 * k + 3] = nx, ny, nz
  uv[2 * k + 1], uv[2 * k + 2] = u, v
  m.nv = k + 1
  return k
end
local function tri(m, a, b, c)
  local idx = m.idx
  local k = #idx
  idx[k + 1], idx[k + 2], idx[k + 3] = a, b, c
end
local function group(m, start, material)
  local count = #m.idx - start
  m.groups[#m.groups + 1] = {start, count, material}
end
local function normalize(x, y, z)
  local l = sqrt(x * x + y * y + z * z)
  if l == 0 then return x, y, z end
  return x / l, y / l, z / l
end
local function cross(ax, ay, az, bx, by, bz)
  return ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx
end
-- The finished ProceduralGeometry; mirrored (parametric shapes): Z negated, windings swapped.
local function finish(m, mirror)
  local p, nm, idx = m.p, m.n, m.idx
  if mirror then
    for k = 3, #p, 3 do p[k], nm[k] = 0.0 - p[k], 0.0 - nm[k] end
    for k = 1, #idx, 3 do idx[k + 1], idx[k + 2] = idx[k + 2], idx[k + 1] end
  end
  return new_procedural(p, nm, idx, m.uv, m.groups, 0)
end
-- Flat-shaded triangle soup (three.js's non-indexed shapes): three vertices a triangle, each with the face normal
-- (v1 - v0) x (v2 - v0); `tris` flat x,y,z per corner, `uvs` flat u,v per corner.
local function soup(m, tris, uvs)
  for k = 1, #tris, 9 do
    local ax, ay, az, bx, by, bz, cx, cy, cz = tris[k], tris[k + 1], tris[k + 2], tris[k + 3], tris[k + 4],
      tris[k + 5], tris[k + 6], tris[k + 7], tris[k + 8]
    local nx, ny, nz = normalize(cross(bx - ax, by - ay, bz - az, cx - ax, cy - ay, cz - az))
    local j = (k - 1) // 9 * 6
    local i0 = vert(m, ax, ay, az, nx, ny, nz, uvs[j + 1], uvs[j + 2])
    vert(m, bx, by, bz, nx, ny, nz, uvs[j + 3], uvs[j + 4])
    vert(m, cx, cy, cz, nx, ny, nz, uvs[j + 5], uvs[j + 6])
    tri(m, i0, i0 + 1, i0 + 2)
  end
end

----------------------------------------------------------------------------------------------------
-- Box and Plane
----------------------------------------------------------------------------------------------------
-- One face of a box: a grid over axes u and v (1 x, 2 y, 3 z) at distance depth/2 along axis w, the grid's
-- first row at the top (v = height/2 * vdir), UV (0, 1) at the first vertex.
local function box_face(m, u, v, w, udir, vdir, width, height, depth, gx, gy, material)
  local start = #m.idx
  local base = m.nv
  local sw, sh = width / gx, height / gy
  local nw = depth > 0 and 1 or -1
  local q = {0, 0, 0}
  local nq = {0, 0, 0}
  nq[w] = nw
  for iy = 0, gy do
    local y = iy * sh - height / 2
    for ix = 0, gx do
      local x = ix * sw - width / 2
      q[u], q[v], q[w] = x * udir, y * vdir, depth / 2
      vert(m, q[1], q[2], q[3], nq[1], nq[2], nq[3], ix / gx, 1 - iy / gy)
    end
  end
  for iy = 0, gy - 1 do
    for ix = 0, gx - 1 do
      local a = base + ix + (gx + 1) * iy
      local b = base + ix + (gx + 1) * (iy + 1)
      local c = base + ix + 1 + (gx + 1) * (iy + 1)
      local d = base + ix + 1 + (gx + 1) * iy
      tri(m, a, b, d)
      tri(m, b, c, d)
    end
  end
  group(m, start, material)
end
local function box_mesh(fname, w, h, d, ws, hs, ds)
  budget(2 * ((ds + 1) * (hs + 1) + (ws + 1) * (ds + 1) + (ws + 1) * (hs + 1)), fname)
  local m = mesh()
  box_face(m, 3, 2, 1, -1, -1, d, h, w, ds, hs, 0)     -- +X
  box_face(m, 3, 2, 1, 1, -1, d, h, -w, ds, hs, 1)     -- -X
  box_face(m, 1, 3, 2, 1, 1, w, d, h, ws, ds, 2)       -- +Y
  box_face(m, 1, 3, 2, 1, -1, w, d, -h, ws, ds, 3)     -- -Y
  box_face(m, 1, 2, 3, 1, -1, w, h, d, ws, hs, 4)      -- +Z
  box_face(m, 1, 2, 3, -1, -1, w, h, -d, ws, hs, 5)    -- -Z
  return m
end
local function segs(v, default, fname, n, least)
  return mmax(opt_int(v, default, fname, n), least or 1)
end
FUNCTIONS.BoxGeometry = function(width, height, depth, ws, hs, ds)
  local f = "BoxGeometry"
  width, height, depth = opt_num(width, 1, f, 1), opt_num(height, 1, f, 2), opt_num(depth, 1, f, 3)
  ws, hs, ds = segs(ws, 1, f, 4), segs(hs, 1, f, 5), segs(ds, 1, f, 6)
  return finish(box_mesh(f, width, height, depth, ws, hs, ds), true)
end

FUNCTIONS.PlaneGeometry = function(width, height, ws, hs)
  local f = "PlaneGeometry"
  width, height = opt_num(width, 1, f, 1), opt_num(height, 1, f, 2)
  ws, hs = segs(ws, 1, f, 3), segs(hs, 1, f, 4)
  budget((ws + 1) * (hs + 1), f)
  local m = mesh()
  for iy = 0, hs do
    local y = iy * height / hs - height / 2
    for ix = 0, ws do
      vert(m, ix * width / ws - width / 2, -y, 0, 0, 0, 1, ix / ws, 1 - iy / hs)
    end
  end
  for iy = 0, hs - 1 do
    for ix = 0, ws - 1 do
      local a, b = ix + (ws + 1) * iy, ix + (ws + 1) * (iy + 1)
      tri(m, a, b, a + 1)
      tri(m, b, b + 1, a + 1)
    end
  end
  return finish(m, true)
end

----------------------------------------------------------------------------------------------------
-- Sphere
----------------------------------------------------------------------------------------------------
FUNCTIONS.SphereGeometry = function(radius, ws, hs, phi0, phil, theta0, thetal)
  local f = "SphereGeometry"
  radius = opt_num(radius, 1, f, 1)
  ws, hs = segs(ws, 32, f, 2, 3), segs(hs, 16, f, 3, 2)
  phi0, phil = opt_num(phi0, 0, f, 4), opt_num(phil, TAU, f, 5)
  theta0, thetal = opt_num(theta0, 0, f, 6), opt_num(thetal, PI, f, 7)
  budget((ws + 1) * (hs + 1), f)
  local theta_end = mmin(theta0 + thetal, PI)
  local m = mesh()
  for iy = 0, hs do
    local v = iy / hs
    -- the poles' UVs sit half a segment in, as three.js puts them
    local shift = 0
    if iy == 0 and theta0 == 0 then shift = 0.5 / ws
    elseif iy == hs and theta_end == PI then shift = -0.5 / ws end
    local theta = theta0 + v * thetal
    local st, ct = sin(theta), cos(theta)
    for ix = 0, ws do
      local u = ix / ws
      local phi = phi0 + u * phil
      local x, y, z = -radius * cos(phi) * st, radius * ct, radius * sin(phi) * st
      local nx, ny, nz = normalize(x, y, z)
      vert(m, x, y, z, nx, ny, nz, u + shift, 1 - v)
    end
  end
  local row = ws + 1
  for iy = 0, hs - 1 do
    for ix = 0, ws - 1 do
      local a, b = iy * row + ix + 1, iy * row + ix
      local c, d = (iy + 1) * row + ix, (iy + 1) * row + ix + 1
      if iy ~= 0 or theta0 > 0 then tri(m, a, b, d) end
      if iy ~= hs - 1 or theta_end < PI then tri(m, b, c, d) end
    end
  end
  return finish(m, true)
end

----------------------------------------------------------------------------------------------------
-- Cylinder, Cone, Circle, Ring
----------------------------------------------------------------------------------------------------
local function cylinder(f, rtop, rbot, height, rs, hs, open, theta0, thetal)
  local caps = 0
  if not open then
    if rtop > 0 then caps = caps + 1 end
    if rbot > 0 then caps = caps + 1 end
  end
  budget((rs + 1) * (hs + 1) + caps * (2 * rs + 1), f)
  local m = mesh()
  local half = height / 2
  local slope = (rbot - rtop) / height
  -- the side: rows from the top down
  local rows = {}
  for y = 0, hs do
    local v = y / hs
    local r = v * (rbot - rtop) + rtop
    local row = {}
    for x = 0, rs do
      local u = x / rs
      local th = u * thetal + theta0
      local s, c = sin(th), cos(th)
      local nx, ny, nz = normalize(s, slope, c)
      row[x] = vert(m, r * s, -v * height + half, r * c, nx, ny, nz, u, 1 - v)
    end
    rows[y] = row
  end
  for x = 0, rs - 1 do
    for y = 0, hs - 1 do
      local a, b, c, d = rows[y][x], rows[y + 1][x], rows[y + 1][x + 1], rows[y][x + 1]
      if rtop > 0 or y ~= 0 then tri(m, a, b, d) end
      if rbot > 0 or y ~= hs - 1 then tri(m, b, c, d) end
    end
  end
  group(m, 0, 0)
  local function cap(top)
    local start = #m.idx
    local r, sign = top and rtop or rbot, top and 1 or -1
    local centre = m.nv
    for _ = 1, rs do vert(m, 0, half * sign, 0, 0, sign, 0, 0.5, 0.5) end
    local rim = m.nv
    for x = 0, rs do
      local th = x / rs * thetal + theta0
      local s, c = sin(th), cos(th)
      vert(m, r * s, half * sign, r * c, 0, sign, 0, c * 0.5 + 0.5, s * 0.5 * sign + 0.5)
    end
    for x = 0, rs - 1 do
      local i, c = rim + x, centre + x
      if top then tri(m, i, i + 1, c) else tri(m, i + 1, i, c) end
    end
    group(m, start, top and 1 or 2)
  end
  if not open then
    if rtop > 0 then cap(true) end
    if rbot > 0 then cap(false) end
  end
  return finish(m, true)
end
FUNCTIONS.CylinderGeometry = function(rtop, rbot, height, rs, hs, open, theta0, thetal)
  local f = "CylinderGeometry"
  return cylinder(f, opt_num(rtop, 1, f, 1), opt_num(rbot, 1, f, 2), opt_num(height, 1, f, 3), segs(rs, 32, f, 4),
    segs(hs, 1, f, 5), opt_bool(open, false), opt_num(theta0, 0, f, 7), opt_num(thetal, TAU, f, 8))
end
FUNCTIONS.ConeGeometry = function(radius, height, rs, hs, open, theta0, thetal)
  local f = "ConeGeometry"
  return cylinder(f, 0, opt_num(radius, 1, f, 1), opt_num(height, 1, f, 2), segs(rs, 32, f, 3), segs(hs, 1, f, 4),
    opt_bool(open, false), opt_num(theta0, 0, f, 6), opt_num(thetal, TAU, f, 7))
end

FUNCTIONS.CircleGeometry = function(radius, n, theta0, thetal)
  local f = "CircleGeometry"
  radius, n = opt_num(radius, 1, f, 1), segs(n, 32, f, 2, 3)
  theta0, thetal = opt_num(theta0, 0, f, 3), opt_num(thetal, TAU, f, 4)
  budget(n + 2, f)
  local m = mesh()
  vert(m, 0, 0, 0, 0, 0, 1, 0.5, 0.5)
  for s = 0, n do
    local th = theta0 + s / n * thetal
    local c, si = cos(th), sin(th)
    vert(m, radius * c, radius * si, 0, 0, 0, 1, (c + 1) / 2, (si + 1) / 2)
  end
  for i = 1, n do tri(m, i, i + 1, 0) end
  return finish(m, true)
end

FUNCTIONS.RingGeometry = function(inner, outer, ts, ps, theta0, thetal)
  local f = "RingGeometry"
  inner, outer = opt_num(inner, 0.5, f, 1), opt_num(outer, 1, f, 2)
  ts, ps = segs(ts, 32, f, 3, 3), segs(ps, 1, f, 4, 1)
  theta0, thetal = opt_num(theta0, 0, f, 5), opt_num(thetal, TAU, f, 6)
  budget((ts + 1) * (ps + 1), f)
  local m = mesh()
  local step = (outer - inner) / ps
  for j = 0, ps do
    local r = inner + j * step
    for i = 0, ts do
      local th = theta0 + i / ts * thetal
      local x, y = r * cos(th), r * sin(th)
      vert(m, x, y, 0, 0, 0, 1, (x / outer + 1) / 2, (y / outer + 1) / 2)
    end
  end
  for j = 0, ps - 1 do
    for i = 0, ts - 1 do
      local a = j * (ts + 1) + i
      local b, c, d = a + ts + 1, a + ts + 2, a + 1
      tri(m, a, b, d)
      tri(m, b, c, d)
    end
  end
  return finish(m, true)
end

----------------------------------------------------------------------------------------------------
-- Torus and TorusKnot
----------------------------------------------------------------------------------------------------
-- Rings of (ns + 1) vertices, (nr + 1) of them, quads between neighbours: index layout shared by the tubes.
local function tube_faces(m, nrings, nseg)
  for j = 1, nrings do
    for i = 1, nseg do
      local a = (nseg + 1) * (j - 1) + i - 1
      local b = (nseg + 1) * j + i - 1
      tri(m, a, b, a + 1)
      tri(m, b, b + 1, a + 1)
    end
  end
end
FUNCTIONS.TorusGeometry = function(radius, tube, rs, ts, arc)
  local f = "TorusGeometry"
  radius, tube = opt_num(radius, 1, f, 1), opt_num(tube, 0.4, f, 2)
  rs, ts, arc = segs(rs, 12, f, 3), segs(ts, 48, f, 4), opt_num(arc, TAU, f, 5)
  budget((rs + 1) * (ts + 1), f)
  local m = mesh()
  for j = 0, rs do
    local v = j / rs * TAU
    for i = 0, ts do
      local u = i / ts * arc
      local cu, su = cos(u), sin(u)
      local x, y, z = (radius + tube * cos(v)) * cu, (radius + tube * cos(v)) * su, tube * sin(v)
      local nx, ny, nz = normalize(x - radius * cu, y - radius * su, z)
      vert(m, x, y, z, nx, ny, nz, i / ts, j / rs)
    end
  end
  -- ring j of the torus holds the tubular positions: the same quads as a tube's with the roles swapped
  for j = 1, rs do
    for i = 1, ts do
      local a = (ts + 1) * j + i - 1
      local b = (ts + 1) * (j - 1) + i - 1
      tri(m, a, b, a + 1)
      tri(m, b, b + 1, a + 1)
    end
  end
  return finish(m, true)
end

FUNCTIONS.TorusKnotGeometry = function(radius, tube, ts, rs, p, q)
  local f = "TorusKnotGeometry"
  radius, tube = opt_num(radius, 1, f, 1), opt_num(tube, 0.4, f, 2)
  ts, rs = segs(ts, 64, f, 3), segs(rs, 8, f, 4)
  p, q = opt_num(p, 2, f, 5), opt_num(q, 3, f, 6)
  budget((ts + 1) * (rs + 1), f)
  local function knot(u)
    local quo = q / p * u
    local cs = cos(quo)
    return radius * (2 + cs) * 0.5 * cos(u), radius * (2 + cs) * sin(u) * 0.5, radius * sin(quo) * 0.5
  end
  local m = mesh()
  for i = 0, ts do
    local u = i / ts * p * TAU
    local ax, ay, az = knot(u)
    local bx, by, bz = knot(u + 0.01)
    local tx, ty, tz = bx - ax, by - ay, bz - az
    local nx, ny, nz = bx + ax, by + ay, bz + az
    local cx, cy, cz = cross(tx, ty, tz, nx, ny, nz)
    nx, ny, nz = cross(cx, cy, cz, tx, ty, tz)
    cx, cy, cz = normalize(cx, cy, cz)
    nx, ny, nz = normalize(nx, ny, nz)
    for j = 0, rs do
      local v = j / rs * TAU
      local px, py = -tube * cos(v), tube * sin(v)
      local x, y, z = ax + px * nx + py * cx, ay + px * ny + py * cy, az + px * nz + py * cz
      local ox, oy, oz = normalize(x - ax, y - ay, z - az)
      vert(m, x, y, z, ox, oy, oz, i / ts, j / rs)
    end
  end
  tube_faces(m, ts, rs)
  return finish(m, true)
end

----------------------------------------------------------------------------------------------------
-- Capsule and Lathe
----------------------------------------------------------------------------------------------------
FUNCTIONS.CapsuleGeometry = function(radius, height, cs, rs, hs)
  local f = "CapsuleGeometry"
  radius, height = opt_num(radius, 1, f, 1), opt_num(height, 1, f, 2)
  cs, rs, hs = segs(cs, 4, f, 3), segs(rs, 8, f, 4), segs(hs, 1, f, 5)
  local nrows = 2 * cs + hs
  budget((nrows + 1) * (rs + 1), f)
  local half = height / 2
  local cap_arc = PI / 2 * radius
  local total = 2 * cap_arc + height
  local m = mesh()
  for iy = 0, nrows do
    local y, r, ny, arc
    if iy <= cs then                       -- the bottom cap, from its pole up
      local a = iy / cs * PI / 2
      y, r, ny, arc = -half - radius * cos(a), radius * sin(a), -radius * cos(a), iy / cs * cap_arc
    elseif iy <= cs + hs then              -- the straight part
      local t = (iy - cs) / hs
      y, r, ny, arc = -half + t * height, radius, 0, cap_arc + t * height
    else                                   -- the top cap, up to its pole
      local t = (iy - cs - hs) / cs
      local a = t * PI / 2
      y, r, ny, arc = half + radius * sin(a), radius * cos(a), radius * sin(a), cap_arc + height + t * cap_arc
    end
    local v = mmax(0, mmin(1, arc / total))
    local shift = 0
    if iy == 0 then shift = 0.5 / rs elseif iy == nrows then shift = -0.5 / rs end
    for ix = 0, rs do
      local u = ix / rs
      local th = u * TAU
      local x, z = -r * cos(th), r * sin(th)
      local nx, nyy, nz = normalize(x, ny, z)
      vert(m, x, y, z, nx, nyy, nz, u + shift, v)
    end
    if iy > 0 then
      local prev, cur = (iy - 1) * (rs + 1), iy * (rs + 1)
      for ix = 0, rs - 1 do
        tri(m, prev + ix, prev + ix + 1, cur + ix)
        tri(m, prev + ix + 1, cur + ix + 1, cur + ix)
      end
    end
  end
  return finish(m, true)
end

local DEFAULT_LATHE = {{0, -0.5}, {0.5, 0}, {0, 0.5}}
FUNCTIONS.LatheGeometry = function(points, n, phi0, phil)
  local f = "LatheGeometry"
  local pts = points == nil and DEFAULT_LATHE or vec2_list(points, f, 1)
  n = segs(n, 12, f, 2)
  phi0, phil = opt_num(phi0, 0, f, 3), mmax(0, mmin(TAU, opt_num(phil, TAU, f, 4)))
  local np = #pts
  if np < 2 then
    E.log("WARNING", "LatheGeometry: fewer than two profile points: the mesh is empty")
    return finish(mesh(), true)
  end
  budget((n + 1) * np, f)
  -- each profile point's normal in the profile plane: the segment normals around it averaged (the ends take their
  -- one segment's)
  local pn = {}
  local prevx, prevy
  for j = 1, np do
    if j < np then
      local dx, dy = pts[j + 1][1] - pts[j][1], pts[j + 1][2] - pts[j][2]
      local sx, sy = dy, -dx
      if j == 1 then pn[j] = {normalize(sx, sy, 0)}
      else pn[j] = {normalize(sx + prevx, sy + prevy, 0)} end
      prevx, prevy = sx, sy
    else
      pn[j] = {normalize(prevx, prevy, 0)}
    end
  end
  local m = mesh()
  for i = 0, n do
    local phi = phi0 + i / n * phil
    local s, c = sin(phi), cos(phi)
    for j = 1, np do
      local px, py = pts[j][1], pts[j][2]
      vert(m, px * s, py, px * c, pn[j][1] * s, pn[j][2], pn[j][1] * c, i / n, (j - 1) / (np - 1))
    end
  end
  for i = 0, n - 1 do
    for j = 0, np - 2 do
      local a = j + i * np
      local b, c, d = a + np, a + np + 1, a + 1
      tri(m, a, b, d)
      tri(m, c, d, b)
    end
  end
  return finish(m, true)
end

----------------------------------------------------------------------------------------------------
-- Polyhedra: faces subdivided `detail` times, every vertex pushed out to the radius, UVs from the direction
-- (longitude from the -X axis through +Z, latitude from the south pole), flat normals without subdivision and
-- smooth (the direction) with it.
----------------------------------------------------------------------------------------------------
local function azimuth(x, _, z) return atan(z, -x) end
local function inclination(x, y, z) return atan(-y, sqrt(x * x + z * z)) end
local function polyhedron(f, verts, faces, radius, detail, mirror)
  local nfaces = #faces // 3
  budget(nfaces * 3 * (detail + 1) ^ 2, f)
  local nverts = #verts // 3
  for k = 1, nfaces * 3 do
    local i = faces[k]
    if i ~= mfloor(i) or i < 0 or i >= nverts then
      E.raise_at_game(sformat("bad argument #2 to '%s' (index %d is not a vertex: %s)", f, k, i))
    end
  end
  local tris = {}
  local function push(q) tris[#tris + 1], tris[#tris + 2], tris[#tris + 3] = q[1], q[2], q[3] end
  local function lerp(a, b, t) return {a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t, a[3] + (b[3] - a[3]) * t} end
  local function at(i) return {verts[3 * i + 1], verts[3 * i + 2], verts[3 * i + 3]} end
  local cols = detail + 1
  for k = 1, nfaces * 3, 3 do
    local a, b, c = at(mfloor(faces[k])), at(mfloor(faces[k + 1])), at(mfloor(faces[k + 2]))
    local grid = {}
    for i = 0, cols do
      local aj, bj = lerp(a, c, i / cols), lerp(b, c, i / cols)
      local rows = cols - i
      local line = {}
      for j = 0, rows do
        if j == 0 and i == cols then line[j] = aj else line[j] = lerp(aj, bj, j / rows) end
      end
      grid[i] = line
    end
    for i = 0, cols - 1 do
      for j = 0, 2 * (cols - i) - 2 do
        local q = j // 2
        if j % 2 == 0 then push(grid[i][q + 1]); push(grid[i + 1][q]); push(grid[i][q])
        else push(grid[i][q + 1]); push(grid[i + 1][q + 1]); push(grid[i + 1][q]) end
      end
    end
  end
  for k = 1, #tris, 3 do
    local x, y, z = normalize(tris[k], tris[k + 1], tris[k + 2])
    tris[k], tris[k + 1], tris[k + 2] = x * radius, y * radius, z * radius
  end
  local uvs = {}
  for k = 1, #tris, 3 do
    local x, y, z = tris[k], tris[k + 1], tris[k + 2]
    uvs[#uvs + 1] = azimuth(x, y, z) / TAU + 0.5
    uvs[#uvs + 1] = 1 - (inclination(x, y, z) / PI + 0.5)
  end
  -- per triangle: a corner at u = 1 on the triangle's negative-longitude side wraps to 0; a pole corner takes the
  -- triangle's longitude; a triangle across the seam moves its corners near 0 over to the far side
  for k = 1, #tris, 9 do
    local j = (k - 1) // 9 * 6
    local cx = (tris[k] + tris[k + 3] + tris[k + 6]) / 3
    local cy = (tris[k + 1] + tris[k + 4] + tris[k + 7]) / 3
    local cz = (tris[k + 2] + tris[k + 5] + tris[k + 8]) / 3
    local azi = azimuth(cx, cy, cz)
    for corner = 0, 2 do
      local s = j + 2 * corner + 1
      if azi < 0 and uvs[s] == 1 then uvs[s] = uvs[s] - 1 end
      if tris[k + 3 * corner] == 0 and tris[k + 3 * corner + 2] == 0 then uvs[s] = azi / TAU + 0.5 end
    end
  end
  for j = 1, #uvs, 6 do
    local x0, x1, x2 = uvs[j], uvs[j + 2], uvs[j + 4]
    if mmax(x0, x1, x2) > 0.9 and mmin(x0, x1, x2) < 0.1 then
      if x0 < 0.2 then uvs[j] = x0 + 1 end
      if x1 < 0.2 then uvs[j + 2] = x1 + 1 end
      if x2 < 0.2 then uvs[j + 4] = x2 + 1 end
    end
  end
  local m = mesh()
  soup(m, tris, uvs)
  if detail > 0 then
    local p, nm = m.p, m.n
    for k = 1, #p, 3 do nm[k], nm[k + 1], nm[k + 2] = normalize(p[k], p[k + 1], p[k + 2]) end
  end
  return finish(m, mirror)
end
local function solid(name, verts, faces)
  FUNCTIONS[name] = function(radius, detail)
    radius, detail = opt_num(radius, 1, name, 1), mmax(opt_int(detail, 0, name, 2), 0)
    return polyhedron(name, verts, faces, radius, detail, true)
  end
end
local GOLD = (1 + sqrt(5)) / 2
local INV = 1 / GOLD
solid("TetrahedronGeometry", {1, 1, 1, -1, -1, 1, -1, 1, -1, 1, -1, -1}, {2, 1, 0, 0, 3, 2, 1, 3, 0, 2, 3, 1})
solid("OctahedronGeometry", {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1},
  {0, 2, 4, 0, 4, 3, 0, 3, 5, 0, 5, 2, 1, 2, 5, 1, 5, 3, 1, 3, 4, 1, 4, 2})
solid("IcosahedronGeometry", {-1, GOLD, 0, 1, GOLD, 0, -1, -GOLD, 0, 1, -GOLD, 0, 0, -1, GOLD, 0, 1, GOLD,
  0, -1, -GOLD, 0, 1, -GOLD, GOLD, 0, -1, GOLD, 0, 1, -GOLD, 0, -1, -GOLD, 0, 1},
  {0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8,
   3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1})
-- the cube's corners, then the three golden rectangles' corners; each pentagon is three triangles
solid("DodecahedronGeometry", {-1, -1, -1, -1, -1, 1, -1, 1, -1, -1, 1, 1, 1, -1, -1, 1, -1, 1, 1, 1, -1, 1, 1, 1,
  0, -INV, -GOLD, 0, -INV, GOLD, 0, INV, -GOLD, 0, INV, GOLD, -INV, -GOLD, 0, -INV, GOLD, 0, INV, -GOLD, 0,
  INV, GOLD, 0, -GOLD, 0, -INV, GOLD, 0, -INV, -GOLD, 0, INV, GOLD, 0, INV},
  {3, 11, 7, 3, 7, 15, 3, 15, 13, 7, 19, 17, 7, 17, 6, 7, 6, 15, 17, 4, 8, 17, 8, 10, 17, 10, 6,
   8, 0, 16, 8, 16, 2, 8, 2, 10, 0, 12, 1, 0, 1, 18, 0, 18, 16, 6, 10, 2, 6, 2, 13, 6, 13, 15,
   2, 16, 18, 2, 18, 3, 2, 3, 13, 18, 1, 9, 18, 9, 11, 18, 11, 3, 4, 14, 12, 4, 12, 0, 4, 0, 8,
   11, 9, 5, 11, 5, 19, 11, 19, 7, 19, 5, 14, 19, 14, 4, 19, 4, 17, 1, 12, 14, 1, 14, 5, 1, 5, 9})
FUNCTIONS.PolyhedronGeometry = function(vertices, indices, radius, detail)
  local f = "PolyhedronGeometry"
  for n, t in ipairs({vertices, indices}) do
    if type(t) ~= "table" then
      E.raise_at_game(sformat("bad argument #%d to '%s' (table of numbers expected, got %s)", n, f, type(t)))
    end
    if #t > 3 * MAX_POINTS then
      E.raise_at_game(sformat("%s: too many numbers (%d, at most %d)", f, #t, 3 * MAX_POINTS))
    end
    for k = 1, #t do
      if type(t[k]) ~= "number" then
        E.raise_at_game(sformat("bad argument #%d to '%s' (entry %d is not a number)", n, f, k))
      end
    end
  end
  radius, detail = opt_num(radius, 1, f, 3), mmax(opt_int(detail, 0, f, 4), 0)
  return polyhedron(f, vertices, indices, radius, detail, false)
end

----------------------------------------------------------------------------------------------------
-- Tube along a centripetal Catmull-Rom curve through the points (three.js's CatmullRomCurve3 default), its rings
-- placed at equal arc length, oriented by parallel-transported frames.
----------------------------------------------------------------------------------------------------
local ARC_DIVISIONS = 200
local function catmull_rom(pts, closed)
  local l = #pts
  local function point(t)
    local p = (l - (closed and 0 or 1)) * t
    local ip = mfloor(p)
    local w = p - ip
    if closed then
      if ip <= 0 then ip = ip + (mfloor(abs(ip) / l) + 1) * l end
    elseif w == 0 and ip == l - 1 then
      ip, w = l - 2, 1
    end
    local p1, p2 = pts[ip % l + 1], pts[(ip + 1) % l + 1]
    local p0, p3
    if closed or ip > 0 then p0 = pts[(ip - 1) % l + 1]
    else p0 = {2 * pts[1][1] - pts[2][1], 2 * pts[1][2] - pts[2][2], 2 * pts[1][3] - pts[2][3]} end
    if closed or ip + 2 < l then p3 = pts[(ip + 2) % l + 1]
    else p3 = {2 * pts[l][1] - pts[l - 1][1], 2 * pts[l][2] - pts[l - 1][2], 2 * pts[l][3] - pts[l - 1][3]} end
    local function d2(a, b) return (a[1] - b[1]) ^ 2 + (a[2] - b[2]) ^ 2 + (a[3] - b[3]) ^ 2 end
    local dt0, dt1, dt2 = d2(p0, p1) ^ 0.25, d2(p1, p2) ^ 0.25, d2(p2, p3) ^ 0.25
    if dt1 < 1e-4 then dt1 = 1.0 end
    if dt0 < 1e-4 then dt0 = dt1 end
    if dt2 < 1e-4 then dt2 = dt1 end
    local out = {}
    for c = 1, 3 do
      local x0, x1, x2, x3 = p0[c], p1[c], p2[c], p3[c]
      local t1 = ((x1 - x0) / dt0 - (x2 - x0) / (dt0 + dt1) + (x2 - x1) / dt1) * dt1
      local t2 = ((x2 - x1) / dt1 - (x3 - x1) / (dt1 + dt2) + (x3 - x2) / dt2) * dt1
      local c2 = -3 * x1 + 3 * x2 - 2 * t1 - t2
      local c3 = 2 * x1 - 2 * x2 + t1 + t2
      out[c] = x1 + w * (t1 + w * (c2 + w * c3))
    end
    return out
  end
  -- arc length: the curve sampled at ARC_DIVISIONS + 1 points
  local lengths, prev = {[0] = 0}, point(0)
  for i = 1, ARC_DIVISIONS do
    local q = point(i / ARC_DIVISIONS)
    lengths[i] = lengths[i - 1] + sqrt((q[1] - prev[1]) ^ 2 + (q[2] - prev[2]) ^ 2 + (q[3] - prev[3]) ^ 2)
    prev = q
  end
  local function u_to_t(u)
    local target = u * lengths[ARC_DIVISIONS]
    local lo, hi = 0, ARC_DIVISIONS
    while lo <= hi do
      local i = mfloor(lo + (hi - lo) / 2)
      local c = lengths[i] - target
      if c < 0 then lo = i + 1 elseif c > 0 then hi = i - 1 else hi = i; break end
    end
    local i = hi
    if lengths[i] == target then return i / ARC_DIVISIONS end
    local before, after = lengths[i], lengths[i + 1]
    return (i + (target - before) / (after - before)) / ARC_DIVISIONS
  end
  local function tangent(t)
    local t1, t2 = mmax(t - 0.0001, 0), mmin(t + 0.0001, 1)
    local a, b = point(t1), point(t2)
    return {normalize(b[1] - a[1], b[2] - a[2], b[3] - a[3])}
  end
  return {point_at = function(u) return point(u_to_t(u)) end, tangent_at = function(u) return tangent(u_to_t(u)) end}
end
-- Rodrigues' rotation of v about the unit axis k by angle a
local function rotate(v, k, a)
  local c, s = cos(a), sin(a)
  local kx, ky, kz = k[1], k[2], k[3]
  local cx, cy, cz = cross(kx, ky, kz, v[1], v[2], v[3])
  local d = (kx * v[1] + ky * v[2] + kz * v[3]) * (1 - c)
  return {v[1] * c + cx * s + kx * d, v[2] * c + cy * s + ky * d, v[3] * c + cz * s + kz * d}
end
local function frames(curve, n, closed)
  local T, N, B = {}, {}, {}
  for i = 0, n do T[i] = curve.tangent_at(i / n) end
  local t0 = T[0]
  local ax, ay, az = abs(t0[1]), abs(t0[2]), abs(t0[3])
  local least, seed = math.huge, nil
  if ax <= least then least, seed = ax, {1, 0, 0} end
  if ay <= least then least, seed = ay, {0, 1, 0} end
  if az <= least then seed = {0, 0, 1} end
  local vx, vy, vz = normalize(cross(t0[1], t0[2], t0[3], seed[1], seed[2], seed[3]))
  N[0] = {cross(t0[1], t0[2], t0[3], vx, vy, vz)}
  B[0] = {cross(t0[1], t0[2], t0[3], N[0][1], N[0][2], N[0][3])}
  for i = 1, n do
    local a, b = T[i - 1], T[i]
    local nrm = N[i - 1]
    local cx, cy, cz = cross(a[1], a[2], a[3], b[1], b[2], b[3])
    if sqrt(cx * cx + cy * cy + cz * cz) > 2.220446049250313e-16 then
      local axis = {normalize(cx, cy, cz)}
      local dot = mmax(-1, mmin(1, a[1] * b[1] + a[2] * b[2] + a[3] * b[3]))
      nrm = rotate(nrm, axis, acos(dot))
    end
    N[i] = {nrm[1], nrm[2], nrm[3]}
    B[i] = {cross(b[1], b[2], b[3], nrm[1], nrm[2], nrm[3])}
  end
  if closed then
    local n0, nn = N[0], N[n]
    local theta = acos(mmax(-1, mmin(1, n0[1] * nn[1] + n0[2] * nn[2] + n0[3] * nn[3]))) / n
    local cx, cy, cz = cross(n0[1], n0[2], n0[3], nn[1], nn[2], nn[3])
    if t0[1] * cx + t0[2] * cy + t0[3] * cz > 0 then theta = -theta end
    for i = 1, n do
      N[i] = rotate(N[i], T[i], theta * i)
      B[i] = {cross(T[i][1], T[i][2], T[i][3], N[i][1], N[i][2], N[i][3])}
    end
  end
  return N, B
end
FUNCTIONS.TubeGeometry = function(points, ts, radius, rs, closed)
  local f = "TubeGeometry"
  local pts = vec3_list(points, f, 1)
  ts, radius, rs = segs(ts, 64, f, 2), opt_num(radius, 1, f, 3), segs(rs, 8, f, 4)
  closed = opt_bool(closed, false)
  if #pts < 2 then
    E.log("WARNING", "TubeGeometry: fewer than two path points: the mesh is empty")
    return finish(mesh(), false)
  end
  budget((ts + 1) * (rs + 1), f)
  local curve = catmull_rom(pts, closed)
  local N, B = frames(curve, ts, closed)
  local m = mesh()
  for i = 0, ts do
    local k = (i == ts and closed) and 0 or i
    local c = curve.point_at(k / ts)
    local n, b = N[k], B[k]
    for j = 0, rs do
      local v = j / rs * TAU
      local s, co = sin(v), -cos(v)
      local nx, ny, nz = normalize(co * n[1] + s * b[1], co * n[2] + s * b[2], co * n[3] + s * b[3])
      vert(m, c[1] + radius * nx, c[2] + radius * ny, c[3] + radius * nz, nx, ny, nz, i / ts, j / rs)
    end
  end
  tube_faces(m, ts, rs)
  return finish(m, false)
end

----------------------------------------------------------------------------------------------------
-- Shape and Extrude: a 2D contour (either winding; a last point equal to the first is dropped), cut into
-- triangles by ear clipping (points on a straight line between their neighbours make no triangle of their own).
----------------------------------------------------------------------------------------------------
local function signed_area(pts)
  local a = 0
  for i = 1, #pts do
    local p, q = pts[i], pts[i % #pts + 1]
    a = a + p[1] * q[2] - q[1] * p[2]
  end
  return a / 2
end
local function contour_of(points, f)
  local pts = vec2_list(points, f, 1)
  local n = #pts
  if n > MAX_CONTOUR then E.raise_at_game(sformat("%s: too many points (%d, at most %d)", f, n, MAX_CONTOUR)) end
  if n > 1 and pts[1][1] == pts[n][1] and pts[1][2] == pts[n][2] then pts[n] = nil end
  return pts
end
-- Triangles (0-based index triples, counter-clockwise seen from +Z) over a contour given counter-clockwise.
local function triangulate(pts)
  local ring = {}
  for i = 1, #pts do ring[i] = i end
  local out = {}
  local function area(a, b, c)
    local p, q, r = pts[a], pts[b], pts[c]
    return (q[1] - p[1]) * (r[2] - p[2]) - (q[2] - p[2]) * (r[1] - p[1])
  end
  local function inside(p, a, b, c)
    local x, y = pts[p][1], pts[p][2]
    local function side(u, v)
      return (pts[v][1] - pts[u][1]) * (y - pts[u][2]) - (pts[v][2] - pts[u][2]) * (x - pts[u][1])
    end
    return side(a, b) >= 0 and side(b, c) >= 0 and side(c, a) >= 0
  end
  local i, stall = 1, 0
  while #ring > 2 do
    local n = #ring
    local a, b, c = ring[(i - 2) % n + 1], ring[(i - 1) % n + 1], ring[i % n + 1]
    local ar = area(a, b, c)
    local clip, emit = false, true
    if ar == 0 then
      clip, emit = true, false   -- b lies on the line through its neighbours (or on one of them)
    elseif ar > 0 then
      clip = true
      for k = 1, n do
        local p = ring[k]
        if p ~= a and p ~= b and p ~= c and inside(p, a, b, c) and not (pts[p][1] == pts[b][1] and
          pts[p][2] == pts[b][2]) then
          clip = false
          break
        end
      end
    end
    if not clip and stall >= n then clip = true end   -- no ear left (a self-crossing contour): cut anyway
    if clip then
      if emit then out[#out + 1] = {a - 1, b - 1, c - 1} end
      table.remove(ring, (i - 1) % n + 1)
      stall = 0
      i = (i - 2) % (n - 1) + 1
    else
      stall = stall + 1
      i = i % n + 1
    end
  end
  return out
end
-- the contour counter-clockwise and its triangles, or nil when it has fewer than three points
local function shape_of(points, f)
  local pts = contour_of(points, f)
  if #pts < 3 then
    E.log("WARNING", f .. ": fewer than three contour points: the mesh is empty")
    return nil
  end
  if signed_area(pts) < 0 then
    local rev = {}
    for i = #pts, 1, -1 do rev[#rev + 1] = pts[i] end
    pts = rev
  end
  return pts, triangulate(pts)
end
FUNCTIONS.ShapeGeometry = function(contour)
  local f = "ShapeGeometry"
  local pts, tris = shape_of(contour, f)
  local m = mesh()
  if pts == nil then return finish(m, false) end
  for _, p in ipairs(pts) do vert(m, p[1], p[2], 0, 0, 0, 1, p[1], p[2]) end
  for _, t in ipairs(tris) do tri(m, t[1], t[2], t[3]) end
  return finish(m, false)
end
FUNCTIONS.ExtrudeGeometry = function(contour, depth)
  local f = "ExtrudeGeometry"
  depth = opt_num(depth, 1, f, 2)
  local pts, faces = shape_of(contour, f)
  local m = mesh()
  if pts == nil then return finish(m, false) end
  local n = #pts
  local flip = depth < 0   -- the solid lies below z = 0: every face turns the other way to stay outward
  local corners, uvs = {}, {}
  local function put(x, y, z, u, v)
    corners[#corners + 1], corners[#corners + 2], corners[#corners + 3] = x, y, z
    uvs[#uvs + 1], uvs[#uvs + 2] = u, v
  end
  local function face(a, b, c)
    if flip then b, c = c, b end
    put(a[1], a[2], a[3], a[4], a[5]); put(b[1], b[2], b[3], b[4], b[5]); put(c[1], c[2], c[3], c[4], c[5])
  end
  local function lid(i, z) local p = pts[i + 1]; return {p[1], p[2], z, p[1], p[2]} end
  for _, t in ipairs(faces) do face(lid(t[3], 0), lid(t[2], 0), lid(t[1], 0)) end      -- back lid, facing -Z
  for _, t in ipairs(faces) do face(lid(t[1], depth), lid(t[2], depth), lid(t[3], depth)) end   -- front lid, +Z
  local lids = #corners // 3
  -- the walls: each edge of the counter-clockwise contour a quad facing outward; UVs as three.js's side walls
  -- (the edge's X, or Y when it runs more along Y, as U; 1 - z as V)
  for i = 1, n do
    local p, q = pts[i], pts[i % n + 1]
    local along_x = abs(p[2] - q[2]) < abs(p[1] - q[1])
    local pu, qu = along_x and p[1] or p[2], along_x and q[1] or q[2]
    local a, b = {p[1], p[2], 0, pu, 1}, {q[1], q[2], 0, qu, 1}
    local c, d = {q[1], q[2], depth, qu, 1 - depth}, {p[1], p[2], depth, pu, 1 - depth}
    face(a, b, d)
    face(b, c, d)
  end
  soup(m, corners, uvs)
  m.groups = {{0, lids, 0}, {lids, #m.idx - lids, 1}}
  return finish(m, false)
end

----------------------------------------------------------------------------------------------------
-- RoundedBox (three.js's addon): a box of 2 * segments + 1 segments a side whose vertices are pulled onto a
-- rounded shell of the radius (at most half the shortest side), flat-listed, one group per face.
----------------------------------------------------------------------------------------------------
local function sign(x) if x > 0 then return 1 elseif x < 0 then return -1 end return 0 end
local function angle_to(ax, ay, az, bx, by, bz)
  local d = sqrt((ax * ax + ay * ay + az * az) * (bx * bx + by * by + bz * bz))
  if d == 0 then return PI / 2 end
  return acos(mmax(-1, mmin(1, (ax * bx + ay * by + az * bz) / d)))
end
-- the UV along one axis of a face: the arc part of the corner, then the flat middle, then the far arc
local function arc_uv(dir, nrm, uv_axis, projection_axis, radius, side)
  local arc_len = TAU * radius / 4
  local centre = mmax(side - 2 * radius, 0)
  local t = {nrm[1], nrm[2], nrm[3]}
  t[projection_axis] = 0
  t = {normalize(t[1], t[2], t[3])}
  local arc_ratio = 0.5 * arc_len / (arc_len + centre)
  local angle_ratio = 1.0 - angle_to(t[1], t[2], t[3], dir[1], dir[2], dir[3]) / (PI / 4)
  if sign(t[uv_axis]) == 1 then return angle_ratio * arc_ratio end
  return centre / (arc_len + centre) + arc_ratio + arc_ratio * (1.0 - angle_ratio)
end
local X, Y, Z = 1, 2, 3
local FACE_UV = {   -- per box face: its direction, then (flip?, uv axis, projection axis, side) for U and for V
  {{1, 0, 0}, {false, Z, Y, "d"}, {true, Y, Z, "h"}},
  {{-1, 0, 0}, {true, Z, Y, "d"}, {true, Y, Z, "h"}},
  {{0, 1, 0}, {true, X, Z, "w"}, {false, Z, X, "d"}},
  {{0, -1, 0}, {true, X, Z, "w"}, {true, Z, X, "d"}},
  {{0, 0, 1}, {true, X, Y, "w"}, {true, Y, X, "h"}},
  {{0, 0, -1}, {false, X, Y, "w"}, {true, Y, X, "h"}},
}
FUNCTIONS.RoundedBoxGeometry = function(width, height, depth, n, radius)
  local f = "RoundedBoxGeometry"
  width, height, depth = opt_num(width, 1, f, 1), opt_num(height, 1, f, 2), opt_num(depth, 1, f, 3)
  n, radius = mmax(opt_int(n, 2, f, 4), 0) * 2 + 1, opt_num(radius, 0.1, f, 5)
  radius = mmin(width / 2, height / 2, depth / 2, radius)
  budget(36 * n * n, f)
  local unit = box_mesh(f, 1, 1, 1, n, n, n)
  if n == 1 then
    local m = box_mesh(f, width, height, depth, 1, 1, 1)
    return finish(m, true)
  end
  local sides = {w = width, h = height, d = depth}
  local bx, by, bz = width / 2 - radius, height / 2 - radius, depth / 2 - radius
  local half_seg = 0.5 / n
  local m = mesh()
  local per_face = #unit.idx // 6
  for k, i in ipairs(unit.idx) do
    local x, y, z = unit.p[3 * i + 1], unit.p[3 * i + 2], unit.p[3 * i + 3]
    local nx, ny, nz = normalize(x - sign(x) * half_seg, y - sign(y) * half_seg, z - sign(z) * half_seg)
    local fu = FACE_UV[(k - 1) // per_face + 1]
    local nrm = {nx, ny, nz}
    local uu, vv = fu[2], fu[3]
    local u = arc_uv(fu[1], nrm, uu[2], uu[3], radius, sides[uu[4]])
    local v = arc_uv(fu[1], nrm, vv[2], vv[3], radius, sides[vv[4]])
    if uu[1] then u = 1.0 - u end
    if vv[1] then v = 1.0 - v end
    vert(m, bx * sign(x) + nx * radius, by * sign(y) + ny * radius, bz * sign(z) + nz * radius, nx, ny, nz, u, v)
  end
  for k = 0, m.nv - 1, 3 do tri(m, k, k + 1, k + 2) end
  for g, grp in ipairs(unit.groups) do m.groups[g] = {grp[1], grp[2], grp[3]} end
  return finish(m, true)
end

----------------------------------------------------------------------------------------------------
-- LoftGeometry (UrhoX's addon, not three.js's): a skin through cross-sections, each a list of Vector3 of one length,
-- joined in order; with closedSections (the default) each section's last point joins its first. The coordinates are
-- the game's, used as given. Faces wind outward (away from the sections' centroids, decided once for the whole skin);
-- normals average the adjacent faces'; u runs along a section, v along the loft; no caps (none is documented).
----------------------------------------------------------------------------------------------------
FUNCTIONS.LoftGeometry = function(sections, closed)
  local f = "LoftGeometry"
  table_arg(sections, f, 1, "sections")
  closed = opt_bool(closed, true)
  local secs = {}
  for i, s in ipairs(sections) do
    secs[i] = vec3_list(s, f, 1)
    if #secs[i] ~= #secs[1] then
      E.raise_at_game(sformat("%s: section %d has %d points, section 1 has %d (sections must match)", f, i,
        #secs[i], #secs[1]))
    end
  end
  local ns, np = #secs, secs[1] and #secs[1] or 0
  if ns < 2 or np < 2 then
    E.log("WARNING", "LoftGeometry: fewer than two sections of two points: the mesh is empty")
    return finish(mesh(), false)
  end
  local cols = closed and np + 1 or np   -- a closed section repeats its first point for the UV seam
  budget(ns * cols, f)
  local spans = closed and np or np - 1
  local function point(i, j) return secs[i][(j - 1) % np + 1] end
  -- each quad's (unnormalized) normal for the winding a, b, c: a = (i, j), b = (i, j + 1), c = (i + 1, j + 1)
  local normals, outward = {}, 0.0
  for i = 1, ns - 1 do
    local ci = {0.0, 0.0, 0.0}
    for _, sec in ipairs({secs[i], secs[i + 1]}) do
      for _, q in ipairs(sec) do ci[1], ci[2], ci[3] = ci[1] + q[1], ci[2] + q[2], ci[3] + q[3] end
    end
    for k = 1, 3 do ci[k] = ci[k] / (2 * np) end
    for j = 1, spans do
      local a, b, c, d = point(i, j), point(i, j + 1), point(i + 1, j + 1), point(i + 1, j)
      local nx, ny, nz = cross(b[1] - a[1], b[2] - a[2], b[3] - a[3], c[1] - a[1], c[2] - a[2], c[3] - a[3])
      local mx, my, mz = cross(c[1] - a[1], c[2] - a[2], c[3] - a[3], d[1] - a[1], d[2] - a[2], d[3] - a[3])
      nx, ny, nz = nx + mx, ny + my, nz + mz
      normals[(i - 1) * spans + j] = {nx, ny, nz}
      local qx, qy, qz = (a[1] + c[1]) / 2 - ci[1], (a[2] + c[2]) / 2 - ci[2], (a[3] + c[3]) / 2 - ci[3]
      outward = outward + nx * qx + ny * qy + nz * qz
    end
  end
  local flip = outward < 0
  local m = mesh()
  for i = 1, ns do
    for j = 1, cols do
      -- the vertex normal: the adjacent quads' (sections i - 1 and i, spans j - 1 and j, wrapping when closed)
      local sx, sy, sz = 0.0, 0.0, 0.0
      for _, qi in ipairs({i - 1, i}) do
        for _, qj in ipairs({j - 1, j}) do
          if closed then qj = (qj - 1) % np + 1 end
          local q = qi >= 1 and qi <= ns - 1 and qj >= 1 and qj <= spans and normals[(qi - 1) * spans + qj]
          if q then sx, sy, sz = sx + q[1], sy + q[2], sz + q[3] end
        end
      end
      if flip then sx, sy, sz = -sx, -sy, -sz end
      local nx, ny, nz = normalize(sx, sy, sz)
      local p = point(i, j)
      vert(m, p[1], p[2], p[3], nx, ny, nz, (j - 1) / (cols - 1), (i - 1) / (ns - 1))
    end
  end
  for i = 0, ns - 2 do
    for j = 0, spans - 1 do
      local a, b = i * cols + j, i * cols + j + 1
      local c, d = (i + 1) * cols + j + 1, (i + 1) * cols + j
      if flip then tri(m, a, c, b); tri(m, a, d, c) else tri(m, a, b, c); tri(m, a, c, d) end
    end
  end
  return finish(m, false)
end

----------------------------------------------------------------------------------------------------
-- Line geometries (LINE_LIST, no normals or UVs): the lines of another geometry's triangles, or a box's grid.
----------------------------------------------------------------------------------------------------
local LINE_LIST = 1
local function geometry_arg(g, fname)
  local r = E.REC[g]
  if r == nil or r.kind ~= "procedural" then
    E.arg_error(1, fname, "ProceduralGeometry", g)
  end
  return r
end
-- the triangles of a geometry as index triples (0-based), group by group when it has groups (three.js's order)
local function each_triangle(r, fn)
  local idx = r.indices
  local ranges = r.groups and #r.groups > 0 and r.groups or {{0, #idx}}
  for _, g in ipairs(ranges) do
    for k = g[1] + 1, mmin(g[1] + g[2], #idx) - 2, 3 do fn(idx[k], idx[k + 1], idx[k + 2]) end
  end
end
local function lines(points)
  local idx, nm = {}, {}
  for i = 1, #points // 3 do idx[i] = i - 1 end
  for k = 1, #points do nm[k] = 0.0 end
  return new_procedural(points, nm, idx, nil, nil, LINE_LIST)
end

-- WireframeGeometry(geometry): every edge of its triangles once, edges being equal when their ends are (either way).
FUNCTIONS.WireframeGeometry = function(geometry)
  local r = geometry_arg(geometry, "WireframeGeometry")
  local p, seen, out = r.positions, {}, {}
  -- (+ 0.0 turns -0 into 0: the two are one position, as JavaScript's number-to-string makes them)
  local function key(i)
    return sformat("%.17g,%.17g,%.17g", p[3 * i + 1] + 0.0, p[3 * i + 2] + 0.0, p[3 * i + 3] + 0.0)
  end
  each_triangle(r, function(a, b, c)
    for _, e in ipairs({{a, b}, {b, c}, {c, a}}) do
      local ka, kb = key(e[1]), key(e[2])
      local k = ka < kb and ka .. "|" .. kb or kb .. "|" .. ka
      if not seen[k] then
        seen[k] = true
        local n = #out
        for j, i in ipairs(e) do
          out[n + 3 * j - 2], out[n + 3 * j - 1], out[n + 3 * j] = p[3 * i + 1], p[3 * i + 2], p[3 * i + 3]
        end
      end
    end
  end)
  return lines(out)
end

-- EdgesGeometry(geometry, thresholdAngle = 1): the edges where the two faces meeting there turn by at least the
-- threshold (degrees), and the edges of one face only; positions compared to four decimals, degenerate triangles
-- skipped, as three.js's EdgesGeometry does.
FUNCTIONS.EdgesGeometry = function(geometry, threshold)
  local r = geometry_arg(geometry, "EdgesGeometry")
  threshold = opt_num(threshold, 1, "EdgesGeometry", 2)
  local limit = cos(threshold * PI / 180)
  local p = r.positions
  local function key(i)
    return sformat("%d,%d,%d", mfloor(p[3 * i + 1] * 1e4 + 0.5), mfloor(p[3 * i + 2] * 1e4 + 0.5),
      mfloor(p[3 * i + 3] * 1e4 + 0.5))
  end
  local out, open, order = {}, {}, {}
  local function push(i, j)
    local n = #out
    out[n + 1], out[n + 2], out[n + 3] = p[3 * i + 1], p[3 * i + 2], p[3 * i + 3]
    out[n + 4], out[n + 5], out[n + 6] = p[3 * j + 1], p[3 * j + 2], p[3 * j + 3]
  end
  each_triangle(r, function(a, b, c)
    local v = {a, b, c}
    local keys = {key(a), key(b), key(c)}
    if keys[1] == keys[2] or keys[2] == keys[3] or keys[3] == keys[1] then return end
    local function at(i) return p[3 * i + 1], p[3 * i + 2], p[3 * i + 3] end
    local ax, ay, az = at(a)
    local bx, by, bz = at(b)
    local cx, cy, cz = at(c)
    local nx, ny, nz = normalize(cross(cx - bx, cy - by, cz - bz, ax - bx, ay - by, az - bz))
    for j = 1, 3 do
      local k = j % 3 + 1
      local here, back = keys[j] .. "_" .. keys[k], keys[k] .. "_" .. keys[j]
      local other = open[back]
      if other then
        if nx * other.n[1] + ny * other.n[2] + nz * other.n[3] <= limit then push(v[j], v[k]) end
        open[back] = false
      elseif other == nil and open[here] == nil then
        open[here] = {i0 = v[j], i1 = v[k], n = {nx, ny, nz}}
        order[#order + 1] = here
      end
    end
  end)
  for _, k in ipairs(order) do
    local e = open[k]
    if e then push(e.i0, e.i1) end
  end
  return lines(out)
end

-- BoxLineGeometry(width, height, depth, segments...) (three.js's addon): at each segment boundary along each axis, the
-- four lines round the box there.
FUNCTIONS.BoxLineGeometry = function(width, height, depth, ws, hs, ds)
  local f = "BoxLineGeometry"
  width, height, depth = opt_num(width, 1, f, 1), opt_num(height, 1, f, 2), opt_num(depth, 1, f, 3)
  ws, hs, ds = segs(ws, 1, f, 4), segs(hs, 1, f, 5), segs(ds, 1, f, 6)
  budget(8 * (ws + hs + ds + 3), f)
  local w2, h2, d2 = width / 2, height / 2, depth / 2
  local out = {}
  local function seg(a, b)
    local n = #out
    out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5], out[n + 6] = a[1], a[2], a[3], b[1], b[2], b[3]
  end
  local function ring(corners)
    for i = 1, 4 do seg(corners[i], corners[i % 4 + 1]) end
  end
  for i = 0, ws do
    local x = -w2 + i * width / ws
    ring({{x, -h2, -d2}, {x, h2, -d2}, {x, h2, d2}, {x, -h2, d2}})
  end
  for i = 0, hs do
    local y = -h2 + i * height / hs
    ring({{-w2, y, -d2}, {w2, y, -d2}, {w2, y, d2}, {-w2, y, d2}})
  end
  for i = 0, ds do
    local z = -d2 + i * depth / ds
    ring({{-w2, -h2, z}, {-w2, h2, z}, {w2, h2, z}, {w2, -h2, z}})
  end
  for k = 3, #out, 3 do out[k] = 0.0 - out[k] end   -- mirrored as the other parametric shapes
  return lines(out)
end
