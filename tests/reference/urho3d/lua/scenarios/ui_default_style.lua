-- The layout of ui_load_layout styled with the stock UI/DefaultStyle.xml: the sizes the stock style gives check
-- boxes, buttons and sliders, and the layout around them.  (No text: a headless Urho3D rasterises no fonts.)
local S = {domain = "ui", frames = 2, record = 2}

local function report(tag, e)
  Trace.str(tag .. " type", e:GetTypeName() .. " " .. e.name)
  Trace.ivec2(tag .. " " .. e.name .. " position", e:GetScreenPosition())
  Trace.ivec2(tag .. " " .. e.name .. " size", e.size)
  for i = 0, e:GetNumChildren() - 1 do report(tag, e:GetChild(i)) end
end

function S.Start()
  scene_ = Scene()
  local style = cache:GetResource("XMLFile", "UI/DefaultStyle.xml")
  local layout = ui:LoadLayout(cache:GetResource("XMLFile", "FidelityData/layout.xml"), style)
  Trace.bool("loaded", layout ~= nil)
  if layout == nil then return end
  ui.root:AddChild(layout)
  report("loaded", layout)
  layout:SetSize(300, 200)
  report("resized", layout)
  Trace.num("slider value", layout:GetChild("Amount", true).value)
  Trace.bool("option checked", layout:GetChild("Option", true).checked)
end

return S
