"""Find task files in folders and recognise non-task files by their shape.

trialrun's own outputs are never read as tasks: a run folder (run.json beside
results.jsonl) is passed over whole, unread, by the folder scan; a baseline, a run's
run.json or summary.json elsewhere, and a benchmark summary are told by the keys of the
one parse every file gets; record files (.jsonl) and the history database (.db) are not
task suffixes. A subfolder with a trialrun.toml of its own is another project (its gates,
judge and agent settings would not apply from here): it is passed over, named, and run by
its own path.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from trialrun.rundir import BASELINE_FORMAT, RESULTS, RUN_JSON, is_transcript
from trialrun.tasks._sources import TASK_SUFFIXES

SKIP_BY_NAME = {
    "trialrun.toml": "trialrun project config",
    "pyproject.toml": "Python project file",
}
_SCRIPTED_KEYS = {"tasks", "default"}
_SUITE_KEYS = {"meta", "models", "benchmarks"}
_OPENJARVIS_FRAMEWORK_KEYS = {"hermes", "openclaw"}  # its configs folder's _third_party.toml
_TASK_KEYS = {"task_id", "id", "userMessage", "inputs", "graders", "suite"}
_BENCHMARK_SUMMARY_KEYS = {"benchmark", "accuracy", "total_samples"}
RUN_FOLDER = f"trialrun run folder ({RUN_JSON}, {RESULTS})"
PROJECT = "trialrun.toml"
NESTED_PROJECT = f"a project of its own ({PROJECT}): run it by its path, where its config applies"


def scan(folder: Path, skipped: list[tuple[Path, str]] | None = None) -> list[Path]:
    """Task-file candidates under `folder`, sorted; skips hidden and `fixtures/` folders,
    run folders and subfolders that are projects of their own (each appended to `skipped`
    with why)."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        nested = PROJECT in files and Path(root) != Path(folder)
        if (RUN_JSON in files and RESULTS in files) or nested:
            dirs[:] = []
            if skipped is not None:
                skipped.append((Path(root), NESTED_PROJECT if nested else RUN_FOLDER))
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "fixtures")
        for name in sorted(files):
            if name.startswith("."):
                continue
            if Path(name).suffix.lower() in TASK_SUFFIXES:
                found.append(Path(root) / name)
    return found


def skip_reason_by_name(path: Path) -> str | None:
    return SKIP_BY_NAME.get(path.name)


def skip_reason_by_shape(data: Any) -> str | None:
    """Why a parsed file is not a task file, or None if it should be one."""
    if not isinstance(data, dict) or not data:
        return None
    keys = set(data)
    if is_transcript(data):
        return "trialrun transcript (task_id, messages, turns)"
    if isinstance(data.get("messages"), list) and not keys & _TASK_KEYS:
        return "chat log (messages, no task keys)"
    if data.get("format") == BASELINE_FORMAT:
        return f"trialrun baseline (format {BASELINE_FORMAT})"
    if "task_id" in keys or "id" in keys or "userMessage" in keys:
        return None
    if "run_id" in keys and not keys & _TASK_KEYS:
        return "trialrun run record (run_id: a run's run.json or summary.json)"
    if keys >= _BENCHMARK_SUMMARY_KEYS:
        return "benchmark summary (benchmark, accuracy, total_samples)"
    if keys <= _SCRIPTED_KEYS and not isinstance(data.get("tasks"), list):
        return "scripted-model file (only 'tasks' and/or 'default' at the top)"
    if keys & _SUITE_KEYS:
        return "suite config ([meta], [[models]] or [[benchmarks]])"
    if keys <= _OPENJARVIS_FRAMEWORK_KEYS:
        return "OpenJarvis framework config ([hermes], [openclaw])"
    return None
