"""Early stop is a `StopRule` the caller passes in: the runner asks it before each trial
and tells it each finished one; without one every planned trial runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trialrun.rundir import ResultLine, RunDir
from trialrun.runner import RunConfig, StopPlan, run
from trialrun.tasks import Task


def _task(task_id: str, k: int) -> Task:
    return Task.model_validate({
        "task_id": task_id, "suite": "golden", "description": "d", "inputs": {"prompt": "p"},
        "graders": [{"type": "contains", "value": "hello"}], "tracked_metrics": ["pass^k"],
        "trials": {"k": k},
    })  # fmt: skip


def _model(tmp_path: Path) -> str:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"default": [{"content": "hello"}]}))
    return f"scripted:{path}"


class StopAfterTwo:
    """A rule of the caller's own: a task is settled after two finished trials."""

    enabled = True

    def __init__(self, plan: StopPlan, folder: Path) -> None:
        self.plan = plan
        self.baselines_dir = folder
        self.finished: dict[tuple[str, str], int] = {}

    def seen(self, line: ResultLine, task: Any = None) -> None:
        self.record(task, line)

    def is_settled(self, task_id: str, model: str) -> bool:
        return self.finished.get((task_id, model), 0) >= 2

    def record(self, task: Any, line: ResultLine) -> None:
        pair = (line.task_id, line.model)
        self.finished[pair] = self.finished.get(pair, 0) + 1
        if self.finished[pair] == 2:
            line.extra["settled_after"] = 2


def test_the_runner_stops_by_the_rule_it_is_given(tmp_path: Path) -> None:
    plans: list[StopPlan] = []

    def rules(plan: StopPlan, warnings: list[str]) -> StopAfterTwo:
        plans.append(plan)
        return StopAfterTwo(plan, tmp_path / "bl")

    config = RunConfig(tasks=[_task("a", 5), _task("b", 3)], models=[_model(tmp_path)],
                       out=tmp_path / "o", concurrency=1, early_stop=True,
                       handle_sigint=False)  # fmt: skip
    outcome = run(config, stop_rules=rules)
    lines = RunDir.open(outcome.path).results()
    assert sorted((x.task_id, x.trial) for x in lines) == [("a", 0), ("a", 1), ("b", 0), ("b", 1)]
    [plan] = plans
    assert plan.suites is None and plan.task_k == {"a": 5, "b": 3}
    extra = RunDir.open(outcome.path).manifest().extra
    assert extra["early_stop"] is True and extra["early_stop_baselines"] == str(tmp_path / "bl")


def test_without_a_rule_every_planned_trial_runs_and_the_run_says_so(tmp_path: Path) -> None:
    config = RunConfig(tasks=[_task("a", 3)], models=[_model(tmp_path)], out=tmp_path / "o",
                       concurrency=1, early_stop=True, handle_sigint=False)  # fmt: skip
    outcome = run(config)
    assert len(RunDir.open(outcome.path).results()) == 3
    assert any("no stop rule" in w for w in outcome.warnings)
