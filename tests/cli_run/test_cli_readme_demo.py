"""The README's demo, in its order, on a copy of examples/: trialrun's own outputs (benchmark
results, run folders, baselines) never come back as task files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_support import cli_process as trialrun

ROOT = Path(__file__).resolve().parents[2]
GOOD = "scripted:examples/scripts/good.yaml"


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    return tmp_path


def example_task_count(project: Path) -> int:
    listed = trialrun("validate", "examples/", "--json", cwd=project)
    return len(json.loads(listed.stdout)["tasks"])


def test_the_benchmark_example_then_run_examples(project: Path) -> None:
    before = files_under(project / "examples")
    tasks = example_task_count(project)
    bench = trialrun("run", "--config", "examples/benchmarks/full-suite.toml", cwd=project)
    assert bench.returncode == 0, bench.stderr
    # its outputs go to results/ where the command ran, as `run --out` does
    assert files_under(project / "examples") == before
    assert (project / "results" / "supergpqa_models-model-a.yaml.summary.json").is_file()
    run = trialrun("run", "examples/", "--model", GOOD, "--json", cwd=project)
    assert run.returncode == 0, run.stderr
    assert len(json.loads(run.stdout)["tasks"]) == tasks


def test_benchmark_outputs_written_inside_examples_are_skipped(project: Path) -> None:
    tasks = example_task_count(project)
    bench = trialrun("run", "--config", "examples/benchmarks/full-suite.toml", "--out",
                     "examples/benchmarks/results", cwd=project)
    assert bench.returncode == 0, bench.stderr
    run = trialrun("run", "examples/", "--model", GOOD, "--json", cwd=project)
    assert run.returncode == 0, run.stderr
    assert len(json.loads(run.stdout)["tasks"]) == tasks
    checked = json.loads(trialrun("validate", "examples/", "--json", cwd=project).stdout)
    skipped = {Path(s["path"]).name: s["reason"] for s in checked["skipped"]}
    assert skipped["frames_models-model-a.yaml.summary.json"].startswith("benchmark summary")
    assert sum(r.startswith("trialrun run folder") for r in skipped.values()) == 4


def test_bless_then_run_dot(project: Path) -> None:
    tasks = example_task_count(project)
    first = trialrun("run", "examples/tasks/golden", "--model", GOOD, "-k", "3", cwd=project)
    assert first.returncode == 0, first.stderr
    bless = trialrun("bless", cwd=project)
    assert bless.returncode == 0, bless.stderr
    [baseline] = (project / "baselines").iterdir()
    run = trialrun("run", ".", "--model", GOOD, "--json", cwd=project)
    assert run.returncode == 0, run.stderr
    assert len(json.loads(run.stdout)["tasks"]) == tasks
    listed = trialrun("list", ".", cwd=project)
    assert listed.returncode == 0, listed.stderr
    checked = json.loads(trialrun("validate", ".", "--json", cwd=project).stdout)
    assert checked["problems"] == []
    reasons = {s["path"]: s["reason"] for s in checked["skipped"]}
    assert reasons[str(Path("baselines") / baseline.name)].startswith("trialrun baseline")
    assert sum(r.startswith("trialrun run folder") for r in reasons.values()) == 2
