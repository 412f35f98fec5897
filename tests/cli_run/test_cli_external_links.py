"""`--allow-external-links` reaches the loader from `validate`, `list` and `run`, and a
resumed run or a regrade loads the tasks the way the run did."""

from __future__ import annotations

import json
import os
from pathlib import Path

from cli_support import cli_process as _trialrun

TASK = """\
task_id: read-leak
suite: golden
description: reads a note
inputs: {prompt: "read leak.md"}
environment: {fixture: fx}
graders: [{type: fileExists, path: leak.md}]
tracked_metrics: [pass^k]
trials: {k: 1}
"""
SCRIPT = "tasks:\n  read-leak:\n    - content: done\n"


def _suite(tmp_path: Path) -> Path:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/secret.md").write_text("outside the suite\n")
    suite = tmp_path / "suite"
    (suite / "fixtures/fx").mkdir(parents=True)
    os.symlink(tmp_path / "outside/secret.md", suite / "fixtures/fx/leak.md")
    (suite / "task.yaml").write_text(TASK)
    (tmp_path / "script.yaml").write_text(SCRIPT)
    return suite


def test_validate_and_list_refuse_an_outside_link_unless_allowed(tmp_path: Path) -> None:
    _suite(tmp_path)
    for command in ("validate", "list"):
        refused = _trialrun(command, "suite", cwd=tmp_path)
        assert refused.returncode == 2 and "--allow-external-links" in refused.stderr
        assert "Traceback" not in refused.stderr
        allowed = _trialrun(command, "suite", "--allow-external-links", cwd=tmp_path)
        assert allowed.returncode == 0, allowed.stderr


def test_run_with_the_flag_copies_the_link_and_regrade_loads_as_the_run_did(
    tmp_path: Path,
) -> None:
    _suite(tmp_path)
    model = ["--model", "scripted:script.yaml", "--out", "out"]
    refused = _trialrun("run", "suite", *model, cwd=tmp_path)
    assert refused.returncode == 2 and "--allow-external-links" in refused.stderr
    done = _trialrun("run", "suite", *model, "--allow-external-links", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (run,) = (tmp_path / "out").iterdir()
    assert json.loads((run / "run.json").read_text())["allow_external_links"] is True
    (line,) = (json.loads(x) for x in (run / "results.jsonl").read_text().splitlines())
    assert line["solve"] is True  # the linked file reached the workspace
    regraded = _trialrun("regrade", str(run), cwd=tmp_path)
    assert regraded.returncode == 0, regraded.stderr
