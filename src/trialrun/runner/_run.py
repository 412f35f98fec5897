"""The run: load → plan → run trials concurrently → results.jsonl → summary.json.

`run(config)` / `run_async(config)` are the library's entry point; the CLI and the
pytest plugin are thin shells over them. Ctrl-C (SIGINT) stops scheduling, cancels the
trials in flight (their workspaces are removed, nothing half-written), keeps every line
already written, rewrites summary.json and returns `interrupted=True`. While it runs, the
run folder holds a lock naming this process and the workspaces of the trials in flight
(`_inflight`): what a killed run leaves there, a resume or `trialrun clean` removes.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.agents import (
    Agent,
    AgentSettings,
    ConversingAgent,
    ToolLoopAgent,
    make_agent,
    preset_names,
)
from trialrun.config import ProjectConfig, load_config
from trialrun.core import is_unpinned, model_label, parse_model_spec, slugify
from trialrun.errors import CONFIG_FILE_NAME, ConfigError, UserError
from trialrun.graders import GRADERS
from trialrun.judge import JudgeModel, JudgeSettings, check_judge_spec, self_judge_warning
from trialrun.metrics import summarizer_for
from trialrun.models import ProviderSettings, create_model
from trialrun.rundir import Manifest, ResultLine, RunDir, RunDirLimits, new_run_id
from trialrun.runner._agent_tools import preset_tool_warnings
from trialrun.runner._config import Run, RunConfig, RunHooks
from trialrun.runner._early_stop import (
    BASELINES_KEY,
    EARLY_STOP_KEY,
    Scope,
    baselines_folder,
    recorded,
    scope_of,
)
from trialrun.runner._executor import Executed, Executor, LocalLoop
from trialrun.runner._inflight import fresh_inflight_dir, run_lock
from trialrun.runner._infra_trials import configured_infra_trials
from trialrun.runner._manifest import check_resumed_tasks, new_manifest, resumed_config
from trialrun.runner._plan import TrialSpec, effective_k, plan, trials_first
from trialrun.runner._processes import WorkerProcesses, check_processes
from trialrun.runner._ray import RayCluster, check_executor, connect_ray, import_ray
from trialrun.runner._remote import WorkerJob
from trialrun.runner._script_coverage import script_coverage_warnings
from trialrun.runner._sink import TrialSink
from trialrun.runner._spawn import EarlyWorkers
from trialrun.runner._stop_rule import NeverStop, StopPlan, StopRule, StopRules
from trialrun.runner._task_agents import configured_agent, own_agents, task_agents
from trialrun.runner._trial import RunContext, prepare_task
from trialrun.sandbox import WorkspaceImages, jail_available, remove_tree
from trialrun.tasks import Task, load_tasks, report_problems_and_exit
from trialrun.tools import ToolSettings

if TYPE_CHECKING:
    from trialrun.models import Model

DEFAULT_MODEL = "local"
LOCAL_PROVIDERS = frozenset({"local"})
DEFAULT_CONCURRENCY = 4


def default_concurrency(models: Sequence[str]) -> int:
    """1 when any model runs in-process on this machine (`local`), else 4."""
    if any(m.partition(":")[0] in LOCAL_PROVIDERS for m in models):
        return 1
    return DEFAULT_CONCURRENCY


def _load(
    source: Sequence[Path | str | Task],
    skip_invalid: bool,
    allow_external_links: bool,
    project: ProjectConfig,
) -> tuple[list[Task], list[str], list[Path]]:
    """Tasks, warnings and the task paths (when given as paths)."""
    given = [s for s in source if isinstance(s, Task)]
    if source and len(given) == len(source):
        return given, [], []
    if given:
        raise UserError("tasks: pass task paths or Task objects, not a mix of both")
    paths = [Path(p) for p in source if not isinstance(p, Task)]
    report = load_tasks(
        paths, allow_external_links=allow_external_links, agents=preset_names(), config=project
    )
    warnings = [str(w) for w in report.warnings]
    try:
        tasks = report_problems_and_exit(report, skip_invalid, echo=lambda _line: None)
    except UserError as exc:
        if len(report.problems) < 2:  # none, or the one the error is about: its own line
            raise
        lines = [str(p) for p in report.problems]
        raise UserError("\n".join([*lines, exc.describe()])) from None
    if report.problems:
        warnings += [str(p) for p in report.problems]
        warnings += [f"{f}: skipped: invalid task file" for f in report.invalid_files]
    return tasks, warnings, paths


def _needs_judge(tasks: Sequence[Task]) -> bool:
    for task in tasks:
        for config in task.graders:
            kind = GRADERS.get(config.type)
            if kind is not None and kind.needs_judge:
                return True
    return False


def _judge_spec(judge: str | None, project: ProjectConfig) -> tuple[str | None, str]:
    """The judge spec and where it came from (the flag or config key errors name)."""
    if judge:
        return judge, "--judge"
    section = project.section("judge")
    spec = section.get("model")
    if not spec:
        return None, "--judge"
    where = "[judge] model"
    if not isinstance(spec, str):
        raise ConfigError(
            'must be a model spec string, e.g. "local"', place=where, source=project.path
        )
    try:
        check_judge_spec(spec)
    except UserError as exc:
        raise _in_config(exc, "--judge", where, project) from None
    return spec, where


def _in_config(exc: UserError, flag: str, key: str, project: ProjectConfig) -> UserError:
    """`exc` (raised as if `flag` had been given) re-labelled to the config `key` it came from."""
    return exc.at(key, source=project.path or CONFIG_FILE_NAME) if exc.place == flag else exc


def _make_agent(config: RunConfig, timeout_s: float | None, settings: _Settings) -> Agent:
    if config.agent or config.agent_cmd:
        # an agent that answers once talks to a task's simulated user turn by turn
        return ConversingAgent(
            make_agent(
                config.agent,
                config.agent_cmd,
                timeout_s=timeout_s,
                agent_api=config.agent_api,
                settings=settings.agents,
            ),
            settings.providers,
        )
    return ToolLoopAgent(providers=settings.providers)


@dataclass(frozen=True, slots=True)
class _Settings:
    """trialrun.toml's part for models and agents, read from the run's config once."""

    providers: ProviderSettings  # [retries] [limits] [pricing]
    agents: AgentSettings  # [limits] [agent]

    @classmethod
    def of(cls, project: ProjectConfig) -> _Settings:
        return cls(ProviderSettings.from_config(project), AgentSettings.from_config(project))


def _check_options(config: RunConfig) -> None:
    if config.concurrency is not None and config.concurrency < 1:
        raise UserError(f"--concurrency {config.concurrency}: must be at least 1")
    out = Path(config.out)
    if config.executor is not None:
        check_executor(config.executor)
    if config.resume is None and out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: is a file, not a folder; pass a folder for run folders")


def _executor(config: RunConfig, project: ProjectConfig) -> str:
    """`--executor`, else `[run] executor` in trialrun.toml, else local; ray checked here."""
    name = config.executor
    if name is None:
        value = project.section("run").get("executor", "local")
        if not isinstance(value, str):
            raise ConfigError('must be "local" or "ray"', place="[run] executor",
                              source=project.path)
        try:
            check_executor(value)
        except UserError:
            raise ConfigError(
                f'unknown executor {value!r}; use "local" or "ray"', place="[run] executor",
                source=project.path,
            ) from None
        name = value
    if name == "ray":
        import_ray()  # missing: one line, before anything is written
    elif config.ray_address:
        raise UserError("only with --executor ray", place="--ray-address")
    return name


def _processes(config: RunConfig, executor: str, project: ProjectConfig) -> int:
    """`--processes`, else `[run] processes` in trialrun.toml, else 1 (local executor only)."""
    if config.processes is not None:
        if executor != "local":
            raise UserError(
                "only with the local executor; drop one of the two", place="--processes"
            )
        return check_processes(config.processes, "--processes") or 1
    if executor != "local":
        return 1
    value = project.section("run").get("processes")
    try:
        return check_processes(value, "[run] processes") or 1
    except UserError as exc:
        raise _in_config(exc, "[run] processes", "[run] processes", project) from None


def _ray_address(config: RunConfig, project: ProjectConfig) -> str | None:
    address = config.ray_address or project.section("run").get("ray_address")
    if address is not None and not isinstance(address, str):
        raise ConfigError('must be a string, e.g. "10.0.0.5:6379"', place="[run] ray_address",
                          source=project.path)
    return address or None


def _models_of(config: RunConfig) -> dict[str, str]:
    """Each model's label (its name in everything written: no URL, no secret) → its spec."""
    specs = list(config.models)
    if not specs:
        byo = config.agent or config.agent_cmd
        specs = [f"agent:{byo}"] if byo else [DEFAULT_MODEL]
    by_label: dict[str, str] = {}
    for spec in specs:
        label = model_label(spec)
        if label in by_label:
            raise UserError(
                f"--model: '{label}' is given twice (base URLs are not part of a model's "
                "name); run each endpoint in its own run"
            )
        by_label[label] = spec
    return by_label


def _default_agent(config: RunConfig, project: ProjectConfig) -> RunConfig:
    """The config with the run's default agent: --agent/--agent-cmd, else `[run] agent`
    in trialrun.toml (a task file's `agent:` sits between the two, per task)."""
    if config.agent or config.agent_cmd:
        return config
    configured = configured_agent(project)
    return config if configured is None else replace(config, agent=configured)


async def run_async(
    config: RunConfig, hooks: RunHooks | None = None, stop_rules: StopRules | None = None
) -> Run:
    """Run models × tasks × k trials into `out/<run-id>/` (or resume a run folder).

    `stop_rules` builds early stop's rule when it is on (`trialrun.tracking.early_stop_rule`
    compares with baselines); without it every planned trial runs. `config.project`: the
    trialrun.toml in force; None: found from the working directory, here, once."""
    _check_options(config)
    if config.project is None:  # the run's one look for trialrun.toml; passed down from here
        config = replace(config, project=load_config())
    with contextlib.ExitStack() as held:  # the run folder's lock, released last
        return await _run(config, hooks or RunHooks(), held, stop_rules)


@dataclass(slots=True)
class _Setup:
    """A run's parts, checked and built before anything is written."""

    config: RunConfig
    tasks: list[Task]
    paths: list[Path]
    warnings: list[str]
    spec_of: dict[str, str]  # model label -> spec
    executor: str
    processes: int
    models: dict[str, Model | None]
    judge: JudgeModel | None
    judge_spec: str | None
    judge_settings: JudgeSettings
    agent: Agent
    agent_timeout: float | None
    given_config: RunConfig  # as given (run.json records it: a resume asks trialrun.toml again)
    task_agents: dict[str, Agent]  # task id -> its own agent (a task file's `agent:`)
    by_task: dict[str, str]  # task id -> that agent's spec (for worker processes)
    project: ProjectConfig  # the run's trialrun.toml, read once by the entry point
    tool_settings: ToolSettings  # its [tools] tables, checked before anything is written
    settings: _Settings  # its part for models and agents (worker processes get it too)

    @property
    def labels(self) -> list[str]:
        return list(self.spec_of)

    def k_of(self) -> dict[str, int]:
        return {t.task_id: effective_k(t, self.config.k) for t in self.tasks}


async def _run(
    config: RunConfig, hooks: RunHooks, held: contextlib.ExitStack, stop_rules: StopRules | None
) -> Run:
    rundir, manifest, config = _resumed(config, held)
    early = held.enter_context(_early_workers(config))  # importing while the run loads
    setup = _set_up(config, manifest)
    scope, stop_rule = _early_stop(setup, manifest, stop_rules)
    infra_trials = configured_infra_trials(setup.project)  # a bad value: one line, first
    if rundir is None or manifest is None:
        rundir, manifest = _new_rundir(setup, scope, stop_rule, held)
        resumed = False
    else:
        rundir.repair_results()
        resumed = True
    # the end-of-run summary is added up as lines are written: nothing is read back
    summarizer = summarizer_for(manifest)
    done = _replayed(rundir, manifest, setup.tasks, stop_rule, summarizer.add) if resumed else []
    rundir.open_results()
    hooks = replace(hooks, trial=_also(summarizer.add, hooks.trial))
    specs = _planned(setup, done, stop_rule, hooks)
    ctx = _context(setup, rundir, infra_trials)
    executor = _executor_for(setup, ctx, infra_trials, len(specs), early)
    executed = Executed(0, False)
    try:
        executed = await executor.execute(specs, TrialSink(ctx, stop_rule, hooks))
    finally:
        await _close(setup, ctx)
        summary = summarizer.summary([w for w in setup.warnings if "unpinned" not in w])
        rundir.write_summary(summary)
    return Run(rundir.path, summary, executed.interrupted, summary.warnings, executed.finished)


def _resumed(
    config: RunConfig, held: contextlib.ExitStack
) -> tuple[RunDir | None, Manifest | None, RunConfig]:
    """A resume's run folder (locked before anything in it changes), its manifest and the
    config it replays; a new run: None, None and the config."""
    if config.resume is None:
        return None, None, config
    given_paths = [Path(p) for p in config.tasks if isinstance(p, (str, Path))]
    limits = RunDirLimits.of(_project(config))
    rundir = RunDir.open(Path(config.resume), fsync=config.fsync, limits=limits)
    held.enter_context(run_lock(rundir.path))
    manifest = rundir.manifest()
    return rundir, manifest, resumed_config(manifest, config, given_paths)


def _set_up(config: RunConfig, manifest: Manifest | None) -> _Setup:
    """Options, tasks, models, judge and agent: every check before anything is written."""
    given_config = config
    project = _project(config)
    config = _default_agent(config, project)
    if not config.tasks:
        raise UserError("no task paths given; pass task files or folders")
    executor = _executor(config, project)
    processes = _processes(config, executor, project)
    tool_settings = ToolSettings.from_config(project)
    if executor == "ray" and config.keep_artifacts:
        raise UserError(
            "--keep-artifacts: not with --executor ray (workspaces live on the workers); "
            "drop one of the two"
        )
    tasks, warnings, paths = _tasks_of(config)
    settings = _Settings.of(project)
    spec_of = _models_of(config)
    if manifest is not None:
        check_resumed_tasks(manifest, tasks, warnings)
    byo = bool(config.agent or config.agent_cmd)
    models: dict[str, Model | None] = {
        label: None
        if byo and label.startswith("agent:")
        else create_model(spec, settings=settings.providers)
        for label, spec in spec_of.items()
    }
    warnings.extend(script_coverage_warnings(models, tasks))
    judge_settings = config.judge_settings or JudgeSettings.from_config(project)
    judge_spec, judge = _judge_of(config, project, tasks, list(spec_of), warnings, settings)
    judge = JudgeModel(judge, judge_settings) if judge is not None else None
    timeouts = [t.environment.budgets.timeout_s for t in tasks if t.environment.budgets.timeout_s]
    agent_timeout = max(timeouts) if timeouts else None
    by_task = own_agents(bool(given_config.agent or given_config.agent_cmd), config.agent, tasks)
    uses_default = any(t.task_id not in by_task for t in tasks)
    loop = ToolLoopAgent(providers=settings.providers)
    agent = _make_agent(config, agent_timeout, settings) if uses_default else loop
    own = task_agents(
        by_task,
        lambda spec: ConversingAgent(
            make_agent(spec, None, timeout_s=agent_timeout, settings=settings.agents),
            settings.providers,
        ),
        {t.task_id: str(t.source or f"task {t.task_id}") for t in tasks},
    )
    warnings.extend(preset_tool_warnings(agent, [t for t in tasks if t.task_id not in own]))
    for task in tasks:
        if task.task_id in own:
            warnings.extend(preset_tool_warnings(own[task.task_id], [task]))
    warnings.extend(
        f"model '{spec}' is unpinned (-latest/-preview): results may drift"
        for spec in spec_of
        if is_unpinned(parse_model_spec(spec).model_id)
    )
    if executor == "ray":  # a dead address is one line, before anything is written
        connect_ray(_ray_address(config, project))
    return _Setup(config, tasks, paths, warnings, spec_of, executor, processes, models, judge,
                  judge_spec, judge_settings, agent, agent_timeout, given_config, own, by_task,
                  project, tool_settings, settings)  # fmt: skip


def _project(config: RunConfig) -> ProjectConfig:
    """The trialrun.toml `run_async` resolved (a caller of `_set_up` passes it in)."""
    if config.project is None:
        raise TypeError("RunConfig.project: resolved by run_async before the run is set up")
    return config.project


def _tasks_of(config: RunConfig) -> tuple[list[Task], list[str], list[Path]]:
    """The run's tasks (loaded, filtered, each runnable here, ids unique), warnings, paths."""
    tasks, warnings, paths = _load(
        config.tasks, config.skip_invalid, config.allow_external_links, _project(config)
    )
    tasks = [t for t in tasks if config.filters.matches(t)]
    if not tasks:
        raise UserError("no tasks match the filters (--task/--suite/--tier/--tag)")
    jailed = [t.task_id for t in tasks if t.environment.sandbox == "bwrap"]
    if jailed and not jail_available():
        raise UserError(
            f"task {jailed[0]}: environment.sandbox is bwrap, but bubblewrap does not work "
            "here; install it (apt-get install bubblewrap) or use sandbox: workspace"
        )
    seen: set[str] = set()
    for task in tasks:
        if task.task_id in seen:
            raise UserError(f"task id '{task.task_id}' appears twice; task ids must be unique")
        seen.add(task.task_id)
    return tasks, warnings, paths


def _judge_of(
    config: RunConfig,
    project: ProjectConfig,
    tasks: Sequence[Task],
    models: Sequence[str],
    warnings: list[str],
    settings: _Settings,
) -> tuple[str | None, Model | None]:
    """The judge's spec and model, when some task's grader needs one."""
    if not _needs_judge(tasks):
        return None, None
    judge_spec, judge_flag = _judge_spec(config.judge, project)
    if not judge_spec:
        warnings.append(
            "some tasks use judge graders but no judge model is configured "
            "(--judge or [judge] model in trialrun.toml): those verdicts are undetermined"
        )
        return None, None
    if model_label(judge_spec) in models and config.self_judge:
        warnings.append(self_judge_warning(judge_spec))
    elif model_label(judge_spec) in models:
        raise UserError(
            "is also a model under test, and a model never grades its own answers; pick "
            "another judge model", place=judge_flag, value=judge_spec,
            source=None if judge_flag == "--judge" else project.path or CONFIG_FILE_NAME,
        )
    try:
        return judge_spec, create_model(judge_spec, flag=judge_flag, settings=settings.providers)
    except UserError as exc:
        raise _in_config(exc, "[judge] model", judge_flag, project) from None


def _early_stop(
    setup: _Setup, manifest: Manifest | None, stop_rules: StopRules | None
) -> tuple[Scope, StopRule]:
    """What stops early (when the rule is enabled: None, every suite) and the rule it
    stops by, read once, before the first trial."""
    extra = manifest.extra if manifest is not None else None
    scope = scope_of(setup.config.early_stop, extra, setup.project)
    if scope is False:
        return None, NeverStop()
    suites = scope if isinstance(scope, frozenset) else None
    if stop_rules is None:
        setup.warnings.append("early stop: this caller gives no stop rule; every trial runs")
        return None, NeverStop()
    plan = StopPlan(
        suites=suites,
        baselines=baselines_folder(setup.config.baselines, extra),
        models=setup.labels,
        task_k=setup.k_of(),
        tasks=setup.tasks,
        project=setup.project,
    )
    return suites, stop_rules(plan, setup.warnings)


def _new_rundir(
    setup: _Setup, scope: Scope, stop_rule: StopRule, held: contextlib.ExitStack
) -> tuple[RunDir, Manifest]:
    """A new run's folder, locked, with its run.json."""
    config = setup.config
    manifest = new_manifest(
        new_run_id(), setup.given_config, setup.spec_of, setup.tasks, setup.paths
    )
    if stop_rule.enabled:  # a resume keeps stopping early, against the same baselines
        manifest.extra[EARLY_STOP_KEY] = recorded(scope)
        if stop_rule.baselines_dir is not None:
            manifest.extra[BASELINES_KEY] = str(stop_rule.baselines_dir)
    rundir = RunDir.create(Path(config.out), str(manifest.run_id), manifest, fsync=config.fsync,
                           limits=RunDirLimits.of(setup.project))
    held.enter_context(run_lock(rundir.path))
    return rundir, manifest


def _replayed(
    rundir: RunDir,
    manifest: Manifest,
    tasks: Sequence[Task],
    stop_rule: StopRule,
    add: Callable[[ResultLine], None],
) -> list[tuple[str, str, int]]:
    """A resume: the trials in the folder already, each shown to the stop rule and summary."""
    by_id = {t.task_id: t for t in tasks}
    done = []
    for line in rundir.iter_results(manifest=manifest):
        done.append(line.key)
        stop_rule.seen(line, by_id.get(line.task_id))
        add(line)
    return done


def _planned(
    setup: _Setup, done: list[tuple[str, str, int]], stop_rule: StopRule, hooks: RunHooks
) -> list[TrialSpec]:
    """The trials still to run (a settled task's left out), the hooks told the totals."""
    config, tasks = setup.config, setup.tasks
    specs = plan(tasks, setup.labels, config.k, done)
    specs = [s for s in specs if not stop_rule.is_settled(s.task.task_id, s.model)]
    if stop_rule.enabled:
        specs = trials_first(specs)
    total = sum(effective_k(t, config.k) for t in tasks) * len(setup.spec_of)
    if hooks.loaded:
        hooks.loaded(tasks, config.k)
    if hooks.start:
        hooks.start(total, total - len(specs))
    return specs


def _context(setup: _Setup, rundir: RunDir, infra_trials: int) -> RunContext:
    """What every trial shares: models, judge, agent, each task's tools and slugs, and the
    in-flight workspaces' folder (where a killed run's are found again)."""
    config = setup.config
    ctx = RunContext(
        rundir=rundir,
        agent=setup.agent,
        task_agents=setup.task_agents,
        models=setup.models,
        judge=setup.judge,
        keep_artifacts=config.keep_artifacts,
        infra_trials=infra_trials,
    )
    # transcript names must not collide: ids `a/b` and `a-b` (models `x:a b`, `x:a-b`) share a slug
    task_slugs = unique_slugs([t.task_id for t in setup.tasks])
    k_of = setup.k_of()
    for task in setup.tasks:
        prep = prepare_task(task, k_of[task.task_id], task_slugs[task.task_id], setup.tool_settings)
        ctx.prep[task.task_id] = prep
    ctx.model_slugs = unique_slugs(setup.labels)
    # one small parent folder: entries in a crowded /tmp cost milliseconds per trial
    ctx.workspace_parent = fresh_inflight_dir(rundir.path)
    ctx.images = WorkspaceImages()
    rundir.write_behind()
    ctx.io_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="trialrun-io")
    return ctx


def _early_workers(config: RunConfig) -> EarlyWorkers:
    """The worker processes a run with `processes > 1` will want, started before its
    tasks are loaded (none for a bad option: `_set_up` reports it, in its order)."""
    try:
        project = _project(config)
        executor = _executor(config, project)
        processes = _processes(config, executor, project)
        labels = list(_models_of(_default_agent(config, project)))
    except UserError:
        return EarlyWorkers()
    in_flight = config.concurrency or default_concurrency(labels)
    return EarlyWorkers(min(processes, in_flight) if processes > 1 and in_flight > 1 else 0)


def _executor_for(
    setup: _Setup, ctx: RunContext, infra_trials: int, planned: int, early: EarlyWorkers
) -> Executor:
    """The executor the options choose, the HTTP providers' pools sized for it."""
    config = setup.config
    in_flight = config.concurrency or default_concurrency(setup.labels)
    for obj in [*setup.models.values(), setup.judge]:
        size_pool = getattr(obj, "size_pool", None)  # HTTP providers: a connection per trial
        if callable(size_pool):
            size_pool(in_flight)
    if setup.executor != "ray" and not (setup.processes > 1 and in_flight > 1 and planned > 1):
        early.close()
        return LocalLoop(ctx, in_flight, config.handle_sigint)
    job = WorkerJob(
        model_specs=dict(setup.spec_of),
        judge_spec=setup.judge_spec,
        agent=config.agent,
        agent_cmd=config.agent_cmd,
        agent_api=config.agent_api,
        agent_timeout_s=setup.agent_timeout,
        task_agents=setup.by_task,
        address=_ray_address(config, setup.project) if setup.executor == "ray" else None,
        k_of=setup.k_of(),
        infra_trials=infra_trials,
        judge_settings=setup.judge_settings,
        tool_settings=setup.tool_settings,
        providers=setup.settings.providers,
        agent_settings=setup.settings.agents,
    )
    if setup.executor == "ray":
        return RayCluster(ctx, job, config.concurrency, config.handle_sigint)
    return WorkerProcesses(
        ctx, job, setup.processes, in_flight, config.handle_sigint, setup.warnings, early
    )


async def _close(setup: _Setup, ctx: RunContext) -> None:
    """After the trials, whatever happened: pending writes, providers, workspaces."""
    assert ctx.io_pool is not None
    ctx.io_pool.shutdown(wait=True)
    ctx.rundir.close()
    for obj in [*setup.models.values(), setup.judge]:
        if obj is not None:
            with contextlib.suppress(Exception):  # closing must not hide results
                await obj.aclose()
    if ctx.workspace_parent is not None:
        remove_tree(ctx.workspace_parent)  # kept workspaces were moved out already


def _also(
    first: Callable[[ResultLine], None], then: Callable[[ResultLine], None] | None
) -> Callable[[ResultLine], None]:
    if then is None:
        return first

    def both(line: ResultLine) -> None:
        first(line)
        then(line)

    return both


def unique_slugs(names: Sequence[str]) -> dict[str, str]:
    """name -> file-name slug; names whose slugs collide get a short hash of the name added."""
    slugs = {name: slugify(name) for name in names}
    counts: dict[str, int] = {}
    for slug in slugs.values():
        counts[slug] = counts.get(slug, 0) + 1
    return {
        name: slug if counts[slug] == 1 else f"{slug}-{hashlib.sha1(name.encode()).hexdigest()[:8]}"
        for name, slug in slugs.items()
    }


def run(
    source: Any = None,
    models: Sequence[str] | None = None,
    /,
    *,
    hooks: RunHooks | None = None,
    stop_rules: StopRules | None = None,
    **options: Any,
) -> Run:
    """Run an eval: `run(RunConfig(...))`, or `run("evals/", ["local"], k=3)`.

    `source`: a RunConfig, or task paths / Task objects (then `models` and `options` are
    RunConfig fields). Returns the `Run` (folder, summary, results); bad input is a
    UserError.
    """
    if models is not None:
        options["models"] = models
    return asyncio.run(run_async(RunConfig.of(source, **options), hooks, stop_rules))
