-- harness.lua: the battery's privileged environment.  Batteries drive the game and read the engine's own
-- records (never the game's tables), and record requirements and checks as evidence.
local error, type, tostring, setmetatable, ipairs, pairs, select, rawget, pcall =
  error, type, tostring, setmetatable, ipairs, pairs, select, rawget, pcall
local sformat, mabs, mfloor, tsort = string.format, math.abs, math.floor, table.sort
local REC, state, clock = E.REC, E.state, E.clock
local string_mt = E.string_mt
local pristine_string = string_mt.__index

E.results = {requirements = {}, order = {}}
local results = E.results

-- While game code runs, string methods resolve through the game's string table; battery code always
-- gets the pristine one, whatever the game did to its own.
function E.enter_game() string_mt.__index = E.game_env.string end
function E.leave_game() string_mt.__index = pristine_string end
-- A run that stopped (its budget, its memory, a missing API, or the game exited) never advances again. A battery may
-- still make a few calls that would run frames (they run none: a helper that presses then waits, a check two frames
-- after a quit), but one that waits for a frame that never comes would spin until the wall-clock kill or its own
-- budget, and the outcome would blame the game: past STALLED_CALLS such calls the battery ends there.
local STALLED_CALLS = 100
local stalled_calls = 0
local function with_game(fn, ...)
  if (state.aborted or state.exit_requested) and E.battery_running then
    stalled_calls = stalled_calls + 1
    if stalled_calls > STALLED_CALLS then error(E.ABORT, 0) end
  end
  E.enter_game()
  local ok = E.top(fn, ...)
  E.leave_game()
  return ok
end
E.with_game = with_game

-- Run a battery's chunk at the top level (Engine.run_battery): true, or false once it raised or the run stopped.
function E.run_battery_chunk(fn)
  E.battery_running = true
  local ok = E.top(fn)
  E.battery_running = false
  return ok
end

local function v3(x, y, z) return E.Vector3_new(x, y, z) end
local function quat(w, x, y, z) return E.IMPL.Quaternion.new(w, x, y, z) end

-- Plain, serialisable values for evidence.
local function plain(v, depth)
  depth = depth or 0
  local t = type(v)
  if t == "nil" or t == "boolean" or t == "number" or t == "string" then return v end
  if depth > 4 then return tostring(v) end
  for _, cname in ipairs({"Vector2", "Vector3", "Vector4", "IntVector2", "IntVector3"}) do
    if E.is(v, cname) then
      if v.w ~= nil then return {v.x, v.y, v.z, v.w} end
      if v.z ~= nil then return {v.x, v.y, v.z} end
      return {v.x, v.y}
    end
  end
  if E.is(v, "Quaternion") then return {v.w, v.x, v.y, v.z} end
  if E.is(v, "Color") then return {v.r, v.g, v.b, v.a} end
  if t == "table" and E.dgetmt(v) == nil then
    local out = {}
    for k, x in pairs(v) do out[k] = plain(x, depth + 1) end
    return out
  end
  local r = REC[v]
  if r and r.kind == "node" then return sformat("Node %s #%d", r.name, r.id) end
  return tostring(v)
end
E.plain = plain

----------------------------------------------------------------------------------------------------
-- read-only views of nodes and components
----------------------------------------------------------------------------------------------------
local node_view
local function variant_value(v)
  if v == nil then return nil end
  return v.value_
end
local component_view_mt
-- Call one of the engine's own (bound) methods of a component; the game cannot replace these.
local function call_bound(c, method, ...)
  local impl = E.IMPL[c.type_name]
  local fn = impl and impl.bound_methods and rawget(impl.bound_methods, method)
  if fn == nil then error("no method " .. tostring(method) .. " on " .. c.type_name, 3) end
  return fn(c.proxy, ...)
end
component_view_mt = {
  __index = function(view, key)
    local c = rawget(view, "_rec")
    if key == "type" then return c.type_name end
    if key == "enabled" then return c.enabled end
    if key == "exists" then return not c.removed end
    if key == "node" then return c.node and node_view(c.node) end
    if key == "get" then
      return function(_, prop)
        local impl = E.IMPL[c.type_name]
        local getter = impl.getters[prop] or rawget(impl.bound_methods, "Get" .. prop)
          or rawget(impl.bound_methods, "Is" .. prop)
        if getter == nil then return nil end
        return getter(c.proxy)
      end
    end
    if key == "call" then return function(_, method, ...) return call_bound(c, method, ...) end end
    return nil
  end,
  __newindex = function() error("battery views are read-only", 2) end,
  __tostring = function(view) return "ComponentView(" .. rawget(view, "_rec").type_name .. ")" end,
}
local function component_view(c) return setmetatable({_rec = c}, component_view_mt) end
local node_view_mt = {
  __index = function(view, key)
    local r = rawget(view, "_rec")
    if key == "exists" then return not r.removed and r.scene ~= nil end
    if key == "name" then return r.name end
    if key == "id" then return r.id end
    if key == "enabled" then return r.enabled end
    if key == "position" then return v3(r.px, r.py, r.pz) end
    if key == "rotation" then return quat(r.rw, r.rx, r.ry, r.rz) end
    if key == "scale" then return v3(r.sx, r.sy, r.sz) end
    if key == "world_position" then local w = E.world(r); return v3(w.m03, w.m13, w.m23) end
    if key == "world_rotation" then local w = E.world(r); return quat(w.ww, w.wx, w.wy, w.wz) end
    if key == "world_scale" then return v3(E.world_scale(r)) end
    if key == "direction" then local w = E.world(r); return v3(E.qrot(w.ww, w.wx, w.wy, w.wz, 0, 0, 1)) end
    if key == "parent" then return r.parent and node_view(r.parent) end
    if key == "tags" then local t = {}; for i, x in ipairs(r.tags) do t[i] = x end; return t end
    if key == "children" then
      local out = {}
      for i, c in ipairs(r.children) do out[i] = node_view(c) end
      return out
    end
    if key == "components" then
      local out = {}
      for i, c in ipairs(r.components) do out[i] = component_view(c) end
      return out
    end
    if key == "vars" then
      local out = {}
      for k, v in pairs(r.vars) do out[k] = variant_value(v) end
      return out
    end
    -- A variable loaded from a scene file is kept by its name's hash, as Urho3D keeps it: found by name too.
    if key == "var" then
      return function(_, name)
        local v = r.vars[name]
        if v == nil and type(name) == "string" then v = r.vars[E.sdbm(name)] end
        return variant_value(v)
      end
    end
    if key == "physics" then   -- 57_physics3d.lua, 57_physics2d.lua
      return (E.physics3d_view and E.physics3d_view(r, node_view)) or (E.physics2d_view and E.physics2d_view(r, node_view))
    end
    if key == "animation" then return E.animation_view(r, node_view) end   -- 64_animation_controller.lua
    if key == "particles" then return E.particles_view(r) end   -- 65_particles.lua, 65_particles2d.lua
    if key == "sprite_animation" then return E.sprite_animation_view(r) end   -- 65_spriter.lua
    if key == "component" then
      return function(_, type_name)
        for _, c in ipairs(r.components) do
          if c.type_name == type_name then return component_view(c) end
        end
        return nil
      end
    end
    if key == "child" then
      return function(_, name)
        local function find(x)
          for _, c in ipairs(x.children) do
            if c.name == name then return c end
            local f = find(c)
            if f then return f end
          end
        end
        local f = find(r)
        return f and node_view(f)
      end
    end
    return nil
  end,
  __newindex = function() error("battery views are read-only", 2) end,
  __tostring = function(view) local r = rawget(view, "_rec"); return sformat("NodeView(%s #%d)", r.name, r.id) end,
}
function node_view(r) return setmetatable({_rec = r}, node_view_mt) end

local function walk_nodes(fn)
  for _, scene in ipairs(E.scenes) do
    local function visit(r)
      if fn(r) then return true end
      for _, c in ipairs(r.children) do if visit(c) then return true end end
      return false
    end
    if visit(scene) then return end
  end
end

----------------------------------------------------------------------------------------------------
-- the harness table
----------------------------------------------------------------------------------------------------
local h = {}
local config = E.host.config
function h.start()
  local ok = with_game(E.start, config.entry)
  if E.network_state.role == "server" then E.host_call(E.host.net_start) end   -- then each client's Start()
  return ok
end
function h.run_frames(n)
  n = mfloor(n)
  return with_game(E.run_frames, n)
end
function h.run(seconds)
  return h.run_frames(mfloor(seconds / clock.step + 0.5))
end
function h.frame() return clock.frame end
function h.time() return clock.elapsed end
function h.exited() return state.exit_requested == true end
function h.key_down(key) E.queue_input({kind = "key_down", key = key}) end
function h.key_up(key) E.queue_input({kind = "key_up", key = key}) end
function h.press(key, frames)
  h.key_down(key)
  h.run_frames(frames or 1)
  h.key_up(key)
end
function h.text(s) E.queue_input({kind = "text", text = s}) end
function h.mouse_move(dx, dy) E.queue_input({kind = "mouse_move", dx = dx, dy = dy}) end
function h.mouse_to(x, y) E.queue_input({kind = "mouse_move", x = x, y = y}) end
function h.mouse_down(button) E.queue_input({kind = "mouse_down", button = button or 1}) end
function h.mouse_up(button) E.queue_input({kind = "mouse_up", button = button or 1}) end
function h.wheel(amount) E.queue_input({kind = "wheel", amount = amount}) end
function h.click(x, y, button)
  h.mouse_to(x, y)
  h.mouse_down(button)
  h.run_frames(1)
  h.mouse_up(button)
end
function h.touch_begin(id, x, y) E.queue_input({kind = "touch_begin", id = id, x = x, y = y}) end
function h.touch_move(id, x, y) E.queue_input({kind = "touch_move", id = id, x = x, y = y}) end
function h.touch_end(id, x, y) E.queue_input({kind = "touch_end", id = id, x = x, y = y}) end
function h.touch(x, y, id)
  id = id or 0
  h.touch_begin(id, x, y)
  h.run_frames(1)
  h.touch_end(id, x, y)
end
function h.find(name)
  local found
  walk_nodes(function(r) if r.name == name then found = r; return true end end)
  return found and node_view(found)
end
function h.find_all(name)
  local out = {}
  walk_nodes(function(r) if r.name == name then out[#out + 1] = node_view(r) end end)
  return out
end
function h.find_tagged(tag)
  local out = {}
  walk_nodes(function(r)
    for _, t in ipairs(r.tags) do if t == tag then out[#out + 1] = node_view(r); break end end
  end)
  return out
end
function h.scenes()
  local out = {}
  for i, s in ipairs(E.scenes) do out[i] = node_view(s) end
  return out
end
function h.count_nodes(pred)
  local n = 0
  walk_nodes(function(r) if not r.is_scene and (pred == nil or pred(node_view(r))) then n = n + 1 end end)
  return n
end
-- 2D physics (issue 16, docs/physics2d.md): h.track_contacts2d() starts the engine's contact log (gathering
-- contacts costs Box2D time, so the engine keeps none until asked); h.contacts2d(since) lists the contacts that
-- began at or after frame `since` (default: the current frame), oldest first: frame, node_a, node_b (node views),
-- trigger.  Bodies are read through component views: view:component("RigidBody2D"):get("linearVelocity").
function h.track_contacts2d() E.physics2d_track() end
function h.contacts2d(since)
  since = since or E.clock.frame
  local out = {}
  for _, c in ipairs(E.physics2d_log) do
    if c.frame >= since then
      out[#out + 1] = {frame = c.frame, node_a = c.node_a and node_view(c.node_a),
                       node_b = c.node_b and node_view(c.node_b), trigger = c.trigger}
    end
  end
  return out
end
-- A primitive global of the game (number, string, boolean), read without running game code.
function h.global(path)
  local value = E.game_env
  for part in path:gmatch("[^%.]+") do
    if type(value) ~= "table" then return nil end
    value = rawget(value, part)
  end
  local t = type(value)
  if t == "number" or t == "string" or t == "boolean" then return value end
  return nil
end
function h.log()
  local out = {}
  for i, e in ipairs(state.log) do out[i] = {level = e.level, message = e.message, frame = e.frame} end
  return out
end
function h.errors()
  local out = {}
  for i, e in ipairs(state.errors) do out[i] = {message = e.message, frame = e.frame, phase = e.phase} end
  return out
end
function h.missing_api()
  local out = {}
  for i, n in ipairs(state.missing_order) do out[i] = n end
  return out
end
function h.screen() return E.host.config.screen_width, E.host.config.screen_height end

-- The task's parameter values (battery/params.toml, drawn per edition: docs/tasks.md), a fresh copy per call, so a
-- battery that changes its copy changes nothing else.
local function copy_plain(v)
  if type(v) ~= "table" then return v end
  local out = {}
  for k, x in pairs(v) do out[k] = copy_plain(x) end
  return out
end
function h.params() return copy_plain(E.host.config.battery_params) end
-- The game's file at `path`, named as the game names it (relative to its folder, or "/user/..." for its user
-- folders): what the game wrote there during the run, else the deliverable's own file; nil when there is none.
-- Nothing goes to the game's log (a File opened on a missing file logs an error there).
function h.file(path)
  if type(path) ~= "string" then error("harness.file: the path must be a string", 2) end
  return E.fs_read(E.clean_path(path))
end
-- Put `data` at the game's `path` as if the game had written it (a damaged save file, a prepared level).
function h.write_file(path, data)
  if type(path) ~= "string" or type(data) ~= "string" then
    error("harness.write_file: the path and the data must be strings", 2)
  end
  E.fs_write(E.clean_path(path), data)
end
-- The window changes to width x height pixels at the next frame's input (a phone turned, a window resized):
-- graphics, the UI root and NanoVG follow it and the game gets ScreenMode (30_core.lua's E.resize_screen).
function h.resize(width, height)
  for i, v in ipairs({width, height}) do
    if math.type(v) ~= "integer" or v < 1 or v > 16384 then
      error(sformat("harness.resize: argument #%d must be an integer from 1 to 16384, got %s", i,
        tostring(v)), 2)
    end
  end
  E.queue_input({kind = "resize", width = width, height = height})
end
-- The player switches away from the game and back (a phone's home button, a call): at the next frame's input the
-- game gets UrhoX's AppWillEnterBackground and AppDidEnterBackground, or AppWillEnterForeground and
-- AppDidEnterForebackground. Frames keep running in between: the battery decides how long the game is away.
function h.app_background() E.queue_input({kind = "app_background"}) end
function h.app_foreground() E.queue_input({kind = "app_foreground"}) end
----------------------------------------------------------------------------------------------------
-- Native UI (engine/lua/runtime/8x_ui*.lua): read-only live views of the engine's own UI records, found by
-- name (depth-first from ui.root, then the modal root).  Positions are UI pixels on screen (the same as
-- screen pixels unless the game set ui.scale).  h.ui_at(x, y) is what a click at screen point (x, y) would
-- hit; h.click_ui(name) clicks an element's centre (h.click's convention: the release is processed by the
-- next frame run), failing when the element is hidden, disabled or covered.
----------------------------------------------------------------------------------------------------
local function find_ui(name)
  local function visit(r)
    if r.name == name then return r end
    for _, c in ipairs(r.children) do
      local f = visit(c)
      if f then return f end
    end
    return nil
  end
  return visit(E.ui_root) or visit(E.ui_modal_root)
end
local ui_view
local function ui_text_of(r)
  if r.type_name == "LineEdit" then return r.line_text end
  if r.text ~= nil then return r.text end
  if r.text_element ~= nil then return REC[r.text_element].text end
  return nil
end
local function ui_selection(r)
  local lv = r.selections and r or (r.list_view and REC[r.list_view])
  if lv == nil then return nil end
  return lv.selections[1]
end
local ui_view_mt = {
  __index = function(view, key)
    local r = rawget(view, "_rec")
    if key == "exists" then return E.ui_attached(r) end
    if key == "name" then return r.name end
    if key == "type" then return r.type_name end
    if key == "text" then return ui_text_of(r) end
    if key == "x" or key == "y" or key == "position" then
      local x, y = E.ui_screen(r)
      if key == "x" then return x elseif key == "y" then return y end
      return E.IntVector2_new(x, y)
    end
    if key == "width" then return r.w end
    if key == "height" then return r.h end
    if key == "size" then return E.IntVector2_new(r.w, r.h) end
    if key == "center" then
      local x, y = E.ui_screen(r)
      return E.IntVector2_new(x + r.w // 2, y + r.h // 2)
    end
    if key == "visible" then return E.ui_visible_effective(r) end
    if key == "visible_self" then return r.visible end
    if key == "enabled" then return r.enabled end
    if key == "focused" then return E.ui_state.focus == r end
    if key == "hovering" then return r.hovering end
    if key == "selected" then return r.selected end
    if key == "internal" then return r.internal end
    if key == "pressed" then return r.pressed end
    if key == "checked" then return r.checked end
    if key == "value" then
      if r.value ~= nil then return r.value end
      if r.slider ~= nil then return REC[r.slider].value end
      return nil
    end
    if key == "range" then
      if r.range ~= nil then return r.range end
      if r.slider ~= nil then return REC[r.slider].range end
      return nil
    end
    if key == "selection" then return ui_selection(r) end
    if key == "num_items" then
      local lv = r.selections and r or (r.list_view and REC[r.list_view])
      return lv and #lv.content.children
    end
    if key == "popup_shown" then return r.show_popup end
    if key == "font_size" then return r.font_size end
    if key == "view_position" then return r.view_x and E.IntVector2_new(r.view_x, r.view_y) end
    if key == "parent" then return r.parent and ui_view(r.parent) end
    if key == "children" then
      local out = {}
      for i, c in ipairs(r.children) do out[i] = ui_view(c) end
      return out
    end
    if key == "items" then
      local lv = r.selections and r or (r.list_view and REC[r.list_view])
      if lv == nil then return nil end
      local out = {}
      for i, c in ipairs(lv.content.children) do out[i] = ui_view(c) end
      return out
    end
    if key == "child" then
      return function(_, name)
        local f = E.ui_find_named(r, name, true)
        return f and ui_view(f)
      end
    end
    return nil
  end,
  __newindex = function() error("battery views are read-only", 2) end,
  __tostring = function(view)
    local r = rawget(view, "_rec")
    return sformat("UIView(%s '%s')", r.type_name, r.name)
  end,
}
function ui_view(r) return setmetatable({_rec = r}, ui_view_mt) end
local function describe_ui(r)
  if r == nil then return "nothing" end
  if r.name ~= "" then return sformat("%s '%s'", r.type_name, r.name) end
  local p = r.parent
  while p and p.name == "" do p = p.parent end
  return sformat("an unnamed %s%s", r.type_name, p and sformat(" in %s '%s'", p.type_name, p.name) or "")
end
function h.ui(name)
  local r = find_ui(name)
  return r and ui_view(r)
end
function h.ui_text(name)
  local r = find_ui(name)
  return r and ui_text_of(r)
end
-- What a click at screen point (x, y) would hit (nil: nothing), as a view.
function h.ui_at(x, y)
  local ux, uy = E.ui_from_system(mfloor(x), mfloor(y))
  local r = E.ui_element_at(ux, uy, true)
  return r and ui_view(r)
end
-- The element focused by the UI (nil: none).
function h.ui_focus()
  local r = E.ui_state.focus
  return r and ui_view(r)
end
function h.click_ui(name, button)
  local r = find_ui(name)
  if r == nil then error(sformat("h.click_ui: no UI element named '%s'", tostring(name)), 2) end
  if not E.ui_attached(r) then error(sformat("h.click_ui: %s is not in the UI", describe_ui(r)), 2) end
  if not E.ui_visible_effective(r) then error(sformat("h.click_ui: %s is not visible", describe_ui(r)), 2) end
  if r.w <= 0 or r.h <= 0 then error(sformat("h.click_ui: %s has no size (%dx%d)", describe_ui(r), r.w, r.h), 2) end
  local sx, sy = E.ui_screen(r)
  local cx, cy = sx + r.w // 2, sy + r.h // 2
  local hit = E.ui_element_at(cx, cy, true)
  local x = hit
  while x and x ~= r do x = x.parent end
  if x == nil then
    local why = r.enabled and "is covered" or "is not enabled"
    error(sformat("h.click_ui: %s %s: a click at its centre (%d, %d) hits %s", describe_ui(r), why, cx, cy,
      describe_ui(hit)), 2)
  end
  local px, py = E.ui_to_system(cx, cy)
  h.click(px, py, button)
  return ui_view(hit)
end
-- Viewport `index` as set with renderer:SetViewport: views of its scene and of its camera's node.
function h.viewport(index)
  local vp = E.renderer_state.viewports[index or 0]
  if vp == nil then return nil end
  local v = REC[vp]
  local cam = v.camera and REC[v.camera]
  local scene = v.scene and REC[v.scene]
  return {scene = scene and node_view(scene), camera = cam and component_view(cam),
    camera_node = cam and cam.node and node_view(cam.node)}
end
-- Where a world point appears for a camera view: normalised screen coordinates (0..1), as Urho3D's
-- Camera:WorldToScreenPoint.
function h.world_to_screen(camera_view, point)
  return camera_view:call("WorldToScreenPoint", v3(point.x, point.y, point.z))
end

----------------------------------------------------------------------------------------------------
-- NanoVG: the draw commands of the last frame shown (engine/lua/runtime/85_nanovg.lua), in draw order.
-- Bounds are screen pixels {x0, y0, x1, y1} after transform and scissor; colours are {r, g, b, a} in 0..1
-- (alpha times the global alpha) and rgba in 0..255.  A command is visible when its clipped bounds have area,
-- overlap the screen and its alpha is above zero; only visible commands are listed unless {all = true}.
----------------------------------------------------------------------------------------------------
local function nvg_visible(c)
  local sw, sh = E.host.config.screen_width, E.host.config.screen_height
  return c.x1 > c.x0 and c.y1 > c.y0 and c.a > 0 and c.x1 > 0 and c.y1 > 0 and c.x0 < sw and c.y0 < sh
end
local function rgba255(r, g, b, a)
  return {mfloor(r * 255 + 0.5), mfloor(g * 255 + 0.5), mfloor(b * 255 + 0.5), mfloor(a * 255 + 0.5)}
end
local function nvg_view(c)
  local v = {kind = c.kind, shape = c.shape, bounds = {c.x0, c.y0, c.x1, c.y1}, color = {c.r, c.g, c.b, c.a},
    rgba = rgba255(c.r, c.g, c.b, c.a), paint = c.paint, image = c.image, image_name = c.image_name,
    context = c.ctx, visible = nvg_visible(c)}
  if c.kind == "text" then
    v.text, v.x, v.y, v.align, v.face, v.font_file = c.text, c.x, c.y, c.align, c.face, c.font_file
    v.size, v.screen_size, v.box_text = c.size, c.screen_size, c.box_text
  else
    v.color2 = {c.r2, c.g2, c.b2, c.a2}
    if c.kind == "stroke" then v.width = c.width end
  end
  return v
end
local function nvg_list(opts, pred)
  local out = {}
  local all = type(opts) == "table" and opts.all
  for _, c in ipairs(E.nanovg_records()) do
    if (all or nvg_visible(c)) and (pred == nil or pred(c)) then out[#out + 1] = nvg_view(c) end
  end
  return out
end
-- Every draw command of the last frame shown.
function h.drawn(opts) return nvg_list(opts) end
-- The text draws: text, x, y (the anchor on screen), bounds, color, rgba, size, face, align.
function h.drawn_text(opts) return nvg_list(opts, function(c) return c.kind == "text" end) end
-- The draw commands whose bounds cover screen point (x, y), topmost last.
function h.drawn_at(x, y, opts)
  return nvg_list(opts, function(c) return x >= c.x0 and x <= c.x1 and y >= c.y0 and y <= c.y1 end)
end
-- The first text drawn that contains s (plain text; a nvgTextBox row, or failing that its whole box).
function h.find_text(s, opts)
  s = tostring(s)
  for _, v in ipairs(h.drawn_text(opts)) do
    if v.text:find(s, 1, true) then return v end
  end
  for _, v in ipairs(h.drawn_text(opts)) do
    if v.box_text and v.box_text:find(s, 1, true) then return v end
  end
  return nil
end
-- The frame number of the last NanoVG frame shown (-1 before the first).
function h.drawn_frame() return E.nanovg.last_frame end

----------------------------------------------------------------------------------------------------
-- platform: the service fakes' world (engine/lua/runtime/88_platform*.lua, docs/platform.md).  Views are
-- copies; writes change the world directly (no call is logged, no callback runs).
----------------------------------------------------------------------------------------------------
-- One user's cloud (default: the current user): {user_id, nickname, values, iscores, money}, plus the
-- server-side lists, items, messages and quotas; nil for a user the world does not know.
function h.cloud(user_id)
  local view = E.platform.view(user_id)
  if view == nil then return nil end
  local server = E.platform.server_view(view.user_id)
  view.lists, view.items, view.messages, view.quotas = server.lists, server.items, server.messages, server.quotas
  return view
end
-- The rank list of an iscores key as the services order it: {{rank, user_id, score}, ...}.
function h.rank_list(key, ascending)
  local out = {}
  for i, row in ipairs(E.platform.ranking(key, ascending == true)) do
    out[i] = {rank = i, user_id = row.id, score = row.score}
  end
  return out
end
function h.cloud_set(key, value, user_id) E.platform.harness_set(user_id, key, value, false) end
function h.cloud_set_int(key, value, user_id) E.platform.harness_set(user_id, key, value, true) end
-- The game's platform calls in order (optionally of one service): {seq, frame, service, method, args, due,
-- outcome, result}; outcome is pending until the answer's frame.
function h.platform_calls(service) return E.platform.calls(service) end
function h.platform_pending() return E.platform.pending() end
function h.user_id() return E.platform.me end

----------------------------------------------------------------------------------------------------
-- video (engine/lua/runtime/66_video.lua, docs/video.md)
----------------------------------------------------------------------------------------------------
-- Every VideoPlayer that loaded a source, in the order it first did: {id, source, state (VIDEO_*), state_name,
-- time, duration, ready, playing, loading, result, result_name, container, video_width, video_height, rate,
-- volume, muted, loop, loops, updates (Update() calls), texture_width, texture_height, frame_time (the time of
-- the frame the texture holds, nil before the first Update()), uploads}.  Copies.
function h.videos() return E.video_players() end

----------------------------------------------------------------------------------------------------
-- requirements and checks
----------------------------------------------------------------------------------------------------
local function new_check_api(req, at_frame)
  local api = {}
  local function record(name, passed, expected, actual, message)
    req.checks[#req.checks + 1] = {name = tostring(name), passed = passed and true or false,
      expected = plain(expected), actual = plain(actual), frame = at_frame or clock.frame, message = message}
    return passed
  end
  -- check.at(frame): the same checks, recorded as made at `frame` (values a battery copied then, checked later)
  function api.at(frame)
    if math.type(frame) ~= "integer" then error("check.at: frame must be an integer", 2) end
    return new_check_api(req, frame)
  end
  local function length(v)
    if type(v) == "number" then return nil end
    local x, y, z = v.x or v[1], v.y or v[2], v.z or v[3] or 0
    return x, y, z
  end
  function api.near(name, actual, expected, tolerance)
    tolerance = tolerance or 1e-4
    if type(actual) == "number" and type(expected) == "number" then
      return record(name, mabs(actual - expected) <= tolerance, expected, actual,
        sformat("within %g", tolerance))
    end
    if actual == nil then return record(name, false, expected, nil, "no value") end
    local ax, ay, az = length(actual)
    local ex, ey, ez = length(expected)
    local d = math.sqrt((ax - ex) ^ 2 + (ay - ey) ^ 2 + (az - ez) ^ 2)
    return record(name, d <= tolerance, expected, actual, sformat("distance within %g", tolerance))
  end
  function api.equal(name, actual, expected) return record(name, actual == expected, expected, actual) end
  function api.truthy(name, v) return record(name, v ~= nil and v ~= false, true, v ~= nil and v ~= false) end
  function api.falsy(name, v) return record(name, v == nil or v == false, false, v ~= nil and v ~= false) end
  function api.greater(name, a, b)
    return record(name, type(a) == "number" and a > b, sformat("> %s", tostring(b)), a)
  end
  function api.less(name, a, b)
    return record(name, type(a) == "number" and a < b, sformat("< %s", tostring(b)), a)
  end
  function api.between(name, a, lo, hi)
    return record(name, type(a) == "number" and a >= lo and a <= hi, sformat("[%s, %s]", tostring(lo), tostring(hi)), a)
  end
  function api.contains(name, container, item)
    local ok = false
    if type(container) == "string" and type(item) == "string" then
      ok = container:find(item, 1, true) ~= nil
    elseif type(container) == "table" then
      for _, v in pairs(container) do if v == item then ok = true; break end end
    end
    return record(name, ok, sformat("contains %s", tostring(item)), plain(container))
  end
  function api.fail(name, message) return record(name, false, nil, nil, message) end
  return api
end

----------------------------------------------------------------------------------------------------
-- Runs with roles (docs/platform.md): the battery runs in the server role and reaches a client role's harness
-- through h.role(name).  Only data crosses between the Lua states (67_netcodec.lua): numbers, strings, math
-- values and plain tables are copied; views and functions of the other role stay there, and the battery holds
-- numbered stand-ins that forward indexing and calls.  A client's harness cannot step frames (every role steps
-- with the server's h.run), so it offers the reading and input functions only.
----------------------------------------------------------------------------------------------------
local ROLE_FUNCTIONS = {"frame", "time", "exited", "key_down", "key_up", "text", "mouse_move", "mouse_to",
  "mouse_down", "mouse_up", "wheel", "touch_begin", "touch_move", "touch_end", "find", "find_all", "find_tagged",
  "scenes", "count_nodes", "global", "log", "errors", "missing_api", "screen", "ui", "ui_text", "ui_at",
  "ui_focus", "viewport", "world_to_screen", "drawn", "drawn_text", "drawn_at", "find_text", "drawn_frame",
  "network", "user_id"}
function h.network() return E.net_view() end
-- this role's side: objects lent to the battery of the server role, by number (1: the harness subset)
local lent, lent_ids
local MAX_LENT = 100000
local function lend(v)
  local n = lent_ids[v]
  if n then return n end
  if #lent >= MAX_LENT then error("a battery holds more than " .. MAX_LENT .. " stand-ins of another role", 0) end
  lent[#lent + 1] = v
  lent_ids[v] = #lent
  return #lent
end
function E.xrole_op(request_hex)
  if lent == nil then
    local root = {}
    for _, name in ipairs(ROLE_FUNCTIONS) do root[name] = h[name] end
    lent, lent_ids = {root}, {[root] = 1}
  end
  local req = E.net_decode(E.unhex(request_hex), function(n)
    local v = lent[n]
    if v == nil then error("a stand-in of another role that this role never lent", 0) end
    return v
  end)
  local ok, result = pcall(function()
    local target = lent[req.handle]
    if req.op == "index" then return target[req.key] end
    return target(table.unpack(req.args, 1, req.n))
  end)
  local answer = {ok = ok, value = result}
  if not ok then answer.value = E.error_text(result) end
  return E.hex(E.net_encode(answer, "a role's answer", lend))
end
-- the battery's side: stand-ins for what another role lent
local stand_in_mt = {}
local STAND_IN = setmetatable({}, {__mode = "k"})
local function role_request(role, req)
  local answer_hex = E.host_call(E.host.net_call, role, E.hex(E.net_encode(req, "a battery's request",
    function(v) local s = STAND_IN[v]; return s and s.role == role and s.handle or nil end)))
  local answer = E.net_decode(E.unhex(answer_hex), function(n)
    local p = setmetatable({}, stand_in_mt)
    STAND_IN[p] = {role = role, handle = n}
    return p
  end)
  if not answer.ok then error(answer.value, 3) end
  return answer.value
end
stand_in_mt.__index = function(p, key)
  local s = STAND_IN[p]
  return role_request(s.role, {op = "index", handle = s.handle, key = key})
end
stand_in_mt.__call = function(p, ...)
  local s = STAND_IN[p]
  return role_request(s.role, {op = "call", handle = s.handle, args = {...}, n = select("#", ...)})
end
stand_in_mt.__newindex = function() error("another role's views are read-only", 2) end
stand_in_mt.__tostring = function(p) local s = STAND_IN[p]; return sformat("<%s #%d>", s.role, s.handle) end
local function need_roles(what)
  if E.network_state.role ~= "server" then error(what .. ": this run has no roles (task.toml [network])", 3) end
end
-- h.role("client1"): a client role's harness (reading and input); h.role("server") is h itself.
function h.role(name)
  need_roles("h.role")
  if name == "server" then return h end
  local root = setmetatable({}, stand_in_mt)
  STAND_IN[root] = {role = tostring(name), handle = 1}
  role_request(tostring(name), {op = "index", handle = 1, key = "frame"})   -- an unknown name fails here
  return root
end
-- The roles of this run: {"server", "client1", ...}; {} in a standalone run.
function h.roles()
  if E.network_state.role ~= "server" then return {} end
  local out = {"server"}
  for i = 1, E.network_state.max_clients do out[#out + 1] = "client" .. i end
  return out
end
-- The link to a client role is lost (both ends hear it at their next frame) / is back (the client connects again).
function h.disconnect(name) need_roles("h.disconnect"); E.host_call(E.host.net_disconnect, name) end
function h.reconnect(name) need_roles("h.reconnect"); E.host_call(E.host.net_reconnect, name) end
-- A late client role (task.toml [network] late_clients) starts now: its Start(), then it connects to the server.
function h.join(name) need_roles("h.join"); E.host_call(E.host.net_join, name) end

local LAYERS = {completeness = true, richness = true}
local function requirement(id, opts, fn)
  if type(opts) == "function" then fn, opts = opts, {} end
  opts = opts or {}
  if type(id) ~= "string" or id == "" then error("requirement id must be a non-empty string", 2) end
  if results.requirements[id] then error("requirement " .. id .. " declared twice", 2) end
  local layer = opts.layer or "completeness"
  if not LAYERS[layer] then error("requirement layer must be completeness or richness", 2) end
  local caps = {}
  for i, c in ipairs(opts.capabilities or {}) do caps[i] = tostring(c) end
  tsort(caps)
  local description = opts.description or ""
  local manifest = E.manifest
  if manifest then
    -- the task's battery/requirements.toml is the one source of layers and tags; inline ones must agree
    local spec = manifest[id]
    if spec == nil then error("requirement " .. id .. " is not in battery/requirements.toml", 2) end
    if opts.layer ~= nil and opts.layer ~= spec.layer then
      error("requirement " .. id .. ": layer " .. tostring(opts.layer) .. " disagrees with battery/requirements.toml", 2)
    end
    if opts.capabilities ~= nil and table.concat(caps, ",") ~= table.concat(spec.capabilities, ",") then
      error("requirement " .. id .. ": capabilities disagree with battery/requirements.toml", 2)
    end
    layer, description = spec.layer, spec.description
    caps = {}
    for i, c in ipairs(spec.capabilities) do caps[i] = c end
  end
  local req = {id = id, description = description, layer = layer, capabilities = caps, checks = {}}
  results.requirements[id] = req
  results.order[#results.order + 1] = id
  local ok, err = pcall(fn, new_check_api(req))
  if not ok then
    req.checks[#req.checks + 1] = {name = "battery error", passed = false, frame = clock.frame,
      message = E.error_text(err)}
  end
  local passed = #req.checks > 0
  for _, c in ipairs(req.checks) do if not c.passed then passed = false end end
  req.passed = passed
  return passed
end

function E.make_battery_env()
  local B = {}
  for _, name in ipairs({"assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget", "rawlen",
                         "rawset", "select", "setmetatable", "getmetatable", "tonumber", "tostring", "type",
                         "xpcall", "_VERSION"}) do
    B[name] = E[name]
  end
  B.string, B.table, B.math, B.utf8 = E.copy(E.string), E.copy(E.table), E.copy(E.math), E.copy(E.utf8)
  B._G = B
  B.print = function(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    E.log("BATTERY", table.concat(parts, "\t"))
  end
  E.install_api(B, false)
  B.harness = h
  B.requirement = requirement
  return B
end
E.harness = h
