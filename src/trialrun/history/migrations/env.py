"""Alembic environment: always handed a live connection by `trialrun.history`."""

from __future__ import annotations

from alembic import context

from trialrun.history._schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
