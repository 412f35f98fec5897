"""Bring a store to the newest schema with Alembic, once, even with writers racing.

A store already at `HEAD` costs one query and never imports Alembic. Otherwise the
upgrade runs inside one transaction holding the database's write lock (`BEGIN
IMMEDIATE` on SQLite, an advisory lock on PostgreSQL), so two processes opening a new
store at once migrate it exactly once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

from trialrun.history._schema import HEAD

MIGRATIONS = Path(__file__).parent / "migrations"
_PG_LOCK = 0x7472_6961  # an arbitrary advisory-lock key ("tria")


def current_revision(conn: Connection) -> str | None:
    try:
        with conn.begin_nested():
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except DBAPIError:
        return None


def upgrade(engine: Engine) -> None:
    with engine.connect() as conn:
        revision = current_revision(conn)
        conn.rollback()
    if revision == HEAD:
        return
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK})
        if current_revision(conn) == HEAD:  # another writer migrated meanwhile
            return
        _alembic_upgrade(conn)


def _alembic_upgrade(conn: Connection) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    attributes: dict[str, Any] = config.attributes
    attributes["connection"] = conn
    command.upgrade(config, "head")
