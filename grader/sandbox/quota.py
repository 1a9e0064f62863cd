"""Disk quotas for the agent's writable mounts: /workspace and /usage are each a size-limited tmpfs, mounted on
the host in the attempt's staging folder and bind-mounted into the container.

Why a tmpfs on the host: its `size=` and `nr_inodes=` bound what the agent can write, whatever it writes (a file,
a million empty ones, a sparse file's real blocks); its pages are charged to the memory cgroup of the process
that writes them, the agent's container, so they count in the container's memory limit; and it outlives the
container (a tmpfs mounted by Docker inside the container goes with it), so the grader copies the deliverable out
after every process of the attempt is gone.  Mounting needs root on the host (the grader that runs
`--sandbox docker` is root; anything else is told so before any attempt runs).

`copy_out` makes the copy kept under runs/: it walks without recursion and without following links, copies only
the data blocks of files (holes stay holes, so at most the quota's bytes reach the host disk), keeps links as
their text, FIFOs and sockets as themselves, hard links as hard links, and permission bits without setuid, setgid
or sticky bits.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import stat
from pathlib import Path

MS_NOSUID, MS_NODEV = 2, 4
MNT_DETACH = 2
CHUNK = 1 << 20


class QuotaError(OSError):
    """A size-limited filesystem could not be mounted (the message says what is needed)."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def can_mount() -> str:
    """"" when this process may mount the quota filesystems, else what is needed."""
    if os.geteuid() != 0:
        return ("the sandbox mounts a size-limited tmpfs per attempt for /workspace and /usage (docs/sandbox.md, "
                "\"Disk quotas\"): run the grader as root for --sandbox docker")
    return ""


def mount_tmpfs(path: Path, size: int, inodes: int, uid: int) -> None:
    """A tmpfs of at most `size` bytes and `inodes` entries at `path` (an empty folder), owned by `uid`."""
    options = f"size={size},nr_inodes={inodes},mode=0755,uid={uid},gid={uid}".encode()
    if _libc().mount(b"tmpfs", os.fsencode(path), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
        code = ctypes.get_errno()
        raise QuotaError(code, f"cannot mount a tmpfs at {path}: {os.strerror(code)}")


def unmount(path: Path) -> None:
    """Detach the filesystem at `path` (lazily: a process still holding a file there cannot keep it busy)."""
    if _libc().umount2(os.fsencode(path), MNT_DETACH) != 0:
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOENT):   # not a mount point (any more): nothing to do
            raise QuotaError(code, f"cannot unmount {path}: {os.strerror(code)}")


def mounts_under(folder: Path) -> list[Path]:
    """The mount points at or below `folder`, deepest first."""
    prefix = os.fsencode(folder).rstrip(b"/")
    found = []
    with contextlib.suppress(OSError), open("/proc/self/mountinfo", "rb") as fh:
        for line in fh:
            point = line.split(b" ")[4].replace(b"\\040", b" ")
            if point == prefix or point.startswith(prefix + b"/"):
                found.append(Path(os.fsdecode(point)))
    return sorted(found, key=lambda p: len(p.parts), reverse=True)


def _copy_data(src: bytes, dst: bytes, size: int) -> None:
    """The file's data blocks only, then its length: a sparse file stays sparse."""
    fin = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        fout = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            pos = 0
            while pos < size:
                try:
                    start = os.lseek(fin, pos, os.SEEK_DATA)
                except OSError as exc:
                    if exc.errno == errno.ENXIO:   # only a hole is left
                        break
                    raise
                end = min(os.lseek(fin, start, os.SEEK_HOLE), size)
                while start < end:
                    chunk = os.pread(fin, min(CHUNK, end - start), start)
                    if not chunk:
                        break
                    os.pwrite(fout, chunk, start)
                    start += len(chunk)
                pos = max(end, pos + 1)
            os.ftruncate(fout, size)
        finally:
            os.close(fout)
    finally:
        os.close(fin)


def copy_out(src: Path, dst: Path) -> list[str]:
    """Copy the tree at `src` into the existing folder `dst` (see the module's docstring); returns what could
    not be copied, one line each."""
    problems: list[str] = []
    root_src, root_dst = os.fsencode(src), os.fsencode(dst)
    first_name: dict[tuple[int, int], bytes] = {}
    modes: list[tuple[bytes, int]] = []
    stack = [b""]
    while stack:
        rel = stack.pop()
        try:
            names = sorted(os.listdir(os.path.join(root_src, rel) if rel else root_src))
        except OSError as exc:
            problems.append(f"{os.fsdecode(rel) or '.'}: cannot be listed ({exc.strerror})")
            continue
        for name in names:
            path = os.path.join(rel, name) if rel else name
            s, d = os.path.join(root_src, path), os.path.join(root_dst, path)
            try:
                st = os.lstat(s)
                mode = stat.S_IMODE(st.st_mode) & 0o777   # never a setuid, setgid or sticky bit in the copy
                if stat.S_ISDIR(st.st_mode):
                    os.mkdir(d, 0o700)
                    modes.append((d, mode))
                    stack.append(path)
                elif stat.S_ISLNK(st.st_mode):
                    os.symlink(os.readlink(s), d)
                elif stat.S_ISREG(st.st_mode):
                    key = (st.st_dev, st.st_ino)
                    if st.st_nlink > 1 and key in first_name:
                        os.link(first_name[key], d)
                        continue
                    _copy_data(s, d, st.st_size)
                    os.chmod(d, mode)
                    if st.st_nlink > 1:
                        first_name[key] = d
                elif stat.S_ISFIFO(st.st_mode):
                    os.mkfifo(d, mode)
                elif stat.S_ISSOCK(st.st_mode):
                    os.mknod(d, stat.S_IFSOCK | mode)
                else:
                    problems.append(f"{os.fsdecode(path)}: a device node, not copied")
            except OSError as exc:
                problems.append(f"{os.fsdecode(path)}: not copied ({exc.strerror})")
    for folder, mode in reversed(modes):
        with contextlib.suppress(OSError):
            os.chmod(folder, mode)
    return problems
