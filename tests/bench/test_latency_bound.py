"""bench/latency_bound.py, smoke-tested small: a real run against its loopback server
reports the CPU and the context switches per trial (issue 30: hand-offs per trial)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from bench_scripts import load_bench

pytestmark = pytest.mark.timeout(180)


def _load() -> ModuleType:
    return load_bench("latency_bound.py", "bench_latency_bound")


def test_context_switches_count_this_process_and_grow() -> None:
    bench = _load()
    first = bench.context_switches()
    for _ in range(3):
        bench.time.sleep(0.001)  # a sleep is a voluntary switch
    assert bench.context_switches() > first >= 0


def test_one_level_reports_switches_per_trial(tmp_path: Path) -> None:
    bench = _load()
    server, port = bench.start_server(0.01, 120)
    try:
        result = bench.one_level(4, port, 0.01, 0.5, tmp_path, server_pid=server.pid)
    finally:
        server.kill()
        server.wait()
    assert result["trials"] == 100 and result["infra_errors"] == 0
    assert result["solved_rate"] == 1.0
    assert result["switches_per_trial"] > 0 and result["cpu_ms_per_trial"] > 0
    # the trials' own span is inside the call's: set-up and after-run steps apart
    assert result["trials_fraction"] >= result["fraction"] > 0
    assert result["before_trials_s"] >= 0 and result["after_trials_s"] >= 0


def test_a_probe_at_another_delay_checks_no_goal(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    code = bench.main(["--in-flight", "4", "--processes", "1", "--processes", "2",
                       "--seconds", "0.3", "--delay-ms", "10"])
    out = capsys.readouterr().out
    assert code == 0
    *text, last = out.strip().splitlines()
    assert not [line for line in text if "goal" in line and "no goals checked" not in line]
    assert json.loads(last)["goals_met"] is None
    assert "no goals checked: they hold for 100 ms answers" in out
    assert "4 in flight: 2 processes / 1 process, trials/s over the trials" in out


def test_against_a_revision_pairs_each_run_with_the_old_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = _load()
    code = bench.main(["--in-flight", "4", "--processes", "1", "--seconds", "0.3",
                       "--delay-ms", "10", "--against", "HEAD"])
    out = capsys.readouterr().out
    assert code == 0
    figures = json.loads(out.strip().splitlines()[-1])
    ratio = figures["4 in flight, 1 process(es): CPU per trial, new/old paired"]
    assert ratio["n"] == 3 and ratio["min"] > 0
    assert "4 in flight, 1 process(es): context switches per trial, HEAD" in figures
    assert "CPU per trial, new/old paired: median" in out
