"""The game's files: the deliverable's folder, listed once and read a file at a time, and `require`'s resolution.

A run lists the folder when it starts (names and sizes only, in sorted order) and reads a file's bytes when the
game opens or loads it, so a project carrying gigabytes of art and audio costs only what its game reads.  What a
run reads in total is bounded by the `file_read_budget` setting; what it holds at once (open files, loaded XML and
JSON) by `files_held_limit`, kept by the Lua side (engine/lua/runtime/59_files.lua).

Nothing outside the deliverable, the user's library folders and the engine's own Lua library is ever read: a name
that would leave its root (absolute, `..`, a symlink pointing out) is not in the listing, and a read checks again,
on the file it actually opens, that it is a regular file inside the root (so a FIFO or a device is never opened
for reading, and a link changed after the listing is refused).
"""

from __future__ import annotations

import bisect
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ._errors import BadInputError

ENGINE_LUA_LIB = Path(__file__).resolve().parent / "lua" / "lib"
MAX_LISTED_FILES = 1_000_000   # names a game folder's listing may hold (the listing only: nothing is read)
MAX_MODULE_NAME = 1024         # characters of a name given to require
_READ_CHUNK = 1 << 20


class FileBudgetError(Exception):
    """A read the run's `file_read_budget` does not allow; the message names the file."""


def _inside(root: Path, candidate: Path) -> bool:
    try:
        candidate.resolve().relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):   # outside, or a link loop the resolver gave up on
        return False
    return True


def _listable(rel: str) -> bool:
    """A name Lua can spell: the listing is handed to Lua as UTF-8 text (an undecodable name is never a game's)."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def list_folder(root: Path) -> dict[str, int]:
    """Every regular file under `root` (links inside it followed), keyed by its '/'-separated path, with its size.

    Sorted by name, so the listing depends only on the names, never on the order the file system returns them or on
    timestamps.  Links that point out of the folder, FIFOs, devices and sockets are not listed; nor are linked
    folders (os.walk's followlinks=False).
    """
    if not root.is_dir():
        raise BadInputError(f"{root}: not a directory")
    sizes: dict[str, int] = {}
    pending = [(root, "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:   # a folder that cannot be read lists nothing
            continue
        subfolders = []
        for entry in entries:
            rel = prefix + entry.name
            if not _listable(rel):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    subfolders.append((Path(entry.path), rel + "/"))
                    continue
                if entry.is_symlink() and not _inside(root, Path(entry.path)):
                    continue  # L0 reports these; the engine simply never reads them
                info = entry.stat()   # follows a link inside the folder to its file
            except OSError:   # a dangling link, a name the file system refuses
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            if len(sizes) >= MAX_LISTED_FILES:
                raise BadInputError(f"{root}: more than {MAX_LISTED_FILES} files")
            sizes[rel] = info.st_size
        pending.extend(sorted(subfolders, reverse=True))
    return dict(sorted(sizes.items()))


@dataclass
class GameFolder:
    """The deliverable's folder during one run: its listing, and reads charged to the run's read budget."""

    root: Path
    sizes: dict[str, int]
    read_budget: int
    bytes_read: int = 0
    names: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.names = list(self.sizes)   # sorted: list_folder returns the names in order

    @classmethod
    def open(cls, root: Path, read_budget: int) -> GameFolder:
        return cls(Path(root), list_folder(Path(root)), read_budget)

    def size(self, rel: str) -> int | None:
        return self.sizes.get(rel)

    def listing(self, prefix: str) -> list[str]:
        """The names that start with `prefix` (a folder's path ending in '/', or '' for all), in order."""
        start = bisect.bisect_left(self.names, prefix)
        end = start
        while end < len(self.names) and self.names[end].startswith(prefix):
            end += 1
        return self.names[start:end]

    def has_folder(self, prefix: str) -> bool:
        start = bisect.bisect_left(self.names, prefix)
        return start < len(self.names) and self.names[start].startswith(prefix)

    def read(self, rel: str) -> bytes | None:
        """The file's bytes, charged to the read budget; None if it is not a listed regular file inside the root.

        Raises FileBudgetError, naming the file, when reading it would take the run past its budget.
        """
        if rel not in self.sizes:
            return None
        path = self.root / rel
        if not _inside(self.root, path):
            return None
        try:
            fd = os.open(path.resolve(), os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return None
            if self.bytes_read + info.st_size > self.read_budget:
                raise FileBudgetError(
                    f"{rel}: reading its {info.st_size} bytes would take the run past its file read budget of "
                    f"{self.read_budget} bytes ({self.bytes_read} read before; engine setting file_read_budget)")
            chunks: list[bytes] = []
            left = info.st_size
            while left > 0:
                chunk = os.read(fd, min(left, _READ_CHUNK))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
        finally:
            os.close(fd)
        data = b"".join(chunks)
        self.bytes_read += len(data)
        return data


def _module_path(name: str) -> str | None:
    """'Game.Player', 'ui/theme', 'scripts/app/router' -> a relative path without extension, or None if unsafe."""
    if not name or len(name) > MAX_MODULE_NAME or "\\" in name or "\0" in name or name.startswith("/") or ":" in name:
        return None
    if name.endswith(".lua"):
        name = name[:-4]
    path = name.replace(".", "/")
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    return path


@dataclass
class ModuleResolver:
    """Finds the source of a required module; chunk names never contain machine paths."""

    game: GameFolder
    lib_dirs: list[Path] = field(default_factory=list)
    engine_lib: Path = ENGINE_LUA_LIB

    def find(self, name: str) -> tuple[str, str, str] | tuple[None, str] | tuple[bool, str]:
        """(chunkname, source, cache key), (None, the list of places tried), or (False, why it cannot be read)."""
        path = _module_path(name)
        if path is None:
            shown = name if len(name) <= 200 else name[:200] + "..."
            return None, f"\n\tmodule name '{shown}' is not allowed"
        tried: list[str] = []
        for prefix in ("scripts/", ""):
            for suffix in (".lua", "/init.lua"):
                rel = prefix + path + suffix
                tried.append(rel)
                try:
                    data = self.game.read(rel)
                except FileBudgetError as exc:
                    return False, f"grader: {exc}"
                if data is not None:
                    return rel, data.decode("utf-8", errors="replace"), rel
        for lib in self.lib_dirs:
            found = self._find_in_dir(lib, lib.name, path, tried)
            if found:
                return found
        found = self._find_in_dir(self.engine_lib, "engine", path, tried)
        if found:
            return found
        return None, "".join(f"\n\tno file '{t}'" for t in tried)

    def _find_in_dir(self, root: Path, label: str, path: str, tried: list[str]) -> tuple[str, str, str] | None:
        candidates = [path]
        first, _, rest = path.partition("/")
        if rest and first == root.name:
            candidates.append(rest)  # --lib pointing at the library folder itself
        for cand in candidates:
            for suffix in (".lua", "/init.lua"):
                rel = cand + suffix
                full = root / rel
                tried.append(f"{label}:{rel}")
                try:
                    if full.is_file() and _inside(root, full):
                        chunk = f"{label}/{rel}"
                        return chunk, full.read_text(encoding="utf-8", errors="replace"), chunk
                except OSError:   # a name the file system refuses (too long, ...): not a module of this folder
                    continue
        return None
