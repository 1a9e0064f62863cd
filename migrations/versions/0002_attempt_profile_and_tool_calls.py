"""attempts: profile_hash (the sandbox profile the agent ran under) and tool_calls (as its driver reported them)

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 03:30:00

Both columns are nullable and only added: rows recorded before keep their content, and their audit hashes
(ledger/_store.py leaves these columns out of a row's hash while they are NULL).  ADD COLUMN keeps the
append-only triggers of 0001 on SQLite and PostgreSQL.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('attempts', sa.Column('tool_calls', sa.Integer(), nullable=True))
    op.add_column('attempts', sa.Column('profile_hash', sa.String(length=64), nullable=True))


def downgrade() -> None:
    # SQLite (3.35+) and PostgreSQL drop a column in place: the triggers stay, no row is rewritten through them
    op.drop_column('attempts', 'profile_hash')
    op.drop_column('attempts', 'tool_calls')
