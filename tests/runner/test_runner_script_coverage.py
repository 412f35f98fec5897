"""A scripted model without turns for a task (and no `default`) answers nothing there; the
run warns before it starts, naming the task and the nearest id in the script."""

from __future__ import annotations

from pathlib import Path

import trialrun

TASK = """\
task_id: trip-hotel
suite: golden
description: Name the hotel.
inputs: {prompt: Which hotel?}
graders: [{type: contains, value: Casa}]
tracked_metrics: [solve^k]
trials: {k: 3}
"""


def _run(tmp_path: Path, script: str) -> list[str]:
    (tmp_path / "t.yaml").write_text(TASK)
    (tmp_path / "m.yaml").write_text(script)
    run = trialrun.run([tmp_path / "t.yaml"], [f"scripted:{tmp_path / 'm.yaml'}"],
                       out=tmp_path / "results")
    return [w for w in run.warnings if "the script has no turns" in w]


def test_a_task_the_script_misses_is_named_with_the_nearest_id(tmp_path: Path) -> None:
    said = _run(tmp_path, "tasks:\n  trip-hotels:\n    - content: Casa\n")
    assert len(said) == 1
    assert "no turns for task 'trip-hotel' and no `default`" in said[0]
    assert "did you mean 'trip-hotels'?" in said[0]


def test_a_script_with_the_task_or_a_default_is_quiet(tmp_path: Path) -> None:
    assert _run(tmp_path, "tasks:\n  trip-hotel:\n    - content: Casa\n") == []
    assert _run(tmp_path, "default:\n  - content: Casa\n") == []
