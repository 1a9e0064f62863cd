"""Build and install lupa with the grader's deterministic Lua 5.4.

Usage: python -m engine.native.build_lupa [--force]

Lua 5.4 seeds its string hash from addresses and the time, and orders tables
keyed by objects by their addresses, so stock lupa iterates pairs() differently
in every process.  This script fetches lupa's source distribution (PyPI, by
name and pinned version), appends detalloc.c to the bundled Lua 5.4's
lstate.c, builds only the Lua 5.4 module (no LuaJIT, no other Lua versions)
and installs it under a local version label, so `engine` can tell it apart.
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

LUPA_VERSION = "2.8"
BUILD_LABEL = "grader.1"
INSTALLED_VERSION = f"{LUPA_VERSION}+{BUILD_LABEL}"
HERE = Path(__file__).resolve().parent

_PROTOTYPE_ANCHOR = "LUA_API lua_State *lua_newstate (lua_Alloc f, void *ud) {"
_SEED_LINE = "g->seed = luai_makeseed(L);"


def installed_version() -> str | None:
    """The version of the lupa installed in this interpreter, or None."""
    try:
        version = importlib.import_module("lupa.version")
    except ImportError:
        return None
    return str(getattr(version, "__version__", ""))


def patch_sources(src: Path) -> None:
    """Keep only the bundled Lua 5.4 and wire the deterministic allocator into it."""
    third_party = src / "third-party"
    for bundle in third_party.iterdir():
        if bundle.is_dir() and bundle.name != "lua54":
            for path in sorted(bundle.rglob("*"), reverse=True):
                path.unlink() if path.is_file() or path.is_symlink() else path.rmdir()
            bundle.rmdir()
    lstate = third_party / "lua54" / "lstate.c"
    text = lstate.read_text()
    if _PROTOTYPE_ANCHOR not in text or _SEED_LINE not in text:
        raise SystemExit(f"build_lupa: {lstate} does not have the expected shape; update the patch")
    text = text.replace(
        _PROTOTYPE_ANCHOR, "unsigned int grader_det_install(lua_State *L);\n\n" + _PROTOTYPE_ANCHOR
    )
    text = text.replace(_SEED_LINE, "g->seed = grader_det_install(L);")
    # mmap/madvise flags need the GNU feature set, which lprefix.h does not ask for
    text = "#define _GNU_SOURCE 1\n" + text
    text += "\n\n/* ---- appended by engine/native/build_lupa.py ---- */\n"
    text += (HERE / "detalloc.c").read_text()
    lstate.write_text(text)
    setup = src / "setup.py"
    setup_text = setup.read_text()
    version_line = f"VERSION = '{LUPA_VERSION}'"
    if version_line not in setup_text:
        raise SystemExit(f"build_lupa: {setup} does not set {version_line}; update the patch")
    setup.write_text(setup_text.replace(version_line, f"VERSION = '{INSTALLED_VERSION}'"))


def _say(message: str) -> None:
    print(message, flush=True)


def build(force: bool = False) -> None:
    if not force and installed_version() == INSTALLED_VERSION:
        print(f"lupa {INSTALLED_VERSION} already installed")
        return
    with tempfile.TemporaryDirectory(prefix="grader-lupa-") as tmp:
        work = Path(tmp)
        _say(f"build_lupa: fetching lupa {LUPA_VERSION}'s source from PyPI")
        # --no-binary for lupa alone: its build requirements (Cython) may come as wheels, not compiled here too
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", "lupa",
             f"lupa=={LUPA_VERSION}", "-d", str(work)],
            check=True,
        )
        archive = next(work.glob("lupa-*.tar.gz"))
        with tarfile.open(archive) as tar:
            tar.extractall(work, filter="data")
        src = work / f"lupa-{LUPA_VERSION}"
        patch_sources(src)
        _say("build_lupa: compiling lupa with the deterministic Lua 5.4 (about a minute or two)")
        env = dict(os.environ, LUPA_NO_LUAJIT="true", LUPA_USE_BUNDLE="true")
        env["CFLAGS"] = (env.get("CFLAGS", "") + " -O2").strip()
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", str(src)],
            check=True,
            env=env,
        )
    print(f"installed lupa {INSTALLED_VERSION}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if already installed")
    build(force=parser.parse_args().force)


if __name__ == "__main__":
    main()
