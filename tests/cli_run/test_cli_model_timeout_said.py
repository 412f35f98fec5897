"""A model call over its time limit fails the trial (`model_timeout` in the end table);
the terminal also says the error's own message once, which names what to change."""

from __future__ import annotations

from pathlib import Path

from cli_support import cli_process

TASK = """\
task_id: slow
suite: golden
description: A model that runs over its per-call limit.
inputs: {prompt: Say hi.}
graders: [{type: contains, value: hi}]
tracked_metrics: [solve^k]
trials: {k: 3}
"""

SCRIPT = "tasks:\n  slow:\n    - {error: timeout}\n"


def test_a_model_timeout_is_said_once_with_its_message(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TASK)
    (tmp_path / "m.yaml").write_text(SCRIPT)
    done = cli_process("run", "t.yaml", "-m", "scripted:m.yaml", "--out", "r", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = [line for line in (done.stdout + done.stderr).splitlines()
            if "scripted model timeout" in line]
    assert len(said) == 1, said  # the first trial to finish says it (4 run at once)
    assert said[0].endswith(": scripted model timeout (turn 0 of m.yaml)"), said
    assert "model_timeout×3" in done.stdout
