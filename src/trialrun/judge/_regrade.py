"""`trialrun regrade RUN_DIR`: re-apply each task's graders to the stored trials.

Inputs are the run directory alone plus the task files run.json lists: the final text and
tool calls from results.jsonl, messages from the transcripts. Graders that inspect the
workspace (state and command graders) run against the kept workspace
(`RUN_DIR/workspaces/<model-slug>/<task_id>-<trial>/`, written by `--keep-artifacts`);
without one they keep their previous verdict and say so in details. Infra-error trials are
left as they are. results.jsonl is rewritten atomically, then summary.json recomputed.
With the verdict cache, regrading twice costs no judge call the second time.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.errors import UserError
from trialrun.judge._rundir import load_transcript, read_run, write_json_atomic, write_text_atomic

WORKSPACE_MODULES = ("trialrun.graders.state", "trialrun.graders.command")
KEPT_NOTE = "kept previous verdict: no kept workspace for this trial (run with --keep-artifacts)"


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


def needs_workspace(config: Any) -> bool:
    from trialrun.graders import GRADERS

    kind = GRADERS.get(config.type)
    return kind is not None and getattr(kind.fn, "__module__", "") in WORKSPACE_MODULES


def _needs_judge(config: Any) -> bool:
    from trialrun.graders import GRADERS

    kind = GRADERS.get(config.type)
    return bool(kind is not None and kind.needs_judge)


def recorded_judge(lines: list[dict[str, Any]]) -> str | None:
    """The judge model the run's verdicts name (the first one found)."""
    for line in lines:
        for verdict in line.get("verdicts") or []:
            details = verdict.get("details") or {}
            if isinstance(details, dict) and details.get("judge_model"):
                return str(details["judge_model"])
    return None


def _load_tasks(
    manifest: dict[str, Any], run_dir: Path, paths: list[Path] | None, report: RegradeReport
) -> dict[str, Any]:
    from trialrun.tasks import load_tasks

    if not paths:
        paths = []
        for entry in manifest.get("task_files") or []:
            path = Path(entry["path"] if isinstance(entry, dict) else entry)
            if not path.exists():
                raise UserError(
                    f"{run_dir / 'run.json'}: task file {path} not found from "
                    f"{Path.cwd()}; run regrade from the run's folder or pass --tasks PATH"
                )
            digest = entry.get("sha256") if isinstance(entry, dict) else None
            if digest and path.is_file():
                now = hashlib.sha256(path.read_bytes()).hexdigest()
                if now != digest:
                    report.warnings.append(f"{path}: changed since the run (sha256 differs)")
            paths.append(path)
    if not paths:
        raise UserError(f"{run_dir / 'run.json'}: lists no task files; pass --tasks PATH")
    loaded = load_tasks(paths)
    if loaded.problems:
        raise UserError(f"{loaded.problems[0]}")
    return {task.task_id: task for task in loaded.tasks}


def _tool_calls(line: dict[str, Any], transcript: dict[str, Any]) -> list[Any]:
    from trialrun.graders import ToolCallRecord

    results = [
        str(m.get("content") or "")
        for m in transcript.get("messages") or []
        if m.get("role") == "tool"
    ]
    calls = []
    for i, call in enumerate(line.get("tool_calls") or []):
        calls.append(
            ToolCallRecord(
                name=str(call.get("name")),
                arguments=dict(call.get("arguments") or {}),
                ok=bool(call.get("ok", True)),
                result=results[i] if i < len(results) else "",
            )
        )
    return calls


async def _regrade_line(
    line: dict[str, Any], task: Any, run_dir: Path, judge: Any, report: RegradeReport
) -> None:
    from trialrun.graders import TrialView, Verdict, run_grader, solve_from
    from trialrun.models import slugify
    from trialrun.sandbox import snapshot_dir

    transcript = load_transcript(run_dir, line)
    # The runner records where it kept the workspace; older runs: the conventional path.
    recorded = line.get("workspace")
    workspace = (
        run_dir / recorded
        if isinstance(recorded, str) and recorded
        else run_dir
        / "workspaces"
        / slugify(str(line.get("model")))
        / f"{slugify(str(line.get('task_id')))}-{line.get('trial')}"
    )
    has_ws = workspace.is_dir()
    final_text = line.get("final_text")
    if not isinstance(final_text, str):
        final_text = str(transcript.get("final_text") or "")
    view = TrialView(
        task=task,
        final_text=final_text,
        tool_calls=_tool_calls(line, transcript),
        messages=list(transcript.get("messages") or []),
        workspace=workspace if has_ws else None,
        after=snapshot_dir(workspace) if has_ws else {},
        fixture_dir=task.fixture_path,
        turns=int(line.get("turns") or 0),
        judge=judge,
    )
    previous = list(line.get("verdicts") or [])
    verdicts: list[Verdict] = []
    for index, config in enumerate(task.graders):
        if needs_workspace(config) and not has_ws:
            old = previous[index] if index < len(previous) else None
            if old and old.get("grader") == config.label:
                details = {**(old.get("details") or {}), "regrade": KEPT_NOTE}
                verdicts.append(Verdict(config.label, old.get("passed"), details))
            else:
                verdicts.append(
                    Verdict(
                        config.label, None, {"regrade": KEPT_NOTE, "error": "no previous verdict"}
                    )
                )
            report.kept_verdicts += 1
            continue
        verdict = await run_grader(config, view)
        if verdict.details.get("judge_model") and "cached" in verdict.details:
            if verdict.details["cached"]:
                report.judge_cached += 1
            else:
                report.judge_calls += 1
        verdicts.append(verdict)
    old_solve = line.get("solve")
    line["verdicts"] = [v.as_dict() for v in verdicts]
    passed = line.get("pass")
    line["solve"] = None if passed is None else (solve_from(verdicts) if passed else False)
    report.regraded += 1
    report.solve_changed += line["solve"] != old_solve


async def regrade_async(
    run_dir: Path,
    *,
    judge_spec: str | None = None,
    out: Path | None = None,
    tasks: list[Path] | None = None,
    concurrency: int = 4,
) -> RegradeReport:
    from trialrun.judge._settings import check_judge_spec, create_judge, resolve_judge_spec

    run_dir = Path(run_dir)
    manifest, lines = read_run(run_dir)
    # --judge, else the judge that graded these results last, else run.json's, else config
    spec = judge_spec or recorded_judge(lines) or manifest.get("judge")
    spec = check_judge_spec(spec) if spec else resolve_judge_spec(None)
    report = RegradeReport(run_dir=run_dir, judge=spec)
    by_id = _load_tasks(manifest, run_dir, tasks, report)
    if out is not None:
        out = Path(out)
        if out.exists():
            raise UserError(f"--out {out}: already exists; choose a new folder")
        shutil.copytree(run_dir, out)
        run_dir = report.run_dir = out
    uses_judge = any(_needs_judge(c) for t in by_id.values() for c in t.graders)
    judge = create_judge(spec) if spec and uses_judge else None
    gate = asyncio.Semaphore(concurrency)
    missing: set[str] = set()

    async def one(line: dict[str, Any]) -> None:
        report.trials += 1
        error = line.get("error")
        if isinstance(error, dict) and error.get("kind") == "infra":
            return
        task = by_id.get(str(line.get("task_id")))
        if task is None:
            missing.add(str(line.get("task_id")))
            return
        async with gate:
            await _regrade_line(line, task, run_dir, judge, report)

    try:
        await asyncio.gather(*(one(line) for line in lines))
    finally:
        close = getattr(judge, "aclose", None)
        if close is not None:
            await close()
    for task_id in sorted(missing):
        report.warnings.append(f"task '{task_id}' is not in the task files: trials left as-is")
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    write_text_atomic(run_dir / "results.jsonl", text)
    _write_summary(run_dir, manifest, lines)
    return report


def _write_summary(run_dir: Path, manifest: dict[str, Any], lines: list[dict[str, Any]]) -> None:
    from trialrun.metrics import summarize

    summary = summarize(
        lines,
        manifest.get("tasks"),
        run_id=manifest.get("run_id") or run_dir.name,
        models=manifest.get("models"),
        k=manifest.get("k"),
    )
    write_json_atomic(run_dir / "summary.json", summary)


def regrade(run_dir: Path, **kwargs: Any) -> RegradeReport:
    return asyncio.run(regrade_async(run_dir, **kwargs))
