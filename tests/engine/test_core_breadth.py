"""Core, events and input breadth: release states, SDL key and scancode names, mouse visibility and mode with
their events and Reset*, screen joysticks, gestures without a touch device, global variables, StringUtils,
blocked objects, the virtual clock in milliseconds and LogMessage."""

from __future__ import annotations

from engine.testing import lua, new_engine

LSHIFT = 1073742049


def test_release_states_hold_for_the_frame_of_release() -> None:
    engine = new_engine()
    engine.start()
    probe = """return {input:GetKeyDown(KEY_A), input:GetKeyPress(KEY_A), input:GetKeyRelease(KEY_A),
      input:GetKeyRelease(65), input:GetScancodeRelease(SCANCODE_A), input:GetMouseButtonRelease(MOUSEB_LEFT),
      input:GetMouseButtonRelease(MOUSEB_RIGHT), input:GetQualifierPress(QUAL_SHIFT),
      input:GetQualifierRelease(QUAL_SHIFT), input:GetQualifierRelease(QUAL_ANY)}"""
    engine.queue_input({"kind": "key_down", "key": 97})
    engine.queue_input({"kind": "key_down", "key": LSHIFT})
    engine.queue_input({"kind": "mouse_down", "button": 1})
    engine.run_frames(1)
    assert lua(probe, engine) == [True, True, False, False, False, False, False, True, False, False]
    engine.queue_input({"kind": "key_up", "key": 97})
    engine.queue_input({"kind": "key_up", "key": LSHIFT})
    engine.queue_input({"kind": "mouse_up", "button": 1})
    engine.run_frames(1)
    assert lua(probe, engine) == [False, False, True, True, True, True, False, False, True, False]
    engine.run_frames(1)
    assert lua(probe, engine) == [False, False, False, False, False, False, False, False, False, False]


def test_input_begin_and_end_bracket_the_input_events() -> None:
    engine = new_engine("""
    order = {}
    function Start()
      SubscribeToEvent("InputBegin", function() order[#order + 1] = "begin" end)
      SubscribeToEvent("KeyDown", function(_, d) order[#order + 1] = "key" .. d.Key:GetInt() end)
      SubscribeToEvent("InputEnd", function() order[#order + 1] = "end" end)
    end
    """)
    engine.start()
    engine.queue_input({"kind": "key_down", "key": 32})
    engine.run_frames(2)
    assert lua("return order", engine) == ["begin", "key32", "end", "begin", "end"]


def test_key_and_scancode_names_are_sdl_s() -> None:
    out = lua("""
    local i = input
    return {i:GetScancodeName(SCANCODE_A), i:GetScancodeName(SCANCODE_RETURN), i:GetScancodeName(SCANCODE_LSHIFT),
      i:GetScancodeName(100), i:GetScancodeName(-1), i:GetScancodeName(600), i:GetScancodeName(SCANCODE_KP_ENTER),
      i:GetScancodeFromName("left shift"), i:GetScancodeFromName("Return"), i:GetScancodeFromName("nope"),
      i:GetScancodeFromName(""),
      i:GetKeyFromScancode(SCANCODE_A) == KEY_A, i:GetKeyFromScancode(SCANCODE_F1) == KEY_F1,
      i:GetKeyFromScancode(SCANCODE_DELETE), i:GetKeyFromScancode(100),
      i:GetKeyName(KEY_A), i:GetKeyName(KEY_SPACE), i:GetKeyName(KEY_F5), i:GetKeyName(KEY_LCTRL), i:GetKeyName(0),
      i:GetKeyName(KEY_DELETE), i:GetKeyName(233),
      i:GetKeyFromName("A"), i:GetKeyFromName("Space"), i:GetKeyFromName("Keypad Enter") == KEY_KP_ENTER,
      i:GetKeyFromName("\\195\\169"), i:GetKeyFromName("unknown"),
      i:GetScancodeFromKey(KEY_F1) == SCANCODE_F1, i:GetScancodeFromKey(KEY_ESCAPE)}
    """)
    assert out == ["A", "Return", "Left Shift", "", "", "", "Keypad Enter", 225, 40, 0, 0, True, True, 127, 0,
                   "A", "Space", "F5", "Left Ctrl", "", "Delete", "é", 97, 32, True, 233, 0, True, 41]


def test_input_scale_is_the_device_pixel_ratio() -> None:
    assert lua("local s = input:GetInputScale(); return {s.x, s.y, input.inputScale.x}") == [1.0, 1.0, 1.0]


def test_mouse_visibility_mode_and_grab_with_events_and_reset() -> None:
    engine = new_engine("""
    seen = {}
    function Start()
      SubscribeToEvent("MouseVisibleChanged", function(_, d) seen[#seen + 1] = {"visible", d.Visible:GetBool()} end)
      SubscribeToEvent("MouseModeChanged", function(_, d)
        seen[#seen + 1] = {"mode", d.Mode:GetInt(), d.MouseLocked:GetBool()} end)
    end
    """)
    engine.start()
    out = lua("""
    local i, r = input, {}
    r[#r + 1] = {i.mouseVisible, i.mouseMode, i.mouseLocked, i.mouseGrabbed}
    i:SetMouseVisible(false)                     -- event; absolute + hidden is locked
    r[#r + 1] = {i.mouseVisible, i.mouseLocked}
    i:SetMouseVisible(true, true)                -- suppressed: no event, the remembered value stays false
    i:ResetMouseVisible()                        -- back to hidden, with the event
    r[#r + 1] = {i.mouseVisible}
    i:SetMouseMode(MM_RELATIVE)                  -- hides (already hidden), event; the grab is left alone
    r[#r + 1] = {i.mouseMode, i.mouseVisible, i.mouseGrabbed, i.mouseLocked}
    i:SetMouseVisible(true)                      -- relative mode keeps it hidden but remembers the wish
    r[#r + 1] = {i.mouseVisible}
    i:SetMouseMode(MM_FREE, true)                -- suppressed: leaving relative shows it (event), mode not kept
    i:SetMouseGrabbed(true)
    r[#r + 1] = {i.mouseMode, i.mouseVisible, i.mouseGrabbed, i.mouseLocked}
    i:ResetMouseMode()                           -- back to relative, event
    r[#r + 1] = {i.mouseMode, i.mouseVisible}
    i:SetMouseGrabbed(false, true); i:ResetMouseGrabbed()
    r[#r + 1] = {i.mouseGrabbed}
    return r
    """, engine)
    assert out == [[True, 0, False, False], [False, True], [False], [1, False, False, True], [False],
                   [3, True, True, False], [1, False], [True]]
    assert lua("return seen", engine) == [
        ["visible", False], ["visible", False], ["mode", 1, True], ["visible", True], ["mode", 1, True]]


def test_screen_joysticks_are_ui_layouts_with_urho3d_ids() -> None:
    layout = ('<element type="UIElement"><attribute name="Name" value="Pad" />'
              '<element type="Button"><attribute name="Name" value="Button0" /></element>'
              '<element type="Button"><attribute name="Name" value="Button1" /></element>'
              '<element type="UIElement"><attribute name="Name" value="Hat0" /></element>'
              '<element type="UIElement"><attribute name="Name" value="Label" /></element></element>')
    engine = new_engine(files={"Data/Pad.xml": layout})
    out = lua("""
    local i, r = input, {}
    r[#r + 1] = {i:GetNumJoysticks(), i:AddScreenJoystick()}
    local id = i:AddScreenJoystick(cache:GetResource("XMLFile", "Data/Pad.xml"))
    local id2 = i:AddScreenJoystick(cache:GetResource("XMLFile", "Data/Pad.xml"))
    local js = i:GetJoystick(id)
    r[#r + 1] = {id, id2, i.numJoysticks, js.joystickID, js.name, js:GetNumButtons(), js.numHats, js:GetNumAxes(),
      js.controller, js:GetButtonDown(0), js:GetButtonPress(5), js:GetAxisPosition(0), js:GetHatPosition(0),
      i:GetJoystickByIndex(1).joystickID, i:GetJoystickByName("Pad") == js, i:IsScreenJoystickVisible(id)}
    i:SetScreenJoystickVisible(id, false)
    r[#r + 1] = {i:IsScreenJoystickVisible(id), i:RemoveScreenJoystick(id), i:RemoveScreenJoystick(id),
      i.numJoysticks, i:GetJoystick(id) == nil, ui.root:GetNumChildren(), i:AddScreenJoystick(
      cache:GetResource("XMLFile", "Data/Pad.xml"))}
    return r
    """, engine)
    assert out == [[0, -1], [0x40000000, 0x40000001, 2, 0x40000000, "Pad", 2, 1, 0, False, False, False, 0.0, 0,
                             0x40000001, True, True],
                   [False, True, False, 1, True, 1, 0x40000000]]
    errors = [e["message"] for e in engine.report().log if e["level"] == "ERROR"]
    assert errors[-1] == "Failed to remove non-existing screen joystick ID #1073741824"


def test_gestures_and_accelerometer_without_devices() -> None:
    engine = new_engine()
    out = lua("""
    local i = input
    local before = i:IsAccelerometerEnabled()
    i:EnableAccelerometer()
    local on = i.IsAccelerometerEnabled(i)
    i:DisableAccelerometer()
    return {before, on, i:IsAccelerometerEnabled(), i:RecordGesture(), i:SaveGestures("g.bin"),
      i:SaveGesture("g.bin", 7), i:LoadGestures("g.bin"), i:LoadGestures("missing.bin"), i:RemoveGesture(7)}
    """, engine)
    assert out == [False, True, False, False, False, True, 0, 0, False]
    errors = [e["message"] for e in engine.report().log if e["level"] == "ERROR"]
    assert errors == ["Can not record gesture: no touch devices", "Can not load gestures: no touch devices",
                      "Could not open file missing.bin"]


def test_global_vars_string_utils_and_sandboxed_system_info() -> None:
    out = lua("""
    local before = GetGlobalVar("score")
    SetGlobalVar("score", 42); SetGlobalVar("name", "ace")
    local vars = GetGlobalVars()
    return {before:IsEmpty(), GetGlobalVar("score"):GetInt(), vars:GetString("name"), vars:GetInt("score"),
      IsAlpha(65), IsAlpha(49), IsAlpha(233), IsDigit(55), IsDigit(300), ToUpper(97), ToUpper(49), ToLower(90),
      ToLower(1000), ToStringHex(255), ToStringHex(-1), GetFileSizeString(1000), GetFileSizeString(1536),
      GetFileSizeString(5 * 1024 * 1024), GetHostName(), GetLoginName(), GetOSVersion(), GetTotalMemory(),
      GetBinaryVersion()}
    """)
    assert out == [True, 42, "ace", 42, True, False, False, True, False, 65, 49, 122, 1000, "000000ff", "ffffffff",
                   "1000 b", "1.5 k", "5.0 M", "grader", "player", "Headless 1.0", 4294967296, 0]


def test_blocked_objects_receive_no_events_and_subscription_queries() -> None:
    engine = new_engine("""
    count = 0
    function Start()
      scene_ = Scene()
      SubscribeToEvent(scene_, "Ping", function() count = count + 1 end)
      SubscribeToEvent("Pong", function() count = count + 100 end)
    end
    """)
    engine.start()
    out = lua("""
    local r = {HasSubscribedToEvent(scene_, "Ping"), HasSubscribedToEvent("Pong"), scene_:GetBlockEvents()}
    scene_:SendEvent("Ping"); r[#r + 1] = count
    UnsubscribeFromEvents(scene_)
    scene_:SendEvent("Ping"); r[#r + 1] = count
    r[#r + 1] = HasSubscribedToEvent(scene_, "Ping")
    RegisterEventName("Pong")
    r[#r + 1] = scene_:HasSubscribedToEvent("Update")   -- the scene's own update subscription
    scene_:SetBlockEvents(true)
    r[#r + 1] = scene_:GetBlockEvents()
    local before = scene_:GetElapsedTime()
    return r, before
    """, engine)
    assert out[0] == [True, True, False, 1, 1, False, True, True]
    engine.run_frames(3)
    assert lua("return scene_:GetElapsedTime()", engine) == out[1]   # a blocked scene gets no Update


def test_time_and_engine_state() -> None:
    engine = new_engine()
    engine.start()
    engine.run_frames(3)
    out = lua("""
    local before = engine:GetMaxInactiveFps()
    engine:SetMaxInactiveFps(5)
    return {time:GetTimeSinceEpochMs() - time:GetTimeSinceEpoch() * 1000, time:GetTimerPeriod(), before,
      engine.GetMaxInactiveFps(engine)}
    """, engine)
    step_ms = lua("return math.floor(3 * time:GetTimeStep() * 1000)", engine)
    assert out == [step_ms, 0, 60, 5]


def test_log_message_event_without_recursion() -> None:
    engine = new_engine("""
    lines = {}
    function Start()
      SubscribeToEvent("LogMessage", function(_, d)
        lines[#lines + 1] = {d.Message:GetString(), d.Level:GetInt()}
        print("inside handler")    -- logged, but sends nothing while LogMessage is being sent
      end)
      log:SetTimeStamp(false)
      print("hello")
      log:Write(LOG_WARNING, "careful")
      log:Write(LOG_DEBUG, "hidden")   -- below the default INFO level
      log:SetTimeStamp(true)
      print("stamped")
    end
    """)
    engine.start()
    lines = lua("return lines", engine)
    assert lines[:2] == [["INFO: hello", 2], ["WARNING: careful", 3]]
    assert len(lines) == 3 and lines[2][1] == 2
    assert lines[2][0].startswith("[") and lines[2][0].endswith("] INFO: stamped")
    messages = [e["message"] for e in engine.report().log]
    assert messages.count("inside handler") == 3


def test_a_frame_renders_as_on_a_device_that_draws() -> None:
    """After the updates, Engine::Render's events in order: BeginRendering, the views (EndAllViewsRender, where games
    draw their NanoVG), NanoVGRender, the UI's PreRenderUI/PostPreRenderUI/PostRenderUI, EndRendering, EndFrame."""
    engine = new_engine("""
    order = {}
    function Start()
      for _, name in ipairs({"PostRenderUpdate", "BeginRendering", "BeginAllViewRender", "EndAllViewsRender",
                             "NanoVGRender", "PreRenderUI", "PostPreRenderUI", "PostRenderUI", "EndRendering",
                             "EndFrame"}) do
        SubscribeToEvent(name, function() order[#order + 1] = name end)
      end
      vg = nvgCreate(1)
      SubscribeToEvent("EndAllViewsRender", function()   -- replaces the handler above, as Urho3D does
        order[#order + 1] = "EndAllViewsRender"
        nvgBeginFrame(vg, 100, 100, 1); nvgBeginPath(vg); nvgRect(vg, 0, 0, 10, 10); nvgFill(vg); nvgEndFrame(vg)
      end)
    end
    """, {})
    engine.start()
    engine.run_frames(1)
    assert engine.report().outcome == "clean"
    assert lua("return order", engine) == [
        "PostRenderUpdate", "BeginRendering", "BeginAllViewRender", "EndAllViewsRender", "NanoVGRender",
        "PreRenderUI", "PostPreRenderUI", "PostRenderUI", "EndRendering", "EndFrame"]


def test_the_battery_sends_the_game_to_the_background_and_back() -> None:
    engine = new_engine("""
    seen = {}
    function Start()
      for _, name in ipairs({"AppWillEnterBackground", "AppDidEnterBackground", "AppWillEnterForeground",
                             "AppDidEnterForebackground"}) do
        SubscribeToEvent(name, function() seen[#seen + 1] = name .. "@" .. time.frameNumber end)
      end
    end
    """, {})
    assert engine.run_battery("""
    local h = harness
    h.start(); h.run_frames(2)
    h.app_background(); h.run_frames(3)
    h.app_foreground(); h.run_frames(1)
    """, "battery/main.lua")
    assert lua("return seen", engine) == ["AppWillEnterBackground@3", "AppDidEnterBackground@3",
                                          "AppWillEnterForeground@6", "AppDidEnterForebackground@6"]
