"""Measure evals before they are committed (`check-in`) or while fixing them (`triage`):
k fresh trials per model, the success rate per test × model.

Task files run through `trialrun.runner.run`; pytest files run in a child pytest
(`--run-evals --eval-strict --eval-k K`) that records into a throwaway SQLite history,
which is then read back: one way of counting for both.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from trialrun.errors import UserError
from trialrun.history._store import HistoryStore
from trialrun.history._url import ENV_OFF

PASS_NUM, PASS_DEN = 2, 3  # the bar: at least 66 % (2 of 3) solved on every key model


@dataclass(slots=True)
class Measured:
    test_id: str
    model: str
    solved: int
    trials: int

    @property
    def ok(self) -> bool:
        return self.trials > 0 and PASS_DEN * self.solved >= PASS_NUM * self.trials

    def line(self) -> str:
        pct = self.solved * 100 // self.trials if self.trials else 0
        mark = "ok" if self.ok else "below 66 %"
        return f"{self.test_id} on {self.model}: {pct}% ({self.solved}/{self.trials}) {mark}"


def measure(path: str, models: Sequence[str], k: int, only: str | None = None) -> list[Measured]:
    """k trials of every eval under `path` (a task file/folder or a pytest file) per model;
    `only`: a task id or a pytest test name."""
    if not models:
        raise UserError("give the key models: -m SPEC (repeat for each)")
    if path.endswith(".py") or "::" in path:
        return _measure_pytest(path, models, k, only)
    return _measure_tasks(path, models, k, only)


def _measure_tasks(path: str, models: Sequence[str], k: int, only: str | None) -> list[Measured]:
    # the runner (~50 more modules) only when evals are measured: the history is also
    # imported where no run happens (the pytest plugin's record, promote, lint)
    from trialrun.runner import Filters, RunConfig, run

    with tempfile.TemporaryDirectory(prefix="trialrun-checkin-") as out:
        outcome = run(RunConfig(tasks=[path], models=list(models), k=k, out=out,
                                filters=Filters(task=[only] if only else []),
                                argv=["trialrun", "check-in", path], handle_sigint=False))
    return [Measured(r.task_id, r.model, r.solved, r.n) for r in outcome.summary.tasks]


def _measure_pytest(path: str, models: Sequence[str], k: int, only: str | None) -> list[Measured]:
    file = path.split("::", 1)[0]
    if not Path(file).is_file():
        raise UserError(f"{file}: no such file; pass a pytest file with @eval_test tests")
    node = path if "::" in path or not only else f"{path}::{only.split('::')[-1]}"
    with tempfile.TemporaryDirectory(prefix="trialrun-checkin-") as tmp:
        db = str(Path(tmp) / "h.db")
        args = [sys.executable, "-m", "pytest", node, "-q", "-p", "no:cacheprovider",
                "--run-evals", "--eval-strict", "--eval-k", str(k), "--eval-store", db]
        for model in models:
            args += ["--eval-model", model]
        env = {k_: v for k_, v in os.environ.items() if k_ != ENV_OFF}
        proc = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
        if not Path(db).exists():
            tail = (proc.stdout.strip().splitlines() or proc.stderr.strip().splitlines()
                    or ["no output"])[-1]
            raise UserError(f"{path}: pytest ran no eval ({tail}); is it an @eval_test file?")
        with HistoryStore.open(db) as store:
            runs = store.runs()
    return [Measured(o.test_id, o.model, o.solved, o.trials)
            for run in runs for o in run.outcomes]
