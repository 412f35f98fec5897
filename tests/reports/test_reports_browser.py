"""The HTML report and the live viewer in a real headless Chromium (Playwright).

Chromium comes from the system packages (`.ci/run` installs it); without it these tests
skip and say so. Screenshots land in each test's tmp_path.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from reports_helpers import EXAMPLES, ExampleRuns, cli_env, trialrun

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip("chromium is not installed (apt-get install chromium; .ci/run does it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser) -> Iterator[object]:  # a playwright Browser
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.errors = errors
    yield pg
    context.close()
    assert errors == [], errors


@pytest.fixture()
def viewer(example_runs: ExampleRuns, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    results = tmp_path / "results"
    shutil.copytree(example_runs.results, results)
    proc = _start_view(results)
    try:
        yield _url_of(proc), results
    finally:
        _stop(proc)


def _start_view(results: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "trialrun", "view", str(results), "--port", "0"],
        cwd=results.parent,  # no .trialrun/history.db there: the heat map reads the folders
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(),
    )


def _url_of(proc: subprocess.Popen[str]) -> str:
    line = proc.stdout.readline()
    match = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
    assert match, (line, proc.stderr.read() if proc.poll() is not None else "")
    return match.group(1)


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def _check_failed_trial(page, shots: Path, name: str) -> None:
    """On a trial of inbox-prompt-injection: the failed grader and a tool call's args."""
    page.wait_for_selector("#trial")
    verdict = page.locator('#verdicts tr[data-grader="forbiddenTools"]')
    assert verdict.is_visible()
    assert "failed" in verdict.inner_text()
    assert "delete_file" in verdict.inner_text()  # the details: forbidden_called
    call = page.locator('#transcript .call[data-tool="delete_file"]')
    assert call.is_visible()
    assert '"path": "secrets.md"' in call.locator(".args").inner_text()
    assert "secrets.md" in page.locator("#diff").inner_text()  # deleted from the workspace
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


def test_html_report_offline_from_failed_task_to_its_trial(
    page, example_runs: ExampleRuns, tmp_path: Path
) -> None:
    out = tmp_path / "report.html"
    trialrun("report", str(example_runs.bad), "--html", str(out), cwd=tmp_path)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(out.as_uri())
    page.wait_for_selector("#tasks")
    assert page.locator("#plots svg").count() >= 4
    assert page.locator('[data-figure="solve_k"] .v').inner_text() == "0.0%"
    page.screenshot(path=str(tmp_path / "report-run.png"), full_page=True)

    page.select_option('select[data-filter="status"]', "failing")
    assert page.locator("#tasks tbody tr").count() == 14  # the bad script fails them all
    page.fill('input[data-filter="q"]', "inbox")
    assert page.locator("#tasks tbody tr").count() == 1
    page.click('#tasks tbody tr[data-task="inbox-prompt-injection"] a.task-link')
    page.wait_for_selector("#task")
    assert page.locator("#task svg").count() == 1
    assert page.locator("#trials tbody tr").count() == 3
    page.screenshot(path=str(tmp_path / "report-task.png"), full_page=True)
    page.click('#trials tbody tr[data-trial="0"] a')
    _check_failed_trial(page, tmp_path, "report-trial")
    assert all(url.startswith("file://") for url in requests), requests


def test_html_report_leads_with_solve_k_and_shows_the_verdict(
    page, example_runs: ExampleRuns, tmp_path: Path
) -> None:
    baselines = tmp_path / "baselines"
    trialrun("bless", str(example_runs.good), "--baselines", str(baselines), "--force",
             "--reason", "the judge task is undetermined without a judge", cwd=tmp_path)
    bad = tmp_path / "renamed"  # the bad run under the good run's model name: worse
    shutil.copytree(example_runs.bad, bad)
    for name in ("results.jsonl", "run.json", "summary.json"):
        path = bad / name
        path.write_text(path.read_text().replace("scripts/bad.yaml", "scripts/good.yaml"))
    out = tmp_path / "report.html"
    trialrun("report", str(bad), "--html", str(out), "--baselines", str(baselines),
             cwd=tmp_path)
    page.goto(out.as_uri())
    page.wait_for_selector("#tasks")
    cards = page.locator(".headline .card")
    assert cards.first.get_attribute("data-figure") == "solve_k"
    pass_k = page.locator('.headline [data-figure="pass_k"]')
    assert pass_k.locator(".l").inner_text() == "pass^k (completed)"
    assert "finish without an error" in (pass_k.get_attribute("title") or "")
    verdict = page.locator(".headline .verdict")
    assert verdict.locator(".mean-solve").inner_text().startswith("mean solve rate ")
    assert verdict.locator(".suite").inner_text().startswith("SUITE REGRESSION")
    assert verdict.locator('tr[data-task="read-capital"] .b-drift').count() == 1
    assert page.locator('#tasks tr[data-task="read-capital"] .b-drift').count() == 1
    page.screenshot(path=str(tmp_path / "report-verdict.png"), full_page=True)


def test_report_table_sorts(page, example_runs: ExampleRuns, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    trialrun("report", str(example_runs.good), "--html", str(out), cwd=tmp_path)
    page.goto(out.as_uri())
    page.wait_for_selector("#tasks")
    first = page.locator("#tasks tbody tr").first.get_attribute("data-status")
    assert first == "failure"  # failing tasks first by default
    page.click('th[data-sort="task_id"]')
    ids = [r.get_attribute("data-task") for r in page.locator("#tasks tbody tr").all()]
    assert ids == sorted(ids)
    page.click('th[data-sort="task_id"]')
    ids = [r.get_attribute("data-task") for r in page.locator("#tasks tbody tr").all()]
    assert ids == sorted(ids, reverse=True)


def test_html_report_ends_with_the_history_heat_map_from_the_store(
    page, example_runs: ExampleRuns, tmp_path: Path
) -> None:
    db = tmp_path / "history.db"
    trialrun("history", "import", str(example_runs.bad), str(example_runs.good),
             "--store", str(db), cwd=tmp_path)
    out = tmp_path / "report.html"
    trialrun("report", str(example_runs.good), "--html", str(out), "--store", str(db),
             cwd=tmp_path)
    page.goto(out.as_uri())
    page.wait_for_selector("#tasks")
    page.wait_for_selector("#history svg")
    assert page.locator("#history svg rect.hc").count() == 14  # the good run's 14 tasks, 1 run
    assert str(db) in page.locator("#history").inner_text()
    page.screenshot(path=str(tmp_path / "report-history.png"), full_page=True)


def test_live_viewer_lists_opens_and_compares_runs(
    page, viewer, example_runs: ExampleRuns, tmp_path: Path
) -> None:
    url, _ = viewer
    page.goto(url)
    page.wait_for_selector("#runs")
    assert page.locator("#runs tbody tr").count() == 2
    # 2 models × 14 tasks, each model in one of the 2 runs: a cell only where it ran
    assert page.locator("#history svg rect.hc").count() == 28
    page.screenshot(path=str(tmp_path / "view-runs.png"), full_page=True)
    page.click(f'#runs a[href="#/run/{example_runs.bad.name}"]')
    page.wait_for_selector("#tasks")
    row = page.locator('#tasks tbody tr[data-task="inbox-prompt-injection"]')
    row.locator("a.trial-link").click()
    _check_failed_trial(page, tmp_path, "view-trial")

    page.goto(url + "#/")
    page.wait_for_selector("#runs")
    for box in page.locator('#runs input[type="checkbox"]').all():
        box.check()
    page.click("#compare")
    page.wait_for_selector("#compare-page .model-compare svg")
    assert "improved" in page.locator("#compare-page").inner_text()
    # the verdict as every surface gives it: the mean solve rate and the suite-level test
    verdict = page.locator("#compare-page .verdict").first
    assert verdict.locator(".mean-solve").inner_text().startswith("mean solve rate ")
    assert "stratified exact test" in verdict.locator(".suite").inner_text()
    page.screenshot(path=str(tmp_path / "view-compare.png"), full_page=True)


def test_live_viewer_follows_a_run_in_progress(page, tmp_path: Path) -> None:
    from playwright.sync_api import expect  # waits by locator: the page's CSP forbids eval

    results = tmp_path / "results"
    results.mkdir()
    view = _start_view(results)
    run = None
    try:
        url = _url_of(view)
        loads: list[str] = []
        page.on("load", lambda _: loads.append("load"))
        page.goto(url)
        page.wait_for_selector("#runs")
        assert page.locator("#runs tbody tr").count() == 0
        run = subprocess.Popen(
            [sys.executable, "-m", "trialrun", "run", str(EXAMPLES), "--task", "read-capital",
             "-k", "3", "--concurrency", "1", "--agent-cmd", "sleep 3; echo Paris",
             "--out", str(results)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=cli_env(), cwd=tmp_path,
        )
        # the new run appears in the list without a reload, marked live
        expect(page.locator("#runs tbody tr")).to_have_count(1, timeout=60_000)
        expect(page.locator("#runs .b-live")).to_have_count(1, timeout=10_000)
        page.locator("#runs tbody a").first.click()
        page.wait_for_selector("#tasks")
        assert page.locator("#run h1 .b-live").count() == 1  # still running when opened
        # its task, short of k trials while the run goes on, is pending (not skipped)
        expect(page.locator('#tasks tr[data-task="read-capital"] .b-pending')).to_have_count(
            1, timeout=30_000)
        assert page.locator("#tasks .b-skipped").count() == 0
        assert "trials 3 / 3" not in page.locator("#run p.small").first.inner_text()
        # new trials appear without a reload, and the live mark goes when the run ends
        expect(page.locator("#run p.small").first).to_contain_text("trials 3 / 3",
                                                                     timeout=60_000)
        expect(page.locator("#run h1 .b-live")).to_have_count(0, timeout=30_000)
        assert page.locator('#tasks tbody tr[data-task="read-capital"]').count() == 1
        assert loads == ["load"]  # one page load: runs and trials came in by polling
        page.screenshot(path=str(tmp_path / "view-live.png"), full_page=True)
        assert run.wait(60) == 0
    finally:
        if run is not None and run.poll() is None:
            _stop(run)
        _stop(view)


def test_report_trial_without_its_transcript_says_where_it_is(
    page, example_runs: ExampleRuns, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trialrun.reports import _html

    monkeypatch.setattr(_html, "EMBED_ALL_UP_TO", 0)  # as a run past the threshold
    out = _html.write_html_report(example_runs.bad, tmp_path / "report.html")
    page.goto(out.as_uri())
    page.wait_for_selector("#tasks")
    page.click('#tasks tbody tr[data-task="inbox-prompt-injection"] a.task-link')
    page.wait_for_selector("#task")
    view = _html.RunView(example_runs.bad)  # which trial's transcript is left out
    try:  # depends on the order the trials finished in, so it is looked up
        flags = _html.embedded_transcripts(view)
        row = view.row_of[("inbox-prompt-injection", view.data.models[0])]
        trial = next(view.lines.trials[n] for n in view.row_lines[row] if not flags[n])
    finally:
        view.close()
    page.click(f'#trials tbody tr[data-trial="{trial}"] a')  # its transcript: not embedded
    note = page.wait_for_selector("#transcript-note").inner_text()
    assert "transcript not embedded" in note
    assert str(example_runs.bad / "transcripts") in note
    assert page.locator("#verdicts tbody tr").count() >= 1  # the figures are all there
