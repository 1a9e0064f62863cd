-- Battery for net-coin-arena: one server and two clients (task.toml [network], 2 frames of latency).  The battery
-- holds keys on the clients and reads the server's player nodes, their replicated copies on the clients, the coin,
-- the server's view of each connection's controls and the clients' ScoreText.  It drops client2's link and brings
-- it back, which makes a new player (Player3).
--
-- Timing: a key held on a client reaches the server's controls within about 5 frames (network updates at 30 Hz,
-- 2 frames of latency) and stops as late, so a hold of t seconds moves a player 4 t units give or take 0.35; the
-- battery lets 0.3 s pass after each release before it reads positions, so every role agrees exactly.
--
-- Route (server positions, approximately): Player1 D 0.5 s -> (2, 0, 0).  Player2 W, A, D, S -> (0, 0, 1).
-- Player1 D 1 s -> (6, 0, 0) through the coin at (4, 0, 0); Player2 W 0.75 s -> (0, 0, 4) through (0, 0, 4);
-- Player1 A 2.5 s -> (-4, 0, 0) through (-4, 0, 0); Player2 S 2 s -> (0, 0, -4) through (0, 0, -4); the coin is
-- back at (4, 0, 0).  Player1 W+A 1 s (diagonal) -> about (-6.83, 0, 2.83).  client2 leaves and comes back as
-- Player3 at (0, 0, 0); Player3 D 1 s -> (4, 0, 0) through the coin.  Player1 W and Player3 D for 2.5 s -> walls.
local h = harness
local c1, c2
local TOL = 0.35                       -- units: a hold's distance, give or take the network's frames
local EXACT = 1e-6                     -- a client's copy against the server's node, once at rest
local WALL_LO, WALL_HI = 7.9, 8 + 1e-6  -- at the wall: never past it, at most a step or so short of it

local function node(role, name) return role.find(name) end
local function pos(role, name)
  local n = role.find(name)
  return n and n.position
end
local function score(role, name)
  local n = role.find(name)
  return n and n:var("Score")
end
local function hold(role, keys, seconds)
  for _, k in ipairs(keys) do role.key_down(k) end
  h.run(seconds)
  for _, k in ipairs(keys) do role.key_up(k) end
  h.run(0.3)
end
local function conn_of(peer)
  for _, c in ipairs(h.network().connections) do
    if c.peer == peer then return c end
  end
  return nil
end
-- every role's copy of a node, as of now: {server = pos, client1 = pos, client2 = pos}
local function everywhere(name)
  return {server = pos(h, name), client1 = pos(c1, name), client2 = pos(c2, name)}
end
local function same_everywhere(check, what, snap)
  check.truthy(what .. " on the server", snap.server ~= nil)
  if snap.server == nil then return end
  check.near(what .. " as client1 sees it", snap.client1, snap.server, EXACT)
  check.near(what .. " as client2 sees it", snap.client2, snap.server, EXACT)
end
local function xz(v) return v and Vector3(v.x, 0, v.z) end
local function sub(a, b) return a and b and a - b end
local function get(v, key) return v and v[key] end
-- check.near that fails (rather than stops the battery) when the value to compare with is missing
local function near(check, name, actual, expected, tol)
  if expected == nil then return check.fail(name, "nothing to compare with (a node is missing)") end
  return check.near(name, actual, expected, tol)
end
local function same_id(check, name, got, want)
  if want == nil then return check.fail(name, "the server has no such node") end
  return check.equal(name, got, want)
end

h.start()
h.run(0.5)
c1, c2 = h.role("client1"), h.role("client2")

do
  local p1, p2 = everywhere("Player1"), everywhere("Player2")
  local coin = everywhere("Coin")
  local ids = {}
  for _, role in ipairs({h, c1, c2}) do
    local a, b = node(role, "Player1"), node(role, "Player2")
    ids[#ids + 1] = {a and a.id, b and b.id}
  end
  requirement("R1", function(check)
    check.near("Player1 at the centre", p1.server, Vector3(0, 0, 0), 1e-3)
    check.near("Player2 at the centre", p2.server, Vector3(0, 0, 0), 1e-3)
    check.near("the coin at its first spot", coin.server, Vector3(4, 0, 0), 1e-3)
    check.equal("Player1's Score", score(h, "Player1"), 0)
    check.equal("Player2's Score", score(h, "Player2"), 0)
    same_everywhere(check, "Player1", p1)
    same_everywhere(check, "Player2", p2)
    same_everywhere(check, "the coin", coin)
    check.truthy("Player1 is a REPLICATED node", ids[1][1] ~= nil and ids[1][1] < 0x1000000)
    same_id(check, "client1's Player1 is the server's (same ID)", ids[2][1], ids[1][1])
    same_id(check, "client2's Player2 is the server's (same ID)", ids[3][2], ids[1][2])
    check.equal("client1 sees Player2's Score", score(c1, "Player2"), 0)
    check.equal("client1's ScoreText", c1.ui_text("ScoreText"), "Score: 0")
    check.equal("client2's ScoreText", c2.ui_text("ScoreText"), "Score: 0")
  end)
end

-- R2: client1 holds D for half a second.
c1.key_down(KEY_D)
h.run(0.25)
local held = conn_of("client1")
local held_frame = h.frame()
h.run(0.25)
c1.key_up(KEY_D)
h.run(0.3)
do
  local p1, p2 = everywhere("Player1"), everywhere("Player2")
  local released = conn_of("client1")
  requirement("R2", function(check)
    check.at(held_frame).equal("the server reads client1's controls: D is bit 8", held and held.buttons, 8)
    check.equal("and no button once released", released and released.buttons, 0)
    check.near("Player1 moved about 2 units towards +X", xz(p1.server), Vector3(2, 0, 0), TOL)
    check.near("Y stays 0", p1.server and p1.server.y, 0, 1e-6)
    check.near("Player2 stayed", p2.server, Vector3(0, 0, 0), 1e-6)
    same_everywhere(check, "Player1", p1)
    same_everywhere(check, "Player2", p2)
  end)
end

-- R3: client2 walks W, A, D, S.
local p1_before = pos(h, "Player1")
local p2_start = pos(h, "Player2")
hold(c2, {KEY_W}, 0.5)
local after_w = pos(h, "Player2")
hold(c2, {KEY_A}, 0.5)
local after_a = pos(h, "Player2")
hold(c2, {KEY_D}, 0.5)
local after_d = pos(h, "Player2")
hold(c2, {KEY_S}, 0.25)
do
  local p2 = everywhere("Player2")
  requirement("R3", function(check)
    check.near("W: 2 units towards +Z", sub(after_w, p2_start), Vector3(0, 0, 2), TOL)
    check.near("A: 2 units towards -X", sub(after_a, after_w), Vector3(-2, 0, 0), TOL)
    check.near("D: 2 units towards +X", sub(after_d, after_a), Vector3(2, 0, 0), TOL)
    check.near("S: 1 unit towards -Z", sub(p2.server, after_d), Vector3(0, 0, -1), TOL)
    near(check, "Player1 stayed", pos(h, "Player1"), p1_before, 1e-6)
    same_everywhere(check, "Player2", p2)
  end)
end

-- R4, R5: the coin.  Player1 runs through (4, 0, 0), Player2 through (0, 0, 4), Player1 through (-4, 0, 0),
-- Player2 through (0, 0, -4).
local pickups = {}
local function note_pickup(label)
  pickups[#pickups + 1] = {label = label, frame = h.frame(), coin = everywhere("Coin"),
    s1 = {score(h, "Player1"), score(c1, "Player1"), score(c2, "Player1")},
    s2 = {score(h, "Player2"), score(c1, "Player2"), score(c2, "Player2")},
    t1 = c1.ui_text("ScoreText"), t2 = c2.ui_text("ScoreText")}
end
hold(c1, {KEY_D}, 1.0)
note_pickup("Player1 at (4, 0, 0)")
hold(c2, {KEY_W}, 0.75)
note_pickup("Player2 at (0, 0, 4)")
hold(c1, {KEY_A}, 2.5)
note_pickup("Player1 at (-4, 0, 0)")
hold(c2, {KEY_S}, 2.0)
note_pickup("Player2 at (0, 0, -4)")
local want = {
  {coin = Vector3(0, 0, 4), s1 = 1, s2 = 0},
  {coin = Vector3(-4, 0, 0), s1 = 1, s2 = 1},
  {coin = Vector3(0, 0, -4), s1 = 2, s2 = 1},
  {coin = Vector3(4, 0, 0), s1 = 2, s2 = 2},
}
requirement("R4", function(check)
  for i, p in ipairs(pickups) do
    local at = check.at(p.frame)
    local w = want[i]
    at.near("after " .. p.label .. ": the coin's next spot", p.coin.server, w.coin, 1e-3)
    at.equal("after " .. p.label .. ": Player1's Score", p.s1[1], w.s1)
    at.equal("after " .. p.label .. ": Player2's Score", p.s2[1], w.s2)
    at.equal("after " .. p.label .. ": client1 sees Player1's Score", p.s1[2], w.s1)
    at.equal("after " .. p.label .. ": client2 sees Player1's Score", p.s1[3], w.s1)
    at.equal("after " .. p.label .. ": client1 sees Player2's Score", p.s2[2], w.s2)
    near(at, "after " .. p.label .. ": client1 sees the coin", p.coin.client1, p.coin.server, EXACT)
    near(at, "after " .. p.label .. ": client2 sees the coin", p.coin.client2, p.coin.server, EXACT)
  end
end)
requirement("R5", function(check)
  for i, p in ipairs(pickups) do
    local at = check.at(p.frame)
    at.equal("after " .. p.label .. ": client1's ScoreText", p.t1, "Score: " .. want[i].s1)
    at.equal("after " .. p.label .. ": client2's ScoreText", p.t2, "Score: " .. want[i].s2)
  end
end)

-- R9 (richness): a diagonal is no faster.
local diag_from = pos(h, "Player1")
hold(c1, {KEY_W, KEY_A}, 1.0)
local diag_to = pos(h, "Player1")
requirement("R9", function(check)
  local d = sub(diag_to, diag_from)
  if d == nil then return check.fail("Player1 moves", "Player1 is missing") end
  check.near("W+A for 1 s covers about 4 units, as one key does", d:Length(), 4, TOL)
  check.near("at 45 degrees", d.x, -d.z, 0.1)
end)

-- R7, R8, R10: client2 leaves and comes back.
local p1_id = get(node(h, "Player1"), "id")
local had_p2, had_p2_c1, had_frame = node(h, "Player2") ~= nil, node(c1, "Player2") ~= nil, h.frame()
h.disconnect("client2")
h.run(0.3)
local gone_server, gone_c1, gone_frame = node(h, "Player2") ~= nil, node(c1, "Player2") ~= nil, h.frame()
h.reconnect("client2")
h.run(0.5)
local rejoin = {p3 = everywhere("Player3"), p1 = everywhere("Player1"), coin = everywhere("Coin"),
  p3_score = score(h, "Player3"), p3_id = get(node(h, "Player3"), "id"), c2_p3_id = get(node(c2, "Player3"), "id"),
  c2_p1_score = score(c2, "Player1"), c2_p2 = node(c2, "Player2") ~= nil, server_p2 = node(h, "Player2") ~= nil,
  text = c2.ui_text("ScoreText"), frame = h.frame()}
local p1_rest = pos(h, "Player1")
hold(c2, {KEY_D}, 1.0)
local run3 = {p3 = everywhere("Player3"), p3_score = score(h, "Player3"), c1_p3_score = score(c1, "Player3"),
  coin = pos(h, "Coin"), p1 = pos(h, "Player1"), text = c2.ui_text("ScoreText"), text1 = c1.ui_text("ScoreText")}
requirement("R7", function(check)
  local at = check.at(rejoin.frame)
  at.near("the returning client is Player3, at the centre", rejoin.p3.server, Vector3(0, 0, 0), 1e-3)
  at.equal("with Score 0", rejoin.p3_score, 0)
  same_everywhere(at, "Player3", rejoin.p3)
  same_id(at, "client2's Player3 is the server's (same ID)", rejoin.c2_p3_id, rejoin.p3_id)
  same_everywhere(at, "Player1", rejoin.p1)
  same_everywhere(at, "the coin", rejoin.coin)
  at.equal("client2 sees Player1's Score", rejoin.c2_p1_score, 2)
  check.near("client2's D moves Player3 towards +X", xz(run3.p3.server), Vector3(4, 0, 0), TOL)
  near(check, "Player1 stayed", run3.p1, p1_rest, 1e-6)
  check.equal("Player3 took the coin: Score 1", run3.p3_score, 1)
  check.equal("client1 sees it", run3.c1_p3_score, 1)
  check.near("the coin moved on to (0, 0, 4)", run3.coin, Vector3(0, 0, 4), 1e-3)
  check.equal("client1's ScoreText still shows Player1's", run3.text1, "Score: 2")
  same_everywhere(check, "Player3", run3.p3)
end)
requirement("R8", function(check)
  check.at(had_frame).truthy("Player2 is there while client2 plays (server)", had_p2)
  check.at(had_frame).truthy("and on client1", had_p2_c1)
  check.at(gone_frame).falsy("Player2 is removed from the server when client2 leaves", gone_server)
  check.at(gone_frame).falsy("and from client1's scene", gone_c1)
  check.at(rejoin.frame).falsy("the server has no Player2 after the rejoin", rejoin.server_p2)
  check.at(rejoin.frame).falsy("the returning client gets no Player2", rejoin.c2_p2)
  check.truthy("Player1 kept its node", p1_id ~= nil and get(node(h, "Player1"), "id") == p1_id)
end)
requirement("R10", function(check)
  check.at(rejoin.frame).equal("client2's ScoreText shows its new player's score", rejoin.text, "Score: 0")
  check.equal("and follows it: Player3 took the coin", run3.text, "Score: 1")
end)

-- R6: the walls.  Player1 holds W and Player3 holds D for 2.5 s: both run into a wall and stay on it.
local p1_x, p3_z = get(pos(h, "Player1"), "x"), get(pos(h, "Player3"), "z")
c1.key_down(KEY_W)
c2.key_down(KEY_D)
h.run(2.5)
local pressing = {p1 = pos(h, "Player1"), p3 = pos(h, "Player3"), frame = h.frame()}
c1.key_up(KEY_W)
c2.key_up(KEY_D)
h.run(0.3)
do
  local p1, p3 = everywhere("Player1"), everywhere("Player3")
  requirement("R6", function(check)
    check.at(pressing.frame).between("Player1 pressing on the +Z wall", get(pressing.p1, "z"), WALL_LO, WALL_HI)
    check.at(pressing.frame).between("Player3 pressing on the +X wall", get(pressing.p3, "x"), WALL_LO, WALL_HI)
    check.between("Player1 on the +Z wall", get(p1.server, "z"), WALL_LO, WALL_HI)
    near(check, "Player1 kept its X", get(p1.server, "x"), p1_x, 1e-6)
    check.between("Player3 on the +X wall", get(p3.server, "x"), WALL_LO, WALL_HI)
    near(check, "Player3 kept its Z", get(p3.server, "z"), p3_z, 1e-6)
    same_everywhere(check, "Player1", p1)
    same_everywhere(check, "Player3", p3)
  end)
end
