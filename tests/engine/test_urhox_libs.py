"""TapTap's Lua UI library (`urhox-libs/UI`) runs unmodified: it lays out with the YG* layer, draws through
NanoVG and answers injected mouse and touch input through its own auto events (UI.Init's defaults).

The library is not ours to ship: set URHOX_DEVKIT to a folder holding `urhox-libs/` (TapTap's dev kit, public
project zxc1911/NCard); without it these tests skip.  tests/engine/test_yoga.py proves the YG* layer alone.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from engine.testing import lua


def devkit() -> Path:
    root = os.environ.get("URHOX_DEVKIT", "")
    if not root or not (Path(root) / "urhox-libs" / "UI" / "init.lua").is_file():
        pytest.skip("URHOX_DEVKIT is not set to a folder holding TapTap's urhox-libs/ (the UrhoX dev kit)")
    return Path(root)


GAME = """
local UI = require("urhox-libs/UI")
clicks, closed, log = 0, 0, {}
function Start()
  UI.Init({ fonts = { { family = "sans", weights = { normal = "Fonts/MiSans-Regular.ttf" } } }, scale = 1 })
  local rows = {}
  for i = 1, 30 do rows[i] = UI.Label { id = "row" .. i, text = "Row " .. i, height = 30, flexShrink = 0 } end
  UI.SetRoot(UI.Panel {
    width = "100%", height = "100%", padding = 16, gap = 10,
    children = {
      UI.Label { id = "title", text = "Hello UrhoX", fontSize = 24 },
      UI.Button { id = "go", text = "Go", width = 120, height = 40,
                  onClick = function() clicks = clicks + 1; log[#log + 1] = "click" end },
      UI.ScrollView { id = "list", width = 300, height = 200, scrollY = true, children = rows },
    },
  })
  modal = UI.Modal { title = "Confirm quit", size = "sm", onClose = function() closed = closed + 1 end }
end
"""


def box(engine: Engine, widget_id: str) -> list[float]:
    return lua(f"""
    local l = require("urhox-libs/UI").FindById("{widget_id}"):GetAbsoluteLayout()
    return {{l.x, l.y, l.w, l.h}}
    """, engine)


def drawn_texts(engine: Engine) -> dict[str, float]:
    """Text drawn in the last frame and left visible by the scissor: text -> its top edge on screen."""
    return {c["text"]: c["y0"] for c in engine.plain(engine.E.nanovg_records())
            if c.get("text") and c["y1"] > c["y0"] and c["x1"] > c["x0"]}


def tap(engine: Engine, x: float, y: float, *, touch: bool = False) -> None:
    if touch:
        engine.queue_input({"kind": "touch_begin", "id": 0, "x": x, "y": y})
        engine.run_frames(2)
        engine.queue_input({"kind": "touch_end", "id": 0, "x": x, "y": y})
    else:
        engine.queue_input({"kind": "mouse_move", "x": x, "y": y})
        engine.queue_input({"kind": "mouse_down", "button": 1})
        engine.run_frames(2)
        engine.queue_input({"kind": "mouse_up", "button": 1})
    engine.run_frames(2)


@pytest.fixture
def game(make_game: Any) -> Engine:
    engine = Engine(make_game(GAME), lib_dirs=[devkit()])
    engine.start()
    engine.run_frames(3)
    report = engine.report()
    assert report.outcome == "clean", (report.missing_api, report.errors[:3])
    return engine


def test_panels_labels_and_buttons_lay_out_and_draw(game: Engine) -> None:
    title, go, listing = box(game, "title"), box(game, "go"), box(game, "list")
    assert title[:2] == [16, 16] and title[3] >= 24
    assert go == [16, 16 + title[3] + 10, 120, 40]
    assert listing[:2] == [16, go[1] + 40 + 10] and listing[2:] == [300, 200]
    texts = drawn_texts(game)
    assert "Hello UrhoX" in texts and "Go" in texts
    assert "Row 1" in texts and "Row 30" not in texts      # the scroll view clips what lies below its 200 px


def test_mouse_and_touch_press_the_button(game: Engine) -> None:
    x, y, w, h = box(game, "go")
    tap(game, x + w / 2, y + h / 2)
    assert lua("return clicks", game) == 1
    tap(game, x + w / 2, y + h / 2, touch=True)
    assert lua("return clicks", game) == 2
    tap(game, x + w + 50, y + h / 2)                         # beside the button: nothing
    assert lua("return clicks", game) == 2


def test_the_scroll_view_scrolls_under_the_wheel(game: Engine) -> None:
    x, y, w, h = box(game, "list")
    before = drawn_texts(game)
    assert "Row 2" in before and "Row 9" not in before
    game.queue_input({"kind": "mouse_move", "x": x + w / 2, "y": y + h / 2})
    game.run_frames(1)
    game.queue_input({"kind": "wheel", "amount": -2})      # two notches down: urhox-libs scrolls 40 px a notch
    game.run_frames(30)
    assert lua('return select(2, require("urhox-libs/UI").FindById("list"):GetScroll())', game) == 80
    after = drawn_texts(game)
    assert after["Row 4"] == pytest.approx(before["Row 4"] - 80)
    assert "Row 1" not in after and "Row 9" in after


def test_modal_and_toast(game: Engine) -> None:
    lua("modal:Open()", game)
    game.run_frames(30)
    assert "Confirm quit" in drawn_texts(game)
    tap(game, 5, 5)                                         # on the overlay, outside the dialog: closes it
    game.run_frames(40)
    assert lua("return modal:IsOpen()", game) is False and lua("return closed", game) == 1
    assert "Confirm quit" not in drawn_texts(game)
    lua('require("urhox-libs/UI").Toast.Show({ message = "Saved!", variant = "success", duration = 1 })', game)
    game.run_frames(20)
    assert "Saved!" in drawn_texts(game)
    game.run_frames(120)
    assert "Saved!" not in drawn_texts(game)
    assert game.report().outcome == "clean"
