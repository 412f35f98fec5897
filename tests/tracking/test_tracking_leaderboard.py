from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trialrun.cli import app
from trialrun.errors import UserError
from trialrun.reports import leaderboard_markdown
from trialrun.tracking import bless, build_leaderboard, import_scribe_baseline, load_baseline

runner = CliRunner()


@pytest.fixture
def mixed(make_run, T, scribe, tmp_path) -> Path:
    folder = tmp_path / "baselines"
    # trialrun baseline: a T1 met; b T1 passes but 2/3 solved; c T2 neither; d T4 met.
    bless(
        make_run(
            [
                T("a", tier="T1"),
                T("b", tier="T1", solved=2),
                T("c", tier="T2", passed=2, solved=2),
                T("d", tier="T4"),
            ],
            model="gemini:gemini-2.5-flash",
            git_sha="0123456789abcdef",
        ),
        folder,
    )
    # Scribe baseline, k = n_runs = 5: x met; y passes, never solved; z neither.
    (folder / "ollama-gemma4-e4b.json").write_text(
        json.dumps(
            scribe(
                "gemma4:e4b",
                "ollama",
                "2026-05-24T22:49:06.481Z",
                "8ece524",
                [("x", "T1", 5, 5, 5), ("y", "T2", 5, 5, 0), ("z", "T3", 5, 4, 4)],
            )
        )
    )
    # Scribe baseline whose run_id carries an offset: 01:30+02:00 is the previous UTC day.
    (folder / "gemini-gemini-2.5-pro.json").write_text(
        json.dumps(
            scribe(
                "gemini-2.5-pro",
                "gemini",
                "2026-03-01T01:30:00+02:00",
                "abcdef1234",
                [("p", "T2", 3, 3, 3)],
            )
        )
    )
    broken = scribe("m", "p", "2026-01-01T00:00:00Z", "x", [("q", "T1", 3, 3, 3)])
    broken["tasks"][0]["n_runs"] = "three"
    (folder / "broken.json").write_text(json.dumps(broken))
    (folder / "notes.md").write_text("not a baseline")
    return folder


EXPECTED_MD = """\
| Model | Provider | k | Tasks | solve^k | pass^k (completed) | T1 | T2 | T3 | T4 | \
Date (UTC) | Commit |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
| gemini-2.5-pro | gemini | 3 | 1 | 100.0% | 100.0% | — | 1/1 | — | — | 2026-02-28 | abcdef1 |
| gemini-2.5-flash | gemini | 3 | 4 | 50.0% | 75.0% | 1/2 | 0/1 | — | 1/1 | 2026-01-01 | 0123456 |
| gemma4:e4b | ollama | 5 | 3 | 33.3% | 66.7% | 1/1 | 0/1 | 0/1 | — | 2026-05-24 | 8ece524 |

solve^k: every trial got the right outcome; pass^k (completed): every trial finished \
without a harness error or timeout.
"""


def test_leaderboard_markdown_matches_the_hand_table(mixed) -> None:
    board = build_leaderboard(mixed)
    assert leaderboard_markdown(board) == EXPECTED_MD
    [warning] = board.warnings
    assert "broken.json" in warning and "tasks[0].n_runs" in warning


def test_leaderboard_json_cli(mixed) -> None:
    result = runner.invoke(app, ["leaderboard", str(mixed), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    rows = [
        {
            k: r[k]
            for k in (
                "model",
                "provider",
                "k",
                "tasks",
                "pass_k",
                "solve_k",
                "tiers",
                "date",
                "commit",
            )
        }
        for r in data["rows"]
    ]
    assert rows == [
        {
            "model": "gemini-2.5-pro",
            "provider": "gemini",
            "k": 3,
            "tasks": 1,
            "pass_k": 1.0,
            "solve_k": 1.0,
            "tiers": {"T1": [0, 0], "T2": [1, 1], "T3": [0, 0], "T4": [0, 0]},
            "date": "2026-02-28",
            "commit": "abcdef1234",
        },
        {
            "model": "gemini-2.5-flash",
            "provider": "gemini",
            "k": 3,
            "tasks": 4,
            "pass_k": 0.75,
            "solve_k": 0.5,
            "tiers": {"T1": [1, 2], "T2": [0, 1], "T3": [0, 0], "T4": [1, 1]},
            "date": "2026-01-01",
            "commit": "0123456789abcdef",
        },
        {
            "model": "gemma4:e4b",
            "provider": "ollama",
            "k": 5,
            "tasks": 3,
            "pass_k": pytest.approx(2 / 3),
            "solve_k": pytest.approx(1 / 3),
            "tiers": {"T1": [1, 1], "T2": [0, 1], "T3": [0, 1], "T4": [0, 0]},
            "date": "2026-05-24",
            "commit": "8ece524",
        },
    ]
    assert len(data["warnings"]) == 1


def test_leaderboard_markdown_cli_and_bad_folder(mixed, tmp_path) -> None:
    result = runner.invoke(app, ["leaderboard", str(mixed)])
    assert result.exit_code == 0
    assert result.stdout == EXPECTED_MD
    result = runner.invoke(app, ["leaderboard", str(tmp_path / "missing")])
    assert isinstance(result.exception, UserError)


def test_import_scribe_baseline(scribe, tmp_path) -> None:
    src = tmp_path / "scribe.json"
    src.write_text(
        json.dumps(
            scribe(
                "gemma4:e4b",
                "ollama",
                "2026-05-24T22-49-06-481Z",
                "8ece524",
                [("x", "T1", 5, 5, 5), ("y", "T2", 5, 5, 2)],
            )
        )
    )
    result = runner.invoke(
        app, ["import", "scribe-baseline", str(src), "-o", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.output
    target = tmp_path / "out" / "ollama-gemma4-e4b.json"
    assert str(target) in result.stdout
    data = load_baseline(target)
    assert data.format == "trialrun-baseline/1"
    assert data.model == "gemma4:e4b" and data.provider == "ollama" and data.k == 5
    assert data.date == "2026-05-24T22:49:06Z" and data.git_sha == "8ece524"
    y = data.task_map()["y"]
    assert (y["n"], y["passed"], y["solved"], y["pass_k"], y["solve_k"], y["flaky"]) == (
        5,
        5,
        2,
        1.0,
        0.0,
        True,
    )
    assert y["tier"] == "T2"
    assert y["metrics"]["latency_p50_s"] == pytest.approx(2.2)
    assert y["metrics"]["tokens"] == pytest.approx(1100)


def test_import_malformed_scribe_names_file_and_field(scribe, tmp_path) -> None:
    bad = scribe("m", "p", "yesterday", "x", [("q", "T1", 3, 3, 3)])
    src = tmp_path / "bad.json"
    src.write_text(json.dumps(bad))
    with pytest.raises(UserError, match=r"bad\.json: field 'run_id'"):
        import_scribe_baseline(src, tmp_path / "out")
    src.write_text("{not json")
    with pytest.raises(UserError, match=r"bad\.json:1: invalid JSON"):
        import_scribe_baseline(src, tmp_path / "out")
    result = runner.invoke(app, ["import", "scribe-baseline", str(tmp_path / "nope.json")])
    assert isinstance(result.exception, UserError)
    assert not (tmp_path / "out").exists()
