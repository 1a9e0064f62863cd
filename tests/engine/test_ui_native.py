"""Urho3D's native UI: layout, hit-testing, focus, input dispatch, the widgets, styles and the battery helpers.

Expected values follow Urho3D's UIElement / UI / widget sources (read for behaviour): screen positions from
anchors and pivot, UIElement::CalculateLayout's distribution, UI::GetElementAt's rules, and the event order of
UI::ProcessClickBegin / ProcessClickEnd (Pressed, Click, UIMouseClick on the press; Released, ClickEnd,
UIMouseClickEnd on the release).
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from engine import Engine, RunRequest, run_evidence, run_in_subprocess
from engine.testing import lua, new_engine

# Game-side event recorder: Watch{"Pressed", ...} logs every listed event with its parameters.
RECORDER = """
events = {}
local PTRS = {"Element", "Item", "BeginElement", "ClickedElement", "Source", "Target"}
local INTS = {"X", "Y", "XBegin", "YBegin", "Button", "Buttons", "Qualifiers", "Selection", "ElementX", "ElementY",
  "DX", "DY", "NumButtons", "Key", "Width", "Height", "Offset"}
local BOOLS = {"State", "ByKey", "Visible", "Modal", "Pressed", "Accept"}
function Log(name)
  return function(eventType, eventData)
    local parts = {name}
    for _, k in ipairs(PTRS) do
      local v = eventData[k]
      if v ~= nil then
        local p = v:GetPtr("UIElement")
        parts[#parts + 1] = k .. "=" .. (p and p.name or "nil")
      end
    end
    for _, k in ipairs(INTS) do
      local v = eventData[k]
      if v ~= nil then parts[#parts + 1] = k .. "=" .. v:GetInt() end
    end
    for _, k in ipairs(BOOLS) do
      local v = eventData[k]
      if v ~= nil then parts[#parts + 1] = k .. "=" .. tostring(v:GetBool()) end
    end
    if eventData["Text"] ~= nil then parts[#parts + 1] = "Text=" .. eventData["Text"]:GetString() end
    if eventData["Value"] ~= nil then parts[#parts + 1] = string.format("Value=%.4g", eventData["Value"]:GetFloat()) end
    events[#events + 1] = table.concat(parts, " ")
  end
end
function Watch(names)
  for _, n in ipairs(names) do SubscribeToEvent(n, Log(n)) end
end
"""


def ui_game(body: str, files: dict[str, str] | None = None) -> Engine:
    """An engine whose Start() runs `body` (with the event recorder loaded), started."""
    engine = new_engine("function Start()\n" + body + "\nend\n" + RECORDER, files)
    engine.start()
    assert engine.report().errors == [], engine.report().errors
    return engine


def events(engine: Engine) -> list[str]:
    out = lua("local copy = {}; for i, e in ipairs(events) do copy[i] = e end; events = {}; return copy", engine)
    return out or []


def click(engine: Engine, x: int, y: int, button: int = 1) -> None:
    engine.queue_input({"kind": "mouse_move", "x": x, "y": y})
    engine.queue_input({"kind": "mouse_down", "button": button})
    engine.run_frames(1)
    engine.queue_input({"kind": "mouse_up", "button": button})
    engine.run_frames(1)


def drag(engine: Engine, path: list[tuple[int, int]], button: int = 1) -> None:
    """Press at path[0], move through the other points one frame each, release at the last."""
    x, y = path[0]
    engine.queue_input({"kind": "mouse_move", "x": x, "y": y})
    engine.queue_input({"kind": "mouse_down", "button": button})
    engine.run_frames(1)
    for x, y in path[1:]:
        engine.queue_input({"kind": "mouse_move", "x": x, "y": y})
        engine.run_frames(1)
    engine.queue_input({"kind": "mouse_up", "button": button})
    engine.run_frames(1)


def key(engine: Engine, code: int) -> None:
    engine.queue_input({"kind": "key_down", "key": code})
    engine.run_frames(1)
    engine.queue_input({"kind": "key_up", "key": code})
    engine.run_frames(1)


def clean(engine: Engine) -> None:
    report = engine.report()
    assert report.outcome == "clean", (report.errors, report.missing_api)


KEY_RETURN, KEY_BACKSPACE, KEY_LEFT, KEY_DOWN, KEY_ESCAPE, KEY_TAB, KEY_SPACE = (
    13, 8, 1073741904, 1073741905, 27, 9, 32)
LSHIFT, LCTRL = 1073742049, 1073742048


# ----------------------------------------------------------------------------------------------------------
# Geometry and layout
# ----------------------------------------------------------------------------------------------------------

def test_screen_position_follows_alignment_pivot_and_nesting() -> None:
    engine = ui_game("""
      local panel = ui.root:CreateChild("UIElement", "Panel")
      panel:SetSize(301, 201)
      panel:SetAlignment(HA_CENTER, VA_BOTTOM)
      panel:SetPosition(10, -20)
      local child = panel:CreateChild("UIElement", "Child")
      child:SetSize(51, 31)
      child:SetAlignment(HA_RIGHT, VA_CENTER)
      child:SetPosition(-4, 2)
      local grand = child:CreateChild("UIElement", "Grand")
      grand:SetSize(10, 10)
      grand:SetPosition(5, 6)
    """)
    out = lua("""
      local p = ui.root:GetChild("Panel")
      local c = ui.root:GetChild("Child", true)
      local g = ui.root:GetChild("Grand", true)
      local function xy(v) return {v.x, v.y} end
      return {xy(p.screenPosition), xy(c.screenPosition), xy(g.screenPosition),
        p.horizontalAlignment, p.verticalAlignment, c.horizontalAlignment, c.verticalAlignment,
        g:IsInside(IntVector2(c.screenPosition.x + 5, c.screenPosition.y + 6), true),
        g:IsInside(IntVector2(c.screenPosition.x + 4, c.screenPosition.y + 6), true),
        xy(g:ScreenToElement(IntVector2(0, 0))), xy(g:ElementToScreen(IntVector2(1, 2)))}
    """, engine)
    # Urho3D: parent_screen + (int)(parent_size * anchor) - (int)(size * pivot) + position
    px, py = 640 - 150 + 10, 720 - 201 - 20
    cx, cy = px + 301 - 51 - 4, py + 100 - 15 + 2
    gx, gy = cx + 5, cy + 6
    assert out[:3] == [[px, py], [cx, cy], [gx, gy]]
    assert out[3:7] == [1, 2, 2, 1]   # HA_CENTER, VA_BOTTOM, HA_RIGHT, VA_CENTER
    assert out[7] is True and out[8] is False
    assert out[9] == [-gx, -gy] and out[10] == [gx + 1, gy + 2]


def test_vertical_and_horizontal_layouts_distribute_like_urho3d() -> None:
    engine = ui_game("""
      local col = ui.root:CreateChild("UIElement", "Col")
      col:SetLayout(LM_VERTICAL, 4, IntRect(3, 5, 7, 9))
      for i, h in ipairs({20, 30}) do
        local e = col:CreateChild("UIElement", "C" .. i)
        e:SetMinSize(40 + i, h)
      end
      local row = ui.root:CreateChild("UIElement", "Row")
      row:SetPosition(0, 300)
      row:SetLayout(LM_HORIZONTAL, 2, IntRect(1, 1, 1, 1))
      row:SetFixedWidth(105)
      for i = 1, 3 do
        local e = row:CreateChild("UIElement", "R" .. i)
        e:SetMinHeight(10)
      end
      row:GetChild("R2"):SetMaxWidth(20)
      row:GetChild("R3"):SetLayoutFlexScale(Vector2(2, 1))
      row:UpdateLayout()
    """)
    out = lua("""
      local function geo(n)
        local e = ui.root:GetChild(n, true)
        return {e.position.x, e.position.y, e.width, e.height}
      end
      return {geo("Col"), geo("C1"), geo("C2"), geo("Row"), geo("R1"), geo("R2"), geo("R3"),
              ui.root:GetChild("Col").minSize.x}
    """, engine)
    col, c1, c2, row, r1, r2, r3, col_min_w = out
    # vertical: width = widest min + borders, children stacked with spacing, stretched to the inner width
    assert col[2:] == [3 + 42 + 7, 5 + 20 + 4 + 30 + 9]
    assert c1 == [3, 5, 42, 20] and c2 == [3, 29, 42, 30]
    # horizontal in 105 px: 105 - 2 - 2 * 2 = 99 to share, 33 each; R2 capped at 20, R3 (flex 2) takes 66; the
    # error pass removes 20 from all three (-6 each, the remainder 2 to the first and last): 26, 14, 59
    assert row[2:] == [105, 12]
    assert [r1[2], r2[2], r3[2]] == [26, 14, 59]
    assert [r1[0], r2[0], r3[0]] == [1, 29, 45]
    assert r1[3] == r2[3] == r3[3] == 10 and r1[1] == 1
    assert col_min_w == 0   # the element's own min size is untouched; the layout minimum is separate


def test_layout_flex_and_remainder_distribution() -> None:
    engine = ui_game("""
      local row = ui.root:CreateChild("UIElement", "Row")
      row:SetLayout(LM_HORIZONTAL, 0)
      row:SetFixedWidth(100)
      for i = 1, 3 do row:CreateChild("UIElement", "R" .. i) end
      row:UpdateLayout()
    """)
    widths = lua("local r = ui.root:GetChild('Row'); return {r:GetChild(0).width, r:GetChild(1).width, "
                 "r:GetChild(2).width}", engine)
    # 100 / 3 = 33 remainder 1: the accumulated remainder reaches 0.5 at the second child
    assert widths == [33, 34, 33]


def test_layout_float32_rounding_matches_a_real_float32() -> None:
    # the layout's remainder accumulator rounds to float32 without a string round trip: it must agree with
    # string.pack's float32 on the accumulator sequences layouts produce and on random values, ties included
    engine = new_engine()
    check = engine.runtime.eval("""function(E)
      local f32, fast = E.MATH.f32, E.ui_f32_fast
      local bad, seed = 0, 12345
      local function rnd() seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 end
      for n = 1, 120 do
        for r = 1, n - 1, 5 do
          local add = f32(r / n)
          local a, b = 0.0, 0.0
          for _ = 1, n do
            a, b = f32(a + add), fast(b + add)
            if a ~= b then bad = bad + 1 end
            if a >= 0.5 then a, b = f32(a - 1.0), fast(b - 1.0) end
          end
        end
      end
      for _ = 1, 20000 do
        local x = (rnd() * 4 - 2) * 2.0 ^ -math.floor(rnd() * 12)
        if f32(x) ~= fast(x) then bad = bad + 1 end
      end
      for k = 1, 2000 do
        local p = 2.0 ^ -(k % 10)
        local tie = p + (2 * k + 1) * p * 2.0 ^ -24
        if f32(tie) ~= fast(tie) or f32(-tie) ~= fast(-tie) then bad = bad + 1 end
      end
      return bad
    end""")
    assert check(engine.E) == 0


def urho_face(point_size: float) -> tuple[int, float]:
    """Anonymous Pro's 'a' advance and row height at `point_size`, by Urho3D's FreeType rule, read independently
    of the engine: y_ppem = round(pt * 96 / 72); hinted advances are whole pixels; the row height is hhea's
    rounded height or OS/2's ascender plus descender, whichever is larger."""
    from fontTools.ttLib import TTFont

    from engine._fonts import STOCK_FONTS

    font = TTFont(str(STOCK_FONTS["Fonts/Anonymous Pro.ttf"].path))
    upm, hhea, os2 = font["head"].unitsPerEm, font["hhea"], font["OS/2"]
    ppem = round(point_size * 96 / 72)
    scale = ppem / upm
    ascender = max(math.ceil(hhea.ascent * scale), max(os2.usWinAscent, os2.sTypoAscender) * scale)
    descender = max(math.floor(hhea.descent * scale), max(os2.usWinDescent, os2.sTypoDescender) * scale)
    height = max(round((hhea.ascent - hhea.descent + hhea.lineGap) * scale), ascender + descender)
    return round(font["hmtx"]["a"][0] * scale), height


@pytest.mark.usefixtures("stand_in_fonts")
def test_text_sizes_and_layout_min_sizes() -> None:
    engine = ui_game("""
      local t = ui.root:CreateChild("Text", "T")
      t:SetFont(cache:GetResource("Font", "Fonts/Anonymous Pro.ttf"), 10)
      t.text = "abcdefghij"
      local two = ui.root:CreateChild("Text", "Two")
      two.text = "ab\\ncd"
    """)
    out = lua("local t = ui.root:GetChild('T'); local two = ui.root:GetChild('Two'); "
              "return {t.width, t.height, t.minWidth, t:IsFixedHeight(), two.height, two.numRows, "
              "t:GetCharPosition(3).x}", engine)
    advance, row = urho_face(10)            # Anonymous Pro is monospaced: every letter advances alike
    _, row12 = urho_face(12)                # "Two" has no font: the stock style's Anonymous Pro at 12 pt
    assert out == [10 * advance, round(row), 10 * advance, True, 2 * round(row12), 2, 3 * advance]
    assert (advance, round(row), round(row12)) == (7, 13, 17)    # the numbers themselves, for the record


# ----------------------------------------------------------------------------------------------------------
# Hit-testing
# ----------------------------------------------------------------------------------------------------------

HIT_SCENE = """
  local back = ui.root:CreateChild("Button", "Back")
  back:SetPosition(100, 100); back:SetSize(200, 200)
  local front = ui.root:CreateChild("Button", "Front")
  front:SetPosition(150, 150); front:SetSize(100, 100)
  local label = front:CreateChild("Text", "Label")
  label.text = "hi"
  local inner = back:CreateChild("Button", "Inner")
  inner:SetPosition(10, 10); inner:SetSize(30, 30)
  local hidden = ui.root:CreateChild("Button", "Hidden")
  hidden:SetPosition(400, 100); hidden:SetSize(50, 50); hidden.visible = false
  local off = ui.root:CreateChild("Button", "Off")
  off:SetPosition(500, 100); off:SetSize(50, 50); off.enabled = false
  local clip = ui.root:CreateChild("Window", "Clip")
  clip:SetPosition(600, 100); clip:SetSize(50, 50)
  local out = clip:CreateChild("Button", "OutOfClip")
  out:SetPosition(60, 0); out:SetSize(40, 40)
  local loose = ui.root:CreateChild("UIElement", "Loose")
  loose:SetPosition(700, 100); loose:SetSize(10, 10); loose.enabled = true
  local far = loose:CreateChild("Button", "FarChild")
  far:SetPosition(50, 0); far:SetSize(20, 20)
"""


def at(engine: Engine, x: int, y: int, enabled_only: bool = True) -> str | None:
    flag = "true" if enabled_only else "false"
    return lua(f"local e = ui:GetElementAt({x}, {y}, {flag}); return e and e.name", engine)


def test_hit_testing_rules() -> None:
    engine = ui_game(HIT_SCENE)
    assert at(engine, 120, 120) == "Inner"          # a nested child over its parent
    assert at(engine, 105, 105) == "Back"
    assert at(engine, 200, 200) == "Front"          # the later sibling (same priority) is on top
    assert at(engine, 151, 151) == "Front"          # the disabled Text child is skipped: its button is hit
    assert at(engine, 151, 151, False) == "Label"   # ...unless enabledOnly is false
    assert at(engine, 410, 110) is None             # invisible
    assert at(engine, 510, 110) is None             # disabled (and nothing enabled under it)
    assert at(engine, 510, 110, False) == "Off"
    assert at(engine, 665, 110) is None             # outside a clipping parent
    assert at(engine, 755, 105) == "FarChild"       # outside a non-clipping parent: still found
    assert at(engine, 99, 99) is None
    assert lua("return ui:GetElementAt(IntVector2(120, 120)).name", engine) == "Inner"
    # priority: raise Back above Front
    lua("ui.root:GetChild('Back').priority = 5", engine)
    assert at(engine, 200, 200) == "Back"
    assert lua("return ui.root:GetChild(ui.root.numChildren - 1).name", engine) == "Back"  # sorted by priority
    clean(engine)


def test_layout_children_hit_and_bring_to_front() -> None:
    engine = ui_game("""
      local w1 = ui.root:CreateChild("Window", "W1")
      w1:SetPosition(0, 0); w1:SetSize(200, 200)
      local w2 = ui.root:CreateChild("Window", "W2")
      w2:SetPosition(100, 100); w2:SetSize(200, 200)
      local list = ui.root:CreateChild("UIElement", "List")
      list:SetPosition(400, 0)
      list:SetLayout(LM_VERTICAL, 2)
      for i = 1, 4 do
        local b = list:CreateChild("Button", "Item" .. i)
        b:SetMinSize(80, 20)
      end
    """)
    assert at(engine, 150, 150) == "W2"
    click(engine, 50, 50)                      # clicking W1 brings it to front (BringToFront, window priority)
    assert at(engine, 150, 150) == "W1"
    assert lua("return {ui.root:GetChild('W1').priority, ui.root:GetChild('W2').priority}", engine) == [0, -1]
    # rows of 20 px with 2 px gaps
    assert [at(engine, 420, y) for y in (5, 21, 25, 47, 69, 90)] == ["Item1", None, "Item2", "Item3", "Item4", None]
    clean(engine)


def test_modal_window_is_hit_first_and_restricts_focus() -> None:
    engine = ui_game("""
      local b = ui.root:CreateChild("Button", "Under")
      b:SetPosition(0, 0); b:SetSize(400, 400)
      local side = ui.root:CreateChild("Window", "Side")
      side:SetPosition(500, 0); side:SetSize(100, 20)
      local other = side:CreateChild("LineEdit", "Other")
      other:SetSize(100, 20)
      local dlg = ui.root:CreateChild("Window", "Dialog")
      dlg:SetPosition(100, 100); dlg:SetSize(100, 100)
      local ok = dlg:CreateChild("Button", "Ok")
      ok:SetSize(50, 50)
      dlg.modal = true
      Watch({"ModalChanged"})
    """)
    assert lua("return {ui.modalElement, ui.rootModalElement.numChildren, "
               "ui.root:GetChild('Dialog', true) == nil}", engine) == [True, 1, True]
    assert at(engine, 110, 110) == "Ok"
    assert at(engine, 300, 300) == "Under"       # outside the modal window, the root's elements are still hit
    click(engine, 510, 5)                         # focus cannot move outside the modal window
    assert lua("return ui.focusElement", engine) is None
    click(engine, 110, 110)
    assert lua("return ui.focusElement.name", engine) == "Ok"
    key(engine, KEY_ESCAPE)                       # Escape dismisses an auto-dismiss modal window
    assert lua("return {ui.modalElement, ui.root:GetChild('Dialog').modal}", engine) == [False, False]
    assert events(engine) == ["ModalChanged Element=Dialog Modal=false"]
    clean(engine)


# ----------------------------------------------------------------------------------------------------------
# Dispatch
# ----------------------------------------------------------------------------------------------------------

def test_button_click_sends_pressed_click_released_in_urho3d_order() -> None:
    engine = ui_game("""
      local b = ui.root:CreateChild("Button", "Go")
      b:SetPosition(100, 50); b:SetSize(80, 30)
      Watch({"Pressed", "Released", "Click", "ClickEnd", "UIMouseClick", "UIMouseClickEnd", "FocusChanged",
             "Focused"})
      SubscribeToEvent(b, "Released", function() released_by_sender = (released_by_sender or 0) + 1 end)
    """)
    click(engine, 110, 60)
    assert events(engine) == [
        "Focused Element=Go ByKey=false",
        "FocusChanged Element=Go ClickedElement=Go",
        "Pressed Element=Go",
        "Click Element=Go X=110 Y=60 Button=1 Buttons=1 Qualifiers=0",
        "UIMouseClick Element=Go X=110 Y=60 Button=1 Buttons=1 Qualifiers=0",
        # no "Released" here: the script also subscribed to Released from this button, and Urho3D calls a
        # receiver once per event, by its sender-specific handler (reference scenario custom_events)
        "ClickEnd Element=Go BeginElement=Go X=110 Y=60 Button=1 Buttons=0 Qualifiers=0",
        "UIMouseClickEnd Element=Go BeginElement=Go X=110 Y=60 Button=1 Buttons=0 Qualifiers=0",
    ]
    assert lua("return {released_by_sender, ui:GetElementAt(110, 60).pressed}", engine) == [1, False]
    # a click on nothing: UIMouseClick with a null element; focus is lost
    click(engine, 600, 600)
    assert events(engine) == [
        "FocusChanged Element=nil ClickedElement=nil",
        "UIMouseClick Element=nil X=600 Y=600 Button=1 Buttons=1 Qualifiers=0",
    ]   # no UIMouseClickEnd: the release ends the drag data of a press, and this press began on nothing
    clean(engine)


def test_release_outside_the_button_sends_no_released_and_unpresses() -> None:
    engine = ui_game("""
      local b = ui.root:CreateChild("Button", "Go")
      b:SetSize(50, 50)
      Watch({"Pressed", "Released", "DragBegin", "DragMove", "DragEnd"})
    """)
    drag(engine, [(10, 10), (300, 300)])
    log = events(engine)
    assert log[0] == "Pressed Element=Go"
    assert "Released Element=Go" not in log
    assert log[1:] == [
        "DragBegin Element=Go X=10 Y=10 Buttons=1 ElementX=10 ElementY=10 NumButtons=1",
        "DragMove Element=Go X=300 Y=300 Buttons=1 ElementX=300 ElementY=300 DX=290 DY=290 NumButtons=1",
        "DragEnd Element=Go X=300 Y=300 Buttons=1 ElementX=300 ElementY=300 NumButtons=1",
    ]
    assert lua("return ui.root:GetChild('Go').pressed", engine) is False
    clean(engine)


def test_button_repeat_and_keyboard_activation() -> None:
    engine = ui_game("""
      local b = ui.root:CreateChild("Button", "Rep")
      b:SetSize(50, 50)
      b:SetRepeat(0.1, 10)
      Watch({"Pressed", "Released"})
    """)
    engine.queue_input({"kind": "mouse_move", "x": 10, "y": 10})
    engine.queue_input({"kind": "mouse_down", "button": 1})
    engine.run_frames(30)    # 0.5 s held: the first press, then repeats after 0.1 s every 0.1 s
    engine.queue_input({"kind": "mouse_up", "button": 1})
    engine.run_frames(1)
    log = events(engine)
    assert log.count("Pressed Element=Rep") == 5 and log[-1] == "Released Element=Rep"
    key(engine, KEY_SPACE)   # the focused button is clicked by Space
    assert events(engine) == ["Pressed Element=Rep", "Released Element=Rep"]
    clean(engine)


def test_checkbox_toggles_and_reports_state() -> None:
    engine = ui_game("""
      local c = ui.root:CreateChild("CheckBox", "Box")
      c:SetPosition(10, 10); c:SetSize(16, 16)
      Watch({"Toggled"})
      -- this receiver's handler for the box's own Toggled is the one called (Urho3D calls a receiver once)
      SubscribeToEvent(c, "Toggled", function(t, d) last_state = d["State"]:GetBool(); Log("Toggled")(t, d) end)
    """)
    click(engine, 12, 12)
    assert lua("return {ui.root:GetChild('Box').checked, last_state}", engine) == [True, True]
    click(engine, 12, 12)
    key(engine, KEY_SPACE)
    assert events(engine) == ["Toggled Element=Box State=true", "Toggled Element=Box State=false",
                              "Toggled Element=Box State=true"]
    lua("ui.root:GetChild('Box').editable = false", engine)
    click(engine, 12, 12)
    assert events(engine) == [] and lua("return ui.root:GetChild('Box').checked", engine) is True
    clean(engine)


def test_line_edit_typing_cursor_and_finish() -> None:
    engine = ui_game("""
      local le = ui.root:CreateChild("LineEdit", "Edit")
      le:SetPosition(10, 10); le:SetSize(200, 20)
      Watch({"TextChanged", "TextFinished", "Focused", "Defocused"})
    """)
    click(engine, 20, 15)
    assert lua("return ui.focusElement.name", engine) == "Edit"
    engine.queue_input({"kind": "text", "text": "héllo"})
    engine.run_frames(1)
    key(engine, KEY_BACKSPACE)
    key(engine, KEY_LEFT)
    key(engine, KEY_LEFT)
    engine.queue_input({"kind": "text", "text": "X"})
    engine.run_frames(1)
    assert lua("local e = ui.root:GetChild('Edit'); return {e.text, e.cursorPosition, "
               "e.textElement.text, input.screenKeyboardVisible}", engine) == ["héXll", 3, "héXll", True]
    key(engine, KEY_RETURN)
    assert events(engine) == [
        "Focused Element=Edit ByKey=false",
        "TextChanged Element=Edit Text=héllo",
        "TextChanged Element=Edit Text=héll",
        "TextChanged Element=Edit Text=héXll",
        "Defocused Element=Edit",
        "TextFinished Element=Edit Text=héXll Value=0",
    ]
    # Return defocuses (the screen keyboard is in use on this platform): typing goes nowhere now
    engine.queue_input({"kind": "text", "text": "zz"})
    engine.run_frames(1)
    assert lua("return {ui.root:GetChild('Edit').text, input.screenKeyboardVisible}", engine) == ["héXll", False]
    clean(engine)


def test_line_edit_max_length_and_text_entry_rewrite() -> None:
    engine = ui_game("""
      local le = ui.root:CreateChild("LineEdit", "Edit")
      le:SetSize(200, 20)
      le.maxLength = 4
      le:SetFocus(true)
      SubscribeToEvent(le, "TextEntry", function(t, d) d["Text"] = string.upper(d["Text"]:GetString()) end)
    """)
    for text in ("ab", "cde", "d"):
        engine.queue_input({"kind": "text", "text": text})
        engine.run_frames(1)
    assert lua("return ui.root:GetChild('Edit').text", engine) == "ABD"   # "cde" would exceed 4 characters
    clean(engine)


def test_slider_drag_changes_value_and_paging_does_not() -> None:
    engine = ui_game("""
      local s = ui.root:CreateChild("Slider", "S")
      s:SetPosition(100, 100); s:SetSize(110, 10)
      s.range = 10
      Watch({"SliderChanged", "SliderPaged"})
    """)
    knob = lua("local k = ui.root:GetChild('S').knob; return {k.position.x, k.width}", engine)
    assert knob == [0, 10]                         # knob length = width / (range + 1)
    drag(engine, [(105, 105), (115, 105), (155, 105), (500, 105)])
    log = events(engine)
    assert log == ["SliderChanged Element=S Value=1", "SliderChanged Element=S Value=5",
                   "SliderChanged Element=S Value=10"]
    assert lua("return {ui.root:GetChild('S').value, ui.root:GetChild('S').knob.position.x}", engine) == [10.0, 100]
    click(engine, 105, 105)                        # a press beside the knob pages, the value stays
    assert events(engine)[0].startswith("SliderPaged Element=S Offset=-100")
    assert lua("return ui.root:GetChild('S').value", engine) == 10.0
    clean(engine)


SCROLL_SCENE = """
  ui.root.defaultStyle = cache:GetResource("XMLFile", "UI/DefaultStyle.xml")
  local sv = ui.root:CreateChild("ScrollView", "View")
  sv:SetStyleAuto()
  sv:SetPosition(100, 100); sv:SetSize(200, 100)
  local content = UIElement:new()
  content:SetLayout(LM_VERTICAL)
  for i = 1, 20 do
    local t = content:CreateChild("Button", "Row" .. i)
    t:SetMinSize(150, 20)
  end
  sv.contentElement = content
  Watch({"ViewChanged", "ScrollBarChanged"})
"""


def test_scroll_view_wheel_bar_buttons_and_keys() -> None:
    engine = ui_game(SCROLL_SCENE)
    info = lua("local sv = ui.root:GetChild('View'); local v = sv.verticalScrollBar; "
               "return {sv.verticalScrollBarVisible, sv.horizontalScrollBarVisible, v.width, v.height, "
               "sv.scrollPanel.width, sv.contentElement.height}", engine)
    assert info == [True, False, 14, 100, 186, 400]
    engine.queue_input({"kind": "mouse_move", "x": 150, "y": 150})
    engine.queue_input({"kind": "wheel", "amount": -1})
    engine.run_frames(1)
    # a wheel step is scrollStep * 300 / panel height of the bar's value: 0.1 * 300 / 96 = 0.3125, 30 px
    view_y = lua("return ui.root:GetChild('View').viewPosition.y", engine)
    assert view_y == 30
    assert at(engine, 150, 110) == "Row2"          # the content scrolled under the clip
    click(engine, 290, 195)                         # the vertical bar's forward button
    assert lua("return ui.root:GetChild('View').viewPosition.y", engine) == 60
    # the ScrollView listens to its bar first (it subscribed when it was made), so ViewChanged comes first
    assert events(engine) == [
        "ViewChanged Element=View X=0 Y=30", "ScrollBarChanged Element=SV_VerticalScrollBar Value=0.3125",
        "ViewChanged Element=View X=0 Y=60", "ScrollBarChanged Element=SV_VerticalScrollBar Value=0.625"]
    key(engine, 1073741901)                         # End: to the bottom
    assert lua("return ui.root:GetChild('View').viewPosition.y", engine) == 400 - 96
    clean(engine)


LIST_SCENE = """
  ui.root.defaultStyle = cache:GetResource("XMLFile", "UI/DefaultStyle.xml")
  local lv = ui.root:CreateChild("ListView", "List")
  lv:SetStyleAuto()
  lv:SetPosition(10, 10); lv:SetSize(200, 100)
  for i = 1, 8 do
    local t = Text:new()
    t.name = "Item" .. i
    t:SetStyleAuto()
    t.text = "item " .. i
    lv:AddItem(t)
  end
  Watch({"ItemSelected", "ItemDeselected", "ItemClicked", "SelectionChanged"})
"""


@pytest.mark.usefixtures("stand_in_fonts")
def test_list_view_selection_by_click_and_keys() -> None:
    engine = ui_game(LIST_SCENE)
    rows = lua("local lv = ui.root:GetChild('List'); local out = {}; "
               "for i = 0, lv.numItems - 1 do out[#out + 1] = lv:GetItem(i).screenPosition.y end; return out",
               engine)
    h = round(urho_face(12)[1])                      # rows are as tall as their text (12 pt Anonymous Pro)
    assert rows == [12 + h * i for i in range(8)]    # panel clip border 2
    click(engine, 20, 12 + h * 2 + 3)
    assert events(engine) == [
        "ItemSelected Element=List Selection=2",
        "SelectionChanged Element=List",
        "ItemClicked Element=List Item=Item3 Button=1 Buttons=1 Qualifiers=0 Selection=2",
    ]
    assert lua("local lv = ui.root:GetChild('List'); return {lv.selection, lv.selectedItem.name, "
               "lv:GetItem(2).selected, ui.focusElement.name}", engine) == [2, "Item3", True, "List"]
    key(engine, KEY_DOWN)
    key(engine, KEY_DOWN)
    assert lua("return ui.root:GetChild('List').selection", engine) == 4
    # multiselect with ctrl
    lua("ui.root:GetChild('List').multiselect = true", engine)
    events(engine)
    engine.queue_input({"kind": "key_down", "key": LCTRL})
    click(engine, 20, 12 + h * 0 + 3)
    engine.queue_input({"kind": "key_up", "key": LCTRL})
    engine.run_frames(1)
    assert lua("local s = ui.root:GetChild('List'):GetSelections(); return s", engine) == [0, 4]
    clean(engine)


def test_drop_down_list_opens_popup_and_selects() -> None:
    engine = ui_game("""
      ui.root.defaultStyle = cache:GetResource("XMLFile", "UI/DefaultStyle.xml")
      dd = ui.root:CreateChild("DropDownList", "Choice")
      dd:SetStyleAuto()
      dd:SetPosition(300, 200); dd:SetSize(120, 20)
      for _, name in ipairs({"Red", "Green", "Blue"}) do
        local t = Text:new()
        t.name = name
        t:SetStyleAuto()
        t.text = name
        dd:AddItem(t)
      end
      SubscribeToEvent(dd, "ItemSelected", Log("DDL.ItemSelected"))
      Watch({"MenuSelected"})
    """)
    assert lua("return {dd.selection, dd.numItems, dd.showPopup}",
               engine) == [0, 3, False]
    click(engine, 310, 205)
    state = lua("local p = dd.popup; "
                "return {dd.showPopup, p.visible, p.screenPosition.x, p.screenPosition.y, ui.modalElement, "
                "ui.focusElement == dd.listView}", engine)
    assert state == [True, True, 300, 220, True, True]
    assert events(engine) == ["MenuSelected Element=Choice"]
    green_y = lua("return dd.listView:GetItem(1).screenPosition.y", engine)
    click(engine, 310, green_y + 3)
    assert lua("return {dd.selection, dd.selectedItem.name, dd.showPopup, "
               "ui.modalElement, ui.focusElement.name}", engine) == [1, "Green", False, False, "Choice"]
    assert events(engine) == ["DDL.ItemSelected Element=Choice Selection=1"]
    # open again and click elsewhere: the popup closes, the selection stays
    click(engine, 310, 205)
    click(engine, 900, 600)
    assert lua("return {dd.showPopup, dd.selection, dd.parent == ui.root}", engine) == [False, 1, True]
    click(engine, 310, 205)                         # Escape closes it too
    key(engine, KEY_ESCAPE)
    assert lua("return {dd.showPopup, ui.modalElement}", engine) == [False, False]
    clean(engine)


def test_touch_drag_scrolls_a_list_with_momentum() -> None:
    engine = ui_game(LIST_SCENE.replace("for i = 1, 8", "for i = 1, 30"))
    engine.queue_input({"kind": "touch_begin", "id": 0, "x": 50, "y": 90})
    engine.run_frames(1)
    positions = []
    for y in (80, 70, 60, 50):
        engine.queue_input({"kind": "touch_move", "id": 0, "x": 50, "y": y})
        engine.run_frames(1)
        positions.append(lua("return ui.root:GetChild('List').viewPosition.y", engine))
    engine.queue_input({"kind": "touch_end", "id": 0, "x": 50, "y": 50})
    engine.run_frames(3)
    assert positions == [10, 20, 30, 40]            # the finger drags the content
    # released: the flick keeps going, slowing down by scrollDeceleration (30 px/s per s)
    assert lua("return ui.root:GetChild('List').viewPosition.y", engine) == 66
    clean(engine)


def test_window_move_and_resize_by_dragging() -> None:
    engine = ui_game("""
      local w = ui.root:CreateChild("Window", "Win")
      w:SetPosition(100, 100); w:SetSize(200, 150)
      w.movable = true
      w.resizable = true
      Watch({"Positioned"})
    """)
    drag(engine, [(200, 170), (230, 190), (260, 210)])
    assert lua("local w = ui.root:GetChild('Win'); return {w.position.x, w.position.y, w.width, w.height}",
               engine) == [160, 140, 200, 150]
    drag(engine, [(358, 288), (380, 300)])           # the bottom-right corner resizes
    assert lua("local w = ui.root:GetChild('Win'); return {w.width, w.height}", engine) == [222, 162]
    # Escape during a drag cancels it: the window goes back (DragCancel)
    engine.queue_input({"kind": "mouse_move", "x": 200, "y": 200})
    engine.queue_input({"kind": "mouse_down", "button": 1})
    engine.run_frames(1)
    engine.queue_input({"kind": "mouse_move", "x": 260, "y": 260})
    engine.run_frames(1)
    assert lua("return ui.root:GetChild('Win').position.x", engine) == 220
    key(engine, KEY_ESCAPE)
    engine.queue_input({"kind": "mouse_up", "button": 1})
    engine.run_frames(1)
    assert lua("local w = ui.root:GetChild('Win'); return {w.position.x, w.position.y, ui:IsDragging()}",
               engine) == [160, 140, False]
    clean(engine)


def test_drag_events_move_an_element_like_hello_gui_fish() -> None:
    engine = ui_game("""
      local fish = ui.root:CreateChild("Button", "Fish")
      fish:SetSize(128, 128)
      fish:SetPosition(500, 200)
      SubscribeToEvent(fish, "DragBegin", function(t, d)
        begin = IntVector2(d["ElementX"]:GetInt(), d["ElementY"]:GetInt())
      end)
      SubscribeToEvent(fish, "DragMove", function(t, d)
        local el = d["Element"]:GetPtr("UIElement")
        el:SetPosition(IntVector2(d["X"]:GetInt(), d["Y"]:GetInt()) - begin)
      end)
    """)
    drag(engine, [(520, 230), (526, 230), (600, 300)])
    assert lua("local f = ui.root:GetChild('Fish'); return {f.position.x, f.position.y}", engine) == [580, 270]
    # held still for the drag interval, a drag begins without moving
    engine.queue_input({"kind": "mouse_move", "x": 600, "y": 300})
    engine.queue_input({"kind": "mouse_down", "button": 1})
    engine.run_frames(40)
    assert lua("return {ui:IsDragging(), ui:GetDragElement(0).name}", engine) == [True, "Fish"]
    engine.queue_input({"kind": "mouse_up", "button": 1})
    engine.run_frames(1)
    assert lua("return ui:IsDragging()", engine) is False
    clean(engine)


def test_touch_emulates_mouse_clicks() -> None:
    engine = ui_game("""
      local b = ui.root:CreateChild("Button", "Tap")
      b:SetPosition(100, 100); b:SetSize(60, 60)
      Watch({"Pressed", "Released", "UIMouseClick"})
    """)
    engine.queue_input({"kind": "touch_begin", "id": 0, "x": 120, "y": 120})
    engine.run_frames(1)
    engine.queue_input({"kind": "touch_end", "id": 0, "x": 120, "y": 120})
    engine.run_frames(1)
    assert events(engine) == ["Pressed Element=Tap", "UIMouseClick Element=Tap X=120 Y=120 Button=1 Buttons=1 "
                              "Qualifiers=0", "Released Element=Tap"]
    # a second finger is "button" 1 << 1: buttons only react to the left one
    engine.queue_input({"kind": "touch_begin", "id": 1, "x": 120, "y": 120})
    engine.run_frames(1)
    engine.queue_input({"kind": "touch_end", "id": 1, "x": 120, "y": 120})
    engine.run_frames(1)
    assert events(engine) == ["UIMouseClick Element=Tap X=120 Y=120 Button=2 Buttons=2 Qualifiers=0"]
    clean(engine)


def test_hidden_mouse_and_mouse_modes_do_not_stop_ui_clicks() -> None:
    engine = ui_game("""
      input.mouseVisible = false
      input.mouseMode = MM_RELATIVE
      local b = ui.root:CreateChild("Button", "B")
      b:SetSize(60, 60)
      Watch({"Released"})
    """)
    click(engine, 30, 30)
    assert events(engine) == ["Released Element=B"]
    lua("input.mouseGrabbed = true", engine)          # a grabbed mouse is the game's, as in Urho3D
    click(engine, 30, 30)
    assert events(engine) == []
    clean(engine)


def test_ui_scale_maps_screen_to_ui_pixels() -> None:
    engine = ui_game("""
      ui.scale = Vector2(2, 2)
      local b = ui.root:CreateChild("Button", "B")
      b:SetPosition(100, 100); b:SetSize(20, 20)
      Watch({"UIMouseClick"})
    """)
    assert lua("return {ui.root.width, ui.root.height}", engine) == [640, 360]
    click(engine, 210, 210)
    assert events(engine) == ["UIMouseClick Element=B X=105 Y=105 Button=1 Buttons=1 Qualifiers=0"]
    clean(engine)


def test_hover_and_double_click() -> None:
    engine = ui_game("""
      local b = ui.root:CreateChild("Button", "H")
      b:SetPosition(10, 10); b:SetSize(40, 40)
      Watch({"HoverBegin", "HoverEnd", "UIMouseDoubleClick"})
    """)
    engine.queue_input({"kind": "mouse_move", "x": 20, "y": 20})
    engine.run_frames(2)
    engine.queue_input({"kind": "mouse_move", "x": 200, "y": 200})
    engine.run_frames(1)
    assert events(engine) == ["HoverBegin Element=H X=20 Y=20 ElementX=10 ElementY=10", "HoverEnd Element=H"]
    click(engine, 20, 20)
    click(engine, 21, 20)
    log = [e for e in events(engine) if e.startswith("UIMouseDoubleClick")]
    assert log == ["UIMouseDoubleClick Element=H X=21 Y=20 XBegin=20 YBegin=20 Button=1 Buttons=1 Qualifiers=0"]
    clean(engine)


def test_tooltip_sprite_menu_drag_drop_and_progress_bar() -> None:
    engine = ui_game("""
      local host = ui.root:CreateChild("Button", "TipHost")
      host:SetPosition(10, 10); host:SetSize(50, 50)
      local tip = host:CreateChild("ToolTip", "Tip")
      tip:SetPosition(60, 0); tip:SetSize(30, 10)
      tip.delay = 0.2
      local sp = ui.root:CreateChild("Sprite", "Spr")
      sp:SetSize(40, 40); sp.enabled = true
      sp:SetPosition(Vector2(300, 300)); sp.hotSpot = IntVector2(20, 20); sp:SetScale(2)
      local menu = ui.root:CreateChild("Menu", "File")
      menu:SetPosition(500, 10); menu:SetSize(60, 20)
      menu:SetPopupOffset(0, 20)
      local popup = Window:new(); popup:SetSize(100, 60)
      local open = popup:CreateChild("Menu", "Open"); open:SetSize(100, 20)
      menu.popup = popup
      local src = ui.root:CreateChild("Text", "DragSrc"); src.text = "dropped!"; src:SetPosition(10, 200)
      src.enabled = true; src.dragDropMode = DD_SOURCE
      local dst = ui.root:CreateChild("LineEdit", "DropDst"); dst:SetPosition(200, 200); dst:SetSize(100, 20)
      dst.dragDropMode = DD_TARGET
      local pb = ui.root:CreateChild("ProgressBar", "PB"); pb:SetSize(100, 10); pb.value = 0.25
      Watch({"MenuSelected", "DragDropFinish"})
    """)
    engine.queue_input({"kind": "mouse_move", "x": 20, "y": 20})
    engine.run_frames(20)         # hovered for longer than the delay: the tip shows, moved to the root
    assert lua("local t = ui.root:GetChild('Tip', true); return {t.visible, t.parent.name, t.screenPosition.x}",
               engine) == [True, "UIRoot", 70]
    engine.queue_input({"kind": "mouse_move", "x": 900, "y": 700})
    engine.run_frames(1)
    assert lua("local t = ui.root:GetChild('Tip', true); return {t.visible, t.parent.name}", engine) == [
        False, "TipHost"]
    # a sprite's hit area is its transformed rectangle: position - hot spot * scale, 2x the size (element
    # coordinates are truncated toward zero, so the pixel just left of it still maps to x = 0, as in Urho3D)
    assert lua("return ui.root:GetChild('Spr').screenPosition.x", engine) == 260
    assert [at(engine, 259, 261), at(engine, 339, 339), at(engine, 257, 300)] == ["Spr", "Spr", None]
    click(engine, 510, 15)        # the menu opens its popup below itself
    assert lua("local m = ui:GetElementAt(510, 15); return {m.showPopup, m.popup.screenPosition.y}",
               engine) == [True, 30]
    click(engine, 510, 35)        # a menu item without a popup is selected on release
    assert events(engine) == ["MenuSelected Element=File", "MenuSelected Element=Open"]
    drag(engine, [(12, 202), (50, 202), (210, 205)])
    assert lua("return ui.root:GetChild('DropDst').text", engine) == "dropped!"
    assert events(engine) == ["DragDropFinish Source=DragSrc Target=DropDst Accept=true"]
    assert lua("local p = ui.root:GetChild('PB'); return {p.knob.width, p:GetChild(1).text}", engine) == [
        25, "25 %"]
    clean(engine)


# ----------------------------------------------------------------------------------------------------------
# Focus
# ----------------------------------------------------------------------------------------------------------

def test_focus_modes_tab_escape_and_visibility() -> None:
    engine = ui_game("""
      local w = ui.root:CreateChild("Window", "W")
      w:SetSize(400, 400)
      local a = w:CreateChild("LineEdit", "A"); a:SetPosition(0, 0); a:SetSize(100, 20)
      local b = w:CreateChild("Button", "B"); b:SetPosition(0, 40); b:SetSize(100, 20)
      local t = w:CreateChild("Text", "Label"); t:SetPosition(0, 80); t.text = "label"
      local c = w:CreateChild("CheckBox", "C"); c:SetPosition(0, 120); c:SetSize(20, 20)
    """)
    click(engine, 5, 45)
    assert lua("return ui.focusElement.name", engine) == "B"
    key(engine, KEY_TAB)
    assert lua("return ui.focusElement.name", engine) == "C"
    engine.queue_input({"kind": "key_down", "key": LSHIFT})
    key(engine, KEY_TAB)
    engine.queue_input({"kind": "key_up", "key": LSHIFT})
    engine.run_frames(1)
    assert lua("return ui.focusElement.name", engine) == "B"
    key(engine, KEY_ESCAPE)                            # a Button is FM_FOCUSABLE: Escape keeps its focus
    assert lua("return ui.focusElement.name", engine) == "B"
    click(engine, 5, 5)
    key(engine, KEY_ESCAPE)                            # a LineEdit is FM_FOCUSABLE_DEFOCUSABLE
    assert lua("return ui.focusElement", engine) is None
    click(engine, 5, 85)      # the Text is not enabled: its window is hit, which cannot take focus (nor its root)
    assert lua("return ui.focusElement", engine) is None
    lua("ui.root:GetChild('B', true):SetFocus(true)", engine)
    assert lua("return ui.focusElement.name", engine) == "B"
    lua("ui.root:GetChild('W').visible = false", engine)
    assert lua("return ui.focusElement", engine) is None
    lua("ui.root:GetChild('B', true):SetFocus(true)", engine)   # an effectively hidden element cannot take focus
    assert lua("return ui.focusElement", engine) is None
    clean(engine)


# ----------------------------------------------------------------------------------------------------------
# Styles and layout files
# ----------------------------------------------------------------------------------------------------------

def test_stock_style_table_gives_widgets_sizes() -> None:
    engine = ui_game("""
      ui.root.defaultStyle = cache:GetResource("XMLFile", "UI/DefaultStyle.xml")
      local c = ui.root:CreateChild("CheckBox", "C"); c:SetStyleAuto()
      local t = ui.root:CreateChild("Text", "T"); t:SetStyleAuto(); t.text = "abc"
      local x = ui.root:CreateChild("Button", "X"); x:SetStyle("CloseButton")
      local s = ui.root:CreateChild("Slider", "S"); s:SetStyleAuto()
      local none = ui.root:CreateChild("Button", "N"); missing = none:SetStyle("NoSuchStyle")
    """)
    out = lua("""
      local function g(n) return ui.root:GetChild(n) end
      return {g("C").width, g("C").height, g("T").fontSize, g("T").font.name, g("X").width, g("X").focusMode,
              g("X").style, g("C").style, g("S").height, missing}
    """, engine)
    assert out == [18, 18, 12, "Fonts/Anonymous Pro.ttf", 18, 0, "CloseButton", "", 14, False]
    clean(engine)


STYLE_XML = """<?xml version="1.0"?>
<elements>
  <!-- a comment -->
  <element type="Button">
    <attribute name="Min Size" value="40 30" />
    <attribute name="Layout Spacing" value="3" />
  </element>
  <element type="BigButton" style="Button" auto="false">
    <attribute name="Min Size" value="120 50" />
    <attribute name="Focus Mode" value="NotFocusable" />
  </element>
  <element type="Text">
    <attribute name="Font" value="Font;Fonts/Anonymous Pro.ttf" />
    <attribute name="Font Size" value="20" />
    <attribute name="Text" value="&lt;styled&gt;" />
  </element>
  <element type="LineEdit">
    <attribute name="Max Length" value="3" />
    <element type="Text" internal="true">
      <attribute name="Font Size" value="8" />
    </element>
  </element>
</elements>
"""

LAYOUT_XML = """<element type="Window">
  <attribute name="Name" value="Dialog" />
  <attribute name="Size" value="300 200" />
  <attribute name="Layout Mode" value="Vertical" />
  <attribute name="Layout Border" value="4 4 4 4" />
  <element type="Button" style="BigButton">
    <attribute name="Name" value="Ok" />
  </element>
  <element type="Text">
    <attribute name="Name" value="Caption" />
  </element>
</element>
"""


@pytest.mark.usefixtures("stand_in_fonts")
def test_styles_from_the_game_folder_and_layout_files() -> None:
    engine = ui_game("""
      local style = cache:GetResource("XMLFile", "UI/GameStyle.xml")
      ui.root.defaultStyle = style
      local b = ui.root:CreateChild("Button", "B"); b:SetStyleAuto()
      local big = ui.root:CreateChild("Button", "Big"); big:SetStyle("BigButton")
      local le = ui.root:CreateChild("LineEdit", "Le"); le:SetStyleAuto()
      local dialog = ui:LoadLayout(cache:GetResource("XMLFile", "UI/Dialog.xml"))
      ui.root:AddChild(dialog)
    """, files={"UI/GameStyle.xml": STYLE_XML, "UI/Dialog.xml": LAYOUT_XML})
    out = lua("""
      local function g(n) return ui.root:GetChild(n, true) end
      local le = g("Le")
      return {g("B").minWidth, g("B").layoutSpacing, g("Big").minWidth, g("Big").minHeight, g("Big").focusMode,
              g("Big").layoutSpacing, le.maxLength, le.textElement.fontSize, g("Dialog").width,
              g("Ok").width, g("Ok").height, g("Ok").position.x, g("Caption").text, g("Caption").fontSize}
    """, engine)
    caption = round(urho_face(20)[1])      # the 20 pt caption's one row; the button takes the rest of 200 - 2 * 4
    assert out == [40, 3, 120, 50, 0, 3, 3, 8.0, 300, 292, 192 - caption, 4, "<styled>", 20.0]
    clean(engine)


def test_load_xml_onto_an_element() -> None:
    engine = ui_game("""
      local panel = ui.root:CreateChild("UIElement", "Panel")
      loaded = panel:LoadXML("UI/Panel.xml")
    """, files={"UI/Panel.xml": '<element><attribute name="Size" value="50 40"/>'
                                 '<element type="CheckBox"><attribute name="Name" value="Opt"/>'
                                 '<attribute name="Is Checked" value="true"/></element></element>'})
    assert lua("local p = ui.root:GetChild('Panel'); return {loaded, p.width, p.height, "
               "p:GetChild('Opt').checked}", engine) == [True, 50, 40, True]
    clean(engine)


def test_bad_style_files_fail_loudly_but_safely() -> None:
    engine = ui_game("""
      ui.root.defaultStyle = cache:GetResource("XMLFile", "UI/Bad.xml")
      local b = ui.root:CreateChild("Button", "B")
      ok = b:SetStyleAuto()
      loop = ui.root:CreateChild("Button", "L")
      loop_ok = loop:SetStyle("A", cache:GetResource("XMLFile", "UI/Loop.xml"))
    """, files={"UI/Bad.xml": "<elements><element type='Button'></elements>",
                "UI/Loop.xml": "<elements><element type='A' style='B'/><element type='B' style='A'/></elements>"})
    assert lua("return ok", engine) is False
    messages = [e["message"] for e in engine.report().log]
    assert any("Could not parse XML data from UI/Bad.xml: mismatched end tag" in m for m in messages)
    assert any("UI styles nested deeper than 32 levels" in m for m in messages)
    clean(engine)


# ----------------------------------------------------------------------------------------------------------
# Battery helpers
# ----------------------------------------------------------------------------------------------------------

HELPER_GAME = """
function Start()
  local w = ui.root:CreateChild("Window", "Panel")
  w:SetPosition(100, 100); w:SetSize(300, 200)
  local ok = w:CreateChild("Button", "Ok")
  ok:SetPosition(10, 10); ok:SetSize(80, 30)
  ok:SetText("OK")
  local box = w:CreateChild("CheckBox", "Agree")
  box:SetPosition(10, 60); box:SetSize(20, 20)
  local gone = w:CreateChild("Button", "Gone")
  gone:SetPosition(150, 10); gone:SetSize(40, 40); gone.visible = false
  local under = w:CreateChild("Button", "Under")
  under:SetPosition(150, 100); under:SetSize(40, 40)
  local cover = w:CreateChild("Button", "Cover")
  cover:SetPosition(140, 90); cover:SetSize(80, 80)
  local off = w:CreateChild("Button", "Off")
  off:SetPosition(250, 10); off:SetSize(40, 40); off.enabled = false
  local s = w:CreateChild("Slider", "Volume")
  s:SetPosition(10, 150); s:SetSize(100, 10); s.range = 4; s.value = 1
  SubscribeToEvent(ok, "Released", function() clicks = (clicks or 0) + 1 end)
end
"""

HELPER_BATTERY = """
local h = harness
h.start()
h.run_frames(1)
local ok = h.ui("Ok")
requirement("views", {}, function(check)
  check.equal("type", ok.type, "Button")
  check.equal("text", ok.text, "OK")
  check.equal("text by name", h.ui_text("Ok"), "OK")
  check.equal("x", ok.x, 110)
  check.equal("y", ok.position.y, 110)
  check.equal("size", ok.size.x * 1000 + ok.height, 80030)
  check.truthy("visible", ok.visible)
  check.falsy("hidden", h.ui("Gone").visible)
  check.equal("slider value", h.ui("Volume").value, 1.0)
  check.equal("children", #h.ui("Panel").children, 7)
  check.equal("parent", ok.parent.name, "Panel")
  check.equal("child by name", h.ui("Panel"):child("Agree").type, "CheckBox")
  check.equal("at", h.ui_at(115, 115).name, "Ok")
  check.falsy("at nothing", h.ui_at(5, 5))
  check.falsy("read only", pcall(function() ok.name = "x" end))
end)
h.click_ui("Ok")
h.run_frames(1)
h.click_ui("Agree")
h.run_frames(1)
requirement("clicks", {}, function(check)
  check.equal("released once", h.global("clicks"), 1)
  check.truthy("checked", h.ui("Agree").checked)
  check.equal("focus", h.ui_focus().name, "Agree")
end)
local function failure(name)
  local ok_, err = pcall(h.click_ui, name)
  return not ok_ and err or "no error"
end
requirement("click failures", {}, function(check)
  check.contains("hidden", failure("Gone"), "Button 'Gone' is not visible")
  check.contains("covered", failure("Under"),
    "Button 'Under' is covered: a click at its centre (270, 220) hits Button 'Cover'")
  check.contains("disabled", failure("Off"),
    "Button 'Off' is not enabled: a click at its centre (370, 130) hits Window 'Panel'")
  check.contains("unknown", failure("Nope"), "no UI element named 'Nope'")
end)
"""


def test_battery_helpers_views_at_and_click(make_game: Any) -> None:
    engine = Engine(make_game(HELPER_GAME))
    engine.run_battery(HELPER_BATTERY, "battery/test.lua")
    reqs = {r["id"]: r for r in engine.requirements()}
    for rid in ("views", "clicks", "click failures"):
        failed = [c for c in reqs[rid]["checks"] if not c["passed"]]
        assert reqs[rid]["passed"], failed
    clean(engine)


# ----------------------------------------------------------------------------------------------------------
# A HelloGUI-like game, written for this test, driven by a battery; and determinism
# ----------------------------------------------------------------------------------------------------------

HELLO_GAME = """
local window
local dragBegin = IntVector2(0, 0)

function Start()
  input.mouseVisible = true
  ui.root.defaultStyle = cache:GetResource("XMLFile", "UI/DefaultStyle.xml")
  window = Window:new()
  ui.root:AddChild(window)
  window.minWidth = 384
  window:SetLayout(LM_VERTICAL, 6, IntRect(6, 6, 6, 6))
  window:SetAlignment(HA_CENTER, VA_CENTER)
  window:SetName("Window")
  local titleBar = UIElement:new()
  titleBar:SetMinSize(0, 24)
  titleBar.verticalAlignment = VA_TOP
  titleBar.layoutMode = LM_HORIZONTAL
  local title = Text:new()
  title.name = "WindowTitle"
  title.text = "Hello GUI!"
  local close = Button:new()
  close:SetName("CloseButton")
  titleBar:AddChild(title)
  titleBar:AddChild(close)
  window:AddChild(titleBar)
  window:SetStyleAuto()
  title:SetStyleAuto()
  close:SetStyle("CloseButton")
  SubscribeToEvent(close, "Released", function() engine:Exit() end)
  SubscribeToEvent("UIMouseClick", "HandleControlClicked")

  local checkBox = CheckBox:new(); checkBox:SetName("CheckBox")
  local button = Button:new(); button:SetName("Button"); button.minHeight = 24
  local lineEdit = LineEdit:new(); lineEdit:SetName("LineEdit"); lineEdit.minHeight = 24
  window:AddChild(checkBox); window:AddChild(button); window:AddChild(lineEdit)
  checkBox:SetStyleAuto(); button:SetStyleAuto(); lineEdit:SetStyleAuto()

  local fish = ui.root:CreateChild("Button", "Fish")
  fish.texture = cache:GetResource("Texture2D", "Textures/UrhoDecal.dds")
  fish.blendMode = BLEND_ADD
  fish:SetSize(128, 128)
  fish:SetPosition((graphics.width - fish.width) / 2, 200)
  SubscribeToEvent(fish, "DragBegin", function(t, d)
    dragBegin = IntVector2(d["ElementX"]:GetInt(), d["ElementY"]:GetInt())
  end)
  SubscribeToEvent(fish, "DragMove", function(t, d)
    d["Element"]:GetPtr("UIElement"):SetPosition(IntVector2(d["X"]:GetInt(), d["Y"]:GetInt()) - dragBegin)
  end)
end

function HandleControlClicked(eventType, eventData)
  local title = window:GetChild("WindowTitle", true)
  local clicked = eventData["Element"]:GetPtr("UIElement")
  title.text = "Hello " .. (clicked ~= nil and clicked.name or "...?") .. "!"
end
"""

HELLO_BATTERY = """
local h = harness
h.start()
h.run_frames(2)
requirement("layout", {}, function(check)
  local w = h.ui("Window")
  check.equal("window centred x", w.x, 640 - 192)
  check.equal("window width", w.width, 384)
  check.equal("title", h.ui_text("WindowTitle"), "Hello GUI!")
  check.equal("close button size", h.ui("CloseButton").width, 18)
  check.equal("close button at the right", h.ui("CloseButton").x + 18, w.x + 384 - 6)
end)
h.click_ui("CheckBox"); h.run_frames(1)
h.click_ui("Button"); h.run_frames(1)
requirement("controls", {}, function(check)
  check.truthy("checkbox ticked", h.ui("CheckBox").checked)
  check.equal("title names the last click", h.ui_text("WindowTitle"), "Hello Button!")
end)
h.click_ui("LineEdit"); h.run_frames(1)
h.text("grader"); h.run_frames(1)
local fish = h.ui("Fish")
local fx, fy = fish.x, fish.y
h.mouse_to(fx + 10, fy + 10); h.mouse_down(); h.run_frames(1)
h.mouse_to(fx + 40, fy + 60); h.run_frames(1)
h.mouse_to(fx + 110, fy + 160); h.run_frames(1)
h.mouse_up(); h.run_frames(1)
requirement("typing and dragging", {}, function(check)
  check.equal("line edit", h.ui_text("LineEdit"), "grader")
  check.equal("fish moved x", h.ui("Fish").x, fx + 100)
  check.equal("fish moved y", h.ui("Fish").y, fy + 150)
  check.equal("title after the fish", h.ui_text("WindowTitle"), "Hello Fish!")
end)
h.click_ui("CloseButton"); h.run_frames(1)
requirement("close", {}, function(check) check.truthy("exit requested", h.exited()) end)
"""


def run_hello(make_game: Any) -> Engine:
    engine = Engine(make_game(HELLO_GAME))
    engine.run_battery(HELLO_BATTERY, "battery/main.lua")
    return engine


def test_hello_gui_flow(make_game: Any) -> None:
    engine = run_hello(make_game)
    reqs = engine.requirements()
    for req in reqs:
        assert req["passed"], [c for c in req["checks"] if not c["passed"]]
    assert [r["id"] for r in reqs] == ["layout", "controls", "typing and dragging", "close"]
    clean(engine)


def test_ui_runs_are_deterministic(make_game: Any) -> None:
    def evidence() -> str:
        engine = run_hello(make_game)
        engine2 = ui_game(SCROLL_SCENE + LIST_SCENE.replace("10, 10", "400, 10"))
        click(engine2, 150, 150)
        click(engine2, 420, 40)
        drag(engine2, [(290, 150), (290, 170), (290, 190)])
        return json.dumps([engine.requirements(), events(engine2), engine.frame, engine2.frame], sort_keys=True)

    assert evidence() == evidence()


LOGGED = """
uilog = ""
local start = Start
function Start()
  start()
  for _, name in ipairs({"Pressed", "Released", "Toggled", "TextChanged", "DragBegin", "DragMove", "DragEnd",
                         "FocusChanged", "HoverBegin", "HoverEnd", "Positioned", "Resized", "Focused", "Defocused"}) do
    SubscribeToEvent(name, function(t, d)
      local e = d["Element"] and d["Element"]:GetPtr("UIElement")
      local x = d["X"] and d["X"]:GetInt() or d["Width"] and d["Width"]:GetInt() or ""
      uilog = uilog .. name .. ":" .. (e and e.name or "-") .. ":" .. tostring(x) .. ";"
    end)
  end
end
"""


def test_ui_evidence_is_bit_identical_across_processes(make_game: Any, tmp_path: Any) -> None:
    game = make_game(HELLO_GAME + LOGGED)
    battery = tmp_path / "main.lua"
    battery.write_text(HELLO_BATTERY + 'requirement("log", {}, function(check) '
                       'check.equal("ui events", h.global("uilog"), h.global("uilog")) end)\n')
    digests = []
    for _ in range(2):
        report = run_in_subprocess(RunRequest(game_dir=str(game), battery=str(battery)))
        assert report["outcome"] == "clean", report["errors"]
        log = report["requirements"][-1]["checks"][0]["actual"]
        # Released from the close button and the fish's drags go to the game's sender-specific handlers only
        assert "Pressed:CloseButton" in log and "HoverBegin:Fish" in log
        digests.append(run_evidence(report)["digest"])
    assert digests[0] == digests[1]


# ----------------------------------------------------------------------------------------------------------
# Limits and safety
# ----------------------------------------------------------------------------------------------------------

def test_ui_tree_depth_is_bounded() -> None:
    engine = ui_game("""
      local e = ui.root
      ok, err = pcall(function()
        for i = 1, 2000 do e = e:CreateChild("UIElement") end
      end)
    """)
    assert lua("return {ok, err}", engine) == [False, "UI element tree deeper than 1000 levels"]


def test_ui_objects_keep_their_state_private() -> None:
    engine = ui_game("b = ui.root:CreateChild('Button', 'B')")
    assert lua("return getmetatable(b), rawget(b, 'name'), next(b)", engine) == [False, None, None]
    with pytest.raises(Exception, match="invalid 'self'"):
        lua("local fake = setmetatable({}, {}); return UIElement.GetName(fake)", engine)


def test_a_ui_component_puts_its_own_root_on_a_texture_of_its_node() -> None:
    """UIComponent (sample 48) as state: a root of its own (not under ui.root) whose size the render-target texture
    follows, a material showing that texture on the node's StaticModel, which it makes and removes with itself."""
    out = lua("""
    local scene = Scene()
    local box = scene:CreateChild("Box")
    local c = box:CreateComponent("UIComponent")
    local model = box:GetComponent("StaticModel")
    local out = {c.texture.width, c.root.width, model ~= nil and model.material == c.material}
    c.root:SetSize(256, 128)
    c.root:CreateChild("Button")
    for _, v in ipairs({c.texture.width, c.texture.height, c.material:GetTexture(TU_DIFFUSE) == c.texture,
                        c.root.parent == nil, ui.root:GetNumChildren(), c.texture.renderSurface ~= nil}) do
      out[#out + 1] = v
    end
    c:Remove()
    out[#out + 1] = box:GetComponent("StaticModel") == nil
    local kept = scene:CreateChild("Kept")
    local own = kept:CreateComponent("StaticModel")
    local d = kept:CreateComponent("UIComponent")
    out[#out + 1] = own.material == d.material
    d:Remove()
    out[#out + 1] = kept:GetComponent("StaticModel") == own
    return out
    """)
    assert out == [512, 512, True, 256, 128, True, True, 0, True, True, True, True]
