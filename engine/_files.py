"""The game's files: the deliverable read into memory, and module resolution for `require`.

Nothing outside the deliverable, the user's library folders and the engine's own Lua library is ever read;
a path that would leave its root (absolute, `..`, a symlink pointing out) is refused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ._errors import BadInputError

ENGINE_LUA_LIB = Path(__file__).resolve().parent / "lua" / "lib"
MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_TOTAL_BYTES = 256 * 1024 * 1024
MAX_FILES = 20_000
MAX_MODULE_NAME = 1024   # characters of a name given to require


def _inside(root: Path, candidate: Path) -> bool:
    try:
        candidate.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def read_tree(root: Path) -> dict[str, bytes]:
    """Every regular file under `root`, keyed by its '/'-separated relative path, in sorted order."""
    if not root.is_dir():
        raise BadInputError(f"{root}: not a directory")
    files: dict[str, bytes] = {}
    total = 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink() and not _inside(root, path):
                continue  # L0 reports these; the engine simply never reads them
            if not path.is_file():
                continue
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                raise BadInputError(f"{rel}: {size} bytes is over the {MAX_FILE_BYTES}-byte file limit")
            total += size
            if total > MAX_TOTAL_BYTES or len(files) >= MAX_FILES:
                raise BadInputError(f"{root}: more than {MAX_TOTAL_BYTES} bytes or {MAX_FILES} files")
            files[rel] = path.read_bytes()
    return dict(sorted(files.items()))


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

    game_files: dict[str, bytes]
    lib_dirs: list[Path] = field(default_factory=list)
    engine_lib: Path = ENGINE_LUA_LIB

    def find(self, name: str) -> tuple[str, str, str] | tuple[None, str]:
        """(chunkname, source, cache key) or (None, the list of places tried)."""
        path = _module_path(name)
        if path is None:
            shown = name if len(name) <= 200 else name[:200] + "..."
            return None, f"\n\tmodule name '{shown}' is not allowed"
        tried: list[str] = []
        for prefix in ("scripts/", ""):
            for suffix in (".lua", "/init.lua"):
                rel = prefix + path + suffix
                tried.append(rel)
                data = self.game_files.get(rel)
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
