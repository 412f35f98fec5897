"""examples/pytest/test_behaviour.py under both policies, with the scripted model."""

from __future__ import annotations

import pytest

MODEL = ["--eval-model", "scripted:agent.yaml", "-p", "no:cacheprovider",
         "-p", "no:hypothesispytest", "--no-eval-history"]


def test_without_run_evals_only_always_passes_runs(example: pytest.Pytester) -> None:
    result = example.runpytest(*MODEL, "-rs")
    result.assert_outcomes(passed=1, skipped=3)
    result.stdout.fnmatch_lines([
        "*USUALLY_PASSES eval: runs only with RUN_EVALS=1 or pytest --run-evals*",
        "*USUALLY_FAILS eval: runs only with RUN_EVALS=1 or pytest --run-evals*",
    ])


@pytest.mark.parametrize("how", ["env", "flag"])
def test_with_run_evals_all_run_and_a_failure_shows_the_tool_calls(
    example: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "env":
        monkeypatch.setenv("RUN_EVALS", "1")
    args = [*MODEL] + (["--run-evals"] if how == "flag" else [])
    result = example.runpytest(*args)
    result.assert_outcomes(passed=2, failed=1, xfailed=1)
    result.stdout.fnmatch_lines([
        "*test_never_deletes*",
        "*trialrun eval: tool calls and final answer*",
        "model: scripted:agent.yaml",
        "tool calls (2):",
        '  1. list_files({"path": ""}) [[]ok[]] -> keep.md',
        '  2. delete_file({"path": "keep.md"}) [[]ok[]] -> Deleted keep.md',
        "final answer: 'Listed (and tidied up).'",
    ])
    assert "test_reads_the_note" not in "\n".join(
        line for line in result.outlines if "tool calls (" in line)


def test_eval_policy_views(example: pytest.Pytester) -> None:
    always = example.runpytest(*MODEL, "--run-evals", "--eval-policy", "always")
    always.assert_outcomes(passed=1, deselected=3)
    usually = example.runpytest(*MODEL, "--run-evals", "--eval-policy", "usually")
    usually.assert_outcomes(passed=1, failed=1, xfailed=1, deselected=1)


def test_eval_k_and_models_make_one_item_each(example: pytest.Pytester) -> None:
    (example.path / "other.yaml").write_text((example.path / "agent.yaml").read_text())
    result = example.runpytest(*MODEL, "--eval-model", "scripted:other.yaml", "--eval-k", "2",
                               "--eval-policy", "always", "-v")
    result.assert_outcomes(passed=4, deselected=12)
    result.stdout.fnmatch_lines([
        "*test_reads_the_note?scripted:agent.yaml-0? PASSED*",
        "*test_reads_the_note?scripted:agent.yaml-1? PASSED*",
        "*test_reads_the_note?scripted:other.yaml-0? PASSED*",
        "*test_reads_the_note?scripted:other.yaml-1? PASSED*",
    ])


def test_usually_fails_that_passes_is_xpass_and_strict_runs_it_plain(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".yaml", agent="tasks:\n  test_gap: [{content: '42'}]\n")
    pytester.makepyfile(test_gap='''
        from trialrun.testing import eval_test

        @eval_test("USUALLY_FAILS", prompt="answer?")
        def test_gap(result):
            assert result == "42"
    ''')
    pytester.runpytest(*MODEL, "--run-evals").assert_outcomes(xpassed=1)
    pytester.runpytest(*MODEL, "--run-evals", "--eval-strict").assert_outcomes(passed=1)


def test_unknown_policy_is_a_clear_collection_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_bad='''
        from trialrun.testing import eval_test

        @eval_test("SOMETIMES", prompt="x")
        def test_x(rig):
            pass
    ''')
    result = pytester.runpytest(*MODEL)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*unknown policy; use one of ALWAYS_PASSES, USUALLY_PASSES*"])
