"""Build and install lupa with the grader's deterministic Lua 5.4.

Usage: python -m engine.native.build_lupa [--force]

Lua 5.4 seeds its string hash from addresses and the time, and orders tables
keyed by objects by their addresses, so stock lupa iterates pairs() differently
in every process.  This script fetches lupa's source distribution (PyPI, by
name and pinned version), appends detalloc.c to the bundled Lua 5.4's
lstate.c and budget.c to its lvm.c (the instruction budget counted in the VM,
with its charge points in luaV_execute and debug.setbudget/getbudget/
unmetered/metered), builds only the Lua 5.4 module (no LuaJIT, no other Lua
versions) and installs it under a local version label, so `engine` can tell it
apart.
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
BUILD_LABEL = "grader.2"
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


# Each edit: (file, anchor that must occur exactly `count` times, replacement).  A lupa or Lua upgrade that
# moves an anchor stops the build with the file's name instead of building a Lua without the patch.
_BUDGET_EDITS: tuple[tuple[str, str, str, int], ...] = (
    ("lobject.h",
     "  lu_byte maxstacksize;  /* number of registers needed by this function */\n",
     "  lu_byte maxstacksize;  /* number of registers needed by this function */\n"
     "  lu_byte grader_metered;  /* grader: calls and loops of this function are charged to the budget */\n", 1),
    ("lfunc.c", "  f->maxstacksize = 0;\n", "  f->maxstacksize = 0;\n  f->grader_metered = 1;\n", 1),
    ("lstate.h",
     "  void *ud_warn;         /* auxiliary data to 'warnf' */\n} global_State;",
     "  void *ud_warn;         /* auxiliary data to 'warnf' */\n"
     "  l_mem grader_left;  /* grader: instruction budget left (engine/native/budget.c) */\n"
     "  lu_byte grader_tripped;  /* grader: the budget ran out; threads carry the trap hook */\n"
     "} global_State;", 1),
    ("lstate.c", _SEED_LINE,
     "g->seed = grader_det_install(L);\n  g->grader_left = MAX_LMEM;\n  g->grader_tripped = 0;", 1),
    ("lvm.c", "#define dojump(ci,i,e)\t{ pc += GETARG_sJ(i) + e; updatetrap(ci); }",
     "#define dojump(ci,i,e)\t{ int gj_ = GETARG_sJ(i) + e; \\\n"
     "  if (gj_ < 0) grader_charge(-gj_);  /* grader: a backward jump */ \\\n"
     "  pc += gj_; updatetrap(ci); }", 1),
    ("lvm.c", "void luaV_execute (lua_State *L, CallInfo *ci) {",
     "/* grader: charge n units to the budget if the running function is metered (engine/native/budget.c) */\n"
     "l_noret grader_budget_out (lua_State *L);\n"
     "#define GRADER_CALL_UNITS 4  /* what a call of a metered function charges */\n"
     "#define grader_charge(n) { \\\n"
     "  if (cl->p->grader_metered && l_unlikely((G(L)->grader_left -= (n)) < 0)) \\\n"
     "    halfProtect(grader_budget_out(L)); }\n\n"
     "void luaV_execute (lua_State *L, CallInfo *ci) {", 1),
    ("lvm.c", " startfunc:\n  trap = L->hookmask;\n returning:",
     " startfunc:\n  trap = L->hookmask;\n"
     "  {  /* grader: a metered function's start is charged (a vararg one's, at OP_VARARGPREP) */\n"
     "    Proto *gp_ = ci_func(ci)->p;\n"
     "    if (gp_->grader_metered && !gp_->is_vararg &&\n"
     "        l_unlikely((G(L)->grader_left -= GRADER_CALL_UNITS) < 0)) {\n"
     "      L->top.p = ci->top.p;\n"
     "      grader_budget_out(L);\n"
     "    }\n"
     "  }\n"
     " returning:", 1),
    ("lvm.c", "pc -= GETARG_Bx(i);  /* jump back */",
     "{ grader_charge(GETARG_Bx(i)); pc -= GETARG_Bx(i); }  /* jump back */", 3),
    ("lvm.c", "        updatebase(ci);  /* function has new base after adjustment */\n        vmbreak;",
     "        updatebase(ci);  /* function has new base after adjustment */\n"
     "        grader_charge(GRADER_CALL_UNITS);\n        vmbreak;", 1),
    ("ldblib.c", "static const luaL_Reg dblib[] = {\n  {\"debug\", db_debug},\n",
     "int grader_db_setbudget (lua_State *L);\nint grader_db_getbudget (lua_State *L);\n"
     "int grader_db_unmetered (lua_State *L);\nint grader_db_metered (lua_State *L);\n\n"
     "static const luaL_Reg dblib[] = {\n  {\"debug\", db_debug},\n"
     "  {\"setbudget\", grader_db_setbudget},\n  {\"getbudget\", grader_db_getbudget},\n"
     "  {\"unmetered\", grader_db_unmetered},\n  {\"metered\", grader_db_metered},\n", 1),
)


def _edit(path: Path, anchor: str, replacement: str, count: int) -> None:
    text = path.read_text()
    found = text.count(anchor)
    if found != count:
        raise SystemExit(f"build_lupa: {path} has {found} copies of a patch anchor (expected {count}); "
                         f"update the patch: {anchor[:60]!r}")
    path.write_text(text.replace(anchor, replacement))


def patch_sources(src: Path) -> None:
    """Keep only the bundled Lua 5.4; wire the deterministic allocator and the VM's instruction budget into it."""
    third_party = src / "third-party"
    for bundle in third_party.iterdir():
        if bundle.is_dir() and bundle.name != "lua54":
            for path in sorted(bundle.rglob("*"), reverse=True):
                path.unlink() if path.is_file() or path.is_symlink() else path.rmdir()
            bundle.rmdir()
    lua = third_party / "lua54"
    lstate = lua / "lstate.c"
    _edit(lstate, _PROTOTYPE_ANCHOR,
          "unsigned int grader_det_install(lua_State *L);\n\n" + _PROTOTYPE_ANCHOR, 1)
    for name, anchor, replacement, count in _BUDGET_EDITS:
        _edit(lua / name, anchor, replacement, count)
    # mmap/madvise flags need the GNU feature set, which lprefix.h does not ask for
    text = "#define _GNU_SOURCE 1\n" + lstate.read_text()
    text += "\n\n/* ---- appended by engine/native/build_lupa.py ---- */\n"
    text += (HERE / "detalloc.c").read_text()
    lstate.write_text(text)
    lvm = lua / "lvm.c"
    lvm.write_text(lvm.read_text() + "\n\n/* ---- appended by engine/native/build_lupa.py ---- */\n"
                   + (HERE / "budget.c").read_text())
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
        env = dict(os.environ, LUPA_NO_LUAJIT="true", LUPA_USE_BUNDLE="true")
        # --no-binary for lupa alone: its build requirements (Cython) may come as wheels, not compiled here too;
        # the environment spares the sdist's metadata step a build of LuaJIT
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", "lupa",
             f"lupa=={LUPA_VERSION}", "-d", str(work)],
            check=True, env=env,
        )
        archive = next(work.glob("lupa-*.tar.gz"))
        with tarfile.open(archive) as tar:
            tar.extractall(work, filter="data")
        src = work / f"lupa-{LUPA_VERSION}"
        patch_sources(src)
        _say("build_lupa: compiling lupa with the deterministic Lua 5.4 (about a minute or two)")
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
