"""What early stop applies to in a run, and the baselines folder it compares with.

`--early-stop` (`RunConfig.early_stop`) turns it on for every task; otherwise
`[run] early_stop` in trialrun.toml: `true` (every task), `false` (the default), or a list
of suite names (`["golden", "failure_replays"]`: the tasks whose `suite` is one of them).
run.json records what was in force (`early_stop`: true or the suites) and the baselines
folder it compared with, so a resume keeps both. The rule itself (when a task is settled,
against which baselines) is the caller's `StopRule` (`_stop_rule`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trialrun.config import ProjectConfig
from trialrun.errors import UserError
from trialrun.tasks import SUITE_DEFAULTS

EARLY_STOP_KEY = "early_stop"
BASELINES_KEY = "early_stop_baselines"
Scope = frozenset[str] | None  # the suites that stop early; None: every suite


def configured_scope(cfg: ProjectConfig) -> Scope | bool:
    """`[run] early_stop` from trialrun.toml: False (off), None (every suite) or the suites."""
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


def scope_of(flag: bool, extra: dict[str, Any] | None, project: ProjectConfig) -> Scope | bool:
    """What stops early: a resume keeps run.json's (`extra`), a new run takes `--early-stop`,
    else trialrun.toml's."""
    if extra is not None:
        recorded = extra.get(EARLY_STOP_KEY)
        if isinstance(recorded, list):
            return frozenset(str(s) for s in recorded)
        return None if recorded is True or flag else False
    return None if flag else configured_scope(project)


def recorded(scope: Scope) -> bool | list[str]:
    """The run.json value of an early stop that is on."""
    return True if scope is None else sorted(scope)


def baselines_folder(given: Path | str | None, extra: dict[str, Any] | None) -> Path | None:
    """The baselines folder: the one given, else a resumed run's (None: the rule's default)."""
    if given is not None:
        return Path(given)
    if extra is not None and isinstance(extra.get(BASELINES_KEY), str):
        return Path(extra[BASELINES_KEY])
    return None
