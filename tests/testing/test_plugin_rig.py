"""The rig (workspace, calls, follow-up turns), provider errors, the session's history
record and `pytest tasks/` items: each through a real pytest run (pytester)."""

from __future__ import annotations

import pytest

from trialrun.history import HistoryStore

BASE = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--eval-model",
        "scripted:agent.yaml"]


def test_rig_workspace_calls_transcript_and_a_follow_up_turn(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", agent="""
tasks:
  test_two_turns:
    - tool_calls: [{name: write_file, arguments: {path: plan.md, content: "step one"}}]
    - content: Wrote plan.md.
    - tool_calls: [{name: append_content, arguments: {path: plan.md, content: "\\nstep two"}}]
    - content: Added step two.
""")
    pytester.makepyfile(test_rig='''
        from trialrun.testing import eval_test

        @eval_test("ALWAYS_PASSES", prompt="Write a plan.", files={"old.md": "x"})
        def test_two_turns(rig, result):
            assert result == "Wrote plan.md."
            assert rig.read("plan.md") == "step one"
            assert rig.exists("old.md") and not rig.exists("nope.md")
            assert rig.diff().created == ["plan.md"] and rig.diff().modified == []
            (call,) = rig.tool_calls
            assert (call.name, call.arguments, call.ok) == (
                "write_file", {"path": "plan.md", "content": "step one"}, True)
            assert "plan.md" in call.result
            assert rig.called("write_file", path="plan.md")
            assert not rig.called("write_file", path="other.md")
            assert rig.transcript.messages[-1]["content"] == "Wrote plan.md."

            assert rig.run("Now add step two.") == "Added step two."
            assert rig.result == "Added step two."
            assert rig.read("plan.md") == "step one\\nstep two"
            assert [c.name for c in rig.tool_calls] == ["write_file", "append_content"]
            assert rig.diff().created == ["plan.md"]
    ''')
    pytester.runpytest(*BASE, "--no-eval-history").assert_outcomes(passed=1)


def test_provider_errors_are_retried_then_skipped(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", agent="default: [{error: infra}]\n")
    pytester.makepyfile(test_down='''
        from trialrun.testing import eval_test

        @eval_test("ALWAYS_PASSES", prompt="hello?")
        def test_down(result):
            raise AssertionError("never reached")
    ''')
    log = pytester.path / "logs"
    result = pytester.runpytest(*BASE, "--no-eval-history", "--eval-log", str(log), "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*provider error on scripted:agent.yaml after 4 attempts*"])
    (folder,) = log.iterdir()
    runs = [p for p in folder.glob("runs-*/*") if (p / "run.json").is_file()]
    assert len(runs) == 4  # the first attempt and 3 retries, every transcript kept


def test_a_bad_model_spec_fails_in_one_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_bad='''
        from trialrun.testing import eval_test

        @eval_test("ALWAYS_PASSES", prompt="hello?")
        def test_bad(result):
            pass
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider", "--no-eval-history",
                                "--eval-model", "scripted:missing.yaml")
    result.assert_outcomes(errors=1)  # the eval could not start: an error, not a verdict
    result.stdout.fnmatch_lines(["*trialrun: *missing.yaml: scripted model file not found*"])
    assert "Traceback" not in result.stdout.str()


def test_the_session_is_recorded_in_the_history(pytester: pytest.Pytester,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUN_EVALS", "1")
    pytester.makefile(".yaml", agent="""
tasks:
  test_good: [{content: "yes"}]
  test_bad: [{content: "no"}]
  test_gap: [{content: "no"}]
""")
    pytester.makepyfile(test_rec='''
        from trialrun.testing import eval_test

        @eval_test("ALWAYS_PASSES", prompt="?", k=2)
        def test_good(result):
            assert result == "yes"

        @eval_test("USUALLY_PASSES", prompt="?")
        def test_bad(result):
            assert result == "yes"

        @eval_test("USUALLY_FAILS", prompt="?")
        def test_gap(result):
            assert result == "yes"

        def test_plain():
            pass
    ''')
    store = pytester.path / "h.db"
    result = pytester.runpytest(*BASE, "--eval-store", str(store), "--eval-trigger", "nightly")
    result.assert_outcomes(passed=3, failed=1, xfailed=1)
    result.stdout.fnmatch_lines(["trialrun: recorded 3 eval(s) × model, 4 trial(s) as pytest-*"
                                 " (nightly) in sqlite:///*h.db"])
    with HistoryStore.open(str(store)) as history:
        (run,) = history.runs()
    assert (run.source, run.trigger, run.models) == ("pytest", "nightly", ["scripted:agent.yaml"])
    got = {o.test_id: (o.policy, o.kind, o.solved, o.trials) for o in run.outcomes}
    assert got == {
        "test_rec.py::test_good": ("ALWAYS_PASSES", "pytest", 2, 2),
        "test_rec.py::test_bad": ("USUALLY_PASSES", "pytest", 0, 1),
        "test_rec.py::test_gap": ("USUALLY_FAILS", "pytest", 0, 1),  # xfail: not solved
    }
    assert {o.source for o in run.outcomes} == {str(pytester.path / "test_rec.py")}


TASKS = {
    "good.yaml": "task_id: good\nsuite: golden\ndescription: d\ninputs: {prompt: say yes}\n"
                 "graders: [{type: contains, value: 'yes'}]\ntracked_metrics: [pass^k]\n"
                 "trials: {k: 2}\n",
    "bad.yaml": "task_id: bad\nsuite: golden\ndescription: d\ninputs: {prompt: say no}\n"
                "graders: [{type: contains, value: 'no'}, {type: expectedTools, tools: "
                "[read_file]}]\ntracked_metrics: [pass^k]\n",
    "later.yaml": "task_id: later\nsuite: open_ended\ndescription: d\n"
                  "inputs: {prompt: say yes}\ngraders: [{type: contains, value: 'yes'}]\n"
                  "tracked_metrics: [pass^k]\n",
}


def test_pytest_collects_task_files_given_on_the_command_line(pytester: pytest.Pytester,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              ) -> None:
    monkeypatch.delenv("RUN_EVALS", raising=False)
    pytester.makefile(".yaml", agent="default: [{content: 'yes'}]\n")
    tasks = pytester.mkdir("tasks")
    for name, text in TASKS.items():
        (tasks / name).write_text(text)
    store = pytester.path / "h.db"
    result = pytester.runpytest("tasks", *BASE, "--eval-store", str(store), "-rs", "-v")
    # open_ended tasks are USUALLY_PASSES by default: skipped without RUN_EVALS
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "*bad on scripted:agent.yaml: solved 0/3; contains failed in 3; expectedTools failed "
        "in 3 (run: *",
        "*later*USUALLY_PASSES eval: runs only with RUN_EVALS=1*",
    ])
    with HistoryStore.open(str(store)) as history:
        (run,) = history.runs()
    got = {o.test_id: (o.kind, o.solved, o.trials) for o in run.outcomes}
    assert got == {"good": ("task", 2, 2), "bad": ("task", 0, 3)}  # golden: k = 3

    # testpaths (no arguments) never collect task files, and the ini switch turns it off
    pytester.makeini("[pytest]\ntestpaths = tasks\n")
    pytester.runpytest(*BASE).assert_outcomes()
    pytester.makeini("[pytest]\ntrialrun_tasks = false\n")
    pytester.runpytest("tasks", *BASE).assert_outcomes()


def test_an_invalid_task_file_is_a_collection_error_naming_the_problem(
    pytester: pytest.Pytester,
) -> None:
    tasks = pytester.mkdir("tasks")
    (tasks / "oops.yaml").write_text(TASKS["good.yaml"].replace("graders", "gradres"))
    result = pytester.runpytest("tasks", "-p", "no:cacheprovider", "--no-eval-history")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*oops.yaml:*gradres*did you mean 'graders'*"])


