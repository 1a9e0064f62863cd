-- Native UI, part 3: the composite widgets, with Urho3D's behaviour: ScrollBar (two step buttons and a
-- slider), ScrollView (a scroll panel with a content element, wheel / key / bar / touch scrolling), ListView
-- (items in the content element, single and multiple selection, ItemSelected / ItemClicked), Menu (a button
-- with a popup window) and DropDownList (a menu whose popup holds a ListView).  The wiring between a widget
-- and its internal children uses element hooks (80_ui.lua), as Urho3D's widgets subscribe to their children.
local type, tostring, ipairs = type, tostring, ipairs
local mfloor, mmax, mmin, mabs = math.floor, math.max, math.min, math.abs
local tsort, tremove, tinsert = table.sort, table.remove, table.insert
local REC = E.REC
local urec, opt_rec = E.ui_rec, E.ui_opt_rec
local FACTORIES = E.UI_FACTORIES
local new_element = E.new_ui_element
local vt, derive = E.ui_vt, E.ui_derive
local emit, hook, ptr = E.ui_emit, E.ui_hook, E.ui_ptr
local internal_child = E.ui_internal_child
local set_size, set_position, set_visible = E.ui_set_size, E.ui_set_position, E.ui_set_visible
local update_layout = E.ui_update_layout
local clamp = E.ui_clamp
local ui_state, settings = E.ui_state, E.ui_settings
local MX = E.MATH
local f32, toint = MX.f32, MX.toint
local KEYS = E.UI_KEYS
local INT_MAX = 2147483647
local M_MAX_UNSIGNED = 4294967295
local M_EPSILON = 0.000001
local FM_NOTFOCUSABLE, FM_FOCUSABLE, FM_FOCUSABLE_DEFOCUSABLE = 0, 2, 3
local HA_LEFT, HA_RIGHT, VA_TOP, VA_BOTTOM = 0, 2, 0, 2
local O_HORIZONTAL, O_VERTICAL = 0, 1
local LM_VERTICAL = 2
local HM_NEVER, HM_FOCUS, HM_ALWAYS = 0, 1, 2
local MOUSEB_LEFT = 1
local QUAL_SHIFT, QUAL_CTRL, QUAL_ANY = 1, 2, 8

local function ivec2(x, y) return E.IntVector2_new(x, y) end
local function xy_args(a, b)
  if type(a) == "number" then return a, b end
  return a.x, a.y
end

----------------------------------------------------------------------------------------------------
-- ScrollBar
----------------------------------------------------------------------------------------------------
local SB = class("ScrollBar")
local function bar_parts(r) return REC[r.back_button], REC[r.slider], REC[r.forward_button] end
local function bar_resize(r)
  local back, slider, fwd = bar_parts(r)
  if slider.orientation == O_HORIZONTAL then
    local h = r.h
    local sw = mmax(r.w - 2 * h, 0)
    set_size(back, h, h)
    set_size(slider, sw, h)
    set_size(fwd, h, h)
    set_position(back, 0, 0)
    set_position(slider, h, 0)
    set_position(fwd, h + sw, 0)
  else
    local w = r.w
    local sh = mmax(r.h - 2 * w, 0)
    set_size(back, w, w)
    set_size(slider, w, sh)
    set_size(fwd, w, w)
    set_position(back, 0, 0)
    set_position(slider, 0, w)
    set_position(fwd, 0, sh + w)
  end
end
local function effective_step(r) return f32(r.scroll_step * r.step_factor) end
local function step_back(r)
  local slider = REC[r.slider]
  E.ui_slider_set_value(slider, slider.value - effective_step(r))
end
local function step_forward(r)
  local slider = REC[r.slider]
  E.ui_slider_set_value(slider, slider.value + effective_step(r))
end
local function set_orientation(r, o)
  local slider = REC[r.slider]
  slider.orientation = o
  E.ui_update_slider(slider)
  bar_resize(r)
end
FACTORIES.ScrollBar = derive("BorderImage", function(r)
  r.enabled, r.enabled_prev = true, true
  r.scroll_step, r.step_factor = 0.1, 1.0
  local back, slider, fwd
  r.back_button, back = internal_child(r, "Button", "SB_Back")
  back.repeat_delay, back.repeat_rate, back.focus_mode = 0.4, 20.0, FM_NOTFOCUSABLE
  r.slider, slider = internal_child(r, "Slider", "SB_Slider")
  slider.repeat_rate = 20.0
  r.forward_button, fwd = internal_child(r, "Button", "SB_Forward")
  fwd.repeat_delay, fwd.repeat_rate, fwd.focus_mode = 0.4, 20.0, FM_NOTFOCUSABLE
  IMPL.UIElement.methods.SetColor(r.proxy, E.Color_new(0, 0, 0, 0))
  hook(back, "Pressed", function() if r.editable then step_back(r) end end)
  hook(fwd, "Pressed", function() if r.editable then step_forward(r) end end)
  hook(slider, "SliderChanged", function()
    emit(r, "ScrollBarChanged", {Element = r.proxy, Value = slider.value})
  end)
  hook(slider, "SliderPaged", function(_, fields)
    local b = fields.Offset < 0 and back or fwd
    local sx, sy = E.ui_element_to_screen(b, 0, 0)
    b.vt.OnHover(b, 0, 0, sx, sy, 0, 0)
    if fields.Pressed then b.vt.OnClickBegin(b, 0, 0, sx, sy, MOUSEB_LEFT, MOUSEB_LEFT, 0)
    else b.vt.OnClickEnd(b, 0, 0, sx, sy, MOUSEB_LEFT, 0, 0, b) end
  end)
  set_orientation(r, O_HORIZONTAL)
end)
SB.new = function() return (new_element("ScrollBar")) end
local SBVT = vt("ScrollBar")
SBVT.OnResize = function(r) bar_resize(r) end
SBVT.OnSetEditable = function(r) REC[r.slider].editable = r.editable end
local SBM = SB.methods
SBM.SetOrientation = function(self, o) set_orientation(urec(self), o) end
SBM.GetOrientation = function(self) return REC[urec(self).slider].orientation end
SBM.SetRange = function(self, v) IMPL.Slider.methods.SetRange(urec(self).slider, v) end
SBM.GetRange = function(self) return REC[urec(self).slider].range end
SBM.SetValue = function(self, v) E.ui_slider_set_value(REC[urec(self).slider], v) end
SBM.GetValue = function(self) return REC[urec(self).slider].value end
SBM.ChangeValue = function(self, d)
  local slider = REC[urec(self).slider]
  E.ui_slider_set_value(slider, slider.value + d)
end
SBM.SetScrollStep = function(self, s) urec(self).scroll_step = mmax(s + 0.0, 0.0) end
SBM.GetScrollStep = function(self) return urec(self).scroll_step end
SBM.SetStepFactor = function(self, f) urec(self).step_factor = mmax(f + 0.0, M_EPSILON) end
SBM.GetStepFactor = function(self) return urec(self).step_factor end
SBM.GetEffectiveScrollStep = function(self) return effective_step(urec(self)) end
SBM.StepBack = function(self) step_back(urec(self)) end
SBM.StepForward = function(self) step_forward(urec(self)) end
SBM.GetBackButton = function(self) return urec(self).back_button end
SBM.GetForwardButton = function(self) return urec(self).forward_button end
SBM.GetSlider = function(self) return urec(self).slider end
E.ui_scrollbar_step_back, E.ui_scrollbar_step_forward = step_back, step_forward

----------------------------------------------------------------------------------------------------
-- ScrollView
----------------------------------------------------------------------------------------------------
local SV = class("ScrollView")
local STEP_FACTOR = 300.0
local function bars(r) return REC[r.hbar], REC[r.vbar], REC[r.panel] end
local function bar_value(b) return REC[b.slider].value end
local function bar_range(b) return REC[b.slider].range end
local function update_view(r, x, y)
  local _, _, panel = bars(r)
  local ox, oy = r.view_x, r.view_y
  local pw, ph = panel.w - panel.cb_l - panel.cb_r, panel.h - panel.cb_t - panel.cb_b
  r.view_x = clamp(toint(x), 0, r.view_w - pw)
  r.view_y = clamp(toint(y), 0, r.view_h - ph)
  panel.child_off_x, panel.child_off_y = -r.view_x + panel.cb_l, -r.view_y + panel.cb_t
  if r.view_x ~= ox or r.view_y ~= oy then
    emit(r, "ViewChanged", {Element = r.proxy, X = r.view_x, Y = r.view_y})
  end
end
local function update_scroll_bars(r)
  local hbar, vbar, panel = bars(r)
  r.ignore_events = true
  local w, h = panel.w - panel.cb_l - panel.cb_r, panel.h - panel.cb_t - panel.cb_b
  if w > 0 and r.view_w > 0 then
    SBM.SetRange(hbar.proxy, f32(f32(r.view_w / w) - 1.0))
    SBM.SetValue(hbar.proxy, f32(r.view_x / w))
    SBM.SetStepFactor(hbar.proxy, f32(STEP_FACTOR / w))
  end
  if h > 0 and r.view_h > 0 then
    SBM.SetRange(vbar.proxy, f32(f32(r.view_h / h) - 1.0))
    SBM.SetValue(vbar.proxy, f32(r.view_y / h))
    SBM.SetStepFactor(vbar.proxy, f32(STEP_FACTOR / h))
  end
  r.ignore_events = false
end
local function update_view_size(r)
  local _, _, panel = bars(r)
  local w, h = 0, 0
  local content = r.content
  if content then w, h = content.w, content.h end
  r.view_w = mmax(w, panel.w - panel.cb_l - panel.cb_r)
  r.view_h = mmax(h, panel.h - panel.cb_t - panel.cb_b)
  update_view(r, r.view_x, r.view_y)
  update_scroll_bars(r)
end
local function update_panel_size(r)
  local hbar, vbar, panel = bars(r)
  r.ignore_events = true
  local pw, ph = r.w, r.h
  if vbar.visible then pw = pw - vbar.w end
  if hbar.visible then ph = ph - hbar.h end
  set_size(panel, pw, ph)
  set_size(hbar, panel.w, hbar.h)
  set_size(vbar, vbar.w, panel.h)
  if r.resize_content_width and r.content then
    set_size(r.content, panel.w - panel.cb_l - panel.cb_r, r.content.h)
    update_view_size(r)
  end
  r.ignore_events = false
end
local function scroll_view_resize(r)
  update_panel_size(r)
  update_view_size(r)
  if r.bars_auto_visible then
    local hbar, vbar = bars(r)
    r.ignore_events = true
    set_visible(hbar, bar_range(hbar) > M_EPSILON)
    set_visible(vbar, bar_range(vbar) > M_EPSILON)
    r.ignore_events = false
    update_panel_size(r)
  end
  local extra = r.vt.AfterResize
  if extra then extra(r) end
end
E.ui_scroll_view_resize = scroll_view_resize
local function set_view_position(r, x, y)
  update_view(r, x, y)
  update_scroll_bars(r)
end
local function set_content(r, c)
  if c == r.content then return end
  local _, _, panel = bars(r)
  if r.content then E.ui_remove_child(panel, r.content) end
  r.content = c
  if c then
    E.ui_insert_child(panel, nil, c)
    hook(c, "Resized", function(x)
      if r.content == x and not r.ignore_events then scroll_view_resize(r) end
    end)
  end
  scroll_view_resize(r)
end
E.ui_set_content = set_content
FACTORIES.ScrollView = derive("UIElement", function(r)
  r.clip = true
  r.enabled, r.enabled_prev = true, true
  r.focus_mode = FM_FOCUSABLE_DEFOCUSABLE
  r.view_x, r.view_y, r.view_w, r.view_h = 0, 0, 0, 0
  r.page_step = 1.0
  r.bars_auto_visible = true
  r.ignore_events = false
  r.resize_content_width = false
  r.scroll_deceleration, r.scroll_snap_epsilon = 30.0, M_EPSILON
  r.touch_speed_x, r.touch_speed_y, r.touch_max_x, r.touch_max_y = 0.0, 0.0, 0.0, 0.0
  r.scroll_touch_down, r.bar_scrolling = false, false
  r.auto_disable_children, r.auto_disable_threshold, r.children_disabled = false, 25.0, false
  r.touch_distance_sum = 0.0
  local hbar, vbar, panel
  r.hbar, hbar = internal_child(r, "ScrollBar", "SV_HorizontalScrollBar")
  E.ui_set_h_align(hbar, HA_LEFT)
  E.ui_set_v_align(hbar, VA_BOTTOM)
  set_orientation(hbar, O_HORIZONTAL)
  r.vbar, vbar = internal_child(r, "ScrollBar", "SV_VerticalScrollBar")
  E.ui_set_h_align(vbar, HA_RIGHT)
  E.ui_set_v_align(vbar, VA_TOP)
  set_orientation(vbar, O_VERTICAL)
  r.panel, panel = internal_child(r, "BorderImage", "SV_ScrollPanel")
  panel.enabled, panel.enabled_prev = true, true
  panel.clip = true
  local function bar_changed()
    if not r.ignore_events then
      local w, h = panel.w - panel.cb_l - panel.cb_r, panel.h - panel.cb_t - panel.cb_b
      update_view(r, toint(f32(bar_value(hbar) * w)), toint(f32(bar_value(vbar) * h)))
    end
  end
  local function bar_visible_changed()
    if not r.ignore_events then scroll_view_resize(r) end
  end
  hook(hbar, "ScrollBarChanged", bar_changed)
  hook(vbar, "ScrollBarChanged", bar_changed)
  hook(hbar, "VisibleChanged", bar_visible_changed)
  hook(vbar, "VisibleChanged", bar_visible_changed)
end)
SV.new = function() return (new_element("ScrollView")) end
local SVVT = vt("ScrollView")
SVVT.IsWheelHandler = true
SVVT.OnResize = function(r) scroll_view_resize(r) end
SVVT.OnWheel = function(r, delta)
  local _, vbar = bars(r)
  if delta > 0 then step_back(vbar) end
  if delta < 0 then step_forward(vbar) end
end
SVVT.OnKey = function(r, key, buttons, qualifiers)
  local hbar, vbar = bars(r)
  local K = KEYS
  if key == K.KEY_LEFT then
    if hbar.visible then
      if (qualifiers & QUAL_CTRL) ~= 0 then SBM.SetValue(hbar.proxy, 0.0) else step_back(hbar) end
    end
  elseif key == K.KEY_RIGHT then
    if hbar.visible then
      if (qualifiers & QUAL_CTRL) ~= 0 then SBM.SetValue(hbar.proxy, bar_range(hbar)) else step_forward(hbar) end
    end
  elseif key == K.KEY_HOME or key == K.KEY_UP then
    if key == K.KEY_HOME then qualifiers = qualifiers | QUAL_CTRL end
    if vbar.visible then
      if (qualifiers & QUAL_CTRL) ~= 0 then SBM.SetValue(vbar.proxy, 0.0) else step_back(vbar) end
    end
  elseif key == K.KEY_END or key == K.KEY_DOWN then
    if key == K.KEY_END then qualifiers = qualifiers | QUAL_CTRL end
    if vbar.visible then
      if (qualifiers & QUAL_CTRL) ~= 0 then SBM.SetValue(vbar.proxy, bar_range(vbar)) else step_forward(vbar) end
    end
  elseif key == K.KEY_PAGEUP then
    if vbar.visible then SBM.ChangeValue(vbar.proxy, -r.page_step) end
  elseif key == K.KEY_PAGEDOWN then
    if vbar.visible then SBM.ChangeValue(vbar.proxy, r.page_step) end
  end
end
SVVT.ApplyAttributes = function(r)
  local hbar, vbar, panel = bars(r)
  set_orientation(hbar, O_HORIZONTAL)
  set_orientation(vbar, O_VERTICAL)
  if #panel.children > 0 then set_content(r, panel.children[1]) end
  scroll_view_resize(r)
  set_view_position(r, r.view_x, r.view_y)
end
local function scroll_smooth(r, dt)
  local eps, dec = r.scroll_snap_epsilon, r.scroll_deceleration
  local function decay(v)
    if v >= eps then return mmax(f32(v - dec * dt), 0.0) end
    if v <= -eps then return mmin(f32(v + dec * dt), 0.0) end
    return 0.0
  end
  r.touch_max_x, r.touch_max_y = decay(r.touch_max_x), decay(r.touch_max_y)
  if r.scroll_touch_down then
    r.touch_speed_x, r.touch_speed_y = 0.0, 0.0
    return
  end
  local hbar, vbar = bars(r)
  local function flick(v, bar)
    if v >= eps then
      v = f32(v - dec * dt)
      if v < 0 then v = 0.0 end
      if bar_value(bar) >= bar_range(bar) - M_EPSILON then v = 0.0 end
      return v
    elseif v < -eps then
      v = f32(v + dec * dt)
      if v > 0 then v = 0.0 end
      if bar_value(bar) <= M_EPSILON then v = 0.0 end
      return v
    end
    return 0.0
  end
  r.touch_speed_x = flick(r.touch_speed_x, hbar)
  r.touch_speed_y = flick(r.touch_speed_y, vbar)
end
SVVT.Update = function(r, dt)
  if r.touch_speed_x == 0 and r.touch_speed_y == 0 and r.touch_max_x == 0 and r.touch_max_y == 0
      and not r.bar_scrolling then
    return
  end
  if not r.visible or not r.enabled or ui_state.focus ~= r then
    r.touch_speed_x, r.touch_speed_y, r.touch_max_x, r.touch_max_y = 0.0, 0.0, 0.0, 0.0
    return
  end
  local hbar, vbar = bars(r)
  for _, d in ipairs(E.ui_confirmed_drags()) do
    if d.drag_combo == MOUSEB_LEFT then
      local inside = false
      local p = d.parent
      while p do
        if p == r then inside = true; break end
        p = p.parent
      end
      if not inside or d.proxy == hbar.slider or d.proxy == vbar.slider then
        r.touch_speed_x, r.touch_speed_y, r.touch_max_x, r.touch_max_y = 0.0, 0.0, 0.0, 0.0
        return
      end
    end
  end
  set_view_position(r, r.view_x + toint(r.touch_speed_x), r.view_y + toint(r.touch_speed_y))
  scroll_smooth(r, dt)
end
-- Urho3D's ScrollView listens to every touch (TouchBegin / TouchMove / TouchEnd): the dispatcher calls this
-- for each ScrollView in the UI tree.
function E.ui_scroll_view_touch(r, kind, x, y, dx, dy)
  if kind == "move" and not r.bar_scrolling then
    r.scroll_touch_down = true
    local sx, sy = -dx + 0.0, -dy + 0.0
    if mabs(sx) > mabs(r.touch_speed_x) then r.touch_speed_x = sx end
    if mabs(sy) > mabs(r.touch_speed_y) then r.touch_speed_y = sy end
    r.touch_distance_sum = r.touch_distance_sum + sx * sx + sy * sy
    if r.auto_disable_children and r.touch_distance_sum >= r.auto_disable_threshold then
      if r.visible and not r.children_disabled then
        r.children_disabled = true
        E.ui_deep_enabled(REC[r.panel], false)
      end
    end
    r.touch_max_x, r.touch_max_y = sx, sy
  elseif kind == "begin" then
    local hbar, vbar = bars(r)
    if hbar.visible and E.ui_is_inside_combined(hbar, x, y, true) then r.bar_scrolling = true end
    if vbar.visible and E.ui_is_inside_combined(vbar, x, y, true) then r.bar_scrolling = true end
    r.touch_speed_x, r.touch_speed_y, r.touch_max_x, r.touch_max_y = 0.0, 0.0, 0.0, 0.0
  elseif kind == "end" then
    if r.children_disabled then
      r.touch_distance_sum = 0.0
      r.children_disabled = false
      E.ui_reset_deep_enabled(REC[r.panel])
    end
    r.bar_scrolling, r.scroll_touch_down = false, false
    r.touch_speed_x = mabs(r.touch_max_x) > r.scroll_snap_epsilon and r.touch_max_x or 0.0
    r.touch_speed_y = mabs(r.touch_max_y) > r.scroll_snap_epsilon and r.touch_max_y or 0.0
    r.touch_max_x, r.touch_max_y = 0.0, 0.0
  end
end
local SVM = SV.methods
SVM.SetContentElement = function(self, el) set_content(urec(self), opt_rec(el)) end
SVM.GetContentElement = function(self) local c = urec(self).content; return c and c.proxy end
SVM.SetViewPosition = function(self, a, b) set_view_position(urec(self), xy_args(a, b)) end
SVM.GetViewPosition = function(self) local r = urec(self); return ivec2(r.view_x, r.view_y) end
SVM.SetScrollBarsVisible = function(self, h, v)
  local r = urec(self)
  local hbar, vbar = bars(r)
  r.bars_auto_visible = false
  set_visible(hbar, h)
  set_visible(vbar, v)
end
SVM.SetHorizontalScrollBarVisible = function(self, v)
  local r = urec(self)
  r.bars_auto_visible = false
  set_visible(REC[r.hbar], v)
end
SVM.SetVerticalScrollBarVisible = function(self, v)
  local r = urec(self)
  r.bars_auto_visible = false
  set_visible(REC[r.vbar], v)
end
SVM.GetHorizontalScrollBarVisible = function(self) return REC[urec(self).hbar].visible end
SVM.GetVerticalScrollBarVisible = function(self) return REC[urec(self).vbar].visible end
SVM.SetScrollBarsAutoVisible = function(self, v)
  local r = urec(self)
  v = v and true or false
  if v == r.bars_auto_visible then return end
  r.bars_auto_visible = v
  if v then scroll_view_resize(r)
  else
    set_visible(REC[r.hbar], true)
    set_visible(REC[r.vbar], true)
  end
end
SVM.GetScrollBarsAutoVisible = function(self) return urec(self).bars_auto_visible end
SVM.SetScrollStep = function(self, s)
  local r = urec(self)
  SBM.SetScrollStep(r.hbar, s)
  SBM.SetScrollStep(r.vbar, s)
end
SVM.GetScrollStep = function(self) return REC[urec(self).hbar].scroll_step end
SVM.SetPageStep = function(self, s) urec(self).page_step = mmax(s + 0.0, 0.0) end
SVM.GetPageStep = function(self) return urec(self).page_step end
SVM.SetScrollDeceleration = function(self, v) urec(self).scroll_deceleration = v + 0.0 end
SVM.GetScrollDeceleration = function(self) return urec(self).scroll_deceleration end
SVM.SetScrollSnapEpsilon = function(self, v) urec(self).scroll_snap_epsilon = v + 0.0 end
SVM.GetScrollSnapEpsilon = function(self) return urec(self).scroll_snap_epsilon end
SVM.SetAutoDisableChildren = function(self, v) urec(self).auto_disable_children = v and true or false end
SVM.GetAutoDisableChildren = function(self) return urec(self).auto_disable_children end
SVM.SetAutoDisableThreshold = function(self, v) urec(self).auto_disable_threshold = v + 0.0 end
SVM.GetAutoDisableThreshold = function(self) return urec(self).auto_disable_threshold end
SVM.GetHorizontalScrollBar = function(self) return urec(self).hbar end
SVM.GetVerticalScrollBar = function(self) return urec(self).vbar end
SVM.GetScrollPanel = function(self) return urec(self).panel end

----------------------------------------------------------------------------------------------------
-- ListView (flat lists; hierarchy mode keeps its flag and indents but does not fold)
----------------------------------------------------------------------------------------------------
local LV = class("ListView")
local function items(r) return r.content.children end
local function num_items(r) return #r.content.children end
local function contains(list, v)
  for _, x in ipairs(list) do if x == v then return true end end
  return false
end
local function update_selection_effect(r)
  local highlighted = r.highlight_mode == HM_ALWAYS or ui_state.focus == r
  for i, item in ipairs(items(r)) do
    if r.highlight_mode ~= HM_NEVER and contains(r.selections, i - 1) then item.selected = highlighted
    else item.selected = false end
  end
end
local function find_item(r, item)
  if item == nil or item.parent ~= r.content then return M_MAX_UNSIGNED end
  for i, x in ipairs(items(r)) do if x == item then return i - 1 end end
  return M_MAX_UNSIGNED
end
E.ui_list_find_item = find_item
local function ensure_item_visible(r, item)
  if item == nil or not item.visible then return end
  local _, _, panel = bars(r)
  local nx, ny = r.view_x, r.view_y
  local oy = item.y - ny
  local wh = panel.h - panel.cb_t - panel.cb_b
  if oy < 0 then ny = ny + oy end
  if oy + item.h > wh then ny = ny + oy + item.h - wh end
  set_view_position(r, nx, ny)
end
E.ui_list_ensure_visible = ensure_item_visible
local function send_selected(r, name, index)
  emit(r, name, {Element = r.proxy, Selection = index})
end
local function set_selections(r, indices)
  local n = num_items(r)
  local keep = {}
  for _, index in ipairs(r.selections) do
    if contains(indices, index) then keep[#keep + 1] = index
    else
      r.selections = keep
      send_selected(r, "ItemDeselected", index)
    end
  end
  r.selections = keep
  local added = false
  for _, index in ipairs(indices) do
    if index < n then
      local duplicate = contains(r.selections, index)
      if not duplicate or not r.multiselect then
        if not duplicate then
          r.selections[#r.selections + 1] = index
          added = true
        end
        send_selected(r, "ItemSelected", index)
      end
    end
    if not r.multiselect then break end
  end
  if added then tsort(r.selections) end
  update_selection_effect(r)
  emit(r, "SelectionChanged", {Element = r.proxy})
end
local function set_selection(r, index)
  set_selections(r, {index})
  ensure_item_visible(r, items(r)[index + 1])
end
E.ui_list_set_selection = set_selection
local function add_selection(r, index)
  if not r.multiselect then return set_selection(r, index) end
  if index >= num_items(r) then return end
  if not contains(r.selections, index) then
    r.selections[#r.selections + 1] = index
    send_selected(r, "ItemSelected", index)
    tsort(r.selections)
  end
  ensure_item_visible(r, items(r)[index + 1])
  update_selection_effect(r)
  emit(r, "SelectionChanged", {Element = r.proxy})
end
local function remove_selection(r, index)
  if index >= num_items(r) then return end
  for i, x in ipairs(r.selections) do
    if x == index then
      tremove(r.selections, i)
      send_selected(r, "ItemDeselected", index)
      break
    end
  end
  ensure_item_visible(r, items(r)[index + 1])
  update_selection_effect(r)
  emit(r, "SelectionChanged", {Element = r.proxy})
end
local function toggle_selection(r, index)
  if index >= num_items(r) then return end
  if contains(r.selections, index) then remove_selection(r, index) else add_selection(r, index) end
end
local function change_selection(r, delta, additive)
  local n = num_items(r)
  if #r.selections == 0 then
    if n > 0 then set_selection(r, 0) end
    if mabs(delta) == 1 then return end
  end
  if #r.selections == 0 then return end
  if not r.multiselect then additive = false end
  local sel = delta > 0 and r.selections[#r.selections] or r.selections[1]
  local dir = delta > 0 and 1 or -1
  local new, ok = sel, sel
  local indices = {}
  for i, x in ipairs(r.selections) do indices[i] = x end
  while delta ~= 0 do
    new = new + dir
    if new >= n or new < 0 then break end
    if items(r)[new + 1].visible then
      ok = new
      indices[#indices + 1] = ok
      delta = delta - dir
    end
  end
  if not additive then set_selection(r, ok) else set_selections(r, indices) end
end
local function insert_item(r, index, item)
  if item == nil or item.parent == r.content then return end
  item.enabled, item.enabled_prev = true, true
  item.selected = false
  local n = num_items(r)
  if r.hierarchy_mode then IMPL.UIElement.methods.SetIndent(item.proxy, r.base_indent + 1) end
  if index == nil or index > n or index < 0 then index = n end
  E.ui_insert_child(r.content, index, item)
  if #r.selections > 0 then
    for i, x in ipairs(r.selections) do if x >= index then r.selections[i] = x + 1 end end
    update_selection_effect(r)
  end
end
local function remove_item(r, item, start)
  if item == nil then return end
  start = start or 0
  if not (start >= 0) then return end   -- an unsigned index in Urho3D: negative is past the end, nothing is found
  for i = start, num_items(r) - 1 do
    if items(r)[i + 1] == item then
      item.selected = false
      for k, x in ipairs(r.selections) do if x == i then tremove(r.selections, k); break end end
      if #r.selections > 0 then
        for k, x in ipairs(r.selections) do if x > i then r.selections[k] = x - 1 end end
        update_selection_effect(r)
      end
      E.ui_remove_child(r.content, item)
      return
    end
  end
end
local function make_container(r)
  local proxy, c = new_element("UIElement")
  c.name = "LV_ItemContainer"
  c.internal = true
  c.list_owner = r
  set_content(r, c)
  c.enabled, c.enabled_prev = true, true
  c.sort_children = false
  return proxy
end
FACTORIES.ListView = derive("ScrollView", function(r)
  r.highlight_mode = HM_FOCUS
  r.multiselect = false
  r.hierarchy_mode = false
  r.base_indent = 0
  r.clear_on_defocus = false
  r.select_on_click_end = false
  r.resize_content_width = true
  r.selections = {}
  make_container(r)
  local function focus_changed(_, fields, focused)
    REC[r.panel].selected = focused
    if r.clear_on_defocus and not focused then set_selections(r, {})
    elseif r.highlight_mode == HM_FOCUS then update_selection_effect(r) end
  end
  hook(r, "Focused", function(x, f) focus_changed(x, f, true) end)
  hook(r, "Defocused", function(x, f) focus_changed(x, f, false) end)
end)
LV.new = function() return (new_element("ListView")) end
local LVVT = vt("ListView")
LVVT.OnKey = function(r, key, buttons, qualifiers)
  local n = num_items(r)
  local sel = #r.selections > 0 and r.selections[1] or nil
  local additive = r.multiselect and (qualifiers & (QUAL_SHIFT | QUAL_CTRL)) ~= 0
  local delta = nil
  local K = KEYS
  if n > 0 then
    if sel ~= nil and (qualifiers & QUAL_CTRL) ~= 0 and key == K.KEY_C then
      LV.methods.CopySelectedItemsToClipboard(r.proxy)
      return
    end
    if key == K.KEY_UP then delta = -1
    elseif key == K.KEY_DOWN then delta = 1
    elseif key == K.KEY_PAGEUP or key == K.KEY_PAGEDOWN then
      local dir = key == K.KEY_PAGEUP and -1 or 1
      local s = sel or 0
      local _, _, panel = bars(r)
      local step = toint(f32(r.page_step * panel.h)) - items(r)[s + 1].h
      local new, ok, invisible = s, s, 0
      while new < n and new >= 0 do
        local item = items(r)[new + 1]
        local h = 0
        if item.visible then h = item.h; ok = new else invisible = invisible + 1 end
        if step < h then break end
        step = step - h
        new = new + dir
      end
      delta = ok - s - dir * invisible
    elseif key == K.KEY_HOME then delta = -n
    elseif key == K.KEY_END then delta = n end
  end
  if delta ~= nil then
    change_selection(r, delta, additive)
    return
  end
  emit(r, "UnhandledKey", {Element = r.proxy, Key = key, Buttons = buttons, Qualifiers = qualifiers})
end
-- ListView::HandleUIMouseClick: the dispatcher calls this when a click (or a click end, with SelectOnClickEnd)
-- lands on an item of this list.
function E.ui_list_item_click(r, item, button, buttons, qualifiers)
  if r.select_on_click_end and E.ui_is_dragging() then return end
  local i = find_item(r, item)
  if i == M_MAX_UNSIGNED then return end
  if not r.editable then
    local copy = {}
    for k, x in ipairs(r.selections) do copy[k] = x end
    set_selections(r, copy)
    return
  end
  if button == MOUSEB_LEFT then
    if not r.multiselect or qualifiers == 0 then set_selection(r, i) end
    if r.multiselect then
      if (qualifiers & QUAL_SHIFT) ~= 0 then
        if #r.selections == 0 then set_selection(r, i)
        else
          local first, last = r.selections[1], r.selections[#r.selections]
          local new = {}
          for k, x in ipairs(r.selections) do new[k] = x end
          local a, b
          if i == first or i == last then a, b = first, last
          elseif i < first then a, b = i, first
          elseif i < last then
            if mabs(i - first) <= mabs(i - last) then a, b = first, i else a, b = i, last end
          else a, b = last, i end
          for j = a, b do new[#new + 1] = j end
          set_selections(r, new)
        end
      elseif (qualifiers & QUAL_CTRL) ~= 0 then
        toggle_selection(r, i)
      end
    end
  end
  emit(r, "ItemClicked", {Element = r.proxy, Item = item.proxy, Selection = i, Button = button, Buttons = buttons,
    Qualifiers = qualifiers})
end
function E.ui_list_item_double_click(r, item, button, buttons, qualifiers)
  local i = find_item(r, item)
  if i == M_MAX_UNSIGNED then return end
  emit(r, "ItemDoubleClicked", {Element = r.proxy, Item = item.proxy, Selection = i, Button = button,
    Buttons = buttons, Qualifiers = qualifiers})
end
local LVM = LV.methods
LVM.AddItem = function(self, item) insert_item(urec(self), nil, opt_rec(item)) end
LVM.InsertItem = function(self, index, item) insert_item(urec(self), index, opt_rec(item)) end
LVM.RemoveItem = function(self, a, b)
  local r = urec(self)
  if type(a) == "number" then remove_item(r, items(r)[a + 1], a)
  else remove_item(r, opt_rec(a), b) end
end
LVM.RemoveAllItems = function(self)
  local r = urec(self)
  r.content.layout_nest = r.content.layout_nest + 1
  set_selections(r, {})
  E.ui_remove_all_children(r.content)
  r.content.layout_nest = r.content.layout_nest - 1
  update_layout(r.content)
end
LVM.SetSelection = function(self, index) set_selection(urec(self), toint(index)) end
LVM.SetSelections = function(self, list)
  local indices = {}
  for i, x in ipairs(list or {}) do indices[i] = toint(x) end
  set_selections(urec(self), indices)
end
LVM.AddSelection = function(self, index) add_selection(urec(self), toint(index)) end
LVM.RemoveSelection = function(self, index) remove_selection(urec(self), toint(index)) end
LVM.ToggleSelection = function(self, index) toggle_selection(urec(self), toint(index)) end
LVM.ChangeSelection = function(self, delta, additive) change_selection(urec(self), toint(delta), additive) end
LVM.ClearSelection = function(self) set_selections(urec(self), {}) end
LVM.SetHighlightMode = function(self, m) local r = urec(self); r.highlight_mode = m; update_selection_effect(r) end
LVM.GetHighlightMode = function(self) return urec(self).highlight_mode end
LVM.SetMultiselect = function(self, v) urec(self).multiselect = v and true or false end
LVM.GetMultiselect = function(self) return urec(self).multiselect end
LVM.SetHierarchyMode = function(self, v) urec(self).hierarchy_mode = v and true or false end
LVM.GetHierarchyMode = function(self) return urec(self).hierarchy_mode end
LVM.SetBaseIndent = function(self, n) local r = urec(self); r.base_indent = toint(n); update_layout(r) end
LVM.GetBaseIndent = function(self) return urec(self).base_indent end
LVM.SetClearSelectionOnDefocus = function(self, v)
  local r = urec(self)
  v = v and true or false
  if v ~= r.clear_on_defocus then
    r.clear_on_defocus = v
    if v and ui_state.focus ~= r then set_selections(r, {}) end
  end
end
LVM.GetClearSelectionOnDefocus = function(self) return urec(self).clear_on_defocus end
LVM.SetSelectOnClickEnd = function(self, v) urec(self).select_on_click_end = v and true or false end
LVM.GetSelectOnClickEnd = function(self) return urec(self).select_on_click_end end
LVM.Expand = function() end
LVM.ToggleExpand = function() end
LVM.IsExpanded = function() return true end
LVM.GetNumItems = function(self) return num_items(urec(self)) end
LVM.GetItem = function(self, index)
  local item = items(urec(self))[toint(index) + 1]
  return item and item.proxy
end
LVM.GetItems = function(self)
  local out = {}
  for i, item in ipairs(items(urec(self))) do out[i] = item.proxy end
  return out
end
LVM.FindItem = function(self, item) return find_item(urec(self), REC[item]) end
LVM.GetSelection = function(self)
  local r = urec(self)
  return r.selections[1] or M_MAX_UNSIGNED
end
LVM.GetSelections = function(self)
  local out = {}
  for i, x in ipairs(urec(self).selections) do out[i] = x end
  return out
end
LVM.GetSelectedItem = function(self)
  local r = urec(self)
  local i = r.selections[1]
  local item = i and items(r)[i + 1]
  return item and item.proxy
end
LVM.GetSelectedItems = function(self)
  local r = urec(self)
  local out = {}
  for _, i in ipairs(r.selections) do
    local item = items(r)[i + 1]
    if item then out[#out + 1] = item.proxy end
  end
  return out
end
LVM.IsSelected = function(self, index) return contains(urec(self).selections, toint(index)) end
LVM.CopySelectedItemsToClipboard = function(self)
  local r = urec(self)
  local parts = {}
  for _, i in ipairs(r.selections) do
    local item = items(r)[i + 1]
    if item and item.type_name == "Text" then parts[#parts + 1] = item.text .. "\n" end
  end
  ui_state.clipboard = table.concat(parts)
end
LVM.UpdateInternalLayout = function(self) update_layout(urec(self).content) end
LVM.DisableInternalLayoutUpdate = function(self)
  local c = urec(self).content
  c.layout_nest = c.layout_nest + 1
end
LVM.EnableInternalLayoutUpdate = function(self)
  local c = urec(self).content
  c.layout_nest = c.layout_nest - 1
end

----------------------------------------------------------------------------------------------------
-- Menu: a Button with a popup Window shown as a modal element below it (Pressed toggles it when there is
-- a popup, Released sends MenuSelected when there is none); a click elsewhere hides the popup.
----------------------------------------------------------------------------------------------------
local MN = class("Menu")
local open_menus = {}   -- menus showing their popup, in the order they opened
E.ui_open_menus = open_menus
local accel_menus = {}  -- menus with an accelerator key, in the order it was set
local show_popup
local function pressed_released(r, name)
  if name == "Pressed" and r.popup == nil then return end
  if name == "Released" and r.popup ~= nil then return end
  r.auto_popup = false
  show_popup(r, not r.show_popup)
  if r.popup == nil or r.show_popup then emit(r, "MenuSelected", {Element = r.proxy}) end
end
function show_popup(r, enable)
  local popup = r.popup
  if popup == nil then return end
  if enable then
    local on = r.vt.OnShowPopup
    if on then on(r) end
    E.ui_set_var(popup, "Origin", E.variant_of(r.proxy))
    E.ui_set_modal(popup, true)
    local sx, sy = E.ui_screen(r)
    set_position(popup, sx + r.popup_off_x, sy + r.popup_off_y)
    set_visible(popup, true)
    E.ui_set_priority(popup, INT_MAX)
    if not r.show_popup then open_menus[#open_menus + 1] = r end
  else
    local on = r.vt.OnHidePopup
    if on then on(r) end
    local function hide_children(x)
      for _, c in ipairs(x.children) do
        if c.popup ~= nil and c.vt.IsMenu then show_popup(c, false) end
        hide_children(c)
      end
    end
    hide_children(popup)
    E.ui_set_modal(popup, false)
    E.ui_erase_var(popup, "Origin")
    set_visible(popup, false)
    if popup.parent then E.ui_remove_child(popup.parent, popup) end
    for i, m in ipairs(open_menus) do if m == r then tremove(open_menus, i); break end end
  end
  E.ui_set_var(r, "ShowPopup", E.variant_of(enable and true or false))
  r.show_popup = enable and true or false
  r.selected = r.show_popup
end
E.ui_show_popup = show_popup
-- Menu::HandleFocusChanged, for UIMouseClick (clicked = nil) and FocusChanged.
function E.ui_menu_focus_changed(r, element, clicked, is_focus_event)
  if not r.show_popup then return end
  if is_focus_event and clicked ~= nil then return end
  if element == nil then return show_popup(r, false) end
  local root = E.ui_root_of(r)
  while element do
    if element == r or element == r.popup then return end
    if element.parent == root then
      local origin = element.vars.Origin
      element = origin and origin.type_ == "Ptr" and REC[origin.value_] or nil
    else
      element = element.parent
    end
  end
  show_popup(r, false)
end
FACTORIES.Menu = derive("Button", function(r)
  r.focus_mode = FM_NOTFOCUSABLE
  r.popup = nil
  r.popup_off_x, r.popup_off_y = 0, 0
  r.show_popup = false
  r.accel_key, r.accel_qual = 0, 0
  r.auto_popup = true
  hook(r, "Pressed", function() pressed_released(r, "Pressed") end)
  hook(r, "Released", function() pressed_released(r, "Released") end)
end)
MN.new = function() return (new_element("Menu")) end
local MVT = vt("Menu")
MVT.IsMenu = true
MVT.Update = function(r, dt)
  E.UI_VT.Button.Update(r, dt)
  if r.popup and r.show_popup then
    for _, c in ipairs(r.popup.children) do
      if c.vt.IsMenu and not c.auto_popup and not c.hovering then c.auto_popup = true end
    end
  end
end
MVT.OnHover = function(r)
  r.hovering = true
  local sibling
  if r.parent then
    for _, c in ipairs(r.parent.children) do
      local v = c.vars.ShowPopup
      if v and v.value_ == true then sibling = c; break end
    end
  end
  if r.popup and not r.show_popup then
    if sibling then
      show_popup(sibling, false)
      show_popup(r, true)
      return
    end
    if r.auto_popup and r.parent then
      local origin = r.parent.vars.Origin
      local parent_menu = origin and origin.type_ == "Ptr" and REC[origin.value_]
      if parent_menu and parent_menu.show_popup then show_popup(r, true) end
    end
  elseif sibling and sibling ~= r then
    show_popup(sibling, false)
  end
end
local MM = MN.methods
MM.SetPopup = function(self, el)
  local r = urec(self)
  local p = opt_rec(el)
  if p == r then return end
  if p and p.type_name ~= "Window" then
    E.log("ERROR", "Could not set popup element of type " .. p.type_name .. ", only support popup window for now")
    return
  end
  if r.popup and p == nil then show_popup(r, false) end
  r.popup = p
  if p and p.parent then E.ui_remove_child(p.parent, p) end
end
MM.GetPopup = function(self) local p = urec(self).popup; return p and p.proxy end
MM.SetPopupOffset = function(self, a, b) local r = urec(self); r.popup_off_x, r.popup_off_y = xy_args(a, b) end
MM.GetPopupOffset = function(self) local r = urec(self); return ivec2(r.popup_off_x, r.popup_off_y) end
MM.ShowPopup = function(self, v) show_popup(urec(self), v) end
MM.GetShowPopup = function(self) return urec(self).show_popup end
MM.SetAccelerator = function(self, key, qualifiers)
  local r = urec(self)
  if key >= 65 and key <= 90 then key = key + 32 end
  r.accel_key, r.accel_qual = key, qualifiers
  local listed = false
  for i, m in ipairs(accel_menus) do
    if m == r then
      listed = true
      if key == 0 then tremove(accel_menus, i) end
      break
    end
  end
  if key ~= 0 and not listed then accel_menus[#accel_menus + 1] = r end
end
MM.GetAcceleratorKey = function(self) return urec(self).accel_key end
MM.GetAcceleratorQualifiers = function(self) return urec(self).accel_qual end
-- Menu::HandleKeyDown for every menu with an accelerator.
function E.ui_menu_accelerators(key, qualifiers, is_repeat)
  local list = {}
  for i, m in ipairs(accel_menus) do list[i] = m end
  for _, r in ipairs(list) do
    if r.enabled and key == r.accel_key and (r.accel_qual == QUAL_ANY or qualifiers == r.accel_qual)
        and not is_repeat then
      local f = ui_state.focus
      if not (#E.ui_modal_root.children > 0 or (f and f.type_name == "LineEdit")) then
        pressed_released(r, r.popup and "Pressed" or "Released")
      end
    end
  end
end

----------------------------------------------------------------------------------------------------
-- DropDownList: a Menu whose popup window holds a ListView; choosing an item closes the popup, which sends
-- ItemSelected from the DropDownList.
----------------------------------------------------------------------------------------------------
local DD = class("DropDownList")
local function ddl_item_clicked(r)
  local lv = REC[r.list_view]
  local sel = lv.selections[1]
  local item = sel and items(lv)[sel + 1]
  if item then set_size(REC[r.placeholder], item.w, item.h) end
  if ui_state.focus == lv then E.ui_set_focus_element(r.focus_mode < FM_FOCUSABLE and nil or r) end
  show_popup(r, false)
end
FACTORIES.DropDownList = derive("Menu", function(r)
  r.focus_mode = FM_FOCUSABLE_DEFOCUSABLE
  r.resize_popup = false
  local _, window = new_element("Window")
  window.internal = true
  r.popup = window
  local lv_proxy, lv = new_element("ListView")
  lv.internal = true
  r.list_view = lv_proxy
  SVM.SetScrollBarsVisible(lv_proxy, false, false)
  IMPL.UIElement.methods.SetLayout(window.proxy, LM_VERTICAL)
  E.ui_insert_child(window, nil, lv)
  local placeholder
  r.placeholder, placeholder = internal_child(r, "UIElement", "DDL_Placeholder")
  local _, text = internal_child(placeholder, "Text", "DDL_Placeholder_Text")
  text.visible = false
  hook(lv, "ItemClicked", function() ddl_item_clicked(r) end)
  hook(lv, "UnhandledKey", function(_, fields)
    if E.ui_is_enter(fields.Key) then ddl_item_clicked(r) end
  end)
  hook(lv, "SelectionChanged", function()
    set_visible(placeholder.children[1], #lv.selections == 0)
  end)
end)
DD.new = function() return (new_element("DropDownList")) end
local DVT = vt("DropDownList")
DVT.OnShowPopup = function(r)
  local popup, lv = r.popup, REC[r.list_view]
  update_layout(lv.content)
  local cw, ch = lv.content.w, lv.content.h
  set_size(popup, r.resize_popup and r.w or cw + popup.lb_l + popup.lb_r, ch + popup.lb_t + popup.lb_b)
  local above = false
  local root = E.ui_root_of(r)
  local _, sy = E.ui_screen(r)
  if sy + r.h + popup.h > root.h and sy - popup.h >= 0 then above = true end
  r.popup_off_x, r.popup_off_y = 0, above and -popup.h or r.h
  E.ui_set_focus_element(lv)
end
DVT.OnHidePopup = function(r)
  local lv = REC[r.list_view]
  emit(r, "ItemSelected", {Element = r.proxy, Selection = lv.selections[1] or M_MAX_UNSIGNED})
end
DVT.OnSetEditable = function(r) REC[r.list_view].editable = r.editable end
local DM = DD.methods
DM.AddItem = function(self, item)
  local r = urec(self)
  insert_item(REC[r.list_view], nil, opt_rec(item))
  if #REC[r.list_view].selections == 0 then set_selection(REC[r.list_view], 0) end
end
DM.InsertItem = function(self, index, item)
  local r = urec(self)
  insert_item(REC[r.list_view], index, opt_rec(item))
  if #REC[r.list_view].selections == 0 then set_selection(REC[r.list_view], 0) end
end
DM.RemoveItem = function(self, a) return LVM.RemoveItem(urec(self).list_view, a) end   -- errors at the game's line
DM.RemoveAllItems = function(self) LVM.RemoveAllItems(urec(self).list_view) end
DM.SetSelection = function(self, index) set_selection(REC[urec(self).list_view], toint(index)) end
DM.GetSelection = function(self) return LVM.GetSelection(urec(self).list_view) end
DM.GetSelectedItem = function(self) return LVM.GetSelectedItem(urec(self).list_view) end
DM.GetNumItems = function(self) return LVM.GetNumItems(urec(self).list_view) end
DM.GetItem = function(self, index) return LVM.GetItem(urec(self).list_view, index) end
DM.GetItems = function(self) return LVM.GetItems(urec(self).list_view) end
DM.GetListView = function(self) return urec(self).list_view end
DM.GetPlaceholder = function(self) return urec(self).placeholder end
DM.SetPlaceholderText = function(self, s)
  IMPL.Text.methods.SetText(REC[urec(self).placeholder].children[1].proxy, s)
end
DM.GetPlaceholderText = function(self) return REC[urec(self).placeholder].children[1].text end
DM.SetResizePopup = function(self, v) urec(self).resize_popup = v and true or false end
DM.GetResizePopup = function(self) return urec(self).resize_popup end
