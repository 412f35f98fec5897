"""Baseline files are `<provider>-<sanitized model id>.json`: no base URL, no credentials
(trialrun issue 10 item 8), and old files named with the base URL are still found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trialrun.cli import app
from trialrun.errors import UserError
from trialrun.tracking import (
    baseline_name,
    baseline_path,
    bless,
    compare_with_baselines,
    legacy_baseline_note,
    run_gate,
)

runner = CliRunner()
COMPAT = "openai-compat:gpt-4o-2024-08-06@http://127.0.0.1:9/v1"
NEW = "openai-compat-gpt-4o-2024-08-06.json"
OLD = "openai-compat-gpt-4o-2024-08-06-http---127.0.0.1-9-v1.json"


def test_name_has_no_base_url_and_no_credentials() -> None:
    assert baseline_name("openai-compat", "gpt-4o-2024-08-06@http://127.0.0.1:9/v1") == NEW
    name = baseline_name("openai-compat", "qwen2.5@https://bob:s3cret@llm.example.com/v1")
    assert name == "openai-compat-qwen2.5.json"
    assert baseline_name("ollama", "gemma4:e4b") == "ollama-gemma4-e4b.json"
    assert baseline_name("local", "") == "local.json"


def test_bless_writes_the_short_name(make_run, T, tmp_path: Path) -> None:
    # Seen: openai-compat-gpt-4o-2024-08-06-http---127.0.0.1-9-v1.json
    out = tmp_path / "baselines"
    [item] = bless(make_run([T("a")], model=COMPAT), out)
    assert item.path == out / NEW
    assert [p.name for p in out.iterdir()] == [NEW]
    data = json.loads(item.path.read_text())
    assert data["provider"] == "openai-compat"


def test_bless_refuses_unpinned_behind_a_base_url(make_run, T, tmp_path: Path) -> None:
    # Seen: openai-compat:gpt-4o-latest@http://… blessed with exit 0.
    run = make_run([T("a")], model="openai-compat:gpt-4o-latest@http://127.0.0.1:9/v1")
    with pytest.raises(UserError, match="unpinned model id 'gpt-4o-latest'"):
        bless(run, tmp_path / "baselines")


def _old_baseline(make_run, T, tmp_path: Path) -> Path:
    """A baseline as trialrun 0.1 named it (base URL slugged into the name)."""
    out = tmp_path / "baselines"
    [item] = bless(make_run([T("a", n=10, k=10)], model=COMPAT), out)
    return item.path.rename(out / OLD)


def test_old_name_is_found_as_a_fallback_with_a_note(make_run, T, tmp_path: Path) -> None:
    old = _old_baseline(make_run, T, tmp_path)
    out = old.parent
    assert baseline_path(out, "openai-compat", "gpt-4o-2024-08-06@http://127.0.0.1:9/v1") == old
    note = legacy_baseline_note(out, "openai-compat", "gpt-4o-2024-08-06@http://127.0.0.1:9/v1")
    assert note is not None and OLD in note and NEW in note and "\n" not in note
    run = make_run([T("a", n=10, k=10, solved=2)], model=COMPAT)
    [match] = compare_with_baselines(run, out)
    assert match.baseline_path == old and match.comparison is not None
    assert match.comparison.regressions
    [model_gate] = run_gate("merge", run, baselines_dir=out).models
    assert model_gate.baseline == str(old)


def test_new_name_wins_over_the_old_one(make_run, T, tmp_path: Path) -> None:
    old = _old_baseline(make_run, T, tmp_path)
    bless(make_run([T("a")], model=COMPAT), old.parent)
    assert baseline_path(old.parent, "openai-compat", COMPAT.partition(":")[2]) == (
        old.parent / NEW
    )
    assert legacy_baseline_note(old.parent, "openai-compat", COMPAT.partition(":")[2]) is None


def test_compare_cli_says_it_used_the_old_name(make_run, T, tmp_path: Path) -> None:
    old = _old_baseline(make_run, T, tmp_path)
    run = make_run([T("a", n=10, k=10)], model=COMPAT)
    result = runner.invoke(app, ["compare", str(run), "--baselines", str(old.parent)])
    assert result.exit_code == 0, result.output
    assert f"note: {old}" in result.stderr and f"rename it to {NEW}" in result.stderr
    quiet = runner.invoke(app, ["compare", str(run), "--baselines", str(old.parent), "--json"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    json.loads(quiet.stdout)


def test_bless_notes_the_old_file_it_supersedes(make_run, T, tmp_path: Path) -> None:
    old = _old_baseline(make_run, T, tmp_path)
    result = runner.invoke(
        app, ["bless", str(make_run([T("a")], model=COMPAT)), "--baselines", str(old.parent)]
    )
    assert result.exit_code == 0, result.output
    assert (old.parent / NEW).is_file() and old.is_file()
    assert f"{old}" in result.stderr and "delete it" in result.stderr


def test_gate_cli_says_it_used_the_old_name(make_run, T, tmp_path: Path) -> None:
    old = _old_baseline(make_run, T, tmp_path)
    others = [T("adv", suite="adversarial", n=10), T("fr", suite="failure_replays", n=5)]
    run = make_run([T("a", n=10, k=10), *others], model=COMPAT)
    result = runner.invoke(app, ["gate", "merge", str(run), "--baselines", str(old.parent)])
    assert result.exit_code == 0, result.output
    assert f"note: {old}" in result.stderr


def test_run_end_summary_says_it_used_the_old_name(make_run, T, tmp_path: Path, capsys) -> None:
    from rich.console import Console

    from trialrun.cli._run import _print_comparison
    from trialrun.config import ProjectConfig
    from trialrun.workflow import AfterRun, follow_up

    old = _old_baseline(make_run, T, tmp_path)
    run = make_run([T("a", n=10, k=10)], model=COMPAT)
    found = follow_up(run, False, AfterRun(compare=True, baselines=old.parent), ProjectConfig())
    _print_comparison(found, Console(file=None))
    assert f"note: {old}" in capsys.readouterr().err
