"""A model's history name has no base URL: one model served from two URLs is one row, in
new records and, after migration 0002, in a store written before it. On SQLite and on a
real PostgreSQL server."""

from __future__ import annotations

import json
from pathlib import Path

from alembic import command
from alembic.config import Config
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import create_engine, text

import trialrun.history
from trialrun.history import (
    HistoryStore,
    Outcome,
    RunRecord,
    TrialRecord,
    build_report,
    history_name,
)

LOCAL = "openai-compat:qwen@http://127.0.0.1:8000/v1"
OTHER = "openai-compat:qwen@http://other:9000/v1"
MIGRATIONS = Path(trialrun.history.__file__).parent / "migrations"


def _run(run_id: str, day: int, *specs: str) -> RunRecord:
    return RunRecord(
        run_id, f"2026-11-{day:02d}T03:00:00Z", "nightly", models=list(specs),
        outcomes=[Outcome("t1", spec, k=1, trials=[TrialRecord(0, "solved")]) for spec in specs],
    )


def test_one_model_from_two_urls_is_one_history_row(store: HistoryStore) -> None:
    store.record(_run("a", 1, LOCAL))
    store.record(_run("b", 2, OTHER))
    store.record(_run("c", 3, LOCAL, "openai-compat:qwen@http://u:secret@third/v1"))
    runs = store.runs()
    assert [r.models for r in runs] == [["openai-compat:qwen"]] * 3
    assert [[(o.model, o.solved, o.trials) for o in r.outcomes] for r in runs] == [
        [("openai-compat:qwen", 1, 1)], [("openai-compat:qwen", 1, 1)],
        [("openai-compat:qwen", 2, 2)],  # one session against two URLs: its trials together
    ]
    (row,) = build_report(store, model=OTHER).rows  # a spec with a URL finds its model
    assert (row.model, [c.trials for c in row.cells if c]) == ("openai-compat:qwen", [1, 1, 2])


@given(st.from_regex(r"[a-z-]{1,12}:[A-Za-z0-9._/-]{1,20}", fullmatch=True),
       st.from_regex(r"https?://[a-z0-9.]{1,15}(:[0-9]{1,5})?(/[a-z0-9]{1,8}){0,3}",
                     fullmatch=True))
def test_the_history_name_is_the_spec_without_its_url(spec: str, url: str) -> None:
    name = history_name(f"{spec}@{url}")
    assert name == history_name(spec) and "@http" not in name


def test_migration_0002_renames_and_merges_old_rows(store_url: str) -> None:
    url = trialrun.history.store_url(store_url)
    engine = create_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0001")  # a store as the first schema wrote it
        runs = [("r1", [LOCAL, OTHER]), ("r2", [OTHER])]
        for pk, (run_id, models) in enumerate(runs, 1):
            conn.execute(text(
                "INSERT INTO runs (id, run_id, source, started_at, trigger, models, "
                "recorded_at) VALUES (:pk, :run_id, 'pytest', :at, 'nightly', :models, :at)"
            ), {"pk": pk, "run_id": run_id, "at": f"2026-11-0{pk}T03:00:00Z",
                "models": json.dumps(models)})
        rows = [(1, 1, LOCAL, 1), (2, 1, OTHER, 0), (3, 2, OTHER, 1)]
        for pk, run_pk, model, solved in rows:
            conn.execute(text(
                "INSERT INTO outcomes (id, run_pk, test_id, kind, model, trials, solved, "
                "undetermined, infra) VALUES (:pk, :run_pk, 't.py::t', 'pytest', :model, 1, "
                ":solved, 0, 0)"
            ), {"pk": pk, "run_pk": run_pk, "model": model, "solved": solved})
            conn.execute(text(
                "INSERT INTO trials (outcome_pk, trial, outcome) VALUES (:pk, 0, :outcome)"
            ), {"pk": pk, "outcome": "solved" if solved else "failed"})
        conn.execute(text(
            "INSERT INTO policy_changes (at, action, test_id, kind, from_policy, to_policy, "
            "models, reason) VALUES ('2026-11-03T00:00:00Z', 'promote', 't.py::t', 'pytest', "
            "'USUALLY_PASSES', 'ALWAYS_PASSES', :models, 'r')"
        ), {"models": json.dumps([LOCAL, OTHER])})
    engine.dispose()
    with HistoryStore.open(store_url) as store:  # migrates to the newest schema
        first, second = store.runs()
        trials = store.trials_of([first.outcomes[0].pk])
        (change,) = store.policy_changes()
    assert (first.models, second.models) == (["openai-compat:qwen"], ["openai-compat:qwen"])
    (merged,) = first.outcomes
    assert (merged.model, merged.trials, merged.solved) == ("openai-compat:qwen", 2, 1)
    assert sorted(t.outcome for t in trials[merged.pk]) == ["failed", "solved"]
    assert [(o.model, o.solved) for o in second.outcomes] == [("openai-compat:qwen", 1)]
    assert change["models"] == ["openai-compat:qwen"]
