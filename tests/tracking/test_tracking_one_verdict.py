"""One verdict on every surface (issue 25, item 5): for one regressed run — 5 tasks × 5
trials, solved 14/25 in the baseline and 4/25 now, every task's drop within noise on its
own, one of them a 5/5 → 4/5 drift, the suite-level test a regression — the terminal
compare, the Markdown report, the HTML report, the viewer's compare page (through its
server) and the merge gate show the same per-task labels, the same suite-level verdict
and the same mean solve rate before → after."""

from __future__ import annotations

import http.client
import json
import re
import threading
from pathlib import Path

import pytest

from trialrun.config import ProjectConfig
from trialrun.reports import comparison_lines, gate_lines, make_server, render_run_markdown
from trialrun.reports._html import render_report, report_pages
from trialrun.tracking import bless, compare_with_baselines, load_run, run_gate

# (task, solved before, solved now), each of 5 trials
DROPS = [("steady", 5, 4), ("t2", 3, 0), ("t3", 3, 0), ("t4", 2, 0), ("t5", 1, 0)]
LABELS = {"steady": "within noise · drift", "t2": "within noise", "t3": "within noise",
          "t4": "within noise", "t5": "within noise"}
MEAN_SOLVE = "mean solve rate 56.0% → 16.0% (-40.0 pp)"
SUITE = "solved 14/25 → 4/25 across 5 task(s) (stratified exact test, p = 0.00039)"


@pytest.fixture
def regressed(make_run, T, tmp_path) -> tuple[Path, Path, Path]:
    """(baseline run, regressed run, baselines folder)."""
    before = make_run([T(t, n=5, k=5, solved=b) for t, b, _ in DROPS], name="20260101T100000Z-aaaa")
    after = make_run([T(t, n=5, k=5, solved=a) for t, _, a in DROPS], name="20260102T100000Z-bbbb")
    where = tmp_path / "baselines"
    bless(before, where)
    return before, after, where


def _terminal(after: Path, where: Path) -> tuple[dict[str, str], str, str]:
    [match] = compare_with_baselines(after, where)
    assert match.comparison is not None
    text = "\n".join(comparison_lines(match.comparison))
    labels = {task: tag.strip().replace("REGRESSION", "regression") for tag, task in
              re.findall(r"^  (REGRESSION(?: · drift)?\s*|within noise(?: · drift)?) (\S+):",
                         text, re.M)}
    [suite] = re.findall(r"^  SUITE REGRESSION: (.*)$", text, re.M)
    return labels, suite, text


def _markdown(after: Path, where: Path) -> tuple[dict[str, str], str, str]:
    text = render_run_markdown(load_run(after), where)
    labels = {task: verdict.replace("**", "") for task, verdict in
              re.findall(r"^\| `(\S+)` \| solved [^|]* \| ([^|]+) \|$", text, re.M)}
    [suite] = re.findall(r"^\*\*SUITE REGRESSION\*\*: (.*)$", text, re.M)
    return labels, suite, text


def _html(after: Path, where: Path) -> tuple[dict[str, str], str, str, dict]:
    page = render_report(after, where)
    pages = report_pages(page)
    overview = json.loads(pages[f"/api/run/{after.name}"])
    head = overview["headline"][0]["comparison"]
    labels = {t["task_id"]: t["verdict"] for t in head["tasks"]}
    rows = {r["task_id"]: r["change"] for r in overview["tasks"]}
    assert rows == labels  # the task table's badges say the same
    assert head["suite_verdict"] == "regression"
    return labels, head["suite"].removeprefix("SUITE REGRESSION: "), head["mean_solve"], head


def _compare_page(root: Path, a: str, b: str) -> dict:
    server = make_server(root, port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        host, port = server.server_address[:2]
        conn = http.client.HTTPConnection(str(host), int(port), timeout=30)
        conn.request("GET", f"/api/compare/{a}/{b}")
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        assert resp.status == 200, body
        return json.loads(body)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_every_surface_gives_the_same_verdict(regressed) -> None:
    before, after, where = regressed
    term_labels, term_suite, term_text = _terminal(after, where)
    md_labels, md_suite, md_text = _markdown(after, where)
    html_labels, html_suite, html_mean, head = _html(after, where)
    page = _compare_page(after.parent, after.name, before.name)
    [model] = page["models"]
    page_labels = {t["task_id"]: t["verdict"] for t in model["tasks"]}
    gate = run_gate("merge", after, baselines_dir=where, config=ProjectConfig())
    gate_text = "\n".join(gate_lines(gate))

    # the same per-task labels: every drop within noise on its own, one of them drift
    assert term_labels == md_labels == html_labels == page_labels == LABELS
    # the same suite-level test: the one the merge gate fails on
    assert term_suite == md_suite == html_suite == SUITE
    assert model["suite"] == f"SUITE REGRESSION: {SUITE}"
    assert f"FAIL golden suite-level regression [over 5 tasks]: {SUITE}" in gate_text
    assert not gate.passed
    # the same mean solve rate before → after (solve^k alone cannot show this drop)
    for text in (term_text, md_text, gate_text):
        assert MEAN_SOLVE in text
    assert html_mean == model["mean_solve"] == MEAN_SOLVE
    # the gate names the same drift and the same drops within noise
    assert "note: drift (solved k/k in the baseline, below k/k now): steady solved 5/5 → 4/5" \
        in gate_text
    [noise] = [n for m in gate.models for n in m.notes if n.startswith("within noise")]
    assert sorted(re.findall(r"(\S+) solved", noise)) == sorted(LABELS)
    # the counts agree with the labels
    assert head["counts"] == model["counts"] == "0 regression(s), 5 within noise, 1 drift"
