-- Oracle: a main screen and a settings window (name, volume slider, mute check box, difficulty list) in
-- Urho3D's native UI. Apply makes the window's values the settings in force and saves them to settings.json;
-- Cancel discards them. The settings are loaded from settings.json at start.
local SETTINGS_FILE = "settings.json"
local DIFFICULTIES = {"Easy", "Normal", "Hard"}
local DEFAULTS = {name = "Player", volume = 70, muted = false, difficulty = "Normal"}

local font_             ---@type Font
local mainPanel_        ---@type UIElement
local summaryText_      ---@type Text
local window_           ---@type Window
local nameEdit_         ---@type LineEdit
local volumeSlider_     ---@type Slider
local volumeText_       ---@type Text
local muteCheck_        ---@type CheckBox
local difficultyList_   ---@type DropDownList
local applyButton_      ---@type Button

-- The settings in force.
local settings_ = {name = DEFAULTS.name, volume = DEFAULTS.volume, muted = DEFAULTS.muted,
                   difficulty = DEFAULTS.difficulty}

local function trim(s)
  return (s:gsub("^%s+", ""):gsub("%s+$", ""))
end

local function indexOf(list, value)
  for i, v in ipairs(list) do
    if v == value then return i end
  end
  return nil
end

-- settings.json ------------------------------------------------------------------------------------
local function loadSettings()
  local file = File(SETTINGS_FILE, FILE_READ)
  if not file:IsOpen() then return end
  local text = file:ReadString()
  file:Close()
  local ok, data = pcall(cjson.decode, text)
  if not ok or type(data) ~= "table" then return end
  if type(data.name) == "string" and trim(data.name) ~= "" then settings_.name = trim(data.name) end
  if type(data.volume) == "number" then
    settings_.volume = math.max(0, math.min(100, math.floor(data.volume + 0.5)))
  end
  if type(data.muted) == "boolean" then settings_.muted = data.muted end
  if indexOf(DIFFICULTIES, data.difficulty) then settings_.difficulty = data.difficulty end
end

local function saveSettings()
  local file = File(SETTINGS_FILE, FILE_WRITE)
  file:WriteString(cjson.encode({name = settings_.name, volume = settings_.volume, muted = settings_.muted,
                                 difficulty = settings_.difficulty}))
  file:Close()
end

-- the widgets --------------------------------------------------------------------------------------
local function sliderVolume()
  return math.floor(volumeSlider_.value + 0.5)
end

local function updateSummary()
  local volume = settings_.muted and "muted" or tostring(settings_.volume)
  summaryText_.text = string.format("Player: %s | Volume: %s | Difficulty: %s", settings_.name, volume,
    settings_.difficulty)
end

-- Everything that depends on other widgets: the slider's state, the volume text, Apply's state.
local function syncWidgets()
  local muted = muteCheck_.checked
  volumeSlider_.enabled = not muted
  volumeText_.text = muted and "Volume: muted" or string.format("Volume: %d", sliderVolume())
  applyButton_.enabled = trim(nameEdit_.text) ~= ""
end

local function showMain()
  window_.visible = false
  mainPanel_.visible = true
  updateSummary()
end

local function openSettings()
  nameEdit_.text = settings_.name
  volumeSlider_.value = settings_.volume
  muteCheck_.checked = settings_.muted
  difficultyList_.selection = indexOf(DIFFICULTIES, settings_.difficulty) - 1
  syncWidgets()
  mainPanel_.visible = false
  window_.visible = true
end

local function apply()
  local name = trim(nameEdit_.text)
  if name == "" then return end
  settings_.name = name
  settings_.volume = sliderVolume()
  settings_.muted = muteCheck_.checked
  settings_.difficulty = DIFFICULTIES[difficultyList_.selection + 1] or settings_.difficulty
  saveSettings()
  showMain()
end

-- building -----------------------------------------------------------------------------------------
local function makeText(parent, name, text, x, y)
  local t = parent:CreateChild("Text", name)
  t:SetStyleAuto()
  t:SetFont(font_, 16)
  t.text = text
  t:SetPosition(x, y)
  return t
end

local function makeButton(parent, name, label, x, y)
  local button = parent:CreateChild("Button", name)
  button:SetStyleAuto()
  button:SetPosition(x, y)
  button:SetFixedSize(140, 40)
  local text = button:CreateChild("Text")
  text:SetFont(font_, 16)
  text.text = label
  text:SetAlignment(HA_CENTER, VA_CENTER)
  return button
end

local function buildMain()
  mainPanel_ = ui.root:CreateChild("UIElement", "MainPanel")
  mainPanel_:SetPosition(40, 40)
  mainPanel_:SetSize(900, 120)
  makeButton(mainPanel_, "SettingsButton", "Settings", 0, 0)
  summaryText_ = makeText(mainPanel_, "SummaryText", "", 0, 60)
end

local function buildWindow()
  window_ = ui.root:CreateChild("Window", "SettingsWindow")
  window_:SetStyleAuto()
  window_:SetFixedSize(480, 380)
  window_:SetAlignment(HA_CENTER, VA_CENTER)

  makeText(window_, "NameLabel", "Name", 20, 26)
  nameEdit_ = window_:CreateChild("LineEdit", "NameEdit")
  nameEdit_:SetStyleAuto()
  nameEdit_:SetPosition(120, 20)
  nameEdit_:SetFixedSize(320, 32)
  nameEdit_.textElement:SetFont(font_, 16)

  makeText(window_, "VolumeLabel", "Volume", 20, 86)
  volumeSlider_ = window_:CreateChild("Slider", "VolumeSlider")
  volumeSlider_:SetStyleAuto()
  volumeSlider_:SetPosition(120, 84)
  volumeSlider_:SetFixedSize(200, 20)
  volumeSlider_.range = 100
  volumeSlider_.knob:SetFixedSize(20, 20)
  volumeText_ = makeText(window_, "VolumeText", "", 336, 86)

  muteCheck_ = window_:CreateChild("CheckBox", "MuteCheck")
  muteCheck_:SetStyleAuto()
  muteCheck_:SetPosition(120, 140)
  makeText(window_, "MuteLabel", "Mute", 150, 140)

  makeText(window_, "DifficultyLabel", "Difficulty", 20, 200)
  difficultyList_ = window_:CreateChild("DropDownList", "DifficultyList")
  difficultyList_:SetStyleAuto()
  difficultyList_:SetPosition(120, 194)
  difficultyList_:SetFixedSize(200, 30)
  difficultyList_.resizePopup = true
  for _, label in ipairs(DIFFICULTIES) do
    local item = Text:new()
    item:SetStyleAuto(ui.root.defaultStyle)
    item:SetFont(font_, 16)
    item.text = label
    difficultyList_:AddItem(item)
  end

  applyButton_ = makeButton(window_, "ApplyButton", "Apply", 100, 300)
  makeButton(window_, "CancelButton", "Cancel", 260, 300)
end

function Start()
  ui.root.defaultStyle = cache:GetResource("XMLFile", "UI/DefaultStyle.xml")
  font_ = cache:GetResource("Font", "Fonts/Anonymous Pro.ttf")
  loadSettings()
  buildMain()
  buildWindow()

  SubscribeToEvent(ui.root:GetChild("SettingsButton", true), "Released", function() openSettings() end)
  SubscribeToEvent(volumeSlider_, "SliderChanged", function() syncWidgets() end)
  SubscribeToEvent(muteCheck_, "Toggled", function() syncWidgets() end)
  SubscribeToEvent(nameEdit_, "TextChanged", function() syncWidgets() end)
  SubscribeToEvent(applyButton_, "Released", function() apply() end)
  SubscribeToEvent(ui.root:GetChild("CancelButton", true), "Released", function() showMain() end)

  showMain()
end
