"""editions: grader_build and settings_hash (the edition pins the grader's build and the settings besides the
engine's build, which `engine_version` now holds)

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 06:00:00

Both columns are nullable and only added: editions created before keep their rows and audit hashes.  Such an
edition pinned the engine by its hand-typed version, which no grader now reports, so recording under it is refused
with both values named (the pins are checked by the grader, not the database).
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('editions', sa.Column('grader_build', sa.String(length=64), nullable=True))
    op.add_column('editions', sa.Column('settings_hash', sa.String(length=64), nullable=True))


def downgrade() -> None:
    bind = op.get_bind()
    if bind.execute(sa.text("SELECT count(*) FROM editions WHERE grader_build IS NOT NULL "
                            "OR settings_hash IS NOT NULL")).scalar():
        raise RuntimeError("ledger: downgrading below 0004 would discard facts of schema 4 (editions): refused")
    op.drop_column('editions', 'settings_hash')
    op.drop_column('editions', 'grader_build')
