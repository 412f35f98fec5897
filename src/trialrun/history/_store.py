"""`HistoryStore`: record runs and read them back, on SQLite or PostgreSQL.

One transaction per recorded run, so a run is in the store whole or not at all, and two
writers at once (two CI jobs) lose nothing: SQLite writers take the write lock up front
(`BEGIN IMMEDIATE`, WAL journal, a 60 s busy timeout), PostgreSQL serialises on its own.
A run id already stored is not stored twice (`record` returns False).

A store that cannot be read is one line naming it and the fix (a `UserError`): a file
that is not a SQLite database or is damaged, a schema revision this trialrun does not
know. A SQLite store still locked after the busy timeout is `StoreBusy` (also a
UserError); `trialrun run` waits briefly and queues its record instead (`_pending`).
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, func, insert, or_, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DatabaseError, IntegrityError, OperationalError

from trialrun.config import ProjectConfig
from trialrun.errors import UserError
from trialrun.history._migrate import UnknownRevision, upgrade
from trialrun.history._pending import import_pending
from trialrun.history._records import (
    RecentOutcome,
    RunRecord,
    StoredOutcome,
    StoredRun,
    TrialRecord,
    history_name,
    utc_now,
    with_history_names,
)
from trialrun.history._schema import outcomes, policy_changes, runs, trials
from trialrun.history._url import existing_store_url, shown_url, store_url
from trialrun.rundir import RunDirLimits

BUSY_TIMEOUT_S = 60
TRIAL_ROWS_PER_INSERT = 5000


class StoreBusy(UserError):
    """The SQLite store stayed locked by another process past the busy timeout."""

    def __init__(self, url: str) -> None:
        super().__init__(
            f"history store {store_label(url)}: locked by another process; try again when "
            "it is done"
        )
        self.url = url


def store_label(url: str) -> str:
    """How messages name a store: a SQLite store by its file, others by URL (no password)."""
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        return url.removeprefix("sqlite:///").split("?", 1)[0]
    return shown_url(url)


def _unreadable(url: str, exc: BaseException) -> UserError:
    return UserError(
        f"{store_label(url)}: not a trialrun history database ({_first_line(exc)}); move it "
        "away (the next run starts a new one) or point --store / [history] url elsewhere"
    )


def _is_damage(exc: BaseException | None) -> bool:
    """SQLite's "file is not a database" and "database disk image is malformed" (its
    plain DatabaseError; locks and missing tables are OperationalErrors)."""
    return type(exc) is sqlite3.DatabaseError


def _is_busy(exc: BaseException | None) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and (
        "locked" in str(exc) or "busy" in str(exc)
    )


def _sqlite_engine(url: str, busy_timeout_s: float = BUSY_TIMEOUT_S) -> Engine:
    path = Path(url.removeprefix("sqlite:///"))
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(
                f"history store {path}: cannot create its folder ({exc.strerror}); pass "
                "--store with a writable path"
            ) from None
    engine = create_engine(url, connect_args={"timeout": busy_timeout_s})

    @event.listens_for(engine, "handle_error")
    def _one_line(context: Any) -> None:
        """A damaged or locked file found by any query, not only at open: one line."""
        if _is_damage(context.original_exception):
            raise _unreadable(url, context.original_exception)
        if _is_busy(context.original_exception):
            raise StoreBusy(url)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we say BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


class HistoryStore:
    """A history database, migrated to the newest schema on open."""

    def __init__(self, url: str, *, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        self.url = url
        try:
            if url.startswith("sqlite:"):
                self.engine = _sqlite_engine(url, busy_timeout_s)
            else:
                self.engine = create_engine(url, pool_pre_ping=True)
            upgrade(self.engine)
        except UnknownRevision as exc:
            raise UserError(
                f"{store_label(url)}: its schema revision {exc} is unknown to this trialrun "
                "(a newer trialrun wrote it?); upgrade trialrun, or move it away or "
                "point --store / [history] url elsewhere"
            ) from None
        except OperationalError as exc:
            if _is_busy(exc.orig):
                raise StoreBusy(url) from None
            raise UserError(
                f"history store {shown_url(url)}: cannot open it "
                f"({_first_line(exc.orig or exc)}); check --store / [history] url"
            ) from None
        except DatabaseError as exc:  # the file is no SQLite database, or a damaged one
            raise _unreadable(url, exc.orig or exc) from None
        except ModuleNotFoundError as exc:
            raise UserError(
                f"history store {shown_url(url)}: needs {exc.name}; pip install "
                "'trialrun[history]'"
            ) from None

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        config: ProjectConfig | None = None,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
    ) -> HistoryStore:
        """The store at `url`, or the one `config` names (see `store_url`), with the runs
        queued beside it while it was locked recorded first (see `_pending`; their run
        folders read within `config`'s `[rundir]`)."""
        limits = RunDirLimits.of(config) if config is not None else None
        store = cls(store_url(url, config), busy_timeout_s=busy_timeout_s)
        store._import_pending(limits)
        return store

    @classmethod
    def open_existing(
        cls, url: str | None = None, *, config: ProjectConfig | None = None
    ) -> HistoryStore | None:
        """The store to read from, or None when there is none yet: the configured store as
        `open` finds it, except that a SQLite file that does not exist is not created
        (see `existing_store_url`). Readers leave the queue of `_pending` alone."""
        found = existing_store_url(url, config)
        return cls(found) if found is not None else None

    def _import_pending(self, limits: RunDirLimits | None) -> None:
        try:
            import_pending(self, limits=limits)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> HistoryStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- writing ---
    def record(self, run: RunRecord) -> bool:
        """Store `run` in one transaction; False when its run id is already stored.
        Models go by their history name (no base URL, see `history_name`)."""
        run = with_history_names(run)
        try:
            with self.engine.begin() as conn:
                if conn.execute(select(runs.c.id).where(runs.c.run_id == run.run_id)).first():
                    return False
                inserted = conn.execute(
                    insert(runs).values(
                        run_id=run.run_id,
                        source=run.source,
                        started_at=run.started_at,
                        ended_at=run.ended_at,
                        git_sha=run.git_sha,
                        git_branch=run.git_branch,
                        trigger=run.trigger,
                        models=json.dumps(list(run.models)),
                        run_dir=run.run_dir,
                        argv=json.dumps(list(run.argv)),
                        recorded_at=utc_now(),
                    )
                ).inserted_primary_key
                assert inserted is not None  # an INSERT's result carries its key
                pk = inserted[0]
                if run.outcomes:
                    # two statements per run whatever its size (insertmanyvalues batches)
                    ids = conn.execute(
                        insert(outcomes).returning(outcomes.c.id, sort_by_parameter_order=True),
                        [
                            {
                                "run_pk": pk,
                                "test_id": item.test_id,
                                "kind": item.kind,
                                "source": item.source,
                                "policy": item.policy,
                                "model": item.model,
                                "k": item.k,
                                "trials": item.counted,
                                "solved": item.count("solved"),
                                "undetermined": item.count("undetermined"),
                                "infra": item.count("infra") + item.count("skipped"),
                            }
                            for item in run.outcomes
                        ],
                    ).scalars().all()
                    rows = (
                        {
                            "outcome_pk": outcome_pk,
                            "trial": t.trial,
                            "outcome": t.outcome,
                            "error": t.error,
                            "transcript": t.transcript,
                        }
                        for outcome_pk, item in zip(ids, run.outcomes, strict=True)
                        for t in item.trials
                    )
                    # in batches: a 100,000-trial run never has every row built at once
                    while batch := list(itertools.islice(rows, TRIAL_ROWS_PER_INSERT)):
                        conn.execute(insert(trials), batch)
        except IntegrityError:  # the same run id recorded by a racing writer
            return False
        return True

    def record_policy_change(
        self,
        *,
        action: str,
        test_id: str,
        kind: str,
        source: str | None,
        from_policy: str,
        to_policy: str,
        models: Sequence[str],
        reason: str,
    ) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                insert(policy_changes).values(
                    at=utc_now(),
                    action=action,
                    test_id=test_id,
                    kind=kind,
                    source=source,
                    from_policy=from_policy,
                    to_policy=to_policy,
                    models=json.dumps(list(models)),
                    reason=reason,
                )
            )

    # --- reading ---
    def runs(
        self,
        *,
        last: int | None = None,
        trigger: str | None = None,
        model: str | None = None,
        test_id: str | None = None,
        branch: str | None = None,
    ) -> list[StoredRun]:
        """Runs oldest first (the newest `last` of them), with their outcomes; `model`
        and `test_id` keep only runs (and outcomes) of that model / test; `branch` keeps
        that branch's runs and those whose branch is unknown (see `_branch`)."""
        query = select(runs).order_by(runs.c.started_at.desc(), runs.c.id.desc())
        if model:
            model = history_name(model)
        if trigger:
            query = query.where(runs.c.trigger == trigger)
        if branch is not None:
            query = query.where(or_(runs.c.git_branch == branch, runs.c.git_branch.is_(None)))
        if model or test_id:
            sub = select(outcomes.c.run_pk)
            if model:
                sub = sub.where(outcomes.c.model == model)
            if test_id:
                sub = sub.where(outcomes.c.test_id == test_id)
            query = query.where(runs.c.id.in_(sub))
        if last is not None:
            query = query.limit(last)
        with self.engine.connect() as conn:
            rows = list(conn.execute(query))
            found = [
                StoredRun(
                    pk=r.id,
                    run_id=r.run_id,
                    started_at=r.started_at,
                    trigger=r.trigger,
                    source=r.source,
                    git_sha=r.git_sha,
                    git_branch=r.git_branch,
                    models=json.loads(r.models or "[]"),
                    run_dir=r.run_dir,
                )
                for r in reversed(rows)
            ]
            by_pk = {run.pk: run for run in found}
            if by_pk:
                oq = select(outcomes).where(outcomes.c.run_pk.in_(list(by_pk)))
                if model:
                    oq = oq.where(outcomes.c.model == model)
                if test_id:
                    oq = oq.where(outcomes.c.test_id == test_id)
                for o in conn.execute(oq.order_by(outcomes.c.id)):
                    by_pk[o.run_pk].outcomes.append(
                        StoredOutcome(
                            pk=o.id,
                            test_id=o.test_id,
                            model=o.model,
                            kind=o.kind,
                            source=o.source,
                            policy=o.policy,
                            trials=o.trials,
                            solved=o.solved,
                            undetermined=o.undetermined,
                            infra=o.infra,
                        )
                    )
        return found

    def branches(self, *, trigger: str | None = None) -> dict[str | None, int]:
        """Runs per recorded branch (None: unknown)."""
        query = select(runs.c.git_branch, func.count()).group_by(runs.c.git_branch)
        if trigger:
            query = query.where(runs.c.trigger == trigger)
        with self.engine.connect() as conn:
            return {branch: count for branch, count in conn.execute(query)}

    def recent_outcomes(
        self,
        *,
        last: int = 10,
        kind: str | None = "task",
        tests: Collection[str] | None = None,
        models: Collection[str] | None = None,
    ) -> list[RecentOutcome]:
        """Per test × model, its outcomes in the last `last` runs it was in, oldest run
        first: the data of a heat map. `kind` keeps task or pytest outcomes (None: both);
        `tests` / `models` keep only those. One query (a window function), on either
        database."""
        if last < 1:
            raise ValueError(f"last must be 1 or more, got {last}")
        rank = func.row_number().over(
            partition_by=(outcomes.c.test_id, outcomes.c.model),
            order_by=(runs.c.started_at.desc(), runs.c.id.desc()),
        )
        inner = select(
            runs.c.id.label("run_pk"),
            runs.c.run_id,
            runs.c.started_at,
            outcomes.c.test_id,
            outcomes.c.model,
            outcomes.c.trials,
            outcomes.c.solved,
            outcomes.c.undetermined,
            outcomes.c.infra,
            rank.label("rank"),
        ).select_from(outcomes.join(runs, outcomes.c.run_pk == runs.c.id))
        if kind is not None:
            inner = inner.where(outcomes.c.kind == kind)
        if tests is not None:
            inner = inner.where(outcomes.c.test_id.in_(list(tests)))
        if models is not None:
            inner = inner.where(outcomes.c.model.in_([history_name(m) for m in models]))
        sub = inner.subquery()
        query = (
            select(sub)
            .where(sub.c.rank <= last)
            .order_by(sub.c.started_at, sub.c.run_pk, sub.c.test_id, sub.c.model)
        )
        with self.engine.connect() as conn:
            return [
                RecentOutcome(
                    run_id=r.run_id,
                    started_at=r.started_at,
                    test_id=r.test_id,
                    model=r.model,
                    trials=r.trials,
                    solved=r.solved,
                    undetermined=r.undetermined,
                    infra=r.infra,
                )
                for r in conn.execute(query)
            ]

    def trials_of(self, outcome_pks: Iterable[int]) -> dict[int, list[TrialRecord]]:
        """outcome pk → its trials, in trial order."""
        keys = list(outcome_pks)
        out: dict[int, list[TrialRecord]] = {pk: [] for pk in keys}
        if not keys:
            return out
        query = select(trials).where(trials.c.outcome_pk.in_(keys)).order_by(trials.c.trial)
        with self.engine.connect() as conn:
            for t in conn.execute(query):
                out[t.outcome_pk].append(TrialRecord(t.trial, t.outcome, t.error, t.transcript))
        return out

    def policy_changes(self, test_id: str | None = None) -> list[dict[str, Any]]:
        query = select(policy_changes).order_by(policy_changes.c.id)
        if test_id:
            query = query.where(policy_changes.c.test_id == test_id)
        with self.engine.connect() as conn:
            return [
                {**row._asdict(), "models": json.loads(row.models)}
                for row in conn.execute(query)
            ]


def _first_line(exc: object) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
