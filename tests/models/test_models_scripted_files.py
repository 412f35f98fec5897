"""A scripted-model file that is not UTF-8 is one line naming the file and line, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from trialrun.errors import UserError
from trialrun.models import create_model

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        (bytes(range(128, 256)) * 3, ":1: not UTF-8 text (byte 0)"),
        ('tasks:\n  x: [{content: "café"}]\n'.encode("latin-1"), ":2: not UTF-8 text (byte 27)"),
    ],
    ids=["random bytes", "latin-1"],
)
def test_bytes_that_are_not_utf8_are_one_line(tmp_path: Path, raw: bytes, needle: str) -> None:
    path = tmp_path / "script.yaml"
    path.write_bytes(raw)
    with pytest.raises(UserError) as info:
        create_model(f"scripted:{path}")
    message = str(info.value)
    assert message.startswith(f"{path}{needle}") and "saved as UTF-8" in message
    assert "\n" not in message


def test_the_cli_says_it_in_one_line(tmp_path: Path) -> None:
    script = tmp_path / "random.yaml"
    script.write_bytes(os.urandom(64).replace(b"\n", b"") + b"\xff")
    task = tmp_path / "t.yaml"
    task.write_text(
        "task_id: t\nsuite: golden\ndescription: d\ninputs: {prompt: hi}\n"
        "graders: [{type: contains, value: x}]\ntracked_metrics: [pass^k]\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(task), "-m", f"scripted:{script}",
         "--out", str(tmp_path / "out")],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(SRC)},
        cwd=tmp_path, timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"trialrun: {script}:1: not UTF-8 text")
    assert not (tmp_path / "out").exists()
