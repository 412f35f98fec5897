"""Every built-in grader kind registers; TrialView carries plain fields, no Task."""

from __future__ import annotations

import dataclasses

from trialrun.graders import GRADERS, TrialView

BUILTIN = {
    "command", "contains", "expectedTools", "fileAbsent", "fileContains", "fileExists",
    "fileLacks", "fileMatches", "fileUnchanged", "forbiddenTools", "frontmatterEquals",
    "judge", "llmRubric", "pairwise", "regex", "toolArgs", "toolCallBudget", "toolOrder",
}  # fmt: skip


def test_every_builtin_grader_is_registered() -> None:
    assert set(GRADERS.names()) >= BUILTIN


def test_trial_view_fields() -> None:
    assert [f.name for f in dataclasses.fields(TrialView)] == [
        "task_id", "user_message", "final_text", "tool_calls", "messages", "workspace",
        "before", "after", "fixture_dir", "turns", "judge", "extra", "conversation",
        "task_timeout_s",
    ]  # fmt: skip
    view = TrialView("t", "do it", "done", [], [], None)
    assert (view.task_id, view.user_message, view.turns, view.judge) == ("t", "do it", 0, None)
