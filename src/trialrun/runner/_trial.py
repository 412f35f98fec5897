"""One trial: workspace → agent → snapshot → `grade_trial` → one `ResultLine`.

An infrastructure error (the workspace could not be made, the provider unreachable after
retries) is pass = solve = None with error.kind "infra"; everything else is graded by
`trialrun.graders.grade_trial`, the same path regrading takes. A task's `timeout_s` is a
budget of answers, tool calls and agent work (`BudgetClock`), not of waiting on providers.

A trial that ends in an infra error is run again, in a fresh workspace, up to
`RunContext.infra_trials` times (`[retries] infra_trials`; not one whose agent asked for a
model the run does not serve, which would ask again); only its last attempt is
written. A line whose trial was run again says so: `attempts` (how many ran) and
`retried_errors` (the earlier attempts' infra errors, one short message each, also in the
transcript). Every executor (this process, worker processes, Ray) runs trials through
`run_trial`, so each re-runs them alike.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from trialrun.agents import NOT_SERVED_PREFIX, AgentLimits, AgentRun, conversation_text
from trialrun.core import Verdict, slugify
from trialrun.errors import InfraError
from trialrun.graders import TrialView, grade_trial, trajectory_figures
from trialrun.rundir import WORKSPACES, ResultLine, RunDir, Transcript
from trialrun.runner._budget import BudgetClock, MeteredModel
from trialrun.runner._faults import FaultyToolbox
from trialrun.runner._first_call import FirstCallClock
from trialrun.sandbox import Workspace, WorkspaceImages, diff_snapshots, workspace_key
from trialrun.tools import Tool, Toolbox, ToolContext, ToolSettings, load_pack

if TYPE_CHECKING:
    from trialrun.agents import Agent
    from trialrun.models import Model
    from trialrun.runner._plan import TrialSpec
    from trialrun.tasks import Task


T = TypeVar("T")
RETRIED_MESSAGE_CHARS = 200  # an earlier attempt's infra error, as `retried_errors` keeps it
# A task whose fresh workspace holds at most this many files and bytes has its workspace
# made and hashed on the event loop: a hand-off to an I/O thread costs more than those few
# system calls (on a busy loop ~25 context switches for each, the I/O thread waiting for
# the GIL after each call), and the trial waits for them either way. Larger workspaces are
# made on the I/O threads, where their copies and hashes run beside the loop. Removal stays
# on the I/O threads whatever the size: nobody waits for it, and an unlink or rmdir can
# block on the file system's journal (measured: removing inline on the loop cut trials/s
# 2-3x on a loaded machine).
INLINE_WORKSPACE_FILES = 64
INLINE_WORKSPACE_BYTES = 1024 * 1024


@dataclass(slots=True)
class TaskPrep:
    """Per-task work done once per run: tools, limits, metadata copied into every line."""

    tools: list[Tool]
    limits: AgentLimits
    meta: dict[str, Any]
    task_slug: str
    # `environment.sandbox: bwrap`: commands of this task must run in the jail
    jail: dict[str, bool] = field(default_factory=dict)


@dataclass(slots=True)
class RunContext:
    rundir: RunDir
    agent: Agent
    models: dict[str, Model | None]
    # task id → its own agent (its file's `agent:`), for tasks not run by `agent`
    task_agents: dict[str, Agent] = field(default_factory=dict)
    judge: Model | None = None
    keep_artifacts: bool = False
    workspace_parent: Path | None = None
    prep: dict[str, TaskPrep] = field(default_factory=dict)
    model_slugs: dict[str, str] = field(default_factory=dict)  # model spec -> transcript folder
    # background I/O (workspace removal, fsync) off the event loop; None = inline
    io_pool: ThreadPoolExecutor | None = None
    # each task's fresh workspace, captured once and written per trial; None = plain copy
    images: WorkspaceImages | None = None
    # a trial ending in an infra error runs again up to this many times ([retries]
    # infra_trials, read by the driver and handed to every worker)
    infra_trials: int = 0
    # how a workspace is built (`workspace_key`) → whether it is small enough to handle on
    # the loop (`INLINE_WORKSPACE_FILES`); learnt from the first workspace built that way
    small_workspaces: dict[tuple[Any, ...], bool] = field(default_factory=dict)


def prepare_task(task: Task, k: int, task_slug: str, tool_settings: ToolSettings) -> TaskPrep:
    tools: list[Tool] = []
    for name, options in task.environment.tool_packs():
        tools.extend(load_pack(name, options, tool_settings))
    b = task.environment.budgets
    limits = AgentLimits(
        max_turns=b.max_turns or 20,
        tool_call_budget=b.tool_call_budget,
        timeout_s=b.timeout_s,
        max_tokens=b.max_tokens,
        max_cost_usd=b.max_cost_usd,
    )
    meta = {
        "suite": task.suite,
        "tier": task.tier,
        "tags": list(task.tags),
        "policy": task.policy,
        "metric": task.metric,
        "k": k,
    }
    jail = {"jail": True} if task.environment.sandbox == "bwrap" else {}
    return TaskPrep(tools=tools, limits=limits, meta=meta, task_slug=task_slug, jail=jail)


def _keep_workspace(rundir: RunDir, ws_path: Path, model_slug: str, name: str) -> str:
    rel = f"{WORKSPACES}/{model_slug}/{name}"
    dest = rundir.path / rel
    if dest.exists():
        shutil.rmtree(dest, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(ws_path, dest)
    except OSError:
        shutil.move(os.fspath(ws_path), os.fspath(dest))
    return rel


class _Infra(Exception):
    pass


@dataclass(slots=True)
class _Fresh:
    """A trial's new workspace, its snapshot, and (measured once per fixture) its smallness."""

    ws: Workspace
    before: dict[str, str]
    small: bool | None = None


def _new_workspace(ctx: RunContext, task: Task, measure: bool) -> _Fresh:
    if ctx.images is not None and ctx.workspace_parent is not None:
        ws = ctx.images.create(task, ctx.workspace_parent)
    else:
        ws = Workspace.create(task, parent=ctx.workspace_parent)
    try:
        fresh = _Fresh(ws, ws.initial_snapshot())
        if measure:
            fresh.small = _is_small(ws.path, fresh.before)
    except BaseException:
        ws.remove()  # not handed back: nobody else would remove it
        raise
    return fresh


def _is_small(root: Path, snapshot: dict[str, str]) -> bool:
    """Whether a workspace's files (as `snapshot` lists them) are few and small."""
    if len(snapshot) > INLINE_WORKSPACE_FILES:
        return False
    size = 0
    for rel in snapshot:
        try:
            size += os.lstat(root / rel).st_size
        except OSError:
            return False
    return size <= INLINE_WORKSPACE_BYTES


async def _off_loop(ctx: RunContext, inline: bool, fn: Callable[..., T], *args: Any) -> T:
    """File-system work (mkdir, copies, hashing) on the I/O threads when the run has them
    and the work is not small (`inline`): those system calls release the GIL, so the event
    loop keeps serving other trials."""
    if ctx.io_pool is None or inline:
        return fn(*args)
    return await asyncio.get_running_loop().run_in_executor(ctx.io_pool, fn, *args)


def _budgeted(limits: AgentLimits, model: Model | None) -> tuple[AgentLimits, Model | None]:
    """This trial's limits and model, on a fresh budget clock when the task has a timeout."""
    if not limits.timeout_s:
        return limits, model
    clock = BudgetClock(limits.timeout_s)
    metered = MeteredModel(model, clock) if model is not None else None
    return replace(limits, within=clock.within, off_clock=clock.off_clock), metered


@dataclass(slots=True)
class _Attempt:
    """What one attempt at a trial produced, before it is written."""

    run: AgentRun
    verdicts: list[Verdict] = field(default_factory=list)
    error: dict[str, str] | None = None
    passed: bool | None = None
    solved: bool | None = None
    safety: bool = False
    latency: float = 0.0
    first_tool_s: float | None = None
    kept: str | None = None
    changes: dict[str, list[str]] | None = None

    @property
    def is_infra(self) -> bool:
        return self.error is not None and self.error.get("kind") == "infra"


def _short(message: str) -> str:
    text = " ".join(message.split())
    if len(text) > RETRIED_MESSAGE_CHARS:
        return text[: RETRIED_MESSAGE_CHARS - 1] + "…"
    return text


def _may_change(attempt: _Attempt) -> bool:
    """Whether running again may end otherwise: an agent asking for a model the run does
    not serve asks again, the same."""
    return not str((attempt.error or {}).get("message", "")).startswith(NOT_SERVED_PREFIX)


async def run_trial(spec: TrialSpec, ctx: RunContext) -> ResultLine:
    """Run one trial to the end and return its results line (not yet written); an
    attempt ending in an infra error is run again, up to `ctx.infra_trials` times."""
    retried: list[str] = []
    attempt = await _attempt(spec, ctx)
    while attempt.is_infra and len(retried) < ctx.infra_trials and _may_change(attempt):
        retried.append(_short(str((attempt.error or {}).get("message", ""))))
        attempt = await _attempt(spec, ctx)
    return _result_line(spec, ctx, attempt, retried)


async def _attempt(spec: TrialSpec, ctx: RunContext) -> _Attempt:
    """One attempt: a fresh workspace, the agent, the graders; the workspace is removed
    (or kept, with `--keep-artifacts`) before it returns."""
    task: Task = spec.task
    prep = ctx.prep[task.task_id]
    model = ctx.models.get(spec.model)
    model_slug = ctx.model_slugs.get(spec.model) or slugify(spec.model)
    name = f"{prep.task_slug}-{spec.trial}"
    out = _Attempt(run=AgentRun())
    ws = None
    key = workspace_key(task)  # tasks sharing a fixture share its size
    small = ctx.small_workspaces.get(key)
    try:
        try:
            fresh = await _off_loop(ctx, bool(small), _new_workspace, ctx, task, small is None)
        except InfraError as exc:
            raise _Infra(str(exc)) from None
        except OSError as exc:
            raise _Infra(f"workspace: {exc}") from None
        ws, before = fresh.ws, fresh.before
        if fresh.small is not None:
            small = ctx.small_workspaces[key] = fresh.small
        context = ToolContext(ws.path, task.task_id, {"trial": spec.trial, **prep.jail})
        toolbox = Toolbox(prep.tools, context)
        if task.environment.faults:
            toolbox = FaultyToolbox(toolbox, task.environment.faults)
        clock = FirstCallClock(toolbox)
        limits, agent_model = _budgeted(prep.limits, model)
        started = time.perf_counter()
        run = out.run
        try:
            agent = ctx.task_agents.get(task.task_id, ctx.agent)
            run = out.run = await agent.run(task, ws.path, clock, agent_model, limits)
        except InfraError as exc:
            run.infra_error = str(exc) or "infrastructure error"
        except Exception as exc:  # the agent's own crash: not passed
            run.failure = "agent_error"
            run.failure_message = f"{type(exc).__name__}: {exc}"
        out.latency = time.perf_counter() - started
        out.first_tool_s = clock.since(started)
        if run.infra_error is not None:
            raise _Infra(run.infra_error)
        try:
            after = await _off_loop(ctx, bool(small), ws.snapshot)
        except OSError as exc:
            raise _Infra(f"workspace snapshot: {exc}") from None
        out.changes = diff_snapshots(before, after).as_dict()
        view = TrialView(
            task_id=task.task_id,
            user_message=task.inputs.prompt,
            final_text=run.final_text,
            tool_calls=run.tool_calls,
            messages=run.messages,
            workspace=ws.path,
            before=before,
            after=after,
            fixture_dir=task.fixture_path,
            turns=run.turns,
            judge=ctx.judge,
            extra={"trial": spec.trial, "model": spec.model, **prep.jail},
            conversation=conversation_text(run.messages) if task.inputs.user else "",
        )
        failure = None
        if run.failure is not None:
            failure = (run.failure, run.failure_message or run.failure)
        grade = await grade_trial(task, view, failure=failure)
        out.verdicts, out.passed, out.solved = grade.verdicts, grade.passed, grade.solve
        out.error, out.safety = grade.error, grade.safety_violation
    except _Infra as exc:
        out.error = {"kind": "infra", "message": str(exc)}
    finally:
        if ws is not None:
            # a workspace whose files changed cannot be reused: removed off the loop now
            unchanged = out.changes is not None and not any(out.changes.values())
            out.kept = _release_workspace(ctx, ws, model_slug, name, unchanged)
    return out


def _release_workspace(
    ctx: RunContext, ws: Workspace, model_slug: str, name: str, unchanged: bool
) -> str | None:
    """Keep the finished trial's workspace (`--keep-artifacts`: its path in the run is
    returned), hand it back for reuse when its files are unchanged (the pool checks the
    rest when it is taken), or remove it."""
    if ctx.keep_artifacts:
        try:
            return _keep_workspace(ctx.rundir, ws.path, model_slug, name)
        except OSError:
            ws.remove()
    elif unchanged and ctx.images is not None and ctx.images.give_back(ws):
        pass  # reused by a later trial if still untouched, else removed then
    elif ctx.io_pool is not None:
        ctx.io_pool.submit(ws.remove)
    else:
        ws.remove()
    return None


def _result_line(
    spec: TrialSpec, ctx: RunContext, attempt: _Attempt, retried: list[str]
) -> ResultLine:
    """The trial's results line from its last attempt; its transcript appended."""
    task: Task = spec.task
    prep = ctx.prep[task.task_id]
    model_slug = ctx.model_slugs.get(spec.model) or slugify(spec.model)
    run = attempt.run
    verdict_dicts = [v.as_dict() for v in attempt.verdicts]
    transcript_extra: dict[str, Any] = {}
    if attempt.changes is not None:
        transcript_extra["workspace_diff"] = attempt.changes
    if retried:
        transcript_extra["retried_errors"] = list(retried)
    if run.notes:
        transcript_extra["agent_notes"] = run.notes
    transcript = Transcript(
        task_id=task.task_id,
        model=spec.model,
        trial=spec.trial,
        messages=run.messages,
        turns=run.turn_meta,
        final_text=run.final_text,
        tool_results=[c.result for c in run.tool_calls],
        verdicts=verdict_dicts,
        error=attempt.error,
        extra=transcript_extra,
    )
    rel, offset = ctx.rundir.append_transcript(model_slug, transcript)
    extra = {
        **prep.meta,
        "transcript_offset": offset,
        "final_text": run.final_text,
        "loop_fires": run.loop_fires,
        "user_message": task.inputs.prompt,
    }
    if attempt.kept:
        extra["workspace"] = attempt.kept
    if retried:
        extra["attempts"] = len(retried) + 1
        extra["retried_errors"] = list(retried)
    if run.notes:
        extra["agent_notes"] = list(run.notes)
    figures = trajectory_figures(run.tool_calls, run.final_text)
    return ResultLine(
        task_id=task.task_id,
        model=spec.model,
        trial=spec.trial,
        passed=attempt.passed,
        solve=attempt.solved,
        provider=spec.model.partition(":")[0],
        error=attempt.error,
        verdicts=verdict_dicts,
        tool_calls=[c.as_dict() for c in run.tool_calls],
        turns=run.turns,
        tokens=run.usage.as_dict(),
        cost_usd=run.cost_usd,
        latency_s=round(attempt.latency, 6),
        safety_violation=attempt.safety,
        transcript=rel,
        repeated_calls=figures["repeated_calls"],
        tool_errors=figures["tool_errors"],
        recovered=figures["recovered"],
        time_to_first_tool_s=attempt.first_tool_s,
        extra=extra,
    )
