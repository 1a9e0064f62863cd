"""Append-only triggers: the database itself refuses UPDATE and DELETE (and TRUNCATE) on a fact table.

Shared by the migrations that create fact tables; what each statement does must never change, since an
upgraded database and a fresh one have to end the same.
"""

from __future__ import annotations

from collections.abc import Iterable

from alembic import op


def create_function() -> None:
    """PostgreSQL's trigger function (SQLite needs none)."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE OR REPLACE FUNCTION ledger_append_only() RETURNS trigger AS $$ BEGIN "
            "RAISE EXCEPTION 'ledger: % is append-only (% refused)', TG_TABLE_NAME, TG_OP; END; "
            "$$ LANGUAGE plpgsql"
        )


def protect(tables: Iterable[str]) -> None:
    dialect = op.get_bind().dialect.name
    for table in tables:
        if dialect == "postgresql":
            op.execute(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                       f"FOR EACH ROW EXECUTE FUNCTION ledger_append_only()")
            op.execute(f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                       f"FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only()")
        elif dialect == "sqlite":
            for action in ("UPDATE", "DELETE"):
                op.execute(f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} BEGIN "
                           f"SELECT RAISE(ABORT, 'ledger: {table} is append-only ({action} refused)'); END")
        else:
            raise RuntimeError(f"the ledger supports SQLite and PostgreSQL, not {dialect}")


def unprotect(tables: Iterable[str]) -> None:
    dialect = op.get_bind().dialect.name
    for table in tables:
        if dialect == "postgresql":
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")
        else:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_update")
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_delete")
