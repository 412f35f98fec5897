"""Bring a store to the newest schema with Alembic, once, even with writers racing.

A store already at `HEAD` costs one query and never imports Alembic. Otherwise the
upgrade runs inside one transaction holding the database's write lock (`BEGIN
IMMEDIATE` on SQLite, an advisory lock on PostgreSQL), so two processes opening a new
store at once migrate it exactly once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

from trialrun.history._schema import HEAD

MIGRATIONS = Path(__file__).parent / "migrations"
_PG_LOCK = 0x7472_6961  # an arbitrary advisory-lock key ("tria")


class UnknownRevision(Exception):
    """The store's schema revision is none of this trialrun's migrations (a newer
    trialrun wrote it, or another program)."""


def known_revisions() -> set[str]:
    """The revisions of this trialrun's migrations (`versions/NNNN_name.py`)."""
    return {p.name.split("_", 1)[0] for p in (MIGRATIONS / "versions").glob("[0-9]*_*.py")}


def current_revision(conn: Connection) -> str | None:
    """The store's revision; None for a new store. A locked or damaged store raises
    (it is not taken for a new one)."""
    if not inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def _check_known(revision: str | None) -> None:
    if revision is not None and revision not in known_revisions():
        raise UnknownRevision(revision)


def upgrade(engine: Engine) -> None:
    with engine.connect() as conn:
        revision = current_revision(conn)
        conn.rollback()
    if revision == HEAD:
        return
    _check_known(revision)
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK})
        revision = current_revision(conn)
        if revision == HEAD:  # another writer migrated meanwhile
            return
        _check_known(revision)
        _alembic_upgrade(conn)


def _alembic_upgrade(conn: Connection) -> None:
    # ~250 ms to import, needed only when a store's schema is upgraded
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    attributes: dict[str, Any] = config.attributes
    attributes["connection"] = conn
    command.upgrade(config, "head")
