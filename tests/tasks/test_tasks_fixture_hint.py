"""A fixture folder that is not there: the line names where it looked and what is there
(the nearest name, else the folders, else how to make one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_support import cli_process

TASK = """\
task_id: t
suite: golden
description: d
inputs: {prompt: p}
environment: {fixture: FIXTURE}
graders: [{type: contains, value: x}]
tracked_metrics: [solve^k]
"""


@pytest.mark.parametrize(
    ("present", "named", "hint"),
    [
        (["notes", "inbox"], "note", "; did you mean 'notes'?"),
        (["notes", "inbox"], "zzz", "; the fixtures there: inbox, notes"),
        ([], "notes", "; make the folder fixtures/NAME beside the task file"),
    ],
)
def test_a_missing_fixture_says_what_is_there(
    tmp_path: Path, present: list[str], named: str, hint: str
) -> None:
    for name in present:
        (tmp_path / "fixtures" / name).mkdir(parents=True)
    (tmp_path / "t.yaml").write_text(TASK.replace("FIXTURE", named))
    done = cli_process("validate", "t.yaml", cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith(f"t.yaml:5: environment.fixture: fixture folder '{named}' not "
                               f"found (looked for fixtures/{named}")
    assert hint in lines[0]
