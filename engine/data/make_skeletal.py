"""Generate ``engine/data/skeletal.json.gz``: the skeletons and animations of Urho3D's stock models.

The headless engine plays skeletal animation on bone nodes (docs/animation.md). For Urho3D's stock data
(``Models/Mutant/Mutant.mdl``, ``Models/Mutant/Mutant_Walk.ani``, ``Models/Jack_Walk.ani``, ...) it needs each
model's bones and each animation's keyframes, which ``engine/data/resources.json`` does not hold. This script reads
them from Urho3D's data folders with the engine's own readers (``engine/_skeletal.py``) and writes them in the shape
that module documents, gzipped:

    python -m engine.data.make_skeletal /path/to/Urho3D.git            # a bare git directory
    python -m engine.data.make_skeletal /path/to/Urho3D --rev <commit>  # or a checkout

Models without bones are left out. Floats are written in the fewest digits that read back as the same
single-precision value the file holds. Animation triggers come from the XML side files next to the animations
(Urho3D reads ``<animation>.xml``), as ``{"time", "normalized", "type", "value"}``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import struct
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from engine._skeletal import DATA_FILE, SCHEMA_VERSION, SkeletalError, parse_animation, parse_model_skeleton
from engine.data.make_resources import RESOURCE_ROOTS, SourceFile, load_source


def f32_text(value: float) -> float:
    """The shortest decimal that reads back as the same float32 (so the JSON stays small and exact)."""
    exact = struct.unpack("<f", struct.pack("<f", value))[0]
    for digits in range(6, 10):
        shorter = float(f"{exact:.{digits}g}")
        if struct.unpack("<f", struct.pack("<f", shorter))[0] == exact:
            return shorter + 0.0
    return float(exact)


def _compact(value: Any) -> Any:
    if isinstance(value, float):
        return f32_text(value)
    if isinstance(value, list):
        return [_compact(v) for v in value]
    if isinstance(value, dict):
        return {k: _compact(v) for k, v in value.items()}
    return value


def parse_triggers_xml(data: bytes, what: str) -> list[dict[str, Any]]:
    """Triggers of an animation's XML side file: ``<trigger time|normalizedtime= type= value=>``."""
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise SkeletalError(f"{what}: {exc}") from None
    out: list[dict[str, Any]] = []
    for trigger in root.findall("trigger"):
        normalized = trigger.get("normalizedtime")
        time = normalized if normalized is not None else trigger.get("time")
        if time is not None:
            out.append({"time": float(time), "normalized": normalized is not None,
                        "type": trigger.get("type", ""), "value": trigger.get("value", "")})
    return out


def build(commit: str, files: list[SourceFile]) -> dict[str, Any]:
    by_name = {f.name: f for f in files}
    models: dict[str, Any] = {}
    animations: dict[str, Any] = {}
    for f in sorted(files, key=lambda f: f.name):
        if f.data is None:
            continue
        if f.name.endswith(".mdl"):
            skeleton = parse_model_skeleton(f.data, f.name)
            if skeleton["bones"]:
                models[f.name] = _compact(skeleton)
        elif f.name.endswith(".ani"):
            animation = parse_animation(f.data, f.name)
            side = by_name.get(f.name[:-4] + ".xml")
            if side is not None and side.data is not None:
                animation["triggers"] = parse_triggers_xml(side.data, side.name)
            animations[f.name] = _compact(animation)
    return {"schema_version": SCHEMA_VERSION, "source": f"urho3d/Urho3D {commit}", "models": models,
            "animations": animations}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("source", type=Path, help="Urho3D git directory (bare) or checkout")
    parser.add_argument("--rev", default="HEAD", help="revision to read from a git directory (default HEAD)")
    parser.add_argument("-o", "--output", type=Path, default=DATA_FILE, help="file to write")
    args = parser.parse_args(argv)
    commit, files = load_source(args.source, args.rev)
    if not files:
        parser.error(f"no files under {' or '.join(RESOURCE_ROOTS)} in {args.source}")
    data = build(commit, files)
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    args.output.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))
    print(f"{len(data['models'])} skeletons, {len(data['animations'])} animations, "
          f"{args.output.stat().st_size} bytes -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
