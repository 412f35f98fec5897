"""`trialrun import tau-bench`: a τ-bench results file → a run folder.

The file is streamed (one entry in memory at a time); each trial becomes one results
line and one transcript line as it is read, into a staging folder that becomes `out` only
when the whole file has been read: a bad entry leaves nothing behind. run.json lists each
task with k = its number of trials (trials 0…k-1), so summarize, reports, view, compare
and bless read the folder as any run.
"""

from __future__ import annotations

import os
import platform
import shutil
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trialrun.benchmarks.taubench import TauDomain, load_domain
from trialrun.benchmarks.taubench_results._convert import BENCHMARK, Naming, convert
from trialrun.benchmarks.taubench_results._naming import ImportNaming, name_import
from trialrun.benchmarks.taubench_results._rescore import (
    Rescored,
    TaskCheck,
    check_task,
    rescore,
)
from trialrun.benchmarks.taubench_results._stream import iter_entries
from trialrun.benchmarks.taubench_results._trial import RecordedTask, read_trial
from trialrun.core import slugify
from trialrun.errors import UserError
from trialrun.metrics import summarize_rundir
from trialrun.rundir import Manifest, ResultLine, RunDir, new_run_id
from trialrun.version import __version__

GATES = {"ci_merge_gate": True, "nightly": True, "release_candidate": True}


@dataclass(frozen=True, slots=True)
class RescoreSource:
    """`--env CHECKOUT --domain D --rescore`: the environment to rescore in."""

    checkout: Path


@dataclass(slots=True)
class ImportResult:
    run_dir: Path
    named: ImportNaming
    trials: int = 0
    tasks: int = 0
    rescored: list[Rescored] = field(default_factory=list)
    rescore_env: str | None = None

    @property
    def agree(self) -> int:
        return sum(1 for r in self.rescored if r.agrees)

    @property
    def disagreements(self) -> list[Rescored]:
        return [r for r in self.rescored if r.mismatch is None and not r.agrees]

    @property
    def mismatches(self) -> list[Rescored]:
        return [r for r in self.rescored if r.mismatch is not None]

    def rescore_json(self) -> dict[str, Any]:
        """`{"trials": N, "agree": M, …}`: the disagreeing trials listed."""
        mismatched = sorted({r.task_id for r in self.mismatches})
        return {
            "trials": len(self.rescored),
            "agree": self.agree,
            "disagree": len(self.disagreements),
            "task_mismatch": len(self.mismatches),
            "environment": self.rescore_env,
            "run_dir": str(self.run_dir),
            "model": self.named.naming.model,
            "disagreements": [r.as_dict() for r in self.disagreements],
            "instruction_reworded": sorted({r.task_id for r in self.rescored
                                            if r.reworded}),
            "mismatched_tasks": [
                {"task_id": t, "mismatch": next(r.mismatch for r in self.mismatches
                                                if r.task_id == t)}
                for t in mismatched
            ],
        }


def _task_meta(task_id: str, k: int, naming: Naming, source: Path) -> dict[str, Any]:
    tags = [BENCHMARK, *([naming.domain] if naming.domain else []), "imported"]
    return {
        "task_id": task_id, "suite": "golden", "tier": None, "tags": tags,
        "policy": "ALWAYS_PASSES", "k": k, "metric": "pass^k", "gates": dict(GATES),
        "tracked_metrics": ["solve_rate"], "source": str(source),
    }


def _manifest(run_id: str, naming: Naming, source: Path, argv: list[str],
              tasks: list[dict[str, Any]]) -> Manifest:
    return Manifest(
        run_id=run_id,
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        argv=argv,
        task_files=[],
        models=[naming.model],
        k=None,
        trialrun_version=__version__,
        python_version=platform.python_version(),
        tasks=tasks,
        paths=[str(source.resolve())],
        extra={"imported_from": {"format": "tau-bench results", "file": str(source.resolve()),
                                 "domain": naming.domain, "split": naming.split}},
    )


def _check_out(out: Path) -> None:
    if os.path.lexists(out):
        raise UserError(f"-o {out}: already exists; choose a new folder for the imported run")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"-o {out}: cannot create its folder {out.parent} "
                        f"({exc.strerror or exc}); pass a writable place") from None


def _open(path: Path) -> Any:
    if path.is_dir():
        raise UserError(f"{path}: is a folder; pass τ-bench's results file (a .json list)")
    try:
        return path.open("rb")
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc}); pass τ-bench's "
                        "results file") from None


def import_results(
    path: Path | str, out: Path | str, *, model: str | None = None,
    domain: str | None = None, split: str = "test", rescore_in: RescoreSource | None = None,
    argv: list[str] | None = None,
) -> ImportResult:
    """Write the run folder `out` from the results file `path` (rescored when
    `rescore_in` is given; it needs a domain). `split`: the task split the file ran
    (τ-bench's results are of the test split)."""
    path, out = Path(path), Path(out)
    named = name_import(path, model, domain, split)
    naming = named.naming
    env: TauDomain | None = None
    if rescore_in is not None:
        if naming.domain is None:
            raise UserError(f"{path.name}: --rescore needs the domain; give --domain "
                            "airline or retail")
        env = load_domain(rescore_in.checkout, naming.domain, naming.split)
    _check_out(out)
    run_id = new_run_id()
    staging = out.parent / f".{out.name}.partial"
    if staging.exists():
        shutil.rmtree(staging)
    run = RunDir.create(staging.parent, staging.name, _manifest(run_id, naming, path, [], []),
                        fsync=False)
    result = ImportResult(out, named)
    if env is not None:
        result.rescore_env = f"{env.layout.checkout} {env.name} {env.split}"
    try:
        trials = _write_trials(path, run, naming, env, result)
        tasks = [_task_meta(naming.task_id(t), k, naming, path)
                 for t, k in sorted(trials.items())]
        run.close()
        run.write_manifest(_manifest(run_id, naming, path, argv or [], tasks))
        run.write_summary(summarize_rundir(run))
        os.replace(staging, out)
    except BaseException:
        run.close()
        shutil.rmtree(staging, ignore_errors=True)
        raise
    result.tasks = len(trials)
    return result


def _write_trials(path: Path, run: RunDir, naming: Naming, env: TauDomain | None,
                  result: ImportResult) -> Counter[int]:
    """Stream the file into the run; returns each τ-bench task id's k (max trial + 1)."""
    slug = slugify(naming.model)
    seen: dict[tuple[int, int], int] = {}
    k: Counter[int] = Counter()
    checks: dict[tuple[int, RecordedTask | None], TaskCheck] = {}
    with _open(path) as handle:
        for index, item in iter_entries(path, handle):
            trial = read_trial(path, index, item)
            key = (trial.task_id, trial.trial)
            if key in seen:
                raise UserError(
                    f"{path}: entry {index}: task {trial.task_id} trial {trial.trial} is "
                    f"already entry {seen[key]}; remove one of them (one line per trial)"
                )
            seen[key] = index
            k[trial.task_id] = max(k[trial.task_id], trial.trial + 1)
            line, transcript = convert(trial, naming)
            if env is not None:
                recorded = (trial.task_id, trial.task)
                if recorded not in checks:
                    checks[recorded] = check_task(env, trial.task_id, trial.task)
                rescored = rescore(env, trial, checks[recorded])
                result.rescored.append(rescored)
                _record_rescore(line, transcript.verdicts, rescored)
            rel, offset = run.append_transcript(slug, transcript)
            line.transcript, line.extra["transcript_offset"] = rel, offset
            run.append(line, sync=False)
            result.trials += 1
    if not seen:
        raise UserError(f"{path}: an empty list (no trials); pass a τ-bench results file")
    return k


def _record_rescore(line: ResultLine, transcript_verdicts: list[dict[str, Any]],
                    rescored: Rescored) -> None:
    """trialrun's reward beside the recorded one: `rescore` in the line, and a
    `taubench` verdict (None when the task does not match the environment's)."""
    line.extra["rescore"] = {"reward": rescored.reward, "agrees": rescored.agrees,
                             "reason": rescored.reason,
                             "instruction_reworded": rescored.reworded}
    passed = None if rescored.reward is None else rescored.reward == 1.0
    verdict = {"grader": BENCHMARK, "passed": passed,
               "details": {"reward": rescored.reward, "reason": rescored.reason,
                           "recorded_reward": rescored.recorded}}
    line.verdicts.append(verdict)
    if transcript_verdicts is not line.verdicts:
        transcript_verdicts.append(verdict)
