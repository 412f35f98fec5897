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
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.agents import Agent, ConversingAgent, ToolLoopAgent, make_agent, preset_names
from trialrun.config import load_config
from trialrun.core import is_unpinned, model_label, parse_model_spec, slugify
from trialrun.errors import UserError
from trialrun.graders import GRADERS
from trialrun.judge import check_judge_spec, self_judge_warning
from trialrun.metrics import summarizer_for
from trialrun.models import create_model
from trialrun.rundir import Manifest, ResultLine, RunDir, new_run_id
from trialrun.runner._agent_tools import preset_tool_warnings
from trialrun.runner._config import Run, RunConfig, RunHooks
from trialrun.runner._early_stop import (
    BASELINES_KEY,
    EARLY_STOP_KEY,
    baselines_folder,
    recorded,
    scope_of,
    settlement_for,
)
from trialrun.runner._inflight import fresh_inflight_dir, run_lock
from trialrun.runner._infra_trials import configured_infra_trials
from trialrun.runner._interrupt import on_interrupt
from trialrun.runner._manifest import check_resumed_tasks, new_manifest, resumed_config
from trialrun.runner._plan import TrialSpec, effective_k, plan, trials_first
from trialrun.runner._processes import check_processes, execute_processes
from trialrun.runner._ray import (
    check_executor,
    connect_ray,
    execute_ray,
    import_ray,
)
from trialrun.runner._remote import WorkerJob, write_finished
from trialrun.runner._settle import Settlement
from trialrun.runner._task_agents import configured_agent, own_agents, task_agents
from trialrun.runner._trial import RunContext, prepare_task, run_trial
from trialrun.sandbox import WorkspaceImages, jail_available, remove_tree
from trialrun.tasks import Task, load_tasks, report_problems_and_exit
from trialrun.tools import load_pack

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
    source: Sequence[Path | str | Task], skip_invalid: bool, allow_external_links: bool = False
) -> tuple[list[Task], list[str], list[Path]]:
    """Tasks, warnings and the task paths (when given as paths)."""
    given = [s for s in source if isinstance(s, Task)]
    if source and len(given) == len(source):
        return given, [], []
    if given:
        raise UserError("tasks: pass task paths or Task objects, not a mix of both")
    paths = [Path(p) for p in source if not isinstance(p, Task)]
    report = load_tasks(paths, allow_external_links=allow_external_links, agents=preset_names())
    warnings = [str(w) for w in report.warnings]
    try:
        tasks = report_problems_and_exit(report, skip_invalid, echo=lambda _line: None)
    except UserError as exc:
        lines = [str(p) for p in report.problems]
        raise UserError("\n".join([*lines, str(exc)])) from None
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


def _judge_spec(judge: str | None) -> tuple[str | None, str]:
    """The judge spec and where it came from (the flag or config key errors name)."""
    if judge:
        return judge, "--judge"
    section = load_config().section("judge")
    spec = section.get("model")
    if not spec:
        return None, "--judge"
    where = "[judge] model (trialrun.toml)"
    if not isinstance(spec, str):
        raise UserError(f"{where}: must be a model spec string, e.g. \"local\"")
    try:
        check_judge_spec(spec)
    except UserError as exc:
        message = str(exc)
        raise UserError(
            where + message[len("--judge") :] if message.startswith("--judge") else message
        ) from None
    return spec, where


def _make_agent(config: RunConfig, timeout_s: float | None) -> Agent:
    if config.agent or config.agent_cmd:
        # an agent that answers once talks to a task's simulated user turn by turn
        return ConversingAgent(
            make_agent(
                config.agent, config.agent_cmd, timeout_s=timeout_s, agent_api=config.agent_api
            )
        )
    return ToolLoopAgent()


def _check_options(config: RunConfig) -> None:
    if config.concurrency is not None and config.concurrency < 1:
        raise UserError(f"--concurrency {config.concurrency}: must be at least 1")
    out = Path(config.out)
    if config.executor is not None:
        check_executor(config.executor)
    if config.resume is None and out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: is a file, not a folder; pass a folder for run folders")


def _executor(config: RunConfig) -> str:
    """`--executor`, else `[run] executor` in trialrun.toml, else local; ray checked here."""
    name = config.executor
    if name is None:
        value = load_config().section("run").get("executor", "local")
        if not isinstance(value, str):
            raise UserError('[run] executor (trialrun.toml): must be "local" or "ray"')
        try:
            check_executor(value)
        except UserError:
            raise UserError(
                f'[run] executor (trialrun.toml): unknown executor {value!r}; use "local" or "ray"'
            ) from None
        name = value
    if name == "ray":
        import_ray()  # missing: one line, before anything is written
    elif config.ray_address:
        raise UserError("--ray-address: only with --executor ray")
    return name


def _processes(config: RunConfig, executor: str) -> int:
    """`--processes`, else `[run] processes` in trialrun.toml, else 1 (local executor only)."""
    if config.processes is not None:
        if executor != "local":
            raise UserError("--processes: only with the local executor; drop one of the two")
        return check_processes(config.processes, "--processes") or 1
    if executor != "local":
        return 1
    value = load_config().section("run").get("processes")
    return check_processes(value, "[run] processes (trialrun.toml)") or 1


def _ray_address(config: RunConfig) -> str | None:
    address = config.ray_address or load_config().section("run").get("ray_address")
    if address is not None and not isinstance(address, str):
        raise UserError('[run] ray_address (trialrun.toml): must be a string, e.g. "10.0.0.5:6379"')
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


def _default_agent(config: RunConfig) -> RunConfig:
    """The config with the run's default agent: --agent/--agent-cmd, else `[run] agent`
    in trialrun.toml (a task file's `agent:` sits between the two, per task)."""
    if config.agent or config.agent_cmd:
        return config
    configured = configured_agent()
    return config if configured is None else replace(config, agent=configured)


async def run_async(config: RunConfig, hooks: RunHooks | None = None) -> Run:
    """Run models × tasks × k trials into `out/<run-id>/` (or resume a run folder)."""
    _check_options(config)
    with contextlib.ExitStack() as held:  # the run folder's lock, released last
        return await _run(config, hooks or RunHooks(), held)


async def _run(config: RunConfig, hooks: RunHooks, held: contextlib.ExitStack) -> Run:
    given_paths = [Path(p) for p in config.tasks if isinstance(p, (str, Path))]
    rundir: RunDir | None = None
    manifest: Manifest | None = None
    if config.resume is not None:
        rundir = RunDir.open(Path(config.resume), fsync=config.fsync)
        held.enter_context(run_lock(rundir.path))  # before anything in it changes
        manifest = rundir.manifest()
        config = resumed_config(manifest, config, given_paths)
    given_config = config  # what run.json records: a resume asks trialrun.toml again
    config = _default_agent(config)
    if not config.tasks:
        raise UserError("no task paths given; pass task files or folders")

    executor = _executor(config)
    processes = _processes(config, executor)
    if executor == "ray" and config.keep_artifacts:
        raise UserError(
            "--keep-artifacts: not with --executor ray (workspaces live on the workers); "
            "drop one of the two"
        )
    tasks, warnings, paths = _load(config.tasks, config.skip_invalid, config.allow_external_links)
    given = bool(given_config.agent or given_config.agent_cmd)
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
    spec_of = _models_of(config)
    models = list(spec_of)
    if manifest is not None:
        check_resumed_tasks(manifest, tasks, warnings)

    # models, judge, agent: created before anything is written
    byo = bool(config.agent or config.agent_cmd)
    model_objs: dict[str, Model | None] = {
        label: None if byo and label.startswith("agent:") else create_model(spec)
        for label, spec in spec_of.items()
    }
    judge_obj: Model | None = None
    judge_spec: str | None = None
    if _needs_judge(tasks):
        judge_spec, judge_flag = _judge_spec(config.judge)
        if judge_spec and model_label(judge_spec) in models and config.self_judge:
            warnings.append(self_judge_warning(judge_spec))
        elif judge_spec and model_label(judge_spec) in models:
            raise UserError(
                f"{judge_flag} {judge_spec}: is also a model under test, and a model never "
                "grades its own answers; pick another judge model"
            )
        if judge_spec:
            judge_obj = create_model(judge_spec, flag=judge_flag)
        else:
            warnings.append(
                "some tasks use judge graders but no judge model is configured "
                "(--judge or [judge] model in trialrun.toml): those verdicts are undetermined"
            )
    timeouts = [t.environment.budgets.timeout_s for t in tasks if t.environment.budgets.timeout_s]
    agent_timeout = max(timeouts) if timeouts else None
    by_task = own_agents(given, config.agent, tasks)
    uses_default = any(t.task_id not in by_task for t in tasks)
    agent_obj = _make_agent(config, agent_timeout) if uses_default else ToolLoopAgent()
    own = task_agents(
        by_task,
        lambda spec: ConversingAgent(make_agent(spec, None, timeout_s=agent_timeout)),
        {t.task_id: str(t.source or f"task {t.task_id}") for t in tasks},
    )
    warnings.extend(preset_tool_warnings(agent_obj, [t for t in tasks if t.task_id not in own]))
    for task in tasks:
        if task.task_id in own:
            warnings.extend(preset_tool_warnings(own[task.task_id], [task]))
    for spec in models:
        if is_unpinned(parse_model_spec(spec).model_id):
            warnings.append(f"model '{spec}' is unpinned (-latest/-preview): results may drift")

    if executor == "ray":  # a dead address is one line, before anything is written
        connect_ray(_ray_address(config))

    # early stop: what it applies to and the baselines, read once, before the first trial
    extra = manifest.extra if manifest is not None else None
    scope = scope_of(config.early_stop, extra)
    baselines = baselines_folder(config.baselines, extra).resolve()
    settlement = settlement_for(scope, baselines, models, config.k, warnings, tasks)
    infra_trials = configured_infra_trials()  # a bad value: one line, before any writing

    # the run folder
    if rundir is None or manifest is None:
        manifest = new_manifest(new_run_id(), given_config, spec_of, tasks, paths)
        if scope is not False:  # a resume keeps stopping early, against the same baselines
            manifest.extra[EARLY_STOP_KEY] = recorded(scope)
            manifest.extra[BASELINES_KEY] = str(baselines)
        rundir = RunDir.create(Path(config.out), str(manifest.run_id), manifest, fsync=config.fsync)
        held.enter_context(run_lock(rundir.path))
        resumed = False
    else:
        rundir.repair_results()
        resumed = True
    # the end-of-run summary is added up as lines are written: nothing is read back
    summarizer = summarizer_for(manifest)
    done: list[tuple[str, str, int]] = []
    if resumed:
        by_id = {t.task_id: t for t in tasks}
        for line in rundir.iter_results(manifest=manifest):
            done.append(line.key)
            settlement.seen(line, by_id.get(line.task_id))
            summarizer.add(line)
    rundir.open_results()
    hooks = replace(hooks, trial=_also(summarizer.add, hooks.trial))

    specs = plan(tasks, models, config.k, done)
    specs = [s for s in specs if not settlement.is_settled(s.task.task_id, s.model)]
    if settlement.enabled:
        specs = trials_first(specs)
    total = sum(effective_k(t, config.k) for t in tasks) * len(models)
    if hooks.loaded:
        hooks.loaded(tasks, config.k)
    if hooks.start:
        hooks.start(total, total - len(specs))

    ctx = RunContext(
        rundir=rundir,
        agent=agent_obj,
        task_agents=own,
        models=model_objs,
        judge=judge_obj,
        keep_artifacts=config.keep_artifacts,
        infra_trials=infra_trials,
    )
    # transcript names must not collide: ids `a/b` and `a-b` (models `x:a b`, `x:a-b`) share a slug
    task_slugs = unique_slugs([t.task_id for t in tasks])
    for task in tasks:
        k = effective_k(task, config.k)
        ctx.prep[task.task_id] = prepare_task(task, k, task_slugs[task.task_id], load_pack)
    ctx.model_slugs = unique_slugs(models)

    workers_n = config.concurrency or default_concurrency(models)
    for obj in [*model_objs.values(), judge_obj]:
        size_pool = getattr(obj, "size_pool", None)  # HTTP providers: a connection per trial
        if callable(size_pool):
            size_pool(workers_n)
    interrupted = False
    finished = 0
    # trials in flight work in `<run>/.workspaces/`, where a killed run's are found again
    # (and one small parent folder: entries in a crowded /tmp cost milliseconds per trial)
    ctx.workspace_parent = fresh_inflight_dir(rundir.path)
    ctx.images = WorkspaceImages()
    rundir.write_behind()
    ctx.io_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="trialrun-io")
    try:
        job = WorkerJob(
            model_specs=dict(spec_of),
            judge_spec=judge_spec,
            agent=config.agent,
            agent_cmd=config.agent_cmd,
            agent_api=config.agent_api,
            agent_timeout_s=agent_timeout,
            task_agents=by_task,
            address=_ray_address(config) if executor == "ray" else None,
            k_of={t.task_id: effective_k(t, config.k) for t in tasks},
            infra_trials=infra_trials,
        )
        if executor == "ray":
            finished, interrupted = await execute_ray(
                specs, ctx, job, config.concurrency, hooks, config.handle_sigint, settlement
            )
        elif processes > 1 and workers_n > 1 and len(specs) > 1:
            finished, interrupted = await execute_processes(
                specs, ctx, job, processes, workers_n, hooks, config.handle_sigint, settlement,
                warnings,
            )
        else:
            finished, interrupted = await _execute(
                specs, ctx, workers_n, hooks, config.handle_sigint, settlement
            )
    finally:
        ctx.io_pool.shutdown(wait=True)
        rundir.close()
        for obj in [*model_objs.values(), judge_obj]:
            if obj is not None:
                with contextlib.suppress(Exception):  # closing must not hide results
                    await obj.aclose()
        remove_tree(ctx.workspace_parent)  # kept workspaces were moved out already
        summary = summarizer.summary([w for w in warnings if "unpinned" not in w])
        rundir.write_summary(summary)
    return Run(rundir.path, summary, interrupted, summary.warnings, finished)


async def _execute(
    specs: list[TrialSpec],
    ctx: RunContext,
    workers_n: int,
    hooks: RunHooks,
    handle_sigint: bool,
    settlement: Settlement | None = None,
) -> tuple[int, bool]:
    settlement = settlement or Settlement()
    queue = iter(specs)
    finished = 0
    stop = False
    loop = asyncio.get_running_loop()

    async def worker() -> None:
        nonlocal finished
        for spec in queue:
            if stop:
                return
            if settlement.is_settled(spec.task.task_id, spec.model):
                settlement.skipped += 1
                continue
            line = await run_trial(spec, ctx)  # its transcript is written already
            write_finished(ctx, spec, line, None, settlement, hooks)
            finished += 1

    if workers_n == 1 or len(specs) <= 1:
        tasks = [asyncio.ensure_future(worker())]
    else:
        tasks = [asyncio.ensure_future(worker()) for _ in range(min(workers_n, len(specs)))]

    def on_sigint() -> None:
        nonlocal stop
        stop = True
        for t in tasks:
            t.cancel()

    with on_interrupt(loop, on_sigint, handle_sigint):
        results = await asyncio.gather(*tasks, return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
            raise r
    return finished, stop


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
    **options: Any,
) -> Run:
    """Run an eval: `run(RunConfig(...))`, or `run("evals/", ["local"], k=3)`.

    `source`: a RunConfig, or task paths / Task objects (then `models` and `options` are
    RunConfig fields). Returns the `Run` (folder, summary, results); bad input is a
    UserError.
    """
    if models is not None:
        options["models"] = models
    return asyncio.run(run_async(RunConfig.of(source, **options), hooks))
