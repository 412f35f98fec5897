"""The seed's command line: one benchmark without a suite file (`trialrun run
--benchmark NAME -m MODEL [--backend B] [--max-samples N] [DATASET]`), and `run-all`
with `--engine`, `--output-dir` and local datasets (`--data-dir`, `--dataset NAME=PATH`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks_support import FRAMES_ROWS, SUPERGPQA_ROWS, write_csv, write_jsonl
from judge_server import JudgeServer


def trialrun(*args: str, cwd: Path, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "trialrun", *args],
        cwd=cwd, capture_output=True, text=True, timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})},
    )  # fmt: skip


def answers(path: Path, reply: str) -> Path:
    path.write_text(json.dumps({"default": [{"content": reply}]}), encoding="utf-8")
    return path


def test_one_benchmark_from_the_command_line(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "sg.jsonl", SUPERGPQA_ROWS)
    answers(tmp_path / "m.yaml", "A")
    proc = trialrun("run", "--benchmark", "supergpqa", "-m", "scripted:m.yaml",
                    "--max-samples", "4", "--backend", "jarvis-direct", "sg.jsonl", "--json",
                    cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (run,) = json.loads(proc.stdout)["runs"]
    # the seed's order: shuffled with seed 42, then 4 kept; "A" is right where the answer is A
    assert (run["benchmark"], run["backend"], run["total_samples"]) == ("supergpqa", "direct", 4)
    assert run["category"] == "reasoning" and run["dataset"] == "sg.jsonl"
    assert (tmp_path / "results" / "supergpqa_scripted-m.yaml.jsonl").is_file()


def test_single_run_mistakes_are_one_line(tmp_path: Path) -> None:
    answers(tmp_path / "m.yaml", "A")
    cases = [
        (["--backend", "agent", "-m", "scripted:m.yaml"], "--backend: only with --benchmark"),
        (["--benchmark", "supergpqa"], "--benchmark supergpqa: give the model to run with -m"),
        (["-b", "supergpqa", "-m", "scripted:m.yaml", "--backend", "warp"],
         "backend: unknown backend 'warp'"),
        (["-b", "nope", "-m", "scripted:m.yaml"], "unknown benchmark 'nope'"),
        (["-b", "supergpqa", "-m", "scripted:m.yaml", "a.jsonl", "b.jsonl"],
         "give at most one path"),
    ]  # fmt: skip
    for args, message in cases:
        proc = trialrun("run", *args, cwd=tmp_path)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], (args, proc.stderr)


def test_run_all_with_engine_output_dir_and_local_copies(tmp_path: Path) -> None:
    data = tmp_path / "copies"
    write_jsonl(data / "supergpqa.jsonl", SUPERGPQA_ROWS[:3])
    write_csv(tmp_path / "frames.csv", FRAMES_ROWS[:2])
    with JudgeServer() as server:  # the model under test, through the vllm engine
        proc = trialrun("run-all", "-m", "served-model", "--engine", "vllm",
                        "--output-dir", "mine", "--data-dir", str(data),
                        "--dataset", "frames=frames.csv",
                        cwd=tmp_path, env={"VLLM_BASE_URL": server.base_url})  # fmt: skip
        asked = {r["model"] for r in server.requests}
    # gaia and wildchat have no local copy: offline, each is one line; the others ran
    assert proc.returncode == 2
    assert "2 run(s) failed" in proc.stderr and "Traceback" not in proc.stderr
    out = tmp_path / "mine"
    runs = {p.name.split("_")[0]: json.loads(p.read_text()) for p in out.glob("*.summary.json")}
    assert set(runs) == {"frames", "supergpqa"}
    assert (runs["supergpqa"]["total_samples"], runs["frames"]["total_samples"]) == (3, 2)
    assert asked == {"served-model"}
    assert runs["supergpqa"]["model_spec"].startswith("openai-compat:served-model")
    assert (out / "supergpqa_served-model.jsonl").is_file()
    bad = trialrun("run-all", "-m", "scripted:x", "--dataset", "frames", cwd=tmp_path)
    assert bad.returncode == 2 and "--dataset frames: expected NAME=PATH" in bad.stderr
