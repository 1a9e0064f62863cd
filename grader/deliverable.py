"""A deliverable, read as hostile input: bounded, never following a link, whatever the agent left behind.

`scan(folder, limits)` walks the folder without recursion and without following links, lists every entry (files,
folders, links with their text, FIFOs, sockets and device nodes as `special`) in one fixed order, and keeps the
bytes of regular files only while they fit the task's limits: a file over the per-file limit, files past the total,
and files it cannot read keep their size and a reason instead of their bytes.  It stops listing past a bound on
entries or depth, and says so.  Names that are not UTF-8 are kept byte for byte (as surrogate escapes).

`Tree.pack()` turns the listing into a deterministic tar (sorted entries, zeroed times and owners, normalised
modes, links as links, special files as FIFOs, the omitted files and the truncation marked in PAX records), hashed
and compressed as it is written: the SHA-256 of that tar is the deliverable's hash, and the compressed bytes are
what the ledger stores.  `Tree.from_archive(bytes)` reads such an archive back into the same listing, so a replay
judges the stored deliverable exactly as the original grade judged the folder; `unpack` writes the kept files of
an archive into a folder for L1 and L2.
"""

from __future__ import annotations

import hashlib
import io
import os
import posixpath
import stat
import tarfile
import zlib
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from evidence import Artifact
from evidence import digest as json_digest

from .tasks import Limits

FORMAT = "grader-deliverable/2"
MAX_DEPTH = 64                 # folders deeper than this are not listed (a named L0 check fails)
MAX_LINK_HOPS = 40
PAX_OMITTED = "GRADER.omitted"
PAX_SPECIAL = "GRADER.special"
PAX_HARDLINK = "GRADER.hardlinked"
PAX_SIZE = "GRADER.size"
PAX_TRUNCATED = "GRADER.truncated"
MAX_ARCHIVE_MEMBERS = 1_000_000


class DeliverableError(ValueError):
    """A stored archive that is not one `Tree.pack` made (the message says what is wrong with it)."""


def entry_bound(limits: Limits) -> int:
    """How many entries a scan lists before it stops: enough to see every limit broken, bounded in memory."""
    return 2 * limits.max_files + 1000


@dataclass(frozen=True)
class Entry:
    path: str                  # relative POSIX path; bytes that are not UTF-8 kept as surrogate escapes
    kind: str                  # "dir" | "file" | "link" | "special"
    size: int = 0              # files: their size as listed
    target: str = ""           # links: the link's text, never followed
    executable: bool = False   # files: the owner may execute it
    hardlinked: bool = False   # files: another name outside this listing shares its inode
    special: str = ""          # special files: fifo | socket | char | block
    omitted: str = ""          # files whose bytes are not kept, and why
    content: bytes | None = None

    @property
    def name_bytes(self) -> bytes:
        return os.fsencode(self.path)

    @property
    def utf8_name(self) -> bool:
        try:
            self.name_bytes.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True


@dataclass(frozen=True)
class Tree:
    """What a deliverable holds, as far as the limits let it be read."""

    is_folder: bool
    entries: tuple[Entry, ...] = ()
    truncated: str = ""        # why the listing stopped early ("" when it is complete)
    _index: dict[str, Entry] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {e.path: e for e in self.entries})

    def get(self, path: str) -> Entry | None:
        return self._index.get(path)

    @property
    def files(self) -> list[Entry]:
        return [e for e in self.entries if e.kind == "file"]

    def link_escapes(self, entry: Entry) -> str:
        """Why a link leaves the deliverable ("" when it stays inside): it is absolute, it climbs above the root
        (component by component, through the other links of the listing), or it loops."""
        if entry.target.startswith("/"):
            return "absolute"
        parts = posixpath.dirname(entry.path).split("/") if "/" in entry.path else []
        pending = entry.target.split("/")
        hops = 0
        while pending:
            part = pending.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                if not parts:
                    return "leaves the folder"
                parts.pop()
                continue
            here = self.get("/".join([*parts, part]))
            if here is not None and here.kind == "link":
                hops += 1
                if hops > MAX_LINK_HOPS:
                    return "loops"
                if here.target.startswith("/"):
                    return "absolute"
                pending = here.target.split("/") + pending
                continue
            parts.append(part)
        return ""

    # --- the archive ------------------------------------------------------------------------------------------

    def pack(self) -> Artifact:
        """The deterministic archive: its SHA-256 (the deliverable's hash), size and compressed bytes."""
        sink = _Sink()
        headers = {PAX_TRUNCATED: self.truncated} if self.truncated else {}
        with tarfile.open(fileobj=sink, mode="w|", format=tarfile.PAX_FORMAT, pax_headers=headers,
                          encoding="utf-8", errors="surrogateescape") as tar:
            for e in self.entries:
                info = tarfile.TarInfo(e.path)
                info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                body: io.BytesIO | None = None
                if e.kind == "dir":
                    info.type, info.mode = tarfile.DIRTYPE, 0o755
                elif e.kind == "link":
                    info.type, info.mode, info.linkname = tarfile.SYMTYPE, 0o777, e.target
                elif e.kind == "special":
                    info.type, info.mode = tarfile.FIFOTYPE, 0o644
                    info.pax_headers = {PAX_SPECIAL: e.special}
                else:
                    info.mode = 0o755 if e.executable else 0o644
                    pax = {PAX_HARDLINK: "1"} if e.hardlinked else {}
                    if e.content is None:
                        pax |= {PAX_OMITTED: e.omitted, PAX_SIZE: str(e.size)}
                    else:
                        info.size = len(e.content)
                        body = io.BytesIO(e.content)
                    info.pax_headers = pax
                tar.addfile(info, body)
        return sink.artifact()

    @classmethod
    def from_archive(cls, compressed: bytes, max_bytes: int) -> Tree:
        """The listing a `pack` wrote (bounded: at most `max_bytes` of tar)."""
        raw = _inflate(compressed, max_bytes)
        entries: list[Entry] = []
        try:
            with tarfile.open(fileobj=io.BytesIO(raw), mode="r:", encoding="utf-8",
                              errors="surrogateescape") as tar:
                truncated = str(tar.pax_headers.get(PAX_TRUNCATED, ""))
                for count, m in enumerate(tar):
                    if count >= MAX_ARCHIVE_MEMBERS:
                        raise DeliverableError("archive: too many members")
                    pax = m.pax_headers
                    if m.isdir():
                        entries.append(Entry(m.name, "dir"))
                    elif m.issym():
                        entries.append(Entry(m.name, "link", target=m.linkname))
                    elif m.isfifo():
                        entries.append(Entry(m.name, "special", special=str(pax.get(PAX_SPECIAL, "fifo"))))
                    elif m.isreg():
                        hardlinked = pax.get(PAX_HARDLINK) == "1"
                        executable = bool(m.mode & 0o100)
                        if PAX_OMITTED in pax:
                            entries.append(Entry(m.name, "file", int(pax.get(PAX_SIZE, "0")), executable=executable,
                                                 hardlinked=hardlinked, omitted=str(pax[PAX_OMITTED])))
                        else:
                            data = tar.extractfile(m)
                            content = data.read() if data is not None else b""
                            entries.append(Entry(m.name, "file", len(content), executable=executable,
                                                 hardlinked=hardlinked, content=content))
                    else:
                        raise DeliverableError(f"archive member {m.name!r}: unsupported type")
        except (tarfile.TarError, ValueError, OSError) as exc:
            raise DeliverableError(f"archive: not readable ({exc})") from None
        return cls(True, tuple(entries), truncated)

    def write(self, dest: Path) -> None:
        """Write the kept files, the folders and the links under `dest` (never outside it); special files become
        FIFOs, omitted files sparse files of their recorded size, hard-linked files get a second name beside
        `dest`, so that scanning `dest` lists what this listing says."""
        dest.mkdir(parents=True, exist_ok=True)
        root = dest.resolve()
        links = dest.parent / f".{dest.name}-links"
        for n, e in enumerate(self.entries):
            target = dest / e.path
            if ".." in e.path.split("/") or e.path.startswith("/") or not target.resolve().is_relative_to(root):
                raise DeliverableError(f"archive member {e.path!r}: outside the destination")
            if e.kind == "dir":
                target.mkdir(parents=True, exist_ok=True)
            elif e.kind == "link":
                target.symlink_to(e.target)
            elif e.kind == "special":
                os.mkfifo(target)
            else:
                with open(target, "wb") as fh:
                    if e.content is not None:
                        fh.write(e.content)
                    else:
                        fh.truncate(e.size)
                target.chmod(0o755 if e.executable else 0o644)
                if e.hardlinked:
                    links.mkdir(exist_ok=True)
                    os.link(target, links / str(n))


class _Sink(io.RawIOBase):
    """Where tarfile writes: hashed and compressed on the way, never held uncompressed."""

    def __init__(self) -> None:
        self.sha = hashlib.sha256()
        self.zip = zlib.compressobj(9)
        self.parts: list[bytes] = []
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:   # type: ignore[override]
        self.sha.update(data)
        self.parts.append(self.zip.compress(data))
        self.size += len(data)
        return len(data)

    def artifact(self) -> Artifact:
        self.parts.append(self.zip.flush())
        return Artifact(self.sha.hexdigest(), self.size, b"".join(self.parts))


def _inflate(compressed: bytes, max_bytes: int) -> bytes:
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(compressed, max_bytes + 1)
    except zlib.error as exc:
        raise DeliverableError(f"archive: not a zlib stream ({exc})") from None
    if len(raw) > max_bytes or inflater.unconsumed_tail:
        raise DeliverableError(f"archive: larger than {max_bytes} bytes")
    return raw


def max_archive_bytes(limits: Limits) -> int:
    """The largest tar a scan under `limits` can pack: every kept byte plus generous headers."""
    return limits.max_total_bytes + limits.max_file_bytes + entry_bound(limits) * 4096


# --- the scan --------------------------------------------------------------------------------------------------

_SPECIAL = ((stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "char"), (stat.S_ISBLK, "block"))


def _walk(root: Path, bound: int) -> Iterator[tuple[str, int, os.stat_result] | tuple[str, str]]:
    """(relative path, depth, lstat) for every entry, breadth first and sorted within each folder (so a deep or
    wide corner cannot hide the files at the top), without recursion and without following links; ("!", why)
    when part of the tree is left out: folders deeper than MAX_DEPTH are not entered, and the listing stops
    after `bound` entries."""
    queue: deque[tuple[str, int]] = deque([("", 0)])
    listed = 0
    while queue:
        rel, depth = queue.popleft()
        folder = os.path.join(os.fsencode(root), os.fsencode(rel)) if rel else os.fsencode(root)
        try:
            with os.scandir(folder) as it:
                names = sorted(entry.name for entry in it)
        except OSError as exc:
            yield ("!", f"cannot list {os.fsdecode(rel) or '.'}: {exc.strerror}")
            continue
        for name in names:
            child = f"{rel}/{os.fsdecode(name)}" if rel else os.fsdecode(name)
            listed += 1
            if listed > bound:
                yield ("!", f"more than {bound} entries")
                return
            try:
                info = os.lstat(os.path.join(folder, name))
            except OSError as exc:
                yield ("!", f"cannot read {child}: {exc.strerror}")
                continue
            yield (child, depth + 1, info)
            if stat.S_ISDIR(info.st_mode):
                if depth + 1 >= MAX_DEPTH:
                    yield ("!", f"folders nested deeper than {MAX_DEPTH} levels")
                else:
                    queue.append((child, depth + 1))


def _read(path: bytes, size: int, limit: int) -> tuple[bytes | None, str]:
    """At most `limit` bytes of a regular file, opened without following links; (None, why) when they cannot be
    kept whole."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        return None, f"unreadable: {exc.strerror}"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, "unreadable: not a regular file when opened"
        chunks, got = [], 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    except OSError as exc:
        return None, f"unreadable: {exc.strerror}"
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit or len(data) != size:
        return None, "changed while read" if len(data) <= limit else "over the file limit"
    return data, ""


def scan(root: Path, limits: Limits) -> Tree:
    """The deliverable at `root` as far as `limits` let it be read (see the module's docstring)."""
    root = Path(root)
    try:
        info = os.lstat(root)
    except OSError:
        return Tree(False)
    if not stat.S_ISDIR(info.st_mode):
        return Tree(False)
    entries: list[Entry] = []
    truncated = ""
    kept = 0
    for item in _walk(root, entry_bound(limits)):
        if item[0] == "!":
            truncated = truncated or str(item[1])
            continue
        rel, _depth, st = item  # type: ignore[misc]
        mode = st.st_mode
        if stat.S_ISDIR(mode):
            entries.append(Entry(rel, "dir"))
        elif stat.S_ISLNK(mode):
            try:
                target = os.fsdecode(os.readlink(os.path.join(os.fsencode(root), os.fsencode(rel))))
            except OSError:
                target = ""
            entries.append(Entry(rel, "link", target=target))
        elif stat.S_ISREG(mode):
            base = Entry(rel, "file", st.st_size, executable=bool(mode & stat.S_IXUSR), hardlinked=st.st_nlink > 1)
            if st.st_size > limits.max_file_bytes:
                entries.append(replace(base, omitted="over the file limit"))
            elif kept + st.st_size > limits.max_total_bytes:
                entries.append(replace(base, omitted="over the total limit"))
            else:
                content, why = _read(os.path.join(os.fsencode(root), os.fsencode(rel)), st.st_size,
                                     limits.max_file_bytes)
                if content is None:
                    entries.append(replace(base, omitted=why))
                else:
                    kept += len(content)
                    entries.append(replace(base, size=len(content), content=content))
        else:
            kind = next((name for test, name in _SPECIAL if test(mode)), "other")
            entries.append(Entry(rel, "special", special=kind))
    entries.sort(key=lambda e: e.name_bytes)
    return Tree(True, tuple(entries), truncated)


def listing_digest(tree: Tree) -> str:
    """A digest of the listing without its bytes (for tests and logs)."""
    return json_digest({"format": FORMAT, "truncated": tree.truncated,
                        "entries": [[e.path, e.kind, e.size, e.target, e.special, e.omitted] for e in tree.entries]})
