from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from trialrun.cli import app
from trialrun.errors import UserError
from trialrun.reports import render_comparisons
from trialrun.tracking import bless, compare, compare_with_baselines

runner = CliRunner()


def _baseline(make_run, tmp_path: Path, tasks) -> Path:
    out = tmp_path / "baselines"
    [item] = bless(make_run(tasks), out)
    return item.path


def test_three_of_three_to_two_of_three_is_within_noise(make_run, T, tmp_path) -> None:
    base = _baseline(make_run, tmp_path, [T("a", n=3, solved=3)])
    run = make_run([T("a", n=3, solved=2)])
    c = compare(run, base)
    [delta] = c.tasks
    assert delta.solve_dropped and delta.p_solve == 0.5
    assert delta.label == "within noise"
    assert c.regressions == []
    assert c.pp("solve_k_rate") == pytest.approx(-100.0)


def test_ten_of_ten_to_two_of_ten_is_a_regression(make_run, T, tmp_path) -> None:
    base = _baseline(make_run, tmp_path, [T("a", n=10, k=10, solved=10)])
    run = make_run([T("a", n=10, k=10, solved=2)])
    c = compare(run, base)
    [delta] = c.tasks
    assert delta.label == "regression"
    assert delta.p_solve == pytest.approx(66 / 184756)
    assert [t.task_id for t in c.regressions] == ["a"]
    assert delta.trials_needed is not None and delta.trials_needed > 10


def test_alpha_decides_the_label(make_run, T, tmp_path) -> None:
    base = _baseline(make_run, tmp_path, [T("a", n=10, k=10, solved=8)])
    run = make_run([T("a", n=10, k=10, solved=4)])  # p ≈ 0.0849
    assert compare(run, base).tasks[0].label == "within noise"
    assert compare(run, base, alpha=0.1).tasks[0].label == "regression"


def test_passed_fraction_drop_is_tested_too(make_run, T, tmp_path) -> None:
    base = _baseline(make_run, tmp_path, [T("a", n=10, k=10)])
    run = make_run([T("a", n=10, k=10, passed=1, solved=1)])
    [delta] = compare(run, base).tasks
    assert delta.pass_dropped and delta.p_pass is not None and delta.p_pass < 0.05
    assert "passed 10/10 → 1/10" in delta.describe()


def test_missing_new_latency_cost(make_run, T, tmp_path) -> None:
    base = _baseline(make_run, tmp_path, [T("a"), T("gone")])
    run = make_run([T("a", latency_s=1.5, cost_usd=0.002), T("fresh")])
    c = compare(run, base)
    assert c.missing_tasks == ["gone"] and c.new_tasks == ["fresh"]
    assert c.latency_delta_ms == pytest.approx(500.0)
    assert c.cost_delta_pct == pytest.approx(100.0)
    data = c.to_dict()
    json.dumps(data)
    assert data["missing_tasks"] == ["gone"] and data["test"] == "fisher-exact-one-sided"
    assert data["power"]["trials_per_task"] == c.trials_needed


def test_compare_with_baselines_and_terminal(make_run, T, tmp_path) -> None:
    out = tmp_path / "baselines"
    bless(make_run([T("a", n=10, k=10), T("b")]), out)
    run = make_run(
        {
            "gemini:gemini-2.5-flash": [T("a", n=10, k=10, solved=2), T("b", solved=2)],
            "ollama:qwen3:8b": [T("a", n=10, k=10)],
        }
    )
    matches = compare_with_baselines(run, out)
    assert [m.comparison is not None for m in matches] == [True, False]
    assert matches[1].baseline_path == out / "ollama-qwen3-8b.json"
    buffer = io.StringIO()
    render_comparisons(matches, Console(file=buffer, width=200, color_system=None))
    text = buffer.getvalue()
    assert "REGRESSION · drift a: solved 10/10 → 2/10" in text
    assert "within noise · drift b: solved 3/3 → 2/3 (p = 0.50)" in text
    assert f"no baseline at {out / 'ollama-qwen3-8b.json'}" in text
    assert "pp)" in text and "power:" in text


def test_compare_cli_json_and_against(make_run, T, tmp_path) -> None:
    before = make_run([T("a", n=10, k=10)])
    after = make_run([T("a", n=10, k=10, solved=2)])
    result = runner.invoke(app, ["compare", str(after), "--against", str(before), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    [item] = data["comparisons"]
    assert item["comparison"]["regressions"] == ["a"]
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["compare", str(after), "--baselines", str(tmp_path / "empty")])
    assert result.exit_code == 0
    assert "no baseline at" in result.stdout
    # an explicit --baselines folder that does not exist is a typo, not "no baseline yet"
    result = runner.invoke(app, ["compare", str(after), "--baselines", str(tmp_path / "none")])
    assert isinstance(result.exception, UserError)
    assert "no such folder" in str(result.exception)
