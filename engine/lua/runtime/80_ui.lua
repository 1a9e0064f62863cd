-- Native UI, part 1: the element tree and its geometry as Urho3D's UIElement keeps them: position, size with
-- min/max limits, anchors and pivot (which is what alignment sets), child offsets, Urho3D's layout
-- (LM_FREE, LM_HORIZONTAL, LM_VERTICAL with spacing, border and flex scales), visibility, priorities, the
-- element events (Positioned, Resized, VisibleChanged, LayoutUpdated, ElementAdded ...), Text with stand-in
-- metrics, and the UI subsystem's two roots.  Widgets are in 82_ui_widgets.lua and 83_ui_lists.lua, input
-- dispatch and hit-testing in 83_ui_input.lua, styles and layout files in 83_ui_style.lua.
--
-- Records: every element is an empty proxy whose state lives in REC[proxy] (kind "ui").  Behaviour that a
-- widget overrides (Urho3D's virtual OnClickBegin, OnResize, Update ...) is looked up in the record's
-- virtual table `r.vt`, one per type, inheriting from its base type's.
local error, type, tostring, setmetatable, ipairs, pairs = error, type, tostring, setmetatable, ipairs, pairs
local mfloor, mmax, mmin, mtype = math.floor, math.max, math.min, math.type
local tremove, tinsert, tsort = table.remove, table.insert, table.sort
local sformat = string.format
local REC = E.REC
local config = E.host.config
local MX = E.MATH
local f32, toint, cround = MX.f32, MX.toint, MX.cround

local INT_MAX = 2147483647
local HA_LEFT, HA_CENTER, HA_RIGHT, HA_CUSTOM = 0, 1, 2, 3
local VA_TOP, VA_CENTER, VA_BOTTOM, VA_CUSTOM = 0, 1, 2, 3
local LM_FREE, LM_HORIZONTAL, LM_VERTICAL = 0, 1, 2
local FM_FOCUSABLE = 2
local TM_DEPTH_FIRST = 1
-- Urho3D has no limit; a hostile game could otherwise nest elements until the engine's recursion fails.
local MAX_DEPTH = 1000
E.UI_MAX_DEPTH = MAX_DEPTH

local function clamp(v, lo, hi)
  if v < lo then return lo end
  if v > hi then return hi end
  return v
end
E.ui_clamp = clamp

----------------------------------------------------------------------------------------------------
-- Virtual tables: Urho3D's virtual UIElement members, overridden per widget type
----------------------------------------------------------------------------------------------------
local VT = {}
E.UI_VT = VT
local BASE_VT = {IsWheelHandler = false}
VT.UIElement = BASE_VT
local function vt(type_name)
  local t = VT[type_name]
  if t then return t end
  local decl = E.REGISTRY.classes[type_name]
  local base = decl and decl.base
  local parent = BASE_VT
  if base and base ~= "Animatable" and E.REGISTRY.classes[base] then parent = vt(base) end
  t = setmetatable({}, {__index = parent})
  VT[type_name] = t
  return t
end
E.ui_vt = vt

----------------------------------------------------------------------------------------------------
-- Elements
----------------------------------------------------------------------------------------------------
local UI_FACTORIES = {}   -- type name -> function(record) setting the type's own fields (bases first)
E.UI_FACTORIES = UI_FACTORIES
local function new_record(type_name, proxy)
  return {kind = "ui", type_name = type_name, proxy = proxy, vt = vt(type_name), name = "", children = {},
    x = 0, y = 0, w = 0, h = 0, min_w = 0, min_h = 0, max_w = INT_MAX, max_h = INT_MAX,
    amin_x = 0.0, amin_y = 0.0, amax_x = 0.0, amax_y = 0.0, pivot_x = 0.0, pivot_y = 0.0, pivot_set = false,
    enable_anchor = false, min_off_x = 0, min_off_y = 0, max_off_x = 0, max_off_y = 0,
    child_off_x = 0, child_off_y = 0,
    visible = true, enabled = false, enabled_prev = false, editable = true, selected = false, hovering = false,
    internal = false, focus_mode = 0, drag_drop_mode = 0, priority = 0, bring_to_front = false,
    bring_to_back = true, clip = false, cb_l = 0, cb_t = 0, cb_r = 0, cb_b = 0, sort_children = true,
    sort_dirty = false, opacity = 1.0, use_derived_opacity = true, colors = nil,
    layout = LM_FREE, spacing = 0, lb_l = 0, lb_t = 0, lb_r = 0, lb_b = 0, flex_x = 1.0, flex_y = 1.0,
    lmin_w = 0, lmin_h = 0, layout_nest = 0, resize_nest = 0, layout_max = 0,
    indent = 0, indent_spacing = 16, traversal = 0, event_sender = false, vars = {}, var_order = {},
    style = "", drag_combo = 0, drag_count = 0}
end
local function new_element(type_name)
  local impl = IMPL[type_name]
  if impl == nil or UI_FACTORIES[type_name] == nil then
    if E.REGISTRY.classes[type_name] then return E.missing(type_name) end
    E.log("ERROR", "Could not create unknown UI element type " .. tostring(type_name))
    return nil
  end
  local proxy = setmetatable({}, impl.mt)
  local r = new_record(type_name, proxy)
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
-- The record of an optional element argument (nil stays nil).
local function opt_rec(v)
  if v == nil then return nil end
  local r = REC[v]
  if r == nil or r.kind ~= "ui" then error("a UIElement was expected", 3) end
  return r
end
E.ui_opt_rec = opt_rec

-- Event data helpers: a null element pointer is a Ptr variant holding nil, as Urho3D sends it.
local function ptr(r)
  if r == nil then return E.Variant_new("Ptr", nil) end
  return r.proxy
end
E.ui_ptr = ptr
-- Send an element's event: its internal listeners first (the widget that owns it subscribed when it was made,
-- before any game handler could), then the event bus with the element as sender.
local function emit(r, name, fields)
  local hooks = r.hooks
  if hooks then
    local list = hooks[name]
    if list then
      for i = 1, #list do list[i](r, fields) end
    end
  end
  E.send_event(name, fields, r.proxy)
end
E.ui_emit = emit
local function hook(r, name, fn)
  r.hooks = r.hooks or {}
  local list = r.hooks[name]
  if list == nil then list = {}; r.hooks[name] = list end
  list[#list + 1] = fn
end
E.ui_hook = hook

----------------------------------------------------------------------------------------------------
-- Screen positions
----------------------------------------------------------------------------------------------------
-- Round to the nearest float32 without a string round trip, for the layout's hot loop: the number is added to
-- and taken from a double whose precision at that magnitude is exactly float32's (round half to even, as the
-- FPU does).  Exact for normal float32 magnitudes; anything else goes through MATH.f32.
local TWO_24 = 16777216.0
local function f32_fast(x)
  local a = x < 0 and -x or x
  if a < 0.0009765625 or a >= TWO_24 then
    if x == 0 then return 0.0 end
    return f32(x)
  end
  local p = 1.0
  if a >= 1.0 then
    while p * 2.0 <= a do p = p * 2.0 end
  else
    while p > a do p = p * 0.5 end
  end
  local c = p * 805306368.0   -- 1.5 * 2^29 * p: a double whose unit in the last place is float32's 2^-23 * p
  return (x + c) - c
end
E.ui_f32_fast = f32_fast
local function trunc(v)
  if v >= 0 then return mfloor(v) end
  return -mfloor(-v)
end
-- (int)Lerp(0.0f, (float)size, t) and (int)(size * pivot): float arithmetic, C truncation.
local function fmul(size, t)
  if t == 0.0 then return 0 end
  return trunc(f32(size * f32(t)))
end
local screen_xy
-- The screen position of child `c` of `p`, whose screen position is (psx, psy).
local function child_screen(p, psx, psy, c)
  local own = c.vt.ScreenPosition
  if own then return own(c) end
  return psx + fmul(p.w, c.amin_x) - fmul(c.w, c.pivot_x) + c.x + p.child_off_x,
    psy + fmul(p.h, c.amin_y) - fmul(c.h, c.pivot_y) + c.y + p.child_off_y
end
E.ui_child_screen = child_screen
function screen_xy(r)
  local own = r.vt.ScreenPosition
  if own then return own(r) end
  local p = r.parent
  if p == nil then return r.x, r.y end
  local px, py = screen_xy(p)
  return child_screen(p, px, py, r)
end
E.ui_screen = screen_xy
local function screen_to_element(r, sx, sy)
  local own = r.vt.ScreenToElement
  if own then return own(r, sx, sy) end
  local x, y = screen_xy(r)
  return sx - x, sy - y
end
E.ui_screen_to_element = screen_to_element
local function element_to_screen(r, ex, ey)
  local own = r.vt.ElementToScreen
  if own then return own(r, ex, ey) end
  local x, y = screen_xy(r)
  return ex + x, ey + y
end
E.ui_element_to_screen = element_to_screen
local function is_inside(r, x, y, is_screen)
  if is_screen then x, y = screen_to_element(r, x, y) end
  return x >= 0 and y >= 0 and x < r.w and y < r.h
end
E.ui_is_inside = is_inside
local function combined_rect(r)
  local x, y = screen_xy(r)
  local l, t, rt, b = x, y, x + r.w, y + r.h
  if not r.clip then
    for _, c in ipairs(r.children) do
      local cl, ct, cr, cb = combined_rect(c)
      if cl < l then l = cl end
      if cr > rt then rt = cr end
      if ct < t then t = ct end
      if cb > b then b = cb end
    end
  end
  return l, t, rt, b
end
E.ui_combined_rect = combined_rect
local function is_inside_combined(r, x, y, is_screen)
  if r.clip then return is_inside(r, x, y, is_screen) end
  if not is_screen then x, y = element_to_screen(r, x, y) end
  local l, t, rt, b = combined_rect(r)
  return x >= l and y >= t and x < rt and y < b
end
E.ui_is_inside_combined = is_inside_combined

local function visible_effective(r)
  while r do
    if not r.visible then return false end
    r = r.parent
  end
  return true
end
E.ui_visible_effective = visible_effective
local function root_of(r)
  while r.parent do r = r.parent end
  return r
end
E.ui_root_of = root_of

----------------------------------------------------------------------------------------------------
-- Alignment: anchors and pivot, as Urho3D 1.8 keeps them
----------------------------------------------------------------------------------------------------
local function h_align(r)
  local a, b, p = r.amin_x, r.amax_x, r.pivot_x
  if a == 0.0 and b == 0.0 and (not r.pivot_set or p == 0.0) then return HA_LEFT end
  if a == 0.5 and b == 0.5 and (not r.pivot_set or p == 0.5) then return HA_CENTER end
  if a == 1.0 and b == 1.0 and (not r.pivot_set or p == 1.0) then return HA_RIGHT end
  return HA_CUSTOM
end
local function v_align(r)
  local a, b, p = r.amin_y, r.amax_y, r.pivot_y
  if a == 0.0 and b == 0.0 and (not r.pivot_set or p == 0.0) then return VA_TOP end
  if a == 0.5 and b == 0.5 and (not r.pivot_set or p == 0.5) then return VA_CENTER end
  if a == 1.0 and b == 1.0 and (not r.pivot_set or p == 1.0) then return VA_BOTTOM end
  return VA_CUSTOM
end
E.ui_h_align, E.ui_v_align = h_align, v_align
local update_anchoring
local function set_h_align(r, align)
  if align ~= HA_LEFT and r.parent and r.parent.layout == LM_HORIZONTAL then
    E.log("WARNING", "Forcing left alignment because parent element has horizontal layout")
    align = HA_LEFT
  end
  local mn, mx, pv = r.amin_x, r.amax_x, r.pivot_x
  local size = mx - mn
  if align == HA_CENTER then mn, pv = 0.5, 0.5
  elseif align == HA_LEFT then mn, pv = 0.0, 0.0
  elseif align == HA_RIGHT then mn, pv = 1.0, 1.0 end
  mx = r.enable_anchor and (mn + size) or mn
  if mn ~= r.amin_x or mx ~= r.amax_x or pv ~= r.pivot_x then
    r.amin_x, r.amax_x, r.pivot_x = mn, mx, pv
    if r.enable_anchor then update_anchoring(r) end
  end
end
local function set_v_align(r, align)
  if align ~= VA_TOP and r.parent and r.parent.layout == LM_VERTICAL then
    E.log("WARNING", "Forcing top alignment because parent element has vertical layout")
    align = VA_TOP
  end
  local mn, mx, pv = r.amin_y, r.amax_y, r.pivot_y
  local size = mx - mn
  if align == VA_CENTER then mn, pv = 0.5, 0.5
  elseif align == VA_TOP then mn, pv = 0.0, 0.0
  elseif align == VA_BOTTOM then mn, pv = 1.0, 1.0 end
  mx = r.enable_anchor and (mn + size) or mn
  if mn ~= r.amin_y or mx ~= r.amax_y or pv ~= r.pivot_y then
    r.amin_y, r.amax_y, r.pivot_y = mn, mx, pv
    if r.enable_anchor then update_anchoring(r) end
  end
end
E.ui_set_h_align, E.ui_set_v_align = set_h_align, set_v_align
-- UIElement::VerifyChildAlignment: re-apply each child's alignment (a layout forces left / top).  The calls
-- are skipped for a child they cannot change: aligned left-top with a zero pivot and no anchor extent.
local function verify_child_alignment(r)
  for _, c in ipairs(r.children) do
    if c.amin_x ~= 0.0 or c.amax_x ~= 0.0 or c.pivot_x ~= 0.0 or c.amin_y ~= 0.0 or c.amax_y ~= 0.0
        or c.pivot_y ~= 0.0 then
      set_h_align(c, h_align(c))
      set_v_align(c, v_align(c))
    end
  end
end

----------------------------------------------------------------------------------------------------
-- Position, size, layout (UIElement::SetPosition, SetSize, UpdateLayout, CalculateLayout)
----------------------------------------------------------------------------------------------------
local function set_position(r, x, y)
  x, y = toint(x), toint(y)
  if x == r.x and y == r.y then return end
  r.x, r.y = x, y
  local on = r.vt.OnPositionSet
  if on then on(r, x, y) end
  emit(r, "Positioned", {Element = r.proxy, X = x, Y = y})
end
E.ui_set_position = set_position
local function is_fixed_size(r) return r.min_w == r.max_w and r.min_h == r.max_h end
local function effective_min(r)
  if is_fixed_size(r) or r.layout == LM_FREE or (r.lmin_w == 0 and r.lmin_h == 0) then return r.min_w, r.min_h end
  return mmax(r.min_w, r.lmin_w), mmax(r.min_h, r.lmin_h)
end
E.ui_effective_min = effective_min
local update_layout
local function set_size(r, w, h)
  w, h = toint(w), toint(h)
  r.resize_nest = r.resize_nest + 1
  local ow, oh = r.w, r.h
  local mw, mh = effective_min(r)
  -- Clamp(value, min, max): the min wins when max < min, as in Urho3D's Clamp
  local vw = w < mw and mw or (w > r.max_w and r.max_w or w)
  local vh = h < mh and mh or (h > r.max_h and r.max_h or h)
  if vw ~= ow or vh ~= oh then
    r.w, r.h = vw, vh
    if r.resize_nest == 1 then
      if r.parent then update_layout(r.parent) end
      local dx, dy = r.w - ow, r.h - oh
      local on = r.vt.OnResize
      if on then on(r, r.w, r.h, dx, dy) end
      update_layout(r)
      emit(r, "Resized", {Element = r.proxy, Width = r.w, Height = r.h, DX = dx, DY = dy})
    end
  end
  r.resize_nest = r.resize_nest - 1
end
E.ui_set_size = set_size
local function set_min_size(r, w, h)
  r.min_w, r.min_h = mmax(toint(w), 0), mmax(toint(h), 0)
  set_size(r, r.w, r.h)
end
local function set_max_size(r, w, h)
  r.max_w, r.max_h = mmax(toint(w), 0), mmax(toint(h), 0)
  set_size(r, r.w, r.h)
end
local function set_fixed_size(r, w, h)
  w, h = mmax(toint(w), 0), mmax(toint(h), 0)
  r.min_w, r.max_w, r.min_h, r.max_h = w, w, h, h
  set_size(r, w, h)
end
local function set_fixed_width(r, w)
  w = mmax(toint(w), 0)
  r.min_w, r.max_w = w, w
  set_size(r, w, r.h)
end
local function set_fixed_height(r, h)
  h = mmax(toint(h), 0)
  r.min_h, r.max_h = h, h
  set_size(r, r.w, h)
end
E.ui_set_min_size, E.ui_set_max_size, E.ui_set_fixed_size = set_min_size, set_max_size, set_fixed_size
E.ui_set_fixed_width, E.ui_set_fixed_height = set_fixed_width, set_fixed_height

function update_anchoring(r)
  local p = r.parent
  if p and r.enable_anchor then
    local nw = trunc(f32(p.w * clamp(f32(r.amax_x - r.amin_x), 0.0, 1.0))) + r.max_off_x - r.min_off_x
    local nh = trunc(f32(p.h * clamp(f32(r.amax_y - r.amin_y), 0.0, 1.0))) + r.max_off_y - r.min_off_y
    if r.x ~= r.min_off_x or r.y ~= r.min_off_y then set_position(r, r.min_off_x, r.min_off_y) end
    if r.w ~= nw or r.h ~= nh then set_size(r, nw, nh) end
  end
end
E.ui_update_anchoring = update_anchoring

local function indent_width(r) return r.indent * r.indent_spacing end
E.ui_indent_width = indent_width
local function parent_size(sizes, first, last, spacing)
  local total = first + last
  if #sizes == 0 then return total end
  for _, s in ipairs(sizes) do
    if s == INT_MAX then return INT_MAX end
    total = total + s + spacing
  end
  return total - spacing
end
-- Distribute `target` pixels over the children (UIElement::CalculateLayout), float32 arithmetic included.
local function calculate_layout(r, positions, sizes, mins, maxs, flex, target, first, last, spacing)
  local n = #sizes
  if n == 0 then return end
  local total = target - first - last - (n - 1) * spacing
  if total < 0 then total = 0 end
  local child = total // n
  local remainder = total % n
  local add = f32_fast(remainder / n)
  local acc = 0.0
  for i = 1, n do
    local fl = flex[i]
    local size = fl == 1.0 and child or trunc(f32(child * f32(fl)))
    if remainder ~= 0 then
      acc = f32_fast(acc + add)
      if acc >= 0.5 then
        acc = f32_fast(acc - 1.0)
        size = size + 1
        remainder = remainder - 1
      end
    end
    sizes[i] = clamp(size, mins[i], maxs[i])
  end
  while true do
    local actual = 0
    for i = 1, n do actual = actual + sizes[i] end
    local err = total - actual
    if err == 0 then break end
    local resizable = {}
    for i = 1, n do
      if err < 0 and sizes[i] > mins[i] then resizable[#resizable + 1] = i
      elseif err > 0 and sizes[i] < maxs[i] then resizable[#resizable + 1] = i end
    end
    if #resizable == 0 then break end
    local count = #resizable
    local per = MX.cdiv(err, count)
    remainder = (err < 0 and -err or err) % count
    add = f32_fast(remainder / count)
    acc = 0.0
    for _, index in ipairs(resizable) do
      local size = sizes[index] + per
      if remainder ~= 0 then
        acc = f32_fast(acc + add)
        if acc >= 0.5 then
          acc = f32_fast(acc - 1.0)
          size = err < 0 and size - 1 or size + 1
          remainder = remainder - 1
        end
      end
      sizes[index] = clamp(size, mins[index], maxs[index])
    end
  end
  r.layout_max = 0
  local pos = first
  for i = 1, n do
    positions[i] = pos
    pos = pos + sizes[i] + spacing
    if sizes[i] > r.layout_max then r.layout_max = sizes[i] end
  end
end
function update_layout(r)
  if r.layout_nest > 0 then return end
  r.layout_nest = r.layout_nest + 1
  local base_indent = indent_width(r)
  if r.layout == LM_HORIZONTAL or r.layout == LM_VERTICAL then
    local horizontal = r.layout == LM_HORIZONTAL
    local positions, sizes, mins, maxs, flex, kids = {}, {}, {}, {}, {}, {}
    local min_across = 0
    local n = 0
    for _, c in ipairs(r.children) do
      if c.visible then
        local mw, mh = c.min_w, c.min_h
        if c.layout ~= LM_FREE then mw, mh = effective_min(c) end
        n = n + 1
        kids[n] = c
        local indent = c.indent * c.indent_spacing
        if horizontal then
          positions[n] = base_indent
          sizes[n] = c.w + indent
          mins[n] = mw + indent
          maxs[n] = c.max_w + indent
          flex[n] = c.flex_x
          if mh > min_across then min_across = mh end
        else
          positions[n] = 0
          sizes[n] = c.h
          mins[n] = mh
          maxs[n] = c.max_h
          flex[n] = c.flex_y
          if mw + indent > min_across then min_across = mw + indent end
        end
      end
    end
    local w, h
    if horizontal then
      calculate_layout(r, positions, sizes, mins, maxs, flex, r.w, r.lb_l, r.lb_r, r.spacing)
      w = parent_size(sizes, r.lb_l, r.lb_r, r.spacing)
      h = mmax(r.h, min_across + r.lb_t + r.lb_b)
      r.lmin_w, r.lmin_h = parent_size(mins, r.lb_l, r.lb_r, r.spacing), min_across + r.lb_t + r.lb_b
    else
      calculate_layout(r, positions, sizes, mins, maxs, flex, r.h, r.lb_t, r.lb_b, r.spacing)
      h = parent_size(sizes, r.lb_t, r.lb_b, r.spacing)
      w = mmax(r.w, min_across + r.lb_l + r.lb_r)
      r.lmin_w, r.lmin_h = min_across + r.lb_l + r.lb_r, parent_size(mins, r.lb_t, r.lb_b, r.spacing)
    end
    set_size(r, w, h)
    w, h = r.w, r.h
    local across_w, across_h = w - r.lb_l - r.lb_r, h - r.lb_t - r.lb_b
    for j, c in ipairs(kids) do
      local x, y, cw, ch
      if horizontal then
        local va = (c.amin_y == 0.0 and c.amax_y == 0.0 and c.pivot_y == 0.0) and VA_TOP or v_align(c)
        y = va == VA_TOP and r.lb_t or (va == VA_BOTTOM and -r.lb_b or 0)
        x, cw, ch = positions[j], sizes[j], across_h
      else
        local ha = (c.amin_x == 0.0 and c.amax_x == 0.0 and c.pivot_x == 0.0) and HA_LEFT or h_align(c)
        x = (ha == HA_LEFT and r.lb_l or (ha == HA_RIGHT and -r.lb_r or 0)) + base_indent
        y, cw, ch = positions[j], across_w, sizes[j]
      end
      if c.x ~= x or c.y ~= y then set_position(c, x, y) end
      if c.w ~= cw or c.h ~= ch then set_size(c, cw, ch) end
    end
  else
    for _, c in ipairs(r.children) do
      if c.enable_anchor then update_anchoring(c) end
    end
  end
  emit(r, "LayoutUpdated", {Element = r.proxy})
  r.layout_nest = r.layout_nest - 1
end
E.ui_update_layout = update_layout

----------------------------------------------------------------------------------------------------
-- Visibility, focus, priorities
----------------------------------------------------------------------------------------------------
local function set_visible(r, v)
  v = v and true or false
  if v == r.visible then return end
  r.visible = v
  if r.parent then update_layout(r.parent) end
  emit(r, "VisibleChanged", {Element = r.proxy, Visible = v})
  if not v then
    local f = E.ui_state.focus
    if f and not visible_effective(f) then E.ui_set_focus(f, false) end
  end
end
E.ui_set_visible = set_visible
local function set_priority(r, p)
  p = toint(p)
  if r.priority == p then return end
  r.priority = p
  if r.parent then r.parent.sort_dirty = true end
end
E.ui_set_priority = set_priority
-- UIElement::SortChildren: a stable sort by priority, only without a layout.
local function sort_children(r)
  if r.sort_children and r.sort_dirty then
    if r.layout == LM_FREE then
      local kids = r.children
      local order = {}
      for i, c in ipairs(kids) do order[c] = i end
      tsort(kids, function(a, b)
        if a.priority ~= b.priority then return a.priority < b.priority end
        return order[a] < order[b]
      end)
    end
    r.sort_dirty = false
  end
end
E.ui_sort_children = sort_children
local function bring_to_front(r)
  local root = root_of(r)
  local top = r
  while top and top.parent ~= root do top = top.parent end
  if top == nil or top == root or not top.bring_to_front then return end
  local used, max_p = {}, nil
  for _, other in ipairs(root.children) do
    if other.enabled and other.bring_to_back and other ~= top and other.priority ~= INT_MAX then
      used[other.priority] = true
      if max_p == nil or other.priority > max_p then max_p = other.priority end
    end
  end
  if max_p ~= nil and max_p >= top.priority then
    set_priority(top, max_p)
    local min_p = max_p
    while used[min_p] do min_p = min_p - 1 end
    for _, other in ipairs(root.children) do
      local p = other.priority
      if other.enabled and other.bring_to_back and other ~= top and p >= min_p and p <= max_p then
        set_priority(other, p - 1)
      end
    end
  end
end
E.ui_bring_to_front = bring_to_front

----------------------------------------------------------------------------------------------------
-- The tree
----------------------------------------------------------------------------------------------------
local function event_sender(r)
  if r.event_sender then return r end
  while r.parent do
    r = r.parent
    if r.event_sender then return r end
  end
  return r
end
local function depth_of(r)
  local d = 0
  while r.parent do d, r = d + 1, r.parent end
  return d
end
local function height_of(r)
  local h = 0
  for _, c in ipairs(r.children) do
    local ch = height_of(c) + 1
    if ch > h then h = ch end
  end
  return h
end
local remove_child
local function insert_child(p, index, c)
  if c == nil or c == p or c.parent == p then return end
  local a = p.parent
  while a do
    if a == c then return end
    a = a.parent
  end
  if depth_of(p) + 1 + (#c.children > 0 and height_of(c) or 0) > MAX_DEPTH then
    error(sformat("UI element tree deeper than %d levels", MAX_DEPTH), 0)
  end
  local kids = p.children
  if index == nil or index < 0 or index >= #kids then kids[#kids + 1] = c
  else tinsert(kids, index + 1, c) end
  if c.parent then remove_child(c.parent, c, 0, true) end
  if p.sort_children then p.sort_dirty = true end
  c.parent = p
  if E.ui_apply_style_recursive then E.ui_apply_style_recursive(c) end
  verify_child_alignment(p)
  update_layout(p)
  local sender = event_sender(p)
  if E.has_subscribers("ElementAdded") then
    E.send_event("ElementAdded", {Root = root_of(p).proxy, Parent = p.proxy, Element = c.proxy}, sender.proxy)
  end
end
E.ui_insert_child = insert_child
local function detach(p, i, moving)
  local c = p.children[i]
  if E.has_subscribers("ElementRemoved") then
    E.send_event("ElementRemoved", {Root = root_of(p).proxy, Parent = p.proxy, Element = c.proxy},
      event_sender(p).proxy)
  end
  -- the event handlers may have moved things: find the child again
  for j, x in ipairs(p.children) do
    if x == c then tremove(p.children, j); break end
  end
  c.parent = nil
  if not moving and E.ui_on_detached then E.ui_on_detached(c) end
end
function remove_child(p, c, start, moving)
  -- the search starts at an unsigned index in Urho3D: a negative one is past the end there (nothing is found),
  -- and must not make the engine count up from -2^31
  start = start or 0
  if not (start >= 0) then return end
  for i = start + 1, #p.children do
    if p.children[i] == c then
      detach(p, i, moving)
      update_layout(p)
      return
    end
  end
end
E.ui_remove_child = remove_child
local function remove_all_children(p)
  while #p.children > 0 do detach(p, 1) end
  update_layout(p)
end
E.ui_remove_all_children = remove_all_children
-- An internal child made by a widget's constructor: added without events, as CreateChild does before any
-- handler can exist.
local function internal_child(parent, type_name, name)
  local proxy, c = new_element(type_name)
  c.internal = true
  if name then c.name = name end
  c.parent = parent
  parent.children[#parent.children + 1] = c
  if parent.sort_children then parent.sort_dirty = true end
  return proxy, c
end
E.ui_internal_child = internal_child

local function var_key(k)
  if type(k) == "string" then return k end
  if E.is(k, "StringHash") then return k.name_ or k.value_ end
  if type(k) ~= "number" or k ~= k then
    E.raise_at_game(sformat("bad argument #1 (a variable's name: StringHash or string expected, got %s)", type(k)))
  end
  return k
end
E.ui_var_key = var_key
local function set_var(r, k, v)
  k = var_key(k)
  if r.vars[k] == nil then r.var_order[#r.var_order + 1] = k end
  r.vars[k] = v
end
E.ui_set_var = set_var
local function erase_var(r, k)
  k = var_key(k)
  if r.vars[k] == nil then return end
  r.vars[k] = nil
  for i, x in ipairs(r.var_order) do if x == k then tremove(r.var_order, i); break end end
end
E.ui_erase_var = erase_var

----------------------------------------------------------------------------------------------------
-- UIElement's API
----------------------------------------------------------------------------------------------------
local UIE = class("UIElement")
UI_FACTORIES.UIElement = function() end
UIE.new = function() return (new_element("UIElement")) end
local M = UIE.methods
local function xy(a, b)
  if type(a) == "number" then return a, b end
  return a.x, a.y
end
local function ivec2(x, y) return E.IntVector2_new(x, y) end
local function irect(l, t, r, b) return E.IntRect_new(l, t, r, b) end

M.SetName = function(self, n)
  local r = urec(self)
  r.name = tostring(n)
  emit(r, "NameChanged", {Element = self})
end
M.GetName = function(self) return urec(self).name end
M.SetPosition = function(self, a, b) set_position(urec(self), xy(a, b)) end
M.GetPosition = function(self) local r = urec(self); return ivec2(r.x, r.y) end
M.SetSize = function(self, a, b) set_size(urec(self), xy(a, b)) end
M.GetSize = function(self) local r = urec(self); return ivec2(r.w, r.h) end
M.SetWidth = function(self, w) local r = urec(self); set_size(r, w, r.h) end
M.SetHeight = function(self, h) local r = urec(self); set_size(r, r.w, h) end
M.GetWidth = function(self) return urec(self).w end
M.GetHeight = function(self) return urec(self).h end
M.SetMinSize = function(self, a, b) set_min_size(urec(self), xy(a, b)) end
M.SetMinWidth = function(self, w) local r = urec(self); set_min_size(r, w, r.min_h) end
M.SetMinHeight = function(self, h) local r = urec(self); set_min_size(r, r.min_w, h) end
M.GetMinSize = function(self) local r = urec(self); return ivec2(r.min_w, r.min_h) end
M.GetMinWidth = function(self) return urec(self).min_w end
M.GetMinHeight = function(self) return urec(self).min_h end
M.SetMaxSize = function(self, a, b) set_max_size(urec(self), xy(a, b)) end
M.SetMaxWidth = function(self, w) local r = urec(self); set_max_size(r, w, r.max_h) end
M.SetMaxHeight = function(self, h) local r = urec(self); set_max_size(r, r.max_w, h) end
M.GetMaxSize = function(self) local r = urec(self); return ivec2(r.max_w, r.max_h) end
M.GetMaxWidth = function(self) return urec(self).max_w end
M.GetMaxHeight = function(self) return urec(self).max_h end
M.SetFixedSize = function(self, a, b) set_fixed_size(urec(self), xy(a, b)) end
M.SetFixedWidth = function(self, w) set_fixed_width(urec(self), w) end
M.SetFixedHeight = function(self, h) set_fixed_height(urec(self), h) end
M.IsFixedSize = function(self) return is_fixed_size(urec(self)) end
M.IsFixedWidth = function(self) local r = urec(self); return r.min_w == r.max_w end
M.IsFixedHeight = function(self) local r = urec(self); return r.min_h == r.max_h end
M.SetAlignment = function(self, ha, va)
  local r = urec(self)
  set_h_align(r, ha)
  set_v_align(r, va)
end
M.SetHorizontalAlignment = function(self, a) set_h_align(urec(self), a) end
M.SetVerticalAlignment = function(self, a) set_v_align(urec(self), a) end
M.GetHorizontalAlignment = function(self) return h_align(urec(self)) end
M.GetVerticalAlignment = function(self) return v_align(urec(self)) end
M.SetEnableAnchor = function(self, v)
  local r = urec(self)
  r.enable_anchor = v and true or false
  if r.enable_anchor then update_anchoring(r) end
end
M.GetEnableAnchor = function(self) return urec(self).enable_anchor end
local function anchor_setter(kx, ky)
  return function(self, a, b)
    local r = urec(self)
    local x, y = xy(a, b)
    x, y = x + 0.0, y + 0.0
    if x == r[kx] and y == r[ky] then return end
    r[kx], r[ky] = x, y
    if r.enable_anchor then update_anchoring(r) end
  end
end
M.SetMinAnchor = anchor_setter("amin_x", "amin_y")
M.SetMaxAnchor = anchor_setter("amax_x", "amax_y")
M.GetMinAnchor = function(self) local r = urec(self); return E.Vector2_new(r.amin_x, r.amin_y) end
M.GetMaxAnchor = function(self) local r = urec(self); return E.Vector2_new(r.amax_x, r.amax_y) end
local function offset_setter(kx, ky)
  return function(self, v)
    local r = urec(self)
    if v.x == r[kx] and v.y == r[ky] then return end
    r[kx], r[ky] = toint(v.x), toint(v.y)
    if r.enable_anchor then update_anchoring(r) end
  end
end
M.SetMinOffset = offset_setter("min_off_x", "min_off_y")
M.SetMaxOffset = offset_setter("max_off_x", "max_off_y")
M.GetMinOffset = function(self) local r = urec(self); return ivec2(r.min_off_x, r.min_off_y) end
M.GetMaxOffset = function(self) local r = urec(self); return ivec2(r.max_off_x, r.max_off_y) end
M.SetPivot = function(self, a, b)
  local r = urec(self)
  local x, y = xy(a, b)
  if x == r.pivot_x and y == r.pivot_y then return end
  r.pivot_set = true
  r.pivot_x, r.pivot_y = x + 0.0, y + 0.0
end
M.GetPivot = function(self) local r = urec(self); return E.Vector2_new(r.pivot_x, r.pivot_y) end
-- UrhoX's element scale and rotation are kept as state; they do not change layout or hit-testing here.
M.SetScale = function(self, a, b)
  local r = urec(self)
  if type(a) == "number" and b == nil then b = a end
  r.scale_x, r.scale_y = xy(a, b)
end
M.GetScale = function(self) local r = urec(self); return E.Vector2_new(r.scale_x or 1.0, r.scale_y or 1.0) end
M.SetRotate = function(self, angle) urec(self).rotate = angle + 0.0 end
M.GetRotate = function(self) return urec(self).rotate or 0.0 end
M.SetClipBorder = function(self, rc)
  local r = urec(self)
  r.cb_l, r.cb_t, r.cb_r, r.cb_b = mmax(rc.left, 0), mmax(rc.top, 0), mmax(rc.right, 0), mmax(rc.bottom, 0)
end
M.GetClipBorder = function(self) local r = urec(self); return irect(r.cb_l, r.cb_t, r.cb_r, r.cb_b) end
local function color_copy(c) return E.Color_new(c.r, c.g, c.b, c.a) end
M.SetColor = function(self, a, b)
  local r = urec(self)
  if b == nil then
    local c = color_copy(a)
    r.colors = {[0] = c, c, c, c}
    r.color_gradient = false
  else
    r.colors = r.colors or {[0] = E.Color_new(1, 1, 1, 1), E.Color_new(1, 1, 1, 1), E.Color_new(1, 1, 1, 1),
      E.Color_new(1, 1, 1, 1)}
    r.colors[a] = color_copy(b)
    local g = false
    for i = 0, 3 do
      local x = r.colors[i]
      if i ~= a and (x.r ~= b.r or x.g ~= b.g or x.b ~= b.b or x.a ~= b.a) then g = true end
    end
    r.color_gradient = g
  end
end
M.GetColor = function(self, corner)
  local r = urec(self)
  local c = r.colors and r.colors[corner or 0]
  if c == nil then return E.Color_new(1, 1, 1, 1) end
  return color_copy(c)
end
M.HasColorGradient = function(self) return urec(self).color_gradient == true end
M.SetPriority = function(self, p) set_priority(urec(self), p) end
M.GetPriority = function(self) return urec(self).priority end
M.SetOpacity = function(self, o) urec(self).opacity = clamp(o + 0.0, 0.0, 1.0) end
M.GetOpacity = function(self) return urec(self).opacity end
local function derived_opacity(r)
  if not r.use_derived_opacity then return r.opacity end
  local o = r.opacity
  local p = r.parent
  while p do
    o = f32(o * p.opacity)
    p = p.parent
  end
  return o
end
M.GetDerivedOpacity = function(self) return derived_opacity(urec(self)) end
M.GetDerivedColor = function(self)
  local r = urec(self)
  local c = r.colors and r.colors[0] or E.Color_new(1, 1, 1, 1)
  return E.Color_new(c.r, c.g, c.b, c.a * derived_opacity(r))
end
local function flag(key)
  return function(self, v) urec(self)[key] = v and true or false end, function(self) return urec(self)[key] end
end
M.SetBringToFront, M.GetBringToFront = flag("bring_to_front")
M.SetBringToBack, M.GetBringToBack = flag("bring_to_back")
M.SetClipChildren, M.GetClipChildren = flag("clip")
M.SetUseDerivedOpacity, M.GetUseDerivedOpacity = flag("use_derived_opacity")
M.SetInternal, M.IsInternal = flag("internal")
M.SetElementEventSender, M.IsElementEventSender = flag("event_sender")
M.SetHovering, M.IsHovering = flag("hovering")
M.SetSelected, M.IsSelected = flag("selected")
M.SetSortChildren = function(self, v)
  local r = urec(self)
  v = v and true or false
  if not r.sort_children and v then r.sort_dirty = true end
  r.sort_children = v
end
M.GetSortChildren = function(self) return urec(self).sort_children end
M.SetEnabled = function(self, v)
  local r = urec(self)
  r.enabled = v and true or false
  r.enabled_prev = r.enabled
end
local function deep_enabled(r, v)
  r.enabled = v
  for _, c in ipairs(r.children) do deep_enabled(c, v) end
end
E.ui_deep_enabled = deep_enabled
local function reset_deep_enabled(r)
  r.enabled = r.enabled_prev
  for _, c in ipairs(r.children) do reset_deep_enabled(c) end
end
E.ui_reset_deep_enabled = reset_deep_enabled
local function enabled_recursive(r, v)
  r.enabled, r.enabled_prev = v, v
  for _, c in ipairs(r.children) do enabled_recursive(c, v) end
end
M.SetDeepEnabled = function(self, v) deep_enabled(urec(self), v and true or false) end
M.ResetDeepEnabled = function(self) reset_deep_enabled(urec(self)) end
M.SetEnabledRecursive = function(self, v) enabled_recursive(urec(self), v and true or false) end
M.IsEnabled = function(self) return urec(self).enabled end
M.IsEnabledSelf = function(self) return urec(self).enabled_prev end
M.SetEditable = function(self, v)
  local r = urec(self)
  r.editable = v and true or false
  local on = r.vt.OnSetEditable
  if on then on(r) end
end
M.IsEditable = function(self) return urec(self).editable end
M.SetFocusMode = function(self, m) urec(self).focus_mode = m end
M.GetFocusMode = function(self) return urec(self).focus_mode end
M.SetFocus = function(self, v) E.ui_set_focus(urec(self), v) end
M.HasFocus = function(self) return E.ui_state.focus == urec(self) end
M.SetVisible = function(self, v) set_visible(urec(self), v) end
M.IsVisible = function(self) return urec(self).visible end
M.IsVisibleEffective = function(self) return visible_effective(urec(self)) end
M.SetDragDropMode = function(self, m) urec(self).drag_drop_mode = m end
M.GetDragDropMode = function(self) return urec(self).drag_drop_mode end
M.GetDragButtonCombo = function(self) return urec(self).drag_combo end
M.GetDragButtonCount = function(self) return urec(self).drag_count end
M.SetLayout = function(self, mode, spacing, border)
  local r = urec(self)
  r.layout = mode
  r.spacing = mmax(toint(spacing or 0), 0)
  if border then
    r.lb_l, r.lb_t, r.lb_r, r.lb_b = mmax(border.left, 0), mmax(border.top, 0), mmax(border.right, 0),
      mmax(border.bottom, 0)
  else
    r.lb_l, r.lb_t, r.lb_r, r.lb_b = 0, 0, 0, 0
  end
  verify_child_alignment(r)
  update_layout(r)
end
M.SetLayoutMode = function(self, mode)
  local r = urec(self)
  r.layout = mode
  verify_child_alignment(r)
  update_layout(r)
end
M.SetLayoutSpacing = function(self, s)
  local r = urec(self)
  r.spacing = mmax(toint(s), 0)
  update_layout(r)
end
M.SetLayoutBorder = function(self, b)
  local r = urec(self)
  r.lb_l, r.lb_t, r.lb_r, r.lb_b = mmax(b.left, 0), mmax(b.top, 0), mmax(b.right, 0), mmax(b.bottom, 0)
  update_layout(r)
end
M.SetLayoutFlexScale = function(self, s)
  local r = urec(self)
  r.flex_x, r.flex_y = mmax(s.x + 0.0, 0.0), mmax(s.y + 0.0, 0.0)
end
M.GetLayoutMode = function(self) return urec(self).layout end
M.GetLayoutSpacing = function(self) return urec(self).spacing end
M.GetLayoutBorder = function(self) local r = urec(self); return irect(r.lb_l, r.lb_t, r.lb_r, r.lb_b) end
M.GetLayoutFlexScale = function(self) local r = urec(self); return E.Vector2_new(r.flex_x, r.flex_y) end
local function on_indent(r)
  if r.parent then update_layout(r.parent) end
  update_layout(r)
  local on = r.vt.OnIndentSet
  if on then on(r) end
end
M.SetIndent = function(self, n) local r = urec(self); r.indent = toint(n); on_indent(r) end
M.SetIndentSpacing = function(self, n) local r = urec(self); r.indent_spacing = mmax(toint(n), 0); on_indent(r) end
M.GetIndent = function(self) return urec(self).indent end
M.GetIndentSpacing = function(self) return urec(self).indent_spacing end
M.GetIndentWidth = function(self) return indent_width(urec(self)) end
M.UpdateLayout = function(self) update_layout(urec(self)) end
M.DisableLayoutUpdate = function(self) local r = urec(self); r.layout_nest = r.layout_nest + 1 end
M.EnableLayoutUpdate = function(self) local r = urec(self); r.layout_nest = r.layout_nest - 1 end
M.BringToFront = function(self) bring_to_front(urec(self)) end
M.SortChildren = function(self) sort_children(urec(self)) end
M.SetChildOffset = function(self, v) local r = urec(self); r.child_off_x, r.child_off_y = toint(v.x), toint(v.y) end
M.GetChildOffset = function(self) local r = urec(self); return ivec2(r.child_off_x, r.child_off_y) end
M.SetTraversalMode = function(self, m) urec(self).traversal = m end
M.GetTraversalMode = function(self) return urec(self).traversal end
M.GetElementEventSender = function(self) return event_sender(urec(self)).proxy end
M.GetScreenPosition = function(self) return ivec2(screen_xy(urec(self))) end
M.ScreenToElement = function(self, p) return ivec2(screen_to_element(urec(self), p.x, p.y)) end
M.ElementToScreen = function(self, p) return ivec2(element_to_screen(urec(self), p.x, p.y)) end
M.IsInside = function(self, p, is_screen) return is_inside(urec(self), p.x, p.y, is_screen) end
M.IsInsideCombined = function(self, p, is_screen) return is_inside_combined(urec(self), p.x, p.y, is_screen) end
M.GetCombinedScreenRect = function(self) return irect(combined_rect(urec(self))) end
M.SetVar = function(self, k, v) set_var(urec(self), k, E.variant_of(v)) end
M.GetVar = function(self, k) return urec(self).vars[var_key(k)] or E.Variant_new("None", nil) end
M.GetVars = function(self)
  local r = urec(self)
  local values = {}
  for _, k in ipairs(r.var_order) do values[k] = r.vars[k] end
  return E.VariantMap_new(values)
end
-- Styles: SetStyle / SetStyleAuto / SetDefaultStyle are in 83_ui_style.lua.
M.GetAppliedStyle = function(self)
  local r = urec(self)
  if r.style == r.type_name then return "" end
  return r.style
end
M.GetDefaultStyle = function(self, recursive_up)
  local r = urec(self)
  if recursive_up == false then return r.default_style end
  while r do
    if r.default_style then return r.default_style end
    r = r.parent
  end
  return nil
end
-- Tags, in the order added
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
  if type(sep) ~= "string" then
    error(sformat("bad argument #2 to 'AddTags' (string expected, got %s)", type(sep)), 2)
  end
  for t in tostring(tags):gmatch("[^" .. sep:gsub("%p", "%%%0") .. "]+") do M.AddTag(self, t) end
end
M.RemoveTag = function(self, tag)
  local r = urec(self)
  for i, t in ipairs(r.tags or {}) do if t == tag then tremove(r.tags, i); return true end end
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
M.CreateChild = function(self, type_name, name, index)
  local parent = urec(self)
  if E.is(type_name, "StringHash") then type_name = type_name.name_ end
  local proxy, r = new_element(type_name or "UIElement")
  if proxy == nil then return nil end
  if name and name ~= "" then M.SetName(proxy, name) end
  insert_child(parent, index, r)
  return proxy
end
M.AddChild = function(self, child) insert_child(urec(self), nil, opt_rec(child)) end
M.InsertChild = function(self, index, child) insert_child(urec(self), index, opt_rec(child)) end
M.RemoveChild = function(self, child, index)
  local c = opt_rec(child)
  if c then remove_child(urec(self), c, index) end
end
M.RemoveChildAtIndex = function(self, index)
  local r = urec(self)
  if index < 0 or index >= #r.children then return end
  detach(r, index + 1)
  update_layout(r)
end
M.RemoveAllChildren = function(self) remove_all_children(urec(self)) end
M.Remove = function(self)
  local r = urec(self)
  if r.parent then remove_child(r.parent, r) end
end
M.SetParent = function(self, parent, index)
  local p = opt_rec(parent)
  if p then insert_child(p, index, urec(self)) end
end
M.FindChild = function(self, child)
  local c = REC[child]
  for i, x in ipairs(urec(self).children) do if x == c then return i - 1 end end
  return 4294967295
end
M.GetParent = function(self) local p = urec(self).parent; return p and p.proxy end
M.GetRoot = function(self) return root_of(urec(self)).proxy end
M.IsChildOf = function(self, other)
  local target = REC[other]
  local p = urec(self).parent
  while p do
    if p == target then return true end
    p = p.parent
  end
  return false
end
M.GetNumChildren = function(self, recursive)
  local r = urec(self)
  if not recursive then return #r.children end
  local n = 0
  local function count(x) for _, c in ipairs(x.children) do n = n + 1; count(c) end end
  count(r)
  return n
end
local function find_named(r, name, recursive)
  for _, c in ipairs(r.children) do
    if c.name == name then return c end
    if recursive then
      local f = find_named(c, name, true)
      if f then return f end
    end
  end
  return nil
end
E.ui_find_named = find_named
M.GetChild = function(self, key, recursive)
  local r = urec(self)
  if type(key) == "number" then
    local c = r.children[toint(key) + 1]
    return c and c.proxy
  end
  local f = find_named(r, tostring(key), recursive)
  return f and f.proxy
end

----------------------------------------------------------------------------------------------------
-- UISelectable and Text.  Text is measured from its font file as Urho3D's FreeType faces measure it (whole-pixel
-- advances at pointSize * 96 / 72 pixels per em; see E.ui_font_face), positions rounded to pixels.
----------------------------------------------------------------------------------------------------
local SEL = class("UISelectable")
UI_FACTORIES.UISelectable = function(r)
  r.selection_color = E.Color_new(0, 0, 0, 0)
  r.hover_color = E.Color_new(0, 0, 0, 0)
end
SEL.new = function() return (new_element("UISelectable")) end
SEL.methods.SetSelectionColor = function(self, c) urec(self).selection_color = color_copy(c) end
SEL.methods.GetSelectionColor = function(self) return color_copy(urec(self).selection_color) end
SEL.methods.SetHoverColor = function(self, c) urec(self).hover_color = color_copy(c) end
SEL.methods.GetHoverColor = function(self) return color_copy(urec(self).hover_color) end

local Text = class("Text")
UI_FACTORIES.Text = function(r)
  UI_FACTORIES.UISelectable(r)
  r.text, r.font, r.font_size, r.text_align, r.wordwrap, r.effect = "", nil, 12.0, HA_LEFT, false, 0
  r.row_spacing = 1.0
  r.sel_start, r.sel_length = 0, 0
  r.use_derived_opacity = false
  r.shadow_offset_x, r.shadow_offset_y, r.stroke_thickness, r.round_stroke = 1, 1, 1, false
  r.effect_color = E.Color_new(0, 0, 0, 1)
  r.effect_depth_bias = 0.0
  r.rows = {}
end
Text.new = function() return (new_element("Text")) end
local function is_wide(c)
  return (c >= 0x1100 and c <= 0x115F) or (c >= 0x2E80 and c <= 0xA4CF) or (c >= 0xAC00 and c <= 0xD7A3)
    or (c >= 0xF900 and c <= 0xFAFF) or (c >= 0xFE30 and c <= 0xFE4F) or (c >= 0xFF00 and c <= 0xFF60)
    or (c >= 0xFFE0 and c <= 0xFFE6) or (c >= 0x1F300 and c <= 0x1FAFF) or (c >= 0x20000 and c <= 0x3FFFD)
end
local function codepoints(s)
  local out = {}
  if utf8.len(s) then
    for _, c in utf8.codes(s) do out[#out + 1] = c end
  else
    for i = 1, #s do out[i] = s:byte(i) end
  end
  return out
end
-- The face a Text measures with: its font resource at its size (engine/lua/runtime/85_nanovg.lua reads the file);
-- a Text with no font measures as the stock style's Anonymous Pro would.  A font that cannot be read falls back
-- to a stand-in of 0.6 em per character (1 em when wide) and 1.2 em rows.
local DEFAULT_UI_FONT = "Fonts/Anonymous Pro.ttf"
local function face_of(r)
  local font = r.font and REC[r.font]
  local name = font and font.name or DEFAULT_UI_FONT
  if r.face_name ~= name or r.face_size ~= r.font_size then
    r.face_name, r.face_size = name, r.font_size
    r.face = E.ui_font_face(name, r.font_size) or false
  end
  return r.face
end
local function advance(r, c)
  local face = face_of(r)
  if face then return E.ui_glyph_advance(face, c) end
  return (is_wide(c) and 1.0 or 0.6) * r.font_size
end
local function row_height(r)
  local face = face_of(r)
  if face then return face.row_height end
  return mfloor(r.font_size * 1.2 + 0.5)
end
-- Lay the text out in rows {first char index (0-based), count, width in pixels}, as Text::UpdateText does:
-- a newline ends a row, a trailing newline adds none, word wrap breaks at the last space that fits.
local function layout_rows(r)
  local cps = codepoints(r.text)
  r.cps = cps
  local rows, n = {}, #cps
  local function push(a, b)
    local acc = 0.0
    for k = a, b do acc = acc + advance(r, cps[k]) end
    rows[#rows + 1] = {first = a - 1, count = b - a + 1, width = mfloor(acc + 0.5)}
  end
  local start, j, acc, last_space = 1, 1, 0.0, nil
  while j <= n do
    local c = cps[j]
    if c == 10 then
      push(start, j - 1)
      start, j, acc, last_space = j + 1, j + 1, 0.0, nil
    else
      local a = advance(r, c)
      if r.wordwrap and c ~= 32 and j > start and acc + a > r.w then
        local stop, nxt = j - 1, j
        if last_space then stop, nxt = last_space - 1, last_space + 1 end
        while stop >= start and cps[stop] == 32 do stop = stop - 1 end
        push(start, stop)
        start, j, acc, last_space = nxt, nxt, 0.0, nil
      else
        if c == 32 then last_space = j end
        acc = acc + a
        j = j + 1
      end
    end
  end
  if start <= n then push(start, n) end
  r.rows = rows
  return rows
end
local function update_text(r, on_resize)
  local rows = layout_rows(r)
  local width = 0
  for _, row in ipairs(rows) do if row.width > width then width = row.width end end
  local rh = cround(r.row_spacing * row_height(r))
  local height = mmax(#rows, 1) * rh
  if r.min_w ~= r.max_w then
    if r.wordwrap then
      set_min_size(r, 0, r.min_h)
    else
      set_min_size(r, width, r.min_h)
      set_size(r, width, r.h)
    end
  end
  set_fixed_height(r, height)
  if r.wordwrap and not on_resize and r.parent and r.parent.layout ~= LM_FREE then update_layout(r.parent) end
end
E.ui_update_text = update_text
local TVT = vt("Text")
TVT.OnResize = function(r)
  if r.wordwrap then update_text(r, true) end
end
local T = Text.methods
T.SetText = function(self, s)
  local r = urec(self)
  r.text = tostring(s)
  update_text(r)
end
T.GetText = function(self) return urec(self).text end
T.SetFont = function(self, font, size)
  local r = urec(self)
  if type(font) == "string" then font = E.get_resource("Font", font) end
  if font == nil then
    E.log("ERROR", "Null font for Text")
    return false
  end
  r.font = font
  if size then r.font_size = mmax(size + 0.0, 1.0) end
  update_text(r)
  return true
end
T.GetFont = function(self) return urec(self).font end
T.SetFontSize = function(self, s)
  local r = urec(self)
  r.font_size = mmax(s + 0.0, 1.0)
  update_text(r)
  return true
end
T.GetFontSize = function(self) return urec(self).font_size end
T.SetTextAlignment = function(self, a) urec(self).text_align = a end
T.GetTextAlignment = function(self) return urec(self).text_align end
T.SetRowSpacing = function(self, s) local r = urec(self); r.row_spacing = mmax(s + 0.0, 0.5); update_text(r) end
T.GetRowSpacing = function(self) return urec(self).row_spacing end
T.SetWordwrap = function(self, v)
  local r = urec(self)
  v = v and true or false
  if v ~= r.wordwrap then r.wordwrap = v; update_text(r) end
end
T.GetWordwrap = function(self) return urec(self).wordwrap end
T.SetSelection = function(self, start, length)
  local r = urec(self)
  r.sel_start, r.sel_length = start, length or 4294967295
  local n = #codepoints(r.text)
  if r.sel_start > n then r.sel_start = n end
  if r.sel_start + r.sel_length > n then r.sel_length = n - r.sel_start end
end
T.ClearSelection = function(self) local r = urec(self); r.sel_start, r.sel_length = 0, 0 end
T.GetSelectionStart = function(self) return urec(self).sel_start end
T.GetSelectionLength = function(self) return urec(self).sel_length end
T.SetTextEffect = function(self, e) urec(self).effect = e end
T.GetTextEffect = function(self) return urec(self).effect end
T.SetEffectShadowOffset = function(self, v) local r = urec(self); r.shadow_offset_x, r.shadow_offset_y = v.x, v.y end
T.GetEffectShadowOffset = function(self) local r = urec(self); return ivec2(r.shadow_offset_x, r.shadow_offset_y) end
T.SetEffectStrokeThickness = function(self, n) urec(self).stroke_thickness = n end
T.GetEffectStrokeThickness = function(self) return urec(self).stroke_thickness end
T.SetEffectRoundStroke = function(self, v) urec(self).round_stroke = v and true or false end
T.GetEffectRoundStroke = function(self) return urec(self).round_stroke end
T.SetEffectColor = function(self, c) urec(self).effect_color = color_copy(c) end
T.GetEffectColor = function(self) return color_copy(urec(self).effect_color) end
T.SetEffectDepthBias = function(self, b) urec(self).effect_depth_bias = b end
T.GetEffectDepthBias = function(self) return urec(self).effect_depth_bias end
T.SetAutoLocalizable = function(self, v) urec(self).auto_localizable = v and true or false end
T.GetAutoLocalizable = function(self) return urec(self).auto_localizable == true end
T.GetRowHeight = function(self) return row_height(urec(self)) end
T.GetNumRows = function(self) return #urec(self).rows end
T.GetNumChars = function(self) return #codepoints(urec(self).text) end
T.GetRowWidth = function(self, i)
  local row = urec(self).rows[i + 1]
  return row and row.width or 0
end
-- Where character `index` starts in the element (index == number of chars: the end of the text).
local function char_position(r, index)
  local rows = r.rows
  local rh = cround(r.row_spacing * row_height(r))
  for ri, row in ipairs(rows) do
    if index <= row.first + row.count or ri == #rows then
      local acc = 0.0
      local cps = r.cps or codepoints(r.text)
      for k = row.first + 1, mmin(index, row.first + row.count) do acc = acc + advance(r, cps[k]) end
      local x = mfloor(acc + 0.5)
      if r.text_align == HA_CENTER then x = x + (r.w - row.width) // 2
      elseif r.text_align == HA_RIGHT then x = x + r.w - row.width end
      return x, (ri - 1) * rh
    end
  end
  return 0, 0
end
E.ui_char_position = char_position
T.GetCharPosition = function(self, index)
  local x, y = char_position(urec(self), index)
  return E.Vector2_new(x, y)
end
T.GetCharSize = function(self, index)
  local r = urec(self)
  local cps = r.cps or codepoints(r.text)
  local c = cps[index + 1]
  if c == nil then return E.Vector2_new(0, 0) end
  return E.Vector2_new(mfloor(advance(r, c) + 0.5), row_height(r))
end

----------------------------------------------------------------------------------------------------
-- The UI subsystem: root, modal root, scale and custom size
----------------------------------------------------------------------------------------------------
local ui_state = {focus = nil, cursor = nil, scale_x = 1.0, scale_y = 1.0, custom_w = 0, custom_h = 0}
E.ui_state = ui_state
local UIsub = class("UI")
local root_proxy, root = new_element("UIElement")
root.name = "UIRoot"
root.traversal = TM_DEPTH_FIRST
local modal_proxy, modal_root = new_element("UIElement")
modal_root.traversal = TM_DEPTH_FIRST
E.ui_root, E.ui_modal_root = root, modal_root
local function resize_root()
  local w, h = config.screen_width, config.screen_height
  if ui_state.custom_w > 0 and ui_state.custom_h > 0 then w, h = ui_state.custom_w, ui_state.custom_h end
  w, h = cround(f32(w / ui_state.scale_x)), cround(f32(h / ui_state.scale_y))
  set_size(root, w, h)
  set_size(modal_root, w, h)
end
E.ui_resize_root = resize_root
E.on_configure(resize_root)   -- the screen's size is the run's
E.on_screen_resize(resize_root)   -- and follows the window (UI::HandleScreenMode)
-- System (window) pixels to UI pixels (UI::ConvertSystemToUI): floor of the division by the UI scale.
function E.ui_from_system(x, y)
  return mfloor(f32(x / ui_state.scale_x)), mfloor(f32(y / ui_state.scale_y))
end
-- UI pixels to a system pixel that converts back to them (rounded up; exact when the scale is 1 or more).
function E.ui_to_system(x, y)
  return math.ceil(f32(x * ui_state.scale_x)), math.ceil(f32(y * ui_state.scale_y))
end
local U = UIsub.methods
U.GetRoot = function() return root_proxy end
U.GetRootModalElement = function() return modal_proxy end
U.HasModalElement = function() return #modal_root.children > 0 end
U.SetScale = function(_, a, b)
  local x, y
  if type(a) == "number" then x, y = a, b or a else x, y = a.x, a.y end
  ui_state.scale_x, ui_state.scale_y = mmax(x + 0.0, 0.000001), mmax(y + 0.0, 0.000001)
  resize_root()
end
U.GetScale = function() return E.Vector2_new(ui_state.scale_x, ui_state.scale_y) end
U.SetCustomSize = function(_, a, b)
  local w, h = xy(a, b)
  ui_state.custom_w, ui_state.custom_h = mmax(0, toint(w)), mmax(0, toint(h))
  resize_root()
end
U.GetCustomSize = function() return ivec2(ui_state.custom_w, ui_state.custom_h) end
local function effective_unscaled()
  if ui_state.custom_w > 0 and ui_state.custom_h > 0 then return ui_state.custom_w, ui_state.custom_h end
  return config.screen_width, config.screen_height
end
U.SetWidth = function(_, w)
  local sw = effective_unscaled()
  local s = f32(sw / w)
  U.SetScale(nil, s, s)
end
U.SetHeight = function(_, h)
  local _, sh = effective_unscaled()
  local s = f32(sh / h)
  U.SetScale(nil, s, s)
end
U.SetUseSystemClipboard = function(_, v) ui_state.system_clipboard = v and true or false end
U.GetUseSystemClipboard = function() return ui_state.system_clipboard == true end
U.SetClipboardText = function(_, t) ui_state.clipboard = tostring(t) end
U.GetClipboardText = function() return ui_state.clipboard or "" end
U.Clear = function()
  remove_all_children(root)
  remove_all_children(modal_root)
  if ui_state.cursor then insert_child(root, nil, ui_state.cursor) end
end
GLOBALS.ui = E.new_object("UI")
FUNCTIONS.GetUI = function() return GLOBALS.ui end
