"""The append-only SQL ledger: facts are only ever inserted (the database refuses UPDATE and DELETE), every
fact enters a hash chain, deliverables are stored once by content hash, and corrections are new rows."""

from ._archive import ArchiveError, pack_directory, unpack_archive
from ._editions import (
    Pins,
    SuiteFacts,
    check_edition_pins,
    check_profile,
    create_edition,
    find_edition,
    latest_edition,
    list_editions,
)
from ._models import FACT_TABLES, Base
from ._reads import (
    AttemptView,
    CorrectionView,
    EditionView,
    ResultView,
    TaskView,
    attempts,
    dataset_tasks,
    get_edition,
    result,
    tasks_of,
)
from ._records import (
    ModelFacts,
    TaskFacts,
    append_task_facts,
    correct_result,
    load_artifact,
    record_attempt,
    record_infra_attempt,
)
from ._store import Ledger, LedgerError, default_database_url, result_hash_of, upgrade

__all__ = [
    "FACT_TABLES",
    "ArchiveError",
    "AttemptView",
    "Base",
    "CorrectionView",
    "EditionView",
    "Ledger",
    "LedgerError",
    "ModelFacts",
    "Pins",
    "ResultView",
    "SuiteFacts",
    "TaskFacts",
    "TaskView",
    "append_task_facts",
    "attempts",
    "check_edition_pins",
    "check_profile",
    "correct_result",
    "create_edition",
    "dataset_tasks",
    "default_database_url",
    "find_edition",
    "get_edition",
    "latest_edition",
    "list_editions",
    "load_artifact",
    "pack_directory",
    "record_attempt",
    "record_infra_attempt",
    "result",
    "result_hash_of",
    "tasks_of",
    "unpack_archive",
    "upgrade",
]
