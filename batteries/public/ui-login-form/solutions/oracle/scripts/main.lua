-- Oracle: a login form in Urho3D's native UI: a user name, a masked password, a button and a message that
-- says what is wrong, in the order the form is checked. RETURN in the password field submits the form too.
local userEdit_       ---@type LineEdit
local passwordEdit_   ---@type LineEdit
local loginButton_    ---@type Button
local message_        ---@type Text
local font_           ---@type Font

local USER, PASSWORD = "admin", "secret1"
local MIN_PASSWORD = 6

local function label(parent, text, x, y)
  local t = parent:CreateChild("Text")
  t:SetStyleAuto()
  t:SetFont(font_, 16)
  t.text = text
  t:SetPosition(x, y)
  return t
end

local function edit(parent, name, x, y)
  local e = parent:CreateChild("LineEdit", name)
  e:SetStyleAuto()
  e:SetPosition(x, y)
  e:SetFixedSize(260, 32)
  e.textElement:SetFont(font_, 16)
  return e
end

local function submit()
  local user, password = userEdit_.text, passwordEdit_.text
  if user == "" then
    message_.text = "Enter your user name."
  elseif utf8.len(password) == nil or utf8.len(password) < MIN_PASSWORD then
    message_.text = "Password must be at least 6 characters."
  elseif user == USER and password == PASSWORD then
    message_.text = "Welcome, admin!"
    userEdit_.visible = false
    passwordEdit_.visible = false
    loginButton_.visible = false
  else
    message_.text = "Wrong user name or password."
  end
end

function Start()
  ui.root.defaultStyle = cache:GetResource("XMLFile", "UI/DefaultStyle.xml")
  font_ = cache:GetResource("Font", "Fonts/Anonymous Pro.ttf")

  local form = ui.root:CreateChild("UIElement", "LoginForm")
  form:SetSize(420, 260)
  form:SetAlignment(HA_CENTER, VA_CENTER)

  label(form, "User name", 0, 6)
  userEdit_ = edit(form, "UserEdit", 140, 0)
  label(form, "Password", 0, 56)
  passwordEdit_ = edit(form, "PasswordEdit", 140, 50)
  passwordEdit_.echoCharacter = string.byte("*")   -- never show the password itself

  loginButton_ = form:CreateChild("Button", "LoginButton")
  loginButton_:SetStyleAuto()
  loginButton_:SetPosition(140, 100)
  loginButton_:SetFixedSize(120, 36)
  local caption = loginButton_:CreateChild("Text")
  caption:SetFont(font_, 16)
  caption.text = "Log in"
  caption:SetAlignment(HA_CENTER, VA_CENTER)

  message_ = form:CreateChild("Text", "MessageText")
  message_:SetStyleAuto()
  message_:SetFont(font_, 16)
  message_.text = ""
  message_:SetPosition(0, 160)

  SubscribeToEvent(loginButton_, "Released", function() submit() end)
  SubscribeToEvent(passwordEdit_, "TextFinished", function() submit() end)
end
