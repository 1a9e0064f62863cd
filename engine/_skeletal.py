"""Skeletons and skeletal animations: Urho3D's binary model (skeleton part) and animation formats, read into plain data.

The engine serves `AnimatedModel` and `Animation` from this data (engine/lua/runtime/64_*.lua, docs/animation.md):

* a game's own `.mdl` and `.ani` files are read from its folder when the game asks for them;
* Urho3D's stock models and animations (`Models/Mutant/Mutant.mdl`, `Models/Jack_Walk.ani`, ...) come from
  `engine/data/skeletal.json.gz`, which `python -m engine.data.make_skeletal` derives from Urho3D's data folder.

Both give the same shapes. A model: `{"morphs": [names], "bones": [{"name", "parent", "position": [x, y, z],
"rotation": [w, x, y, z], "scale": [x, y, z], "offset": [12 floats, row-major 3x4], "collision": mask, "radius",
"box": [6 floats]}]}`, bone indices from 0 as in the file. An animation: `{"name", "length", "tracks": [{"name",
"mask", "times": [...], "positions": [x, y, z, ...], "rotations": [w, x, y, z, ...], "scales": [x, y, z, ...]}],
"triggers": [...]}`; a channel the track's mask lacks has no list. Stock triggers come from the XML side files
next to the animations, as `{"time", "normalized", "type", "value"}`; a game's own side files are read by the
engine's Lua (engine/lua/runtime/64_skeleton.lua).

The layouts are the ones Urho3D's loaders read (Model::BeginLoad, Skeleton::Load, Animation::BeginLoad); every read
is bounds-checked, so a truncated or hostile file raises `SkeletalError` with where it stopped.
"""

from __future__ import annotations

import gzip
import json
import struct
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).resolve().parent / "data" / "skeletal.json.gz"
SCHEMA_VERSION = 1

# Bytes per vertex element: the legacy element mask (bit order), and the element types of a "UMD2" declaration.
LEGACY_ELEMENT_BYTES = (12, 12, 4, 8, 8, 12, 12, 16, 16, 4, 16, 16, 16, 4)
ELEMENT_TYPE_BYTES = (4, 4, 8, 12, 16, 4, 4)
MORPH_VECTOR3_BITS = (0x1, 0x2, 0x80)   # position, normal, tangent: a Vector3 each per morphed vertex
BONE_COLLISION_SPHERE = 0x1
BONE_COLLISION_BOX = 0x2
CHANNEL_POSITION, CHANNEL_ROTATION, CHANNEL_SCALE = 1, 2, 4


class SkeletalError(ValueError):
    """A model or animation file that cannot be read; the message says where."""


class _Reader:
    """A little-endian cursor over bytes that refuses to read past the end."""

    def __init__(self, data: bytes, what: str) -> None:
        self.data = data
        self.pos = 0
        self.what = what

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise SkeletalError(f"{self.what}: truncated at byte {self.pos} (needs {n} more)")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def skip(self, n: int) -> None:
        self.take(n)

    def u8(self) -> int:
        return self.take(1)[0]

    def u32(self) -> int:
        return int(struct.unpack("<I", self.take(4))[0])

    def count(self, per_item: int) -> int:
        """A u32 item count, refused when its items cannot fit in what is left of the file."""
        n = self.u32()
        if per_item > 0 and n * per_item > len(self.data) - self.pos:
            raise SkeletalError(f"{self.what}: count {n} at byte {self.pos - 4} exceeds the file")
        return n

    def floats(self, n: int) -> list[float]:
        return list(struct.unpack(f"<{n}f", self.take(4 * n)))

    def cstring(self) -> str:
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            raise SkeletalError(f"{self.what}: unterminated string at byte {self.pos}")
        text = self.data[self.pos:end].decode("utf-8", "replace")
        self.pos = end + 1
        return text

    def at_end(self) -> bool:
        return self.pos >= len(self.data)


BONE_VALUES = 32   # numbers a bone becomes in Lua (transform, offset matrix, box, fields)


def parse_model_skeleton(data: bytes, what: str = "model", max_values: int | None = None) -> dict[str, Any]:
    """The skeleton and morph names of an Urho3D binary model ("UMDL" or "UMD2"), skipping its vertex and index data."""
    r = _Reader(data, what)
    magic = r.take(4)
    if magic not in (b"UMDL", b"UMD2"):
        raise SkeletalError(f"{what}: not an Urho3D model (magic {magic!r})")
    for _ in range(r.count(12)):   # vertex buffers
        vertices = r.u32()
        if magic == b"UMD2":
            vertex_bytes = 0
            for _ in range(r.count(4)):
                element_type = r.u32() & 0xFF
                if element_type >= len(ELEMENT_TYPE_BYTES):
                    raise SkeletalError(f"{what}: unknown vertex element type {element_type}")
                vertex_bytes += ELEMENT_TYPE_BYTES[element_type]
        else:
            mask = r.u32()
            vertex_bytes = sum(size for bit, size in enumerate(LEGACY_ELEMENT_BYTES) if mask & (1 << bit))
        r.skip(8)   # morph range start and count
        r.skip(vertices * vertex_bytes)
    for _ in range(r.count(8)):   # index buffers
        indices, index_bytes = r.u32(), r.u32()
        r.skip(indices * index_bytes)
    geometries = r.count(8)
    for _ in range(geometries):
        r.skip(4 * r.count(4))   # bone mapping
        r.skip(24 * r.count(24))   # LOD levels: distance, primitive type, vb, ib, index start, index count
    morphs: list[str] = []
    for _ in range(r.count(8)):
        morphs.append(r.cstring())
        for _ in range(r.count(12)):
            r.skip(4)   # buffer index
            mask, vertices = r.u32(), r.u32()
            r.skip(vertices * (4 + sum(12 for bit in MORPH_VECTOR3_BITS if mask & bit)))
    bones: list[dict[str, Any]] = []
    if not r.at_end():
        count = r.count(94)   # each at least: name terminator, parent, transform, offset matrix, collision mask
        if max_values is not None and count * BONE_VALUES > max_values:
            raise SkeletalError(f"{what}: {count} bones do not fit in the run's memory limit")
        for _ in range(count):
            name = r.cstring()
            parent = r.u32()
            position, rotation, scale = r.floats(3), r.floats(4), r.floats(3)
            offset = r.floats(12)
            collision = r.u8()
            radius = r.floats(1)[0] if collision & BONE_COLLISION_SPHERE else 0.0
            box = r.floats(6) if collision & BONE_COLLISION_BOX else [0.0] * 6
            bones.append({"name": name, "parent": parent, "position": position, "rotation": rotation,
                          "scale": scale, "offset": offset, "collision": collision, "radius": radius, "box": box})
    return {"bones": bones, "morphs": morphs}


def _per_key(mask: int) -> int:
    return 1 + (3 if mask & CHANNEL_POSITION else 0) + (4 if mask & CHANNEL_ROTATION else 0) + (
        3 if mask & CHANNEL_SCALE else 0)


def _animation_values(data: bytes, what: str) -> int:
    """How many numbers an animation's keyframes hold, from its headers alone (nothing is unpacked)."""
    r = _Reader(data, what)
    r.skip(4)
    r.cstring()
    r.skip(4)
    total = 0
    for _ in range(r.count(6)):
        r.cstring()
        per_key = _per_key(r.u8())
        keys = r.count(4 * per_key)
        r.skip(4 * keys * per_key)
        total += keys * per_key
    return total


def parse_animation(data: bytes, what: str = "animation", max_values: int | None = None) -> dict[str, Any]:
    """An Urho3D binary animation ("UANI"): name, length and every track's keyframes (without triggers).

    `max_values` refuses an animation holding more numbers than that (checked before any is unpacked)."""
    r = _Reader(data, what)
    magic = r.take(4)
    if magic != b"UANI":
        raise SkeletalError(f"{what}: not an Urho3D animation (magic {magic!r})")
    if max_values is not None:
        count = _animation_values(data, what)
        if count > max_values:
            raise SkeletalError(f"{what}: {count} keyframe values do not fit in the run's memory limit")
    name = r.cstring()
    length = r.floats(1)[0]
    tracks: list[dict[str, Any]] = []
    for _ in range(r.count(6)):
        track: dict[str, Any] = {"name": r.cstring(), "mask": r.u8()}
        mask = track["mask"]
        per_key = _per_key(mask)
        keys = r.count(4 * per_key)
        flat = r.floats(keys * per_key)
        track["times"] = flat[0::per_key]
        column = 1
        for bit, key, width in ((CHANNEL_POSITION, "positions", 3), (CHANNEL_ROTATION, "rotations", 4),
                                (CHANNEL_SCALE, "scales", 3)):
            if mask & bit:
                values: list[float] = []
                for k in range(keys):
                    start = k * per_key + column
                    values.extend(flat[start:start + width])
                track[key] = values
                column += width
        tracks.append(track)
    return {"name": name, "length": length, "tracks": tracks, "triggers": []}


@lru_cache(maxsize=1)
def stock_data() -> dict[str, Any]:
    """The stock skeletons and animations (engine/data/skeletal.json.gz), read once per process."""
    if not DATA_FILE.exists():
        return {"models": {}, "animations": {}}
    data = json.loads(gzip.decompress(DATA_FILE.read_bytes()))
    if data.get("schema_version") != SCHEMA_VERSION:
        raise SkeletalError(f"{DATA_FILE.name}: schema {data.get('schema_version')}, expected {SCHEMA_VERSION}")
    return {"models": data["models"], "animations": data["animations"]}


def stock_skeletal(kind: str, name: str) -> dict[str, Any] | None:
    """A stock skeleton (`kind` "model") or animation ("animation") by resource name, or None."""
    table = stock_data()["models" if kind == "model" else "animations"]
    entry = table.get(name)
    return dict(entry) if entry is not None else None


def read_skeletal(kind: str, name: str, data: bytes, max_values: int | None = None) -> dict[str, Any]:
    """A game file's skeleton or animation; raises SkeletalError for a file that is not one, or one that would hold
    more than `max_values` numbers."""
    if kind == "model":
        return parse_model_skeleton(data, name, max_values)
    return parse_animation(data, name, max_values)
