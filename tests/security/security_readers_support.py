"""A finished run folder to damage (the CLI in-process is `cli_support.cli`).

`finished_run` makes a real run with the scripted model: one task, two models (one right,
one wrong, so there are failed trials to triage and import), k = 3, and a baseline
blessed from it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from trialrun.cli import main

TASK = """
task_id: read-a
suite: golden
tier: T1
description: read a note and answer
inputs: {prompt: What is the secret word in note.md?}
environment: {fixture: basic}
graders:
  - {type: expectedTools, tools: [read_file]}
  - {type: contains, value: pineapple}
tracked_metrics: [pass^k]
"""
RIGHT = """
default:
  - tool_calls: [{name: read_file, arguments: {path: note.md}}]
  - content: The secret word is pineapple.
"""
WRONG = """
default:
  - tool_calls: [{name: read_file, arguments: {path: note.md}}]
  - content: The secret word is banana.
"""


def finished_run(root: Path) -> dict[str, Path]:
    """A finished run under `root` and a baseline blessed from it: {"run", "baseline",
    "suite"}. The run is made through the CLI, as a user makes one."""
    suite = root / "suite"
    (suite / "fixtures" / "basic").mkdir(parents=True)
    (suite / "fixtures" / "basic" / "note.md").write_text("The secret word is pineapple.\n")
    (suite / "read-a.yaml").write_text(TASK)
    (root / "right.yaml").write_text(RIGHT)
    (root / "wrong.yaml").write_text(WRONG)
    code = _main("run", suite, "-m", f"scripted:{root / 'right.yaml'}",
                 "-m", f"scripted:{root / 'wrong.yaml'}", "-k", "3",
                 "--out", root / "out", "--json")
    assert code in (0, 1)  # 1: the wrong model failed its trials
    (run,) = (root / "out").iterdir()
    assert _main("bless", run, "--baselines", root / "baselines") == 0
    (baseline, *_) = sorted((root / "baselines").iterdir())
    return {"run": run, "baseline": baseline, "suite": suite}


def _main(*args: str | Path) -> int:
    old = sys.argv
    sys.argv = ["trialrun", *(str(a) for a in args)]
    try:
        main()
        return 0
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = old


def one_line(code: int, err: str) -> str:
    """The one stderr line of a refusal (exit 2, no traceback)."""
    assert "Traceback" not in err, err
    assert code == 2, (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("trialrun: "), lines[0]
    return lines[0]
