"""Every reader of a run folder works on an imported τ-bench results file: summarize,
report --html, view, compare and bless."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from tau_results_support import FIXTURE, entry, solved_trajectories, write

from trialrun.benchmarks.taubench_results import RescoreSource, import_results
from trialrun.reports import make_server
from trialrun.reports._html import report_pages


def trialrun(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trialrun", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300, env=dict(os.environ))


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """results/run: the fixture's trajectories, 3 trials per task, rescored."""
    folder = tmp_path_factory.mktemp("imported")
    entries = []
    for trial in range(3):
        for task, reward, traj in solved_trajectories()[::2]:  # tasks 0, 1, 2 solved
            entries.append(entry(task, trial, reward if trial else 0.0, traj))
    path = write(folder, entries)
    run = import_results(path, folder / "results" / "run", rescore_in=RescoreSource(FIXTURE))
    assert run.trials == 9
    return run.run_dir


def test_summarize_reads_it(imported: Path) -> None:
    done = trialrun("summarize", str(imported), cwd=imported.parent)
    assert done.returncode == 0, done.stderr
    assert "taubench-airline-test-2" in done.stdout and "2/3" in done.stdout


def test_report_html_shows_the_trajectory(imported: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    done = trialrun("report", str(imported), "--html", str(page), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = page.read_text(encoding="utf-8")
    payload = report_pages(html)  # the head payload and every chunk
    trials = [json.loads(body) for key, body in payload.items() if "/trial/" in key]
    assert len(trials) == 9
    cancel = next(t for t in trials if t["task_id"] == "taubench-airline-test-1")
    calls = [c["function"]["name"] for m in cancel["messages"] for c in m.get("tool_calls") or []]
    assert calls == ["get_reservation_details", "cancel_reservation"]
    assert any("$210 will be refunded" in (m.get("content") or "") for m in cancel["messages"])


def test_view_serves_the_tasks_and_a_trial(imported: Path) -> None:
    server = make_server(imported.parent, port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()

    def get(path: str) -> dict:
        conn = http.client.HTTPConnection(*server.server_address[:2], timeout=10)
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        conn.close()
        assert response.status == 200, body
        return json.loads(body)

    try:
        assert [r["run_id"] for r in get("/api/runs")["runs"]] == ["run"]
        rows = {r["task_id"]: r for r in get("/api/run/run")["tasks"]}
        row = rows["taubench-airline-test-0"]
        trial = get(f"/api/run/run/trial/{row['first_failed']}")
        assert trial["task_id"] == "taubench-airline-test-0"
        calls = [c["function"]["name"] for m in trial["messages"]
                 for c in m.get("tool_calls") or []]
        assert calls == ["book_reservation"]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_compare_and_bless_read_it(imported: Path, tmp_path: Path) -> None:
    same = trialrun("compare", str(imported), "--against", str(imported), "--json",
                    cwd=tmp_path)
    assert same.returncode == 0, same.stderr
    assert json.loads(same.stdout)
    blessed = trialrun("bless", str(imported), "--baselines", str(tmp_path / "bl"),
                       cwd=tmp_path)
    assert blessed.returncode == 0, blessed.stderr
    baseline = tmp_path / "bl" / "openai-gpt-4o.json"
    assert baseline.is_file()
    compared = trialrun("compare", str(imported), "--baselines", str(tmp_path / "bl"),
                        cwd=tmp_path)
    assert compared.returncode == 0, compared.stderr
    assert "no task dropped" in compared.stdout
