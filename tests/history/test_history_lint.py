"""`trialrun lint` covers task files (trialrun issue 25, items 2 and 7): YAML, JSON and TOML
tasks written ALWAYS_PASSES without a promotion record, a golden task marked
USUALLY_PASSES (a contradiction: a golden regression blocks merge whatever the policy),
and a task file it cannot read, each one line naming the file, the line and the fix."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from trialrun.history import HistoryStore, lint

CONTRADICTION = (
    "policy USUALLY_PASSES contradicts suite golden (a golden regression blocks merge "
    "whatever the policy); fix the task and set policy: ALWAYS_PASSES, or move it out of "
    "the golden suite"
)


def _yaml(task_id: str, suite: str, policy: str | None) -> str:
    written = f"policy: {policy}\n" if policy else ""
    return (
        f"task_id: {task_id}\nsuite: {suite}\ndescription: d\n{written}"
        "inputs: {prompt: hi}\ngraders: [{type: contains, value: x}]\n"
        "tracked_metrics: [pass^k]\n"
    )


def _json(task_id: str, suite: str, policy: str) -> str:
    task = {
        "task_id": task_id,
        "suite": suite,
        "description": "d",
        "inputs": {"prompt": "hi"},
        "graders": [{"type": "contains", "value": "x"}],
        "tracked_metrics": ["pass^k"],
        "policy": policy,
    }
    return json.dumps(task, indent=2) + "\n"


def _toml(task_id: str, suite: str, policy: str) -> str:
    return (
        f'task_id = "{task_id}"\nsuite = "{suite}"\ndescription = "d"\n'
        f'tracked_metrics = ["pass^k"]\npolicy = "{policy}"\n'
        '[inputs]\nprompt = "hi"\n[[graders]]\ntype = "contains"\nvalue = "x"\n'
    )


WRITERS = {"yaml": _yaml, "json": _json, "toml": _toml}
# the line each writer puts `policy` on
POLICY_LINE = {"yaml": 4, "json": 17, "toml": 5}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[HistoryStore]:
    with HistoryStore.open(str(tmp_path / "h.db")) as opened:
        yield opened


def _lines(store: HistoryStore, *paths: Path) -> list[str]:
    return [str(f) for f in lint(store, [str(p) for p in paths])]


@pytest.mark.parametrize("ext", list(WRITERS))
def test_a_golden_usually_passes_task_file_is_a_contradiction(store, tmp_path, ext) -> None:
    file = tmp_path / "tasks" / f"u.{ext}"
    file.parent.mkdir()
    file.write_text(WRITERS[ext]("u", "golden", "USUALLY_PASSES"))
    assert _lines(store, file.parent) == [f"{file}:{POLICY_LINE[ext]}: u: {CONTRADICTION}"]


def test_usually_passes_outside_golden_is_fine(store, tmp_path) -> None:
    (tmp_path / "adv.yaml").write_text(_yaml("adv", "adversarial", "USUALLY_PASSES"))
    (tmp_path / "oe.yaml").write_text(_yaml("oe", "open_ended", None))
    assert _lines(store, tmp_path) == []


@pytest.mark.parametrize("ext", list(WRITERS))
def test_an_always_passes_task_file_without_a_promotion_names_its_line(
    store, tmp_path, ext
) -> None:
    file = tmp_path / f"a.{ext}"
    file.write_text(WRITERS[ext]("a", "adversarial", "ALWAYS_PASSES"))
    assert _lines(store, file) == [
        f"{file}:{POLICY_LINE[ext]}: a: new eval created as ALWAYS_PASSES; start it as "
        "USUALLY_PASSES and let `trialrun promote` move it up"
    ]
    store.record_policy_change(
        action="promote", test_id="a", kind="task", source=str(file),
        from_policy="USUALLY_PASSES", to_policy="ALWAYS_PASSES", models=[], reason="test",
    )
    assert _lines(store, file) == []


def test_the_advice_for_a_golden_task_does_not_lead_into_the_contradiction(
    store, tmp_path
) -> None:
    (tmp_path / "g.yaml").write_text(_yaml("g", "golden", "ALWAYS_PASSES"))
    [line] = _lines(store, tmp_path)
    assert "start it as USUALLY_PASSES in another suite than golden" in line


def test_an_invalid_task_file_is_named_not_passed_over(store, tmp_path) -> None:
    (tmp_path / "good.yaml").write_text(_yaml("good", "golden", None))
    (tmp_path / "broken.yaml").write_text(_yaml("broken", "golden", "USUALLY_PASSES").replace(
        "tracked_metrics: [pass^k]\n", ""))
    [line] = _lines(store, tmp_path)
    assert line.startswith(f"{tmp_path / 'broken.yaml'}:1: tracked_metrics: required key")
    assert line.endswith(
        f"not a valid task file, so not linted (`trialrun validate {tmp_path / 'broken.yaml'}` "
        "lists its 1 problem(s))"
    )


def test_cli_lint_exits_1_on_the_contradiction_and_0_once_fixed(tmp_path) -> None:
    task = tmp_path / "tasks" / "g.yaml"
    task.parent.mkdir()
    task.write_text(_yaml("g", "golden", "USUALLY_PASSES"))

    def cli() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "trialrun", "lint", "tasks", "--store", "h.db"],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )

    flagged = cli()
    assert flagged.returncode == 1, flagged.stderr
    assert flagged.stdout.splitlines() == [f"tasks/g.yaml:4: g: {CONTRADICTION}"]
    task.write_text(_yaml("g", "golden", None))  # the suite's own policy, ALWAYS_PASSES
    clean = cli()
    assert clean.returncode == 0, clean.stdout + clean.stderr
