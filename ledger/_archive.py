"""The ledger stores deliverables as `evidence.Artifact`s (compressed archives keyed by their hash)."""

from evidence import ArchiveError, Artifact

__all__ = ["ArchiveError", "Artifact"]
