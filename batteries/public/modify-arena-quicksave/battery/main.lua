-- Battery for modify-arena-quicksave: the new quick save (F5) and quick load (F9) of Arena Blaster, and the old
-- game's rules (movement, firing, enemies, contacts, medkits, game over, R, HUD), over about a minute of play.
--
-- Run 1: F9 with no save; WASD; the north and east enemies killed, the south one hurt and let through, the west
-- one hurt; a step east; F5 (save A). Then X: kill the west enemy, walk onto the medkit, wait (6.3 s after the
-- save, past two enemy spawns and a medkit's). F9 (load 1); F9 again (load 1b) and X again, which must give the
-- same run; a volley west and F9 (load 2) with the bullets in flight; standing still until the game is over; F5
-- and F9 there (load 3); R; F9 (load 4); R; a walk into the south-east corner, F5 (save B), F9 (load 5); standing
-- still until the game is over again; R; the save file damaged, and F9.
-- Every snapshot is taken between frames; a key press is one frame down.
local h = harness
local fmt = string.format

local FPS = 60
local POS_TOL = 0.12      -- a frame of difference in where a save or a load happens moves an enemy 0.033
local TIME_TOL = 0.05

-- reading ------------------------------------------------------------------------------------------
local function xz(view)
  local p = view.world_position
  return {x = p.x, y = p.y, z = p.z}
end
local function by_xz(a, b) if a.x ~= b.x then return a.x < b.x end return a.z < b.z end
local function snapshot(label)
  local s = {label = label, frame = h.frame()}
  local gs = h.find("GameState")
  if gs then
    s.HP, s.Score, s.Kills, s.Time, s.Status = gs:var("HP"), gs:var("Score"), gs:var("Kills"), gs:var("Time"),
      gs:var("Status")
  end
  s.hud = h.ui_text("HudText")
  local over = h.ui("GameOverText")
  s.over_visible, s.over_text = over and over.visible, over and over.text
  local msg = h.ui("SaveText")
  s.msg_visible, s.msg_text = msg ~= nil and msg.visible, msg and msg.text
  local p = h.find("Player")
  s.player = p and xz(p)
  s.enemies, s.medkits = {}, {}
  for _, v in ipairs(h.find_all("Enemy")) do
    local e = xz(v)
    e.hp = v:var("HP")
    s.enemies[#s.enemies + 1] = e
  end
  table.sort(s.enemies, by_xz)
  for _, v in ipairs(h.find_all("Medkit")) do s.medkits[#s.medkits + 1] = xz(v) end
  table.sort(s.medkits, by_xz)
  s.bullets = {}
  for _, v in ipairs(h.find_all("Bullet")) do s.bullets[#s.bullets + 1] = xz(v) end
  return s
end
-- The size of the save file in the game folder now (the game writes into the run's own overlay), nil when there
-- is none. Opening a missing file logs an error in the game's log, so the battery looks only after F5.
local function save_file_size()
  local f = File("arena_save.json", FILE_READ)
  if not f:IsOpen() then return nil end
  local n = f:GetSize()
  f:Close()
  return n
end

-- driving ------------------------------------------------------------------------------------------
local snaps, order = {}, {}
local function snap(key, label)
  snaps[key] = snapshot(label)
  order[#order + 1] = key
  return snaps[key]
end
local function frames(seconds) return math.floor(seconds * FPS + 0.5) end
local function tap(k) h.key_down(k); h.run_frames(1); h.key_up(k) end
local function hold(k, seconds) h.key_down(k); h.run_frames(frames(seconds)); h.key_up(k) end
local function wait(seconds) h.run_frames(frames(seconds)) end
-- Stands still until the game is over (at most 30 s).
local function until_over()
  for _ = 1, 180 do
    local gs = h.find("GameState")
    if gs and gs:var("Status") == "over" then return end
    h.run_frames(10)
  end
end
-- X: what the player does after save A, played twice (after the save and after load 1b): 6.3 s, through two
-- enemy spawns and a medkit's.
local function play_x(key, label)
  wait(0.3);                     snap(key .. "_msg", "0.3 s after " .. label)
  hold(KEY_LEFT, 0.8)            -- the hurt west enemy dies
  hold(KEY_D, 0.4)               -- (2, 0) -> (4, 0)
  hold(KEY_W, 0.8)               -- -> (4, 4): the medkit
  snap(key .. "_medkit", "on the medkit, after " .. label)
  wait(4.0)
end

h.start()
snap("start", "at the start")
tap(KEY_F9);              snap("nosave", "after F9 with no save")
hold(KEY_D, 0.4);         snap("move_d", "after holding D for 0.4 s")
hold(KEY_A, 0.4);         snap("move_a", "after holding A for 0.4 s")
hold(KEY_W, 0.4);         snap("move_w", "after holding W for 0.4 s")
hold(KEY_S, 0.4);         snap("move_s", "after holding S for 0.4 s")
h.run_frames(frames(2.9) - h.frame()); snap("pre_spawn", "at 2.9 s")
wait(0.3);                snap("spawn_n", "at 3.2 s")
h.key_down(KEY_UP)
h.run_frames(frames(3.8) - h.frame()); snap("hit_n", "at 3.8 s, firing north since 3.2 s")
h.run_frames(frames(5.5) - h.frame()); h.key_up(KEY_UP)
snap("kill_n", "at 5.5 s, after firing north")
h.run_frames(frames(6.05) - h.frame()); hold(KEY_RIGHT, 2.45)
snap("kill_e", "at 8.5 s, after firing east")
h.run_frames(frames(9.05) - h.frame()); hold(KEY_DOWN, 0.3)  -- two bullets south
h.run_frames(frames(9.9) - h.frame()); snap("pre_medkit", "at 9.9 s")
wait(0.3);                snap("medkit", "at 10.2 s")
h.run_frames(frames(12.05) - h.frame()); hold(KEY_LEFT, 0.3) -- two bullets west
h.run_frames(frames(12.9) - h.frame()); snap("pre_touch", "at 12.9 s, the hurt south enemy close")
h.run_frames(frames(13.5) - h.frame()); snap("touch", "at 13.5 s, after the south enemy reached the player")
hold(KEY_D, 0.4)          -- (0, 0) -> (2, 0), still in the west enemy's line
local save_a = snap("save_a", "just before F5 (save A)")
tap(KEY_F5);              snap("saved", "just after F5 (save A)")
local file_after_save = save_file_size()
play_x("saved", "F5");    local s1 = snap("x1", "6.3 s after save A (played X)")
snap("pre_load1", "just before F9 (load 1)")
tap(KEY_F9);              snap("load1", "just after F9 (load 1)")
wait(0.3);                snap("load1_msg", "0.3 s after load 1")
wait(2.2);                snap("load1_late", "2.5 s after load 1")
-- the replay: F9 again (load 1b) and X at once, as it was played right after F5
tap(KEY_F9);              snap("load1b", "just after F9 (load 1b)")
play_x("load1b", "load 1b"); snap("x2", "6.3 s after load 1b (played X again)")
hold(KEY_S, 0.8)          -- (4, 4) -> (4, 0): the line the west enemy of save A walks along
hold(KEY_LEFT, 0.3)       -- a volley west: two bullets in flight
h.run_frames(2)
snap("volley", "bullets in flight, just before F9 (load 2)")
tap(KEY_F9);              snap("load2", "just after F9 (load 2, bullets were in flight)")
h.run_frames(frames(0.5)); snap("load2_late", "0.5 s after load 2")
-- standing still at (2, 0): the enemies come until the game is over
until_over()
snap("over", "once the game is over")
h.key_down(KEY_D); h.key_down(KEY_UP); wait(1.0); h.key_up(KEY_D); h.key_up(KEY_UP)
snap("over_later", "1 s after game over, D and UP held")
wait(2.0)
tap(KEY_F5);              snap("over_f5", "after F5 on the game-over screen")
tap(KEY_F9);              snap("load3", "after F9 on the game-over screen (load 3)")
wait(1.0);                snap("load3_later", "1 s after load 3")
tap(KEY_R);               snap("restart", "after R")
wait(1.0);                snap("restart_later", "1 s after R")
tap(KEY_F9);              snap("load4", "after F9 following R (load 4)")
wait(1.5)                 -- the north enemy of save A's next turn appears
tap(KEY_R);               snap("restart2", "after R again")
hold(KEY_D, 2.5);         snap("clamp_e", "after holding D for 2.5 s")
hold(KEY_S, 0.7);         snap("new_spawn", "3.2 s after R")
hold(KEY_S, 1.8);         snap("clamp_s", "after holding S for 2.5 s")
wait(0.5)
local save_b = snap("save_b", "just before F5 (save B)")
tap(KEY_F5)
hold(KEY_W, 1.0); wait(1.0)
snap("pre_load5", "2 s after save B")
tap(KEY_F9);              snap("load5", "after F9 (load 5, save B)")
wait(2.5);                snap("load5_late", "2.5 s after load 5")
until_over();             snap("over2", "once the game is over again")
tap(KEY_R);               snap("restart3", "after R on the game-over screen")
-- the save file damaged (as by a crash while writing it, or another program): F9 must not take it
wait(0.5)
local errors_before = #h.errors()
do
  local f = File("arena_save.json", FILE_WRITE)
  f:WriteString("%%% this is not a save %%%")
  f:Close()
end
snap("pre_bad", "just before F9 with a damaged save file")
tap(KEY_F9);              snap("bad_load", "just after F9 with a damaged save file")
local errors_after = #h.errors()
wait(0.5);                snap("bad_late", "0.5 s after F9 with a damaged save file")

-- checks -------------------------------------------------------------------------------------------
local function cell(x, z) return {x = x, y = 0.5, z = z} end
local function count_check(at, label, got, want) at.equal(label .. ": how many", #got, #want) end
-- Pairs each of `a` (in order) with the nearest of `b` not taken yet: an order of nodes is not a rule.
local function match(a, b)
  local taken, out = {}, {}
  for i, p in ipairs(a) do
    local best, best_d = nil, math.huge
    for j, q in ipairs(b) do
      local d = (q.x - p.x) ^ 2 + (q.z - p.z) ^ 2
      if not taken[j] and d < best_d then best, best_d = j, d end
    end
    if best then taken[best] = true; out[i] = b[best] end
  end
  return out
end
-- `b` is `a` again: the same counters, player, enemies (place and HP) and medkits.
local function same_run(check, a, b)
  local at = check.at(b.frame)
  local lbl = fmt("%s vs %s", b.label, a.label)
  at.equal(lbl .. ": HP", b.HP, a.HP)
  at.equal(lbl .. ": Score", b.Score, a.Score)
  at.equal(lbl .. ": Kills", b.Kills, a.Kills)
  at.near(lbl .. ": Time", b.Time, a.Time, TIME_TOL)
  at.equal(lbl .. ": Status", b.Status, "playing")
  at.near(lbl .. ": Player", b.player, a.player, POS_TOL)
  count_check(at, lbl .. ": Enemy nodes", b.enemies, a.enemies)
  local pairs_ = match(a.enemies, b.enemies)
  for i, e in ipairs(a.enemies) do
    local g = pairs_[i]
    at.near(fmt("%s: Enemy %d", lbl, i), g and {x = g.x, y = g.y, z = g.z}, {x = e.x, y = e.y, z = e.z}, POS_TOL)
    at.equal(fmt("%s: Enemy %d HP", lbl, i), g and g.hp, e.hp)
  end
  count_check(at, lbl .. ": Medkit nodes", b.medkits, a.medkits)
  pairs_ = match(a.medkits, b.medkits)
  for i, m in ipairs(a.medkits) do at.near(fmt("%s: Medkit %d", lbl, i), pairs_[i], m, POS_TOL) end
end
local function hud_matches(check, s)
  local want = fmt("HP %s  Score %s  Time %s", s.HP, s.Score, type(s.Time) == "number" and math.floor(s.Time) or "?")
  check.at(s.frame).equal(s.label .. ": HudText", s.hud, want)
end
local function message(check, s, text)
  local at = check.at(s.frame)
  at.truthy(s.label .. ": SaveText visible", s.msg_visible)
  at.equal(s.label .. ": SaveText", s.msg_text, text)
end
local function no_message(check, s)
  check.at(s.frame).falsy(s.label .. ": no SaveText message shown",
    s.msg_visible and s.msg_text ~= nil and s.msg_text ~= "")
end
local function enemy_near(s, x, z)
  for _, e in ipairs(s.enemies) do
    if math.abs(e.x - x) < POS_TOL and math.abs(e.z - z) < POS_TOL then return e end
  end
  return nil
end
-- The enemy walking in from the west along z = 0 (towards the player at (2, 0)).
local function west_enemy(s)
  for _, e in ipairs(s.enemies) do
    if math.abs(e.z) < 0.3 and e.x < 2 then return e end
  end
  return nil
end
local function fresh_run(check, s)
  local at = check.at(s.frame)
  at.equal(s.label .. ": HP", s.HP, 5)
  at.equal(s.label .. ": Score", s.Score, 0)
  at.equal(s.label .. ": Kills", s.Kills, 0)
  at.equal(s.label .. ": Status", s.Status, "playing")
  at.near(s.label .. ": Player at the centre", s.player, cell(0, 0), 0.1)
  at.equal(s.label .. ": no Enemy", #s.enemies, 0)
  at.equal(s.label .. ": no Medkit", #s.medkits, 0)
  at.equal(s.label .. ": no Bullet", #s.bullets, 0)
  at.falsy(s.label .. ": GameOverText hidden", s.over_visible)
end

-- the change ---------------------------------------------------------------------------------------
requirement("R1", function(check)
  -- save A is worth testing: something was lost and something came after it
  local at = check.at(s1.frame)
  at.truthy("after save A the west enemy died and the medkit was taken",
    s1.Kills ~= save_a.Kills and #snaps.saved_medkit.medkits ~= #save_a.medkits)
  same_run(check, save_a, snaps.load1)
  same_run(check, save_b, snaps.load5)
  hud_matches(check, snaps.load1)
  hud_matches(check, snaps.load5)
  -- the loaded run goes on: time runs, enemies walk towards the player
  local late = snaps.load1_late
  at = check.at(late.frame)
  at.near(late.label .. ": Time", late.Time, (save_a.Time or 0) + 2.5, 0.1)
  local w0, w1 = west_enemy(snaps.load1), west_enemy(late)
  at.truthy(late.label .. ": the west enemy walked east", w0 ~= nil and w1 ~= nil and w1.x > w0.x + 4)
end)

requirement("R2", function(check)
  local s = snaps.nosave
  message(check, s, "No save")
  local at = check.at(s.frame)
  at.equal(s.label .. ": HP", s.HP, 5)
  at.equal(s.label .. ": Status", s.Status, "playing")
  at.equal(s.label .. ": no Enemy", #s.enemies, 0)
  check.at(snaps.start.frame).falsy("at the start: no SaveText message shown",
    snaps.start.msg_visible and snaps.start.msg_text ~= nil and snaps.start.msg_text ~= "")
  no_message(check, snaps.pre_spawn)
  message(check, snaps.saved, "Saved")
  message(check, snaps.saved_msg, "Saved")
  no_message(check, snaps.x1)
  message(check, snaps.load1, "Loaded")
  message(check, snaps.load1_msg, "Loaded")
  no_message(check, snaps.load1_late)
  message(check, snaps.load5, "Loaded")
  no_message(check, snaps.load5_late)
end)

requirement("R3", function(check)
  check.at(snaps.saved.frame).truthy("F5 wrote arena_save.json",
    type(file_after_save) == "number" and file_after_save > 0)
  -- R keeps the save: F9 after R brings save A back
  same_run(check, save_a, snaps.load4)
  -- a later F5 replaces it
  same_run(check, save_b, snaps.load5)
end)

requirement("R4", function(check)
  local s = snaps.over_f5
  check.at(s.frame).equal(s.label .. ": still over", s.Status, "over")
  check.at(s.frame).falsy(s.label .. ": not 'Saved'", s.msg_visible and s.msg_text == "Saved")
  s = snaps.load3
  same_run(check, save_a, s)
  local at = check.at(s.frame)
  at.falsy(s.label .. ": GameOverText hidden", s.over_visible)
  hud_matches(check, s)
  local late = snaps.load3_later
  at = check.at(late.frame)
  at.equal(late.label .. ": Status", late.Status, "playing")
  at.near(late.label .. ": Time runs again", late.Time, (save_a.Time or 0) + 1.0, 0.1)
  local w0, w1 = west_enemy(s), west_enemy(late)
  at.truthy(late.label .. ": enemies walk again", w0 ~= nil and w1 ~= nil and w1.x > w0.x + 1.5)
end)

-- the old game, still working ----------------------------------------------------------------------
requirement("R5", function(check)
  local s = snaps.start
  check.at(s.frame).near("at the start: Player", s.player, cell(0, 0), 0.01)
  check.at(snaps.move_d.frame).near("after D: Player", snaps.move_d.player, cell(2, 0), 0.05)
  check.at(snaps.move_a.frame).near("after A: Player", snaps.move_a.player, cell(0, 0), 0.05)
  check.at(snaps.move_w.frame).near("after W: Player", snaps.move_w.player, cell(0, 2), 0.05)
  check.at(snaps.move_s.frame).near("after S: Player", snaps.move_s.player, cell(0, 0), 0.05)
  check.at(snaps.clamp_e.frame).near("after D for 2.5 s: Player at the east limit", snaps.clamp_e.player,
    cell(9.5, 0), 0.05)
  check.at(snaps.clamp_s.frame).near("after S for 2.5 s: Player in the south-east corner", snaps.clamp_s.player,
    cell(9.5, -9.5), 0.05)
end)

requirement("R6", function(check)
  local s = snaps.pre_spawn
  check.at(s.frame).equal(s.label .. ": no Enemy yet", #s.enemies, 0)
  s = snaps.spawn_n
  local at = check.at(s.frame)
  at.equal(s.label .. ": one Enemy", #s.enemies, 1)
  local e = s.enemies[1]
  at.near(s.label .. ": it walks from the north point towards the player",
    e and {x = e.x, y = e.y, z = e.z}, cell(0, 9 - 2 * 0.2), 0.1)
  at.equal(s.label .. ": its HP", e and e.hp, 3)
  s = snaps.hit_n
  at = check.at(s.frame)
  e = s.enemies[1]
  at.truthy(s.label .. ": the north enemy is hit, not dead", e ~= nil and (e.hp == 1 or e.hp == 2))
  s = snaps.kill_n
  at = check.at(s.frame)
  at.equal(s.label .. ": no Enemy left", #s.enemies, 0)
  at.equal(s.label .. ": Score", s.Score, 10)
  at.equal(s.label .. ": Kills", s.Kills, 1)
  s = snaps.kill_e
  at = check.at(s.frame)
  at.equal(s.label .. ": no Enemy left", #s.enemies, 0)
  at.equal(s.label .. ": Score", s.Score, 20)
  at.equal(s.label .. ": Kills", s.Kills, 2)
  s = snaps.pre_touch
  at = check.at(s.frame)
  local south, west = enemy_near(s, 0, -(9 - 2 * (12.9 - 9))), enemy_near(s, -(9 - 2 * (12.9 - 12)), 0)
  at.equal(s.label .. ": the south enemy hit twice", south and south.hp, 1)
  at.equal(s.label .. ": the west enemy hit twice", west and west.hp, 1)
  s = snaps.x1
  at = check.at(s.frame)
  at.equal(s.label .. ": the west enemy killed: Score", s.Score, 30)
  at.equal(s.label .. ": Kills", s.Kills, 3)
end)

requirement("R7", function(check)
  local a, b = snaps.pre_touch, snaps.touch
  local at = check.at(b.frame)
  at.equal(a.label .. ": HP", a.HP, 5)
  at.equal(b.label .. ": HP", b.HP, 4)
  at.equal(b.label .. ": Score unchanged", b.Score, a.Score)
  at.equal(b.label .. ": the south enemy is gone", #b.enemies, #a.enemies - 1)
  check.at(snaps.pre_medkit.frame).equal(snaps.pre_medkit.label .. ": no Medkit yet", #snaps.pre_medkit.medkits, 0)
  local s = snaps.medkit
  at = check.at(s.frame)
  count_check(at, s.label .. ": Medkit nodes", s.medkits, {1})
  at.near(s.label .. ": the Medkit", s.medkits[1], cell(4, 4), 0.05)
  a, s = snaps.saved, snaps.saved_medkit
  at = check.at(s.frame)
  at.equal(a.label .. ": HP", a.HP, 4)
  at.equal(s.label .. ": the medkit taken: HP", s.HP, 5)
  at.equal(s.label .. ": no Medkit left", #s.medkits, 0)
end)

requirement("R8", function(check)
  local s, l = snaps.over, snaps.over_later
  local at = check.at(s.frame)
  at.equal(s.label .. ": Status", s.Status, "over")
  at.equal(s.label .. ": HP", s.HP, 0)
  at.truthy(s.label .. ": GameOverText visible", s.over_visible)
  at.equal(s.label .. ": GameOverText", s.over_text, fmt("Game Over  Score %s  Press R", s.Score))
  at = check.at(l.frame)
  at.equal(l.label .. ": Time stopped", l.Time, s.Time)
  at.near(l.label .. ": Player still", l.player, s.player, 1e-6)
  at.equal(l.label .. ": no Bullet", #l.bullets, 0)
  count_check(at, l.label .. ": Enemy nodes", l.enemies, s.enemies)
  for i, e in ipairs(s.enemies) do at.near(fmt("%s: Enemy %d still", l.label, i), l.enemies[i], e, 1e-6) end
  check.at(snaps.over2.frame).equal(snaps.over2.label .. ": Status", snaps.over2.Status, "over")
  fresh_run(check, snaps.restart)
  fresh_run(check, snaps.restart2)
  fresh_run(check, snaps.restart3)
  local n = snaps.new_spawn
  local first = n.enemies[1]
  at = check.at(n.frame)
  at.equal(n.label .. ": one Enemy", #n.enemies, 1)
  at.truthy(n.label .. ": it came from the north point, as in every new run",
    first ~= nil and math.abs(first.x) < 0.6 and math.abs(first.z - 9) < 0.6)
  local r = snaps.restart_later
  check.at(r.frame).near(r.label .. ": Time", r.Time, 1.0, 0.05)
  for _, key in ipairs(order) do hud_matches(check, snaps[key]) end
  for _, key in ipairs(order) do
    local v = snaps[key]
    if v.Status == "playing" then check.at(v.frame).falsy(v.label .. ": GameOverText hidden", v.over_visible) end
  end
end)

-- richness -----------------------------------------------------------------------------------------
-- A loaded run plays on as the saved one did: the same input from load 1b gives the same run as from save A
-- (the spawn and medkit clocks and their turn come back with the rest).
requirement("R9", function(check)
  same_run(check, s1, snaps.x2)
end)

-- Loading the same save again, after playing on from it, gives the same run again.
requirement("R10", function(check)
  same_run(check, save_a, snaps.load2)
  same_run(check, save_a, snaps.load1b)
end)

-- Bullets in flight when F9 is pressed are gone with the run they belonged to.
requirement("R11", function(check)
  local v, s = snaps.volley, snaps.load2
  check.at(v.frame).greater(v.label .. ": bullets in flight", #v.bullets, 0)
  check.at(s.frame).equal(s.label .. ": no Bullet", #s.bullets, 0)
  local l = snaps.load2_late
  local at = check.at(l.frame)
  at.equal(l.label .. ": no Bullet", #l.bullets, 0)
  local w0, w1 = west_enemy(save_a), west_enemy(l)
  at.equal(l.label .. ": the restored west enemy kept its HP", w1 and w1.hp, w0 and w0.hp)
  at.equal(l.label .. ": Score", l.Score, save_a.Score)
end)

-- A save file that is not one (damaged) is refused: F9 raises no error and leaves the run as it is.
requirement("R12", function(check)
  local a, b, l = snaps.pre_bad, snaps.bad_load, snaps.bad_late
  check.at(b.frame).equal(b.label .. ": Lua errors raised", errors_after - errors_before, 0)
  local at = check.at(b.frame)
  at.equal(b.label .. ": HP", b.HP, a.HP)
  at.equal(b.label .. ": Score", b.Score, a.Score)
  at.equal(b.label .. ": Kills", b.Kills, a.Kills)
  at.near(b.label .. ": Time", b.Time, (a.Time or 0) + 1 / FPS, 0.02)
  at.near(b.label .. ": Player", b.player, a.player, 0.01)
  at.equal(b.label .. ": Enemy nodes", #b.enemies, #a.enemies)
  at = check.at(l.frame)
  at.equal(l.label .. ": Status", l.Status, "playing")
  at.near(l.label .. ": Time runs", l.Time, (a.Time or 0) + 0.5 + 1 / FPS, 0.05)
end)
