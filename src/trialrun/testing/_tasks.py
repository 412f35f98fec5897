"""`pytest tasks/`: trialrun task files as test items, one per task × model.

An item runs the task's k trials (or --eval-k) through `trialrun.run` and fails, naming
the graders that failed, unless every counted trial was solved; a task whose trials all
hit provider errors is skipped. Collected only from paths given on the command line
(never from `testpaths`), so a project's own test data is left alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trialrun
from trialrun.testing._spec import default_model

SUFFIXES = {".yaml", ".yml", ".json", ".toml"}


def wanted(file_path: Path, config: pytest.Config) -> bool:
    if file_path.suffix not in SUFFIXES or "fixtures" in file_path.parts:
        return False
    if str(config.getini("trialrun_tasks")).strip().lower() in ("false", "0", "no", "off"):
        return False
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return False
    given = [Path(a.split("::")[0]).resolve() for a in config.args]
    resolved = file_path.resolve()
    if not any(resolved == g or resolved.is_relative_to(g) for g in given):
        return False
    try:
        head = file_path.read_text(encoding="utf-8", errors="replace")[:200_000]
    except OSError:
        return False
    return "task_id" in head or "userMessage" in head


class TaskFileError(Exception):
    pass


class TaskFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        report = trialrun.load_tasks([self.path])
        if report.problems:
            raise TaskFileError("\n".join(str(p) for p in report.problems))
        models = self.config.getoption("eval_model") or [default_model()]
        for task in report.tasks:
            for model in models:
                yield TaskItem.from_parent(self, name=f"{task.task_id}[{model}]", task=task,
                                           model=model)

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, TaskFileError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class TaskFailed(Exception):
    pass


class TaskItem(pytest.Item):
    def __init__(self, *, task: Any, model: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.task = task
        self.model = model
        self.trials: list[tuple[int, str, str | None]] = []

    @property
    def trialrun_policy(self) -> str:
        return str(self.task.policy)

    def runtest(self) -> None:
        # the pytest plugin is imported by every pytest session: run machinery loads on use
        from trialrun.history import trial_outcome

        k = self.config.getoption("eval_k")
        log = self.config.getoption("eval_log")
        # pytest's tmp_path plugin sets the factory on the config; it has no public name there
        factory = self.config._tmp_path_factory  # type: ignore[attr-defined]
        out = Path(log) if log else factory.mktemp("task")
        outcome = trialrun.run(trialrun.RunConfig(
            tasks=[self.task], models=[self.model], k=k, out=out, concurrency=1,
            argv=["pytest", self.nodeid], handle_sigint=False,
        ))
        self.trials = [
            (line.trial, trial_outcome(line),
             str((line.error or {}).get("message")) if line.error else None)
            for line in outcome.results
        ]
        counted = [line for line in outcome.results if not line.is_infra]
        if not counted:
            reasons = {str((line.error or {}).get("message")) for line in outcome.results}
            pytest.skip(f"provider error on {self.model}: {'; '.join(sorted(reasons))}")
        solved = sum(1 for line in counted if line.solve is True)
        if solved < len(counted):
            failed: dict[str, int] = {}
            for line in counted:
                for v in line.verdicts:
                    if v.get("passed") is False:
                        failed[str(v.get("grader"))] = failed.get(str(v.get("grader")), 0) + 1
            undetermined = sum(1 for line in counted if line.solve is None)
            parts = [f"{name} failed in {n}" for name, n in sorted(failed.items())]
            if undetermined:
                parts.append(f"{undetermined} undetermined")
            raise TaskFailed(
                f"{self.task.task_id} on {self.model}: solved {solved}/{len(counted)}; "
                + ("; ".join(parts) or "errors: " + ", ".join(
                    sorted({str(line.error_kind) for line in counted if line.error_kind})))
                + f" (run: {outcome.path})"
            )

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, TaskFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"task {self.task.task_id} on {self.model}"
