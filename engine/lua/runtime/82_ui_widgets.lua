-- UI widgets kept as state (nothing draws): BorderImage, Sprite, Button, CheckBox, LineEdit, Window, Cursor.
-- Defaults follow Urho3D's constructors; input dispatch to widgets (clicks, drags, typing) comes with the UI
-- issue, so Pressed/Released/Click are never sent from here.  Value-typed properties are copied on the way
-- in and out, as Urho3D's bindings copy them.
local type, tostring, ipairs, pairs = type, tostring, ipairs, pairs
local mfloor = math.floor
local REC = E.REC
local urec = E.ui_rec
local FACTORIES = E.UI_FACTORIES
local new_element = E.new_ui_element
local BLEND_REPLACE = 0
local M_MAX_UNSIGNED = 4294967295
local FM_NOTFOCUSABLE, FM_FOCUSABLE, FM_FOCUSABLE_DEFOCUSABLE = 0, 2, 3

local function ivec2(x, y) return E.IntVector2_new(x, y) end
local function irect(l, t, r, b) return E.IntRect_new(l, t, r, b) end
local function copy_ivec2(v) return ivec2(v.x, v.y) end
local function copy_irect(v) return irect(v.left, v.top, v.right, v.bottom) end
local function xy_args(a, b)
  if type(a) == "number" then return a, b end
  return a.x, a.y
end

-- Factories run base-first: a widget's factory calls its base's.
local function derive(base_name, fn)
  local base = FACTORIES[base_name]
  return function(r)
    base(r)
    fn(r)
  end
end

-- An internal child element (a Button's text, a LineEdit's cursor): in the tree, flagged internal.
local function internal_child(parent, type_name)
  local proxy, c = new_element(type_name)
  c.internal = true
  c.parent = parent
  parent.children[#parent.children + 1] = c
  return proxy, c
end

----------------------------------------------------------------------------------------------------
-- UIElement members the widgets rely on
----------------------------------------------------------------------------------------------------
local M = IMPL.UIElement.methods
local function bool_field(key, default)
  return function(self, v) urec(self)[key] = v and true or false end,
    function(self) local v = urec(self)[key]; if v == nil then return default end; return v end
end
M.SetInternal, M.IsInternal = bool_field("internal", false)
M.SetBringToFront, M.GetBringToFront = bool_field("bring_to_front", false)
M.SetBringToBack, M.GetBringToBack = bool_field("bring_to_back", true)
M.SetEditable, M.IsEditable = bool_field("editable", true)
M.SetUseDerivedOpacity, M.GetUseDerivedOpacity = bool_field("use_derived_opacity", true)
M.SetElementEventSender, M.IsElementEventSender = bool_field("element_event_sender", false)
M.SetEnableAnchor, M.GetEnableAnchor = bool_field("enable_anchor", false)
M.GetClipChildren = function(self) return urec(self).clip == true end
M.GetSortChildren = function(self) local v = urec(self).sort_children; return v == nil or v end
M.SetSortChildren = function(self, v) urec(self).sort_children = v and true or false end
M.GetFocusMode = function(self) return urec(self).focus_mode or 0 end
M.GetDragDropMode = function(self) return urec(self).drag_drop_mode or 0 end
M.SetDragDropMode = function(self, m) urec(self).drag_drop_mode = m end
M.IsEnabledSelf = function(self) return urec(self).enabled end
M.IsHovering = function(self) return urec(self).hovering == true end
M.SetHovering = function(self, v) urec(self).hovering = v and true or false end
M.GetMinSize = function(self) local r = urec(self); return ivec2(r.min_w, r.min_h) end
M.GetMinWidth = function(self) return urec(self).min_w end
M.GetMinHeight = function(self) return urec(self).min_h end
M.GetMaxSize = function(self) local r = urec(self); return ivec2(r.max_w, r.max_h) end
M.GetMaxWidth = function(self) return urec(self).max_w end
M.GetMaxHeight = function(self) return urec(self).max_h end
M.SetMaxWidth = function(self, w) urec(self).max_w = w end
M.SetMaxHeight = function(self, h) urec(self).max_h = h end
M.IsFixedWidth = function(self) local r = urec(self); return r.min_w == r.max_w end
M.IsFixedHeight = function(self) local r = urec(self); return r.min_h == r.max_h end
M.IsFixedSize = function(self) local r = urec(self); return r.min_w == r.max_w and r.min_h == r.max_h end
M.GetLayoutMode = function(self) return urec(self).layout or 0 end
M.GetLayoutSpacing = function(self) return urec(self).spacing or 0 end
M.GetLayoutBorder = function(self)
  local b = urec(self).layout_border
  if b == nil then return irect(0, 0, 0, 0) end
  return copy_irect(b)
end
M.SetLayout = function(self, mode, spacing, border)
  local r = urec(self)
  r.layout, r.spacing = mode, spacing or 0
  if border ~= nil then r.layout_border = copy_irect(border) end
end
M.SetLayoutBorder = function(self, b) urec(self).layout_border = copy_irect(b) end
M.GetDerivedOpacity = function(self)
  local r = urec(self)
  local o = r.opacity
  local p = r.parent
  while p and r.use_derived_opacity ~= false do
    o = o * p.opacity
    r, p = p, p.parent
  end
  return o
end
M.SetClipBorder = function(self, rect) urec(self).clip_border = copy_irect(rect) end
M.GetClipBorder = function(self)
  local b = urec(self).clip_border
  if b == nil then return irect(0, 0, 0, 0) end
  return copy_irect(b)
end
M.SetPivot = function(self, a, b) local r = urec(self); r.pivot_x, r.pivot_y = xy_args(a, b) end
M.GetPivot = function(self) local r = urec(self); return E.Vector2_new(r.pivot_x or 0.0, r.pivot_y or 0.0) end
M.SetTraversalMode = function(self, m) urec(self).traversal_mode = m end
M.GetTraversalMode = function(self) return urec(self).traversal_mode or 0 end
M.SetIndent = function(self, n) urec(self).indent = n end
M.GetIndent = function(self) return urec(self).indent or 0 end
M.SetIndentSpacing = function(self, n) urec(self).indent_spacing = n end
M.GetIndentSpacing = function(self) return urec(self).indent_spacing or 16 end
M.GetIndentWidth = function(self) local r = urec(self); return (r.indent or 0) * (r.indent_spacing or 16) end
M.GetVars = function(self)
  local values = {}
  for k, v in pairs(urec(self).vars) do values[k] = v end
  return E.VariantMap_new(values)
end
-- Tags, in the order added (Urho3D keeps a StringVector)
M.AddTag = function(self, tag)
  local r = urec(self)
  r.tags = r.tags or {}
  tag = tostring(tag)
  if tag == "" then return end
  for _, t in ipairs(r.tags) do if t == tag then return end end
  r.tags[#r.tags + 1] = tag
end
M.AddTags = function(self, tags, sep)
  sep = sep or ";"
  for t in tostring(tags):gmatch("[^" .. sep:gsub("%p", "%%%0") .. "]+") do M.AddTag(self, t) end
end
M.RemoveTag = function(self, tag)
  local r = urec(self)
  for i, t in ipairs(r.tags or {}) do if t == tag then table.remove(r.tags, i); return true end end
  return false
end
M.RemoveAllTags = function(self) urec(self).tags = {} end
M.HasTag = function(self, tag)
  for _, t in ipairs(urec(self).tags or {}) do if t == tag then return true end end
  return false
end
M.GetTags = function(self)
  local out = {}
  for i, t in ipairs(urec(self).tags or {}) do out[i] = t end
  return out
end
M.GetChildrenWithTag = function(self, tag, recursive)
  local out = {}
  local function walk(r)
    for _, c in ipairs(r.children) do
      for _, t in ipairs(c.tags or {}) do if t == tag then out[#out + 1] = c.proxy; break end end
      if recursive then walk(c) end
    end
  end
  walk(urec(self))
  return out
end
-- Hierarchy
M.IsChildOf = function(self, other)
  local target = REC[other]
  local p = urec(self).parent
  while p do
    if p == target then return true end
    p = p.parent
  end
  return false
end
M.FindChild = function(self, child)
  local c = REC[child]
  for i, x in ipairs(urec(self).children) do if x == c then return i - 1 end end
  return M_MAX_UNSIGNED
end
M.RemoveChildAtIndex = function(self, index)
  local c = urec(self).children[index + 1]
  if c then M.RemoveChild(self, c.proxy) end
end
M.SetParent = function(self, parent, index)
  if parent == nil then return M.Remove(self) end
  if index == nil then return M.AddChild(parent, self) end
  return M.InsertChild(parent, index, self)
end

----------------------------------------------------------------------------------------------------
-- BorderImage
----------------------------------------------------------------------------------------------------
local BI = class("BorderImage")
FACTORIES.BorderImage = derive("UIElement", function(r)
  r.texture = nil
  r.image_rect = irect(0, 0, 0, 0)
  r.border = irect(0, 0, 0, 0)
  r.image_border = irect(0, 0, 0, 0)
  r.hover_offset = ivec2(0, 0)
  r.blend_mode = BLEND_REPLACE
  r.tiled = false
end)
BI.new = function() return (new_element("BorderImage")) end
local B = BI.methods
local function full_rect(r)
  local t = r.texture and REC[r.texture]
  if t then r.image_rect = irect(0, 0, t.width or 0, t.height or 0) end
end
B.SetTexture = function(self, tex)
  local r = urec(self)
  r.texture = tex
  if r.image_rect.right == 0 and r.image_rect.bottom == 0 then full_rect(r) end
end
B.GetTexture = function(self) return urec(self).texture end
B.SetImageRect = function(self, rect) urec(self).image_rect = copy_irect(rect) end
B.GetImageRect = function(self) return copy_irect(urec(self).image_rect) end
B.SetFullImageRect = function(self) full_rect(urec(self)) end
B.SetBorder = function(self, rect) urec(self).border = copy_irect(rect) end
B.GetBorder = function(self) return copy_irect(urec(self).border) end
B.SetImageBorder = function(self, rect) urec(self).image_border = copy_irect(rect) end
B.GetImageBorder = function(self) return copy_irect(urec(self).image_border) end
B.SetHoverOffset = function(self, a, b) urec(self).hover_offset = ivec2(xy_args(a, b)) end
B.GetHoverOffset = function(self) return copy_ivec2(urec(self).hover_offset) end
B.SetBlendMode = function(self, m) urec(self).blend_mode = m end
B.GetBlendMode = function(self) return urec(self).blend_mode end
B.SetTiled = function(self, v) urec(self).tiled = v and true or false end
B.IsTiled = function(self) return urec(self).tiled end

----------------------------------------------------------------------------------------------------
-- Sprite: a float position, hot spot, scale and rotation on top of the element
----------------------------------------------------------------------------------------------------
local SP = class("Sprite")
FACTORIES.Sprite = derive("UIElement", function(r)
  r.fx, r.fy = 0.0, 0.0
  r.hot_spot = ivec2(0, 0)
  r.sx, r.sy = 1.0, 1.0
  r.rotation = 0.0
  r.texture = nil
  r.image_rect = irect(0, 0, 0, 0)
  r.blend_mode = BLEND_REPLACE
end)
SP.new = function() return (new_element("Sprite")) end
local S = SP.methods
S.SetPosition = function(self, a, b)
  local r = urec(self)
  local x, y = xy_args(a, b)
  r.fx, r.fy = x + 0.0, y + 0.0
  r.x, r.y = mfloor(x), mfloor(y)
end
S.GetPosition = function(self) local r = urec(self); return E.Vector2_new(r.fx, r.fy) end
S.SetHotSpot = function(self, a, b) urec(self).hot_spot = ivec2(xy_args(a, b)) end
S.GetHotSpot = function(self) return copy_ivec2(urec(self).hot_spot) end
S.SetScale = function(self, a, b)
  local r = urec(self)
  if type(a) == "number" and b == nil then r.sx, r.sy = a + 0.0, a + 0.0
  else
    local x, y = xy_args(a, b)
    r.sx, r.sy = x + 0.0, y + 0.0
  end
end
S.GetScale = function(self) local r = urec(self); return E.Vector2_new(r.sx, r.sy) end
S.SetRotation = function(self, angle) urec(self).rotation = angle + 0.0 end
S.GetRotation = function(self) return urec(self).rotation end
S.SetTexture = function(self, tex)
  local r = urec(self)
  r.texture = tex
  if r.image_rect.right == 0 and r.image_rect.bottom == 0 then full_rect(r) end
end
S.GetTexture = function(self) return urec(self).texture end
S.SetImageRect = function(self, rect) urec(self).image_rect = copy_irect(rect) end
S.GetImageRect = function(self) return copy_irect(urec(self).image_rect) end
S.SetFullImageRect = function(self) full_rect(urec(self)) end
S.SetBlendMode = function(self, m) urec(self).blend_mode = m end
S.GetBlendMode = function(self) return urec(self).blend_mode end

----------------------------------------------------------------------------------------------------
-- Button
----------------------------------------------------------------------------------------------------
local BT = class("Button")
FACTORIES.Button = derive("BorderImage", function(r)
  r.enabled = true
  r.focus_mode = FM_FOCUSABLE
  r.pressed_offset = ivec2(0, 0)
  r.disabled_offset = ivec2(0, 0)
  r.pressed_child_offset = ivec2(0, 0)
  r.repeat_delay, r.repeat_rate = 1.0, 0.0
  r.pressed = false
  r.show_text = true
end)
BT.new = function() return (new_element("Button")) end
local BM = BT.methods
BM.SetPressedOffset = function(self, a, b) urec(self).pressed_offset = ivec2(xy_args(a, b)) end
BM.GetPressedOffset = function(self) return copy_ivec2(urec(self).pressed_offset) end
BM.SetDisabledOffset = function(self, a, b) urec(self).disabled_offset = ivec2(xy_args(a, b)) end
BM.GetDisabledOffset = function(self) return copy_ivec2(urec(self).disabled_offset) end
BM.SetPressedChildOffset = function(self, a, b) urec(self).pressed_child_offset = ivec2(xy_args(a, b)) end
BM.GetPressedChildOffset = function(self) return copy_ivec2(urec(self).pressed_child_offset) end
BM.SetRepeat = function(self, delay, rate) local r = urec(self); r.repeat_delay, r.repeat_rate = delay, rate end
BM.SetRepeatDelay = function(self, d) urec(self).repeat_delay = d end
BM.GetRepeatDelay = function(self) return urec(self).repeat_delay end
BM.SetRepeatRate = function(self, v) urec(self).repeat_rate = v end
BM.GetRepeatRate = function(self) return urec(self).repeat_rate end
BM.IsPressed = function(self) return urec(self).pressed end
local function button_text(r)
  if r.text_element == nil then
    local proxy = internal_child(r, "Text")
    r.text_element = proxy
    local t = REC[proxy]
    t.h_align, t.v_align = 1, 1   -- centred in the button
  end
  return r.text_element
end
BM.GetTextElement = function(self) return button_text(urec(self)) end
BM.SetText = function(self, s) IMPL.Text.methods.SetText(button_text(urec(self)), s) end
BM.GetText = function(self)
  local r = urec(self)
  if r.text_element == nil then return "" end
  return IMPL.Text.methods.GetText(r.text_element)
end
BM.SetShowText = function(self, v)
  local r = urec(self)
  r.show_text = v and true or false
  if r.text_element then REC[r.text_element].visible = r.show_text end
end
BM.GetShowText = function(self) return urec(self).show_text end

----------------------------------------------------------------------------------------------------
-- CheckBox
----------------------------------------------------------------------------------------------------
local CB = class("CheckBox")
FACTORIES.CheckBox = derive("BorderImage", function(r)
  r.enabled = true
  r.focus_mode = FM_FOCUSABLE_DEFOCUSABLE
  r.checked = false
  r.checked_offset = ivec2(0, 0)
end)
CB.new = function() return (new_element("CheckBox")) end
CB.methods.SetChecked = function(self, v)
  local r = urec(self)
  v = v and true or false
  if r.checked == v then return end
  r.checked = v
  E.send_event("Toggled", {Element = self, State = v}, self)
end
CB.methods.IsChecked = function(self) return urec(self).checked end
CB.methods.SetCheckedOffset = function(self, a, b) urec(self).checked_offset = ivec2(xy_args(a, b)) end
CB.methods.GetCheckedOffset = function(self) return copy_ivec2(urec(self).checked_offset) end

----------------------------------------------------------------------------------------------------
-- LineEdit: its text lives in an internal Text child, as in Urho3D
----------------------------------------------------------------------------------------------------
local LE = class("LineEdit")
FACTORIES.LineEdit = derive("BorderImage", function(r)
  r.enabled = true
  r.focus_mode = FM_FOCUSABLE_DEFOCUSABLE
  r.line_text = ""
  r.cursor_position = 0
  r.cursor_blink_rate = 1.0
  r.max_length = 0
  r.echo_character = 0
  r.cursor_movable, r.text_selectable, r.text_copyable = true, true, true
  r.text_element = internal_child(r, "Text")
  r.cursor_element = internal_child(r, "BorderImage")
end)
LE.new = function() return (new_element("LineEdit")) end
local L = LE.methods
local function show_line(self, r)
  local shown = r.line_text
  if r.echo_character ~= 0 then shown = utf8.char(r.echo_character):rep(utf8.len(shown) or #shown) end
  IMPL.Text.methods.SetText(r.text_element, shown)
end
L.SetText = function(self, s)
  local r = urec(self)
  s = tostring(s)
  if r.max_length > 0 and (utf8.len(s) or #s) > r.max_length then
    s = s:sub(1, (utf8.offset(s, r.max_length + 1) or (#s + 1)) - 1)
  end
  if s == r.line_text then return end
  r.line_text = s
  r.cursor_position = utf8.len(s) or #s
  show_line(self, r)
  E.send_event("TextChanged", {Element = self, Text = s}, self)
end
L.GetText = function(self) return urec(self).line_text end
L.SetCursorPosition = function(self, p)
  local r = urec(self)
  local n = utf8.len(r.line_text) or #r.line_text
  if p > n or not r.cursor_movable then p = n end
  r.cursor_position = p
end
L.GetCursorPosition = function(self) return urec(self).cursor_position end
L.SetCursorBlinkRate = function(self, v) urec(self).cursor_blink_rate = v end
L.GetCursorBlinkRate = function(self) return urec(self).cursor_blink_rate end
L.SetMaxLength = function(self, n) urec(self).max_length = n end
L.GetMaxLength = function(self) return urec(self).max_length end
L.SetEchoCharacter = function(self, c) local r = urec(self); r.echo_character = c; show_line(self, r) end
L.GetEchoCharacter = function(self) return urec(self).echo_character end
L.SetCursorMovable = function(self, v) urec(self).cursor_movable = v and true or false end
L.IsCursorMovable = function(self) return urec(self).cursor_movable end
L.SetTextSelectable = function(self, v) urec(self).text_selectable = v and true or false end
L.IsTextSelectable = function(self) return urec(self).text_selectable end
L.SetTextCopyable = function(self, v) urec(self).text_copyable = v and true or false end
L.IsTextCopyable = function(self) return urec(self).text_copyable end
L.GetTextElement = function(self) return urec(self).text_element end
L.GetCursor = function(self) return urec(self).cursor_element end

----------------------------------------------------------------------------------------------------
-- Window
----------------------------------------------------------------------------------------------------
local WI = class("Window")
FACTORIES.Window = derive("BorderImage", function(r)
  r.enabled = true
  r.focus_mode = FM_FOCUSABLE
  r.bring_to_front = true
  r.clip = true
  r.movable, r.resizable = false, false
  r.fixed_width_resizing, r.fixed_height_resizing = false, false
  r.resize_border = irect(4, 4, 4, 4)
  r.modal = false
  r.modal_shade_color = E.Color_new(0.45, 0.45, 0.45, 0.5)
  r.modal_frame_color = E.Color_new(0.0, 0.0, 0.0, 1.0)
  r.modal_frame_size = ivec2(0, 0)
  r.modal_auto_dismiss = true
end)
WI.new = function() return (new_element("Window")) end
local W = WI.methods
local function flag(key)
  return function(self, v) urec(self)[key] = v and true or false end, function(self) return urec(self)[key] end
end
W.SetMovable, W.IsMovable = flag("movable")
W.SetResizable, W.IsResizable = flag("resizable")
W.SetFixedWidthResizing, W.GetFixedWidthResizing = flag("fixed_width_resizing")
W.SetFixedHeightResizing, W.GetFixedHeightResizing = flag("fixed_height_resizing")
W.SetModalAutoDismiss, W.GetModalAutoDismiss = flag("modal_auto_dismiss")
W.SetResizeBorder = function(self, rect) urec(self).resize_border = copy_irect(rect) end
W.GetResizeBorder = function(self) return copy_irect(urec(self).resize_border) end
W.SetModal = function(self, v)
  local r = urec(self)
  v = v and true or false
  if r.modal == v then return end
  r.modal = v
  E.send_event("ModalChanged", {Element = self, Modal = v}, self)
end
W.IsModal = function(self) return urec(self).modal end
local function color_copy(c) return E.Color_new(c.r, c.g, c.b, c.a) end
W.SetModalShadeColor = function(self, c) urec(self).modal_shade_color = color_copy(c) end
W.GetModalShadeColor = function(self) return color_copy(urec(self).modal_shade_color) end
W.SetModalFrameColor = function(self, c) urec(self).modal_frame_color = color_copy(c) end
W.GetModalFrameColor = function(self) return color_copy(urec(self).modal_frame_color) end
W.SetModalFrameSize = function(self, s) urec(self).modal_frame_size = copy_ivec2(s) end
W.GetModalFrameSize = function(self) return copy_ivec2(urec(self).modal_frame_size) end

----------------------------------------------------------------------------------------------------
-- ToolTip
----------------------------------------------------------------------------------------------------
local TT = class("ToolTip")
FACTORIES.ToolTip = derive("UIElement", function(r)
  r.delay = 0.0
  r.visible = false   -- shown on hover, which needs the UI's input dispatch
end)
TT.new = function() return (new_element("ToolTip")) end
TT.methods.SetDelay = function(self, d) urec(self).delay = d end
TT.methods.GetDelay = function(self) return urec(self).delay end

----------------------------------------------------------------------------------------------------
-- Slider, ProgressBar, ScrollBar: a value clamped to [0, range]; a change sends the widget's event
----------------------------------------------------------------------------------------------------
local O_HORIZONTAL = 0
local function ranged(class_name, event, extra)
  local impl = class(class_name)
  FACTORIES[class_name] = derive("BorderImage", function(r)
    r.enabled = true
    r.orientation = O_HORIZONTAL
    r.range, r.value = 1.0, 0.0
    if extra then extra(r) end
  end)
  impl.new = function() return (new_element(class_name)) end
  local R = impl.methods
  local function set_value(self, r, v)
    v = v + 0.0
    if v < 0.0 then v = 0.0 elseif v > r.range then v = r.range end
    if v == r.value then return end
    r.value = v
    E.send_event(event, {Element = self, Value = v}, self)
  end
  R.SetValue = function(self, v) set_value(self, urec(self), v) end
  R.GetValue = function(self) return urec(self).value end
  R.ChangeValue = function(self, d) local r = urec(self); set_value(self, r, r.value + d) end
  R.SetRange = function(self, v)
    local r = urec(self)
    v = v + 0.0
    if v < 0.0 then v = 0.0 end
    r.range = v
    set_value(self, r, r.value)
  end
  R.GetRange = function(self) return urec(self).range end
  R.SetOrientation = function(self, o) urec(self).orientation = o end
  R.GetOrientation = function(self) return urec(self).orientation end
  return impl
end

local SL = ranged("Slider", "SliderChanged", function(r)
  r.repeat_rate = 0.0
  r.knob = internal_child(r, "BorderImage")
end)
SL.methods.GetKnob = function(self) return urec(self).knob end
SL.methods.SetRepeatRate = function(self, v) urec(self).repeat_rate = v end
SL.methods.GetRepeatRate = function(self) return urec(self).repeat_rate end

local PB = ranged("ProgressBar", "ProgressBarChanged", function(r)
  r.knob = internal_child(r, "BorderImage")
  r.loading_percent_style = "ProgressBarPercentText"
  r.show_percent_text = false
end)
PB.methods.GetKnob = function(self) return urec(self).knob end
PB.methods.SetLoadingPercentStyle = function(self, s) urec(self).loading_percent_style = tostring(s) end
PB.methods.GetLoadingPercentStyle = function(self) return urec(self).loading_percent_style end
PB.methods.SetShowPercentText = function(self, v) urec(self).show_percent_text = v and true or false end
PB.methods.GetShowPercentText = function(self) return urec(self).show_percent_text end

----------------------------------------------------------------------------------------------------
-- Cursor, and UI:SetCursor / GetCursor
----------------------------------------------------------------------------------------------------
local CU = class("Cursor")
local SHAPE_NAMES = {[0] = "Normal", "IBeam", "Cross", "ResizeVertical", "ResizeDiagonalTopRight",
  "ResizeHorizontal", "ResizeDiagonalTopLeft", "ResizeAll", "AcceptDrop", "RejectDrop", "Busy", "BusyArrow"}
FACTORIES.Cursor = derive("BorderImage", function(r)
  r.priority = 2147483647   -- drawn on top of everything, as Urho3D's cursor
  r.shape = "Normal"
  r.shapes = {}
  r.use_system_shapes = false
end)
CU.new = function() return (new_element("Cursor")) end
local function shape_name(s)
  if type(s) == "number" then return SHAPE_NAMES[s] or "Normal" end
  return tostring(s)
end
CU.methods.DefineShape = function(self, shape, image, rect, hot_spot)
  urec(self).shapes[shape_name(shape)] = {image = image, rect = rect and copy_irect(rect),
    hot_spot = hot_spot and copy_ivec2(hot_spot)}
end
CU.methods.SetShape = function(self, s) urec(self).shape = shape_name(s) end
CU.methods.GetShape = function(self) return urec(self).shape end
CU.methods.SetUseSystemShapes = function(self, v) urec(self).use_system_shapes = v and true or false end
CU.methods.GetUseSystemShapes = function(self) return urec(self).use_system_shapes end

local U = IMPL.UI.methods
U.SetCursor = function(_, cursor)
  local old = E.ui_cursor
  if old ~= nil and old ~= cursor then IMPL.UIElement.methods.Remove(old) end
  E.ui_cursor = cursor
  if cursor ~= nil then
    IMPL.UIElement.methods.AddChild(IMPL.UI.methods.GetRoot(), cursor)
    local r = urec(cursor)
    local ip = E.input_state
    r.x, r.y = ip.mouse_x, ip.mouse_y
  end
end
U.GetCursor = function() return E.ui_cursor end

for _, name in ipairs({"BorderImage", "Sprite", "Button", "CheckBox", "LineEdit", "Window", "Cursor", "ToolTip",
                       "Slider", "ProgressBar"}) do
  assert(FACTORIES[name], name)
end

----------------------------------------------------------------------------------------------------
-- UI subsystem settings, with Urho3D's defaults (UI.cpp)
----------------------------------------------------------------------------------------------------
local settings = {DoubleClickInterval = 0.5, DragBeginInterval = 0.5, DragBeginDistance = 5,
  DefaultToolTipDelay = 0.0, MaxFontTextureSize = 2048, NonFocusedMouseWheel = false, UseScreenKeyboard = true,
  UseMutableGlyphs = false, ForceAutoHint = false, FontHintLevel = 2, FontSubpixelThreshold = 12.0,
  FontOversampling = 2, MaxDoubleClickDistance = 3.0}
local declared_ui = E.REGISTRY.classes.UI.methods
for _, key in ipairs(E.sorted_keys(settings)) do
  local function define(name, fn) if declared_ui[name] then U[name] = fn end end
  define("Set" .. key, function(_, v) settings[key] = v end)
  define("Get" .. key, function() return settings[key] end)
  define("Is" .. key, function() return settings[key] end)
end
local root = E.ui_root
U.SetCustomSize = function(_, a, b)
  local w, h = xy_args(a, b)
  settings.custom_w, settings.custom_h = w, h
  if w > 0 and h > 0 then root.w, root.h = w, h end
end
U.GetCustomSize = function() return ivec2(settings.custom_w or 0, settings.custom_h or 0) end
U.SetWidth = function(_, w) U.SetCustomSize(nil, w, mfloor(w * root.h / root.w + 0.5)) end
U.SetHeight = function(_, h) U.SetCustomSize(nil, mfloor(h * root.w / root.h + 0.5), h) end
U.GetDragElement = function() return nil end   -- nothing is dragged without the UI's input dispatch
U.DebugDraw = function() end
