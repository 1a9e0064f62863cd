-- Battery for scene-solar-system: scene contents, hierarchy, and the orbits sampled at fixed times.
local h = harness
local sqrt, cos, sin, pi, abs = math.sqrt, math.cos, math.sin, math.pi, math.abs

local BODIES = {"Sun", "Planet", "Moon"}
local SAMPLE_FRAMES = {0, 75, 150, 198, 300, 525}   -- t = 0, 1.25, 2.5, 3.3, 5, 8.75 s
local POS_TOL = 0.02

-- helpers ------------------------------------------------------------------------------------------
local function unique(name)
  local all = h.find_all(name)
  if #all == 1 then return all[1] end
  return nil, #all
end

local function is_descendant(node, ancestor)
  if node == nil or ancestor == nil then return false end
  local p = node.parent
  while p do
    if p.id == ancestor.id and p.name == ancestor.name then return true end
    p = p.parent
  end
  return false
end

local function any_scene_component(type_name)
  for _, scene in ipairs(h.scenes()) do
    if scene:component(type_name) then return true end
  end
  return false
end

local function copy(v) return v and {x = v.x, y = v.y, z = v.z} or nil end

-- Where a world point lands on screen (0..1 each way) and whether it is in front of the camera.
local function project(point)
  local cam_node = unique("Camera")
  local cam = cam_node and cam_node:component("Camera")
  if cam == nil then return nil end
  local eye, dir = cam_node.world_position, cam_node.direction
  local depth = (point.x - eye.x) * dir.x + (point.y - eye.y) * dir.y + (point.z - eye.z) * dir.z
  local s = harness.world_to_screen(cam, Vector3(point.x, point.y, point.z))
  return {x = s.x, y = s.y, depth = depth, near = cam:get("NearClip"), far = cam:get("FarClip")}
end

local function snapshot()
  local s = {t = h.time(), frame = h.frame()}
  for _, name in ipairs(BODIES) do
    local node = h.find(name)
    local p = node and copy(node.world_position)
    s[name] = p
    s[name .. "_screen"] = p and project(p)
  end
  return s
end

-- drive --------------------------------------------------------------------------------------------
h.start()
local samples = {}
for _, frame in ipairs(SAMPLE_FRAMES) do
  h.run_frames(frame - h.frame())
  samples[#samples + 1] = snapshot()
end

local function planet_expected(t)
  local theta = 2 * pi * t / 10
  return {x = 5 * cos(theta), y = 0, z = -5 * sin(theta)}
end
local function moon_offset_expected(t)
  local phi = 2 * pi * t / 2
  return {x = cos(phi), y = 0, z = -sin(phi)}
end

-- requirements -------------------------------------------------------------------------------------
requirement("R1", function(check)
  check.truthy("a scene has an Octree component", any_scene_component("Octree"))
  local cam, n = unique("Camera")
  check.truthy("exactly one node named Camera", cam ~= nil, n)
  check.truthy("Camera has a Camera component", cam and cam:component("Camera"))
end)

requirement("R2", function(check)
  local light_node = unique("Light")
  check.truthy("exactly one node named Light", light_node ~= nil)
  local light = light_node and light_node:component("Light")
  check.truthy("Light has a Light component", light)
  check.equal("the light is LIGHT_DIRECTIONAL", light and light:get("LightType"), LIGHT_DIRECTIONAL)
end)

requirement("R3", function(check)
  for _, name in ipairs(BODIES) do
    local node = unique(name)
    check.truthy("exactly one node named " .. name, node ~= nil)
    local sm = node and node:component("StaticModel")
    check.truthy(name .. " has a StaticModel", sm)
    local model = sm and sm:get("Model")
    check.equal(name .. "'s model", model and model:GetName(), "Models/Sphere.mdl")
  end
end)

requirement("R4", function(check)
  local sun, planet, moon = unique("Sun"), unique("Planet"), unique("Moon")
  check.truthy("Planet is a descendant of Sun", is_descendant(planet, sun))
  check.truthy("Moon is a descendant of Planet", is_descendant(moon, planet))
end)

requirement("R5", function(check)
  for _, s in ipairs(samples) do
    check.near(string.format("Sun at the origin at t = %.4g s", s.t), s.Sun, {x = 0, y = 0, z = 0}, POS_TOL)
  end
end)

requirement("R6", function(check)
  for _, s in ipairs(samples) do
    check.near(string.format("Planet world position at t = %.4g s", s.t), s.Planet, planet_expected(s.t), POS_TOL)
  end
end)

requirement("R7", function(check)
  for _, s in ipairs(samples) do
    local offset = s.Moon and s.Planet and {x = s.Moon.x - s.Planet.x, y = s.Moon.y - s.Planet.y,
      z = s.Moon.z - s.Planet.z}
    check.near(string.format("Moon - Planet at t = %.4g s", s.t), offset, moon_offset_expected(s.t), POS_TOL)
  end
end)

-- richness: what a careful scene gets right without being told
requirement("R8", function(check)
  for _, s in ipairs(samples) do
    for _, name in ipairs(BODIES) do
      local p = s[name .. "_screen"]
      local label = string.format("%s at t = %.4g s", name, s.t)
      if p == nil then
        check.fail(label .. " on screen", "no Camera node or body")
      else
        check.between(label .. " is in front of the camera, inside its clip range", p.depth, p.near, p.far)
        check.between(label .. " screen x", p.x, 0.05, 0.95)
        check.between(label .. " screen y", p.y, 0.05, 0.95)
      end
    end
  end
end)

requirement("R9", function(check)
  local size = {}
  for _, name in ipairs(BODIES) do
    local node = unique(name)
    local sc = node and node.world_scale
    -- Models/Sphere.mdl has diameter 1: the radius is half the largest world scale
    size[name] = sc and math.max(abs(sc.x), abs(sc.y), abs(sc.z)) * 0.5
    check.truthy(name .. " exists", sc ~= nil)
  end
  if size.Sun and size.Planet and size.Moon then
    check.greater("Sun radius > Planet radius", size.Sun, size.Planet)
    check.greater("Planet radius > Moon radius", size.Planet, size.Moon)
    check.less("Sun and Planet do not touch (sum of radii < 5)", size.Sun + size.Planet, 5)
    check.less("Planet and Moon do not touch (sum of radii < 1)", size.Planet + size.Moon, 1)
  end
end)

requirement("R10", function(check)
  local light_node = unique("Light")
  check.truthy("a Light node", light_node)
  check.less("light direction points downwards (y < -0.2)", light_node and light_node.direction.y, -0.2)
end)
