"""Every kind of problem: one line `path:line: field: message`, exact lines, did-you-mean."""

from __future__ import annotations

import json
from pathlib import Path

from tasks_support import BASE_YAML, write

from trialrun.tasks import LoadReport, load_tasks


def lines(report: LoadReport) -> list[str]:
    return [str(p) for p in report.problems]


def one(report: LoadReport) -> tuple[int | None, str, str]:
    assert len(report.problems) == 1, lines(report)
    p = report.problems[0]
    return p.line, p.field, p.message




def test_unknown_top_level_key_did_you_mean(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", BASE_YAML + "trails: {k: 2}\n")
    line, field, message = one(load_tasks([f]))
    assert (line, field) == (10, "trails")
    assert message == (
        "unknown key 'trails'; did you mean 'trials'? (see docs/reference/tasks.md#trials)"
    )
    assert str(load_tasks([f]).problems[0]) == f"{f}:10: trails: {message}"


def test_unknown_nested_grader_key_did_you_mean(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.yaml",
        BASE_YAML.replace("    value: hi\n", "    value: hi\n    caseSensitve: false\n"),
    )
    line, field, message = one(load_tasks([f]))
    assert (line, field) == (9, "graders.0.caseSensitve")
    assert "did you mean 'caseSensitive'?" in message


def test_unknown_key_deep_in_environment(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", BASE_YAML + "environment:\n  budgets:\n    max_turn: 3\n")
    line, field, message = one(load_tasks([f]))
    assert (line, field) == (12, "environment.budgets.max_turn")
    assert "did you mean 'max_turns'?" in message


def test_unknown_grader_type_did_you_mean(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", BASE_YAML.replace("type: contains", "type: contians"))
    line, field, message = one(load_tasks([f]))
    assert (line, field) == (7, "graders.0.type")
    assert message == (
        "unknown grader type 'contians'; did you mean 'contains'? "
        "(see docs/reference/tasks.md#graders)"
    )


def test_wrong_type_and_missing_field(tmp_path: Path) -> None:
    text = BASE_YAML.replace("description: d\n", "").replace("value: hi", "value: 3")
    f = write(tmp_path / "t.yaml", text + "trials:\n  k: three\n")
    out = lines(load_tasks([f]))
    assert out == [
        f"{f}:1: description: required key is missing (see docs/reference/tasks.md#description)",
        f"{f}:7: graders.0.value: input should be a valid string or a valid list (got 3) "
        "(see docs/reference/tasks.md#grader-contains)",
        # counts are strict: a string is never read as a number
        f"{f}:10: trials.k: input should be a valid integer (got 'three') "
        "(see docs/reference/tasks.md#trials-k)",
    ]


def test_missing_grader_field_points_at_the_grader(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.yaml",
        BASE_YAML.replace(
            "  - type: contains\n    value: hi\n",
            "  - type: contains\n    value: hi\n  - type: fileContains\n    value: x\n",
        ),
    )
    line, field, message = one(load_tasks([f]))
    assert (line, field) == (9, "graders.1.path")
    assert message == "required key is missing (see docs/reference/tasks.md#grader-filecontains)"


def test_bad_literal_suggests(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", BASE_YAML.replace("suite: golden", "suite: goldn"))
    line, field, message = one(load_tasks([f]))
    assert (line, field) == (2, "suite")
    assert message.endswith("did you mean 'golden'? (see docs/reference/tasks.md#suite)")


def test_bad_regex_in_regex_grader_list_item(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.yaml",
        BASE_YAML.replace(
            "  - type: contains\n    value: hi\n",
            "  - type: contains\n    value: hi\n  - type: regex\n    value:\n      - ok\n"
            "      - '(unclosed'\n",
        ),
    )
    line, field, message = one(load_tasks([f]))
    assert (line, field) == (12, "graders.1.value.1")
    assert "regex" in message and "(unclosed" in message


def test_bad_regex_in_file_matches_and_tool_args(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.yaml",
        BASE_YAML.replace(
            "  - type: contains\n    value: hi\n",
            "  - type: fileMatches\n    path: a.md\n    value: '[a-'\n"
            "  - type: toolArgs\n    tool: read_file\n    args:\n      path: {regex: '*x'}\n",
        ),
    )
    out = load_tasks([f]).problems
    assert [(p.line, p.field) for p in out] == [
        (9, "graders.0.value"),
        (13, "graders.1.args.path.regex"),
    ]
    assert "'*x'" in out[1].message and "nothing to repeat" in out[1].message


def test_empty_graders(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.yaml",
        BASE_YAML.replace("graders:\n  - type: contains\n    value: hi\n", "graders: []\n"),
    )
    line, field, message = one(load_tasks([f]))
    assert (line, field) == (6, "graders") and "at least one" in message


def test_missing_fixture_folder(tmp_path: Path) -> None:
    f = write(tmp_path / "sub/t.yaml", BASE_YAML + "environment:\n  fixture: nowhere\n")
    line, field, message = one(load_tasks([f]))
    assert (line, field) == (11, "environment.fixture")
    assert "fixture folder 'nowhere' not found" in message
    assert str(tmp_path / "sub/fixtures/nowhere") in message
    assert str(tmp_path / "fixtures/nowhere") in message


def test_missing_fixture_reported_alongside_other_problems(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.yaml",
        BASE_YAML.replace("suite: golden", "suite: 3") + "environment:\n  fixture: nowhere\n",
    )
    assert [p.field for p in load_tasks([f]).problems] == ["suite", "environment.fixture"]


def test_missing_setup_file_and_unchanged_fixture_file(tmp_path: Path) -> None:
    write(tmp_path / "fixtures/fx/a.md", "a\n")
    f = write(
        tmp_path / "t.yaml",
        BASE_YAML.replace(
            "    value: hi\n",
            "    value: hi\n  - type: fileUnchanged\n    path: a.md\n    fixture: missing.md\n",
        )
        + "environment:\n  fixture: fx\n  setup:\n    - path: x.md\n      from: _seed/none.md\n",
    )
    out = load_tasks([f]).problems
    assert [(p.line, p.field) for p in out] == [
        (11, "graders.1.fixture"),
        (17, "environment.setup.0.from"),
    ]
    assert "'missing.md' not found" in out[0].message
    assert "setup file '_seed/none.md' not found" in out[1].message


def test_file_unchanged_without_fixture(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.yaml",
        BASE_YAML.replace(
            "    value: hi\n", "    value: hi\n  - {type: fileUnchanged, path: a, fixture: a}\n"
        ),
    )
    line, field, message = one(load_tasks([f]))
    assert (line, field) == (9, "graders.1.fixture") and "fixture" in message


def test_syntax_errors_with_lines(tmp_path: Path) -> None:
    y = write(tmp_path / "a.yaml", "task_id: x\nsuite: [golden\ndescription: d\n")
    j = write(tmp_path / "b.json", '{\n  "task_id": "x",\n  "suite": golden\n}\n')
    t = write(tmp_path / "c.toml", 'task_id = "x"\n\nsuite = golden\n')
    report = load_tasks([tmp_path])
    got = {p.path.name: (p.line, p.message.split(":")[0]) for p in report.problems}
    assert got["a.yaml"][1] == "YAML syntax error" and got["a.yaml"][0] in (3, 4)
    assert got["b.json"] == (3, "JSON syntax error")
    assert got["c.toml"] == (3, "TOML syntax error")
    assert set(report.invalid_files) == {y, j, t}


def test_duplicate_yaml_key_is_a_problem(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", BASE_YAML + "suite: adversarial\n")
    line, _, message = one(load_tasks([f]))
    assert line == 10 and "duplicate" in message


def test_one_bad_file_does_not_hide_others(tmp_path: Path) -> None:
    write(
        tmp_path / "a.yaml",
        BASE_YAML.replace("task_id: t", "task_id: a").replace("suite: golden", "suite: nope"),
    )
    write(tmp_path / "b.yaml", BASE_YAML.replace("task_id: t", "task_id: b"))
    write(
        tmp_path / "c.yaml",
        BASE_YAML.replace("task_id: t", "task_id: c").replace("type: contains", "type: bogus"),
    )
    report = load_tasks([tmp_path])
    assert [p.path.name for p in report.problems] == ["a.yaml", "c.yaml"]
    assert [t.task_id for t in report.tasks] == ["b"]


def test_json_lines_for_nested_keys(tmp_path: Path) -> None:
    data = {
        "task_id": "j",
        "suite": "golden",
        "description": "d",
        "inputs": {"prompt": "p"},
        "graders": [
            {"type": "contains", "value": "x"},
            {"type": "fileContains", "path": "a", "value": "x", "caseSensitve": True},
        ],
        "tracked_metrics": ["pass^k"],
    }
    f = write(tmp_path / "t.json", json.dumps(data, indent=2))
    expected_line = json.dumps(data, indent=2).splitlines().index('      "caseSensitve": true') + 1
    line, field, message = one(load_tasks([f]))
    assert (line, field) == (expected_line, "graders.1.caseSensitve")
    assert "did you mean 'caseSensitive'?" in message


def test_toml_lines_for_keys_tables_and_inline_items(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.toml",
        """
        task_id = "t"
        suite = "golden"
        description = "d"
        tracked_metrics = ["pass^k"]
        [inputs]
        prompt = "p"
        context_files = "notes.md"
        [[graders]]
        type = "contains"
        value = "x"
        [[graders]]
        type = "regex"
        value = [
          "ok",
          "(bad",
        ]
        [environment]
        budgets = { max_turns = 0 }
        """,
    )
    out = load_tasks([f]).problems
    assert [(p.line, p.field) for p in out] == [
        (7, "inputs.context_files"),
        (15, "graders.1.value.1"),
        (18, "environment.budgets.max_turns"),
    ]


def test_scribe_problems_use_scribe_paths(tmp_path: Path) -> None:
    data = {
        "id": "other-name",
        "description": "d",
        "userMessage": "u",
        "maxTurn": 3,
        "outputMatchers": [{"type": "contain", "value": "x"}],
        "vaultAssertions": [
            {"type": "fileExists", "path": "a"},
            {"type": "fileContains", "path": "a", "value": "x"},
            {"type": "fileLacks", "path": "a"},
            {"type": "fileContains", "path": "a", "value": "x", "caseSensitve": False},
            {"type": "regex", "value": "x"},
        ],
        "setup": [{"path": "A.md", "from": "_seed/none/AGENTS.md"}],
    }
    text = json.dumps(data, indent=2)
    f = write(tmp_path / "s.json", text)
    src = text.splitlines()

    def line_of(snippet: str, nth: int = 0) -> int:
        return [i for i, s in enumerate(src, 1) if snippet in s][nth]

    out = {p.field: (p.line, p.message) for p in load_tasks([f]).problems}
    assert out["id"] == (
        2,
        "id 'other-name' must equal the file name without .json ('s') "
        "(see docs/reference/tasks.md#scribe-id)",
    )
    assert (
        out["maxTurn"][0] == line_of('"maxTurn"') and "did you mean 'maxTurns'" in out["maxTurn"][1]
    )
    assert "did you mean 'contains'?" in out["outputMatchers.0.type"][1]
    assert out["vaultAssertions.2.value"] == (
        line_of('"fileLacks"') - 1,
        "required key is missing (see docs/reference/tasks.md#scribe-vaultassertions)",
    )
    assert "did you mean 'caseSensitive'?" in out["vaultAssertions.3.caseSensitve"][1]
    assert "not a vault assertion" in out["vaultAssertions.4.type"][1]
    assert out["setup.0.from"][0] == line_of('"from"')


def test_scribe_without_checks_is_empty_graders(tmp_path: Path) -> None:
    f = write(tmp_path / "s.json", json.dumps({"id": "s", "description": "d", "userMessage": "u"}))
    _, field, message = one(load_tasks([f]))
    assert "no checks" in message


def test_unknown_tool_is_a_warning_not_a_problem(tmp_path: Path) -> None:
    f = write(
        tmp_path / "t.yaml",
        BASE_YAML.replace(
            "    value: hi\n",
            "    value: hi\n  - type: forbiddenTools\n    tools: [delete_file, google_search]\n"
            "  - {type: toolArgs, tool: fetch_url, args: {}}\n",
        ),
    )
    report = load_tasks([f])
    assert report.problems == [] and len(report.tasks) == 1
    out = [str(w) for w in report.warnings]
    assert out == [
        f"{f}:10: graders.1.tools.1: warning: tool 'google_search' is not provided by "
        "trialrun's vault pack (a call to it can never happen)",
        f"{f}:11: graders.2.tool: warning: tool 'fetch_url' is not provided by "
        "trialrun's vault pack (a call to it can never happen)",
    ]


def test_scribe_unknown_tool_warning_uses_scribe_path(tmp_path: Path) -> None:
    f = write(
        tmp_path / "s.json",
        json.dumps(
            {
                "id": "s",
                "description": "d",
                "userMessage": "u",
                "expectedTools": ["read_file", "deep_research"],
            },
            indent=2,
        ),
    )
    report = load_tasks([f])
    assert report.problems == []
    [w] = report.warnings
    assert (w.field, w.line) == ("expectedTools.1", 7)


def test_junk_top_level_shapes(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", "")
    write(tmp_path / "b.yaml", "42\n")
    write(tmp_path / "c.json", "[]")
    write(tmp_path / "d.yaml", "- 1\n- 2\n")
    report = load_tasks([tmp_path])
    msgs = {p.path.name: p.message for p in report.problems}
    assert "empty file" in msgs["a.yaml"]
    assert "got int" in msgs["b.yaml"]
    assert "empty list" in msgs["c.json"]
    assert "a task must be a mapping" in msgs["d.yaml"]
    assert report.tasks == []
