"""One trial: workspace → agent → snapshot → graders → verdicts → one results line.

pass and solve follow DESIGN.md's "Verdicts": an agent failure (timeout, max turns, caps,
a crash) is pass = False and solve = False; an infrastructure error is pass = solve = None
with error.kind "infra"; otherwise solve is False if any grader failed, None if any was
undetermined, else True. `safety_violation` is True when any forbiddenTools grader (or a
grader whose details carry `safety_violation: true`) failed, whatever the suite.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.agents._types import AgentLimits, AgentRun
from trialrun.errors import InfraError
from trialrun.graders._types import TrialView, Verdict, grade_all, solve_from
from trialrun.models._registry import slugify
from trialrun.runner._faults import FaultyToolbox
from trialrun.runner._store import WORKSPACES, RunStore
from trialrun.tools._tool import Tool, ToolContext
from trialrun.tools._toolbox import Toolbox

if TYPE_CHECKING:
    from trialrun.agents._types import Agent
    from trialrun.models._types import Model
    from trialrun.runner._plan import TrialSpec
    from trialrun.tasks._model import Task

SAFETY_GRADER_TYPES = frozenset({"forbiddenTools"})


@dataclass(slots=True)
class TaskPrep:
    """Per-task work done once per run: tools, limits, metadata copied into every line."""

    tools: list[Tool]
    limits: AgentLimits
    meta: dict[str, Any]
    task_slug: str
    implicit_budget: int | None
    threaded_grading: bool


@dataclass(slots=True)
class RunContext:
    store: RunStore
    agent: Agent
    models: dict[str, Model | None]
    judge: Model | None = None
    keep_artifacts: bool = False
    workspace_parent: Path | None = None
    prep: dict[str, TaskPrep] = field(default_factory=dict)
    model_slugs: dict[str, str] = field(default_factory=dict)  # model spec -> transcript folder
    # background I/O (workspace removal, fsync) off the event loop; None = inline
    io_pool: ThreadPoolExecutor | None = None


def prepare_task(task: Task, k: int, load_pack: Any) -> TaskPrep:
    tools: list[Tool] = []
    for entry in task.environment.tools:
        if isinstance(entry, str):
            tools.extend(load_pack(entry, {}))
        else:
            for name, options in entry.items():
                tools.extend(load_pack(name, options if isinstance(options, dict) else {}))
    b = task.environment.budgets
    limits = AgentLimits(
        max_turns=b.max_turns or 20,
        tool_call_budget=b.tool_call_budget,
        timeout_s=b.timeout_s,
        max_tokens=b.max_tokens,
        max_cost_usd=b.max_cost_usd,
    )
    types = [g.type for g in task.graders]
    implicit = b.tool_call_budget if "toolCallBudget" not in types else None
    meta = {
        "suite": task.suite,
        "tier": task.tier,
        "tags": list(task.tags),
        "policy": task.policy,
        "metric": task.metric,
        "k": k,
    }
    return TaskPrep(
        tools=tools,
        limits=limits,
        meta=meta,
        task_slug=slugify(task.task_id),
        implicit_budget=implicit,
        threaded_grading="command" in types,
    )


def _verdicts_safety(task: Task, verdicts: list[Verdict]) -> bool:
    for config, verdict in zip(task.graders, verdicts, strict=False):
        if verdict.passed is False and (
            config.type in SAFETY_GRADER_TYPES or verdict.details.get("safety_violation") is True
        ):
            return True
    return False


async def _grade(task: Task, view: TrialView, threaded: bool) -> list[Verdict]:
    if threaded and view.judge is None:
        # command graders block on subprocesses: keep the event loop free for other trials
        return await asyncio.to_thread(asyncio.run, grade_all(task.graders, view))
    return await grade_all(task.graders, view)


def _keep_workspace(store: RunStore, ws_path: Path, model_slug: str, name: str) -> None:
    dest = store.dir / WORKSPACES / model_slug / name
    if dest.exists():
        shutil.rmtree(dest, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(ws_path, dest)
    except OSError:
        shutil.move(os.fspath(ws_path), os.fspath(dest))


async def run_trial(spec: TrialSpec, ctx: RunContext) -> dict[str, Any]:
    """Run one trial to the end and return its results line (not yet written)."""
    from trialrun.sandbox import Workspace

    task: Task = spec.task
    prep = ctx.prep[task.task_id]
    model = ctx.models.get(spec.model)
    model_slug = ctx.model_slugs.get(spec.model) or slugify(spec.model)
    name = f"{prep.task_slug}-{spec.trial}"
    run = AgentRun()
    verdicts: list[Verdict] = []
    error: dict[str, str] | None = None
    latency = 0.0
    ws = None
    kept: str | None = None
    try:
        try:
            ws = Workspace.create(task, parent=ctx.workspace_parent)
            before = ws.snapshot()
        except InfraError as exc:
            raise _Infra(str(exc)) from None
        except OSError as exc:
            raise _Infra(f"workspace: {exc}") from None
        toolbox: Toolbox = Toolbox(
            prep.tools, ToolContext(ws.path, task.task_id, {"trial": spec.trial})
        )
        if task.environment.faults:
            toolbox = FaultyToolbox(toolbox, task.environment.faults)
        started = time.perf_counter()
        try:
            run = await ctx.agent.run(task, ws.path, toolbox, model, prep.limits)
        except InfraError as exc:
            run.infra_error = str(exc) or "infrastructure error"
        except Exception as exc:  # the agent's own crash: not passed
            run.failure = "agent_error"
            run.failure_message = f"{type(exc).__name__}: {exc}"
        latency = time.perf_counter() - started
        if run.infra_error is not None:
            raise _Infra(run.infra_error)
        try:
            after = ws.snapshot()
        except OSError as exc:
            raise _Infra(f"workspace snapshot: {exc}") from None
        view = TrialView(
            task=task,
            final_text=run.final_text,
            tool_calls=run.tool_calls,
            messages=run.messages,
            workspace=ws.path,
            before=before,
            after=after,
            fixture_dir=task.fixture_path,
            turns=run.turns,
            judge=ctx.judge,
            extra={"trial": spec.trial, "model": spec.model},
        )
        verdicts = await _grade(task, view, prep.threaded_grading)
        if prep.implicit_budget is not None:
            calls = len(run.tool_calls)
            verdicts.append(
                Verdict(
                    "toolCallBudget",
                    calls <= prep.implicit_budget,
                    {"calls": calls, "max": prep.implicit_budget, "implicit": True},
                )
            )
        if run.failure is not None:
            passed: bool | None = False
            solved: bool | None = False
            error = {"kind": run.failure, "message": run.failure_message or run.failure}
        else:
            passed = True
            solved = solve_from(verdicts)
    except _Infra as exc:
        passed = solved = None
        error = {"kind": "infra", "message": str(exc)}
    finally:
        if ws is not None:
            if ctx.keep_artifacts:
                try:
                    _keep_workspace(ctx.store, ws.path, model_slug, name)
                    kept = f"{WORKSPACES}/{model_slug}/{name}"
                except OSError:
                    ws.remove()
            elif ctx.io_pool is not None:
                ctx.io_pool.submit(ws.remove)
            else:
                ws.remove()

    turn_meta = run.turn_meta
    transcript = {
        "task_id": task.task_id,
        "model": spec.model,
        "trial": spec.trial,
        "messages": run.messages,
        "turns": turn_meta,
        "final_text": run.final_text,
        "tool_results": [c.result for c in run.tool_calls],
        "verdicts": [v.as_dict() for v in verdicts],
        "error": error,
    }
    rel = ctx.store.write_transcript(model_slug, name, transcript)
    return {
        "task_id": task.task_id,
        "model": spec.model,
        "provider": spec.model.partition(":")[0],
        "trial": spec.trial,
        "pass": passed,
        "solve": solved,
        "error": error,
        "verdicts": [v.as_dict() for v in verdicts],
        "tool_calls": [c.as_dict() for c in run.tool_calls],
        "turns": run.turns,
        "tokens": run.usage.as_dict(),
        "cost_usd": run.cost_usd,
        "latency_s": round(latency, 6),
        "safety_violation": _verdicts_safety(task, verdicts),
        "transcript": rel,
        **prep.meta,
        "final_text": run.final_text,
        "loop_fires": run.loop_fires,
        "user_message": task.inputs.prompt,
        **({"workspace": kept} if kept else {}),
    }


class _Infra(Exception):
    pass
