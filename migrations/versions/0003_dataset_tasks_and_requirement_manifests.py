"""dataset_tasks (an edition's dataset, task by task), batteries.requirements (the requirement manifest) and
corrections.requirements (requirement outcomes a correction names)

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02 04:00:00

A board's tasks are its edition's pinned dataset, attempted or not, so the ledger keeps which tasks a dataset
holds (`dataset_tasks`, a fact table: audited and append-only) and each battery's requirement manifest.  The
added columns are nullable: rows recorded before keep their content and their audit hashes
(ledger/_store.py leaves such columns out of a row's hash while they are NULL).
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations import append_only

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('batteries', sa.Column('requirements', sa.JSON(), nullable=True))
    op.add_column('corrections', sa.Column('requirements', sa.JSON(), nullable=True))
    op.create_table('dataset_tasks',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('dataset_hash', sa.String(length=64), nullable=False),
    sa.Column('task_hash', sa.String(length=64), nullable=False),
    sa.Column('battery_hash', sa.String(length=64), nullable=False),
    sa.Column('task_id', sa.String(length=160), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['dataset_hash'], ['suites.dataset_hash'], ),
    sa.ForeignKeyConstraint(['task_hash'], ['tasks.task_hash'], ),
    sa.ForeignKeyConstraint(['battery_hash'], ['batteries.battery_hash'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('dataset_hash', 'task_hash')
    )
    append_only.create_function()
    append_only.protect(["dataset_tasks"])


def downgrade() -> None:
    # a downgrade must not discard facts: the audit chain would then name them as gone
    bind = op.get_bind()
    for table, where in (("dataset_tasks", "1 = 1"), ("batteries", "requirements IS NOT NULL"),
                         ("corrections", "requirements IS NOT NULL")):
        if bind.execute(sa.text(f"SELECT count(*) FROM {table} WHERE {where}")).scalar():
            raise RuntimeError(f"ledger: downgrading below 0003 would discard facts of schema 3 ({table}): refused")
    append_only.unprotect(["dataset_tasks"])
    op.drop_table('dataset_tasks')
    op.drop_column('corrections', 'requirements')
    op.drop_column('batteries', 'requirements')
