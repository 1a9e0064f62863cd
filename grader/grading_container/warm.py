"""Run once when the grader image is built (the Dockerfile's RUN), so no grade repeats it: bytecode for the
standard library, the installed packages and the grader (the image is read-only and grades may not write it), and
the L1 server's UrhoX stubs in the image's own stub cache.

    python3 -m grader.grading_container.warm STUB_CACHE

Bytecode is compiled with unchecked-hash invalidation: the image never changes after it is built, and the
runtime base zeroes every file's modification time, which would make timestamp-checked bytecode stale on sight.
"""

from __future__ import annotations

import compileall
import os
import py_compile
import sys
import sysconfig
from pathlib import Path

GRADER_SOURCE = Path(__file__).resolve().parents[2]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python3 -m grader.grading_container.warm STUB_CACHE", file=sys.stderr)
        return 2
    paths = sysconfig.get_paths()
    roots = sorted({paths["stdlib"], paths["platstdlib"], paths["purelib"], paths["platlib"], str(GRADER_SOURCE)})
    ok = True
    for root in roots:
        if Path(root).is_dir():
            ok &= bool(compileall.compile_dir(root, quiet=2, workers=1, legacy=False, optimize=-1,
                                              invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH))
    os.environ["GRADER_L1_CACHE"] = argv[0]
    from grader.l1._stubcache import stubs_dir

    stubs = stubs_dir()
    for path in [Path(argv[0]), *Path(argv[0]).rglob("*")]:   # made by root here, read by the grading user
        path.chmod(0o755 if path.is_dir() else 0o644)
    print(f"stubs in {stubs}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
