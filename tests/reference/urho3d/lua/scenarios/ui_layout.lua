-- Native UI layout without text: a window with a vertical layout of rows, each a horizontal layout of buttons
-- with minimum, maximum and fixed sizes and flex scales; alignment of free children; resizing the window.
-- (Headless Urho3D creates no font textures, so text sizes are left out of this scenario.)
local S = {domain = "ui", frames = 6, record = 6}

local function report(tag, e)
  local p = e:GetScreenPosition()
  Trace.ivec2(tag .. " " .. e.name .. " position", p)
  Trace.ivec2(tag .. " " .. e.name .. " size", e.size)
  for i = 0, e:GetNumChildren() - 1 do report(tag, e:GetChild(i)) end
end

function S.Start()
  scene_ = Scene()
  local root = UIElement()
  root.name = "Root"
  root:SetSize(800, 600)
  ui.root:AddChild(root)
  local window = Window()
  window.name = "Window"
  root:AddChild(window)
  window:SetPosition(40, 30)
  window:SetLayout(LM_VERTICAL, 6, IntRect(10, 8, 10, 8))
  for r = 1, 3 do
    local row = UIElement()
    row.name = "Row" .. r
    window:AddChild(row)
    row:SetLayout(LM_HORIZONTAL, r * 2, IntRect(r, r, r, r))
    for c = 1, 3 do
      local b = Button()
      b.name = "B" .. r .. c
      row:AddChild(b)
      b:SetMinSize(20 * c, 10 + r * 5)
      if c == 2 then b:SetMaxSize(70, 40) end
      if r == 2 and c == 3 then b:SetFixedSize(50, 25) end
      if r == 3 then b:SetLayoutFlexScale(Vector2(c, 1)) end
    end
  end
  local free = BorderImage()
  free.name = "Free"
  root:AddChild(free)
  free:SetSize(100, 50)
  free:SetAlignment(HA_RIGHT, VA_BOTTOM)
  local centred = BorderImage()
  centred.name = "Centred"
  root:AddChild(centred)
  centred:SetSize(64, 64)
  centred:SetAlignment(HA_CENTER, VA_CENTER)
  report("initial", root)
  window:SetSize(500, 300)
  report("resized", root)
  window:SetLayoutMode(LM_FREE)
  window:SetSize(300, 200)
  report("free", root)
end

return S
