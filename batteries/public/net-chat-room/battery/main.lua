-- Battery for net-chat-room: one server and two clients (task.toml [network]).  The battery types on the clients
-- (TextInput, BACKSPACE, RETURN), and reads every role's ChatLog and the clients' ChatDraft.  It drops client2's
-- link and brings it back, which the server must post as a leave and a new player.
--
-- Timing: a line typed on a client reaches the server within about 3 frames and the other clients within about
-- 6 (network updates at 30 Hz); the battery waits 0.3 s after each RETURN.
local h = harness
local c1, c2

local function log_of(role) return role.ui_text("ChatLog") end
local function lines(text)
  local out = {}
  if text == nil or text == "" then return out end
  for line in (text .. "\n"):gmatch("(.-)\n") do out[#out + 1] = line end
  return out
end
local function last_line(role)
  local l = lines(log_of(role))
  return l[#l]
end
local function type_text(role, s)
  role.text(s)
  h.run_frames(1)
end
local function press(role, key)
  role.key_down(key)
  h.run_frames(1)
  role.key_up(key)
end
local function send(role, s)
  if s ~= "" then type_text(role, s) end
  press(role, KEY_RETURN)
  h.run(0.3)
end

h.start()
h.run(0.5)
c1, c2 = h.role("client1"), h.role("client2")

requirement("R1", function(check)
  check.equal("server's ChatLog", log_of(h), "Player 1 joined\nPlayer 2 joined")
  check.equal("client1's ChatLog", log_of(c1), "Player 1 joined\nPlayer 2 joined")
  check.equal("client2's ChatLog ends with its join", last_line(c2), "Player 2 joined")
  check.equal("client1's ChatDraft is empty", c1.ui_text("ChatDraft"), "")
end)

type_text(c1, "hel")
type_text(c1, "lo")
local draft_before = c1.ui_text("ChatDraft")
press(c1, KEY_RETURN)
local draft_after = c1.ui_text("ChatDraft")
local sent_frame = h.frame()
h.run(0.3)
requirement("R2", function(check)
  check.equal("ChatDraft shows what was typed", draft_before, "hello")
  check.at(sent_frame).equal("RETURN clears ChatDraft in that frame", draft_after, "")
  check.equal("server posts it", last_line(h), "Player 1: hello")
  check.equal("client1 gets it back", last_line(c1), "Player 1: hello")
  check.equal("client2 gets it", last_line(c2), "Player 1: hello")
end)

type_text(c2, "hi therx")
press(c2, KEY_BACKSPACE)
local draft2 = c2.ui_text("ChatDraft")
send(c2, "")
requirement("R3", function(check)
  check.equal("BACKSPACE deletes the last character", draft2, "hi ther")
  check.equal("server posts client2's line", last_line(h), "Player 2: hi ther")
  check.equal("client1 gets it", last_line(c1), "Player 2: hi ther")
  check.equal("client2 gets it", last_line(c2), "Player 2: hi ther")
end)

for i = 1, 6 do send(c1, "m" .. i) end
requirement("R4", function(check)
  local want = "Player 1: m2\nPlayer 1: m3\nPlayer 1: m4\nPlayer 1: m5\nPlayer 1: m6"
  check.equal("server shows the last 5", log_of(h), want)
  check.equal("client1 shows the last 5", log_of(c1), want)
  check.equal("client2 shows the last 5", log_of(c2), want)
end)

h.disconnect("client2")
h.run(0.3)
local left_server, left_c1 = last_line(h), last_line(c1)
h.reconnect("client2")
h.run(0.5)
local rejoin_server, rejoin_c1, rejoin_c2 = last_line(h), last_line(c1), last_line(c2)
send(c2, "back")
requirement("R5", function(check)
  check.equal("server posts the leave", left_server, "Player 2 left")
  check.equal("client1 hears it", left_c1, "Player 2 left")
  check.equal("the rejoin is a new player (server)", rejoin_server, "Player 3 joined")
  check.equal("client1 hears it", rejoin_c1, "Player 3 joined")
  check.equal("the new player hears it", rejoin_c2, "Player 3 joined")
  check.equal("and speaks as Player 3", last_line(c1), "Player 3: back")
end)

send(c1, "ping")
local before_empty, before_c2 = log_of(h), log_of(c2)
send(c1, "")
requirement("R6", function(check)
  check.contains("a line is posted", last_line(h) or "", ": ping")
  check.equal("no line posted on the server", log_of(h), before_empty)
  check.equal("none reaches client2", log_of(c2), before_c2)
end)

type_text(c2, "café")
press(c2, KEY_BACKSPACE)
local utf = c2.ui_text("ChatDraft")
type_text(c2, "e")
local fixed = c2.ui_text("ChatDraft")
requirement("R7", function(check)
  check.equal("the é goes as a whole", utf, "caf")
  check.equal("typing goes on after it", fixed, "cafe")
end)
