"""An empty `--agent-cmd ''` (or whitespace) is refused in one line, exit 2, instead of being
silently ignored for the built-in loop (trialrun issue 15 item 10). The same for `--agent`."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_support import cli


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--agent-cmd", ""), ("--agent-cmd", "   \t"), ("--agent", ""), ("--agent", " ")],
)
def test_empty_agent_is_refused_and_nothing_runs(
    suite: Path, tmp_path: Path, capsys, flag: str, value: str
) -> None:
    out = tmp_path / "out"
    good = f"scripted:{suite / 'good.yaml'}"
    code, stdout, err = cli(capsys, "run", suite, "-m", good, "--out", out, flag, value)
    assert code == 2 and stdout == ""
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert f"{flag}: empty" in lines[0]
    assert not out.exists()


@pytest.mark.parametrize("option", ["agent", "agent_cmd"])
def test_the_python_api_refuses_an_empty_agent_too(option: str, tmp_path: Path) -> None:
    import trialrun

    with pytest.raises(trialrun.UserError, match="empty"):
        trialrun.run(tmp_path, **{option: " "})
