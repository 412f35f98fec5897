"""`RunConfig`: every option of a run, and `Run`: what a finished run returns.

The options a resume must replay (task paths, models, k, filters, judge, agent,
keep_artifacts) are written to run.json as the run's `Manifest`; the rest (where to
write, how many in flight, progress hooks) belong to one invocation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.agents import check_agent_choice
from trialrun.config import ProjectConfig
from trialrun.judge import JudgeSettings
from trialrun.rundir import ResultLine, RunDir, Summary
from trialrun.runner._plan import Filters
from trialrun.tasks import check_k_option

if TYPE_CHECKING:
    from trialrun.tasks import Task


@dataclass(slots=True)
class RunHooks:
    """Progress callbacks: `loaded(tasks, k)` once the tasks are known, `start(total,
    already_done)` once, `trial(line)` per trial."""

    start: Callable[[int, int], None] | None = None
    trial: Callable[[ResultLine], None] | None = None
    loaded: Callable[[Sequence[Task], int | None], None] | None = None


@dataclass(slots=True)
class RunConfig:
    """What to run and how. `tasks`: task files or folders, or `Task` objects."""

    tasks: Sequence[Path | str | Task] = ()
    models: Sequence[str] = ()  # model specs; default: `local` (or the agent's label)
    k: int | None = None  # overrides every task's k (1 to trialrun.tasks.MAX_K)
    filters: Filters = field(default_factory=Filters)
    judge: str | None = None  # judge model spec for judge graders
    # your agent: a preset (gemini-cli, claude-code, codex) or package.module:function
    agent: str | None = None
    agent_cmd: str | None = None  # your agent as a command run in the workspace
    agent_api: str | None = None  # the wire API agent_cmd speaks: chat|responses|anthropic|gemini
    keep_artifacts: bool = False  # keep each trial's workspace in the run folder
    out: Path | str = "results"
    resume: Path | str | None = None  # a run folder: run only its missing trials
    concurrency: int | None = None  # trials in flight; default 1 for local, else 4
    skip_invalid: bool = False  # run the valid tasks even when some files are invalid
    # accept fixture symlinks that resolve outside the suite folder (their targets are copied)
    allow_external_links: bool = False
    argv: list[str] | None = None  # recorded in run.json (default: sys.argv)
    fsync: bool = True
    handle_sigint: bool = True  # Ctrl-C stops scheduling and keeps what finished
    # skip a task's remaining trials once one trial has settled its verdict (False: as
    # [run] early_stop in trialrun.toml says); against a model's baseline in `baselines`
    # (default: [baselines] dir, else ./baselines), once the comparison's answer is fixed too
    early_stop: bool = False
    baselines: Path | str | None = None
    # where trials run: "local" (this process) or "ray" (Ray tasks; default: [run] executor
    # in trialrun.toml, else local); ray_address: an existing cluster (default: a local one)
    executor: str | None = None
    ray_address: str | None = None
    # the local executor on N worker processes ("auto": one per core; default: [run]
    # processes in trialrun.toml, else 1): for many trials in flight against fast servers
    processes: int | str | None = None
    # a judge that is also a model under test: refused (False), or run with a warning about
    # self-preference (True; benchmark suites, as the seed allows it)
    self_judge: bool = False
    # the project's trialrun.toml, resolved once by the caller (the CLI, the pytest plugin,
    # a benchmark suite); None: `run()` finds it from the working directory, once
    project: ProjectConfig | None = None
    # the judge's settings (timeout, cache, constraint); None: the project's `[judge]`
    judge_settings: JudgeSettings | None = None

    def __post_init__(self) -> None:
        check_k_option(self.k)  # a huge k would validate, then exhaust memory
        check_agent_choice(self.agent, self.agent_cmd)

    @classmethod
    def of(cls, source: Any = None, **options: Any) -> RunConfig:
        """A config from `run(...)`'s arguments: a config, a path, a Task, or a list of them."""
        if isinstance(source, RunConfig):
            if options:
                raise TypeError("pass either a RunConfig or keyword options, not both")
            return source
        if source is not None:
            items = source if isinstance(source, (list, tuple)) else [source]
            options["tasks"] = list(items)
        if isinstance(options.get("models"), str):
            options["models"] = [options["models"]]
        if options.get("models") is None:
            options.pop("models", None)
        if "model" in options:
            options["models"] = [*options.get("models", ()), options.pop("model")]
        if isinstance(options.get("filters"), dict):
            options["filters"] = Filters(**options["filters"])
        return cls(**options)


@dataclass(slots=True)
class Run:
    """A finished (or interrupted) run: its folder, summary and results lines.

    The lines are not held (a 100k-trial run would hold them all): `results` reads them
    from the run folder when asked.
    """

    path: Path
    summary: Summary
    interrupted: bool = False
    warnings: list[str] = field(default_factory=list)
    trials_run: int = 0  # trials this invocation ran (a resume: only the missing ones)

    @property
    def results(self) -> list[ResultLine]:
        """The run's checked results lines, read from its folder now."""
        return RunDir.open(self.path).results()
