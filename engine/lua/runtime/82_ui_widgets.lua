-- Native UI, part 2: the common widgets with Urho3D's behaviour: BorderImage, Sprite, Button, CheckBox,
-- LineEdit, Window, ToolTip, Slider, ProgressBar, Cursor, and the UI subsystem's settings.  Defaults follow
-- Urho3D's constructors; what a widget does with input is in its virtual table (OnClickBegin, OnKey ...),
-- called by the dispatcher in 83_ui_input.lua.  Value-typed properties are copied on the way in and out, as
-- Urho3D's bindings copy them.
local type, tostring, ipairs, pairs = type, tostring, ipairs, pairs
local mfloor, mmax, mmin, mabs, mtype = math.floor, math.max, math.min, math.abs, math.type
local mcos, msin, mrad = math.cos, math.sin, math.rad
local REC = E.REC
local urec = E.ui_rec
local FACTORIES = E.UI_FACTORIES
local new_element = E.new_ui_element
local vt = E.ui_vt
local emit = E.ui_emit
local internal_child = E.ui_internal_child
local set_size, set_position, set_visible = E.ui_set_size, E.ui_set_position, E.ui_set_visible
local set_fixed_width, set_fixed_height = E.ui_set_fixed_width, E.ui_set_fixed_height
local screen_xy, is_inside = E.ui_screen, E.ui_is_inside
local clamp = E.ui_clamp
local MX = E.MATH
local f32, toint, cround = MX.f32, MX.toint, MX.cround
local ui_state = E.ui_state
local clock = E.clock

local BLEND_REPLACE = 0
local INT_MAX = 2147483647
local FM_NOTFOCUSABLE, FM_FOCUSABLE, FM_FOCUSABLE_DEFOCUSABLE = 0, 2, 3
local HA_LEFT, HA_CENTER, HA_RIGHT = 0, 1, 2
local VA_TOP, VA_CENTER, VA_BOTTOM = 0, 1, 2
local O_HORIZONTAL = 0
local MOUSEB_LEFT = 1
local QUAL_SHIFT, QUAL_CTRL = 1, 2
local KEYS = E.REGISTRY.enums.Key.values
local KEY_RETURN, KEY_RETURN2, KEY_KP_ENTER, KEY_SPACE = KEYS.KEY_RETURN, KEYS.KEY_RETURN2, KEYS.KEY_KP_ENTER,
  KEYS.KEY_SPACE
E.UI_KEYS = KEYS

local function ivec2(x, y) return E.IntVector2_new(x, y) end
local function irect(l, t, r, b) return E.IntRect_new(l, t, r, b) end
local function copy_ivec2(v) return ivec2(v.x, v.y) end
local function copy_irect(v) return irect(v.left, v.top, v.right, v.bottom) end
local function xy_args(a, b)
  if type(a) == "number" then return a, b end
  return a.x, a.y
end
local function is_enter(key) return key == KEY_RETURN or key == KEY_RETURN2 or key == KEY_KP_ENTER end
E.ui_is_enter = is_enter

-- Factories run base-first: a widget's factory calls its base's.
local function derive(base_name, fn)
  local base = FACTORIES[base_name]
  return function(r)
    base(r)
    fn(r)
  end
end
E.ui_derive = derive

----------------------------------------------------------------------------------------------------
-- UTF-8 helpers (indices are 0-based character positions, as Urho3D's String::SubstringUTF8)
----------------------------------------------------------------------------------------------------
local function ulen(s) return utf8.len(s) or #s end
local function usub(s, start, count)
  local n = ulen(s)
  if start >= n then return "" end
  local stop = count and mmin(start + count, n) or n
  if utf8.len(s) == nil then return s:sub(start + 1, stop) end
  local a = utf8.offset(s, start + 1)
  local b = utf8.offset(s, stop + 1)
  return s:sub(a, (b or #s + 1) - 1)
end
E.ui_ulen, E.ui_usub = ulen, usub

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
  r.disabled_offset = ivec2(0, 0)
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
B.SetBorder = function(self, rect)
  urec(self).border = irect(mmax(rect.left, 0), mmax(rect.top, 0), mmax(rect.right, 0), mmax(rect.bottom, 0))
end
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
-- Sprite: a float position, hot spot, scale and rotation; its screen position comes from its transform
----------------------------------------------------------------------------------------------------
local SP = class("Sprite")
FACTORIES.Sprite = derive("UIElement", function(r)
  r.fx, r.fy = 0.0, 0.0
  r.hot_x, r.hot_y = 0, 0
  r.sx, r.sy = 1.0, 1.0
  r.rotation = 0.0
  r.texture = nil
  r.image_rect = irect(0, 0, 0, 0)
  r.blend_mode = BLEND_REPLACE
end)
SP.new = function() return (new_element("Sprite")) end
local SVT = vt("Sprite")
-- The affine transform {a, b, c, d, tx, ty} (x' = a x + c y + tx, y' = b x + d y + ty), Sprite::GetTransform.
local function sprite_transform(r)
  local pa, pb, pc, pd, ptx, pty = 1.0, 0.0, 0.0, 1.0, 0.0, 0.0
  local px, py = r.fx, r.fy
  local p = r.parent
  if p then
    if p.vt.SpriteTransform then
      pa, pb, pc, pd, ptx, pty = sprite_transform(p)
    else
      local sx, sy = screen_xy(p)
      ptx, pty = sx + p.child_off_x + 0.0, sy + p.child_off_y + 0.0
    end
    local ha, va = E.ui_h_align(r), E.ui_v_align(r)
    if ha == HA_CENTER then px = px + p.w / 2 elseif ha == HA_RIGHT then px = px + p.w end
    if va == VA_CENTER then py = py + p.h / 2 elseif va == VA_BOTTOM then py = py + p.h end
  end
  local cs, sn = 1.0, 0.0
  if r.rotation ~= 0.0 then cs, sn = mcos(mrad(r.rotation)), msin(mrad(r.rotation)) end
  local a, b, c, d = cs * r.sx, sn * r.sx, -sn * r.sy, cs * r.sy
  local tx, ty = px - (a * r.hot_x + c * r.hot_y), py - (b * r.hot_x + d * r.hot_y)
  return pa * a + pc * b, pb * a + pd * b, pa * c + pc * d, pb * c + pd * d,
    pa * tx + pc * ty + ptx, pb * tx + pd * ty + pty
end
SVT.SpriteTransform = sprite_transform
SVT.ScreenPosition = function(r)
  local _, _, _, _, tx, ty = sprite_transform(r)
  return toint(f32(tx)), toint(f32(ty))
end
SVT.ElementToScreen = function(r, x, y)
  local a, b, c, d, tx, ty = sprite_transform(r)
  return toint(f32(a * x + c * y + tx)), toint(f32(b * x + d * y + ty))
end
SVT.ScreenToElement = function(r, x, y)
  local a, b, c, d, tx, ty = sprite_transform(r)
  local det = a * d - b * c
  if det == 0 then return 0, 0 end
  local dx, dy = x - tx, y - ty
  return toint(f32((d * dx - c * dy) / det)), toint(f32((a * dy - b * dx) / det))
end
local S = SP.methods
S.SetPosition = function(self, a, b)
  local r = urec(self)
  local x, y = xy_args(a, b)
  r.fx, r.fy = x + 0.0, y + 0.0
  r.x, r.y = toint(x), toint(y)
end
S.GetPosition = function(self) local r = urec(self); return E.Vector2_new(r.fx, r.fy) end
S.SetHotSpot = function(self, a, b) local r = urec(self); r.hot_x, r.hot_y = xy_args(a, b) end
S.GetHotSpot = function(self) local r = urec(self); return ivec2(r.hot_x, r.hot_y) end
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
S.GetTransform = function(self)
  local a, b, c, d, tx, ty = sprite_transform(urec(self))
  local m = E.IMPL.Matrix3x4.new()
  m.m00, m.m01, m.m03, m.m10, m.m11, m.m13 = a, c, tx, b, d, ty
  return m
end

----------------------------------------------------------------------------------------------------
-- Button: Pressed on a left press, Released on the release (anywhere, if the press began on it), repeats
-- while held when a repeat rate is set; focused, Return / Space click it.
----------------------------------------------------------------------------------------------------
local BT = class("Button")
FACTORIES.Button = derive("BorderImage", function(r)
  r.enabled, r.enabled_prev = true, true
  r.focus_mode = FM_FOCUSABLE
  r.pressed_offset = ivec2(0, 0)
  r.pressed_child_offset = ivec2(0, 0)
  r.repeat_delay, r.repeat_rate, r.repeat_timer = 1.0, 0.0, 0.0
  r.pressed = false
  r.show_text = true
end)
BT.new = function() return (new_element("Button")) end
local BVT = vt("Button")
local function set_pressed(r, v)
  r.pressed = v
  local o = r.pressed_child_offset
  if v then r.child_off_x, r.child_off_y = o.x, o.y else r.child_off_x, r.child_off_y = 0, 0 end
end
E.ui_set_pressed = set_pressed
BVT.OnClickBegin = function(r, _, _, _, _, button)
  if button == MOUSEB_LEFT then
    set_pressed(r, true)
    r.repeat_timer = r.repeat_delay
    r.hovering = true
    emit(r, "Pressed", {Element = r.proxy})
  end
end
BVT.OnClickEnd = function(r, _, _, sx, sy, button)
  if r.pressed and button == MOUSEB_LEFT then
    set_pressed(r, false)
    if is_inside(r, sx, sy, true) then r.hovering = true end
    emit(r, "Released", {Element = r.proxy})
  end
end
BVT.OnDragMove = function(r) set_pressed(r, true) end
BVT.OnKey = function(r, key)
  if ui_state.focus == r and (is_enter(key) or key == KEY_SPACE) then
    r.vt.OnClickBegin(r, 0, 0, 0, 0, MOUSEB_LEFT, 0, 0)
    r.vt.OnClickEnd(r, 0, 0, 0, 0, MOUSEB_LEFT, 0, 0, nil)
  end
end
BVT.Update = function(r, dt)
  if not r.hovering and r.pressed then set_pressed(r, false) end
  if r.pressed and r.repeat_rate > 0.0 then
    r.repeat_timer = r.repeat_timer - dt
    if r.repeat_timer <= 0.0 then
      r.repeat_timer = r.repeat_timer + 1.0 / r.repeat_rate
      emit(r, "Pressed", {Element = r.proxy})
    end
  end
end
local BM = BT.methods
BM.SetPressedOffset = function(self, a, b) urec(self).pressed_offset = ivec2(xy_args(a, b)) end
BM.GetPressedOffset = function(self) return copy_ivec2(urec(self).pressed_offset) end
BM.SetDisabledOffset = function(self, a, b) urec(self).disabled_offset = ivec2(xy_args(a, b)) end
BM.GetDisabledOffset = function(self) return copy_ivec2(urec(self).disabled_offset) end
BM.SetPressedChildOffset = function(self, a, b) urec(self).pressed_child_offset = ivec2(xy_args(a, b)) end
BM.GetPressedChildOffset = function(self) return copy_ivec2(urec(self).pressed_child_offset) end
BM.SetRepeat = function(self, delay, rate)
  local r = urec(self)
  r.repeat_delay, r.repeat_rate = mmax(delay + 0.0, 0.0), mmax(rate + 0.0, 0.0)
end
BM.SetRepeatDelay = function(self, d) urec(self).repeat_delay = mmax(d + 0.0, 0.0) end
BM.GetRepeatDelay = function(self) return urec(self).repeat_delay end
BM.SetRepeatRate = function(self, v) urec(self).repeat_rate = mmax(v + 0.0, 0.0) end
BM.GetRepeatRate = function(self) return urec(self).repeat_rate end
BM.IsPressed = function(self) return urec(self).pressed end
-- UrhoX's Button text: an internal Text child, centred, made when first needed.
local function button_text(r)
  if r.text_element == nil then
    local proxy, t = internal_child(r, "Text", "B_Text")
    r.text_element = proxy
    E.ui_set_h_align(t, HA_CENTER)
    E.ui_set_v_align(t, VA_CENTER)
    t.visible = r.show_text
  end
  return r.text_element
end
BM.GetTextElement = function(self) return button_text(urec(self)) end
BM.SetText = function(self, s) IMPL.Text.methods.SetText(button_text(urec(self)), s) end
BM.GetText = function(self)
  local r = urec(self)
  if r.text_element == nil then return "" end
  return REC[r.text_element].text
end
BM.SetShowText = function(self, v)
  local r = urec(self)
  r.show_text = v and true or false
  if r.text_element then set_visible(REC[r.text_element], r.show_text) end
end
BM.GetShowText = function(self) return urec(self).show_text end

----------------------------------------------------------------------------------------------------
-- CheckBox: a left press toggles it (when editable) and sends Toggled; focused, Space toggles it.
----------------------------------------------------------------------------------------------------
local CB = class("CheckBox")
FACTORIES.CheckBox = derive("BorderImage", function(r)
  r.enabled, r.enabled_prev = true, true
  r.focus_mode = FM_FOCUSABLE_DEFOCUSABLE
  r.checked = false
  r.checked_offset = ivec2(0, 0)
end)
CB.new = function() return (new_element("CheckBox")) end
local function set_checked(r, v)
  v = v and true or false
  if r.checked == v then return end
  r.checked = v
  emit(r, "Toggled", {Element = r.proxy, State = v})
end
local CVT = vt("CheckBox")
CVT.OnClickBegin = function(r, _, _, _, _, button)
  if button == MOUSEB_LEFT and r.editable then set_checked(r, not r.checked) end
end
CVT.OnKey = function(r, key)
  if ui_state.focus == r and key == KEY_SPACE then r.vt.OnClickBegin(r, 0, 0, 0, 0, MOUSEB_LEFT, 0, 0) end
end
CB.methods.SetChecked = function(self, v) set_checked(urec(self), v) end
CB.methods.IsChecked = function(self) return urec(self).checked end
CB.methods.SetCheckedOffset = function(self, a, b) urec(self).checked_offset = ivec2(xy_args(a, b)) end
CB.methods.GetCheckedOffset = function(self) return copy_ivec2(urec(self).checked_offset) end

----------------------------------------------------------------------------------------------------
-- LineEdit: a line of text in an internal Text child with a cursor; typing (TextInput), Backspace, Delete,
-- arrows, Home/End, shift-selection, Ctrl+C/X/V, Return (TextFinished), TextEntry (handlers may rewrite the
-- entered text) and TextChanged.
----------------------------------------------------------------------------------------------------
local LE = class("LineEdit")
FACTORIES.LineEdit = derive("BorderImage", function(r)
  r.clip = true
  r.enabled, r.enabled_prev = true, true
  r.focus_mode = FM_FOCUSABLE_DEFOCUSABLE
  r.line_text = ""
  r.cursor_position = 0
  r.drag_begin_cursor = nil
  r.cursor_blink_rate, r.cursor_blink_timer = 1.0, 0.0
  r.max_length = 0
  r.echo_character = 0
  r.cursor_movable, r.text_selectable, r.text_copyable = true, true, true
  r.text_element = internal_child(r, "Text", "LE_Text")
  local cursor
  r.cursor_element, cursor = internal_child(r, "BorderImage", "LE_Cursor")
  cursor.priority = 1
  E.ui_hook(r, "Focused", function(_, fields) E.ui_line_edit_focused(r, fields.ByKey) end)
  E.ui_hook(r, "Defocused", function() E.ui_line_edit_defocused(r) end)
  E.ui_hook(r, "LayoutUpdated", function() E.ui_line_edit_update_cursor(r) end)
end)
LE.new = function() return (new_element("LineEdit")) end
local LVT = vt("LineEdit")
local function trec(r) return REC[r.text_element] end
local function update_cursor(r)
  local t, c = trec(r), REC[r.cursor_element]
  local x = E.ui_char_position(t, r.cursor_position)
  set_position(t, E.ui_indent_width(r) + r.cb_l, r.cb_t)
  set_position(c, t.x + x, t.y)
  set_size(c, c.w, IMPL.Text.methods.GetRowHeight(r.text_element))
  local sx = -r.child_off_x
  local left = r.cb_l
  local right = r.w - r.cb_l - r.cb_r - c.w
  if x - sx > right then sx = x - right end
  if x - sx < left then sx = x - left end
  if sx < 0 then sx = 0 end
  r.child_off_x, r.child_off_y = -sx, 0
  r.cursor_blink_timer = 0.0
end
E.ui_line_edit_update_cursor = update_cursor
local function update_text(r)
  local n = ulen(r.line_text)
  if r.max_length > 0 and n > r.max_length then
    r.line_text = usub(r.line_text, 0, r.max_length)
    n = r.max_length
  end
  local shown = r.line_text
  local echo = r.echo_character
  if echo ~= 0 then shown = utf8.char(echo <= 0x7FFFFFFF and echo or 0xFFFD):rep(n) end
  IMPL.Text.methods.SetText(r.text_element, shown)
  if r.cursor_position > n then
    r.cursor_position = n
    update_cursor(r)
  end
  emit(r, "TextChanged", {Element = r.proxy, Text = r.line_text})
end
local function char_index(r, ex, ey)
  local t = trec(r)
  local sx, sy = E.ui_element_to_screen(r, ex, ey)
  local tx = E.ui_screen_to_element(t, sx, sy)
  if tx < 0 then return 0 end
  for i = ulen(t.text), 0, -1 do
    if tx >= E.ui_char_position(t, i) then return i end
  end
  return nil
end
local function clear_selection(t) t.sel_start, t.sel_length = 0, 0 end
local function set_selection(t, start, length)
  local n = ulen(t.text)
  if start > n then start = n end
  if start + length > n then length = n - start end
  t.sel_start, t.sel_length = start, length
end
local function erase_selection(r, t)
  local start, length = t.sel_start, t.sel_length
  r.line_text = usub(r.line_text, 0, start) .. usub(r.line_text, start + length)
  clear_selection(t)
  r.cursor_position = start
end
function E.ui_line_edit_focused(r, by_key)
  if by_key then
    r.cursor_position = ulen(r.line_text)
    set_selection(trec(r), 0, INT_MAX)
  end
  update_cursor(r)
  if E.ui_settings.UseScreenKeyboard then E.input_state.screen_keyboard = true end
end
function E.ui_line_edit_defocused(r)
  clear_selection(trec(r))
  if E.ui_settings.UseScreenKeyboard then E.input_state.screen_keyboard = false end
end
LVT.Update = function(r, dt)
  if r.cursor_blink_rate > 0.0 then
    local v = r.cursor_blink_timer + r.cursor_blink_rate * dt
    r.cursor_blink_timer = v - mfloor(v)
  end
  local t = trec(r)
  if t.font ~= r.last_font or t.font_size ~= r.last_font_size then
    r.last_font, r.last_font_size = t.font, t.font_size
    update_cursor(r)
  end
  set_visible(REC[r.cursor_element], ui_state.focus == r and r.cursor_blink_timer < 0.5)
end
LVT.OnClickBegin = function(r, ex, ey, _, _, button)
  if button == MOUSEB_LEFT and r.cursor_movable then
    local pos = char_index(r, ex, ey)
    if pos ~= nil then
      LE.methods.SetCursorPosition(r.proxy, pos)
      clear_selection(trec(r))
    end
  end
end
LVT.OnDoubleClick = function(r, _, _, _, _, button)
  if button == MOUSEB_LEFT then set_selection(trec(r), 0, INT_MAX) end
end
LVT.OnDragBegin = function(r, ex, ey, sx, sy, buttons, qualifiers)
  E.UI_VT.UIElement.OnDragBegin(r, ex, ey, sx, sy, buttons, qualifiers)
  r.drag_begin_cursor = char_index(r, ex, ey)
end
LVT.OnDragMove = function(r, ex, ey)
  if r.cursor_movable and r.text_selectable then
    local start, current = r.drag_begin_cursor, char_index(r, ex, ey)
    if start ~= nil and current ~= nil then
      local t = trec(r)
      if start < current then set_selection(t, start, current - start) else set_selection(t, current, start - current) end
      LE.methods.SetCursorPosition(r.proxy, current)
    end
  end
end
LVT.OnDragDropTest = function(r, source)
  if source and r.editable then
    if source.vars.DragDropContent ~= nil then return true end
    return source.type_name == "LineEdit" or source.type_name == "Text"
  end
  return false
end
LVT.OnDragDropFinish = function(r, source)
  if source and r.editable then
    local content = source.vars.DragDropContent
    if content ~= nil then
      LE.methods.SetText(r.proxy, content.type_ == "String" and content.value_ or "")
      return true
    end
    if source.type_name == "LineEdit" then LE.methods.SetText(r.proxy, source.line_text); return true end
    if source.type_name == "Text" then LE.methods.SetText(r.proxy, source.text); return true end
  end
  return false
end
local function move_selection(r, t, qualifiers)
  if r.text_selectable and (qualifiers & QUAL_SHIFT) ~= 0 then
    local start, current = r.drag_begin_cursor or 0, r.cursor_position
    if start < current then set_selection(t, start, current - start) else set_selection(t, current, start - current) end
  end
end
LVT.OnKey = function(r, key, buttons, qualifiers)
  local t = trec(r)
  local changed, moved = false, false
  local K = KEYS
  if key == K.KEY_X or key == K.KEY_C then
    if r.text_copyable and (qualifiers & QUAL_CTRL) ~= 0 then
      local start, length = t.sel_start, t.sel_length
      if length > 0 then ui_state.clipboard = usub(r.line_text, start, length) end
      if key == K.KEY_X and r.editable then
        erase_selection(r, t)
        changed = true
      end
    end
  elseif key == K.KEY_V then
    if r.editable and r.text_copyable and (qualifiers & QUAL_CTRL) ~= 0 then
      local clip = ui_state.clipboard or ""
      if clip ~= "" then
        if t.sel_length > 0 then erase_selection(r, t) end
        r.line_text = usub(r.line_text, 0, r.cursor_position) .. clip .. usub(r.line_text, r.cursor_position)
        r.cursor_position = r.cursor_position + ulen(clip)
        changed = true
      end
    end
  elseif key == K.KEY_HOME or key == K.KEY_LEFT then
    if key == K.KEY_HOME then qualifiers = qualifiers | QUAL_CTRL end
    if r.cursor_movable and r.cursor_position > 0 then
      if r.text_selectable and (qualifiers & QUAL_SHIFT) ~= 0 and t.sel_length == 0 then
        r.drag_begin_cursor = r.cursor_position
      end
      if (qualifiers & QUAL_CTRL) ~= 0 then r.cursor_position = 0
      elseif t.sel_length > 0 and (qualifiers & QUAL_SHIFT) == 0 then r.cursor_position = t.sel_start
      else r.cursor_position = r.cursor_position - 1 end
      moved = true
      move_selection(r, t, qualifiers)
    end
    if (qualifiers & QUAL_SHIFT) == 0 then clear_selection(t) end
  elseif key == K.KEY_END or key == K.KEY_RIGHT then
    if key == K.KEY_END then qualifiers = qualifiers | QUAL_CTRL end
    local n = ulen(r.line_text)
    if r.cursor_movable and r.cursor_position < n then
      if r.text_selectable and (qualifiers & QUAL_SHIFT) ~= 0 and t.sel_length == 0 then
        r.drag_begin_cursor = r.cursor_position
      end
      if (qualifiers & QUAL_CTRL) ~= 0 then r.cursor_position = n
      elseif t.sel_length > 0 and (qualifiers & QUAL_SHIFT) == 0 then r.cursor_position = t.sel_start + t.sel_length
      else r.cursor_position = r.cursor_position + 1 end
      moved = true
      move_selection(r, t, qualifiers)
    end
    if (qualifiers & QUAL_SHIFT) == 0 then clear_selection(t) end
  elseif key == K.KEY_DELETE then
    if r.editable then
      if t.sel_length == 0 then
        if r.cursor_position < ulen(r.line_text) then
          r.line_text = usub(r.line_text, 0, r.cursor_position) .. usub(r.line_text, r.cursor_position + 1)
          changed = true
        end
      else
        erase_selection(r, t)
        changed = true
      end
    end
  elseif key == K.KEY_UP or key == K.KEY_DOWN or key == K.KEY_PAGEUP or key == K.KEY_PAGEDOWN then
    emit(r, "UnhandledKey", {Element = r.proxy, Key = key, Buttons = buttons, Qualifiers = qualifiers})
    return
  elseif key == K.KEY_BACKSPACE then
    if r.editable then
      if t.sel_length == 0 then
        if ulen(r.line_text) > 0 and r.cursor_position > 0 then
          r.line_text = usub(r.line_text, 0, r.cursor_position - 1) .. usub(r.line_text, r.cursor_position)
          r.cursor_position = r.cursor_position - 1
          changed = true
        end
      else
        erase_selection(r, t)
        changed = true
      end
    end
  elseif is_enter(key) then
    if E.ui_settings.UseScreenKeyboard and ui_state.focus == r then E.ui_set_focus(r, false) end
    emit(r, "TextFinished", {Element = r.proxy, Text = r.line_text, Value = tonumber(r.line_text) or 0.0})
    return
  end
  if changed then
    update_text(r)
    update_cursor(r)
  elseif moved then
    update_cursor(r)
  end
end
LVT.OnTextInput = function(r, text)
  if not r.editable then return end
  local data = E.event_data("TextEntry", {Element = r.proxy, Text = text})
  E.send_event("TextEntry", data, r.proxy)
  local v = E.variant_map_store[data].Text
  local new = v and v.type_ == "String" and v.value_ or ""
  local t = trec(r)
  if new ~= "" and (r.max_length == 0 or ulen(r.line_text) + ulen(new) <= r.max_length) then
    if t.sel_length == 0 then
      r.line_text = usub(r.line_text, 0, r.cursor_position) .. new .. usub(r.line_text, r.cursor_position)
      r.cursor_position = r.cursor_position + ulen(new)
    else
      local start = t.sel_start
      r.line_text = usub(r.line_text, 0, start) .. new .. usub(r.line_text, start + t.sel_length)
      r.cursor_position = start + ulen(new)
    end
    clear_selection(t)
    update_text(r)
    update_cursor(r)
  end
end
LVT.ApplyAttributes = function(r)
  local t = trec(r)
  set_position(t, E.ui_indent_width(r) + r.cb_l, r.cb_t)
  r.line_text = t.text
end
local L = LE.methods
L.SetText = function(self, s)
  local r = urec(self)
  s = tostring(s)
  if s == r.line_text then return end
  r.line_text = s
  r.cursor_position = ulen(s)
  update_text(r)
  update_cursor(r)
end
L.GetText = function(self) return urec(self).line_text end
L.SetCursorPosition = function(self, p)
  local r = urec(self)
  local n = ulen(r.line_text)
  p = toint(p)
  if p > n or not r.cursor_movable then p = n end
  if p ~= r.cursor_position then
    r.cursor_position = p
    update_cursor(r)
  end
end
L.GetCursorPosition = function(self) return urec(self).cursor_position end
L.SetCursorBlinkRate = function(self, v)
  local r = urec(self)
  r.cursor_blink_rate = mmax(v + 0.0, 0.0)
  if r.cursor_blink_rate == 0.0 then r.cursor_blink_timer = 0.0 end
end
L.GetCursorBlinkRate = function(self) return urec(self).cursor_blink_rate end
L.SetMaxLength = function(self, n) urec(self).max_length = mmax(toint(n), 0) end
L.GetMaxLength = function(self) return urec(self).max_length end
-- an unsigned code point, as Urho3D keeps it; beyond what UTF-8 can encode (Lua: 0x7FFFFFFF) it shows as U+FFFD
L.SetEchoCharacter = function(self, c)
  local r = urec(self)
  c = math.tointeger(c) or 0
  r.echo_character = c & 0xFFFFFFFF
  update_text(r)
end
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
-- Window: movable / resizable by dragging (only when aligned left-top), modal through the UI's modal root
----------------------------------------------------------------------------------------------------
local DRAG_NONE, DRAG_MOVE = 0, 1
local DRAG_RESIZE_TOPLEFT, DRAG_RESIZE_TOP, DRAG_RESIZE_TOPRIGHT, DRAG_RESIZE_RIGHT = 2, 3, 4, 5
local DRAG_RESIZE_BOTTOMRIGHT, DRAG_RESIZE_BOTTOM, DRAG_RESIZE_BOTTOMLEFT, DRAG_RESIZE_LEFT = 6, 7, 8, 9
local WI = class("Window")
FACTORIES.Window = derive("BorderImage", function(r)
  r.enabled, r.enabled_prev = true, true
  r.bring_to_front = true
  r.clip = true
  r.movable, r.resizable = false, false
  r.fixed_width_resizing, r.fixed_height_resizing = false, false
  r.resize_border = irect(4, 4, 4, 4)
  r.drag_mode = DRAG_NONE
  r.modal = false
  r.modal_shade_color = E.Color_new(0.0, 0.0, 0.0, 0.0)
  r.modal_frame_color = E.Color_new(0.0, 0.0, 0.0, 0.0)
  r.modal_frame_size = ivec2(0, 0)
  r.modal_auto_dismiss = true
end)
WI.new = function() return (new_element("Window")) end
local WVT = vt("Window")
local function drag_mode_at(r, x, y)
  local b = r.resize_border
  local mode = DRAG_NONE
  if y < b.top then
    if r.movable then mode = DRAG_MOVE end
    if r.resizable then
      mode = DRAG_RESIZE_TOP
      if x < b.left then mode = DRAG_RESIZE_TOPLEFT end
      if x >= r.w - b.right then mode = DRAG_RESIZE_TOPRIGHT end
    end
  elseif y >= r.h - b.bottom then
    if r.movable then mode = DRAG_MOVE end
    if r.resizable then
      mode = DRAG_RESIZE_BOTTOM
      if x < b.left then mode = DRAG_RESIZE_BOTTOMLEFT end
      if x >= r.w - b.right then mode = DRAG_RESIZE_BOTTOMRIGHT end
    end
  else
    if r.movable then mode = DRAG_MOVE end
    if r.resizable then
      if x < b.left then mode = DRAG_RESIZE_LEFT end
      if x >= r.w - b.right then mode = DRAG_RESIZE_RIGHT end
    end
  end
  return mode
end
local SHAPE_OF_DRAG = {[DRAG_RESIZE_TOP] = "ResizeVertical", [DRAG_RESIZE_BOTTOM] = "ResizeVertical",
  [DRAG_RESIZE_LEFT] = "ResizeHorizontal", [DRAG_RESIZE_RIGHT] = "ResizeHorizontal",
  [DRAG_RESIZE_TOPRIGHT] = "ResizeDiagonalTopRight", [DRAG_RESIZE_BOTTOMLEFT] = "ResizeDiagonalTopRight",
  [DRAG_RESIZE_TOPLEFT] = "ResizeDiagonalTopLeft", [DRAG_RESIZE_BOTTOMRIGHT] = "ResizeDiagonalTopLeft"}
local function set_cursor_shape(mode)
  local c = ui_state.cursor
  if c then c.shape = SHAPE_OF_DRAG[mode] or "Normal" end
end
WVT.OnHover = function(r, ex, ey, sx, sy, buttons, qualifiers)
  r.hovering = true
  if r.drag_mode == DRAG_NONE then set_cursor_shape(drag_mode_at(r, ex, ey)) else set_cursor_shape(r.drag_mode) end
end
WVT.OnDragBegin = function(r, ex, ey, sx, sy, buttons, qualifiers)
  E.UI_VT.UIElement.OnDragBegin(r, ex, ey, sx, sy, buttons, qualifiers)
  if buttons ~= MOUSEB_LEFT or E.ui_h_align(r) ~= HA_LEFT or E.ui_v_align(r) ~= VA_TOP then
    r.drag_mode = DRAG_NONE
    return
  end
  r.drag_begin_cursor_x, r.drag_begin_cursor_y = sx, sy
  r.drag_begin_x, r.drag_begin_y = r.x, r.y
  r.drag_begin_w, r.drag_begin_h = r.w, r.h
  r.drag_mode = drag_mode_at(r, ex, ey)
  set_cursor_shape(r.drag_mode)
end
WVT.OnDragMove = function(r, _, _, sx, sy)
  local mode = r.drag_mode
  if mode == DRAG_NONE then return end
  local dx, dy = sx - r.drag_begin_cursor_x, sy - r.drag_begin_cursor_y
  local b = r.resize_border
  local rbw, rbh = b.left + b.right, b.top + b.bottom
  local px, py, w, h = r.x, r.y, r.w, r.h
  local mw, mh = E.ui_effective_min(r)
  local bx, by, bw, bh = r.drag_begin_x, r.drag_begin_y, r.drag_begin_w, r.drag_begin_h
  local function width(v) if r.fixed_width_resizing then set_fixed_width(r, mmax(v, rbw)) else set_size(r, v, r.h) end end
  local function height(v) if r.fixed_height_resizing then set_fixed_height(r, mmax(v, rbh)) else set_size(r, r.w, v) end end
  local function left_x() return clamp(bx + dx, px - (r.max_w - w), px + (w - mw)) end
  local function top_y() return clamp(by + dy, py - (r.max_h - h), py + (h - mh)) end
  if mode == DRAG_MOVE then
    set_position(r, bx + dx, by + dy)
  elseif mode == DRAG_RESIZE_TOPLEFT then
    set_position(r, left_x(), top_y())
    width(bw - dx); height(bh - dy)
  elseif mode == DRAG_RESIZE_TOP then
    set_position(r, bx, top_y())
    height(bh - dy)
  elseif mode == DRAG_RESIZE_TOPRIGHT then
    set_position(r, bx, top_y())
    width(bw + dx); height(bh - dy)
  elseif mode == DRAG_RESIZE_RIGHT then
    width(bw + dx)
  elseif mode == DRAG_RESIZE_BOTTOMRIGHT then
    width(bw + dx); height(bh + dy)
  elseif mode == DRAG_RESIZE_BOTTOM then
    height(bh + dy)
  elseif mode == DRAG_RESIZE_BOTTOMLEFT then
    set_position(r, left_x(), by)
    width(bw - dx); height(bh + dy)
  elseif mode == DRAG_RESIZE_LEFT then
    set_position(r, left_x(), by)
    width(bw - dx)
  end
  -- ValidatePosition: no more than half outside the parent
  local p = r.parent
  if p then
    local hw, hh = r.w // 2, r.h // 2
    set_position(r, clamp(r.x, -hw, p.w - hw), clamp(r.y, -hh, p.h - hh))
  end
  set_cursor_shape(mode)
end
WVT.OnDragEnd = function(r, ...)
  E.UI_VT.UIElement.OnDragEnd(r, ...)
  r.drag_mode = DRAG_NONE
end
WVT.OnDragCancel = function(r, ex, ey, sx, sy, drag_buttons, cancel_buttons)
  E.UI_VT.UIElement.OnDragCancel(r, ex, ey, sx, sy, drag_buttons, cancel_buttons)
  if drag_buttons == MOUSEB_LEFT and r.drag_mode ~= DRAG_NONE then
    r.drag_mode = DRAG_NONE
    set_position(r, r.drag_begin_x, r.drag_begin_y)
    set_size(r, r.drag_begin_w, r.drag_begin_h)
  end
end
local W = WI.methods
local function flag(key)
  return function(self, v) urec(self)[key] = v and true or false end, function(self) return urec(self)[key] end
end
W.SetMovable, W.IsMovable = flag("movable")
W.SetResizable, W.IsResizable = flag("resizable")
W.SetFixedWidthResizing, W.GetFixedWidthResizing = flag("fixed_width_resizing")
W.SetFixedHeightResizing, W.GetFixedHeightResizing = flag("fixed_height_resizing")
W.SetModalAutoDismiss, W.GetModalAutoDismiss = flag("modal_auto_dismiss")
W.SetResizeBorder = function(self, rect)
  urec(self).resize_border = irect(mmax(rect.left, 0), mmax(rect.top, 0), mmax(rect.right, 0), mmax(rect.bottom, 0))
end
W.GetResizeBorder = function(self) return copy_irect(urec(self).resize_border) end
local function set_modal(r, v)
  v = v and true or false
  if E.ui_set_modal_element(r, v) then
    r.modal = v
    emit(r, "ModalChanged", {Element = r.proxy, Modal = v})
  end
end
E.ui_set_modal = set_modal
W.SetModal = function(self, v) set_modal(urec(self), v) end
W.IsModal = function(self) return urec(self).modal end
local function color_copy(c) return E.Color_new(c.r, c.g, c.b, c.a) end
W.SetModalShadeColor = function(self, c) urec(self).modal_shade_color = color_copy(c) end
W.GetModalShadeColor = function(self) return color_copy(urec(self).modal_shade_color) end
W.SetModalFrameColor = function(self, c) urec(self).modal_frame_color = color_copy(c) end
W.GetModalFrameColor = function(self) return color_copy(urec(self).modal_frame_color) end
W.SetModalFrameSize = function(self, s) urec(self).modal_frame_size = copy_ivec2(s) end
W.GetModalFrameSize = function(self) return copy_ivec2(urec(self).modal_frame_size) end

----------------------------------------------------------------------------------------------------
-- ToolTip: shown (moved to the root, on top) once its parent has been hovered for its delay
----------------------------------------------------------------------------------------------------
local TT = class("ToolTip")
FACTORIES.ToolTip = derive("UIElement", function(r)
  r.delay = 0.0
  r.visible = false
  r.tip_hovered = false
end)
TT.new = function() return (new_element("ToolTip")) end
local TVT = vt("ToolTip")
local function tooltip_reset(r)
  local root = E.ui_root_of(r)
  if r.visible and r.parent == root and r.target then
    E.ui_insert_child(r.target, nil, r)
    set_position(r, r.original_x, r.original_y)
    set_visible(r, false)
  end
  r.tip_hovered = false
  r.display_at = clock.elapsed
end
TVT.Update = function(r)
  local root = E.ui_root_of(r)
  if root == r then return end
  if r.parent ~= root then r.target = r.parent end
  local target = r.target
  if target == nil then return end
  local hovering = target.hovering and E.ui_visible_effective(target)
  if hovering then
    local delay = r.delay > 0.0 and r.delay or E.ui_settings.DefaultToolTipDelay
    if not r.tip_hovered then
      r.tip_hovered = true
      r.display_at = clock.elapsed
    elseif clock.elapsed - r.display_at >= delay and r.parent == target then
      r.original_x, r.original_y = r.x, r.y
      local sx, sy = screen_xy(r)
      E.ui_insert_child(root, nil, r)
      set_position(r, sx, sy)
      set_visible(r, true)
      E.ui_set_priority(r, INT_MAX)
    end
  else
    tooltip_reset(r)
  end
end
TT.methods.SetDelay = function(self, d) urec(self).delay = d + 0.0 end
TT.methods.GetDelay = function(self) return urec(self).delay end

----------------------------------------------------------------------------------------------------
-- Slider: dragging the knob changes the value (SliderChanged); pressing beside the knob sends SliderPaged
-- (a ScrollBar steps on it; a plain Slider's value does not change).  ProgressBar: a knob sized to the value.
----------------------------------------------------------------------------------------------------
local function ranged_base(r)
  r.orientation = O_HORIZONTAL
  r.range, r.value = 1.0, 0.0
end
local SL = class("Slider")
FACTORIES.Slider = derive("BorderImage", function(r)
  r.enabled, r.enabled_prev = true, true
  ranged_base(r)
  r.drag_slider = false
  r.repeat_rate = 0.0
  r.page_timer = -1e9
  local _
  r.knob, _ = internal_child(r, "BorderImage", "S_Knob")
  E.ui_update_slider(r)
end)
SL.new = function() return (new_element("Slider")) end
function E.ui_update_slider(r)
  local knob = REC[r.knob]
  local border = knob.border
  if r.range > 0.0 then
    if r.orientation == O_HORIZONTAL then
      local length = toint(mmax(f32(r.w / f32(r.range + 1.0)), border.left + border.right))
      if knob.min_w == knob.max_w then length = knob.w end
      local pos = f32((r.w - length) * r.value / r.range)
      if not (knob.min_w == knob.max_w and knob.min_h == knob.max_h) then
        set_size(knob, length, r.h)
        set_position(knob, clamp(cround(pos), 0, r.w - knob.w), 0)
      else
        set_position(knob, clamp(toint(pos), 0, r.w - knob.w), 0)
      end
    else
      local length = toint(mmax(f32(r.h / f32(r.range + 1.0)), border.top + border.bottom))
      if knob.min_h == knob.max_h then length = knob.h end
      local pos = f32((r.h - length) * r.value / r.range)
      if not (knob.min_w == knob.max_w and knob.min_h == knob.max_h) then
        set_size(knob, r.w, length)
      end
      set_position(knob, 0, clamp(cround(pos), 0, r.h - knob.h))
    end
  else
    if not (knob.min_w == knob.max_w and knob.min_h == knob.max_h) then set_size(knob, r.w, r.h) end
    set_position(knob, 0, 0)
  end
end
local function slider_set_value(r, v)
  v = clamp(v + 0.0, 0.0, r.range)
  if v == r.value then return end
  r.value = v
  E.ui_update_slider(r)
  emit(r, "SliderChanged", {Element = r.proxy, Value = v})
end
E.ui_slider_set_value = slider_set_value
local function slider_page(r, ex, ey, pressed)
  if not r.editable then return end
  local knob = REC[r.knob]
  local ox, oy = ex - knob.x - knob.w // 2, ey - knob.y - knob.h // 2
  local offset = r.orientation == O_HORIZONTAL and ox or oy
  local length = r.orientation == O_HORIZONTAL and r.w or r.h
  local elapsed_ms = (clock.elapsed - r.page_timer) * 1000.0
  if r.selected and pressed and r.repeat_rate > 0.0 and
      elapsed_ms >= 1000.0 / r.repeat_rate * (1.0 - mabs(offset) / mmax(length, 1)) then
    r.page_timer = clock.elapsed
  else
    pressed = false
  end
  emit(r, "SliderPaged", {Element = r.proxy, Offset = offset, Pressed = pressed})
end
local SLVT = vt("Slider")
SLVT.Update = function(r)
  if r.drag_slider then r.hovering = true end
  local knob = REC[r.knob]
  knob.hovering, knob.selected = r.hovering, r.hovering
end
SLVT.OnHover = function(r, ex, ey, sx, sy, buttons)
  r.hovering = true
  r.hovering = is_inside(REC[r.knob], sx, sy, true)
  if not r.hovering then slider_page(r, ex, ey, (buttons & MOUSEB_LEFT) ~= 0) end
end
SLVT.OnClickBegin = function(r, ex, ey, sx, sy, button)
  r.selected = true
  r.hovering = is_inside(REC[r.knob], sx, sy, true)
  if not r.hovering and button == MOUSEB_LEFT then slider_page(r, ex, ey, true) end
end
SLVT.OnClickEnd = function(r, ex, ey, sx, sy, button)
  r.hovering = is_inside(REC[r.knob], sx, sy, true)
  if not r.hovering and button == MOUSEB_LEFT then slider_page(r, ex, ey, false) end
end
SLVT.OnDragBegin = function(r, ex, ey, sx, sy, buttons, qualifiers)
  E.UI_VT.UIElement.OnDragBegin(r, ex, ey, sx, sy, buttons, qualifiers)
  if buttons == MOUSEB_LEFT then
    local knob = REC[r.knob]
    r.drag_begin_cursor_x, r.drag_begin_cursor_y = ex, ey
    r.drag_begin_x, r.drag_begin_y = knob.x, knob.y
    r.drag_slider = is_inside(knob, sx, sy, true)
  end
end
SLVT.OnDragMove = function(r, ex, ey)
  local knob = REC[r.knob]
  if not r.editable or not r.drag_slider or (r.w == knob.w and r.h == knob.h) then return end
  local value
  if r.orientation == O_HORIZONTAL then
    local nx = clamp(r.drag_begin_x + ex - r.drag_begin_cursor_x, 0, r.w - knob.w)
    set_position(knob, nx, 0)
    value = f32(f32(nx * r.range) / (r.w - knob.w))
  else
    local ny = clamp(r.drag_begin_y + ey - r.drag_begin_cursor_y, 0, r.h - knob.h)
    set_position(knob, 0, ny)
    value = f32(f32(ny * r.range) / (r.h - knob.h))
  end
  slider_set_value(r, value)
end
SLVT.OnDragEnd = function(r, ex, ey, sx, sy, drag_buttons, release_buttons)
  E.UI_VT.UIElement.OnDragEnd(r, ex, ey, sx, sy, drag_buttons, release_buttons)
  if drag_buttons == MOUSEB_LEFT then
    r.drag_slider = false
    r.selected = false
  end
end
SLVT.OnResize = function(r) E.ui_update_slider(r) end
local SLM = SL.methods
SLM.SetValue = function(self, v) slider_set_value(urec(self), v) end
SLM.GetValue = function(self) return urec(self).value end
SLM.ChangeValue = function(self, d) local r = urec(self); slider_set_value(r, r.value + d) end
SLM.SetRange = function(self, v)
  local r = urec(self)
  v = mmax(v + 0.0, 0.0)
  if v ~= r.range then
    r.range = v
    E.ui_update_slider(r)
  end
end
SLM.GetRange = function(self) return urec(self).range end
SLM.SetOrientation = function(self, o) local r = urec(self); r.orientation = o; E.ui_update_slider(r) end
SLM.GetOrientation = function(self) return urec(self).orientation end
SLM.GetKnob = function(self) return urec(self).knob end
SLM.SetRepeatRate = function(self, v) urec(self).repeat_rate = mmax(v + 0.0, 0.0) end
SLM.GetRepeatRate = function(self) return urec(self).repeat_rate end

local PB = class("ProgressBar")
local function update_progress(r)
  local knob, text = REC[r.knob], REC[r.loading_text]
  local border = knob.border
  if r.range > 0.0 then
    if r.orientation == O_HORIZONTAL then
      local length = toint(mmax(f32(f32(r.w * r.value) / r.range), border.left + border.right))
      set_size(knob, length, r.h)
      set_position(knob, 0, 0)
    else
      local length = toint(mmax(f32(f32(r.h * r.value) / r.range), border.top + border.bottom))
      set_size(knob, r.w, length)
      set_position(knob, 0, r.h - knob.h)
    end
  else
    set_size(knob, r.w, r.h)
    set_position(knob, 0, 0)
  end
  E.ui_set_h_align(text, HA_CENTER)
  E.ui_set_v_align(text, VA_CENTER)
  local pct = r.range > 0.0 and cround(r.value / r.range * 100.0) or 0
  IMPL.Text.methods.SetText(r.loading_text, tostring(toint(pct)) .. " %")
  set_visible(text, r.show_percent_text)
end
FACTORIES.ProgressBar = derive("BorderImage", function(r)
  r.enabled, r.enabled_prev = false, false
  r.editable = false
  ranged_base(r)
  r.loading_percent_style = "Text"
  r.show_percent_text = true
  r.knob = internal_child(r, "BorderImage", "S_Knob")
  r.loading_text = internal_child(r, "Text", "S_Text")
  update_progress(r)
end)
PB.new = function() return (new_element("ProgressBar")) end
vt("ProgressBar").OnResize = function(r) update_progress(r) end
local PM = PB.methods
PM.SetValue = function(self, v)
  local r = urec(self)
  v = clamp(v + 0.0, 0.0, r.range)
  if v == r.value then return end
  r.value = v
  update_progress(r)
  emit(r, "ProgressBarChanged", {Element = self, Value = v})
end
PM.GetValue = function(self) return urec(self).value end
PM.ChangeValue = function(self, d) PM.SetValue(self, urec(self).value + d) end
PM.SetRange = function(self, v)
  local r = urec(self)
  v = mmax(v + 0.0, 0.0)
  if v ~= r.range then r.range = v; update_progress(r) end
end
PM.GetRange = function(self) return urec(self).range end
PM.SetOrientation = function(self, o) local r = urec(self); r.orientation = o; update_progress(r) end
PM.GetOrientation = function(self) return urec(self).orientation end
PM.GetKnob = function(self) return urec(self).knob end
PM.SetLoadingPercentStyle = function(self, s) urec(self).loading_percent_style = tostring(s) end
PM.GetLoadingPercentStyle = function(self) return urec(self).loading_percent_style end
PM.SetShowPercentText = function(self, v) local r = urec(self); r.show_percent_text = v and true or false; update_progress(r) end
PM.GetShowPercentText = function(self) return urec(self).show_percent_text end

----------------------------------------------------------------------------------------------------
-- Cursor, and UI:SetCursor / GetCursor
----------------------------------------------------------------------------------------------------
local CU = class("Cursor")
local SHAPE_NAMES = {[0] = "Normal", "IBeam", "Cross", "ResizeVertical", "ResizeDiagonalTopRight",
  "ResizeHorizontal", "ResizeDiagonalTopLeft", "ResizeAll", "AcceptDrop", "RejectDrop", "Busy", "BusyArrow"}
FACTORIES.Cursor = derive("BorderImage", function(r)
  r.priority = INT_MAX   -- drawn on top of everything, as Urho3D's cursor
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
local root = E.ui_root
U.SetCursor = function(_, cursor)
  local c = E.ui_opt_rec(cursor)
  if c == ui_state.cursor then return end
  if ui_state.cursor then E.ui_remove_child(root, ui_state.cursor) end
  ui_state.cursor = c
  if c then
    E.ui_insert_child(root, nil, c)
    set_position(c, clamp(c.x, root.x, root.x + root.w - 1), clamp(c.y, root.y, root.y + root.h - 1))
  end
end
U.GetCursor = function() return ui_state.cursor and ui_state.cursor.proxy end

----------------------------------------------------------------------------------------------------
-- UI subsystem settings, with Urho3D's defaults (UI.cpp) for the platform the engine reports: the screen
-- keyboard on Android and iOS, the non-focused mouse wheel everywhere but Windows
----------------------------------------------------------------------------------------------------
local settings = {DoubleClickInterval = 0.5, DragBeginInterval = 0.5, DragBeginDistance = 5,
  DefaultToolTipDelay = 0.5, MaxFontTextureSize = 2048, NonFocusedMouseWheel = true,
  UseScreenKeyboard = true,   -- both depend on the platform the run reports (E.configure)
  UseMutableGlyphs = false, ForceAutoHint = false, FontHintLevel = 2, FontSubpixelThreshold = 12.0,
  FontOversampling = 2, MaxDoubleClickDistance = 100000000.0}
E.on_configure(function(config)
  local platform = tostring(config.platform or "Android")
  settings.NonFocusedMouseWheel = platform ~= "Windows"
  settings.UseScreenKeyboard = platform == "Android" or platform == "iOS" or platform == "tvOS"
end)
E.ui_settings = settings
local declared_ui = E.REGISTRY.classes.UI.methods
for _, key in ipairs(E.sorted_keys(settings)) do
  local function define(name, fn) if declared_ui[name] then U[name] = fn end end
  define("Set" .. key, function(_, v) settings[key] = v end)
  define("Get" .. key, function() return settings[key] end)
  define("Is" .. key, function() return settings[key] end)
end
U.DebugDraw = function() end

for _, name in ipairs({"BorderImage", "Sprite", "Button", "CheckBox", "LineEdit", "Window", "Cursor", "ToolTip",
                       "Slider", "ProgressBar"}) do
  assert(FACTORIES[name], name)
end
