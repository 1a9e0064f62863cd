"""Font metrics for NanoVG text: horizontal advances and vertical metrics read from real TrueType files.

A font is read once (fontTools: cmap, hmtx, hhea, head) into a plain table the Lua runtime keeps; measuring text
never calls back into Python.  The deliverable's own font files are used as they are; the names of the fonts
UrhoX ships (Urho3D's stock `Fonts/*.ttf` and UrhoX's built-in MiSans) map to Debian font packages, pinned by
SHA-256 (docs/fonts.md).  The results depend only on the font bytes, so the same text measures the same on
every run and every machine with the same files.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

DEBIAN_FONTS = Path("/usr/share/fonts/truetype")


@dataclass(frozen=True)
class SystemFont:
    """A font file from a Debian package that stands in for a font UrhoX ships."""

    package: str
    path: Path
    sha256: str


ANONYMOUS_PRO = SystemFont("fonts-anonymous-pro", DEBIAN_FONTS / "anonymous-pro" / "Anonymous Pro.ttf",
                           "6a3502f45cd580a77e61ac5eec75a7ea699c27e295596806b514d3a04d89165b")
ROBOTO_CONDENSED = SystemFont("fonts-roboto-unhinted", DEBIAN_FONTS / "roboto" / "unhinted" /
                              "RobotoCondensed-Regular.ttf",
                              "936069d5e46da383bff37b629a73e0bfb8b8ac7bc54cfb927fb700f6a890e9aa")
ROBOTO_DIR = DEBIAN_FONTS / "roboto" / "unhinted" / "RobotoTTF"
ROBOTO = SystemFont("fonts-roboto-unhinted", ROBOTO_DIR / "Roboto-Regular.ttf",
                    "797e35f7f5d6020a5c6ea13b42ecd668bcfb3bbc4baa0e74773527e5b6cb3174")
ROBOTO_BOLD = SystemFont("fonts-roboto-unhinted", ROBOTO_DIR / "Roboto-Bold.ttf",
                         "36f3709dea3e3ce3c6aedc058079e55980825f898f1e901d091c73c40de8bab1")
DEJAVU_SANS = SystemFont("fonts-dejavu-core", DEBIAN_FONTS / "dejavu" / "DejaVuSans.ttf",
                         "abdc775b21b1bc470d50c97e790d276f2054b7504e56e5bd3e64f48d68582322")

# Resource names of the fonts the engine ships -> the file that stands in for each (docs/fonts.md).
STOCK_FONTS: dict[str, SystemFont] = {
    "Fonts/Anonymous Pro.ttf": ANONYMOUS_PRO,   # Urho3D stock: the same font
    "Fonts/BlueHighway.ttf": ROBOTO_CONDENSED,  # Urho3D stock: a condensed sans
    "Fonts/MiSans-Regular.ttf": ROBOTO,         # UrhoX built-in (Latin + CJK): Roboto; CJK at 1 em
    "Fonts/MiSans-Bold.ttf": ROBOTO_BOLD,
}
# Glyphs missing from a font and from its fallbacks that are not East Asian wide: measured with DejaVu Sans.
FALLBACK_FONT = "@fallback"
FALLBACK = DEJAVU_SANS
# Wide (CJK, emoji) glyphs missing from a font are one em of UrhoX's built-in MiSans, whose stand-in is Roboto.
WIDE_FALLBACK = ROBOTO


class FontError(Exception):
    """A font file that could not be read, or a stand-in font that is not installed."""


@lru_cache(maxsize=64)
def _metrics_of(data: bytes) -> dict[str, Any]:
    from fontTools.ttLib import TTFont

    try:
        font = TTFont(io.BytesIO(data), lazy=True, fontNumber=0)
        cmap = font.getBestCmap() or {}
        hmtx = font["hmtx"].metrics
        hhea = font["hhea"]
        upm = int(font["head"].unitsPerEm)
        order = font.getGlyphOrder()
    except Exception as exc:  # fontTools raises many kinds of errors on malformed files
        raise FontError(f"not a TrueType/OpenType font ({type(exc).__name__}: {exc})") from None
    ascent, descent, gap = int(hhea.ascent), int(hhea.descent), int(hhea.lineGap)
    if ascent - descent <= 0:
        os2 = font.get("OS/2")
        if os2 is not None:
            ascent, descent, gap = int(os2.sTypoAscender), int(os2.sTypoDescender), int(os2.sTypoLineGap)
    if ascent - descent <= 0:
        ascent, descent, gap = upm * 4 // 5, -(upm // 5), 0
    advances = {int(cp): int(hmtx[name][0]) for cp, name in sorted(cmap.items()) if name in hmtx}
    notdef = int(hmtx[order[0]][0]) if order and order[0] in hmtx else upm // 2
    # Urho3D's native UI (FontFaceFreeType) also weighs the OS/2 table's ascender and descender
    os2 = font.get("OS/2") if "OS/2" in font else None
    os2_ascent = max(int(os2.usWinAscent), int(os2.sTypoAscender)) if os2 is not None else 0
    os2_descent = max(int(os2.usWinDescent), int(os2.sTypoDescender)) if os2 is not None else 0
    return {"upm": upm, "ascent": ascent, "descent": descent, "line_gap": gap, "notdef": notdef,
            "os2_ascent": os2_ascent, "os2_descent": os2_descent,
            "advances": advances, "sha256": hashlib.sha256(data).hexdigest(), "glyphs": len(advances)}


def font_metrics(data: bytes) -> dict[str, Any]:
    """Units per em, hhea ascent/descent/line gap, the .notdef advance and every mapped code point's advance."""
    return _metrics_of(bytes(data))


def system_font(name: str) -> SystemFont | None:
    """The stand-in for a font resource the engine ships (case-insensitive), or None."""
    if name == FALLBACK_FONT:
        return FALLBACK
    found = STOCK_FONTS.get(name)
    if found is None:
        lowered = name.lower()
        found = next((f for n, f in STOCK_FONTS.items() if n.lower() == lowered), None)
    return found


@lru_cache(maxsize=16)
def _read_system(path: Path) -> bytes:
    return path.read_bytes()


def system_font_metrics(name: str) -> tuple[dict[str, Any], str | None]:
    """Metrics of the stand-in for `name`, and a warning when its file differs from the pinned one."""
    font = system_font(name)
    if font is None:
        raise FontError(f"{name}: not a font the engine ships")
    if not font.path.is_file():
        raise FontError(f"{name}: its stand-in {font.path} is not installed (apt-get install {font.package}; "
                        "see docs/fonts.md)")
    metrics = font_metrics(_read_system(font.path))
    warning = None
    if metrics["sha256"] != font.sha256:
        warning = (f"{name}: {font.path} differs from the pinned file (sha256 {metrics['sha256'][:12]}, expected "
                   f"{font.sha256[:12]}); text metrics may differ from other machines")
    return metrics, warning


def warm_system_fonts() -> None:
    """Read every installed stand-in font's metrics now (part of the generic boot, engine/_engine.py boot_state):
    a pre-booted run then measures text without importing fontTools or parsing a stock font."""
    for name in sorted({*STOCK_FONTS, FALLBACK_FONT}):
        try:
            system_font_metrics(name)
        except FontError:
            continue   # not installed: the run that asks for it reports it


def missing_system_fonts() -> list[str]:
    """Stand-in font files that are not installed, as 'package: path'."""
    fonts = {*STOCK_FONTS.values(), FALLBACK}
    return sorted(f"{f.package}: {f.path}" for f in fonts if not f.path.is_file())


def stand_in_font_files() -> list[Path]:
    """Every system font file the engine measures text with (what an image running the engine must carry)."""
    return sorted({f.path for f in [*STOCK_FONTS.values(), FALLBACK, WIDE_FALLBACK]})
