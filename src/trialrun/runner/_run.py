"""run_suite: load → plan → run trials concurrently → results.jsonl → summary.json.

The CLI is a thin shell over `run_suite`. Ctrl-C (SIGINT) stops scheduling, cancels the
trials in flight (their workspaces are removed, nothing half-written), keeps every line
already written, rewrites summary.json and returns `interrupted=True`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.errors import UserError
from trialrun.runner._plan import Filters, TrialSpec, effective_k, plan
from trialrun.runner._store import RunStore, new_run_id
from trialrun.runner._trial import RunContext, prepare_task, run_trial

if TYPE_CHECKING:
    from trialrun.agents._types import Agent
    from trialrun.models._types import Model
    from trialrun.tasks._model import Task
    from trialrun.tasks._problems import LoadReport

DEFAULT_MODEL = "local"
LOCAL_PROVIDERS = frozenset({"local"})
DEFAULT_CONCURRENCY = 4


@dataclass(slots=True)
class RunOutcome:
    run_dir: Path
    summary: dict[str, Any]
    interrupted: bool = False
    warnings: list[str] = field(default_factory=list)
    trials_run: int = 0


@dataclass(slots=True)
class RunHooks:
    """Progress callbacks: `start(total, already_done)` once, `trial(line)` per trial."""

    start: Callable[[int, int], None] | None = None
    trial: Callable[[dict[str, Any]], None] | None = None


def default_concurrency(models: Sequence[str]) -> int:
    """1 when any model runs in-process on this machine (`local`), else 4."""
    if any(m.partition(":")[0] in LOCAL_PROVIDERS for m in models):
        return 1
    return DEFAULT_CONCURRENCY


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _git_sha(paths: Sequence[Path]) -> str | None:
    folder = next((p if p.is_dir() else p.parent for p in paths), Path.cwd())
    try:
        out = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def task_meta(task: Task, k: int | None) -> dict[str, Any]:
    return {
        "task_id": task.task_id,
        "suite": task.suite,
        "tier": task.tier,
        "tags": list(task.tags),
        "policy": task.policy,
        "k": effective_k(task, k),
        "metric": task.metric,
        "gates": task.gates.model_dump(),
        "source": str(task.source) if task.source else None,
    }


def _load(
    source: Sequence[Path | str] | Sequence[Task] | LoadReport, skip_invalid: bool
) -> tuple[list[Task], list[str], list[Path]]:
    """Tasks, warnings and the task paths (when given as paths)."""
    from trialrun.tasks import Task, load_tasks
    from trialrun.tasks._problems import LoadReport

    if isinstance(source, LoadReport):
        report = source
        paths: list[Path] = []
    elif source and all(isinstance(s, Task) for s in source):
        return list(source), [], []  # type: ignore[arg-type]
    else:
        paths = [Path(p) for p in source]  # type: ignore[arg-type]
        report = load_tasks(paths)
    from trialrun.tasks import report_problems_and_exit

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
    from trialrun.graders._types import GRADERS

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
    from trialrun.config import load_config

    section = load_config().section("judge")
    spec = section.get("model")
    if not spec:
        return None, "--judge"
    where = "[judge] model (trialrun.toml)"
    if not isinstance(spec, str):
        raise UserError(f"{where}: must be a model spec string, e.g. \"local\"")
    from trialrun.judge import check_judge_spec

    try:
        check_judge_spec(spec)
    except UserError as exc:
        message = str(exc)
        raise UserError(
            where + message[len("--judge") :] if message.startswith("--judge") else message
        ) from None
    return spec, where


def _make_agent(agent: str | None, agent_cmd: str | None, timeout_s: float | None) -> Agent:
    if agent or agent_cmd:
        try:
            from trialrun.agents.factory import make_agent
        except ImportError:  # pragma: no cover - until the adapters land
            flag = "--agent" if agent else "--agent-cmd"
            raise UserError(
                f"{flag}: bring-your-own agents are not available in this build"
            ) from None
        return make_agent(agent, agent_cmd, timeout_s=timeout_s)
    from trialrun.agents.loop import ToolLoopAgent

    return ToolLoopAgent()


def _agent_label(agent: str | None, agent_cmd: str | None) -> str:
    ref = agent or agent_cmd or "agent"
    return f"agent:{ref}"


def _check_resume(
    manifest: dict[str, Any],
    paths: list[Path],
    models: list[str] | None,
    k: int | None,
    filters: Filters,
) -> tuple[list[Path], list[str], int | None, Filters]:
    """The run's own paths/models/k/filters; a different value given → UserError (exit 2)."""
    where = "run.json"
    old_paths = [Path(p) for p in manifest.get("paths") or []]
    if paths and [str(p.resolve()) for p in paths] != [str(p) for p in old_paths]:
        raise UserError(
            f"--resume: task paths differ from {where} "
            f"({', '.join(map(str, old_paths)) or 'none'}); pass the same paths or none"
        )
    old_models = list(manifest.get("models") or [])
    if not old_models:
        raise UserError(
            f"--resume: {where} lists no models; the run manifest is damaged (restore it, "
            "or start a new run)"
        )
    if models and list(models) != old_models:
        raise UserError(
            f"--resume: models differ from {where} ({', '.join(old_models)}); "
            "pass the same --model flags or none"
        )
    old_k = manifest.get("k")
    if k is not None and k != old_k:
        raise UserError(
            f"--resume: k={k} differs from {where} (k={old_k}); pass the same -k or none"
        )
    old_filters = Filters(**(manifest.get("filters") or {}))
    given = filters.as_dict()
    if any(given.values()) and given != old_filters.as_dict():
        raise UserError(
            f"--resume: task filters differ from {where} ({old_filters.as_dict()}); "
            "pass the same --task/--suite/--tier/--tag or none"
        )
    return old_paths, old_models, old_k, old_filters


async def run_suite_async(
    source: Sequence[Path | str] | Sequence[Task] | LoadReport | None,
    models: Sequence[str] | None = None,
    *,
    k: int | None = None,
    out: Path | str = "results",
    concurrency: int | None = None,
    filters: Filters | None = None,
    resume: Path | str | None = None,
    keep_artifacts: bool = False,
    skip_invalid: bool = False,
    judge: str | None = None,
    agent: str | None = None,
    agent_cmd: str | None = None,
    argv: list[str] | None = None,
    hooks: RunHooks | None = None,
    fsync: bool = True,
    handle_sigint: bool = True,
) -> RunOutcome:
    from trialrun.metrics import summarize
    from trialrun.models import create_model
    from trialrun.tools import load_pack

    if k is not None and k < 1:
        raise UserError(f"-k {k}: k must be at least 1")
    if concurrency is not None and concurrency < 1:
        raise UserError(f"--concurrency {concurrency}: must be at least 1")
    if resume is None and Path(out).exists() and not Path(out).is_dir():
        raise UserError(f"--out {out}: is a file, not a folder; pass a folder for run folders")
    filters = filters or Filters()
    hooks = hooks or RunHooks()
    model_list = list(models or [])
    store: RunStore
    manifest: dict[str, Any] | None = None
    given_paths = (
        [Path(p) for p in source if isinstance(p, (str, Path))]
        if isinstance(source, (list, tuple))
        else []
    )
    if resume is not None:
        store = RunStore.open_existing(Path(resume), fsync=fsync)
        manifest = store.read_manifest()
        old_paths, model_list, k, filters = _check_resume(
            manifest, given_paths, model_list or None, k, filters
        )
        if source is None or (isinstance(source, (list, tuple)) and not source):
            source = old_paths
        judge = judge or manifest.get("judge")
        agent = agent or manifest.get("agent")
        agent_cmd = agent_cmd or manifest.get("agent_cmd")
        keep_artifacts = keep_artifacts or bool(manifest.get("keep_artifacts"))
    if source is None or (isinstance(source, (list, tuple)) and not source):
        raise UserError("no task paths given; pass task files or folders")

    tasks, warnings, paths = _load(source, skip_invalid)
    tasks = [t for t in tasks if filters.matches(t)]
    if not tasks:
        raise UserError("no tasks match the filters (--task/--suite/--tier/--tag)")
    seen: set[str] = set()
    for task in tasks:
        if task.task_id in seen:
            raise UserError(f"task id '{task.task_id}' appears twice; task ids must be unique")
        seen.add(task.task_id)

    if not model_list:
        model_list = [_agent_label(agent, agent_cmd)] if (agent or agent_cmd) else [DEFAULT_MODEL]
    if len(set(model_list)) != len(model_list):
        raise UserError("--model: the same model is given twice")

    if manifest is not None:
        old_ids = [t.get("task_id") for t in manifest.get("tasks") or []]
        new_ids = [t.task_id for t in tasks]
        if old_ids and sorted(old_ids) != sorted(new_ids):
            raise UserError(
                "--resume: the selected tasks differ from run.json "
                f"({len(old_ids)} then, {len(new_ids)} now); restore the task files"
            )
        old_hashes = {f.get("path"): f.get("sha256") for f in manifest.get("task_files") or []}
        for task in tasks:
            source_key = str(task.source) if task.source else None
            if source_key in old_hashes and _sha256(Path(source_key)) != old_hashes[source_key]:
                warnings.append(f"{task.source}: changed since the run started")

    # models, judge, agent: created before anything is written
    model_objs: dict[str, Model | None] = {}
    agent_obj: Agent
    byo = bool(agent or agent_cmd)
    for spec in model_list:
        if byo and spec.startswith("agent:"):
            model_objs[spec] = None
        else:
            model_objs[spec] = create_model(spec)
    judge_obj: Model | None = None
    if _needs_judge(tasks):
        judge_spec, judge_flag = _judge_spec(judge)
        if judge_spec and judge_spec.strip() in model_list:
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
    agent_obj = _make_agent(agent, agent_cmd, max(timeouts) if timeouts else None)

    from trialrun.models import is_unpinned, parse_model_spec

    for spec in model_list:
        if is_unpinned(parse_model_spec(spec).model_id):
            warnings.append(f"model '{spec}' is unpinned (-latest/-preview): results may drift")

    # the run directory
    if manifest is None:
        run_id = new_run_id()
        sources = list(dict.fromkeys(Path(t.source) for t in tasks if t.source is not None))
        manifest = {
            "run_id": run_id,
            "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "argv": list(argv if argv is not None else sys.argv),
            "task_files": [{"path": str(p), "sha256": _sha256(p)} for p in sources],
            "models": model_list,
            "k": k,
            "git_sha": _git_sha(paths or sources),
            "trialrun_version": _version(),
            "python_version": platform.python_version(),
            "tasks": [task_meta(t, k) for t in tasks],
            # extras, for --resume
            "paths": [str(p.resolve()) for p in paths],
            "filters": filters.as_dict(),
            "judge": judge,
            "agent": agent,
            "agent_cmd": agent_cmd,
            "keep_artifacts": keep_artifacts,
        }
        store = RunStore.create(Path(out), run_id, manifest, fsync=fsync)
        done: list[tuple[str, str, int]] = []
    else:
        store.repair_results()
        existing = store.read_results() if store.results_path.exists() else []
        done = [(str(x["task_id"]), str(x["model"]), int(x["trial"])) for x in existing]
    store.open_results()
    run_id = str(manifest["run_id"])

    specs = plan(tasks, model_list, k, done)
    total = sum(effective_k(t, k) for t in tasks) * len(model_list)
    if hooks.start:
        hooks.start(total, total - len(specs))

    ctx = RunContext(store=store, agent=agent_obj, models=model_objs, judge=judge_obj)
    ctx.keep_artifacts = keep_artifacts
    # one small parent folder per run: creating and removing entries in a crowded /tmp
    # costs milliseconds per trial
    ctx.workspace_parent = (
        store.dir / "workspaces" / ".tmp"
        if keep_artifacts
        else _fresh_dir(Path(tempfile.gettempdir()) / f"trialrun-{run_id}")
    )
    for task in tasks:
        ctx.prep[task.task_id] = prepare_task(task, effective_k(task, k), load_pack)
    # transcript names must not collide: ids `a/b` and `a-b` (models `x:a b`, `x:a-b`) share a slug
    task_slugs = unique_slugs([t.task_id for t in tasks])
    for task in tasks:
        ctx.prep[task.task_id].task_slug = task_slugs[task.task_id]
    ctx.model_slugs = unique_slugs(model_list)

    workers_n = concurrency or default_concurrency(model_list)
    interrupted = False
    finished = 0
    ctx.io_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="trialrun-io")
    try:
        finished, interrupted = await _execute(specs, ctx, workers_n, hooks, handle_sigint)
    finally:
        ctx.io_pool.shutdown(wait=True)
        store.close()
        for obj in [*model_objs.values(), judge_obj]:
            if obj is not None:
                with contextlib.suppress(Exception):  # closing must not hide results
                    await obj.aclose()
        if keep_artifacts:
            with contextlib.suppress(OSError):
                ctx.workspace_parent.rmdir()
        else:
            shutil.rmtree(ctx.workspace_parent, ignore_errors=True)
        results = store.read_results()
        summary = summarize(
            results,
            manifest.get("tasks"),
            run_id=run_id,
            models=model_list,
            k=manifest.get("k"),
            warnings=[w for w in warnings if "unpinned" not in w],
        )
        store.write_summary(summary)
    return RunOutcome(store.dir, summary, interrupted, summary["warnings"], finished)


async def _execute(
    specs: list[TrialSpec], ctx: RunContext, workers_n: int, hooks: RunHooks, handle_sigint: bool
) -> tuple[int, bool]:
    queue = iter(specs)
    finished = 0
    stop = False
    loop = asyncio.get_running_loop()

    async def worker() -> None:
        nonlocal finished
        for spec in queue:
            if stop:
                return
            line = await run_trial(spec, ctx)
            ctx.store.append(line, sync=False)
            if ctx.io_pool is not None:
                ctx.store.sync_soon(ctx.io_pool)
            else:
                ctx.store.sync()
            finished += 1
            if hooks.trial:
                hooks.trial(line)

    if workers_n == 1 or len(specs) <= 1:
        tasks = [asyncio.ensure_future(worker())]
    else:
        tasks = [asyncio.ensure_future(worker()) for _ in range(min(workers_n, len(specs)))]
    installed = False

    def on_sigint() -> None:
        nonlocal stop
        stop = True
        for t in tasks:
            t.cancel()

    if handle_sigint:
        try:
            loop.add_signal_handler(signal.SIGINT, on_sigint)
            installed = True
        except (NotImplementedError, RuntimeError, ValueError):
            installed = False
    try:
        results = await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)
    for r in results:
        if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
            raise r
    return finished, stop


def unique_slugs(names: Sequence[str]) -> dict[str, str]:
    """name -> file-name slug; names whose slugs collide get a short hash of the name added."""
    from trialrun.models import slugify

    slugs = {name: slugify(name) for name in names}
    counts: dict[str, int] = {}
    for slug in slugs.values():
        counts[slug] = counts.get(slug, 0) + 1
    return {
        name: slug if counts[slug] == 1 else f"{slug}-{hashlib.sha1(name.encode()).hexdigest()[:8]}"
        for name, slug in slugs.items()
    }


def _fresh_dir(path: Path) -> Path:
    """An empty folder at a name fixed by the run id: a resume clears what a killed run left."""
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def _version() -> str:
    from trialrun import __version__

    return __version__


def run_suite(
    source: Sequence[Path | str] | Sequence[Task] | LoadReport | None,
    models: Sequence[str] | None = None,
    **kwargs: Any,
) -> RunOutcome:
    """Run models × tasks × k trials into `out/<run-id>/`; see `run_suite_async`.

    `source`: task paths (files or folders), Task objects, or a LoadReport; None with
    `resume=RUN_DIR` takes the run's own paths.
    """
    return asyncio.run(run_suite_async(source, models, **kwargs))
