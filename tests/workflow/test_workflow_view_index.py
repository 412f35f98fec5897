"""A large run writes the viewer's index as it ends (`AfterRun.view_index_from`): the
first `trialrun view` of it is a file read, keyed exactly as the viewer keys it, built in
a child process; a small run writes none, and a failed index is a warning, not a failed
run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import trialrun
from process_support import alive, child_pids
from trialrun import AfterRun
from trialrun.reports import RunView
from trialrun.reports._server import RunStore
from trialrun.rundir import VIEW_CACHE

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "examples" / "tasks" / "golden"
GOOD = f"scripted:{ROOT / 'examples' / 'scripts' / 'good.yaml'}"


def _run(tmp_path: Path, after: AfterRun) -> trialrun.Run:
    return trialrun.run(GOLDEN, [GOOD], k=2, out=tmp_path / "res", handle_sigint=False,
                        after=after)


def test_a_large_run_leaves_the_overview_the_viewer_serves_without_reading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _run(tmp_path, AfterRun(view_index_from=1))  # every run counts as large here
    assert run.follow_up is not None and run.follow_up.warnings == []
    cache = run.path / VIEW_CACHE
    assert cache.is_file()
    expected = RunView(run.path).overview()

    def no_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("the viewer read the run instead of its index")

    monkeypatch.setattr(RunStore, "view", no_build)
    served = RunStore(run.path.parent).overview(run.path.name)
    served.pop("version")
    assert served == json.loads(json.dumps(expected))


def test_a_small_run_writes_no_index(tmp_path: Path) -> None:
    run = _run(tmp_path, AfterRun())  # the default threshold is far above this run
    assert not (run.path / VIEW_CACHE).exists()


def test_an_index_that_cannot_be_written_is_a_warning_and_the_run_stands(
    tmp_path: Path
) -> None:
    out = tmp_path / "res"
    out.mkdir()
    first = _run(tmp_path, AfterRun(view_index_from=10**9))
    target = tmp_path / "elsewhere.json"
    os.symlink(target, first.path / VIEW_CACHE)  # the index is never written through a link
    again = trialrun.run(GOLDEN, [GOOD], k=2, out=out, resume=first.path,
                         handle_sigint=False, after=AfterRun(view_index_from=1))
    assert again.follow_up is not None
    assert any("viewer's index" in w for w in again.follow_up.warnings)
    assert not target.exists() and again.summary.finished_trials == first.summary.finished_trials


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc for the child")
def test_ctrl_c_while_the_index_is_built_ends_the_run_with_130(tmp_path: Path) -> None:
    """The run's own Ctrl-C handler is gone when its end writes the index; a press then
    stops the index's child and the command exits 130, not 0 seconds later."""
    import signal
    import subprocess
    import sys
    import time

    suite = tmp_path / "suite"
    suite.mkdir()
    names = ["a", "b", "c"]
    for name in names:
        (suite / f"{name}.yaml").write_text(
            f"task_id: {name}\nsuite: golden\ndescription: say hi\n"
            "inputs: {prompt: say hi}\ngraders: [{type: contains, value: hi}]\n"
            "tracked_metrics: [pass_rate]\n")
    script = tmp_path / "script.yaml"
    script.write_text("tasks:\n" + "".join(f"  {n}:\n    - content: hi\n" for n in names))
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "trialrun", "run", str(suite), "-k", "3334",
         "-m", f"scripted:{script}", "--out", str(out)],  # 10,002 trials: an index
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        children: list[int] = []
        while not children and proc.poll() is None and time.monotonic() < deadline:
            children = child_pids(proc.pid, "_view_index")
            time.sleep(0.02)
        assert children, "the run ended without building its index"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err.decode()
        assert "Traceback" not in err.decode()
        assert not any(alive(pid) for pid in children)
        assert not list(out.glob(f"*/{VIEW_CACHE}"))  # the child stopped before writing
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc for the child")
def test_the_gate_reads_the_run_while_the_index_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index's child starts as the run ends and the other steps run beside it, not
    after it: the gate finds the child still running, and the index is still written."""
    from trialrun.workflow import _after_run

    seen: list[list[int]] = []
    real_gate = _after_run.run_gate

    def gate_watching_the_child(*args: object, **kwargs: object) -> object:
        seen.append([pid for pid in child_pids(os.getpid(), "_view_index") if alive(pid)])
        return real_gate(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_after_run, "run_gate", gate_watching_the_child)
    run = _run(tmp_path, AfterRun(view_index_from=1, gate="merge"))
    assert len(seen) == 1 and seen[0], "the index was written before the gate ran"
    assert run.follow_up is not None and run.follow_up.gate is not None
    assert run.follow_up.warnings == [] and (run.path / VIEW_CACHE).is_file()
    assert not any(alive(pid) for pid in seen[0])


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc for the child")
def test_a_step_that_fails_stops_the_index_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trialrun.workflow import _after_run

    children: list[int] = []

    def failing_gate(*args: object, **kwargs: object) -> object:
        children.extend(child_pids(os.getpid(), "_view_index"))
        raise RuntimeError("the gate broke")

    monkeypatch.setattr(_after_run, "run_gate", failing_gate)
    with pytest.raises(RuntimeError, match="the gate broke"):
        _run(tmp_path, AfterRun(view_index_from=1, gate="merge"))
    assert children and not any(alive(pid) for pid in children)
