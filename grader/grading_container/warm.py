"""Run once when the grader image is built (the Dockerfile's RUN), so no grade repeats it: bytecode for the
grader and for every module of the standard library and the installed packages that a grade's processes import
(the image is read-only and grades may not write it), and the L1 server's UrhoX stubs in the image's own stub
cache.

    python3 -m grader.grading_container.warm STUB_CACHE

Bytecode is compiled with unchecked-hash invalidation: the image never changes after it is built, and the
runtime base zeroes every file's modification time, which would make timestamp-checked bytecode stale on sight.
"""

from __future__ import annotations

import compileall
import importlib
import os
import py_compile
import sys
from pathlib import Path

GRADER_SOURCE = Path(__file__).resolve().parents[2]
# where a grade's processes start: the container's entry point, the engine's run worker and its pre-booted parent
GRADE_ENTRY_MODULES = ("grader.grading_container.inside", "grader.pipeline", "grader.levels", "grader.l1",
                       "engine.__main__", "engine._runner", "engine._zygote", "engine._engine")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python3 -m grader.grading_container.warm STUB_CACHE", file=sys.stderr)
        return 2
    invalidation = py_compile.PycInvalidationMode.UNCHECKED_HASH
    ok = bool(compileall.compile_dir(str(GRADER_SOURCE), quiet=2, workers=1, invalidation_mode=invalidation))
    # the rest of the standard library and site-packages only as far as grading reaches: what the grade's
    # process (the grader, L1) and the engine's run process import; compiling all of it would double the build
    for name in GRADE_ENTRY_MODULES:
        importlib.import_module(name)
    for module in list(sys.modules.values()):
        source = getattr(module, "__file__", None)
        if source and source.endswith(".py") and not source.startswith(str(GRADER_SOURCE)):
            try:
                py_compile.compile(source, doraise=True, invalidation_mode=invalidation)
            except py_compile.PyCompileError as exc:
                print(f"warm: {exc.msg}", file=sys.stderr)
                ok = False
    os.environ["GRADER_L1_CACHE"] = argv[0]
    from grader.l1._stubcache import stubs_dir

    stubs = stubs_dir()
    for path in [Path(argv[0]), *Path(argv[0]).rglob("*")]:   # made by root here, read by the grading user
        path.chmod(0o755 if path.is_dir() else 0o644)
    print(f"stubs in {stubs}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
