-- Oracle: a dungeon built from data/level.json.  Rooms, corridors and walls are built in code; doors and props
-- are instances of the prefab files.  Every piece of state the game needs after a load lives in the scene (the
-- explorer's node, the doors' Open variables and panels, the Visited variables and the lamps): the Lua side keeps
-- only the level's layout (which never changes) and the key repeat, and finds its nodes again after F9.

----------------------------------------------------------------------------------------------------
-- constants, all from the task
----------------------------------------------------------------------------------------------------
local LEVEL_FILE = "data/level.json"
local SAVE_DIR, SAVE_FILE = "saves", "saves/dungeon.xml"
local CELL, WALL_HEIGHT, WALL_THICKNESS, LAMP_HEIGHT = 4.0, 3.0, 0.2, 3.0
local REPEAT_SECONDS = 0.4

local MAP_CELL, MAP_MARGIN, DOOR_MARK, EXPLORER_RADIUS = 12, 16, 6, 4
local MAP_BACKGROUND = {30, 30, 30}
local MAP_ROOM, MAP_CORRIDOR = {200, 200, 200}, {140, 140, 140}
local MAP_DOOR_CLOSED, MAP_DOOR_OPEN = {220, 60, 60}, {60, 200, 60}
local MAP_EXPLORER = {255, 220, 0}

-- The four sides of a cell: the neighbour's offset in cells, and the side's direction in the world.
local SIDES = {
  N = {dx = 0, dy = -1, wx = 0, wz = 1},
  S = {dx = 0, dy = 1, wx = 0, wz = -1},
  E = {dx = 1, dy = 0, wx = 1, wz = 0},
  W = {dx = -1, dy = 0, wx = -1, wz = 0},
}
local SIDE_ORDER = {"N", "E", "S", "W"}
local KEY_SIDES = {[KEY_W] = "N", [KEY_UP] = "N", [KEY_S] = "S", [KEY_DOWN] = "S", [KEY_D] = "E", [KEY_RIGHT] = "E",
                   [KEY_A] = "W", [KEY_LEFT] = "W"}

----------------------------------------------------------------------------------------------------
-- the level's layout (read once; a load never changes it)
----------------------------------------------------------------------------------------------------
---@type table {cols, rows, start, rooms = {...}, corridors = {...}, props = {...}, room_by_id}
local level_ = nil
---@type table<string, table> "x,y" -> {kind = "room" | "corridor", area = room or corridor, index}
local cells_ = {}
---@type table[] {name, corridor, room, a = corridor cell, b = room cell, side (from a)}
local doors_ = {}
---@type table<string, table> "x,y|x,y" (both orders) -> door
local door_at_ = {}

local function key(x, y) return x .. "," .. y end
local function cell_centre(x, y) return Vector3(CELL * x + CELL / 2, 0, -CELL * y - CELL / 2) end
local function side_centre(x, y, side)
  local s = SIDES[side]
  return cell_centre(x, y) + Vector3(s.wx * CELL / 2, 0, s.wz * CELL / 2)
end
local function side_between(a, b)
  for _, name in ipairs(SIDE_ORDER) do
    local s = SIDES[name]
    if a[1] + s.dx == b[1] and a[2] + s.dy == b[2] then return name end
  end
  return nil
end

local function ints(value)
  local out = {}
  for i, v in ipairs(value:GetArray()) do out[i] = v:GetInt() end
  return out
end

local function read_level()
  local file = cache:GetResource("JSONFile", LEVEL_FILE)
  local root = file:GetRoot()
  local size = ints(root:Get("size"))
  local level = {cols = size[1], rows = size[2], start = ints(root:Get("start")), rooms = {}, corridors = {},
                 props = {}, room_by_id = {}}
  for _, r in ipairs(root:Get("rooms"):GetArray()) do
    local c = r:Get("color"):GetArray()
    local room = {id = r:Get("id"):GetString(), x = r:Get("x"):GetInt(), y = r:Get("y"):GetInt(),
                  w = r:Get("w"):GetInt(), h = r:Get("h"):GetInt(),
                  color = Color(c[1]:GetFloat(), c[2]:GetFloat(), c[3]:GetFloat())}
    room.node_name = "Room_" .. room.id
    level.rooms[#level.rooms + 1] = room
    level.room_by_id[room.id] = room
    for y = room.y, room.y + room.h - 1 do
      for x = room.x, room.x + room.w - 1 do cells_[key(x, y)] = {kind = "room", area = room} end
    end
  end
  for _, c in ipairs(root:Get("corridors"):GetArray()) do
    local corridor = {id = c:Get("id"):GetString(), from = c:Get("from"):GetString(), to = c:Get("to"):GetString(),
                      cells = {}}
    corridor.node_name = "Corridor_" .. corridor.id
    for i, cell in ipairs(c:Get("cells"):GetArray()) do
      local xy = ints(cell)
      corridor.cells[i] = xy
      cells_[key(xy[1], xy[2])] = {kind = "corridor", area = corridor, index = i}
    end
    level.corridors[#level.corridors + 1] = corridor
  end
  for _, p in ipairs(root:Get("props"):GetArray()) do
    level.props[#level.props + 1] = {prefab = p:Get("prefab"):GetString(), cell = ints(p:Get("cell")),
                                     yaw = p:Get("yaw"):GetFloat()}
  end
  return level
end

-- A doorway: the corridor's end cell and the cell of `room_id` beside it.
local function find_doorway(corridor, end_cell, room_id)
  for _, name in ipairs(SIDE_ORDER) do
    local s = SIDES[name]
    local other = cells_[key(end_cell[1] + s.dx, end_cell[2] + s.dy)]
    if other and other.kind == "room" and other.area.id == room_id then
      return {end_cell[1] + s.dx, end_cell[2] + s.dy}, name
    end
  end
  return nil, nil
end

local function plan_doors()
  for _, corridor in ipairs(level_.corridors) do
    ---@type table[]
    local ends = {{corridor.cells[1], corridor.from}, {corridor.cells[#corridor.cells], corridor.to}}
    for _, e in ipairs(ends) do
      local room_cell, side = find_doorway(corridor, e[1], e[2])
      if room_cell then
        local door = {name = string.format("Door_%s_%s", corridor.id, e[2]), corridor = corridor,
                      room = level_.room_by_id[e[2]], a = e[1], b = room_cell, side = side}
        doors_[#doors_ + 1] = door
        door_at_[key(e[1][1], e[1][2]) .. "|" .. key(room_cell[1], room_cell[2])] = door
        door_at_[key(room_cell[1], room_cell[2]) .. "|" .. key(e[1][1], e[1][2])] = door
      end
    end
  end
end

-- Whether the side between two neighbouring cells is open ground (same room, consecutive corridor cells).
local function joined(a, b)
  local ca, cb = cells_[key(a[1], a[2])], cells_[key(b[1], b[2])]
  if ca == nil or cb == nil or ca.area ~= cb.area then return false end
  if ca.kind == "room" then return true end
  return math.abs(ca.index - cb.index) == 1
end

----------------------------------------------------------------------------------------------------
-- the scene's nodes (found again after every load)
----------------------------------------------------------------------------------------------------
local scene_, dungeon_, camera_, octree_
---@type Node
local explorer_
local vg_

local function area_node(area) return dungeon_:GetChild(area.node_name) end
local function door_node(door)
  local corridor = area_node(door.corridor)
  return corridor and corridor:GetChild(door.name)
end
local function is_open(door)
  local node = door_node(door)
  return node ~= nil and node:GetVar("Open"):GetBool()
end
local function visited(area)
  local node = area_node(area)
  return node ~= nil and node:GetVar("Visited"):GetBool()
end
local function explorer_cell()
  local p = explorer_.worldPosition
  return {math.floor(p.x / CELL), math.floor(-p.z / CELL)}
end

----------------------------------------------------------------------------------------------------
-- building
----------------------------------------------------------------------------------------------------
local function model_child(parent, name, model, material, world_position, scale)
  local node = parent:CreateChild(name)
  node.worldPosition = world_position
  node.scale = scale
  local sm = node:CreateComponent("StaticModel")
  sm.model = cache:GetResource("Model", model)
  sm.material = cache:GetResource("Material", material)
  return node
end

-- An instance of Prefabs/<name>.xml with its root at `position`, turned `yaw` degrees, under `parent`.
local function instance(prefab, parent, position, yaw)
  local xml = cache:GetResource("XMLFile", "Prefabs/" .. prefab .. ".xml")
  local node = scene_:InstantiateXML(xml:GetRoot(), position, Quaternion(yaw, Vector3.UP))
  node:SetParent(parent)
  return node
end

local function build_walls(parent, cell)
  for _, name in ipairs(SIDE_ORDER) do
    local s = SIDES[name]
    local other = {cell[1] + s.dx, cell[2] + s.dy}
    local doorway = door_at_[key(cell[1], cell[2]) .. "|" .. key(other[1], other[2])]
    if not joined(cell, other) and doorway == nil then
      local along_x = s.wz ~= 0
      local scale = along_x and Vector3(CELL, WALL_HEIGHT, WALL_THICKNESS) or Vector3(WALL_THICKNESS, WALL_HEIGHT, CELL)
      model_child(parent, string.format("Wall_%d_%d_%s", cell[1], cell[2], name), "Models/Box.mdl",
        "Materials/Stone.xml", side_centre(cell[1], cell[2], name) + Vector3(0, WALL_HEIGHT / 2, 0), scale)
    end
  end
end

local function build_room(room)
  local node = dungeon_:CreateChild(room.node_name)
  node.worldPosition = Vector3(CELL * room.x + CELL * room.w / 2, 0, -CELL * room.y - CELL * room.h / 2)
  node:SetVar("Visited", Variant(false))
  model_child(node, "Floor", "Models/Plane.mdl", "Materials/StoneTiled.xml", node.worldPosition,
    Vector3(CELL * room.w, 1, CELL * room.h))
  local lamp = node:CreateChild("Lamp")
  lamp.position = Vector3(0, LAMP_HEIGHT, 0)
  local light = lamp:CreateComponent("Light")
  light.lightType = LIGHT_POINT
  light.color = room.color
  light.range = CELL * math.max(room.w, room.h)
  lamp:SetEnabled(false)
  for y = room.y, room.y + room.h - 1 do
    for x = room.x, room.x + room.w - 1 do build_walls(node, {x, y}) end
  end
end

local function build_corridor(corridor)
  local node = dungeon_:CreateChild(corridor.node_name)
  node.worldPosition = cell_centre(corridor.cells[1][1], corridor.cells[1][2])
  node:SetVar("Visited", Variant(false))
  for _, cell in ipairs(corridor.cells) do
    model_child(node, string.format("Tile_%d_%d", cell[1], cell[2]), "Models/Plane.mdl", "Materials/StoneSmall.xml",
      cell_centre(cell[1], cell[2]), Vector3(CELL, 1, CELL))
    build_walls(node, cell)
  end
end

local function build_doors()
  for _, door in ipairs(doors_) do
    local yaw = (door.side == "N" or door.side == "S") and 0 or 90
    local node = instance("Door", area_node(door.corridor), side_centre(door.a[1], door.a[2], door.side), yaw)
    node.name = door.name
  end
end

local function build_props()
  for _, prop in ipairs(level_.props) do
    local cell = cells_[key(prop.cell[1], prop.cell[2])]
    instance(prop.prefab, area_node(cell.area), cell_centre(prop.cell[1], prop.cell[2]), prop.yaw)
  end
end

local function build_camera()
  local w, d = CELL * level_.cols, CELL * level_.rows
  local centre = Vector3(w / 2, 0, -d / 2)
  local node = scene_:CreateChild("Camera")
  local height = math.max(w, d) * 1.25 + 6
  node.position = centre + Vector3(0, height, -height * 0.25)
  node:LookAt(centre)
  local camera = node:CreateComponent("Camera")
  camera.farClip = 500
end

local function build_environment()
  local zone = scene_:CreateComponent("Zone")
  zone.boundingBox = BoundingBox(-500, 500)
  zone.ambientColor = Color(0.25, 0.25, 0.3)
  local sun = scene_:CreateChild("Sun")
  sun.direction = Vector3(0.3, -1.0, 0.4)
  sun:CreateComponent("Light").lightType = LIGHT_DIRECTIONAL
end

local function build_explorer()
  explorer_ = scene_:CreateChild("Explorer")
  explorer_.worldPosition = cell_centre(level_.start[1], level_.start[2])
  model_child(explorer_, "Body", "Models/Cylinder.mdl", "Materials/GreenTransparent.xml",
    explorer_.worldPosition + Vector3(0, 0.75, 0), Vector3(1, 1.5, 1))
end

----------------------------------------------------------------------------------------------------
-- the game's nodes after a build or a load
----------------------------------------------------------------------------------------------------
local function bind()
  dungeon_ = scene_:GetChild("Dungeon")
  explorer_ = scene_:GetChild("Explorer")
  octree_ = scene_:GetComponent("Octree")
  camera_ = scene_:GetChild("Camera"):GetComponent("Camera")
  renderer:SetViewport(0, Viewport:new(scene_, camera_))
end

----------------------------------------------------------------------------------------------------
-- exploring
----------------------------------------------------------------------------------------------------
local held_key_, repeat_in_ = nil, 0.0
local pressed_now_ = false        -- the held key went down this frame: its repeat counts from the next

local function visit(cell)
  local info = cells_[key(cell[1], cell[2])]
  local node = area_node(info.area)
  node:SetVar("Visited", Variant(true))
  if info.kind == "room" then node:GetChild("Lamp"):SetEnabled(true) end
end

local function try_move(side)
  local from = explorer_cell()
  local s = SIDES[side]
  local to = {from[1] + s.dx, from[2] + s.dy}
  local door = door_at_[key(from[1], from[2]) .. "|" .. key(to[1], to[2])]
  if not joined(from, to) and not (door and is_open(door)) then return end
  explorer_.worldPosition = cell_centre(to[1], to[2])
  visit(to)
end

local function toggle(door_root)
  local open = not door_root:GetVar("Open"):GetBool()
  door_root:SetVar("Open", Variant(open))
  door_root:GetChild("Panel"):SetEnabled(not open)
end

-- The door instance a node belongs to: the node or its ancestor named Door_* under a corridor.
local function door_of(node)
  while node ~= nil and node ~= scene_ do
    local parent = node.parent
    if node.name:sub(1, 5) == "Door_" and parent ~= nil and parent.name:sub(1, 9) == "Corridor_" then return node end
    node = parent
  end
  return nil
end

local function pick(x, y)
  local ray = camera_:GetScreenRay(x / graphics.width, y / graphics.height)
  local hit = octree_:RaycastSingle(ray, RAY_TRIANGLE, 1000, DRAWABLE_GEOMETRY)
  local door = hit.drawable and door_of(hit.node)
  if door then toggle(door) end
end

----------------------------------------------------------------------------------------------------
-- saving and loading
----------------------------------------------------------------------------------------------------
local function save()
  fileSystem:CreateDir(SAVE_DIR)
  local file = File(SAVE_FILE, FILE_WRITE)
  scene_:SaveXML(file)
  file:Close()
end

local function load()
  if not fileSystem:FileExists(SAVE_FILE) then return end
  local file = File(SAVE_FILE, FILE_READ)
  local ok = scene_:LoadXML(file)
  file:Close()
  if ok then bind() end
end

----------------------------------------------------------------------------------------------------
-- the minimap
----------------------------------------------------------------------------------------------------
local function fill(rgb, shape, a, b, c, d)
  nvgBeginPath(vg_)
  if shape == "circle" then nvgCircle(vg_, a, b, c) else nvgRect(vg_, a, b, c, d) end
  nvgFillColor(vg_, nvgRGBA(rgb[1], rgb[2], rgb[3], 255))
  nvgFill(vg_)
end

local function draw_minimap(width)
  local seen = {}                 -- area -> visited, read once a frame
  local function seen_area(area)
    if seen[area] == nil then seen[area] = visited(area) end
    return seen[area]
  end
  local left = width - MAP_MARGIN - MAP_CELL * level_.cols
  local function corner(x, y) return left + MAP_CELL * x, MAP_MARGIN + MAP_CELL * y end
  fill(MAP_BACKGROUND, "rect", left, MAP_MARGIN, MAP_CELL * level_.cols, MAP_CELL * level_.rows)
  -- a visited room's cells as one rectangle (the same pixels as one square per cell, fewer draw calls)
  for _, room in ipairs(level_.rooms) do
    if seen_area(room) then
      local px, py = corner(room.x, room.y)
      fill(MAP_ROOM, "rect", px, py, MAP_CELL * room.w, MAP_CELL * room.h)
    end
  end
  for _, corridor in ipairs(level_.corridors) do
    if seen_area(corridor) then
      for _, cell in ipairs(corridor.cells) do
        local px, py = corner(cell[1], cell[2])
        fill(MAP_CORRIDOR, "rect", px, py, MAP_CELL, MAP_CELL)
      end
    end
  end
  for _, door in ipairs(doors_) do
    if seen_area(door.corridor) or seen_area(door.room) then
      local px, py = corner(door.a[1], door.a[2])
      local s = SIDES[door.side]
      local cx, cy = px + MAP_CELL / 2 + s.dx * MAP_CELL / 2, py + MAP_CELL / 2 + s.dy * MAP_CELL / 2
      fill(is_open(door) and MAP_DOOR_OPEN or MAP_DOOR_CLOSED, "rect", cx - DOOR_MARK / 2, cy - DOOR_MARK / 2,
        DOOR_MARK, DOOR_MARK)
    end
  end
  local cell = explorer_cell()
  local px, py = corner(cell[1], cell[2])
  fill(MAP_EXPLORER, "circle", px + MAP_CELL / 2, py + MAP_CELL / 2, EXPLORER_RADIUS)
end

----------------------------------------------------------------------------------------------------
-- the game
----------------------------------------------------------------------------------------------------
function Start()
  level_ = read_level()
  plan_doors()

  scene_ = Scene()
  scene_:CreateComponent("Octree")
  build_environment()
  build_camera()
  dungeon_ = scene_:CreateChild("Dungeon")
  for _, room in ipairs(level_.rooms) do build_room(room) end
  for _, corridor in ipairs(level_.corridors) do build_corridor(corridor) end
  build_doors()
  build_props()
  build_explorer()
  bind()
  visit(level_.start)

  input.mouseVisible = true
  vg_ = nvgCreate(1)
  SubscribeToEvent("KeyDown", "HandleKeyDown")
  SubscribeToEvent("KeyUp", "HandleKeyUp")
  SubscribeToEvent("MouseButtonDown", "HandleMouseButtonDown")
  SubscribeToEvent("Update", "HandleUpdate")
  SubscribeToEvent(vg_, "NanoVGRender", "HandleRender")
end

function HandleKeyDown(eventType, eventData)
  if eventData["Repeat"]:GetBool() then return end
  local key_code = eventData["Key"]:GetInt()
  if key_code == KEY_F5 then
    save()
  elseif key_code == KEY_F9 then
    load()
  elseif KEY_SIDES[key_code] then
    held_key_, repeat_in_, pressed_now_ = key_code, REPEAT_SECONDS, true
    try_move(KEY_SIDES[key_code])
  end
end

function HandleKeyUp(eventType, eventData)
  if eventData["Key"]:GetInt() == held_key_ then held_key_ = nil end
end

function HandleMouseButtonDown(eventType, eventData)
  if eventData["Button"]:GetInt() ~= MOUSEB_LEFT then return end
  local pos = input.mousePosition
  pick(pos.x, pos.y)
end

function HandleUpdate(eventType, eventData)
  if held_key_ == nil then return end
  if pressed_now_ then
    pressed_now_ = false
    return
  end
  local dt = eventData["TimeStep"]:GetFloat()
  repeat_in_ = repeat_in_ - dt
  if repeat_in_ <= 1e-6 then
    repeat_in_ = repeat_in_ + REPEAT_SECONDS
    try_move(KEY_SIDES[held_key_])
  end
end

function HandleRender(eventType, eventData)
  nvgBeginFrame(vg_, graphics.width, graphics.height, 1.0)
  draw_minimap(graphics.width)
  nvgEndFrame(vg_)
end
