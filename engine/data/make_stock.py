"""Generate ``engine/data/stock_data.json.gz``: content derived from the few Urho3D stock files the engine reads whole.

``engine/data/resources.json`` knows Urho3D's stock resources by their metadata only. Urho3D's physics samples need
two files' content (``engine/_stock_data.py`` says how the engine uses it): the heightmap their ``Terrain`` reads
(``Textures/HeightMap.png``: its pixels, decoded by the engine's own PNG decoder) and the model they make triangle
meshes of (``Models/Mushroom.mdl``: each geometry's LOD levels as the positions of the vertices their triangles use
and the triangles' indices, the bounding box and the geometry centres). The particle and 2D animation samples need
the stock effects (``Particle/*.xml``, ``Urho2D/*.pex``), Spriter animation sets (``Urho2D/**/*.scml``) and the
sprite sheet one of them uses; render paths and post-process effects (``RenderPaths/*.xml``, ``PostProcess/*.xml``),
whose commands and render targets a ``RenderPath`` holds as state; the techniques (``Techniques/**/*.xml``: their
passes' shaders, defines and render states, which a ``Technique`` holds as state); the Urho2D samples' Tiled maps
(``Urho2D/**/*.tmx`` and any ``.tsx`` tile set): each is kept as the elements and attributes the engine reads of it
(and a tile layer's data text), written again as XML here (comments, layout and everything else of the files
dropped). Nothing else of the files is kept:

    python -m engine.data.make_stock /path/to/Urho3D.git            # a bare git directory
    python -m engine.data.make_stock /path/to/Urho3D --rev <commit>  # or a checkout
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path
from typing import Any

from engine._png import decode
from engine._stock_data import DATA_FILE, SCHEMA_VERSION
from engine.data.make_resources import (
    ELEMENT_TYPE_BYTES,
    LEGACY_ELEMENT_BYTES,
    MORPH_MASK_VECTOR3,
    RESOURCE_ROOTS,
    _Reader,
    load_source,
)
from engine.data.make_skeletal import f32_text

IMAGES = ("Textures/HeightMap.png",)
MODELS = ("Models/Mushroom.mdl",)
# XML files kept as what the engine reads of them: a name pattern, and per element the attributes kept (elements not
# listed are dropped with their children).
_Elements = dict[str, tuple[str, ...]]
_EFFECT_ATTRIBUTES = ("name", "value", "enable", "min", "max", "add", "mul", "color", "time", "uv")
_EFFECT_ELEMENTS: _Elements = {name: _EFFECT_ATTRIBUTES for name in (
    "particleeffect", "particleemitter", "material", "numparticles", "updateinvisible", "relative", "scaled",
    "sorted", "fixedscreensize", "animlodbias", "emittertype", "emittersize", "emitterradius", "direction",
    "constantforce", "dampingforce", "activetime", "inactivetime", "emissionrate", "interval", "particlesize",
    "timetolive", "velocity", "rotation", "rotationspeed", "faceCameraMode", "sizedelta", "color", "colorfade",
    "texanim")}
_PEX_ELEMENTS: _Elements = {name: ("name", "value", "x", "y", "red", "green", "blue", "alpha") for name in (
    "particleEmitterConfig", "texture", "sourcePositionVariance", "speed", "speedVariance", "particleLifeSpan",
    "particleLifespanVariance", "angle", "angleVariance", "gravity", "radialAcceleration", "tangentialAcceleration",
    "radialAccelVariance", "tangentialAccelVariance", "startColor", "startColorVariance", "finishColor",
    "finishColorVariance", "maxParticles", "startParticleSize", "startParticleSizeVariance", "finishParticleSize",
    "FinishParticleSizeVariance", "duration", "emitterType", "maxRadius", "maxRadiusVariance", "minRadius",
    "minRadiusVariance", "rotatePerSecond", "rotatePerSecondVariance", "blendFuncSource", "blendFuncDestination",
    "rotationStart", "rotationStartVariance", "rotationEnd", "rotationEndVariance")}
_SCML_ELEMENTS: _Elements = {
    "spriter_data": (), "folder": ("id", "name"), "file": ("id", "name", "width", "height", "pivot_x", "pivot_y"),
    "entity": ("id", "name"), "animation": ("id", "name", "length", "looping"), "mainline": (),
    "key": ("id", "time", "curve_type", "c1", "c2", "spin"),
    "bone_ref": ("id", "parent", "timeline", "key", "z_index"),
    "object_ref": ("id", "parent", "timeline", "key", "z_index"),
    "timeline": ("id", "name", "type", "object_type"),
    "bone": ("x", "y", "angle", "scale_x", "scale_y", "a", "length", "width"),
    "object": ("folder", "file", "x", "y", "angle", "scale_x", "scale_y", "a", "pivot_x", "pivot_y"),
}
_SHEET_ELEMENTS: _Elements = {
    "TextureAtlas": ("imagePath",),
    "SubTexture": ("name", "x", "y", "width", "height", "frameX", "frameY", "frameWidth", "frameHeight"),
}
_RENDERPATH_ELEMENTS: _Elements = {
    "renderpath": (),
    "rendertarget": ("name", "tag", "enabled", "cubemap", "format", "filter", "srgb", "persistent", "size",
                     "sizedivisor", "rtsizedivisor", "sizemultiplier", "width", "height", "multisample", "autoresolve"),
    "command": ("type", "tag", "enabled", "metadata", "color", "depth", "stencil", "pass", "sort", "marktostencil",
                "vertexlights", "uselitbase", "vs", "ps", "blend", "name", "output", "face", "depthstencil",
                "vsdefines", "psdefines"),
    "output": ("index", "name", "face"), "parameter": ("name", "value"), "texture": ("unit", "name"),
}
# Techniques (60_technique.lua): the shaders, defines and render states a technique's passes declare.
_TECHNIQUE_ELEMENTS: _Elements = {
    "technique": ("vs", "ps", "vsdefines", "psdefines", "desktop"),
    "pass": ("name", "desktop", "vs", "ps", "vsdefines", "psdefines", "vsexcludes", "psexcludes", "lighting", "blend",
             "cull", "depthtest", "depthwrite", "alphatocoverage"),
}
# Tiled maps (TmxFile2D): "#text" keeps an element's text (a tile layer's CSV or base64 data).
_TMX_ELEMENTS: _Elements = {
    "map": ("version", "orientation", "width", "height", "tilewidth", "tileheight"),
    "tileset": ("firstgid", "source", "name", "tilewidth", "tileheight", "spacing", "margin"),
    "tileoffset": ("x", "y"), "image": ("source", "width", "height"), "tile": ("id", "gid"),
    "properties": (), "property": ("name", "value"),
    "layer": ("name", "width", "height", "visible"), "data": ("encoding", "compression", "#text"),
    "objectgroup": ("name", "width", "height", "visible"), "imagelayer": ("name", "width", "height", "visible"),
    "object": ("name", "type", "x", "y", "width", "height", "gid"), "polygon": ("points",), "polyline": ("points",),
    "ellipse": (),
}
XML_FILES: tuple[tuple[re.Pattern[str], _Elements], ...] = (
    (re.compile(r"(RenderPaths|PostProcess)/[^/]+\.xml"), _RENDERPATH_ELEMENTS),
    (re.compile(r"Particle/[^/]+\.xml"), _EFFECT_ELEMENTS),
    (re.compile(r"Urho2D/[^/]+\.pex"), _PEX_ELEMENTS),
    (re.compile(r"Urho2D/(.+/)?[^/]+\.scml"), _SCML_ELEMENTS),
    (re.compile(r"Urho2D/Orc/Orc\.xml"), _SHEET_ELEMENTS),
    (re.compile(r"Urho2D/(.+/)?[^/]+\.(tmx|tsx)"), _TMX_ELEMENTS),
    (re.compile(r"Techniques/(.+/)?[^/]+\.xml"), _TECHNIQUE_ELEMENTS),
)


def kept_xml(data: bytes, elements: _Elements, name: str) -> str:
    """The elements and attributes of an XML file that `elements` lists, written as XML (one element a line)."""
    root = ET.fromstring(data)
    if root.tag not in elements:
        raise ValueError(f"{name}: root element <{root.tag}> is not one this kind of file has")
    lines = ['<?xml version="1.0"?>']

    def write(el: ET.Element, depth: int) -> None:
        attrs = "".join(f' {k}="{_escape(el.attrib[k])}"' for k in elements[el.tag] if k in el.attrib)
        kids = [c for c in el if c.tag in elements]
        text = (el.text or "").strip() if "#text" in elements[el.tag] else ""
        if text and not kids:
            lines.append(f"{' ' * depth}<{el.tag}{attrs}>{_escape(text)}</{el.tag}>")
            return
        if not kids:
            lines.append(f"{' ' * depth}<{el.tag}{attrs}/>")
            return
        lines.append(f"{' ' * depth}<{el.tag}{attrs}>")
        for c in kids:
            write(c, depth + 1)
        lines.append(f"{' ' * depth}</{el.tag}>")

    write(root, 0)
    return "\n".join(lines) + "\n"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
_SEM_POSITION, _TYPE_VECTOR3 = 0, 3


def model_geometry(data: bytes, name: str) -> dict[str, Any]:
    """The triangles of an Urho3D model file: per geometry, per LOD level, the positions its index range uses (in
    first-use order) and the indices into them; the bounding box; the geometry centres."""
    r = _Reader(data)
    magic = r.take(4)
    if magic not in (b"UMDL", b"UMD2"):
        raise ValueError(f"{name}: not an Urho3D model file")
    buffers = []
    for _ in range(r.u32()):
        count = r.u32()
        offset = None
        if magic == b"UMD2":
            size = 0
            for _ in range(r.u32()):
                desc = r.u32()
                kind, semantic = desc & 0xFF, (desc >> 8) & 0xFF
                if kind == _TYPE_VECTOR3 and semantic == _SEM_POSITION and offset is None:
                    offset = size
                size += ELEMENT_TYPE_BYTES[kind]
        else:
            mask = r.u32()
            size = sum(b for bit, b in enumerate(LEGACY_ELEMENT_BYTES) if mask & (1 << bit))
            offset = 0 if mask & 1 else None
        r.skip(8)
        raw = r.take(count * size)
        if offset is None:
            raise ValueError(f"{name}: a vertex buffer without positions")
        buffers.append([struct.unpack_from("<3f", raw, v * size + offset) for v in range(count)])
    index_buffers = []
    for _ in range(r.u32()):
        count, size = r.u32(), r.u32()
        raw = r.take(count * size)
        index_buffers.append(struct.unpack(f"<{count}{'H' if size == 2 else 'I'}", raw))
    geometries = []
    for _ in range(r.u32()):
        r.skip(4 * r.u32())
        lods = []
        for _ in range(r.u32()):
            distance, primitive, vb, ib, start, count = struct.unpack("<fIIIII", r.take(24))
            if primitive != 0:
                raise ValueError(f"{name}: a LOD level that is not a triangle list")
            remap: dict[int, int] = {}
            positions: list[float] = []
            indices = []
            for index in index_buffers[ib][start:start + count]:
                if index not in remap:
                    remap[index] = len(remap)
                    positions.extend(f32_text(v) for v in buffers[vb][index])
                indices.append(remap[index])
            lods.append({"distance": f32_text(distance), "positions": positions, "indices": indices})
        geometries.append({"lods": lods})
    for _ in range(r.u32()):   # morphs
        r.cstring()
        for _ in range(r.u32()):
            r.skip(4)
            mask, count = r.u32(), r.u32()
            r.skip(count * (4 + sum(12 for bit in MORPH_MASK_VECTOR3 if mask & bit)))
    for _ in range(r.u32()):   # bones
        r.cstring()
        r.skip(4 + 12 + 16 + 12 + 48)
        collision = r.u8()
        r.skip((4 if collision & 1 else 0) + (24 if collision & 2 else 0))
    box = [f32_text(v) for v in r.floats(6)]
    centers = [[f32_text(v) for v in r.floats(3)] for _ in geometries]
    return {"geometries": geometries, "bounding_box": box, "centers": centers}


def build(commit: str, by_name: dict[str, bytes]) -> dict[str, Any]:
    images = {}
    for name in IMAGES:
        image = decode(by_name[name])
        images[name] = {"width": image.width, "height": image.height, "components": image.components,
                        "pixels": base64.b64encode(zlib.compress(image.pixels, 9)).decode("ascii")}
    models = {name: model_geometry(by_name[name], name) for name in MODELS}
    xml = {}
    for name in sorted(by_name):
        for pattern, elements in XML_FILES:
            if pattern.fullmatch(name):
                xml[name] = kept_xml(by_name[name], elements, name)
    return {"schema_version": SCHEMA_VERSION, "source": f"urho3d/Urho3D {commit}", "images": images,
            "models": models, "xml": xml}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="Urho3D git directory (bare) or checkout")
    parser.add_argument("--rev", default="HEAD", help="revision to read from a git directory (default HEAD)")
    parser.add_argument("-o", "--output", type=Path, default=DATA_FILE, help="file to write")
    args = parser.parse_args(argv)
    commit, files = load_source(args.source, args.rev)
    by_name = {f.name: f.data for f in files if f.data is not None}
    missing = [n for n in IMAGES + MODELS if n not in by_name]
    if missing:
        parser.error(f"{', '.join(missing)}: not under {' or '.join(RESOURCE_ROOTS)} in {args.source}")
    data = build(commit, by_name)
    text = json.dumps(data, separators=(",", ":"), sort_keys=True).encode()
    args.output.write_bytes(gzip.compress(text, 9, mtime=0))
    print(f"{len(data['images'])} images, {len(data['models'])} models, {len(data['xml'])} XML files "
          f"(urho3d/Urho3D {commit}) -> {args.output} "
          f"({args.output.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
