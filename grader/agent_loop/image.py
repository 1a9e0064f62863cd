"""The agent loop's image, built without a registry or network from what this machine has: its Python (the
interpreter, libpython and the standard library, as the grader image's runtime base takes them,
grader/grading_container/image.py), the static busybox of the agent base image with its applets in /bin (so
`sh` and the usual commands), the agent user, the sandbox's mount points, and the loop (loop.py) at SCRIPT.

The root filesystem tarball is deterministic (sorted entries, zero times and owners) and loaded with `docker
import`; the tag is the SHA-256 of the tarball and the image's settings, so the profile pins the loop's code and its
Python by content.  Built once per machine (a label holding a cheap manifest of the inputs finds it again); a new
loop.py or Python gives a new tag.  Older tags are left alone: another checkout on the machine may use them.
"""

from __future__ import annotations

import os
import sys
import tarfile
from pathlib import Path
from typing import Any

from grader._containers import has_image
from grader.grading_container.image import RootFS, add_shared_libraries, import_rootfs, python_rootfs
from grader.sandbox.image import (
    AGENT_UID,
    AGENT_USER,
    BUSYBOX,
    DIRS,
    GROUP,
    LOOP_REPOSITORY,
    PASSWD,
    busybox_applets,
)

SCRIPT = "/opt/grader/agent_loop.py"
SOURCE = Path(__file__).with_name("loop.py")
MOUNTED = ("/workspace", "/task", "/stage", "/usage", "/tmp", f"/home/{AGENT_USER}")   # the sandbox mounts these


def loop_rootfs(busybox: Path = BUSYBOX) -> RootFS:
    """The image's root filesystem (see the module's docstring)."""
    from grader._containers import ImageError

    if not busybox.is_file():
        raise ImageError(f"{busybox}: no static busybox (Debian: apt-get install busybox-static)")
    fs = python_rootfs(MOUNTED)
    add_shared_libraries(fs)
    bin_entry = fs.entries.get("bin")   # /bin may be a link the interpreter's path went through (merged /usr)
    bindir = os.path.normpath(bin_entry.link).strip("/") if bin_entry and bin_entry.kind == tarfile.SYMTYPE \
        else "bin"
    fs.add_file(f"{bindir}/busybox", busybox, 0o755)
    for applet in busybox_applets(busybox):
        if f"{bindir}/{applet}" not in fs.entries:
            fs.add_link(f"{bindir}/{applet}", "busybox")
    for name, mode in DIRS.items():
        if name not in fs.entries:
            fs.add_dir(name, mode)
    fs.add_bytes("etc/passwd", PASSWD.encode())
    fs.add_bytes("etc/group", GROUP.encode())
    fs.add_bytes(SCRIPT, SOURCE.read_bytes())
    return fs


_FOUND: dict[str, str] = {}   # busybox -> reference, once this process has found or built it


def loop_image(docker_client: Any, busybox: Path = BUSYBOX) -> str:
    """`grader-agent-loop:<tag>`, imported when this machine does not have it yet.  Finding it takes about a second
    (the manifest reads every input's size and time, and `ldd`): a process does it once."""
    known = _FOUND.get(str(busybox))
    if known is not None and has_image(docker_client, known):
        return known
    python_bin = Path(sys.executable).parent   # first on PATH: python3 is this environment's
    ref = import_rootfs(docker_client, loop_rootfs(busybox), LOOP_REPOSITORY,
                        [f"ENV PATH={python_bin}:/bin:/usr/bin", "ENV LANG=C.UTF-8", "ENV PYTHONDONTWRITEBYTECODE=1",
                         f"USER {AGENT_UID}:{AGENT_UID}", "WORKDIR /workspace", "LABEL grader.agent-loop=1"])
    _FOUND[str(busybox)] = ref
    return ref


def main() -> None:
    """`python -m grader.agent_loop.image`: build (or find) the image; print its reference."""
    from grader._containers import client

    print(loop_image(client()))


if __name__ == "__main__":
    main()
