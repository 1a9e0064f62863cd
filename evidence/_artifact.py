"""A deliverable's archive as stored: compressed bytes keyed by the SHA-256 of what they inflate to.

The grader makes the archive (a deterministic tar of its bounded reading of the deliverable,
grader/deliverable.py); its SHA-256 is the verdict's `deliverable_hash`; the ledger keeps it once per hash and
checks, before storing, that the bytes inflate to exactly the size and hash claimed.
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass

MAX_ARTIFACT_BYTES = 1 << 31   # what one stored archive may inflate to


class ArchiveError(ValueError):
    """An artifact whose bytes do not match its claimed hash or size."""


@dataclass(frozen=True)
class Artifact:
    hash: str          # SHA-256 of the uncompressed archive
    size: int          # bytes of the uncompressed archive
    compressed: bytes  # zlib

    def verify(self) -> None:
        if not 0 <= self.size <= MAX_ARTIFACT_BYTES:
            raise ArchiveError(f"artifact {self.hash[:12]}: size {self.size} out of range")
        inflater = zlib.decompressobj()
        digest = hashlib.sha256()
        total = 0
        data = self.compressed
        try:
            while data:
                chunk = inflater.decompress(data, 1 << 20)
                data = inflater.unconsumed_tail
                total += len(chunk)
                if total > self.size:
                    break
                digest.update(chunk)
            tail = inflater.flush()
            total += len(tail)
            digest.update(tail)
        except zlib.error as exc:
            raise ArchiveError(f"artifact {self.hash[:12]}: not a zlib stream ({exc})") from None
        if total != self.size or digest.hexdigest() != self.hash:
            raise ArchiveError(f"artifact {self.hash[:12]}: its bytes do not match its hash and size")
