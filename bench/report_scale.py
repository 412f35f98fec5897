"""The HTML report and `trialrun view` on a large run: does a 30,000-trial run stay quick?

A synthetic run folder is written through `trialrun.rundir` (TASKS tasks × K trials, one
model, a two-turn transcript with a tool call per trial, about a third of the trials
failing a grader). Then, each timed on its own:

- `RunView` (the pages' builder): reading the run and building the overview;
- `trialrun view`'s server: the overview page, one task page and one trial page
  (transcripts are read only when a trial is opened);
- the self-contained report: writing it, its size;
- with Chromium installed (Playwright + /usr/bin/chromium): the viewer page opening on
  the server until the task table shows, then typing a filter until the table is
  redrawn, and the static report opening from disk until its table shows.

    python bench/report_scale.py --tasks 3000 -k 10

The last stdout line is one JSON object with every figure (seconds, MB).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

from trialrun.reports import RunView, make_server, write_html_report
from trialrun.rundir import Manifest, ResultLine, RunDir, Transcript

MODEL = "openai-compat:bench-model"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def write_run(out: Path, tasks: int, k: int) -> Path:
    """A finished run folder of tasks × k trials, written through RunDir."""
    metas = [{"task_id": f"task-{i:05d}", "suite": ("golden", "adversarial")[i % 2],
              "tier": f"T{1 + i % 4}", "tags": [f"tag{i % 7}"], "policy": "ALWAYS_PASSES",
              "k": k, "metric": "pass^k", "tracked_metrics": ["pass^k"]} for i in range(tasks)]
    manifest = Manifest(run_id="20260101T000000Z-big0", started_at="2026-01-01T00:00:00+00:00",
                        models=[MODEL], trialrun_version="bench", tasks=metas)
    run = RunDir.create(out, "20260101T000000Z-big0", manifest, fsync=False)
    for i, meta in enumerate(metas):
        for trial in range(k):
            ok = (i * 7 + trial * 3) % 10 > 2
            args = {"path": f"notes/{i}.md"}
            messages = [
                {"role": "user", "content": f"Read notes/{i}.md and answer."},
                {"role": "assistant", "content": None, "tool_calls": [{
                    "id": "c0", "type": "function",
                    "function": {"name": "read_file", "arguments": json.dumps(args)}}]},
                {"role": "tool", "tool_call_id": "c0", "name": "read_file",
                 "content": "The answer is 42.\n" * 8},
                {"role": "assistant", "content": "42" if ok else "I do not know."},
            ]
            verdicts = [{"grader": "contains", "passed": ok,
                         "details": {"expected_any_of": ["42"], "text": messages[-1]["content"]}}]
            rel = run.write_transcript("bench", f"{meta['task_id']}-{trial}", Transcript(
                task_id=meta["task_id"], model=MODEL, trial=trial, messages=messages,
                turns=[{"turn": 0, "latency_s": 0.4}, {"turn": 1, "latency_s": 0.3}],
                final_text=messages[-1]["content"], verdicts=verdicts,
                extra={"workspace_diff": {"created": [], "modified": [], "deleted": []}}))
            run.append(ResultLine(
                task_id=meta["task_id"], model=MODEL, trial=trial, passed=True, solve=ok,
                provider="openai-compat", verdicts=verdicts,
                tool_calls=[{"name": "read_file", "arguments": args, "ok": True}], turns=2,
                tokens={"prompt": 300, "cached": 0, "completion": 20},
                cost_usd=0.0004 + 0.0001 * (trial % 3), latency_s=0.5 + (i % 13) * 0.1,
                transcript=rel, extra={"suite": meta["suite"], "tier": meta["tier"]}),
                sync=False)
    run.close()
    return run.path


def timed(fn):  # any callable
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def fetch(port: int, path: str) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", path)
    body = conn.getresponse().read()
    conn.close()
    return body


def browser_figures(url: str, report: Path, tasks: int) -> dict[str, float]:
    from playwright.sync_api import expect, sync_playwright

    out: dict[str, float] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_selector("#tasks tbody tr", timeout=300_000)
        out["browser_view_open_s"] = time.perf_counter() - start
        start = time.perf_counter()
        page.fill('input[data-filter="q"]', "task-0004")
        expect(page.locator("#count")).to_contain_text("of 10 task rows", timeout=60_000)
        out["browser_filter_s"] = time.perf_counter() - start
        start = time.perf_counter()
        page.locator("#tasks tbody tr a.task-link").first.click()
        page.wait_for_selector("#trials")
        page.locator("#trials tbody tr a").first.click()
        page.wait_for_selector("#transcript .call")
        out["browser_task_then_trial_s"] = time.perf_counter() - start
        start = time.perf_counter()
        page.goto(report.as_uri())
        page.wait_for_selector("#tasks tbody tr", timeout=300_000)
        out["browser_report_open_s"] = time.perf_counter() - start
        start = time.perf_counter()
        page.fill('input[data-filter="q"]', "task-0004")
        expect(page.locator("#count")).to_contain_text("of 10 task rows", timeout=60_000)
        out["browser_report_filter_s"] = time.perf_counter() - start
        browser.close()
    assert tasks > 10
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=3000)
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--no-browser", action="store_true")
    opts = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="trialrun-report-bench-"))
    try:
        results = tmp / "results"
        path, write_s = timed(lambda: write_run(results, opts.tasks, opts.k))
        figures: dict[str, float | int] = {"trials": opts.tasks * opts.k, "tasks": opts.tasks,
                                           "k": opts.k, "write_run_s": round(write_s, 2)}
        view, load_s = timed(lambda: RunView(path))
        overview, over_s = timed(view.overview)
        figures["load_run_s"] = round(load_s, 2)
        figures["overview_build_s"] = round(over_s, 2)
        figures["overview_json_mb"] = round(len(json.dumps(overview)) / 1e6, 2)
        view.close()

        server = make_server(results, port=0)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        port = server.server_address[1]
        try:
            base = f"/api/run/{path.name}"
            _, first = timed(lambda: fetch(port, base))
            _, again = timed(lambda: fetch(port, base))
            _, task_s = timed(lambda: fetch(port, f"{base}/task/{opts.tasks // 2}"))
            _, trial_s = timed(lambda: fetch(port, f"{base}/trial/{opts.tasks * opts.k // 2}"))
            figures.update(server_overview_first_s=round(first, 2),
                           server_overview_cached_s=round(again, 3),
                           server_task_page_s=round(task_s, 3),
                           server_trial_page_s=round(trial_s, 3))
            report = tmp / "report.html"
            _, report_s = timed(lambda: write_html_report(path, report))
            figures["report_write_s"] = round(report_s, 2)
            figures["report_mb"] = round(report.stat().st_size / 1e6, 1)
            if not opts.no_browser and os.access("/usr/bin/chromium", os.X_OK):
                url = f"http://127.0.0.1:{port}/#/run/{path.name}"
                for key, value in browser_figures(url, report, opts.tasks).items():
                    figures[key] = round(value, 2)
        finally:
            server.shutdown()
            server.server_close()
            thread.join(5)
        for key, value in figures.items():
            print(f"{key:28} {value}")
        print(json.dumps(figures))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
