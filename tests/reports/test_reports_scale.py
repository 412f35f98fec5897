"""The report and the viewer at scale: the HTML report carries its task and trial pages
in gzip+base64 chunks (the head payload holds only the first screen), written streamingly;
`trialrun view` caches a finished run's overview in the run folder, rebuilt when the
results file changes. Both show the terminal's figures."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reports_helpers import ExampleRuns, trialrun

from trialrun.reports import RunView, _html
from trialrun.reports._format import pct
from trialrun.reports._server import RunStore
from trialrun.reports._view import dumps
from trialrun.reports._view_cache import store_overview
from trialrun.rundir import VIEW_CACHE
from trialrun.tracking import CompareSettings

_ELEMENTS = re.compile(r'<script [^>]*id="([^"]+)"[^>]*>(.*?)</script>', re.S)


def _elements(html: str) -> dict[str, dict[str, str]]:
    return {name: _html.decode_payload(text) for name, text in _ELEMENTS.findall(html)}


def test_report_head_holds_the_first_screen_and_chunks_hold_every_detail_page(
    example_runs: ExampleRuns, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_html, "CHUNK", 3)  # several chunks from a small run
    out = _html.write_html_report(example_runs.bad, tmp_path / "r.html")
    elements = _elements(out.read_text("utf-8"))
    head = elements.pop("payload")
    base = f"/api/run/{example_runs.bad.name}"
    assert set(head) == {"/api/runs", base}  # no task or trial page in the head
    view = RunView(example_runs.bad)
    try:
        tasks, lines = len(view.records), len(view.lines)
        expected = {f"{base}/task/{i}": dumps(view.task(i)) for i in range(tasks)}
        expected |= {f"{base}/trial/{i}": dumps(view.trial(i)) for i in range(lines)}
    finally:
        view.close()
    assert sorted(elements) == sorted(
        [f"chunk-task-{n}" for n in range(-(-tasks // 3))]
        + [f"chunk-trial-{n}" for n in range(-(-lines // 3))])
    for name, pages in elements.items():  # each page sits in the chunk the page looks in
        kind, number = name.split("-")[1:]
        assert all(int(p.rsplit("/", 1)[1]) // 3 == int(number) and f"/{kind}/" in p
                   for p in pages)
    assert {p: t for pages in elements.values() for p, t in pages.items()} == expected


def test_each_chunk_is_its_own_gzip_member_of_bounded_size(
    example_runs: ExampleRuns, tmp_path: Path
) -> None:
    html = _html.write_html_report(example_runs.good, tmp_path / "r.html").read_text("utf-8")
    chunks = {n: t for n, t in _ELEMENTS.findall(html) if n.startswith("chunk-")}
    assert chunks, "no chunk in the report"
    for text in chunks.values():
        import base64

        pages = json.loads(gzip.decompress(base64.b64decode(text)))
        assert 0 < len(pages) <= _html.CHUNK
    assert 'data-chunk="' in html.split('id="payload"')[1].split(">")[0]


def test_report_and_viewer_show_the_terminals_figures(
    example_runs: ExampleRuns, tmp_path: Path
) -> None:
    run = tmp_path / "results" / example_runs.bad.name
    shutil.copytree(example_runs.bad, run)
    terminal = trialrun("summarize", str(run), cwd=tmp_path).stdout  # the terminal table
    html = _html.write_html_report(run, tmp_path / "r.html").read_text("utf-8")
    report = json.loads(_html.report_pages(html)[f"/api/run/{run.name}"])
    store = RunStore(run.parent)
    try:
        built = store.overview(run.name)
        cached = RunStore(run.parent).overview(run.name)
    finally:
        store.close()
    for page in (report, built, cached):
        (head,) = page["headline"]
        assert f"solve^k {pct(head['solve_k_rate'])}" in terminal
        assert f"mean solve {pct(head['mean_solve_rate'])}" in terminal
        assert re.search(rf"pass\^k[^\n]* {re.escape(pct(head['pass_k_rate']))}", terminal)
    assert report["headline"] == built["headline"] == cached["headline"]
    assert report["tasks"] == built["tasks"] == cached["tasks"]


def _copy(example_runs: ExampleRuns, tmp_path: Path) -> Path:
    run = tmp_path / "results" / example_runs.good.name
    shutil.copytree(example_runs.good, run)
    return run


def _overview(run: Path) -> dict:
    store = RunStore(run.parent)  # a fresh server: nothing held in memory
    try:
        return store.overview(run.name)
    finally:
        store.close()


def _mark_cache(run: Path) -> None:
    """Tag the cached overview, to see whether a later answer came from the file."""
    data = json.loads((run / VIEW_CACHE).read_text("utf-8"))
    data["overview"]["git_sha"] = "from-the-cache"
    (run / VIEW_CACHE).write_text(json.dumps(data), "utf-8")


def test_viewer_caches_the_overview_in_the_run_folder_and_reuses_it(
    example_runs: ExampleRuns, tmp_path: Path
) -> None:
    run = _copy(example_runs, tmp_path)
    first = _overview(run)
    assert (run / VIEW_CACHE).is_file()
    assert json.loads((run / VIEW_CACHE).read_text("utf-8"))["overview"]["tasks"] == first["tasks"]
    _mark_cache(run)
    assert _overview(run)["git_sha"] == "from-the-cache"


def test_viewer_cache_is_rebuilt_when_the_results_file_changes(
    example_runs: ExampleRuns, tmp_path: Path
) -> None:
    run = _copy(example_runs, tmp_path)
    before = _overview(run)
    _mark_cache(run)
    lines = (run / "results.jsonl").read_text("utf-8").splitlines(keepends=True)
    kept = [line for line in lines if json.loads(line)["trial"] != 2]  # trial 2 never ran
    (run / "results.jsonl").write_text("".join(kept), "utf-8")
    after = _overview(run)
    assert after["git_sha"] != "from-the-cache"
    trials = sum(row["trials"] for row in after["tasks"])
    assert trials == len(kept) < sum(row["trials"] for row in before["tasks"])
    cached = json.loads((run / VIEW_CACHE).read_text("utf-8"))["overview"]
    assert cached["tasks"] == after["tasks"]


def test_viewer_cache_is_rebuilt_when_only_the_results_mtime_changes(
    example_runs: ExampleRuns, tmp_path: Path
) -> None:
    run = _copy(example_runs, tmp_path)
    _overview(run)
    _mark_cache(run)
    st = (run / "results.jsonl").stat()
    os.utime(run / "results.jsonl", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert _overview(run)["git_sha"] != "from-the-cache"


def test_viewer_cache_is_rebuilt_when_the_compare_settings_change(
    example_runs: ExampleRuns, tmp_path: Path
) -> None:
    """The overview's baseline comparison depends on [compare] alpha and method: a cache
    written under other settings is not answered from."""
    run = _copy(example_runs, tmp_path)
    store = RunStore(run.parent, settings=CompareSettings(alpha=0.05, method="exact"))
    try:
        store.overview(run.name)
    finally:
        store.close()
    _mark_cache(run)
    for other in (CompareSettings(alpha=0.01, method="exact"),
                  CompareSettings(alpha=0.05, method="mid-p")):  # fmt: skip
        store = RunStore(run.parent, settings=other)
        try:
            assert store.overview(run.name)["git_sha"] != "from-the-cache"
        finally:
            store.close()
        _mark_cache(run)


def test_viewer_never_follows_a_symlinked_cache(
    example_runs: ExampleRuns, tmp_path: Path
) -> None:
    run = _copy(example_runs, tmp_path)
    target = tmp_path / "elsewhere.json"
    target.write_text("{}", "utf-8")
    (run / VIEW_CACHE).symlink_to(target)
    page = _overview(run)
    assert page["tasks"]  # built from the run, not the link
    assert target.read_text("utf-8") == "{}"  # never written through the link
    assert (run / VIEW_CACHE).is_symlink()


_FROM_TRANSCRIPT = ("messages", "turn_meta", "workspace_diff", "transcript_note")


@pytest.mark.parametrize("which", ["bad", "good"])
def test_large_report_embeds_first_failed_and_a_sample_of_transcripts_and_names_the_rest(
    example_runs: ExampleRuns, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    monkeypatch.setattr(_html, "EMBED_ALL_UP_TO", 0)  # as a run past the threshold
    run = getattr(example_runs, which)
    pages = _html.report_pages(
        _html.write_html_report(run, tmp_path / "r.html").read_text("utf-8"))
    base = f"/api/run/{run.name}"
    view = RunView(run)
    try:
        embedded = skipped = 0
        for row in range(len(view.records)):
            unsolved = solved = 0
            first_failed = view.overview()["tasks"][row]["first_failed"]
            if first_failed is not None:  # the overview's link opens a full page
                assert json.loads(pages[f"{base}/trial/{first_failed}"])["messages"]
            # in file order (a trial's page number is its place in the file)
            for trial in sorted(view.task(row)["trials"], key=lambda t: t["line"]):
                if trial["status"] == "solved":
                    solved += 1
                    expect = solved <= _html.EMBED_SOLVED
                else:
                    unsolved += 1
                    expect = unsolved <= _html.EMBED_UNSOLVED
                full = view.trial(trial["line"])  # what `trialrun view` serves
                got = json.loads(pages[f"{base}/trial/{trial['line']}"])
                if expect:
                    embedded += 1
                    assert got == json.loads(dumps(full))
                    assert got["transcript_note"] is None
                    continue
                skipped += 1
                # every figure of the page agrees with the viewer's; only the transcript
                # is left out, and the page names the file it is in (never a blank)
                same = json.loads(dumps({k: v for k, v in full.items()
                                         if k not in _FROM_TRANSCRIPT}))
                assert {k: v for k, v in got.items() if k not in _FROM_TRANSCRIPT} == same
                assert got["messages"] == [] and got["workspace_diff"] is None
                path = run / full["transcript"]
                assert path.is_file() and str(path) in got["transcript_note"]
        assert embedded and skipped
    finally:
        view.close()


def test_small_report_embeds_every_transcript(
    example_runs: ExampleRuns, tmp_path: Path
) -> None:
    pages = _html.report_pages(
        _html.write_html_report(example_runs.bad, tmp_path / "r.html").read_text("utf-8"))
    trials = {p: json.loads(t) for p, t in pages.items() if "/trial/" in p}
    assert trials and all(t["messages"] and t["transcript_note"] is None
                          for t in trials.values())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages=st.dictionaries(st.text(max_size=20), st.text(max_size=200), max_size=5))
def test_data_element_encodes_every_page_back_to_itself(pages: dict[str, str]) -> None:
    element = _html._data_element("payload", pages)
    (name, text), = _ELEMENTS.findall(element)
    assert name == "payload" and _html.decode_payload(text) == pages


def test_data_element_keeps_a_lone_surrogate_as_its_escape() -> None:
    pages = {"/api/x": '{"a":"\ud800 and \u2028"}', "/api/\udfff": "\udfff"}
    element = _html._data_element("payload", pages)
    (_, text), = _ELEMENTS.findall(element)
    assert _html.decode_payload(text) == pages


def test_viewer_cache_is_compact_json_with_secrets_masked(
    example_runs: ExampleRuns, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _copy(example_runs, tmp_path)
    page = _overview(run)
    secret = "sk-cachetest0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    page["warnings"] = [f"token {secret}"]
    (run / VIEW_CACHE).unlink()
    assert store_overview(run, {"format": 0}, page)
    text = (run / VIEW_CACHE).read_text("utf-8")
    assert text.count("\n") == 1 and text.endswith("}\n")  # one compact line, not indented
    assert secret not in text and json.loads(text)["overview"]["tasks"] == page["tasks"]


def _interleaved_run(root: Path, order: list[tuple[int, int]]) -> Path:
    """A finished run folder of 2 tasks × 3 trials whose lines are written in `order`
    ((task, trial) pairs), as concurrent trials finish."""
    from trialrun.rundir import Manifest, ResultLine, RunDir

    model = "openai-compat:m"
    metas = [{"task_id": f"t{i}", "suite": "golden", "k": 3, "metric": "pass^k"}
             for i in range(2)]
    manifest = Manifest(run_id="20260101T000000Z-ilv0", started_at="2026-01-01T00:00:00+00:00",
                        models=[model], trialrun_version="test", tasks=metas)
    run = RunDir.create(root, "20260101T000000Z-ilv0", manifest, fsync=False)
    for task, trial in order:
        run.append(ResultLine(task_id=f"t{task}", model=model, trial=trial, passed=True,
                              solve=trial != 1, latency_s=0.1 * (task + trial)), sync=False)
    run.close()
    return run.path


def test_trial_numbers_follow_the_file_and_stay_put_while_a_run_appends(
    tmp_path: Path
) -> None:
    order = [(1, 0), (0, 2), (0, 0), (1, 2), (0, 1), (1, 1)]
    run = _interleaved_run(tmp_path / "results", order)
    view = RunView(run)
    try:
        pages = [view.trial(i) for i in range(len(view.lines))]
        assert [(p["task_id"], p["trial"]) for p in pages] == [(f"t{a}", b) for a, b in order]
        for row in range(len(view.row_lines)):  # a task page lists its trials by trial
            listed = view.task(row)["trials"]
            assert [t["trial"] for t in listed] == [0, 1, 2]
            assert all(pages[t["line"]]["trial"] == t["trial"] for t in listed)
            assert view.overview()["tasks"][row]["first_failed"] == next(
                t["line"] for t in listed if t["status"] != "solved")
        first = [(p["task_id"], p["trial"]) for p in pages[:4]]
        results = run / "results.jsonl"  # a live run: the last two lines not there yet
        full = results.read_bytes()
        results.write_bytes(b"".join(full.splitlines(keepends=True)[:4]))
        view.refresh()
        assert [(view.trial(i)["task_id"], view.trial(i)["trial"]) for i in range(4)] == first
        results.write_bytes(full)
        view.refresh()
        assert [(view.trial(i)["task_id"], view.trial(i)["trial"]) for i in range(6)] == [
            (f"t{a}", b) for a, b in order]
    finally:
        view.close()


def test_report_reads_each_results_line_in_one_pass_for_its_trial_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trialrun.rundir import RunDir

    run = _interleaved_run(tmp_path / "results", [(1, 0), (0, 2), (0, 0), (1, 2), (0, 1), (1, 1)])
    expected_view = RunView(run)
    try:
        expected = {i: dumps(expected_view.trial(i)) for i in range(6)}
    finally:
        expected_view.close()

    def no_lookup(self: RunDir, offset: int) -> None:
        raise AssertionError(f"results line at byte {offset} looked up again")

    monkeypatch.setattr(RunDir, "result_at", no_lookup)
    monkeypatch.setattr(_html, "CHUNK", 4)
    html = _html.write_html_report(run, tmp_path / "r.html").read_text("utf-8")
    elements = _elements(html)
    base = f"/api/run/{run.name}"
    assert elements["chunk-trial-0"] == {f"{base}/trial/{i}": expected[i] for i in range(4)}
    assert elements["chunk-trial-1"] == {f"{base}/trial/{i}": expected[i] for i in (4, 5)}


def _report_pages(run: Path, out: Path) -> dict[str, str]:
    return _html.report_pages(_html.write_html_report(run, out).read_text("utf-8"))


def test_a_large_report_parses_each_results_line_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trialrun.rundir import ResultLine

    order = [(1, 0), (0, 2), (0, 0), (1, 2), (0, 1), (1, 1)]
    run = _interleaved_run(tmp_path / "results", order)
    two_pass = _report_pages(run, tmp_path / "small.html")  # a small run: read twice
    monkeypatch.setattr(_html, "EMBED_ALL_UP_TO", 0)  # as a run past the threshold
    monkeypatch.setattr(_html, "CHUNK", 4)
    embedded_two_pass_view = RunView(run)
    try:
        expected_flags = _html.embedded_transcripts(embedded_two_pass_view)
    finally:
        embedded_two_pass_view.close()
    parsed = []
    real = ResultLine.from_json.__func__  # type: ignore[attr-defined]

    def counting(cls: type[ResultLine], item: object) -> ResultLine:
        parsed.append(item)
        return real(cls, item)  # type: ignore[no-any-return]

    monkeypatch.setattr(ResultLine, "from_json", classmethod(counting))
    one_pass = _report_pages(run, tmp_path / "large.html")
    assert len(parsed) == len(order)  # every line parsed once, for every page
    monkeypatch.undo()
    trial_pages = {p: t for p, t in one_pass.items() if "/trial/" in p}
    assert len(trial_pages) == len(order)
    for path, text in trial_pages.items():
        number = int(path.rsplit("/", 1)[1])
        page, full = json.loads(text), json.loads(two_pass[path])
        assert (page["transcript_note"] is None) == bool(expected_flags[number])
        assert {k: v for k, v in page.items() if k not in _FROM_TRANSCRIPT} == {
            k: v for k, v in full.items() if k not in _FROM_TRANSCRIPT}
    assert {p: t for p, t in one_pass.items() if "/trial/" not in p} == {
        p: t for p, t in two_pass.items() if "/trial/" not in p}


def test_a_row_other_than_predicted_falls_back_to_a_second_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _interleaved_run(tmp_path / "results", [(1, 0), (0, 0), (1, 1), (0, 1)])
    manifest = json.loads((run / "run.json").read_text())
    manifest["models"] = ["openai-compat:other"]  # the lines' model: not in run.json
    (run / "run.json").write_text(json.dumps(manifest))
    expected = _report_pages(run, tmp_path / "small.html")
    monkeypatch.setattr(_html, "EMBED_ALL_UP_TO", 0)
    voided = []
    real_invalidate = _html.TrialSpool.invalidate

    def invalidate(self: _html.TrialSpool) -> None:
        voided.append(1)
        real_invalidate(self)

    monkeypatch.setattr(_html.TrialSpool, "invalidate", invalidate)
    got = _report_pages(run, tmp_path / "large.html")
    assert voided  # the spool was not used: its rows were not the view's
    view = RunView(run)
    try:
        flags = _html.embedded_transcripts(view)
        for number in range(len(view.lines)):
            path = f"/api/run/{run.name}/trial/{number}"
            page = json.loads(got[path])
            assert page == {**json.loads(expected[path]), **(
                {} if flags[number] else {k: page[k] for k in _FROM_TRANSCRIPT})}
            assert page["row"] == view.line_row[number]
    finally:
        view.close()
