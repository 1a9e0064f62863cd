-- Native UI loaded from a layout file of ours (FidelityData/layout.xml), without a style: the element tree,
-- positions and sizes it produces, before and after a resize.  (No text: a headless Urho3D rasterises no fonts.)
-- ui_default_style loads the same file with the stock style.
local S = {domain = "ui", frames = 2, record = 2}

local function report(tag, e)
  Trace.str(tag .. " type", e:GetTypeName() .. " " .. e.name)
  Trace.ivec2(tag .. " " .. e.name .. " position", e:GetScreenPosition())
  Trace.ivec2(tag .. " " .. e.name .. " size", e.size)
  for i = 0, e:GetNumChildren() - 1 do report(tag, e:GetChild(i)) end
end

function S.Start()
  scene_ = Scene()
  local layout = ui:LoadLayout(cache:GetResource("XMLFile", "FidelityData/layout.xml"))
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
