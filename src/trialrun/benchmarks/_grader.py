"""The grader that applies a benchmark's scorer to a trial: every dataset record runs as
a task whose one grader is `benchmark` (`benchmarkJudged` when the scorer may ask the
run's judge), so verdicts, results lines and metrics are trialrun's own. `scorer` names
a custom scorer object kept in this process (`_scorers`) instead of the benchmark's."""

from __future__ import annotations

from typing import Any

from trialrun.benchmarks._catalogue import find_benchmark
from trialrun.benchmarks._scorers import live_scorer, score_with
from trialrun.benchmarks._types import Record
from trialrun.benchmarks.openjarvis import OpenJarvisBenchmark
from trialrun.core import Verdict
from trialrun.graders import GraderConfig, TrialView, grader


class BenchmarkScoreConfig(GraderConfig):
    benchmark: str
    record: dict[str, Any]
    scorer: str | None = None


async def score_trial(config: BenchmarkScoreConfig, trial: TrialView) -> Verdict:
    record = Record.from_scoring_data(config.record)
    record.task_id = trial.task_id
    answer = trial.final_text or ""
    if config.scorer is not None:
        custom = live_scorer(config.scorer)
        if custom is None:
            error = f"scorer '{config.scorer}' is not in this process (custom scorers are)"
            return Verdict(config.label, None, {"error": error})
        result = await score_with(custom, record, answer, trial.judge)
        return Verdict(config.label, result.is_correct, {"score": result.score, **result.metadata})
    factory = find_benchmark(config.benchmark)
    if factory is None:
        return Verdict(config.label, None, {"error": f"unknown benchmark '{config.benchmark}'"})
    bench = factory()
    if isinstance(bench, OpenJarvisBenchmark) and trial.tool_calls:
        # the agent backend's calls, in the shape OpenJarvis's agent backend hands its
        # scorers (ToolCall-15 reads them before parsing the reply's text)
        record.metadata["tool_results"] = [
            {"tool_name": call.name, "arguments": call.arguments, "ok": call.ok}
            for call in trial.tool_calls
        ]
    result = await bench.score(record, answer, trial.judge)
    details = {"score": result.score, **result.metadata}
    return Verdict(config.label, result.is_correct, details)


grader("benchmark", BenchmarkScoreConfig)(score_trial)
grader("benchmarkJudged", BenchmarkScoreConfig, needs_judge=True)(score_trial)
