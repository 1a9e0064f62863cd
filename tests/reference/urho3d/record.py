"""Record reference traces by running the scenarios in Urho3D itself (by hand; never in CI).

    python tests/reference/urho3d/record.py --player PATH --commit SHA [--timeout S] [SCENARIO ...]

PATH is a headless-capable Urho3DPlayer built from Urho3D at commit SHA with Lua (5.1) scripting, run from its
build tree so that its Data and CoreData resource folders are found. The project does not ship or build it (see
docs/fidelity.md). Each scenario runs in a fresh player:

    Urho3DPlayer record_entry.lua -headless -nolimit -nosound -nothreads -p "Data;CoreData;<lua dir>;<tmp>"

where record_entry.lua (written to a temporary folder) sets RECORDER_CONFIG and requires the recorder. The
trace is written to traces/NAME.jsonl, gzip-compressed (NAME.jsonl.gz) when larger than 64 KiB, with the
Urho3D commit added to the header. A scenario whose run fails, or whose trace records an error, is reported and
not written. Prints one line per scenario and the wall time.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LUA_DIR = HERE / "lua"
TRACES_DIR = HERE / "traces"
COMPRESS_ABOVE = 64 * 1024


def record(player: Path, commit: str, name: str, timeout: float) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory(prefix="urho3d-trace-") as tmp:
        out = Path(tmp) / f"{name}.jsonl"
        entry = Path(tmp) / "record_entry.lua"
        entry.write_text(f"RECORDER_CONFIG = {{scenario = {json.dumps(name)}, trace = {json.dumps(str(out))}, "
                         'exit = true}\nrequire "recorder"\n', encoding="utf-8")
        cmd = [str(player), entry.name, "-headless", "-nolimit", "-nosound", "-nothreads",
               "-p", f"Data;CoreData;{LUA_DIR};{tmp}"]
        # SDL must not look for a sound device (-nosound alone still initialises its audio subsystem)
        env = {**os.environ, "SDL_AUDIODRIVER": "dummy"}
        try:
            proc = subprocess.run(cmd, cwd=player.parent, capture_output=True, text=True, timeout=timeout,
                                  check=False, env=env)
        except subprocess.TimeoutExpired:
            return False, f"timed out after {timeout:g} s"
        if not out.exists():
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
            return False, f"no trace (exit {proc.returncode}): " + " | ".join(tail)
        lines = out.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["urho3d_commit"] = commit
    header["reference"] = "Urho3D headless, Lua 5.1 (tolua++), fixed step via Engine::SetNextTimeStep"
    lines[0] = json.dumps(header, separators=(",", ":"))
    errors = [ev for line in lines[1:] for ev in json.loads(line)["ev"] if ev[0] == "error"]
    if errors:
        return False, f"the scenario raised in Urho3D: {errors[0][1]}"
    text = "\n".join(lines) + "\n"
    for old in TRACES_DIR.glob(f"{name}.jsonl*"):
        old.unlink()
    if len(text) > COMPRESS_ABOVE:
        (TRACES_DIR / f"{name}.jsonl.gz").write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    else:
        (TRACES_DIR / f"{name}.jsonl").write_text(text, encoding="utf-8")
    return True, f"{len(lines) - 1} frames, {len(text) // 1024} KiB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", type=Path, required=True, help="the headless Urho3DPlayer to run")
    parser.add_argument("--commit", required=True, help="the Urho3D commit the player was built from")
    parser.add_argument("--timeout", type=float, default=120.0, help="wall seconds per scenario")
    parser.add_argument("scenarios", nargs="*", help="scenario names (default: all)")
    args = parser.parse_args()
    if not args.player.is_file():
        print(f"Error: {args.player}: no such player", file=sys.stderr)
        return 2
    names = args.scenarios or sorted(p.stem for p in (LUA_DIR / "scenarios").glob("*.lua"))
    TRACES_DIR.mkdir(exist_ok=True)
    failed = 0
    start = time.monotonic()
    for name in names:
        t0 = time.monotonic()
        ok, message = record(args.player.resolve(), args.commit, name, args.timeout)
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name:<24} {time.monotonic() - t0:6.1f} s  {message}")
    print(f"{len(names) - failed}/{len(names)} recorded in {time.monotonic() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
