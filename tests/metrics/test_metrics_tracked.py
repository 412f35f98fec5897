"""Each task row of summary.json carries its tracked metrics' values (`tracked`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import trialrun
from trialrun.metrics import canonical_metric, summarize
from trialrun.rundir import ResultLine, RunDir

M = "scripted:x.yaml"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def line(trial, p, s, *, kind=None, latency=1.0, cost=0.01, tools=1, turns=2, tokens=None):
    return ResultLine.from_json(
        {
            "task_id": "a",
            "model": M,
            "provider": "scripted",
            "trial": trial,
            "pass": p,
            "solve": s,
            "error": {"kind": kind, "message": "x"} if kind else None,
            "verdicts": [],
            "tool_calls": [{"name": "read_file", "arguments": {}}] * tools,
            "turns": turns,
            "tokens": tokens if tokens is not None else {"prompt": 10, "completion": 5},
            "cost_usd": cost,
            "latency_s": latency,
            "safety_violation": False,
        }
    )


def meta(tracked=None, k=2):
    out = {"task_id": "a", "suite": "golden", "k": k, "policy": "ALWAYS_PASSES"}
    if tracked is not None:
        out["tracked_metrics"] = tracked
    return out


ALL = ["pass^k", "solve^k", "pass@k", "pass_rate", "solve_rate", "latency_p50", "latency_p95",
       "cost", "tokens", "turns", "steps", "tool_calls"]


def test_every_tracked_metric_has_its_value() -> None:
    lines = [
        line(0, True, True, latency=1.0, cost=0.01, tools=1, turns=2),
        line(1, True, False, latency=3.0, cost=0.03, tools=3, turns=4),
        line(2, None, None, kind="infra", latency=100.0, cost=9.0, tools=9, turns=9),
    ]
    [row] = summarize(lines, [meta(ALL)], models=[M]).tasks
    t = row.tracked
    assert list(t) == ALL
    # pass counts the infra trial as a failed pass (C(2,2)/C(3,2)); solve leaves it out
    assert t["pass^k"] == row.pass_k == pytest.approx(1 / 3)
    assert t["solve^k"] == row.solve_k == 0.0
    assert t["pass@k"] == row.pass_at_k == 1.0
    assert t["pass_rate"] == pytest.approx(2 / 3) and t["solve_rate"] == 0.5
    assert t["latency_p50"] == pytest.approx(2.0)  # infra trials are not counted
    assert t["latency_p95"] == pytest.approx(2.9)
    assert t["cost"] == pytest.approx(0.02)
    assert t["tokens"] == 15.0
    assert t["turns"] == t["steps"] == 3.0
    assert t["tool_calls"] == 2.0


def test_aliases_are_canonical_and_missing_data_is_none() -> None:
    lines = [line(0, None, None, kind="infra")]
    tracked = ["cost_usd", "pass_k", "latency_p95_s", "tokens"]
    [row] = summarize(lines, [meta(tracked)], models=[M]).tasks
    assert row.tracked == {
        canonical_metric(name): None for name in tracked
    } == {"cost": None, "pass^k": None, "latency_p95": None, "tokens": None}


def test_an_old_manifest_without_tracked_metrics_gives_no_tracked_entry() -> None:
    [row] = summarize([line(0, True, True)], [meta()], models=[M]).tasks
    assert row.tracked is None and "tracked" not in row.to_json()
    [row] = summarize([line(0, True, True)], None, models=[M]).tasks
    assert row.tracked is None and "tracked" not in row.to_json()


def test_a_run_records_and_summarizes_tracked_metrics(tmp_path: Path) -> None:
    suite = tmp_path / "tasks"
    shutil.copytree(EXAMPLES / "tasks" / "fixtures", suite / "fixtures")
    text = (EXAMPLES / "tasks" / "golden" / "read_capital.yaml").read_text(encoding="utf-8")
    assert "tracked_metrics: [pass^k, solve^k]" in text
    text = text.replace(
        "tracked_metrics: [pass^k, solve^k]",
        "tracked_metrics: [pass^k, latency_p95, tokens, tool_calls, turns]",
    )
    (suite / "golden").mkdir()
    (suite / "golden" / "read_capital.yaml").write_text(text, encoding="utf-8")
    run = trialrun.run(
        suite / "golden",
        [f"scripted:{EXAMPLES / 'scripts' / 'good.yaml'}"],
        k=2,
        out=tmp_path / "results",
    )
    manifest = json.loads((run.path / "run.json").read_text())
    [task] = manifest["tasks"]
    assert task["tracked_metrics"] == ["pass^k", "latency_p95", "tokens", "tool_calls", "turns"]
    stored = RunDir.open(run.path).stored_summary()
    assert stored is not None
    [row] = stored.tasks
    tracked = row.tracked
    assert list(tracked) == ["pass^k", "latency_p95", "tokens", "tool_calls", "turns"]
    assert tracked["pass^k"] == row.pass_k == 1.0
    assert tracked["tool_calls"] == 1.0 and tracked["turns"] == 2.0
    assert tracked["latency_p95"] is not None and tracked["tokens"] is not None
