"""Real runs of the example suite with the scripted models: one that fails (bad.yaml,
workspaces kept) and one that mostly solves (good.yaml, workspaces kept)."""

from __future__ import annotations

import pytest
from reports_helpers import EXAMPLES, ExampleRuns, only_new, trialrun


@pytest.fixture(scope="session")
def example_runs(tmp_path_factory: pytest.TempPathFactory) -> ExampleRuns:
    root = tmp_path_factory.mktemp("reports")
    results = root / "results"
    runs = {}
    for name in ("bad", "good"):
        before = set(results.iterdir()) if results.exists() else set()
        trialrun("run", str(EXAMPLES), "--model", f"scripted:{EXAMPLES}/scripts/{name}.yaml",
                 "--keep-artifacts", "--out", str(results), cwd=root)
        runs[name] = only_new(results, before)
    return ExampleRuns(root, results, runs["bad"], runs["good"])
