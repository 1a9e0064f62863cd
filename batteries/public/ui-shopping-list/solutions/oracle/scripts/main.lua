-- Oracle: a shopping list in Urho3D's native UI: type an item, add it (button or RETURN), select and remove.
local edit_       ---@type LineEdit
local list_       ---@type ListView
local countText_  ---@type Text
local font_       ---@type Font

local function trim(s)
  return (s:gsub("^%s+", ""):gsub("%s+$", ""))
end

local function updateCount()
  countText_.text = "Items: " .. list_.numItems
end

local function makeButton(parent, name, label, x, y)
  local button = parent:CreateChild("Button", name)
  button:SetStyleAuto()
  button:SetPosition(x, y)
  button:SetFixedSize(120, 36)
  local text = button:CreateChild("Text")
  text:SetFont(font_, 16)
  text.text = label
  text:SetAlignment(HA_CENTER, VA_CENTER)
  return button
end

local function addItem()
  local name = trim(edit_.text)
  edit_.text = ""
  if name == "" then return end
  local item = Text:new()
  item:SetStyleAuto(ui.root.defaultStyle)
  item:SetFont(font_, 18)
  item.text = name
  list_:AddItem(item)
  list_:SetViewPosition(0, 1000000)   -- scroll to the end (the view clamps): the new item is in sight
  updateCount()
end

local function removeSelected()
  local item = list_.selectedItem
  if item == nil then return end
  list_:RemoveItem(item)
  list_:ClearSelection()
  updateCount()
end

function Start()
  ui.root.defaultStyle = cache:GetResource("XMLFile", "UI/DefaultStyle.xml")
  font_ = cache:GetResource("Font", "Fonts/Anonymous Pro.ttf")

  local panel = ui.root:CreateChild("UIElement", "ShoppingPanel")
  panel:SetPosition(40, 40)
  panel:SetSize(460, 620)

  edit_ = panel:CreateChild("LineEdit", "ItemEdit")
  edit_:SetStyleAuto()
  edit_:SetPosition(0, 0)
  edit_:SetFixedSize(320, 36)
  edit_.textElement:SetFont(font_, 18)

  makeButton(panel, "AddButton", "Add", 340, 0)

  list_ = panel:CreateChild("ListView", "ItemList")
  list_:SetStyleAuto()
  list_:SetPosition(0, 50)
  list_:SetFixedSize(460, 460)
  list_.highlightMode = HM_ALWAYS

  makeButton(panel, "RemoveButton", "Remove", 0, 530)

  countText_ = panel:CreateChild("Text", "CountText")
  countText_:SetStyleAuto()
  countText_:SetFont(font_, 18)
  countText_:SetPosition(160, 538)
  updateCount()

  SubscribeToEvent(ui:GetRoot():GetChild("AddButton", true), "Released", function() addItem() end)
  SubscribeToEvent(edit_, "TextFinished", function() addItem() end)
  SubscribeToEvent(ui:GetRoot():GetChild("RemoveButton", true), "Released", function() removeSelected() end)
end
