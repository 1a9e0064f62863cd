-- Battery for ui-settings-screen: seeds settings.json, then opens the settings window, toggles MuteCheck, drags
-- VolumeSlider's knob, edits NameEdit, picks from DifficultyList, applies, cancels and applies again, reading the
-- native UI's own records (texts, values, enabled states, selections, hit-tests) and the file the game writes.
--
-- Story: seed {"name": "Ann", "volume": 40, "muted": true, "difficulty": "Hard"} -> start -> open -> unmute,
--   mute (a drag while muted), unmute -> drags -> name cleared, blank, "  Bob  " -> Easy -> Apply
--   -> open, changes, Cancel -> open -> a name with quotes -> Apply.
local h = harness
local fmt = string.format

local TYPES = {SettingsButton = "Button", SummaryText = "Text", SettingsWindow = "Window", NameEdit = "LineEdit",
               VolumeSlider = "Slider", VolumeText = "Text", MuteCheck = "CheckBox", DifficultyList = "DropDownList",
               ApplyButton = "Button", CancelButton = "Button"}
local MAIN = {"SettingsButton", "SummaryText"}
local WIDGETS = {"NameEdit", "VolumeSlider", "VolumeText", "MuteCheck", "DifficultyList", "ApplyButton",
                 "CancelButton"}
local TEXTS = {SummaryText = true, VolumeText = true}   -- not clickable: Texts pass clicks through
local SW, SH = h.screen()

-- settings.json ------------------------------------------------------------------------------------
-- A strict reader of one flat JSON object (strings with escapes, numbers, true, false, null): the battery's
-- environment has no JSON library, and a file a JSON library would refuse must be refused here too.
local ESCAPES = {['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t"}
local function json_object(text)
  local i = 1
  local function ws() i = text:find("[^ \t\r\n]", i) or #text + 1 end
  local function str()
    if text:sub(i, i) ~= '"' then error("string expected at " .. i) end
    i = i + 1
    local out = {}
    while true do
      local c = text:sub(i, i)
      if c == "" then error("unterminated string") end
      if c == '"' then i = i + 1; return table.concat(out) end
      if c == "\\" then
        local e = text:sub(i + 1, i + 1)
        if e == "u" then
          local hex = text:sub(i + 2, i + 5)
          if not hex:match("^%x%x%x%x$") then error("bad \\u escape") end
          out[#out + 1] = utf8.char(tonumber(hex, 16)); i = i + 6
        elseif ESCAPES[e] then
          out[#out + 1] = ESCAPES[e]; i = i + 2
        else
          error("bad escape")
        end
      elseif c:byte() < 32 then
        error("control character in a string")
      else
        out[#out + 1] = c; i = i + 1
      end
    end
  end
  local function value()
    ws()
    local c = text:sub(i, i)
    if c == '"' then return str() end
    for _, wv in ipairs({{"true", true}, {"false", false}, {"null", "null"}}) do
      if text:sub(i, i + #wv[1] - 1) == wv[1] then i = i + #wv[1]; return wv[2] end
    end
    local num = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", i)
    if num == nil or num == "" then error("value expected at " .. i) end
    i = i + #num
    return tonumber(num)
  end
  ws()
  if text:sub(i, i) ~= "{" then error("object expected") end
  i = i + 1
  local obj = {}
  ws()
  if text:sub(i, i) == "}" then return obj end
  while true do
    ws()
    local k = str()
    ws()
    if text:sub(i, i) ~= ":" then error("':' expected at " .. i) end
    i = i + 1
    obj[k] = value()
    ws()
    local c = text:sub(i, i)
    i = i + 1
    if c == "}" then break end
    if c ~= "," then error("',' or '}' expected at " .. (i - 1)) end
  end
  ws()
  if i <= #text then error("text after the object") end
  return obj
end
local function write_file(text)
  h.write_file("settings.json", text .. "\0")   -- as File:WriteString writes it
end
-- The file as the game left it: the decoded table, or nil and why not.
local function read_settings()
  local text = h.file("settings.json")
  if text == nil then return nil, "settings.json does not exist" end
  text = text:gsub("%z+$", "")
  local ok, data = pcall(json_object, text)
  if not ok or type(data) ~= "table" then return nil, "settings.json is not a JSON object: " .. text:sub(1, 80) end
  return data, text
end

-- reading the UI -----------------------------------------------------------------------------------
local function reached(name)
  local v = h.ui(name)
  if v == nil or not v.exists or not v.visible then return false end
  local c = v.center
  local hit = h.ui_at(c.x, c.y)
  while hit and hit.name ~= name do hit = hit.parent end
  return hit ~= nil
end
local function layout(names)
  local out = {}
  for _, name in ipairs(names) do
    local v = h.ui(name)
    local e = {exists = v ~= nil and v.exists}
    if e.exists then
      e.type, e.visible, e.x, e.y, e.w, e.h = v.type, v.visible, v.x, v.y, v.width, v.height
      e.reached = reached(name)
    end
    out[name] = e
  end
  return out
end
local function knob(slider)
  for _, c in ipairs(slider.children) do
    if c.internal then return c end
  end
  return nil
end
local function snap(label)
  local s = {label = label, frame = h.frame(), summary = h.ui_text("SummaryText"), name = h.ui_text("NameEdit"),
             volume_text = h.ui_text("VolumeText")}
  local w = h.ui("SettingsWindow")
  s.window = w ~= nil and w.visible
  local b = h.ui("SettingsButton")
  s.main = b ~= nil and b.visible
  local sl = h.ui("VolumeSlider")
  if sl then s.value, s.range, s.slider_enabled = sl.value, sl.range, sl.enabled end
  local m = h.ui("MuteCheck")
  s.checked = m and m.checked
  local d = h.ui("DifficultyList")
  s.selection = d and d.selection
  local a = h.ui("ApplyButton")
  s.apply_enabled = a and a.enabled
  s.file, s.file_text = read_settings()
  return s
end

-- driving ------------------------------------------------------------------------------------------
local function click(name) h.click_ui(name); h.run_frames(2) end
local function clear_edit()
  h.click_ui("NameEdit"); h.run_frames(1)
  h.press(KEY_END); h.key_down(KEY_LSHIFT); h.press(KEY_HOME); h.key_up(KEY_LSHIFT); h.press(KEY_BACKSPACE)
  h.run_frames(1)
end
local function type_name(s) clear_edit(); h.text(s); h.run_frames(2) end
-- Drag VolumeSlider's knob by dx pixels in `steps` moves; `during` snapshots after the first moves.
local function drag(dx, label)
  local sl = h.ui("VolumeSlider")
  local k = sl and knob(sl)
  if k == nil then return nil end
  local c = k.center
  h.mouse_to(c.x, c.y); h.run_frames(1)
  h.mouse_down(MOUSEB_LEFT); h.run_frames(1)
  local during
  for i = 1, 4 do
    h.mouse_to(c.x + dx * i / 4, c.y); h.run_frames(1)
    if i == 2 then during = snap(label .. ", halfway through the drag (mouse still down)") end
  end
  h.mouse_up(MOUSEB_LEFT); h.run_frames(2)
  return during
end
-- Open the difficulty list and click the item reading `text`; false when there is none to click.
local function pick(text)
  click("DifficultyList")
  local d = h.ui("DifficultyList")
  for _, it in ipairs(d and d.items or {}) do
    if it.text == text and it.visible then
      h.click(it.center.x, it.center.y); h.run_frames(2)
      return true
    end
  end
  return false
end

local S = {}
write_file('{"name": "Ann", "volume": 40, "muted": true, "difficulty": "Hard"}')
h.start()
h.run_frames(2)
S.start = snap("at the start")
S.start_layout = layout(MAIN)
local sb = h.ui("SettingsButton")
local sb_center = sb and sb.center
local ok = S.start_layout.SettingsButton.reached
if ok then
  click("SettingsButton")
  S.open = snap("after clicking SettingsButton")
  S.open_layout = layout({"SettingsWindow", "NameEdit", "VolumeText", "MuteCheck", "DifficultyList",
                          "ApplyButton", "CancelButton"})
  S.button_under = sb_center and h.ui_at(sb_center.x, sb_center.y)
  S.button_under_reached = reached("SettingsButton") or (S.button_under ~= nil and S.button_under.name == "SettingsButton")
  local d = h.ui("DifficultyList")
  S.items = {}
  for i, it in ipairs(d and d.items or {}) do S.items[i] = it.text or ("<" .. it.type .. ">") end
  ok = S.open_layout.MuteCheck.reached and S.open_layout.NameEdit.reached and S.open_layout.ApplyButton.reached
    and S.open_layout.CancelButton.reached and S.open_layout.DifficultyList.reached
end
if ok then
  click("MuteCheck"); S.unmute = snap("after clicking MuteCheck once")
  S.unmute_layout = layout(WIDGETS)
  click("MuteCheck"); S.mute = snap("after clicking MuteCheck twice")
  drag(80, "dragging while muted"); S.muted_drag = snap("after dragging the knob 80 px while muted")
  click("MuteCheck"); S.unmute2 = snap("after clicking MuteCheck a third time")

  S.drag1_mid = drag(60, "dragging 60 px right"); S.drag1 = snap("after dragging the knob 60 px right")
  S.drag0_mid = drag(-300, "dragging 300 px left"); S.drag0 = snap("after dragging the knob 300 px left")
  S.drag2_mid = drag(107, "dragging 107 px right"); S.drag2 = snap("after dragging the knob 107 px right")

  type_name(""); S.name_empty = snap("with NameEdit emptied")
  type_name("   "); S.name_blank = snap("with NameEdit holding three spaces")
  type_name("  Bob  "); S.name_bob = snap("with NameEdit holding '  Bob  '")
  S.picked_easy = pick("Easy"); S.easy = snap("after picking Easy in DifficultyList")
  S.before_apply = snap("just before clicking Apply")
  click("ApplyButton"); S.applied = snap("after clicking ApplyButton")

  click("SettingsButton"); S.reopen1 = snap("after opening the window again")
  click("MuteCheck")
  type_name("Carl")
  S.picked_normal = pick("Normal")
  drag(-40, "dragging before Cancel")
  S.before_cancel = snap("after changing everything, before Cancel")
  click("CancelButton"); S.cancelled = snap("after clicking CancelButton")
  click("SettingsButton"); S.reopen2 = snap("after opening the window after Cancel")
  S.reopen2_layout = layout(WIDGETS)

  type_name('Al "Ace"'); click("ApplyButton"); S.quoted = snap("after applying the name 'Al \"Ace\"'")
end

-- requirements -------------------------------------------------------------------------------------
local function need(check)
  if not ok then check.fail("the controls", "SettingsButton, then the window's widgets, are not all reachable") end
  return ok
end
local function check_layout(check, l, label, skip)
  for name, e in pairs(l) do
    check.truthy(fmt("%s: %s exists in the UI", label, name), e.exists)
    if e.exists then
      check.equal(fmt("%s: %s type", label, name), e.type, TYPES[name])
      check.truthy(fmt("%s: %s visible", label, name), e.visible)
      check.truthy(fmt("%s: %s entirely on screen", label, name),
        e.x >= 0 and e.y >= 0 and e.x + e.w <= SW and e.y + e.h <= SH)
      if not TEXTS[name] and name ~= "SettingsWindow" and not (skip and skip[name]) then
        check.truthy(fmt("%s: %s at least 16 x 16", label, name), e.w >= 16 and e.h >= 16)
        check.truthy(fmt("%s: a click at %s's centre reaches it", label, name), e.reached)
      end
    end
  end
end
local function volume_text(s) return fmt("Volume: %d", s.value and math.floor(s.value + 0.5) or -1) end
local function summary(name, volume, difficulty)
  return fmt("Player: %s | Volume: %s | Difficulty: %s", name, volume, difficulty)
end
-- The window shows the settings (name, volume, muted, difficulty index) in snapshot s.
local function shows(check, s, name, volume, muted, selection)
  local at = check.at(s.frame)
  at.truthy(s.label .. ": SettingsWindow shown", s.window)
  at.equal(s.label .. ": NameEdit", s.name, name)
  at.near(s.label .. ": VolumeSlider value", s.value, volume, 0.5)
  at.equal(s.label .. ": MuteCheck checked", s.checked, muted)
  at.equal(s.label .. ": DifficultyList selection", s.selection, selection)
end
local function file_holds(check, s, want)
  local at = check.at(s.frame)
  at.truthy(s.label .. ": settings.json readable (" .. tostring(s.file_text) .. ")", s.file)
  if s.file == nil then return end
  for _, k in ipairs({"name", "volume", "muted", "difficulty"}) do
    at.equal(fmt("%s: settings.json %s", s.label, k), s.file[k], want[k])
  end
end

requirement("R1", function(check)
  check_layout(check, S.start_layout, S.start.label)
  local at = check.at(S.start.frame)
  local w = h.ui("SettingsWindow")
  at.equal("SettingsWindow type", w and w.type, "Window")
  at.falsy(S.start.label .. ": SettingsWindow hidden", S.start.window)
  at.equal(S.start.label .. ": SummaryText from settings.json", S.start.summary,
    summary("Ann", "muted", "Hard"))
end)

requirement("R2", function(check)
  if not need(check) then return end
  check_layout(check, S.open_layout, S.open.label)
  shows(check, S.open, "Ann", 40, true, 2)
  check.at(S.open.frame).equal(S.open.label .. ": VolumeSlider range", S.open.range, 100)
  check.at(S.open.frame).equal(S.open.label .. ": DifficultyList items", table.concat(S.items, ", "),
    "Easy, Normal, Hard")
  check_layout(check, S.unmute_layout, S.unmute.label)
end)

requirement("R3", function(check)
  if not need(check) then return end
  for _, s in ipairs({S.unmute, S.mute, S.muted_drag, S.unmute2}) do
    local at = check.at(s.frame)
    local muted = s == S.mute or s == S.muted_drag
    at.equal(s.label .. ": MuteCheck checked", s.checked, muted)
    at.equal(s.label .. ": VolumeSlider enabled", s.slider_enabled, not muted)
    at.equal(s.label .. ": VolumeText", s.volume_text, muted and "Volume: muted" or "Volume: 40")
  end
  check.at(S.muted_drag.frame).near(S.muted_drag.label .. ": the volume did not move", S.muted_drag.value, 40, 0.5)
end)

requirement("R4", function(check)
  if not need(check) then return end
  local d1 = S.drag1
  check.at(d1.frame).greater(d1.label .. ": the volume rose", d1.value, 45)
  for _, s in ipairs({S.drag1_mid or S.drag1, d1, S.drag2_mid or S.drag2, S.drag2}) do
    check.at(s.frame).equal(s.label .. ": VolumeText follows the slider", s.volume_text, volume_text(s))
  end
  check.at(S.drag0.frame).near(S.drag0.label .. ": volume", S.drag0.value, 0, 0.5)
  check.at(S.drag0.frame).equal(S.drag0.label .. ": VolumeText", S.drag0.volume_text, "Volume: 0")
  check.at(S.drag1_mid and S.drag1_mid.frame or d1.frame).greater("the volume rose halfway through the drag",
    S.drag1_mid and S.drag1_mid.value, 40.5)
end)

requirement("R5", function(check)
  if not need(check) then return end
  check.at(S.unmute2.frame).equal(S.unmute2.label .. ": ApplyButton enabled (name 'Ann')", S.unmute2.apply_enabled,
    true)
  check.at(S.name_empty.frame).equal(S.name_empty.label .. ": ApplyButton enabled", S.name_empty.apply_enabled, false)
  check.at(S.name_blank.frame).equal(S.name_blank.label .. ": ApplyButton enabled", S.name_blank.apply_enabled, false)
  check.at(S.name_bob.frame).equal(S.name_bob.label .. ": ApplyButton enabled", S.name_bob.apply_enabled, true)
end)

requirement("R6", function(check)
  if not need(check) then return end
  check.at(S.easy.frame).truthy("an Easy item to click in the opened list", S.picked_easy)
  check.at(S.easy.frame).equal(S.easy.label .. ": DifficultyList selection", S.easy.selection, 0)
end)

requirement("R7", function(check)
  if not need(check) then return end
  local s, b = S.applied, S.before_apply
  local v = b.value and math.floor(b.value + 0.5) or -1
  local at = check.at(s.frame)
  at.falsy(s.label .. ": SettingsWindow hidden", s.window)
  at.truthy(s.label .. ": SettingsButton shown", s.main)
  at.equal(s.label .. ": SummaryText", s.summary, summary("Bob", v, "Easy"))
  file_holds(check, s, {name = "Bob", volume = v, muted = false, difficulty = "Easy"})
end)

requirement("R8", function(check)
  if not need(check) then return end
  local v = S.before_apply.value and math.floor(S.before_apply.value + 0.5) or -1
  shows(check, S.reopen1, "Bob", v, false, 0)
  check.at(S.before_cancel.frame).truthy("a Normal item to click in the opened list", S.picked_normal)
  local s = S.cancelled
  check.at(s.frame).falsy(s.label .. ": SettingsWindow hidden", s.window)
  check.at(s.frame).equal(s.label .. ": SummaryText unchanged", s.summary, S.applied.summary)
  file_holds(check, s, {name = "Bob", volume = v, muted = false, difficulty = "Easy"})
  shows(check, S.reopen2, "Bob", v, false, 0)
  check.at(S.reopen2.frame).equal(S.reopen2.label .. ": VolumeSlider enabled", S.reopen2.slider_enabled, true)
  check.at(S.reopen2.frame).equal(S.reopen2.label .. ": VolumeText", S.reopen2.volume_text, fmt("Volume: %d", v))
end)

-- richness
requirement("R9", function(check)
  if not need(check) then return end
  local at = check.at(S.open.frame)
  at.equal(S.open.label .. " (muted in settings.json): VolumeSlider enabled", S.open.slider_enabled, false)
  at.equal(S.open.label .. " (muted in settings.json): VolumeText", S.open.volume_text, "Volume: muted")
end)

requirement("R10", function(check)
  if not need(check) then return end
  check.at(S.open.frame).falsy(S.open.label .. ": a click where SettingsButton is does not reach it",
    S.button_under_reached)
end)

requirement("R11", function(check)
  if not need(check) then return end
  local s = S.quoted
  check.at(s.frame).equal(s.label .. ": SummaryText name", s.summary and s.summary:match("^Player: (.-) | Volume"),
    'Al "Ace"')
  check.at(s.frame).truthy(s.label .. ": settings.json readable (" .. tostring(s.file_text) .. ")", s.file)
  check.at(s.frame).equal(s.label .. ": settings.json name", s.file and s.file.name, 'Al "Ace"')
end)
