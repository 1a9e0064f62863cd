"""L1's setup error: the language server cannot be run, or its configuration did not take."""

from __future__ import annotations

from engine import SetupError


class L1SetupError(SetupError):
    """L1 cannot analyse here; the message says what is needed and how to get it."""
