"""Re-run a test locally before its policy changes (promote's verify step).

A task file runs through `trialrun.runner.run` (k = the task's own, results in a temp
folder); a pytest test runs in a child pytest with `--run-evals --eval-strict` (a
USUALLY_FAILS test then runs as a plain test) and one `--eval-model` per model.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from trialrun.history._url import ENV_OFF


@dataclass(slots=True)
class Verification:
    ok: bool
    detail: str  # one line: per model solved/trials, or pytest's last line


def verify_task(source: str, test_id: str, models: Sequence[str], target: str) -> Verification:
    # the runner (~50 more modules) only when evals are measured: the history is also
    # imported where no run happens (the pytest plugin's record, promote, lint)
    from trialrun.runner import Filters, RunConfig, run

    with tempfile.TemporaryDirectory(prefix="trialrun-verify-") as out:
        outcome = run(RunConfig(
            tasks=[source],
            models=list(models),
            filters=Filters(task=[test_id]),
            out=out,
            argv=["trialrun", "promote", "--verify", test_id],
            handle_sigint=False,
        ))
    parts, ok = [], True
    for row in outcome.summary.tasks:
        n, solved = row.n, row.solved
        parts.append(f"{row.model} {solved}/{n}")
        good = n > 0 and (solved == n if target == "ALWAYS_PASSES" else 3 * solved >= 2 * n)
        ok = ok and good
    return Verification(ok and bool(parts), ", ".join(parts) or "no trial ran")


def verify_pytest(source: str, test_id: str, models: Sequence[str]) -> Verification:
    names = test_id.split("::")[1:] if "::" in test_id else [test_id]
    node = "::".join([source, *names])
    args = [sys.executable, "-m", "pytest", node, "-q", "-p", "no:cacheprovider",
            "--run-evals", "--eval-strict"]
    for model in models:
        args += ["--eval-model", model]
    env = {**os.environ, ENV_OFF: "off"}
    proc = subprocess.run(args, capture_output=True, text=True, env=env, check=False,
                          cwd=Path.cwd())
    lines = [x for x in proc.stdout.strip().splitlines() if x.strip()]
    last = lines[-1].strip("= ") if lines else (proc.stderr.strip().splitlines() or ["?"])[-1]
    passed = proc.returncode == 0 and "skipped" not in last and "passed" in last
    return Verification(passed, last)
