"""Ctrl-C during the steps after a run (the history record here, JUnit, Markdown,
compare, gate): they run synchronously on the event loop's thread, where asyncio's own
handler only cancels a task that never waits again; the press was lost and the command
ended 0 once every step had run. Now it stops the steps and the command exits 130, with
the run's results kept."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import trialrun


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_while_the_run_waits_for_a_locked_history_store_exits_130(
    tmp_path: Path,
) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "hi.yaml").write_text(
        "task_id: hi\nsuite: golden\ndescription: say hi\n"
        "inputs: {prompt: say hi}\ngraders: [{type: contains, value: hi}]\n"
        "tracked_metrics: [pass_rate]\n")
    script = tmp_path / "script.yaml"
    script.write_text("tasks:\n  hi:\n    - content: hi\n")
    db = tmp_path / "history.db"
    trialrun.run(str(suite), [f"scripted:{script}"], k=1, out=str(tmp_path / "first"),
                 after=trialrun.AfterRun(record=True, store=str(db)))  # the store exists
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process's write: the record waits (5 s)
    out = tmp_path / "out"
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "trialrun", "run", str(suite), "-k", "3",
             "-m", f"scripted:{script}", "--out", str(out), "--store", str(db)],
            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            summaries: list[Path] = []
            while not summaries and proc.poll() is None and time.monotonic() < deadline:
                summaries = list(out.glob("*/summary.json"))  # the trials are done
                time.sleep(0.02)
            assert summaries and proc.poll() is None, "the run ended before its record"
            time.sleep(0.5)  # well inside the record's 5 s wait for the lock
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    finally:
        holder.rollback()
        holder.close()
    assert proc.returncode == 130, err.decode()
    assert "Traceback" not in err.decode()
    assert "interrupted after the run: its results are kept in" in err.decode()
    run = summaries[0].parent
    lines = (run / "results.jsonl").read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(line)["task_id"] == "hi" for line in lines)


def test_inside_ctrl_c_raises_a_press_interrupts_synchronous_code_on_the_loop() -> None:
    """On the event loop's thread `asyncio.run` only cancels the main task on Ctrl-C:
    synchronous code goes on to its end. Inside `ctrl_c_raises` the press raises
    KeyboardInterrupt there and then; asyncio's handler is back afterwards."""
    from trialrun.runner import ctrl_c_raises

    def busy_steps(inside: bool) -> list[str]:
        done: list[str] = []

        async def main() -> None:
            before = signal.getsignal(signal.SIGINT)
            try:
                if inside:
                    with ctrl_c_raises():
                        signal.raise_signal(signal.SIGINT)
                        done.append("after the press")
                else:
                    signal.raise_signal(signal.SIGINT)
                    done.append("after the press")
            except KeyboardInterrupt:
                done.append("interrupted")
            done.append("handler restored" if signal.getsignal(signal.SIGINT) is before
                        else "handler changed")

        try:
            asyncio.run(main())
        except KeyboardInterrupt:  # asyncio's way: the cancelled main task, at its end
            done.append("KeyboardInterrupt after every step")
        return done

    assert busy_steps(inside=False) == ["after the press", "handler restored",
                                        "KeyboardInterrupt after every step"]
    assert busy_steps(inside=True) == ["interrupted", "handler restored"]
