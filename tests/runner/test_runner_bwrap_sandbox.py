"""`environment.sandbox: bwrap` puts a task's `--agent-cmd` agent in the jail, and a run
refuses to start where the jail does not work."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

import trialrun
from trialrun.sandbox import jail_available

PROBE = Path("/usr/.trialrun-jail-probe")
AGENT = f"sh -c 'touch {PROBE} 2>/dev/null && echo escaped || echo jailed'"


def _task(tmp_path: Path, sandbox: str) -> Path:
    path = tmp_path / f"{sandbox}.yaml"
    path.write_text(
        f"task_id: probe-{sandbox}\nsuite: golden\ndescription: d\n"
        "inputs: {prompt: p}\n"
        f"environment: {{sandbox: {sandbox}}}\n"
        "graders: [{type: contains, value: jailed}]\n"
        "tracked_metrics: [pass^k]\ntrials: {k: 1}\n"
    )
    return path


@pytest.mark.skipif(not jail_available(), reason="bubblewrap does not work here")
def test_an_agent_command_of_a_bwrap_task_runs_in_the_jail(tmp_path: Path) -> None:
    try:
        jailed = trialrun.run(_task(tmp_path, "bwrap"), agent_cmd=AGENT, out=tmp_path / "a")
        assert [line.solve for line in jailed.results] == [True]
        assert not PROBE.exists()
        if os.geteuid() == 0:  # root can write /usr outside the jail
            free = trialrun.run(_task(tmp_path, "workspace"), agent_cmd=AGENT, out=tmp_path / "b")
            assert [line.solve for line in free.results] == [False]
    finally:
        with contextlib.suppress(OSError):
            PROBE.unlink()


def test_a_bwrap_task_where_the_jail_does_not_work_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRIALRUN_JAIL", "off")  # the jail's off switch: as if bwrap were missing
    with pytest.raises(trialrun.UserError, match="environment.sandbox is bwrap"):
        trialrun.run(_task(tmp_path, "bwrap"), agent_cmd=AGENT, out=tmp_path / "a")
    assert not (tmp_path / "a").exists() or not any((tmp_path / "a").iterdir())
