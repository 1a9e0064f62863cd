-- Battery for scene-city-block: reads the block's hierarchy, boxes and materials, then clicks at the screen
-- projections of chosen world points (roofs, a floor's face, a plaza, the ground, the sky, the air beside a roof)
-- and reads City's Selected variable and every floor's material after each click's frame.
local h = harness
local fmt = string.format

local LAYOUT = {
  {3, 1, 0, 2},
  {2, 0, 4, 1},
  {1, 2, 3, 0},
}
local TOL = 0.02
local HIGHLIGHT = "Materials/GreenTransparent.xml"
local SW, SH = h.screen()

local BUILDINGS, PLAZAS = {}, {}
for r, row in ipairs(LAYOUT) do
  for c, n in ipairs(row) do
    local lot = {r = r - 1, c = c - 1, floors = n, x = 10 * (c - 1), z = -10 * (r - 1)}
    lot.name = fmt("%s_%d_%d", n > 0 and "Building" or "Plaza", r - 1, c - 1)
    if n > 0 then BUILDINGS[#BUILDINGS + 1] = lot else PLAZAS[#PLAZAS + 1] = lot end
  end
end

local function unique(name)
  local all = h.find_all(name)
  return #all == 1 and all[1] or nil, #all
end
local function direct_child(node, name)
  for _, c in ipairs(node and node.children or {}) do if c.name == name then return c end end
  return nil
end
local function model_info(node)
  local sm = node and node:component("StaticModel")
  if sm == nil then return nil end
  local model, material, box = sm:get("Model"), sm:get("Material"), sm:get("worldBoundingBox")
  return {model = model and model:GetName(), material = material and material:GetName() or "",
          min = box and {x = box.min.x, y = box.min.y, z = box.min.z},
          max = box and {x = box.max.x, y = box.max.y, z = box.max.z}}
end

-- The floors' materials of every building, and the Selected variable, copied now.
local function selection(label)
  local s = {label = label, frame = h.frame(), floors = {}, roofs = {}}
  local city = unique("City")
  s.selected = city and city:var("Selected")
  for _, b in ipairs(BUILDINGS) do
    local node = unique(b.name)
    local list = {}
    for k = 1, b.floors do
      local info = model_info(direct_child(node, "Floor_" .. k))
      list[k] = info and info.material or "(no floor)"
    end
    s.floors[b.name] = list
    local roof = model_info(direct_child(node, "Roof"))
    s.roofs[b.name] = roof and roof.material or "(no roof)"
  end
  return s
end

local camera_node = unique("Camera")
-- Click at the screen point where `p` (a world point) is seen by the game's camera, or at a screen point.
local function click_world(label, p, button)
  local cam = camera_node and camera_node:component("Camera")
  if cam == nil then return {label = label, frame = h.frame(), floors = {}, roofs = {}, no_camera = true} end
  local sp = h.world_to_screen(cam, Vector3(p.x, p.y, p.z))
  h.click(sp.x * SW, sp.y * SH, button)
  local s = selection(label)
  h.run_frames(1)
  return s
end
local function click_screen(label, x, y)
  h.click(x, y)
  local s = selection(label)
  h.run_frames(1)
  return s
end

-- drive --------------------------------------------------------------------------------------------
h.start()
camera_node = unique("Camera")
local S = {}
S.start = selection("when Start returned")
h.run_frames(2)

-- the structure, read before any click
local struct = {}
for _, lot in ipairs(BUILDINGS) do
  local node = unique(lot.name)
  local row = {node = node, floors = {}}
  for k = 1, lot.floors + 1 do row.floors[k] = model_info(direct_child(node, "Floor_" .. k)) end
  row.roof = model_info(direct_child(node, "Roof"))
  struct[lot.name] = row
end
for _, lot in ipairs(PLAZAS) do
  local node = unique(lot.name)
  local lamp = direct_child(node, "Lamp")
  local light = lamp and lamp:component("Light")
  struct[lot.name] = {node = node, plane = model_info(node), lamp = lamp,
    light = light and {type = light:get("LightType"), range = light:get("Range")}}
end

local clicks = {}
clicks.roof_1_2 = click_world("left click on Building_1_2's roof", {x = 20, y = 12.3, z = -10})
clicks.plaza = click_world("left click on Plaza_2_3", {x = 30, y = 0, z = -20})
clicks.roof_0_0 = click_world("left click on Building_0_0's roof", {x = 0, y = 9.3, z = 0})
clicks.floor_2_1 = click_world("left click on the front of Building_2_1's ground floor", {x = 10, y = 1.5, z = -24})
clicks.right = click_world("right click on Building_1_2's roof", {x = 20, y = 12.3, z = -10}, MOUSEB_RIGHT)
clicks.sky = click_screen("left click on the sky at the top of the screen", SW / 2, 4)
clicks.roof_2_2 = click_world("left click on Building_2_2's roof", {x = 20, y = 9.3, z = -20})
clicks.ground = click_world("left click on the ground south-west of the block", {x = -8, y = 0, z = -30})
clicks.roof_0_3 = click_world("left click on Building_0_3's roof", {x = 30, y = 6.3, z = 0})
clicks.beside = click_world("left click on the air beside Building_1_2's roof (inside its bounding box)",
  {x = 23.5, y = 13.8, z = -6.5})

-- requirements -------------------------------------------------------------------------------------
local function near_box(check, label, info, min, max)
  if info == nil or info.min == nil then check.fail(label, "no StaticModel"); return end
  check.near(label .. ": world bounding box min", info.min, min, TOL)
  check.near(label .. ": world bounding box max", info.max, max, TOL)
end

requirement("R1", function(check)
  local octree = false
  for _, scene in ipairs(h.scenes()) do if scene:component("Octree") then octree = true end end
  check.truthy("a scene has an Octree component", octree)
  local cam = unique("Camera")
  check.truthy("exactly one node named Camera with a Camera component", cam and cam:component("Camera"))
  check.near("Camera's world position", cam and cam.world_position, {x = 15, y = 40, z = -50}, TOL)
  local d = 1 / math.sqrt(2)
  check.near("Camera looks at (15, 0, -10)", cam and cam.direction, {x = 0, y = -d, z = d}, 0.005)
  local sun = unique("Sun")
  local light = sun and sun:component("Light")
  check.equal("Sun has a directional Light", light and light:get("LightType"), LIGHT_DIRECTIONAL)
end)

requirement("R2", function(check)
  local city = unique("City")
  check.truthy("exactly one node named City", city)
  check.near("City's world position", city and city.world_position, {x = 0, y = 0, z = 0}, TOL)
  for _, list in ipairs({BUILDINGS, PLAZAS}) do
    for _, lot in ipairs(list) do
      local node, n = unique(lot.name)
      check.equal(fmt("nodes named %s", lot.name), n, 1)
      check.truthy(lot.name .. " is a child of City", node and city and node.parent and node.parent.id == city.id)
      check.near(lot.name .. "'s world position", node and node.world_position, {x = lot.x, y = 0, z = lot.z}, TOL)
    end
  end
  local extra = h.count_nodes(function(v)
    return (v.name:match("^Building_") or v.name:match("^Plaza_")) ~= nil
  end)
  check.equal("nodes named Building_* or Plaza_*", extra, #BUILDINGS + #PLAZAS)
end)

requirement("R3", function(check)
  for _, lot in ipairs(BUILDINGS) do
    local row = struct[lot.name]
    for k = 1, lot.floors do
      local label = fmt("%s/Floor_%d", lot.name, k)
      local info = row.floors[k]
      check.equal(label .. "'s model", info and info.model, "Models/Box.mdl")
      near_box(check, label, info, {x = lot.x - 4, y = 3 * (k - 1), z = lot.z - 4}, {x = lot.x + 4, y = 3 * k, z = lot.z + 4})
      check.equal(label .. "'s material", info and info.material,
        k == 1 and "Materials/Stone.xml" or "Materials/StoneTiled.xml")
    end
    check.falsy(fmt("%s has no Floor_%d", lot.name, lot.floors + 1), row.floors[lot.floors + 1])
  end
end)

requirement("R4", function(check)
  for _, lot in ipairs(BUILDINGS) do
    local info = struct[lot.name].roof
    local label = lot.name .. "/Roof"
    check.equal(label .. "'s model", info and info.model, "Models/Pyramid.mdl")
    near_box(check, label, info, {x = lot.x - 4, y = 3 * lot.floors, z = lot.z - 4},
      {x = lot.x + 4, y = 3 * lot.floors + 2, z = lot.z + 4})
    check.equal(label .. "'s material", info and info.material, "Materials/DefaultGrey.xml")
  end
end)

requirement("R5", function(check)
  for _, lot in ipairs(PLAZAS) do
    local row = struct[lot.name]
    check.equal(lot.name .. "'s model", row.plane and row.plane.model, "Models/Plane.mdl")
    near_box(check, lot.name, row.plane, {x = lot.x - 4, y = 0, z = lot.z - 4}, {x = lot.x + 4, y = 0, z = lot.z + 4})
    check.equal(lot.name .. "'s material", row.plane and row.plane.material, "Materials/StoneSmall.xml")
    check.near(lot.name .. "/Lamp's world position", row.lamp and row.lamp.world_position,
      {x = lot.x, y = 4, z = lot.z}, TOL)
    check.equal(lot.name .. "/Lamp's light type", row.light and row.light.type, LIGHT_POINT)
    check.near(lot.name .. "/Lamp's light range", row.light and row.light.range, 8, 1e-4)
  end
end)

local function highlighted(s)
  local out = {}
  for _, lot in ipairs(BUILDINGS) do
    for _, m in ipairs(s.floors[lot.name] or {}) do
      if m == HIGHLIGHT then out[#out + 1] = lot.name; break end
    end
  end
  return table.concat(out, ",")
end

local function check_selected(check, s, name)
  local at = check.at(s.frame)
  at.equal(s.label .. ": City's Selected", s.selected, name)
  at.equal(s.label .. ": the buildings with a highlighted floor", highlighted(s), name)
  local floors = s.floors[name] or {}
  local all = #floors > 0
  for _, m in ipairs(floors) do if m ~= HIGHLIGHT then all = false end end
  at.truthy(s.label .. ": every floor of " .. name .. " shows " .. HIGHLIGHT, all)
  at.equal(s.label .. ": " .. name .. "'s roof material", s.roofs[name], "Materials/DefaultGrey.xml")
end
local function check_none(check, s)
  local at = check.at(s.frame)
  at.equal(s.label .. ": City's Selected", s.selected, "")
  at.equal(s.label .. ": the buildings with a highlighted floor", highlighted(s), "")
end

requirement("R6", function(check)
  check_none(check, S.start)
  check_selected(check, clicks.roof_1_2, "Building_1_2")
  check_selected(check, clicks.roof_0_0, "Building_0_0")
  check_selected(check, clicks.floor_2_1, "Building_2_1")
  check_selected(check, clicks.roof_2_2, "Building_2_2")
  check_selected(check, clicks.roof_0_3, "Building_0_3")
end)

requirement("R7", function(check)
  check_none(check, clicks.plaza)
  check_none(check, clicks.sky)
  check_none(check, clicks.ground)
end)

requirement("R8", function(check)
  for _, s in ipairs({clicks.plaza, clicks.sky, clicks.ground}) do
    for _, lot in ipairs(BUILDINGS) do
      for k, m in ipairs(s.floors[lot.name] or {}) do
        check.at(s.frame).equal(fmt("%s: %s/Floor_%d's material", s.label, lot.name, k), m,
          k == 1 and "Materials/Stone.xml" or "Materials/StoneTiled.xml")
      end
    end
  end
end)

requirement("R9", function(check)
  local s = clicks.beside
  check.at(s.frame).truthy(s.label .. ": Building_1_2 is not selected", s.selected ~= "Building_1_2")
  check.at(s.frame).truthy(s.label .. ": Building_1_2's floors are not highlighted",
    (s.floors["Building_1_2"] or {})[1] ~= HIGHLIGHT)
end)

requirement("R10", function(check)
  check_selected(check, clicks.right, "Building_2_1")
end)
