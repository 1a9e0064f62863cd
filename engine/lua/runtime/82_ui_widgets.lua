-- UI widgets kept as state (nothing draws): BorderImage, Sprite, Button, CheckBox, LineEdit, Window, Cursor.
-- Defaults follow Urho3D's constructors; input dispatch to widgets (clicks, drags, typing) comes with the UI
-- issue, so Pressed/Released/Click are never sent from here.  Value-typed properties are copied on the way
-- in and out, as Urho3D's bindings copy them.
local type, tostring, ipairs = type, tostring, ipairs
local mfloor = math.floor
local REC = E.REC
local urec = E.ui_rec
local FACTORIES = E.UI_FACTORIES
local new_element = E.new_ui_element
local BLEND_REPLACE, BLEND_ALPHA = 0, 3
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
M.SetInternal = function(self, v) urec(self).internal = v and true or false end
M.IsInternal = function(self) return urec(self).internal == true end

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

for _, name in ipairs({"BorderImage", "Sprite", "Button", "CheckBox", "LineEdit", "Window", "Cursor"}) do
  assert(FACTORIES[name], name)
end
