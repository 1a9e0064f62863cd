"""A small PNG writer for tests: every colour type and bit depth, each of the five row filters, Adam7 interlacing.

It is written from the PNG specification independently of engine/_png.py (the filters here are the encoding side),
so a decoded image equal to the pixels written checks the decoder end to end.
"""

from __future__ import annotations

import struct
import zlib

ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _pack_row(samples: list[int], depth: int) -> bytes:
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    if depth == 8:
        return bytes(samples)
    per = 8 // depth
    out = bytearray((len(samples) + per - 1) // per)
    for i, s in enumerate(samples):
        out[i // per] |= s << (8 - depth * (i % per + 1))
    return bytes(out)


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _filter(row: bytes, prior: bytes, kind: int, bpp: int) -> bytes:
    out = bytearray(len(row))
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prior[i]
        c = prior[i - bpp] if i >= bpp else 0
        pred = (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind]
        out[i] = (x - pred) & 0xFF
    return bytes([kind]) + bytes(out)


def png(pixels: list[list[list[int]]], ctype: int = 0, depth: int = 8, filters: tuple[int, ...] = (0,),
        interlace: bool = False, plte: bytes | None = None, trns: bytes | None = None) -> bytes:
    """A PNG file of `pixels[y][x]` = the pixel's samples (a palette index for colour type 3). Row filters cycle
    through `filters`."""
    height, width = len(pixels), len(pixels[0])
    channels = CHANNELS[ctype]
    bpp = max(1, channels * depth // 8)
    passes = ADAM7 if interlace else ((0, 0, 1, 1),)
    raw = bytearray()
    k = 0
    for x0, y0, dx, dy in passes:
        rows = []
        for y in range(y0, height, dy):
            samples = [s for x in range(x0, width, dx) for s in pixels[y][x]]
            if samples:
                rows.append(_pack_row(samples, depth))
        prior = bytes(len(rows[0])) if rows else b""
        for row in rows:
            raw += _filter(row, prior, filters[k % len(filters)], bpp)
            k += 1
            prior = row
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, ctype, 0, 0,
                                                              1 if interlace else 0))
    if plte is not None:
        out += chunk(b"PLTE", plte)
    if trns is not None:
        out += chunk(b"tRNS", trns)
    return out + chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b"")
