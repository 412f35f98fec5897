"""Workspaces of a killed run live in its folder; `--resume` and `trialrun clean` remove them.

Real `trialrun run` subprocesses, SIGKILLed mid-trial (a scripted model whose answers take
a while keeps trials in flight); TMPDIR points at a private folder so anything a run
leaves in the temp folder would be seen.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

MAIN = "from trialrun.cli import main; main()"
INFLIGHT = ".workspaces"
LOCK = ".lock"

pytestmark = pytest.mark.timeout(300)


def script(path: Path, delay: float) -> str:
    turns = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "note.md"}}], "delay_s": delay},
        {"content": "The secret word is pineapple.", "delay_s": delay},
    ]
    path.write_text(json.dumps({"default": turns}))
    return f"scripted:{path}"


def env_for(tmp_path: Path) -> dict[str, str]:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    return {**os.environ, "TMPDIR": str(tmpdir)}


def start(args, tmp_path: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", MAIN, *map(str, args)],
        cwd=tmp_path,
        env=env_for(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def cli(args, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", MAIN, *map(str, args)],
        cwd=tmp_path,
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_dirs(out: Path) -> list[Path]:
    if not out.exists():
        return []
    return sorted(p for p in out.iterdir() if p.is_dir() and not p.name.startswith("."))


def in_flight(run_dir: Path) -> list[Path]:
    folder = run_dir / INFLIGHT
    return sorted(folder.iterdir()) if folder.is_dir() else []


def wait_for_trials_in_flight(out: Path, proc: subprocess.Popen, skip=()) -> Path:
    """The run folder `proc` writes, once it has a trial's workspace in flight."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        for run_dir in run_dirs(out):
            if run_dir not in skip and in_flight(run_dir):
                return run_dir
        time.sleep(0.02)
    proc.kill()
    _, stderr = proc.communicate()
    raise AssertionError(f"no workspace appeared under {out}/*/{INFLIGHT}: {stderr}")


def settled_in_flight(run_dir: Path, quiet_s: float = 1.0) -> list[Path]:
    """The run's in-flight workspaces once they stay the same for `quiet_s`: the first
    one seen can be the workspace image being captured (made, read back and removed just
    before the trial's own workspace is written)."""
    seen, since = in_flight(run_dir), time.monotonic()
    deadline = since + 60
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = in_flight(run_dir)
        if now != seen:
            seen, since = now, time.monotonic()
        elif now and time.monotonic() - since >= quiet_s:
            return now
    raise AssertionError(f"the in-flight workspaces of {run_dir} never settled: {seen}")


def kill_mid_run(suite: Path, out: Path, tmp_path: Path, name: str, skip=()) -> Path:
    """Start a run whose trials take seconds, SIGKILL it with trials in flight."""
    model = script(tmp_path / f"{name}.json", delay=2.0)
    proc = start(["run", suite, "-m", model, "-k", "2", "-j", "2", "--out", out], tmp_path)
    run_dir = wait_for_trials_in_flight(out, proc, skip)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    return run_dir


def temp_leftovers(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in (tmp_path / "tmp").iterdir() if p.name.startswith("trialrun"))


def test_a_sigkilled_runs_workspaces_are_in_its_folder_and_resume_removes_them(suite, tmp_path):
    out = tmp_path / "out"
    run_dir = kill_mid_run(suite, out, tmp_path, "killed")
    abandoned = in_flight(run_dir)
    assert abandoned, "the kill landed with trials in flight"
    assert all(p.is_dir() for p in abandoned)
    assert (run_dir / LOCK).is_file()  # names the (now dead) process
    assert temp_leftovers(tmp_path) == []  # nothing left in the temp folder

    script(tmp_path / "killed.json", delay=0.0)  # the resume replays the same model, fast
    proc = start(["run", "--resume", run_dir], tmp_path)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert not any(p.exists() for p in abandoned)
    assert not (run_dir / INFLIGHT).exists()
    assert not (run_dir / LOCK).exists()
    assert temp_leftovers(tmp_path) == []
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    assert len(lines) == 4  # read-note × 2 + write-note × 2


def test_clean_removes_abandoned_workspaces_and_leaves_a_live_runs_alone(suite, tmp_path):
    out = tmp_path / "out"
    dead = kill_mid_run(suite, out, tmp_path, "dead")
    dead_workspaces = in_flight(dead)
    assert dead_workspaces

    # a live run: its first answer takes minutes
    model = script(tmp_path / "live.json", delay=600.0)
    live_proc = start(["run", suite, "-m", model, "-k", "1", "-j", "1", "--out", out], tmp_path)
    try:
        live = wait_for_trials_in_flight(out, live_proc, skip=[dead])
        live_workspaces = settled_in_flight(live)

        result = cli(["clean", out], tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        text = result.stdout
        removed = [line for line in text.splitlines() if line.startswith("removed")]
        assert len(removed) == 1 and dead.name in removed[0]
        assert f"{len(dead_workspaces)} workspace" in removed[0]
        assert re.search(r"\d+(\.\d+)? (B|KiB|MiB|GiB)", removed[0])
        assert re.search(rf"{re.escape(live.name)}.*running \(pid {live_proc.pid}\)", text)
        assert not (dead / INFLIGHT).exists() and not (dead / LOCK).exists()
        assert in_flight(live) == live_workspaces  # untouched
        assert (live / LOCK).is_file()
    finally:
        live_proc.send_signal(signal.SIGKILL)
        live_proc.communicate(timeout=60)

    # now the live run is abandoned too
    result = cli(["clean", out], tmp_path)
    assert result.returncode == 0, result.stderr
    assert live.name in result.stdout and "removed" in result.stdout
    assert not (live / INFLIGHT).exists()
    result = cli(["clean", out], tmp_path)
    assert result.returncode == 0
    assert result.stdout.startswith("nothing to clean")
    # the run folders themselves, their results and transcripts stay
    assert (dead / "run.json").is_file() and (live / "run.json").is_file()


def test_resume_refuses_a_run_that_is_still_running(suite, tmp_path):
    out = tmp_path / "out"
    model = script(tmp_path / "live.json", delay=600.0)
    live_proc = start(["run", suite, "-m", model, "-k", "1", "-j", "1", "--out", out], tmp_path)
    try:
        live = wait_for_trials_in_flight(out, live_proc)
        workspaces = settled_in_flight(live)  # not the workspace image being captured
        result = cli(["run", "--resume", live], tmp_path)
        assert result.returncode == 2
        assert f"running (pid {live_proc.pid})" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
        assert in_flight(live) == workspaces
    finally:
        live_proc.send_signal(signal.SIGKILL)
        live_proc.communicate(timeout=60)


def test_clean_a_single_run_folder_and_bad_paths(suite, tmp_path):
    out = tmp_path / "out"
    run_dir = kill_mid_run(suite, out, tmp_path, "one")
    result = cli(["clean", run_dir], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("removed") and not (run_dir / INFLIGHT).exists()

    result = cli(["clean", tmp_path / "nope"], tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("trialrun: ") and "nope" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_clean_with_no_folder_given_looks_in_results(tmp_path):
    result = cli(["clean"], tmp_path)
    assert result.returncode == 2 and "results" in result.stderr
    (tmp_path / "results").mkdir()
    result = cli(["clean"], tmp_path)
    assert result.returncode == 0 and result.stdout.startswith("nothing to clean")
