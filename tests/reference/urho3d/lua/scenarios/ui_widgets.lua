-- Native widgets' state and events: check boxes toggled, sliders and scroll bars set and clamped, a list view
-- with items selected, a line edit's text and cursor, a progress bar; the events they send and their data.
local S = {domain = "ui", frames = 6, record = 6}

S.event_fields = {
  ScrollBarChanged = {{"Element", "e"}, {"Value", "f"}},
  ProgressBarChanged = {{"Element", "e"}, {"Value", "f"}},
  ItemSelected = {{"Element", "e"}, {"Selection", "i"}},
  ItemDeselected = {{"Element", "e"}, {"Selection", "i"}},
  TextChanged = {{"Element", "e"}, {"Text", "s"}},
}

function S.Start()
  scene_ = Scene()
  local root = UIElement()
  root:SetSize(400, 400)
  ui.root:AddChild(root)
  local check = CheckBox()
  check.name = "Check"
  root:AddChild(check)
  local slider = Slider()
  slider.name = "Slider"
  root:AddChild(slider)
  slider:SetSize(200, 20)
  slider.range = 10
  local bar = ScrollBar()
  bar.name = "Bar"
  root:AddChild(bar)
  bar:SetSize(20, 200)
  bar.orientation = O_VERTICAL
  bar.range = 4
  local list = ListView()
  list.name = "List"
  root:AddChild(list)
  list:SetSize(150, 100)
  list.multiselect = true
  for i = 1, 5 do
    local item = UIElement()
    item.name = "Item" .. i
    item:SetMinSize(150, 16)
    list:AddItem(item)
  end
  local edit = LineEdit()
  edit.name = "Edit"
  root:AddChild(edit)
  edit:SetSize(120, 20)
  local progress = ProgressBar()
  progress.name = "Progress"
  root:AddChild(progress)
  progress.range = 50
  local names = {"Toggled", "SliderChanged", "ScrollBarChanged", "ItemSelected", "ItemDeselected", "TextChanged",
    "ProgressBarChanged"}
  for i = 1, #names do SubscribeToEvent(names[i], "HandleWidget") end
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleWidget(eventType, eventData)
end

function HandleUpdate(eventType, eventData)
  local f = Trace.frame()
  local root = ui.root:GetChild(0)
  local check = root:GetChild("Check", false)
  local slider = root:GetChild("Slider", false)
  local bar = root:GetChild("Bar", false)
  local list = root:GetChild("List", false)
  local edit = root:GetChild("Edit", false)
  local progress = root:GetChild("Progress", false)
  if f == 1 then
    check.checked = true
    check.checked = true
    slider.value = 3.5
    bar.value = 9
    list.selection = 2
    edit.text = "hello"
    progress.value = 20
  elseif f == 2 then
    check.checked = false
    slider.value = -1
    bar:ChangeValue(-1.5)
    list:AddSelection(4)
    list:ToggleSelection(2)
    edit.cursorPosition = 2
    progress.value = 80
  elseif f == 3 then
    slider:ChangeValue(2)
    list:RemoveItem(0)
    edit.maxLength = 3
    edit.text = "abcdef"
  elseif f == 4 then
    list:ClearSelection()
    slider.range = 2
  end
  Trace.bool("checked", check.checked)
  Trace.num("slider", slider.value)
  Trace.num("slider range", slider.range)
  Trace.num("bar", bar.value)
  Trace.int("selection", list.selection)
  Trace.int("items", list.numItems)
  Trace.str("edit text", edit.text)
  Trace.int("edit cursor", edit.cursorPosition)
  Trace.num("progress", progress.value)
end

return S
