"""The nightly report as data: per test and model, the pass rate of each of the last N
runs, the pass rate of each run, and the tests trending worse.

A cell's pass rate is solved / counted trials (undetermined counts as not solved; infra
errors and skips leave the denominator). A row trends worse when it was stable (every
earlier run 100 %) and its latest run is not, or when Fisher's one-sided exact test
(`trialrun.tracking.fisher_one_sided`, the test `compare` uses) flags the latest run
against the earlier ones pooled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trialrun.history._records import StoredRun
from trialrun.history._store import HistoryStore
from trialrun.tracking import DEFAULT_ALPHA, fisher_one_sided


@dataclass(slots=True)
class Cell:
    solved: int
    trials: int

    @property
    def rate(self) -> float | None:
        return self.solved / self.trials if self.trials else None


@dataclass(slots=True)
class Row:
    test_id: str
    model: str
    kind: str
    policy: str | None
    cells: list[Cell | None]  # one per run of the report, oldest first; None: not in it
    trend: str | None = None  # "stable → flaky" | "drop (p = 0.03)" | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "test_id": self.test_id,
            "model": self.model,
            "kind": self.kind,
            "policy": self.policy,
            "runs": [None if c is None else {"solved": c.solved, "trials": c.trials,
                                             "pass_rate": c.rate} for c in self.cells],
            "trend": self.trend,
        }


@dataclass(slots=True)
class Report:
    runs: list[StoredRun]
    rows: list[Row]
    totals: list[Cell]  # per run: all its cells pooled
    filters: dict[str, Any] = field(default_factory=dict)

    @property
    def worse(self) -> list[Row]:
        return [r for r in self.rows if r.trend]

    def to_dict(self) -> dict[str, Any]:
        return {
            "filters": self.filters,
            "runs": [
                {"run_id": r.run_id, "started_at": r.started_at, "trigger": r.trigger,
                 "source": r.source, "git_sha": r.git_sha, "git_branch": r.git_branch,
                 "models": r.models}
                for r in self.runs
            ],
            "totals": [{"solved": c.solved, "trials": c.trials, "pass_rate": c.rate}
                       for c in self.totals],
            "rows": [r.to_dict() for r in self.rows],
            "trending_worse": [{"test_id": r.test_id, "model": r.model, "trend": r.trend}
                               for r in self.worse],
        }


def trend(cells: list[Cell | None], alpha: float) -> str | None:
    """How the newest run of a row compares with its earlier runs (None: not worse)."""
    seen = [c for c in cells if c is not None and c.trials]
    if len(seen) < 2:
        return None
    *earlier, latest = seen
    if latest.solved == latest.trials:
        return None
    before_c = sum(c.solved for c in earlier)
    before_n = sum(c.trials for c in earlier)
    p = fisher_one_sided(before_c, before_n, latest.solved, latest.trials)
    if before_c == before_n:
        return "stable → flaky" if latest.solved else "stable → failing"
    if p < alpha:
        return f"drop (p = {p:.3g})"
    return None


def build_report(
    store: HistoryStore,
    *,
    last: int = 7,
    model: str | None = None,
    trigger: str | None = None,
    test_id: str | None = None,
    branch: str | None = None,
    alpha: float = DEFAULT_ALPHA,
) -> Report:
    """The last `last` runs (of `branch` and of unknown branch; None: every branch); a
    trend is a drop significant at `alpha` (the project's `[compare] alpha`)."""
    runs = store.runs(last=last, trigger=trigger, model=model, test_id=test_id, branch=branch)
    keys: dict[tuple[str, str], tuple[str, str | None]] = {}
    for run in runs:
        for o in run.outcomes:
            keys[(o.test_id, o.model)] = (o.kind, o.policy)  # the newest policy wins
    rows: list[Row] = []
    indexed = [{(o.test_id, o.model): o for o in run.outcomes} for run in runs]
    for (tid, mdl), (kind, policy) in sorted(keys.items()):
        cells: list[Cell | None] = []
        for found in indexed:
            match = found.get((tid, mdl))
            cells.append(None if match is None else Cell(match.solved, match.trials))
        rows.append(Row(tid, mdl, kind, policy, cells, trend(cells, alpha)))
    totals = [
        Cell(sum(o.solved for o in run.outcomes), sum(o.trials for o in run.outcomes))
        for run in runs
    ]
    filters = {"last": last, "branch": branch, "model": model, "trigger": trigger}
    return Report(runs, rows, totals, {k: v for k, v in filters.items() if v is not None})
