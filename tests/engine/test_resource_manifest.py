"""Checks on engine/data/resources.json and on the parsers of make_resources.py.

The manifest tests read the generated file in the repository; the parser tests build
small files in memory, so nothing here needs the network or an Urho3D checkout.
"""

from __future__ import annotations

import importlib.util
import json
import struct
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "engine" / "data"
MANIFEST_PATH = DATA_DIR / "resources.json"


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_resources", DATA_DIR / "make_resources.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


mr = _load_generator()


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    return json.loads(MANIFEST_PATH.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def resources(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return manifest["resources"]


# ----------------------------------------------------------------------- manifest


def test_header(manifest: dict[str, Any]) -> None:
    assert manifest["schema_version"] == 1
    repo, _, commit = manifest["source"].partition(" ")
    assert repo == "urho3d/Urho3D"
    assert len(commit) == 40 and int(commit, 16) >= 0


def test_keys_sorted_and_entries_complete(resources: dict[str, dict[str, Any]]) -> None:
    keys = list(resources)
    assert keys == sorted(keys)
    assert len(keys) > 300
    for name, entry in resources.items():
        assert isinstance(entry["type"], str) and entry["type"], name
        assert isinstance(entry["size"], int) and entry["size"] >= 0, name


def test_no_scripts_listed(resources: dict[str, dict[str, Any]]) -> None:
    for name in resources:
        assert not name.endswith((".lua", ".as")), name
        assert not name.startswith(("LuaScripts/", "Scripts/")), name


def test_manifest_is_small() -> None:
    assert MANIFEST_PATH.stat().st_size < 3_000_000


def _box(
    resources: dict[str, dict[str, Any]], name: str
) -> tuple[list[float], list[float]]:
    entry = resources[name]
    assert entry["type"] == "Model"
    assert entry["num_geometries"] >= 1
    assert entry["num_vertices"] > 0
    assert entry["num_bones"] == 0
    box = entry["bounding_box"]
    return box["min"], box["max"]


def test_box_model(resources: dict[str, dict[str, Any]]) -> None:
    assert _box(resources, "Models/Box.mdl") == ([-0.5, -0.5, -0.5], [0.5, 0.5, 0.5])
    assert resources["Models/Box.mdl"]["num_vertices"] == 24  # 4 per face, 6 faces


def test_plane_model_is_flat_in_y(resources: dict[str, dict[str, Any]]) -> None:
    assert _box(resources, "Models/Plane.mdl") == ([-0.5, 0.0, -0.5], [0.5, 0.0, 0.5])


@pytest.mark.parametrize(
    "name", ["Models/Sphere.mdl", "Models/Cylinder.mdl", "Models/Cone.mdl"]
)
def test_unit_primitives(resources: dict[str, dict[str, Any]], name: str) -> None:
    low, high = _box(resources, name)
    assert low[1] == -0.5 and high[1] == 0.5
    for axis in (0, 2):
        assert low[axis] == pytest.approx(-0.5, abs=0.01)
        assert high[axis] == pytest.approx(0.5, abs=0.01)


def test_torus_model(resources: dict[str, dict[str, Any]]) -> None:
    low, high = _box(resources, "Models/Torus.mdl")
    assert high[0] == pytest.approx(0.638816) and high[2] == pytest.approx(0.638816)
    assert low == [-high[0], -high[1], -high[2]]
    assert 0 < high[1] < high[0]  # a ring lying in the XZ plane


def test_skinned_model_has_bones(resources: dict[str, dict[str, Any]]) -> None:
    assert resources["Models/Jack.mdl"]["num_bones"] > 0
    assert resources["Models/Jack_Walk.ani"]["type"] == "Animation"
    assert resources["Models/Jack_Walk.ani"]["length"] > 0


@pytest.mark.parametrize(
    ("name", "width", "height"),
    [
        ("Textures/UI.png", 256, 128),
        ("Textures/StoneDiffuse.dds", None, None),
        ("Textures/Jack_face.jpg", None, None),
        ("Urho2D/Box.png", None, None),
        ("Fonts/BlueHighway.png", None, None),
    ],
)
def test_textures_have_size(
    resources: dict[str, dict[str, Any]],
    name: str,
    width: int | None,
    height: int | None,
) -> None:
    entry = resources[name]
    assert entry["type"] == "Texture2D"
    assert entry["width"] > 0 and entry["height"] > 0
    if width is not None:
        assert (entry["width"], entry["height"]) == (width, height)


def test_every_image_has_size(resources: dict[str, dict[str, Any]]) -> None:
    for name, entry in resources.items():
        if entry["type"] == "Texture2D":
            assert entry["width"] > 0 and entry["height"] > 0, name


def test_material_references(resources: dict[str, dict[str, Any]]) -> None:
    stone = resources["Materials/Stone.xml"]
    assert stone["type"] == "Material"
    assert "Techniques/Diff.xml" in stone["techniques"]
    assert stone["textures"]["diffuse"] == "Textures/StoneDiffuse.dds"
    assert (
        resources["Materials/Skybox.xml"]["textures"]["diffuse"]
        == "Textures/Skybox.xml"
    )
    assert resources["Textures/Skybox.xml"]["type"] == "TextureCube"


@pytest.mark.parametrize(
    ("name", "rtype"),
    [
        ("Techniques/Diff.xml", "Technique"),
        ("RenderPaths/Forward.xml", "RenderPath"),
        ("PostProcess/Bloom.xml", "RenderPath"),
        ("Particle/Fire.xml", "ParticleEffect"),
        ("Urho2D/sun.pex", "ParticleEffect2D"),
        ("Urho2D/imp/imp.scml", "AnimationSet2D"),
        ("Urho2D/Orc/Orc.xml", "SpriteSheet2D"),
        ("Urho2D/isometric_grass_and_water.tmx", "TmxFile2D"),
        ("Fonts/Anonymous Pro.ttf", "Font"),
        ("Fonts/BlueHighway.sdf", "Font"),
        ("UI/DefaultStyle.xml", "XMLFile"),
        ("Scenes/NinjaSnowWar.xml", "Scene"),
        ("Shaders/GLSL/LitSolid.glsl", "Shader"),
    ],
)
def test_types(resources: dict[str, dict[str, Any]], name: str, rtype: str) -> None:
    assert resources[name]["type"] == rtype


def test_sounds(resources: dict[str, dict[str, Any]]) -> None:
    sounds = {k: v for k, v in resources.items() if v["type"] == "Sound"}
    assert "Sounds/PlayerFistHit.wav" in sounds and "Music/Ninja Gods.ogg" in sounds
    for name, entry in sounds.items():
        assert entry["frequency"] > 0 and entry["channels"] in (1, 2), name
        assert entry["length_seconds"] > 0, name


# ------------------------------------------------------------------ model parser


def _cstr(text: str) -> bytes:
    return text.encode() + b"\0"


def _u32(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


def _f32(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def _model(magic: bytes, vertex_buffers: bytes, tail: bytes = b"") -> bytes:
    """A model with the given vertex buffers, one 3-index buffer and one geometry."""
    index_buffers = _u32(1, 3, 2) + struct.pack("<3H", 0, 1, 2)
    geometries = _u32(1) + _u32(0) + _u32(1) + _f32(0.0) + _u32(0, 0, 0, 0, 3)
    return magic + vertex_buffers + index_buffers + geometries + tail


def test_parse_mdl_legacy_mask_with_bones() -> None:
    # one buffer of 3 vertices with position + normal (24 bytes each)
    vertex_buffers = _u32(1) + _u32(3, 0x1 | 0x2, 0, 0) + bytes(3 * 24)
    morphs = _u32(0)
    bone = (
        _cstr("Root")
        + _u32(0)
        + _f32(0, 0, 0)
        + _f32(1, 0, 0, 0)
        + _f32(1, 1, 1)
        + bytes(48)
        + bytes([0x1 | 0x2])
        + _f32(0.25)
        + _f32(-1, -1, -1, 1, 1, 1)
    )
    skeleton = _u32(1) + bone
    box = _f32(-1.5, -2.0, -0.25, 1.5, 2.0, 0.25)
    data = _model(b"UMDL", vertex_buffers, morphs + skeleton + box + _f32(0, 0, 0))
    info = mr.parse_mdl(data)
    assert info == {
        "bounding_box": {"min": [-1.5, -2.0, -0.25], "max": [1.5, 2.0, 0.25]},
        "num_geometries": 1,
        "num_vertices": 3,
        "num_bones": 1,
        "num_morphs": 0,
    }


def test_parse_mdl_declared_elements_and_morph() -> None:
    # UMD2: elements given as (type | semantic << 8); vector3 position + ubyte4 color
    elements = _u32(2, 3 | (0 << 8), 6 | (5 << 8))
    vertex_buffers = (
        _u32(2)
        + _u32(4)
        + elements
        + _u32(0, 4)
        + bytes(4 * 16)
        + _u32(2)
        + elements
        + _u32(0, 0)
        + bytes(2 * 16)
    )
    # a morph of 2 vertices of buffer 0, position + normal: 4 + 12 + 12 bytes each
    morphs = _u32(1) + _cstr("Smile") + _u32(1) + _u32(0, 0x1 | 0x2, 2) + bytes(2 * 28)
    box = _f32(0.1234567, 0.0, -0.0, 1.0, 2.0, 3.0)
    data = _model(b"UMD2", vertex_buffers, morphs + _u32(0) + box)
    info = mr.parse_mdl(data)
    assert info["num_vertices"] == 6
    assert info["num_morphs"] == 1
    assert info["num_bones"] == 0
    box_min = info["bounding_box"]["min"]
    assert box_min == [0.123457, 0.0, 0.0]
    assert json.dumps(box_min) == "[0.123457, 0.0, 0.0]"  # no "-0.0"


def test_parse_mdl_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        mr.parse_mdl(b"NOPE" + bytes(64))
    whole = _model(b"UMDL", _u32(0), _u32(0) + _u32(0) + _f32(0, 0, 0, 1, 1, 1))
    assert mr.parse_mdl(whole)["num_vertices"] == 0
    with pytest.raises(ValueError):
        mr.parse_mdl(whole[:-4])  # bounding box cut short


def test_describe_missing_content_gives_null_metadata() -> None:
    entry = mr.describe("Models/Box.mdl", None, None)
    assert entry["type"] == "Model"
    assert entry["bounding_box"] is None and entry["num_vertices"] is None


# ------------------------------------------------------------------ image parsers


def _png(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", len(ihdr))
        + b"IHDR"
        + ihdr
        + bytes(4)  # CRC, not checked
    )


def test_png_size() -> None:
    assert mr.png_size(_png(640, 48)) == (640, 48)
    assert mr.image_size(_png(1, 70000), ".png") == (1, 70000)
    with pytest.raises(ValueError):
        mr.png_size(b"GIF89a" + bytes(32))
    with pytest.raises(ValueError):
        mr.png_size(_png(2, 2)[:20])


def test_other_image_headers() -> None:
    jpeg = (
        b"\xff\xd8"
        + b"\xff\xe0"
        + struct.pack(">H", 4)
        + b"JF"
        + b"\xff\xc0"
        + struct.pack(">HBHH", 11, 8, 120, 320)
        + bytes(6)
    )
    assert mr.image_size(jpeg, ".jpg") == (320, 120)
    dds = (
        b"DDS " + struct.pack("<III", 124, 0, 64) + struct.pack("<I", 256) + bytes(108)
    )
    assert mr.image_size(dds, ".dds") == (256, 64)
    tga = bytes(12) + struct.pack("<HH", 33, 17) + bytes(2)
    assert mr.image_size(tga, ".tga") == (33, 17)


def test_wav_info() -> None:
    fmt = struct.pack("<HHIIHH", 1, 2, 22050, 22050 * 4, 4, 16)
    samples = bytes(22050 * 4 // 2)  # half a second of 16-bit stereo
    body = (
        b"WAVE"
        + b"fmt "
        + _u32(len(fmt))
        + fmt
        + b"data"
        + _u32(len(samples))
        + samples
    )
    info = mr.wav_info(b"RIFF" + _u32(len(body)) + body)
    assert info == {"frequency": 22050, "channels": 2, "length_seconds": 0.5}
