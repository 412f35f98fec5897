"""The heat map from a history store: `trialrun report --html --store` and `trialrun view
--store` show the last runs per task × model as the store has them (a run whose folder is
gone still shows); without a store the report has none and the viewer reads the folders."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from reports_helpers import EXAMPLES, ExampleRuns, cli_env, only_new, trialrun

from trialrun.reports._html import report_pages


def _payload(html: str) -> dict[str, str]:
    assert 'id="payload"' in html, "no embedded payload"
    return report_pages(html)  # the head payload and every chunk


@pytest.fixture()
def gone_run(example_runs: ExampleRuns, tmp_path: Path) -> tuple[str, Path]:
    """A real run of the good script on two of the example tasks, recorded in a fresh
    store (with the example runs) and then deleted: only the store knows it."""
    out = tmp_path / "elsewhere"
    trialrun("run", str(EXAMPLES / "tasks" / "golden" / "organize_notes.yaml"), "--model",
             f"scripted:{EXAMPLES}/scripts/good.yaml", "--out", str(out), cwd=tmp_path,
             check=False)
    run = only_new(out, set())
    db = tmp_path / "history.db"
    trialrun("history", "import", str(example_runs.bad), str(example_runs.good), str(run),
             "--store", str(db), cwd=tmp_path)
    shutil.rmtree(out)
    return run.name, db


def test_report_heat_map_comes_from_the_store(
    example_runs: ExampleRuns, gone_run: tuple[str, Path], tmp_path: Path
) -> None:
    gone, db = gone_run
    out = tmp_path / "r.html"
    trialrun("report", str(example_runs.good), "--html", str(out), "--store", str(db),
             cwd=tmp_path)
    page = json.loads(_payload(out.read_text("utf-8"))["/api/history"])
    # this run's task × model pairs only (the bad script is another model), oldest first
    assert page["runs"] == [example_runs.good.name, gone]
    assert "history store" in page["source"] and str(db) in page["source"]
    assert page["rows"] == 14  # the good run's 14 tasks, one model
    svg = page["svg"]
    assert f"file-idea · scripted:{EXAMPLES}/scripts/good.yaml · {gone}: solved 3/3" in svg
    assert f"count-recipes · scripted:{EXAMPLES}/scripts/good.yaml · {gone}: solved 0/3" in svg
    # read-capital was not in the gone run: no cell is drawn for it there
    assert f"read-capital · scripted:{EXAMPLES}/scripts/good.yaml · {gone}" not in svg
    assert f"read-capital · scripted:{EXAMPLES}/scripts/good.yaml · {example_runs.good.name}" \
        in svg
    assert example_runs.bad.name not in svg

    # no store (none configured, no .trialrun/history.db here): no heat map in the report
    plain = tmp_path / "plain.html"
    trialrun("report", str(example_runs.good), "--html", str(plain), cwd=tmp_path)
    assert "/api/history" not in _payload(plain.read_text("utf-8"))


def test_report_store_user_errors_are_one_line(
    example_runs: ExampleRuns, tmp_path: Path
) -> None:
    proc = trialrun("report", str(example_runs.good), "--html", str(tmp_path / "r.html"),
                    "--store", "typo.db", cwd=tmp_path, check=False)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "--store typo.db: no such history store" in proc.stderr
    assert not (tmp_path / "typo.db").exists() and not (tmp_path / "r.html").exists()
    proc = trialrun("report", str(example_runs.good), "--store", "x.db", cwd=tmp_path,
                    check=False)
    assert proc.returncode == 2 and "add --html FILE" in proc.stderr
    assert "Traceback" not in proc.stderr


def _history_of_view(args: list[str], cwd: Path) -> dict:
    proc = subprocess.Popen([sys.executable, "-m", "trialrun", "view", *args, "--port", "0"],
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=cli_env())
    try:
        line = proc.stdout.readline()
        match = re.search(r"at http://127\.0\.0\.1:(\d+)/", line)
        assert match, (line, proc.stderr.read() if proc.poll() is not None else "")
        conn = http.client.HTTPConnection("127.0.0.1", int(match.group(1)), timeout=30)
        conn.request("GET", "/api/history")
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        assert resp.status == 200, body
        return json.loads(body)
    finally:
        proc.terminate()
        proc.wait(10)


def test_view_heat_map_from_the_store_else_the_folders(
    example_runs: ExampleRuns, gone_run: tuple[str, Path], tmp_path: Path
) -> None:
    gone, db = gone_run
    results = tmp_path / "results"
    results.mkdir()
    shutil.copytree(example_runs.good, results / example_runs.good.name)  # only the good run
    page = _history_of_view([str(results), "--store", str(db)], tmp_path)
    # every run of the store, although only one of them has a folder here
    assert page["runs"] == [example_runs.bad.name, example_runs.good.name, gone]
    assert page["rows"] == 28 and str(db) in page["source"]
    assert f"{gone}: solved 3/3" in page["svg"] and f"{example_runs.bad.name}: solved 0/3" \
        in page["svg"]

    # the default store, .trialrun/history.db beside the working folder, when it exists
    (tmp_path / ".trialrun").mkdir()
    shutil.copy(db, tmp_path / ".trialrun" / "history.db")
    page = _history_of_view([str(results)], tmp_path)
    assert gone in page["runs"] and "history store" in page["source"]

    # no store: the run folders
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    page = _history_of_view([str(results)], elsewhere)
    assert page["runs"] == [example_runs.good.name] and page["source"] == "the run folders"


def test_report_html_with_a_store_reads_the_results_once(
    example_runs: ExampleRuns, gone_run: tuple[str, Path], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`report --html` knows the run's task × model pairs from the report's own reading:
    it used to read the whole run first for the heat map, then again for the report."""
    from trialrun.cli import app
    from trialrun.reports import _html
    from trialrun.rundir import ResultLine

    _, db = gone_run
    monkeypatch.setattr(_html, "EMBED_ALL_UP_TO", 0)  # as a large run: the report reads once
    parsed: list[object] = []
    real = ResultLine.from_json.__func__  # type: ignore[attr-defined]

    def counting(cls: type[ResultLine], item: object) -> ResultLine:
        parsed.append(item)
        return real(cls, item)  # type: ignore[no-any-return]

    monkeypatch.setattr(ResultLine, "from_json", classmethod(counting))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "once.html"
    app(["report", str(example_runs.good), "--html", str(out), "--store", str(db)],
        standalone_mode=False)
    lines = (example_runs.good / "results.jsonl").read_text("utf-8").splitlines()
    assert len(parsed) == len(lines)
    page = json.loads(_payload(out.read_text("utf-8"))["/api/history"])
    assert page["rows"] == 14  # the heat map is still there, from the same reading
