"""Content of a few of Urho3D's stock files, derived from them (``engine/data/stock_data.json.gz``, made by
``engine/data/make_stock.py``), for what Urho3D's samples read whole.

``engine/data/resources.json`` knows Urho3D's stock resources by their metadata only. Two samples' worth are needed
as content: the heightmap Urho3D's terrain samples give their ``Terrain`` (``Textures/HeightMap.png``: its decoded
pixels) and the model they make triangle-mesh shapes of (``Models/Mushroom.mdl``: the positions and triangles of its
geometries). They are kept in this project's own form, not as Urho3D's files: a model is handed to the Lua side as
a position-only model file written here (``model_file``), which the engine's model parser reads as it reads a game's
(58_geometry.lua); an image as its pixels (``image``). The particle and Spriter samples' stock effects, animation sets
and sprite sheet, the render paths, and the Urho2D samples' Tiled maps are kept as the elements and attributes the
engine reads of them, written as XML by make_stock (``xml_files``), and served as those stock names' content.
"""

from __future__ import annotations

import base64
import gzip
import json
import struct
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).resolve().parent / "data" / "stock_data.json.gz"
SCHEMA_VERSION = 1
_TRIANGLE_LIST = 0


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    if not DATA_FILE.exists():
        return {"images": {}, "models": {}, "xml": {}}
    data = json.loads(gzip.decompress(DATA_FILE.read_bytes()))
    if data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"{DATA_FILE.name}: schema {data.get('schema_version')}, expected {SCHEMA_VERSION}")
    return dict(data)


def image_names() -> list[str]:
    return sorted(_data()["images"])


def image(name: str) -> tuple[int, int, int, bytes] | None:
    """A stock image's width, height, components and pixels (rows from the top), or None."""
    entry = _data()["images"].get(name)
    if entry is None:
        return None
    pixels = zlib.decompress(base64.b64decode(entry["pixels"]))
    return int(entry["width"]), int(entry["height"]), int(entry["components"]), pixels


def model_file(entry: dict[str, Any]) -> bytes:
    """A position-only model file ("UMDL": element mask 1, 32-bit indices) holding a derived model: one vertex and
    one index buffer per LOD level of each geometry, the bounding box and the geometry centres."""
    vbs, ibs, geometries = [], [], []
    for geometry in entry["geometries"]:
        lods = []
        for lod in geometry["lods"]:
            positions, indices = lod["positions"], lod["indices"]
            vbs.append(struct.pack("<III", len(positions) // 3, 1, 0) + struct.pack("<I", 0)
                       + struct.pack(f"<{len(positions)}f", *positions))
            ibs.append(struct.pack("<II", len(indices), 4) + struct.pack(f"<{len(indices)}I", *indices))
            lods.append(struct.pack("<fIIIII", lod["distance"], _TRIANGLE_LIST, len(vbs) - 1, len(ibs) - 1, 0,
                                    len(indices)))
        geometries.append(struct.pack("<II", 0, len(lods)) + b"".join(lods))
    out = b"UMDL" + struct.pack("<I", len(vbs)) + b"".join(vbs) + struct.pack("<I", len(ibs)) + b"".join(ibs)
    out += struct.pack("<I", len(geometries)) + b"".join(geometries)
    out += struct.pack("<II", 0, 0)   # no morphs, no bones
    out += struct.pack("<6f", *entry["bounding_box"])
    out += b"".join(struct.pack("<3f", *c) for c in entry["centers"])
    return out


def model_files() -> dict[str, bytes]:
    """The derived stock models as model files, by resource name (what the Lua side's stock content holds)."""
    return {name: model_file(entry) for name, entry in sorted(_data()["models"].items())}


def xml_files() -> dict[str, bytes]:
    """The derived stock XML files (particle effects, Spriter sets, a sprite sheet, render paths, tile maps) by name."""
    return {name: text.encode("utf-8") for name, text in sorted(_data().get("xml", {}).items())}
