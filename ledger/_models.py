"""The ledger's tables.  Fact tables are append-only and audited; mutable operational state lives apart."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Enum,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from evidence import AttemptOutcome

SCHEMA_VERSION = 5
# Columns added after a table's first audited rows: left out of the row hash while NULL, so that rows audited
# before the column existed verify unchanged (ledger/_store.py row_dict).
ADDED_LATER = {"audit_omit_null": True}


class Base(DeclarativeBase):
    pass


class Edition(Base):
    __tablename__ = "editions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    engine_version: Mapped[str] = mapped_column(String(64))
    dataset_version: Mapped[str] = mapped_column(String(64))
    dataset_hash: Mapped[str] = mapped_column(String(64))
    profile_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    root_seed: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    # schema 4 (migration 0004): `engine_version` holds the engine's build digest; these pin the grader's build and
    # the installation's settings (grader/_settings.py installation_settings_hash)
    grader_build: Mapped[str | None] = mapped_column(String(64), nullable=True, info=ADDED_LATER)
    settings_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, info=ADDED_LATER)


class SuiteRow(Base):
    __tablename__ = "suites"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64))
    version: Mapped[str] = mapped_column(String(64))
    visibility: Mapped[str] = mapped_column(String(16))
    dataset_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class TaskRow(Base):
    __tablename__ = "tasks"
    task_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    task_id: Mapped[str] = mapped_column(String(160))
    category: Mapped[str] = mapped_column(String(64))
    difficulty: Mapped[str] = mapped_column(String(16))
    capabilities: Mapped[list[str]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class BatteryRow(Base):
    __tablename__ = "batteries"
    battery_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    task_id: Mapped[str] = mapped_column(String(160))
    api_version: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    # schema 3 (migration 0003): the battery's requirement manifest, [{id, layer, capabilities, description}]
    requirements: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON(none_as_null=True), nullable=True,
                                                                        info=ADDED_LATER)


class DatasetTaskRow(Base):
    """One task of a dataset (schema 3): an edition's board has exactly its dataset's tasks."""

    __tablename__ = "dataset_tasks"
    __table_args__ = (UniqueConstraint("dataset_hash", "task_hash"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    dataset_hash: Mapped[str] = mapped_column(ForeignKey("suites.dataset_hash"))
    task_hash: Mapped[str] = mapped_column(ForeignKey("tasks.task_hash"))
    battery_hash: Mapped[str] = mapped_column(ForeignKey("batteries.battery_hash"))
    task_id: Mapped[str] = mapped_column(String(160))
    created_at: Mapped[datetime] = mapped_column(DateTime)


class ModelRow(Base):
    __tablename__ = "models"
    __table_args__ = (UniqueConstraint("provider", "name", "version", "reasoning_mode"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    provider: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(128))
    version: Mapped[str] = mapped_column(String(128))
    reasoning_mode: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime)


class ArtifactRow(Base):
    __tablename__ = "artifacts"
    hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(Integer)
    compressed: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class AttemptRow(Base):
    __tablename__ = "attempts"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    edition_id: Mapped[int | None] = mapped_column(ForeignKey("editions.id"), nullable=True)
    model_id: Mapped[int | None] = mapped_column(ForeignKey("models.id"), nullable=True)
    task_hash: Mapped[str] = mapped_column(ForeignKey("tasks.task_hash"))
    battery_hash: Mapped[str] = mapped_column(ForeignKey("batteries.battery_hash"))
    repetition: Mapped[int] = mapped_column(Integer)
    driver: Mapped[str] = mapped_column(String(256))
    outcome: Mapped[AttemptOutcome] = mapped_column(Enum(AttemptOutcome, name="attempt_outcome",
                                                  values_callable=lambda e: [m.value for m in e]))
    timings: Mapped[dict[str, float]] = mapped_column(JSON)
    tokens_in: Mapped[int | None] = mapped_column(Integer, nullable=True)
    tokens_out: Mapped[int | None] = mapped_column(Integer, nullable=True)
    cost_usd: Mapped[float | None] = mapped_column(Float, nullable=True)
    artifact_hash: Mapped[str | None] = mapped_column(ForeignKey("artifacts.hash"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    # schema 2 (migration 0002): the agent's tool calls as its driver reported them (NULL when not reported), and
    # the SHA-256 of the sandbox profile the agent ran under (NULL for --sandbox none)
    tool_calls: Mapped[int | None] = mapped_column(Integer, nullable=True, info=ADDED_LATER)
    profile_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, info=ADDED_LATER)


class ResultRow(Base):
    __tablename__ = "results"
    result_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    attempt_id: Mapped[str] = mapped_column(ForeignKey("attempts.id"))
    verdict: Mapped[str] = mapped_column(Text)
    evidence_digest: Mapped[str] = mapped_column(String(64))
    passed: Mapped[bool] = mapped_column(Boolean)
    first_failed_level: Mapped[str | None] = mapped_column(String(8), nullable=True)
    engine_version: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime)


class CorrectionRow(Base):
    __tablename__ = "corrections"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    result_hash: Mapped[str] = mapped_column(ForeignKey("results.result_hash"))
    passed: Mapped[bool] = mapped_column(Boolean)
    reason: Mapped[str] = mapped_column(Text)
    author: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    # schema 3 (migration 0003): requirement outcomes the correction names, {requirement id: passed}
    requirements: Mapped[dict[str, bool] | None] = mapped_column(JSON(none_as_null=True), nullable=True,
                                                                  info=ADDED_LATER)


class AuditRow(Base):
    """A hash chain over every appended fact row: chain_hash = H(prev_hash, table, row key, row_hash)."""

    __tablename__ = "audit"
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    table_name: Mapped[str] = mapped_column(String(32))
    row_key: Mapped[str] = mapped_column(String(64))
    row_hash: Mapped[str] = mapped_column(String(64))
    prev_hash: Mapped[str] = mapped_column(String(64))
    chain_hash: Mapped[str] = mapped_column(String(64))


class EditionPlanRow(Base):
    """An edition's plan (schema 5): its repetitions, where its suites came from and the models it attempts, as
    the maintainer's models.toml said (provider model id, version, reasoning, list prices, driver, concurrency).
    One per edition, appended with the edition."""

    __tablename__ = "edition_plans"
    edition_id: Mapped[int] = mapped_column(ForeignKey("editions.id"), primary_key=True, autoincrement=False)
    repetitions: Mapped[int] = mapped_column(Integer)
    suites: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    models: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class PlanItemRow(Base):
    """One planned attempt (schema 5): a model (its board label), a task and a repetition of an edition."""

    __tablename__ = "plan_items"
    __table_args__ = (UniqueConstraint("edition_id", "model", "task_hash", "repetition"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    edition_id: Mapped[int] = mapped_column(ForeignKey("editions.id"))
    model: Mapped[str] = mapped_column(String(256))
    driver: Mapped[str] = mapped_column(String(256))
    task_hash: Mapped[str] = mapped_column(ForeignKey("tasks.task_hash"))
    battery_hash: Mapped[str] = mapped_column(ForeignKey("batteries.battery_hash"))
    repetition: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class PlanClaimRow(Base):
    """The counted attempt that fulfils a planned one (schema 5).  Its primary key is the plan item: the database
    itself holds a planned attempt to one counted outcome, whoever records it."""

    __tablename__ = "plan_claims"
    plan_item_id: Mapped[int] = mapped_column(ForeignKey("plan_items.id"), primary_key=True, autoincrement=False)
    attempt_id: Mapped[str] = mapped_column(ForeignKey("attempts.id"), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class PublicationRow(Base):
    """An edition's publication (schema 5): from then on it is frozen, and nothing more is recorded under it."""

    __tablename__ = "edition_publications"
    edition_id: Mapped[int] = mapped_column(ForeignKey("editions.id"), primary_key=True, autoincrement=False)
    snapshot_digest: Mapped[str] = mapped_column(String(64))
    published_at: Mapped[datetime] = mapped_column(DateTime)


class WorkItem(Base):
    """Mutable operational state (the work queue and its leases): outside the audit chain.  Since schema 5 an
    edition's run keeps one row per planned attempt here (`queue` "edition:<id>", `plan_item_id`, `model` for
    its concurrency); the plan and its claims in the audited tables stay the truth, this only shares the work."""

    __tablename__ = "work_queue"
    __table_args__ = (UniqueConstraint("queue", "plan_item_id", name="uq_work_queue_queue_plan_item"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(16))
    lease_owner: Mapped[str | None] = mapped_column(String(128), nullable=True)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    queue: Mapped[str | None] = mapped_column(String(64), nullable=True)
    plan_item_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    model: Mapped[str | None] = mapped_column(String(256), nullable=True)


FACT_TABLES = ("editions", "suites", "tasks", "batteries", "dataset_tasks", "models", "artifacts", "attempts",
               "results", "corrections", "edition_plans", "plan_items", "plan_claims", "edition_publications",
               "audit")
AUDITED_TABLES = FACT_TABLES[:-1]
