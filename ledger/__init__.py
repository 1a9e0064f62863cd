"""The append-only SQL ledger: facts are only ever inserted (the database refuses UPDATE and DELETE), every
fact enters a hash chain, deliverables are stored once by content hash, and corrections are new rows."""

from ._archive import ArchiveError, pack_directory, unpack_archive
from ._editions import SuiteFacts, check_edition_pins, create_edition, list_editions
from ._models import FACT_TABLES, Base, Outcome
from ._records import (
    ModelFacts,
    TaskFacts,
    check_profile_pin,
    correct_result,
    load_artifact,
    record_attempt,
    record_infra_attempt,
    result_history,
)
from ._store import Ledger, LedgerError, default_database_url, result_hash_of, upgrade

__all__ = [
    "FACT_TABLES",
    "ArchiveError",
    "Base",
    "Ledger",
    "LedgerError",
    "ModelFacts",
    "Outcome",
    "SuiteFacts",
    "TaskFacts",
    "check_edition_pins",
    "check_profile_pin",
    "correct_result",
    "create_edition",
    "default_database_url",
    "list_editions",
    "load_artifact",
    "pack_directory",
    "record_attempt",
    "record_infra_attempt",
    "result_hash_of",
    "result_history",
    "unpack_archive",
    "upgrade",
]
