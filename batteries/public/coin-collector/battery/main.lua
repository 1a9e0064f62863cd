-- Battery for coin-collector: drives the player along a fixed path with the keys and checks pickups,
-- score (node var and UI text), coin removal and the win state.  Parameterised (params.toml): the pickup radius
-- and the coin's value are drawn per edition and stated in the prompt.
--
-- Path (5 units/s, 1/60 s frames): D 48 frames -> (4, 0.5, 0) taking Coin1 (checked a twelfth of a unit either
-- side of the pickup radius), W 60 -> (4, 0.5, 5) Coin2, LEFT 84 -> (-3, 0.5, 5) Coin3, S 108 -> (-3, 0.5, -4):
-- Coin4 and Coin5 sit 0.6 either side of that line, so both come within the radius in the same frame.
local h = harness
local abs, sqrt, fmt = math.abs, math.sqrt, string.format

local WALK_TOL = 0.09     -- one frame of motion at 5 units/s
local P = h.params()
local RADIUS, VALUE = P.pickup_radius, P.coin_value
-- frames of D before the player is a twelfth of a unit (one frame) outside Coin1's radius: the radius is a
-- multiple of 0.25, so (4 - RADIUS) * 12 frames end exactly on it
local NEAR_FRAMES = math.tointeger((4 - RADIUS) * 12) - 1
local COINS = {
  {name = "Coin1", x = 4, y = 0.5, z = 0}, {name = "Coin2", x = 4, y = 0.5, z = 5},
  {name = "Coin3", x = -3, y = 0.5, z = 5}, {name = "Coin4", x = -3.6, y = 0.5, z = -4},
  {name = "Coin5", x = -2.4, y = 0.5, z = -4},
}

local function player_pos()
  local p = h.find("Player")
  if p == nil then return nil end
  local v = p.world_position
  return {x = v.x, y = v.y, z = v.z}
end
local function delta(a, b)
  if a == nil or b == nil then return nil end
  return {x = b.x - a.x, y = b.y - a.y, z = b.z - a.z}
end

-- Where a world point lands on screen, or nil without a camera.
local function project(p)
  local cam_node = h.find("Camera")
  local cam = cam_node and cam_node:component("Camera")
  if cam == nil then return nil end
  local eye, dir = cam_node.world_position, cam_node.direction
  local s = harness.world_to_screen(cam, Vector3(p.x, p.y, p.z))
  return {x = s.x, y = s.y, depth = (p.x - eye.x) * dir.x + (p.y - eye.y) * dir.y + (p.z - eye.z) * dir.z,
          near = cam:get("NearClip"), far = cam:get("FarClip")}
end

-- Everything the requirements read, copied at one moment.
local function snapshot(label)
  local s = {label = label, frame = h.frame(), player = player_pos(), coins = {}, on_screen = {}}
  local gs = h.find("GameState")
  s.has_state = gs ~= nil
  s.score = gs and gs:var("Score")
  s.won = gs and gs:var("Won")
  s.score_text = h.ui_text("ScoreText")
  s.win_text = h.ui_text("WinText")
  s.positions, s.models = {}, {}
  if s.player then s.on_screen[#s.on_screen + 1] = {name = "Player", screen = project(s.player)} end
  for _, c in ipairs(COINS) do
    local node = h.find(c.name)
    s.coins[c.name] = node ~= nil
    if node then
      local wp = node.world_position
      s.positions[c.name] = {x = wp.x, y = wp.y, z = wp.z}
      local sm = node:component("StaticModel")
      local model = sm and sm:get("Model")
      s.models[c.name] = sm and (model and model:GetName() or "(no model)")
      s.on_screen[#s.on_screen + 1] = {name = c.name, screen = project(wp)}
    end
  end
  return s
end

-- drive --------------------------------------------------------------------------------------------
h.start()
local snaps = {}
snaps.start = snapshot("start")
h.run_frames(30)
snaps.idle = snapshot("after 0.5 s without input")

-- leg 1: D, with a stop either side of Coin1's radius
h.key_down(KEY_D)
h.run_frames(NEAR_FRAMES)
snaps.near1 = snapshot(fmt("%.3f units from Coin1", RADIUS + 1 / 12))
h.run_frames(2)
snaps.got1 = snapshot(fmt("%.3f units from Coin1", RADIUS - 1 / 12))
h.run_frames(48 - NEAR_FRAMES - 2)
h.key_up(KEY_D)
h.run_frames(1)
snaps.leg1 = snapshot("after D (Coin1)")

local function leg(key, frames, label)
  h.key_down(key)
  h.run_frames(frames)
  h.key_up(key)
  h.run_frames(1)
  snaps[label] = snapshot(label)
end
leg(KEY_W, 60, "after W (Coin2)")
leg(KEY_LEFT, 84, "after LEFT (Coin3)")

-- leg 4: S, frame by frame, watching the twin pickup
local trace = {}
h.key_down(KEY_S)
for i = 1, 108 do
  h.run_frames(1)
  local gs = h.find("GameState")
  trace[i] = {score = gs and gs:var("Score"), coin4 = h.find("Coin4") ~= nil, coin5 = h.find("Coin5") ~= nil,
              frame = h.frame()}
end
h.key_up(KEY_S)
h.run_frames(1)
snaps.leg4 = snapshot("after S (Coin4, Coin5)")

leg(KEY_D, 60, "after walking on after the win")

local legs = {
  {from = "idle", to = "after D (Coin1)", d = {x = 4, y = 0, z = 0}, key = "D"},
  {from = "after D (Coin1)", to = "after W (Coin2)", d = {x = 0, y = 0, z = 5}, key = "W"},
  {from = "after W (Coin2)", to = "after LEFT (Coin3)", d = {x = -7, y = 0, z = 0}, key = "LEFT"},
  {from = "after LEFT (Coin3)", to = "leg4", d = {x = 0, y = 0, z = -9}, key = "S"},
}
snaps["after D (Coin1)"] = snaps.leg1

-- requirements -------------------------------------------------------------------------------------
local function exists_once(check, name)
  check.equal("exactly one node named " .. name, #h.find_all(name), 1)
end

requirement("R1", function(check)
  local s = snaps.start
  local has_octree = false
  for _, sc in ipairs(h.scenes()) do if sc:component("Octree") then has_octree = true end end
  check.truthy("a scene has an Octree component", has_octree)
  local cam = h.find("Camera")
  check.truthy("a node named Camera with a Camera component", cam and cam:component("Camera"))
  exists_once(check, "Player")
  local p = h.find("Player")
  check.truthy("Player has a StaticModel", p and p:component("StaticModel"))
  local at_start = check.at(s.frame)   -- values copied in the snapshot: checked as of its frame
  at_start.near("Player starts at (0, 0.5, 0)", s.player, {x = 0, y = 0.5, z = 0}, 1e-6)
  check.at(snaps.idle.frame).near("without input the player stays still", delta(s.player, snaps.idle.player),
    {x = 0, y = 0, z = 0}, 1e-6)
  -- the coins as they were at the start (copied before any was collected)
  for _, c in ipairs(COINS) do
    at_start.truthy(c.name .. " exists at the start", s.coins[c.name])
    at_start.near(c.name .. "'s world position", s.positions[c.name], {x = c.x, y = c.y, z = c.z}, 1e-6)
    at_start.equal(c.name .. "'s StaticModel model", s.models[c.name], "Models/Cylinder.mdl")
  end
  at_start.truthy("a node named GameState", s.has_state)
  at_start.equal("Score is 0 at the start", s.score, 0)
  at_start.equal("Won is false at the start", s.won, false)
end)

requirement("R2", function(check)
  for _, l in ipairs(legs) do
    local a, b = snaps[l.from], snaps[l.to]
    check.at(b.frame).near(fmt("%s moves the player by (%g, %g, %g)", l.key, l.d.x, l.d.y, l.d.z),
      delta(a and a.player, b and b.player), l.d, WALK_TOL)
  end
end)

requirement("R3", function(check)
  check.at(snaps.near1.frame).equal(snaps.near1.label .. ": not collected yet (Score)", snaps.near1.score, 0)
  check.at(snaps.got1.frame).equal(snaps.got1.label .. ": collected (Score)", snaps.got1.score, VALUE)
end)

requirement("R4", function(check)
  local expect = {
    {snap = snaps.leg1, gone = {Coin1 = true}, score = VALUE},
    {snap = snaps["after W (Coin2)"], gone = {Coin1 = true, Coin2 = true}, score = 2 * VALUE},
    {snap = snaps["after LEFT (Coin3)"], gone = {Coin1 = true, Coin2 = true, Coin3 = true}, score = 3 * VALUE},
    {snap = snaps.leg4, gone = {Coin1 = true, Coin2 = true, Coin3 = true, Coin4 = true, Coin5 = true},
     score = 5 * VALUE},
  }
  for _, e in ipairs(expect) do
    local at = check.at(e.snap.frame)
    for _, c in ipairs(COINS) do
      at.equal(fmt("%s: %s %s", e.snap.label, c.name, e.gone[c.name] and "removed" or "still there"),
        e.snap.coins[c.name], not e.gone[c.name])
    end
    at.equal(e.snap.label .. ": Score", e.snap.score, e.score)
  end
end)

requirement("R5", function(check)
  for _, key in ipairs({"start", "near1", "got1", "leg1", "after W (Coin2)", "after LEFT (Coin3)", "leg4"}) do
    local s = snaps[key]
    local at = check.at(s.frame)
    if math.type(s.score) == "integer" or (type(s.score) == "number" and s.score == math.floor(s.score)) then
      at.equal(s.label .. ": ScoreText", s.score_text, fmt("Score: %d", s.score))
    else
      at.fail(s.label .. ": ScoreText", "GameState has no integer Score variable to compare with")
    end
  end
end)

requirement("R6", function(check)
  for _, key in ipairs({"start", "after LEFT (Coin3)"}) do
    local s = snaps[key]
    check.at(s.frame).equal(s.label .. ": Won is false", s.won, false)
    check.at(s.frame).truthy(s.label .. ": WinText shows nothing", s.win_text == nil or s.win_text == "")
  end
  local s = snaps.leg4
  check.at(s.frame).equal(s.label .. ": Won is true", s.won, true)
  check.at(s.frame).equal(s.label .. ": WinText", s.win_text, "You win!")
  local after = snaps["after walking on after the win"]
  local at = check.at(after.frame)
  at.equal(after.label .. ": Won is still true", after.won, true)
  at.equal(after.label .. ": Score is still " .. 5 * VALUE, after.score, 5 * VALUE)
  at.equal(after.label .. ": WinText", after.win_text, "You win!")
end)

-- richness
requirement("R7", function(check)
  local jump, prev = nil, snaps["after LEFT (Coin3)"].score
  for i, t in ipairs(trace) do
    if type(t.score) == "number" and type(prev) == "number" and t.score - prev >= 2 * VALUE then jump = i end
    prev = t.score
  end
  check.at(trace[jump or #trace].frame).truthy("a single frame in which the score rises by " .. 2 * VALUE,
    jump ~= nil)
  check.at(trace[#trace].frame).equal("score after the twin pickup", trace[#trace].score, 5 * VALUE)
end)

requirement("R8", function(check)
  for _, key in ipairs({"start", "leg1", "after W (Coin2)", "after LEFT (Coin3)", "leg4"}) do
    local s = snaps[key]
    local at = check.at(s.frame)
    for _, entry in ipairs(s.on_screen) do
      local p, label = entry.screen, s.label .. ": " .. entry.name
      if p == nil then
        at.fail(label .. " on screen", "no Camera node with a Camera component")
      else
        at.between(label .. " in front of the camera, inside its clip range", p.depth, p.near, p.far)
        at.between(label .. " screen x", p.x, 0.02, 0.98)
        at.between(label .. " screen y", p.y, 0.02, 0.98)
      end
    end
    if s.player == nil then at.fail(s.label .. ": Player on screen", "no Player") end
  end
end)
