"""`trialrun bless` with no run folder blesses the most recent complete run under results/
(trialrun issue 10 item 9), as Scribe's `eval:bless` promotes the most recent result."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trialrun.cli import app
from trialrun.errors import UserError
from trialrun.tracking import latest_complete_run

runner = CliRunner()


def _started(run: Path, when: str) -> Path:
    manifest = json.loads((run / "run.json").read_text())
    manifest["started_at"] = when
    (run / "run.json").write_text(json.dumps(manifest))
    return run


def _interrupt(run: Path) -> Path:
    """Drop the last results line (summary.json left stale): a planned trial never finished."""
    lines = (run / "results.jsonl").read_text().splitlines(keepends=True)
    (run / "results.jsonl").write_text("".join(lines[:-1]))
    return run


def test_picks_the_newest_complete_run(make_run, T, tmp_path: Path) -> None:
    old = _started(make_run([T("a")], name="20260101T100000Z-aaaa"), "2026-01-01T10:00:00Z")
    new = _started(make_run([T("a")], name="20260102T100000Z-bbbb"), "2026-01-02T10:00:00Z")
    _interrupt(_started(make_run([T("a")], name="20260103T100000Z-cccc"), "2026-01-03T10:00:00Z"))
    (tmp_path / "results" / ".20260104T100000Z-dddd.partial").mkdir()
    (tmp_path / "results" / "notes.txt").write_text("not a run")
    assert latest_complete_run(tmp_path / "results") == new
    assert old != new


def test_started_at_wins_over_the_folder_name(make_run, T, tmp_path: Path) -> None:
    late = _started(make_run([T("a")], name="aaa-renamed"), "2026-03-01T00:00:00Z")
    _started(make_run([T("a")], name="zzz-renamed"), "2026-02-01T00:00:00Z")
    assert latest_complete_run(tmp_path / "results") == late


def test_no_complete_run_is_one_line(make_run, T, tmp_path: Path) -> None:
    _interrupt(make_run([T("a")]))
    with pytest.raises(UserError) as info:
        latest_complete_run(tmp_path / "results")
    message = str(info.value)
    assert "no complete run" in message and "\n" not in message
    with pytest.raises(UserError, match="no such folder"):
        latest_complete_run(tmp_path / "nothing-here")


def test_cli_names_the_run_it_blesses(make_run, T, tmp_path: Path) -> None:
    run = make_run([T("a")], name="20260102T100000Z-bbbb")
    out = tmp_path / "baselines"
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        result = runner.invoke(app, ["bless", "--baselines", str(out)])
    finally:
        os.chdir(cwd)
    assert result.exit_code == 0, result.output
    first, second = result.stdout.splitlines()[:2]
    assert first == f"blessing {Path('results') / run.name} (most recent complete run)"
    assert second.startswith("blessed gemini:gemini-2.5-flash")
    assert (out / "gemini-gemini-2.5-flash.json").is_file()


def test_cli_results_option_and_nothing_found(make_run, T, tmp_path: Path) -> None:
    run = make_run([T("a")])
    out = tmp_path / "baselines"
    result = runner.invoke(
        app, ["bless", "--results", str(tmp_path / "results"), "--baselines", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert f"blessing {run} (most recent complete run)" in result.stdout
    _interrupt(run)
    result = runner.invoke(
        app, ["bless", "--results", str(tmp_path / "results"), "--baselines", str(out)]
    )
    assert isinstance(result.exception, UserError) and result.exception.exit_code == 2
    assert "no complete run" in str(result.exception)
