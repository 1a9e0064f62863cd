"""The analysed copy: the deliverable's Lua files with everything that could steer the linter taken out.

- Configuration files (`.emmyrc.json`, `.luarc.json`, `.emmyrc.lua`, at any depth) are never copied; only
  `*.lua` files are, and the grader writes its own `.emmyrc.json` at the root.
- Annotation directives that switch diagnostics off or change how a file is read are neutralised:
  `---@diagnostic disable...` (and `enable`), `---@meta` (a meta file gets no diagnostics at all) and
  `---@schema` (which would fetch a URL).  The tag's name is overwritten with one of the same length, so every
  line and column stays where it was.
"""

from __future__ import annotations

import re
from pathlib import Path

CONFIG_NAMES = frozenset({".emmyrc.json", ".luarc.json", ".emmyrc.lua"})
_DIRECTIVE = re.compile(r"(?<=@)([ \t]*)(diagnostic|meta|schema)(?![A-Za-z0-9_])")


def neutralise(text: str) -> str:
    """`@diagnostic` -> `@_iagnostic`, `@meta` -> `@_eta`, `@schema` -> `@_chema` (unknown tags, ignored)."""
    return _DIRECTIVE.sub(lambda m: m.group(1) + "_" + m.group(2)[1:], text)


def lua_sources(deliverable: Path) -> dict[str, str]:
    """Every Lua file of the deliverable (no symlinks, no configuration files): relative POSIX path -> text,
    decoded as the engine decodes it (UTF-8, invalid bytes replaced)."""
    root = deliverable.resolve()
    sources: dict[str, str] = {}
    for path in sorted(root.rglob("*.lua")):
        rel_parts = path.relative_to(root).parts
        if CONFIG_NAMES.intersection(rel_parts) or not path.is_file() or _through_symlink(root, rel_parts):
            continue
        sources["/".join(rel_parts)] = path.read_bytes().decode("utf-8", errors="replace")
    return sources


def _through_symlink(root: Path, parts: tuple[str, ...]) -> bool:
    current = root
    for part in parts:
        current = current / part
        if current.is_symlink():
            return True
    return False


def write_copy(sources: dict[str, str], dest: Path) -> dict[str, str]:
    """Write the neutralised sources under `dest`; return them (relative path -> analysed text)."""
    analysed = {rel: neutralise(text) for rel, text in sources.items()}
    for rel, text in analysed.items():
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    return analysed
