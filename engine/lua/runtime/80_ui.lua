-- Native UI, the minimum the samples need now (element tree, Text with font, text, alignment, position);
-- the full widget set and input dispatch come with the UI issue.
local error, type, tostring, setmetatable, ipairs, pairs = error, type, tostring, setmetatable, ipairs, pairs
local mfloor, tremove, tinsert = math.floor, table.remove, table.insert
local REC = E.REC
local config = E.host.config
local HA_LEFT, HA_CENTER, HA_RIGHT, VA_TOP, VA_CENTER, VA_BOTTOM = 0, 1, 2, 0, 1, 2

local UI_FACTORIES = {}   -- type name -> function(record) setting the type's own fields (widgets.lua adds more)
E.UI_FACTORIES = UI_FACTORIES
local function new_element(type_name)
  local impl = IMPL[type_name]
  if impl == nil or UI_FACTORIES[type_name] == nil then
    if E.REGISTRY.classes[type_name] then return E.missing(type_name) end
    E.log("ERROR", "Could not create unknown UI element type " .. tostring(type_name))
    return nil
  end
  local proxy = setmetatable({}, impl.mt)
  local r = {kind = "ui", type_name = type_name, proxy = proxy, name = "", children = {}, x = 0, y = 0, w = 0,
    h = 0, visible = true, enabled = false, h_align = HA_LEFT, v_align = VA_TOP, opacity = 1.0, priority = 0,
    vars = {}, style = nil, color = nil, min_w = 0, min_h = 0, max_w = 2147483647, max_h = 2147483647}
  REC[proxy] = r
  UI_FACTORIES[type_name](r)
  return proxy, r
end
E.new_ui_element = new_element

local function urec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "ui" then error("invalid 'self' (a UIElement was expected)", 3) end
  return r
end
E.ui_rec = urec

local UIE = class("UIElement")
UI_FACTORIES.UIElement = function() end
UIE.new = function() return (new_element("UIElement")) end
local M = UIE.methods
M.SetName = function(self, n) urec(self).name = tostring(n) end
M.GetName = function(self) return urec(self).name end
local function xy(a, b) if type(a) == "number" then return a, b end; return a.x, a.y end
M.SetPosition = function(self, a, b) local r = urec(self); r.x, r.y = xy(a, b) end
M.GetPosition = function(self) local r = urec(self); return E.IntVector2_new(r.x, r.y) end
M.SetSize = function(self, a, b) local r = urec(self); r.w, r.h = xy(a, b) end
M.GetSize = function(self) local r = urec(self); return E.IntVector2_new(r.w, r.h) end
M.SetWidth = function(self, w) urec(self).w = w end
M.SetHeight = function(self, h) urec(self).h = h end
M.GetWidth = function(self) return urec(self).w end
M.GetHeight = function(self) return urec(self).h end
M.SetFixedSize = M.SetSize
M.SetFixedWidth = M.SetWidth
M.SetFixedHeight = M.SetHeight
M.SetMinSize = function(self, a, b) local r = urec(self); r.min_w, r.min_h = xy(a, b) end
M.SetMaxSize = function(self, a, b) local r = urec(self); r.max_w, r.max_h = xy(a, b) end
M.SetMinWidth = function(self, w) urec(self).min_w = w end
M.SetMinHeight = function(self, h) urec(self).min_h = h end
M.SetAlignment = function(self, h, v) local r = urec(self); r.h_align, r.v_align = h, v end
M.SetHorizontalAlignment = function(self, h) urec(self).h_align = h end
M.SetVerticalAlignment = function(self, v) urec(self).v_align = v end
M.GetHorizontalAlignment = function(self) return urec(self).h_align end
M.GetVerticalAlignment = function(self) return urec(self).v_align end
M.SetVisible = function(self, v) urec(self).visible = v and true or false end
M.IsVisible = function(self) return urec(self).visible end
M.IsVisibleEffective = function(self)
  local r = urec(self)
  while r do
    if not r.visible then return false end
    r = r.parent
  end
  return true
end
M.SetEnabled = function(self, v) urec(self).enabled = v and true or false end
M.IsEnabled = function(self) return urec(self).enabled end
M.SetOpacity = function(self, o) urec(self).opacity = o end
M.GetOpacity = function(self) return urec(self).opacity end
M.SetColor = function(self, a, b) local r = urec(self); r.color = b or a end
M.GetColor = function(self) return urec(self).color or E.IMPL.Color.new() end
M.SetPriority = function(self, p) urec(self).priority = p end
M.GetPriority = function(self) return urec(self).priority end
M.SetStyle = function(self, s) urec(self).style = s; return true end
M.SetStyleAuto = function(self) urec(self).style = "auto"; return true end
M.SetDefaultStyle = function(self, xml) urec(self).default_style = xml end
M.GetDefaultStyle = function(self) return urec(self).default_style end
M.SetVar = function(self, k, v) urec(self).vars[k] = E.variant_of(v) end
M.GetVar = function(self, k) return urec(self).vars[k] or E.Variant_new("None", nil) end
M.SetLayoutMode = function(self, mode) urec(self).layout = mode end
M.SetLayoutSpacing = function(self, s) urec(self).spacing = s end
M.SetClipChildren = function(self, v) urec(self).clip = v end
M.SetFocusMode = function(self, m) urec(self).focus_mode = m end
M.SetFocus = function(self, v) urec(self).focus = v end
M.HasFocus = function(self) return urec(self).focus == true end
M.BringToFront = function() end
M.UpdateLayout = function() end
M.SetSelected = function(self, v) urec(self).selected = v end
M.IsSelected = function(self) return urec(self).selected == true end
M.GetScreenPosition = function(self)
  local r = urec(self)
  local px, py, pw, ph = 0, 0, config.screen_width, config.screen_height
  if r.parent then
    local p = M.GetScreenPosition(r.parent.proxy)
    px, py, pw, ph = p.x, p.y, r.parent.w, r.parent.h
  end
  local x, y = r.x, r.y
  if r.h_align == HA_CENTER then x = x + (pw - r.w) // 2 elseif r.h_align == HA_RIGHT then x = x + pw - r.w end
  if r.v_align == VA_CENTER then y = y + (ph - r.h) // 2 elseif r.v_align == VA_BOTTOM then y = y + ph - r.h end
  return E.IntVector2_new(mfloor(px + x), mfloor(py + y))
end
local function add_child(parent, child, index)
  if child.parent then
    local kids = child.parent.children
    for i = 1, #kids do if kids[i] == child then tremove(kids, i); break end end
  end
  child.parent = parent
  if index == nil or index >= #parent.children then parent.children[#parent.children + 1] = child
  else tinsert(parent.children, index + 1, child) end
end
M.CreateChild = function(self, type_name, name, index)
  local parent = urec(self)
  local proxy, r = new_element(type_name or "UIElement")
  if proxy == nil then return nil end
  if name then r.name = name end
  add_child(parent, r, index)
  return proxy
end
M.AddChild = function(self, child) add_child(urec(self), urec(child)) end
M.InsertChild = function(self, index, child) add_child(urec(self), urec(child), index) end
M.RemoveChild = function(self, child)
  local r, c = urec(self), REC[child]
  if c and c.parent == r then
    for i = 1, #r.children do if r.children[i] == c then tremove(r.children, i); break end end
    c.parent = nil
  end
end
M.RemoveAllChildren = function(self)
  local r = urec(self)
  for _, c in ipairs(r.children) do c.parent = nil end
  r.children = {}
end
M.Remove = function(self)
  local r = urec(self)
  if r.parent then M.RemoveChild(r.parent.proxy, self) end
end
M.GetParent = function(self) local p = urec(self).parent; return p and p.proxy end
M.GetNumChildren = function(self, recursive)
  local r = urec(self)
  if not recursive then return #r.children end
  local n = 0
  local function count(x) for _, c in ipairs(x.children) do n = n + 1; count(c) end end
  count(r)
  return n
end
M.GetChild = function(self, key, recursive)
  local r = urec(self)
  if type(key) == "number" then local c = r.children[key + 1]; return c and c.proxy end
  local function find(x)
    for _, c in ipairs(x.children) do
      if c.name == key then return c end
      if recursive then local f = find(c); if f then return f end end
    end
  end
  local f = find(r)
  return f and f.proxy
end
M.GetRoot = function(self)
  local r = urec(self)
  while r.parent do r = r.parent end
  return r.proxy
end
M.IsInside = function(self, pos, is_screen)
  local r = urec(self)
  local p = M.GetScreenPosition(self)
  return pos.x >= p.x and pos.y >= p.y and pos.x < p.x + r.w and pos.y < p.y + r.h
end

-- Text: metrics are a stand-in until the font issue brings real glyph advances.
local Text = class("Text")
UI_FACTORIES.Text = function(r)
  r.text, r.font, r.font_size, r.text_align, r.wordwrap, r.effect = "", nil, 12, HA_LEFT, false, 0
end
Text.new = function() return (new_element("Text")) end
local function measure(r)
  local n = utf8.len(r.text) or #r.text
  r.w = mfloor(n * r.font_size * 0.6 + 0.5)
  local lines = 1
  for _ in r.text:gmatch("\n") do lines = lines + 1 end
  r.h = mfloor(lines * r.font_size * 1.2 + 0.5)
end
local T = Text.methods
T.SetText = function(self, s) local r = urec(self); r.text = tostring(s); measure(r) end
T.GetText = function(self) return urec(self).text end
T.SetFont = function(self, font, size)
  local r = urec(self)
  if type(font) == "string" then font = E.get_resource("Font", font) end
  r.font = font
  if size then r.font_size = size end
  measure(r)
  return true
end
T.GetFont = function(self) return urec(self).font end
T.SetFontSize = function(self, s) local r = urec(self); r.font_size = s; measure(r); return true end
T.GetFontSize = function(self) return urec(self).font_size end
T.SetTextAlignment = function(self, a) urec(self).text_align = a end
T.GetTextAlignment = function(self) return urec(self).text_align end
T.SetWordwrap = function(self, v) urec(self).wordwrap = v end
T.GetWordwrap = function(self) return urec(self).wordwrap end
T.SetTextEffect = function(self, e) urec(self).effect = e end
T.GetTextEffect = function(self) return urec(self).effect end
T.SetEffectColor = function(self, c) urec(self).effect_color = c end
T.SetRowSpacing = function(self, s) urec(self).row_spacing = s end
T.GetRowHeight = function(self) return mfloor(urec(self).font_size * 1.2 + 0.5) end
T.GetNumRows = function(self) local n = 1; for _ in urec(self).text:gmatch("\n") do n = n + 1 end; return n end
T.GetNumChars = function(self) return utf8.len(urec(self).text) or 0 end
T.SetAutoLocalizable = function() end

local UIsub = class("UI")
local root_proxy, root = new_element("UIElement")
root.name = "UIRoot"
root.w, root.h = config.screen_width, config.screen_height
E.ui_root = root
local U = UIsub.methods
U.GetRoot = function() return root_proxy end
U.GetRootModalElement = function() return root_proxy end
U.SetFocusElement = function(_, e) E.ui_focus = e end
U.GetFocusElement = function() return E.ui_focus end
U.GetElementAt = function() return nil end
U.GetCursor = function() return nil end
U.SetCursor = function() end
U.GetCursorPosition = function() return GLOBALS.input:GetMousePosition() end
U.SetUseSystemClipboard = function(_, v) E.ui_clipboard = v end
U.GetUseSystemClipboard = function() return E.ui_clipboard == true end
U.SetClipboardText = function(_, t) E.ui_clipboard_text = t end
U.GetClipboardText = function() return E.ui_clipboard_text or "" end
U.SetScale = function(_, s) E.ui_scale = s end
U.GetScale = function() return E.ui_scale or 1.0 end
U.Clear = function() M.RemoveAllChildren(root_proxy) end
U.LoadLayout = function() E.log("ERROR", "UI:LoadLayout is not supported headless yet"); return nil end
U.HasModalElement = function() return false end
U.IsDragging = function() return false end
GLOBALS.ui = E.new_object("UI")
FUNCTIONS.GetUI = function() return GLOBALS.ui end
