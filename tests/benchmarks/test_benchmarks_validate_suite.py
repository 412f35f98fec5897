"""`trialrun validate SUITE.toml`: a suite config checked completely without loading a
dataset; every problem one line naming file, place and fix, exit 2; a template named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

GOOD = """
[meta]
name = "good"
[judge]
model = "judge.yaml"
provider = "scripted"
engine = "cloud"
[[models]]
name = "m.yaml"
provider = "scripted"
num_gpus = 1
[[benchmarks]]
name = "supergpqa"
backend = "jarvis-direct"
dataset = "data/never-read.jsonl"
"""

BAD = """
[meta]
name = "bad"
[defaults]
temperature = 3.5
[judge]
model = "nobody-knows"
[run]
trials = 0
[[models]]
name = "m.yaml"
engine = "tgi"
[[benchmarks]]
name = "supergpqaa"
backend = "jarvis-magic"
tools = ["calculator", "crystal_ball"]
"""

TEMPLATE = """
[meta]
name = "{{benchmark}}-{{framework}}"
[[models]]
name = "{{model}}"
[[benchmarks]]
name = {{benchmark}}
"""


def validate(*paths: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trialrun", "validate", *map(str, paths)],
        cwd=cwd, capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )


def test_a_good_suite_is_accepted_without_loading_its_dataset(tmp_path: Path) -> None:
    suite = tmp_path / "good.toml"
    suite.write_text(GOOD, encoding="utf-8")
    done = validate(suite, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 suite file(s): 1 accepted, 0 refused" in done.stdout
    assert "skipped" not in done.stdout + done.stderr
    assert "'num_gpus' is not used by trialrun" in done.stderr  # a warning, not a problem


def test_every_problem_is_one_line_with_file_place_and_fix(tmp_path: Path) -> None:
    suite = tmp_path / "bad.toml"
    suite.write_text(BAD, encoding="utf-8")
    done = validate(suite, cwd=tmp_path)
    assert done.returncode == 2
    problems = [line for line in done.stderr.splitlines() if not line.startswith("warning:")]
    expected = [
        "[defaults]: temperature: must be between 0 and 2",
        "[run]: trials: must be at least 1",
        "[[models]] #1 (m.yaml): engine: unknown engine 'tgi'",
        "[judge]: name: cannot tell the provider of 'nobody-knows'",
        "[[benchmarks]] #1 (supergpqaa): name: unknown benchmark 'supergpqaa'; did you mean "
        "'supergpqa'?",
        "[[benchmarks]] #1 (supergpqaa): backend: unknown backend 'jarvis-magic'",
        "[[benchmarks]] #1 (supergpqaa): tools: unknown tool 'crystal_ball'",
    ]
    for text in expected:
        assert any(line.startswith(f"{suite}: {text}") for line in problems), (text, problems)
    assert len(problems) == len(expected)
    assert "1 refused (7 problem(s))" in done.stdout
    assert "Traceback" not in done.stderr


def test_a_template_gets_one_line(tmp_path: Path) -> None:
    suite = tmp_path / "_template.toml"
    suite.write_text(TEMPLATE, encoding="utf-8")
    done = validate(suite, cwd=tmp_path)
    assert done.returncode == 0
    assert done.stderr.strip() == (
        f"{suite}: a template ({{{{benchmark}}}}, {{{{framework}}}}, {{{{model}}}}); fill in "
        "its placeholders, then validate the suite file it makes"
    )
    assert "0 accepted, 0 refused (0 problem(s)), 1 template(s)" in done.stdout


def test_a_folder_of_suites_is_checked_as_suites(tmp_path: Path) -> None:
    (tmp_path / "configs" / "more").mkdir(parents=True)
    (tmp_path / "configs" / "good.toml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "configs" / "more" / "bad.toml").write_text(BAD, encoding="utf-8")
    done = validate(tmp_path / "configs", cwd=tmp_path)
    assert done.returncode == 2
    assert "2 suite file(s): 1 accepted, 1 refused (7 problem(s)), 0 template(s)" in done.stdout
    assert "valid task(s)" not in done.stdout  # no task loader pass over suite files


def test_openjarvis_framework_config_beside_suites_is_skipped_by_name(tmp_path: Path) -> None:
    """OpenJarvis's configs folder holds `_third_party.toml` ([hermes], [openclaw] paths):
    neither a suite nor a task file."""
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "good.toml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "configs" / "_third_party.toml").write_text(
        '[hermes]\npath = ""\n[openclaw]\npath = ""\n', encoding="utf-8"
    )
    done = validate(tmp_path / "configs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "_third_party.toml: skipped: OpenJarvis framework config" in done.stderr


def test_json_is_one_document(tmp_path: Path) -> None:
    (tmp_path / "good.toml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "bad.toml").write_text(BAD, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "validate", "--json", "good.toml", "bad.toml"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )
    assert done.returncode == 2 and done.stderr == ""
    doc = json.loads(done.stdout)
    assert doc["ok"] is False
    assert [(s["file"], s["ok"], len(s["problems"])) for s in doc["suites"]] == [
        ("good.toml", True, 0), ("bad.toml", False, 7)
    ]
