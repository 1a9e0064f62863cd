-- Battery for ui-login-form: types into the two edits as a user would (clicking the edit, selecting what is there
-- and deleting it first), submits with LoginButton (and once with RETURN in the password field) and reads the
-- native UI's own records: MessageText, the edits' texts, what PasswordEdit shows, visibility.
local h = harness
local fmt = string.format

local NAMES = {UserEdit = "LineEdit", PasswordEdit = "LineEdit", LoginButton = "Button", MessageText = "Text"}
local ORDER = {"UserEdit", "PasswordEdit", "LoginButton", "MessageText"}
local SW, SH = h.screen()
local MSG = {user = "Enter your user name.", short = "Password must be at least 6 characters.",
             welcome = "Welcome, admin!", wrong = "Wrong user name or password."}

-- Where each control is and whether a click at its centre reaches it.
local function layout()
  local out = {}
  for _, name in ipairs(ORDER) do
    local v = h.ui(name)
    local e = {exists = v ~= nil and v.exists}
    if e.exists then
      e.type, e.visible, e.x, e.y, e.w, e.h = v.type, v.visible, v.x, v.y, v.width, v.height
      local c = v.center
      local hit = h.ui_at(c.x, c.y)
      while hit and hit.name ~= name do hit = hit.parent end
      e.reached = hit ~= nil
    end
    out[name] = e
  end
  return out
end

-- What PasswordEdit shows: the text of its Text child (the line edit's own text element).
local function shown_password()
  local v = h.ui("PasswordEdit")
  for _, c in ipairs(v and v.children or {}) do
    if c.type == "Text" then return c.text end
  end
  return nil
end

local function snap(label)
  local s = {label = label, frame = h.frame(), message = h.ui_text("MessageText"), user = h.ui_text("UserEdit"),
    password = h.ui_text("PasswordEdit"), shown = shown_password(), visible = {}}
  for _, name in ipairs(ORDER) do
    local v = h.ui(name)
    s.visible[name] = v ~= nil and v.visible
  end
  return s
end

local function shown(name) local v = h.ui(name); return v ~= nil and v.visible end
local function type_into(name, text)
  if not shown(name) then return end      -- the form is gone (a login succeeded): nothing to type into
  h.click_ui(name); h.run_frames(1)
  h.press(KEY_END); h.key_down(KEY_LSHIFT); h.press(KEY_HOME); h.key_up(KEY_LSHIFT); h.press(KEY_BACKSPACE)
  h.run_frames(1)
  if text ~= "" then h.text(text) end
  h.run_frames(1)
end
local function fill(user, password) type_into("UserEdit", user); type_into("PasswordEdit", password) end
local function login() if shown("LoginButton") then h.click_ui("LoginButton") end; h.run_frames(2) end

-- drive --------------------------------------------------------------------------------------------
local S = {}
h.start()
h.run_frames(2)
S.start = snap("at start")
S.layout = layout()
local ok = S.layout.UserEdit.reached and S.layout.PasswordEdit.reached and S.layout.LoginButton.reached
if ok then
  login(); S.empty = snap("Log in with both fields empty")
  fill("bob", "abc"); login(); S.short = snap("Log in as 'bob' with the password 'abc'")
  fill("bob", "hunter2"); h.press(KEY_RETURN); h.run_frames(2)
  S.enter = snap("RETURN in the password field, 'bob' / 'hunter2'")
  fill("", "abc"); login(); S.no_user = snap("Log in with no user name and the password 'abc'")
  fill("bob", "hunter"); login(); S.wrong6 = snap("Log in as 'bob' with the 6-character password 'hunter'")
  S.masked = S.wrong6
  fill("Admin", "secret1"); login(); S.case = snap("Log in as 'Admin' with the password 'secret1'")
  fill("admin", "secret1"); login(); S.welcome = snap("Log in as 'admin' with the password 'secret1'")
end

-- requirements -------------------------------------------------------------------------------------
local function need(check)
  if not ok then check.fail("the controls", "UserEdit, PasswordEdit and LoginButton are not all reachable") end
  return ok
end
local function message(check, s, want)
  check.at(s.frame).equal(s.label .. ": MessageText", s.message, want)
end
local function kept(check, s, user, password)
  check.at(s.frame).equal(s.label .. ": UserEdit kept", s.user, user)
  check.at(s.frame).equal(s.label .. ": PasswordEdit kept", s.password, password)
end

requirement("R1", function(check)
  for _, name in ipairs(ORDER) do
    local e = S.layout[name]
    check.truthy(fmt("%s exists in the UI", name), e.exists)
    if e.exists then
      check.equal(fmt("%s type", name), e.type, NAMES[name])
      check.truthy(fmt("%s visible", name), e.visible)
      check.truthy(fmt("%s entirely on screen", name), e.x >= 0 and e.y >= 0 and e.x + e.w <= SW and e.y + e.h <= SH)
      if name ~= "MessageText" then   -- a Text is not enabled: clicks pass through it
        check.truthy(fmt("%s at least 20 x 20", name), e.w >= 20 and e.h >= 20)
        check.truthy(fmt("a click at %s's centre reaches it", name), e.reached)
      end
    end
  end
  message(check, S.start, "")
end)

requirement("R2", function(check)
  if not need(check) then return end
  message(check, S.empty, MSG.user)
  message(check, S.no_user, MSG.user)
  kept(check, S.no_user, "", "abc")
  message(check, S.short, MSG.short)
  kept(check, S.short, "bob", "abc")
end)

requirement("R3", function(check)
  if not need(check) then return end
  message(check, S.wrong6, MSG.wrong)
  kept(check, S.wrong6, "bob", "hunter")
  message(check, S.case, MSG.wrong)
  check.at(S.case.frame).truthy(S.case.label .. ": the form still shown", S.case.visible.LoginButton)
end)

requirement("R4", function(check)
  if not need(check) then return end
  local s = S.welcome
  message(check, s, MSG.welcome)
  for _, name in ipairs({"UserEdit", "PasswordEdit", "LoginButton"}) do
    check.at(s.frame).falsy(fmt("%s: %s hidden", s.label, name), s.visible[name])
  end
  check.at(s.frame).truthy(s.label .. ": MessageText visible", s.visible.MessageText)
end)

-- richness
requirement("R5", function(check)
  if not need(check) then return end
  local s = S.masked
  check.at(s.frame).equal(s.label .. ": the password typed", s.password, "hunter")
  check.at(s.frame).truthy(s.label .. ": PasswordEdit shows its text", s.shown)
  if s.shown then
    check.at(s.frame).equal(s.label .. ": one mask character per password character", utf8.len(s.shown), 6)
    check.at(s.frame).falsy(s.label .. ": no letter of the password shown", s.shown:find("[hunter]"))
  end
end)

requirement("R6", function(check)
  if not need(check) then return end
  message(check, S.enter, MSG.wrong)
end)
