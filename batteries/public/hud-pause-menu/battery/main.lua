-- Battery for hud-pause-menu: reads the NanoVG frame (the timer text, the overlay, the three labels and their
-- colours) while driving the pause menu with ESCAPE / P, UP / DOWN / RETURN and left clicks on the labels.
local h = harness
local fmt = string.format

local LABELS = {"Resume", "Restart", "Quit"}
local YELLOW, WHITE = "255,220,0,255", "255,255,255,255"
local TIME_TOL = 0.15
local SW, SH = h.screen()

local function rgba(v) return v and table.concat(v.rgba, ",") end

-- The timer's value (nil when no "Time: S" text with one decimal is drawn).
local function timer()
  for _, t in ipairs(h.drawn_text()) do
    local s = t.text:match("^%s*Time: (%-?%d+%.%d)%s*$")
    if s then return tonumber(s) end
  end
  return nil
end

-- Everything the requirements read, copied at one moment.
local function snap(label)
  local s = {label = label, frame = h.frame(), time = timer(), labels = {}, count = 0, exited = h.exited()}
  for _, t in ipairs(h.drawn_text()) do
    for _, name in ipairs(LABELS) do
      if t.text:match("^%s*(.-)%s*$") == name then
        s.count = s.count + 1
        if s.labels[name] == nil then
          local b = t.bounds
          s.labels[name] = {color = rgba(t), cx = (b[1] + b[3]) / 2, cy = (b[2] + b[4]) / 2}
        end
      end
    end
  end
  s.overlay = false
  for _, c in ipairs(h.drawn()) do
    local b = c.bounds
    if c.kind == "fill" and b[1] <= 0 and b[2] <= 0 and b[3] >= SW and b[4] >= SH and c.color[4] > 0.05
        and c.color[4] < 0.95 and 0.299 * c.color[1] + 0.587 * c.color[2] + 0.114 * c.color[3] < 0.5 then
      s.overlay = true
    end
  end
  return s
end
local function selected(s)
  local out = {}
  for _, name in ipairs(LABELS) do
    if s.labels[name] and s.labels[name].color == YELLOW then out[#out + 1] = name end
  end
  return table.concat(out, "+")
end
local function tap(key) h.press(key, 1); h.run_frames(1) end
local function click_at(x, y) h.click(x, y); h.run_frames(1) end
-- Open the menu unless it is open (so one mistake does not derail the later parts).
local function ensure_menu()
  if snap("").count == 0 then tap(KEY_ESCAPE) end
end

-- drive --------------------------------------------------------------------------------------------
local S = {}
h.start()
h.run_frames(1)
S.start = snap("first frame")
h.run(2.0)
S.played = snap("after 2 s of play")

tap(KEY_ESCAPE)
S.paused = snap("after ESCAPE")
h.run(1.0)
S.paused_later = snap("1 s into the pause")
local pos = S.paused.labels      -- where the labels are, for the clicks below

local nav = {}
for _, step in ipairs({{KEY_DOWN, "Restart"}, {KEY_DOWN, "Quit"}, {KEY_DOWN, "Quit"}, {KEY_UP, "Restart"},
                       {KEY_UP, "Resume"}, {KEY_UP, "Resume"}, {KEY_DOWN, "Restart"}}) do
  tap(step[1])
  nav[#nav + 1] = {snap = snap(fmt("after %s", step[1] == KEY_DOWN and "DOWN" or "UP")), want = step[2]}
end
tap(KEY_ESCAPE)                   -- closes with Restart selected
S.closed = snap("after ESCAPE again")
h.run(1.0)
S.resumed = snap("1 s after closing")

tap(KEY_P)
S.reopened = snap("after P (menu reopened)")
tap(KEY_UP); tap(KEY_UP)          -- Resume, whatever the reopened menu selected
tap(KEY_RETURN)
S.return_resume = snap("after RETURN on Resume")
h.run(1.0)
S.return_resume_later = snap("1 s after RETURN on Resume")

-- richness: input while playing is ignored
local r = pos.Restart or {cx = SW / 2, cy = SH / 2}
click_at(r.cx, r.cy)
tap(KEY_RETURN)
tap(KEY_DOWN)
h.run(0.5)
S.playing_input = snap("0.5 s after clicking Restart's spot and RETURN, DOWN while playing")

-- richness: holding ESCAPE toggles once
local hold = {}
h.key_down(KEY_ESCAPE)
for i = 1, 30 do h.run_frames(1); hold[i] = snap(fmt("holding ESCAPE, frame %d", i)) end
h.key_up(KEY_ESCAPE)
h.run_frames(10)
S.after_hold = snap("after releasing a held ESCAPE")

-- richness: clicks off the labels do nothing
ensure_menu()
S.before_off = snap("menu open before clicks off the labels")
click_at(100, r.cy)
click_at(SW / 2, 60)
h.run(0.5)
S.after_off = snap("after clicks off the labels")

-- clicks on the labels
ensure_menu()
click_at(r.cx, r.cy)
S.click_restart = snap("after clicking Restart")
h.run(1.0)
S.click_restart_later = snap("1 s after clicking Restart")
tap(KEY_ESCAPE)
local re = pos.Resume or {cx = SW / 2, cy = SH / 2}
S.click_resume_before = snap("paused before clicking Resume")
click_at(re.cx, re.cy)
h.run(0.5)
S.click_resume = snap("0.5 s after clicking Resume")

-- RETURN on Restart
ensure_menu()
tap(KEY_UP); tap(KEY_UP); tap(KEY_DOWN)
tap(KEY_RETURN)
h.run(0.5)
S.return_restart = snap("0.5 s after RETURN on Restart")

-- Quit, last
ensure_menu()
S.before_quit = snap("menu open before Quit")
tap(KEY_DOWN)
tap(KEY_DOWN)
tap(KEY_RETURN)
h.run_frames(2)
S.quit = snap("after RETURN on Quit")

-- requirements -------------------------------------------------------------------------------------
local function time_near(check, s, want, what)
  check.at(s.frame).near(fmt("%s: timer (%s)", s.label, what), s.time, want, TIME_TOL)
end
local function menu_shown(check, s, shown)
  local at = check.at(s.frame)
  if shown then
    for _, name in ipairs(LABELS) do at.truthy(fmt("%s: label %s drawn", s.label, name), s.labels[name]) end
  else
    at.equal(s.label .. ": no menu label drawn", s.count, 0)
  end
end

requirement("R1", function(check)
  time_near(check, S.start, 0.0, "starts at 0")
  time_near(check, S.played, 2.0, "counts seconds of play")
  menu_shown(check, S.start, false)
  menu_shown(check, S.played, false)
end)

requirement("R2", function(check)
  local s = S.paused
  menu_shown(check, s, true)
  local at = check.at(s.frame)
  at.truthy(s.label .. ": a translucent dark rectangle covers the screen", s.overlay)
  local l = s.labels
  if l.Resume and l.Restart and l.Quit then
    at.truthy(s.label .. ": labels stacked Resume, Restart, Quit from the top",
      l.Resume.cy < l.Restart.cy and l.Restart.cy < l.Quit.cy)
    for _, name in ipairs(LABELS) do
      at.near(fmt("%s: %s centred horizontally", s.label, name), l[name].cx, SW / 2, 40)
    end
  end
  time_near(check, S.paused_later, S.paused.time or -1, "frozen while paused")
  time_near(check, S.paused, 2.0, "value when paused")
end)

requirement("R3", function(check)
  menu_shown(check, S.closed, false)
  time_near(check, S.resumed, (S.closed.time or -1) + 1.0, "ESCAPE resumes play")
  menu_shown(check, S.reopened, true)
end)

requirement("R4", function(check)
  check.at(S.paused.frame).equal("after ESCAPE: selected item", selected(S.paused), "Resume")
  for _, n in ipairs(nav) do
    check.at(n.snap.frame).equal(n.snap.label .. ": selected item", selected(n.snap), n.want)
    for _, name in ipairs(LABELS) do
      if name ~= n.want then
        check.at(n.snap.frame).equal(fmt("%s: %s drawn in white", n.snap.label, name),
          n.snap.labels[name] and n.snap.labels[name].color, WHITE)
      end
    end
  end
  check.at(S.reopened.frame).equal("reopened after closing on Restart: selected item", selected(S.reopened),
    "Resume")
end)

requirement("R5", function(check)
  menu_shown(check, S.return_resume, false)
  time_near(check, S.return_resume_later, (S.return_resume.time or -1) + 1.0, "RETURN on Resume resumes")
  menu_shown(check, S.return_restart, false)
  time_near(check, S.return_restart, 0.5, "RETURN on Restart restarts from 0")
end)

requirement("R6", function(check)
  menu_shown(check, S.click_restart, false)
  time_near(check, S.click_restart, 0.0, "clicking Restart restarts from 0")
  time_near(check, S.click_restart_later, 1.0, "play goes on after clicking Restart")
  menu_shown(check, S.click_resume, false)
  time_near(check, S.click_resume, (S.click_resume_before.time or -1) + 0.5, "clicking Resume resumes")
end)

requirement("R7", function(check)
  check.at(S.before_quit.frame).falsy("the program runs before Quit", S.before_quit.exited)
  check.at(S.quit.frame).truthy("RETURN on Quit calls engine:Exit()", S.quit.exited)
end)

-- richness
requirement("R8", function(check)
  local s = S.playing_input
  menu_shown(check, s, false)
  time_near(check, s, (S.return_resume_later.time or -1) + 0.5 + 6 / 60, "not restarted by input while playing")
  check.at(s.frame).falsy(s.label .. ": still running", s.exited)
end)

requirement("R9", function(check)
  local missing = nil     -- the first frame of the hold (after the first) without the menu
  for i = 2, #hold do
    if missing == nil and hold[i].count ~= 3 then missing = hold[i] end
  end
  local s = missing or hold[#hold]
  check.at(s.frame).truthy(fmt("the menu stays open while ESCAPE is held (%s)", s.label), missing == nil)
  menu_shown(check, S.after_hold, true)
end)

requirement("R10", function(check)
  menu_shown(check, S.after_off, true)
  time_near(check, S.after_off, S.before_off.time or -1, "not restarted by clicks off the labels")
end)
