"""edition plans: edition_plans, plan_items, plan_claims and edition_publications (facts), and the work queue's
edition columns (operational state)

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 10:00:00

An edition's plan (models x tasks x repetitions) is a set of audited, append-only facts.  A counted attempt
recorded under a planned edition appends a `plan_claims` row keyed by its plan item: the primary key makes each
planned attempt counted at most once, whoever records it.  A publication is a fact too: from then on the edition
is frozen.  `work_queue` was created by 0001 and never used; it gains the columns an edition's run leases by.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations import append_only

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None

NEW_FACTS = ("edition_plans", "plan_items", "plan_claims", "edition_publications")


def upgrade() -> None:
    op.create_table('edition_plans',
    sa.Column('edition_id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('repetitions', sa.Integer(), nullable=False),
    sa.Column('suites', sa.JSON(), nullable=False),
    sa.Column('models', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['edition_id'], ['editions.id'], ),
    sa.PrimaryKeyConstraint('edition_id')
    )
    op.create_table('plan_items',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('edition_id', sa.Integer(), nullable=False),
    sa.Column('model', sa.String(length=256), nullable=False),
    sa.Column('driver', sa.String(length=256), nullable=False),
    sa.Column('task_hash', sa.String(length=64), nullable=False),
    sa.Column('battery_hash', sa.String(length=64), nullable=False),
    sa.Column('repetition', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['edition_id'], ['editions.id'], ),
    sa.ForeignKeyConstraint(['task_hash'], ['tasks.task_hash'], ),
    sa.ForeignKeyConstraint(['battery_hash'], ['batteries.battery_hash'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('edition_id', 'model', 'task_hash', 'repetition')
    )
    op.create_table('plan_claims',
    sa.Column('plan_item_id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('attempt_id', sa.String(length=32), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['plan_item_id'], ['plan_items.id'], ),
    sa.ForeignKeyConstraint(['attempt_id'], ['attempts.id'], ),
    sa.PrimaryKeyConstraint('plan_item_id'),
    sa.UniqueConstraint('attempt_id')
    )
    op.create_table('edition_publications',
    sa.Column('edition_id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('snapshot_digest', sa.String(length=64), nullable=False),
    sa.Column('published_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['edition_id'], ['editions.id'], ),
    sa.PrimaryKeyConstraint('edition_id')
    )
    append_only.create_function()
    append_only.protect(NEW_FACTS)
    with op.batch_alter_table('work_queue') as batch:
        batch.add_column(sa.Column('queue', sa.String(length=64), nullable=True))
        batch.add_column(sa.Column('plan_item_id', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('model', sa.String(length=256), nullable=True))
        batch.create_unique_constraint('uq_work_queue_queue_plan_item', ['queue', 'plan_item_id'])


def downgrade() -> None:
    # a downgrade must not discard facts: the audit chain would then name them as gone
    bind = op.get_bind()
    for table in NEW_FACTS:
        if bind.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar():
            raise RuntimeError(f"ledger: downgrading below 0005 would discard facts of schema 5 ({table}): refused")
    with op.batch_alter_table('work_queue') as batch:
        batch.drop_constraint('uq_work_queue_queue_plan_item', type_='unique')
        batch.drop_column('model')
        batch.drop_column('plan_item_id')
        batch.drop_column('queue')
    append_only.unprotect(NEW_FACTS)
    for table in reversed(NEW_FACTS):
        op.drop_table(table)
