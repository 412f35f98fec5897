"""`trialrun --version` alone prints the version (the tutorial's first command)."""

from __future__ import annotations

import trialrun
from cli_support import cli_process


def test_version_alone_prints_the_version_and_exits_0() -> None:
    done = cli_process("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{trialrun.__version__}\n" and done.stderr == ""


def test_version_before_a_command_still_wins() -> None:
    done = cli_process("--version", "list")
    assert done.returncode == 0 and done.stdout == f"{trialrun.__version__}\n"
