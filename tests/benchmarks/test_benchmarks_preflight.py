"""A suite's preflight: every configuration problem of every pair is found before the
first run starts, and a judge that is also a model under test (the seed's own example
judges with gpt-4o, which it also tests) runs with one warning about self-preference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmarks_support import FRAMES_ROWS, SUPERGPQA_ROWS, write_csv, write_jsonl

from trialrun.benchmarks import expand, load_suite, run_pairs
from trialrun.errors import UserError


def scripted(path: Path, reply: str) -> None:
    path.write_text(json.dumps({"default": [{"content": reply}]}), encoding="utf-8")


def suite_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_self_judging_suite_runs_every_pair_with_one_warning(tmp_path: Path) -> None:
    write_csv(tmp_path / "frames.csv", FRAMES_ROWS)
    scripted(tmp_path / "a.yaml", "answer 0")
    scripted(tmp_path / "judge.yaml", "YES")
    suite = suite_file(
        tmp_path,
        """
[meta]
name = "self-judged"
[judge]
model = "judge.yaml"
provider = "scripted"
[run]
output_dir = "out"
[[models]]
name = "a.yaml"
provider = "scripted"
[[models]]
name = "judge.yaml"
provider = "scripted"
[[benchmarks]]
name = "frames"
dataset = "frames.csv"
""",
    )
    lines: list[str] = []
    outcomes = run_pairs(expand(load_suite(suite)), lines.append, handle_sigint=False)
    assert [o.pair.model_name for o in outcomes] == ["a.yaml", "judge.yaml"]
    warnings = [line for line in lines if "self-preference" in line]
    assert len(warnings) == 1, lines  # said once, before the first run
    assert lines.index(warnings[0]) < min(i for i, x in enumerate(lines) if "accuracy" in x)
    judged = outcomes[1].summary
    assert (judged["correct"], judged["scored_samples"]) == (4, 4)  # the judge says YES
    summary = json.loads((outcomes[1].run_dir / "summary.json").read_text())
    assert any("self-preference" in w for w in summary["warnings"])  # kept in the run folder


def test_every_problem_is_found_before_the_first_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    write_jsonl(tmp_path / "sg.jsonl", SUPERGPQA_ROWS)
    scripted(tmp_path / "a.yaml", "A")
    suite = suite_file(
        tmp_path,
        """
[meta]
name = "broken-late"
[run]
output_dir = "out"
[[models]]
name = "a.yaml"
provider = "scripted"
[[models]]
name = "gpt-4o-2024-08-06"
provider = "openai"
[[benchmarks]]
name = "supergpqa"
dataset = "sg.jsonl"
[[benchmarks]]
name = "frames"
dataset = "missing.csv"
""",
    )
    lines: list[str] = []
    with pytest.raises(UserError) as refused:
        run_pairs(expand(load_suite(suite)), lines.append, handle_sigint=False)
    message = str(refused.value)
    assert message.startswith("2 problems, found before any run (nothing ran): ")
    assert "missing.csv: no such file" in message
    assert "OPENAI_API_KEY is not set" in message
    assert "\n" not in message
    # nothing ran: the first pair (a.yaml on supergpqa, fine by itself) left no records
    assert not list((tmp_path / "out").glob("*.jsonl"))
    assert not (tmp_path / "out" / "runs").exists()
