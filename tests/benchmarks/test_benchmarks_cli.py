"""Benchmark mode end to end through the CLI: the full-suite shape (2 models × 2
benchmarks, a per-benchmark judge) with scripted models over small local datasets,
resume, summarize, list --benchmarks, run-all offline, GAIA on the agent backend, and a
folder of task files as a benchmark."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest
from benchmarks_support import FRAMES_ROWS, SUPERGPQA_ROWS, write_csv, write_gaia, write_jsonl

from cli_support import cli_process
from trialrun.rundir import RunDir

ROOT = Path(__file__).resolve().parents[2]


def trialrun(*args: str, cwd: Path, env: dict[str, str] | None = None):
    return cli_process(*args, cwd=cwd, env={**os.environ, **(env or {})})


def yaml_script(path: Path, replies: dict[str, object]) -> None:
    tasks = {k: v if isinstance(v, list) else [{"content": v}] for k, v in replies.items()}
    path.write_text(json.dumps({"tasks": tasks}), encoding="utf-8")


FULL_SUITE = """
[meta]
name = "full-suite"
description = "2 models x 2 benchmarks"

[defaults]
temperature = 0.0
max_tokens = 1024

[judge]
model = "judge.yaml"
provider = "scripted"
engine = "cloud"
temperature = 0.0
max_tokens = 128

[run]
max_workers = 2
output_dir = "out/"
seed = 42

[[models]]
name = "a.yaml"
provider = "scripted"
num_gpus = 1

[[models]]
name = "b.yaml"
provider = "scripted"
num_gpus = 1

[[benchmarks]]
name = "supergpqa"
backend = "jarvis-direct"
dataset = "data/sg.jsonl"
max_samples = 10

[[benchmarks]]
name = "frames"
backend = "jarvis-direct"
dataset = "data/frames.csv"
judge_model = "frames-judge.yaml"
"""


@pytest.fixture
def full_suite(tmp_path: Path) -> Path:
    write_jsonl(tmp_path / "data" / "sg.jsonl", SUPERGPQA_ROWS)
    write_csv(tmp_path / "data" / "frames.csv", FRAMES_ROWS)
    # a: the right letter on even ids, the next (wrong) one on odd ids
    a = {f"supergpqa-sg-{i:03d}": "ABCD"[(i + i % 2) % 4] for i in range(10)}
    a["supergpqa-sg-001"] = "It is the second option."  # rules fail: the judge reads "B"
    yaml_script(tmp_path / "a.yaml", {**a, **{f"frames-{i}": f"answer {i}" for i in range(4)}})
    b = {f"supergpqa-sg-{i:03d}": "A" for i in range(10)}
    yaml_script(tmp_path / "b.yaml", {**b, **{f"frames-{i}": "dunno" for i in range(4)}})
    yaml_script(tmp_path / "judge.yaml", {"supergpqa-sg-001": "B"})
    yaml_script(
        tmp_path / "frames-judge.yaml",
        {"frames-0": "YES", "frames-1": "YES", "frames-2": "NO", "frames-3": "not sure"},
    )
    suite = tmp_path / "full-suite.toml"
    suite.write_text(FULL_SUITE, encoding="utf-8")
    return suite


def summary(tmp_path: Path, stem: str) -> dict:
    return json.loads((tmp_path / "out" / f"{stem}.summary.json").read_text())


def records(tmp_path: Path, stem: str) -> list[dict]:
    lines = (tmp_path / "out" / f"{stem}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_full_suite_runs_end_to_end(full_suite: Path) -> None:
    work = full_suite.parent
    proc = trialrun("run", "--config", str(full_suite), cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == (
        "Suite: full-suite — 2 model(s) x 2 benchmark(s) = 4 run(s)"
    )
    assert proc.stderr.count("num_gpus") == 1  # one warning, two entries
    assert proc.stderr.count("'engine' is not used") == 1
    assert "Traceback" not in proc.stderr
    for stem in ("supergpqa_a.yaml", "supergpqa_b.yaml", "frames_a.yaml", "frames_b.yaml"):
        assert (work / "out" / f"{stem}.jsonl").is_file()
        assert (work / "out" / f"{stem}.summary.json").is_file()
    # hand count, supergpqa: a answers right on even ids (0, 2, 4, 6, 8) and, through the
    # judge, on sg-001; b always answers "A", right where the answer is A (0, 4, 8)
    sg_a = summary(work, "supergpqa_a.yaml")
    assert (sg_a["correct"], sg_a["scored_samples"], sg_a["accuracy"]) == (6, 10, 0.6)
    # the subject is the subfield (as the seed has it): even ids are Mechanics
    assert sg_a["per_subject"]["Mechanics"]["correct"] == 5
    assert sg_a["per_subject"]["Ancient History"]["correct"] == 1
    lo, hi = sg_a["accuracy_ci95"]
    assert lo < 0.6 < hi
    # the seed's RunSummary: a category, and start and end as Unix timestamps
    assert sg_a["category"] == "reasoning"
    assert summary(work, "frames_a.yaml")["category"] == "rag"
    assert isinstance(sg_a["started_at"], float) and isinstance(sg_a["ended_at"], float)
    assert sg_a["started_at"] <= sg_a["ended_at"]
    assert datetime.fromisoformat(sg_a["started_at_iso"]).timestamp() == sg_a["started_at"]
    assert datetime.fromisoformat(sg_a["ended_at_iso"]).timestamp() == int(sg_a["ended_at"])
    sg_b = summary(work, "supergpqa_b.yaml")
    assert (sg_b["correct"], sg_b["accuracy"]) == (3, 0.3)
    judged = {r["record_id"]: r for r in records(work, "supergpqa_a.yaml")}["sg-001"]
    assert judged["is_correct"] is True
    assert judged["scoring_metadata"]["extraction"] == "judge"
    assert judged["scoring_metadata"]["candidate_letter"] == "B"
    # frames: the per-benchmark judge says YES, YES, NO and no verdict
    for stem in ("frames_a.yaml", "frames_b.yaml"):
        s = summary(work, stem)
        assert (s["correct"], s["scored_samples"], s["total_samples"]) == (2, 3, 4)
        assert s["undetermined"] == 1 and s["errors"] == 0
        assert s["judge"].endswith("frames-judge.yaml")
    line = records(work, "frames_a.yaml")[0]
    for key in ("record_id", "is_correct", "score", "latency_seconds", "prompt_tokens",
                "completion_tokens", "cost_usd", "error", "scoring_metadata", "model_answer"):
        assert key in line
    # the trialrun run folder beside the files holds the same trials (k = 1)
    (run_dir,) = (work / "out" / "runs" / "supergpqa_a.yaml").iterdir()
    results = RunDir.open(run_dir).results()
    assert len(results) == 10 and all(r.trial == 0 for r in results)
    assert sum(r.solve is True for r in results) == 6


def test_rerun_resumes_and_summarize_recomputes(full_suite: Path) -> None:
    work = full_suite.parent
    assert trialrun("run", str(full_suite), cwd=work).returncode == 0
    first = (work / "out" / "supergpqa_a.yaml.jsonl").read_text()
    again = trialrun("run", str(full_suite), cwd=work)  # the positional form
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("(resumed)") == 4
    assert len(list((work / "out" / "runs" / "supergpqa_a.yaml").iterdir())) == 1
    assert sorted(first.splitlines()) == sorted(
        (work / "out" / "supergpqa_a.yaml.jsonl").read_text().splitlines()
    )
    done = trialrun("summarize", str(work / "out" / "supergpqa_a.yaml.jsonl"), "--json", cwd=work)
    assert done.returncode == 0, done.stderr
    recomputed = json.loads(done.stdout)
    stored = summary(work, "supergpqa_a.yaml")
    for key in ("accuracy", "accuracy_ci95", "correct", "errors", "per_subject"):
        assert recomputed[key] == stored[key]
    text = trialrun("summarize", str(work / "out" / "frames_b.yaml.jsonl"), cwd=work)
    assert "accuracy: 66.7% (2/3 scored" in text.stdout


def test_changed_settings_start_a_new_run(full_suite: Path) -> None:
    work = full_suite.parent
    assert trialrun("run", str(full_suite), cwd=work).returncode == 0
    hot = trialrun("run", str(full_suite), "--temperature", "0.7", cwd=work)
    assert hot.returncode == 0, hot.stderr
    assert "(resumed)" not in hot.stdout
    assert len(list((work / "out" / "runs" / "supergpqa_a.yaml").iterdir())) == 2
    assert summary(work, "supergpqa_a.yaml")["temperature"] == 0.7


def test_user_errors_are_one_line_exit_2(full_suite: Path) -> None:
    work = full_suite.parent
    bad = full_suite.read_text().replace('name = "frames"', 'name = "framez"')
    full_suite.write_text(bad)
    proc = trialrun("run", "--config", str(full_suite), cwd=work)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith("trialrun: ")
    assert "unknown benchmark 'framez'; did you mean 'frames'?" in proc.stderr
    assert "Traceback" not in proc.stderr
    flags = trialrun("run", str(ROOT / "examples" / "tasks"), "--max-samples", "2", cwd=work)
    assert flags.returncode == 2 and "only for a suite config" in flags.stderr


def test_list_benchmarks() -> None:
    proc = trialrun("list", "--benchmarks", "--json", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    native = [b["name"] for b in doc["benchmarks"] if b["origin"] == "trialrun"]
    assert native == ["frames", "gaia", "supergpqa", "taubench", "wildchat"]
    assert doc["backends"] == {"direct": ["jarvis-direct"], "agent": ["jarvis-agent"]}
    text = trialrun("list", "--benchmarks", cwd=ROOT).stdout
    assert "supergpqa\t[trialrun]\tm-a-p/SuperGPQA" in text
    assert "backend agent (also jarvis-agent)" in text


def test_run_all_without_the_hub_says_so_for_each_benchmark(tmp_path: Path) -> None:
    pytest.importorskip("datasets")
    model = tmp_path / "m.yaml"
    yaml_script(model, {})
    proc = trialrun(
        "run-all", "-m", f"scripted:{model}", "--max-samples", "1", "--out", str(tmp_path / "o"),
        cwd=tmp_path, env={"HF_HUB_OFFLINE": "1"},
    )
    assert proc.returncode == 2
    assert proc.stdout.splitlines()[0] == (
        "Suite: run-all — 1 model(s) x 4 benchmark(s) = 4 run(s)"
    )
    for name in ("m-a-p/SuperGPQA", "gaia-benchmark/GAIA", "google/frames-benchmark",
                 "allenai/WildChat-1M"):
        assert f"dataset '{name}': cannot reach the Hugging Face hub" in proc.stderr
    assert "4 run(s) failed" in proc.stderr and "Traceback" not in proc.stderr


GAIA_SUITE = """
[meta]
name = "gaia-agent"
[run]
output_dir = "out"
[[models]]
name = "agent.yaml"
provider = "scripted"
[[benchmarks]]
name = "gaia"
backend = "jarvis-agent"
tools = ["file_read", "calculator"]
dataset = "gaia/metadata.jsonl"
"""


def test_gaia_on_the_agent_backend_reads_the_attached_file(tmp_path: Path) -> None:
    write_gaia(tmp_path / "gaia")
    yaml_script(
        tmp_path / "agent.yaml",
        {
            "gaia-g-file": [
                {"tool_calls": [{"name": "file_read", "arguments": {"path": "sales.csv"}}]},
                {"tool_calls": [{"name": "calculator", "arguments": {"expression": "40 + 2"}}]},
                {"content": "The totals add up.\nFINAL ANSWER: 42"},
            ],
            "gaia-g-plain": "FINAL ANSWER: paris",
        },
    )
    suite = tmp_path / "gaia.toml"
    suite.write_text(GAIA_SUITE)
    proc = trialrun("run", str(suite), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = {r["record_id"]: r for r in records(tmp_path, "gaia_agent.yaml") if r}
    assert rows["g-file"]["is_correct"] is True
    assert rows["g-file"]["scoring_metadata"]["match_type"] == "exact"
    assert rows["g-plain"]["is_correct"] is True
    (run_dir,) = (tmp_path / "out" / "runs" / "gaia_agent.yaml").iterdir()
    rundir = RunDir.open(run_dir)
    line = next(r for r in rundir.results() if r.task_id == "gaia-g-file")
    assert [(c["name"], c["ok"]) for c in line.tool_calls] == [
        ("file_read", True), ("calculator", True)
    ]
    transcript = rundir.transcript(line)
    tool_texts = [m.get("content") for m in transcript.messages if m.get("role") == "tool"]
    assert tool_texts == ["month,total\njan,40\nfeb,2\n", "42"]
    assert "Attached file: sales.csv" in transcript.messages[1]["content"]


def test_a_folder_of_task_files_is_a_benchmark(tmp_path: Path) -> None:
    good = ROOT / "examples" / "scripts" / "good.yaml"
    suite = tmp_path / "tasks.toml"
    suite.write_text(
        f'[meta]\nname = "tasks"\n[[models]]\nname = "{good}"\nprovider = "scripted"\n'
        f'[[benchmarks]]\nname = "{ROOT / "examples" / "tasks"}"\n'
    )
    proc = trialrun("run", str(suite), "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # --json: one document on stdout, warnings inside it
    doc = json.loads(proc.stdout)
    (run,) = doc["runs"]
    assert any("no judge model is configured" in w for w in doc["warnings"])
    # 12 example tasks: good.yaml fails count-recipes; the two judge-graded tasks have no
    # judge (undetermined, not scored)
    assert (run["total_samples"], run["scored_samples"], run["correct"]) == (12, 10, 9)
