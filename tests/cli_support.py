"""The one way tests call the `trialrun` CLI: in-process through `trialrun.cli.main` (the
real entry point, its UserError handling included), through typer's runner, or as a
subprocess running this checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

import trialrun
from trialrun.cli import app, main

SRC = str(Path(trialrun.__file__).resolve().parents[1])  # this checkout, from any cwd


def cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """`trialrun ARGS` in-process: (exit code, stdout, stderr); an escaping exception is a
    traceback (re-raised)."""
    old = sys.argv
    sys.argv = ["trialrun", *(str(a) for a in args)]
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = old
    out, err = capsys.readouterr()
    return code, out, err


def invoke(*args: str | Path) -> Result:
    """`trialrun ARGS` through typer's test runner (stdout and stderr kept apart)."""
    return CliRunner().invoke(app, [str(a) for a in args])


def cli_process(
    *args: str | Path,
    cwd: Path | None = None,
    timeout: float = 600,
    env: dict[str, str] | None = None,
    **options: Any,
) -> subprocess.CompletedProcess[str]:
    """`python -m trialrun ARGS` in a subprocess, with this checkout first on the path;
    `env`: the environment (default: this one); `options` go to `subprocess.run`."""
    base = dict(os.environ if env is None else env)  # the caller's dict stays as it is
    base["PYTHONPATH"] = os.pathsep.join([SRC, base.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "trialrun", *(str(a) for a in args)],
        cwd=cwd, env=base, capture_output=True, text=True, timeout=timeout, **options,
    )  # fmt: skip


def assert_one_line_error(code: int, err: str, *needles: str) -> None:
    """A user error: exit 2, one stderr line holding each of `needles`, no traceback."""
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
