"""The HTML report and `trialrun view` on a large run: do they stay small and quick?

A synthetic finished run folder of `--trials` trials (k = 10 per task, one model, a
two-turn transcript with a tool call per trial, about a third failing a grader) is
written through `trialrun.rundir`. Then, at least three times each (min/median/max and
the load at each, through bench/_repeat.py):

- `report --html`: the command a user types, `python -m trialrun report RUN --html OUT`
  (in a folder with no history store), timed whole, start-up included; its seconds, CPU
  seconds (user + system, less inflated by load) and peak RSS (MB), and the file's size;
- Chromium (Playwright + /usr/bin/chromium, skipped when absent or with --no-browser):
  the report opened from disk until its task table shows;
- `trialrun view`: a fresh process serves the run's first overview page: "cold" (no
  index in the run folder, as for a run an older trialrun wrote: it builds the overview
  and writes `view-cache.json`) and "from the run's index" (the index a large run writes
  as it ends, by the same child process `trialrun run` starts, which is timed too);
  seconds for the page and the process's peak RSS (MB).

    python bench/report_scale.py                  # 10,000 trials
    python bench/report_scale.py --trials 100000
    python bench/report_scale.py --trials 100000 --against 1a829ef   # report only, paired

The last stdout line is one JSON object with every series.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

from _repeat import Series, add_repeats_arg, load_now

from trialrun.reports import make_server, view_index_command
from trialrun.rundir import Manifest, ResultLine, RunDir, RunDirLimits, Transcript
from trialrun.tracking import CompareSettings

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


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_s() -> float:
    """This process's CPU seconds (user + system): less inflated by a loaded machine
    than wall time, so the figure to compare across loads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def fetch(port: int, path: str) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    if response.status != 200:
        raise RuntimeError(f"{path}: {response.status} {body[:200]!r}")
    return body


def child_report(run: Path, out: Path, src: str | None = None) -> dict[str, float]:
    """`trialrun report RUN --html OUT` as a user runs it (with `src`: that trialrun's
    sources first on the path); the peak is the command's own."""
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "trialrun", "report", str(run), "--html", str(out)],
                   check=True, cwd=out.parent, stderr=subprocess.DEVNULL, env=env)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"s": time.perf_counter() - start, "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_mb": usage.ru_maxrss / 1024}


def child_view(run: Path) -> dict[str, float]:
    server = make_server(run.parent, port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        start, cpu = time.perf_counter(), cpu_s()
        fetch(server.server_address[1], f"/api/run/{run.name}")
        seconds, cpu = time.perf_counter() - start, cpu_s() - cpu
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    return {"s": seconds, "cpu_s": cpu, "peak_mb": peak_mb()}


def child_index(run: Path) -> dict[str, float]:
    """The index as a large run writes it when it ends: its child process, timed whole
    (start-up included); the peak is the child's own."""
    start = time.perf_counter()
    subprocess.run(view_index_command(run, CompareSettings(), RunDirLimits()), check=True)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"s": time.perf_counter() - start, "peak_mb": usage.ru_maxrss / 1024}


def in_child(*args: str) -> dict[str, float]:
    """One measurement in a fresh interpreter, so its peak RSS is its own."""
    done = subprocess.run([sys.executable, __file__, "--child", *args], check=True,
                          capture_output=True, text=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def open_in_chromium(report: Path) -> float:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        start = time.perf_counter()
        page.goto(report.as_uri())
        page.wait_for_selector("#tasks tbody tr", timeout=300_000)
        seconds = time.perf_counter() - start
        browser.close()
    return seconds


def old_sources(rev: str, into: Path) -> Path:
    """The `src/` of git revision `rev` of this repository, extracted under `into`."""
    root = Path(__file__).resolve().parents[1]
    archive = subprocess.run(["git", "archive", rev, "src"], cwd=root, capture_output=True,
                             check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def measure_against(run: Path, tmp: Path, times: int, rev: str) -> list[Series]:
    """`report --html` of this code and of `rev` on the same run, alternating; the
    ratios this/rev paired per repetition."""
    old = str(old_sources(rev, tmp / "old"))
    rows = {key: Series(name, unit) for key, name, unit in (
        ("s", "report --html seconds, this code", "s"),
        ("s_old", f"report --html seconds, {rev}", "s"),
        ("s_ratio", "report --html seconds this/old, paired", ""),
        ("mb", "report --html peak, this code", "MB"),
        ("mb_old", f"report --html peak, {rev}", "MB"),
        ("mb_ratio", "report --html peak this/old, paired", ""))}
    for _ in range(times):
        load = load_now()
        new = in_child("report", str(run), str(tmp / "new.html"))
        was = in_child("report", str(run), str(tmp / "old.html"), old)
        for key, value in (("s", new["s"]), ("s_old", was["s"]), ("mb", new["peak_mb"]),
                           ("mb_old", was["peak_mb"]), ("s_ratio", new["s"] / was["s"]),
                           ("mb_ratio", new["peak_mb"] / was["peak_mb"])):
            rows[key].add(value, load)
    return list(rows.values())


def measure(run: Path, tmp: Path, times: int, browser: bool) -> list[Series]:
    report = tmp / "report.html"
    series = {name: Series(name, unit) for name, unit in (
        ("report --html seconds", "s"), ("report --html CPU", "s"),
        ("report --html peak", "MB"),
        ("report file size", "MB"), ("report opens in Chromium", "s"),
        ("view first overview, cold (builds the cache)", "s"),
        ("view first overview, cold, CPU", "s"),
        ("view first overview, cold, peak", "MB"),
        ("index at run end (child process)", "s"), ("index at run end, peak", "MB"),
        ("view first overview, from the run's index", "s"),
        ("view first overview, from the run's index, peak", "MB"))}
    cache = run / "view-cache.json"
    for _ in range(times):
        load = load_now()
        got = in_child("report", str(run), str(report))
        series["report --html seconds"].add(got["s"], load)
        series["report --html CPU"].add(got["cpu_s"], load)
        series["report --html peak"].add(got["peak_mb"], load)
        series["report file size"].add(report.stat().st_size / 1e6, load)
        if browser:
            series["report opens in Chromium"].add(open_in_chromium(report), load_now())
        cache.unlink(missing_ok=True)
        load = load_now()
        cold = in_child("view", str(run))
        series["view first overview, cold (builds the cache)"].add(cold["s"], load)
        series["view first overview, cold, CPU"].add(cold["cpu_s"], load)
        series["view first overview, cold, peak"].add(cold["peak_mb"], load)
        cache.unlink(missing_ok=True)
        load = load_now()
        index = in_child("index", str(run))  # what `trialrun run` does as a large run ends
        series["index at run end (child process)"].add(index["s"], load)
        series["index at run end, peak"].add(index["peak_mb"], load)
        load = load_now()
        warm = in_child("view", str(run))
        series["view first overview, from the run's index"].add(warm["s"], load)
        series["view first overview, from the run's index, peak"].add(warm["peak_mb"], load)
    return [s for s in series.values() if s.values]


GOALS = {  # issue 30's limits, checked on the median (seconds: wall, as the goal says)
    "report --html seconds": 10.0, "report --html peak": 150.0,
    "report opens in Chromium": 3.0,
    "view first overview, from the run's index": 1.0,
    "view first overview, from the run's index, peak": 150.0,
}  # the cold view (no index: a run from an older trialrun) is printed, with no goal


def goal_lines(series: list[Series]) -> list[str]:
    """One line per goal: the median against the limit, met or not (wall seconds on a
    loaded machine are inflated: the load is printed beside every figure)."""
    lines = []
    for s in series:
        limit = GOALS.get(s.name)
        if limit is not None:
            median = statistics.median(s.values)
            verdict = "met" if median <= limit else "NOT met"
            lines.append(f"goal {s.name} <= {limit:g} {s.unit}: median {median:.3g} "
                         f"{s.unit}, {verdict}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("-k", type=int, default=10)
    add_repeats_arg(parser)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--against", help="a git revision: time only `report --html`, this "
                        "code and that revision's on the same run, paired")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        kind, *paths = opts.child
        result = (child_report(Path(paths[0]), Path(paths[1]), *paths[2:]) if kind == "report"
                  else child_index(Path(paths[0])) if kind == "index"
                  else child_view(Path(paths[0])))
        print(json.dumps(result))
        return
    tmp = Path(tempfile.mkdtemp(prefix="trialrun-report-bench-"))
    try:
        start = time.perf_counter()
        run = write_run(tmp / "results", max(1, opts.trials // opts.k), opts.k)
        print(f"wrote a run of {opts.trials} trials in {time.perf_counter() - start:.1f} s")
        browser = not opts.no_browser and os.access("/usr/bin/chromium", os.X_OK)
        if opts.against:
            series = measure_against(run, tmp, max(3, opts.repeats), opts.against)
            for s in series:
                print(s.line(".3g"))
            print(json.dumps({"trials": opts.trials, "against": opts.against,
                              **{s.name: s.as_json() for s in series}}))
            return
        series = measure(run, tmp, max(3, opts.repeats), browser)
        for s in series:
            print(s.line(".3g"))
        for line in goal_lines(series):
            print(line)
        print(json.dumps({"trials": opts.trials, **{s.name: s.as_json() for s in series}}))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
