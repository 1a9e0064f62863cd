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

-- Lua strings are bytes; Python's view of a report must be text.  Each byte that does not begin a valid UTF-8
-- sequence becomes the four characters "\xNN", so a game printing binary junk still gets a report (the same one
-- every run) instead of crashing the conversion.
local utf8len, sformat, sbyte, ssub, type = utf8.len, string.format, string.byte, string.sub, type
local function clean_string(s)
  if utf8len(s) then return s end
  local out, i, n = {}, 1, #s
  while i <= n do
    local b = sbyte(s, i)
    if utf8len(s, i, i) == 1 then   -- a whole valid sequence starts here; its lead byte gives its length
      local j = i + (b < 0x80 and 1 or b < 0xE0 and 2 or b < 0xF0 and 3 or 4)
      out[#out + 1] = ssub(s, i, j - 1)
      i = j
    else
      out[#out + 1] = sformat("\\x%02X", b)
      i = i + 1
    end
  end
  return table.concat(out)
end
E.clean_string = clean_string

function E.export(v, seen)
  local t = type(v)
  if t == "string" then return clean_string(v) end
  if t ~= "table" then return v end
  seen = seen or {}
  if seen[v] then return seen[v] end
  local out = {}
  seen[v] = out
  for k, x in pairs(v) do out[E.export(k, seen)] = E.export(x, seen) end
  return out
end
