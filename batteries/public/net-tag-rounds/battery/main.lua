-- Battery for net-tag-rounds: one server and three clients (task.toml [network]) play two rounds of tag and
-- the start of a third, about 67 simulated seconds.  The battery holds the clients' keys, steering their players by what it reads on the
-- server (a closed loop on the players' positions, so any game built to the prompt can be driven), watches the
-- server every frame (who is it, the Game node's phase and round, the scores) and reads each client's replicated
-- copy of the scene and its Hud and Banner texts.
--
-- Story (rounds of 25 s, breaks of 3 s):
--   round 1 (Player1 it): joins -> every key moves a player, the it faster -> a diagonal -> Player3 runs into the
--   east wall -> Player1 chases Player3 and tags it -> the two stand together: Player3 tags back after 2 s, and
--   Player1 tags again 2 s later -> client3 leaves while it is it -> the round ends (Player1 wins) -> the break,
--   keys held -> round 2 (Player2 it, the lowest score): client3 joins again, late (Player4) and moves -> Player2
--   tags Player4, which tags back -> client1 (the top score) leaves, and joins again (Player5) -> the round ends
--   (Player2 wins a tie with Player4) -> round 3 (Player5 it, the lowest score): Player2 and Player4 run into the
--   same corner and Player5 reaches both at once.
local h = harness
local fmt = string.format

local STEP = 1 / 60
local ROUND, BREAK = 25, 3
local SPEED, IT_SPEED = 4, 5
local HALF = 10
local REACH = 1.0
local COOLDOWN = 2.0
local ROLES = {"client1", "client2", "client3"}

local function spawn_x(n) return -6 + 4 * ((n - 1) % 4) end

----------------------------------------------------------------------------------------------------
-- reading the server, every frame
----------------------------------------------------------------------------------------------------
local views = {}
local function find(name)
  local view = views[name]
  if view == nil or not view.exists then
    view = h.find(name)
    views[name] = view
  end
  return view
end
local function xz(view)
  if view == nil or not view.exists then return nil end
  local p = view.position
  return {x = p.x, z = p.z}
end
local function pos_of(name) return xz(find(name)) end
local function dist(a, b)
  if a == nil or b == nil then return math.huge end
  return math.sqrt((a.x - b.x) ^ 2 + (a.z - b.z) ^ 2)
end
local function it_name()
  local m = find("Marker")
  if m == nil then return nil end
  local p = m.parent
  return p and p.name or nil
end
local function game_var(name)
  local g = find("Game")
  return g and g:var(name)
end
local function score_of(name)
  local n = find(name)
  return n and n:var("Score")
end
local MAX_PLAYER = 6
local function present()
  local out = {}
  for i = 1, MAX_PLAYER do
    if find("Player" .. i) then out[#out + 1] = "Player" .. i end
  end
  return out
end
local function scores()
  local out = {}
  for _, name in ipairs(present()) do out[name] = score_of(name) end
  return out
end
-- the winner the prompt names: the highest Score among the players present, the lowest number among equals
local function expected_winner(s)
  local best, best_score
  for i = 1, MAX_PLAYER do
    local name = "Player" .. i
    local v = s[name]
    if v ~= nil and (best == nil or v > best_score) then best, best_score = name, v end
  end
  return best
end
local function lowest_score(s)
  local best, best_score
  for i = 1, MAX_PLAYER do
    local name = "Player" .. i
    local v = s[name]
    if v ~= nil and (best == nil or v < best_score) then best, best_score = name, v end
  end
  return best
end

-- what happened, frame by frame
local rec = {
  tags = {},          -- {frame, from, to, scores}: every change of the Marker's parent
  phases = {},        -- {frame, phase, round, time_left}: every change of Phase or Round
  max_abs = 0,        -- the largest |x| or |z| of any player
}
local last_it, last_phase, last_round = nil, nil, nil
local watch = nil     -- an extra per-frame function of the current scene of the story

local function monitor()
  local it = it_name()
  if it ~= last_it then
    rec.tags[#rec.tags + 1] = {frame = h.frame(), from = last_it, to = it, scores = scores()}
    last_it = it
  end
  local phase, round = game_var("Phase"), game_var("Round")
  if phase ~= last_phase or round ~= last_round then
    rec.phases[#rec.phases + 1] = {frame = h.frame(), phase = phase, round = round,
      time_left = game_var("TimeLeft"), scores = scores(), present = present()}
    last_phase, last_round = phase, round
  end
  if watch then watch() end
end

local function run(seconds, stop)
  local n = math.floor(seconds * 60 + 0.5)
  for _ = 1, n do
    h.run_frames(1)
    monitor()
    if stop and stop() then return true end
  end
  return false
end
local function tags_since(frame)
  local out = {}
  for _, t in ipairs(rec.tags) do if t.frame > frame then out[#out + 1] = t end end
  return out
end
local function phase_change(phase, round, since)
  for _, p in ipairs(rec.phases) do
    if p.frame > since and p.phase == phase and p.round == round then return p end
  end
  return nil
end

----------------------------------------------------------------------------------------------------
-- the clients: keys and reading
----------------------------------------------------------------------------------------------------
local C = {}
local held = {client1 = {}, client2 = {}, client3 = {}}
local function set_keys(role, want)
  local c = C[role]
  local now = held[role]
  for _, k in ipairs({KEY_W, KEY_A, KEY_S, KEY_D}) do
    if now[k] and not want[k] then c.key_up(k); now[k] = nil end
  end
  for _, k in ipairs({KEY_W, KEY_A, KEY_S, KEY_D}) do
    if want[k] and not now[k] then c.key_down(k); now[k] = true end
  end
end
local function keyset(list)
  local s = {}
  for _, k in ipairs(list) do s[k] = true end
  return s
end
local function release(role) set_keys(role, {}) end
local function hold(role, keys, seconds)
  set_keys(role, keyset(keys))
  run(seconds)
  release(role)
end
-- steer a player to a point (or a moving target) until stop() or the time runs out
local DEADBAND = 0.15
local function steer_keys(from, to)
  local want = {}
  if from == nil or to == nil then return want end
  if to.x - from.x > DEADBAND then want[KEY_D] = true elseif from.x - to.x > DEADBAND then want[KEY_A] = true end
  if to.z - from.z > DEADBAND then want[KEY_W] = true elseif from.z - to.z > DEADBAND then want[KEY_S] = true end
  return want
end
local function drive(role, name, target, stop, seconds)
  local n = math.floor(seconds * 60 + 0.5)
  for _ = 1, n do
    set_keys(role, steer_keys(pos_of(name), target()))
    h.run_frames(1)
    monitor()
    if stop() then release(role); return true end
  end
  release(role)
  return false
end

local function lines(text)
  local out = {}
  if type(text) ~= "string" then return out end
  for line in (text .. "\n"):gmatch("(.-)\n") do out[#out + 1] = line end
  return out
end
local function hud(role) return lines(C[role].ui_text("Hud")) end
local function banner(role) return C[role].ui_text("Banner") end
-- the time a Hud's first line shows, and the rest of that line
local function hud_round_time(line)
  if type(line) ~= "string" then return nil end
  local r, t = line:match("^Round (%d+)  Time (%-?%d+)$")
  return tonumber(r), tonumber(t)
end
local function client_pos(role, name)
  local v = C[role].find(name)
  if v == nil then return nil end
  local p = v.position
  return {x = p.x, z = p.z}
end
local function client_it(role)
  local m = C[role].find("Marker")
  if m == nil then return nil end
  local p = m.parent
  return p and p.name or nil
end
local function client_has(role, name) return C[role].find(name) ~= nil end

-- a client's copy of every player the server has, at the server's positions (after things settled)
local function check_copies(check, role, names)
  for _, name in ipairs(names) do
    local s, c = pos_of(name), client_pos(role, name)
    check.truthy(fmt("%s has %s", role, name), c ~= nil)
    if c and s then
      check.near(fmt("%s's %s x", role, name), c.x, s.x, 1e-6)
      check.near(fmt("%s's %s z", role, name), c.z, s.z, 1e-6)
    end
  end
end
local function time_shown_ok(check, role, line, round)
  local r, t = hud_round_time(line)
  local left = game_var("TimeLeft") or -100
  check.equal(fmt("%s's Hud shows the round", role), r, round)
  -- a client's copy of TimeLeft is a few frames older than the server's
  check.between(fmt("%s's Hud shows the time left rounded up", role), t or -100,
    math.ceil(left - 1e-6), math.ceil(left + 0.15))
end

----------------------------------------------------------------------------------------------------
-- round 1: the start
----------------------------------------------------------------------------------------------------
h.start()
for _, r in ipairs(ROLES) do C[r] = h.role(r) end
run(0.5)
local round1 = phase_change("play", 1, -1)

requirement("R1", function(check)
  check.truthy("round 1 started when the players joined", round1 ~= nil)
  check.equal("Round", game_var("Round"), 1)
  check.equal("Phase", game_var("Phase"), "play")
  check.between("TimeLeft counts down from 25", game_var("TimeLeft") or -1, ROUND - 0.65, ROUND - 0.4)
  for n = 1, 3 do
    local name = "Player" .. n
    local p = pos_of(name)
    check.truthy(name .. " on the server", p ~= nil)
    if p then
      check.near(name .. " spawns at x", p.x, spawn_x(n), 1e-6)
      check.near(name .. " spawns at z", p.z, 0, 1e-6)
    end
    check.equal(name .. "'s Score", score_of(name), 0)
  end
  check.equal("Player1 joined first: it", it_name(), "Player1")
  local names = {"Player1", "Player2", "Player3"}
  for n, role in ipairs(ROLES) do
    check_copies(check, role, names)
    check.equal(role .. " sees the Marker on Player1", client_it(role), "Player1")
    local g = C[role].find("Game")
    check.equal(role .. "'s Game Round", g and g:var("Round"), 1)
    local l = hud(role)
    time_shown_ok(check, role, l[1], 1)
    check.equal(role .. "'s Hud line 2", l[2], fmt("You: Player%d  Score 0%s", n, n == 1 and "  IT" or ""))
    check.equal(role .. "'s Hud line 3", l[3], "Last winner: none")
    check.equal(role .. "'s Banner", banner(role), "")
  end
end)

----------------------------------------------------------------------------------------------------
-- round 1: moving
----------------------------------------------------------------------------------------------------
local moves = {}
local function move(role, name, keys, seconds, label)
  local before = pos_of(name)
  local others = {}
  for _, o in ipairs(present()) do if o ~= name then others[o] = pos_of(o) end end
  set_keys(role, keyset(keys))
  run(seconds / 2)
  local conns = h.network().connections
  local buttons
  for _, c in ipairs(conns) do if c.peer == role then buttons = c.buttons end end
  run(seconds / 2)
  release(role)
  run(0.3)
  local after = pos_of(name)
  local still = true
  for o, p in pairs(others) do
    local q = pos_of(o)
    if q == nil or dist(p, q) > 1e-9 then still = false end
  end
  moves[label] = {before = before, after = after, buttons = buttons, others_still = still, frame = h.frame()}
  return moves[label]
end

move("client3", "Player3", {KEY_W}, 1.0, "W")
move("client3", "Player3", {KEY_D}, 1.0, "D")
move("client3", "Player3", {KEY_S}, 1.0, "S")
move("client3", "Player3", {KEY_A}, 1.0, "A")
move("client3", "Player3", {KEY_W}, 1.0, "W again")
move("client1", "Player1", {KEY_S}, 1.0, "it S")
move("client1", "Player1", {KEY_W}, 1.0, "it W")
local copies_frame = h.frame()
local copies = {}
for _, role in ipairs(ROLES) do
  copies[role] = {}
  for n = 1, 3 do copies[role][n] = client_pos(role, "Player" .. n) end
end
local server_after_moves = {}
for n = 1, 3 do server_after_moves[n] = pos_of("Player" .. n) end

requirement("R2", function(check)
  local function axis(label, dx, dz, tol)
    local m = moves[label]
    check.truthy(label .. ": the player exists", m.before ~= nil and m.after ~= nil)
    if not (m.before and m.after) then return end
    check.at(m.frame).near(label .. ": x moved", m.after.x - m.before.x, dx, tol)
    check.at(m.frame).near(label .. ": z moved", m.after.z - m.before.z, dz, tol)
    check.at(m.frame).truthy(label .. ": the other players stayed put", m.others_still)
    check.at(m.frame).truthy(label .. ": the key travels in the connection's controls",
      m.buttons ~= nil and m.buttons ~= 0)
  end
  axis("W", 0, SPEED, 0.25)
  axis("D", SPEED, 0, 0.25)
  axis("S", 0, -SPEED, 0.25)
  axis("A", -SPEED, 0, 0.25)
  axis("it S", 0, -IT_SPEED, 0.25)
  axis("it W", 0, IT_SPEED, 0.25)
  for _, role in ipairs(ROLES) do
    for n = 1, 3 do
      local s, c = server_after_moves[n], copies[role][n]
      check.at(copies_frame).truthy(fmt("%s has Player%d", role, n), c ~= nil and s ~= nil)
      if c and s then
        check.at(copies_frame).near(fmt("%s's Player%d is where the server put it (x)", role, n), c.x, s.x, 1e-6)
        check.at(copies_frame).near(fmt("%s's Player%d is where the server put it (z)", role, n), c.z, s.z, 1e-6)
      end
    end
  end
end)

-- a diagonal: W and D together
local diag = move("client2", "Player2", {KEY_W, KEY_D}, 1.0, "WD")
move("client2", "Player2", {KEY_S, KEY_A}, 1.0, "SA")

requirement("R12", function(check)
  check.truthy("Player2 exists", diag.before ~= nil and diag.after ~= nil)
  if not (diag.before and diag.after) then return end
  local dx, dz = diag.after.x - diag.before.x, diag.after.z - diag.before.z
  check.at(diag.frame).near("W+D for 1 s covers 4 units, not more", math.sqrt(dx * dx + dz * dz), SPEED, 0.25)
  check.at(diag.frame).near("half of it east", dx, SPEED / math.sqrt(2), 0.2)
  check.at(diag.frame).near("half of it north", dz, SPEED / math.sqrt(2), 0.2)
end)

-- the east wall: Player3 runs into it for over half a second
local wall_before = pos_of("Player3")
watch = function()
  for _, name in ipairs(present()) do
    local p = pos_of(name)
    rec.max_abs = math.max(rec.max_abs, math.abs(p.x), math.abs(p.z))
  end
end
hold("client3", {KEY_D}, 2.7)
run(0.3)
watch = nil
local wall_after = pos_of("Player3")
local wall_copy = client_pos("client2", "Player3")
local wall_frame = h.frame()
requirement("R3", function(check)
  check.truthy("Player3 exists", wall_before ~= nil and wall_after ~= nil)
  if not (wall_before and wall_after) then return end
  check.near("it stops at the wall, x = 10", wall_after.x, HALF, 1e-4)
  check.near("z unchanged", wall_after.z, wall_before.z, 1e-6)
  check.less("no player left the arena", rec.max_abs, HALF + 1e-4)
  check.near("client2 sees it at the wall", wall_copy and wall_copy.x or 0, HALF, 1e-4)
end)

----------------------------------------------------------------------------------------------------
-- round 1: tags
----------------------------------------------------------------------------------------------------
-- Player1 (it) chases Player3, which stands at the wall
local chase_from = h.frame()
local tagged = drive("client1", "Player1", function() return pos_of("Player3") end,
  function() return it_name() ~= "Player1" end, 6.0)
local tag1 = tags_since(chase_from)[1]
local tag1_dist = dist(pos_of("Player1"), pos_of("Player3"))
run(0.25)
local tag1_view = {
  it = it_name(), s1 = score_of("Player1"), s3 = score_of("Player3"),
  c_it = {client_it("client1"), client_it("client2"), client_it("client3")},
  hud1 = hud("client1")[2], hud3 = hud("client3")[2],
  frame = h.frame(), d = dist(pos_of("Player1"), pos_of("Player3")),
}
requirement("R4", function(check)
  check.truthy("Player1 reaches Player3 and tags it", tagged and tag1 ~= nil)
  if not tag1 then return end
  check.at(tag1.frame).equal("Player3 is it", tag1.to, "Player3")
  check.at(tag1.frame).between("tagged on coming within 1 unit", tag1_dist, 0.6, REACH + 1e-6)
  check.at(tag1.frame).equal("Player1 scores 1", tag1.scores["Player1"], 1)
  check.at(tag1.frame).equal("Player3 scores nothing", tag1.scores["Player3"], 0)
  check.at(tag1_view.frame).equal("still Player3 a moment later", tag1_view.it, "Player3")
  for i, role in ipairs(ROLES) do
    check.at(tag1_view.frame).equal(role .. " sees the Marker on Player3", tag1_view.c_it[i], "Player3")
  end
  check.at(tag1_view.frame).equal("client1's Hud", tag1_view.hud1, "You: Player1  Score 1")
  check.at(tag1_view.frame).equal("client3's Hud", tag1_view.hud3, "You: Player3  Score 0  IT")
end)

-- both stand within reach: Player3 tags back once its 2 s are over, then Player1 again 2 s later
run(4.6, function() return #tags_since(chase_from) >= 3 end)
local pingpong = tags_since(chase_from)
local close_ok = dist(pos_of("Player1"), pos_of("Player3")) <= REACH
requirement("R5", function(check)
  check.truthy("Player1 and Player3 stayed within reach", close_ok and tag1_view.d <= REACH)
  check.truthy("a tag back and another tag", #pingpong >= 3)
  if #pingpong < 3 then
    if #pingpong == 2 then
      check.between("no tag back before 2 s", (pingpong[2].frame - pingpong[1].frame) * STEP, 1.9, 2.2)
    end
    return
  end
  local a, b, c = pingpong[1], pingpong[2], pingpong[3]
  check.at(b.frame).equal("Player3 tags Player1 back", b.to, "Player1")
  check.at(b.frame).between("no tag back before 2 s, then at once", (b.frame - a.frame) * STEP, 1.9, 2.2)
  check.at(c.frame).equal("Player1 tags Player3 again", c.to, "Player3")
  check.at(c.frame).between("and again 2 s later", (c.frame - b.frame) * STEP, 1.9, 2.2)
  check.at(c.frame).equal("Player1's Score", c.scores["Player1"], 2)
  check.at(c.frame).equal("Player3's Score", c.scores["Player3"], 1)
end)

----------------------------------------------------------------------------------------------------
-- round 1: client3 leaves while it is it
----------------------------------------------------------------------------------------------------
local was_it = it_name()
h.disconnect("client3")
run(0.5)
local leave = {frame = h.frame(), it = it_name(), server_has = find("Player3") ~= nil,
  c1_has = client_has("client1", "Player3"), c2_has = client_has("client2", "Player3"),
  c_it = {client_it("client1"), client_it("client2")}, hud1 = hud("client1")[2], hud2 = hud("client2")[2],
  present = present()}
requirement("R9", function(check)
  check.falsy("Player3 is gone from the server", leave.server_has)
  check.falsy("and from client1", leave.c1_has)
  check.falsy("and from client2", leave.c2_has)
  check.equal("two players left", #leave.present, 2)
end)
requirement("R13", function(check)
  check.equal("client3's player was it when it left", was_it, "Player3")
  check.truthy("someone who is still there is it",
    leave.it == "Player1" or leave.it == "Player2")
  check.equal("client1 agrees", leave.c_it[1], leave.it)
  check.equal("client2 agrees", leave.c_it[2], leave.it)
  local function ends_it(line) return type(line) == "string" and line:sub(-4) == "  IT" end
  check.equal("client1's Hud says whether it is it", ends_it(leave.hud1), leave.it == "Player1")
  check.equal("client2's Hud says whether it is it", ends_it(leave.hud2), leave.it == "Player2")
end)

----------------------------------------------------------------------------------------------------
-- round 1 ends; the break; round 2
----------------------------------------------------------------------------------------------------
local start1 = round1 and round1.frame or 1
local ended = run(ROUND + 2 - h.time(), function() return phase_change("break", 1, start1) ~= nil end)
local end1 = phase_change("break", 1, start1)
local end1_scores = end1 and end1.scores or scores()
run(0.3)
local after1 = {frame = h.frame(), banner1 = banner("client1"), banner2 = banner("client2"),
  hud1 = hud("client1"), hud2 = hud("client2"), round = game_var("Round"), phase = game_var("Phase")}

-- keys held in the break
local frozen_before = {pos_of("Player1"), pos_of("Player2")}
set_keys("client1", keyset({KEY_W}))
set_keys("client2", keyset({KEY_D}))
run(2.0)
release("client1"); release("client2")
local frozen_after = {pos_of("Player1"), pos_of("Player2")}
local frozen_frame = h.frame()
run(1.5, function() return phase_change("play", 2, start1) ~= nil end)
local start2 = phase_change("play", 2, start1)
run(0.2)
local r2 = {frame = h.frame(), it = it_name(), p1 = pos_of("Player1"), p2 = pos_of("Player2"),
  time_left = game_var("TimeLeft"), c_it = {client_it("client1"), client_it("client2")},
  banner1 = banner("client1"), hud2 = hud("client2")}

requirement("R6", function(check)
  check.truthy("round 1 ends", ended and end1 ~= nil)
  if not end1 then return end
  check.at(end1.frame).near("after 25 s of play", (end1.frame - start1) * STEP, ROUND, 0.1)
  check.at(end1.frame).between("TimeLeft is 0 in the break", end1.time_left or -1, 0, 1e-6)
  local winner = expected_winner(end1_scores)
  check.at(end1.frame).equal("the top score is Player1's", winner, "Player1")
  check.at(after1.frame).equal("Round stays 1 in the break", after1.round, 1)
  check.at(after1.frame).equal("client1's Banner", after1.banner1, "Round 1 winner: Player1")
  check.at(after1.frame).equal("client2's Banner", after1.banner2, "Round 1 winner: Player1")
  check.at(after1.frame).equal("client1's Hud line 3", after1.hud1[3], "Last winner: Player1")
  check.at(after1.frame).equal("client2's Hud line 3", after1.hud2[3], "Last winner: Player1")
  check.at(after1.frame).equal("client1's Hud shows Time 0", after1.hud1[1], "Round 1  Time 0")
end)

----------------------------------------------------------------------------------------------------
-- round 2: client3 joins again, late
----------------------------------------------------------------------------------------------------
run(0.4)
h.reconnect("client3")
run(0.6)
local late = {frame = h.frame(), p4 = pos_of("Player4"), s4 = score_of("Player4"), it = it_name(),
  has = {}, c3_it = client_it("client3"), hud3 = hud("client3"), round3 = nil,
  c1_p4 = client_pos("client1", "Player4"), c2_p4 = client_pos("client2", "Player4")}
for _, name in ipairs({"Player1", "Player2", "Player3", "Player4"}) do late.has[name] = client_has("client3", name) end
do
  local g = C.client3.find("Game")
  late.round3 = g and g:var("Round")
end
local late_copies = {}
for _, name in ipairs({"Player1", "Player2", "Player4"}) do
  late_copies[name] = {s = pos_of(name), c = client_pos("client3", name)}
end
local late_time_left = game_var("TimeLeft")
local late_move = move("client3", "Player4", {KEY_S}, 0.5, "late S")

requirement("R10", function(check)
  check.truthy("client3 is Player4 on the server", late.p4 ~= nil)
  if late.p4 then
    check.near("Player4 spawns at x = 6", late.p4.x, spawn_x(4), 1e-6)
    check.near("and z = 0", late.p4.z, 0, 1e-6)
  end
  check.equal("Player4's Score", late.s4, 0)
  check.equal("the it is still Player2", late.it, "Player2")
  check.truthy("client3 has Player1", late.has.Player1)
  check.truthy("client3 has Player2", late.has.Player2)
  check.truthy("client3 has Player4", late.has.Player4)
  check.falsy("client3 no longer has Player3", late.has.Player3)
  for name, p in pairs(late_copies) do
    if p.s and p.c then
      check.near("client3's " .. name .. " x", p.c.x, p.s.x, 1e-6)
      check.near("client3's " .. name .. " z", p.c.z, p.s.z, 1e-6)
    end
  end
  check.equal("client3 sees the Marker on Player2", late.c3_it, "Player2")
  check.equal("client3's Game Round", late.round3, 2)
  check.truthy("client1 sees Player4", late.c1_p4 ~= nil)
  check.truthy("client2 sees Player4", late.c2_p4 ~= nil)
  local r, t = hud_round_time(late.hud3[1])
  check.equal("client3's Hud shows round 2", r, 2)
  check.between("client3's Hud shows the time left", t or -100,
    math.ceil((late_time_left or 0) - 1e-6), math.ceil((late_time_left or 0) + 0.15))
  check.equal("client3's Hud line 2", late.hud3[2], "You: Player4  Score 0")
  if late_move.before and late_move.after then
    check.at(late_move.frame).near("client3's keys move Player4", late_move.after.z - late_move.before.z,
      -SPEED / 2, 0.2)
  else
    check.fail("Player4 moves")
  end
end)
requirement("R14", function(check)
  check.equal("client3's Hud names round 1's winner", late.hud3[3], "Last winner: Player1")
end)

----------------------------------------------------------------------------------------------------
-- round 2: Player2 tags Player4, which tags back and runs; client1 (the top score) leaves and joins again
----------------------------------------------------------------------------------------------------
local chase2_from = h.frame()
drive("client2", "Player2", function() return pos_of("Player4") end,
  function() return it_name() ~= "Player2" end, 6.0)
run(3.0, function() return #tags_since(chase2_from) >= 2 end)
hold("client3", {KEY_S}, 1.5)
run(0.5)
local before_leave2 = {frame = h.frame(), scores = scores(), it = it_name()}
h.disconnect("client1")
run(0.5)
local leave2 = {frame = h.frame(), server_has = find("Player1") ~= nil,
  c2_has = client_has("client2", "Player1"), c3_has = client_has("client3", "Player1")}
run(2.0)
h.reconnect("client1")
run(0.6)
local rejoin = {frame = h.frame(), p5 = pos_of("Player5"), s5 = score_of("Player5"), hud1 = hud("client1"),
  has1 = client_has("client1", "Player1"), it = it_name()}

local start2_frame = start2 and start2.frame or h.frame()
local ended2 = run(start2_frame * STEP + ROUND + 1 - h.time(),
  function() return phase_change("break", 2, start2_frame) ~= nil end)
local end2 = phase_change("break", 2, start2_frame)
run(0.3)
local after2 = {frame = h.frame(), banners = {banner("client1"), banner("client2"), banner("client3")},
  huds = {hud("client1")[3], hud("client2")[3], hud("client3")[3]}}

requirement("R11", function(check)
  check.equal("Player1 has the top score when client1 leaves", expected_winner(before_leave2.scores), "Player1")
  check.falsy("Player1 is gone from the server", leave2.server_has)
  check.falsy("and from client2", leave2.c2_has)
  check.falsy("and from client3", leave2.c3_has)
  check.truthy("client1 comes back as Player5", rejoin.p5 ~= nil)
  if rejoin.p5 then check.near("at its spawn point", rejoin.p5.x, spawn_x(5), 1e-6) end
  check.equal("with a Score of 0", rejoin.s5, 0)
  check.equal("client1's Hud line 2", rejoin.hud1[2],
    "You: Player5  Score 0" .. (rejoin.it == "Player5" and "  IT" or ""))
  check.falsy("client1 no longer has Player1", rejoin.has1)
  check.truthy("round 2 ends", ended2 and end2 ~= nil)
  if not end2 then return end
  local want = expected_winner(end2.scores)
  check.at(end2.frame).truthy("Player1 is not among the players at the end", end2.scores["Player1"] == nil)
  check.at(end2.frame).equal("the winner is one of the players there", want ~= nil, true)
  for i, role in ipairs(ROLES) do
    check.at(after2.frame).equal(role .. "'s Banner", after2.banners[i], fmt("Round 2 winner: %s", want))
    check.at(after2.frame).equal(role .. "'s Hud line 3", after2.huds[i], fmt("Last winner: %s", want))
  end
end)

----------------------------------------------------------------------------------------------------
-- round 3
----------------------------------------------------------------------------------------------------
run(3.5, function() return phase_change("play", 3, start2_frame) ~= nil end)
local start3 = phase_change("play", 3, start2_frame)
run(0.2)
local r3 = {frame = h.frame(), it = it_name(), pos = {}, c_it = {client_it("client1"), client_it("client2"),
  client_it("client3")}, banners = {banner("client1"), banner("client2"), banner("client3")}}
for _, n in ipairs({2, 4, 5}) do r3.pos[n] = pos_of("Player" .. n) end

requirement("R7", function(check)
  check.truthy("the round 1 break is seen", end1 ~= nil)
  check.truthy("round 2 starts", start2 ~= nil)
  if not (end1 and start2) then return end
  for i = 1, 2 do
    local a, b = frozen_before[i], frozen_after[i]
    check.at(frozen_frame).truthy(fmt("Player%d stays put in the break, keys held", i),
      a ~= nil and b ~= nil and dist(a, b) < 1e-9)
  end
  check.at(start2.frame).near("the break lasts 3 s", (start2.frame - end1.frame) * STEP, BREAK, 0.1)
  check.truthy("round 3 starts", start3 ~= nil)
  if not start3 then return end
  check.at(start3.frame).near("so does the second", (start3.frame - (end2 and end2.frame or 0)) * STEP,
    BREAK, 0.1)
end)

requirement("R8", function(check)
  check.truthy("round 2 starts", start2 ~= nil)
  if not start2 then return end
  check.at(r2.frame).between("TimeLeft starts again from 25", r2.time_left or -1, ROUND - 0.3, ROUND)
  local low = lowest_score(start2.scores)
  check.at(r2.frame).equal("the lowest score is Player2's", low, "Player2")
  check.at(r2.frame).equal("round 2: Player2 (the lowest score) is it", r2.it, "Player2")
  check.at(r2.frame).equal("client1 agrees", r2.c_it[1], "Player2")
  check.at(r2.frame).equal("client2 agrees", r2.c_it[2], "Player2")
  check.at(r2.frame).near("Player1 back at its spawn point (x)", r2.p1 and r2.p1.x or 99, spawn_x(1), 1e-6)
  check.at(r2.frame).near("(z)", r2.p1 and r2.p1.z or 99, 0, 1e-6)
  check.at(r2.frame).near("Player2 back at its spawn point (x)", r2.p2 and r2.p2.x or 99, spawn_x(2), 1e-6)
  check.at(r2.frame).near("(z)", r2.p2 and r2.p2.z or 99, 0, 1e-6)
  check.at(r2.frame).equal("client1's Banner is cleared", r2.banner1, "")
  check.at(r2.frame).equal("client2's Hud line 2", r2.hud2[2], "You: Player2  Score 0  IT")
  check.truthy("round 3 starts", start3 ~= nil)
  if not start3 then return end
  local low3 = lowest_score(start3.scores)
  check.at(r3.frame).equal("round 3: the lowest score is it", r3.it, low3)
  for i, role in ipairs(ROLES) do
    check.at(r3.frame).equal(role .. " agrees", r3.c_it[i], low3)
    check.at(r3.frame).equal(role .. "'s Banner is cleared", r3.banners[i], "")
  end
  for _, n in ipairs({2, 4, 5}) do
    local p = r3.pos[n]
    check.at(r3.frame).truthy(fmt("Player%d back at its spawn point", n),
      p ~= nil and math.abs(p.x - spawn_x(n)) < 1e-6 and math.abs(p.z) < 1e-6)
  end
end)

----------------------------------------------------------------------------------------------------
-- round 3: Player2 and Player4 run into the north-east corner; the it reaches both at once
----------------------------------------------------------------------------------------------------
local corner = {x = HALF, z = HALF}
local it3 = it_name()
local runners = {}
for _, n in ipairs({2, 4, 5}) do
  if "Player" .. n ~= it3 then runners[#runners + 1] = "Player" .. n end
end
local role_of = {Player2 = "client2", Player4 = "client3", Player5 = "client1"}
for _, name in ipairs(runners) do set_keys(role_of[name], keyset({KEY_W, KEY_D})) end
run(6.2)
for _, name in ipairs(runners) do release(role_of[name]) end
run(0.2)
local cornered = {}
for _, name in ipairs(runners) do cornered[#cornered + 1] = pos_of(name) end
local before_double = scores()
local double_from = h.frame()
local reached = it3 ~= nil and role_of[it3] ~= nil and drive(role_of[it3], it3, function() return corner end,
  function() return it_name() ~= it3 end, 8.0)
local double_tag = tags_since(double_from)[1]
run(0.5)
local double_after = {frame = h.frame(), tags = #tags_since(double_from), scores = scores(), it = it_name()}

requirement("R15", function(check)
  check.equal("two players run to the corner", #runners, 2)
  if #runners ~= 2 then return end
  check.truthy("both stand in the corner",
    cornered[1] and cornered[2] and dist(cornered[1], corner) < 1e-4 and dist(cornered[2], corner) < 1e-4)
  check.truthy("the it reaches them", reached and double_tag ~= nil)
  if not double_tag then return end
  local got = double_tag.to
  local other = got == runners[1] and runners[2] or runners[1]
  check.at(double_tag.frame).truthy("one of the two is it", got == runners[1] or got == runners[2])
  check.at(double_tag.frame).equal("the it scores 1 for the one tag", double_tag.scores[it3],
    (before_double[it3] or 0) + 1)
  check.at(double_tag.frame).equal("the other was not tagged (its score)", double_tag.scores[other],
    before_double[other])
  check.at(double_after.frame).equal("no other tag in the next half second", double_after.tags, 1)
  check.at(double_after.frame).equal("the tagger's score stays", double_after.scores[it3],
    (before_double[it3] or 0) + 1)
end)
