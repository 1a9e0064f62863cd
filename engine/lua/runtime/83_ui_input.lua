-- Native UI, part 4: hit-testing, focus and input dispatch, as Urho3D's UI subsystem does them.  The UI listens
-- to the input events the engine sends (MouseButtonDown/Up, MouseMove, MouseWheel, TouchBegin/End/Move, KeyDown,
-- TextInput) and runs its update on PostUpdate; it subscribed when the engine started, so it handles each event
-- before any game handler, as Urho3D's UI subsystem does.
--
-- Dispatch rules (UI.cpp): a press picks the topmost enabled, visible element under the cursor (the modal root
-- first), focuses it (or its nearest focusable ancestor), brings its window to front, calls its OnClickBegin
-- (Button: Pressed) and sends Click (from the element) then UIMouseClick (from the UI); a second press on the
-- same element within the double-click interval sends DoubleClick / UIMouseDoubleClick.  A release calls
-- OnClickEnd on the element under the cursor (Button: Released) and sends ClickEnd / UIMouseClickEnd.  Moving
-- with a button held past the drag distance (or holding it for the drag interval) starts a drag: DragBegin,
-- DragMove, DragEnd (DragCancel on Escape or another press).  Touches act as mouse buttons 1 << TouchID.
--
-- One deliberate difference: the injected pointer is always "visible" to the UI, whatever input.mouseVisible
-- or the mouse mode say (batteries click for a player on a touch screen, where Urho3D ignores the mouse cursor's
-- visibility); the position is the software Cursor's when one is set and visible, else the mouse position.
local type, ipairs, pairs = type, ipairs, pairs
local mfloor, mmax, mabs, msqrt = math.floor, math.max, math.abs, math.sqrt
local tremove = table.remove
local REC = E.REC
local urec, opt_rec, ptr, emit = E.ui_rec, E.ui_opt_rec, E.ui_ptr, E.ui_emit
local root, modal_root = E.ui_root, E.ui_modal_root
local U, settings = E.ui_state, E.ui_settings
local S = E.input_state
local clock = E.clock
local MX = E.MATH
local cdiv = MX.cdiv
local child_screen, screen_to_element, is_inside, is_inside_combined = E.ui_child_screen,
  E.ui_screen_to_element, E.ui_is_inside, E.ui_is_inside_combined
local sort_children, root_of = E.ui_sort_children, E.ui_root_of

local INT_MAX = 2147483647
local LM_FREE = 0
local FM_NOTFOCUSABLE, FM_FOCUSABLE, FM_FOCUSABLE_DEFOCUSABLE = 0, 2, 3
local DD_SOURCE, DD_TARGET = 1, 2
local QUAL_SHIFT = 1
local MM_RELATIVE = 1
local KEYS = E.UI_KEYS
local KEY_ESCAPE, KEY_TAB = KEYS.KEY_ESCAPE, KEYS.KEY_TAB

U.drags = {}          -- {el, pending, sum_x, sum_y, bsum_x, bsum_y, begin_time, buttons, num}, in press order
U.hovered = {}        -- elements hovered, in the order hovering began
U.hover_flag = {}     -- element -> refreshed this frame
U.touch_drag = setmetatable({}, {__mode = "k"})   -- element -> touch buttons pressed on it
U.mouse_buttons, U.qualifiers, U.last_buttons = 0, 0, 0
U.using_touch = false
U.dc_element, U.dc_x, U.dc_y = nil, 0, 0
U.click_time = -1e9

local function ui_proxy() return GLOBALS.ui end
local function popcount(v)
  local n = 0
  while v ~= 0 do
    n = n + (v & 1)
    v = v >> 1
  end
  return n
end
local function attached(r)
  local t = root_of(r)
  return t == root or t == modal_root
end
E.ui_attached = attached
local function now_ms_since(t) return mfloor((clock.elapsed - t) * 1000.0 + 0.5) end

----------------------------------------------------------------------------------------------------
-- UIElement's default virtual members
----------------------------------------------------------------------------------------------------
local BASE = E.UI_VT.UIElement
local function noop() end
BASE.OnHover = function(r) r.hovering = true end
BASE.OnClickBegin, BASE.OnClickEnd, BASE.OnDoubleClick, BASE.OnDragMove = noop, noop, noop, noop
BASE.OnWheel, BASE.OnKey, BASE.OnTextInput = noop, noop, noop
BASE.OnDragBegin = function(r, _, _, _, _, buttons)
  r.drag_combo = buttons
  r.drag_count = popcount(buttons)
end
BASE.OnDragEnd = function(r)
  r.drag_combo = 0
  r.drag_count = 0
end
BASE.OnDragCancel = BASE.OnDragEnd
BASE.OnDragDropTest = function() return true end
BASE.OnDragDropFinish = function() return true end

----------------------------------------------------------------------------------------------------
-- Hit-testing (UI::GetElementAt)
----------------------------------------------------------------------------------------------------
local function element_at_in(result, current, x, y, enabled_only, csx, csy)
  sort_children(current)
  local kids = current.children
  local free = current.layout == LM_FREE
  local i = 1
  while i <= #kids do
    local el = kids[i]
    if el ~= U.cursor and el.visible then
      local ex, ey = child_screen(current, csx, csy, el)
      local inside
      if el.vt.ScreenToElement then inside = is_inside(el, x, y, true)
      else inside = x >= ex and y >= ey and x < ex + el.w and y < ey + el.h end
      local has_children = #el.children > 0
      if inside then
        -- children are sorted lowest priority first: the topmost match is the last one found
        if el.enabled or not enabled_only then result = el end
        if has_children then result = element_at_in(result, el, x, y, enabled_only, ex, ey)
        elseif not free then break end
      elseif has_children and is_inside_combined(el, x, y, true) then
        result = element_at_in(result, el, x, y, enabled_only, ex, ey)
      end
    end
    i = i + 1
  end
  return result
end
local function element_at_root(rt, x, y, enabled_only)
  if x < rt.x or x > rt.x + rt.w or y < rt.y or y > rt.y + rt.h then return nil end
  if rt.w > 0 and rt.h > 0 then
    if x >= rt.x + rt.w then x = rt.x + (x - rt.x) % rt.w end
    if y >= rt.y + rt.h then y = rt.y + (y - rt.y) % rt.h end
  end
  return element_at_in(nil, rt, x, y, enabled_only, rt.x, rt.y)
end
-- The element at UI position (x, y): the modal root's elements first, then the root's.
local function element_at(x, y, enabled_only)
  if enabled_only == nil then enabled_only = true end
  local result
  if #modal_root.children > 0 then result = element_at_root(modal_root, x, y, enabled_only) end
  if result == nil then result = element_at_root(root, x, y, enabled_only) end
  return result
end
E.ui_element_at = element_at

----------------------------------------------------------------------------------------------------
-- Focus and modal elements
----------------------------------------------------------------------------------------------------
local function focusable_element(r)
  while r do
    if r.focus_mode ~= FM_NOTFOCUSABLE then break end
    r = r.parent
  end
  return r
end
local function focus_listeners(element, clicked)
  local menus = {}
  for i, m in ipairs(E.ui_open_menus) do menus[i] = m end
  for _, m in ipairs(menus) do E.ui_menu_focus_changed(m, element, clicked, true) end
  -- ListView::HandleItemFocusChanged: scroll the list to show a focused item
  local x = element
  while x do
    local p = x.parent
    if p and p.list_owner then
      E.ui_list_ensure_visible(p.list_owner, x)
      break
    end
    x = p
  end
end
local function set_focus_element(element, by_key)
  local original = element
  if element then
    if U.focus == element then return end
    if #modal_root.children > 0 then
      local top = element.parent
      while top and top.parent ~= root do top = top.parent end
      if top then return end
    end
    element = focusable_element(element)
    if element == nil then return end
  end
  if U.focus then
    local old = U.focus
    U.focus = nil
    emit(old, "Defocused", {Element = old.proxy})
  end
  if element and element.focus_mode >= FM_FOCUSABLE then
    U.focus = element
    emit(element, "Focused", {Element = element.proxy, ByKey = by_key and true or false})
  end
  focus_listeners(element, original)
  E.send_event("FocusChanged", {ClickedElement = ptr(original), Element = ptr(element)}, ui_proxy())
end
E.ui_set_focus_element = set_focus_element
-- UIElement::SetFocus
function E.ui_set_focus(r, enable)
  if r.focus_mode < FM_FOCUSABLE or not E.ui_visible_effective(r) then enable = false end
  if enable then
    if U.focus ~= r then set_focus_element(r) end
  elseif U.focus == r then
    set_focus_element(nil)
  end
end
local function index_in(p, c)
  for i, x in ipairs(p.children) do if x == c then return i - 1 end end
  return nil
end
local function origin_of(r)
  local v = r.vars.Origin
  return v and v.type_ == "Ptr" and REC[v.value_] or nil
end
-- UI::SetModalElement: a modal window moves to the modal root (a popup takes its menu's top-level element along).
function E.ui_set_modal_element(el, enable)
  if el == nil or el.type_name ~= "Window" then return false end
  local cur = el.parent
  if enable then
    if cur == modal_root then return false end
    el.orig_parent, el.orig_index = cur, cur and index_in(cur, el)
    E.ui_insert_child(modal_root, nil, el)
    local origin = origin_of(el)
    if origin then
      local top = origin
      while top and top.parent ~= root do top = top.parent end
      if top then
        origin.parent_changed = top
        top.orig_parent, top.orig_index = top.parent, index_in(top.parent, top)
        E.ui_insert_child(modal_root, nil, top)
      end
    end
    return true
  end
  if cur ~= modal_root then return false end
  if el.orig_parent then E.ui_insert_child(el.orig_parent, el.orig_index, el) end
  el.orig_parent, el.orig_index = nil, nil
  local origin = origin_of(el)
  if origin and origin.parent_changed then
    local top = origin.parent_changed
    origin.parent_changed = nil
    if top.orig_parent then E.ui_insert_child(top.orig_parent, top.orig_index, top) end
    top.orig_parent, top.orig_index = nil, nil
  end
  return true
end
-- An element leaving the tree stops being focused, hovered or dragged.
function E.ui_on_detached(r)
  local f = U.focus
  if f and not attached(f) then U.focus = nil end
end

----------------------------------------------------------------------------------------------------
-- Clicks, drags, hover
----------------------------------------------------------------------------------------------------
local function find_drag(el)
  for i, d in ipairs(U.drags) do if d.el == el then return d, i end end
  return nil
end
local function remove_drag(d)
  for i, x in ipairs(U.drags) do if x == d then tremove(U.drags, i); return end end
end
local function drags_snapshot()
  local out = {}
  for i, d in ipairs(U.drags) do out[i] = d end
  return out
end
local function live(d)
  for _, x in ipairs(U.drags) do if x == d then return true end end
  return false
end
function E.ui_confirmed_drags()
  local out = {}
  for _, d in ipairs(U.drags) do
    if not d.pending and not d.dead and attached(d.el) then out[#out + 1] = d.el end
  end
  return out
end
function E.ui_is_dragging() return #E.ui_confirmed_drags() > 0 end

local function send_drag_or_hover(name, el, x, y, dx, dy, d)
  if el == nil then return end
  local ex, ey = screen_to_element(el, x, y)
  local fields = {Element = el.proxy, X = x, Y = y, ElementX = ex, ElementY = ey}
  if name == "DragMove" then fields.DX, fields.DY = dx, dy end
  if d then fields.Buttons, fields.NumButtons = d.buttons, d.num end
  emit(el, name, fields)
end
-- The engine's own listeners of the global click events (Menu and ListView subscribe to them in Urho3D).
local function click_listeners(name, el, button, buttons, qualifiers)
  if name == "UIMouseClick" then
    local menus = {}
    for i, m in ipairs(E.ui_open_menus) do menus[i] = m end
    for _, m in ipairs(menus) do E.ui_menu_focus_changed(m, el, nil, false) end
  end
  local owner = el and el.parent and el.parent.list_owner
  if owner and ((name == "UIMouseClick" and not owner.select_on_click_end)
      or (name == "UIMouseClickEnd" and owner.select_on_click_end)) then
    E.ui_list_item_click(owner, el, button, buttons, qualifiers)
  end
end
local function send_click(name, begin_el, el, x, y, button, buttons, qualifiers)
  local fields = {Element = ptr(el), X = x, Y = y, Button = button, Buttons = buttons, Qualifiers = qualifiers}
  if name == "UIMouseClickEnd" then fields.BeginElement = ptr(begin_el) end
  if el then emit(el, name == "UIMouseClick" and "Click" or "ClickEnd", fields) end
  click_listeners(name, el, button, buttons, qualifiers)
  E.send_event(name, fields, ui_proxy())
end
local function send_double_click(el, fx, fy, x, y, button, buttons, qualifiers)
  local fields = {Element = ptr(el), X = x, Y = y, XBegin = fx, YBegin = fy, Button = button, Buttons = buttons,
    Qualifiers = qualifiers}
  if el then emit(el, "DoubleClick", fields) end
  local owner = el and el.parent and el.parent.list_owner
  if owner then E.ui_list_item_double_click(owner, el, button, buttons, qualifiers) end
  E.send_event("UIMouseDoubleClick", fields, ui_proxy())
end
local function double_click_ok(x, y, buttons, elapsed_ms)
  local dx, dy = x - U.dc_x, y - U.dc_y
  return elapsed_ms < mfloor(settings.DoubleClickInterval * 1000.0) and U.last_buttons == buttons
    and msqrt(dx * dx + dy * dy) < settings.MaxDoubleClickDistance
end
local function process_click_begin(x, y, button, buttons, qualifiers)
  local element = element_at(x, y, true)
  local new_button = true
  if U.using_touch then new_button = (buttons & button) == 0 end
  buttons = buttons | button
  if element then set_focus_element(element) end
  local elapsed_ms = now_ms_since(U.click_time)
  if element and attached(element) then
    E.ui_bring_to_front(element)
    local ex, ey = screen_to_element(element, x, y)
    element.vt.OnClickBegin(element, ex, ey, x, y, button, buttons, qualifiers)
    send_click("UIMouseClick", nil, element, x, y, button, buttons, qualifiers)
    if U.dc_element and element == U.dc_element and double_click_ok(x, y, buttons, elapsed_ms) then
      U.click_time = clock.elapsed
      ex, ey = screen_to_element(element, x, y)
      element.vt.OnDoubleClick(element, ex, ey, x, y, button, buttons, qualifiers)
      U.dc_element = nil
      send_double_click(element, U.dc_x, U.dc_y, x, y, button, buttons, qualifiers)
    else
      U.dc_element, U.dc_x, U.dc_y = element, x, y
      U.click_time = clock.elapsed
    end
    if attached(element) then
      local d = find_drag(element)
      if d == nil then
        U.drags[#U.drags + 1] = {el = element, pending = true, sum_x = x, sum_y = y, bsum_x = x, bsum_y = y,
          begin_time = clock.elapsed, buttons = button, num = popcount(button)}
      elseif new_button then
        d.sum_x, d.sum_y = d.sum_x + x, d.sum_y + y
        d.bsum_x, d.bsum_y = d.bsum_x + x, d.bsum_y + y
        d.buttons = d.buttons | button
        d.num = popcount(d.buttons)
      end
    end
  else
    if #modal_root.children == 0 then set_focus_element(nil) end
    send_click("UIMouseClick", nil, nil, x, y, button, buttons, qualifiers)
    U.click_time = clock.elapsed
    if double_click_ok(x, y, buttons, elapsed_ms) then
      send_double_click(nil, U.dc_x, U.dc_y, x, y, button, buttons, qualifiers)
    end
  end
  U.last_buttons = buttons
end
local function process_click_end(x, y, button, buttons, qualifiers)
  local element = element_at(x, y, true)
  for _, d in ipairs(drags_snapshot()) do
    if live(d) then
      local de = d.el
      if d.dead or not attached(de) then
        remove_drag(d)
      elseif (d.buttons & button) ~= 0 then
        if element then
          local ex, ey = screen_to_element(element, x, y)
          element.vt.OnClickEnd(element, ex, ey, x, y, button, buttons, qualifiers, de)
        end
        send_click("UIMouseClickEnd", de, element, x, y, button, buttons, qualifiers)
        if attached(de) and de.enabled and de.visible and not d.pending then
          local ex, ey = screen_to_element(de, x, y)
          de.vt.OnDragEnd(de, ex, ey, x, y, d.buttons, buttons)
          send_drag_or_hover("DragEnd", de, x, y, 0, 0, d)
          if (de.drag_drop_mode & DD_SOURCE) ~= 0 and element and element ~= de
              and (element.drag_drop_mode & DD_TARGET) ~= 0 then
            local accept = element.vt.OnDragDropFinish(element, de)
            if accept and attached(de) and attached(element) then
              E.send_event("DragDropFinish", {Source = de.proxy, Target = element.proxy, Accept = accept}, ui_proxy())
            end
          end
        end
        remove_drag(d)
      end
    end
  end
end
local function process_move(x, y, dx, dy, buttons, qualifiers)
  if #U.drags == 0 or buttons == 0 then return end
  for _, d in ipairs(drags_snapshot()) do
    if live(d) then
      local de = d.el
      if d.dead or not attached(de) then
        remove_drag(d)
      elseif (d.buttons & buttons) ~= 0 then
        local sx, sy
        if U.using_touch then
          d.sum_x, d.sum_y = d.sum_x + dx, d.sum_y + dy
          sx, sy = cdiv(d.sum_x, d.num), cdiv(d.sum_y, d.num)
        else
          d.sum_x, d.sum_y = x, y
          sx, sy = x, y
        end
        if de.enabled and de.visible then
          if d.pending and not S.mouse_grabbed then
            local bx, by = cdiv(d.bsum_x, d.num), cdiv(d.bsum_y, d.num)
            local dist = settings.DragBeginDistance
            if mabs(x - bx) >= dist or mabs(y - by) >= dist then
              d.pending = false
              local ex, ey = screen_to_element(de, bx, by)
              de.vt.OnDragBegin(de, ex, ey, bx, by, buttons, qualifiers)
              send_drag_or_hover("DragBegin", de, bx, by, 0, 0, d)
            end
          end
          if not d.pending then
            local ex, ey = screen_to_element(de, sx, sy)
            de.vt.OnDragMove(de, ex, ey, sx, sy, dx, dy, buttons, qualifiers)
            send_drag_or_hover("DragMove", de, sx, sy, dx, dy, d)
          end
        else
          local ex, ey = screen_to_element(de, sx, sy)
          de.vt.OnDragEnd(de, ex, ey, sx, sy, d.buttons, buttons)
          send_drag_or_hover("DragEnd", de, sx, sy, 0, 0, d)
          d.dead = true
        end
      end
    end
  end
end
local function cursor_position()
  local c = U.cursor
  if c and c.visible then return c.x, c.y end
  return E.ui_from_system(mfloor(S.mouse_x), mfloor(S.mouse_y))
end
E.ui_cursor_position = cursor_position
local function process_drag_cancel()
  if U.using_touch then return end
  local x, y = cursor_position()
  for _, d in ipairs(drags_snapshot()) do
    local de = d.el
    if live(d) and not d.dead and attached(de) and de.enabled and de.visible and not d.pending then
      local ex, ey = screen_to_element(de, x, y)
      de.vt.OnDragCancel(de, ex, ey, x, y, d.buttons, U.mouse_buttons)
      send_drag_or_hover("DragCancel", de, x, y, 0, 0, d)
      remove_drag(d)
    end
  end
end
local function hover_begin(element, x, y)
  if U.hover_flag[element] == nil then
    send_drag_or_hover("HoverBegin", element, x, y, 0, 0, nil)
    U.hovered[#U.hovered + 1] = element
  end
  U.hover_flag[element] = true
end
local function process_hover(x, y, buttons, qualifiers)
  local element = element_at(x, y, true)
  for _, d in ipairs(drags_snapshot()) do
    if live(d) then
      local de = d.el
      if d.dead or not attached(de) then
        remove_drag(d)
      else
        local source = (de.drag_drop_mode & DD_SOURCE) ~= 0
        local target = element ~= nil and (element.drag_drop_mode & DD_TARGET) ~= 0
        local test = source and target and element ~= de
        if d.pending then source, target, test = false, false, false end
        if element and element.enabled and (de == element or test) then
          local ex, ey = screen_to_element(element, x, y)
          element.vt.OnHover(element, ex, ey, x, y, buttons, qualifiers)
          hover_begin(element, x, y)
        end
        if test then
          local accept = element.vt.OnDragDropTest(element, de)
          if accept then
            local data = E.event_data("DragDropTest", {Source = de.proxy, Target = element.proxy, Accept = accept})
            E.send_event("DragDropTest", data, ui_proxy())
            local v = E.variant_map_store[data].Accept
            accept = v ~= nil and v.value_ == true
          end
          if U.cursor then U.cursor.shape = accept and "AcceptDrop" or "RejectDrop" end
        elseif source and U.cursor then
          U.cursor.shape = de == element and "AcceptDrop" or "RejectDrop"
        end
      end
    end
  end
  if element and element.enabled and #U.drags == 0 then
    local ex, ey = screen_to_element(element, x, y)
    element.vt.OnHover(element, ex, ey, x, y, buttons, qualifiers)
    hover_begin(element, x, y)
  end
end
local function touch_mask(id) return 1 << ((id or 0) & 31) end

----------------------------------------------------------------------------------------------------
-- The per-frame update (UI::Update on PostUpdate) and the hover reset (RenderUpdate)
----------------------------------------------------------------------------------------------------
local function update_elements(r, dt)
  local fn = r.vt.Update
  if fn then fn(r, dt) end
  local kids = r.children
  local i = 1
  while i <= #kids do
    update_elements(kids[i], dt)
    i = i + 1
  end
end
local function ui_update(dt)
  for _, el in ipairs(U.hovered) do U.hover_flag[el] = false end
  local x, y = cursor_position()
  if #U.drags > 0 and not S.mouse_grabbed then
    for _, d in ipairs(drags_snapshot()) do
      if live(d) and d.pending and not d.dead and attached(d.el)
          and now_ms_since(d.begin_time) >= mfloor(settings.DragBeginInterval * 1000.0) then
        d.pending = false
        local bx, by = cdiv(d.bsum_x, d.num), cdiv(d.bsum_y, d.num)
        local de = d.el
        local ex, ey = screen_to_element(de, bx, by)
        de.vt.OnDragBegin(de, ex, ey, bx, by, d.buttons, U.using_touch and 0 or U.qualifiers)
        send_drag_or_hover("DragBegin", de, bx, by, 0, 0, d)
      end
    end
  end
  if not S.mouse_grabbed and not S.touch_emulation and not U.using_touch then
    process_hover(x, y, U.mouse_buttons, U.qualifiers)
  end
  for _, id in ipairs(S.touch_order) do
    local t = S.touches[id]
    if t then
      local tx, ty = E.ui_from_system(mfloor(t.x), mfloor(t.y))
      process_hover(tx, ty, touch_mask(id), 0)
    end
  end
  local keep = {}
  for _, el in ipairs(U.hovered) do
    if U.hover_flag[el] and attached(el) then
      keep[#keep + 1] = el
    else
      U.hover_flag[el] = nil
      emit(el, "HoverEnd", {Element = el.proxy})
    end
  end
  U.hovered = keep
  update_elements(root, dt)
  update_elements(modal_root, dt)
end
local function reset_hover(r)
  for _, c in ipairs(r.children) do
    if c.visible then
      c.hovering = false
      reset_hover(c)
    end
  end
end

----------------------------------------------------------------------------------------------------
-- Input event handlers
----------------------------------------------------------------------------------------------------
local store = E.variant_map_store
-- An event parameter read as Urho3D's handlers read it (Variant::GetInt, GetBool, GetString ...: a value of
-- another type reads as 0, false or ""), so a game that sends these events itself with odd data cannot break the
-- UI's own handlers.  An integer is C's (int) cast of the value (x86: NaN, infinities, overflow give INT_MIN).
local function field(data, key, default)
  local v = store[data] and store[data][key]
  if v == nil or v.value_ == nil then return default end
  local x, want = v.value_, type(default)
  if want == "number" then
    if type(x) == "boolean" then return x and 1 or 0 end
    if type(x) ~= "number" then return 0 end
    if math.type(default) ~= "integer" or math.type(x) == "integer" and x >= -2147483648 and x <= 2147483647 then
      return x
    end
    if x ~= x or x >= 2147483648.0 or x <= -2147483649.0 then return -2147483648 end
    return math.tointeger(x >= 0 and mfloor(x) or -mfloor(-x))
  elseif want == "boolean" then
    if type(x) == "number" then return x ~= 0 end
    return x == true
  elseif want == "string" then
    if type(x) == "string" then return x end
    return ""
  end
  return x
end
local function scroll_views(fn)
  local list = {}
  local function walk(r)
    for _, c in ipairs(r.children) do
      if c.vt.IsWheelHandler then list[#list + 1] = c end
      walk(c)
    end
  end
  walk(root)
  walk(modal_root)
  for _, sv in ipairs(list) do fn(sv) end
end
local handlers = {}
function handlers.MouseButtonDown(_, data)
  U.mouse_buttons, U.qualifiers = field(data, "Buttons", 0), field(data, "Qualifiers", 0)
  U.using_touch = false
  local x, y = cursor_position()
  process_drag_cancel()
  if not S.mouse_grabbed then process_click_begin(x, y, field(data, "Button", 0), U.mouse_buttons, U.qualifiers) end
end
function handlers.MouseButtonUp(_, data)
  U.mouse_buttons, U.qualifiers = field(data, "Buttons", 0), field(data, "Qualifiers", 0)
  local x, y = cursor_position()
  process_click_end(x, y, field(data, "Button", 0), U.mouse_buttons, U.qualifiers)
end
function handlers.MouseMove(_, data)
  U.mouse_buttons, U.qualifiers = field(data, "Buttons", 0), field(data, "Qualifiers", 0)
  U.using_touch = false
  local c = U.cursor
  local mx, my = E.ui_from_system(mfloor(field(data, "X", 0)), mfloor(field(data, "Y", 0)))
  local dx, dy = mfloor(field(data, "DX", 0)), mfloor(field(data, "DY", 0))
  if c then
    if not S.mouse_visible and (S.mouse_mode == 1 or S.mouse_mode == 2) then
      if c.visible then
        local ux, uy = E.ui_from_system(dx, dy)
        E.ui_set_position(c, E.ui_clamp(c.x + ux, root.x, root.x + root.w - 1),
          E.ui_clamp(c.y + uy, root.y, root.y + root.h - 1))
      end
    else
      E.ui_set_position(c, mx, my)
    end
  end
  local x, y = cursor_position()
  process_move(x, y, dx, dy, U.mouse_buttons, U.qualifiers)
end
function handlers.MouseWheel(_, data)
  if S.mouse_grabbed then return end
  U.mouse_buttons, U.qualifiers = field(data, "Buttons", 0), field(data, "Qualifiers", 0)
  local delta = field(data, "Wheel", 0)
  U.using_touch = false
  local x, y = cursor_position()
  local f = U.focus
  if not settings.NonFocusedMouseWheel and f then
    f.vt.OnWheel(f, delta, U.mouse_buttons, U.qualifiers)
    return
  end
  local element = element_at(x, y, true)
  if settings.NonFocusedMouseWheel then
    while element and not element.vt.IsWheelHandler do element = element.parent end
  else
    element = focusable_element(element)
  end
  if element and (settings.NonFocusedMouseWheel or element.focus_mode >= FM_FOCUSABLE) then
    element.vt.OnWheel(element, delta, U.mouse_buttons, U.qualifiers)
  end
end
function handlers.TouchBegin(_, data)
  local sx, sy = field(data, "X", 0), field(data, "Y", 0)
  local x, y = E.ui_from_system(mfloor(sx), mfloor(sy))
  if not S.mouse_grabbed then
    U.using_touch = true
    local mask = touch_mask(field(data, "TouchID", 0))
    local element = element_at(x, y, true)
    if element then
      local before = U.touch_drag[element] or 0
      process_click_begin(x, y, mask, before, 0)
      U.touch_drag[element] = before | mask
    else
      process_click_begin(x, y, mask, mask, 0)
    end
  end
  scroll_views(function(sv) E.ui_scroll_view_touch(sv, "begin", x, y, 0, 0) end)
end
function handlers.TouchEnd(_, data)
  local x, y = E.ui_from_system(mfloor(field(data, "X", 0)), mfloor(field(data, "Y", 0)))
  local mask = touch_mask(field(data, "TouchID", 0))
  local element = element_at(x, y, true)
  for el, touches in pairs(U.touch_drag) do
    if (touches & mask) ~= 0 then U.touch_drag[el] = nil end
  end
  if element and element.enabled then
    local ex, ey = screen_to_element(element, x, y)
    element.vt.OnHover(element, ex, ey, x, y, 0, 0)
  end
  process_click_end(x, y, mask, 0, 0)
  scroll_views(function(sv) E.ui_scroll_view_touch(sv, "end", x, y, 0, 0) end)
end
function handlers.TouchMove(_, data)
  local x, y = E.ui_from_system(mfloor(field(data, "X", 0)), mfloor(field(data, "Y", 0)))
  local dx, dy = E.ui_from_system(mfloor(field(data, "DX", 0)), mfloor(field(data, "DY", 0)))
  U.using_touch = true
  process_move(x, y, dx, dy, touch_mask(field(data, "TouchID", 0)), 0)
  scroll_views(function(sv) E.ui_scroll_view_touch(sv, "move", x, y, dx, dy) end)
end
local function key_down(key)
  if key == KEY_ESCAPE and #U.drags > 0 then
    process_drag_cancel()
    return
  end
  if key == KEY_ESCAPE and #modal_root.children > 0 then
    local el = modal_root.children[#modal_root.children]
    if el.vars.Origin ~= nil then
      set_focus_element(nil)
    elseif el.type_name == "Window" and el.modal_auto_dismiss then
      E.ui_set_modal(el, false)
    end
    return
  end
  local element = U.focus
  if element == nil then return end
  if key == KEY_TAB then
    local top = element.parent
    while top and top.parent ~= root and top.parent ~= modal_root do top = top.parent end
    if top then
      local list = {}
      local function collect(r)
        for _, c in ipairs(r.children) do
          if c.focus_mode >= FM_FOCUSABLE then list[#list + 1] = c end
          collect(c)
        end
      end
      collect(top)
      for i, x in ipairs(list) do
        if x == element then
          local dir = (U.qualifiers & QUAL_SHIFT) ~= 0 and -1 or 1
          set_focus_element(list[(i - 1 + dir) % #list + 1], true)
          return
        end
      end
    end
  elseif key == KEY_ESCAPE and element.focus_mode == FM_FOCUSABLE_DEFOCUSABLE then
    E.ui_set_focus(element, false)
  else
    element.vt.OnKey(element, key, U.mouse_buttons, U.qualifiers)
  end
end
function handlers.KeyDown(_, data)
  U.mouse_buttons, U.qualifiers = field(data, "Buttons", 0), field(data, "Qualifiers", 0)
  local key = field(data, "Key", 0)
  key_down(key)
  E.ui_menu_accelerators(key, U.qualifiers, field(data, "Repeat", false))
end
function handlers.TextInput(_, data)
  local f = U.focus
  if f then f.vt.OnTextInput(f, field(data, "Text", "")) end
end
function handlers.BeginFrame()
  if U.cursor and #U.drags == 0 then U.cursor.shape = "Normal" end
end
function handlers.PostUpdate(_, data) ui_update(field(data, "TimeStep", clock.step)) end
function handlers.RenderUpdate()
  reset_hover(root)
  reset_hover(modal_root)
end
local RECEIVER = {}
for _, name in ipairs(E.sorted_keys(handlers)) do E.subscribe(RECEIVER, nil, nil, name, handlers[name]) end

----------------------------------------------------------------------------------------------------
-- The UI subsystem's input API
----------------------------------------------------------------------------------------------------
local UM = IMPL.UI.methods
UM.GetElementAt = function(_, a, b, c)
  local x, y, enabled_only
  if type(a) == "number" then x, y, enabled_only = a, b, c else x, y, enabled_only = a.x, a.y, b end
  local r = element_at(MX.toint(x), MX.toint(y), enabled_only)
  return r and r.proxy
end
UM.GetFocusElement = function() return U.focus and U.focus.proxy end
UM.SetFocusElement = function(_, element, by_key) set_focus_element(opt_rec(element), by_key) end
UM.SetModalElement = function(_, element, enable)
  local r = opt_rec(element)
  if r == nil then return false end
  return E.ui_set_modal_element(r, enable)
end
UM.GetFrontElement = function()
  local max_p, front = nil, nil
  for _, c in ipairs(root.children) do
    if c.enabled and c.visible and c.bring_to_back and (max_p == nil or c.priority > max_p) then
      max_p, front = c.priority, c
    end
  end
  return front and front.proxy
end
UM.GetCursorPosition = function()
  if U.cursor then return E.IntVector2_new(U.cursor.x, U.cursor.y) end
  return E.IntVector2_new(E.ui_from_system(mfloor(S.mouse_x), mfloor(S.mouse_y)))
end
UM.IsDragging = function() return E.ui_is_dragging() end
UM.GetDragElement = function(_, index)
  local r = E.ui_confirmed_drags()[(index or 0) + 1]
  return r and r.proxy
end
