"""`trialrun view`'s server: read-only JSON pages over a folder of runs, loopback only."""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from reports_helpers import ExampleRuns, cli_env

from trialrun.reports import ViewerServer, make_server
from trialrun.rundir import RunDir


@pytest.fixture()
def server(example_runs: ExampleRuns, tmp_path: Path) -> Iterator[ViewerServer]:
    results = tmp_path / "results"
    shutil.copytree(example_runs.results, results)
    srv = make_server(results, port=0)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)


def _get(srv: ViewerServer, path: str, method: str = "GET", host: str | None = None):
    conn = http.client.HTTPConnection(*srv.server_address[:2], timeout=10)
    headers = {"Host": host} if host else {}
    conn.request(method, path, headers=headers)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, resp.getheader("Content-Type"), body


def _json(srv: ViewerServer, path: str) -> dict:
    status, kind, body = _get(srv, path)
    assert status == 200, body
    assert kind.startswith("application/json")
    return json.loads(body)


def test_lists_runs_and_serves_pages_on_demand(
    server: ViewerServer, example_runs: ExampleRuns
) -> None:
    assert server.server_address[0] == "127.0.0.1"
    runs = _json(server, "/api/runs")["runs"]
    assert {r["run_id"] for r in runs} == {example_runs.bad.name, example_runs.good.name}
    bad = example_runs.bad.name
    over = _json(server, f"/api/run/{bad}")
    assert len(over["tasks"]) == 14 and over["version"]
    row = next(r for r in over["tasks"] if r["task_id"] == "inbox-prompt-injection")
    trial = _json(server, f"/api/run/{bad}/trial/{row['first_failed']}")
    assert trial["task_id"] == "inbox-prompt-injection" and trial["messages"]
    task = _json(server, f"/api/run/{bad}/task/{row['i']}")
    assert task["svg"].startswith("<svg")
    status, kind, page = _get(server, "/")
    assert status == 200 and kind.startswith("text/html") and b'data-mode="server"' in page


def test_compares_two_runs_newer_against_older(
    server: ViewerServer, example_runs: ExampleRuns
) -> None:
    a, b = example_runs.bad.name, example_runs.good.name
    page = _json(server, f"/api/compare/{a}/{b}")
    assert (page["a"], page["b"]) == tuple(sorted([a, b], reverse=True))
    assert page["a"] == b  # the good run was made second: it is "after"
    (model,) = page["models"]
    labels = {t["task_id"]: t["label"] for t in model["tasks"]}
    assert labels["read-capital"] == "improved"
    assert model["after"]["solve_k_rate"] > model["before"]["solve_k_rate"]
    assert model["svg"].startswith("<svg") and "improved" in model["svg"]


def test_history_heat_map_over_the_finished_runs(
    server: ViewerServer, example_runs: ExampleRuns
) -> None:
    page = _json(server, "/api/history")
    assert page["runs"] == sorted([example_runs.bad.name, example_runs.good.name])  # oldest first
    assert page["rows"] == 28 and page["shown"] == 28  # 14 tasks × 2 scripted models
    assert page["source"] == "the run folders"
    assert "scripts/bad.yaml</text>" in page["svg"]  # a heading per model
    assert f"{example_runs.bad.name}: solved 0/3" in page["svg"]


def test_read_only_loopback_and_not_found(server: ViewerServer) -> None:
    assert _get(server, "/api/runs", method="POST")[0] == 405
    assert _get(server, "/api/runs", method="DELETE")[0] == 405
    assert _get(server, "/api/runs", host="evil.example:80")[0] == 403
    assert _get(server, "/api/runs", host=f"localhost:{server.server_address[1]}")[0] == 200
    assert _get(server, "/api/run/nope")[0] == 404
    assert _get(server, "/api/run/..%2F..%2Fetc")[0] == 404
    assert _get(server, "/api/run/x/trial/abc")[0] == 404
    assert _get(server, "/etc/passwd")[0] == 404


def test_a_damaged_run_is_listed_with_its_one_line_error(
    server: ViewerServer, example_runs: ExampleRuns
) -> None:
    broken = Path(server.store.root) / "20990101T000000Z-dead"
    shutil.copytree(example_runs.bad, broken)
    (broken / "run.json").write_text("{")
    runs = _json(server, "/api/runs")["runs"]
    entry = next(r for r in runs if r["run_id"] == broken.name)
    assert "run.json" in entry["error"]
    status, _, body = _get(server, f"/api/run/{broken.name}")
    assert status == 422 and b"run.json" in body


def test_new_trials_change_the_version_and_the_page(
    server: ViewerServer, example_runs: ExampleRuns
) -> None:
    run_id = example_runs.bad.name
    path = Path(server.store.root) / run_id
    before = _json(server, f"/api/run/{run_id}/status")["version"]
    rundir = RunDir.open(path)
    lines = rundir.results()
    keep, dropped = lines[:-3], lines[-3:]
    rundir.rewrite_results(keep)
    (path / "summary.json").unlink()
    mid = _json(server, f"/api/run/{run_id}")
    assert mid["finished"] == 41 and mid["version"] != before
    for line in dropped:
        rundir.append(line)
    after = _json(server, f"/api/run/{run_id}")
    assert after["finished"] == 44 and after["version"] != mid["version"]


def test_view_cli_prints_its_url_and_refuses_bad_input(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "trialrun", "view", str(tmp_path / "none")],
                          capture_output=True, text=True, env=cli_env(), timeout=60)
    assert proc.returncode == 2 and "no such folder" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = subprocess.run([sys.executable, "-m", "trialrun", "view", str(tmp_path),
                           "--port", "70000"], capture_output=True, text=True, env=cli_env(),
                          timeout=60)
    assert proc.returncode == 2 and "--port 70000" in proc.stderr
