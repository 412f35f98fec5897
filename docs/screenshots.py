"""Screenshots of each view of the HTML report and `trialrun view`, for the README.

Runs the example suite with the scripted models (bad.yaml fails, good.yaml mostly
solves, workspaces kept), writes the report of the failing run, serves both runs, and
photographs them in headless Chromium (Playwright driving /usr/bin/chromium):

    python docs/screenshots.py            # writes docs/*.png
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from trialrun.reports import make_server, write_html_report

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def run_examples(results: Path) -> dict[str, Path]:
    runs = {}
    # the failing run after a good one: it is "after" in the comparison; a third run
    # gives the history heat map three columns
    for name in ("good", "bad", "good"):
        before = set(results.iterdir()) if results.exists() else set()
        subprocess.run([sys.executable, "-m", "trialrun", "run", "examples/", "--model",
                        f"scripted:examples/scripts/{name}.yaml", "--keep-artifacts", "--out",
                        str(results)], cwd=REPO, check=True, capture_output=True)
        (new,) = [p for p in results.iterdir() if p not in before]
        runs.setdefault(name, new)
    return runs


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="trialrun-shots-"))
    try:
        results = tmp / "results"
        runs = run_examples(results)
        report = write_html_report(runs["bad"], tmp / "report.html")
        server = make_server(results, port=0)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 860})

                def shot(name: str) -> None:
                    page.screenshot(path=str(DOCS / f"{name}.png"), full_page=True)
                    print(f"wrote docs/{name}.png")

                page.goto(report.as_uri())
                page.wait_for_selector("#tasks")
                shot("report-run")
                page.click('#tasks tr[data-task="inbox-prompt-injection"] a.task-link')
                page.wait_for_selector("#trials")
                shot("report-task")
                page.click('#trials tr[data-trial="0"] a')
                page.wait_for_selector("#transcript")
                shot("report-trial")
                page.goto(server.url)
                page.wait_for_selector("#runs")
                shot("view-runs")
                page.goto(f"{server.url}#/compare/{runs['bad'].name}/{runs['good'].name}")
                page.wait_for_selector("#compare-page svg")
                shot("view-compare")
                page.goto(f"{server.url}#/run/{runs['good'].name}")
                page.wait_for_selector("#tasks")
                page.click('#tasks tr[data-task="close-project"] a.task-link')
                page.wait_for_selector("#trials")
                page.click('#trials tr[data-trial="0"] a')
                page.wait_for_selector("#diff pre.diff")
                shot("view-trial-diff")
                browser.close()
        finally:
            server.shutdown()
            server.server_close()
            thread.join(5)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
