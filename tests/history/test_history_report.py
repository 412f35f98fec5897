"""The nightly report: per-run pass rates, totals, trends, formats; the CLI around it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import trialrun
from cli_support import cli_process
from trialrun.history import (
    Cell,
    HistoryStore,
    Outcome,
    RunRecord,
    TrialRecord,
    build_report,
    percent,
    render,
)
from trialrun.history._report import trend


def _outcome(test: str, solved: int, n: int = 3, model: str = "m") -> Outcome:
    return Outcome(test, model, policy="ALWAYS_PASSES",
                   trials=[TrialRecord(i, "solved" if i < solved else "failed") for i in range(n)])


def test_percent_reads_thirds_as_0_33_66_100() -> None:
    assert [percent(Cell(c, 3)) for c in range(4)] == [
        "0% (0/3)", "33% (1/3)", "66% (2/3)", "100% (3/3)"]
    assert percent(None) == "–" and percent(Cell(0, 0)) == "n/a"


def test_trend_flags_stable_to_flaky_and_exact_drops_only() -> None:
    alpha = 0.05
    assert trend([Cell(3, 3)] * 6 + [Cell(2, 3)], alpha) == "stable → flaky"
    assert trend([Cell(3, 3), Cell(0, 3)], alpha) == "stable → failing"
    assert trend([Cell(2, 3), Cell(3, 3), Cell(2, 3)], alpha) is None  # flaky all along
    # 18/20 before, 0/10 now: Fisher's one-sided test flags it
    drop = trend([Cell(9, 10), Cell(9, 10), Cell(0, 10)], alpha)
    assert drop is not None and drop.startswith("drop (p = ")
    assert trend([Cell(3, 3), None, Cell(3, 3)], alpha) is None
    assert trend([Cell(1, 3)], alpha) is None  # one run: no trend


def test_report_table_totals_and_formats(store: HistoryStore) -> None:
    rates = [(3, 3), (3, 3), (3, 3), (2, 3)]
    for i, (solved, n) in enumerate(rates):
        store.record(RunRecord(f"r{i}", f"2026-11-0{i + 1}T03:00:00Z", "nightly",
                               outcomes=[_outcome("a", solved, n), _outcome("b", 1, 3)]))
    store.record(RunRecord("ci", "2026-11-09T03:00:00Z", "ci", outcomes=[_outcome("a", 0)]))
    report = build_report(store, last=3, trigger="nightly")
    assert [r.run_id for r in report.runs] == ["r1", "r2", "r3"]
    assert [(c.solved, c.trials) for c in report.totals] == [(4, 6), (4, 6), (3, 6)]
    (a, b) = report.rows
    assert [percent(c) for c in a.cells] == ["100% (3/3)", "100% (3/3)", "66% (2/3)"]
    assert a.trend == "stable → flaky" and b.trend is None
    md = render(report, "markdown")
    row = "| a | m | ALWAYS_PASSES | 100% (3/3) | 100% (3/3) | 66% (2/3) | **⚠ stable → flaky** |"
    assert row in md
    assert "| **all** | | | **66% (4/6)** | **66% (4/6)** | **50% (3/6)** | |" in md
    doc = json.loads(render(report, "json"))
    assert doc["trending_worse"] == [{"test_id": "a", "model": "m", "trend": "stable → flaky"}]
    assert doc["rows"][0]["runs"][2] == {"solved": 2, "trials": 3, "pass_rate": 2 / 3}
    html = render(report, "html")
    assert '<tr class="worse"><td>a</td>' in html and "66% (2/3)" in html
    # both say what a cell is and what "–" (not in that run) means
    assert all("solved / counted trials" in text and "– not in that run" in text
               for text in (md, html))
    assert [r.run_id for r in build_report(store, last=7).runs][-1] == "ci"


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tasks" / "fixtures" / "basic").mkdir(parents=True)
    (tmp_path / "tasks" / "fixtures" / "basic" / "note.md").write_text("pineapple\n")
    (tmp_path / "tasks" / "t.yaml").write_text(
        "task_id: read-note\nsuite: golden\ndescription: d\n"
        "inputs: {prompt: What is in note.md?}\nenvironment: {fixture: basic}\n"
        "graders: [{type: contains, value: pineapple}]\ntracked_metrics: [pass^k]\n"
        "trials: {k: 2}\n")
    (tmp_path / "agent.yaml").write_text(
        "tasks:\n  read-note:\n    - tool_calls: [{name: read_file, arguments: {path: note.md}}]"
        "\n    - content: It says pineapple.\n")
    return tmp_path


def test_every_cli_run_is_recorded_and_import_back_fills(suite: Path, store_url: str) -> None:
    run = cli_process("run", "tasks", "-m", "scripted:agent.yaml", "--trigger", "nightly",
               "--store", store_url, cwd=suite)
    assert run.returncode == 0, run.stderr
    with HistoryStore.open(store_url) as store:
        (recorded,) = store.runs()
    assert (recorded.source, recorded.trigger) == ("cli", "nightly")
    (o,) = recorded.outcomes
    assert (o.test_id, o.model, o.trials, o.solved, o.policy) == (
        "read-note", "scripted:agent.yaml", 2, 2, "ALWAYS_PASSES")
    assert o.source == str((suite / "tasks" / "t.yaml").resolve())
    assert recorded.git_sha is None  # not a git checkout

    # the same folder again: skipped; a run made without recording: back-filled
    other = trialrun.run(str(suite / "tasks"), ["scripted:agent.yaml"], out=suite / "results",
                         handle_sigint=False)
    imported = cli_process("history", "import", str(recorded.run_dir), str(other.path),
                    "--store", store_url, cwd=suite)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.splitlines()[0].startswith("already recorded: ")
    assert imported.stdout.splitlines()[1].startswith("recorded: ")
    report = cli_process("history", "--store", store_url, "--format", "json", cwd=suite)
    doc = json.loads(report.stdout)
    assert [r["trigger"] for r in doc["runs"]] == ["nightly", "local"]
    assert doc["totals"] == [{"solved": 2, "trials": 2, "pass_rate": 1.0}] * 2


def test_user_errors_are_one_line(suite: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "h.db")
    cases = [
        (("history", "--format", "pdf", "--store", store), "--format pdf: unknown"),
        (("history", "--last", "0", "--store", store), "--last 0: must be 1 or more"),
        (("history", "import", str(suite), "--store", store), "not a run directory"),
        (("run", "tasks", "-m", "scripted:agent.yaml", "--trigger", "weekly"),
         "--trigger 'weekly': unknown trigger"),
        (("history", "--store", "postgresql://nobody@127.0.0.1:1/x"), "cannot open it"),
    ]
    for args, expected in cases:
        done = cli_process(*args, cwd=suite)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert expected in done.stderr and len(done.stderr.strip().splitlines()) == 1, args
        assert "Traceback" not in done.stderr


def test_a_store_that_cannot_be_written_never_fails_the_run(suite: Path) -> None:
    done = cli_process("run", "tasks", "-m", "scripted:agent.yaml", "--store",
                "postgresql://nobody@127.0.0.1:1/x", cwd=suite)
    assert done.returncode == 0, done.stderr
    assert "history: run not recorded: history store postgresql+psycopg://nobody@127.0.0.1:1/x:" \
        " cannot open it" in " ".join(done.stderr.split())
    assert list((suite / "results").glob("*/summary.json"))  # the run itself is whole
