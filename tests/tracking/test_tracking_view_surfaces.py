"""What the viewer, the report and compare show beside the verdict (issue 25, item 5):
models in one run only are named, the heat map draws a cell only for a run that ran, the
live viewer says "pending", the runs list shows solve^k per model; and solve^k leads
while pass^k is "pass^k (completed)", defined one line away (item 3's labelling)."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

from typer.testing import CliRunner

from trialrun.cli import app
from trialrun.reports import HeatCell, RunView, render_run_markdown
from trialrun.reports._across import history_page
from trialrun.reports._server import RunStore
from trialrun.tracking import load_run

runner = CliRunner()
FLASH, PRO, QWEN = "gemini:gemini-2.5-flash", "gemini:gemini-2.5-pro", "ollama:qwen3:8b"
LLAMA = "ollama:llama3.1:8b"


def _hold_lock(run: Path) -> None:
    """The run's lock naming this (live) process: the run reads as in progress."""
    holder = {"pid": os.getpid(), "host": socket.gethostname()}
    (run / ".lock").write_text(json.dumps(holder), encoding="utf-8")


def test_compare_names_models_in_one_run_only(make_run, T) -> None:
    before = make_run({FLASH: [T("a")], QWEN: [T("a")]})
    after = make_run({FLASH: [T("a", solved=1)], PRO: [T("a")]})
    result = runner.invoke(app, ["compare", str(after), "--against", str(before)])
    assert result.exit_code == 0, result.output
    assert f"only in {after} (not compared): {PRO}" in result.output
    assert f"only in {before} (not compared): {QWEN}" in result.output
    result = runner.invoke(app, ["compare", str(after), "--against", str(before), "--json"])
    doc = json.loads(result.stdout)
    assert [c["model"] for c in doc["comparisons"]] == [FLASH]
    assert (doc["only_in_run"], doc["only_in_against"]) == ([PRO], [QWEN])
    page = RunStore(after.parent).compare(after.name, before.name)
    assert (page["only_in_a"], page["only_in_b"]) == ([PRO], [QWEN])
    # no model in common: the compare page still names each side's models
    other = make_run({QWEN: [T("a")], LLAMA: [T("a")]})
    page = RunStore(after.parent).compare(other.name, after.name)
    assert page["models"] == []
    assert (page["only_in_a"], page["only_in_b"]) == ([QWEN, LLAMA], [FLASH, PRO])


def _cells(task: str, runs: range) -> list[HeatCell]:
    return [HeatCell(f"run-{i:02d}", task, FLASH, solved=3, n=3,
                     started_at=f"2026-01-{i:02d}T10:00:00+00:00")
            for i in runs]


def test_heat_map_draws_a_cell_only_for_a_run_that_ran() -> None:
    # as the store gives them: each task × model its own last 10 runs
    cells = _cells("always-run", range(3, 13)) + _cells("dropped", range(1, 11))
    page = history_page(cells)
    assert page["runs"] == [f"run-{i:02d}" for i in range(3, 13)]  # the last 10 runs
    assert page["labels"][0] == "01-03 10:00"  # a start time, not a cut-off run id
    svg = page["svg"]
    assert "not run" not in svg
    for i in range(3, 13):
        assert f"always-run · {FLASH} · run-{i:02d}: solved 3/3" in svg
    for i in (11, 12):  # "dropped" was not in those runs: blank, no cell
        assert f"dropped · {FLASH} · run-{i:02d}" not in svg
    assert "blank: not in that run" in svg and "no verdict" in svg  # the legend


def test_heat_map_from_run_folders_skips_a_model_that_did_not_run_a_task(make_run, T) -> None:
    make_run({FLASH: [T("a"), T("b", solved=1)]})
    make_run({FLASH: [T("a")], PRO: [T("b")]})  # the pro model ran b only
    svg = RunStore(make_run.root / "results").history()["svg"]
    assert f"b · {PRO}" in svg and f"a · {PRO}" not in svg
    assert "no verdict (every trial" not in svg  # no grey cell for a task never run


def test_live_viewer_says_pending_for_tasks_not_yet_run(make_run, T) -> None:
    run = make_run([T("done", n=3), T("waiting", n=1, k=3)], summary=False)
    before = {r["task_id"]: r["status"] for r in RunView(run).overview()["tasks"]}
    assert before["waiting"] == "skipped"  # a finished run short of trials: skipped
    _hold_lock(run)
    rows = {r["task_id"]: r for r in RunView(run).overview()["tasks"]}
    assert (rows["waiting"]["status"], rows["done"]["status"]) == ("pending", "passed")
    assert rows["waiting"]["message"] == "1 of 3 trial(s) finished so far"


def test_runs_list_shows_solve_k_per_model(make_run, T) -> None:
    run = make_run({FLASH: [T("a"), T("b")], QWEN: [T("a"), T("b", solved=2)]})
    [listed] = RunStore(run.parent).listing()["runs"]
    assert listed["solve_k_rates"] == {FLASH: 1.0, QWEN: 0.5}
    _hold_lock(run)  # a live run is listed from its full view: the same figures
    [live] = RunStore(run.parent).listing()["runs"]
    assert live["solve_k_rates"] == {FLASH: 1.0, QWEN: 0.5} and live["in_progress"]


def test_markdown_leads_with_solve_k_and_defines_pass_k(make_run, T) -> None:
    text = render_run_markdown(load_run(make_run([T("a", solved=0)])))
    header = next(line for line in text.splitlines() if line.startswith("| Model"))
    cells = [c.strip() for c in header.strip("|").split("|")]
    assert cells[2] == "solve^k" and "pass^k (completed)" in cells
    assert "pass^k" not in cells[:cells.index("pass^k (completed)")]
    assert "pass^k (completed): the chance that k trials all finish without an error" in text
