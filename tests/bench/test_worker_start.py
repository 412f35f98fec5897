"""bench/worker_start.py, smoke-tested small: a worker spawned as the driver does runs its
first trial, and the script prints each figure's min/median/max with the load (never a
check of how long anything took)."""

from __future__ import annotations

import json
from types import ModuleType

import pytest

from bench_scripts import load_bench

pytestmark = pytest.mark.timeout(300)


def _load() -> ModuleType:
    return load_bench("worker_start.py", "bench_worker_start")


def test_one_repetition_times_every_part_of_the_start() -> None:
    bench = _load()
    figures = bench._once(3)
    assert set(figures) == set(bench.FIGURES)
    assert all(value >= 0 for value in figures.values())
    # one spawned worker: ready before its first result; the split is its own process
    assert figures["first_result_s"] >= figures["ready_s"] > 0
    assert figures["import_s"] > 0 and figures["setup_s"] > 0 and figures["first_trial_s"] > 0
    assert figures["worker_cpu_s"] > 0 and figures["run_first_s"] > 0


def test_the_script_prints_min_median_max_and_the_load(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    assert bench.main(["--tasks", "2", "--repeats", "3"]) == 0
    *text, last = capsys.readouterr().out.strip().splitlines()
    assert text[0].startswith("one worker process, a suite of 2 tasks")
    for key, (name, _unit) in bench.FIGURES.items():
        line = next(line for line in text if line.strip().startswith(name.strip() + ":"))
        assert "median" in line and "n=3" in line and "load" in line, key
    out = json.loads(last)
    assert out["tasks"] == 2 and len(out["runs"]) == 3
    assert {key: out[key]["n"] for key in bench.FIGURES} == dict.fromkeys(bench.FIGURES, 3)


def test_too_few_tasks_or_repetitions_exit_2() -> None:
    bench = _load()
    for argv in (["--tasks", "0"], ["--repeats", "2"]):
        with pytest.raises(SystemExit) as info:
            bench.main(argv)
        assert info.value.code == 2
