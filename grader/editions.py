"""Editions from the grader's side: the pins this grader would record under, and creating an edition of a suite.

An edition pins the engine's build, the grader's build, the installation's settings (each a content digest), the
suite's dataset task by task, optionally the agents' sandbox profile, and the root seed of its statistics.
"""

from __future__ import annotations

import hashlib

from engine import API_VERSION, engine_build
from ledger import (
    Ledger,
    LedgerError,
    Pins,
    SuiteFacts,
    check_edition_pins,
    check_profile,
    create_edition,
    find_edition,
)

from ._settings import installation_settings_hash
from ._version import grader_build
from .recording import task_facts
from .tasks import Suite, suite_dataset_hash


def current_pins(suite: Suite, profile_hash: str | None = None) -> Pins:
    """What this grader, on this suite, with this sandbox profile, would record."""
    return Pins(engine_build=engine_build(), grader_build=grader_build(),
                settings_hash=installation_settings_hash(), dataset_hash=suite_dataset_hash(suite, API_VERSION),
                profile_hash=profile_hash)


def derived_root_seed(name: str) -> int:
    """A root seed fixed by the edition's name, so two maintainers creating the same edition agree."""
    return int.from_bytes(hashlib.sha256(f"grader-edition/{name}".encode()).digest()[:4], "big") & 0x7FFFFFFF


def create(ledger: Ledger, name: str, suite: Suite, *, root_seed: int | None = None,
           profile_hash: str | None = None) -> tuple[int, Pins, int]:
    """Append an edition of `suite` pinned to this grader; returns (id, pins, root seed)."""
    pins = current_pins(suite, profile_hash)
    facts = SuiteFacts(suite.name, suite.version, suite.visibility.value, pins.dataset_hash)
    seed = derived_root_seed(name) if root_seed is None else root_seed
    edition_id = create_edition(ledger, name, facts, pins, seed, tasks=[task_facts(t) for t in suite.tasks])
    return edition_id, pins, seed


def check(ledger: Ledger, edition: str | int, suite: Suite | None, profile_hashes: list[str | None]) -> int:
    """The edition's id, after checking that recording under it with this grader, suite and these profiles would
    be accepted (before any work).  The profile is checked first: it is known without the suite."""
    edition_id = find_edition(ledger, edition)
    for profile in profile_hashes or [None]:
        check_profile(ledger, edition_id, profile)
    if suite is None:
        raise LedgerError("--edition: the task is not part of a known suite, so it cannot match the edition's "
                          "dataset")
    for profile in profile_hashes or [None]:
        check_edition_pins(ledger, edition_id, current_pins(suite, profile))
    return edition_id
