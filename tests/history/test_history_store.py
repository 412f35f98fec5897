"""The store on SQLite and on a real PostgreSQL server: one schema, whole runs, no loss."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from sqlalchemy import inspect

from trialrun.config import load_config
from trialrun.history import HistoryStore, Outcome, RunRecord, TrialRecord, store_url
from trialrun.history._schema import metadata


def _run(run_id: str, started: str, *, trigger: str = "nightly", solved: int = 3,
         n: int = 3, test: str = "t1", model: str = "m") -> RunRecord:
    trials = [TrialRecord(i, "solved" if i < solved else "failed") for i in range(n)]
    return RunRecord(run_id, started, trigger, models=[model],
                     outcomes=[Outcome(test, model, policy="USUALLY_PASSES", k=n,
                                       trials=trials)])


def test_record_and_read_back(store: HistoryStore) -> None:
    rec = _run("r1", "2026-01-01T00:00:00Z", solved=2)
    rec.outcomes[0].trials.append(TrialRecord(3, "infra", error="429"))
    rec.outcomes[0].trials.append(TrialRecord(4, "undetermined"))
    assert store.record(rec) is True
    assert store.record(rec) is False  # a run id is stored once
    (run,) = store.runs()
    assert (run.run_id, run.trigger, run.models) == ("r1", "nightly", ["m"])
    (o,) = run.outcomes
    # infra leaves the denominator; undetermined stays in it and is not solved
    assert (o.trials, o.solved, o.undetermined, o.infra) == (4, 2, 1, 1)
    trials = store.trials_of([o.pk])[o.pk]
    assert [t.outcome for t in trials] == ["solved", "solved", "failed", "infra", "undetermined"]
    assert trials[3].error == "429"


def test_trial_rows_go_in_batches_and_none_is_lost(store: HistoryStore,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from trialrun.history import _store

    monkeypatch.setattr(_store, "TRIAL_ROWS_PER_INSERT", 3)  # 7 + 4 rows: 4 batches
    rec = _run("big", "2026-01-01T00:00:00Z", solved=5, n=7)
    rec.outcomes.append(Outcome("t2", "m", k=4, trials=[TrialRecord(i, "failed")
                                                        for i in range(4)]))
    assert store.record(rec) is True
    (run,) = store.runs()
    by_test = {o.test_id: o for o in run.outcomes}
    trials = store.trials_of([o.pk for o in run.outcomes])
    assert [t.trial for t in trials[by_test["t1"].pk]] == list(range(7))
    assert [t.outcome for t in trials[by_test["t2"].pk]] == ["failed"] * 4
    assert (by_test["t1"].solved, by_test["t1"].trials) == (5, 7)


def test_runs_filters_and_order(store: HistoryStore) -> None:
    store.record(_run("b", "2026-01-02T00:00:00Z", trigger="ci"))
    store.record(_run("a", "2026-01-01T00:00:00Z"))
    store.record(_run("c", "2026-01-03T00:00:00Z", model="other"))
    assert [r.run_id for r in store.runs()] == ["a", "b", "c"]  # oldest first
    assert [r.run_id for r in store.runs(last=2)] == ["b", "c"]
    assert [r.run_id for r in store.runs(trigger="nightly")] == ["a", "c"]
    assert [r.run_id for r in store.runs(model="other")] == ["c"]


def test_migrations_make_exactly_the_declared_schema(store: HistoryStore) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
        tables = set(inspect(conn).get_table_names())
    assert diff == []
    assert {"runs", "outcomes", "trials", "policy_changes", "alembic_version"} <= tables


def _write_many(url: str, prefix: str, count: int) -> None:
    with HistoryStore.open(url) as store:
        for i in range(count):
            store.record(_run(f"{prefix}-{i}", f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z",
                              test=f"test-{i % 5}"))


def test_two_writers_at_once_lose_nothing(store_url: str) -> None:
    """Two processes open the same new store (both migrate) and write 30 runs each."""
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_write_many, args=(store_url, p, 30)) for p in ("x", "y")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with HistoryStore.open(store_url) as store:
        runs = store.runs()
    assert len(runs) == 60
    assert sum(len(r.outcomes) for r in runs) == 60
    assert {r.run_id for r in runs} == {f"{p}-{i}" for p in "xy" for i in range(30)}


def test_store_url_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRIALRUN_HISTORY_URL", raising=False)
    assert store_url() == f"sqlite:///{tmp_path / '.trialrun' / 'history.db'}"
    assert store_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    (tmp_path / "trialrun.toml").write_text('[history]\nurl = "postgresql://h/x"\n')
    project = load_config()
    assert store_url() == f"sqlite:///{tmp_path / '.trialrun' / 'history.db'}"  # not read here
    assert store_url(config=project) == "postgresql+psycopg://h/x"
    monkeypatch.setenv("TRIALRUN_HISTORY_URL", "other.db")
    assert store_url(config=project) == f"sqlite:///{tmp_path / 'other.db'}"


def test_unreachable_store_is_one_line(tmp_path: Path) -> None:
    from trialrun.errors import UserError

    with pytest.raises(UserError, match=r"history store postgresql\+psycopg://u:\*\*\*@"):
        HistoryStore.open("postgresql://u:secret@127.0.0.1:1/db")
    with pytest.raises(UserError, match="unsupported database"):
        HistoryStore.open("mysql://h/db")
