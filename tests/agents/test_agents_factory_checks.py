"""--agent-cmd naming a program that is not installed fails at once, not once per trial."""

import sys

import pytest

from trialrun.agents.factory import check_command, make_agent
from trialrun.errors import UserError


@pytest.mark.parametrize(
    "cmd",
    [
        "no-such-program-qa3 --prompt {prompt}",
        "FOO=1 BAR=2 no-such-program-qa3 {prompt}",
    ],
)
def test_missing_program_is_a_user_error(cmd):
    with pytest.raises(UserError, match=r"^--agent-cmd .*'no-such-program-qa3' not found on PATH"):
        make_agent(None, cmd)


@pytest.mark.parametrize(
    "cmd",
    [
        f"{sys.executable} agent.py {{prompt}}",  # an absolute path
        "./agent.sh {prompt}",  # relative: resolved inside the workspace, not checked here
        "echo {prompt}",
        "X=1 sh -c 'echo hi'",
        "cd sub && my-agent {prompt}",  # a shell builtin first
        "{workspace}/agent {prompt}",
    ],
)
def test_runnable_or_uncheckable_commands_pass(cmd):
    check_command(cmd)
    assert make_agent(None, cmd) is not None


def test_unbalanced_quotes_are_a_user_error():
    with pytest.raises(UserError, match="check the quotes"):
        check_command("my-agent 'unclosed {prompt}")
