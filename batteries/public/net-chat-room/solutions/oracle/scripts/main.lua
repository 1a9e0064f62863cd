-- Oracle: a chat room.  The server names clients by join order, broadcasts their joins, leaves and lines as
-- ChatLine remote events; every role shows the last five lines in ChatLog; a client types into ChatDraft and
-- sends it with RETURN as a ChatSend remote event.
local MAX_LINES = 5
local PORT = 2345

local lines_ = {}
local logText_
local draftText_
local draft_ = ""
local names_ = {}        -- server: connection -> "Player N"
local joined_ = 0

local function showLog() logText_.text = table.concat(lines_, "\n") end
local function addLine(text)
  lines_[#lines_ + 1] = text
  while #lines_ > MAX_LINES do table.remove(lines_, 1) end
  showLog()
end

local function broadcast(text)
  addLine(text)
  local data = VariantMap()
  data["Text"] = text
  network:BroadcastRemoteEvent("ChatLine", true, data)
end

local function makeText(name, y)
  local t = ui.root:CreateChild("Text", name)
  t:SetFont(cache:GetResource("Font", "Fonts/Anonymous Pro.ttf"), 16)
  t.position = IntVector2(20, y)
  t.text = ""
  return t
end

function Start()
  logText_ = makeText("ChatLog", 20)
  network:RegisterRemoteEvent("ChatSend")
  network:RegisterRemoteEvent("ChatLine")
  if IsServerMode() then
    network:StartServer(PORT)
    SubscribeToEvent("ClientConnected", "HandleClientConnected")
    SubscribeToEvent("ClientDisconnected", "HandleClientDisconnected")
    SubscribeToEvent("ChatSend", "HandleChatSend")
  else
    draftText_ = makeText("ChatDraft", 200)
    SubscribeToEvent("ChatLine", "HandleChatLine")
    SubscribeToEvent("TextInput", "HandleTextInput")
    SubscribeToEvent("KeyDown", "HandleKeyDown")
  end
end

function HandleClientConnected(eventType, eventData)
  local connection = eventData["Connection"]:GetPtr("Connection")
  joined_ = joined_ + 1
  names_[connection] = "Player " .. joined_
  broadcast(names_[connection] .. " joined")
end

function HandleClientDisconnected(eventType, eventData)
  local connection = eventData["Connection"]:GetPtr("Connection")
  local name = names_[connection]
  if name == nil then return end
  names_[connection] = nil
  broadcast(name .. " left")
end

function HandleChatSend(eventType, eventData)
  local connection = eventData["Connection"]:GetPtr("Connection")
  local name = names_[connection]
  local text = eventData["Text"] and eventData["Text"]:GetString() or ""
  if name == nil or not text:find("%S") then return end
  broadcast(name .. ": " .. text)
end

function HandleChatLine(eventType, eventData)
  addLine(eventData["Text"]:GetString())
end

local function showDraft() draftText_.text = draft_ end

function HandleTextInput(eventType, eventData)
  draft_ = draft_ .. eventData["Text"]:GetString()
  showDraft()
end

-- the byte offset of the last UTF-8 character of s (1 for a one-byte string)
local function lastCharStart(s)
  local i = #s
  while i > 1 do
    local b = s:byte(i)
    if b < 0x80 or b >= 0xC0 then break end
    i = i - 1
  end
  return i
end

function HandleKeyDown(eventType, eventData)
  local key = eventData["Key"]:GetInt()
  if key == KEY_BACKSPACE then
    if #draft_ > 0 then draft_ = draft_:sub(1, lastCharStart(draft_) - 1) end
    showDraft()
  elseif key == KEY_RETURN or key == KEY_KP_ENTER then
    local connection = network:GetServerConnection()
    if connection ~= nil and draft_:find("%S") then
      local data = VariantMap()
      data["Text"] = draft_
      connection:SendRemoteEvent("ChatSend", true, data)
    end
    draft_ = ""
    showDraft()
  end
end
