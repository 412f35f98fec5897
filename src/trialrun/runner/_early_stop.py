"""What early stop applies to in a run, and the baselines it reads.

`--early-stop` (`RunConfig.early_stop`) turns it on for every task; otherwise
`[run] early_stop` in trialrun.toml: `true` (every task), `false` (the default), or a list
of suite names (`["golden", "failure_replays"]`: the tasks whose `suite` is one of them).
run.json records what was in force (`early_stop`: true or the suites) and the baselines
folder it compared with, so a resume keeps both. Each model's baseline is loaded once,
before the first trial, through `trialrun.tracking`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from trialrun.config import load_config
from trialrun.core import parse_model_spec
from trialrun.errors import UserError
from trialrun.runner._answer_fixed import Counts
from trialrun.runner._plan import effective_k
from trialrun.runner._settle import Settlement
from trialrun.runner._suite_guard import gate_alphas, guarded_groups
from trialrun.tasks import SUITE_DEFAULTS
from trialrun.tracking import (
    GATES,
    GateConfig,
    baseline_path,
    configured_alpha,
    configured_method,
    default_baselines_dir,
    gate_config,
    load_baseline,
    view_of_baseline,
)

EARLY_STOP_KEY = "early_stop"
BASELINES_KEY = "early_stop_baselines"
Scope = frozenset[str] | None  # the suites that stop early; None: every suite


def configured_scope() -> Scope | Literal[False]:
    """`[run] early_stop` from trialrun.toml: False (off), None (every suite) or the suites."""
    cfg = load_config()
    value = cfg.section("run").get(EARLY_STOP_KEY, False)
    where = f"{cfg.path or 'trialrun.toml'}: [run] early_stop"
    if isinstance(value, bool):
        return None if value else False
    names = ", ".join(SUITE_DEFAULTS)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UserError(
            f'{where} must be true, false or a list of suite names, e.g. ["golden"]; '
            f"got {value!r}"
        )
    unknown = [v for v in value if v not in SUITE_DEFAULTS]
    if unknown:
        raise UserError(f"{where}: unknown suite {unknown[0]!r}; use some of {names}")
    return frozenset(value)


def scope_of(flag: bool, extra: dict[str, Any] | None) -> Scope | Literal[False]:
    """What stops early: a resume keeps run.json's (`extra`), a new run takes `--early-stop`,
    else trialrun.toml's."""
    if extra is not None:
        recorded = extra.get(EARLY_STOP_KEY)
        if isinstance(recorded, list):
            return frozenset(str(s) for s in recorded)
        return None if recorded is True or flag else False
    return None if flag else configured_scope()


def recorded(scope: Scope) -> bool | list[str]:
    """The run.json value of an early stop that is on."""
    return True if scope is None else sorted(scope)


def baselines_folder(given: Path | str | None, extra: dict[str, Any] | None) -> Path:
    """The baselines folder: the one given, else a resumed run's, else trialrun.toml's."""
    if given is not None:
        return Path(given)
    if extra is not None and isinstance(extra.get(BASELINES_KEY), str):
        return Path(extra[BASELINES_KEY])
    return default_baselines_dir()


def baseline_counts(
    folder: Path, models: Sequence[str], warnings: list[str]
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


def settlement_for(
    scope: Scope | Literal[False],
    baselines: Path,
    models: Sequence[str],
    k: int | None,
    warnings: list[str],
    tasks: Sequence[Any] = (),
) -> Settlement:
    """The run's `Settlement`: off, or on for `scope` with each model's baseline loaded
    (and `tasks`, the run's, for the suite-level test it must not change)."""
    if scope is False:
        return Settlement()
    alpha = configured_alpha()
    rows = [(t.task_id, str(t.suite), str(t.policy)) for t in tasks]
    gates = _gates(warnings)
    return Settlement(
        enabled=True,
        suites=scope,
        baselines=baseline_counts(baselines, models, warnings),
        alpha=alpha,
        k=k,
        method=configured_method(),
        task_k={t.task_id: effective_k(t, k) for t in tasks},
        suite_groups=guarded_groups(rows, alpha, gates),
        gate_alphas=gate_alphas(rows, alpha, gates),
    )


def _gates(warnings: list[str]) -> list[GateConfig]:
    """The gates as trialrun.toml sets them (one it cannot read: not guarded, and said)."""
    project = load_config()
    out = []
    for name in GATES:
        try:
            out.append(gate_config(name, project))
        except UserError as exc:
            warnings.append(f"early stop: gate {name} not guarded ({exc})")
    return out
