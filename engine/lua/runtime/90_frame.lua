-- The frame loop, as Urho3D's Engine::RunFrame orders it, on a virtual clock with a fixed step.
local ipairs = ipairs
local clock, state = E.clock, E.state

-- Scenes subscribe to Update when created (so they update in subscription order with the game's
-- handlers, like Urho3D's Scene::HandleUpdate) and run Scene::Update's sequence of events.  Script objects
-- update from their own SceneUpdate/ScenePostUpdate subscriptions (55_components.lua).
function E.update_scene(scene, step)
  if not scene.update_enabled or scene.removed then return end
  if scene.async and E.scene_async_update(scene) then return end   -- loading from a file (69_scene_files.lua)
  step = step * scene.time_scale
  local sender = scene.proxy
  E.send_event("SceneUpdate", {Scene = sender, TimeStep = step}, sender)
  E.send_event("AttributeAnimationUpdate", {Scene = sender, TimeStep = step}, sender)
  E.send_event("SceneSubsystemUpdate", {Scene = sender, TimeStep = step}, sender)
  if E.physics_update then E.physics_update(scene, step) end
  -- Urho3D sends the smoothing factor for this step, 1 - 2^(-step * constant), clamped to [0, 1]
  local constant = 1.0 - math.min(math.max(2.0 ^ (-step * scene.smoothing_constant), 0.0), 1.0)
  E.send_event("UpdateSmoothing", {Constant = constant, SquaredSnapThreshold =
    scene.snap_threshold * scene.snap_threshold}, sender)
  E.update_sound_sources(scene, step)
  E.send_event("ScenePostUpdate", {Scene = sender, TimeStep = step}, sender)
  scene.elapsed = scene.elapsed + step   -- after the events, as Scene::Update does
end

local base_scene_new = IMPL.Scene.new
IMPL.Scene.new = function(...)
  local proxy = base_scene_new(...)
  local r = E.REC[proxy]
  E.subscribe(r, nil, nil, "Update", function() return E.update_scene(r, clock.step) end)
  return proxy
end

function E.run_frame()
  local step = clock.step
  clock.frame = clock.frame + 1
  clock.elapsed = clock.frame * step
  state.frame = clock.frame
  -- the network reads what reached this role (Urho3D's Network handles BeginFrame before the game does)
  if E.net_begin_frame then E.net_begin_frame() end
  E.send_event("BeginFrame", {FrameNumber = clock.frame, TimeStep = step})
  E.process_input()
  E.send_event("Update", {TimeStep = step})
  if E.coroutine_update then E.coroutine_update(step) end   -- Urho3D's LuaScript, the first PostUpdate receiver
  E.send_event("PostUpdate", {TimeStep = step})
  -- the network's update at its rate (Urho3D's Network handles RenderUpdate before the game does)
  if E.net_post_update then E.net_post_update(step) end
  E.send_event("RenderUpdate", {TimeStep = step})
  E.send_event("PostRenderUpdate", {TimeStep = step})
  -- Engine::Render, as on a device that draws (a headless Urho3D skips it): Graphics::BeginFrame sends
  -- BeginRendering, the renderer draws its views (UrhoX announces them with BeginAllViewRender) and sends
  -- EndAllViewsRender, where games and TapTap's libraries draw their NanoVG; then NanoVG's own NanoVGRender; then
  -- the UI renders (UrhoX's PreRenderUI, PostPreRenderUI, PostRenderUI); Graphics::EndFrame sends EndRendering.
  E.send_event("BeginRendering", {})
  E.send_event("BeginAllViewRender", {})
  E.send_event("EndAllViewsRender", {})
  if E.render_hook then E.render_hook(step) end
  E.send_event("PreRenderUI", {})
  E.send_event("PostPreRenderUI", {})
  E.send_event("PostRenderUI", {})
  E.send_event("EndRendering", {})
  E.send_event("EndFrame", {})
end

local max_frames
E.on_configure(function(config) max_frames = math.floor(config.sim_seconds_limit / config.time_step + 0.5) end)
function E.run_frames(n)
  for _ = 1, n do
    if state.exit_requested or state.aborted then return end
    if clock.frame >= max_frames then
      state.sim_limit_reached = true
      return
    end
    E.run_frame()
    if E.net_after_frame then E.net_after_frame() end   -- a server role steps its clients (67_network.lua)
  end
end

-- Load the entry script and call Start(), as UrhoX's LuaScript does.
function E.start(entry)
  if state.started then return end
  state.started = true
  local G = E.game_env
  local read_ok, source = pcall(E.fs_read, entry)
  if not read_ok then
    E.state.errors[#E.state.errors + 1] = {message = E.error_text(source), traceback = "", frame = 0,
      phase = "load"}
    return
  end
  if source == nil then
    E.state.errors[#E.state.errors + 1] = {message = "entry script " .. entry .. " not found", traceback = "",
      frame = 0, phase = "load"}
    return
  end
  local fn, err = load(source, "@" .. entry, "t", G)
  if not fn then
    E.state.errors[#E.state.errors + 1] = {message = err, traceback = "", frame = 0, phase = "load"}
    return
  end
  if not E.protected("load", fn) then return end
  local start = rawget(G, "Start")
  if type(start) == "function" then
    E.protected("Start", start)
  else
    E.log("ERROR", "Start() function not found in " .. entry)
  end
end

-- The host caught Lua's memory error outside every handler (Engine._driving): the game's data still filled the
-- limit when the engine's own code needed memory. The run ends as one whose handler ran out of memory.
function E.memory_exhausted()
  if not state.aborted then state.aborted = "memory" end
  E.disarm_budget()
  E.leave_game()
  E.battery_running = false
end

-- Run fn(...) at the top level: returns true, or false after an abort (budget, memory) was recorded.
function E.top(fn, ...)
  E.events_unwound()
  local ok, err = pcall(fn, ...)
  if ok then return true end
  if err == "not enough memory" and not state.aborted then state.aborted = "memory" end
  if err == E.ABORT or state.aborted then
    E.disarm_budget()   -- the run is over: battery code after this point runs unmetered
    return false
  end
  -- an engine or battery error outside any game handler
  state.errors[#state.errors + 1] = {message = E.clip_text(E.error_text(err)), traceback = "", frame = state.frame,
    phase = "engine"}
  return false
end
