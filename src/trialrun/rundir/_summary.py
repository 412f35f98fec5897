"""`Summary`: summary.json, the figures recomputed from results.jsonl alone.

`trialrun.metrics.summarize` is the one place that computes it; this is its file form.
Rows (`tasks`) are `SummaryRow`s; aggregates stay plain dicts (their keys are the file's).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trialrun.rundir._checks import RecordError
from trialrun.rundir._summary_row import SummaryRow

KEYS = ("run_id", "models", "k", "tasks", "aggregate", "by_suite", "by_tag",
        "unpinned_models", "expected_trials", "finished_trials", "warnings")


@dataclass(slots=True)
class Summary:
    run_id: str | None = None
    models: list[str] = field(default_factory=list)
    k: int | None = None
    tasks: list[SummaryRow] = field(default_factory=list)  # one row per (task, model)
    aggregate: dict[str, dict[str, Any]] = field(default_factory=dict)  # by model
    by_suite: dict[str, Any] = field(default_factory=dict)
    by_tag: dict[str, Any] = field(default_factory=dict)
    unpinned_models: list[str] = field(default_factory=list)
    expected_trials: int = 0
    finished_trials: int = 0
    warnings: list[str] = field(default_factory=list)

    def rows_for(self, model: str) -> list[SummaryRow]:
        return [r for r in self.tasks if r.model == model]

    def to_json(self) -> dict[str, Any]:
        out = {key: getattr(self, key) for key in KEYS}
        out["tasks"] = [row.to_json() for row in self.tasks]
        return out

    @classmethod
    def from_json(
        cls, data: Any, *, consume: bool = False, rows: list[SummaryRow] | None = None
    ) -> Summary:
        """Rows checked: counts are integers, estimators fractions or null. `consume`:
        each of `data`'s task entries is let go once its row is made (a caller that
        reads `data` no more: a 10,000-row file's objects and rows are not all held).
        `rows`: the task entries already read as rows (`summary_by_rows`)."""
        if not isinstance(data, dict) or not isinstance(data.get("tasks", []), list):
            raise RecordError("expected an object with a 'tasks' list")
        k = data.get("k") if isinstance(data.get("k"), int) else None
        entries = data.get("tasks") or []
        if rows is None:
            rows = []
            for i, row in enumerate(entries):
                rows.append(SummaryRow.from_json(row, f"tasks[{i}]", k))
                if consume:
                    entries[i] = None
        models = data.get("models")
        aggregate = data.get("aggregate")
        return cls(
            run_id=data.get("run_id") if isinstance(data.get("run_id"), str) else None,
            models=[m for m in models if isinstance(m, str)] if isinstance(models, list) else [],
            k=k,
            tasks=rows,
            aggregate=aggregate if isinstance(aggregate, dict) else {},
            by_suite=obj if isinstance(obj := data.get("by_suite"), dict) else {},
            by_tag=obj if isinstance(obj := data.get("by_tag"), dict) else {},
            unpinned_models=list(data.get("unpinned_models") or []),
            expected_trials=int(data.get("expected_trials") or 0),
            finished_trials=int(data.get("finished_trials") or 0),
            warnings=[str(w) for w in data.get("warnings") or []],
        )
