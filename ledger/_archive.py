"""Deliverables as deterministic archives: sorted entries, zeroed times and owners, normalised modes.

The archive's key is the SHA-256 of the uncompressed tar bytes; it is stored zlib-compressed.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tarfile
import zlib
from pathlib import Path

MAX_ARCHIVE_BYTES = 64 * 1024 * 1024


class ArchiveError(ValueError):
    """A deliverable that cannot be archived (too large, links out, special files)."""


def pack_directory(root: Path, max_bytes: int = MAX_ARCHIVE_BYTES) -> tuple[str, bytes, bytes]:
    """(sha256 of the tar, tar bytes, zlib-compressed tar bytes) for every file and folder under root."""
    root = Path(root)
    if not root.is_dir():
        raise ArchiveError(f"{root}: not a folder")
    entries: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            entries.append((path.relative_to(root).as_posix(), path))
    buffer = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel, path in sorted(entries):
            info = path.lstat()
            entry = tarfile.TarInfo(rel)
            entry.mtime = 0
            entry.uid = entry.gid = 0
            entry.uname = entry.gname = ""
            if stat.S_ISLNK(info.st_mode):
                # kept as a link, never followed: replaying a deliverable that L0 refused must refuse it again
                entry.type = tarfile.SYMTYPE
                entry.linkname = os.readlink(path)
                entry.mode = 0o777
                tar.addfile(entry)
            elif stat.S_ISDIR(info.st_mode):
                entry.type = tarfile.DIRTYPE
                entry.mode = 0o755
                tar.addfile(entry)
            elif stat.S_ISREG(info.st_mode):
                data = path.read_bytes()
                total += len(data)
                if total > max_bytes:
                    raise ArchiveError(f"{root}: deliverable is over the {max_bytes}-byte archive limit")
                entry.size = len(data)
                entry.mode = 0o755 if info.st_mode & stat.S_IXUSR else 0o644
                tar.addfile(entry, io.BytesIO(data))
            else:
                raise ArchiveError(f"{rel}: not a regular file or folder")
    raw = buffer.getvalue()
    return hashlib.sha256(raw).hexdigest(), raw, zlib.compress(raw, 9)


def unpack_archive(compressed: bytes, dest: Path) -> None:
    """Extract an archive made by pack_directory into dest.  No member may be written outside dest; links
    are recreated as they were (pointing anywhere) so that L0 judges them again, and are never followed."""
    raw = zlib.decompress(compressed)
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r") as tar:
        members = tar.getmembers()
        for member in members:
            if member.name.startswith("/") or ".." in member.name.split("/"):
                raise ArchiveError(f"{member.name}: archive member outside the destination")
            if not (member.isreg() or member.isdir() or member.issym()):
                raise ArchiveError(f"{member.name}: unsupported archive member")
        try:
            tar.extractall(dest, members=members, filter="tar")
        except tarfile.FilterError as exc:
            raise ArchiveError(f"archive member refused: {exc}") from None
