"""Loading native (YAML, JSON, TOML) and Scribe tasks; folders; fixtures; provenance."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tasks_support import write

from trialrun.tasks import load_tasks

YAML_TASK = """
task_id: y1
suite: golden
description: d
inputs: {prompt: hello}
graders:
  - {type: contains, value: hi}
tracked_metrics: [pass^k]
"""


def test_yaml_single_task_gets_suite_defaults(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", YAML_TASK)
    report = load_tasks([f])
    assert report.problems == []
    [task] = report.tasks
    assert task.task_id == "y1"
    assert task.k == 3 and task.metric == "pass^k"
    assert task.environment.budgets.max_turns == 20
    assert task.policy == "ALWAYS_PASSES"
    assert task.source == f and task.source_format == "native"
    assert task.graders[0].type == "contains"
    assert report.files == [f]


def test_json_single_and_list(tmp_path: Path) -> None:
    one = {
        "task_id": "j1",
        "suite": "adversarial",
        "description": "d",
        "inputs": {"prompt": "p"},
        "graders": [{"type": "forbiddenTools", "tools": ["delete_file"]}],
        "tracked_metrics": ["pass^k"],
    }
    two = dict(one, task_id="j2", suite="open_ended")
    write(tmp_path / "a.json", json.dumps(one))
    write(tmp_path / "b.json", json.dumps([two, dict(one, task_id="j3")]))
    report = load_tasks([tmp_path])
    assert report.problems == []
    assert [t.task_id for t in report.tasks] == ["j1", "j2", "j3"]
    assert report.tasks[0].k == 10  # adversarial default
    assert report.tasks[1].metric == "pass@k" and report.tasks[1].policy == "USUALLY_PASSES"


def test_toml_single_and_tasks_array(tmp_path: Path) -> None:
    write(
        tmp_path / "one.toml",
        """
        task_id = "t1"
        suite = "golden"
        description = "d"
        tracked_metrics = ["pass^k"]
        [inputs]
        prompt = "p"
        [[graders]]
        type = "regex"
        value = ["a+", "b"]
        flags = "i"
        """,
    )
    write(
        tmp_path / "many.toml",
        """
        [[tasks]]
        task_id = "t2"
        suite = "golden"
        description = "d"
        tracked_metrics = ["pass^k"]
        inputs = { prompt = "p" }
        graders = [ { type = "contains", value = "x" } ]

        [[tasks]]
        task_id = "t3"
        suite = "failure_replays"
        description = "d"
        tracked_metrics = ["solve^k"]
        [tasks.inputs]
        prompt = "q"
        [[tasks.graders]]
        type = "toolCallBudget"
        max = 3
        """,
    )
    report = load_tasks([tmp_path])
    assert report.problems == [], [str(p) for p in report.problems]
    ids = {t.task_id: t for t in report.tasks}
    assert set(ids) == {"t1", "t2", "t3"}
    assert ids["t1"].graders[0].flags == "i"
    assert ids["t3"].graders[0].max == 3 and ids["t3"].k == 5


def test_scribe_mapping_field_by_field(tmp_path: Path) -> None:
    write(tmp_path / "fixtures/vault/Note.md", "---\nbudget: 1\n---\nbody\n")
    write(tmp_path / "fixtures/_seed/x/AGENTS.md", "be nice\n")
    data = {
        "id": "scribe-one",
        "description": "desc",
        "userMessage": "do it",
        "difficulty": "T2",
        "category": "editing",
        "fixture": "vault",
        "contextFiles": ["eval-scratch/Note.md"],
        "setup": [{"path": "AGENTS.md", "from": "_seed/x/AGENTS.md"}],
        "expectedTools": ["read_file"],
        "forbiddenTools": [],
        "outputMatchers": [
            {"type": "contains", "value": ["a", "b"], "caseSensitive": False},
            {"type": "regex", "value": "x+", "flags": "im"},
            {"type": "judge", "criteria": "is polite"},
        ],
        "vaultAssertions": [
            {
                "type": "frontmatterEquals",
                "path": "eval-scratch/Note.md",
                "key": "budget",
                "value": 41200,
            },
            {"type": "fileLacks", "path": "eval-scratch/Note.md", "value": ["x", "y"]},
            {"type": "fileUnchanged", "path": "eval-scratch/Note.md", "fixture": "Note.md"},
        ],
        "toolCallBudget": 7,
        "maxTurns": 9,
        "timeoutMs": 45000,
    }
    f = write(tmp_path / "scribe-one.json", json.dumps(data))
    report = load_tasks([f])
    assert report.problems == [], [str(p) for p in report.problems]
    [t] = report.tasks
    assert t.source_format == "scribe"
    assert t.task_id == "scribe-one" and t.suite == "golden"
    assert t.description == "desc" and t.inputs.prompt == "do it"
    assert t.tier == "T2" and t.tags == ["editing"]
    assert t.inputs.context_files == ["eval-scratch/Note.md"]
    assert t.tracked_metrics == ["pass^k", "solve^k"]
    env = t.environment
    assert env.fixture == "vault" and env.fixture_dest == "eval-scratch"
    assert [(s.path, s.from_) for s in env.setup] == [("AGENTS.md", "_seed/x/AGENTS.md")]
    assert env.budgets.max_turns == 9
    assert env.budgets.timeout_s == 45.0
    assert env.budgets.tool_call_budget == 7
    assert t.fixture_path == tmp_path / "fixtures" / "vault"
    assert t.fixtures_root == tmp_path / "fixtures"
    types = [g.type for g in t.graders]
    assert types == [
        "expectedTools",
        "forbiddenTools",
        "contains",
        "regex",
        "judge",
        "frontmatterEquals",
        "fileLacks",
        "fileUnchanged",
        "toolCallBudget",
    ]
    g = t.graders
    assert g[0].tools == ["read_file"] and g[1].tools == []
    assert g[2].value == ["a", "b"] and g[2].caseSensitive is False
    assert g[3].flags == "im"
    assert g[4].criteria == "is polite"
    assert g[5].key == "budget" and g[5].value == 41200 and not isinstance(g[5].value, str)
    assert g[6].value == ["x", "y"]
    assert g[7].fixture == "Note.md"
    assert g[8].max == 7


def test_scribe_defaults(tmp_path: Path) -> None:
    f = write(
        tmp_path / "s.json",
        json.dumps({"id": "s", "description": "d", "userMessage": "u", "forbiddenTools": []}),
    )
    [t] = load_tasks([f]).tasks
    assert t.environment.budgets.max_turns == 15
    assert t.environment.budgets.timeout_s == 300.0
    assert t.tier is None and t.tags == []
    assert [g.type for g in t.graders] == ["forbiddenTools"]


def test_scribe_absent_tool_lists_make_no_grader(tmp_path: Path) -> None:
    f = write(
        tmp_path / "s.json",
        json.dumps(
            {
                "id": "s",
                "description": "d",
                "userMessage": "u",
                "outputMatchers": [{"type": "contains", "value": "x"}],
            }
        ),
    )
    [t] = load_tasks([f]).tasks
    assert [g.type for g in t.graders] == ["contains"]


def test_folder_scan_skips_fixtures_hidden_and_non_task_files(tmp_path: Path) -> None:
    write(tmp_path / "a/t.yaml", YAML_TASK)
    write(tmp_path / "a/fixtures/x/not-a-task.json", "{}")
    write(tmp_path / ".hidden/t.yaml", "junk: [")
    write(tmp_path / "a/readme.md", "# not scanned")
    write(tmp_path / "scripts/model.yaml", "tasks:\n  y1: [{content: hi}]\ndefault: []\n")
    write(tmp_path / "suite.toml", '[meta]\nname = "s"\n[[models]]\nspec = "local"\n')
    write(tmp_path / "trialrun.toml", "[judge]\nmodel = 'x'\n")
    write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")
    report = load_tasks([tmp_path])
    assert report.problems == []
    assert [t.task_id for t in report.tasks] == ["y1"]
    skipped = {p.name: reason for p, reason in report.skipped}
    assert set(skipped) == {"model.yaml", "suite.toml", "trialrun.toml", "pyproject.toml"}
    assert "scripted-model" in skipped["model.yaml"]
    assert "suite config" in skipped["suite.toml"]
    assert report.files == [tmp_path / "a/t.yaml"]


def test_other_files_must_be_tasks(tmp_path: Path) -> None:
    write(tmp_path / "config.yaml", "name: something\n")
    report = load_tasks([tmp_path])
    assert report.tasks == []
    assert report.invalid_files == [tmp_path / "config.yaml"]
    assert any("task_id: required key is missing" in str(p) for p in report.problems)


def test_fixture_lookup_task_folder_then_parent(tmp_path: Path) -> None:
    task = YAML_TASK + "environment: {fixture: fx}\n"
    write(tmp_path / "fixtures/fx/a.md", "parent\n")
    write(tmp_path / "sub/t.yaml", task)
    [t] = load_tasks([tmp_path / "sub/t.yaml"]).tasks
    assert t.fixture_path == tmp_path / "fixtures/fx"
    write(tmp_path / "sub/fixtures/fx/a.md", "own\n")
    [t] = load_tasks([tmp_path / "sub/t.yaml"]).tasks
    assert t.fixture_path == tmp_path / "sub/fixtures/fx"
    assert t.fixtures_root == tmp_path / "sub/fixtures"


def test_symlinked_fixture_files_pointing_outside_load_only_when_allowed(tmp_path: Path) -> None:
    outside = write(tmp_path / "elsewhere/secret.md", "outside\n")
    (tmp_path / "suite/fixtures/fx").mkdir(parents=True)
    os.symlink(outside, tmp_path / "suite/fixtures/fx/linked.md")
    os.symlink(tmp_path / "elsewhere", tmp_path / "suite/fixtures/linkdir")
    write(
        tmp_path / "suite/t.yaml",
        YAML_TASK.replace(
            "tracked_metrics",
            "  - {type: fileUnchanged, path: linked.md, fixture: linked.md}\ntracked_metrics",
        )
        + "environment:\n  fixture: fx\n  setup: [{path: s.md, from: linkdir/secret.md}]\n",
    )
    refused = load_tasks([tmp_path / "suite"])
    assert [p.field for p in refused.problems] == [
        "environment.fixture",
        "environment.setup.0.from",
    ]
    assert all("--allow-external-links" in p.message for p in refused.problems)
    report = load_tasks([tmp_path / "suite"], allow_external_links=True)
    assert report.problems == [], [str(p) for p in report.problems]
    assert report.tasks[0].fixture_path == tmp_path / "suite/fixtures/fx"


def test_duplicate_ids_across_files_name_both(tmp_path: Path) -> None:
    a = write(tmp_path / "a.yaml", YAML_TASK)
    b = write(tmp_path / "b.yaml", "# one\n# two\n" + YAML_TASK.lstrip())
    report = load_tasks([tmp_path])
    [p] = report.problems
    assert p.path == b and p.line == 3 and p.field == "task_id"
    assert str(a) in p.message and "duplicate task id 'y1'" in p.message
    assert report.invalid_files == [b]
    assert [t.source for t in report.tasks] == [a]


def test_same_file_given_twice_loads_once(tmp_path: Path) -> None:
    f = write(tmp_path / "a.yaml", YAML_TASK)
    report = load_tasks([f, tmp_path, str(f)])
    assert len(report.tasks) == 1 and report.problems == []


def test_missing_path_and_empty_folder_are_problems(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    report = load_tasks([tmp_path / "nope.yaml", tmp_path / "empty"])
    messages = [str(p) for p in report.problems]
    assert messages[0].endswith("nope.yaml: no such file or folder")
    assert "no task files" in messages[1]


@pytest.mark.parametrize("name", ["x.txt", "x.md"])
def test_explicit_non_task_suffix_is_a_problem(tmp_path: Path, name: str) -> None:
    f = write(tmp_path / name, "hi")
    [p] = load_tasks([f]).problems
    assert "not a task file" in p.message


def test_examples_load_cleanly(examples: Path) -> None:
    report = load_tasks([examples])
    assert report.problems == [], [str(p) for p in report.problems]
    assert report.warnings == []
    by_id = {t.task_id: t for t in report.tasks}
    assert len(by_id) == len(report.tasks) >= 8
    suffixes = {t.source.suffix for t in report.tasks if t.source_format == "native"}
    assert suffixes == {".yaml", ".json", ".toml"}
    assert {t.suite for t in report.tasks} == {
        "golden", "adversarial", "open_ended", "failure_replays"
    }
    assert sum(t.source_format == "scribe" for t in report.tasks) >= 2
    assert sum(t.k * 1 for t in report.tasks) <= 50  # `trialrun run examples/ -m local` stays short
    assert {p.name for p, _ in report.skipped} == {
        "good.yaml", "bad.yaml", "full-suite.toml", "judge.yaml", "model-a.yaml", "model-b.yaml",
        "agent.yaml",
        "support_user.yaml",  # the simulated user
        "incident-2026-11-20.chat.json",  # the replay's recording
        "agents",  # the agent-CLI examples: a project of their own (trialrun.toml)
    }
    judge_tasks = [t for t in report.tasks if any(g.type == "judge" for g in t.graders)]
    assert all(t.source.parent.name == "open_ended" for t in judge_tasks)


TASK_YAML = """
task_id: t
suite: golden
description: d
inputs: {prompt: hi}
graders: [{type: contains, value: hi}]
tracked_metrics: [pass^k]
"""


def test_trialrun_outputs_beside_tasks_are_skipped_and_named(tmp_path: Path) -> None:
    write(tmp_path / "t.yaml", TASK_YAML)
    run = tmp_path / "results" / "20261126T000000Z-ab12"
    write(run / "run.json", json.dumps({"run_id": "20261126T000000Z-ab12", "models": ["m"]}))
    write(run / "results.jsonl", "")
    write(run / "summary.json", json.dumps({"run_id": "x", "models": ["m"], "tasks": []}))
    # a kept workspace holds the fixture's files, task-shaped or not: never read
    write(run / "workspaces" / "m" / "t-0" / "broken.yaml", "task_id: [")
    baseline = {"format": "trialrun-baseline/1", "run_id": "r", "tasks": [{"task_id": "t"}]}
    write(tmp_path / "baselines" / "scripted-good.json", json.dumps(baseline))
    write(tmp_path / "copied-run.json", json.dumps({"run_id": "r", "argv": [], "task_files": []}))
    write(tmp_path / "bench" / "frames_a.summary.json", json.dumps(
        {"benchmark": "frames", "model": "a", "total_samples": 3, "accuracy": 0.5, "errors": 0}))
    report = load_tasks([tmp_path])
    assert report.problems == [], [str(p) for p in report.problems]
    assert [t.task_id for t in report.tasks] == ["t"]
    reasons = {p.relative_to(tmp_path).as_posix(): r for p, r in report.skipped}
    assert reasons == {
        "results/20261126T000000Z-ab12": "trialrun run folder (run.json, results.jsonl)",
        "baselines/scripted-good.json": "trialrun baseline (format trialrun-baseline/1)",
        "copied-run.json": "trialrun run record (run_id: a run's run.json or summary.json)",
        "bench/frames_a.summary.json": "benchmark summary (benchmark, accuracy, total_samples)",
    }


def test_a_task_with_extra_keys_like_an_output_is_still_a_task(tmp_path: Path) -> None:
    # recognising outputs never swallows a task: one with task_id is checked as a task
    write(tmp_path / "t.yaml", TASK_YAML + "run_id: 3\n")
    report = load_tasks([tmp_path])
    assert report.skipped == [] and "run_id" in str(report.problems[0])


def test_a_subfolder_with_its_own_trialrun_toml_is_another_project(tmp_path: Path) -> None:
    # examples/agents: tasks for agent CLIs under their own [run] agent; scanning the parent
    # passes them over, named, and naming the folder itself runs them
    write(tmp_path / "t.yaml", TASK_YAML)
    write(tmp_path / "agents" / "trialrun.toml", '[run]\nagent = "gemini-cli"\n')
    write(tmp_path / "agents" / "a.yaml", TASK_YAML.replace("task_id: t", "task_id: a"))
    report = load_tasks([tmp_path])
    assert [t.task_id for t in report.tasks] == ["t"]
    reasons = {p.relative_to(tmp_path).as_posix(): r for p, r in report.skipped}
    assert reasons == {
        "agents": "a project of its own (trialrun.toml): run it by its path, where its config "
        "applies"
    }
    assert [t.task_id for t in load_tasks([tmp_path / "agents"]).tasks] == ["a"]
    # the scanned folder's own trialrun.toml is its config, not a nested project
    write(tmp_path / "trialrun.toml", "")
    assert [t.task_id for t in load_tasks([tmp_path]).tasks] == ["t"]
