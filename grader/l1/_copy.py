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

from grader.deliverable import Tree, scan
from grader.tasks import Limits

CONFIG_NAMES = frozenset({".emmyrc.json", ".luarc.json", ".emmyrc.lua"})
_DIRECTIVE = re.compile(r"(?<=@)([ \t]*)(diagnostic|meta|schema)(?![A-Za-z0-9_])")


def neutralise(text: str) -> str:
    """`@diagnostic` -> `@_iagnostic`, `@meta` -> `@_eta`, `@schema` -> `@_chema` (unknown tags, ignored)."""
    return _DIRECTIVE.sub(lambda m: m.group(1) + "_" + m.group(2)[1:], text)


def lua_sources(deliverable: Path | Tree) -> dict[str, str]:
    """Every Lua file of the deliverable that was read whole (regular files only, never through a link, with a
    UTF-8 name, no configuration files): relative POSIX path -> text, decoded as the engine decodes it (UTF-8,
    invalid bytes replaced).  A folder is read with the grader's default limits."""
    tree = deliverable if isinstance(deliverable, Tree) else scan(Path(deliverable), Limits())
    return {e.path: e.content.decode("utf-8", errors="replace") for e in tree.files
            if e.path.endswith(".lua") and e.content is not None and e.utf8_name
            and not CONFIG_NAMES.intersection(e.path.split("/"))}


def write_copy(sources: dict[str, str], dest: Path) -> dict[str, str]:
    """Write the neutralised sources under `dest`; return them (relative path -> analysed text)."""
    analysed = {rel: neutralise(text) for rel, text in sources.items()}
    for rel, text in analysed.items():
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    return analysed
