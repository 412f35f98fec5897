"""The first schema: runs, outcomes, trials, policy_changes.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.String(128), nullable=False, unique=True),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("started_at", sa.String(32), nullable=False),
        sa.Column("ended_at", sa.String(32)),
        sa.Column("git_sha", sa.String(64)),
        sa.Column("git_branch", sa.String(255)),
        sa.Column("trigger", sa.String(16), nullable=False),
        sa.Column("models", sa.Text, nullable=False),
        sa.Column("run_dir", sa.Text),
        sa.Column("argv", sa.Text),
        sa.Column("recorded_at", sa.String(32), nullable=False),
    )
    op.create_index("ix_runs_started_at", "runs", ["started_at"])
    op.create_table(
        "outcomes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "run_pk", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("test_id", sa.String(512), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("source", sa.Text),
        sa.Column("policy", sa.String(32)),
        sa.Column("model", sa.String(255), nullable=False),
        sa.Column("k", sa.Integer),
        sa.Column("trials", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("undetermined", sa.Integer, nullable=False),
        sa.Column("infra", sa.Integer, nullable=False),
        sa.UniqueConstraint("run_pk", "test_id", "model", name="uq_outcomes_run_test_model"),
    )
    op.create_index("ix_outcomes_test_model", "outcomes", ["test_id", "model"])
    op.create_table(
        "trials",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "outcome_pk",
            sa.Integer,
            sa.ForeignKey("outcomes.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("trial", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("error", sa.Text),
        sa.Column("transcript", sa.Text),
    )
    op.create_index("ix_trials_outcome_pk", "trials", ["outcome_pk"])
    op.create_table(
        "policy_changes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("test_id", sa.String(512), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("source", sa.Text),
        sa.Column("from_policy", sa.String(32), nullable=False),
        sa.Column("to_policy", sa.String(32), nullable=False),
        sa.Column("models", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
    )
    op.create_index("ix_policy_changes_test", "policy_changes", ["test_id"])


def downgrade() -> None:
    for index, table in (
        ("ix_policy_changes_test", "policy_changes"),
        ("ix_trials_outcome_pk", "trials"),
        ("ix_outcomes_test_model", "outcomes"),
        ("ix_runs_started_at", "runs"),
    ):
        op.drop_index(index, table_name=table)
    for table in ("policy_changes", "trials", "outcomes", "runs"):
        op.drop_table(table)
