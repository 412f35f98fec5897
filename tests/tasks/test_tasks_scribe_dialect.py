"""Scribe task files speak JavaScript regexes (issue 10 item 6) and may carry a `rubric`
(item 10); native task files keep Python's dialect."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from tasks_support import write

from trialrun.graders import TrialView, run_grader
from trialrun.tasks import load_tasks


def _scribe(tmp_path: Path, name: str = "t", **fields: Any) -> Path:
    data = {"id": name, "userMessage": "hi", "description": "d", **fields}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def _regex_task(tmp_path: Path, value: Any, flags: str | None = None, kind: str = "regex") -> Path:
    matcher: dict[str, Any] = {"type": kind, "value": value}
    if kind == "fileMatches":
        matcher["path"] = "eval-scratch/a.md"
    if flags is not None:
        matcher["flags"] = flags
    key = "vaultAssertions" if kind == "fileMatches" else "outputMatchers"
    return _scribe(tmp_path, **{key: [matcher]})


def _problems(path: Path) -> dict[str, str]:
    return {p.field: p.message for p in load_tasks([path]).problems}


def _passes(grader: Any, text: str) -> bool | None:
    view = TrialView("t", "hi", text, [], [], None)
    return asyncio.run(run_grader(grader, view)).passed


def _grade_text(path: Path, text: str) -> bool | None:
    [task] = load_tasks([path]).tasks
    [grader] = task.graders
    return _passes(grader, text)


def test_named_group_loads_and_matches(tmp_path: Path) -> None:
    # Seen: "(?<city>Paris)" → "unknown extension ?<c"
    f = _regex_task(tmp_path, "(?<city>Paris)")
    assert _problems(f) == {}
    assert _grade_text(f, "The capital is Paris.") is True
    assert _grade_text(f, "The capital is Rome.") is False


def test_named_backreference(tmp_path: Path) -> None:
    f = _regex_task(tmp_path, [r"(?<word>\w+) \k<word>"])
    assert _problems(f) == {}
    assert _grade_text(f, "it is is doubled") is True
    assert _grade_text(f, "no doubles here") is False


def test_u_and_g_flags_are_accepted_and_dropped(tmp_path: Path) -> None:
    f = _regex_task(tmp_path, "paris", flags="giu")
    assert _problems(f) == {}
    [task] = load_tasks([f]).tasks
    assert task.graders[0].flags == "i"
    assert _grade_text(f, "PARIS") is True


@pytest.mark.parametrize("flag", ["y", "d"])
def test_sticky_and_indices_flags_are_refused(tmp_path: Path, flag: str) -> None:
    f = _regex_task(tmp_path, "x", flags=f"i{flag}")
    got = _problems(f)
    assert list(got) == ["outputMatchers.0.flags"]
    assert f"'{flag}'" in got["outputMatchers.0.flags"]
    assert "\n" not in got["outputMatchers.0.flags"]


def test_unknown_flag_names_the_javascript_flags(tmp_path: Path) -> None:
    got = _problems(_regex_task(tmp_path, "x", flags="iq"))
    assert "'q'" in got["outputMatchers.0.flags"]


@pytest.mark.parametrize("pattern", ["(?i)paris", "(?i:paris)", "(?-i:x)", "(?ms)^a.b$"])
def test_inline_flags_are_refused_with_the_flags_hint(tmp_path: Path, pattern: str) -> None:
    # Seen: "(?i)paris" accepted; the Scribe page says JS has no inline flags: use `flags`.
    got = _problems(_regex_task(tmp_path, pattern))
    assert list(got) == ["outputMatchers.0.value"]
    message = got["outputMatchers.0.value"]
    assert pattern in message and '"flags"' in message


def test_inline_flags_in_a_list_point_at_the_item(tmp_path: Path) -> None:
    got = _problems(_regex_task(tmp_path, ["ok", "(?i)bad"], kind="fileMatches"))
    assert list(got) == ["vaultAssertions.0.value.1"]
    assert "(?i)bad" in got["vaultAssertions.0.value.1"]


def test_bad_js_regex_names_the_original_pattern(tmp_path: Path) -> None:
    got = _problems(_regex_task(tmp_path, "(?<n>unclosed"))
    assert list(got) == ["outputMatchers.0.value"]
    assert "'(?<n>unclosed'" in got["outputMatchers.0.value"]
    assert "?P<" not in got["outputMatchers.0.value"]


def test_lookbehind_and_class_contents_stay_as_written(tmp_path: Path) -> None:
    f = _regex_task(tmp_path, [r"(?<=\$)\d+", r"[(?<]x", r"\(?<y"])
    assert _problems(f) == {}
    assert _grade_text(f, "costs $42") is True
    assert _grade_text(f, "<x") is True
    assert _grade_text(f, "(<y") is True
    assert _grade_text(f, "nothing") is False


def test_file_matches_translates_too(tmp_path: Path) -> None:
    f = _regex_task(tmp_path, r"budget: (?<n>\d+)\/month", kind="fileMatches")
    assert _problems(f) == {}


def test_python_only_syntax_is_refused_in_scribe_files(tmp_path: Path) -> None:
    got = _problems(_regex_task(tmp_path, "(?P<city>Paris)"))
    assert "(?<name>" in got["outputMatchers.0.value"]


def test_native_files_keep_python_dialect(tmp_path: Path) -> None:
    f = write(
        tmp_path / "n.yaml",
        """
        task_id: n
        suite: golden
        description: d
        inputs: {prompt: hi}
        graders:
          - {type: regex, value: "(?i)(?P<city>paris)"}
        tracked_metrics: [pass^k]
        """,
    )
    report = load_tasks([f])
    assert report.problems == []
    [grader] = report.tasks[0].graders
    assert _passes(grader, "PARIS") is True
    bad = write(
        tmp_path / "m.yaml",
        f.read_text().replace("n\n", "m\n", 1).replace("(?i)(?P<city>paris)", "(?<city>paris)"),
    )
    assert [p.field for p in load_tasks([bad]).problems] == ["graders.0.value"]


# --- rubric (item 10) ---


def test_rubric_becomes_a_judge_over_the_final_answer(tmp_path: Path) -> None:
    f = _scribe(
        tmp_path,
        rubric="Names the three overdue books and nothing else.",
        outputMatchers=[{"type": "contains", "value": "book"}],
    )
    report = load_tasks([f])
    assert report.problems == []
    [task] = report.tasks
    kinds = [g.type for g in task.graders]
    assert kinds == ["contains", "judge"]
    judge = task.graders[-1]
    assert judge.criteria == "Names the three overdue books and nothing else."
    assert judge.name == "rubric"


def test_rubric_alone_is_a_check(tmp_path: Path) -> None:
    f = _scribe(tmp_path, rubric="Polite and correct.")
    report = load_tasks([f])
    assert report.problems == []
    assert [g.type for g in report.tasks[0].graders] == ["judge"]


@pytest.mark.parametrize("value", ["", "   ", 3, ["a"]])
def test_bad_rubric_is_a_problem_at_its_key(tmp_path: Path, value: Any) -> None:
    f = _scribe(tmp_path, rubric=value, forbiddenTools=[])
    got = _problems(f)
    assert "rubric" in got, got
    assert "\n" not in got["rubric"]


def test_non_string_flags_are_a_problem_not_a_crash(tmp_path: Path) -> None:
    got = _problems(_regex_task(tmp_path, "(?<a>x)", flags=3))  # type: ignore[arg-type]
    assert list(got) == ["outputMatchers.0.flags"]
    assert "string" in got["outputMatchers.0.flags"]
