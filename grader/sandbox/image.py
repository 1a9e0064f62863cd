"""The agent base image, built without a registry: a root filesystem tarball holding a static busybox, imported
with `docker import` and tagged by the SHA-256 of the tarball, so it is built once per machine and the tag itself
pins the content.

The tarball is deterministic: sorted entries, zeroed times, root-owned, fixed modes.  It holds /bin/busybox with
every applet it lists symlinked in /bin (so /bin/sh exists), /etc/passwd and /etc/group with root and the agent
user (uid/gid 10001, home /home/agent), and the empty mount points /workspace, /task, /stage, /usage, /tmp,
/home/agent, /proc, /sys, /dev.
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import tarfile
from pathlib import Path
from typing import Any

from grader._containers import ImageError, has_image

BUSYBOX = Path("/bin/busybox")
AGENT_UID = 10001
AGENT_USER = "agent"
REPOSITORY = "grader-agent-base"
LOOP_REPOSITORY = "grader-agent-loop"           # the shipped agent loop's image (grader/agent_loop/image.py)
CONTENT_TAGGED = (REPOSITORY, LOOP_REPOSITORY)  # images whose tag is the SHA-256 of their content
PASSWD = f"root:x:0:0:root:/root:/bin/sh\n{AGENT_USER}:x:{AGENT_UID}:{AGENT_UID}:agent:/home/{AGENT_USER}:/bin/sh\n"
GROUP = f"root:x:0:\n{AGENT_USER}:x:{AGENT_UID}:\n"
DIRS = {"bin": 0o755, "etc": 0o755, "workspace": 0o755, "task": 0o755, "stage": 0o755, "usage": 0o755, "tmp": 0o1777,
        "home": 0o755, f"home/{AGENT_USER}": 0o755, "proc": 0o755, "sys": 0o755, "dev": 0o755, "root": 0o700}


def busybox_applets(busybox: Path = BUSYBOX) -> list[str]:
    """The applets this busybox has (each becomes a link to it in /bin)."""
    out = subprocess.run([str(busybox), "--list"], capture_output=True, text=True, check=True).stdout
    return sorted({a for a in out.split() if a and "/" not in a and a != "busybox"})


def rootfs_tar(busybox: Path = BUSYBOX) -> bytes:
    """The deterministic root filesystem tarball (bytes)."""
    if not busybox.is_file():
        raise ImageError(f"{busybox}: no static busybox (Debian: apt-get install busybox-static)")
    blob = busybox.read_bytes()
    buf = io.BytesIO()
    entries: list[tuple[tarfile.TarInfo, bytes | None]] = []

    def info(name: str, kind: bytes, mode: int, size: int = 0, link: str = "") -> tarfile.TarInfo:
        ti = tarfile.TarInfo(name)
        ti.type, ti.mode, ti.size, ti.linkname = kind, mode, size, link
        ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname = 0, 0, 0, "", ""
        return ti

    for name, mode in DIRS.items():
        entries.append((info(name, tarfile.DIRTYPE, mode), None))
    entries.append((info("bin/busybox", tarfile.REGTYPE, 0o755, len(blob)), blob))
    for applet in busybox_applets(busybox):
        entries.append((info(f"bin/{applet}", tarfile.SYMTYPE, 0o777, link="busybox"), None))
    for name, text in (("etc/passwd", PASSWD), ("etc/group", GROUP)):
        encoded = text.encode()
        entries.append((info(name, tarfile.REGTYPE, 0o644, len(encoded)), encoded))
    entries.sort(key=lambda e: e[0].name)
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for ti, data in entries:
            tar.addfile(ti, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


def base_image(client: Any, busybox: Path = BUSYBOX) -> str:
    """The base image's tag, importing it when this machine does not have it yet."""
    import docker.errors

    data = rootfs_tar(busybox)
    tag = hashlib.sha256(data).hexdigest()[:32]
    ref = f"{REPOSITORY}:{tag}"
    if has_image(client, ref):
        return ref
    try:
        client.api.import_image_from_data(data, repository=REPOSITORY, tag=tag,
                                          changes=[f"USER {AGENT_UID}:{AGENT_UID}", "WORKDIR /workspace",
                                                   "LABEL grader.base=1"])
        client.images.get(ref)
    except docker.errors.DockerException as exc:
        raise ImageError(f"docker import of {ref} failed: {exc}") from exc
    return ref
