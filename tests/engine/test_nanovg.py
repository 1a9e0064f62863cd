"""NanoVG, headless: recording of shapes and text, paints, transforms, scissors, images, text metrics from real
font files, NanoVGRender dispatch, and the battery's queries over the recorded frame."""

from __future__ import annotations

import shutil
import struct
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from lupa.lua54 import LuaError

from engine import Engine
from engine._engine import to_python
from engine._fonts import DEJAVU_SANS, ROBOTO, STOCK_FONTS, font_metrics, missing_system_fonts, system_font
from tests._ci import missing_dependency

MISSING = missing_system_fonts()
if MISSING:
    missing_dependency(f"stand-in fonts not installed (docs/fonts.md): {', '.join(MISSING)}", module_level=True)


def test_stand_in_fonts_are_installed_and_pinned() -> None:
    assert not MISSING, f"install the fonts of docs/fonts.md: {MISSING}"
    for name, font in {**STOCK_FONTS, "@fallback": DEJAVU_SANS}.items():
        assert system_font(name) is font
        assert font_metrics(font.path.read_bytes())["sha256"] == font.sha256, name
    assert system_font("fonts/misans-regular.TTF") is ROBOTO


def make(tmp_path: Path, main_lua: str, files: dict[str, bytes | str] | None = None) -> Engine:
    root = tmp_path / f"game{len(list(tmp_path.iterdir()))}"
    (root / "scripts").mkdir(parents=True)
    (root / "scripts" / "main.lua").write_text(main_lua)
    for rel, data in (files or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data)
    return Engine(root)


def render(tmp_path: Path, draw: str, setup: str = "", frames: int = 1,
           files: dict[str, bytes | str] | None = None) -> tuple[Engine, list[dict[str, Any]]]:
    """A game whose NanoVGRender handler runs `draw` (with `vg`, `W`, `H`) inside a 1280x720 frame."""
    main = f"""
vg = nil
function Start()
  vg = nvgCreate(1)
  font = nvgCreateFont(vg, "sans", "Fonts/MiSans-Regular.ttf")
  {setup}
  SubscribeToEvent(vg, "NanoVGRender", "HandleRender")
end
function HandleRender()
  local W, H = 1280, 720
  nvgBeginFrame(vg, W, H, 1.0)
  {draw}
  nvgEndFrame(vg)
end
"""
    engine = make(tmp_path, main, files)
    engine.start()
    engine.run_frames(frames)
    report = engine.report()
    assert report.outcome == "clean", report.errors
    return engine, to_python(engine.E.nanovg_records()) or []


def game_lua(engine: Engine, code: str) -> Any:
    """Run `code` in the game's environment (after Start) and return its value as Python."""
    fn = engine.runtime.eval("function(src, env) return assert(load(src, '=t', 't', env))() end")
    engine.E.enter_game()
    try:
        return to_python(fn(code, engine.game_env))
    finally:
        engine.E.leave_game()


def bounds(cmd: dict[str, Any]) -> tuple[float, float, float, float]:
    return cmd["x0"], cmd["y0"], cmd["x1"], cmd["y1"]


# ------------------------------------------------------------------------------------------------
# shapes, transforms, scissor, colours
# ------------------------------------------------------------------------------------------------

def test_shapes_record_screen_bounds_kind_and_colour(tmp_path: Path) -> None:
    _, cmds = render(tmp_path, """
  nvgBeginPath(vg); nvgRect(vg, 10, 20, 100, 50); nvgFillColor(vg, nvgRGBA(255, 0, 0, 255)); nvgFill(vg)
  nvgBeginPath(vg); nvgCircle(vg, 200, 200, 30); nvgFillColor(vg, nvgRGB(0, 128, 255)); nvgFill(vg)
  nvgStrokeColor(vg, nvgRGBAf(0, 1, 0, 0.5)); nvgStrokeWidth(vg, 4); nvgStroke(vg)
  nvgBeginPath(vg); nvgMoveTo(vg, 0, 0); nvgLineTo(vg, 50, 10); nvgBezierTo(vg, 60, 20, 70, -5, 80, 40)
  nvgFillColor(vg, nvgRGBA(1, 2, 3, 4)); nvgFill(vg)
  nvgBeginPath(vg); nvgRect(vg, 0, 0, 5, 5); nvgCircle(vg, 50, 50, 5); nvgFill(vg)
  nvgBeginPath(vg); nvgFill(vg)
""")
    assert [c["kind"] for c in cmds] == ["fill", "fill", "stroke", "fill", "fill"]
    rect, circle, ring, path, mixed = cmds
    assert bounds(rect) == (10, 20, 110, 70) and rect["shape"] == "rect"
    assert (rect["r"], rect["g"], rect["b"], rect["a"]) == (1.0, 0.0, 0.0, 1.0)
    assert bounds(circle) == (170, 170, 230, 230) and circle["shape"] == "circle"
    assert circle["g"] == pytest.approx(128 / 255)
    assert bounds(ring) == (168, 168, 232, 232) and ring["width"] == 4 and ring["a"] == 0.5
    assert path["shape"] == "path" and bounds(path) == (0, -5, 80, 40)
    assert mixed["shape"] == "mixed" and bounds(mixed) == (0, 0, 55, 55)


def test_transform_stack_save_restore_and_scissor(tmp_path: Path) -> None:
    engine, cmds = render(tmp_path, """
  nvgSave(vg)
  nvgTranslate(vg, 100, 50); nvgScale(vg, 2, 3)
  nvgBeginPath(vg); nvgRect(vg, 0, 0, 10, 10); nvgFill(vg)              -- 1: (100,50)-(120,80)
  nvgSave(vg)
  nvgRotate(vg, math.pi / 2)
  nvgBeginPath(vg); nvgRect(vg, 0, 0, 10, 5); nvgFill(vg)               -- 2: rotated
  nvgRestore(vg)
  nvgScissor(vg, 5, 5, 5, 100)                                           -- (110,65)-(120,350)
  nvgBeginPath(vg); nvgRect(vg, 0, 0, 10, 10); nvgFill(vg)              -- 3: clipped
  nvgIntersectScissor(vg, 0, 0, 7, 7)                                    -- (110,65)-(114,71)
  nvgBeginPath(vg); nvgRect(vg, 0, 0, 10, 10); nvgFill(vg)              -- 4
  local t = {}; nvgCurrentTransform(vg, t); xform = t
  nvgRestore(vg)
  nvgBeginPath(vg); nvgRect(vg, 0, 0, 10, 10); nvgFill(vg)              -- 5: back to identity, no scissor
  nvgTransform(vg, 1, 0, 0.5, 1, 0, 0)                                   -- skew by x += 0.5 y
  nvgBeginPath(vg); nvgRect(vg, 0, 0, 10, 10); nvgFill(vg)              -- 6
  nvgResetTransform(vg); nvgGlobalAlpha(vg, 0.5); nvgFillColor(vg, nvgRGBA(255, 255, 255, 200))
  nvgBeginPath(vg); nvgEllipse(vg, 10, 10, 5, 2); nvgFill(vg)           -- 7
""")
    assert bounds(cmds[0]) == (100, 50, 120, 80)
    x0, y0, x1, y1 = bounds(cmds[1])   # rotated 90° inside the 2x3 scale: local (x, y) -> (100 - 2y, 50 + 3x)
    assert (x0, x1) == pytest.approx((90.0, 100.0)) and (y0, y1) == pytest.approx((50.0, 80.0))
    assert bounds(cmds[2]) == pytest.approx((110, 65, 120, 80))
    assert bounds(cmds[3]) == pytest.approx((110, 65, 114, 71))
    assert bounds(cmds[4]) == (0, 0, 10, 10)
    assert bounds(cmds[5]) == (0, 0, 15, 10)
    assert bounds(cmds[6]) == (5, 8, 15, 12) and cmds[6]["a"] == pytest.approx(200 / 255 * 0.5)
    assert game_lua(engine, "return xform") == [2, 0, 0, 3, 100, 50]


def test_frame_coordinates_scale_to_the_screen(tmp_path: Path) -> None:
    # Mode B of UrhoX's resolution guide: logical size and a device pixel ratio; the frame covers the screen.
    engine = make(tmp_path, """
function Start()
  vg = nvgCreate(1)
  SubscribeToEvent(vg, "NanoVGRender", function()
    nvgBeginFrame(vg, 640, 360, 2.0)
    nvgBeginPath(vg); nvgRect(vg, 10, 10, 100, 20); nvgFill(vg)
    nvgEndFrame(vg)
  end)
end
""")
    engine.start()
    engine.run_frames(1)
    (cmd,) = to_python(engine.E.nanovg_records())
    assert bounds(cmd) == (20, 20, 220, 60)


def test_colours_and_paints(tmp_path: Path) -> None:
    engine, cmds = render(tmp_path, """
  nvgBeginPath(vg); nvgRect(vg, 0, 0, 10, 10)
  nvgFillPaint(vg, nvgLinearGradient(vg, 0, 0, 0, 10, nvgRGBA(255, 0, 0, 255), nvgRGBA(0, 0, 255, 255)))
  nvgFill(vg)
  nvgFillPaint(vg, nvgRadialGradient(vg, 5, 5, 1, 5, nvgRGB(1, 1, 1), nvgRGB(2, 2, 2))); nvgFill(vg)
  nvgFillPaint(vg, nvgBoxGradient(vg, 0, 0, 10, 10, 2, 4, nvgRGB(1, 1, 1), nvgRGB(2, 2, 2))); nvgFill(vg)
  nvgStrokePaint(vg, nvgImagePattern(vg, 0, 0, 10, 10, 0, img, 0.5)); nvgStroke(vg)
  nvgFillPaint(vg, nvgImagePatternTinted(vg, 0, 0, 10, 10, 0, img, nvgRGBA(0, 255, 0, 255))); nvgFill(vg)
""", setup='img = nvgCreateImage(vg, "Textures/Logo.png", 0)')
    assert [c["paint"] for c in cmds] == ["linear", "radial", "box", "image", "image"]
    assert (cmds[0]["r"], cmds[0]["b"], cmds[0]["r2"], cmds[0]["b2"]) == (1, 0, 0, 1)
    assert cmds[3]["kind"] == "stroke" and cmds[3]["a"] == 0.5 and cmds[3]["image_name"] == "Textures/Logo.png"
    assert (cmds[4]["r"], cmds[4]["g"]) == (0, 1)
    got = game_lua(engine, """
      local c = nvgRGBA(256 + 10, 127.9, -1, 255)
      local h = nvgHSL(0, 1, 0.5)
      local l = nvgLerpRGBA(nvgRGBf(0, 0, 0), nvgRGBf(1, 1, 1), 0.25)
      local t = nvgTransRGBA(nvgRGB(10, 20, 30), 128)
      local p = nvgLinearGradient(vg, 0, 0, 0, 10, nvgRGBA(255, 0, 0, 255), nvgRGBA(0, 0, 255, 255))
      return {c.r * 255, c.g * 255, c.b * 255, h.r, h.g, h.b, l.r, t.a * 255, p.innerColor.r, p.extent[2],
        tolua.type(c), tolua.type(p), nvgDegToRad(180), nvgRadToDeg(math.pi)}
    """)
    assert got[:3] == [pytest.approx(10), pytest.approx(127), pytest.approx(255)]
    assert got[3:6] == [pytest.approx(1), pytest.approx(0), pytest.approx(0)]
    assert got[6] == pytest.approx(0.25) and got[7] == pytest.approx(128)
    assert got[8] == 1 and got[9] == pytest.approx(1e5 + 5)
    assert got[10:12] == ["NVGcolor", "NVGpaint"]
    assert got[12:] == [pytest.approx(3.141592653589793), pytest.approx(180)]


def test_a_plain_table_is_not_a_colour(tmp_path: Path) -> None:
    engine = make(tmp_path, "function Start() vg = nvgCreate(1); nvgFillColor(vg, {r = 1, g = 0, b = 0, a = 1}) end")
    engine.start()
    report = engine.report()
    assert report.outcome == "lua_error"
    assert "NVGcolor expected, got table" in report.errors[0]["message"]


# ------------------------------------------------------------------------------------------------
# images
# ------------------------------------------------------------------------------------------------

def png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\0" + b"\0\0\0" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_images_from_the_stock_manifest_and_the_deliverable(tmp_path: Path) -> None:
    engine, _ = render(tmp_path, "", setup="""
  a = nvgCreateImage(vg, "Textures/FishBoneLogo.png", 0)
  b = nvgCreateImage(vg, "image/hero.png", NVG_IMAGE_NEAREST)
  c = nvgCreateImage(vg, "image/missing.png", 0)
""", files={"assets/image/hero.png": png(37, 21)})
    got = game_lua(engine, """
      local aw, ah = nvgImageSize(vg, a); local bw, bh = nvgImageSize(vg, b)
      nvgDeleteImage(vg, b); local dw, dh = nvgImageSize(vg, b)
      return {a, aw, ah, b, bw, bh, c, dw, dh}
    """)
    assert got == [1, 256, 128, 2, 37, 21, -1, 0, 0]
    assert any("image/missing.png" in e["message"] for e in engine.report().log)


# ------------------------------------------------------------------------------------------------
# text and metrics
# ------------------------------------------------------------------------------------------------

def reference_width(metrics: dict[str, Any], size: float, text: str) -> int:
    """fontstash's arithmetic: the size is the ascender-descender height; each advance in whole pixels."""
    height = metrics["ascent"] - metrics["descent"]
    scale = int(size * 10.0) / 10.0 / height
    total = 0
    for ch in text:
        adv = metrics["advances"][ord(ch)]
        total += int(int(scale * adv * 10.0) / 10.0 + 0.5)
    return total


def test_text_is_recorded_with_alignment_face_size_colour_and_bounds(tmp_path: Path) -> None:
    _, cmds = render(tmp_path, """
  nvgFontFace(vg, "sans"); nvgFontSize(vg, 24); nvgFillColor(vg, nvgRGBA(255, 255, 0, 255))
  nvgTextAlign(vg, NVG_ALIGN_LEFT + NVG_ALIGN_TOP); nvgText(vg, 100, 200, "Score: 10")
  nvgTextAlign(vg, NVG_ALIGN_CENTER + NVG_ALIGN_MIDDLE); nvgText(vg, 640, 360, "Score: 10")
  nvgTextAlign(vg, NVG_ALIGN_RIGHT + NVG_ALIGN_BASELINE); nvgText(vg, 1000, 100, "Score: 10")
  nvgSave(vg); nvgTranslate(vg, 10, 10); nvgScale(vg, 2, 2)
  nvgTextAlign(vg, NVG_ALIGN_LEFT + NVG_ALIGN_TOP); nvgText(vg, 0, 0, "Score: 10")
  nvgRestore(vg)
  nvgFontFace(vg, "no such face"); nvgText(vg, 0, 0, "invisible")
""")
    roboto = font_metrics(ROBOTO.path.read_bytes())
    width = reference_width(roboto, 24, "Score: 10")
    height = roboto["ascent"] - roboto["descent"]
    ascender = roboto["ascent"] / height * 24
    assert [c["text"] for c in cmds] == ["Score: 10"] * 4
    left, center, right, scaled = cmds
    assert left["face"] == "sans" and left["size"] == 24 and left["font_file"] == "Fonts/MiSans-Regular.ttf"
    assert (left["r"], left["g"], left["b"]) == (1, 1, 0) and (left["x"], left["y"]) == (100, 200)
    assert bounds(left) == pytest.approx((100, 200, 100 + width, 224))
    assert center["x0"] == pytest.approx(640 - width / 2) and center["x1"] == pytest.approx(640 + width / 2)
    assert (center["y0"], center["y1"]) == pytest.approx((348, 372))   # middle: the line box centred
    assert right["x1"] == pytest.approx(1000) and right["y0"] == pytest.approx(100 - ascender)
    # at a 2x transform the text is measured at 48 px and drawn in the transformed space
    assert scaled["x0"] == 10 and scaled["x1"] == pytest.approx(10 + reference_width(roboto, 48, "Score: 10"))
    assert scaled["screen_size"] == 48


def test_text_metrics_are_deterministic_and_grow_with_length(tmp_path: Path) -> None:
    code = """
      nvgFontFace(vg, "sans"); nvgFontSize(vg, 18)
      local out = {}
      for _, s in ipairs({"a", "ab", "abc", "abcd", "Hello, world", "Hello, world!", "你好", "你好世界",
                          "iiii", "WWWW"}) do
        out[#out + 1] = (nvgTextBounds(vg, 0, 0, s))
      end
      local asc, desc, lineh = nvgTextMetrics(vg)
      out[#out + 1] = asc; out[#out + 1] = desc; out[#out + 1] = lineh
      return out
    """
    first, _ = render(tmp_path, "")
    second, _ = render(tmp_path, "")
    a, b = game_lua(first, code), game_lua(second, code)
    assert a == b
    widths = a[:10]
    assert widths[0] < widths[1] < widths[2] < widths[3]
    assert widths[4] < widths[5]
    assert widths[7] == 2 * widths[6] > 0          # CJK at one em each
    assert widths[8] < widths[9]                   # proportional: i is narrower than W
    roboto = font_metrics(ROBOTO.path.read_bytes())
    assert widths[4] == reference_width(roboto, 18, "Hello, world")
    height = roboto["ascent"] - roboto["descent"]
    assert a[10:] == pytest.approx([roboto["ascent"] / height * 18, roboto["descent"] / height * 18, 18])


def test_the_deliverables_own_font_is_used(tmp_path: Path) -> None:
    mono = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
    if not mono.is_file():
        missing_dependency("DejaVu Sans Mono (fonts-dejavu-core) is not installed")
    engine, _ = render(tmp_path, "", setup="""
  own = nvgCreateFont(vg, "mono", "Fonts/MyMono.ttf")
  anon = nvgCreateFont(vg, "anon", "Fonts/Anonymous Pro.ttf")
  missing = nvgCreateFont(vg, "nope", "Fonts/NotThere.ttf")
""", files={"assets/Fonts/MyMono.ttf": mono.read_bytes()})
    got = game_lua(engine, """
      nvgFontSize(vg, 20)
      nvgFontFace(vg, "mono"); local m1 = nvgTextBounds(vg, 0, 0, "iiii"); local m2 = nvgTextBounds(vg, 0, 0, "WWWW")
      nvgFontFace(vg, "anon"); local a1 = nvgTextBounds(vg, 0, 0, "iiii")
      nvgFontFace(vg, "sans"); local s1 = nvgTextBounds(vg, 0, 0, "iiii")
      return {own, anon, missing, nvgFindFont(vg, "mono"), nvgFindFont(vg, "nope"), m1, m2, a1, s1}
    """)
    assert got[:5] == [1, 2, -1, 1, -1]
    assert got[5] == got[6] > 0                  # monospaced
    assert got[5] == reference_width(font_metrics(mono.read_bytes()), 20, "iiii")
    assert got[8] < got[5]                       # Roboto's i is narrower
    assert any("Fonts/NotThere.ttf" in e["message"] for e in engine.report().log)


def test_text_box_wraps_and_measures(tmp_path: Path) -> None:
    engine, cmds = render(tmp_path, """
  nvgFontFace(vg, "sans"); nvgFontSize(vg, 20); nvgTextAlign(vg, NVG_ALIGN_LEFT + NVG_ALIGN_TOP)
  nvgTextBox(vg, 10, 10, 120, "The quick brown fox jumps over the lazy dog")
  nvgTextAlign(vg, NVG_ALIGN_CENTER + NVG_ALIGN_TOP)
  nvgTextBox(vg, 300, 10, 60, "一二三四五六七八九十")
""")
    rows = [c for c in cmds if c["box_text"] == "The quick brown fox jumps over the lazy dog"]
    assert len(rows) >= 3
    assert " ".join(r["text"] for r in rows) == "The quick brown fox jumps over the lazy dog"
    for r in rows:
        assert r["x0"] == 10 and r["x1"] <= 10 + 120 + 1e-9
    ys = [r["y0"] for r in rows]
    assert ys == sorted(ys) and ys[1] - ys[0] == pytest.approx(20)
    cjk = [c for c in cmds if c["box_text"] == "一二三四五六七八九十"]
    assert "".join(r["text"] for r in cjk) == "一二三四五六七八九十" and len(cjk) >= 3
    got = game_lua(engine, """
      nvgFontFace(vg, "sans"); nvgFontSize(vg, 20); nvgTextAlign(vg, NVG_ALIGN_LEFT + NVG_ALIGN_TOP)
      local reuse = {}
      local b = nvgTextBoxBounds(vg, 10, 10, 120, "The quick brown fox jumps over the lazy dog", nil, reuse)
      local one = nvgTextBoxBounds(vg, 0, 0, 1000, "short")
      local adv, tb = nvgTextBounds(vg, 0, 0, "short")
      return {b == reuse, b[1], b[2], b[3], b[4], one[3], adv, tb[3], tb[4]}
    """)
    assert got[0] is True
    assert got[1:3] == [10, 10] and got[3] <= 130 and got[4] == pytest.approx(10 + 20 * len(rows))
    assert got[5] == pytest.approx(got[6]) == pytest.approx(got[7]) and got[8] == pytest.approx(20)


def test_break_lines_follows_nanovg(tmp_path: Path) -> None:
    engine, _ = render(tmp_path, "")
    rows = to_python(engine.runtime.eval("""function(E, ctx)
      local F = E.FUNCTIONS
      F.nvgFontFace(ctx, "sans"); F.nvgFontSize(ctx, 20)
      local s = "alpha beta\\ngamma   delta epsilonzeta"
      local out = {}
      for _, r in ipairs(E.nvg_break_lines(E.REC[ctx], s, 110, 100)) do
        out[#out + 1] = s:sub(r.start, r.stop - 1)
      end
      return out
    end""")(engine.E, engine.game_env.vg))
    assert rows[0] == "alpha beta" and rows[1].startswith("gamma")
    assert all(not r.startswith(" ") and not r.endswith(" ") for r in rows)
    assert "".join(rows).replace(" ", "") == "alphabetagammadeltaepsilonzeta"


# ------------------------------------------------------------------------------------------------
# dispatch
# ------------------------------------------------------------------------------------------------

def test_nanovg_render_is_sent_by_each_context_in_render_order(tmp_path: Path) -> None:
    engine = make(tmp_path, """
calls = ""
function Start()
  top = nvgCreate(1); bottom = nvgCreate(1); spare = nvgCreate(1)
  nvgSetRenderOrder(top, 100)
  SubscribeToEvent(top, "NanoVGRender", function()
    calls = calls .. (GetEventSender() == top and "T" or "?")
    nvgBeginFrame(top, 1280, 720, 1); nvgBeginPath(top); nvgRect(top, 0, 0, 50, 50); nvgFill(top); nvgEndFrame(top)
  end)
  SubscribeToEvent(bottom, "NanoVGRender", function()
    calls = calls .. "B"
    nvgBeginFrame(bottom, 1280, 720, 1); nvgBeginPath(bottom); nvgRect(bottom, 0, 0, 100, 100); nvgFill(bottom)
    nvgEndFrame(bottom)
  end)
  SubscribeToEvent("NanoVGRender", function() calls = calls .. "g" end)
  SubscribeToEvent("Update", function()
    -- drawn outside the event: never shown
    nvgBeginFrame(spare, 1280, 720, 1); nvgBeginPath(spare); nvgRect(spare, 0, 0, 9, 9); nvgFill(spare)
    nvgEndFrame(spare)
  end)
end
""")
    engine.start()
    engine.run_frames(2)
    # render order 0 (bottom, then spare) before 100 (top); the global handler runs only for the spare context:
    # Urho3D calls a receiver once per event, by its handler for that sender when it has one
    assert engine.game_env.calls == "BgTBgT"
    cmds = to_python(engine.E.nanovg_records())
    assert [c["x1"] for c in cmds] == [100, 50]       # topmost last
    assert any("outside the NanoVGRender event" in e["message"] for e in engine.report().log)
    game_lua(engine, "nvgDelete(bottom)")
    engine.run_frames(1)
    assert engine.game_env.calls.endswith("BgTgT") and engine.game_env.calls.count("B") == 2
    assert [c["x1"] for c in to_python(engine.E.nanovg_records())] == [50]
    with pytest.raises(LuaError, match="deleted"):
        game_lua(engine, "nvgBeginPath(bottom)")


# ------------------------------------------------------------------------------------------------
# the battery
# ------------------------------------------------------------------------------------------------

HUD = """
local vg
score = 0
function Start()
  vg = nvgCreate(1)
  nvgCreateFont(vg, "sans", "Fonts/MiSans-Regular.ttf")
  SubscribeToEvent(vg, "NanoVGRender", "HandleRender")
  SubscribeToEvent("KeyDown", function() score = score + 10 end)
end
function HandleRender()
  nvgBeginFrame(vg, 1280, 720, 1.0)
  nvgBeginPath(vg); nvgRoundedRect(vg, 20, 20, 200, 60, 8); nvgFillColor(vg, nvgRGBA(0, 0, 0, 160)); nvgFill(vg)
  nvgFontFace(vg, "sans"); nvgFontSize(vg, 28); nvgTextAlign(vg, NVG_ALIGN_LEFT + NVG_ALIGN_MIDDLE)
  nvgFillColor(vg, nvgRGBA(255, 215, 0, 255))
  nvgText(vg, 36, 50, "Score: " .. score)
  nvgBeginPath(vg); nvgCircle(vg, 640, 360, 40); nvgFillColor(vg, nvgRGBA(0, 0, 0, 0)); nvgFill(vg)
  nvgEndFrame(vg)
end
"""

HUD_BATTERY = """
local h = harness
h.start()
h.run_frames(2)
requirement("score shown", {}, function(check)
  local t = h.find_text("Score:")
  check.truthy("score text drawn", t)
  check.equal("starts at zero", t.text, "Score: 0")
  check.equal("gold", t.rgba[1] .. "," .. t.rgba[2] .. "," .. t.rgba[3], "255,215,0")
  check.equal("size", t.size, 28)
  check.equal("face", t.face, "sans")
  check.truthy("inside the panel", t.bounds[1] >= 20 and t.bounds[3] <= 220)
end)
h.press(KEY_SPACE)
h.run_frames(1)
requirement("score updates", {}, function(check)
  check.truthy("10 shown", h.find_text("Score: 10"))
  check.falsy("0 gone", h.find_text("Score: 0"))
  check.equal("one text", #h.drawn_text(), 1)
  local at = h.drawn_at(40, 50)
  check.equal("panel then text", at[1].shape .. "," .. at[2].kind, "rounded_rect,text")
  check.equal("nothing visible at the centre", #h.drawn_at(640, 360), 0)
  check.equal("the transparent circle is there with all", #h.drawn_at(640, 360, {all = true}), 1)
  check.equal("frame", h.drawn_frame(), h.frame())
end)
"""


def test_battery_reads_the_drawn_frame(tmp_path: Path) -> None:
    engine = make(tmp_path, HUD)
    engine.run_battery(HUD_BATTERY, "battery/main.lua")
    reqs = {r["id"]: r for r in engine.requirements()}
    assert reqs["score shown"]["passed"], reqs["score shown"]["checks"]
    assert reqs["score updates"]["passed"], reqs["score updates"]["checks"]


def test_a_hud_of_500_draw_calls_per_frame_runs(tmp_path: Path) -> None:
    engine = make(tmp_path, """
function Start()
  vg = nvgCreate(1)
  nvgCreateFont(vg, "sans", "Fonts/MiSans-Regular.ttf")
  SubscribeToEvent(vg, "NanoVGRender", function()
    nvgBeginFrame(vg, 1280, 720, 1)
    nvgFontFace(vg, "sans"); nvgFontSize(vg, 14)
    for i = 0, 99 do
      nvgSave(vg); nvgTranslate(vg, (i % 10) * 120, (i // 10) * 60)
      nvgBeginPath(vg); nvgRoundedRect(vg, 0, 0, 110, 50, 6); nvgFillColor(vg, nvgRGBA(30, 30, 40, 200)); nvgFill(vg)
      nvgStrokeColor(vg, nvgRGBA(255, 255, 255, 80)); nvgStroke(vg)
      nvgBeginPath(vg); nvgCircle(vg, 15, 25, 8); nvgFill(vg)
      nvgFillColor(vg, nvgRGBA(255, 255, 255, 255))
      nvgText(vg, 30, 18, "Slot " .. i); nvgText(vg, 30, 34, "Frame " .. GetTime():GetFrameNumber())
      nvgRestore(vg)
    end
    nvgEndFrame(vg)
  end)
end
""")
    engine.start()
    start = time.perf_counter()
    engine.run_seconds(2.0)
    wall = time.perf_counter() - start
    assert engine.report().outcome == "clean"
    assert len(to_python(engine.E.nanovg_records())) == 500
    assert wall < 10.0


def test_font_metrics_do_not_depend_on_the_install_path(tmp_path: Path) -> None:
    copy = tmp_path / "copy.ttf"
    shutil.copy(ROBOTO.path, copy)
    assert font_metrics(copy.read_bytes()) == font_metrics(ROBOTO.path.read_bytes())


def test_get_nanovg_context_is_a_singleton_context(tmp_path: Path) -> None:
    engine, _ = render(tmp_path, "")
    got = game_lua(engine, """
      local a, b = GetNanoVGContext(), GetNanoVGContext()
      return {a == b, tolua.type(a), a ~= vg, nvgFindFont(a, "sans")}
    """)
    assert got == [True, "NVGContextWrapper", True, -1]
