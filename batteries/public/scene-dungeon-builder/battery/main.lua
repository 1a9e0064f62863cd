-- Battery for scene-dungeon-builder: writes its own level and prefab files, reads the dungeon the game built
-- (hierarchy, walls, doors, props, lamps), then explores it for two minutes: presses and held keys against walls
-- and doors, door clicks through the game's camera, the minimap after each step, a save, changes, an edited save
-- file loaded back, and tours of the whole level.  A model of the level (what each move and click should do) runs
-- beside the game; the minimap is checked against the game's own scene state.
local h = harness
local fmt, floor, abs, min, max, sqrt = string.format, math.floor, math.abs, math.min, math.max, math.sqrt

----------------------------------------------------------------------------------------------------
-- the level and prefabs the game is given
----------------------------------------------------------------------------------------------------
local LEVEL = {
  size = {12, 9},
  start = {1, 1},
  rooms = {
    {id = "Keep", x = 0, y = 0, w = 3, h = 3, color = {1.0, 0.8, 0.5}},
    {id = "Vault2", x = 6, y = 0, w = 4, h = 2, color = {0.5, 0.6, 1.0}},
    {id = "Crypt", x = 1, y = 5, w = 3, h = 3, color = {0.6, 1.0, 0.6}},
    {id = "Hall", x = 7, y = 4, w = 3, h = 4, color = {1.0, 0.5, 0.75}},
  },
  corridors = {
    {id = "K2V", from = "Keep", to = "Vault2", cells = {{3, 1}, {4, 1}, {5, 1}}},
    {id = "KC", from = "Keep", to = "Crypt", cells = {{1, 3}, {1, 4}}},
    {id = "VH", from = "Vault2", to = "Hall", cells = {{8, 2}, {8, 3}}},
    {id = "HC", from = "Hall", to = "Crypt", cells = {{6, 4}, {5, 4}, {5, 5}, {4, 5}}},
  },
  props = {
    {prefab = "Crate", cell = {0, 0}, yaw = 0},
    {prefab = "Barrel", cell = {2, 2}, yaw = 0},
    {prefab = "Crate", cell = {9, 0}, yaw = 30},
    {prefab = "Torch", cell = {3, 7}, yaw = 90},
    {prefab = "Crate", cell = {9, 7}, yaw = 45},
    {prefab = "Barrel", cell = {7, 6}, yaw = 10},
  },
}
local COLS, ROWS = LEVEL.size[1], LEVEL.size[2]

-- Prefabs: a root (its name and variables) and children with a model or a light.  Crate differs from the
-- workspace's on purpose: the game must instance the file it finds.
local PREFABS = {
  Door = {root = "Door", vars = {{"Open", "Bool", "false"}}, children = {
    {name = "Frame", pos = {0, 3.25, 0}, scale = {4, 0.5, 0.4}, model = "Models/Box.mdl",
     material = "Materials/Stone.xml"},
    {name = "Panel", pos = {0, 1.5, 0}, scale = {3.8, 3, 0.15}, model = "Models/Box.mdl",
     material = "Materials/DefaultGrey.xml"}}},
  Crate = {root = "Crate", vars = {{"Loot", "String", "gold"}}, children = {
    {name = "Box", pos = {0, 0.5, 0}, scale = {1, 1, 1}, model = "Models/Box.mdl",
     material = "Materials/StoneTiled.xml"},
    {name = "Lid", pos = {0, 1.05, 0}, scale = {1.1, 0.1, 1.1}, model = "Models/Box.mdl",
     material = "Materials/Stone.xml"}}},
  Barrel = {root = "Barrel", vars = {}, children = {
    {name = "Body", pos = {0, 0.7, 0}, scale = {1, 1.4, 1}, model = "Models/Cylinder.mdl",
     material = "Materials/DefaultGrey.xml"}}},
  Torch = {root = "Torch", vars = {}, children = {
    {name = "Pole", pos = {0, 1, 0}, scale = {0.2, 2, 0.2}, model = "Models/Cylinder.mdl",
     material = "Materials/Stone.xml"},
    {name = "Flame", pos = {0, 2.2, 0}, scale = {1, 1, 1}, light = true}}},
}

local function json(v)
  if type(v) == "table" then
    if v[1] ~= nil or next(v) == nil then
      local parts = {}
      for i, x in ipairs(v) do parts[i] = json(x) end
      return "[" .. table.concat(parts, ", ") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    local parts = {}
    for i, k in ipairs(keys) do parts[i] = fmt("%q: %s", k, json(v[k])) end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  if type(v) == "string" then return fmt("%q", v) end
  return tostring(v)
end

local function vec(t) return fmt("%g %g %g", t[1], t[2], t[3]) end
local function prefab_xml(p)
  local out = {'<?xml version="1.0"?>', '<node id="1">', '\t<attribute name="Is Enabled" value="true" />',
    fmt('\t<attribute name="Name" value="%s" />', p.root), '\t<attribute name="Position" value="0 0 0" />',
    '\t<attribute name="Rotation" value="1 0 0 0" />', '\t<attribute name="Scale" value="1 1 1" />'}
  if #p.vars > 0 then
    out[#out + 1] = '\t<attribute name="Variables">'
    for _, v in ipairs(p.vars) do
      out[#out + 1] = fmt('\t\t<variant name="%s" type="%s" value="%s" />', v[1], v[2], v[3])
    end
    out[#out + 1] = '\t</attribute>'
  end
  for i, c in ipairs(p.children) do
    out[#out + 1] = fmt('\t<node id="%d">', 10 * i)
    out[#out + 1] = '\t\t<attribute name="Is Enabled" value="true" />'
    out[#out + 1] = fmt('\t\t<attribute name="Name" value="%s" />', c.name)
    out[#out + 1] = fmt('\t\t<attribute name="Position" value="%s" />', vec(c.pos))
    out[#out + 1] = '\t\t<attribute name="Rotation" value="1 0 0 0" />'
    out[#out + 1] = fmt('\t\t<attribute name="Scale" value="%s" />', vec(c.scale))
    if c.model then
      out[#out + 1] = fmt('\t\t<component type="StaticModel" id="%d">', 10 * i + 1)
      out[#out + 1] = fmt('\t\t\t<attribute name="Model" value="Model;%s" />', c.model)
      out[#out + 1] = fmt('\t\t\t<attribute name="Material" value="Material;%s" />', c.material)
      out[#out + 1] = '\t\t</component>'
    else
      out[#out + 1] = fmt('\t\t<component type="Light" id="%d">', 10 * i + 1)
      out[#out + 1] = '\t\t\t<attribute name="Light Type" value="Point" />'
      out[#out + 1] = '\t\t\t<attribute name="Color" value="1 0.6 0.2 1" />'
      out[#out + 1] = '\t\t\t<attribute name="Range" value="5" />'
      out[#out + 1] = '\t\t</component>'
    end
    out[#out + 1] = '\t</node>'
  end
  out[#out + 1] = '</node>'
  return table.concat(out, "\n") .. "\n"
end

-- the game's files, through the harness (h.file, h.write_file: nothing in the game's log)
local function write_file(name, text) h.write_file(name, text) end
local function read_file(name)
  local text = h.file(name)
  if text == nil then return nil end
  return (text:gsub("%z+$", ""))
end

----------------------------------------------------------------------------------------------------
-- the level's model: cells, doorways, walls
----------------------------------------------------------------------------------------------------
local SIDES = {N = {0, -1}, S = {0, 1}, E = {1, 0}, W = {-1, 0}}
local SIDE_ORDER = {"N", "E", "S", "W"}
local function key(x, y) return x .. "," .. y end
local CELLS, AREAS, ROOMS, CORRIDORS = {}, {}, {}, {}
for _, r in ipairs(LEVEL.rooms) do
  local area = {kind = "room", id = r.id, node = "Room_" .. r.id, room = r}
  AREAS[#AREAS + 1] = area
  ROOMS[r.id] = area
  for y = r.y, r.y + r.h - 1 do
    for x = r.x, r.x + r.w - 1 do CELLS[key(x, y)] = {area = area} end
  end
end
for _, c in ipairs(LEVEL.corridors) do
  local area = {kind = "corridor", id = c.id, node = "Corridor_" .. c.id, corridor = c}
  AREAS[#AREAS + 1] = area
  CORRIDORS[c.id] = area
  for i, cell in ipairs(c.cells) do CELLS[key(cell[1], cell[2])] = {area = area, index = i} end
end
local DOORS, DOOR_AT = {}, {}
for _, c in ipairs(LEVEL.corridors) do
  for _, e in ipairs({{c.cells[1], c.from}, {c.cells[#c.cells], c.to}}) do
    for _, side in ipairs(SIDE_ORDER) do
      local d = SIDES[side]
      local b = {e[1][1] + d[1], e[1][2] + d[2]}
      local info = CELLS[key(b[1], b[2])]
      if info and info.area.kind == "room" and info.area.id == e[2] then
        local door = {name = fmt("Door_%s_%s", c.id, e[2]), corridor = CORRIDORS[c.id], room = ROOMS[e[2]], a = e[1],
                      b = b, side = side}
        DOORS[#DOORS + 1] = door
        DOOR_AT[key(e[1][1], e[1][2]) .. "|" .. key(b[1], b[2])] = door
        DOOR_AT[key(b[1], b[2]) .. "|" .. key(e[1][1], e[1][2])] = door
      end
    end
  end
end
local DOOR_BY_NAME = {}
for _, d in ipairs(DOORS) do DOOR_BY_NAME[d.name] = d end

local function centre(x, y) return {x = 4 * x + 2, y = 0, z = -4 * y - 2} end
local function side_mid(x, y, side)
  local c, d = centre(x, y), SIDES[side]
  return {x = c.x + 2 * d[1], y = 0, z = c.z - 2 * d[2]}
end
local function joined(a, b)
  local ca, cb = CELLS[key(a[1], a[2])], CELLS[key(b[1], b[2])]
  if ca == nil or cb == nil or ca.area ~= cb.area then return false end
  return ca.area.kind == "room" or abs(ca.index - cb.index) == 1
end
local WALLS = {}                   -- name -> {parent, min, max}
local WALL_COUNT = 0
for k, info in pairs(CELLS) do
  local x, y = k:match("^(%-?%d+),(%-?%d+)$")
  x, y = tonumber(x), tonumber(y)
  for _, side in ipairs(SIDE_ORDER) do
    local d = SIDES[side]
    local other = {x + d[1], y + d[2]}
    if not joined({x, y}, other) and DOOR_AT[key(x, y) .. "|" .. key(other[1], other[2])] == nil then
      local m = side_mid(x, y, side)
      local hx, hz = (d[2] ~= 0) and 2 or 0.1, (d[1] ~= 0) and 2 or 0.1
      WALLS[fmt("Wall_%d_%d_%s", x, y, side)] = {parent = info.area.node, min = {x = m.x - hx, y = 0, z = m.z - hz},
                                                 max = {x = m.x + hx, y = 3, z = m.z + hz}}
      WALL_COUNT = WALL_COUNT + 1
    end
  end
end

----------------------------------------------------------------------------------------------------
-- reading the game
----------------------------------------------------------------------------------------------------
local view_cache = {}
local function unique(name)
  local v = view_cache[name]
  if v and v.exists then return v end
  local all = h.find_all(name)
  v = #all == 1 and all[1] or nil
  view_cache[name] = v
  return v
end
local function count_named(pattern)
  return h.count_nodes(function(v) return v.name:match(pattern) ~= nil end)
end
-- How many nodes of each kind the scene holds.
local function key_counts()
  return {rooms = count_named("^Room_"), corridors = count_named("^Corridor_"), walls = count_named("^Wall_"),
          doors = count_named("^Door_"), explorers = count_named("^Explorer$"), dungeons = count_named("^Dungeon$")}
end
local function xyz(v) return {x = v.x, y = v.y, z = v.z} end
local function cell_of(p)
  if p == nil then return nil end
  return {floor(p.x / 4), floor(-p.z / 4)}
end
local function cell_text(c) return c and fmt("[%d, %d]", c[1], c[2]) or "none" end

-- The explorer's cell, when its node stands at the centre of one (else nil and where it is).
local function explorer_cell()
  local e = unique("Explorer")
  if e == nil then return nil, "no single Explorer node" end
  local p = e.world_position
  local c = cell_of(p)
  local want = centre(c[1], c[2])
  if abs(p.x - want.x) > 0.02 or abs(p.z - want.z) > 0.02 or abs(p.y) > 0.02 then
    return nil, fmt("off a cell centre at (%.2f, %.2f, %.2f)", p.x, p.y, p.z)
  end
  return c
end

-- The game's own state: explorer cell, doors, visited areas, lamps.
local function game_state()
  local s = {doors = {}, visited = {}, lamps = {}, panels = {}}
  s.cell, s.why = explorer_cell()
  for _, d in ipairs(DOORS) do
    local node = unique(d.name)
    s.doors[d.name] = node and node:var("Open")
    local panel = node and node:child("Panel")
    s.panels[d.name] = panel and panel.enabled
  end
  for _, a in ipairs(AREAS) do
    local node = unique(a.node)
    s.visited[a.id] = node and node:var("Visited")
    if a.kind == "room" then
      local lamp = node and node:child("Lamp")
      s.lamps[a.id] = lamp and lamp.enabled
    end
  end
  return s
end

-- The minimap as drawn in the last frame, read at the points the task defines, against the game's own state.
local SW, SH = h.screen()
local MAP_LEFT = SW - 16 - 12 * COLS
local COLOR = {background = {30, 30, 30}, room = {200, 200, 200}, corridor = {140, 140, 140},
               closed = {220, 60, 60}, open = {60, 200, 60}, explorer = {255, 220, 0}}
-- The topmost fill of `drawn` (h.drawn(): visible commands, in draw order) covering (x, y).
local function topmost_fill(drawn, x, y)
  for i = #drawn, 1, -1 do
    local c = drawn[i]
    local b = c.bounds
    if c.kind == "fill" and x >= b[1] and x <= b[3] and y >= b[2] and y <= b[4] then return c.rgba end
  end
  return nil
end
local function color_is(rgba, want)
  if rgba == nil then return false end
  for i = 1, 3 do if abs(rgba[i] - want[i]) > 6 then return false end end
  return rgba[4] >= 249
end
local function color_name(rgba)
  if rgba == nil then return "nothing" end
  for name, c in pairs(COLOR) do if color_is(rgba, c) then return name end end
  return fmt("(%d, %d, %d, %d)", rgba[1], rgba[2], rgba[3], rgba[4])
end
local function minimap_errors(s)
  local bad = {}
  local drawn = h.drawn()
  local function expect(label, px, py, want)
    local got = topmost_fill(drawn, px, py)
    if not color_is(got, COLOR[want]) then bad[#bad + 1] = fmt("%s %s not %s", label, color_name(got), want) end
  end
  for y = 0, ROWS - 1 do
    for x = 0, COLS - 1 do
      local info = CELLS[key(x, y)]
      local want = "background"
      if info and s.visited[info.area.id] == true then want = info.area.kind end
      expect(fmt("cell [%d,%d]", x, y), MAP_LEFT + 12 * x + 1.5, 16 + 12 * y + 1.5, want)
    end
  end
  for _, d in ipairs(DOORS) do
    local shown = s.visited[d.corridor.id] == true or s.visited[d.room.id] == true
    local side = SIDES[d.side]
    local px = MAP_LEFT + 12 * d.a[1] + 6 + 6 * side[1]
    local py = 16 + 12 * d.a[2] + 6 + 6 * side[2]
    local want = shown and (s.doors[d.name] == true and "open" or "closed") or "background"
    expect(d.name, px, py, want)
  end
  if s.cell then
    expect("explorer", MAP_LEFT + 12 * s.cell[1] + 6, 16 + 12 * s.cell[2] + 6, "explorer")
  end
  return table.concat(bad, "; ")
end

----------------------------------------------------------------------------------------------------
-- the model: what the game should hold
----------------------------------------------------------------------------------------------------
local model = {cell = {LEVEL.start[1], LEVEL.start[2]}, open = {}, visited = {}}
for _, d in ipairs(DOORS) do model.open[d.name] = false end
for _, a in ipairs(AREAS) do model.visited[a.id] = false end
model.visited[CELLS[key(LEVEL.start[1], LEVEL.start[2])].area.id] = true
local function copy_model(m)
  local c = {cell = {m.cell[1], m.cell[2]}, open = {}, visited = {}}
  for k, v in pairs(m.open) do c.open[k] = v end
  for k, v in pairs(m.visited) do c.visited[k] = v end
  return c
end
local function model_try(side)
  local d = SIDES[side]
  local from, to = model.cell, {model.cell[1] + d[1], model.cell[2] + d[2]}
  local door = DOOR_AT[key(from[1], from[2]) .. "|" .. key(to[1], to[2])]
  if joined(from, to) or (door and model.open[door.name]) then
    model.cell = to
    model.visited[CELLS[key(to[1], to[2])].area.id] = true
  end
end

-- Differences between the game's state and the model's, as text ("" when none): of the explorer's cell, the
-- doors, the visited areas and their lamps (`parts` names them; all by default).
local ALL_PARTS = {cell = true, doors = true, visited = true}
local function differences(s, m, parts)
  parts = parts or ALL_PARTS
  local bad = {}
  if not parts.cell then
    -- not asked
  elseif s.cell == nil then bad[#bad + 1] = "explorer: " .. tostring(s.why)
  elseif s.cell[1] ~= m.cell[1] or s.cell[2] ~= m.cell[2] then
    bad[#bad + 1] = fmt("explorer on %s not %s", cell_text(s.cell), cell_text(m.cell))
  end
  for _, d in ipairs(parts.doors and DOORS or {}) do
    if s.doors[d.name] ~= m.open[d.name] then
      bad[#bad + 1] = fmt("%s Open %s not %s", d.name, tostring(s.doors[d.name]), tostring(m.open[d.name]))
    end
    if s.panels[d.name] ~= not m.open[d.name] then
      bad[#bad + 1] = fmt("%s Panel enabled %s", d.name, tostring(s.panels[d.name]))
    end
  end
  for _, a in ipairs(parts.visited and AREAS or {}) do
    if s.visited[a.id] ~= m.visited[a.id] then
      bad[#bad + 1] = fmt("%s Visited %s not %s", a.node, tostring(s.visited[a.id]), tostring(m.visited[a.id]))
    end
    if a.kind == "room" and s.lamps[a.id] ~= m.visited[a.id] then
      bad[#bad + 1] = fmt("%s/Lamp enabled %s", a.node, tostring(s.lamps[a.id]))
    end
  end
  return table.concat(bad, "; ")
end

----------------------------------------------------------------------------------------------------
-- driving
----------------------------------------------------------------------------------------------------
local SNAPS = {}                   -- every snapshot, in order: {label, frame, state, model, map, phase}
local phase_ = "start"
local function snap(label)
  local s = game_state()
  local rec = {label = label, frame = h.frame(), state = s, model = copy_model(model), phase = phase_}
  if h.drawn_frame() == h.frame() then
    rec.map = minimap_errors(s)
  elseif h.frame() > 0 then
    rec.map = fmt("the last NanoVG frame shown is frame %d", h.drawn_frame())
  end
  rec.diff = differences(s, model)
  SNAPS[#SNAPS + 1] = rec
  return rec
end

local KEYS = {N = KEY_W, S = KEY_S, E = KEY_D, W = KEY_A}
local ALT_KEYS = {N = KEY_UP, S = KEY_DOWN, E = KEY_RIGHT, W = KEY_LEFT}
local GAP = 12                     -- frames between one action and the next

-- One press of a direction key: the move happens in the press's frame.
local function press(side, alt)
  local k = (alt and ALT_KEYS or KEYS)[side]
  h.key_down(k)
  h.run_frames(1)
  model_try(side)
  local rec = snap(fmt("%s pressed", side))
  h.key_up(k)
  h.run_frames(GAP)
  return rec
end

-- A key held for `repeats` repeats: the explorer's cell is read around every 0.4 s mark.
local HOLDS = {}
local function hold(side, repeats, action)
  local k = KEYS[side]
  local rec = {label = fmt("%s held for %d repeats", side, repeats), frame = h.frame() + 1, expected = {}, got = {},
               phase = phase_}
  h.key_down(k)
  h.run_frames(1)
  local pressed = h.frame()
  local function run_to(f) if f > h.frame() then h.run_frames(f - h.frame()) end end
  model_try(side)
  rec.expected[1], rec.got[1] = cell_text(model.cell), cell_text((explorer_cell()))
  for r = 1, repeats do
    if action and action.before == r then
      run_to(pressed + 24 * r - 12)
      action.fn()
    end
    run_to(pressed + 24 * r - 3)     -- from 3 frames before the repeat's frame to 3 frames after
    local before = cell_text((explorer_cell()))
    run_to(pressed + 24 * r + 3)
    local bx = cell_text(model.cell)
    model_try(side)
    rec.expected[#rec.expected + 1] = bx .. ">" .. cell_text(model.cell)
    rec.got[#rec.got + 1] = before .. ">" .. cell_text((explorer_cell()))
  end
  run_to(pressed + 24 * repeats + 8)
  h.key_up(k)
  h.run_frames(GAP)
  rec.expected, rec.got = table.concat(rec.expected, " "), table.concat(rec.got, " ")
  rec.end_frame = h.frame()
  HOLDS[#HOLDS + 1] = rec
  return rec
end

-- Click at the screen point where the game's camera sees world point `p`.
local function click_world(p, button)
  local vp = h.viewport(0)
  local cam = vp and vp.camera
  if cam == nil then h.run_frames(1 + GAP); return false end
  local sp = h.world_to_screen(cam, Vector3(p.x, p.y, p.z))
  h.click(sp.x * SW, sp.y * SH, button)
  return true
end
-- Click on a door's lintel, at the middle of its top.
local function click_door(name, button)
  local d = DOOR_BY_NAME[name]
  local m = side_mid(d.a[1], d.a[2], d.side)
  click_world({x = m.x, y = 3.5, z = m.z}, button)
  if button == nil or button == MOUSEB_LEFT then model.open[name] = not model.open[name] end
  local rec = snap(fmt("clicked %s", name))
  h.run_frames(GAP)
  return rec
end

local function key_press(k)
  h.key_down(k)
  h.run_frames(1)
  h.key_up(k)
end

----------------------------------------------------------------------------------------------------
-- drive
----------------------------------------------------------------------------------------------------
write_file("data/level.json", json(LEVEL) .. "\n")
for name, p in pairs(PREFABS) do write_file("Prefabs/" .. name .. ".xml", prefab_xml(p)) end

h.start()
local S = {}
S.start = snap("when Start returned")
S.start_errors = #h.errors()

-- the built scene, read before anything happens ------------------------------------------------------
local built = {}
do
  local scene = h.scenes()[1]
  built.octree = scene and scene:component("Octree") ~= nil
  local dungeon = unique("Dungeon")
  built.dungeon = dungeon and {pos = xyz(dungeon.world_position), parent = dungeon.parent and dungeon.parent.id,
                               scene = scene and scene.id}
  local vp = h.viewport(0)
  built.camera = vp and vp.camera and vp.camera_node and {y = vp.camera_node.world_position.y, on_screen = true,
    off = ""}
  if built.camera then
    for y = 0, ROWS - 1 do
      for x = 0, COLS - 1 do
        if CELLS[key(x, y)] then
          local c = centre(x, y)
          local sp = h.world_to_screen(vp.camera, Vector3(c.x, c.y, c.z))
          if sp.x < 0 or sp.x > 1 or sp.y < 0 or sp.y > 1 then
            built.camera.on_screen = false
            built.camera.off = built.camera.off .. cell_text({x, y}) .. " "
          end
        end
      end
    end
  end
  local e = unique("Explorer")
  local has_model = false
  if e then
    local function visit(v)
      if v:component("StaticModel") then has_model = true end
      for _, c in ipairs(v.children) do visit(c) end
    end
    visit(e)
  end
  built.explorer = e and {pos = xyz(e.world_position), model = has_model}
  built.counts = key_counts()
end
local function box_of(node)
  local sm = node and node:component("StaticModel")
  local b = sm and sm:get("worldBoundingBox")
  local m = sm and sm:get("Model")
  return b and {min = xyz(b.min), max = xyz(b.max), model = m and m:GetName()}
end
local function yaw_of(v)
  local d = v.world_rotation * Vector3(0, 0, 1)
  return math.deg(math.atan(d.x, d.z))
end
local function yaw_diff(a, b)
  local d = (a - b) % 360
  return d > 180 and d - 360 or d
end
-- A prefab instance against its spec: root name, variables, children (names in order, local transforms, models).
local function instance_errors(node, spec, renamed)
  local bad = {}
  if not renamed and node.name ~= spec.root then bad[#bad + 1] = "root named " .. node.name end
  for _, v in ipairs(spec.vars) do
    local got = node:var(v[1])
    local want = v[2] == "Bool" and (v[3] == "true") or v[3]
    if v[1] ~= "Open" and got ~= want then bad[#bad + 1] = fmt("variable %s = %s", v[1], tostring(got)) end
  end
  local kids = node.children
  if #kids ~= #spec.children then bad[#bad + 1] = fmt("%d children, not %d", #kids, #spec.children) end
  for i, c in ipairs(spec.children) do
    local k = kids[i]
    if k == nil or k.name ~= c.name then
      bad[#bad + 1] = fmt("child %d is %s, not %s", i, k and k.name or "missing", c.name)
    else
      local p, sc = k.position, k.scale
      if abs(p.x - c.pos[1]) > 0.01 or abs(p.y - c.pos[2]) > 0.01 or abs(p.z - c.pos[3]) > 0.01 then
        bad[#bad + 1] = c.name .. "'s position"
      end
      if abs(sc.x - c.scale[1]) > 0.01 or abs(sc.y - c.scale[2]) > 0.01 or abs(sc.z - c.scale[3]) > 0.01 then
        bad[#bad + 1] = c.name .. "'s scale"
      end
      if c.model then
        local b = box_of(k)
        if b == nil or b.model ~= c.model then bad[#bad + 1] = c.name .. "'s model" end
      elseif k:component("Light") == nil then
        bad[#bad + 1] = c.name .. " has no Light"
      end
    end
  end
  return table.concat(bad, "; ")
end
built.rooms, built.corridors, built.walls, built.doors, built.props = {}, {}, {}, {}, {}
for _, a in ipairs(AREAS) do
  local node = unique(a.node)
  local r = {node = node and {pos = xyz(node.world_position), parent = node.parent and node.parent.name}}
  if a.kind == "room" then
    local floor_node = node and node:child("Floor")
    r.floor = box_of(floor_node)
    r.floor_parent = floor_node and floor_node.parent and floor_node.parent.name
    local lamp = node and node:child("Lamp")
    local light = lamp and lamp:component("Light")
    r.lamp = lamp and {pos = xyz(lamp.world_position), parent = lamp.parent.name,
      type = light and light:get("LightType"), range = light and light:get("Range"),
      color = light and light:get("Color")}
    built.rooms[a.id] = r
  else
    r.tiles = {}
    for _, cell in ipairs(a.corridor.cells) do
      local t = node and node:child(fmt("Tile_%d_%d", cell[1], cell[2]))
      r.tiles[#r.tiles + 1] = {cell = cell, box = box_of(t), parent = t and t.parent and t.parent.name}
    end
    built.corridors[a.id] = r
  end
end
for name, w in pairs(WALLS) do
  local node = unique(name)
  built.walls[name] = node and {box = box_of(node), parent = node.parent and node.parent.name}
end
for _, d in ipairs(DOORS) do
  local node = unique(d.name)
  if node then
    local xaxis = node.world_rotation * Vector3(1, 0, 0)
    built.doors[d.name] = {pos = xyz(node.world_position), parent = node.parent and node.parent.name,
      xaxis = xyz(xaxis), errors = instance_errors(node, PREFABS.Door, true), open = node:var("Open"),
      panel = node:child("Panel") and node:child("Panel").enabled}
  end
end
for i, p in ipairs(LEVEL.props) do
  local spec = PREFABS[p.prefab]
  local want = centre(p.cell[1], p.cell[2])
  local found = nil
  for _, v in ipairs(h.find_all(spec.root)) do
    local q = v.world_position
    if abs(q.x - want.x) < 0.02 and abs(q.z - want.z) < 0.02 then found = v end
  end
  built.props[i] = found and {pos = xyz(found.world_position), yaw = yaw_of(found),
    parent = found.parent and found.parent.name, errors = instance_errors(found, spec)}
end

-- F9 before any save: nothing changes -----------------------------------------------------------------
phase_ = "nosave"
key_press(KEY_F9)
S.nosave = snap("F9 pressed before any save")
S.nosave_errors = #h.errors()
h.run_frames(GAP)

-- exploring: presses, walls, doors, a held key ------------------------------------------------------
phase_ = "explore"
press("E")                         -- [2,1]
press("E")                         -- the closed door K2V_Keep
press("N")                         -- [2,0]
press("N", true)                   -- the level's edge
press("E", true)                   -- a wall: [3,0] is rock
press("S", true)                   -- [2,1]
click_door("Door_K2V_Keep")
S.opened = SNAPS[#SNAPS]
press("E")                         -- [3,1]: the corridor
hold("E", 3)                       -- [4,1], [5,1], then the closed door K2V_Vault2 twice
-- richness: D held against the closed door; the door opens while it is held; the next repeat passes
phase_ = "held-door"
S.held = hold("E", 3, {before = 2, fn = function()
  local vp = h.viewport(0)
  local d = DOOR_BY_NAME["Door_K2V_Vault2"]
  local m = side_mid(d.a[1], d.a[2], d.side)
  if vp and vp.camera then
    local sp = h.world_to_screen(vp.camera, Vector3(m.x, 3.5, m.z))
    h.mouse_to(sp.x * SW, sp.y * SH)
    h.mouse_down(MOUSEB_LEFT)
    h.run_frames(1)
    h.mouse_up(MOUSEB_LEFT)
  else
    h.run_frames(1)
  end
  model.open["Door_K2V_Vault2"] = true
end})
phase_ = "explore"
if (explorer_cell() or {})[1] ~= 7 then   -- a game that did not pass (R12 says so) is brought to where it should be
  local c = explorer_cell()
  model.cell = c and {c[1], c[2]} or model.cell
  if c and c[1] == 5 then press("E") end
  if c and c[1] == 6 then press("E") end
end
S.in_vault = snap("in Vault2")
press("E")                         -- [8,1]
press("S")                         -- the closed door VH_Vault2
click_door("Door_VH_Vault2")
click_door("Door_VH_Hall")
hold("S", 2)                       -- [8,2], [8,3], [8,4]: the Hall
press("E")                         -- [9,4]
press("E")                         -- the Hall's east wall
S.before_save = snap("before F5")

-- saving ---------------------------------------------------------------------------------------------
phase_ = "save"
key_press(KEY_F5)
h.run_frames(1)
local saved_model = copy_model(model)
S.saved_text = read_file("saves/dungeon.xml")
S.save_frame = h.frame()
h.run_frames(GAP)

-- after the save: changes the load must undo ---------------------------------------------------------
phase_ = "after-save"
click_door("Door_VH_Hall")         -- closed again
press("W")                         -- [8,4]
press("W")                         -- [7,4]
press("W")                         -- the closed door HC_Hall
click_door("Door_HC_Hall")
hold("W", 2)                       -- [6,4], [5,4], then rock
press("S")                         -- [5,5]
press("W")                         -- [4,5]
press("W")                         -- the closed door HC_Crypt
S.before_load = snap("before F9")
phase_ = "right-click"
S.right = click_door("Door_HC_Crypt", MOUSEB_RIGHT)

-- the save file, edited: the explorer moved to [7,6], Door_K2V_Keep closed ----------------------------
local function edit_save(text)
  local xml = XMLFile()
  if text == nil or not xml:FromString(text) then return nil, "not XML" end
  local root = xml:GetRoot()
  local done = {}
  local open_hash = tostring(StringHash("Open").value)
  local function attr(elem, name)
    local a = elem:GetChild("attribute")
    while a:NotNull() do
      if a:GetAttribute("name") == name then return a end
      a = a:GetNext("attribute")
    end
    return nil
  end
  local function visit(elem)
    local n = elem:GetChild("node")
    while n:NotNull() do
      local name = attr(n, "Name")
      name = name and name:GetAttribute("value")
      if name == "Explorer" then
        local p = attr(n, "Position")
        local c = centre(7, 6)
        if p then p:SetAttribute("value", fmt("%g 0 %g", c.x, c.z)); done.explorer = true end
      elseif name == "Door_K2V_Keep" then
        local vars = attr(n, "Variables")
        local v = vars and vars:GetChild("variant")
        while v and v:NotNull() do
          if v:GetAttribute("hash") == open_hash or v:GetAttribute("name") == "Open" then
            v:SetAttribute("value", "false"); done.door = true
          end
          v = v:GetNext("variant")
        end
        local panel = n:GetChild("node")
        while panel:NotNull() do
          local pn = attr(panel, "Name")
          if pn and pn:GetAttribute("value") == "Panel" then
            local en = attr(panel, "Is Enabled")
            if en then en:SetAttribute("value", "true"); done.panel = true end
          end
          panel = panel:GetNext("node")
        end
      end
      visit(n)
      n = n:GetNext("node")
    end
  end
  visit(root)
  if not (done.explorer and done.door and done.panel) then return nil, "no Explorer position or Door_K2V_Keep in it" end
  return xml:ToString("\t")
end
local edited, edit_why = edit_save(S.saved_text)
S.edit_why = edit_why
if edited then write_file("saves/dungeon.xml", edited) end

-- loading --------------------------------------------------------------------------------------------
phase_ = "load"
model = copy_model(saved_model)
model.cell = {7, 6}
model.open["Door_K2V_Keep"] = false
key_press(KEY_F9)
S.loaded = snap("in the frame F9 went down")
S.loaded_counts = key_counts()
h.run_frames(GAP)
press("W")                         -- rock west of [7,6]
press("N")                         -- [7,5]
press("N")                         -- [7,4]
press("W")                         -- Door_HC_Hall: opened after the save, closed in the file
click_door("Door_HC_Hall")
press("W")                         -- [6,4]: the corridor, unvisited in the file
press("E")                         -- [7,4]
press("E")                         -- [8,4]
press("N")                         -- [8,3]: VH_Hall, closed after the save, is open in the file
press("N")                         -- [8,2]
press("N")                         -- [8,1]
hold("W", 5)                       -- [7,1], [6,1], [5,1], [4,1], [3,1]
press("W")                         -- Door_K2V_Keep: closed in the edited file
S.edited_door = SNAPS[#SNAPS]
click_door("Door_K2V_Keep")
press("W")                         -- [2,1]
S.after_load = snap("back in the Keep after the load")

-- tours of the whole level until two minutes have passed ---------------------------------------------
phase_ = "tours"
click_door("Door_KC_Keep")
click_door("Door_KC_Crypt")
click_door("Door_HC_Crypt")
local TOUR = {{"W", 0}, {"S", 3}, {"E", 3}, {"N", 0}, {"E", 2}, {"N", 2}, {"W", 5}}
S.tours = 0
while h.time() < 118 do
  for _, leg in ipairs(TOUR) do
    if leg[2] == 0 then press(leg[1]) else hold(leg[1], leg[2]) end
    h.run_frames(30)
  end
  S.tours = S.tours + 1
  snap(fmt("after tour %d", S.tours))
end
S.tour_end = SNAPS[#SNAPS]
phase_ = "resave"
key_press(KEY_F5)
h.run_frames(GAP)
press("E")                         -- [3,1], then back by loading
key_press(KEY_F9)
model.cell = {2, 1}
S.reloaded = snap("F9 after a second F5")
S.reloaded_counts = key_counts()
h.run_frames(GAP)
press("S")                         -- [2,2]
S.final = SNAPS[#SNAPS]
S.end_errors = #h.errors()

----------------------------------------------------------------------------------------------------
-- requirements
----------------------------------------------------------------------------------------------------
local TOL = 0.02
local function near_box(check, label, b, mn, mx)
  if b == nil then check.fail(label, "no StaticModel"); return end
  check.near(label .. ": world bounding box min", b.min, mn, TOL)
  check.near(label .. ": world bounding box max", b.max, mx, TOL)
end
local function expected_counts()
  local doors = 0
  for _ in pairs(DOOR_BY_NAME) do doors = doors + 1 end
  return {rooms = #LEVEL.rooms, corridors = #LEVEL.corridors, walls = WALL_COUNT, doors = doors, explorers = 1,
          dungeons = 1}
end
-- The key nodes counted against the level (walls are R4's business) or, after a load, against the counts of the
-- scene Start built (a load must not double anything).
local function check_counts(check, label, got, want)
  local against_level = want == nil
  want = want or expected_counts()
  for _, k in ipairs({"dungeons", "rooms", "corridors", "walls", "doors", "explorers"}) do
    if not (against_level and k == "walls") then
      check.equal(fmt("%s: nodes counted as %s", label, k), got and got[k], want[k])
    end
  end
end

requirement("R1", function(check)
  check.truthy("the scene has an Octree", built.octree)
  check.truthy("viewport 0 has a camera", built.camera)
  check.greater("the camera's height", built.camera and built.camera.y or 0, 6)
  check.equal("cells whose centre is off screen", built.camera and built.camera.off or "no camera", "")
  check.near("Dungeon's world position", built.dungeon and built.dungeon.pos, {x = 0, y = 0, z = 0}, TOL)
  check.truthy("Dungeon is a child of the scene", built.dungeon and built.dungeon.parent == built.dungeon.scene)
  local c = centre(LEVEL.start[1], LEVEL.start[2])
  check.near("Explorer's world position (the start cell's centre)", built.explorer and built.explorer.pos, c, TOL)
  check.truthy("Explorer has a StaticModel", built.explorer and built.explorer.model)
  check_counts(check, "when Start returned", built.counts)
end)

requirement("R2", function(check)
  for _, a in ipairs(AREAS) do
    if a.kind == "room" then
      local r, room = built.rooms[a.id], a.room
      local label = a.node
      check.near(label .. "'s world position", r.node and r.node.pos,
        {x = 4 * room.x + 2 * room.w, y = 0, z = -4 * room.y - 2 * room.h}, TOL)
      check.equal(label .. "'s parent", r.node and r.node.parent, "Dungeon")
      check.equal(label .. "/Floor's parent", r.floor_parent, a.node)
      check.equal(label .. "/Floor's model", r.floor and r.floor.model, "Models/Plane.mdl")
      near_box(check, label .. "/Floor", r.floor, {x = 4 * room.x, y = 0, z = -4 * (room.y + room.h)},
        {x = 4 * (room.x + room.w), y = 0, z = -4 * room.y})
      local l = r.lamp
      check.near(label .. "/Lamp's world position", l and l.pos,
        {x = 4 * room.x + 2 * room.w, y = 3, z = -4 * room.y - 2 * room.h}, TOL)
      check.equal(label .. "/Lamp's parent", l and l.parent, a.node)
      check.equal(label .. "/Lamp's light type", l and l.type, LIGHT_POINT)
      check.near(label .. "/Lamp's range", l and l.range or 0, 4 * max(room.w, room.h), 1e-3)
      check.near(label .. "/Lamp's colour", l and l.color and {l.color.r, l.color.g, l.color.b},
        {room.color[1], room.color[2], room.color[3]}, 0.01)
    end
  end
  check.equal("when Start returned: differences from the level's first state", S.start.diff, "")
end)

requirement("R3", function(check)
  for _, a in ipairs(AREAS) do
    if a.kind == "corridor" then
      local r = built.corridors[a.id]
      local first = a.corridor.cells[1]
      check.near(a.node .. "'s world position", r.node and r.node.pos, centre(first[1], first[2]), TOL)
      check.equal(a.node .. "'s parent", r.node and r.node.parent, "Dungeon")
      for _, t in ipairs(r.tiles) do
        local label = fmt("%s/Tile_%d_%d", a.node, t.cell[1], t.cell[2])
        check.equal(label .. "'s parent", t.parent, a.node)
        check.equal(label .. "'s model", t.box and t.box.model, "Models/Plane.mdl")
        near_box(check, label, t.box, {x = 4 * t.cell[1], y = 0, z = -4 * t.cell[2] - 4},
          {x = 4 * t.cell[1] + 4, y = 0, z = -4 * t.cell[2]})
      end
    end
  end
end)

requirement("R4", function(check)
  check.equal("nodes named Wall_*", built.counts.walls, WALL_COUNT)
  local bad = {}
  local names = {}
  for name in pairs(WALLS) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local w, b = WALLS[name], built.walls[name]
    local why = nil
    if b == nil then why = "missing (or not unique)"
    elseif b.parent ~= w.parent then why = "child of " .. tostring(b.parent)
    elseif b.box == nil or b.box.model ~= "Models/Box.mdl" then why = "not a Box StaticModel"
    else
      for _, c in ipairs({"x", "y", "z"}) do
        if abs(b.box.min[c] - w.min[c]) > TOL or abs(b.box.max[c] - w.max[c]) > TOL then why = "box off in " .. c end
      end
    end
    if why then bad[#bad + 1] = name .. ": " .. why end
  end
  check.equal(fmt("walls (of %d) that are wrong", WALL_COUNT), table.concat(bad, "; "), "")
end)

requirement("R5", function(check)
  check.equal("nodes named Door_*", built.counts.doors, #DOORS)
  for _, d in ipairs(DOORS) do
    local b = built.doors[d.name]
    check.truthy(d.name .. " exists once", b)
    if b then
      check.equal(d.name .. "'s parent", b.parent, d.corridor.node)
      check.near(d.name .. "'s world position", b.pos, side_mid(d.a[1], d.a[2], d.side), TOL)
      local along = (d.side == "N" or d.side == "S") and abs(b.xaxis.x) or abs(b.xaxis.z)
      check.greater(d.name .. ": its X axis runs along the doorway (cosine)", along, math.cos(math.rad(1)))
      check.equal(d.name .. ": differences from the Door prefab", b.errors, "")
      check.equal(d.name .. " starts closed (Open)", b.open, false)
      check.equal(d.name .. ": its Panel starts enabled", b.panel, true)
    end
  end
end)

requirement("R6", function(check)
  for i, p in ipairs(LEVEL.props) do
    local b = built.props[i]
    local label = fmt("the %s on %s", p.prefab, cell_text(p.cell))
    check.truthy(label .. " is there", b)
    if b then
      check.equal(label .. ": its parent", b.parent, CELLS[key(p.cell[1], p.cell[2])].area.node)
      check.near(label .. ": its height", b.pos.y, 0, TOL)
      check.near(label .. ": its yaw", yaw_diff(b.yaw, p.yaw), 0, 1)
      check.equal(label .. ": differences from Prefabs/" .. p.prefab .. ".xml", b.errors, "")
    end
  end
end)

-- The snapshots of some phases: the game against the model.
local function check_phases(check, phases, what, parts)
  local n = 0
  for _, s in ipairs(SNAPS) do
    if phases[s.phase] then
      check.at(s.frame).equal(fmt("%s: %s", s.label, what), differences(s.state, s.model, parts), "")
      n = n + 1
    end
  end
  return n
end

requirement("R7", function(check)
  check_phases(check, {explore = true, ["after-save"] = true, tours = true},
    "the explorer's cell, Visited and lamps against the model", {cell = true, visited = true})
  for _, r in ipairs(HOLDS) do
    if r.phase ~= "held-door" then
      check.at(r.end_frame).equal(fmt("%s: cells around each 0.4 s repeat", r.label), r.got, r.expected)
    end
  end
end)

requirement("R8", function(check)
  local n = 0
  for _, s in ipairs(SNAPS) do
    if s.label:match("^clicked") and s.phase ~= "right-click" then
      check.at(s.frame).equal(s.label .. ": the doors against the model", differences(s.state, s.model,
        {doors = true}), "")
      n = n + 1
    end
  end
  check.greater("door clicks checked", n, 8)
end)

requirement("R9", function(check)
  for _, s in ipairs(SNAPS) do
    if s.frame > 0 then
      check.at(s.frame).equal(s.label .. ": minimap points not drawn as the scene's state says", s.map, "")
    end
  end
end)

requirement("R10", function(check)
  local text = S.saved_text
  check.truthy("saves/dungeon.xml exists after F5", text)
  if text == nil then return end
  local xml = XMLFile()
  local ok = xml:FromString(text)
  check.truthy("saves/dungeon.xml is XML", ok)
  local root = ok and xml:GetRoot()
  check.equal("its root element", root and root:GetName(), "scene")
  local names = {}
  local function visit(elem)
    local n = elem:GetChild("node")
    while n:NotNull() do
      local a = n:GetChild("attribute")
      while a:NotNull() do
        if a:GetAttribute("name") == "Name" then
          local v = a:GetAttribute("value")
          names[v] = (names[v] or 0) + 1
        end
        a = a:GetNext("attribute")
      end
      visit(n)
      n = n:GetNext("node")
    end
  end
  if root then visit(root) end
  local missing = {}
  for _, n in ipairs({"Dungeon", "Explorer"}) do if names[n] ~= 1 then missing[#missing + 1] = n end end
  for _, a in ipairs(AREAS) do if names[a.node] ~= 1 then missing[#missing + 1] = a.node end end
  for _, d in ipairs(DOORS) do if names[d.name] ~= 1 then missing[#missing + 1] = d.name end end
  for name in pairs(WALLS) do if names[name] ~= 1 then missing[#missing + 1] = name end end
  table.sort(missing)
  check.equal("nodes not saved exactly once", table.concat(missing, " "), "")
  check.equal("the edit of the saved file (explorer moved, a door closed) found what it edits", S.edit_why, nil)
end)

requirement("R11", function(check)
  check.at(S.loaded.frame).equal("in the frame F9 went down: differences from the edited file", S.loaded.diff, "")
  check_counts(check, "after F9, against the scene Start built", S.loaded_counts, built.counts)
  check_phases(check, {load = true}, "differences from the model")
  check.at(S.edited_door.frame).equal("the door closed in the edited file blocks the way", S.edited_door.diff, "")
  check.at(S.reloaded.frame).equal("F9 after a second F5: differences", S.reloaded.diff, "")
  check_counts(check, "after a second F5 and F9, against the scene Start built", S.reloaded_counts, built.counts)
  check.at(S.final.frame).equal("a move after the second load", S.final.diff, "")
  check.equal("Lua errors while saving and loading", S.end_errors - S.start_errors, 0)
end)

requirement("R12", function(check)
  local r = S.held
  check.at(r.end_frame).equal("E held against a closed door that a click opens before the second repeat",
    r.got, r.expected)
end)

requirement("R13", function(check)
  check.at(S.right.frame).equal("a right click on Door_HC_Crypt: differences", S.right.diff, "")
end)

requirement("R14", function(check)
  check.at(S.nosave.frame).equal("F9 before any save: differences from the first state", S.nosave.diff, "")
  check.at(S.nosave.frame).equal("F9 before any save: Lua errors", S.nosave_errors - S.start_errors, 0)
  local c = S.nosave.state.cell
  check.at(S.nosave.frame).equal("F9 before any save: the explorer's cell", cell_text(c), cell_text(LEVEL.start))
end)
