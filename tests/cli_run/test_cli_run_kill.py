"""Kill a run with SIGKILL at random points, resume until complete; Ctrl-C exits 130."""

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

MAIN = "from trialrun.cli import main; main()"
VOLATILE = {"latency_p50_s", "latency_p95_s"}


def slow_script(delay: float) -> str:
    turns = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "note.md"}}], "delay_s": delay},
        {"content": "The secret word is pineapple.", "delay_s": delay},
    ]
    return json.dumps({"default": turns})


def start(args, cwd):
    return subprocess.Popen(
        [sys.executable, "-c", MAIN, *map(str, args)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_dirs(out: Path):
    return (
        [p for p in out.iterdir() if p.is_dir() and not p.name.startswith(".")]
        if out.exists()
        else []
    )


def count_lines(out: Path) -> int:
    dirs = run_dirs(out)
    if not dirs or not (dirs[0] / "results.jsonl").exists():
        return 0
    return (dirs[0] / "results.jsonl").read_bytes().count(b"\n")


def lines_of(run_dir: Path):
    return [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]


def comparable(summary):
    aggs = {
        m: {k: v for k, v in a.items() if k not in VOLATILE}
        for m, a in summary["aggregate"].items()
    }
    # time to first tool is a timing, like latency: it differs between runs
    tasks = [{k: v for k, v in t.items() if k != "time_to_first_tool_s"} for t in summary["tasks"]]
    return tasks, aggs, summary["models"], summary["k"]


def add_tasks(suite: Path, n: int):
    base = (suite / "read.yaml").read_text()
    for i in range(n):
        (suite / f"read{i}.yaml").write_text(
            base.replace("task_id: read-note", f"task_id: read-{i}")
        )


@pytest.mark.slow
def test_sigkill_at_random_points_then_resume(suite, tmp_path):
    add_tasks(suite, 3)
    script = tmp_path / "slow.json"
    script.write_text(slow_script(0.05))
    model = f"scripted:{script}"
    args = ["run", suite, "-m", model, "-k", "3", "-j", "2"]

    ref_out = tmp_path / "ref"
    proc = start([*args, "--out", ref_out, "--json"], tmp_path)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    reference = json.loads(stdout)
    expected = len(lines_of(Path(reference["run_dir"])))
    # 4 read tasks × 3 + write-note × 2 (its own k is overridden by -k 3) = 15
    assert expected == 15

    mid_run_kills = 0
    for seed in range(3):
        rng = random.Random(seed)
        out = tmp_path / f"out{seed}"
        kills = 0
        for _attempt in range(40):
            dirs = run_dirs(out)
            cmd = [*args, "--out", out] if not dirs else ["run", "--resume", dirs[0]]
            proc = start(cmd, tmp_path)
            if kills < 4:
                # kill at a random point of progress: once a random number of lines is
                # written (0 = during start-up), plus a random few ms to land mid-trial
                already = count_lines(out)
                target = rng.randrange(max(1, expected - already))
                while proc.poll() is None and count_lines(out) < already + target:
                    time.sleep(0.005)
                time.sleep(rng.uniform(0, 0.08))
                if proc.poll() is None:
                    proc.send_signal(signal.SIGKILL)
                    kills += 1
                proc.communicate(timeout=60)
                mid_run_kills += 0 < count_lines(out) < expected
                continue
            _, stderr = proc.communicate(timeout=120)
            assert proc.returncode == 0, stderr
            break
        run_dir = run_dirs(out)[0]
        lines = lines_of(run_dir)
        keys = [(x["task_id"], x["model"], x["trial"]) for x in lines]
        assert len(keys) == expected
        assert len(set(keys)) == expected
        summary = json.loads((run_dir / "summary.json").read_text())
        assert comparable(summary) == comparable(reference)
        # every line's transcript exists
        assert all((run_dir / x["transcript"]).is_file() for x in lines)
    assert mid_run_kills >= 1  # the kills did land while trials were being written


def test_ctrl_c_exits_130_and_keeps_results(suite, tmp_path):
    add_tasks(suite, 3)
    script = tmp_path / "slow.json"
    script.write_text(slow_script(0.1))
    out = tmp_path / "out"
    proc = start(["run", suite, "-m", f"scripted:{script}", "-k", "3", "--out", out], tmp_path)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        dirs = run_dirs(out)
        if dirs and (dirs[0] / "results.jsonl").exists() and lines_of(dirs[0]):
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "resume with" in stderr
    run_dir = run_dirs(out)[0]
    kept = lines_of(run_dir)
    assert 1 <= len(kept) < 15
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["finished_trials"] == len(kept)
    proc = start(["run", "--resume", run_dir], tmp_path)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    keys = [(x["task_id"], x["trial"]) for x in lines_of(run_dir)]
    assert len(keys) == 15 and len(set(keys)) == 15
