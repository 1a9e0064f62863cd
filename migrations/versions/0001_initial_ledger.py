"""initial ledger: fact tables, the audit chain, the work queue, and append-only triggers

Revision ID: 0001
Revises: (none)
Create Date: 2026-12-01 01:03:56.842787
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations import append_only

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


FACT_TABLES = ("editions", "suites", "tasks", "batteries", "models", "artifacts", "attempts", "results",
               "corrections", "audit")


def _append_only() -> None:
    """The database itself refuses UPDATE and DELETE on every fact table."""
    append_only.create_function()
    append_only.protect(FACT_TABLES)


def upgrade() -> None:
    op.create_table('artifacts',
    sa.Column('hash', sa.String(length=64), nullable=False),
    sa.Column('size', sa.Integer(), nullable=False),
    sa.Column('compressed', sa.LargeBinary(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('hash')
    )
    op.create_table('audit',
    sa.Column('seq', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('table_name', sa.String(length=32), nullable=False),
    sa.Column('row_key', sa.String(length=64), nullable=False),
    sa.Column('row_hash', sa.String(length=64), nullable=False),
    sa.Column('prev_hash', sa.String(length=64), nullable=False),
    sa.Column('chain_hash', sa.String(length=64), nullable=False),
    sa.PrimaryKeyConstraint('seq')
    )
    op.create_table('batteries',
    sa.Column('battery_hash', sa.String(length=64), nullable=False),
    sa.Column('task_id', sa.String(length=160), nullable=False),
    sa.Column('api_version', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('battery_hash')
    )
    op.create_table('editions',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('name', sa.String(length=128), nullable=False),
    sa.Column('engine_version', sa.String(length=64), nullable=False),
    sa.Column('dataset_version', sa.String(length=64), nullable=False),
    sa.Column('dataset_hash', sa.String(length=64), nullable=False),
    sa.Column('profile_hash', sa.String(length=64), nullable=True),
    sa.Column('root_seed', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('models',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('provider', sa.String(length=64), nullable=False),
    sa.Column('name', sa.String(length=128), nullable=False),
    sa.Column('version', sa.String(length=128), nullable=False),
    sa.Column('reasoning_mode', sa.String(length=32), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('provider', 'name', 'version', 'reasoning_mode')
    )
    op.create_table('suites',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('name', sa.String(length=64), nullable=False),
    sa.Column('version', sa.String(length=64), nullable=False),
    sa.Column('visibility', sa.String(length=16), nullable=False),
    sa.Column('dataset_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('dataset_hash')
    )
    op.create_table('tasks',
    sa.Column('task_hash', sa.String(length=64), nullable=False),
    sa.Column('task_id', sa.String(length=160), nullable=False),
    sa.Column('category', sa.String(length=64), nullable=False),
    sa.Column('difficulty', sa.String(length=16), nullable=False),
    sa.Column('capabilities', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('task_hash')
    )
    op.create_table('work_queue',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('payload', sa.JSON(), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('lease_owner', sa.String(length=128), nullable=True),
    sa.Column('lease_until', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('attempts',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('edition_id', sa.Integer(), nullable=True),
    sa.Column('model_id', sa.Integer(), nullable=True),
    sa.Column('task_hash', sa.String(length=64), nullable=False),
    sa.Column('battery_hash', sa.String(length=64), nullable=False),
    sa.Column('repetition', sa.Integer(), nullable=False),
    sa.Column('driver', sa.String(length=256), nullable=False),
    sa.Column('outcome', sa.Enum('completed', 'agent_error', 'agent_timeout', 'infra_timeout', 'infra_error',
                                 'hung', name='attempt_outcome'), nullable=False),
    sa.Column('timings', sa.JSON(), nullable=False),
    sa.Column('tokens_in', sa.Integer(), nullable=True),
    sa.Column('tokens_out', sa.Integer(), nullable=True),
    sa.Column('cost_usd', sa.Float(), nullable=True),
    sa.Column('artifact_hash', sa.String(length=64), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['artifact_hash'], ['artifacts.hash'], ),
    sa.ForeignKeyConstraint(['battery_hash'], ['batteries.battery_hash'], ),
    sa.ForeignKeyConstraint(['edition_id'], ['editions.id'], ),
    sa.ForeignKeyConstraint(['model_id'], ['models.id'], ),
    sa.ForeignKeyConstraint(['task_hash'], ['tasks.task_hash'], ),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('results',
    sa.Column('result_hash', sa.String(length=64), nullable=False),
    sa.Column('attempt_id', sa.String(length=32), nullable=False),
    sa.Column('verdict', sa.Text(), nullable=False),
    sa.Column('evidence_digest', sa.String(length=64), nullable=False),
    sa.Column('passed', sa.Boolean(), nullable=False),
    sa.Column('first_failed_level', sa.String(length=8), nullable=True),
    sa.Column('engine_version', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['attempt_id'], ['attempts.id'], ),
    sa.PrimaryKeyConstraint('result_hash')
    )
    op.create_table('corrections',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('result_hash', sa.String(length=64), nullable=False),
    sa.Column('passed', sa.Boolean(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('author', sa.String(length=128), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['result_hash'], ['results.result_hash'], ),
    sa.PrimaryKeyConstraint('id')
    )
    _append_only()


def downgrade() -> None:
    append_only.unprotect(FACT_TABLES)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS ledger_append_only()")
    op.drop_table('corrections')
    op.drop_table('results')
    op.drop_table('attempts')
    op.drop_table('work_queue')
    op.drop_table('tasks')
    op.drop_table('suites')
    op.drop_table('models')
    op.drop_table('editions')
    op.drop_table('batteries')
    op.drop_table('audit')
    op.drop_table('artifacts')
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TYPE IF EXISTS attempt_outcome")  # drop_table leaves the column's enum type behind
