-- Drawables kept as state that change over time or lay text out: Text3D (its text laid out by the engine's own Text
-- element, 80_ui.lua), RibbonTrail (the trail's points follow the node as Urho3D's tail update moves them, once a
-- frame at RenderUpdate, where a headless Urho3D updates its octree), DecalSet (decals clipped from the target's
-- triangles as Urho3D builds them on a device with graphics, expiring after their time to live at ScenePostUpdate).
local type, ipairs, setmetatable = type, ipairs, setmetatable
local sformat = string.format
local sqrt, mmax, mmin, abs, floor = math.sqrt, math.max, math.min, math.abs, math.floor
local REC, comp_rec, typed_comp_rec = E.REC, E.comp_rec, E.typed_comp_rec
local FACTORIES, KINDS = E.COMPONENT_FACTORIES, E.DRAWABLE_KINDS
local DRAWABLE_GEOMETRY = 1
local INF = math.huge
local v3 = E.Vector3_new

local function alive(c) return c.node ~= nil and not c.removed and not c.node.removed end
local function effective(c) return alive(c) and c.enabled and c.node.enabled end

----------------------------------------------------------------------------------------------------
-- Text3D
----------------------------------------------------------------------------------------------------
local TEXT_SCALING = 1.0 / 128.0
local HA_CENTER, HA_RIGHT, VA_CENTER, VA_BOTTOM = 1, 2, 1, 2
local T3 = class("Text3D")
local drawable = E.drawable_factory({})
local function text_defaults(c)
  drawable(c)
  c.text_proxy = nil
  c.h_align, c.v_align, c.opacity, c.fixed, c.face_camera = 0, 0, 1.0, false, 0
  c.colors = {}
  for i = 1, 4 do c.colors[i] = E.Color_new(1, 1, 1, 1) end
end
FACTORIES.Text3D = text_defaults
T3.new = function() return E.missing("Text3D:new (create it with node:CreateComponent(\"Text3D\"))") end
-- The Text element doing the layout, made on first use (effect depth bias 0.1, as Text3D sets).
local function inner(c)
  if c.text_proxy == nil then
    local proxy, r = E.new_ui_element("Text")
    r.effect_depth_bias = 0.1
    c.text_proxy = proxy
  end
  return c.text_proxy
end
local function trec(self) return typed_comp_rec(self, "Text3D") end
local TM = T3.methods
for _, name in ipairs({"SetFont", "SetFontSize", "SetText", "SetTextAlignment", "SetRowSpacing", "SetWordwrap",
    "SetTextEffect", "SetEffectShadowOffset", "SetEffectStrokeThickness", "SetEffectRoundStroke", "SetEffectColor",
    "SetEffectDepthBias", "SetWidth", "GetFont", "GetFontSize", "GetText", "GetTextAlignment", "GetRowSpacing",
    "GetWordwrap", "GetTextEffect", "GetEffectShadowOffset", "GetEffectStrokeThickness", "GetEffectRoundStroke",
    "GetEffectColor", "GetEffectDepthBias", "GetWidth", "GetHeight", "GetRowHeight", "GetNumRows", "GetNumChars",
    "GetRowWidth", "GetCharPosition", "GetCharSize"}) do
  local method = name
  TM[method] = function(self, ...)
    local fn = E.IMPL.Text.bound_methods[method]
    return fn(inner(trec(self)), ...)
  end
end
TM.SetMaterial = function(self, m) trec(self).material = m end
TM.GetMaterial = function(self) return trec(self).material end
TM.SetAlignment = function(self, h, v) local c = trec(self); c.h_align, c.v_align = h, v end
TM.SetHorizontalAlignment = function(self, h) trec(self).h_align = h end
TM.GetHorizontalAlignment = function(self) return trec(self).h_align end
TM.SetVerticalAlignment = function(self, v) trec(self).v_align = v end
TM.GetVerticalAlignment = function(self) return trec(self).v_align end
TM.SetColor = function(self, a, b)
  local c = trec(self)
  if b == nil then
    for i = 1, 4 do c.colors[i] = E.copy_math_value(a) or E.Color_new(1, 1, 1, 1) end
  else
    c.colors[floor(a) + 1] = E.copy_math_value(b)
  end
end
TM.GetColor = function(self, corner) return E.copy_math_value(trec(self).colors[(corner or 0) + 1]) end
TM.SetOpacity = function(self, o) trec(self).opacity = mmax(mmin(o, 1.0), 0.0) end
TM.GetOpacity = function(self) return trec(self).opacity end
TM.SetFixedScreenSize = function(self, v) trec(self).fixed = v and true or false end
TM.IsFixedScreenSize = function(self) return trec(self).fixed end
TM.SetFaceCameraMode = function(self, m) trec(self).face_camera = m end
TM.GetFaceCameraMode = function(self) return trec(self).face_camera end
-- The box of the laid-out text block: its pixels scaled by 1/128, Y up, offset by the alignment (the glyph quads
-- Urho3D merges lie within it); a point at the node with no text.
KINDS.Text3D = {flags = DRAWABLE_GEOMETRY, box = function(c)
  local t = c.text_proxy and REC[c.text_proxy]
  if t == nil or t.text == "" then return {0, 0, 0, 0, 0, 0} end
  local w, h = t.w, t.h
  local ox, oy = 0.0, 0.0
  if c.h_align == HA_CENTER then ox = -w * 0.5 elseif c.h_align == HA_RIGHT then ox = -w end
  if c.v_align == VA_CENTER then oy = -h * 0.5 elseif c.v_align == VA_BOTTOM then oy = -h end
  return {ox * TEXT_SCALING, -(oy + h) * TEXT_SCALING, 0.0, (ox + w) * TEXT_SCALING, -oy * TEXT_SCALING, 0.0}
end, name = function() return "Text3D" end}

----------------------------------------------------------------------------------------------------
-- RibbonTrail
----------------------------------------------------------------------------------------------------
local RT = class("RibbonTrail")
local trail_defaults = E.simple_properties(RT, {VertexDistance = 0.1, Width = 0.2,
  StartColor = function() return E.Color_new(1, 1, 1, 1) end, EndColor = function() return E.Color_new(1, 1, 1, 0) end,
  StartScale = 1.0, EndScale = 1.0, TrailType = 0, BaseVelocity = function() return v3(0, 0, 0) end, Sorted = false,
  Lifetime = 1.0, TailColumn = 1, Emitting = true, UpdateInvisible = false, AnimationLodBias = 1.0})
local M_LARGE_EPSILON = 0.00005
local function lerp3(a, b, t) return {a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t, a[3] + (b[3] - a[3]) * t} end
local function smooth_step(lhs, rhs, t)
  t = mmax(mmin((t - lhs) / (rhs - lhs), 1.0), 0.0)
  return t * t * (3.0 - 2.0 * t)
end
-- One tail update, as RibbonTrail::UpdateTail: age the points, drop expired ones, ease the end, add a point once
-- the node has moved a vertex distance.
local function update_tail(c, step)
  local w = E.world(c.node)
  local bv = c.BaseVelocity
  local pts = c.points
  if bv.x ~= 0 or bv.y ~= 0 or bv.z ~= 0 then
    for _, p in ipairs(pts) do p.pos = {p.pos[1] + bv.x * step, p.pos[2] + bv.y * step, p.pos[3] + bv.z * step} end
    c.prev = {c.prev[1] + bv.x * step, c.prev[2] + bv.y * step, c.prev[3] + bv.z * step}
  end
  local wp = {w.m03, w.m13, w.m23}
  local dx, dy, dz = c.prev[1] - wp[1], c.prev[2] - wp[2], c.prev[3] - wp[3]
  local path = sqrt(dx * dx + dy * dy + dz * dz)
  local expired = 0
  for i = 1, #pts - 1 do
    pts[i].life = pts[i].life + step
    if pts[i].life > c.Lifetime then expired = i end
  end
  if expired > 0 then
    for _ = 1, expired do table.remove(pts, 1) end
    if #pts > 1 then c.end_tail, c.end_time = pts[1].pos, pts[1].life end
  end
  if #pts == 0 then
    c.prev = wp
  elseif #pts == 1 then
    table.remove(pts, 1)
    c.prev = wp
  elseif pts[1].life < c.Lifetime then
    pts[1].pos = lerp3(c.end_tail, pts[2].pos, smooth_step(c.end_time, c.Lifetime, pts[1].life))
  end
  if #pts == 0 and path > M_LARGE_EPSILON and c.Emitting then
    pts[1] = {pos = c.prev, life = 0.0}
    pts[2] = {pos = wp, life = 0.0}
    c.end_tail, c.end_time = c.prev, 0.0
  end
  if #pts > 1 and c.Emitting then
    if path > c.VertexDistance then
      pts[#pts + 1] = {pos = wp, life = 0.0}
      c.prev = wp
    else
      pts[#pts].pos = wp
    end
  end
end
local function tick_trail(c, data)
  if not alive(c) then E.unsubscribe_all(c); return end
  if not effective(c) or c.node.scene == nil or c.node.scene.update_enabled == false then return end
  update_tail(c, data.TimeStep:GetFloat())
end
FACTORIES.RibbonTrail = function(c)
  drawable(c)
  trail_defaults(c)
  c.points, c.prev, c.end_tail, c.end_time = {}, nil, {0, 0, 0}, 0.0
  c.on_scene_set = function(rec)
    local w = E.world(rec.node)
    rec.prev = {w.m03, w.m13, w.m23}
    E.subscribe(rec, nil, nil, "RenderUpdate", function(_, data) return tick_trail(rec, data) end)
  end
  c.on_removed = function(rec) E.unsubscribe_all(rec) end
end
local RM = RT.methods
RM.SetMaterial = function(self, m) comp_rec(self).material = m end
RM.GetMaterial = function(self) return comp_rec(self).material end
RM.Commit = function() end
RM.SetBaseVelocity = function(self, v) comp_rec(self).BaseVelocity = v3(v.x, v.y, v.z) end
RM.GetBaseVelocity = function(self) local v = comp_rec(self).BaseVelocity; return v3(v.x, v.y, v.z) end
RM.SetLifetime = function(self, t) comp_rec(self).Lifetime = t end
RM.SetVertexDistance = function(self, d) comp_rec(self).VertexDistance = d end
-- The trail's world box: every point widened by the width in each direction (Urho3D's box ignores the node).
KINDS.RibbonTrail = {flags = DRAWABLE_GEOMETRY, box = function() return nil end, world_box = function(c)
  local out
  local s = c.Width
  for _, p in ipairs(c.points) do
    out = E.merge_box(out, {p.pos[1] - s, p.pos[2] - s, p.pos[3] - s, p.pos[1] + s, p.pos[2] + s, p.pos[3] + s})
  end
  return out
end, name = function() return "RibbonTrail" end}

----------------------------------------------------------------------------------------------------
-- DecalSet
----------------------------------------------------------------------------------------------------
local DS = class("DecalSet")
FACTORIES.DecalSet = function(c)
  drawable(c)
  c.decals, c.num_vertices, c.num_indices, c.max_vertices, c.max_indices, c.optimize = {}, 0, 0, 512, 1024, false
  c.on_removed = function(rec) E.unsubscribe_all(rec) end
end
local DM = DS.methods
local function drec(self) return typed_comp_rec(self, "DecalSet") end
local function remove_decals(c, n)
  while n > 0 and #c.decals > 0 do
    local d = table.remove(c.decals, 1)
    c.num_vertices, c.num_indices = c.num_vertices - d.nv, c.num_indices - d.ni
    n = n - 1
  end
end
DM.SetMaterial = function(self, m) drec(self).material = m end
DM.GetMaterial = function(self) return drec(self).material end
DM.SetMaxVertices = function(self, n) drec(self).max_vertices = floor(n) end
DM.GetMaxVertices = function(self) return drec(self).max_vertices end
DM.SetMaxIndices = function(self, n) drec(self).max_indices = floor(n) end
DM.GetMaxIndices = function(self) return drec(self).max_indices end
DM.SetOptimizeBufferSize = function(self, v) drec(self).optimize = v and true or false end
DM.GetOptimizeBufferSize = function(self) return drec(self).optimize end
DM.GetNumDecals = function(self) return #drec(self).decals end
DM.GetNumVertices = function(self) return drec(self).num_vertices end
DM.GetNumIndices = function(self) return drec(self).num_indices end
DM.RemoveDecals = function(self, n) remove_decals(drec(self), floor(n)) end
DM.RemoveAllDecals = function(self) local c = drec(self); remove_decals(c, #c.decals) end

-- Clip a polygon (list of {x,y,z,nx,ny,nz}) by a plane: keep the side the plane's normal points to.
local function clip(poly, pl)
  local out = {}
  local n, d = pl.normal, pl.d
  local function dist(p) return n.x * p[1] + n.y * p[2] + n.z * p[3] + d end
  for i = 1, #poly do
    local a, b = poly[i], poly[i % #poly + 1]
    local da, db = dist(a), dist(b)
    if da >= 0.0 then out[#out + 1] = a end
    if (da >= 0.0) ~= (db >= 0.0) then
      local t = da / (da - db)
      local p = {}
      for k = 1, 6 do p[k] = a[k] + (b[k] - a[k]) * t end
      out[#out + 1] = p
    end
  end
  return out
end
local function equals(a, b)
  for k = 1, 6 do if abs(a[k] - b[k]) > 0.000001 then return false end end
  return true
end
local function node_matrix(p, q)
  return E.IMPL.Matrix3x4.new(v3(p.x, p.y, p.z), E.IMPL.Quaternion.new(q.w, q.x, q.y, q.z), 1.0)
end
DM.AddDecal = function(self, target, pos, rot, size, aspect, depth, uv0, uv1, ttl, cutoff, sub)
  local c = drec(self)
  local t = target and REC[target]
  if c.node == nil then return false end
  if t == nil or t.node == nil then E.log("ERROR", "Null target drawable for decal"); return false end
  local k = KINDS[t.type_name]
  local lists = k and k.triangles and k.triangles(t)
  if lists == nil then
    E.log("WARNING", sformat("DecalSet:AddDecal on %s is not supported headless (its triangles are not loaded): "
      .. "no decal", k and k.name and k.name(t) or t.type_name))
    return false
  end
  ttl, cutoff, sub = ttl or 0.0, cutoff or 0.1, sub or 4294967295
  -- the decal frustum in the target's space, centred on the position
  local fwd = rot * v3(0, 0, 1)
  local adjusted = pos - fwd * (0.5 * depth)
  local inv = E.IMPL.Matrix3x4.methods.Inverse(E.world(t.node))
  local frustum_m = inv * node_matrix(adjusted, rot)
  local fr = E.IMPL.Frustum.new()
  fr:DefineOrtho(size, aspect, 1.0, 0.0, depth, frustum_m)
  local back = rot * v3(0, 0, -1)
  local dn = v3(inv.m00 * back.x + inv.m01 * back.y + inv.m02 * back.z, inv.m10 * back.x + inv.m11 * back.y +
    inv.m12 * back.z, inv.m20 * back.x + inv.m21 * back.y + inv.m22 * back.z):Normalized()
  local faces = {}
  for gi, tris in ipairs(lists) do
    if tris and (sub >= #lists or gi - 1 == sub) then
      for i = 1, #tris - 8, 9 do
        local a = {tris[i], tris[i + 1], tris[i + 2]}
        local b = {tris[i + 3], tris[i + 4], tris[i + 5]}
        local cc = {tris[i + 6], tris[i + 7], tris[i + 8]}
        local e1 = v3(b[1] - a[1], b[2] - a[2], b[3] - a[3])
        local e2 = v3(cc[1] - a[1], cc[2] - a[2], cc[3] - a[3])
        local fn = e1:CrossProduct(e2):Normalized()
        if dn:DotProduct(fn) >= cutoff then
          local culled = false
          for pi = 1, 6 do
            local pl = fr.planes_[pi]
            local function pd(p) return pl.normal.x * p[1] + pl.normal.y * p[2] + pl.normal.z * p[3] + pl.d end
            if pd(a) < 0 and pd(b) < 0 and pd(cc) < 0 then culled = true; break end
          end
          if not culled then
            faces[#faces + 1] = {{a[1], a[2], a[3], fn.x, fn.y, fn.z}, {b[1], b[2], b[3], fn.x, fn.y, fn.z},
              {cc[1], cc[2], cc[3], fn.x, fn.y, fn.z}}
          end
        end
      end
    end
  end
  for pi = 1, 6 do
    for fi, face in ipairs(faces) do if #face > 0 then faces[fi] = clip(face, fr.planes_[pi]) end end
  end
  local verts, nidx = {}, 0
  local function add(v)
    nidx = nidx + 1
    for _, x in ipairs(verts) do if equals(x, v) then return end end
    verts[#verts + 1] = v
  end
  for _, face in ipairs(faces) do
    if #face >= 3 then
      for j = 3, #face do add(face[1]); add(face[j - 1]); add(face[j]) end
    end
  end
  if #verts == 0 then return true end
  if #verts > c.max_vertices then
    E.log("WARNING", sformat("Can not add decal, vertex count %d exceeds maximum %d", #verts, c.max_vertices))
    return false
  end
  if nidx > c.max_indices then
    E.log("WARNING", sformat("Can not add decal, index count %d exceeds maximum %d", nidx, c.max_indices))
    return false
  end
  -- the vertices in this DecalSet's space, for its bounding box
  local tw, own = E.world(t.node), E.IMPL.Matrix3x4.methods.Inverse(E.world(c.node))
  local box
  for _, v in ipairs(verts) do
    local p = own * v3(tw.m00 * v[1] + tw.m01 * v[2] + tw.m02 * v[3] + tw.m03,
      tw.m10 * v[1] + tw.m11 * v[2] + tw.m12 * v[3] + tw.m13, tw.m20 * v[1] + tw.m21 * v[2] + tw.m22 * v[3] + tw.m23)
    box = E.merge_box(box, {p.x, p.y, p.z, p.x, p.y, p.z})
  end
  c.decals[#c.decals + 1] = {nv = #verts, ni = nidx, ttl = ttl, timer = 0.0, box = box,
    target = t.node.proxy}
  c.num_vertices, c.num_indices = c.num_vertices + #verts, c.num_indices + nidx
  while #c.decals > 0 and (c.num_vertices > c.max_vertices or c.num_indices > c.max_indices) do remove_decals(c, 1) end
  if ttl > 0 and not c.subscribed and c.node.scene then
    c.subscribed = true
    E.subscribe(c, nil, c.node.scene.proxy, "ScenePostUpdate", function(_, data)
      if not alive(c) then E.unsubscribe_all(c); return end
      local step = data.TimeStep:GetFloat()
      local keep = {}
      for _, d in ipairs(c.decals) do
        d.timer = d.timer + step
        if d.ttl > 0 and d.timer > d.ttl then
          c.num_vertices, c.num_indices = c.num_vertices - d.nv, c.num_indices - d.ni
        else
          keep[#keep + 1] = d
        end
      end
      c.decals = keep
    end)
  end
  return true
end
KINDS.DecalSet = {flags = DRAWABLE_GEOMETRY, box = function(c)
  local out
  for _, d in ipairs(c.decals) do out = E.merge_box(out, d.box) end
  return out
end, name = function() return "DecalSet" end}
