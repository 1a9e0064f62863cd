"""PNG decoding for the headless engine's `Image` (a game's own PNG files; docs/content3d.md, "Images").

Urho3D loads PNG files with stb_image, asking for the file's own channel count: grey 1, grey and alpha 2, RGB 3, RGBA 4,
a palette 3 (4 with a transparency chunk), grey or RGB with a transparency chunk one more (the alpha 0 where a pixel
equals the transparent colour); 16-bit samples keep their high byte; grey samples of 1, 2 or 4 bits are scaled to
0..255.  This module gives the same pixels, row 0 at the top, with the standard library's zlib.

Bad input is refused with `PngError` and a one-line reason (the engine logs "Could not load image NAME: reason", as
Urho3D does, and the resource is nil): a wrong signature, a bad chunk CRC, an unknown critical chunk, an impossible
header, a missing palette, truncated or corrupt image data.  The decoded size is bounded before anything is
inflated (`max_bytes`, what is left of the run's memory limit), and inflating stops at the size the header implies,
so a small file cannot expand into a large allocation.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_SIDE = 1 << 24   # stb_image's own limit on either side
_ALLOWED_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
_GREY_SCALE = {1: 0xFF, 2: 0x55, 4: 0x11, 8: 1}
# Adam7: (x start, y start, x step, y step) of the seven passes
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))


class PngError(ValueError):
    """The file is not a PNG image this decoder can read; the message says why, in one line."""


@dataclass(frozen=True)
class Decoded:
    width: int
    height: int
    components: int
    pixels: bytes   # width * height * components bytes, rows top to bottom


def is_png(data: bytes) -> bool:
    return data[:8] == SIGNATURE


def decode(data: bytes, max_bytes: int | None = None) -> Decoded:
    """The pixels of a PNG file, as stb_image gives them to Urho3D.  `max_bytes` bounds the decoded size."""
    if not is_png(data):
        raise PngError("not a PNG file")
    header, palette, trns, idat = _read_chunks(data)
    width, height, depth, ctype, interlace = header
    if ctype == 3 and palette is None:
        raise PngError("a palette image without a PLTE chunk")
    components = _output_components(ctype, palette, trns)
    size = width * height * components
    if max_bytes is not None and size > max_bytes:
        raise PngError(f"{width}x{height} pixels of {components} bytes need {size} bytes, more than the run's "
                       f"memory limit leaves ({max_bytes})")
    channels = _CHANNELS[ctype]
    bits = channels * depth
    passes = [(0, 0, 1, 1)] if interlace == 0 else list(_ADAM7)
    shapes = []
    expected = 0
    for x0, y0, dx, dy in passes:
        pw = (width - x0 + dx - 1) // dx if width > x0 else 0
        ph = (height - y0 + dy - 1) // dy if height > y0 else 0
        shapes.append((pw, ph))
        if pw and ph:
            expected += ph * (1 + (pw * bits + 7) // 8)
    raw = _inflate(idat, expected)
    out = bytearray(size)
    pos = 0
    for (x0, y0, dx, dy), (pw, ph) in zip(passes, shapes, strict=True):
        if not pw or not ph:
            continue
        stride = (pw * bits + 7) // 8
        rows = _unfilter(raw, pos, ph, stride, max(1, bits // 8))
        pos += ph * (1 + stride)
        for j, row in enumerate(rows):
            pixels = _expand(row, pw, ctype, depth, palette, trns, components)
            y = y0 + j * dy
            if dx == 1:
                start = y * width * components
                out[start:start + pw * components] = pixels
            else:
                for i in range(pw):
                    at = (y * width + x0 + i * dx) * components
                    out[at:at + components] = pixels[i * components:(i + 1) * components]
    return Decoded(width, height, components, bytes(out))


def _read_chunks(data: bytes) -> tuple[tuple[int, int, int, int, int], bytes | None, bytes | None, bytes]:
    pos = 8
    header = None
    palette = trns = None
    idat = []
    ended = False
    while pos < len(data):
        if pos + 12 > len(data):
            raise PngError("truncated chunk")
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if length > 0x7FFFFFFF or pos + 12 + length > len(data):
            raise PngError(f"chunk {kind.decode('latin-1')} runs past the end of the file")
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise PngError(f"bad CRC in chunk {kind.decode('latin-1')}")
        pos += 12 + length
        name = kind.decode("latin-1")
        if header is None and name != "IHDR":
            raise PngError("the first chunk is not IHDR")
        if name == "IHDR":
            if header is not None or length != 13:
                raise PngError("bad IHDR chunk")
            header = _header(body)
        elif name == "PLTE":
            if length == 0 or length % 3 or length // 3 > 256:
                raise PngError("bad PLTE chunk")
            palette = body
        elif name == "tRNS":
            trns = body
        elif name == "IDAT":
            idat.append(body)
        elif name == "IEND":
            ended = True
            break
        elif not (kind[0] & 0x20):
            raise PngError(f"unknown critical chunk {name}")
    if header is None:
        raise PngError("no IHDR chunk")
    if not ended:
        raise PngError("no IEND chunk (the file is truncated)")
    if not idat:
        raise PngError("no image data (IDAT)")
    return header, palette, _check_trns(trns, header, palette), b"".join(idat)


def _header(body: bytes) -> tuple[int, int, int, int, int]:
    width, height, depth, ctype, compression, filtering, interlace = struct.unpack(">IIBBBBB", body)
    if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
        raise PngError(f"image size {width}x{height} is out of range")
    if ctype not in _ALLOWED_DEPTHS or depth not in _ALLOWED_DEPTHS[ctype]:
        raise PngError(f"bit depth {depth} with colour type {ctype} is not a PNG format")
    if compression != 0 or filtering != 0 or interlace not in (0, 1):
        raise PngError("unknown compression, filter or interlace method")
    return width, height, depth, ctype, interlace


def _check_trns(trns: bytes | None, header: tuple[int, int, int, int, int], palette: bytes | None) -> bytes | None:
    if trns is None:
        return None
    ctype = header[3]
    if ctype == 3:
        if palette is None or len(trns) > len(palette) // 3:
            raise PngError("bad tRNS chunk")
        return trns
    if (ctype == 0 and len(trns) != 2) or (ctype == 2 and len(trns) != 6):
        raise PngError("bad tRNS chunk")
    if ctype in (4, 6):
        raise PngError("a tRNS chunk in an image with alpha")
    return trns


def _output_components(ctype: int, palette: bytes | None, trns: bytes | None) -> int:
    if ctype == 3:
        return 4 if trns is not None else 3
    return _CHANNELS[ctype] + (1 if trns is not None else 0)


def _inflate(idat: bytes, expected: int) -> bytes:
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(idat, expected)
    except zlib.error as exc:
        raise PngError(f"corrupt image data ({exc})") from None
    if len(raw) < expected:
        raise PngError(f"truncated image data ({len(raw)} of {expected} bytes)")
    return raw


def _unfilter(raw: bytes, pos: int, rows: int, stride: int, bpp: int) -> list[bytearray]:
    out: list[bytearray] = []
    prior = bytearray(stride)
    for _ in range(rows):
        kind = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prior, strict=True))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prior[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                if i >= bpp:
                    a, c = line[i - bpp], prior[i - bpp]
                else:
                    a = c = 0
                b = prior[i]
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        elif kind != 0:
            raise PngError(f"unknown row filter {kind}")
        out.append(line)
        prior = line
    return out


def _samples(row: bytearray, count: int, depth: int) -> list[int]:
    """`count` samples of `depth` bits from a row (16-bit samples whole, big-endian)."""
    if depth == 8:
        return list(row[:count])
    if depth == 16:
        return [(row[2 * i] << 8) | row[2 * i + 1] for i in range(count)]
    per = 8 // depth
    mask = (1 << depth) - 1
    return [(row[i // per] >> (8 - depth * (i % per + 1))) & mask for i in range(count)]


def _expand(row: bytearray, width: int, ctype: int, depth: int, palette: bytes | None, trns: bytes | None,
            components: int) -> bytes:
    channels = _CHANNELS[ctype]
    samples = _samples(row, width * channels, depth)
    if ctype == 3:
        assert palette is not None
        entries = len(palette) // 3
        out = bytearray(width * components)
        for i, index in enumerate(samples):
            if index >= entries:
                raise PngError(f"palette index {index} beyond the {entries} colours of PLTE")
            out[i * components:i * components + 3] = palette[3 * index:3 * index + 3]
            if components == 4:
                assert trns is not None
                out[i * 4 + 3] = trns[index] if index < len(trns) else 255
        return bytes(out)
    key = None
    if trns is not None:
        key = tuple(struct.unpack(">" + "H" * channels, trns))
    if depth == 16:
        eight = [s >> 8 for s in samples]
    else:
        scale = _GREY_SCALE[depth]
        eight = samples if scale == 1 else [s * scale for s in samples]
    if key is None:
        return bytes(eight)
    out = bytearray(width * components)
    for i in range(width):
        pixel = samples[i * channels:(i + 1) * channels]
        out[i * components:i * components + channels] = bytes(eight[i * channels:(i + 1) * channels])
        out[i * components + channels] = 0 if tuple(pixel) == key else 255
    return bytes(out)
