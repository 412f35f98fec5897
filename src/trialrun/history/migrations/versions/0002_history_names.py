"""Runs by branch; a model's history name without its base URL.

`runs.git_branch` gets an index (promotion, demotion and the report read one branch).
Models recorded with their base URL (`openai-compat:M@http://127.0.0.1:8000/v1`, what
pytest sessions wrote) are renamed to the model alone (`openai-compat:M`), in
`outcomes.model`, `runs.models` and `policy_changes.models`; two outcomes of one run
that become one (one test against two URLs) are merged, trials and counts together.
The rename is not undone by a downgrade (the URLs are gone).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

COUNTS = ("trials", "solved", "undetermined", "infra")

outcomes = sa.table(
    "outcomes",
    sa.column("id", sa.Integer),
    sa.column("run_pk", sa.Integer),
    sa.column("test_id", sa.String),
    sa.column("model", sa.String),
    *(sa.column(name, sa.Integer) for name in COUNTS),
)
trials = sa.table("trials", sa.column("outcome_pk", sa.Integer))
runs = sa.table("runs", sa.column("id", sa.Integer), sa.column("models", sa.Text))
policy_changes = sa.table(
    "policy_changes", sa.column("id", sa.Integer), sa.column("models", sa.Text)
)


def history_name(model: str) -> str:
    """`provider:M@http…` → `provider:M` (the rule of this revision, kept here frozen)."""
    provider, sep, model_id = model.partition(":")
    index = model_id.rfind("@http")
    return f"{provider}{sep}{model_id[:index]}" if index > 0 else model


def _rename_outcomes(conn: sa.Connection) -> None:
    found = conn.execute(
        sa.select(outcomes).where(outcomes.c.model.like("%@http%")).order_by(outcomes.c.id)
    ).all()
    for row in found:
        name = history_name(row.model)
        if name == row.model:
            continue
        twin = conn.execute(
            sa.select(outcomes).where(
                outcomes.c.run_pk == row.run_pk,
                outcomes.c.test_id == row.test_id,
                outcomes.c.model == name,
            )
        ).first()
        if twin is None:
            conn.execute(outcomes.update().where(outcomes.c.id == row.id).values(model=name))
            continue
        conn.execute(
            trials.update().where(trials.c.outcome_pk == row.id).values(outcome_pk=twin.id)
        )
        conn.execute(
            outcomes.update()
            .where(outcomes.c.id == twin.id)
            .values({name_: getattr(twin, name_) + getattr(row, name_) for name_ in COUNTS})
        )
        conn.execute(outcomes.delete().where(outcomes.c.id == row.id))


def _rename_lists(conn: sa.Connection, table: sa.TableClause) -> None:
    found = conn.execute(
        sa.select(table.c.id, table.c.models).where(table.c.models.like("%@http%"))
    ).all()
    for row in found:
        try:
            models = json.loads(row.models)
        except ValueError:
            continue
        if not isinstance(models, list):
            continue
        renamed = list(dict.fromkeys(history_name(str(m)) for m in models))
        conn.execute(
            table.update().where(table.c.id == row.id).values(models=json.dumps(renamed))
        )


def upgrade() -> None:
    op.create_index("ix_runs_git_branch", "runs", ["git_branch"])
    conn = op.get_bind()
    _rename_outcomes(conn)
    _rename_lists(conn, runs)
    _rename_lists(conn, policy_changes)


def downgrade() -> None:
    op.drop_index("ix_runs_git_branch", table_name="runs")
