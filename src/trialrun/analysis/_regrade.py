"""`trialrun regrade RUN_DIR`: re-apply each task's graders to the stored trials.

Inputs are the run folder alone plus the task files run.json lists: the final text and
tool calls from results.jsonl, messages from the transcripts. Grading goes through
`trialrun.graders.grade_trial`, the runner's own path. Graders that inspect the workspace
(state and command graders) run against the kept workspace (`--keep-artifacts`); without
one they keep their previous verdict and say so in details. Infra-error trials are left
as they are. results.jsonl is rewritten atomically, then summary.json recomputed. With
the verdict cache, regrading twice costs no judge call the second time.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.analysis._stored import open_run
from trialrun.config import ProjectConfig, load_config
from trialrun.core import MASK, ToolCallRecord, Verdict
from trialrun.errors import UserError
from trialrun.graders import GRADERS, GraderConfig, TrialView, grade_trial
from trialrun.judge import JudgeSettings, check_judge_spec, create_judge, resolve_judge_spec
from trialrun.metrics import summarize_run
from trialrun.models import ProviderSettings
from trialrun.rundir import Manifest, ResultLine, RunDir, RunDirLimits, Transcript
from trialrun.sandbox import snapshot_dir
from trialrun.tasks import Task, load_tasks

WORKSPACE_MODULES = ("trialrun.graders.state", "trialrun.graders.command")
KEPT_NOTE = "kept previous verdict: no kept workspace for this trial (run with --keep-artifacts)"
# graders that read the before/after diff, which no stored trial keeps: always kept
DIFF_MODULES = ("trialrun.graders.safety",)
DIFF_NOTE = "kept previous verdict: it reads the workspace diff, which a stored trial lacks"


@dataclass(slots=True)
class RegradeReport:
    run_dir: Path
    judge: str | None
    trials: int = 0
    regraded: int = 0
    kept_verdicts: int = 0
    judge_calls: int = 0
    judge_cached: int = 0
    solve_changed: int = 0
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_dir": str(self.run_dir),
            "judge": self.judge,
            "trials": self.trials,
            "regraded": self.regraded,
            "kept_verdicts": self.kept_verdicts,
            "judge_calls": self.judge_calls,
            "judge_cached": self.judge_cached,
            "solve_changed": self.solve_changed,
            "warnings": self.warnings,
        }


def needs_workspace(config: GraderConfig) -> bool:
    kind = GRADERS.get(config.type)
    return kind is not None and getattr(kind.fn, "__module__", "") in WORKSPACE_MODULES


def _needs_judge(config: GraderConfig) -> bool:
    kind = GRADERS.get(config.type)
    return bool(kind is not None and kind.needs_judge)


def recorded_judge(lines: list[ResultLine]) -> str | None:
    """The judge model the run's verdicts name (the first one found)."""
    for line in lines:
        for verdict in line.verdicts:
            details = verdict.get("details") or {}
            if isinstance(details, dict) and details.get("judge_model"):
                return str(details["judge_model"])
    return None


def _load_tasks(
    manifest: Manifest, run_dir: Path, paths: list[Path] | None, report: RegradeReport
) -> dict[str, Task]:
    if not paths:
        paths = []
        for entry in manifest.task_files:
            path = Path(str(entry.get("path")))
            if not path.exists():
                raise UserError(
                    f"{run_dir / 'run.json'}: task file {path} not found from "
                    f"{Path.cwd()}; run regrade from the run's folder or pass --tasks PATH"
                )
            digest = entry.get("sha256")
            if digest and path.is_file():
                now = hashlib.sha256(path.read_bytes()).hexdigest()
                if now != digest:
                    report.warnings.append(f"{path}: changed since the run (sha256 differs)")
            paths.append(path)
    if not paths:
        raise UserError(f"{run_dir / 'run.json'}: lists no task files; pass --tasks PATH")
    links = manifest.extra.get("allow_external_links") is True  # as the run loaded them
    loaded = load_tasks(paths, allow_external_links=links)
    if loaded.problems:
        raise UserError(f"{loaded.problems[0]}")
    return {task.task_id: task for task in loaded.tasks}


def _tool_calls(line: ResultLine, transcript: Transcript) -> list[ToolCallRecord]:
    results = [str(m.get("content") or "") for m in transcript.messages if m.get("role") == "tool"]
    return [
        ToolCallRecord(
            name=str(call.get("name")),
            arguments=dict(call.get("arguments") or {}),
            ok=bool(call.get("ok", True)),
            result=results[i] if i < len(results) else "",
        )
        for i, call in enumerate(line.tool_calls)
    ]


def _kept_verdict(
    previous: list[dict[str, Any]], has_ws: bool, report: RegradeReport
) -> Callable[[int, GraderConfig], Verdict | None]:
    """The override for grade_trial: workspace graders keep their verdict without a workspace."""

    def override(index: int, config: GraderConfig) -> Verdict | None:
        kind = GRADERS.get(config.type)
        diff = kind is not None and getattr(kind.fn, "__module__", "") in DIFF_MODULES
        if not diff and (has_ws or not needs_workspace(config)):
            return None
        note = DIFF_NOTE if diff else KEPT_NOTE
        report.kept_verdicts += 1
        old = previous[index] if index < len(previous) else None
        if old and old.get("grader") == config.label:
            details = {**(old.get("details") or {}), "regrade": note}
            return Verdict(config.label, old.get("passed"), details)
        return Verdict(config.label, None, {"regrade": note, "error": "no previous verdict"})

    return override


async def _regrade_line(
    line: ResultLine, task: Task, run: RunDir, judge: Any, report: RegradeReport
) -> None:
    transcript = Transcript()
    if line.transcript:  # an unreadable one is named; the line alone is regraded
        try:
            transcript = run.transcript(line)
        except UserError as exc:
            report.warnings.append(f"{exc}; {line.task_id} #{line.trial} regraded from its "
                                   "results line alone")
    workspace = run.workspace_dir(line)
    has_ws = workspace.is_dir()
    final_text = line.final_text if line.final_text is not None else transcript.final_text
    view = TrialView(
        task_id=task.task_id,
        user_message=task.inputs.prompt,
        final_text=final_text,
        tool_calls=_tool_calls(line, transcript),
        messages=list(transcript.messages),
        workspace=workspace if has_ws else None,
        after=snapshot_dir(workspace) if has_ws else {},
        fixture_dir=task.fixture_path,
        turns=int(line.turns or 0),
        judge=judge,
    )
    failure = None
    if line.passed is False:
        kind = line.error_kind or "agent_error"
        failure = (kind, str((line.error or {}).get("message") or kind))
    grade = await grade_trial(
        task, view, failure=failure, override=_kept_verdict(line.verdicts, has_ws, report)
    )
    for verdict in grade.verdicts:
        if verdict.details.get("judge_model") and "cached" in verdict.details:
            if verdict.details["cached"]:
                report.judge_cached += 1
            else:
                report.judge_calls += 1
    old_solve = line.solve
    line.verdicts = [v.as_dict() for v in grade.verdicts]
    line.safety_violation = grade.safety_violation
    line.solve = None if line.passed is None else grade.solve
    report.regraded += 1
    report.solve_changed += line.solve != old_solve


async def regrade_async(
    run_dir: Path,
    *,
    judge_spec: str | None = None,
    out: Path | None = None,
    tasks: list[Path] | None = None,
    concurrency: int = 4,
    config: ProjectConfig | None = None,
) -> RegradeReport:
    """Grade a stored run again; `config`: the trialrun.toml whose `[judge]` applies
    (default: found from the working directory)."""
    project = config if config is not None else load_config()
    settings = JudgeSettings.from_config(project)
    run, manifest, lines = open_run(Path(run_dir), RunDirLimits.of(project))
    # --judge, else the judge that graded these results last, else run.json's, else config
    spec = judge_spec or recorded_judge(lines) or manifest.judge
    if not judge_spec and spec and MASK in spec:
        raise UserError(
            f"{run.path}: the judge that graded this run was given with credentials, which "
            "are not written down; pass --judge SPEC again"
        )
    spec = check_judge_spec(spec) if spec else resolve_judge_spec(None, settings)
    report = RegradeReport(run_dir=run.path, judge=spec)
    by_id = _load_tasks(manifest, run.path, tasks, report)
    if out is not None:
        out = Path(out)
        run = run.copy_to(out)  # regular files only, each within its limit
        report.run_dir = out
    uses_judge = any(_needs_judge(c) for t in by_id.values() for c in t.graders)
    providers = ProviderSettings.from_config(project)
    judge = create_judge(spec, settings, providers) if spec and uses_judge else None
    gate = asyncio.Semaphore(concurrency)
    missing: set[str] = set()

    async def one(line: ResultLine) -> None:
        report.trials += 1
        if line.is_infra:
            return
        task = by_id.get(line.task_id)
        if task is None:
            missing.add(line.task_id)
            return
        async with gate:
            await _regrade_line(line, task, run, judge, report)

    try:
        await asyncio.gather(*(one(line) for line in lines))
    finally:
        close = getattr(judge, "aclose", None)
        if close is not None:
            await close()
    for task_id in sorted(missing):
        report.warnings.append(f"task '{task_id}' is not in the task files: trials left as-is")
    run.rewrite_results(lines)
    if manifest.run_id is None:
        manifest.run_id = run.path.name
    run.write_summary(summarize_run(lines, manifest))
    return report


def regrade(run_dir: Path, **kwargs: Any) -> RegradeReport:
    return asyncio.run(regrade_async(run_dir, **kwargs))
