"""Generate ``engine/data/resources.json``, the manifest of Urho3D's stock resources.

The headless engine serves ``cache:GetResource(type, name)`` for Urho3D's stock data
(``Models/Box.mdl``, ``Materials/Stone.xml``, ...) from this manifest instead of loading
and rendering the real files. This script builds it from Urho3D's own data folders.

Run it with either a bare git directory or a checkout of urho3d/Urho3D::

    python engine/data/make_resources.py /path/to/Urho3D.git
    python engine/data/make_resources.py /path/to/Urho3D
    python engine/data/make_resources.py /path/to/Urho3D.git --rev <commit> -o out.json

It walks ``bin/Data/`` and ``bin/CoreData/`` (both are resource directories, so a file's
resource name is its path below either of them), skips scripts (``LuaScripts/``,
``Scripts/``, ``*.lua``, ``*.as``) and writes one entry per remaining file with its
resource ``type`` and byte ``size``, plus metadata that matters without rendering:

* Model (``.mdl``): ``bounding_box``, ``num_geometries``, ``num_vertices``,
  ``num_bones``, ``num_morphs``.
* Animation (``.ani``): ``animation_name``, ``length``, ``num_tracks``.
* Images: ``width``, ``height`` from the file header (PNG, JPEG, DDS, KTX, TGA, BMP).
* Sound: ``frequency``, ``channels``, ``length_seconds`` (WAV and Ogg Vorbis).
* Material: referenced ``techniques`` and ``textures`` (unit -> name).
* ParticleEffect: referenced ``material``; TextureCube: its ``faces``.
* XML files: ``xml_root``, the name of the root element.
* Images also carry ``also: ["Image", "Sprite2D"]``, the other types they load as.
* Files that are no resource type (licences, ``.txt``, ``.icns``) get type ``File``.

A file whose content is absent from the source (a missing git blob or a Git LFS pointer)
is still listed, with its metadata fields set to null. Only the standard library is
used; the binary parsers follow the file layouts that Urho3D's loaders read.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
RESOURCE_ROOTS = ("bin/Data", "bin/CoreData")
DEFAULT_OUTPUT = Path(__file__).resolve().with_name("resources.json")

SCRIPT_DIRS = ("LuaScripts/", "Scripts/")
SCRIPT_EXTS = frozenset({".lua", ".as"})
IMAGE_EXTS = frozenset(
    {
        ".png",
        ".jpg",
        ".jpeg",
        ".dds",
        ".ktx",
        ".tga",
        ".bmp",
        ".pvr",
        ".webp",
        ".hdr",
        ".psd",
        ".gif",
    }
)
FONT_EXTS = frozenset({".ttf", ".otf", ".fnt", ".sdf"})
SOUND_EXTS = frozenset({".wav", ".ogg"})
SIMPLE_TYPES = {
    ".mdl": "Model",
    ".ani": "Animation",
    ".json": "JSONFile",
    ".pex": "ParticleEffect2D",
    ".scml": "AnimationSet2D",
    ".tmx": "TmxFile2D",
    ".plist": "SpriteSheet2D",
}
# Root element of an XML under Textures/ -> the texture class it describes.
TEXTURE_XML_ROOTS = {
    "cubemap": "TextureCube",
    "texture3d": "Texture3D",
    "texturearray": "Texture2DArray",
}

# Metadata fields per type; all of them are null when the file's content is unavailable.
META_FIELDS: dict[str, tuple[str, ...]] = {
    "Model": (
        "bounding_box",
        "num_geometries",
        "num_vertices",
        "num_bones",
        "num_morphs",
    ),
    "Animation": ("animation_name", "length", "num_tracks"),
    "Texture2D": ("width", "height"),
    "Sound": ("frequency", "channels", "length_seconds"),
    "Material": ("techniques", "textures"),
    "ParticleEffect": ("material",),
    "TextureCube": ("faces",),
}

# Model vertex layout facts: bytes per element of the legacy element mask (bit order),
# and bytes per vertex element type (int, float, vector2, vector3, vector4, ubyte4,
# ubyte4 normalized).
LEGACY_ELEMENT_BYTES = (12, 12, 4, 8, 8, 12, 12, 16, 16, 4, 16, 16, 16, 4)
ELEMENT_TYPE_BYTES = (4, 4, 8, 12, 16, 4, 4)
MORPH_MASK_VECTOR3 = (
    0x1,
    0x2,
    0x80,
)  # position, normal, tangent: one Vector3 each per morphed vertex
BONE_COLLISION_SPHERE = 0x1
BONE_COLLISION_BOX = 0x2

# Material texture unit names (desktop order) and their accepted shorthands.
TEXTURE_UNITS = (
    "diffuse",
    "normal",
    "specular",
    "emissive",
    "environment",
    "volume",
    "custom1",
    "custom2",
    "lightramp",
    "lightshape",
    "shadowmap",
    "faceselect",
    "indirection",
    "depth",
    "light",
    "zone",
)
TEXTURE_UNIT_ALIASES = {
    "diff": "diffuse",
    "albedo": "diffuse",
    "norm": "normal",
    "spec": "specular",
    "env": "environment",
}

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
KTX_MAGIC = b"\xabKTX 11\xbb\r\n\x1a\n"
LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/"


# ------------------------------------------------------------------------- reading


class _Reader:
    """Little-endian cursor over bytes; raises ValueError when reading past the end."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError(f"truncated data: need {n} bytes at offset {self.pos}")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def skip(self, n: int) -> None:
        self.take(n)

    def u8(self) -> int:
        return self.take(1)[0]

    def u32(self) -> int:
        return int(struct.unpack("<I", self.take(4))[0])

    def floats(self, n: int) -> tuple[float, ...]:
        return struct.unpack(f"<{n}f", self.take(4 * n))

    def cstring(self) -> str:
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            end = len(self.data)
        text = self.data[self.pos : end].decode("utf-8", "replace")
        self.pos = min(end + 1, len(self.data))
        return text

    def at_end(self) -> bool:
        return self.pos >= len(self.data)


def _num(value: float) -> float:
    """Round to 6 decimals, folding -0.0 into 0.0 so the JSON stays stable."""
    return round(value, 6) + 0.0


# -------------------------------------------------------------------------- models


def parse_mdl(data: bytes) -> dict[str, Any]:
    """Read the counts and bounding box of an Urho3D binary model ("UMDL" or "UMD2")."""
    r = _Reader(data)
    magic = r.take(4)
    if magic not in (b"UMDL", b"UMD2"):
        raise ValueError(f"not an Urho3D model (magic {magic!r})")
    declared_elements = magic == b"UMD2"

    num_vertices = 0
    for _ in range(r.u32()):  # vertex buffers
        count = r.u32()
        if declared_elements:
            vertex_bytes = 0
            for _ in range(r.u32()):
                element_type = r.u32() & 0xFF
                if element_type >= len(ELEMENT_TYPE_BYTES):
                    raise ValueError(f"unknown vertex element type {element_type}")
                vertex_bytes += ELEMENT_TYPE_BYTES[element_type]
        else:
            mask = r.u32()
            vertex_bytes = sum(
                size
                for bit, size in enumerate(LEGACY_ELEMENT_BYTES)
                if mask & (1 << bit)
            )
        r.skip(8)  # morph range start and count
        r.skip(count * vertex_bytes)
        num_vertices += count

    for _ in range(r.u32()):  # index buffers
        index_count = r.u32()
        index_size = r.u32()
        r.skip(index_count * index_size)

    num_geometries = r.u32()
    for _ in range(num_geometries):
        r.skip(4 * r.u32())  # bone mapping
        r.skip(
            24 * r.u32()
        )  # LOD levels: distance, primitive type, vb, ib, index start, index count

    num_morphs = r.u32()
    for _ in range(num_morphs):
        r.cstring()
        for _ in range(r.u32()):  # morphed vertex buffers
            r.skip(4)  # buffer index
            mask = r.u32()
            count = r.u32()
            r.skip(count * (4 + sum(12 for bit in MORPH_MASK_VECTOR3 if mask & bit)))

    num_bones = 0
    if not r.at_end():
        num_bones = r.u32()
        for _ in range(num_bones):
            r.cstring()
            r.skip(
                4 + 12 + 16 + 12 + 48
            )  # parent, position, rotation, scale, 3x4 offset matrix
            collision = r.u8()
            if collision & BONE_COLLISION_SPHERE:
                r.skip(4)
            if collision & BONE_COLLISION_BOX:
                r.skip(24)

    box = r.floats(6)
    return {
        "bounding_box": {
            "min": [_num(v) for v in box[:3]],
            "max": [_num(v) for v in box[3:]],
        },
        "num_geometries": num_geometries,
        "num_vertices": num_vertices,
        "num_bones": num_bones,
        "num_morphs": num_morphs,
    }


def parse_ani(data: bytes) -> dict[str, Any]:
    """Read the name, length and track count of an Urho3D binary animation ("UANI")."""
    r = _Reader(data)
    magic = r.take(4)
    if magic != b"UANI":
        raise ValueError(f"not an Urho3D animation (magic {magic!r})")
    name = r.cstring()
    length = r.floats(1)[0]
    return {"animation_name": name, "length": _num(length), "num_tracks": r.u32()}


# -------------------------------------------------------------------------- images


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    if not data.startswith(PNG_MAGIC) or data[12:16] != b"IHDR" or len(data) < 24:
        raise ValueError("not a PNG file")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def jpeg_size(data: bytes) -> tuple[int, int]:
    """Width and height from a JPEG's first start-of-frame segment."""
    if not data.startswith(b"\xff\xd8"):
        raise ValueError("not a JPEG file")
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise ValueError(f"bad JPEG marker at offset {pos}")
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:  # markers without a length
            pos += 2
            continue
        seg_len = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if pos + 9 > len(data):
                break
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        pos += 2 + seg_len
    raise ValueError("no JPEG frame header found")


def dds_size(data: bytes) -> tuple[int, int]:
    if not data.startswith(b"DDS ") or len(data) < 20:
        raise ValueError("not a DDS file")
    height, width = struct.unpack("<II", data[12:20])
    return width, height


def ktx_size(data: bytes) -> tuple[int, int]:
    if not data.startswith(KTX_MAGIC) or len(data) < 44:
        raise ValueError("not a KTX file")
    order = "<" if struct.unpack("<I", data[12:16])[0] == 0x04030201 else ">"
    width, height = struct.unpack(order + "II", data[36:44])
    return width, height


def bmp_size(data: bytes) -> tuple[int, int]:
    if not data.startswith(b"BM") or len(data) < 26:
        raise ValueError("not a BMP file")
    if struct.unpack("<I", data[14:18])[0] == 12:  # OS/2 core header
        width, height = struct.unpack("<HH", data[18:22])
        return width, height
    width, height = struct.unpack("<ii", data[18:26])
    return abs(width), abs(height)


def tga_size(data: bytes) -> tuple[int, int]:
    if len(data) < 18:
        raise ValueError("not a TGA file")
    width, height = struct.unpack("<HH", data[12:16])
    return width, height


def image_size(data: bytes, ext: str) -> tuple[int, int]:
    """Width and height of an image, chosen by its magic bytes (TGA by extension)."""
    if data.startswith(PNG_MAGIC):
        return png_size(data)
    if data.startswith(b"\xff\xd8"):
        return jpeg_size(data)
    if data.startswith(b"DDS "):
        return dds_size(data)
    if data.startswith(KTX_MAGIC):
        return ktx_size(data)
    if data.startswith(b"BM"):
        return bmp_size(data)
    if ext == ".tga":
        return tga_size(data)
    raise ValueError(f"unsupported image format ({ext})")


# -------------------------------------------------------------------------- sounds


def wav_info(data: bytes) -> dict[str, Any]:
    """Frequency, channels and length of a RIFF/WAVE file."""
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ValueError("not a RIFF/WAVE file")
    fmt: tuple[int, ...] | None = None
    data_bytes: int | None = None
    pos = 12
    while pos + 8 <= len(data):
        chunk_id = data[pos : pos + 4]
        chunk_size = struct.unpack("<I", data[pos + 4 : pos + 8])[0]
        if chunk_id == b"fmt " and chunk_size >= 16:
            fmt = struct.unpack("<HHIIHH", data[pos + 8 : pos + 24])
        elif chunk_id == b"data":
            data_bytes = min(chunk_size, len(data) - pos - 8)
        pos += 8 + chunk_size + (chunk_size & 1)
    if fmt is None or data_bytes is None:
        raise ValueError("WAV file without fmt or data chunk")
    _, channels, frequency, _, block_align, _ = fmt
    if not frequency or not block_align:
        raise ValueError("WAV file with zero frequency or block size")
    return {
        "frequency": frequency,
        "channels": channels,
        "length_seconds": _num(data_bytes / block_align / frequency),
    }


def ogg_info(data: bytes) -> dict[str, Any]:
    """Frequency, channels and length (from the last granule) of an Ogg Vorbis file."""
    frequency = channels = serial = None
    last_granule = -1
    pos = 0
    while pos + 27 <= len(data):
        if data[pos : pos + 4] != b"OggS":
            raise ValueError(f"bad Ogg page at offset {pos}")
        granule, page_serial = struct.unpack("<qI", data[pos + 6 : pos + 18])
        num_segments = data[pos + 26]
        body = pos + 27 + num_segments
        body_len = sum(data[pos + 27 : body])
        if serial is None and data[body : body + 7] == b"\x01vorbis":
            channels = data[body + 11]
            frequency = struct.unpack("<I", data[body + 12 : body + 16])[0]
            serial = page_serial
        elif page_serial == serial and granule >= 0:
            last_granule = granule
        pos = body + body_len
    if not frequency or channels is None:
        raise ValueError("no Vorbis identification header")
    length = _num(last_granule / frequency) if last_granule >= 0 else None
    return {"frequency": frequency, "channels": channels, "length_seconds": length}


# ----------------------------------------------------------------------------- XML


def xml_root(data: bytes) -> ET.Element | None:
    try:
        return ET.fromstring(data)
    except ET.ParseError:
        return None


def texture_unit_name(raw: str | None) -> str:
    name = (raw or "diffuse").strip().lower()
    if name in TEXTURE_UNITS:
        return name
    if name in TEXTURE_UNIT_ALIASES:
        return TEXTURE_UNIT_ALIASES[name]
    if len(name) < 3 and name.isdigit():
        return TEXTURE_UNITS[min(int(name), len(TEXTURE_UNITS) - 1)]
    return name


def material_refs(root: ET.Element) -> dict[str, Any]:
    """Technique and texture names a material XML references."""
    techniques = [t.get("name", "") for t in root.findall("technique")]
    textures: dict[str, str] = {}
    for tex in root.findall("texture"):
        textures[texture_unit_name(tex.get("unit"))] = tex.get("name", "")
    return {"techniques": techniques, "textures": textures}


# ---------------------------------------------------------------- classification


def _ext(name: str) -> str:
    return os.path.splitext(name)[1].lower()


def _in_dir(name: str, folder: str) -> bool:
    return name.startswith(folder + "/") or f"/{folder}/" in name


def is_script(name: str) -> bool:
    return name.startswith(SCRIPT_DIRS) or _ext(name) in SCRIPT_EXTS


def resource_type(name: str, root: ET.Element | None) -> str:
    """The Urho3D resource type for a resource name and its parsed XML root, if any."""
    ext = _ext(name)
    if name.startswith("Shaders/"):
        return "Shader"
    if ext in SIMPLE_TYPES:
        return SIMPLE_TYPES[ext]
    if ext in IMAGE_EXTS:
        return "Texture2D"
    if ext in FONT_EXTS:
        return "Font"
    if ext in SOUND_EXTS:
        return "Sound"
    if ext != ".xml":
        return "File"
    tag = root.tag if root is not None else None
    if _in_dir(name, "Materials"):
        return "Material"
    if name.startswith("Techniques/"):
        return "Technique"
    if name.startswith("Particle/"):
        return "ParticleEffect"
    if name.startswith(("RenderPaths/", "PostProcess/")):
        return "RenderPath"
    if name.startswith("Scenes/"):
        return "Scene"
    if tag in TEXTURE_XML_ROOTS:
        return TEXTURE_XML_ROOTS[tag]
    if tag == "TextureAtlas":
        return "SpriteSheet2D"
    return "XMLFile"


def describe(name: str, data: bytes | None, size: int | None) -> dict[str, Any]:
    """Manifest entry for one resource; metadata is null without content."""
    ext = _ext(name)
    root = xml_root(data) if data is not None and ext == ".xml" else None
    rtype = resource_type(name, root)
    entry: dict[str, Any] = {"type": rtype, "size": size}
    entry.update(dict.fromkeys(META_FIELDS.get(rtype, ())))
    if rtype == "Texture2D":
        entry["also"] = ["Image", "Sprite2D"]
    if ext == ".xml":
        entry["xml_root"] = root.tag if root is not None else None
    if data is None:
        return entry
    try:
        if rtype == "Model":
            entry.update(parse_mdl(data))
        elif rtype == "Animation":
            entry.update(parse_ani(data))
        elif rtype == "Texture2D":
            entry["width"], entry["height"] = image_size(data, ext)
        elif rtype == "Sound":
            entry.update(wav_info(data) if ext == ".wav" else ogg_info(data))
        elif rtype == "Material" and root is not None:
            entry.update(material_refs(root))
        elif rtype == "ParticleEffect" and root is not None:
            material = root.find("material")
            entry["material"] = material.get("name") if material is not None else None
        elif rtype == "TextureCube" and root is not None:
            entry["faces"] = [face.get("name", "") for face in root.findall("face")]
    except (ValueError, IndexError, struct.error) as exc:
        print(f"warning: {name}: {exc}", file=sys.stderr)
    return entry


# ------------------------------------------------------------------------- sources


@dataclass(frozen=True)
class SourceFile:
    name: str  # resource name, relative to bin/Data or bin/CoreData
    path: str  # path inside the repository
    data: bytes | None  # None when the content is not available
    size: int | None


def _lfs_pointer_size(data: bytes) -> int | None:
    for line in data.decode("ascii", "replace").splitlines():
        if line.startswith("size "):
            return int(line[5:])
    return None


def _resource_name(path: str) -> str | None:
    for prefix in RESOURCE_ROOTS:
        if path.startswith(prefix + "/"):
            return path[len(prefix) + 1 :]
    return None


def _git(git_dir: Path, *args: str, stdin: bytes | None = None) -> bytes:
    env = dict(os.environ, GIT_NO_LAZY_FETCH="1", GIT_TERMINAL_PROMPT="0")
    result = subprocess.run(
        ["git", f"--git-dir={git_dir}", *args],
        input=stdin,
        capture_output=True,
        check=True,
        env=env,
    )
    return result.stdout


def git_files(git_dir: Path, rev: str) -> tuple[str, list[SourceFile]]:
    """Commit sha and files below the resource roots of a (bare) git directory."""
    commit = (
        _git(git_dir, "rev-parse", "--verify", f"{rev}^{{commit}}").decode().strip()
    )
    listing = _git(git_dir, "ls-tree", "-r", "-z", commit, "--", *RESOURCE_ROOTS)
    blobs: list[tuple[str, str]] = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, path = record.decode("utf-8", "surrogateescape").split("\t", 1)
        _, kind, sha = meta.split()
        if kind == "blob":
            blobs.append((sha, path))
    wanted = [
        (sha, path) for sha, path in blobs if not is_script(_resource_name(path) or "")
    ]
    out = _git(
        git_dir,
        "cat-file",
        "--batch",
        stdin="".join(f"{sha}\n" for sha, _ in wanted).encode(),
    )
    files: list[SourceFile] = []
    pos = 0
    for sha, path in wanted:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        data: bytes | None = None
        size: int | None = None
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            data = out[pos : pos + size]
            pos += size + 1
            if data.startswith(LFS_POINTER_PREFIX):
                size, data = _lfs_pointer_size(data), None
        else:
            print(f"warning: {path}: blob {sha} is not available", file=sys.stderr)
        name = _resource_name(path)
        if name is not None:
            files.append(SourceFile(name, path, data, size))
    return commit, files


def tree_files(checkout: Path) -> Iterator[SourceFile]:
    """Files below the resource roots of a checked-out work tree."""
    for prefix in RESOURCE_ROOTS:
        base = checkout / prefix
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for filename in sorted(filenames):
                full = Path(dirpath) / filename
                path = full.relative_to(checkout).as_posix()
                name = _resource_name(path)
                if name is None or is_script(name):
                    continue
                raw = full.read_bytes()
                data: bytes | None = raw
                size: int | None = len(raw)
                if raw.startswith(LFS_POINTER_PREFIX):
                    size, data = _lfs_pointer_size(raw), None
                yield SourceFile(name, path, data, size)


def load_source(source: Path, rev: str) -> tuple[str, list[SourceFile]]:
    if (source / "bin").is_dir():
        try:
            commit = _git(source / ".git", "rev-parse", "HEAD").decode().strip()
        except (OSError, subprocess.CalledProcessError):
            commit = "unknown"
        return commit, list(tree_files(source))
    return git_files(source, rev)


# -------------------------------------------------------------------------- output


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def build_manifest(commit: str, files: list[SourceFile]) -> dict[str, Any]:
    resources: dict[str, dict[str, Any]] = {}
    for item in files:
        if item.name in resources:
            print(
                f"warning: {item.path}: duplicate resource {item.name}, kept the first",
                file=sys.stderr,
            )
            continue
        resources[item.name] = describe(item.name, item.data, item.size)
    return {
        "schema_version": SCHEMA_VERSION,
        "source": f"urho3d/Urho3D {commit}",
        "resources": _sorted(resources),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "source", type=Path, help="Urho3D git directory (bare) or checkout"
    )
    parser.add_argument(
        "--rev",
        default="HEAD",
        help="revision to read from a git directory (default HEAD)",
    )
    parser.add_argument(
        "-o", "--output", type=Path, default=DEFAULT_OUTPUT, help="manifest to write"
    )
    args = parser.parse_args(argv)

    commit, files = load_source(args.source, args.rev)
    if not files:
        parser.error(f"no files under {' or '.join(RESOURCE_ROOTS)} in {args.source}")
    manifest = build_manifest(commit, files)
    text = json.dumps(manifest, indent=1, ensure_ascii=False) + "\n"
    args.output.write_text(text, encoding="utf-8")

    counts = Counter(entry["type"] for entry in manifest["resources"].values())
    for rtype, count in sorted(counts.items()):
        print(f"{rtype:18} {count}")
    total = len(manifest["resources"])
    print(f"{total} resources, {len(text.encode())} bytes -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
