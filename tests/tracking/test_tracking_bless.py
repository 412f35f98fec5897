from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trialrun.cli import app
from trialrun.errors import UserError
from trialrun.tracking import bless, load_baseline

runner = CliRunner()


def _only_file(folder: Path) -> Path:
    files = list(folder.iterdir())
    assert len(files) == 1, files
    return files[0]


def test_bless_writes_one_baseline_per_model(make_run, T, tmp_path: Path) -> None:
    run = make_run(
        {
            "gemini:gemini-2.5-flash": [T("a", solved=3, tier="T1"), T("b", solved=2, tier="T2")],
            "ollama:gemma4:e4b": [T("a", solved=1), T("b", solved=3)],
        }
    )
    out = tmp_path / "baselines"
    blessed = bless(run, out)
    names = sorted(p.name for p in out.iterdir())
    assert names == ["gemini-gemini-2.5-flash.json", "ollama-gemma4-e4b.json"]
    assert [b.forced for b in blessed] == [False, False]
    data = json.loads((out / "gemini-gemini-2.5-flash.json").read_text())
    assert data["format"] == "trialrun-baseline/1"
    assert data["model"] == "gemini-2.5-flash" and data["provider"] == "gemini"
    assert data["run_id"] == run.name and data["git_sha"] == "abc1234def"
    assert data["k"] == 3 and data["forced"] is False
    assert data["date"].endswith("Z")
    tasks = {t["task_id"]: t for t in data["tasks"]}
    assert tasks["a"]["n"] == 3 and tasks["a"]["solved"] == 3 and tasks["a"]["solve_k"] == 1.0
    assert tasks["b"]["solved"] == 2 and tasks["b"]["solve_k"] == 0.0 and tasks["b"]["flaky"]
    assert tasks["b"]["tier"] == "T2" and tasks["b"]["suite"] == "golden"
    metrics = tasks["a"]["metrics"]
    assert metrics["turns"] == 2 and metrics["tool_calls"] == 1 and metrics["tokens"] == 120
    assert metrics["cost_usd"] == pytest.approx(0.001)
    assert metrics["latency_p95_s"] == pytest.approx(1.0)
    assert data["aggregate"]["solve_k_rate"] == pytest.approx(0.5)
    assert load_baseline(out / "gemini-gemini-2.5-flash.json").model == "gemini-2.5-flash"


@pytest.mark.parametrize(
    ("kwargs", "model", "reason_text"),
    [
        (
            {"tasks": lambda T: [T("a", infra=1)]},
            "gemini:gemini-2.5-flash",
            "infrastructure errors",
        ),
        (
            {"tasks": lambda T: [T("a", undetermined=1)]},
            "gemini:gemini-2.5-flash",
            "undetermined verdicts",
        ),
        ({"tasks": lambda T: [T("a")]}, "gemini:gemini-flash-latest", "unpinned model id"),
        ({"tasks": lambda T: [T("a")]}, "ollama:gemma4:latest", "unpinned model id"),
        ({"tasks": lambda T: [T("a")]}, "gemini:gemini-3-flash-preview", "unpinned model id"),
        ({"tasks": lambda T: [T("a", n=2, k=2)]}, "gemini:gemini-2.5-flash", "k = 2 < 3"),
    ],
)
def test_bless_refusals_name_the_reason(make_run, T, tmp_path, kwargs, model, reason_text) -> None:
    run = make_run(kwargs["tasks"](T), model=model)
    out = tmp_path / "baselines"
    with pytest.raises(UserError) as info:
        bless(run, out)
    message = str(info.value)
    assert reason_text in message
    assert "--force --reason" in message
    assert "\n" not in message
    assert not out.exists() or not any(out.iterdir())


def test_bless_force_needs_and_records_a_reason(make_run, T, tmp_path) -> None:
    run = make_run([T("a", infra=1)], model="gemini:gemini-flash-latest")
    out = tmp_path / "baselines"
    with pytest.raises(UserError, match="--force needs --reason"):
        bless(run, out, force=True)
    with pytest.raises(UserError, match="only used with --force"):
        bless(run, out, reason="why")
    [item] = bless(run, out, force=True, reason="provider outage, numbers still useful")
    data = json.loads(item.path.read_text())
    assert data["forced"] is True
    assert data["reason"] == "provider outage, numbers still useful"
    assert any("infrastructure" in r for r in data["forced_over"])
    assert any("unpinned" in r for r in data["forced_over"])


def test_bless_is_atomic_on_failure(make_run, T, tmp_path, monkeypatch) -> None:
    run = make_run([T("a")])
    out = tmp_path / "baselines"
    bless(run, out)
    target = _only_file(out)
    before = target.read_bytes()

    run2 = make_run([T("a", solved=1)])

    def boom(src, dst):  # fault injection: the rename fails
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(UserError, match="cannot write the baseline .disk full"):
        bless(run2, out)
    monkeypatch.undo()
    assert target.read_bytes() == before  # the old baseline is intact
    assert [p.name for p in out.iterdir()] == [target.name]  # no temp file left


def test_bless_interrupted_write_leaves_no_partial_file(make_run, T, tmp_path, monkeypatch) -> None:
    run = make_run([T("a")])
    out = tmp_path / "baselines"

    def killed(fd: int) -> None:  # the text is written, the process dies before the rename
        raise RuntimeError("killed mid-write")

    monkeypatch.setattr(os, "fsync", killed)
    with pytest.raises(RuntimeError):
        bless(run, out)
    monkeypatch.undo()
    assert list(out.iterdir()) == []


def test_bless_cli_exit_codes(make_run, T, tmp_path) -> None:
    good = make_run([T("a")])
    bad = make_run([T("a", undetermined=1)])
    out = tmp_path / "bl"
    result = runner.invoke(app, ["bless", str(good), "--baselines", str(out)])
    assert result.exit_code == 0, result.output
    assert "blessed gemini:gemini-2.5-flash" in result.output
    result = runner.invoke(app, ["bless", str(bad), "--baselines", str(out)])
    assert isinstance(result.exception, UserError)
    assert result.exception.exit_code == 2
    result = runner.invoke(
        app, ["bless", str(bad), "--baselines", str(out), "--force", "--reason", "judge down"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(_only_file(out).read_text())["reason"] == "judge down"


def test_bless_not_a_run_dir(tmp_path) -> None:
    with pytest.raises(UserError, match="not a run directory"):
        bless(tmp_path, tmp_path / "b")
