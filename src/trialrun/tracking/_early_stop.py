"""Early stop's rule: the `Settlement` a run stops by, built from the run's plan.

The runner says what stops early (the suites, the baselines folder it was given or a
resume recorded, the models and each task's k); this module reads what the comparison
needs, once, before the first trial: each model's blessed baseline (a baseline it cannot
read is a warning, and that model keeps the plain rule), `[compare] alpha` and method, and
the gates of trialrun.toml whose suite tests a task must not change.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

from trialrun.config import ProjectConfig
from trialrun.core import parse_model_spec
from trialrun.errors import UserError
from trialrun.tracking._baseline import baseline_path, load_baseline
from trialrun.tracking._counts import view_of_baseline
from trialrun.tracking._gate_config import GATES, GateConfig, gate_config
from trialrun.tracking._open_answer import Counts
from trialrun.tracking._settings import configured_alpha, configured_method, default_baselines_dir
from trialrun.tracking._settle import Settlement
from trialrun.tracking._suite_guard import gate_alphas, guarded_groups


class StoppingTask(Protocol):
    """What early stop reads of a task."""

    @property
    def task_id(self) -> str: ...
    @property
    def suite(self) -> object: ...
    @property
    def policy(self) -> object: ...


class StopPlanView(Protocol):
    """The run's early-stop plan as the runner hands it over (`runner.StopPlan`)."""

    @property
    def suites(self) -> frozenset[str] | None: ...
    @property
    def baselines(self) -> Path | None: ...
    @property
    def models(self) -> Sequence[str]: ...
    @property
    def task_k(self) -> dict[str, int]: ...
    @property
    def tasks(self) -> Sequence[StoppingTask]: ...
    @property
    def project(self) -> ProjectConfig: ...


def early_stop_rule(plan: StopPlanView, warnings: list[str]) -> Settlement:
    """The run's `Settlement`, on for `plan.suites`, each model's baseline loaded from
    `plan.baselines` (None: `[baselines] dir`, else ./baselines)."""
    project = plan.project
    folder = (plan.baselines or default_baselines_dir(project)).resolve()
    alpha = configured_alpha(project)
    rows = [(t.task_id, str(t.suite), str(t.policy)) for t in plan.tasks]
    gates = _gates(project, warnings)
    return Settlement(
        enabled=True,
        suites=plan.suites,
        baselines=baseline_counts(folder, plan.models, warnings),
        alpha=alpha,
        baselines_dir=folder,
        method=configured_method(project),
        task_k=dict(plan.task_k),
        suite_groups=guarded_groups(rows, alpha, gates),
        gate_alphas=gate_alphas(rows, alpha, gates),
    )


def baseline_counts(
    folder: Path, models: Iterable[str], warnings: list[str]
) -> dict[tuple[str, str], Counts]:
    """Per (task id, model label): its baseline entry's counts, for the models with one."""
    out: dict[tuple[str, str], Counts] = {}
    for label in models:
        spec = parse_model_spec(label)
        path = baseline_path(folder, spec.provider, spec.model_id)
        if not path.is_file():
            continue
        try:
            view = view_of_baseline(load_baseline(path))
        except UserError as exc:
            warnings.append(f"early stop: baseline not used ({exc}); the plain rule applies")
            continue
        for t in view.tasks.values():
            out[(t.task_id, label)] = Counts(t.passed, t.pass_n, t.solved, t.solve_n)
    return out


def _gates(project: ProjectConfig, warnings: list[str]) -> list[GateConfig]:
    """The gates as trialrun.toml sets them (one it cannot read: not guarded, and said)."""
    out = []
    for name in GATES:
        try:
            out.append(gate_config(name, project))
        except UserError as exc:
            warnings.append(f"early stop: gate {name} not guarded ({exc})")
    return out
