"""Reading a configuration TOML file the user names, with one-line errors (the file, and what is wrong)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


def read_toml(path: Path, error: type[Exception], what: str) -> dict[str, Any]:
    """The parsed file; `error` (with the path first in its message) when it is missing, unreadable or not TOML.
    `what` names the file in the not-found message ("models file", "price table")."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{path}: {what} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot be read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None
