"""The engine's error classes: setup problems and bad input (game errors are recorded, never raised)."""

from __future__ import annotations


class EngineError(Exception):
    """Base of the engine's own errors."""


class SetupError(EngineError):
    """The engine cannot run here; the message says what is needed and how to get it."""


class BadInputError(EngineError):
    """A game folder, battery or option the engine refuses; the message names the file or field."""
