"""The history schema: one set of tables for SQLite and PostgreSQL (SQLAlchemy Core).

`runs`: one row per recorded run (a CLI run, a pytest session, an imported run folder).
`outcomes`: per run, one row per test (task id or pytest node id) × model, with counts.
`trials`: each trial of an outcome. `policy_changes`: every promotion and demotion.
Times are UTC ISO-8601 strings (`2026-11-24T18:30:00Z`), which sort as time in both
databases. Alembic migrations (`migrations/versions/`) create exactly these tables.
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

HEAD = "0002"  # the newest migration; a store at HEAD skips Alembic altogether

metadata = MetaData()

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(128), nullable=False, unique=True),
    Column("source", String(16), nullable=False),  # cli | pytest | import
    Column("started_at", String(32), nullable=False),
    Column("ended_at", String(32)),
    Column("git_sha", String(64)),
    Column("git_branch", String(255)),  # None: unknown (outside git, or an old run)
    Column("trigger", String(16), nullable=False),  # ci | nightly | local
    Column("models", Text, nullable=False),  # JSON list
    Column("run_dir", Text),
    Column("argv", Text),  # JSON list
    Column("recorded_at", String(32), nullable=False),
    Index("ix_runs_started_at", "started_at"),
    Index("ix_runs_git_branch", "git_branch"),
)

outcomes = Table(
    "outcomes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_pk", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("test_id", String(512), nullable=False),
    Column("kind", String(16), nullable=False),  # task | pytest
    Column("source", Text),  # the task file or the pytest file
    Column("policy", String(32)),
    Column("model", String(255), nullable=False),  # its history name: no base URL
    Column("k", Integer),
    Column("trials", Integer, nullable=False),  # counted trials (infra and skips left out)
    Column("solved", Integer, nullable=False),
    Column("undetermined", Integer, nullable=False),
    Column("infra", Integer, nullable=False),
    UniqueConstraint("run_pk", "test_id", "model", name="uq_outcomes_run_test_model"),
    Index("ix_outcomes_test_model", "test_id", "model"),
)

trials = Table(
    "trials",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("outcome_pk", Integer, ForeignKey("outcomes.id", ondelete="CASCADE"), nullable=False),
    Column("trial", Integer, nullable=False),
    Column("outcome", String(16), nullable=False),  # solved|failed|undetermined|infra|skipped
    Column("error", Text),
    # where the trial's record is kept: its transcript file (runs), or the eval's run
    # folder (pytest sessions); absolute, None when not kept
    Column("transcript", Text),
    Index("ix_trials_outcome_pk", "outcome_pk"),
)

policy_changes = Table(
    "policy_changes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", String(32), nullable=False),
    Column("action", String(16), nullable=False),  # promote | demote
    Column("test_id", String(512), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("source", Text),
    Column("from_policy", String(32), nullable=False),
    Column("to_policy", String(32), nullable=False),
    Column("models", Text, nullable=False),  # JSON list
    Column("reason", Text, nullable=False),
    Index("ix_policy_changes_test", "test_id"),
)
