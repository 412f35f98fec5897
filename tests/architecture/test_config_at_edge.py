"""Configuration is resolved once, at the edge (issue 29 item 3): only an entry point —
the CLI, the pytest plugin, or a public library entry that takes `config=None` — looks
for trialrun.toml (`load_config` / `find_config`); everything below it receives the
`ProjectConfig` (or what it needs of it) as an argument."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "trialrun"
READERS = {"load_config", "find_config"}

# where a run, a command or a public call begins: each resolves the file once, passes it on
ENTRY_POINTS = {
    "cli",  # every command (the CLI is the outermost edge)
    "testing/_plugin.py",
    "testing/_identity.py",  # the plugin's run identity: which trialrun.toml is in force
    "workflow/_run.py",  # trialrun.run(): RunConfig.project, else found here once
    "workflow/_tracking.py",  # trialrun.bless / compare / gate / report(config=None)
    "runner/_run.py",  # runner.run_async (the runner alone): the same, for direct callers
    "benchmarks/_runner.py",  # run_benchmark / run_pairs(project=None)
    "analysis/_regrade.py",  # regrade(config=None)
    "analysis/_calibrate.py",  # calibrate_model(config=None)
    "tasks/_loader.py",  # load_tasks(config=None)
}

# KNOWN DEBT, to convert next (then delete the line: a stale entry fails the test below).
# Empty since the fifteen modules of issue 29 were converted; a new reader below the entry
# points fails the first test rather than joining this set.
KNOWN_DEBT: set[str] = set()


def _readers() -> dict[str, int]:
    """Module (relative to src/trialrun) → how many calls that look for trialrun.toml."""
    found: dict[str, int] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel == "config.py":  # where load_config lives
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in READERS:
                found[rel] = found.get(rel, 0) + 1
    return found


def _is_entry(module: str) -> bool:
    return module in ENTRY_POINTS or module.split("/")[0] in ENTRY_POINTS


def test_only_entry_points_look_for_the_config_file() -> None:
    wrong = sorted(m for m in _readers() if not _is_entry(m) and m not in KNOWN_DEBT)
    assert wrong == [], f"receive a ProjectConfig instead of reading trialrun.toml: {wrong}"


def test_the_known_debt_list_only_shrinks() -> None:
    """A module converted leaves the list: a stale entry would hide a new reader there."""
    stale = sorted(KNOWN_DEBT - set(_readers()))
    assert stale == [], f"no longer reads trialrun.toml; delete from KNOWN_DEBT: {stale}"


def test_the_runner_reads_it_once() -> None:
    """run_async resolves RunConfig.project once; nothing else in the runner looks."""
    readers = _readers()
    assert readers.get("runner/_run.py") == 1
    assert not [m for m in readers if m.startswith("runner/") and m != "runner/_run.py"]
