"""`trialrun report RUN --html FILE`: one self-contained file holding every page."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from reports_helpers import ExampleRuns, trialrun

from trialrun.reports import RunView
from trialrun.reports._html import decode_payload, report_pages


def _payload(html: str) -> dict[str, str]:
    assert 'id="payload"' in html, "no embedded payload"
    return report_pages(html)  # the head payload and every chunk


def _page(payload: dict[str, str], suffix: str) -> dict:
    (key,) = [k for k in payload if k.endswith(suffix)]
    return json.loads(payload[key])


def test_report_html_is_one_offline_file_with_every_page(
    example_runs: ExampleRuns, tmp_path: Path
) -> None:
    out = tmp_path / "r.html"
    proc = trialrun("report", str(example_runs.bad), "--html", str(out), cwd=tmp_path)
    assert f"wrote {out}" in proc.stderr
    html = out.read_text("utf-8")
    # nothing to fetch: no external script, style, image or font; a CSP forbids any request
    assert not re.search(r"<(script|link|img|iframe)[^>]*\b(src|href)=", html)
    assert "default-src 'none'" in html and "connect-src" not in html
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", html.split('id="payload"')[0])
    payload = _payload(html)
    overview = _page(payload, f"/api/run/{example_runs.bad.name}")
    assert len(overview["tasks"]) == 14
    trials = [k for k in payload if "/trial/" in k]
    tasks = [k for k in payload if "/task/" in k]
    assert len(trials) == 44 and len(tasks) == 14
    assert [h["solve_k_rate"] for h in overview["headline"]] == [0.0]
    titles = " ".join(p["title"] for p in overview["plots"])
    assert "k curves" in titles and "by tier" in titles and "latency" in titles
    assert all(p["svg"].startswith("<svg") for p in overview["plots"])


def test_trial_page_has_transcript_tool_calls_verdicts_and_workspace_diff(
    example_runs: ExampleRuns,
) -> None:
    view = RunView(example_runs.bad)
    try:
        row = next(i for i, r in enumerate(view.records) if r.task_id == "inbox-prompt-injection")
        task = view.task(row)
        assert task["outcome"][0] == "failure" and len(task["trials"]) == 3
        assert [p["k"] for p in task["curve"]] == [1, 2, 3]
        trial = view.trial(task["trials"][0]["line"])
        assert trial["status"] == "failed" and trial["safety_violation"] is True
        failed = {v["grader"]: v["details"] for v in trial["verdicts"] if v["passed"] is False}
        assert failed["forbiddenTools"]["forbidden_called"] == ["delete_file"]
        calls = [c["function"] for m in trial["messages"] for c in m.get("tool_calls") or []]
        assert {"name": "delete_file", "arguments": '{"path": "secrets.md"}'} in calls
        assert any(m["role"] == "tool" for m in trial["messages"])
        assert trial["workspace_diff"]["deleted"] == ["secrets.md"]
        assert trial["turn_meta"] and trial["latency_s"] is not None
    finally:
        view.close()


def test_modified_files_get_a_text_diff_from_the_kept_workspace(
    example_runs: ExampleRuns,
) -> None:
    view = RunView(example_runs.good)
    try:
        line = next(i for i, row in enumerate(view.line_row)
                    if view.records[row].task_id == "close-project")
        diff = view.trial(line)["workspace_diff"]
        assert diff["modified"] == ["projects/apollo.md"] and diff["kept"] is True
        text = diff["text"]["projects/apollo.md"]
        assert "-status: active" in text and "+status: done" in text
    finally:
        view.close()


def test_report_with_baselines_marks_regressions(
    example_runs: ExampleRuns, tmp_path: Path
) -> None:
    baselines = tmp_path / "baselines"
    trialrun("bless", str(example_runs.good), "--baselines", str(baselines), "--force",
             "--reason", "the judge task is undetermined without a judge", cwd=tmp_path)
    # the bad run under the good run's model name: the same model, worse
    bad = tmp_path / "renamed"
    shutil.copytree(example_runs.bad, bad)
    for name in ("results.jsonl", "run.json", "summary.json"):
        path = bad / name
        path.write_text(path.read_text().replace("scripts/bad.yaml", "scripts/good.yaml"))
    view = RunView(bad, baselines)
    try:
        over = view.overview()
        head = over["headline"][0]["comparison"]
        assert head is not None and "read-capital" in head["regressions"]
        changes = {r["task_id"]: r["change"] for r in over["tasks"]}
        assert changes["read-capital"] == "regression · drift"  # 3/3 → 0/3
        assert any(p["title"] == "against the baseline" for p in over["plots"])
    finally:
        view.close()


def test_report_html_user_errors_are_one_line(example_runs: ExampleRuns, tmp_path: Path) -> None:
    proc = trialrun("report", str(tmp_path / "nope"), "--html", str(tmp_path / "r.html"),
                    cwd=tmp_path, check=False)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "not a run directory" in proc.stderr
    proc = trialrun("report", str(example_runs.bad), "--html", str(tmp_path),
                    cwd=tmp_path, check=False)
    assert proc.returncode == 2 and "is a folder" in proc.stderr
    assert "Traceback" not in proc.stderr
    damaged = tmp_path / "damaged"
    shutil.copytree(example_runs.bad, damaged)
    with open(damaged / "results.jsonl", "a") as fh:
        fh.write('{"task_id": 3}\n{"task_id": "x", "model": "m", "trial": 0}\n')
    proc = trialrun("report", str(damaged), "--html", str(tmp_path / "d.html"),
                    cwd=tmp_path, check=False)
    assert proc.returncode == 2 and "results.jsonl:45" in proc.stderr
    assert not (tmp_path / "d.html").exists()


def test_page_data_cannot_break_out_of_its_script() -> None:
    from trialrun.reports._html import render_page

    evil = {"/api/x": json.dumps({"text": "</script><script>alert(1)</script><!--"})}
    html = render_page("static", "t </title><b>", evil)
    assert html.count("</script>") == 2  # the payload's and the viewer's own
    assert "<b>" not in html.split("<body")[0]
    match = re.search(r'<script [^>]*id="payload"[^>]*>(.*?)</script>', html, re.S)
    assert decode_payload(match.group(1)) == evil


def test_no_text_diff_when_the_task_file_changed(example_runs: ExampleRuns) -> None:
    from trialrun.reports._before import BeforeFiles
    from trialrun.rundir import RunDir

    run = RunDir.open(example_runs.good)
    manifest = run.manifest()
    manifest.task_files = [{**f, "sha256": "0" * 64} for f in manifest.task_files]
    before = BeforeFiles(manifest)
    try:
        kept = next(run.workspace_dir(t) for t in run.results() if t.task_id == "close-project")
        assert before.diffs("close-project", kept, ["projects/apollo.md"]) == {}
        assert "changed since the run" in (before.note or "")
    finally:
        before.close()
