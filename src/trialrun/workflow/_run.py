"""`trialrun.run()`: the runner with early stop's rule from `trialrun.tracking`, then the
steps after the run the caller asks for (`AfterRun`; none by default)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from trialrun.config import load_config
from trialrun.runner import Run, RunConfig, RunHooks, ctrl_c_raises
from trialrun.runner import run_async as run_trials
from trialrun.tracking import early_stop_rule
from trialrun.workflow._after_run import AfterRun, FollowUp, follow_up


class FollowUpInterrupted(KeyboardInterrupt):
    """Ctrl-C during the steps after a run: the run itself is whole, in `run_dir`; the
    steps after it did not all finish."""

    def __init__(self, run_dir: Path) -> None:
        super().__init__(str(run_dir))
        self.run_dir = run_dir


@dataclass(slots=True)
class FollowedRun(Run):
    """A finished run and what followed it (`AfterRun`)."""

    follow_up: FollowUp | None = None


async def run_async(
    config: RunConfig, hooks: RunHooks | None = None, after: AfterRun | None = None
) -> FollowedRun:
    """Run models × tasks × k trials into `out/<run-id>/` (or resume a run folder), then
    what `after` asks for (its outcome in `Run.follow_up`)."""
    after = after or AfterRun()
    after.check()  # every option refused before the run, not after it
    # trialrun.toml, found once: the run and its follow-up share it
    project = config.project if config.project is not None else load_config()
    config = replace(config, project=project)
    outcome = await run_trials(config, hooks, early_stop_rule)
    done = {f.name: getattr(outcome, f.name) for f in fields(outcome)}
    try:
        with ctrl_c_raises():  # synchronous steps: a press must not wait for them all
            followed = follow_up(outcome.path, outcome.interrupted, after, project,
                                 trials=outcome.summary.finished_trials)
    except KeyboardInterrupt:
        raise FollowUpInterrupted(outcome.path) from None
    return FollowedRun(**done, follow_up=followed)


def run(
    source: Any = None,
    models: Sequence[str] | None = None,
    /,
    *,
    hooks: RunHooks | None = None,
    after: AfterRun | None = None,
    **options: Any,
) -> FollowedRun:
    """Run an eval: `run(RunConfig(...))`, or `run("evals/", ["local"], k=3)`.

    `source`: a RunConfig, or task paths / Task objects (then `models` and `options` are
    RunConfig fields). `after`: history record, baseline comparison, JUnit/Markdown, a
    gate (`AfterRun`). Returns the `Run` (folder, summary, results); bad input is a
    UserError.
    """
    if models is not None:
        options["models"] = models
    return asyncio.run(run_async(RunConfig.of(source, **options), hooks, after))
