-- A plain snapshot of every scene for `python -m engine run --dump`.
local ipairs, pairs = ipairs, pairs
function E.dump_scenes()
  local function node(r)
    local w = E.world(r)
    local sx, sy, sz = E.world_scale(r)
    local vars = {}
    for k, v in pairs(r.vars) do vars[k] = E.plain(v.value_) end
    local comps = {}
    for i, c in ipairs(r.components) do comps[i] = {type = c.type_name, id = c.id, enabled = c.enabled} end
    local kids = {}
    for i, c in ipairs(r.children) do kids[i] = node(c) end
    return {name = r.name, id = r.id, enabled = r.enabled, position = {r.px, r.py, r.pz},
      rotation = {r.rw, r.rx, r.ry, r.rz}, scale = {r.sx, r.sy, r.sz}, world_position = {w.m03, w.m13, w.m23},
      world_rotation = {w.ww, w.wx, w.wy, w.wz}, world_scale = {sx, sy, sz}, tags = r.tags, vars = vars,
      components = comps, children = kids}
  end
  local out = {}
  for i, s in ipairs(E.scenes) do out[i] = node(s) end
  return out
end
