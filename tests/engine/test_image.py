"""Images with pixels (issue 19): the PNG decoder (engine/_png.py) against files written from the specification
(tests/engine/png_writer.py), its refusals, and the Image resource in Lua (engine/lua/runtime/61_image.lua) with
Urho3D's pixel semantics."""

from __future__ import annotations

import struct
import zlib
from typing import Any

import pytest

from engine._png import PngError, decode
from engine.testing import lua, new_engine
from tests.engine.png_writer import chunk, png

GREY = [[[(x * 37 + y * 11) % 256] for x in range(9)] for y in range(7)]


@pytest.mark.parametrize("kind", [0, 1, 2, 3, 4])
def test_each_row_filter_decodes_to_the_pixels_written(kind: int) -> None:
    image = decode(png(GREY, filters=(kind,)))
    assert (image.width, image.height, image.components) == (9, 7, 1)
    assert image.pixels == bytes(s for row in GREY for px in row for s in px)


def test_colour_types_and_depths_give_stb_images_channels() -> None:
    rgba = [[[x * 20, y * 30, (x + y) % 256, 255 - x] for x in range(5)] for y in range(4)]
    got = decode(png(rgba, ctype=6, filters=(4, 3, 1)))
    assert got.components == 4 and got.pixels == bytes(s for row in rgba for px in row for s in px)
    rgb16 = [[[x * 4000, y * 9000, 65535 - x] for x in range(3)] for y in range(2)]
    got = decode(png(rgb16, ctype=2, depth=16, filters=(2,)))
    assert got.components == 3 and got.pixels == bytes(s >> 8 for row in rgb16 for px in row for s in px)
    grey_alpha = [[[x * 50, 200 - y] for x in range(4)] for y in range(3)]
    assert decode(png(grey_alpha, ctype=4)).components == 2
    # grey below 8 bits is scaled to 0..255, as stb_image does
    two_bit = [[[x % 4] for x in range(6)] for y in range(2)]
    assert decode(png(two_bit, depth=2)).pixels == bytes((x % 4) * 0x55 for _ in range(2) for x in range(6))
    one_bit = [[[(x + y) % 2] for x in range(11)] for y in range(3)]
    assert decode(png(one_bit, depth=1)).pixels == bytes(((x + y) % 2) * 255 for y in range(3) for x in range(11))


def test_palette_and_transparency() -> None:
    plte = bytes([255, 0, 0, 0, 255, 0, 0, 0, 255])
    indices = [[[x % 3] for x in range(5)] for _ in range(2)]
    got = decode(png(indices, ctype=3, depth=4, plte=plte))
    assert got.components == 3 and got.pixels[:9] == plte
    with_alpha = decode(png(indices, ctype=3, depth=8, plte=plte, trns=bytes([10, 20])))
    assert with_alpha.components == 4
    assert with_alpha.pixels[:12] == bytes([255, 0, 0, 10, 0, 255, 0, 20, 0, 0, 255, 255])
    # a grey image with a transparent colour gets an alpha channel, 0 where the pixel is that colour
    keyed = decode(png([[[5], [6]]], trns=struct.pack(">H", 6)))
    assert keyed.components == 2 and keyed.pixels == bytes([5, 255, 6, 0])


def test_interlaced_images_decode_like_plain_ones() -> None:
    rgb = [[[x * 13 % 256, y * 7 % 256, (x * y) % 256] for x in range(13)] for y in range(11)]
    assert decode(png(rgb, ctype=2, interlace=True, filters=(0, 1, 2, 3, 4))).pixels == decode(png(rgb, ctype=2)).pixels


@pytest.mark.parametrize(("data", "reason"), [
    (b"GIF89a...", "not a PNG file"),
    (png(GREY)[:-12], "no IEND chunk"),
    (png(GREY)[:40] + b"\0" + png(GREY)[41:], "bad CRC"),
    (png(GREY)[:-12] + chunk(b"ABCD", b"") + chunk(b"IEND", b""), "unknown critical chunk ABCD"),
    (png([[[1]]], ctype=3), "without a PLTE chunk"),
    (png([[[3]]], ctype=3, plte=bytes(6)), "palette index 3 beyond the 2 colours"),
    (png(GREY)[:33] + chunk(b"IDAT", zlib.compress(b"\x07" + bytes(9))) + chunk(b"IEND", b""), "truncated image data"),
    (png(GREY)[:33] + chunk(b"IDAT", b"\x78\x9c\xff\xff") + chunk(b"IEND", b""), "corrupt image data"),
    (png(GREY)[:33] + chunk(b"IDAT", zlib.compress(b"\x07" + bytes(9 * 7 + 6))) + chunk(b"IEND", b""),
     "unknown row filter 7"),
])
def test_malformed_files_are_refused_with_a_reason(data: bytes, reason: str) -> None:
    with pytest.raises(PngError, match=reason):
        decode(data)


def test_the_decoded_size_is_bounded_before_inflating() -> None:
    # a 30000 x 30000 RGBA header over a few bytes of data: refused on its size, nothing inflated
    huge = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 30000, 30000, 8, 6, 0, 0, 0))
    huge += chunk(b"IDAT", zlib.compress(b"\0" * 100)) + chunk(b"IEND", b"")
    with pytest.raises(PngError, match="more than the run's memory limit leaves"):
        decode(huge, max_bytes=64 * 1024 * 1024)


# -- Image in Lua ---------------------------------------------------------------------------------------------------
FILES: dict[str, str | bytes] = {
    "Textures/rgb.png": png([[[10, 20, 30], [40, 50, 60]], [[70, 80, 90], [1, 2, 3]]], ctype=2),
    "Textures/ga.png": png([[[100, 7]]], ctype=4),
    "Textures/bad.png": png(GREY)[:-12],
    "Textures/photo.jpg": b"\xff\xd8\xff\xe0 not decoded",
    "Textures/huge.png": b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 30000, 30000, 8, 6, 0, 0, 0))
    + chunk(b"IDAT", zlib.compress(b"\0")) + chunk(b"IEND", b""),
}


@pytest.fixture(scope="module")
def engine() -> Any:
    return new_engine(files=FILES)


def test_an_image_built_in_code_has_urho3d_pixel_semantics(engine: Any) -> None:
    got = lua("""
    local img = Image()
    local ok = img:SetSize(4, 3, 3)
    img:SetPixel(1, 2, Color(1, 0.5, 0))
    img:SetPixelInt(2, 0, 0xff445566)
    img:SetPixelInt(9, 9, 0xffffffff)        -- outside: ignored (writes do not clamp)
    local c = img:GetPixel(1, 2)
    local edge = img:GetPixel(-5, 40)          -- clamped into the image: pixel (0, 2)
    local two = Image(); two:SetSize(1, 1, 2); two:SetPixelInt(0, 0, 0x1234)
    local tc = two:GetPixel(0, 0)
    local grey = Image(); grey:SetSize(1, 1, 1); grey:SetPixelInt(0, 0, 0x80)
    return {ok, img.width, img.height, img.components, c.r, c.g, c.b, c.a, img:GetPixelInt(1, 2),
            img:GetPixelInt(2, 0), img:GetPixelInt(9, 9), edge.r, tc.r * 255, tc.g * 255, tc.b, grey:GetPixelInt(0, 0),
            img:SetSize(0, 4, 3), img:SetSize(2, 2, 5), img:HasAlphaChannel()}
    """, engine)
    assert got[:8] == [True, 4, 3, 3, 1.0, pytest.approx(127 / 255), 0.0, 1.0]
    assert got[8:12] == [0xFF007FFF, 0xFF445566, 0xFF000000, 0.0]   # reads clamp: (9, 9) reads (3, 2)
    assert got[12] == pytest.approx(0x34) and got[13] == pytest.approx(0x12) and got[14] == 1.0   # missing blue: white
    assert got[15:] == [0xFF808080, False, False, False]


def test_clear_and_flips(engine: Any) -> None:
    got = lua("""
    local img = Image(); img:SetSize(3, 2, 1)
    img:Clear(Color(0.2, 0, 0))
    local cleared = img:GetPixelInt(2, 1)
    for x = 0, 2 do img:SetPixelInt(x, 0, x + 1) end
    img:FlipVertical()
    local v = {img:GetPixelInt(0, 0), img:GetPixelInt(2, 1)}
    img:FlipHorizontal()
    return {cleared, v[1], v[2], img:GetPixelInt(0, 1), img:GetPixelInt(2, 1)}
    """, engine)
    assert got == [0xFF333333, 0xFF333333, 0xFF030303, 0xFF030303, 0xFF010101]


def test_a_games_png_files_load_with_their_channels(engine: Any) -> None:
    got = lua("""
    local rgb = cache:GetResource("Image", "Textures/rgb.png")
    local ga = cache:GetResource("Image", "Textures/ga.png")
    local p = rgb:GetPixel(0, 1)
    return {rgb.width, rgb.height, rgb.components, rgb:GetPixelInt(1, 0), p.r * 255, ga.components,
            ga:GetPixelInt(0, 0), cache:GetResource("Image", "Textures/bad.png") == nil,
            cache:GetResource("Image", "Textures/huge.png") == nil}
    """, engine)
    assert got[:4] == [2, 2, 3, 0xFF3C3228] and got[4] == pytest.approx(70)
    assert got[5:] == [2, 0xFF000764, True, True]
    messages = [e["message"] for e in engine.report().log]
    assert "Could not load image Textures/bad.png: no IEND chunk (the file is truncated)" in messages
    assert any(m.startswith("Could not load image Textures/huge.png: 30000x30000 pixels of 4 bytes need") and
               "memory limit" in m for m in messages)


def test_stock_heightmap_pixels_are_known_and_other_pixels_are_missing_api() -> None:
    e = new_engine(files=FILES)
    got = lua("""
    local hm = cache:GetResource("Image", "Textures/HeightMap.png")
    local icon = cache:GetResource("Image", "Textures/UrhoIcon.png")
    return {hm.width, hm.height, hm.components, icon.width, icon.height}
    """, e)
    assert got == [1025, 1025, 1, 48, 48]
    with pytest.raises(Exception, match=r"Image:GetPixel \(image Textures/UrhoIcon.png: its pixels are not loaded"):
        lua('return cache:GetResource("Image", "Textures/UrhoIcon.png"):GetPixel(0, 0)', e)
    with pytest.raises(Exception, match=r"Image:GetPixelInt \(image Textures/photo.jpg: only PNG files are decoded"):
        lua('return cache:GetResource("Image", "Textures/photo.jpg"):GetPixelInt(0, 0)', e)
    assert e.report().outcome == "missing_api"
