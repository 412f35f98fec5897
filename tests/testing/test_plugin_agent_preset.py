"""`@eval_test(..., agent="gemini-cli")` runs the real gemini-cli in the rig (pytester);
skipped, saying why, only when it is not installed and npm cannot install it."""

from __future__ import annotations

import pytest

from trialrun.agents import find_binary, get_preset, npm_install
from trialrun.errors import UserError

BASE = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--eval-model",
        "scripted:agent.yaml", "--no-eval-history"]


def test_eval_test_runs_the_real_gemini_cli_and_the_rig_sees_its_calls(
    pytester: pytest.Pytester,
) -> None:
    preset = get_preset("gemini-cli")
    if find_binary(preset) is None:
        try:
            npm_install(preset)
        except UserError as exc:
            pytest.skip(f"gemini-cli is not installed and npm could not install it: {exc}")
    pytester.makefile(".yaml", agent="""
default:
  - tool_calls: [{name: write_file, arguments: {file_path: note.md, content: buy milk}}]
  - content: Created note.md.
""")
    pytester.makepyfile(test_gemini='''
        from trialrun.testing import eval_test

        @eval_test("ALWAYS_PASSES", agent="gemini-cli", prompt="Create note.md: buy milk.")
        def test_note(rig, result):
            assert result == "Created note.md."
            assert rig.read("note.md") == "buy milk"
            assert rig.called("write_file", file_path="note.md")
            assert [c.name for c in rig.tool_calls] == ["write_file"]
            assert "agent: gemini-cli" in rig.describe()
    ''')
    pytester.runpytest(*BASE).assert_outcomes(passed=1)


def test_eval_test_refuses_an_empty_agent(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_empty='''
        from trialrun.testing import eval_test

        @eval_test("ALWAYS_PASSES", agent=" ", prompt="hi")
        def test_x(rig):
            pass
    ''')
    result = pytester.runpytest(*BASE)
    assert "agent=' '): give a preset name" in result.stdout.str() + result.stderr.str()
